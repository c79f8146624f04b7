/* The x86-64 micro-kernels, AVX-512 and AVX2 + FMA, from the template:
   each function carries its target attribute, so a plain build has them
   and the CPU says at run time which it can run. */
#pragma once

#include <stdint.h>
#include "platform.h"         /* GEMM__CPU_X86, <immintrin.h> */
#include "packing.c"          /* gemm__cpu_copy_rows */
#include "ukernel_template.h" /* GEMM__CPU_UKERNELS */

#if defined(GEMM__CPU_X86)
/* AVX-512: 16 zmm accumulators (MR = 2 vectors, NR = 8), 2 for A, 1 broadcast of B. */
#define GEMM__CPU_Z_S_T float
#define GEMM__CPU_Z_S_V __m512
#define GEMM__CPU_Z_S_VL 16
#define GEMM__CPU_Z_S_ZERO() _mm512_setzero_ps()
#define GEMM__CPU_Z_S_LOAD(p) _mm512_loadu_ps(p)
#define GEMM__CPU_Z_S_STORE(p, v) _mm512_storeu_ps(p, v)
#define GEMM__CPU_Z_S_SET1(x) _mm512_set1_ps(x)
#define GEMM__CPU_Z_S_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define GEMM__CPU_Z_S_MUL(a, b) _mm512_mul_ps(a, b)
#define GEMM__CPU_Z_S_ADD(a, b) _mm512_add_ps(a, b)
#define GEMM__CPU_Z_S_LOADM(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (unsigned)(n)) - 1u), p)
#define GEMM__CPU_Z_S_LOADN(p, n) gemm__cpu_z_loadn_s(p, n)
#define GEMM__CPU_Z_S_STOREN(p, v, n) gemm__cpu_z_storen_s(p, v, n)
#define GEMM__CPU_Z_D_T double
#define GEMM__CPU_Z_D_V __m512d
#define GEMM__CPU_Z_D_VL 8
#define GEMM__CPU_Z_D_ZERO() _mm512_setzero_pd()
#define GEMM__CPU_Z_D_LOAD(p) _mm512_loadu_pd(p)
#define GEMM__CPU_Z_D_STORE(p, v) _mm512_storeu_pd(p, v)
#define GEMM__CPU_Z_D_SET1(x) _mm512_set1_pd(x)
#define GEMM__CPU_Z_D_FMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define GEMM__CPU_Z_D_MUL(a, b) _mm512_mul_pd(a, b)
#define GEMM__CPU_Z_D_ADD(a, b) _mm512_add_pd(a, b)
#define GEMM__CPU_Z_D_LOADM(p, n) _mm512_maskz_loadu_pd((__mmask8)((1u << (unsigned)(n)) - 1u), p)
#define GEMM__CPU_Z_D_LOADN(p, n) gemm__cpu_z_loadn_d(p, n)
#define GEMM__CPU_Z_D_STOREN(p, v, n) gemm__cpu_z_storen_d(p, v, n)
/* AVX2 + FMA: 12 ymm accumulators, 2 for A, 1 broadcast (15 of 16). The
   partial moves take their lane mask from a window of these tables. */
