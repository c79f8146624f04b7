/* bench/research/cuda_variants.cu - the research configurations of the SIMT
   (fp32) and DMMA (fp64) kernels (cuda_kernels.cuh) beside cuBLAS, and
   through a quick battery. Needs a GPU to run; `make bench-cuda-research`
   builds it (so does `make test-cuda-build`, to keep it compiling).

   cuda_variants [--prec f32,f64] [--variants 1,2,...] [--shapes m:n:k,...] [--quick] [--csv FILE]
       each variant on each shape, row-major NN, beside cublasSgemm /
       cublasDgemm: TFLOP/s median [min-max] and the ratio, in bench_cuda's
       table and CSV format (kernel column "simt.vN" / "dmma.vN"); each
       result checked on 64 sampled elements; a wrong one is reported and
       the sweep goes on (exit status 1 at the end).
   cuda_variants --test [MAX_DIM]
       every kept variant through the battery (random cases up to MAX_DIM,
       default 300, and the edges), then larger aligned shapes in all 8
       layout cases with split-K off and automatic. Last line: N passed,
       N failed.
   Variants: fp32 1-8, fp64 1, 3, 4, 7 (1 = the configuration
   gemm_cuda.cuh ships). tests/cuda_sweep.sh runs both on a GPU machine. */
#define GEMM_IMPLEMENTATION
#include "../../gemm_cuda.cuh"
#include "../../tests/battery.h"
#include "cuda_kernels.cuh"

#include <cublas_v2.h>

static const int s_variants[] = {1, 2, 3, 4, 5, 6, 7, 8}, d_variants[] = {1, 3, 4, 7};

#define CHECK_CUDA(call)                                                                                               \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) { fprintf(stderr, "cuda_variants: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } \
    } while (0)

/* ---- the benchmark ---- */

static cublasHandle_t handle;

/* who = 0: variant v, 1: cuBLAS (column-major: C^T = B^T A^T). Row-major NN. */
static gemm_status call(int who, int v, int dbl, battery_shape s, const void *A, const void *B, void *C)
{
    cublasStatus_t cs;
    if (who == 0)
        return dbl ? research_gemm<double>(v, 0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, 1.0,
                                           (const double *)A, s.k, (const double *)B, s.n, 0.0, (double *)C, s.n, 0)
                   : research_gemm<float>(v, 0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, 1.0f,
                                          (const float *)A, s.k, (const float *)B, s.n, 0.0f, (float *)C, s.n, 0);
    if (dbl) {
        double one = 1, zero = 0;
        cs = cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)s.n, (int)s.m, (int)s.k, &one, (const double *)B,
                         (int)s.n, (const double *)A, (int)s.k, &zero, (double *)C, (int)s.n);
    } else {
        float one = 1, zero = 0;
        cs = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)s.n, (int)s.m, (int)s.k, &one, (const float *)B,
                         (int)s.n, (const float *)A, (int)s.k, &zero, (float *)C, (int)s.n);
    }
    if (cs != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cuda_variants: cuBLAS failed\n"); exit(1); }
    return GEMM_OK;
}

/* Seconds of one call by CUDA events; negative when ours refused it. */
static double timed(int who, int v, int dbl, battery_shape s, const void *A, const void *B, void *C)
{
    cudaEvent_t e0, e1;
    float ms;
    gemm_status st;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    CHECK_CUDA(cudaEventRecord(e0, 0));
    st = call(who, v, dbl, s, A, B, C);
    CHECK_CUDA(cudaEventRecord(e1, 0));
    CHECK_CUDA(cudaEventSynchronize(e1));
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (st != GEMM_OK) fprintf(stderr, "cuda_variants: variant %d: %s\n", v, gemm_last_error_detail());
    return st == GEMM_OK ? ms * 1e-3 : -1;
}

/* battery_read_fn for a result on the device. */
typedef struct device_c {
    const void *data;
    int dbl;
} device_c;

