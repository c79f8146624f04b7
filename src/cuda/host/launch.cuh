/* The host's launches that every path shares: one launch per run of
   members that fits a grid's 65535 z-slices (device/batch.cuh says how a
   kernel finds its members), and C = beta*C over the members (the scale
   kernel of the ladder: split-K's first step, and the whole work of a
   call or batch when alpha = 0 or K = 0). */
#pragma once
#include "../../core/api.h"      /* gemm_status */
#include "../device/batch.cuh"   /* gemm__cuda_batch */
#include "../kernels/ladder.cuh" /* gemm__cuda_scale_kernel */
#include "errors.cuh"            /* gemm__cuda_fail */

/* Calls launch(bt, z) once per run of members that fits one grid's 65535
   z-slices (one run for any batch under 65535 / split members), with
   bt.first set to the run's first member; launch queues the kernel and
   returns cudaGetLastError(). */
template <typename F> static gemm_status gemm__cuda_each_run(const char *fn, gemm__cuda_batch bt, F launch)
{
    int64_t per = 65535 / bt.split;
    for (int64_t first = 0; first < bt.count; first += per) {
        int64_t n = bt.count - first < per ? bt.count - first : per;
        cudaError_t e;
        bt.first = first;
        if ((e = launch(bt, (unsigned)(n * bt.split))) != cudaSuccess) return gemm__cuda_fail(fn, "kernel launch", e);
    }
    return GEMM_OK;
}

/* C = beta*C for every member (split-K's first step, and a batch's whole
   work when alpha = 0 or K = 0). */
template <typename TC, typename S>
static gemm_status gemm__cuda_scale_members(const char *fn, int M, int N, S beta, TC *C, int64_t ldc,
                                            gemm__cuda_batch bt, cudaStream_t stream)
{
    int64_t blocks = ((int64_t)M * N + 255) / 256, cap = bt.count > 1 ? 64 : 1024; /* a grid-stride loop */
    bt.split = 1;
    return gemm__cuda_each_run(fn, bt, [&](const gemm__cuda_batch &run, unsigned z) {
        gemm__cuda_scale_kernel<TC, S><<<dim3((unsigned)(blocks < cap ? blocks : cap), 1, z), 256, 0, stream>>>(
            M, N, beta, C, ldc, run);
        return cudaGetLastError();
    });
}
