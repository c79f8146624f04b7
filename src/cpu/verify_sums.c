/* The checksums of a product whose operands are in host memory (the CPU
   backend, the MPI root): the sums verify.h describes, in fp64, in a few
   passes over op(a), op(b) and C, each read in the order it is stored.

   One kernel serves every pass: over a matrix X of rows x cols whose
   columns are contiguous, col[c] += sum_r X(r,c)*wr[r] and
   cola[c] += sum_r |X(r,c)|*wra[r] (a contiguous reduction), and
   row[r] += X(r,c)*wc[c], rowa[r] += |X(r,c)|*wca[c] (a contiguous update),
   a NULL weight being 1 and a NULL output skipped. A matrix whose rows are
   contiguous is the transposed one with the roles exchanged. The passes:
     C0 (beta != 0)  row and column sums and |sums|, times beta and |beta|
     op(a)           column sums s and |s| (k of each), times alpha, |alpha|
     op(b)           weighted by s: want_col, scale_col; its row sums v, |v|
     op(a)           weighted by v: want_row, scale_row
     C (after)       row and column sums: got_row, got_col
   O(mk + kn) before the product, O(mn) before (beta != 0) and after. */
#pragma once

#include <math.h>              /* fabs */
#include <string.h>            /* memset */
#include "../core/internal.h"  /* gemm__problem */
#include "../core/verify.h"
#include "../core/config.h"    /* GEMM_MALLOC, GEMM_FREE */
#include "platform.h"          /* GEMM__CPU_X86, the intrinsics, GEMM__CPU_LOAD */
#include "thread_pool.c"       /* gemm__cpu_pool_* */

/* The pass over one matrix with contiguous columns (element (r, c) at
   x[r + c*ld]), for T = float and double. Four partial sums let the
   reduction vectorise without reassociating by the compiler's leave. */
#define GEMM__VERIFY_PASS(name, T)                                                                                    \
    static void name(const T *x, int64_t rows, int64_t cols, int64_t ld, const double *wr, const double *wra,          \
                     const double *wc, const double *wca, double *col, double *cola, double *row, double *rowa)       \
    {                                                                                                                 \
        int64_t r, c;                                                                                                 \
        for (c = 0; c < cols; c++) {                                                                                  \
            const T *xc = x + c * ld;                                                                                 \
            if (col || cola) {                                                                                        \
                double s[4] = {0, 0, 0, 0}, sa[4] = {0, 0, 0, 0};                                                     \
                r = 0;                                                                                                \
                if (wr) {                                                                                             \
                    for (; r + 4 <= rows; r += 4) {                                                                   \
                        int q;                                                                                        \
                        for (q = 0; q < 4; q++) {                                                                     \
                            double e = (double)xc[r + q];                                                             \
                            s[q] += e * wr[r + q];                                                                    \
                            sa[q] += fabs(e) * wra[r + q];                                                            \
                        }                                                                                             \
                    }                                                                                                 \
                    for (; r < rows; r++) {                                                                           \
                        s[0] += (double)xc[r] * wr[r];                                                                \
                        sa[0] += fabs((double)xc[r]) * wra[r];                                                        \
                    }                                                                                                 \
                } else {                                                                                              \
                    for (; r + 4 <= rows; r += 4) {                                                                   \
                        int q;                                                                                        \
                        for (q = 0; q < 4; q++) {                                                                     \
                            double e = (double)xc[r + q];                                                             \
                            s[q] += e;                                                                                \
                            sa[q] += fabs(e);                                                                         \
                        }                                                                                             \
                    }                                                                                                 \
                    for (; r < rows; r++) {                                                                           \
                        s[0] += (double)xc[r];                                                                        \
                        sa[0] += fabs((double)xc[r]);                                                                 \
                    }                                                                                                 \
                }                                                                                                     \
                if (col) col[c] += (s[0] + s[1]) + (s[2] + s[3]);                                                     \
                if (cola) cola[c] += (sa[0] + sa[1]) + (sa[2] + sa[3]);                                               \
            }                                                                                                         \
            if (row) {                                                                                                \
                double w = wc ? wc[c] : 1.0;                                                                          \
                for (r = 0; r < rows; r++) row[r] += (double)xc[r] * w;                                               \
            }                                                                                                         \
            if (rowa) {                                                                                               \
                double w = wca ? wca[c] : 1.0;                                                                        \
                for (r = 0; r < rows; r++) rowa[r] += fabs((double)xc[r]) * w;                                        \
            }                                                                                                         \
        }                                                                                                             \
    }
