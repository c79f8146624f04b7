/* bench/host_matrices.h - what the host-pointer benchmarks share
   (bench_cuda_host.cu, bench_cuda_devices.cu): their CUDA and cuBLAS checks,
   large host matrices (allocated on huge pages, filled on every core with
   values that do not depend on the thread count), the median of a series,
   and our device-pointer rate. Included after gemm_cuda.cuh and
   tests/battery.h. */
#pragma once

#include <algorithm>
#include <cublas_v2.h>
#include <functional>
#include <sys/mman.h>
#include <thread>
#include <vector>

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) { fprintf(stderr, "bench: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } \
    } while (0)
#define CHECK_CUBLAS(call)                                                                         \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "bench: %s: status %d\n", #call, (int)s_); exit(1); } \
    } while (0)

static unsigned host_cores(void)
{
    unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

/* f(begin, end) over [0, count) on every core. */
static void parallel_for(size_t count, const std::function<void(size_t, size_t)> &f)
{
    unsigned t, threads = host_cores();
    std::vector<std::thread> pool;
    for (t = 0; t < threads; t++) {
        size_t b = count / threads * t, e = t + 1 == threads ? count : count / threads * (t + 1);
        pool.push_back(std::thread(f, b, e));
    }
    for (t = 0; t < threads; t++) pool[t].join();
}

/* Uniform in [-0.5, 0.5), a splitmix stream per 64K elements (the same
   values whatever the thread count). */
template <typename T> static void fill_random(T *p, size_t count, uint64_t seed)
{
    parallel_for((count + 65535) / 65536, [=](size_t b, size_t e) {
        for (size_t blk = b; blk < e; blk++) {
            uint64_t st = seed * 0x9E3779B97F4A7C15ull + blk;
            size_t i, end = (blk + 1) * 65536 < count ? (blk + 1) * 65536 : count;
            for (i = blk * 65536; i < end; i++) p[i] = (T)battery_uniform(&st);
        }
    });
}

template <typename T> static void fill_value(T *p, size_t count, T v)
{
    parallel_for(count, [=](size_t b, size_t e) {
        for (size_t i = b; i < e; i++) p[i] = v;
    });
}

/* Host memory for big matrices: 2 MB aligned, transparent huge pages
   asked for (fewer page faults while filling 97 GB). */
static void *big_alloc(size_t bytes)
{
    size_t rounded = (bytes + ((size_t)2 << 20) - 1) / ((size_t)2 << 20) * ((size_t)2 << 20);
    void *p = aligned_alloc((size_t)2 << 20, rounded);
    if (!p) { fprintf(stderr, "bench: cannot allocate %zu bytes of host memory\n", bytes); exit(1); }
    madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}

static double median_of(std::vector<double> v, double *lo, double *hi)
{
    std::sort(v.begin(), v.end());
    if (lo) *lo = v.front();
    if (hi) *hi = v.back();
    return v[v.size() / 2];
}

/* Our device-pointer rate at n (flop/s): median of 3 after a warm-up. */
template <typename T> static double device_rate(int64_t n)
{
    size_t count = (size_t)(n * n);
    T *d[3];
    cudaEvent_t e0, e1;
    std::vector<double> v;
    int i;
    for (i = 0; i < 3; i++) CHECK_CUDA(cudaMalloc((void **)&d[i], count * sizeof(T)));
    {
        T *h = (T *)big_alloc(count * sizeof(T));
        fill_random(h, count, 3);
        CHECK_CUDA(cudaMemcpy(d[0], h, count * sizeof(T), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d[1], h, count * sizeof(T), cudaMemcpyHostToDevice));
        free(h);
    }
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    for (i = 0; i < 4; i++) {
        float ms;
        gemm_status s;
        CHECK_CUDA(cudaEventRecord(e0, 0));
        s = sizeof(T) == 4 ? gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, (const float *)d[0], n,
                                             (const float *)d[1], n, 0.0f, (float *)d[2], n, NULL)
                           : gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, (const double *)d[0], n,
                                             (const double *)d[1], n, 0.0, (double *)d[2], n, NULL);
        if (s != GEMM_OK) { fprintf(stderr, "bench: device rate: %s\n", gemm_last_error_detail()); exit(1); }
        CHECK_CUDA(cudaEventRecord(e1, 0));
        CHECK_CUDA(cudaEventSynchronize(e1));
        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        if (i) v.push_back(2.0 * (double)n * n * n / (ms * 1e-3));
    }
    for (i = 0; i < 3; i++) cudaFree(d[i]);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return median_of(v, NULL, NULL);
}
