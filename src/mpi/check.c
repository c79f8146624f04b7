/* ---- this rank's arguments: checked, then the canonical problem ---------------- */

#pragma once

#include "state.h"

/* The caller's arguments as they came: the checks read them, and the ranks
   compare their scalars in the first vote. */
typedef struct gemm__mpi_args {
    gemm_layout layout;
    gemm_transpose transa, transb;
    int64_t m, n, k;
    double alpha;
    const void *A;
    int64_t lda;
    const void *B;
    int64_t ldb;
    double beta;
    void *C;
    int64_t ldc;
} gemm__mpi_args;

/* The largest extent of a piece: its byte offsets fit in int64_t. */
#define GEMM__MPI_MAX_EXTENT (INT64_MAX / 8)

/* The smallest leading dimension of a stored matrix whose op() view is
   rows x cols: what a rank that holds no matrix passes to the checks. */
static int64_t gemm__mpi_min_ld(gemm_layout layout, gemm_transpose t, int64_t rows, int64_t cols)
{
    int64_t need = (layout == GEMM_ROW_MAJOR) == (t == GEMM_TRANS) ? rows : cols;
    return need > 1 ? need : 1;
}

/* Distributed: this rank's pieces, in the caller's argument order, each as
   the stored matrix that holds its tile; then the problem's leading
   dimensions, strides and extents become the pieces'. */
static gemm_status gemm__mpi_check_pieces(gemm__mpi *x, const gemm__mpi_args *in)
{
    static const char *const nm[3] = {"A", "B", "C"};
    gemm__problem *p = &x->p;
    int sw = p->swapped, w;
    /* the caller's A, B, C in the view: a row-major call's A is its b */
    const gemm_mpi_tile *t[3];
    const void *ptr[3];
    int64_t ld[3], ext[3];
    int tr[3];
    t[0] = sw ? &x->g.b : &x->g.a; t[1] = sw ? &x->g.a : &x->g.b; t[2] = &x->g.c;
    tr[0] = sw ? p->b_trans : p->a_trans; tr[1] = sw ? p->a_trans : p->b_trans; tr[2] = 0;
    ptr[0] = in->A; ptr[1] = in->B; ptr[2] = in->C;
    ld[0] = in->lda; ld[1] = in->ldb; ld[2] = in->ldc;
    for (w = 0; w < 3; w++) {
        int used = p->work == GEMM__WORK_FULL || (w == 2 && p->work == GEMM__WORK_SCALE);
        /* stored column-major in the view (op(X) = X^T is held cols x rows);
           the caller's stored shape is its transpose for a row-major call */
        int64_t rows = tr[w] ? t[w]->cols : t[w]->rows, cols = tr[w] ? t[w]->rows : t[w]->cols;
        int64_t srows = sw ? cols : rows, scols = sw ? rows : cols, need = rows > 1 ? rows : 1;
        if (used && !ptr[w] && t[w]->rows > 0 && t[w]->cols > 0)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is NULL, but this rank's piece is %lld x %lld", x->func,
                              nm[w], (long long)srows, (long long)scols);
        if (ld[w] < need)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ld%c = %lld is too small: this rank's piece of %s is %lld x "
                              "%lld stored, needs ld%c >= %lld", x->func, "abc"[w], (long long)ld[w], nm[w],
                              (long long)srows, (long long)scols, "abc"[w], (long long)need);
        ext[w] = used ? gemm__extent(rows, cols, ld[w]) : 0;
        if (ext[w] < 0 || ext[w] > GEMM__MPI_MAX_EXTENT)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: this rank's piece of %s spans more than 2^60 elements "
                              "(ld%c = %lld)", x->func, nm[w], "abc"[w], (long long)ld[w]);
    }
    p->lda = ld[sw];
    p->ldb = ld[!sw];
    p->ldc = ld[2];
    p->ars = p->a_trans ? p->lda : 1;
    p->acs = p->a_trans ? 1 : p->lda;
    p->brs = p->b_trans ? p->ldb : 1;
    p->bcs = p->b_trans ? 1 : p->ldb;
    p->a_extent = ext[sw];
    p->b_extent = ext[!sw];
    p->c_extent = ext[2];
    return GEMM_OK;
}