static double read_device(void *ctx, size_t index)
{
    const device_c *c = (const device_c *)ctx;
    double d = 0;
    float f = 0;
    if (c->dbl) CHECK_CUDA(cudaMemcpy(&d, (const double *)c->data + index, 8, cudaMemcpyDeviceToHost));
    else CHECK_CUDA(cudaMemcpy(&f, (const float *)c->data + index, 4, cudaMemcpyDeviceToHost));
    return c->dbl ? d : f;
}

/* One variant on one shape; returns 0 when its result was wrong or refused. */
static int bench_one(int v, int dbl, battery_shape s, const battery_buf *A, const battery_buf *B, void *dA, void *dB,
                     void *dC, int quick, FILE *csv)
{
    double t[2][32], tf[2][3], flops = 2.0 * (double)s.m * (double)s.n * (double)s.k, first;
    size_t elem = dbl ? 8 : 4;
    int reps, r, who, ok;
    device_c result = {dC, dbl};
    char kname[32];
    snprintf(kname, sizeof kname, "%s.v%d", dbl ? "dmma" : "simt", v);
    CHECK_CUDA(cudaMemset(dC, 0xff, (size_t)(s.m * s.n) * elem)); /* NaN: every element must be written */
    first = timed(0, v, dbl, s, dA, dB, dC);
    if (first < 0) return 0;
    ok = battery_sampled_ok(dbl ? GEMM_F64 : GEMM_F32, GEMM_NO_TRANS, GEMM_NO_TRANS, s, A, B, read_device, &result);
    timed(1, v, dbl, s, dA, dB, dC);
    reps = quick ? 3 : (int)(0.5 / (first + 1e-9));
    reps = reps < 3 ? 3 : reps > 30 ? 30 : reps;
    for (r = 0; r < reps; r++)
        for (who = 0; who < 2; who++) t[who][r] = timed(who, v, dbl, s, dA, dB, dC);
    for (who = 0; who < 2; who++) {
        battery_sort(t[who], reps);
        tf[who][0] = flops / t[who][reps / 2] * 1e-12;
        tf[who][1] = flops / t[who][reps - 1] * 1e-12;
        tf[who][2] = flops / t[who][0] * 1e-12;
    }
    printf("%6lld %6lld %6lld | %-7s | %6.2f [%6.2f-%6.2f]%s | %6.2f [%6.2f-%6.2f] | %.2f\n", (long long)s.m,
           (long long)s.n, (long long)s.k, kname, tf[0][0], tf[0][1], tf[0][2], ok ? " " : "!", tf[1][0], tf[1][1],
           tf[1][2], tf[0][0] / tf[1][0]);
    if (csv)
        fprintf(csv, "cuda,%s,%s,%lld,%lld,%lld,%.3f,%.3f,%.3f,cublas,%.3f,%.3f,%.3f,%.3f\n", dbl ? "f64" : "f32", kname,
                (long long)s.m, (long long)s.n, (long long)s.k, tf[0][0], tf[0][1], tf[0][2], tf[1][0], tf[1][1],
                tf[1][2], tf[0][0] / tf[1][0]);
    fflush(stdout);
    return ok;
}

