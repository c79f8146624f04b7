/* The single call's checks and its canonical form: gemm__prepare (every
   entry point's, in argument order), its inlined common case
   gemm__prepare_plain, and the overflow-safe extents. */
#pragma once

#include "internal.h" /* gemm__problem, gemm__fail, GEMM__BAD_ARG */

/* Smallest leading dimension that covers a stored rows x cols matrix. */
static int64_t gemm__min_ld(gemm_layout layout, int64_t rows, int64_t cols)
{
    int64_t need = layout == GEMM_ROW_MAJOR ? cols : rows;
    return need > 1 ? need : 1;
}

/* A transpose argument BLAS accepts; GEMM_CONJ_TRANS is a transpose (the
   conjugation matters only to the complex calls). */
static int gemm__valid_trans(gemm_transpose t)
{
    return t == GEMM_NO_TRANS || t == GEMM_TRANS || t == GEMM_CONJ_TRANS;
}

/* The contract's checks, in argument order (layout, transposes, sizes,
   then each matrix's pointer and leading dimension); sets *work on success
   and returns 0, else the position of the first bad argument. */
static int gemm__check_args(const char *func, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                            int64_t m, int64_t n, int64_t k, int alpha_is_zero, int have_A, int64_t lda, int have_B,
                            int64_t ldb, int beta_is_one, int have_C, int64_t ldc, gemm__work *work)
{
    const char *lay = layout == GEMM_ROW_MAJOR ? "row-major" : "column-major";
    int64_t need;
    int reads_ab, touches_c;

    if (layout != GEMM_ROW_MAJOR && layout != GEMM_COL_MAJOR)
        GEMM__BAD_ARG(1, "%s: layout is %d, not GEMM_ROW_MAJOR or GEMM_COL_MAJOR", func, (int)layout);
    if (!gemm__valid_trans(transa))
        GEMM__BAD_ARG(2, "%s: transa is %d, not GEMM_NO_TRANS, GEMM_TRANS or GEMM_CONJ_TRANS", func, (int)transa);
    if (!gemm__valid_trans(transb))
        GEMM__BAD_ARG(3, "%s: transb is %d, not GEMM_NO_TRANS, GEMM_TRANS or GEMM_CONJ_TRANS", func, (int)transb);
    if (m < 0) GEMM__BAD_ARG(4, "%s: m = %lld is negative", func, (long long)m);
    if (n < 0) GEMM__BAD_ARG(5, "%s: n = %lld is negative", func, (long long)n);
    if (k < 0) GEMM__BAD_ARG(6, "%s: k = %lld is negative", func, (long long)k);

    reads_ab = m > 0 && n > 0 && k > 0 && !alpha_is_zero;
    touches_c = m > 0 && n > 0 && !(beta_is_one && (k == 0 || alpha_is_zero));

    if (!have_A && reads_ab) GEMM__BAD_ARG(8, "%s: A is NULL", func);
    need = transa == GEMM_NO_TRANS ? gemm__min_ld(layout, m, k) : gemm__min_ld(layout, k, m);
    if (lda < need)
        GEMM__BAD_ARG(9, "%s: lda = %lld is too small: %s %s A needs lda >= %lld", func, (long long)lda, lay,
                      transa == GEMM_NO_TRANS ? "untransposed" : "transposed", (long long)need);
    if (!have_B && reads_ab) GEMM__BAD_ARG(10, "%s: B is NULL", func);
    need = transb == GEMM_NO_TRANS ? gemm__min_ld(layout, k, n) : gemm__min_ld(layout, n, k);
    if (ldb < need)
        GEMM__BAD_ARG(11, "%s: ldb = %lld is too small: %s %s B needs ldb >= %lld", func, (long long)ldb, lay,
                      transb == GEMM_NO_TRANS ? "untransposed" : "transposed", (long long)need);
    if (!have_C && touches_c) GEMM__BAD_ARG(13, "%s: C is NULL", func);
    need = gemm__min_ld(layout, m, n);
    if (ldc < need)
        GEMM__BAD_ARG(14, "%s: ldc = %lld is too small: %s C needs ldc >= %lld", func, (long long)ldc, lay,
                      (long long)need);

    *work = !touches_c ? GEMM__WORK_NONE : reads_ab ? GEMM__WORK_FULL : GEMM__WORK_SCALE;
    return 0;
}

