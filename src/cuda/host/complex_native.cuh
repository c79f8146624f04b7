/* The complex calls' native path (kernels/complex_simt.cuh): which
   configuration a device call (single or batch) runs, and its launch.
   The choice lies here alone: the native kernel where it pays, else 0,
   and complex.cuh runs the real product on the expansion (the 1m method:
   the fp32 SIMT, DMMA and tensor-core kernels, the options that force a
   kernel, the verified product).

   Configurations (also the test hook cuda_complex's values, 1 = the real
   product): 2 = 32 x 32 tiles, 128 threads of 2 x 4 sums; 3 = 64 x 64,
   128 threads of 4 x 8; 4 = 128 x 128, 256 threads of 8 x 8 (fp32; fp64
   runs 3). */
#pragma once
#include <stdint.h>
#include "../../core/internal.h" /* gemm__problem, GEMM__HOOK */
#include "../api.h"
#include "../kernels/complex_simt.cuh"
#include "call.cuh"    /* gemm__cuda_gpu, gemm__cuda_query */
#include "complex.cuh" /* gemm__cuda_cplan, _cmembers, _cchunks, _cdevice */

/* The configuration for a checked device call with work to do: 0 where
   the real product runs. Native only for the default exact product
   (kernel AUTO, no split or variant forced, not verified), and only where
   its tiles alone give every SM one (the real product splits K where they
   are fewer). Measured on an H200 (bench_cuda_complex --path, strided
   batches, 2026-11-28; ratios to cuBLAS's strided batch, real product ->
   native): members up to 32 x 32 on the 32 x 32 tiles (cgemm 32^3 0.28-0.33
   -> 0.94-0.97, zgemm 0.30-0.39 -> 0.85-0.87), up to 64 x 64 on 64 x 64
   (cgemm 64^3 0.43-0.51 -> 0.80-0.83, zgemm 0.39-0.48 -> 0.63-0.69), and
   fp32 up to 256 x 256 on 128 x 128 (cgemm 128^3 0.56-0.63 -> 0.74, 256^3
   0.66-0.70 -> 0.75-0.76); larger members, and zgemm from 128 x 128, run
   faster as the real product (fp32 1024^3 0.80 against 0.76-0.78 native;
   zgemm 128^3 on DMMA 0.56-0.72 against 0.42-0.51 native). */
template <typename T>
static int gemm__cuda_cnative_config(const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                     const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu)
{
    const gemm__problem *p = &pl->p;
    int64_t side = p->m > p->n ? p->m : p->n, tiles = 1;
    int cfg, forced = GEMM__HOOK(cuda_complex, 0);
    if (forced) return forced == 1 ? 0 : (sizeof(T) == 8 && forced == 4 ? 3 : forced);
    if (opt->kernel != GEMM_CUDA_KERNEL_AUTO || opt->split_k || opt->variant || opt->verify ||
        opt->math != GEMM_CUDA_MATH_EXACT)
        return 0;
    if (side <= 32) cfg = 2;
    else if (side <= 64) cfg = 3;
    else if (sizeof(T) == 4 && side <= 256) cfg = 4, tiles = ((p->m + 127) / 128) * ((p->n + 127) / 128);
    else return 0;
    return mb.count * tiles >= gpu->sms ? cfg : 0;
}

template <typename T, int BM, int BN, int TM, int TN, int MINB>
static gemm_status gemm__cuda_cnative_launch(const char *fn, const gemm__cuda_cplan<T> *pl,
                                             const gemm__cuda_cmembers<T> &mb, cudaStream_t stream)
{
    const gemm__problem *p = &pl->p;
    gemm__cuda_csimt_args<T> g = {(int)p->m, (int)p->n, (int)p->k, mb.a, mb.b, mb.c, p->lda, p->ldb, p->ldc,
                                  pl->conj_a, pl->conj_b, pl->alpha.re, pl->alpha.im, pl->beta.re, pl->beta.im,
                                  mb.sa, mb.sb, mb.sc, 0};
    int64_t tiles = ((p->m + BM - 1) / BM) * ((p->n + BN - 1) / BN);
    constexpr int NT = gemm__cuda_csimt_shape<T, BM, BN, TM, TN>::NT;
    unsigned x = (unsigned)(tiles < INT32_MAX ? tiles : INT32_MAX);
    return gemm__cuda_cchunks(fn, 0, mb.count, [&](int64_t first, unsigned z) {
        dim3 grid(x, 1, z);
        g.first = first;
        if (p->a_trans && p->b_trans)
            gemm__cuda_csimt_kernel<T, BM, BN, TM, TN, true, true, MINB><<<grid, NT, 0, stream>>>(g);
        else if (p->a_trans)
            gemm__cuda_csimt_kernel<T, BM, BN, TM, TN, true, false, MINB><<<grid, NT, 0, stream>>>(g);
        else if (p->b_trans)
            gemm__cuda_csimt_kernel<T, BM, BN, TM, TN, false, true, MINB><<<grid, NT, 0, stream>>>(g);
        else
            gemm__cuda_csimt_kernel<T, BM, BN, TM, TN, false, false, MINB><<<grid, NT, 0, stream>>>(g);
    });
}

/* Runs configuration cfg (2..4) of the native kernel over every member.
   MINB: the blocks per SM the registers must allow, the most each
   configuration built for without spilling (sm_90a, ptxas 13.0; fp64's
   64 x 64 spills 8 bytes at 2, which ran faster than 1). */
template <typename T>
static gemm_status gemm__cuda_cnative(const char *fn, const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                      int cfg, cudaStream_t stream)
{
    if (cfg == 2) return gemm__cuda_cnative_launch<T, 32, 32, 2, 4, sizeof(T) == 4 ? 6 : 4>(fn, pl, mb, stream);
    if constexpr (sizeof(T) == 4)
        if (cfg == 4) return gemm__cuda_cnative_launch<T, 128, 128, 8, 8, 1>(fn, pl, mb, stream);
    return gemm__cuda_cnative_launch<T, 64, 64, 4, 8, sizeof(T) == 4 ? 3 : 2>(fn, pl, mb, stream);
}

/* A checked device call (single or batch): the native kernel where
   gemm__cuda_cnative_config picks it, else complex.cuh's real product. */
template <typename T>
static gemm_status gemm__cuda_crun(const char *fn, const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                   const gemm_cuda_options *opt, cudaStream_t stream)
{
    if (pl->p.work == GEMM__WORK_FULL) {
        gemm__cuda_gpu gpu;
        int cfg;
        gemm_status s = gemm__cuda_query(fn, &gpu);
        if (s != GEMM_OK) return s;
        if ((cfg = gemm__cuda_cnative_config(pl, mb, opt, &gpu)) != 0) return gemm__cuda_cnative(fn, pl, mb, cfg, stream);
    }
    return gemm__cuda_cdevice(fn, pl, mb, opt, stream);
}
