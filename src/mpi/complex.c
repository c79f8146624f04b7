/* ---- complex products: gemm_mpi_cgemm / gemm_mpi_zgemm ------------------------ */

/* The complex calls ride on the real root-held call: in the column-major
   view an interleaved complex C (m x n) is a real 2m x n matrix, an
   untransposed b a real 2k x n one, and C = X * b with X the 2m x 2k real
   expansion of alpha*op(a) (cpu/complex.c tells how). The root expands a
   (and copies a transposed b), and every rank then runs the real Cannon
   (or Fox) of 2m x n x 2k: the blocks travel as pairs of reals and each
   rank's local multiply is the real kernel at the complex flop count, so
   the call scales as the real ones do. A complex beta scales a copy of C
   on the root, which the real product adds to (beta = 1) and which goes
   back into C only when the product succeeded, so a failed call leaves C
   as it was. The root's checks, its allocations and every rank's alpha
   and beta are agreed on before the product, so every rank returns the
   same status, and every rank must pass the root's layout, transposes,
   sizes and scalars. */
#pragma once

#include <string.h>
#include "../core/complex.c" /* gemm__prepare_complex */
#include "../core/overlap.c" /* gemm__check_overlap */
#include "../cpu/api.h"      /* gemm__complex_expand, _copy_b, _scale_c */
#include "api.h"
#include "comm.c"            /* gemm__mpi_running, gemm__mpi_open */
#include "entry.c"           /* gemm_mpi_sgemm, gemm_mpi_dgemm */

/* What the root tells every rank before the product. */
typedef struct gemm__mpi_zroot {
    int status, work;
    int64_t call[6];           /* the root's layout, transa, transb, m, n, k, which every rank must share */
    int64_t m, n, k, ldb_real; /* the canonical problem; b's real leading dimension */
    double alpha[2], beta[2];
    char detail[256];
} gemm__mpi_zroot;

/* The root's side: its checks, then (a product to make) the expansion of
   a, the copy of a transposed b and the copy of C a complex beta scales. */
static void gemm__mpi_zroot_prepare(const char *func, gemm_precision precision, gemm_layout layout,
                                    gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc, gemm__problem *p, gemm__mpi_zroot *z,
                                    void **x, void **y, void **ct)
{
    int64_t es = (int64_t)gemm_precision_size(precision);
    gemm_status s = gemm__prepare_complex(func, precision, layout, transa, transb, m, n, k, alpha, A != NULL, lda,
                                          B != NULL, ldb, beta, C != NULL, ldc, p, z->alpha, z->beta);
    if (s == GEMM_OK) s = gemm__check_overlap(func, p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, (size_t)(2 * es));
    z->call[0] = layout; z->call[1] = transa; z->call[2] = transb; z->call[3] = m; z->call[4] = n; z->call[5] = k;
    z->work = s == GEMM_OK ? (int)p->work : GEMM__WORK_NONE;
    if (s == GEMM_OK) { /* (a refused call's canonical form may be unset) */
        z->m = p->m;
        z->n = p->n;
        z->k = p->k;
        z->ldb_real = 2 * p->ldb;
    }
    if (s == GEMM_OK && p->work == GEMM__WORK_FULL) {
        const void *a = p->swapped ? B : A, *b = p->swapped ? A : B;
        size_t xb = (size_t)(4 * p->m * p->k * es), yb = p->b_trans ? (size_t)(2 * p->k * p->n * es) : 0;
        size_t cb = z->beta[1] != 0 ? (size_t)(2 * p->m * p->n * es) : 0;
        *x = GEMM_MALLOC(xb);
        *y = yb ? GEMM_MALLOC(yb) : NULL;
        *ct = cb ? GEMM_MALLOC(cb) : NULL;
        if (!*x || (yb && !*y) || (cb && !*ct)) {
            s = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory on the root for the expanded operands, %zu bytes",
                           func, xb + yb + cb);
        } else {
            gemm__complex_expand(p, precision, a, z->alpha, *x);
            if (yb) gemm__complex_copy_b(p, precision, b, *y);
            if (yb) z->ldb_real = 2 * p->k;
            if (cb) { /* beta * C into the copy, column by column */
                gemm__problem q = *p;
                int64_t j;
                for (j = 0; j < p->n; j++)
                    memcpy((char *)*ct + (size_t)(2 * j * p->m * es), (const char *)C + (size_t)(2 * j * p->ldc * es),
                           (size_t)(2 * p->m * es));
                q.ldc = p->m;
                gemm__complex_scale_c(&q, precision, z->beta, *ct);
            }
        }
    }
    z->status = (int)s;
    snprintf(z->detail, sizeof z->detail, "%.255s", s == GEMM_OK ? "" : gemm_last_error_detail());
}

