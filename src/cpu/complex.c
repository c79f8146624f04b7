/* Complex products on the real kernels: gemm_cpu_cgemm / gemm_cpu_zgemm
   and the front door gemm_cgemm / gemm_zgemm.

   In the column-major view (gemm__problem) an interleaved complex C, m x n
   with leading dimension ldc, is a real 2m x n matrix with leading
   dimension 2*ldc (rows 2i and 2i+1 hold Re and Im of row i), and so is an
   untransposed b (2k x n). Then

       C (2m x 2k . 2k x n) = X * b,   X[2i][2l]   = Re x, X[2i][2l+1]   = -Im x,
                                       X[2i+1][2l] = Im x, X[2i+1][2l+1] =  Re x,

   x = (alpha * op(a))[i][l]: column 2l of X is column l of alpha*op(a) as
   interleaved complex, column 2l+1 is i times it. The real product does
   8mnk real flops, the complex count, so nothing is lost; C and b are used
   where they are and only a is expanded (alpha and the conjugation folded
   in).

   Fused: when that real product takes the packed path (driver.c: beyond
   128^3 real multiply-adds), it runs whole with this file's packers in
   the job, and X is never made: the A packer writes X's panels from
   op(a), the B packer reads a transposed or conjugated b in place. The
   product then makes no pass over a 2m x 2k scratch matrix, and its k
   blocks are the real kernel's own.
   Panels: a smaller product expands X a panel at a time (256 columns, as
   many rows as fit 8 MiB), each panel one real product that adds into its
   rows of C, and a transposed or conjugated b is copied 256 rows at a time
   into the untransposed form.
   beta: a real one goes to the real product as it is (0 never reads C); a
   complex one scales a copy of C, the products add to it (beta = 1) and
   it replaces C when they are done. */
#pragma once

#include <stdint.h>              /* uintptr_t */
#include "../core/complex.c"     /* gemm__prepare_complex */
#include "../core/config.h"      /* GEMM_MALLOC, GEMM_FREE */
#include "../core/overlap.c"     /* gemm__check_overlap */
#include "api.h"
#include "driver.c"              /* gemm__cpu_gemm_lent, gemm__cpu_run_packed, gemm__cpu_job_init */
#include "kernel_select.c"       /* gemm__cpu_isa_for_call */
#include "platform.h"            /* GEMM__CPU_X86, <immintrin.h> */

/* Columns of a per panel (512 real columns, two of the kernels' k blocks)
   and the bytes of one expanded panel (as many rows as fit): measured at
   256^3 and 512^3 when those took panels too, larger panels (fewer real
   calls, b packed fewer times) beat panels that stay in L2; 128 columns or
   a 1 MiB panel lost 1-3%. */
#define GEMM__CPU_COMPLEX_KB 256
#define GEMM__CPU_COMPLEX_PANEL_BYTES ((int64_t)8 << 20)

/* C = beta*C over the m x n complex C (column-major view); beta == 0
   writes zeros without reading C. */
static void gemm__cpu_complex_scale(const gemm__problem *p, gemm_precision precision, const double beta[2], void *C)
{
    int64_t i, j;
    int zero = beta[0] == 0 && beta[1] == 0;
    for (j = 0; j < p->n; j++) {
        if (precision == GEMM_F32) {
            float *c = (float *)C + 2 * j * p->ldc, br = (float)beta[0], bi = (float)beta[1];
            for (i = 0; i < p->m; i++) {
                float re = zero ? 0.0f : br * c[2 * i] - bi * c[2 * i + 1];
                float im = zero ? 0.0f : br * c[2 * i + 1] + bi * c[2 * i];
                c[2 * i] = re;
                c[2 * i + 1] = im;
            }
        } else {
            double *c = (double *)C + 2 * j * p->ldc, br = beta[0], bi = beta[1];
            for (i = 0; i < p->m; i++) {
                double re = zero ? 0.0 : br * c[2 * i] - bi * c[2 * i + 1];
                double im = zero ? 0.0 : br * c[2 * i + 1] + bi * c[2 * i];
                c[2 * i] = re;
                c[2 * i + 1] = im;
            }
        }
    }
}

/* One contiguous column of alpha*op(a) (n2 reals, interleaved) into X's
   columns x0 (the values) and x1 (i times them), AVX-512: pairs swapped by
   a permute, so each vector of 8 (float) or 4 (double) elements costs two
   multiplies and an add, the scalar loop's arithmetic bit for bit
   (re = ar*vr - ai*vi, im = ar*vi + ai*vr, no fused multiply-add); a
   column's tail through masks. The scalar expansion took as long as a
   tenth of a 256^3 product. One vector's step is shared by the column of
   X and the packed path's panels below. (The masked permutes with every
   lane set are the plain ones: g++ 12 warns that the plain ones' undefined
   source may be used uninitialised.) */
