/* The emulated fp64 (options.math = GEMM_CUDA_MATH_FP64_EMULATED) and
   fp32-accurate products on the int8 tensor cores (the Ozaki scheme II;
   device/ozaki_math.cuh has the arithmetic and the error bound), for one
   device-pointer call: the scaling pass, then, unless it found what the
   moduli cannot carry, the residues, one int8 product per modulus (and
   per part of K) and the reconstruction, all in one scratch buffer from
   the device's pool. The call synchronizes its stream once, to read the
   scaling pass's findings.

   When it runs (gemm__cuda_ozaki_wanted): options.moduli > 0 asks for it
   with that many moduli; 0 lets the sizes decide (emulation pays only
   where the int8 products dominate: large m, n and k), with the default
   count (fp64 15, fp32 9), adding moduli where a line needs them. It
   declines, and the native kernels run, where the sm_90a code is not
   loaded, when the moduli leave fewer than 2 bits for K, when an operand
   holds an Inf or NaN, and, under AUTO, when a row of op(A) or a column
   of op(B) needs more bits than the most moduli give (gemm__ozaki_need:
   its largest entry too far above its typical one).
   gemm_cuda_last_moduli() says which ran. */
#pragma once
#include <stdint.h>
#include <type_traits>
#include "../../core/config.h" /* GEMM__THREAD_LOCAL */
#include "../../core/internal.h"
#include "../api.h"
#include "../kernels/ozaki.cuh"
#include "call.cuh"     /* gemm__cuda_operands, gemm__cuda_gpu */
#include "choose.cuh"   /* gemm__cuda_sm90a_code */
#include "errors.cuh"
#include "s8_launch.cuh"
#include "scratch.cuh" /* gemm__cuda_scratch_pool */

/* The moduli the calling thread's last fp64-emulated or fp32-accurate
   call used (0: the native kernels ran). */
static GEMM__THREAD_LOCAL int gemm__cuda_moduli_used = 0;

/* The default moduli. fp64: 15, whose error was at or below
   cublasDgemm's on uniform inputs and on entries spread over 2^+-10 on an
   H100 (14 lost to it on the spread ones). fp32: 9, whose 28 or so bits
   per row are 4 more than fp32's own, at errors far below cublasSgemm's. */
template <typename T> static int gemm__cuda_ozaki_default_moduli(void)
{
    return std::is_same<T, double>::value ? 15 : 9;
}

/* The most moduli AUTO takes when the scaling pass finds lines that need
   more bits than the default's: one more for fp64 (53 bits an operand is
   fp64's limit; 16 cost 1/15 more products), two more for fp32 (11: 22%
   more products), whose alternative, 3xTF32, is slower at every size AUTO
   emulates (8192^3 on an H100: 10 moduli 2.46-2.48x cublasSgemm, 3xTF32
   1.76-1.82; bench_cuda_ozaki, 2026-11-28). */
template <typename T> static int gemm__cuda_ozaki_max_moduli(void)
{
    return std::is_same<T, double>::value ? 16 : 11;
}

/* AUTO's accuracy target (gemm__ozaki_need): a line's rounding to its
   bits at most 2^-target of its magnitude sum, twice the unit roundoff of
   the product's precision (fp64 2^-52, fp32 2^-23). Measured on an H100
   (bench_cuda_ozaki, 16384^3, errors against exact sums relative to
   |A||B|): fp64 with entries spread over 2^+-10 needs 49.4 bits by this
   rule and its 15 moduli give 50, at 0.25 of cublasDgemm's error; spread
   over 2^+-30 it needs 50.9, and 15 moduli gave 1.18 of cublasDgemm's
   error, so AUTO takes 16 there. */
template <typename T> static int gemm__cuda_ozaki_target(void)
{
    return std::is_same<T, double>::value ? 52 : 23;
}

/* Whether the sizes alone let the emulation run: asked (options.moduli),
   or large enough that the int8 products outweigh the passes over A, B
   and C. Measured (bench_cuda_ozaki, the default moduli): fp64 against
   our DMMA on an H200 1.21x at 8192^3 and 1.42x at 16384^3 since the
   passes write and read four residues a word (on an H100 before: 0.67 at
   4096^3, 0.32 at K = 1024); fp32 against 3xTF32 ahead from 8192^3 and
   at 4096 x 4096 x 65536 (even at 8192^3 on an H200), behind at 4096^3
   and at K = 1024. */
