/* Packing for the bf16 kernel (ukernel_bf16.c): blocks of op(A) and op(B)
   in bfloat16 into panels of k *pairs*, the unit vdpbf16ps reads.

   vdpbf16ps multiplies 32-bit lanes that each hold two bf16 values, k
   and k+1 of one row of A (or one column of B), and adds both products to
   an fp32 lane. So a packed panel is the fp32 kernel's panel with one
   32-bit "element" per pair: element (x, q) holds k = 2q in its low half
   and k = 2q+1 in its high half, w of them per q (MR rows of A, NR
   columns of B). An odd k's last pair has zero in its high half, read from
   nowhere (0 * anything finite adds nothing; the missing element is never
   loaded, so nothing past the matrix is read). Rows or columns past the
   matrix's edge are zero, as packing.c pads.

   Two source shapes are moved with vector code, the rest element by
   element:
     x contiguous (A's columns, or op(B)'s rows): two k neighbours are two
       separate runs; they are widened to 32 bits and interleaved;
     k contiguous (A's rows, op(B)'s columns): each pair is already a
       32-bit unit; 8 x 8 blocks of them are transposed in registers.
   Only bits move: the packed panels hold the caller's exact values. */
#pragma once

#include <stdint.h>         /* uint16_t, uint32_t */
#include <string.h>         /* memcpy */
#include "cache_blocking.c" /* gemm__cpu_min */
#include "job.h"            /* gemm__cpu_job */
#include "platform.h"       /* GEMM__CPU_X86, <immintrin.h> */

#if defined(GEMM__CPU_X86)
/* g++ 12 warns "'__Y' is used uninitialized" inside its own AVX-512
   casts (GCC bug 105593, fixed in 13), as in ukernel_x86.c. */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define GEMM__CPU_BF16_GXX12_PUSH 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* The pair (x, q) of an operand whose element (x, kk) is s[x*xs + kk*ps]:
   kk = 2q low, kk = 2q+1 high (zero when 2q+1 = k). */
static uint32_t gemm__cpu_bf16_pair(const uint16_t *s, int64_t xs, int64_t ps, int64_t x, int64_t q, int64_t k)
{
    uint32_t lo = s[x * xs + 2 * q * ps], hi = 2 * q + 1 < k ? s[x * xs + (2 * q + 1) * ps] : 0u;
    return lo | hi << 16;
}

/* d[(x/w)*kc*w + (q-p0)*w + x%w] = pair (x, q) for x < nx, p0 <= q <
   p0+kc, zero for the rows that pad the last panel: any strides. */
static void gemm__cpu_bf16_pack_scalar(uint32_t *d, const uint16_t *s, int64_t xs, int64_t ps, int64_t nx,
                                       int64_t p0, int64_t kc, int64_t k, int w)
{
    int64_t x0, x, q;
    for (x0 = 0; x0 < nx; x0 += w) {
        int64_t xw = gemm__cpu_min(w, nx - x0);
        uint32_t *dp = d + x0 * kc;
        for (q = 0; q < kc; q++) {
            for (x = 0; x < xw; x++) dp[q * w + x] = gemm__cpu_bf16_pair(s, xs, ps, x0 + x, p0 + q, k);
            for (; x < w; x++) dp[q * w + x] = 0;
        }
    }
}

/* The bf16 kernel's ISA: vdpbf16ps (AVX512-BF16) and the masked 16-bit
   moves of AVX512-BW/VL, which every CPU with AVX512-BF16 has. */
#define GEMM__CPU_AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

/* d[0..31] = pairs (lo[i], hi[i]) for i < 32: the 16-bit interleave
   works within 128-bit lanes (lane L gives rows 8L..8L+3 in its low
   unpack, 8L+4..8L+7 in its high one), and one cross-lane permute per
   16 rows puts the lanes back in order. */
static GEMM__CPU_AVX512BF16 void gemm__cpu_bf16_interleave32(uint32_t *d, const uint16_t *lo, const uint16_t *hi)
{
    __m512i l = _mm512_loadu_si512((const void *)lo), h = _mm512_loadu_si512((const void *)hi);
    __m512i a = _mm512_unpacklo_epi16(l, h), b = _mm512_unpackhi_epi16(l, h);
    _mm512_storeu_si512((void *)d, _mm512_permutex2var_epi64(a, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), b));
    _mm512_storeu_si512((void *)(d + 16), _mm512_permutex2var_epi64(a, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), b));
}