#if defined(GEMM__CPU_X86)
#define GEMM__CPU_EXPAND_AVX512 __attribute__((target("avx512f")))
#define GEMM__CPU_EXPAND_STEP __attribute__((target("avx512f"), always_inline)) static inline

GEMM__CPU_EXPAND_STEP void gemm__cpu_expand_vec_float(const float *src, __mmask16 m, __m512 sg, __m512 ra, __m512 aa,
                                                      float *x0, float *x1)
{
    const __m512 ng = _mm512_set_ps(1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1);
    __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, src), sg);
    __m512 t = _mm512_add_ps(_mm512_mul_ps(ra, v), _mm512_mul_ps(aa, _mm512_mask_permute_ps(v, 0xFFFF, v, 0xB1)));
    _mm512_mask_storeu_ps(x0, m, t);
    _mm512_mask_storeu_ps(x1, m, _mm512_mul_ps(_mm512_mask_permute_ps(t, 0xFFFF, t, 0xB1), ng));
}
GEMM__CPU_EXPAND_STEP void gemm__cpu_expand_vec_double(const double *src, __mmask8 m, __m512d sg, __m512d ra,
                                                       __m512d aa, double *x0, double *x1)
{
    const __m512d ng = _mm512_set_pd(1, -1, 1, -1, 1, -1, 1, -1);
    __m512d v = _mm512_mul_pd(_mm512_maskz_loadu_pd(m, src), sg);
    __m512d t = _mm512_add_pd(_mm512_mul_pd(ra, v), _mm512_mul_pd(aa, _mm512_mask_permute_pd(v, 0xFF, v, 0x55)));
    _mm512_mask_storeu_pd(x0, m, t);
    _mm512_mask_storeu_pd(x1, m, _mm512_mul_pd(_mm512_mask_permute_pd(t, 0xFF, t, 0x55), ng));
}

/* The step's constants: the conjugation's signs, alpha and its
   imaginary part's signs, for float (F) and double (D). */
#define GEMM__CPU_EXPAND_CONSTS_F                                                                              \
    const __m512 sg = _mm512_set_ps(s, 1, s, 1, s, 1, s, 1, s, 1, s, 1, s, 1, s, 1), ra = _mm512_set1_ps(ar);  \
    const __m512 aa = _mm512_set_ps(ai, -ai, ai, -ai, ai, -ai, ai, -ai, ai, -ai, ai, -ai, ai, -ai, ai, -ai);
#define GEMM__CPU_EXPAND_CONSTS_D                                                                              \
    const __m512d sg = _mm512_set_pd(s, 1, s, 1, s, 1, s, 1), ra = _mm512_set1_pd(ar);                        \
    const __m512d aa = _mm512_set_pd(ai, -ai, ai, -ai, ai, -ai, ai, -ai);

GEMM__CPU_EXPAND_AVX512 static void gemm__cpu_expand_col_float(const float *src, int64_t n2, float ar, float ai,
                                                               float s, float *x0, float *x1)
{
    GEMM__CPU_EXPAND_CONSTS_F
    int64_t i;
    for (i = 0; i < n2; i += 16)
        gemm__cpu_expand_vec_float(src + i, n2 - i >= 16 ? (__mmask16)0xFFFF
                                                          : (__mmask16)((1u << (unsigned)(n2 - i)) - 1u),
                                   sg, ra, aa, x0 + i, x1 + i);
}
GEMM__CPU_EXPAND_AVX512 static void gemm__cpu_expand_col_double(const double *src, int64_t n2, double ar, double ai,
                                                                double s, double *x0, double *x1)
{
    GEMM__CPU_EXPAND_CONSTS_D
    int64_t i;
    for (i = 0; i < n2; i += 8)
        gemm__cpu_expand_vec_double(src + i, n2 - i >= 8 ? (__mmask8)0xFF
                                                          : (__mmask8)((1u << (unsigned)(n2 - i)) - 1u),
                                    sg, ra, aa, x0 + i, x1 + i);
}

/* The same column (nx reals) into the packed path's panels of w rows (a
   multiple of the vector), ps apart: its part in panel r at x0 + r*ps and
   x1 + r*ps. ahead, a column to bring into cache meanwhile, a line per
   vector: the next one, since a block's columns are runs of a few lines,
   lda apart, that the hardware prefetcher does not follow (cgemm
   1024..4096, 1 thread: 1.5-3% faster with it). */
