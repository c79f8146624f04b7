/* ---- this rank's arguments: checked, then the canonical problem ---------------- */

/* Each rank checks what it holds, in argument order (the root-held call's
   matrices on the root only; the distributed call's pieces on every rank),
   and makes the call's canonical problem once (gemm__prepare); the ranks
   then vote (mpi/execute.c). */
#pragma once

#include <stdint.h>             /* uintptr_t */
#include "../core/overlap.c"   /* gemm__check_overlap, gemm__check_overlap_rects */
#include "grid.c"              /* gemm__mpi_grid_view */
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
   the stored matrix that holds its tile (`g`: this rank's tiles in the
   view), and its piece of C against its pieces of A and B (elements of es
   bytes; they are in this rank's memory, host or device, one address
   space); then the problem's leading dimensions, strides and extents
   become the pieces'. */
static gemm_status gemm__mpi_check_pieces(const char *func, const gemm__mpi_grid *g, const gemm__mpi_args *in,
                                          size_t es, gemm__problem *p)
{
    static const char *const nm[3] = {"A", "B", "C"};
    int sw = p->swapped, w;
    /* the caller's A, B, C in the view: a row-major call's A is its b */
    const gemm_mpi_tile *t[3];
    const void *ptr[3];
    int64_t ld[3], ext[3];
    gemm__batch_rect r[3]; /* each piece where it lies, column-major in the view */
    gemm_status s;
    int tr[3];
    t[0] = sw ? &g->b : &g->a; t[1] = sw ? &g->a : &g->b; t[2] = &g->c;
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
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is NULL, but this rank's piece is %lld x %lld", func,
                              nm[w], (long long)srows, (long long)scols);
        if (ld[w] < need)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ld%c = %lld is too small: this rank's piece of %s is %lld x "
                              "%lld stored, needs ld%c >= %lld", func, "abc"[w], (long long)ld[w], nm[w],
                              (long long)srows, (long long)scols, "abc"[w], (long long)need);
        ext[w] = used ? gemm__extent(rows, cols, ld[w]) : 0;
        if (ext[w] < 0 || ext[w] > GEMM__MPI_MAX_EXTENT)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: this rank's piece of %s spans more than 2^60 elements "
                              "(ld%c = %lld)", func, nm[w], "abc"[w], (long long)ld[w]);
        r[w].addr = (uintptr_t)ptr[w];
        r[w].m = rows;
        r[w].n = cols;
        r[w].ld = ld[w];
        r[w].member = 0;
        r[w].kind = w == 2 ? 0 : w + 1;
    }
    if (p->work == GEMM__WORK_FULL &&
        (s = gemm__check_overlap_rects(func, &r[0], &r[1], &r[2], es, es)) != GEMM_OK)
        return s;
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

/* The options last, as the arguments come. `form`: 0 root-held, 1
   distributed (which has no root), -1 a plan's create (both forms). */