/* The options last, as the arguments come. */
static gemm_status gemm__mpi_check_options(const gemm__mpi *x)
{
    const gemm_mpi_options *o = &x->o;
    if (o->local != GEMM_MPI_LOCAL_CPU && o->local != GEMM_MPI_LOCAL_CUDA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.local = %d is not a gemm_mpi_local", x->func, (int)o->local);
#ifndef GEMM_MPI_CUDA
    if (o->local == GEMM_MPI_LOCAL_CUDA)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the CUDA local multiply is not compiled in (compile with nvcc "
                          "and gemm_cuda.cuh, or define GEMM_MPI_CUDA)", x->func);
#endif
    if (o->algorithm != GEMM_MPI_CANNON && o->algorithm != GEMM_MPI_FOX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.algorithm = %d is not a gemm_mpi_algorithm", x->func,
                          (int)o->algorithm);
    if (o->path != GEMM_MPI_PATH_AUTO && o->path != GEMM_MPI_PATH_CUDA_AWARE && o->path != GEMM_MPI_PATH_STAGED &&
        o->path != GEMM_MPI_PATH_CUDA_IPC)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.path = %d: AUTO, CUDA_AWARE, CUDA_IPC or STAGED", x->func,
                          (int)o->path);
    if (o->slabs < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.slabs = %d is negative", x->func, o->slabs);
    if (o->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.threads = %d is negative", x->func, o->threads);
    if (x->distributed != 1 && (o->root < 0 || o->root >= x->P))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.root = %d, but there are %d ranks", x->func, o->root, x->P);
    return GEMM_OK;
}

/* This rank's checks in argument order, and the canonical problem made
   once (gemm__prepare). The root-held call reads matrices on the root
   only: there every check; elsewhere the scalars' (a rank that holds no
   matrix passes the smallest leading dimensions). The distributed call
   checks the scalars so, then this rank's pieces. `u`: the caller's grid. */
static gemm_status gemm__mpi_prepare(gemm__mpi *x, const gemm__mpi_args *in, const gemm_mpi_blocks *u)
{
    int full = !x->distributed && x->rank == x->o.root;
    int64_t lda = full ? in->lda : gemm__mpi_min_ld(in->layout, in->transa, in->m, in->k);
    int64_t ldb = full ? in->ldb : gemm__mpi_min_ld(in->layout, in->transb, in->k, in->n);
    int64_t ldc = full ? in->ldc : gemm__mpi_min_ld(in->layout, GEMM_NO_TRANS, in->m, in->n);
    gemm_status s = gemm__prepare(x->func, in->layout, in->transa, in->transb, in->m, in->n, in->k, in->alpha == 0,
                                  full ? in->A != NULL : 1, lda, full ? in->B != NULL : 1, ldb, in->beta == 1,
                                  full ? in->C != NULL : 1, ldc, &x->p);
    if (s != GEMM_OK) return s;
    x->alpha = in->alpha;
    x->beta = in->beta;
    x->A = x->p.swapped ? in->B : in->A;
    x->B = x->p.swapped ? in->A : in->B;
    x->C = in->C;
    gemm__mpi_grid_view(u, x->p.swapped, &x->g);
    x->kb_full = x->g.kb;
    if (x->distributed) s = gemm__mpi_check_pieces(x, in);
    return s != GEMM_OK ? s : gemm__mpi_check_options(x);
}

/* The plan's shape, checked once at its creation as a call with the
   smallest leading dimensions would be, then the options. */
static gemm_status gemm__mpi_check_shape(gemm__mpi *x, const gemm_mpi_blocks *u)
{
    gemm_status s;
    if (x->precision != GEMM_F32 && x->precision != GEMM_F64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: precision = %d, not GEMM_F32 or GEMM_F64", x->func,
                          (int)x->precision);
    s = gemm__prepare(x->func, x->layout, x->transa, x->transb, x->m, x->n, x->k, 0, 1,
                      gemm__mpi_min_ld(x->layout, x->transa, x->m, x->k), 1,
                      gemm__mpi_min_ld(x->layout, x->transb, x->k, x->n), 0, 1,
                      gemm__mpi_min_ld(x->layout, GEMM_NO_TRANS, x->m, x->n), &x->p);
    if (s != GEMM_OK) return s;
    gemm__mpi_grid_view(u, x->p.swapped, &x->g);
    x->kb_full = x->g.kb;
    return gemm__mpi_check_options(x);
}

/* An execute's options: the outputs, and otherwise zero or the plan's own
   values (the same struct may serve the create and its executes). */
static gemm_status gemm__mpi_check_exec_options(const gemm__mpi *x, const gemm_mpi_options *e)
{
    const gemm_mpi_options *o = &x->o;
    const char *bad = NULL;
    if (!e) return GEMM_OK;
    if (e->local && e->local != o->local) bad = "local";
    else if (e->algorithm && e->algorithm != o->algorithm) bad = "algorithm";
    else if (e->overlap && !o->overlap) bad = "overlap";
    else if (e->path && e->path != o->path) bad = "path";
    else if (e->root && e->root != o->root) bad = "root";
    else if (e->max_host_bytes && e->max_host_bytes != o->max_host_bytes) bad = "max_host_bytes";
    else if (e->max_device_bytes && e->max_device_bytes != o->max_device_bytes) bad = "max_device_bytes";
    else if (e->threads && e->threads != o->threads) bad = "threads";
    else if (e->slabs && e->slabs != o->slabs) bad = "slabs";
    if (bad)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.%s differs from the plan's: it is fixed when the plan "
                          "is created", x->func, bad);
    return GEMM_OK;
}