GEMM__CPU_EXPAND_AVX512 static void gemm__cpu_expand_panels_float(const float *src, int64_t nx, float ar, float ai,
                                                                  float s, float *x0, float *x1, int64_t w,
                                                                  int64_t ps, const float *ahead)
{
    GEMM__CPU_EXPAND_CONSTS_F
    int64_t r, i, len;
    for (r = 0; r < nx; r += w, src += w, ahead += w, x0 += ps, x1 += ps)
        for (i = 0, len = gemm__cpu_min(w, nx - r); i < len; i += 16) {
            _mm_prefetch((const char *)(ahead + i), _MM_HINT_T0);
            gemm__cpu_expand_vec_float(src + i, len - i >= 16 ? (__mmask16)0xFFFF
                                                               : (__mmask16)((1u << (unsigned)(len - i)) - 1u),
                                       sg, ra, aa, x0 + i, x1 + i);
        }
}
GEMM__CPU_EXPAND_AVX512 static void gemm__cpu_expand_panels_double(const double *src, int64_t nx, double ar,
                                                                   double ai, double s, double *x0, double *x1,
                                                                   int64_t w, int64_t ps, const double *ahead)
{
    GEMM__CPU_EXPAND_CONSTS_D
    int64_t r, i, len;
    for (r = 0; r < nx; r += w, src += w, ahead += w, x0 += ps, x1 += ps)
        for (i = 0, len = gemm__cpu_min(w, nx - r); i < len; i += 8) {
            _mm_prefetch((const char *)(ahead + i), _MM_HINT_T0);
            gemm__cpu_expand_vec_double(src + i, len - i >= 8 ? (__mmask8)0xFF
                                                               : (__mmask8)((1u << (unsigned)(len - i)) - 1u),
                                        sg, ra, aa, x0 + i, x1 + i);
        }
}
#undef GEMM__CPU_EXPAND_AVX512
#undef GEMM__CPU_EXPAND_STEP
#undef GEMM__CPU_EXPAND_CONSTS_F
#undef GEMM__CPU_EXPAND_CONSTS_D

/* Whether the expansion may use the AVX-512 columns: when the real
   product runs the AVX-512 kernels (so a test that forces another kernel
   covers the scalar expansion). */
static int gemm__cpu_complex_vec(void)
{
    const gemm__cpu_isa *isa = gemm__cpu_isa_for_call();
    return isa && strcmp(isa->name, "avx512") == 0;
}
#else
static void gemm__cpu_expand_col_float(const float *src, int64_t n2, float ar, float ai, float s, float *x0,
                                       float *x1)
{
    (void)src; (void)n2; (void)ar; (void)ai; (void)s; (void)x0; (void)x1;
}
static void gemm__cpu_expand_col_double(const double *src, int64_t n2, double ar, double ai, double s, double *x0,
                                        double *x1)
{
    (void)src; (void)n2; (void)ar; (void)ai; (void)s; (void)x0; (void)x1;
}
static void gemm__cpu_expand_panels_float(const float *src, int64_t nx, float ar, float ai, float s, float *x0,
                                          float *x1, int64_t w, int64_t ps, const float *ahead)
{
    (void)src; (void)nx; (void)ar; (void)ai; (void)s; (void)x0; (void)x1; (void)w; (void)ps; (void)ahead;
}
static void gemm__cpu_expand_panels_double(const double *src, int64_t nx, double ar, double ai, double s,
                                           double *x0, double *x1, int64_t w, int64_t ps, const double *ahead)
{
    (void)src; (void)nx; (void)ar; (void)ai; (void)s; (void)x0; (void)x1; (void)w; (void)ps; (void)ahead;
}
static int gemm__cpu_complex_vec(void) { return 0; }
#endif

/* The expansion X of rows [i0, i0+mb) and columns [l0, l0+kb) of
   alpha*op(a) (see the top of this file), column-major with leading
   dimension ld >= 2*mb. One body per type: the arithmetic is the
   element's. */
