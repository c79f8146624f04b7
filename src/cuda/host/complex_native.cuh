/* The complex calls' native path (kernels/complex_simt.cuh and
   complex_dmma.cuh): which configuration a device call (single or batch)
   runs, and its launch. The choice lies here alone: a native kernel where
   it pays, else 0, and complex.cuh runs the real product on the expansion
   (the 1m method: the fp32 SIMT, DMMA and tensor-core kernels, the options
   that force a kernel, the verified product).

   Configurations (also the test hook cuda_complex's values, 1 = the real
   product): on the CUDA cores (kernels/complex_simt.cuh) 2 = 32 x 32
   tiles, 128 threads of 2 x 4 sums; 3 = 64 x 64, 128 threads of 4 x 8;
   4 = 128 x 128, 256 threads of 8 x 8 (fp32; fp64 runs 3); zgemm on the
   fp64 tensor cores (kernels/complex_dmma.cuh, sm_80 and later; cgemm
   runs 3) 5 = 64 x 64 tiles of 8 warps. */
#pragma once
#include <stdint.h>
#include <type_traits>
#include "../../core/internal.h" /* gemm__problem, GEMM__HOOK */
#include "../api.h"
#include "../kernels/complex_dmma.cuh"
#include "../kernels/complex_simt.cuh"
#include "call.cuh"    /* gemm__cuda_gpu, gemm__cuda_query */
#include "complex.cuh" /* gemm__cuda_cplan, _cmembers, _cchunks, _cdevice */

/* The configuration for a checked device call with work to do: 0 where
   the real product runs. Native only for the default exact product
   (kernel AUTO, no split or variant forced, not verified), and only where
   its tiles alone give every SM one (the real product splits K where they
   are fewer). Measured on an H200 (bench_cuda_complex --path, strided
   batches of op pairs NN, CN, NT, 2026-11-28; ratios to cuBLAS's strided
   batch, real product -> native):
   - members up to 32 x 32 on the 32 x 32 SIMT tiles (cgemm 32^3
     0.28-0.33 -> 0.94-0.97, zgemm 0.30-0.39 -> 0.83-0.90; 32 x 32 DMMA
     tiles ran zgemm no faster);
   - cgemm up to 64 x 64 on the 64 x 64 SIMT tiles (0.43-0.51 -> 0.80-0.83),
     up to 256 x 256 on 128 x 128 (128^3 0.56-0.63 -> 0.74, 256^3
     0.66-0.70 -> 0.75-0.76), larger members on the real product (1024^3
     0.80, native 0.76-0.78);
   - zgemm up to 128 x 128 on the 64 x 64 DMMA tiles (64^3 0.40-0.49 ->
     1.01-1.05, 128^3 0.56-0.70 -> 0.83-0.88), and up to 256 x 256 where
     op(b) is transposed, which the real product copies first (NT 256^3
     0.70 -> 0.78; NN and CN 0.80-0.82 there against 0.73-0.77 native);
     larger on the real product (1024^3 0.91-0.96, native 0.65-0.71). */
template <typename T>
static int gemm__cuda_cnative_config(const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                     const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu)
{
    const gemm__problem *p = &pl->p;
    int64_t side = p->m > p->n ? p->m : p->n, tiles = 1;
    int cfg, forced = GEMM__HOOK(cuda_complex, 0);
    bool dmma = sizeof(T) == 8 && gpu->major >= 8;
    if (forced) { /* a configuration the type or the GPU lacks runs its nearest */
        if (sizeof(T) == 8 && forced == 4) return 3;
        if (forced == 5 && !dmma) return 3;
        return forced == 1 ? 0 : forced;
    }
    if (opt->kernel != GEMM_CUDA_KERNEL_AUTO || opt->split_k || opt->variant || opt->verify ||
        opt->math != GEMM_CUDA_MATH_EXACT)
        return 0;
    if (side <= 32) cfg = 2;
    else if (dmma && (side <= 128 || (side <= 256 && p->b_trans)))
        cfg = 5, tiles = ((p->m + 63) / 64) * ((p->n + 63) / 64);
    else if (side <= 64) cfg = 3;
    else if (sizeof(T) == 4 && side <= 256) cfg = 4, tiles = ((p->m + 127) / 128) * ((p->n + 127) / 128);
    else return 0;
    return mb.count * tiles >= gpu->sms ? cfg : 0;
}

/* Launches every member over the BM x BN tiles of C: launch(grid, args,
   a_trans, b_trans) for each run of at most 65535 members, the transposes
   as std::true_type or std::false_type, so that a kernel's template takes
   them. */
template <typename T, int BM, int BN, typename L>
static gemm_status gemm__cuda_cnative_grid(const char *fn, const gemm__cuda_cplan<T> *pl,
                                           const gemm__cuda_cmembers<T> &mb, L launch)
{
    const gemm__problem *p = &pl->p;
    gemm__cuda_csimt_args<T> g = {(int)p->m, (int)p->n, (int)p->k, mb.a, mb.b, mb.c, p->lda, p->ldb, p->ldc,
                                  pl->conj_a, pl->conj_b, pl->alpha.re, pl->alpha.im, pl->beta.re, pl->beta.im,
                                  mb.sa, mb.sb, mb.sc, 0};
    int64_t tiles = ((p->m + BM - 1) / BM) * ((p->n + BN - 1) / BN);
    unsigned x = (unsigned)(tiles < INT32_MAX ? tiles : INT32_MAX);
    return gemm__cuda_cchunks(fn, 0, mb.count, [&](int64_t first, unsigned z) {
        dim3 grid(x, 1, z);
        g.first = first;
        if (p->a_trans && p->b_trans) launch(grid, g, std::true_type(), std::true_type());
        else if (p->a_trans) launch(grid, g, std::true_type(), std::false_type());
        else if (p->b_trans) launch(grid, g, std::false_type(), std::true_type());
        else launch(grid, g, std::false_type(), std::false_type());
    });
}

template <typename T, int BM, int BN, int TM, int TN, int MINB>
static gemm_status gemm__cuda_cnative_simt(const char *fn, const gemm__cuda_cplan<T> *pl,
                                           const gemm__cuda_cmembers<T> &mb, cudaStream_t stream)
{
    constexpr int NT = gemm__cuda_csimt_shape<T, BM, BN, TM, TN>::NT;
    return gemm__cuda_cnative_grid<T, BM, BN>(fn, pl, mb, [&](dim3 grid, const gemm__cuda_csimt_args<T> &g, auto at,
                                                              auto bt) {
        gemm__cuda_csimt_kernel<T, BM, BN, TM, TN, decltype(at)::value, decltype(bt)::value, MINB>
            <<<grid, NT, 0, stream>>>(g);
    });
}

template <int BM, int BN, int WARPS_M, int WARPS_N, int MINB>
static gemm_status gemm__cuda_cnative_dmma(const char *fn, const gemm__cuda_cplan<double> *pl,
                                           const gemm__cuda_cmembers<double> &mb, cudaStream_t stream)
{
    return gemm__cuda_cnative_grid<double, BM, BN>(fn, pl, mb, [&](dim3 grid, const gemm__cuda_csimt_args<double> &g,
                                                                   auto at, auto bt) {
        gemm__cuda_cdmma_kernel<BM, BN, WARPS_M, WARPS_N, decltype(at)::value, decltype(bt)::value, MINB>
            <<<grid, 32 * WARPS_M * WARPS_N, 0, stream>>>(g);
    });
}

/* Runs configuration cfg (2..5) of the native kernels over every member.
   MINB: the blocks per SM the registers must allow, the most each
   configuration built for without spilling (sm_90a, ptxas 13.0), or with
   a few bytes (fp64's SIMT 64 x 64 8 bytes at 2, the DMMA tiles 8 to 16),
   where that ran faster than one block fewer. */
template <typename T>
static gemm_status gemm__cuda_cnative(const char *fn, const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                      int cfg, cudaStream_t stream)
{
    if constexpr (sizeof(T) == 8) {
        if (cfg == 5) return gemm__cuda_cnative_dmma<64, 64, 2, 4, 2>(fn, pl, mb, stream);
    } else {
        if (cfg == 4) return gemm__cuda_cnative_simt<T, 128, 128, 8, 8, 1>(fn, pl, mb, stream);
    }
    if (cfg == 2) return gemm__cuda_cnative_simt<T, 32, 32, 2, 4, sizeof(T) == 4 ? 6 : 4>(fn, pl, mb, stream);
    return gemm__cuda_cnative_simt<T, 64, 64, 4, 8, sizeof(T) == 4 ? 3 : 2>(fn, pl, mb, stream);
}

/* A checked device call (single or batch): the native kernel where
   gemm__cuda_cnative_config picks it, else complex.cuh's real product. */
template <typename T>
static gemm_status gemm__cuda_crun(const char *fn, const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                   const gemm_cuda_options *opt, cudaStream_t stream)
{
    gemm__cuda_gpu gpu;
    int cfg;
    gemm_status s = gemm__cuda_query(fn, &gpu);
    if (s != GEMM_OK) return s;
    if (pl->p.work == GEMM__WORK_FULL && (cfg = gemm__cuda_cnative_config(pl, mb, opt, &gpu)) != 0)
        return gemm__cuda_cnative(fn, pl, mb, cfg, stream);
    return gemm__cuda_cdevice(fn, pl, mb, opt, &gpu, stream);
}
