/* ---- one execute of a plan ------------------------------------------------------ */

/* An execute checks its arguments and votes on them with the plan's
   shape, then makes the product (or only C = beta*C), votes that every
   rank's blocks are right before C is written, writes C, and closes with
   the times' maximum over the ranks and a last vote. Its arguments,
   outcome and times are the call's own pieces (gemm__mpi_call,
   gemm__mpi_err, gemm_timing); what lasts is the plan's. */
#pragma once

#include <string.h>
#include "check.c"      /* gemm__mpi_prepare, gemm__mpi_check_exec_options */
#include "distribute.c" /* the blocks in place, and C back */
#include "local.c"      /* gemm__mpi_scale */
#include "plan.c"       /* gemm__mpi_form, the shape's values */
#include "root_devices.c" /* the root-held form on the root's host call */
#include "rounds.c"
#include "setup.c"      /* gemm__mpi_cuda_init */
#include "stream.c"
#include "vote.c"

/* A call's arguments before its checks: the form and where its outputs
   go (options may be NULL). */
static void gemm__mpi_call_init(gemm__mpi_call *c, int form, const gemm_mpi_options *options)
{
    memset(c, 0, sizeof *c);
    c->form = form;
    c->timing = options ? options->timing : NULL;
    c->timing_max = options ? options->timing_max : NULL;
    c->path_used = options ? options->path_used : NULL;
}

/* The execute's vote: every rank's arguments are valid (checked into *c),
   and every rank passed the same shape, options, scalars and form. Returns
   what the call has to do. */
static gemm__work gemm__mpi_agree(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, int form,
                                  const gemm__mpi_args *in, gemm__mpi_call *c, gemm__mpi_err *e)
{
    int64_t v[GEMM__MPI_SHAPE_VALUES + 3];
    gemm_status s;
    if (e->st == GEMM_OK) gemm__mpi_keep(e, gemm__mpi_prepare(e->func, sh, tm, form, in, c));
    gemm__mpi_shape_values(sh, form, v);
    memcpy(&v[GEMM__MPI_SHAPE_VALUES], &in->alpha, 8);
    memcpy(&v[GEMM__MPI_SHAPE_VALUES + 1], &in->beta, 8);
    v[GEMM__MPI_SHAPE_VALUES + 2] = form;
    s = gemm__mpi_vote(tm, e, v, GEMM__MPI_SHAPE_VALUES + 3, gemm__mpi_shape_names);
    if (s != GEMM_OK) gemm__mpi_agreed(e, s);
    return s == GEMM_OK ? c->p.work : GEMM__WORK_NONE;
}

/* C = beta*C needs no communication: the rank holding C does it (on the
   root's host, or on each rank's GPU for distributed pieces, which may
   choose the GPU first). */
static void gemm__mpi_scale_only(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                 const gemm__mpi_call *c, gemm__mpi_err *e, gemm_timing *t)
{
    double t0 = gemm__mpi_now();
    if (c->form == 1) {
        if (dv->cuda && !dv->ready) gemm__mpi_cuda_init(tm, dv, e);
        gemm__mpi_scale(sh, dv, e, dv->cuda, tm->g.c.rows, tm->g.c.cols, c->beta, c->C, c->p.ldc);
    } else if (tm->rank == sh->o.root)
        gemm__mpi_scale(sh, dv, e, 0, c->p.m, c->p.n, c->beta, c->C, c->p.ldc);
    t->compute_s += gemm__mpi_now() - t0;
}

/* The product on the plan's blocks: the blocks in place, the rounds, then
   C, written only when every rank's blocks are right. */
static void gemm__mpi_product(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                              const gemm__mpi_call *c, gemm__mpi_bufs *bf, gemm__mpi_xchg *xc, gemm__mpi_stage *sg,
                              gemm__mpi_err *e, gemm_timing *t)
{
    gemm_status s;
    if (gemm__mpi_streams(sh, tm, dv, c)) gemm__mpi_stream(sh, tm, dv, c, bf, xc, sg, e, t);
    else {
        gemm__mpi_slab sl;
        int prelaunched = 0;
        sl.kb = tm->g.kb;
        sl.abytes = bf->abytes;
        sl.bbytes = bf->bbytes;
        if (c->form == 1) gemm__mpi_local_blocks(sh, tm, dv, c, bf, xc, e, t);
        else prelaunched = gemm__mpi_distribute(sh, tm, dv, c, bf, sg, e, t);
        if (sh->o.algorithm == GEMM_MPI_FOX) gemm__mpi_fox(sh, tm, dv, c, bf, xc, e, t);
        else gemm__mpi_cannon(sh, tm, dv, c, bf, &sl, xc, NULL, e, t, 0, prelaunched);
    }
    s = gemm__mpi_vote(tm, e, NULL, 0, NULL);
    if (s != GEMM_OK) gemm__mpi_agreed(e, s);
    else if (c->form == 1) gemm__mpi_store_c(sh, tm, dv, c, bf, e);
    else gemm__mpi_gather(sh, tm, dv, c, bf, sg, e, t);
}