/* x contiguous (xs == 1): for each q, 16 lanes at a time, the k = 2q run
   and the k = 2q+1 run (none past k) widened to 32 bits, the second
   shifted into the high halves (whole 32-row panels with both runs:
   gemm__cpu_bf16_interleave32; a whole 8-column B micro-panel: one 16-bit
   unpack per pair, in a loop of its own). Masked loads read nothing past row nx and
   give the padding's zeros; w is 8 or a multiple of 16. */
static GEMM__CPU_AVX512BF16 void gemm__cpu_bf16_pack_interleave(uint32_t *d, const uint16_t *s, int64_t ps,
                                                                int64_t nx, int64_t p0, int64_t kc, int64_t k, int w)
{
    int64_t x0, q, v, chunk = w < 16 ? w : 16;
    if (w == 8 && nx == 8) { /* a whole B micro-panel: two runs of 8 per pair, one 16-bit unpack */
        int64_t whole = gemm__cpu_max(0, gemm__cpu_min(kc, k / 2 - p0)); /* pairs with both halves */
        for (q = 0; q < whole; q++) {
            const uint16_t *r = s + 2 * (p0 + q) * ps; /* from the index: no pointer past the last row */
            __m128i lo8 = _mm_loadu_si128((const __m128i *)(const void *)r);
            __m128i hi8 = _mm_loadu_si128((const __m128i *)(const void *)(r + ps));
            _mm_storeu_si128((__m128i *)(void *)(d + q * 8), _mm_unpacklo_epi16(lo8, hi8));
            _mm_storeu_si128((__m128i *)(void *)(d + q * 8 + 4), _mm_unpackhi_epi16(lo8, hi8));
        }
        if (whole == kc) return;
        p0 += whole; /* the odd k's last pair, below */
        d += whole * 8;
        kc -= whole;
    }
    for (q = 0; q < kc; q++) { /* pair by pair, along the two runs: long runs for the prefetcher */
        int64_t kk = 2 * (p0 + q);
        int has_hi = kk + 1 < k;
        for (x0 = 0; x0 < nx; x0 += w) {
            int64_t xw = gemm__cpu_min(w, nx - x0);
            uint32_t *dq = d + x0 * kc + q * w;
            if (w == 32 && xw == 32 && has_hi) { /* a whole A panel's pair: two runs of 32, interleaved */
                gemm__cpu_bf16_interleave32(dq, s + x0 + kk * ps, s + x0 + (kk + 1) * ps);
                continue;
            }
            for (v = 0; v < w; v += chunk) {
                int64_t n = gemm__cpu_min(chunk, xw - v);
                __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
                if (n > 0) {
                    __mmask16 m = (__mmask16)((1u << (unsigned)n) - 1u);
                    lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, s + (x0 + v) + kk * ps));
                    if (has_hi) hi = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, s + (x0 + v) + (kk + 1) * ps));
                }
                _mm512_mask_storeu_epi32(dq + v, (__mmask16)((1u << (unsigned)chunk) - 1u),
                                         _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
            }
        }
    }
}

/* Eight rows of 8 pairs (32-bit units), row j at s + j*xs, transposed:
   lane i of row j becomes lane j of row i, stored at d, d + w, ...,
   d + 7w. Named variables throughout, so nothing goes through memory. */