static const int32_t gemm__cpu_mask32[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
static const int64_t gemm__cpu_mask64[8] = {-1, -1, -1, -1, 0, 0, 0, 0};
#define GEMM__CPU_Y_MASK32(n) _mm256_loadu_si256((const __m256i *)(gemm__cpu_mask32 + 8 - (n)))
#define GEMM__CPU_Y_MASK64(n) _mm256_loadu_si256((const __m256i *)(gemm__cpu_mask64 + 4 - (n)))
#define GEMM__CPU_Y_S_T float
#define GEMM__CPU_Y_S_V __m256
#define GEMM__CPU_Y_S_VL 8
#define GEMM__CPU_Y_S_ZERO() _mm256_setzero_ps()
#define GEMM__CPU_Y_S_LOAD(p) _mm256_loadu_ps(p)
#define GEMM__CPU_Y_S_STORE(p, v) _mm256_storeu_ps(p, v)
#define GEMM__CPU_Y_S_SET1(x) _mm256_set1_ps(x)
#define GEMM__CPU_Y_S_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define GEMM__CPU_Y_S_MUL(a, b) _mm256_mul_ps(a, b)
#define GEMM__CPU_Y_S_ADD(a, b) _mm256_add_ps(a, b)
#define GEMM__CPU_Y_S_LOADM(p, n) _mm256_maskload_ps(p, GEMM__CPU_Y_MASK32(n))
#define GEMM__CPU_Y_S_LOADN(p, n) gemm__cpu_y_loadn_s(p, n)
#define GEMM__CPU_Y_S_STOREN(p, v, n) gemm__cpu_y_storen_s(p, v, n)
#define GEMM__CPU_Y_D_T double
#define GEMM__CPU_Y_D_V __m256d
#define GEMM__CPU_Y_D_VL 4
#define GEMM__CPU_Y_D_ZERO() _mm256_setzero_pd()
#define GEMM__CPU_Y_D_LOAD(p) _mm256_loadu_pd(p)
#define GEMM__CPU_Y_D_STORE(p, v) _mm256_storeu_pd(p, v)
#define GEMM__CPU_Y_D_SET1(x) _mm256_set1_pd(x)
#define GEMM__CPU_Y_D_FMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define GEMM__CPU_Y_D_MUL(a, b) _mm256_mul_pd(a, b)
#define GEMM__CPU_Y_D_ADD(a, b) _mm256_add_pd(a, b)
#define GEMM__CPU_Y_D_LOADM(p, n) _mm256_maskload_pd(p, GEMM__CPU_Y_MASK64(n))
#define GEMM__CPU_Y_D_LOADN(p, n) gemm__cpu_y_loadn_d(p, n)
#define GEMM__CPU_Y_D_STOREN(p, v, n) gemm__cpu_y_storen_d(p, v, n)
#define GEMM__CPU_AVX512 __attribute__((target("avx512f")))
#define GEMM__CPU_AVX2 __attribute__((target("avx2,fma")))

/* g++ 12 warns "'__Y' is used uninitialized" inside its own AVX-512
   casts and inserts (GCC bug 105593, fixed in 13): silenced for the
   AVX-512 kernels only. */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define GEMM__CPU_GXX12_PUSH 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* The partial moves of the direct kernel. A whole vector, a half, a
   quarter or a single element goes through a plain move of that width: a masked store followed by a
   load of the same place (the next small call updating the same C) cannot
   be forwarded, which costs tens of cycles per column on some CPUs
   (measured: an 8x8x8 fp32 update took 65 ns through masks, 25 ns so).
   Other widths use the masks. Lanes past n are zero after a load: the zext
   casts define them (a plain cast leaves them undefined) and compile to the
   bare load. */
static GEMM__CPU_AVX512 __m512d gemm__cpu_z_loadn_d(const double *p, int64_t n)
{
    if (n == 8) return _mm512_loadu_pd(p);
    if (n == 4) return _mm512_zextpd256_pd512(_mm256_loadu_pd(p));
    if (n == 2) return _mm512_zextpd128_pd512(_mm_loadu_pd(p));
    if (n == 1) return _mm512_zextpd128_pd512(_mm_load_sd(p));
    return _mm512_maskz_loadu_pd((__mmask8)((1u << (unsigned)n) - 1u), p);
}
static GEMM__CPU_AVX512 void gemm__cpu_z_storen_d(double *p, __m512d v, int64_t n)
{
    if (n == 8) _mm512_storeu_pd(p, v);
    else if (n == 4) _mm256_storeu_pd(p, _mm512_castpd512_pd256(v));
    else if (n == 2) _mm_storeu_pd(p, _mm512_castpd512_pd128(v));
    else if (n == 1) _mm_store_sd(p, _mm512_castpd512_pd128(v));
    else _mm512_mask_storeu_pd(p, (__mmask8)((1u << (unsigned)n) - 1u), v);
}
static GEMM__CPU_AVX512 __m512 gemm__cpu_z_loadn_s(const float *p, int64_t n)
{
    if (n == 16) return _mm512_loadu_ps(p);
    if (n == 8) return _mm512_zextps256_ps512(_mm256_loadu_ps(p));
    if (n == 4) return _mm512_zextps128_ps512(_mm_loadu_ps(p));
    if (n == 1) return _mm512_zextps128_ps512(_mm_load_ss(p));
    return _mm512_maskz_loadu_ps((__mmask16)((1u << (unsigned)n) - 1u), p);
}
static GEMM__CPU_AVX512 void gemm__cpu_z_storen_s(float *p, __m512 v, int64_t n)
{
    if (n == 16) _mm512_storeu_ps(p, v);
    else if (n == 8) _mm256_storeu_ps(p, _mm512_castps512_ps256(v));
    else if (n == 4) _mm_storeu_ps(p, _mm512_castps512_ps128(v));
    else if (n == 1) _mm_store_ss(p, _mm512_castps512_ps128(v));
    else _mm512_mask_storeu_ps(p, (__mmask16)((1u << (unsigned)n) - 1u), v);
}
static GEMM__CPU_AVX2 __m256d gemm__cpu_y_loadn_d(const double *p, int64_t n)
{
    if (n == 4) return _mm256_loadu_pd(p);
    if (n == 2) return _mm256_insertf128_pd(_mm256_setzero_pd(), _mm_loadu_pd(p), 0);
    if (n == 1) return _mm256_insertf128_pd(_mm256_setzero_pd(), _mm_load_sd(p), 0);
    return _mm256_maskload_pd(p, GEMM__CPU_Y_MASK64(n));
}
static GEMM__CPU_AVX2 void gemm__cpu_y_storen_d(double *p, __m256d v, int64_t n)
{
    if (n == 4) _mm256_storeu_pd(p, v);
    else if (n == 2) _mm_storeu_pd(p, _mm256_castpd256_pd128(v));
    else if (n == 1) _mm_store_sd(p, _mm256_castpd256_pd128(v));
    else _mm256_maskstore_pd(p, GEMM__CPU_Y_MASK64(n), v);
}
static GEMM__CPU_AVX2 __m256 gemm__cpu_y_loadn_s(const float *p, int64_t n)
{
    if (n == 8) return _mm256_loadu_ps(p);
    if (n == 4) return _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_loadu_ps(p), 0);
    if (n == 1) return _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_load_ss(p), 0);
    return _mm256_maskload_ps(p, GEMM__CPU_Y_MASK32(n));
}
static GEMM__CPU_AVX2 void gemm__cpu_y_storen_s(float *p, __m256 v, int64_t n)
{
    if (n == 8) _mm256_storeu_ps(p, v);
    else if (n == 4) _mm_storeu_ps(p, _mm256_castps256_ps128(v));
    else if (n == 1) _mm_store_ss(p, _mm256_castps256_ps128(v));
    else _mm256_maskstore_ps(p, GEMM__CPU_Y_MASK32(n), v);
}
/* A transposed op(a) into a panel (gemm__cpu_copy_rows_fn): whole blocks
   of 16 rows x 16 k (fp32) or 8 x 8 (fp64) loaded row by row, transposed
   in registers (unpacks, then 128-bit lane shuffles; every value a named
   variable, so nothing goes through memory) and stored column by column;
   the edges element by element (gemm__cpu_copy_rows). Moves bits only. */
