/* bench/bench_cuda_complex.cu - gemm's complex calls beside cuBLAS's in one
   process: gemm_cuda_cgemm / _zgemm beside cublasCgemm / cublasZgemm at
   n x n x n, every op pair of N, T, C, and the strided batches beside
   cublasCgemmStridedBatched / cublasZgemmStridedBatched (members n x n x n,
   packed back to back). Column-major, random data in [-0.5, 0.5) of full
   precision, alpha = (1, 0.5), beta = 0 (--beta-complex: beta = (0.5, -0.25), a copy of C
   for gemm). Each cell: the calls interleaved one by one after a warm-up,
   the median of --reps timed calls of each (CUDA events), the spread
   (max/min) of gemm's, gemm's and cuBLAS's rate (8mnk flops of the complex
   product), cuBLAS time / gemm time (at least 1: gemm as fast or faster),
   and gemm's largest difference from cuBLAS's C relative to C's largest
   element (a check that both computed the same product).

   build/bench_cuda_complex [--reps N] [--prec c,z] [--sizes 2048,4096,8192]
                            [--ops NN,NT,...] (default: all nine)
                            [--batches 64x10000,256x1000,1024x16] [--batch-ops NN,CN,NT]
                            [--beta-complex] [--csv FILE]
                            [--path P] (P = 1: the real product on the expansion; 2..5: the
                                        native kernels' configurations; default: the automatic choice) */
#define GEMM_IMPLEMENTATION
#define GEMM__TEST_HOOKS /* --path */
#include "../gemm_cuda.cuh"
#include <cublas_v2.h>
#include <cuComplex.h>
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <utility>
#include <vector>

#define CHECK(x)                                                                                          \
    do {                                                                                                  \
        cudaError_t e_ = (x);                                                                             \
        if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(2); }      \
    } while (0)
#define CHECK_BLAS(x)                                                                                     \
    do {                                                                                                  \
        cublasStatus_t s_ = (x);                                                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "%s: cuBLAS status %d\n", #x, (int)s_); exit(2); } \
    } while (0)

static __device__ unsigned mix(unsigned h)
{
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    return h;
}

/* Values in [-0.5, 0.5) with all 53 bits of a double set at random: with
   short fractions (16 bits, say) every product and partial sum of a zgemm
   is exact in fp64, both C's then agree bit for bit whatever the order of
   the sums, and the check below could not tell a rounding difference from
   none. */
template <typename T> static __global__ void fill_kernel(T *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = mix((unsigned)i * 2654435761u ^ seed), g = mix(h ^ (unsigned)(i >> 32) ^ 0x9e3779b9u);
        unsigned long long u = ((unsigned long long)h << 21 ^ g) & ((1ull << 53) - 1);
        p[i] = (T)((double)u * 0x1p-53 - 0.5);
    }
}

/* out[0] = max |x - y|, out[1] = max |y| over n scalars (non-negative
   floats order as their bits). */
template <typename T> static __global__ void diff_kernel(const T *x, const T *y, size_t n, unsigned *out)
{
    float d = 0, m = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float di = (float)fabs((double)x[i] - (double)y[i]);
        d = di != di ? INFINITY : fmaxf(d, di); /* a NaN shows as Inf */
        m = fmaxf(m, (float)fabs((double)y[i]));
    }
    atomicMax(out, __float_as_uint(d));
    atomicMax(out + 1, __float_as_uint(m));
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

static gemm_transpose op_of(char c) { return c == 'N' ? GEMM_NO_TRANS : c == 'T' ? GEMM_TRANS : GEMM_CONJ_TRANS; }
static cublasOperation_t blas_op(char c) { return c == 'N' ? CUBLAS_OP_N : c == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }

struct bench_cfg {
    int reps;
    bool beta_complex;
    FILE *csv;
    const char *gpu;
};