/* Fills the call's outputs, when given, on every return. */
static void gemm__mpi_outputs(const gemm__mpi_call *c, const gemm_timing *t, const gemm_timing *max,
                              gemm_mpi_path path)
{
    if (c->timing) *c->timing = *t;
    if (c->timing_max) *c->timing_max = *max;
    if (c->path_used) *c->path_used = path;
}

/* The times' maximum (every rank reduces, timing or not, so that ranks
   asking on some ranks only call the same collectives), then, unless a
   vote already agreed the outcome, the last vote: every rank returns the
   same status, which an MPI failure makes GEMM_ERR_MPI (the plan is then
   broken: the caller marks it). gemm_timing is all doubles. */
static gemm_status gemm__mpi_close(const gemm__mpi_team *tm, const gemm__mpi_device *dv, const gemm__mpi_call *c,
                                   gemm__mpi_err *e, gemm_timing *t, double t_start, int final_vote)
{
    gemm_timing max;
    gemm_status s;
    t->total_s = gemm__mpi_now() - t_start;
    max = *t;
    GEMM__MPI_DO(e, MPI_Allreduce(t, &max, (int)(sizeof *t / sizeof(double)), MPI_DOUBLE, MPI_MAX, tm->comm));
    if (e->agreed || !final_vote) s = e->st == GEMM_OK ? GEMM_OK : gemm__fail(e->st, "%s", e->detail);
    else s = gemm__mpi_vote(tm, e, NULL, 0, NULL);
    gemm__mpi_outputs(c, t, &max, c->form == 0 && dv->root_devices ? GEMM_MPI_PATH_ROOT_DEVICES : dv->path);
    return s;
}

/* One execute of the plan: the form `form` (0 root-held, 1 distributed) on
   the data in `in` (the plan's shape with this call's scalars and
   pointers); c, e and t are the call's (its outputs, outcome and times). */
static gemm_status gemm__mpi_execute(gemm_mpi_plan *pl, gemm_precision precision, int form, const gemm__mpi_args *in,
                                     const gemm_mpi_options *exec_options, double t_start, gemm__mpi_call *c,
                                     gemm__mpi_err *e, gemm_timing *t)
{
    const gemm__mpi_shape *sh = &pl->shape;
    gemm__work work;
    gemm_status s;
    if (e->st == GEMM_OK && precision != sh->precision)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the plan is for %s, this call for %s", e->func,
                                     gemm_precision_name(sh->precision), gemm_precision_name(precision)));
    if (e->st == GEMM_OK) gemm__mpi_keep(e, gemm__mpi_check_exec_options(e->func, &sh->o, exec_options));
    work = gemm__mpi_agree(sh, &pl->team, form, in, c, e);
    if (work == GEMM__WORK_SCALE) gemm__mpi_scale_only(sh, &pl->team, &pl->dev, c, e, t);
    else if (work == GEMM__WORK_FULL && form == 0 && pl->dev.root_devices)
        gemm__mpi_root_devices_run(sh, &pl->team, &pl->dev, in, e, t);
    else if (work == GEMM__WORK_FULL) {
        gemm__mpi_form(sh, &pl->team, &pl->dev, &pl->bufs, &pl->xchg, &pl->stage, e, t, form);
        if (e->st == GEMM_OK) gemm__mpi_product(sh, &pl->team, &pl->dev, c, &pl->bufs, &pl->xchg, &pl->stage, e, t);
    }
    s = gemm__mpi_close(&pl->team, &pl->dev, c, e, t, t_start, 1);
    if (s == GEMM_ERR_MPI) pl->broken = 1; /* transfers may be pending: the plan cannot go on */
    return s;
}