#define GEMM__CPU_Z_UNPK(a, b, lo, hi) lo = _mm512_unpacklo_ps(a, b); hi = _mm512_unpackhi_ps(a, b);
#define GEMM__CPU_Z_UNPKD(a, b, lo, hi)                                                                   \
    lo = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));                   \
    hi = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
#define GEMM__CPU_Z_SHUF(a, b, x, y) x = _mm512_shuffle_f32x4(a, b, 0x88); y = _mm512_shuffle_f32x4(a, b, 0xdd);
#define GEMM__CPU_Z_SHUFD(a, b, x, y) x = _mm512_shuffle_f64x2(a, b, 0x88); y = _mm512_shuffle_f64x2(a, b, 0xdd);
static GEMM__CPU_AVX512 void gemm__cpu_z_block_s(float *d, int64_t w, const float *s, int64_t rs)
{
    __m512 r0 = _mm512_loadu_ps(s + 0 * rs), r1 = _mm512_loadu_ps(s + 1 * rs), r2 = _mm512_loadu_ps(s + 2 * rs), r3 = _mm512_loadu_ps(s + 3 * rs);
    __m512 r4 = _mm512_loadu_ps(s + 4 * rs), r5 = _mm512_loadu_ps(s + 5 * rs), r6 = _mm512_loadu_ps(s + 6 * rs), r7 = _mm512_loadu_ps(s + 7 * rs);
    __m512 r8 = _mm512_loadu_ps(s + 8 * rs), r9 = _mm512_loadu_ps(s + 9 * rs), r10 = _mm512_loadu_ps(s + 10 * rs), r11 = _mm512_loadu_ps(s + 11 * rs);
    __m512 r12 = _mm512_loadu_ps(s + 12 * rs), r13 = _mm512_loadu_ps(s + 13 * rs), r14 = _mm512_loadu_ps(s + 14 * rs), r15 = _mm512_loadu_ps(s + 15 * rs);
    __m512 t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15;
    __m512 u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, u12, u13, u14, u15;
    GEMM__CPU_Z_UNPK(r0, r1, t0, t1)
    GEMM__CPU_Z_UNPK(r2, r3, t2, t3)
    GEMM__CPU_Z_UNPK(r4, r5, t4, t5)
    GEMM__CPU_Z_UNPK(r6, r7, t6, t7)
    GEMM__CPU_Z_UNPK(r8, r9, t8, t9)
    GEMM__CPU_Z_UNPK(r10, r11, t10, t11)
    GEMM__CPU_Z_UNPK(r12, r13, t12, t13)
    GEMM__CPU_Z_UNPK(r14, r15, t14, t15)
    GEMM__CPU_Z_UNPKD(t0, t2, u0, u1)
    GEMM__CPU_Z_UNPKD(t1, t3, u2, u3)
    GEMM__CPU_Z_UNPKD(t4, t6, u4, u5)
    GEMM__CPU_Z_UNPKD(t5, t7, u6, u7)
    GEMM__CPU_Z_UNPKD(t8, t10, u8, u9)
    GEMM__CPU_Z_UNPKD(t9, t11, u10, u11)
    GEMM__CPU_Z_UNPKD(t12, t14, u12, u13)
    GEMM__CPU_Z_UNPKD(t13, t15, u14, u15)
    GEMM__CPU_Z_SHUF(u0, u4, t0, t4)
    GEMM__CPU_Z_SHUF(u8, u12, t8, t12)
    GEMM__CPU_Z_SHUF(u1, u5, t1, t5)
    GEMM__CPU_Z_SHUF(u9, u13, t9, t13)
    GEMM__CPU_Z_SHUF(u2, u6, t2, t6)
    GEMM__CPU_Z_SHUF(u10, u14, t10, t14)
    GEMM__CPU_Z_SHUF(u3, u7, t3, t7)
    GEMM__CPU_Z_SHUF(u11, u15, t11, t15)
    GEMM__CPU_Z_SHUF(t0, t8, r0, r8)
    GEMM__CPU_Z_SHUF(t4, t12, r4, r12)
    GEMM__CPU_Z_SHUF(t1, t9, r1, r9)
    GEMM__CPU_Z_SHUF(t5, t13, r5, r13)
    GEMM__CPU_Z_SHUF(t2, t10, r2, r10)
    GEMM__CPU_Z_SHUF(t6, t14, r6, r14)
    GEMM__CPU_Z_SHUF(t3, t11, r3, r11)
    GEMM__CPU_Z_SHUF(t7, t15, r7, r15)
    _mm512_storeu_ps(d + 0 * w, r0);
    _mm512_storeu_ps(d + 1 * w, r1);
    _mm512_storeu_ps(d + 2 * w, r2);
    _mm512_storeu_ps(d + 3 * w, r3);
    _mm512_storeu_ps(d + 4 * w, r4);
    _mm512_storeu_ps(d + 5 * w, r5);
    _mm512_storeu_ps(d + 6 * w, r6);
    _mm512_storeu_ps(d + 7 * w, r7);
    _mm512_storeu_ps(d + 8 * w, r8);
    _mm512_storeu_ps(d + 9 * w, r9);
    _mm512_storeu_ps(d + 10 * w, r10);
    _mm512_storeu_ps(d + 11 * w, r11);
    _mm512_storeu_ps(d + 12 * w, r12);
    _mm512_storeu_ps(d + 13 * w, r13);
    _mm512_storeu_ps(d + 14 * w, r14);
    _mm512_storeu_ps(d + 15 * w, r15);
}
/* Transposes the 8 x 8 doubles in r0..r7 in place (rj's lane i becomes
   ri's lane j): unpacks, then 128-bit lane shuffles twice. */