GEMM__VERIFY_PASS(gemm__verify_pass_f32, float)
GEMM__VERIFY_PASS(gemm__verify_pass_f64, double)
#undef GEMM__VERIFY_PASS

#ifdef GEMM__CPU_X86
/* The same with AVX2 and FMA, 8 elements a step in two chains; the tail
   (fewer than 8 rows) by the plain loops. Without it the passes, which
   baseline x86-64 code runs two doubles at a time, cost about 15% of an
   fp32 product at n = 2048. */
#define GEMM__VERIFY_PASS_AVX2(name, T, LOAD4, plain)                                                                 \
    __attribute__((target("avx2,fma"))) static void name(const T *x, int64_t rows, int64_t cols, int64_t ld,          \
                                                         const double *wr, const double *wra, const double *wc,       \
                                                         const double *wca, double *col, double *cola, double *row,   \
                                                         double *rowa)                                                \
    {                                                                                                                 \
        const __m256d sign = _mm256_set1_pd(-0.0);                                                                    \
        int64_t r, c, body = rows & ~(int64_t)7;                                                                      \
        double part[4];                                                                                               \
        for (c = 0; c < cols; c++) {                                                                                  \
            const T *xc = x + c * ld;                                                                                 \
            __m256d s0 = _mm256_setzero_pd(), s1 = s0, a0 = s0, a1 = s0;                                              \
            __m256d w = _mm256_set1_pd(wc ? wc[c] : 1.0), wa = _mm256_set1_pd(wca ? wca[c] : 1.0);                    \
            for (r = 0; r < body; r += 8) {                                                                           \
                __m256d x0 = LOAD4(xc + r), x1 = LOAD4(xc + r + 4);                                                   \
                __m256d y0 = _mm256_andnot_pd(sign, x0), y1 = _mm256_andnot_pd(sign, x1);                             \
                if (wr) {                                                                                             \
                    s0 = _mm256_fmadd_pd(x0, _mm256_loadu_pd(wr + r), s0);                                            \
                    s1 = _mm256_fmadd_pd(x1, _mm256_loadu_pd(wr + r + 4), s1);                                        \
                    a0 = _mm256_fmadd_pd(y0, _mm256_loadu_pd(wra + r), a0);                                           \
                    a1 = _mm256_fmadd_pd(y1, _mm256_loadu_pd(wra + r + 4), a1);                                       \
                } else {                                                                                              \
                    s0 = _mm256_add_pd(x0, s0);                                                                       \
                    s1 = _mm256_add_pd(x1, s1);                                                                       \
                    a0 = _mm256_add_pd(y0, a0);                                                                       \
                    a1 = _mm256_add_pd(y1, a1);                                                                       \
                }                                                                                                     \
                if (row) {                                                                                            \
                    _mm256_storeu_pd(row + r, _mm256_fmadd_pd(x0, w, _mm256_loadu_pd(row + r)));                      \
                    _mm256_storeu_pd(row + r + 4, _mm256_fmadd_pd(x1, w, _mm256_loadu_pd(row + r + 4)));              \
                }                                                                                                     \
                if (rowa) {                                                                                           \
                    _mm256_storeu_pd(rowa + r, _mm256_fmadd_pd(y0, wa, _mm256_loadu_pd(rowa + r)));                   \
                    _mm256_storeu_pd(rowa + r + 4, _mm256_fmadd_pd(y1, wa, _mm256_loadu_pd(rowa + r + 4)));           \
                }                                                                                                     \
            }                                                                                                         \
            _mm256_storeu_pd(part, _mm256_add_pd(s0, s1));                                                            \
            if (col) col[c] += (part[0] + part[1]) + (part[2] + part[3]);                                             \
            _mm256_storeu_pd(part, _mm256_add_pd(a0, a1));                                                            \
            if (cola) cola[c] += (part[0] + part[1]) + (part[2] + part[3]);                                           \
        }                                                                                                             \
        if (body < rows) /* the last rows of every column */                                                          \
            plain(x + body, rows - body, cols, ld, wr ? wr + body : NULL, wra ? wra + body : NULL, wc, wca, col,      \
                  cola, row ? row + body : NULL, rowa ? rowa + body : NULL);                                          \
    }
#define GEMM__VERIFY_LOAD4_F32(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
GEMM__VERIFY_PASS_AVX2(gemm__verify_pass_avx2_f32, float, GEMM__VERIFY_LOAD4_F32, gemm__verify_pass_f32)
GEMM__VERIFY_PASS_AVX2(gemm__verify_pass_avx2_f64, double, _mm256_loadu_pd, gemm__verify_pass_f64)
#undef GEMM__VERIFY_PASS_AVX2
#undef GEMM__VERIFY_LOAD4_F32

static int gemm__verify_avx2(void)
{
    static int have = -1; /* a race here writes the same value */
    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return have;
}
#endif

/* The pass over a matrix of rows x cols with element (r, c) at
   x[r*rs + c*cs] (rs == 1 or cs == 1), in the order it is stored. */
/* The pass over columns [c0, c0 + cols) of a matrix with contiguous
   columns (element (r, c) at x[r + c*cs]), its row outputs into row, rowa. */
static void gemm__verify_cols(gemm_precision precision, const void *x, int64_t rows, int64_t c0, int64_t cols,
                              int64_t cs, const double *wr, const double *wra, const double *wc, const double *wca,
                              double *col, double *cola, double *row, double *rowa)
{
    size_t es = precision == GEMM_F32 ? sizeof(float) : sizeof(double);
    x = (const char *)x + (size_t)c0 * (size_t)cs * es;
    wc = wc ? wc + c0 : NULL;
    wca = wca ? wca + c0 : NULL;
    col = col ? col + c0 : NULL;
    cola = cola ? cola + c0 : NULL;
#ifdef GEMM__CPU_X86
    if (gemm__verify_avx2()) {
        if (precision == GEMM_F32)
            gemm__verify_pass_avx2_f32((const float *)x, rows, cols, cs, wr, wra, wc, wca, col, cola, row, rowa);
        else
            gemm__verify_pass_avx2_f64((const double *)x, rows, cols, cs, wr, wra, wc, wca, col, cola, row, rowa);
        return;
    }
#endif
    if (precision == GEMM_F32)
        gemm__verify_pass_f32((const float *)x, rows, cols, cs, wr, wra, wc, wca, col, cola, row, rowa);
    else
        gemm__verify_pass_f64((const double *)x, rows, cols, cs, wr, wra, wc, wca, col, cola, row, rowa);
}

/* A pass cut over the pool's threads: chunks of columns taken from a
   shared counter; the column outputs of a chunk are its own, the row
   outputs each thread's (partials, summed after: thread 0 writes the
   caller's). */
#if defined(__GNUC__) || defined(__clang__)
#define GEMM__VERIFY_TAKE(x, n) __atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED)
#else
#define GEMM__VERIFY_TAKE(x, n) (((x) += (n)) - (n)) /* no threads without GCC-style atomics */
#endif

typedef struct gemm__verify_job {
    gemm_precision precision;
    const void *x;
    int64_t rows, cols, cs, chunk, next;
    const double *wr, *wra, *wc, *wca;
    double *col, *cola, *row, *rowa, *part; /* part: 2*rows per thread but the first */
} gemm__verify_job;

static void gemm__verify_task(void *arg, int tid)
{
    gemm__verify_job *j = (gemm__verify_job *)arg;
    double *row = tid ? (j->row ? j->part + (size_t)(tid - 1) * 2 * (size_t)j->rows : NULL) : j->row;
    double *rowa = tid ? (j->rowa ? j->part + ((size_t)(tid - 1) * 2 + 1) * (size_t)j->rows : NULL) : j->rowa;
    int64_t c0;
    while ((c0 = GEMM__VERIFY_TAKE(j->next, j->chunk)) < j->cols)
        gemm__verify_cols(j->precision, j->x, j->rows, c0, j->cols - c0 < j->chunk ? j->cols - c0 : j->chunk, j->cs,
                          j->wr, j->wra, j->wc, j->wca, j->col, j->cola, row, rowa);
}

/* Passes of at least this many elements take the pool's threads (2^20: a
   few hundred microseconds alone). */
#define GEMM__VERIFY_THREADED ((int64_t)1 << 20)

/* The pass over a matrix of rows x cols with element (r, c) at
   x[r*rs + c*cs] (rs == 1 or cs == 1), in the order it is stored, on up
   to `threads` threads (the pool's, when it is free and the pass large). */