static GEMM__CPU_AVX512BF16 void gemm__cpu_bf16_transpose8(uint32_t *d, int64_t w, const uint16_t *s, int64_t xs)
{
    __m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 0 * xs));
    __m256i r1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 1 * xs));
    __m256i r2 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 2 * xs));
    __m256i r3 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 3 * xs));
    __m256i r4 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 4 * xs));
    __m256i r5 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 5 * xs));
    __m256i r6 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 6 * xs));
    __m256i r7 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 7 * xs));
    __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
    __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
    __m256i t4 = _mm256_unpacklo_epi32(r4, r5), t5 = _mm256_unpackhi_epi32(r4, r5);
    __m256i t6 = _mm256_unpacklo_epi32(r6, r7), t7 = _mm256_unpackhi_epi32(r6, r7);
    __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
    _mm256_storeu_si256((__m256i *)(void *)(d + 0 * w), _mm256_permute2x128_si256(u0, u4, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(d + 1 * w), _mm256_permute2x128_si256(u1, u5, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(d + 2 * w), _mm256_permute2x128_si256(u2, u6, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(d + 3 * w), _mm256_permute2x128_si256(u3, u7, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(d + 4 * w), _mm256_permute2x128_si256(u0, u4, 0x31));
    _mm256_storeu_si256((__m256i *)(void *)(d + 5 * w), _mm256_permute2x128_si256(u1, u5, 0x31));
    _mm256_storeu_si256((__m256i *)(void *)(d + 6 * w), _mm256_permute2x128_si256(u2, u6, 0x31));
    _mm256_storeu_si256((__m256i *)(void *)(d + 7 * w), _mm256_permute2x128_si256(u3, u7, 0x31));
}

/* Pairs (x, q) for x0 <= x < x1, q0 <= q < q1 (relative to p0), element
   by element; rows from x1 to w are the padding's zeros. */
static void gemm__cpu_bf16_pairs_scalar(uint32_t *dp, const uint16_t *s, int64_t xs, int64_t x, int64_t x1,
                                        int64_t q0, int64_t q1, int64_t p0, int64_t k, int w, int64_t first)
{
    int64_t q, i;
    for (q = q0; q < q1; q++) {
        for (i = x; i < x1; i++) dp[q * w + i] = gemm__cpu_bf16_pair(s, xs, 1, first + i, p0 + q, k);
        for (; i < w; i++) dp[q * w + i] = 0;
    }
}

/* k contiguous (ps == 1): each pair is a 32-bit unit of its row. Blocks
   of 8 rows x 8 whole pairs (their last element inside k) are loaded row
   by row and transposed in registers; the rest (an odd k's last pair, the
   rows of a short panel) go element by element. w is a multiple of 8. */
static GEMM__CPU_AVX512BF16 void gemm__cpu_bf16_pack_pairs(uint32_t *d, const uint16_t *s, int64_t xs, int64_t nx,
                                                           int64_t p0, int64_t kc, int64_t k, int w)
{
    int64_t x0, x, q, whole = gemm__cpu_max(0, gemm__cpu_min(kc, k / 2 - p0)) / 8 * 8; /* pairs in 8-blocks */
    for (x0 = 0; x0 < nx; x0 += w) {
        int64_t xw = gemm__cpu_min(w, nx - x0), full = xw / 8 * 8;
        uint32_t *dp = d + x0 * kc;
        for (x = 0; x < full; x += 8)
            for (q = 0; q < whole; q += 8)
                gemm__cpu_bf16_transpose8(dp + q * w + x, w, s + (x0 + x) * xs + 2 * (p0 + q), xs);
        if (full < w) gemm__cpu_bf16_pairs_scalar(dp, s, xs, full, xw, 0, whole, p0, k, w, x0); /* rows past them */
        gemm__cpu_bf16_pairs_scalar(dp, s, xs, 0, xw, whole, kc, p0, k, w, x0); /* pairs past the blocks */
    }
}

/* nx rows of an operand (element (x, kk) at s[x*xs + kk*ps]), pairs p0..
   p0+kc, into w-wide panels at d, by the source's shape. */
static GEMM__CPU_AVX512BF16 void gemm__cpu_bf16_pack(char *d, const uint16_t *s, int64_t xs, int64_t ps, int64_t nx,
                                                     int64_t p0, int64_t kc, int64_t k, int w)
{
    if (xs == 1) gemm__cpu_bf16_pack_interleave((uint32_t *)(void *)d, s, ps, nx, p0, kc, k, w);
    else if (ps == 1) gemm__cpu_bf16_pack_pairs((uint32_t *)(void *)d, s, xs, nx, p0, kc, k, w);
    else gemm__cpu_bf16_pack_scalar((uint32_t *)(void *)d, s, xs, ps, nx, p0, kc, k, w);
}

/* The job's packers (gemm__cpu_pack_block_fn): rows x0.. of op(a), whose
   element (i, kk) is a[i*ars + kk*acs]; columns x0.. of op(b), element
   (kk, j) at b[kk*brs + j*bcs]. p->k counts pairs, jb->k_elems elements. */
static void gemm__cpu_bf16_pack_a(const gemm__cpu_job *jb, char *d, int64_t x0, int64_t p0, int64_t nx, int64_t kc,
                                  int w)
{
    const gemm__problem *p = jb->p;
    gemm__cpu_bf16_pack(d, (const uint16_t *)(const void *)jb->a + x0 * p->ars, p->ars, p->acs, nx, p0, kc,
                        jb->k_elems, w);
}
static void gemm__cpu_bf16_pack_b(const gemm__cpu_job *jb, char *d, int64_t x0, int64_t p0, int64_t nx, int64_t kc,
                                  int w)
{
    const gemm__problem *p = jb->p;
    gemm__cpu_bf16_pack(d, (const uint16_t *)(const void *)jb->b + x0 * p->bcs, p->bcs, p->brs, nx, p0, kc,
                        jb->k_elems, w);
}
#ifdef GEMM__CPU_BF16_GXX12_PUSH
#pragma GCC diagnostic pop
#undef GEMM__CPU_BF16_GXX12_PUSH
#endif
#endif