#define GEMM__CPU_Z_T8D(r0, r1, r2, r3, r4, r5, r6, r7)                                                  \
    {                                                                                                    \
        __m512d t0 = _mm512_unpacklo_pd(r0, r1), t1 = _mm512_unpackhi_pd(r0, r1);                         \
        __m512d t2 = _mm512_unpacklo_pd(r2, r3), t3 = _mm512_unpackhi_pd(r2, r3);                         \
        __m512d t4 = _mm512_unpacklo_pd(r4, r5), t5 = _mm512_unpackhi_pd(r4, r5);                         \
        __m512d t6 = _mm512_unpacklo_pd(r6, r7), t7 = _mm512_unpackhi_pd(r6, r7);                         \
        __m512d u0, u1, u2, u3, u4, u5, u6, u7;                                                          \
        GEMM__CPU_Z_SHUFD(t0, t2, u0, u2)                                                                \
        GEMM__CPU_Z_SHUFD(t1, t3, u1, u3)                                                                \
        GEMM__CPU_Z_SHUFD(t4, t6, u4, u6)                                                                \
        GEMM__CPU_Z_SHUFD(t5, t7, u5, u7)                                                                \
        GEMM__CPU_Z_SHUFD(u0, u4, r0, r4)                                                                \
        GEMM__CPU_Z_SHUFD(u1, u5, r1, r5)                                                                \
        GEMM__CPU_Z_SHUFD(u2, u6, r2, r6)                                                                \
        GEMM__CPU_Z_SHUFD(u3, u7, r3, r7)                                                                \
    }