static gemm_status gemm__mpi_check_options(const char *func, const gemm_mpi_options *o, int form, int P)
{
    if (o->local != GEMM_MPI_LOCAL_CPU && o->local != GEMM_MPI_LOCAL_CUDA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.local = %d is not a gemm_mpi_local", func, (int)o->local);
#ifndef GEMM_MPI_CUDA
    if (o->local == GEMM_MPI_LOCAL_CUDA)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the CUDA local multiply is not compiled in (compile with nvcc "
                          "and gemm_cuda.cuh, or define GEMM_MPI_CUDA)", func);
#endif
    if (o->algorithm != GEMM_MPI_CANNON && o->algorithm != GEMM_MPI_FOX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.algorithm = %d is not a gemm_mpi_algorithm", func,
                          (int)o->algorithm);
    if (o->path != GEMM_MPI_PATH_AUTO && o->path != GEMM_MPI_PATH_CUDA_AWARE && o->path != GEMM_MPI_PATH_STAGED &&
        o->path != GEMM_MPI_PATH_CUDA_IPC && o->path != GEMM_MPI_PATH_ROOT_DEVICES)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.path = %d: AUTO, CUDA_AWARE, CUDA_IPC, STAGED or "
                          "ROOT_DEVICES", func, (int)o->path);
    if (o->slabs < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.slabs = %d is negative", func, o->slabs);
    if (o->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.threads = %d is negative", func, o->threads);
    if (form != 1 && (o->root < 0 || o->root >= P))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.root = %d, but there are %d ranks", func, o->root, P);
    return GEMM_OK;
}

/* This rank's checks of one call in argument order, and the call's
   canonical problem made once (gemm__prepare) into *c. The root-held call
   (form 0) reads matrices on the root only: there every check; elsewhere
   the scalars' (a rank that holds no matrix passes the smallest leading
   dimensions), and on the root C against A and B. The distributed call
   (form 1) checks the scalars so, then this rank's pieces. */
static gemm_status gemm__mpi_prepare(const char *func, const gemm__mpi_shape *sh, const gemm__mpi_team *tm, int form,
                                     const gemm__mpi_args *in, gemm__mpi_call *c)
{
    int full = form == 0 && tm->rank == sh->o.root;
    int64_t lda = full ? in->lda : gemm__mpi_min_ld(in->layout, in->transa, in->m, in->k);
    int64_t ldb = full ? in->ldb : gemm__mpi_min_ld(in->layout, in->transb, in->k, in->n);
    int64_t ldc = full ? in->ldc : gemm__mpi_min_ld(in->layout, GEMM_NO_TRANS, in->m, in->n);
    gemm_status s;
    c->form = form;
    s = gemm__prepare(func, in->layout, in->transa, in->transb, in->m, in->n, in->k, in->alpha == 0,
                                  full ? in->A != NULL : 1, lda, full ? in->B != NULL : 1, ldb, in->beta == 1,
                                  full ? in->C != NULL : 1, ldc, &c->p);
    if (s != GEMM_OK) return s;
    c->alpha = in->alpha;
    c->beta = in->beta;
    c->A = c->p.swapped ? in->B : in->A;
    c->B = c->p.swapped ? in->A : in->B;
    c->C = in->C;
    if (form == 1) s = gemm__mpi_check_pieces(func, &tm->g, in, gemm_precision_size(sh->precision), &c->p);
    else if (full) /* the root's matrices, in its memory */
        s = gemm__check_overlap(func, &c->p, (uintptr_t)in->A, (uintptr_t)in->B, (uintptr_t)in->C,
                                gemm_precision_size(sh->precision));
    return s != GEMM_OK ? s : gemm__mpi_check_options(func, &sh->o, form, tm->P);
}

/* The plan's shape, checked once at its creation as a call with the
   smallest leading dimensions would be, then the options; the grid's
   column-major view (tm->g) follows from the layout. `form` as for
   gemm__mpi_check_options. */
static gemm_status gemm__mpi_check_shape(const char *func, const gemm__mpi_shape *sh, int form, gemm__mpi_team *tm)
{
    gemm__problem p;
    gemm_status s;
    if (sh->precision != GEMM_F32 && sh->precision != GEMM_F64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: precision = %d, not GEMM_F32 or GEMM_F64", func,
                          (int)sh->precision);
    s = gemm__prepare(func, sh->layout, sh->transa, sh->transb, sh->m, sh->n, sh->k, 0, 1,
                      gemm__mpi_min_ld(sh->layout, sh->transa, sh->m, sh->k), 1,
                      gemm__mpi_min_ld(sh->layout, sh->transb, sh->k, sh->n), 0, 1,
                      gemm__mpi_min_ld(sh->layout, GEMM_NO_TRANS, sh->m, sh->n), &p);
    if (s != GEMM_OK) return s;
    gemm__mpi_grid_view(&tm->u, p.swapped, &tm->g);
    return gemm__mpi_check_options(func, &sh->o, form, tm->P);
}

/* An execute's options `e`: the outputs, and otherwise zero or the plan's
   own values `o` (the same struct may serve the create and its executes). */
static gemm_status gemm__mpi_check_exec_options(const char *func, const gemm_mpi_options *o,
                                                const gemm_mpi_options *e)
{
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
                          "is created", func, bad);
    return GEMM_OK;
}
