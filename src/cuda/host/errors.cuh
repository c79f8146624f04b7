/* CUDA errors as gemm statuses: every CUDA call is checked, and a failure
   returns GEMM_ERR_DEVICE (GEMM_ERR_OUT_OF_MEMORY, GEMM_ERR_UNAVAILABLE
   where they fit) with the CUDA error name and string in the detail. */
#pragma once
#include <cuda_runtime.h>
#include <stdint.h>
#include "../../core/internal.h" /* gemm_status, gemm__fail */

static gemm_status gemm__cuda_status_of(cudaError_t e)
{
    switch (e) {
    case cudaErrorMemoryAllocation: return GEMM_ERR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDevice: return GEMM_ERR_UNAVAILABLE;
    default: return GEMM_ERR_DEVICE;
    }
}

/* Records a failed CUDA call; `what` names the call, `func` the entry point. */
static gemm_status gemm__cuda_fail(const char *func, const char *what, cudaError_t e)
{
    return gemm__fail(gemm__cuda_status_of(e), "%s: %s: %s (%s)", func, what, cudaGetErrorName(e),
                      cudaGetErrorString(e));
}

/* Returns the failure of a CUDA call from the enclosing function. */
#define GEMM__CUDA_TRY(func, call)                                                                 \
    do {                                                                                           \
        cudaError_t gemm__e = (call);                                                              \
        if (gemm__e != cudaSuccess) return gemm__cuda_fail(func, #call, gemm__e);                  \
    } while (0)