static GEMM__CPU_AVX512 void gemm__cpu_z_block_d(double *d, int64_t w, const double *s, int64_t rs)
{
    __m512d r0 = _mm512_loadu_pd(s + 0 * rs), r1 = _mm512_loadu_pd(s + 1 * rs), r2 = _mm512_loadu_pd(s + 2 * rs), r3 = _mm512_loadu_pd(s + 3 * rs);
    __m512d r4 = _mm512_loadu_pd(s + 4 * rs), r5 = _mm512_loadu_pd(s + 5 * rs), r6 = _mm512_loadu_pd(s + 6 * rs), r7 = _mm512_loadu_pd(s + 7 * rs);
    GEMM__CPU_Z_T8D(r0, r1, r2, r3, r4, r5, r6, r7)
    _mm512_storeu_pd(d + 0 * w, r0);
    _mm512_storeu_pd(d + 1 * w, r1);
    _mm512_storeu_pd(d + 2 * w, r2);
    _mm512_storeu_pd(d + 3 * w, r3);
    _mm512_storeu_pd(d + 4 * w, r4);
    _mm512_storeu_pd(d + 5 * w, r5);
    _mm512_storeu_pd(d + 6 * w, r6);
    _mm512_storeu_pd(d + 7 * w, r7);
}
#define GEMM__CPU_Z_ROWS(NAME, T, B, BLOCK)                                                                    \
    static GEMM__CPU_AVX512 void NAME(char *d, int64_t w, const char *s, int64_t rs, int64_t rows, int64_t k,    \
                                      int64_t es)                                                              \
    {                                                                                                          \
        int64_t i0, q0, fr = rows / B * B, fk = k / B * B;                                                     \
        for (i0 = 0; i0 < fr; i0 += B)                                                                         \
            for (q0 = 0; q0 < fk; q0 += B) BLOCK((T *)d + q0 * w + i0, w, (const T *)s + i0 * rs + q0, rs);   \
        if (fk < k && fr > 0) gemm__cpu_copy_rows(d + fk * w * es, w, s + fk * es, rs, fr, k - fk, es);        \
        if (fr < rows) gemm__cpu_copy_rows(d + fr * es, w, s + fr * rs * es, rs, rows - fr, k, es);           \
    }
GEMM__CPU_Z_ROWS(gemm__cpu_avx512_s_rows, float, 16, gemm__cpu_z_block_s)
GEMM__CPU_Z_ROWS(gemm__cpu_avx512_d_rows, double, 8, gemm__cpu_z_block_d)

/* The direct kernel that stores its tile transposed (direct_t,
   ukernel_template.h): a product with both operands transposed reads them
   in place as C^T = op(b)^T op(a)^T, where copying op(a) into a panel
   first took about as long as the product at 8^3 and 16^3. The tile's
   sums sit one vector per column j of the tile (lanes i); transposed in
   registers, each vector holds one row i of the tile, which is column i of
   C (lanes j, 8 of them), stored as the direct kernel stores a column:
   alpha times the sum, plus beta * C by one FMA, C not read for beta == 0
   (beta == 1 by the FMA too, where the direct kernel adds: 1*c + x rounds
   once, as c + x does). A whole block (all its columns, 8 rows each) runs
   straight-line code, inlined into the kernel, with plain moves and beta
   tested once: as calls, the sums went through the stack, and with tests
   per column the store cost a quarter of a 32^3 product. An edge block
   goes through an array and a loop. */