/* The largest extent accepted: its byte offset fits in int64_t for any
   element type up to 8 bytes. */
#define GEMM__MAX_EXTENT (INT64_MAX / 8)

GEMM_DEF int64_t gemm__extent(int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (ld < 1) return -1;
    /* Below 2^31 each, the sum fits: no division (tens of cycles, three
       per call, when a small product costs a few hundred). */
    if ((rows | cols | ld) < ((int64_t)1 << 31)) return (cols - 1) * ld + rows;
    if (cols - 1 > (INT64_MAX - rows) / ld) return -1;
    return (cols - 1) * ld + rows;
}

/* Sets *extent to what `name` spans when `used`, 0 otherwise; fails when
   the span does not fit in 64-bit byte offsets. */
static gemm_status gemm__span(const char *func, const char *name, int used, int64_t rows, int64_t cols,
                              int64_t ld, int64_t *extent)
{
    *extent = used ? gemm__extent(rows, cols, ld) : 0;
    if (*extent < 0 || *extent > GEMM__MAX_EXTENT)
        return gemm__fail(GEMM_ERR_INVALID_ARG,
                          "%s: %s spans more than 2^60 elements (%lld x %lld with leading dimension %lld)", func,
                          name, (long long)rows, (long long)cols, (long long)ld);
    return GEMM_OK;
}

/* The common case's parts are inlined into every entry point that calls
   gemm__prepare_plain: each call of a small product pays for them. */
#if defined(__GNUC__) || defined(__clang__)
#define GEMM__INLINE __inline__ __attribute__((always_inline))
#else
#define GEMM__INLINE
#endif

/* Whether a call is valid and needs the full product, for the calls that
   make up nearly every real one: every size and leading dimension from 1
   to below 2^29, every pointer given, alpha != 0. Then the checks are a
   few comparisons and no extent can overflow (each is below 2^58); any
   other call, valid or not, takes gemm__check_args and gemm__span, so the
   statuses and details are theirs. (The whole preparation once cost more
   than a 2x2 product: three 64-bit divisions and two calls per matrix.) */
static GEMM__INLINE int gemm__plain_call(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                            int64_t k, int alpha_is_zero, int have_A, int64_t lda, int have_B, int64_t ldb,
                            int have_C, int64_t ldc)
{
    /* (uint64_t)x - 1 < below: 1 <= x < 2^29. The subtraction is unsigned
       (x converted first), so no x overflows it, INT64_MIN included: a
       negative x becomes 2^64 + x, far above. */
    const uint64_t below = ((uint64_t)1 << 29) - 1;
    int row = layout == GEMM_ROW_MAJOR, an = transa == GEMM_NO_TRANS, bn = transb == GEMM_NO_TRANS;
    if ((!row && layout != GEMM_COL_MAJOR) || (!an && transa != GEMM_TRANS && transa != GEMM_CONJ_TRANS) ||
        (!bn && transb != GEMM_TRANS && transb != GEMM_CONJ_TRANS))
        return 0;
    if ((uint64_t)m - 1 >= below || (uint64_t)n - 1 >= below || (uint64_t)k - 1 >= below ||
        (uint64_t)lda - 1 >= below || (uint64_t)ldb - 1 >= below || (uint64_t)ldc - 1 >= below)
        return 0;
    if (alpha_is_zero || !have_A || !have_B || !have_C) return 0;
    /* gemm__min_ld of each stored matrix, for sizes >= 1 */
    return lda >= (row == an ? k : m) && ldb >= (row == bn ? n : k) && ldc >= (row ? n : m);
}

/* The column-major view (gemm__problem): a row-major call is the
   transposed problem, so there A and B change places and so do m and n. */