/* Every listed variant of one precision on every shape; returns the wrong ones. */
static int bench_prec(int dbl, const int64_t *variants, int nvariants, const battery_shape *shapes, int nshapes,
                      int quick, FILE *csv)
{
    int si, vi, wrong = 0;
    printf("\n%s\n%6s %6s %6s | %-7s | %-22s | %-22s | %s\n", dbl ? "fp64 (DMMA variants)" : "fp32 (SIMT variants)",
           "m", "n", "k", "kernel", "gemm", "cuBLAS", "ratio");
    for (si = 0; si < nshapes; si++) {
        battery_shape s = shapes[si];
        uint64_t state = 42;
        battery_buf A = battery_buf_new(dbl ? GEMM_F64 : GEMM_F32, (size_t)(s.m * s.k));
        battery_buf B = battery_buf_new(dbl ? GEMM_F64 : GEMM_F32, (size_t)(s.k * s.n));
        size_t elem = dbl ? 8 : 4;
        void *dA, *dB, *dC;
        battery_fill(&A, &state);
        battery_fill(&B, &state);
        CHECK_CUDA(cudaMalloc(&dA, A.count * elem));
        CHECK_CUDA(cudaMalloc(&dB, B.count * elem));
        CHECK_CUDA(cudaMalloc(&dC, (size_t)(s.m * s.n) * elem));
        CHECK_CUDA(cudaMemcpy(dA, A.data, A.count * elem, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dB, B.data, B.count * elem, cudaMemcpyHostToDevice));
        for (vi = 0; vi < nvariants; vi++)
            if (!bench_one((int)variants[vi], dbl, s, &A, &B, dA, dB, dC, quick, csv)) {
                fprintf(stderr, "cuda_variants: %s variant %d is WRONG or refused at %lldx%lldx%lld\n",
                        dbl ? "dmma" : "simt", (int)variants[vi], (long long)s.m, (long long)s.n, (long long)s.k);
                wrong++;
            }
        cudaFree(dA);
        cudaFree(dB);
        cudaFree(dC);
        battery_buf_free(&A);
        battery_buf_free(&B);
    }
    return wrong;
}

/* ---- the quick battery ---- */

typedef struct variant_ctx {
    int v, split_k;
} variant_ctx;