#define GEMM__CPU_Z_INLINE GEMM__CPU_AVX512 __inline__ __attribute__((always_inline))
static GEMM__CPU_Z_INLINE void gemm__cpu_z_col_d(double *c, __m512d r, __m512d va, __m512d vb, int reads)
{
    r = _mm512_mul_pd(r, va);
    if (reads) r = _mm512_fmadd_pd(vb, _mm512_loadu_pd(c), r);
    _mm512_storeu_pd(c, r);
}
/* fp32: a column in r's low 8 lanes; the others are not stored. */
static GEMM__CPU_Z_INLINE void gemm__cpu_z_col_s(float *c, __m512 r, __m512 va, __m512 vb, int reads)
{
    r = _mm512_mul_ps(r, va);
    if (reads) r = _mm512_fmadd_ps(vb, _mm512_zextps256_ps512(_mm256_loadu_ps(c)), r);
    _mm256_storeu_ps(c, _mm512_castps512_ps256(r));
}
/* An edge block: columns v[0..cols) of C, nw rows each, through the
   direct kernel's partial moves (plain ones for 8, 4, 2 and 1 rows). */
static GEMM__CPU_AVX512 void gemm__cpu_z_edge_d(double *c, int64_t ldc, const __m512d *v, int64_t cols, int64_t nw,
                                               __m512d va, __m512d vb, double beta)
{
    int64_t i;
    for (i = 0; i < cols; i++) {
        __m512d r = _mm512_mul_pd(v[i], va);
        if (beta != 0) r = _mm512_fmadd_pd(vb, gemm__cpu_z_loadn_d(c + i * ldc, nw), r);
        gemm__cpu_z_storen_d(c + i * ldc, r, nw);
    }
}
static GEMM__CPU_AVX512 void gemm__cpu_z_edge_s(float *c, int64_t ldc, const __m512 *v, int64_t cols, int64_t nw,
                                               __m512 va, __m512 vb, float beta)
{
    int64_t i;
    for (i = 0; i < cols; i++) {
        __m512 r = _mm512_mul_ps(v[i], va);
        if (beta != 0) r = _mm512_fmadd_ps(vb, gemm__cpu_z_loadn_s(c + i * ldc, nw), r);
        gemm__cpu_z_storen_s(c + i * ldc, r, nw);
    }
}
/* fp64: columns i < cols (<= 8) of C from the 8 x 8 block r0..r7. */
#define GEMM__CPU_Z_COLS_D(R)                                                                                  \
    {                                                                                                          \
        gemm__cpu_z_col_d(c, r0, va, vb, R);                                                                   \
        gemm__cpu_z_col_d(c + ldc, r1, va, vb, R);                                                             \
        gemm__cpu_z_col_d(c + 2 * ldc, r2, va, vb, R);                                                         \
        gemm__cpu_z_col_d(c + 3 * ldc, r3, va, vb, R);                                                         \
        gemm__cpu_z_col_d(c + 4 * ldc, r4, va, vb, R);                                                         \
        gemm__cpu_z_col_d(c + 5 * ldc, r5, va, vb, R);                                                         \
        gemm__cpu_z_col_d(c + 6 * ldc, r6, va, vb, R);                                                         \
        gemm__cpu_z_col_d(c + 7 * ldc, r7, va, vb, R);                                                         \
    }