#define GEMM__CPU_EXPAND_A(T)                                                                                  \
    static void gemm__cpu_expand_a_##T(const gemm__problem *p, const T *a, const double alpha[2], int64_t i0,  \
                                       int64_t mb, int64_t l0, int64_t kb, T *x, int64_t ld, int vec)          \
    {                                                                                                          \
        T ar = (T)alpha[0], ai = (T)alpha[1], s = p->a_conj ? (T)-1 : (T)1;                                    \
        int64_t i, l;                                                                                          \
        for (l = 0; l < kb; l++) {                                                                             \
            const T *src = a + 2 * ((i0)*p->ars + (l0 + l) * p->acs);                                          \
            T *x0 = x + 2 * l * ld, *x1 = x0 + ld;                                                             \
            int64_t step = 2 * p->ars;                                                                         \
            if (step == 2 && vec) {                                                                            \
                gemm__cpu_expand_col_##T(src, 2 * mb, ar, ai, s, x0, x1);                                      \
                continue;                                                                                      \
            }                                                                                                  \
            if (step == 2) {                                                                                   \
                for (i = 0; i < 2 * mb; i += 2) {                                                              \
                    T vr = src[i], vi = s * src[i + 1];                                                        \
                    T re = ar * vr - ai * vi, im = ar * vi + ai * vr;                                          \
                    x0[i] = re;                                                                                \
                    x0[i + 1] = im;                                                                            \
                    x1[i] = -im;                                                                               \
                    x1[i + 1] = re;                                                                            \
                }                                                                                              \
                continue;                                                                                      \
            }                                                                                                  \
            for (i = 0; i < mb; i++) {                                                                         \
                T vr = src[i * step], vi = s * src[i * step + 1];                                              \
                T re = ar * vr - ai * vi, im = ar * vi + ai * vr;                                              \
                x0[2 * i] = re;                                                                                \
                x0[2 * i + 1] = im;                                                                            \
                x1[2 * i] = -im;                                                                               \
                x1[2 * i + 1] = re;                                                                            \
            }                                                                                                  \
        }                                                                                                      \
    }
GEMM__CPU_EXPAND_A(float)
GEMM__CPU_EXPAND_A(double)

/* Rows [l0, l0+kb) of op(b) (transposed, maybe conjugated) copied as an
   untransposed interleaved kb x n matrix, leading dimension kb. */
#define GEMM__CPU_COPY_B(T)                                                                                    \
    static void gemm__cpu_copy_b_##T(const gemm__problem *p, const T *b, int64_t l0, int64_t kb, T *y)         \
    {                                                                                                          \
        T s = p->b_conj ? (T)-1 : (T)1;                                                                        \
        int64_t l, j;                                                                                          \
        for (l = 0; l < kb; l++) {                                                                             \
            const T *src = b + 2 * (l0 + l) * p->brs;                                                          \
            for (j = 0; j < p->n; j++) {                                                                       \
                y[2 * (l + j * kb)] = src[2 * j * p->bcs];                                                     \
                y[2 * (l + j * kb) + 1] = s * src[2 * j * p->bcs + 1];                                         \
            }                                                                                                  \
        }                                                                                                      \
    }
GEMM__CPU_COPY_B(float)
GEMM__CPU_COPY_B(double)

/* The packed path's own packing of the real product (a product large
   enough for it): X is never made, the packers read the caller's complex
   operands. What they read besides the job (gemm__cpu_job.pack_ctx): */
typedef struct gemm__cpu_complex_pack {
    const gemm__problem *p; /* the complex problem: strides in complex elements, a_conj, b_conj */
    const double *alpha;    /* folded into op(a)'s expansion, as in X */
    int vec;                /* gemm__cpu_complex_vec() */
} gemm__cpu_complex_pack;

/* The widest A panel of any kernel, in elements (AVX-512 fp32: MR = 32). */
#define GEMM__CPU_COMPLEX_MR_MAX 32

/* Rows [x0, x0+nx) and columns [p0, p0+kc) of X into the kernel's w-row
   panels at d (gemm__cpu_pack_block_fn: column q of a panel at q*w, the
   last panel's rows past nx zero). x0, nx and w are even, so a panel holds
   whole complex rows, and its columns are X's with leading dimension w:
   the pair of X's columns that one complex column of op(a) gives expands
   straight into them, with X's arithmetic, so the values are X's bits.
   Column by column, each walked once across the panels when it is
   contiguous (on AVX-512), as the kernels' own packers walk A: long runs
   for the hardware prefetcher, where panel by panel crossed the columns,
   lda apart, once per panel. A pair that the k block cuts (an odd p0 or
   p0+kc: a test's block size) expands into a scratch pair, and its half
   inside the block is copied. */
