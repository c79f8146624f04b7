/* ---- the entry points ------------------------------------------------------------ */

#pragma once

#include <string.h>
#include "comm.c"
#include "execute.c"
#include "plan.c"
#include "teardown.c"

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

GEMM_DEF gemm_status gemm_mpi_plan_create(MPI_Comm comm, gemm_precision precision, gemm_layout layout,
                                          gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                          int64_t k, const gemm_mpi_options *options, gemm_mpi_plan **plan)
{
    static const char *func = "gemm_mpi_plan_create";
    gemm_mpi_plan *made = NULL;
    gemm__mpi x;
    gemm_status s;
    double t0;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: plan is NULL", func);
    *plan = NULL;
    s = gemm__mpi_running(func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    t0 = gemm__mpi_now();
    gemm__mpi_init(&x, func, precision, -1, layout, transa, transb, m, n, k, options);
    s = gemm__mpi_begin(&x, comm, 1);
    if (x.comm == MPI_COMM_NULL) { gemm__mpi_outputs_early(options); return s; }
    if (s == GEMM_OK) gemm__mpi_setup(&x, -1);
    if (x.st == GEMM_OK && !(made = (gemm_mpi_plan *)GEMM_MALLOC(sizeof *made)))
        gemm__mpi_keep(&x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the plan", func));
    if (!x.agreed) {
        s = gemm__mpi_vote(&x, x.comm, NULL, 0, NULL);
        if (s != GEMM_OK) gemm__mpi_agreed(&x, s);
    }
    x.t.setup_s = gemm__mpi_now() - t0;
    s = gemm__mpi_close(&x, t0, 0);
    x.o.timing = x.o.timing_max = NULL; /* the create's outputs, not the executes' */
    x.o.path_used = NULL;
    if (s != GEMM_OK) {
        GEMM_FREE(made);
        gemm__mpi_free_all(&x, 1);
        return gemm__fail(s, "%s", x.detail);
    }
    made->x = x;
    *plan = made;
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_mpi_plan_destroy(gemm_mpi_plan **plan)
{
    gemm_status s;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_plan_destroy: plan is NULL");
    if (!*plan) return GEMM_OK;
    (*plan)->x.func = "gemm_mpi_plan_destroy";
    s = gemm__mpi_free_all(&(*plan)->x, 1);
    GEMM_FREE(*plan);
    *plan = NULL;
    return s;
}

/* The one function behind the four plan executes. */
static gemm_status gemm__mpi_plan_call(gemm_mpi_plan *plan, const char *func, gemm_precision precision, int form,
                                       double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                       double beta, void *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi *x;
    gemm__mpi_args in;
    gemm_status s;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: plan is NULL", func);
    x = &plan->x;
    s = gemm__mpi_running(func);
    if (s == GEMM_OK && x->broken)
        s = gemm__fail(GEMM_ERR_MPI, "%s: an MPI call failed in an earlier execute of this plan: destroy it", func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    x->func = func;
    x->st = GEMM_OK;
    x->agreed = 0;
    x->detail[0] = '\0';
    memset(&x->t, 0, sizeof x->t);
    x->o.timing = options ? options->timing : NULL;
    x->o.timing_max = options ? options->timing_max : NULL;
    x->o.path_used = options ? options->path_used : NULL;
    in.layout = x->layout; in.transa = x->transa; in.transb = x->transb;
    in.m = x->m; in.n = x->n; in.k = x->k;
    in.alpha = alpha; in.A = A; in.lda = lda; in.B = B; in.ldb = ldb; in.beta = beta; in.C = C; in.ldc = ldc;
    return gemm__mpi_execute(x, precision, form, &in, options, gemm__mpi_now());
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

/* A one-shot call: a plan made, executed once and freed, in one pass (the
   shape's vote is the execute's; the blocks are allocated only when there
   is a product to make, and freed after it). */
static gemm_status gemm__mpi_call(MPI_Comm comm, const char *func, gemm_precision precision, int form,
                                  const gemm__mpi_args *in, const gemm_mpi_options *options)
{
    gemm__mpi x;
    gemm_status s;
    double t0;
    gemm__clear_error();
    s = gemm__mpi_running(func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    t0 = gemm__mpi_now();
    gemm__mpi_init(&x, func, precision, form, in->layout, in->transa, in->transb, in->m, in->n, in->k, options);
    s = gemm__mpi_begin(&x, comm, 0);
    if (x.comm == MPI_COMM_NULL) {
        x.t.total_s = gemm__mpi_now() - t0;
        gemm__mpi_outputs(&x, &x.t);
        return s;
    }
    s = gemm__mpi_execute(&x, precision, form, in, NULL, t0);
    gemm__mpi_free_all(&x, x.path == GEMM_MPI_PATH_CUDA_IPC);
    return s;
}

GEMM_DEF gemm_status gemm_mpi_sgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_sgemm", GEMM_F32, 0, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_dgemm", GEMM_F64, 0, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_sgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                         const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                         float *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_sgemm_dist", GEMM_F32, 1, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                         const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                         double *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_dgemm_dist", GEMM_F64, 1, &in, options);
}

#ifdef GEMM__TEST_HOOKS
GEMM_DEF void gemm__mpi_plan_counts(const gemm_mpi_plan *plan, long *allocations, long *mappings)
{
    *allocations = plan ? plan->x.allocations : 0;
    *mappings = plan ? plan->x.mappings : 0;
}
#endif