static GEMM__CPU_Z_INLINE void gemm__cpu_z_putt_d(double *c, int64_t ldc, int64_t cols, int64_t nw, double alpha,
                                                  double beta, __m512d r0, __m512d r1, __m512d r2, __m512d r3,
                                                  __m512d r4, __m512d r5, __m512d r6, __m512d r7)
{
    __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    GEMM__CPU_Z_T8D(r0, r1, r2, r3, r4, r5, r6, r7)
    if (cols == 8 && nw == 8) {
        if (beta == 0) GEMM__CPU_Z_COLS_D(0)
        else GEMM__CPU_Z_COLS_D(1)
    } else {
        __m512d v[8];
        v[0] = r0, v[1] = r1, v[2] = r2, v[3] = r3, v[4] = r4, v[5] = r5, v[6] = r6, v[7] = r7;
        gemm__cpu_z_edge_d(c, ldc, v, cols, nw, va, vb, beta);
    }
}
/* fp32: the 16 x 8 block r0..r7 (8 rows of 8 floats per 128-bit lane
   pair) transposed: unpacks and in-lane shuffles leave, for r < 4, 4 rows
   of column 4L + r in lane L of u_r (rows 0-3) and u_{r+4} (rows 4-7);
   one two-source permute joins them into columns r and r + 4 (x_r's low
   and high halves), or r + 8 and r + 12 (y_r's). */
#define GEMM__CPU_Z_HI(x) _mm512_shuffle_f32x4(x, x, 0xee)
#define GEMM__CPU_Z_COLS_S(x0, x1, x2, x3, i, R)                                                              \
    {                                                                                                          \
        gemm__cpu_z_col_s(c + (i) * ldc, x0, va, vb, R);                                                       \
        gemm__cpu_z_col_s(c + ((i) + 1) * ldc, x1, va, vb, R);                                                 \
        gemm__cpu_z_col_s(c + ((i) + 2) * ldc, x2, va, vb, R);                                                 \
        gemm__cpu_z_col_s(c + ((i) + 3) * ldc, x3, va, vb, R);                                                 \
        gemm__cpu_z_col_s(c + ((i) + 4) * ldc, GEMM__CPU_Z_HI(x0), va, vb, R);                                 \
        gemm__cpu_z_col_s(c + ((i) + 5) * ldc, GEMM__CPU_Z_HI(x1), va, vb, R);                                 \
        gemm__cpu_z_col_s(c + ((i) + 6) * ldc, GEMM__CPU_Z_HI(x2), va, vb, R);                                 \
        gemm__cpu_z_col_s(c + ((i) + 7) * ldc, GEMM__CPU_Z_HI(x3), va, vb, R);                                 \
    }
static GEMM__CPU_Z_INLINE void gemm__cpu_z_putt_s(float *c, int64_t ldc, int64_t cols, int64_t nw, float alpha,
                                                  float beta, __m512 r0, __m512 r1, __m512 r2, __m512 r3, __m512 r4,
                                                  __m512 r5, __m512 r6, __m512 r7)
{
    const __m512i lo = _mm512_set_epi32(23, 22, 21, 20, 7, 6, 5, 4, 19, 18, 17, 16, 3, 2, 1, 0);
    const __m512i hi = _mm512_set_epi32(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8);
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    __m512 t0 = _mm512_unpacklo_ps(r0, r1), t1 = _mm512_unpackhi_ps(r0, r1);
    __m512 t2 = _mm512_unpacklo_ps(r2, r3), t3 = _mm512_unpackhi_ps(r2, r3);
    __m512 t4 = _mm512_unpacklo_ps(r4, r5), t5 = _mm512_unpackhi_ps(r4, r5);
    __m512 t6 = _mm512_unpacklo_ps(r6, r7), t7 = _mm512_unpackhi_ps(r6, r7);
    __m512 u0 = _mm512_shuffle_ps(t0, t2, 0x44), u1 = _mm512_shuffle_ps(t0, t2, 0xee);
    __m512 u2 = _mm512_shuffle_ps(t1, t3, 0x44), u3 = _mm512_shuffle_ps(t1, t3, 0xee);
    __m512 u4 = _mm512_shuffle_ps(t4, t6, 0x44), u5 = _mm512_shuffle_ps(t4, t6, 0xee);
    __m512 u6 = _mm512_shuffle_ps(t5, t7, 0x44), u7 = _mm512_shuffle_ps(t5, t7, 0xee);
    __m512 x0 = _mm512_permutex2var_ps(u0, lo, u4), x1 = _mm512_permutex2var_ps(u1, lo, u5);
    __m512 x2 = _mm512_permutex2var_ps(u2, lo, u6), x3 = _mm512_permutex2var_ps(u3, lo, u7);
    __m512 y0 = _mm512_permutex2var_ps(u0, hi, u4), y1 = _mm512_permutex2var_ps(u1, hi, u5);
    __m512 y2 = _mm512_permutex2var_ps(u2, hi, u6), y3 = _mm512_permutex2var_ps(u3, hi, u7);
    if ((cols == 8 || cols == 16) && nw == 8) {
        if (beta == 0) GEMM__CPU_Z_COLS_S(x0, x1, x2, x3, 0, 0)
        else GEMM__CPU_Z_COLS_S(x0, x1, x2, x3, 0, 1)
        if (cols == 8) return;
        if (beta == 0) GEMM__CPU_Z_COLS_S(y0, y1, y2, y3, 8, 0)
        else GEMM__CPU_Z_COLS_S(y0, y1, y2, y3, 8, 1)
    } else {
        __m512 v[16];
        v[0] = x0, v[1] = x1, v[2] = x2, v[3] = x3;
        v[4] = GEMM__CPU_Z_HI(x0), v[5] = GEMM__CPU_Z_HI(x1), v[6] = GEMM__CPU_Z_HI(x2), v[7] = GEMM__CPU_Z_HI(x3);
        v[8] = y0, v[9] = y1, v[10] = y2, v[11] = y3;
        v[12] = GEMM__CPU_Z_HI(y0), v[13] = GEMM__CPU_Z_HI(y1), v[14] = GEMM__CPU_Z_HI(y2), v[15] = GEMM__CPU_Z_HI(y3);
        gemm__cpu_z_edge_s(c, ldc, v, cols, nw, va, vb, beta);
    }
}
/* The direct kernel's PUT for direct_t: each vector block of the tile's
   rows (VL of them, 8 columns) through the transposes above. */
