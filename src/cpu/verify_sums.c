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
   the three over the operands taken a slice of k at a time, so that the
   second pass over a slice of op(a) reads it from cache: C0, op(a), op(b)
   and C each come from memory once, which is as few as the math allows
   (s must be known before op(b) is weighted by it, v before op(a) is).
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

/* The same with AVX-512, four columns at a time: eight doubles a step, the
   four columns' reductions in registers of their own and one load and
   store of row (rowa) per step for all four, where the one-column loop
   above loads and stores them for every column. The flags are constants
   at every call (gemm__verify_pass_avx512), so each use compiles to a loop
   without the branches: COL column sums, ROW row updates, ABS their
   absolute sums beside them, WR a weight on the column sums. A pass is
   then about one instruction an element instead of three; the tail
   (fewer than 8 rows) is scalar, the last columns (fewer than 4) go one
   at a time. */
/* g++ 12 warns "'__Y' may be used uninitialized" inside its own AVX-512
   intrinsics (GCC bug 105593, fixed in 13): silenced for these loops only,
   as for the product's kernels (ukernel_x86.c). */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define GEMM__VERIFY_GXX12_PUSH 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define GEMM__VERIFY_W 4
/* One column q of the group (0..3, a constant: the registers are
   variables of their own, not an array the compiler may keep in memory). */
