/* bench/bench_cuda_batch.cu - gemm's strided-batched calls beside cuBLAS's
   (cublasSgemmStridedBatched, cublasDgemmStridedBatched,
   cublasGemmStridedBatchedEx for TF32, FP16 and BF16 with fp32 sums), in one
   process, interleaved call by call, on random data in [-0.5, 0.5);
   column-major NN, members packed back to back. Each cell: the median of
   --reps timed calls of each (CUDA events), the spread (max/min), and
   cuBLAS time / gemm time (above 1: gemm is faster).

   build/bench_cuda_batch [--reps N] [--prec f32,f64,tf32,f16,bf16]
                          [--shapes 64x10000,256x1000,1024x16] [--csv FILE]
                          [--depth K] (every member n x n x K, not n^3)
                          [--variant N] (options.variant for ours)
                          [--kernel simt|dmma|mma|wgmma] (options.kernel for ours)
   Built with -DGEMM__TEST_HOOKS (research): --epilogue N sets the WGMMA
   epilogue hook (1 staged through shared memory, 2 straight from the
   registers). */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } \
    } while (0)

static __global__ void fill_kernel(unsigned char *p, size_t bytes, int elem, int kind, unsigned seed)
{
    size_t n = bytes / elem;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
        float v = (float)(h & 0xffff) / 65536.0f - 0.5f;
        if (kind == 0) ((float *)p)[i] = v;
        else if (kind == 1) ((double *)p)[i] = v;
        else if (kind == 2) ((__half *)p)[i] = __float2half(v);
        else ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
    }
}

/* options.kernel from its name, as gemm_cuda_kernel_name spells it. */
static bool kernel_named(const char *name, gemm_cuda_kernel *kernel)
{
    for (int k = GEMM_CUDA_KERNEL_AUTO; k <= GEMM_CUDA_KERNEL_WGMMA; k++)
        if (!strcmp(name, gemm_cuda_kernel_name((gemm_cuda_kernel)k))) {
            *kernel = (gemm_cuda_kernel)k;
            return true;
        }
    return false;
}

typedef struct prec_info { const char *name; int kind, elem; } prec_info;

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    int reps = 15, variant = 0, depth = 0;
    gemm_cuda_kernel kernel = GEMM_CUDA_KERNEL_AUTO;
    const char *precs = "f32,f64,tf32,f16,bf16", *shapes = "64x10000,256x1000,1024x16", *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) precs = argv[++i];
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) shapes = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
        else if (!strcmp(argv[i], "--variant") && i + 1 < argc) variant = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc) depth = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc && kernel_named(argv[i + 1], &kernel)) i++;
#ifdef GEMM__TEST_HOOKS
        else if (!strcmp(argv[i], "--epilogue") && i + 1 < argc) gemm__test_hooks()->cuda_wgmma_epilogue = atoi(argv[++i]);