#define GEMM__CPU_Z_PUTT(VL, PUTT)                                                                           \
    PUTT(c, ldc, m0, nw, alpha, beta, c0_0, c0_1, c0_2, c0_3, c0_4, c0_5, c0_6, c0_7);                       \
    if (m1 > 0) PUTT(c + VL * ldc, ldc, m1, nw, alpha, beta, c1_0, c1_1, c1_2, c1_3, c1_4, c1_5, c1_6, c1_7);
#define GEMM__CPU_Z_S_PUTT(P, REP) GEMM__CPU_Z_PUTT(16, gemm__cpu_z_putt_s)
#define GEMM__CPU_Z_D_PUTT(P, REP) GEMM__CPU_Z_PUTT(8, gemm__cpu_z_putt_d)
GEMM__CPU_DIRECT_SUMS(gemm__cpu_avx512_s_direct_t, GEMM__CPU_AVX512, GEMM__CPU_Z_S, GEMM__CPU_REP8, GEMM__CPU_Z_S_PUTT)
GEMM__CPU_DIRECT_SUMS(gemm__cpu_avx512_d_direct_t, GEMM__CPU_AVX512, GEMM__CPU_Z_D, GEMM__CPU_REP8, GEMM__CPU_Z_D_PUTT)
GEMM__CPU_DIRECT_WIDE(gemm__cpu_avx512_s_direct_wide, GEMM__CPU_AVX512, GEMM__CPU_Z_S, GEMM__CPU_REP8, 8)
GEMM__CPU_DIRECT_WIDE(gemm__cpu_avx512_d_direct_wide, GEMM__CPU_AVX512, GEMM__CPU_Z_D, GEMM__CPU_REP8, 8)

GEMM__CPU_UKERNELS(gemm__cpu_avx512_s, GEMM__CPU_AVX512, GEMM__CPU_Z_S, GEMM__CPU_REP8, 8)
GEMM__CPU_UKERNELS(gemm__cpu_avx512_d, GEMM__CPU_AVX512, GEMM__CPU_Z_D, GEMM__CPU_REP8, 8)
#ifdef GEMM__CPU_GXX12_PUSH
#pragma GCC diagnostic pop
#undef GEMM__CPU_GXX12_PUSH
#endif
GEMM__CPU_UKERNELS(gemm__cpu_avx2_s, GEMM__CPU_AVX2, GEMM__CPU_Y_S, GEMM__CPU_REP6, 6)
GEMM__CPU_UKERNELS(gemm__cpu_avx2_d, GEMM__CPU_AVX2, GEMM__CPU_Y_D, GEMM__CPU_REP6, 6)
/* __builtin_cpu_init: a first call from a constructor may run before
   libgcc's own, which would otherwise leave every feature "absent". */
static int gemm__cpu_has_avx512(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx512f"); }
static int gemm__cpu_has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif
