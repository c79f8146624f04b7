/* bench/bench_cuda_verify.cu - what options.verify costs on CUDA: the same
   device-pointer call with and without verification, in one process.

   build/bench_cuda_verify [--n 2048,4096] [--rounds R]

   Protocol (docs/DESIGN.md, "Measuring"): random inputs in [-0.5, 0.5) on
   the device, column-major NN, alpha = 1, beta = 0; fp32 (exact), TF32
   (options.math) and fp64; a warm-up of both columns, then R rounds
   (default 9) of the two interleaved, each timed with cudaEvents around
   the call (the verified call synchronizes its stream itself; the plain
   call is timed to its completion too); each column's median. The cost is
   verified / plain - 1. Every verified call must return GEMM_OK. */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

template <typename T>
static float timed(int n, const T *A, const T *B, T *C, const gemm_cuda_options *o, gemm_status *s)
{
    cudaEvent_t e0, e1;
    float ms = 0;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0, 0);
    if (sizeof(T) == 4)
        *s = gemm_cuda_sgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, (const float *)A, n,
                             (const float *)B, n, 0.0f, (float *)C, n, o);
    else
        *s = gemm_cuda_dgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, (const double *)A, n,
                             (const double *)B, n, 0.0, (double *)C, n, o);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return ms;
}

template <typename T>
static int row(const char *name, int n, gemm_cuda_math math, int rounds)
{
    size_t count = (size_t)n * n;
    std::vector<T> h(count);
    T *A, *B, *C;
    gemm_cuda_options plain, verified;
    std::vector<float> tp, tv;
    gemm_status s1, s2;
    unsigned long long st = 12345;
    for (size_t i = 0; i < count; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        h[i] = (T)((double)(st >> 11) / 9007199254740992.0 - 0.5);
    }
    if (cudaMalloc((void **)&A, count * sizeof(T)) != cudaSuccess || cudaMalloc((void **)&B, count * sizeof(T)) != cudaSuccess ||
        cudaMalloc((void **)&C, count * sizeof(T)) != cudaSuccess)
        return fprintf(stderr, "bench_cuda_verify: out of device memory\n"), 1;
    cudaMemcpy(A, h.data(), count * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(B, h.data(), count * sizeof(T), cudaMemcpyHostToDevice);
    memset(&plain, 0, sizeof plain);
    plain.math = math;
    verified = plain;
    verified.verify = 1;
    timed<T>(n, A, B, C, &plain, &s1);
    timed<T>(n, A, B, C, &verified, &s2);
    for (int r = 0; r < rounds; r++) {
        tp.push_back(timed<T>(n, A, B, C, &plain, &s1));
        tv.push_back(timed<T>(n, A, B, C, &verified, &s2));
        if (s1 != GEMM_OK || s2 != GEMM_OK)
            return fprintf(stderr, "bench_cuda_verify: %s (%s)\n", gemm_strerror(s1 != GEMM_OK ? s1 : s2),
                           gemm_last_error_detail()), 1;
    }
    std::sort(tp.begin(), tp.end());
    std::sort(tv.begin(), tv.end());
    printf("%-5s %6d %12.3f %12.3f %7.1f%%\n", name, n, tp[rounds / 2], tv[rounds / 2],
           100.0 * (tv[rounds / 2] / tp[rounds / 2] - 1.0));
    fflush(stdout);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return 0;
}

int main(int argc, char **argv)
{
    std::vector<int> ns = {2048, 4096};
    int rounds = 9;
    cudaDeviceProp prop;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--n") == 0) {
            ns.clear();
            for (char *p = argv[i + 1]; *p;) {
                ns.push_back(atoi(p));
                while (*p && *p != ',') p++;
                if (*p == ',') p++;
            }
        } else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
        else return fprintf(stderr, "usage: %s [--n 2048,4096] [--rounds R]\n", argv[0]), 2;
    }
    if (rounds < 1 || cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
        return fprintf(stderr, "bench_cuda_verify: no CUDA device\n"), 1;
    printf("# %s; %s\n", prop.name, gemm_config());
    printf("%-5s %6s %12s %12s %8s\n", "mode", "n", "plain (ms)", "verified (ms)", "cost");
    for (int n : ns)
        if (row<float>("f32", n, GEMM_CUDA_MATH_EXACT, rounds) || row<float>("tf32", n, GEMM_CUDA_MATH_TF32, rounds) ||
            row<double>("f64", n, GEMM_CUDA_MATH_EXACT, rounds))
            return 1;
    return 0;
}