static gemm_status gemm__mpi_complex(const char *func, gemm_precision precision, MPI_Comm comm, gemm_layout layout,
                                     gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                     const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                     const void *beta, void *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_team tm;
    gemm__mpi_zroot z;
    gemm__problem p;
    gemm_status s;
    void *x = NULL, *y = NULL, *ct = NULL;
    int root = options ? options->root : 0, mine = 0, any = 0;
    int64_t es = (int64_t)gemm_precision_size(precision);
    double az[2], bz[2];

    gemm__clear_error();
    if ((s = gemm__mpi_running(func)) != GEMM_OK) return s;
    memset(&tm, 0, sizeof tm);
    tm.comm = MPI_COMM_NULL;
    if ((s = gemm__mpi_open(func, comm, &tm)) != GEMM_OK) return s;
    if (root < 0 || root >= tm.P) {
        MPI_Comm_free(&tm.comm);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.root = %d, but there are %d ranks", func, root, tm.P);
    }
    memset(&z, 0, sizeof z);
    if (tm.rank == root)
        gemm__mpi_zroot_prepare(func, precision, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                ldc, &p, &z, &x, &y, &ct);
    s = gemm__mpi_status(MPI_Bcast(&z, (int)sizeof z, MPI_BYTE, root, tm.comm), "MPI_Bcast");
    /* every rank's own scalars must be the root's */
    if (s == GEMM_OK) {
        gemm__complex_load(precision, alpha, az);
        gemm__complex_load(precision, beta, bz);
        mine = !alpha || !beta || az[0] != z.alpha[0] || az[1] != z.alpha[1] || bz[0] != z.beta[0] ||
               bz[1] != z.beta[1] || z.call[0] != layout || z.call[1] != transa || z.call[2] != transb ||
               z.call[3] != m || z.call[4] != n || z.call[5] != k;
        s = gemm__mpi_status(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, tm.comm), "MPI_Allreduce");
    }
    if (s == GEMM_OK && z.status != GEMM_OK) {
        s = (gemm_status)z.status;
        if (tm.rank != root) gemm__fail(s, "%s: refused on the root (rank %d): %s", func, root, z.detail);
    } else if (s == GEMM_OK && any) {
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: layout, a transpose, m, n, k, alpha or beta differs between ranks "
                       "(or alpha or beta is NULL on one)%s", func,
                       mine ? ", on this rank among others" : "");
    } else if (s == GEMM_OK && z.work == GEMM__WORK_SCALE) {
        if (tm.rank == root) gemm__complex_scale_c(&p, precision, z.beta, C);
    } else if (s == GEMM_OK && z.work == GEMM__WORK_FULL) {
        int at_root = tm.rank == root, scaled = z.beta[1] != 0;
        double rbeta = scaled ? 1.0 : z.beta[0];
        const void *bp = !at_root ? NULL : y ? y : (const char *)(p.swapped ? A : B);
        void *cp = !at_root ? NULL : scaled ? ct : C;
        int64_t ldc_real = !at_root ? 2 * z.m : scaled ? 2 * z.m : 2 * p.ldc;
        int64_t ldb_real = at_root ? z.ldb_real : 2 * z.k;
        if (precision == GEMM_F32)
            s = gemm_mpi_sgemm(comm, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2 * z.m, z.n, 2 * z.k, 1.0f,
                               (const float *)x, 2 * z.m, (const float *)bp, ldb_real, (float)rbeta, (float *)cp,
                               ldc_real, options);
        else
            s = gemm_mpi_dgemm(comm, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2 * z.m, z.n, 2 * z.k, 1.0,
                               (const double *)x, 2 * z.m, (const double *)bp, ldb_real, rbeta, (double *)cp,
                               ldc_real, options);
        if (s == GEMM_OK && at_root && scaled) {
            int64_t j;
            for (j = 0; j < z.n; j++)
                memcpy((char *)C + (size_t)(2 * j * p.ldc * es), (const char *)ct + (size_t)(2 * j * z.m * es),
                       (size_t)(2 * z.m * es));
        }
    }
    GEMM_FREE(x);
    GEMM_FREE(y);
    GEMM_FREE(ct);
    MPI_Comm_free(&tm.comm);
    return s;
}

GEMM_DEF gemm_status gemm_mpi_cgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    return gemm__mpi_complex("gemm_mpi_cgemm", GEMM_F32, comm, layout, transa, transb, m, n, k, alpha, A, lda, B,
                             ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_mpi_zgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    return gemm__mpi_complex("gemm_mpi_zgemm", GEMM_F64, comm, layout, transa, transb, m, n, k, alpha, A, lda, B,
                             ldb, beta, C, ldc, options);
}
