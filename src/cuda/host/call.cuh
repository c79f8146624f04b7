/* What every call shares on the host: its operands in the canonical
   problem's naming, the device it runs on, the check of the host-pointer
   calls' options, and the first steps of a device-pointer call (sizes,
   pointers, C = beta*C). The checks of the kernel options are the
   chooser's (choose.cuh). */
#pragma once
#include <stdint.h>
#include "../../core/internal.h" /* gemm__problem, gemm__fail */
#include "../api.h" /* gemm_cuda_options */
#include "../device/batch.cuh" /* gemm__cuda_single */
#include "errors.cuh"
#include "launch.cuh" /* gemm__cuda_scale_members */

/* The pointers and scalars of one call beside its gemm__problem: a and b
   are op(A) and op(B) of the column-major view (the caller's B and A of a
   row-major call). T is a's and b's type, TC c's, S the scalars' (all T
   for fp32 and fp64; float for the tensor-core modes). */
template <typename T, typename TC, typename S> struct gemm__cuda_operands {
    const T *a, *b;
    TC *c;
    S alpha, beta;
};

/* The device a call runs on: its index, compute capability, SM count and
   shared memory (bytes: an SM's, the most one block may opt in to, and
   what the driver reserves of an SM's for each block). */
typedef struct gemm__cuda_gpu {
    int dev, major, minor, sms, smem_sm, smem_block, smem_reserved;
} gemm__cuda_gpu;

static gemm_status gemm__cuda_query(const char *fn, gemm__cuda_gpu *gpu)
{
    GEMM__CUDA_TRY(fn, cudaGetDevice(&gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->major, cudaDevAttrComputeCapabilityMajor, gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->minor, cudaDevAttrComputeCapabilityMinor, gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->sms, cudaDevAttrMultiProcessorCount, gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->smem_reserved, cudaDevAttrReservedSharedMemoryPerBlock, gpu->dev));
    return GEMM_OK;
}

/* The options only the host-pointer calls read. */
static gemm_status gemm__cuda_check_host(const char *fn, const gemm_cuda_options *o)
{
    if ((unsigned)o->mode > GEMM_CUDA_MAPPED)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.mode = %d is not a gemm_cuda_mode", fn, (int)o->mode);
    if (o->device < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device = %d is negative", fn, o->device);
    if (o->host_threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.host_threads = %d is negative", fn, o->host_threads);
    if (o->device_count < GEMM_CUDA_ALL_DEVICES)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device_count = %d is neither a count nor "
                          "GEMM_CUDA_ALL_DEVICES", fn, o->device_count);
    return GEMM_OK;
}

/* Checks that a pointer can be dereferenced by the current device. */
static gemm_status gemm__cuda_check_pointer(const char *fn, const char *name, const void *p)
{
    cudaPointerAttributes at;
    cudaError_t e = cudaPointerGetAttributes(&at, p);
    if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaPointerGetAttributes", e);
    if (at.type == cudaMemoryTypeUnregistered)
        return gemm__fail(GEMM_ERR_INVALID_ARG,
                          "%s: %s is a host pointer the GPU cannot read; pass device memory or use the _host call",
                          fn, name);
    return GEMM_OK;
}

/* The first steps of every device-pointer call with work to do: sizes below
   2^31, pointers the device can read (A, B, C as the caller named them); when
   all that is left is C = beta*C (GEMM__WORK_SCALE) it is queued here and
   *finished set. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_begin(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                    cudaStream_t stream, bool *finished)
{
    const void *A = p->swapped ? x.b : x.a, *B = p->swapped ? x.a : x.b;
    gemm_status s;
    *finished = false;
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_pointer(fn, "C", x.c)) != GEMM_OK) return s;
    if (p->work == GEMM__WORK_FULL && ((s = gemm__cuda_check_pointer(fn, "A", A)) != GEMM_OK ||
                                       (s = gemm__cuda_check_pointer(fn, "B", B)) != GEMM_OK))
        return s;
    if (p->work == GEMM__WORK_SCALE) {
        *finished = true;
        return gemm__cuda_scale_members(fn, (int)p->m, (int)p->n, x.beta, x.c, p->ldc, gemm__cuda_single(1), stream);
    }
    return GEMM_OK;
}