#define GEMM__CPU_COMPLEX_PACK_A(T)                                                                            \
    static void gemm__cpu_complex_pack_a_##T(const gemm__cpu_job *jb, T *d, int64_t x0, int64_t p0, int64_t nx, \
                                             int64_t kc, int w)                                                \
    {                                                                                                          \
        const gemm__cpu_complex_pack *cx = (const gemm__cpu_complex_pack *)jb->pack_ctx;                       \
        const gemm__problem *p = cx->p;                                                                        \
        const T *a = (const T *)(const void *)jb->a;                                                           \
        T ar = (T)cx->alpha[0], ai = (T)cx->alpha[1], s = p->a_conj ? (T)-1 : (T)1;                            \
        T pair[2 * GEMM__CPU_COMPLEX_MR_MAX];                                                                  \
        int64_t l, xp;                                                                                         \
        int runs = cx->vec && p->ars == 1;                                                                     \
        if (nx % w) memset(d + nx / w * w * kc, 0, sizeof(T) * (size_t)(w * kc));                              \
        for (l = p0 / 2; l <= (p0 + kc - 1) / 2; l++) {                                                        \
            int64_t q = 2 * l - p0; /* X's column 2l in the block: -1 when p0 is odd */                        \
            int whole = q >= 0 && q + 1 < kc;                                                                  \
            if (whole && runs) {                                                                               \
                const T *src = a + 2 * (x0 / 2 + l * p->acs);                                                  \
                gemm__cpu_expand_panels_##T(src, nx, ar, ai, s, d + q * w, d + (q + 1) * w, w, w * kc,         \
                                         l + 1 < p->k ? src + 2 * p->acs : src);                               \
                continue;                                                                                      \
            }                                                                                                  \
            for (xp = 0; xp < nx; xp += w) {                                                                   \
                int64_t rows = gemm__cpu_min(w, nx - xp);                                                      \
                T *dp = d + xp * kc;                                                                           \
                if (whole) {                                                                                   \
                    gemm__cpu_expand_a_##T(p, a, cx->alpha, (x0 + xp) / 2, rows / 2, l, 1, dp + q * w, w,      \
                                           cx->vec);                                                           \
                    continue;                                                                                  \
                }                                                                                              \
                gemm__cpu_expand_a_##T(p, a, cx->alpha, (x0 + xp) / 2, rows / 2, l, 1, pair, w, cx->vec);      \
                if (q < 0) memcpy(dp, pair + w, sizeof(T) * (size_t)rows);                                     \
                else memcpy(dp + q * w, pair, sizeof(T) * (size_t)rows);                                       \
            }                                                                                                  \
        }                                                                                                      \
    }
GEMM__CPU_COMPLEX_PACK_A(float)
GEMM__CPU_COMPLEX_PACK_A(double)

/* Columns [x0, x0+nx) and rows [p0, p0+kc) of a transposed op(b)'s real
   view (rows 2l and 2l+1: Re and Im of row l, the latter negated when
   conjugated) into w-wide panels at d, row q of a panel at q*w, the last
   panel's columns past nx zero: op(b) is read where it is, with no copy
   into the untransposed form. */
#define GEMM__CPU_COMPLEX_PACK_B(T)                                                                            \
    static void gemm__cpu_complex_pack_b_##T(const gemm__cpu_job *jb, T *d, int64_t x0, int64_t p0, int64_t nx, \
                                             int64_t kc, int w)                                                \
    {                                                                                                          \
        const gemm__problem *p = ((const gemm__cpu_complex_pack *)jb->pack_ctx)->p;                           \
        const T *b = (const T *)(const void *)jb->b;                                                           \
        int64_t xp, q, x;                                                                                      \
        for (xp = 0; xp < nx; xp += w) {                                                                       \
            int64_t cols = gemm__cpu_min(w, nx - xp);                                                          \
            T *dp = d + xp * kc;                                                                               \
            for (q = 0; q < kc; q++) {                                                                         \
                int64_t im = (p0 + q) % 2;                                                                     \
                T s = im && p->b_conj ? (T)-1 : (T)1;                                                          \
                const T *src = b + 2 * ((p0 + q) / 2 * p->brs + (x0 + xp) * p->bcs) + im;                      \
                for (x = 0; x < cols; x++) dp[q * w + x] = s * src[2 * x * p->bcs];                            \
                for (; x < w; x++) dp[q * w + x] = 0;                                                          \
            }                                                                                                  \
        }                                                                                                      \
    }
GEMM__CPU_COMPLEX_PACK_B(float)
GEMM__CPU_COMPLEX_PACK_B(double)

/* The packers as the job calls them (gemm__cpu_pack_block_fn), by the
   element size. */
