/* The scratch pool: the operand copies of the tensor-core modes and of the
   exact kernels (realigned or transposed), WGMMA's split-K sums, a
   pointer-array batch's device lists and the host path's device buffers
   are taken from it in stream order on the caller's stream and given back
   there. One pool per device, created on first use (when
   `create`; else *pool may come back NULL). It keeps its memory between
   calls, as cuBLAS keeps a workspace: the device's default pool hands
   memory back to the driver at every synchronisation, and mapping it again
   cost more than the copy itself (about 3.7 ms for 1 GB at n = 16384 on an
   H200). gemm_cuda_release_scratch() hands it back. */
#pragma once
#include <atomic>
#include <stdint.h>
#include <string.h>
#include "../../core/internal.h"
#include "errors.cuh"

static gemm_status gemm__cuda_scratch_pool(const char *fn, int dev, bool create, cudaMemPool_t *pool)
{
    static std::atomic<cudaMemPool_t> pools[64];
    cudaMemPool_t p, expected = NULL;
    cudaMemPoolProps props;
    uint64_t keep = UINT64_MAX;
    *pool = NULL;
    if (dev < 0 || dev >= 64) return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: device %d: only 64 devices are served", fn, dev);
    if ((p = pools[dev].load()) != NULL || !create) {
        *pool = p;
        return GEMM_OK;
    }
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    GEMM__CUDA_TRY(fn, cudaMemPoolCreate(&p, &props));
    GEMM__CUDA_TRY(fn, cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep));
    if (!pools[dev].compare_exchange_strong(expected, p)) { /* another thread was first */
        cudaMemPoolDestroy(p);
        p = expected;
    }
    *pool = p;
    return GEMM_OK;
}
