/* bench/bench_cuda_ozaki.cu - the emulated products on the int8 tensor
   cores beside cuBLAS, in one process: fp64 (options.math FP64_EMULATED)
   against cublasDgemm and our native DMMA, accurate fp32 (FP32_ACCURATE:
   int8 emulation and 3xTF32) against cublasSgemm, and gemm_cuda_s8gemm
   against cublasGemmEx (CUDA_R_8I, CUBLAS_COMPUTE_32I).

   build/bench_cuda_ozaki [--shapes 4096:4096:4096,...] [--rounds R] [--moduli N]

   Column-major NN, alpha = 1, beta = 0, device data; inputs uniform in
   [-1, 1) ("uniform") or that times 2^e, e uniform in [-10, 10] or
   [-30, 30] per entry ("span10", "span30"; --dists 0,10,30). emu_auto is
   the library's choice (moduli 0: by size, more moduli where the lines
   need them, native where they need more than the most), its error in
   err_auto; emu_N forces N moduli (--moduli; default fp64 15, fp32 9),
   its error in err_emu. Each column is timed with
   cudaEvents around the call to its completion; a warm-up, then R rounds (default 9) of all
   columns interleaved; medians. Errors: the largest |C - exact| /
   (|A||B|) over 256 sampled entries, exact sums in double-double on the
   CPU (fp32 inputs are the problem: their exact product is the
   reference). "moduli" is what gemm_cuda_last_moduli() said. */
#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include <cublas_v2.h>
#include <algorithm>
#include <functional>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double uniform(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}
/* dist 0: uniform in [-1, 1); s > 0: that times 2^e, e uniform in [-s, s] */
static double value(int dist)
{
    double u = uniform();
    if (!dist) return u;
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return ldexp(u, (int)(rng % (2 * dist + 1)) - dist);
}

static float time_ms(const std::function<void()> &f)
{
    cudaEvent_t e0, e1;
    float ms = 0;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0, 0);
    f();
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0); cudaEventDestroy(e1);
    return ms;
}
static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* the largest sampled |C - exact| / (|A||B|); A, B, C column-major */
template <typename T>
static double worst_error(int M, int N, int K, const std::vector<double> &A, const std::vector<double> &B, const T *dC)
{
    std::vector<T> C((size_t)M * N);
    cudaMemcpy(C.data(), dC, C.size() * sizeof(T), cudaMemcpyDeviceToHost);
    double worst = 0.0;
    for (int t = 0; t < 256; t++) {
        int i = (int)((size_t)t * 7919 % M), j = (int)((size_t)t * 104729 % N);
        double s = 0.0, c = 0.0, ab = 0.0;
        for (int q = 0; q < K; q++) {
            double x = A[i + (size_t)q * M], y = B[q + (size_t)j * K], p = x * y, pe = fma(x, y, -p);
            double u = s + p, z = u - s, ue = (s - (u - z)) + (p - z);
            s = u; c += ue + pe; ab += fabs(p);
        }
        double hi = s + c, lo = c - (hi - s);
        worst = std::max(worst, fabs(((double)C[i + (size_t)j * M] - hi) - lo) / ab);
    }
    return worst;
}