static GEMM__INLINE void gemm__canonical(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                            int64_t k, int64_t lda, int64_t ldb, int64_t ldc, gemm__problem *p)
{
    p->swapped = layout == GEMM_ROW_MAJOR;
    p->m = p->swapped ? n : m;
    p->n = p->swapped ? m : n;
    p->k = k;
    p->a_trans = (p->swapped ? transb : transa) != GEMM_NO_TRANS;
    p->b_trans = (p->swapped ? transa : transb) != GEMM_NO_TRANS;
    p->a_conj = (p->swapped ? transb : transa) == GEMM_CONJ_TRANS;
    p->b_conj = (p->swapped ? transa : transb) == GEMM_CONJ_TRANS;
    p->lda = p->swapped ? ldb : lda;
    p->ldb = p->swapped ? lda : ldb;
    p->ldc = ldc;
    p->ars = p->a_trans ? p->lda : 1;
    p->acs = p->a_trans ? 1 : p->lda;
    p->brs = p->b_trans ? p->ldb : 1;
    p->bcs = p->b_trans ? 1 : p->ldb;
}

/* gemm__prepare for a plain call (gemm__plain_call): fills *p and returns
   1; returns 0 for any other call, which gemm__prepare then checks in
   full. Static, so a backend's entry point may call it first and have it
   inlined: a call of a few elements then costs little more than its
   arithmetic. */
static GEMM__INLINE int gemm__prepare_plain(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                               int64_t n, int64_t k, int alpha_is_zero, int have_A, int64_t lda, int have_B,
                               int64_t ldb, int have_C, int64_t ldc, gemm__problem *p)
{
    if (!gemm__plain_call(layout, transa, transb, m, n, k, alpha_is_zero, have_A, lda, have_B, ldb, have_C, ldc))
        return 0;
    p->work = GEMM__WORK_FULL;
    p->bad_arg = 0;
    gemm__canonical(layout, transa, transb, m, n, k, lda, ldb, ldc, p);
    /* stored column-major: op(a) = a^T means a is k x m */
    p->a_extent = ((p->a_trans ? p->m : p->k) - 1) * p->lda + (p->a_trans ? p->k : p->m);
    p->b_extent = ((p->b_trans ? p->k : p->n) - 1) * p->ldb + (p->b_trans ? p->n : p->k);
    p->c_extent = (p->n - 1) * p->ldc + p->m;
    return 1;
}

GEMM_DEF gemm_status gemm__prepare(const char *func, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                   int alpha_is_zero, int have_A, int64_t lda, int have_B, int64_t ldb,
                                   int beta_is_one, int have_C, int64_t ldc, gemm__problem *p)
{
    int reads;
    gemm_status s;
    if (gemm__prepare_plain(layout, transa, transb, m, n, k, alpha_is_zero, have_A, lda, have_B, ldb, have_C, ldc, p))
        return GEMM_OK;
    p->work = GEMM__WORK_NONE; /* set before the checks: a failed call leaves *p defined */
    p->bad_arg = gemm__check_args(func, layout, transa, transb, m, n, k, alpha_is_zero, have_A, lda, have_B, ldb,
                                  beta_is_one, have_C, ldc, &p->work);
    if (p->bad_arg) return GEMM_ERR_INVALID_ARG;
    gemm__canonical(layout, transa, transb, m, n, k, lda, ldb, ldc, p);
    reads = p->work == GEMM__WORK_FULL;
    /* Stored column-major: op(a) = a^T means a is k x m. A span too large
       is blamed on the leading dimension (lda = 9, ldb = 11, ldc = 14). */
    s = gemm__span(func, p->swapped ? "B" : "A", reads, p->a_trans ? p->k : p->m, p->a_trans ? p->m : p->k,
                   p->lda, &p->a_extent);
    if (s != GEMM_OK) {
        p->bad_arg = p->swapped ? 11 : 9;
        return s;
    }
    s = gemm__span(func, p->swapped ? "A" : "B", reads, p->b_trans ? p->n : p->k, p->b_trans ? p->k : p->n,
                   p->ldb, &p->b_extent);
    if (s != GEMM_OK) {
        p->bad_arg = p->swapped ? 9 : 11;
        return s;
    }
    s = gemm__span(func, "C", p->work != GEMM__WORK_NONE, p->m, p->n, p->ldc, &p->c_extent);
    if (s != GEMM_OK) p->bad_arg = 14;
    return s;
}