static void gemm__cpu_complex_pack_a(const gemm__cpu_job *jb, char *d, int64_t x0, int64_t p0, int64_t nx,
                                     int64_t kc, int w)
{
    if (jb->es == (int64_t)sizeof(float)) gemm__cpu_complex_pack_a_float(jb, (float *)(void *)d, x0, p0, nx, kc, w);
    else gemm__cpu_complex_pack_a_double(jb, (double *)(void *)d, x0, p0, nx, kc, w);
}
static void gemm__cpu_complex_pack_b(const gemm__cpu_job *jb, char *d, int64_t x0, int64_t p0, int64_t nx,
                                     int64_t kc, int w)
{
    if (jb->es == (int64_t)sizeof(float)) gemm__cpu_complex_pack_b_float(jb, (float *)(void *)d, x0, p0, nx, kc, w);
    else gemm__cpu_complex_pack_b_double(jb, (double *)(void *)d, x0, p0, nx, kc, w);
}

/* For the other backends' complex calls (OpenCL, MPI), which run one real
   product of the whole problem: all of alpha*op(a) expanded into x (2m x
   2k, leading dimension 2m), all of op(b) copied untransposed into y (2k
   x n, leading dimension 2k), C = beta*C. Declared in api.h, so they are
   callable from any implementation that comes before this one. */
GEMM_DEF void gemm__complex_expand(const gemm__problem *p, gemm_precision precision, const void *a,
                                       const double alpha[2], void *x)
{
    if (precision == GEMM_F32)
        gemm__cpu_expand_a_float(p, (const float *)a, alpha, 0, p->m, 0, p->k, (float *)x, 2 * p->m,
                                 gemm__cpu_complex_vec());
    else
        gemm__cpu_expand_a_double(p, (const double *)a, alpha, 0, p->m, 0, p->k, (double *)x, 2 * p->m,
                                  gemm__cpu_complex_vec());
}

GEMM_DEF void gemm__complex_copy_b(const gemm__problem *p, gemm_precision precision, const void *b, void *y)
{
    if (precision == GEMM_F32) gemm__cpu_copy_b_float(p, (const float *)b, 0, p->k, (float *)y);
    else gemm__cpu_copy_b_double(p, (const double *)b, 0, p->k, (double *)y);
}

GEMM_DEF void gemm__complex_scale_c(const gemm__problem *p, gemm_precision precision, const double beta[2],
                                        void *C)
{
    gemm__cpu_complex_scale(p, precision, beta, C);
}

/* The real problem of one panel: X (2mb x 2kb) times the panel of b (2kb
   x n, leading dimension ldb_real) into rows [2*i0, 2*(i0+mb)) of C. */
static void gemm__cpu_complex_panel(const gemm__problem *p, int64_t mb, int64_t kb, int64_t ldb_real,
                                    gemm__problem *r)
{
    memset(r, 0, sizeof *r);
    r->work = GEMM__WORK_FULL;
    r->m = 2 * mb;
    r->n = p->n;
    r->k = 2 * kb;
    r->lda = 2 * mb;
    r->ldb = ldb_real;
    r->ldc = 2 * p->ldc;
    r->ars = 1;
    r->acs = r->lda;
    r->brs = 1;
    r->bcs = r->ldb;
    r->a_extent = (r->k - 1) * r->lda + r->m;
    r->b_extent = (r->n - 1) * r->ldb + r->k;
    r->c_extent = (r->n - 1) * r->ldc + r->m;
}

/* The whole product as one real one on the packed path (r: its real
   problem on C's real view, alpha 1): the packers expand op(a), alpha
   folded in, and read a transposed op(b) as the driver packs them, so
   neither X nor a copy of b is made and the product's k blocks are the
   real kernel's own. */
static gemm_status gemm__cpu_complex_fused(const char *func, const gemm__problem *p, const gemm__problem *r,
                                           const gemm__cpu_microkernel *uk, int64_t es, const double az[2],
                                           const char *a, const char *b, double beta, char *c,
                                           const gemm_cpu_options *options, char *lent, size_t lent_bytes)
{
    gemm__cpu_complex_pack cx;
    gemm__cpu_job jb;
    cx.p = p;
    cx.alpha = az;
    cx.vec = gemm__cpu_complex_vec();
    gemm__cpu_job_init(&jb, r, uk, es, 1.0, a, b, beta, c);
    jb.lent = lent;
    jb.lent_bytes = lent_bytes;
    jb.pack_ctx = &cx;
    jb.pack_a_block = gemm__cpu_complex_pack_a;
    if (p->b_trans) jb.pack_b_block = gemm__cpu_complex_pack_b;
    return gemm__cpu_run_packed(func, &jb, options);
}