#endif
        else { fprintf(stderr, "unknown argument %s\n", argv[i]); return 2; }
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublasCreate failed\n"); return 2; }
    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (out) fprintf(out, "device,prec,n,count,gemm_ms,cublas_ms,gemm_tflops,cublas_tflops,ratio,gemm_spread,cublas_spread\n");
    printf("%s: gemm strided-batched beside cuBLAS, column-major NN, median of %d\n", prop.name, reps);
    if (depth > 0) printf("every member n x n x %d\n", depth);
    printf("%-5s %6s %6s %10s %10s %9s %9s %7s %7s %7s\n", "prec", "n", "count", "gemm ms", "cuBLAS ms", "gemm TF/s",
           "cuBLAS TF", "ratio", "spr g", "spr c");
    static const prec_info all[] = {{"f32", 0, 4}, {"f64", 1, 8}, {"tf32", 0, 4}, {"f16", 2, 2}, {"bf16", 3, 2}};
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    char shape_list[256];
    for (const prec_info &pi : all) {
        char key[16];
        snprintf(key, sizeof key, ",%s,", pi.name);
        char plist[128];
        snprintf(plist, sizeof plist, ",%s,", precs);
        if (!strstr(plist, key)) continue;
        snprintf(shape_list, sizeof shape_list, "%s", shapes);
        for (char *tok = strtok(shape_list, ","); tok; tok = strtok(NULL, ",")) {
            int n = 0;
            long long count = 0;
            if (sscanf(tok, "%dx%lld", &n, &count) != 2) continue;
            int k = depth > 0 ? depth : n;
            size_t per = (size_t)n * n, per_ab = (size_t)n * k, bytes_ab = per_ab * count * pi.elem,
                   bytes_c = per * count * (pi.kind >= 2 ? 4 : pi.elem);
            void *A, *B, *C;
            CHECK(cudaMalloc(&A, bytes_ab));
            CHECK(cudaMalloc(&B, bytes_ab));
            CHECK(cudaMalloc(&C, bytes_c));
            fill_kernel<<<1024, 256>>>((unsigned char *)A, bytes_ab, pi.elem, pi.kind, 1u);
            fill_kernel<<<1024, 256>>>((unsigned char *)B, bytes_ab, pi.elem, pi.kind, 2u);
            fill_kernel<<<1024, 256>>>((unsigned char *)C, bytes_c, pi.kind >= 2 ? 4 : pi.elem, pi.kind >= 2 ? 0 : pi.kind, 3u);
            CHECK(cudaDeviceSynchronize());
            gemm_cuda_options opt = {};
            opt.variant = variant;
            opt.kernel = kernel;
            if (!strcmp(pi.name, "tf32")) opt.math = GEMM_CUDA_MATH_TF32;
            float alpha = 1.0f, beta = 0.0f;
            double alpha_d = 1.0, beta_d = 0.0;
            long long st = (long long)per_ab, stc = (long long)per;
            auto ours = [&]() -> gemm_status {
                if (pi.kind == 0)
                    return gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, k, alpha,
                                                           (float *)A, n, st, (float *)B, k, st, beta, (float *)C, n, stc,
                                                           count, &opt);
                if (pi.kind == 1)
                    return gemm_cuda_dgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, k,
                                                           alpha_d, (double *)A, n, st, (double *)B, k, st, beta_d,
                                                           (double *)C, n, stc, count, &opt);
                gemm_precision p = pi.kind == 2 ? GEMM_F16 : GEMM_BF16;
                return gemm_cuda_sgemm_mixed_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, k,
                                                             alpha, A, p, n, st, B, p, k, st, beta, C, GEMM_F32, n, stc,
                                                             count, &opt);
            };
            auto theirs = [&]() -> cublasStatus_t {
                if (!strcmp(pi.name, "f32"))
                    return cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &alpha, (float *)A, n, st,
                                                     (float *)B, k, st, &beta, (float *)C, n, stc, (int)count);
                if (pi.kind == 1)
                    return cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &alpha_d, (double *)A, n, st,
                                                     (double *)B, k, st, &beta_d, (double *)C, n, stc, (int)count);
                cudaDataType t = pi.kind == 0 ? CUDA_R_32F : pi.kind == 2 ? CUDA_R_16F : CUDA_R_16BF;
                cublasComputeType_t ct = pi.kind == 0 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
                return cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &alpha, A, t, n, st, B, t, k, st,
                                                  &beta, C, CUDA_R_32F, n, stc, (int)count, ct, CUBLAS_GEMM_DEFAULT);
            };
            std::vector<double> tg, tc;
            bool ok = true;
            for (int r = -2; r < reps && ok; r++) { /* two warm-up rounds */
                float ms;
                CHECK(cudaEventRecord(e0));
                gemm_status s = ours();
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                if (s != GEMM_OK) { printf("%s %s: gemm failed: %s\n", pi.name, tok, gemm_last_error_detail()); ok = false; }
                if (r >= 0) tg.push_back(ms);
                CHECK(cudaEventRecord(e0));
                cublasStatus_t cs = theirs();
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                if (cs != CUBLAS_STATUS_SUCCESS) { printf("%s %s: cuBLAS failed: %d\n", pi.name, tok, (int)cs); ok = false; }
                if (r >= 0) tc.push_back(ms);
            }
            if (ok) {
                double mg = median(tg), mc = median(tc), flops = 2.0 * n * (double)n * k * count;
                double sg = *std::max_element(tg.begin(), tg.end()) / *std::min_element(tg.begin(), tg.end());
                double sc = *std::max_element(tc.begin(), tc.end()) / *std::min_element(tc.begin(), tc.end());
                printf("%-5s %6d %6lld %10.4f %10.4f %9.2f %9.2f %7.3f %7.2f %7.2f\n", pi.name, n, count, mg, mc,
                       flops / mg / 1e9, flops / mc / 1e9, mc / mg, sg, sc);
                if (out)
                    fprintf(out, "%s,%s,%d,%lld,%.5f,%.5f,%.3f,%.3f,%.4f,%.3f,%.3f\n", prop.name, pi.name, n, count, mg, mc,
                            flops / mg / 1e9, flops / mc / 1e9, mc / mg, sg, sc);
            }
            cudaFree(A); cudaFree(B); cudaFree(C);
        }
    }
    if (out) fclose(out);
    cublasDestroy(h);
    return 0;
}