#define GEMM__VERIFY_LANE(q, LOAD8)                                                                                   \
    if (q < W) {                                                                                                      \
        v##q = LOAD8(x##q + r);                                                                                       \
        y##q = _mm512_castsi512_pd(_mm512_andnot_si512(_mm512_castpd_si512(sign), _mm512_castpd_si512(v##q)));        \
        if (COL) {                                                                                                    \
            s##q = WR ? _mm512_fmadd_pd(v##q, u, s##q) : _mm512_add_pd(v##q, s##q);                                   \
            if (ABS) a##q = WR ? _mm512_fmadd_pd(y##q, ua, a##q) : _mm512_add_pd(y##q, a##q);                         \
        }                                                                                                             \
        if (ROW) {                                                                                                    \
            o = _mm512_fmadd_pd(v##q, w##q, o);                                                                       \
            if (ABS) oa = _mm512_fmadd_pd(y##q, wa##q, oa);                                                           \
        }                                                                                                             \
    }
#define GEMM__VERIFY_TAIL(q)                                                                                          \
    if (q < W) {                                                                                                      \
        double e = (double)x##q[r], f = fabs(e);                                                                      \
        if (COL) {                                                                                                    \
            ts[q] += WR ? e * wr[r] : e;                                                                              \
            if (ABS) ta[q] += WR ? f * wra[r] : f;                                                                    \
        }                                                                                                             \
        to += e * sw[q];                                                                                              \
        toa += f * swa[q];                                                                                            \
    }
#define GEMM__VERIFY_OUT(q)                                                                                           \
    if (q < W && COL) {                                                                                               \
        double h[8];                                                                                                  \
        _mm512_storeu_pd(h, s##q);                                                                                    \
        col[c + q] += ((h[0] + h[1]) + (h[2] + h[3])) + ((h[4] + h[5]) + (h[6] + h[7])) + ts[q];                      \
        if (ABS) {                                                                                                    \
            _mm512_storeu_pd(h, a##q);                                                                                \
            cola[c + q] += ((h[0] + h[1]) + (h[2] + h[3])) + ((h[4] + h[5]) + (h[6] + h[7])) + ta[q];                 \
        }                                                                                                             \
    }
#define GEMM__VERIFY_AVX512(name, T, LOAD8)                                                                           \
    __attribute__((target("avx512f"), always_inline)) static inline void name##_group(                               \
        const T *x, int64_t rows, int64_t c, int W, int64_t ld, const double *wr, const double *wra,                  \
        const double *wc, const double *wca, double *col, double *cola, double *row, double *rowa, int COL, int ROW,  \
        int ABS, int WR)                                                                                              \
    {                                                                                                                 \
        const __m512d sign = _mm512_set1_pd(-0.0), one = _mm512_set1_pd(1.0);                                        \
        int64_t r, body = rows & ~(int64_t)7;                                                                         \
        int q;                                                                                                        \
        const T *x0 = x + c * ld, *x1 = x0 + (W > 1 ? ld : 0), *x2 = x1 + (W > 2 ? ld : 0),                          \
                *x3 = x2 + (W > 3 ? ld : 0);                                                                          \
        __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, a0 = s0, a1 = s0, a2 = s0, a3 = s0;              \
        __m512d v0, v1, v2, v3, y0, y1, y2, y3, w0, w1, w2, w3, wa0, wa1, wa2, wa3;                                   \
        double ts[GEMM__VERIFY_W] = {0, 0, 0, 0}, ta[GEMM__VERIFY_W] = {0, 0, 0, 0};                                  \
        double sw[GEMM__VERIFY_W] = {0, 0, 0, 0}, swa[GEMM__VERIFY_W] = {0, 0, 0, 0};                                 \
        for (q = 0; q < W; q++) {                                                                                     \
            sw[q] = wc ? wc[c + q] : 1.0;                                                                             \
            swa[q] = wca ? wca[c + q] : 1.0;                                                                          \
        }                                                                                                             \
        w0 = _mm512_set1_pd(sw[0]), w1 = _mm512_set1_pd(sw[1]), w2 = _mm512_set1_pd(sw[2]);                           \
        w3 = _mm512_set1_pd(sw[3]), wa0 = _mm512_set1_pd(swa[0]), wa1 = _mm512_set1_pd(swa[1]);                       \
        wa2 = _mm512_set1_pd(swa[2]), wa3 = _mm512_set1_pd(swa[3]);                                                   \
        for (r = 0; r < body; r += 8) {                                                                               \
            __m512d u = one, ua = one, o = s0, oa = s0;                                                               \
            if (COL && WR) {                                                                                          \
                u = _mm512_loadu_pd(wr + r);                                                                          \
                if (ABS) ua = _mm512_loadu_pd(wra + r);                                                               \
            }                                                                                                         \
            if (ROW) {                                                                                                \
                o = _mm512_loadu_pd(row + r);                                                                         \
                if (ABS) oa = _mm512_loadu_pd(rowa + r);                                                              \
            }                                                                                                         \
            GEMM__VERIFY_LANE(0, LOAD8) GEMM__VERIFY_LANE(1, LOAD8)                                                   \
            GEMM__VERIFY_LANE(2, LOAD8) GEMM__VERIFY_LANE(3, LOAD8)                                                   \
            if (ROW) {                                                                                                \
                _mm512_storeu_pd(row + r, o);                                                                         \
                if (ABS) _mm512_storeu_pd(rowa + r, oa);                                                              \
            }                                                                                                         \
        }                                                                                                             \
        for (; r < rows; r++) { /* the last rows */                                                                   \
            double to = 0, toa = 0;                                                                                   \
            GEMM__VERIFY_TAIL(0) GEMM__VERIFY_TAIL(1) GEMM__VERIFY_TAIL(2) GEMM__VERIFY_TAIL(3)                       \
            if (ROW) {                                                                                                \
                row[r] += to;                                                                                         \
                if (ABS) rowa[r] += toa;                                                                              \
            }                                                                                                         \
        }                                                                                                             \
        GEMM__VERIFY_OUT(0) GEMM__VERIFY_OUT(1) GEMM__VERIFY_OUT(2) GEMM__VERIFY_OUT(3)                               \
    }                                                                                                                 \
    __attribute__((target("avx512f"), always_inline)) static inline void name(                                       \
        const T *x, int64_t rows, int64_t cols, int64_t ld, const double *wr, const double *wra, const double *wc,    \
        const double *wca, double *col, double *cola, double *row, double *rowa, int COL, int ROW, int ABS, int WR)    \
    {                                                                                                                 \
        int64_t c = 0;                                                                                                \
        for (; c + GEMM__VERIFY_W <= cols; c += GEMM__VERIFY_W)                                                       \
            name##_group(x, rows, c, GEMM__VERIFY_W, ld, wr, wra, wc, wca, col, cola, row, rowa, COL, ROW, ABS, WR);  \
        for (; c < cols; c++)                                                                                         \
            name##_group(x, rows, c, 1, ld, wr, wra, wc, wca, col, cola, row, rowa, COL, ROW, ABS, WR);               \
    }
#define GEMM__VERIFY_LOAD8_F32(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
GEMM__VERIFY_AVX512(gemm__verify_avx512_f32, float, GEMM__VERIFY_LOAD8_F32)
GEMM__VERIFY_AVX512(gemm__verify_avx512_f64, double, _mm512_loadu_pd)
#undef GEMM__VERIFY_AVX512
#undef GEMM__VERIFY_LOAD8_F32
#undef GEMM__VERIFY_LANE
#undef GEMM__VERIFY_TAIL
#undef GEMM__VERIFY_OUT

/* Calls the kernel above with constant flags (16 loops a precision).
   Returns 0 for a combination of outputs no pass asks for (an absolute
   sum on one side only), which the AVX2 or plain loops then take. */
#define GEMM__VERIFY_CASE(f, col_, row_, abs_, wr_)                                                                   \
    case (col_) | (row_) << 1 | (abs_) << 2 | (wr_) << 3:                                                             \
        f(x, rows, cols, ld, wr, wra, wc, wca, col, cola, row, rowa, col_, row_, abs_, wr_);                          \
        return 1;
#define GEMM__VERIFY_CASES(f)                                                                                         \
    GEMM__VERIFY_CASE(f, 0, 0, 0, 0) GEMM__VERIFY_CASE(f, 1, 0, 0, 0) GEMM__VERIFY_CASE(f, 0, 1, 0, 0)               \
    GEMM__VERIFY_CASE(f, 1, 1, 0, 0) GEMM__VERIFY_CASE(f, 0, 0, 1, 0) GEMM__VERIFY_CASE(f, 1, 0, 1, 0)               \
    GEMM__VERIFY_CASE(f, 0, 1, 1, 0) GEMM__VERIFY_CASE(f, 1, 1, 1, 0) GEMM__VERIFY_CASE(f, 0, 0, 0, 1)               \
    GEMM__VERIFY_CASE(f, 1, 0, 0, 1) GEMM__VERIFY_CASE(f, 0, 1, 0, 1) GEMM__VERIFY_CASE(f, 1, 1, 0, 1)               \
    GEMM__VERIFY_CASE(f, 0, 0, 1, 1) GEMM__VERIFY_CASE(f, 1, 0, 1, 1) GEMM__VERIFY_CASE(f, 0, 1, 1, 1)               \
    GEMM__VERIFY_CASE(f, 1, 1, 1, 1)
#define GEMM__VERIFY_DISPATCH(name, T, f)                                                                             \
    __attribute__((target("avx512f"))) static int name(const T *x, int64_t rows, int64_t cols, int64_t ld,            \
                                                       const double *wr, const double *wra, const double *wc,         \
                                                       const double *wca, double *col, double *cola, double *row,     \
                                                       double *rowa)                                                  \
    {                                                                                                                 \
        int has_col = col != NULL, has_row = row != NULL, has_abs = cola != NULL || rowa != NULL;                     \
        if ((cola != NULL) != (has_col && has_abs) || (rowa != NULL) != (has_row && has_abs)) return 0;               \
        if (has_col && wr && !(wra || !has_abs)) return 0;                                                            \
        switch (has_col | has_row << 1 | has_abs << 2 | (has_col && wr != NULL) << 3) {                               \
            GEMM__VERIFY_CASES(f)                                                                                     \
        }                                                                                                             \
        return 0;                                                                                                     \
    }
GEMM__VERIFY_DISPATCH(gemm__verify_pass_avx512_f32, float, gemm__verify_avx512_f32)
GEMM__VERIFY_DISPATCH(gemm__verify_pass_avx512_f64, double, gemm__verify_avx512_f64)
#undef GEMM__VERIFY_DISPATCH
#undef GEMM__VERIFY_CASES
#undef GEMM__VERIFY_CASE

#ifdef GEMM__VERIFY_GXX12_PUSH
#pragma GCC diagnostic pop
#undef GEMM__VERIFY_GXX12_PUSH
#endif

static int gemm__verify_avx512(void)
{
    static int have = -1; /* a race here writes the same value */
    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("avx512f");
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
    if (gemm__verify_avx512() &&
        (precision == GEMM_F32
             ? gemm__verify_pass_avx512_f32((const float *)x, rows, cols, cs, wr, wra, wc, wca, col, cola, row, rowa)
             : gemm__verify_pass_avx512_f64((const double *)x, rows, cols, cs, wr, wra, wc, wca, col, cola, row, rowa)))
        return;
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

/* A thread's partial vectors lie this far apart (the length + 40
   doubles): two that a loop updates side by side never a multiple of
   4 KiB apart, whose loads would wait on the other's stores (core/verify.c
   pads the sums' own vectors the same way). */
#define GEMM__VERIFY_PART(len) ((size_t)(len) + 40)

typedef struct gemm__verify_job {
    gemm_precision precision;
    const void *x;
    int64_t rows, cols, cs, chunk, next;
    const double *wr, *wra, *wc, *wca;
    double *col, *cola, *row, *rowa, *part; /* part: row and rowa of each thread but the first */
} gemm__verify_job;

static void gemm__verify_task(void *arg, int tid)
{
    gemm__verify_job *j = (gemm__verify_job *)arg;
    double *row = tid ? (j->row ? j->part + (size_t)(tid - 1) * 2 * GEMM__VERIFY_PART(j->rows) : NULL) : j->row;
    double *rowa = tid ? (j->rowa ? j->part + ((size_t)(tid - 1) * 2 + 1) * GEMM__VERIFY_PART(j->rows) : NULL) : j->rowa;
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
        !(j.part = (double *)GEMM_MALLOC(sizeof(double) * 2 * GEMM__VERIFY_PART(rows) * (size_t)(threads - 1)))) {
        gemm__cpu_pool_release(); /* no memory for the partials: alone */
        threads = 1;
    }
    if (!j.part) {
        gemm__verify_cols(precision, x, rows, 0, cols, cs, wr, wra, wc, wca, col, cola, row, rowa);
        return;
    }
    memset(j.part, 0, sizeof(double) * 2 * GEMM__VERIFY_PART(rows) * (size_t)(threads - 1));
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
        const double *pr = j.part + (size_t)(t - 1) * 2 * GEMM__VERIFY_PART(rows), *pa = pr + GEMM__VERIFY_PART(rows);
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

/* The operands' sums, a slice of k at a time: for columns [l0, l1) of
   op(a) its column sums s (times alpha), then rows [l0, l1) of op(b)
   weighted by them (want_col, scale_col) with their row sums r (times
   alpha), then the same columns of op(a) again weighted by r (want_row,
   scale_row). The math needs s before op(b) and r before op(a)'s second
   use, but only of the slice: a slice of op(a) is sized to stay in the
   last-level cache (GEMM__VERIFY_SLICE_BYTES, 4 MiB) between its two
   passes, so op(a) and op(b) each come from memory once: the passes are
   bound by the memory's bandwidth (about 12 GB/s for one core of the
   2-core EPYC), and this took an fp32 n = 2048 set from 4.3 to 3.0 ms
   there. A slice much smaller (the L2's 512 KiB) was slower: op(b)'s
   slice is then a run of 256 bytes from each column, which the hardware
   prefetcher follows badly. Threads take slices from a
   shared counter; s, sa, r, ra are a slice's own, the four want and
   scale vectors each thread's (partials, summed after: thread 0 writes
   the caller's). */
#define GEMM__VERIFY_SLICE_BYTES ((int64_t)4 << 20)

typedef struct gemm__verify_inputs_job {
    const gemm__problem *p;
    gemm_precision precision;
    const void *a, *b;
    double alpha;
    double *s, *sa, *r, *ra;
    double *want_col, *scale_col, *want_row, *scale_row, *part; /* part: the four vectors of each thread but the first */
    int64_t slice, next;
} gemm__verify_inputs_job;

static void gemm__verify_inputs_task(void *arg, int tid)
{
    gemm__verify_inputs_job *j = (gemm__verify_inputs_job *)arg;
    const gemm__problem *p = j->p;
    size_t es = j->precision == GEMM_F32 ? sizeof(float) : sizeof(double);
    size_t pn = GEMM__VERIFY_PART(p->n), pm = GEMM__VERIFY_PART(p->m);
    double *part = tid ? j->part + (size_t)(tid - 1) * 2 * (pm + pn) : NULL;
    double *wc = tid ? part : j->want_col, *sc = tid ? part + pn : j->scale_col;
    double *wr = tid ? part + 2 * pn : j->want_row, *sr = tid ? part + 2 * pn + pm : j->scale_row;
    int64_t l0;
    while ((l0 = GEMM__VERIFY_TAKE(j->next, j->slice)) < p->k) {
        int64_t kb = p->k - l0 < j->slice ? p->k - l0 : j->slice;
        const char *as = (const char *)j->a + (size_t)(l0 * p->acs) * es;
        const char *bs = (const char *)j->b + (size_t)(l0 * p->brs) * es;
        gemm__verify_pass_mt(j->precision, as, p->m, kb, p->ars, p->acs, NULL, NULL, NULL, NULL, j->s + l0,
                             j->sa + l0, NULL, NULL, 1);
        gemm__verify_scale(j->s + l0, kb, j->alpha);
        gemm__verify_scale(j->sa + l0, kb, fabs(j->alpha));
        gemm__verify_pass_mt(j->precision, bs, kb, p->n, p->brs, p->bcs, j->s + l0, j->sa + l0, NULL, NULL, wc, sc,
                             j->r + l0, j->ra + l0, 1);
        gemm__verify_scale(j->r + l0, kb, j->alpha);
        gemm__verify_scale(j->ra + l0, kb, fabs(j->alpha));
        gemm__verify_pass_mt(j->precision, as, p->m, kb, p->ars, p->acs, NULL, NULL, j->r + l0, j->ra + l0, NULL,
                             NULL, wr, sr, 1);
    }
}

/* Before the product: want and scale of every row and column (C0 read
   only when beta != 0, op(a) and op(b) only when the call reads them).
   ws: gemm__verify_doubles(m, n, k) doubles, v pointed into it; large
   passes on up to `threads` threads. */
GEMM_DEF void gemm__verify_host_before(const gemm__problem *p, gemm_precision precision, double alpha, const void *a,
                                     const void *b, double beta, const void *C, double *ws, gemm__verify_sums *v,
                                     int threads)
{
    int64_t m = p->m, n = p->n, k = p->k, slices;
    double *after = gemm__verify_layout(v, ws, m, n, k);
    size_t es = precision == GEMM_F32 ? sizeof(float) : sizeof(double), partials;
    gemm__verify_inputs_job j;
    int t;
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
    j.p = p;
    j.precision = precision;
    j.a = a, j.b = b;
    j.alpha = alpha;
    j.s = gemm__verify_scratch(after, k, 0), j.sa = gemm__verify_scratch(after, k, 1);
    j.r = gemm__verify_scratch(after, k, 2), j.ra = gemm__verify_scratch(after, k, 3);
    j.want_col = v->want_col, j.scale_col = v->scale_col, j.want_row = v->want_row, j.scale_row = v->scale_row;
    j.slice = GEMM__VERIFY_SLICE_BYTES / ((m > 0 ? m : 1) * (int64_t)es);
    if (threads > 1 && j.slice > (k + 2 * threads - 1) / (2 * threads)) /* two slices a thread at least */
        j.slice = (k + 2 * threads - 1) / (2 * threads);
    j.slice = j.slice < 32 ? 32 : (j.slice + 7) & ~(int64_t)7; /* whole vectors where a slice is op(a)'s rows */
    j.next = 0;
    j.part = NULL;
    slices = (k + j.slice - 1) / j.slice;
    partials = 2 * (GEMM__VERIFY_PART(m) + GEMM__VERIFY_PART(n));
    if (threads > 1 && (m + n) * k >= GEMM__VERIFY_THREADED && slices >= 2 &&
        (threads = gemm__cpu_pool_acquire(threads)) > 1 &&
        !(j.part = (double *)GEMM_MALLOC(sizeof(double) * partials * (size_t)(threads - 1)))) {
        gemm__cpu_pool_release(); /* no memory for the partials: alone */
        threads = 1;
    }
    if (!j.part) {
        gemm__verify_inputs_task(&j, 0);
        return;
    }
    memset(j.part, 0, sizeof(double) * partials * (size_t)(threads - 1));
    gemm__cpu_pool_run(gemm__verify_inputs_task, &j);
    gemm__cpu_pool_release();
    for (t = 1; t < threads; t++) {
        const double *pc = j.part + (size_t)(t - 1) * partials, *pca = pc + GEMM__VERIFY_PART(n);
        const double *pr = pca + GEMM__VERIFY_PART(n), *pra = pr + GEMM__VERIFY_PART(m);
        int64_t i;
        for (i = 0; i < n; i++) v->want_col[i] += pc[i], v->scale_col[i] += pca[i];
        for (i = 0; i < m; i++) v->want_row[i] += pr[i], v->scale_row[i] += pra[i];
    }
    GEMM_FREE(j.part);
}

/* After the product: the sums of the C computed (v->got_*). */
GEMM_DEF void gemm__verify_host_after(const gemm__problem *p, gemm_precision precision, const void *C,
                                    gemm__verify_sums *v, int threads)
{
    memset(v->got_row, 0, sizeof(double) * (size_t)p->m);
    memset(v->got_col, 0, sizeof(double) * (size_t)p->n);
    gemm__verify_pass_mt(precision, C, p->m, p->n, 1, p->ldc, NULL, NULL, NULL, NULL, v->got_col, NULL, v->got_row, NULL, threads);
}