int main(int argc, char **argv)
{
    std::vector<int> shapes = {2048, 2048, 2048, 4096, 4096, 4096, 8192, 8192, 8192, 16384, 16384, 16384,
                               8192, 8192, 1024, 4096, 4096, 65536};
    int rounds = 9, forced = 0;
    std::vector<int> dists = {0, 10, 30};
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--rounds") && a + 1 < argc) rounds = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--moduli") && a + 1 < argc) forced = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--s8-bm") && a + 1 < argc) gemm__test_hooks()->cuda_s8_bm = atoi(argv[++a]); /* 128 or 256 */
        else if (!strcmp(argv[a], "--dists") && a + 1 < argc) {
            dists.clear();
            for (char *s = strtok(argv[++a], ","); s; s = strtok(NULL, ",")) dists.push_back(atoi(s));
        }
        else if (!strcmp(argv[a], "--shapes") && a + 1 < argc) {
            shapes.clear();
            for (char *s = strtok(argv[++a], ",:"); s; s = strtok(NULL, ",:")) shapes.push_back(atoi(s));
        }
    }
    cublasHandle_t h;
    cublasCreate(&h);
    int ver = 0;
    cublasGetVersion(h, &ver);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("# %s, cuBLAS %d, %d rounds, median; ratio = cuBLAS time / ours\n", prop.name, ver, rounds);
    printf("%-22s %-7s %-6s %10s %8s %8s %8s %6s %10s %10s %10s\n", "shape", "dist", "prec", "cublas_TF", "native", "emu_auto",
           "emu_N", "moduli", "err_cublas", "err_auto", "err_emu");
    for (size_t s = 0; s + 2 < shapes.size(); s += 3) {
        int M = shapes[s], N = shapes[s + 1], K = shapes[s + 2];
        double flops = 2.0 * M * N * K;
        for (int dist : dists) {
            std::vector<double> A((size_t)M * K), B((size_t)K * N);
            for (auto &v : A) v = value(dist);
            for (auto &v : B) v = value(dist);
            for (int prec = 0; prec < 2; prec++) { /* 0 fp64, 1 fp32 */
                if (prec == 0 && K > 16384) continue;
                size_t es = prec == 0 ? 8 : 4;
                void *dA, *dB, *dC;
                if (cudaMalloc(&dA, A.size() * es) != cudaSuccess || cudaMalloc(&dB, B.size() * es) != cudaSuccess ||
                    cudaMalloc(&dC, (size_t)M * N * es) != cudaSuccess) {
                    printf("%dx%dx%d: out of device memory\n", M, N, K);
                    return 1;
                }
                std::vector<double> A32, B32;
                if (prec == 0) {
                    cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
                    cudaMemcpy(dB, B.data(), B.size() * 8, cudaMemcpyHostToDevice);
                } else {
                    std::vector<float> fa(A.begin(), A.end()), fb(B.begin(), B.end());
                    A32.assign(fa.begin(), fa.end());
                    B32.assign(fb.begin(), fb.end());
                    cudaMemcpy(dA, fa.data(), fa.size() * 4, cudaMemcpyHostToDevice);
                    cudaMemcpy(dB, fb.data(), fb.size() * 4, cudaMemcpyHostToDevice);
                }
                const std::vector<double> &RA = prec == 0 ? A : A32, &RB = prec == 0 ? B : B32;
                gemm_cuda_options native = {}, emu = {}, emu_n = {};
                native.math = prec == 0 ? GEMM_CUDA_MATH_EXACT : GEMM_CUDA_MATH_FP32_ACCURATE; /* fp32: 3xTF32 */
                emu.math = emu_n.math = prec == 0 ? GEMM_CUDA_MATH_FP64_EMULATED : GEMM_CUDA_MATH_FP32_ACCURATE;
                emu_n.moduli = forced ? forced : prec == 0 ? 15 : 9;
                int used_auto = 0, used_n = 0;
                double err_cublas = 0, err_auto = 0, err_emu = 0;
                auto cublas = [&]() {
                    double one = 1, zero = 0;
                    float fone = 1, fzero = 0;
                    if (prec == 0) cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, (double *)dA, M, (double *)dB, K, &zero, (double *)dC, M);
                    else cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &fone, (float *)dA, M, (float *)dB, K, &fzero, (float *)dC, M);
                };
                auto ours = [&](gemm_cuda_options *o, int *used) {
                    gemm_status st = prec == 0
                        ? gemm_cuda_dgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, (double *)dA, M, (double *)dB, K, 0.0, (double *)dC, M, o)
                        : gemm_cuda_sgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, (float *)dA, M, (float *)dB, K, 0.0f, (float *)dC, M, o);
                    if (st != GEMM_OK) { printf("call failed: %s\n", gemm_last_error_detail()); exit(1); }
                    if (used) *used = gemm_cuda_last_moduli();
                };
                std::vector<float> t_cublas, t_native, t_auto, t_n;
                for (int r = -1; r < rounds; r++) {
                    float a = time_ms(cublas);
                    if (r == 0) err_cublas = prec == 0 ? worst_error<double>(M, N, K, RA, RB, (double *)dC) : worst_error<float>(M, N, K, RA, RB, (float *)dC);
                    gemm__test_hooks()->cuda_ozaki = 1;
                    float b = time_ms([&]() { ours(&native, NULL); });
                    gemm__test_hooks()->cuda_ozaki = 0;
                    float c = time_ms([&]() { ours(&emu, &used_auto); });
                    if (r == 0) err_auto = prec == 0 ? worst_error<double>(M, N, K, RA, RB, (double *)dC) : worst_error<float>(M, N, K, RA, RB, (float *)dC);
                    float d = time_ms([&]() { ours(&emu_n, &used_n); });
                    if (r == 0) err_emu = prec == 0 ? worst_error<double>(M, N, K, RA, RB, (double *)dC) : worst_error<float>(M, N, K, RA, RB, (float *)dC);
                    if (r >= 0) { t_cublas.push_back(a); t_native.push_back(b); t_auto.push_back(c); t_n.push_back(d); }
                }
                float mc = median(t_cublas);
                char shape[64];
                snprintf(shape, sizeof shape, "%dx%dx%d", M, N, K);
                printf("%-22s %-7s %-6s %10.1f %8.3f %8.3f %8.3f %3d/%-2d %10.2e %10.2e %10.2e\n", shape, dist == 0 ? "uniform" : dist == 10 ? "span10" : "span30",
                       prec == 0 ? "fp64" : "fp32", flops / mc / 1e9, mc / median(t_native), mc / median(t_auto),
                       mc / median(t_n), used_auto, used_n, err_cublas, err_auto, err_emu);
                fflush(stdout);
                cudaFree(dA); cudaFree(dB); cudaFree(dC);
            }
        }
        /* int8 */
        if (K <= 16384) {
            int8_t *a8, *b8;
            int32_t *c32;
            cudaMalloc((void **)&a8, (size_t)M * K); cudaMalloc((void **)&b8, (size_t)K * N); cudaMalloc((void **)&c32, (size_t)M * N * 4);
            cudaMemset(a8, 1, (size_t)M * K); cudaMemset(b8, 2, (size_t)K * N);
            int32_t one = 1, zero = 0;
            std::vector<float> tc, to;
            for (int r = -1; r < rounds; r++) {
                /* both k-major: A^T stored (TN), the layout cuBLAS's int8 kernels favour */
                float a = time_ms([&]() { cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, a8, CUDA_R_8I, K, b8, CUDA_R_8I, K, &zero, c32, CUDA_R_32I, M, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT); });
                float b = time_ms([&]() { gemm_cuda_s8gemm(0, GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, M, N, K, 1, a8, K, b8, K, 0, c32, M, NULL); });
                if (r >= 0) { tc.push_back(a); to.push_back(b); }
            }
            int32_t probe = 0;
            cudaMemcpy(&probe, c32, 4, cudaMemcpyDeviceToHost);
            printf("%-22s int8   TN     cublas %.1f TOPS, ours %.1f TOPS, ratio %.3f (C[0] %d, want %d)\n", "", 2.0 * M * N * K / median(tc) / 1e9,
                   2.0 * M * N * K / median(to) / 1e9, median(tc) / median(to), probe, 2 * K);
            cudaFree(a8); cudaFree(b8); cudaFree(c32);
        }
    }
    cublasDestroy(h);
    return 0;
}