/* The product of a checked call (p: its canonical problem, work FULL or
   SCALE; alpha and beta read) on the canonical a and b: fused into the
   packing when the real product takes the packed path, else in panels. */
static gemm_status gemm__cpu_complex_run(const char *func, gemm_precision precision, const gemm__problem *p,
                                         const double az[2], const double bz[2], const char *a, const char *b,
                                         char *C, const gemm_cpu_options *options)
{
    gemm__problem q, r;
    gemm_status s = GEMM_OK;
    double rbeta;
    int64_t es = precision == GEMM_F32 ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    int64_t mb, kb, i0, l0, xbytes, ybytes, cbytes, total, ldc_real;
    const gemm__cpu_isa *isa;
    const gemm__cpu_microkernel *uk;
    size_t lent_bytes = 0;
    char *ws, *x, *y, *ct, *cc, *lent;
    int copy_b, fused, vec = gemm__cpu_complex_vec();
    int64_t budget = GEMM__HOOK(cpu_complex_panel, GEMM__CPU_COMPLEX_PANEL_BYTES);

    if (p->work == GEMM__WORK_NONE) return GEMM_OK;
    if (p->work == GEMM__WORK_SCALE) {
        gemm__cpu_complex_scale(p, precision, bz, C);
        return GEMM_OK;
    }
    if (!(isa = gemm__cpu_isa_for_call()))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"%s\", which this build or CPU "
                          "cannot run", func, GEMM__HOOK(cpu_kernel, "?"));
    uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;

    /* the whole product as one real one takes the packed path: fused;
       else panels of KB columns of a and as many rows as fit the budget,
       each one real product, the first the largest */
    gemm__cpu_complex_panel(p, p->m, p->k, p->b_trans ? 2 * p->k : 2 * p->ldb, &r);
    fused = gemm__cpu_path(&r, uk, es, 1.0) == GEMM__CPU_PATH_PACKED;
    copy_b = p->b_trans && !fused; /* (b_conj implies b_trans) */
    kb = fused ? p->k : gemm__cpu_min(GEMM__HOOK(cpu_complex_kb, GEMM__CPU_COMPLEX_KB), p->k);
    mb = fused ? p->m : gemm__cpu_min(p->m, gemm__cpu_max(1, budget / (4 * kb * es)));
    xbytes = fused ? 0 : gemm__cpu_round_up(4 * mb * kb * es, 64);
    ybytes = copy_b ? gemm__cpu_round_up(2 * kb * p->n * es, 64) : 0;
    /* a complex beta: beta*C goes into a copy the products add to, which
       replaces C at the end, so a failed call leaves C as it was */
    cbytes = bz[1] != 0 ? gemm__cpu_round_up(2 * p->m * p->n * es, 64) : 0;
    /* the workspace the (first) real product takes when it runs alone,
       lent to each, so no product after the first can fail for want of
       memory (a threaded one keeps the pool's from the first); r is the
       first panel's problem already where one panel holds the product
       (small calls, where each set-up shows: 16^3 took 3-5% longer) */
    if (!fused && (mb < p->m || kb < p->k)) gemm__cpu_complex_panel(p, mb, kb, copy_b ? 2 * kb : 2 * p->ldb, &r);
    if (cbytes) {
        r.ldc = 2 * p->m;
        r.c_extent = (r.n - 1) * r.ldc + r.m;
    }
    s = gemm__cpu_alone_bytes(func, &r, uk, es, gemm__cpu_path(&r, uk, es, 1.0), &lent_bytes);
    if (s != GEMM_OK) return s;
    total = xbytes + ybytes + cbytes + (int64_t)lent_bytes + 64;
    /* the workspace is had before C is touched */
    if (!(ws = (char *)GEMM_MALLOC((size_t)total)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the complex panels, %lld bytes", func,
                          (long long)total);
    x = ws + (64 - (uintptr_t)ws % 64);
    y = x + xbytes;
    ct = y + ybytes;
    lent = lent_bytes ? ct + cbytes : NULL;

    rbeta = bz[0];
    cc = (char *)C;
    ldc_real = 2 * p->ldc;
    if (cbytes) {
        int64_t j;
        for (j = 0; j < p->n; j++) memcpy(ct + 2 * j * p->m * es, cc + 2 * j * p->ldc * es, (size_t)(2 * p->m * es));
        q = *p;
        q.ldc = p->m;
        gemm__cpu_complex_scale(&q, precision, bz, ct);
        rbeta = 1;
        cc = ct;
        ldc_real = 2 * p->m;
    }
    if (fused) s = gemm__cpu_complex_fused(func, p, &r, uk, es, az, a, b, rbeta, cc, options, lent, lent_bytes);
    for (l0 = 0; l0 < p->k && s == GEMM_OK && !fused; l0 += kb) {
        int64_t kk = gemm__cpu_min(kb, p->k - l0);
        const char *bp = b + 2 * l0 * es;
        int64_t ldb_real = 2 * p->ldb;
        if (copy_b) {
            if (precision == GEMM_F32) gemm__cpu_copy_b_float(p, (const float *)b, l0, kk, (float *)y);
            else gemm__cpu_copy_b_double(p, (const double *)b, l0, kk, (double *)y);
            bp = y;
            ldb_real = 2 * kk;
        }
        for (i0 = 0; i0 < p->m && s == GEMM_OK; i0 += mb) {
            int64_t mm = gemm__cpu_min(mb, p->m - i0);
            if (precision == GEMM_F32)
                gemm__cpu_expand_a_float(p, (const float *)a, az, i0, mm, l0, kk, (float *)x, 2 * mm, vec);
            else gemm__cpu_expand_a_double(p, (const double *)a, az, i0, mm, l0, kk, (double *)x, 2 * mm, vec);
            gemm__cpu_complex_panel(p, mm, kk, ldb_real, &r);
            r.ldc = ldc_real;
            r.c_extent = (r.n - 1) * r.ldc + r.m;
            s = gemm__cpu_gemm_lent(func, &r, precision, 1.0, x, bp, l0 == 0 ? rbeta : 1.0, cc + 2 * i0 * es,
                                    options, lent, lent_bytes);
        }
    }
    if (s == GEMM_OK && cbytes) {
        int64_t j;
        for (j = 0; j < p->n; j++) memcpy((char *)C + 2 * j * p->ldc * es, ct + 2 * j * p->m * es, (size_t)(2 * p->m * es));
    }
    GEMM_FREE(ws);
    return s;
}