GEMM_DEF void gemm__verify_pass_mt(gemm_precision precision, const void *x, int64_t rows, int64_t cols, int64_t rs,
                                 int64_t cs, const double *wr, const double *wra, const double *wc, const double *wca,
                                 double *col, double *cola, double *row, double *rowa, int threads)
{
    gemm__verify_job j;
    int t;
    if (rs != 1) { /* rows contiguous: the transposed matrix, roles exchanged */
        int64_t tmp = rows;
        const double *w;
        double *o;
        rows = cols;
        cols = tmp;
        cs = rs;
        w = wr, wr = wc, wc = w;
        w = wra, wra = wca, wca = w;
        o = col, col = row, row = o;
        o = cola, cola = rowa, rowa = o;
    }
    j.part = NULL;
    if (threads > 1 && rows * cols >= GEMM__VERIFY_THREADED && cols >= 2 * threads &&
        (threads = gemm__cpu_pool_acquire(threads)) > 1 &&
        !(j.part = (double *)GEMM_MALLOC(sizeof(double) * 2 * (size_t)rows * (size_t)(threads - 1)))) {
        gemm__cpu_pool_release(); /* no memory for the partials: alone */
        threads = 1;
    }
    if (!j.part) {
        gemm__verify_cols(precision, x, rows, 0, cols, cs, wr, wra, wc, wca, col, cola, row, rowa);
        return;
    }
    memset(j.part, 0, sizeof(double) * 2 * (size_t)rows * (size_t)(threads - 1));
    j.precision = precision;
    j.x = x;
    j.rows = rows;
    j.cols = cols;
    j.cs = cs;
    j.chunk = (cols + 4 * (int64_t)threads - 1) / (4 * (int64_t)threads);
    j.next = 0;
    j.wr = wr, j.wra = wra, j.wc = wc, j.wca = wca;
    j.col = col, j.cola = cola, j.row = row, j.rowa = rowa;
    gemm__cpu_pool_run(gemm__verify_task, &j);
    gemm__cpu_pool_release();
    for (t = 1; t < threads; t++) {
        const double *pr = j.part + (size_t)(t - 1) * 2 * (size_t)rows, *pa = pr + rows;
        int64_t r;
        if (row)
            for (r = 0; r < rows; r++) row[r] += pr[r];
        if (rowa)
            for (r = 0; r < rows; r++) rowa[r] += pa[r];
    }
    GEMM_FREE(j.part);
}

static void gemm__verify_scale(double *x, int64_t count, double by)
{
    int64_t i;
    for (i = 0; i < count; i++) x[i] *= by;
}

/* Before the product: want and scale of every row and column (C0 read
   only when beta != 0, op(a) and op(b) only when the call reads them).
   ws: gemm__verify_doubles(m, n, k) doubles, v pointed into it; large
   passes on up to `threads` threads. */
GEMM_DEF void gemm__verify_host_before(const gemm__problem *p, gemm_precision precision, double alpha, const void *a,
                                     const void *b, double beta, const void *C, double *ws, gemm__verify_sums *v,
                                     int threads)
{
    int64_t m = p->m, n = p->n, k = p->k;
    double *after = gemm__verify_layout(v, ws, m, n, k);
    double *s = gemm__verify_scratch(after, k, 0), *sa = gemm__verify_scratch(after, k, 1);
    double *r = gemm__verify_scratch(after, k, 2), *ra = gemm__verify_scratch(after, k, 3);
    memset(ws, 0, gemm__verify_doubles(m, n, k) * sizeof(double));
    if (beta != 0) {
        gemm__verify_pass_mt(precision, C, m, n, 1, p->ldc, NULL, NULL, NULL, NULL, v->want_col, v->scale_col,
                          v->want_row, v->scale_row, threads);
        gemm__verify_scale(v->want_col, n, beta);
        gemm__verify_scale(v->want_row, m, beta);
        gemm__verify_scale(v->scale_col, n, fabs(beta));
        gemm__verify_scale(v->scale_row, m, fabs(beta));
    }
    if (p->work != GEMM__WORK_FULL) return;
    gemm__verify_pass_mt(precision, a, m, k, p->ars, p->acs, NULL, NULL, NULL, NULL, s, sa, NULL, NULL, threads);
    gemm__verify_scale(s, k, alpha);
    gemm__verify_scale(sa, k, fabs(alpha));
    gemm__verify_pass_mt(precision, b, k, n, p->brs, p->bcs, s, sa, NULL, NULL, v->want_col, v->scale_col, r, ra, threads);
    gemm__verify_scale(r, k, alpha);
    gemm__verify_scale(ra, k, fabs(alpha));
    gemm__verify_pass_mt(precision, a, m, k, p->ars, p->acs, NULL, NULL, r, ra, NULL, NULL, v->want_row, v->scale_row, threads);
}

/* After the product: the sums of the C computed (v->got_*). */
GEMM_DEF void gemm__verify_host_after(const gemm__problem *p, gemm_precision precision, const void *C,
                                    gemm__verify_sums *v, int threads)
{
    memset(v->got_row, 0, sizeof(double) * (size_t)p->m);
    memset(v->got_col, 0, sizeof(double) * (size_t)p->n);
    gemm__verify_pass_mt(precision, C, p->m, p->n, 1, p->ldc, NULL, NULL, NULL, NULL, v->got_col, NULL, v->got_row, NULL, threads);
}
