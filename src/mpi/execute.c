/* ---- one execute of a plan ------------------------------------------------------ */

#pragma once

#include <string.h>
#include "check.c"
#include "distribute.c"
#include "local.c" /* gemm__mpi_scale */
#include "plan.c"
#include "rounds.c"
#include "setup.c" /* gemm__mpi_cuda_init */
#include "stream.c"
#include "vote.c"

/* The execute's vote: every rank's arguments are valid, and every rank
   passed the same shape, options, scalars and form. Returns what the call
   has to do. */
static gemm__work gemm__mpi_agree(gemm__mpi *x, const gemm__mpi_args *in)
{
    int64_t v[GEMM__MPI_SHAPE_VALUES + 3];
    gemm_status s;
    if (x->st == GEMM_OK) gemm__mpi_keep(x, gemm__mpi_prepare(x, in, &x->u));
    gemm__mpi_shape_values(x, v);
    memcpy(&v[GEMM__MPI_SHAPE_VALUES], &in->alpha, 8);
    memcpy(&v[GEMM__MPI_SHAPE_VALUES + 1], &in->beta, 8);
    v[GEMM__MPI_SHAPE_VALUES + 2] = x->distributed;
    s = gemm__mpi_vote(x, x->comm, v, GEMM__MPI_SHAPE_VALUES + 3, gemm__mpi_shape_names);
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    return s == GEMM_OK ? x->p.work : GEMM__WORK_NONE;
}

/* C = beta*C needs no communication: the rank holding C does it (on the
   root's host, or on each rank's GPU for distributed pieces). */
static void gemm__mpi_scale_only(gemm__mpi *x)
{
    double t0 = gemm__mpi_now();
    if (x->distributed) {
        if (x->cuda && !x->cuda_ready) gemm__mpi_cuda_init(x);
        gemm__mpi_scale(x, x->cuda, x->g.c.rows, x->g.c.cols, x->C, x->p.ldc);
    } else if (x->rank == x->o.root)
        gemm__mpi_scale(x, 0, x->p.m, x->p.n, x->C, x->p.ldc);
    x->t.compute_s += gemm__mpi_now() - t0;
}

/* The product on the plan's blocks: the blocks in place, the rounds, then
   C, written only when every rank's blocks are right. */
static void gemm__mpi_product(gemm__mpi *x)
{
    gemm_status s;
    if (gemm__mpi_streams(x)) gemm__mpi_stream(x);
    else {
        if (x->distributed) gemm__mpi_local_blocks(x);
        else gemm__mpi_distribute(x);
        if (x->o.algorithm == GEMM_MPI_FOX) gemm__mpi_fox(x);
        else gemm__mpi_cannon(x);
    }
    s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    else if (x->distributed) gemm__mpi_store_c(x);
    else gemm__mpi_gather(x);
}

/* Fills the options' outputs, when given, on every return. */
static void gemm__mpi_outputs(const gemm__mpi *x, const gemm_timing *max)
{
    if (x->o.timing) *x->o.timing = x->t;
    if (x->o.timing_max) *x->o.timing_max = *max;
    if (x->o.path_used) *x->o.path_used = x->path;
}

/* The times' maximum (every rank reduces, timing or not, so that ranks
   asking on some ranks only call the same collectives), then, unless a
   vote already agreed the outcome, the last vote: every rank returns the
   same status. gemm_timing is all doubles. */
static gemm_status gemm__mpi_close(gemm__mpi *x, double t_start, int final_vote)
{
    gemm_timing max;
    gemm_status s;
    x->t.total_s = gemm__mpi_now() - t_start;
    max = x->t;
    GEMM__MPI_DO(x, MPI_Allreduce(&x->t, &max, (int)(sizeof x->t / sizeof(double)), MPI_DOUBLE, MPI_MAX, x->comm));
    if (x->agreed || !final_vote) s = x->st == GEMM_OK ? GEMM_OK : gemm__fail(x->st, "%s", x->detail);
    else s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
    if (s == GEMM_ERR_MPI) x->broken = 1; /* transfers may be pending: the plan cannot go on */
    gemm__mpi_outputs(x, &max);
    return s;
}

/* One execute: the form `form` (0 root-held, 1 distributed) on the data in
   `in` (the plan's shape with this call's scalars and pointers). */
static gemm_status gemm__mpi_execute(gemm__mpi *x, gemm_precision precision, int form, const gemm__mpi_args *in,
                                     const gemm_mpi_options *exec_options, double t_start)
{
    gemm__work work;
    x->distributed = form;
    x->chunk = 0;
    x->prelaunched = 0;
    if (x->st == GEMM_OK && precision != x->precision)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the plan is for %s, this call for %s", x->func,
                                     gemm_precision_name(x->precision), gemm_precision_name(precision)));
    if (x->st == GEMM_OK) gemm__mpi_keep(x, gemm__mpi_check_exec_options(x, exec_options));
    work = gemm__mpi_agree(x, in);
    if (work == GEMM__WORK_SCALE) gemm__mpi_scale_only(x);
    else if (work == GEMM__WORK_FULL) {
        gemm__mpi_form(x, form);
        if (x->st == GEMM_OK) gemm__mpi_product(x);
    }
    return gemm__mpi_close(x, t_start, 1);
}