/* The complex call behind every public name (the CBLAS ones too): checks,
   then the panels. bad_arg (may be NULL) receives the position of the
   argument at fault after a refusal (cblas_cgemm's list), else 0. */
static gemm_status gemm__cpu_complex_entry(const char *func, gemm_precision precision, gemm_layout layout,
                                           gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                           int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                                           int64_t ldb, const void *beta, void *C, int64_t ldc,
                                           const gemm_cpu_options *options, int *bad_arg)
{
    gemm__problem p;
    gemm_status s;
    double az[2], bz[2];
    int64_t es = precision == GEMM_F32 ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    gemm__clear_error();
    s = gemm__prepare_complex(func, precision, layout, transa, transb, m, n, k, alpha, A != NULL, lda, B != NULL,
                              ldb, beta, C != NULL, ldc, &p, az, bz);
    if (s == GEMM_OK) s = gemm__check_overlap(func, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, (size_t)(2 * es));
    if (bad_arg) *bad_arg = s == GEMM_OK ? 0 : p.bad_arg;
    if (s != GEMM_OK) return s;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (options && options->verify) /* the checksums are the real products' (gemm_cpu.h, "Verified products") */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->verify is not offered for complex products", func);
    return gemm__cpu_complex_run(func, precision, &p, az, bz, (const char *)(p.swapped ? B : A),
                                 (const char *)(p.swapped ? A : B), (char *)C, options);
}

GEMM_DEF gemm_status gemm_cpu_cgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_entry("gemm_cpu_cgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                   ldb, beta, C, ldc, options, NULL);
}

GEMM_DEF gemm_status gemm_cpu_zgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_entry("gemm_cpu_zgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                   ldb, beta, C, ldc, options, NULL);
}

/* The front door, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_cgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                const void *alpha, const void *A, int64_t lda,
                                const void *B, int64_t ldb,
                                const void *beta, void *C, int64_t ldc)
{
    return gemm__cpu_complex_entry("gemm_cgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                   beta, C, ldc, NULL, NULL);
}

GEMM_DEF gemm_status gemm_zgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                const void *alpha, const void *A, int64_t lda,
                                const void *B, int64_t ldb,
                                const void *beta, void *C, int64_t ldc)
{
    return gemm__cpu_complex_entry("gemm_zgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                   beta, C, ldc, NULL, NULL);
}