static void *to_device(const void *host, size_t bytes)
{
    void *d = NULL;
    if (!host) return NULL;
    CHECK_CUDA(cudaMalloc(&d, bytes ? bytes : 16));
    if (bytes) CHECK_CUDA(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* Elements the battery's buffer holds for this matrix (invalid calls are
   clamped to what the buffers cover). */
static size_t extent_of(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    return battery_extent(layout == GEMM_COL_MAJOR ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR, rows, cols, ld < 1 ? 1 : ld);
}

/* A battery adapter: the caller's buffers to the device, the variant, all
   of C back (a write outside the window would show). */
template <typename T>
static gemm_status run_variant(void *vctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                               int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta,
                               T *C, int64_t ldc)
{
    const variant_ctx *ctx = (const variant_ctx *)vctx;
    bool nt_a = ta != GEMM_TRANS, nt_b = tb != GEMM_TRANS;
    size_t na = extent_of(layout, nt_a ? m : k, nt_a ? k : m, lda) * sizeof(T);
    size_t nb = extent_of(layout, nt_b ? k : n, nt_b ? n : k, ldb) * sizeof(T);
    size_t nc = extent_of(layout, m, n, ldc) * sizeof(T);
    T *dA = (T *)to_device(A, na), *dB = (T *)to_device(B, nb), *dC = (T *)to_device(C, nc);
    gemm_status s = research_gemm<T>(ctx->v, 0, layout, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc,
                                     ctx->split_k);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess && C && nc) e = cudaMemcpy(C, dC, nc, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) { /* a fault poisons the context: stop here */
        printf("FAIL CUDA error after the call: %s\n", cudaGetErrorString(e));
        battery_failed++;
        exit(battery_summary());
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return s;
}

static gemm_status variant_s(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                             float beta, float *C, int64_t ldc)
{
    return run_variant<float>(ctx, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static gemm_status variant_d(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                             double beta, double *C, int64_t ldc)
{
    return run_variant<double>(ctx, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* One variant: the random battery and the edges, then larger aligned
   shapes in every layout case (split-K off for shapes 0 and 2, automatic
   for 1 and 3; shape 3 padded). */
static void test_variant(int v, int dbl, int max_dim)
{
    static const int64_t shapes[][3] = {{257, 300, 520}, {129, 263, 777}, {300, 129, 64}, {260, 256, 264}};
    gemm_precision prec = dbl ? GEMM_F64 : GEMM_F32;
    variant_ctx ctx = {v, 0};
    battery_backend be;
    char name[64];
    int before = battery_failed, si, li, ai, bi;
    memset(&be, 0, sizeof be);
    snprintf(name, sizeof name, "research %s variant %d", dbl ? "dmma" : "simt", v);
    be.name = name;
    be.sgemm = variant_s;
    be.dgemm = variant_d;
    be.ctx = &ctx;
    be.cases = 6;
    be.max_dim = max_dim;
    battery_random(&be, prec);
    battery_edges(&be, prec);
    for (si = 0; si < 4; si++)
        for (li = 0; li < 8; li++) {
            battery_call c;
            ai = li >> 1 & 1;
            bi = li & 1;
            ctx.split_k = si % 2 ? 0 : 1;
            c.layout = battery_layouts[li >> 2];
            c.ta = battery_transposes[ai];
            c.tb = battery_transposes[bi];
            c.m = shapes[si][0]; c.n = shapes[si][1]; c.k = shapes[si][2];
            c.alpha = 0.75; c.beta = (si + bi) % 2 ? -0.5 : 0.0;
            battery_min_lds(&c);
            c.lda = (c.lda + 3) / 4 * 4; c.ldb = (c.ldb + 3) / 4 * 4; c.ldc = (c.ldc + 3) / 4 * 4;
            if (si == 3) { c.lda += 4; c.ldb += 8; c.ldc += 4; } /* padded, still 16-byte aligned */
            battery_case(&be, prec, &c, 3000u + (uint64_t)si);
        }
    printf("== %s: %s\n", name, battery_failed == before ? "all passed" : "FAILURES above");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int64_t variants[16];
    battery_shape shapes[64];
    int nvariants = 0, nshapes = 0, quick = 0, test = 0, max_dim = 300, count = 0, i, wrong = 0, f32 = 1, f64 = 1;
    const char *csv_path = NULL;
    FILE *csv = NULL;
    struct cudaDeviceProp prop;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--test")) {
            test = 1;
            if (i + 1 < argc && argv[i + 1][0] != '-') max_dim = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--variants") && i + 1 < argc) nvariants = battery_parse_list(argv[++i], variants, 16);
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) nshapes = battery_parse_shapes(argv[++i], shapes, 64);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) {
            f32 = strstr(argv[i + 1], "f32") != NULL;
            f64 = strstr(argv[++i], "f64") != NULL;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else {
            fprintf(stderr, "usage: %s [--prec f32,f64] [--variants v,...] [--shapes m:n:k,...] [--quick] [--csv FILE]\n"
                            "       %s --test [MAX_DIM]\n", argv[0], argv[0]);
            return 2;
        }
    }
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIPPED cuda_variants: no CUDA device here\n0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("research variants on %s (cc %d.%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    if (test) {
        for (i = 0; f32 && i < 8; i++) test_variant(s_variants[i], 0, max_dim);
        for (i = 0; f64 && i < 4; i++) test_variant(d_variants[i], 1, max_dim);
        return battery_summary();
    }
    if (nshapes == 0) {
        static const battery_shape def[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 4096, 256},
                                            {256, 4096, 4096}, {4096, 256, 4096}, {1000, 1000, 1000}};
        nshapes = 6;
        memcpy(shapes, def, sizeof def);
    }
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublasCreate failed\n"); return 1; }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "backend,precision,kernel,m,n,k,ours_tflops,ours_min,ours_max,peer,peer_tflops,peer_min,peer_max,ratio\n");
    for (i = 0; i < 2; i++) {
        int dbl = i, n = nvariants;
        int64_t list[16];
        if (!(dbl ? f64 : f32)) continue;
        if (n == 0) {
            n = dbl ? 4 : 8;
            for (int j = 0; j < n; j++) list[j] = dbl ? d_variants[j] : s_variants[j];
        } else
            memcpy(list, variants, sizeof list);
        wrong += bench_prec(dbl, list, n, shapes, nshapes, quick, csv);
    }
    if (csv) fclose(csv);
    cublasDestroy(handle);
    if (wrong) printf("\n%d WRONG or refused results (see above)\n", wrong);
    return wrong ? 1 : 0;
}