/* One cell: n x n x n, `count` members (1: the single calls), op pair ops. */
template <typename T>
static void cell(const bench_cfg &cfg, cublasHandle_t h, const char *ops, int n, int count, T *A, T *B, T *C, T *Cb,
                 unsigned *diff)
{
    const bool z = sizeof(T) == 8;
    const T alpha[2] = {(T)1, (T)0.5}, beta[2] = {cfg.beta_complex ? (T)0.5 : (T)0, cfg.beta_complex ? (T)-0.25 : (T)0};
    gemm_transpose ta = op_of(ops[0]), tb = op_of(ops[1]);
    cublasOperation_t oa = blas_op(ops[0]), ob = blas_op(ops[1]);
    long long s = (long long)n * n; /* complex elements per member */
    size_t scalars = 2 * (size_t)s * count;
    cudaEvent_t e0, e1;
    std::vector<double> tg, tc;
    auto ours = [&](T *c) {
        gemm_status st;
        if (count == 1)
            st = z ? gemm_cuda_zgemm(0, GEMM_COL_MAJOR, ta, tb, n, n, n, alpha, A, n, B, n, beta, c, n, NULL)
                   : gemm_cuda_cgemm(0, GEMM_COL_MAJOR, ta, tb, n, n, n, alpha, A, n, B, n, beta, c, n, NULL);
        else
            st = z ? gemm_cuda_zgemm_strided_batched(0, GEMM_COL_MAJOR, ta, tb, n, n, n, alpha, A, n, s, B, n, s, beta,
                                                     c, n, s, count, NULL)
                   : gemm_cuda_cgemm_strided_batched(0, GEMM_COL_MAJOR, ta, tb, n, n, n, alpha, A, n, s, B, n, s, beta,
                                                     c, n, s, count, NULL);
        if (st != GEMM_OK) {
            fprintf(stderr, "gemm: %s\n", gemm_last_error_detail());
            exit(2);
        }
    };
    auto theirs = [&](T *c) {
        if (z && count == 1)
            CHECK_BLAS(cublasZgemm(h, oa, ob, n, n, n, (const cuDoubleComplex *)alpha, (const cuDoubleComplex *)A, n,
                                   (const cuDoubleComplex *)B, n, (const cuDoubleComplex *)beta, (cuDoubleComplex *)c, n));
        else if (z)
            CHECK_BLAS(cublasZgemmStridedBatched(h, oa, ob, n, n, n, (const cuDoubleComplex *)alpha,
                                                 (const cuDoubleComplex *)A, n, s, (const cuDoubleComplex *)B, n, s,
                                                 (const cuDoubleComplex *)beta, (cuDoubleComplex *)c, n, s, count));
        else if (count == 1)
            CHECK_BLAS(cublasCgemm(h, oa, ob, n, n, n, (const cuComplex *)alpha, (const cuComplex *)A, n,
                                   (const cuComplex *)B, n, (const cuComplex *)beta, (cuComplex *)c, n));
        else
            CHECK_BLAS(cublasCgemmStridedBatched(h, oa, ob, n, n, n, (const cuComplex *)alpha, (const cuComplex *)A, n,
                                                 s, (const cuComplex *)B, n, s, (const cuComplex *)beta, (cuComplex *)c,
                                                 n, s, count));
    };
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    /* the check: both from the same C */
    CHECK(cudaMemcpy(Cb, C, scalars * sizeof(T), cudaMemcpyDeviceToDevice));
    ours(C);
    theirs(Cb);
    CHECK(cudaMemset(diff, 0, 2 * sizeof(unsigned)));
    diff_kernel<T><<<1024, 256>>>(C, Cb, scalars, diff);
    unsigned hd[2];
    CHECK(cudaMemcpy(hd, diff, sizeof hd, cudaMemcpyDeviceToHost));
    float d, mx;
    memcpy(&d, &hd[0], 4);
    memcpy(&mx, &hd[1], 4);
    for (int r = 0; r < cfg.reps; r++) {
        float ms;
        CHECK(cudaEventRecord(e0));
        ours(C);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        tg.push_back(ms * 1e-3);
        CHECK(cudaEventRecord(e0));
        theirs(Cb);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        tc.push_back(ms * 1e-3);
    }
    double mg = median(tg), mc = median(tc), flops = 8.0 * n * (double)n * n * count;
    double spread = *std::max_element(tg.begin(), tg.end()) / *std::min_element(tg.begin(), tg.end());
    printf("%-6s %s %5d x%-6d  gemm %9.3f ms %7.2f TFLOP/s  cuBLAS %9.3f ms %7.2f TFLOP/s  cuBLAS/gemm %.3f  "
           "spread %.3f  diff %.2e\n",
           z ? "zgemm" : "cgemm", ops, n, count, mg * 1e3, flops / mg * 1e-12, mc * 1e3, flops / mc * 1e-12, mc / mg,
           spread, mx > 0 ? d / mx : d);
    fflush(stdout);
    if (cfg.csv)
        fprintf(cfg.csv, "%s,%s,%s,%d,%d,%s,%.6f,%.6f,%.3f,%.3f,%.4f,%.3e\n", cfg.gpu, z ? "zgemm" : "cgemm", ops, n,
                count, cfg.beta_complex ? "complex" : "0", mg * 1e3, mc * 1e3, flops / mg * 1e-12, flops / mc * 1e-12,
                mc / mg, mx > 0 ? d / mx : d);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

template <typename T>
static void run_prec(const bench_cfg &cfg, cublasHandle_t h, const std::vector<int> &sizes,
                     const std::vector<std::string> &ops, const std::vector<std::pair<int, int>> &batches,
                     const std::vector<std::string> &batch_ops)
{
    unsigned *diff;
    CHECK(cudaMalloc((void **)&diff, 2 * sizeof(unsigned)));
    auto shape = [&](int n, int count, const std::vector<std::string> &which) {
        size_t scalars = 2 * (size_t)n * n * count;
        T *A, *B, *C, *Cb;
        CHECK(cudaMalloc((void **)&A, scalars * sizeof(T)));
        CHECK(cudaMalloc((void **)&B, scalars * sizeof(T)));
        CHECK(cudaMalloc((void **)&C, scalars * sizeof(T)));
        CHECK(cudaMalloc((void **)&Cb, scalars * sizeof(T)));
        fill_kernel<T><<<1024, 256>>>(A, scalars, 1u);
        fill_kernel<T><<<1024, 256>>>(B, scalars, 2u);
        fill_kernel<T><<<1024, 256>>>(C, scalars, 3u);
        CHECK(cudaDeviceSynchronize());
        for (const std::string &o : which) cell<T>(cfg, h, o.c_str(), n, count, A, B, C, Cb, diff);
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
        cudaFree(Cb);
        gemm_cuda_release_scratch();
    };
    for (int n : sizes) shape(n, 1, ops);
    for (auto &b : batches) shape(b.first, b.second, batch_ops);
    cudaFree(diff);
}

static std::vector<std::string> split(const char *s)
{
    std::vector<std::string> v;
    std::string cur;
    for (const char *p = s;; p++) {
        if (*p == ',' || !*p) {
            if (!cur.empty()) v.push_back(cur);
            cur.clear();
            if (!*p) break;
        } else {
            cur += *p;
        }
    }
    return v;
}

int main(int argc, char **argv)
{
    bench_cfg cfg = {7, false, NULL, ""};
    const char *prec = "c,z", *sizes_s = "2048,4096,8192", *ops_s = "NN,NT,NC,TN,TT,TC,CN,CT,CC",
               *batches_s = "64x10000,256x1000,1024x16", *batch_ops_s = "NN,CN,NT";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) cfg.reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) prec = argv[++i];
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes_s = argv[++i];
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc) ops_s = argv[++i];
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc) batches_s = argv[++i];
        else if (!strcmp(argv[i], "--batch-ops") && i + 1 < argc) batch_ops_s = argv[++i];
        else if (!strcmp(argv[i], "--beta-complex")) cfg.beta_complex = true;
        else if (!strcmp(argv[i], "--path") && i + 1 < argc) gemm__test_hooks()->cuda_complex = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) cfg.csv = fopen(argv[++i], "w");
        else {
            fprintf(stderr, "usage: %s [--reps N] [--prec c,z] [--sizes 2048,4096,8192] [--ops NN,...] "
                            "[--batches 64x10000,...] [--batch-ops NN,...] [--beta-complex] [--csv FILE] [--path P]\n", argv[0]);
            return 2;
        }
    }
    if (cfg.reps < 1) cfg.reps = 1;
    std::vector<int> sizes;
    for (auto &s : split(sizes_s)) sizes.push_back(atoi(s.c_str()));
    std::vector<std::pair<int, int>> batches;
    for (auto &s : split(batches_s)) {
        int n = 0, c = 0;
        if (sscanf(s.c_str(), "%dx%d", &n, &c) == 2 && n > 0 && c > 0) batches.push_back({n, c});
    }
    std::vector<std::string> ops = split(ops_s), batch_ops = split(batch_ops_s);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    cfg.gpu = prop.name;
    int ver = 0;
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    CHECK_BLAS(cublasGetVersion(h, &ver));
    printf("%s: gemm %s complex calls beside cuBLAS %d, column-major, alpha (1, 0.5), beta %s, median of %d "
           "interleaved calls\n", prop.name, GEMM_VERSION_STRING, ver, cfg.beta_complex ? "(0.5, -0.25)" : "0",
           cfg.reps);
    if (cfg.csv) fprintf(cfg.csv, "gpu,call,ops,n,count,beta,gemm_ms,cublas_ms,gemm_tflops,cublas_tflops,ratio,diff\n");
    for (auto &p : split(prec)) {
        if (p == "c") run_prec<float>(cfg, h, sizes, ops, batches, batch_ops);
        else if (p == "z") run_prec<double>(cfg, h, sizes, ops, batches, batch_ops);
    }
    cublasDestroy(h);
    if (cfg.csv) fclose(cfg.csv);
    return 0;
}