template <typename T> static bool gemm__cuda_ozaki_wanted(const gemm__problem *p, const gemm_cuda_options *opt)
{
    double flops = (double)p->m * (double)p->n * (double)p->k;
    if (GEMM__HOOK(cuda_ozaki, 0) == 1) return false;
    if (opt->moduli > 0) return true;
    return p->k >= 4096 && flops >= 0x1p39;
}

/* Whether the moduli carry the inputs as the scaling pass found them: no
   Inf or NaN, and under AUTO (not forced) no line of either operand that
   needs more bits than it gets. */
static bool gemm__ozaki_carried(const gemm__ozaki_found *f, bool forced, int bits_a, int bits_b)
{
    if (f->nonfinite) return false;
    return forced || (f->need_a <= bits_a * GEMM__OZAKI_NEED_UNIT && f->need_b <= bits_b * GEMM__OZAKI_NEED_UNIT);
}

/* Where each part of the scratch is. */
typedef struct gemm__ozaki_layout {
    int64_t ldk, ldu, plane_a, plane_b, plane_u;
    size_t at_ea, at_eb, at_lines, at_ra, at_rb, at_u, bytes;
} gemm__ozaki_layout;

static gemm__ozaki_layout gemm__ozaki_layout_of(int64_t M, int64_t N, int64_t K, int count)
{
    gemm__ozaki_layout l;
    size_t at = 256; /* the findings first */
    l.ldk = (K + 15) / 16 * 16; /* 16-byte rows for the copy engine */
    l.ldu = (M + 15) / 16 * 16; /* whole 4-byte runs for the int8 kernel's epilogue */
    l.plane_a = M * l.ldk;
    l.plane_b = N * l.ldk;
    l.plane_u = l.ldu * N;
    l.at_ea = at; at += ((size_t)M * sizeof(int) + 255) / 256 * 256;
    l.at_eb = at; at += ((size_t)N * sizeof(int) + 255) / 256 * 256;
    l.at_lines = at; /* the scan's line statistics (gemm__ozaki_lines), A's then B's */
    at += ((size_t)(M > N ? M : N) * (2 * sizeof(double) + sizeof(int)) + 255) / 256 * 256;
    l.at_ra = at; at += ((size_t)count * l.plane_a + 255) / 256 * 256;
    l.at_rb = at; at += ((size_t)count * l.plane_b + 255) / 256 * 256;
    l.at_u = at; at += (size_t)count * l.plane_u;
    l.bytes = at;
    return l;
}

/* The scaling pass of one operand: R rows of K (element (r, q) at
   X[r*rs + q*ks]); each row's scale exponent into e, and the most bits a
   row needs into *need. `stats` has room for R rows' statistics. */
