/* ---- the entry points ------------------------------------------------------------ */

/* Thin typed wrappers over gemm__mpi_plan_call (a plan's executes) and
   gemm__mpi_one_shot (a plan made on the stack, executed once, freed). */
#pragma once

#include <string.h>
#include "check.c"    /* gemm__mpi_args */
#include "comm.c"     /* gemm__mpi_running */
#include "execute.c"
#include "plan.c"     /* gemm__mpi_init, gemm__mpi_begin, gemm__mpi_setup */
#include "teardown.c" /* gemm__mpi_free_all */
#include "vote.c"

/* Outputs of a call that could not start (MPI not running, no communicator). */
static void gemm__mpi_outputs_early(const gemm_mpi_options *o)
{
    gemm_timing zero;
    memset(&zero, 0, sizeof zero);
    if (!o) return;
    if (o->timing) *o->timing = zero;
    if (o->timing_max) *o->timing_max = zero;
    if (o->path_used) *o->path_used = GEMM_MPI_PATH_HOST;
}

/* A plan's create; `pairs`: the real form of a complex plan (its sizes
   already doubled, gemm__mpi_shape). */
static gemm_status gemm__mpi_plan_make(const char *func, MPI_Comm comm, gemm_precision precision, gemm_layout layout,
                                       gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                       int pairs, const gemm_mpi_options *options, gemm_mpi_plan **plan)
{
    gemm_mpi_plan pl, *made = NULL;
    gemm__mpi_call c;
    gemm__mpi_err e;
    gemm_timing t;
    gemm_status s;
    double t0;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: plan is NULL", func);
    *plan = NULL;
    s = gemm__mpi_running(func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    t0 = gemm__mpi_now();
    gemm__mpi_init(&pl, &e, func, precision, layout, transa, transb, m, n, k, options);
    pl.shape.pairs = pairs;
    gemm__mpi_call_init(&c, -1, options); /* the create's outputs, not the executes' */
    memset(&t, 0, sizeof t);
    s = gemm__mpi_begin(&pl.shape, comm, -1, 1, &pl.team, &e);
    if (pl.team.comm == MPI_COMM_NULL) { gemm__mpi_outputs_early(options); return s; }
    if (s == GEMM_OK) gemm__mpi_setup(&pl.shape, &pl.team, &pl.dev, &pl.bufs, &pl.xchg, &pl.stage, &e, &t, -1);
    if (e.st == GEMM_OK && !(made = (gemm_mpi_plan *)GEMM_MALLOC(sizeof *made)))
        gemm__mpi_keep(&e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the plan", func));
    if (!e.agreed) {
        s = gemm__mpi_vote(&pl.team, &e, NULL, 0, NULL);
        if (s != GEMM_OK) gemm__mpi_agreed(&e, s);
    }
    t.setup_s = gemm__mpi_now() - t0;
    s = gemm__mpi_close(&pl.team, &pl.dev, &c, &e, &t, t0, 0);
    if (s == GEMM_ERR_MPI) pl.broken = 1;
    if (s != GEMM_OK) {
        GEMM_FREE(made);
        gemm__mpi_free_all(&pl, func, 1);
        return gemm__fail(s, "%s", e.detail);
    }
    *made = pl;
    *plan = made;
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_mpi_plan_create(MPI_Comm comm, gemm_precision precision, gemm_layout layout,
                                          gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                          int64_t k, const gemm_mpi_options *options, gemm_mpi_plan **plan)
{
    return gemm__mpi_plan_make("gemm_mpi_plan_create", comm, precision, layout, transa, transb, m, n, k, 0, options,
                               plan);
}

GEMM_DEF gemm_status gemm_mpi_plan_destroy(gemm_mpi_plan **plan)
{
    gemm_status s;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_plan_destroy: plan is NULL");
    if (!*plan) return GEMM_OK;
    GEMM_FREE((*plan)->cx.buf);
    s = gemm__mpi_free_all(*plan, "gemm_mpi_plan_destroy", 1);
    GEMM_FREE(*plan);
    *plan = NULL;
    return s;
}

/* The one function behind the four plan executes. */
static gemm_status gemm__mpi_plan_call(gemm_mpi_plan *plan, const char *func, gemm_precision precision, int form,
                                       double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                       double beta, void *C, int64_t ldc, const gemm_mpi_options *options)
{
    const gemm__mpi_shape *sh;
    gemm__mpi_args in;
    gemm__mpi_call c;
    gemm__mpi_err e;
    gemm_timing t;
    gemm_status s;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: plan is NULL", func);
    sh = &plan->shape;
    s = gemm__mpi_running(func);
    if (s == GEMM_OK && plan->broken)
        s = gemm__fail(GEMM_ERR_MPI, "%s: an MPI call failed in an earlier execute of this plan: destroy it", func);
    if (s == GEMM_OK && plan->cx.on && !plan->cx.inner) /* (the same plan, so the same answer, on every rank) */
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the plan is complex (gemm_mpi_plan_create_complex): execute it "
                       "with gemm_mpi_%cgemm_plan or _plan_dist", func, sh->precision == GEMM_F32 ? 'c' : 'z');
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    gemm__mpi_err_init(&e, func);
    gemm__mpi_call_init(&c, form, options);
    memset(&t, 0, sizeof t);
    in.layout = sh->layout; in.transa = sh->transa; in.transb = sh->transb;
    in.m = sh->m; in.n = sh->n; in.k = sh->k;
    in.alpha = alpha; in.A = A; in.lda = lda; in.B = B; in.ldb = ldb; in.beta = beta; in.C = C; in.ldc = ldc;
    return gemm__mpi_execute(plan, precision, form, &in, options, gemm__mpi_now(), &c, &e, &t);
}

GEMM_DEF gemm_status gemm_mpi_sgemm_plan(gemm_mpi_plan *plan, float alpha, const float *A, int64_t lda,
                                         const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                         const gemm_mpi_options *options)
{
    return gemm__mpi_plan_call(plan, "gemm_mpi_sgemm_plan", GEMM_F32, 0, alpha, A, lda, B, ldb, beta, C, ldc,
                               options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm_plan(gemm_mpi_plan *plan, double alpha, const double *A, int64_t lda,
                                         const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                         const gemm_mpi_options *options)
{
    return gemm__mpi_plan_call(plan, "gemm_mpi_dgemm_plan", GEMM_F64, 0, alpha, A, lda, B, ldb, beta, C, ldc,
                               options);
}

GEMM_DEF gemm_status gemm_mpi_sgemm_plan_dist(gemm_mpi_plan *plan, float alpha, const float *A, int64_t lda,
                                              const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                              const gemm_mpi_options *options)
{
    return gemm__mpi_plan_call(plan, "gemm_mpi_sgemm_plan_dist", GEMM_F32, 1, alpha, A, lda, B, ldb, beta, C, ldc,
                               options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm_plan_dist(gemm_mpi_plan *plan, double alpha, const double *A, int64_t lda,
                                              const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                              const gemm_mpi_options *options)
{
    return gemm__mpi_plan_call(plan, "gemm_mpi_dgemm_plan_dist", GEMM_F64, 1, alpha, A, lda, B, ldb, beta, C, ldc,
                               options);
}

/* A one-shot call: a plan made on the stack, executed once and freed, in
   one pass (the shape's vote is the execute's; the blocks are allocated
   only when there is a product to make, and freed after it). */
static gemm_status gemm__mpi_one_shot(MPI_Comm comm, const char *func, gemm_precision precision, int form,
                                      const gemm__mpi_args *in, const gemm_mpi_options *options)
{
    gemm_mpi_plan pl;
    gemm__mpi_call c;
    gemm__mpi_err e;
    gemm_timing t;
    gemm_status s;
    double t0;
    gemm__clear_error();
    s = gemm__mpi_running(func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    t0 = gemm__mpi_now();
    gemm__mpi_init(&pl, &e, func, precision, in->layout, in->transa, in->transb, in->m, in->n, in->k, options);
    gemm__mpi_call_init(&c, form, options);
    memset(&t, 0, sizeof t);
    s = gemm__mpi_begin(&pl.shape, comm, form, 0, &pl.team, &e);
    if (pl.team.comm == MPI_COMM_NULL) {
        t.total_s = gemm__mpi_now() - t0;
        gemm__mpi_outputs(&c, &t, &t, pl.dev.path);
        return s;
    }
    s = gemm__mpi_execute(&pl, precision, form, in, NULL, t0, &c, &e, &t);
    gemm__mpi_free_all(&pl, func, pl.dev.path == GEMM_MPI_PATH_CUDA_IPC);
    return s;
}

GEMM_DEF gemm_status gemm_mpi_sgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_one_shot(comm, "gemm_mpi_sgemm", GEMM_F32, 0, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_one_shot(comm, "gemm_mpi_dgemm", GEMM_F64, 0, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_sgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                         const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                         float *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_one_shot(comm, "gemm_mpi_sgemm_dist", GEMM_F32, 1, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                         const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                         double *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_one_shot(comm, "gemm_mpi_dgemm_dist", GEMM_F64, 1, &in, options);
}

#ifdef GEMM__TEST_HOOKS
GEMM_DEF void gemm__mpi_plan_counts(const gemm_mpi_plan *plan, long *allocations, long *mappings)
{
    *allocations = plan ? plan->dev.allocations : 0;
    *mappings = plan ? plan->dev.mappings : 0;
}
#endif
