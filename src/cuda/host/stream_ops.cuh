/* The device operations of the host path (staging.cuh, pipeline.cuh), as
   the static members of one type: the pipeline is a template over it, so
   the tests can run the same bookkeeping (threads, chunks, events, order)
   on a CPU stand-in; this is the only one that ships. */
#pragma once
#include "../../core/internal.h" /* gemm__clear_error */
#include "run.cuh" /* gemm__cuda_run */
#include "scratch.cuh"

struct gemm__cuda_real {
    typedef cudaStream_t stream;
    typedef cudaEvent_t event;

    static cudaError_t stream_create(stream *s) { return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking); }
    static void stream_destroy(stream s) { cudaStreamDestroy(s); }
    static cudaError_t event_create(event *e) { return cudaEventCreate(e); }
    static void event_destroy(event e) { cudaEventDestroy(e); }
    /* Mapped as well: the zero-copy path hands the chunks to kernels. */
    static cudaError_t host_alloc(void **p, size_t bytes)
    {
        return cudaHostAlloc(p, bytes, cudaHostAllocPortable | cudaHostAllocMapped);
    }
    static void host_free(void *p) { cudaFreeHost(p); }
    static void set_device(int dev) { cudaSetDevice(dev); }

    /* rows runs of width bytes; cudaMemcpyDefault: either side may be host
       (page-locked or not), device or managed memory. */
    static cudaError_t copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows, stream s)
    {
        if (rows == 1) return cudaMemcpyAsync(dst, src, width, cudaMemcpyDefault, s);
        return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault, s);
    }
    static cudaError_t record(event e, stream s) { return cudaEventRecord(e, s); }
    static cudaError_t wait(stream s, event e) { return cudaStreamWaitEvent(s, e, 0); }
    static cudaError_t sync_stream(stream s) { return cudaStreamSynchronize(s); }
    static cudaError_t sync_event(void *e) { return cudaEventSynchronize((event)e); }
    static cudaError_t elapsed(float *ms, event a, event b) { return cudaEventElapsedTime(ms, a, b); }

    /* The call's device buffer, from the device's scratch pool (kept
       between calls: mapping gigabytes again would cost milliseconds). */
    static gemm_status device_alloc(const char *fn, void **p, size_t bytes, int dev, stream s)
    {
        cudaMemPool_t pool;
        cudaError_t e;
        gemm_status st = gemm__cuda_scratch_pool(fn, dev, true, &pool);
        *p = NULL;
        if (st != GEMM_OK || bytes == 0) return st;
        if ((e = cudaMallocFromPoolAsync(p, bytes, pool, s)) != cudaSuccess) {
            cudaGetLastError(); /* not sticky: the caller may try a smaller plan */
            *p = NULL;
            return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (the host path's device buffer)", e);
        }
        return GEMM_OK;
    }
    static void device_free(void *p, stream s)
    {
        if (p) cudaFreeAsync(p, s);
    }
    /* Hands the pool's idle memory back, so a smaller plan can get it. */
    static void device_trim(int dev)
    {
        cudaMemPool_t pool;
        if (gemm__cuda_scratch_pool("gemm_cuda", dev, false, &pool) == GEMM_OK && pool) cudaMemPoolTrimTo(pool, 0);
        gemm__clear_error();
    }

    template <typename T, typename TC, typename S>
    static gemm_status multiply(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                const gemm_cuda_options *opt, stream s)
    {
        return gemm__cuda_run(fn, p, x, opt, s);
    }
};