template <typename T>
static gemm_status gemm__ozaki_scan(const char *fn, int R, int K, const T *X, int64_t rs, int64_t ks, int *e,
                                    unsigned char *stats, int *need, int *nonfinite, cudaStream_t stream)
{
    dim3 grid((unsigned)((K + 255) / 256), (unsigned)((R + 31) / 32));
    gemm__ozaki_lines lines = {(unsigned long long *)stats, (double *)stats + R, (int *)((double *)stats + 2 * (int64_t)R)};
    if (grid.y > 65535) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the scaling pass", fn, R);
    GEMM__CUDA_TRY(fn, cudaMemsetAsync(stats, 0, (size_t)R * (2 * sizeof(double) + sizeof(int)), stream));
    if (ks == 1) gemm__ozaki_scan_kernel<T, true><<<grid, 256, 0, stream>>>(R, K, X, rs, ks, lines, nonfinite);
    else gemm__ozaki_scan_kernel<T, false><<<grid, 256, 0, stream>>>(R, K, X, rs, ks, lines, nonfinite);
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    gemm__ozaki_need_kernel<<<(unsigned)((R + 255) / 256), 256, 0, stream>>>(R, lines, gemm__cuda_ozaki_target<T>(), e,
                                                                              need);
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}
template <typename T>
static gemm_status gemm__ozaki_residues(const char *fn, int R, int K, const T *X, int64_t rs, int64_t ks, const int *e,
                                        int bits, const gemm__ozaki_moduli &m, int8_t *out, int64_t ldo, int64_t plane,
                                        cudaStream_t stream)
{
    dim3 grid((unsigned)((K + 63) / 64), (unsigned)((R + 31) / 32));
    if (grid.y > 65535) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the residues", fn, R);
    if (ks == 1) gemm__ozaki_residue_kernel<T, true><<<grid, 256, 0, stream>>>(R, K, X, rs, ks, e, bits, m, out, ldo, plane);
    else gemm__ozaki_residue_kernel<T, false><<<grid, 256, 0, stream>>>(R, K, X, rs, ks, e, bits, m, out, ldo, plane);
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* The reconstruction, its loops sized for the count: 8, 12, 16 or 20. */
template <typename T>
static gemm_status gemm__ozaki_reconstruct_launch(const char *fn, int M, int N, const uint8_t *u,
                                                  const gemm__ozaki_layout &l, const int *ea, const int *eb, int bits_a,
                                                  int bits_b, const gemm__ozaki_moduli &m,
                                                  const gemm__cuda_operands<T, T, T> &x, int64_t ldc, cudaStream_t stream)
{
    dim3 grid((unsigned)((M + 1023) / 1024), (unsigned)(N < 65535 ? N : 65535)); /* four rows a thread */
    if (m.count <= 8)
        gemm__ozaki_reconstruct_kernel<T, 8><<<grid, 256, 0, stream>>>(M, N, u, l.ldu, l.plane_u, ea, eb, bits_a, bits_b, m,
                                                                      x.alpha, x.beta, x.c, ldc);
    else if (m.count <= 12)
        gemm__ozaki_reconstruct_kernel<T, 12><<<grid, 256, 0, stream>>>(M, N, u, l.ldu, l.plane_u, ea, eb, bits_a, bits_b,
                                                                       m, x.alpha, x.beta, x.c, ldc);
    else if (m.count <= 16)
        gemm__ozaki_reconstruct_kernel<T, 16><<<grid, 256, 0, stream>>>(M, N, u, l.ldu, l.plane_u, ea, eb, bits_a, bits_b,
                                                                       m, x.alpha, x.beta, x.c, ldc);
    else
        gemm__ozaki_reconstruct_kernel<T, 20><<<grid, 256, 0, stream>>>(M, N, u, l.ldu, l.plane_u, ea, eb, bits_a, bits_b,
                                                                       m, x.alpha, x.beta, x.c, ldc);
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* The emulated product of one call (T double or float, C of type T).
   *declined: the caller runs its native kernels instead (nothing was
   written). */
template <typename T>
static gemm_status gemm__cuda_ozaki(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, T, T> &x,
                                    const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, cudaStream_t stream,
                                    bool *declined)
{
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, bits_a, bits_b;
    int count = opt->moduli > 0 ? opt->moduli : gemm__cuda_ozaki_default_moduli<T>();
    int most = opt->moduli > 0 ? count : gemm__cuda_ozaki_max_moduli<T>(); /* AUTO may add moduli for lines that need them */
    gemm__ozaki_moduli m = gemm__ozaki_moduli_of(count);
    gemm__ozaki_found found = {0, 0, 0, 0};
    gemm__ozaki_layout l = gemm__ozaki_layout_of(M, N, K, most);
    cudaMemPool_t pool;
    unsigned char *scratch = NULL;
    gemm_status s;
    *declined = true;
    gemm__cuda_moduli_used = 0;
    if (!gemm__cuda_ozaki_wanted<T>(p, opt) || !gemm__cuda_sm90a_code(gpu) || !gemm__ozaki_bits(&m, K, &bits_a, &bits_b))
        return GEMM_OK;
    if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
    cudaError_t got = cudaMallocFromPoolAsync((void **)&scratch, l.bytes, pool, stream);
    if (got != cudaSuccess && most > count) { /* room for the default's residues only: no moduli added */
        (void)cudaGetLastError();
        most = count;
        l = gemm__ozaki_layout_of(M, N, K, most);
        got = cudaMallocFromPoolAsync((void **)&scratch, l.bytes, pool, stream);
    }
    if (got != cudaSuccess) {
        (void)cudaGetLastError();
        return GEMM_OK; /* too little memory for the residues: the native kernels need none */
    }
    int *ea = (int *)(scratch + l.at_ea), *eb = (int *)(scratch + l.at_eb);
    unsigned char *stats = scratch + l.at_lines;
    gemm__ozaki_found *dfound = (gemm__ozaki_found *)scratch;
    int8_t *ra = (int8_t *)(scratch + l.at_ra), *rb = (int8_t *)(scratch + l.at_rb);
    uint8_t *u = scratch + l.at_u;
    /* op(A) (M x K) and op(B)^T (N x K) of the column-major problem */
    int64_t ars = p->a_trans ? p->lda : 1, aks = p->a_trans ? 1 : p->lda;
    int64_t brs = p->b_trans ? 1 : p->ldb, bks = p->b_trans ? p->ldb : 1;
    s = GEMM_OK;
    if (cudaMemsetAsync(dfound, 0, sizeof found, stream) != cudaSuccess) s = gemm__fail(GEMM_ERR_DEVICE, "%s: cudaMemsetAsync failed", fn);
    if (s == GEMM_OK) s = gemm__ozaki_scan<T>(fn, M, K, x.a, ars, aks, ea, stats, &dfound->need_a, &dfound->nonfinite, stream);
    if (s == GEMM_OK) s = gemm__ozaki_scan<T>(fn, N, K, x.b, brs, bks, eb, stats, &dfound->need_b, &dfound->nonfinite, stream);
    if (s == GEMM_OK && (cudaMemcpyAsync(&found, dfound, sizeof found, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
                         cudaStreamSynchronize(stream) != cudaSuccess))
        s = gemm__fail(GEMM_ERR_DEVICE, "%s: reading the scaling pass back failed", fn);
    /* AUTO: the fewest moduli from the default up whose bits the lines need */
    bool forced = opt->moduli > 0;
    while (s == GEMM_OK && !found.nonfinite && count < most && !gemm__ozaki_carried(&found, forced, bits_a, bits_b)) {
        gemm__ozaki_moduli more = gemm__ozaki_moduli_of(count + 1);
        if (!gemm__ozaki_bits(&more, K, &bits_a, &bits_b)) break;
        m = more;
        count++;
    }
    if (s == GEMM_OK && gemm__ozaki_carried(&found, forced, bits_a, bits_b)) {
        *declined = false;
        s = gemm__ozaki_residues<T>(fn, M, K, x.a, ars, aks, ea, bits_a, m, ra, l.ldk, l.plane_a, stream);
        if (s == GEMM_OK) s = gemm__ozaki_residues<T>(fn, N, K, x.b, brs, bks, eb, bits_b, m, rb, l.ldk, l.plane_b, stream);
        for (int i = 0; s == GEMM_OK && i < count; i++)
            for (int k0 = 0; s == GEMM_OK && k0 < K; k0 += GEMM__OZAKI_K_PART) {
                int kp = K - k0 < GEMM__OZAKI_K_PART ? K - k0 : GEMM__OZAKI_K_PART;
                s = gemm__cuda_launch_s8<uint8_t>(fn, M, N, kp, ra + i * l.plane_a + k0, l.ldk, rb + i * l.plane_b + k0,
                                                  l.ldk, m.p[i], k0 > 0, u + i * l.plane_u, l.ldu, gpu, stream);
            }
        if (s == GEMM_OK) s = gemm__ozaki_reconstruct_launch<T>(fn, M, N, u, l, ea, eb, bits_a, bits_b, m, x, p->ldc, stream);
        if (s == GEMM_OK) gemm__cuda_moduli_used = count;
    }
    cudaError_t e = cudaFreeAsync(scratch, stream);
    if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    return s;
}
