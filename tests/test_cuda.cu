/* tests/test_cuda.cu - the CUDA backend through the differential battery
   (tests/battery.h): every kernel on device pointers, and the three
   host-pointer modes, against the reference on the host; then the CUDA-only
   checks (host pointers refused, bad options, the timing breakdown, larger
   shapes with and without split-K). Needs a GPU. Last line: N passed, N failed.

   GEMM_CUDA_TEST_SMALL=1 runs a small battery (for compute-sanitizer).
   (The research configurations of the SIMT and DMMA kernels have their own
   quick battery: bench/research/cuda_variants.cu --test.) */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "battery.h"

/* A battery adapter: copies the caller's host buffers to the device, runs
   gemm_cuda_?gemm with these options, copies all of C back (so a write
   outside the m x n window would show), and reports kernel faults. */
typedef struct cuda_ctx {
    gemm_cuda_options opt;
    int host; /* 1: call the _host API directly */
} cuda_ctx;

/* Elements the battery's buffer holds for this matrix; the adapter never
   knows more than the call says, so invalid calls are clamped to something
   the buffers cover (the battery's buffers are at least that big). */
static size_t extent_of(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (ld < 1) ld = 1;
    return battery_extent(layout == GEMM_COL_MAJOR ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR, rows, cols, ld);
}

static void *to_device(const void *host, size_t bytes, int *ok)
{
    void *d = NULL;
    if (!host) return NULL;
    if (cudaMalloc(&d, bytes ? bytes : 16) != cudaSuccess) { *ok = 0; return NULL; }
    if (bytes && cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) *ok = 0;
    return d;
}

template <typename T>
static gemm_status run_cuda(void *vctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                            int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta,
                            T *C, int64_t ldc)
{
    cuda_ctx *ctx = (cuda_ctx *)vctx;
    bool nt_a = ta != GEMM_TRANS, nt_b = tb != GEMM_TRANS;
    size_t na = extent_of(layout, nt_a ? m : k, nt_a ? k : m, lda) * sizeof(T);
    size_t nb = extent_of(layout, nt_b ? k : n, nt_b ? n : k, ldb) * sizeof(T);
    size_t nc = extent_of(layout, m, n, ldc) * sizeof(T);
    int ok = 1;
    T *dA, *dB, *dC;
    gemm_status s;
    cudaError_t e;

    if (ctx->host)
        return sizeof(T) == 4
            ? gemm_cuda_sgemm_host(layout, ta, tb, m, n, k, (float)alpha, (const float *)A, lda, (const float *)B, ldb,
                                   (float)beta, (float *)C, ldc, &ctx->opt)
            : gemm_cuda_dgemm_host(layout, ta, tb, m, n, k, (double)alpha, (const double *)A, lda,
                                   (const double *)B, ldb, (double)beta, (double *)C, ldc, &ctx->opt);
    dA = (T *)to_device(A, na, &ok);
    dB = (T *)to_device(B, nb, &ok);
    dC = (T *)to_device(C, nc, &ok);
    if (!ok) { fprintf(stderr, "test_cuda: cannot stage buffers on the device\n"); exit(2); }
    s = sizeof(T) == 4
        ? gemm_cuda_sgemm(0, layout, ta, tb, m, n, k, (float)alpha, (const float *)dA, lda, (const float *)dB, ldb,
                          (float)beta, (float *)dC, ldc, &ctx->opt)
        : gemm_cuda_dgemm(0, layout, ta, tb, m, n, k, (double)alpha, (const double *)dA, lda, (const double *)dB,
                          ldb, (double)beta, (double *)dC, ldc, &ctx->opt);
    e = cudaDeviceSynchronize();
    if (e == cudaSuccess && C && nc) e = cudaMemcpy(C, dC, nc, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        /* A fault poisons the context: report it and stop here. */
        printf("FAIL CUDA error after the call: %s\n", cudaGetErrorString(e));
        battery_failed++;
        exit(battery_summary());
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return s;
}

static gemm_status cuda_s(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                          int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                          float beta, float *C, int64_t ldc)
{
    return run_cuda<float>(ctx, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static gemm_status cuda_d(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                          int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                          double beta, double *C, int64_t ldc)
{
    return run_cuda<double>(ctx, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* One battery over one configuration; fp64_only for DMMA. */
static void battery_cuda(const char *name, gemm_cuda_kernel kernel, gemm_cuda_mode mode, int host, int split_k,
                         int fp64_only, int cases, int max_dim)
{
    static cuda_ctx ctxs[32];
    static int used;
    cuda_ctx *ctx = &ctxs[used++];
    battery_backend be;
    memset(ctx, 0, sizeof *ctx);
    memset(&be, 0, sizeof be);
    ctx->opt.kernel = kernel;
    ctx->opt.mode = mode;
    ctx->opt.split_k = split_k;
    ctx->host = host;
    be.name = name;
    be.sgemm = cuda_s;
    be.dgemm = cuda_d;
    be.ctx = ctx;
    be.cases = cases;
    be.max_dim = max_dim;
    if (!fp64_only) { battery_run(&be); return; }
    printf("== %s: seed %llu (fp64 only: the kernel has no fp32)\n", name, (unsigned long long)battery_base_seed());
    {
        int before = battery_failed;
        battery_random(&be, GEMM_F64);
        battery_edges(&be, GEMM_F64);
        battery_invalid(&be, GEMM_F64);
        printf("== %s: %s\n", name, battery_failed == before ? "all passed" : "FAILURES above");
    }
}

/* Shapes past the battery's 300: several K-tiles, split-K on and off, odd sizes. */
static void test_larger(int small)
{
    static const int64_t big[][3] = {{1000, 1000, 1000}, {129, 1031, 777}, {2049, 63, 517}, {64, 64, 4099}};
    static const int64_t tiny[][3] = {{131, 67, 300}}; /* under compute-sanitizer */
    const int64_t(*shapes)[3] = small ? tiny : big;
    static const gemm_cuda_kernel kernels[] = {GEMM_CUDA_KERNEL_SIMT, GEMM_CUDA_KERNEL_DMMA};
    int si, ki, sk, li, ai, bi, count = small ? 1 : 4;
    for (si = 0; si < count; si++)
        for (ki = 0; ki < 2; ki++)
            for (sk = 0; sk < 2; sk++)
                for (li = 0; li < 2; li++)
                    for (ai = 0; ai < 2; ai++)
                        for (bi = 0; bi < 2; bi++) {
                            cuda_ctx ctx;
                            battery_backend be;
                            battery_call c;
                            char name[64];
                            memset(&ctx, 0, sizeof ctx);
                            memset(&be, 0, sizeof be);
                            ctx.opt.kernel = kernels[ki];
                            ctx.opt.split_k = sk ? 0 : 1;
                            snprintf(name, sizeof name, "cuda %s split_k=%s", gemm_cuda_kernel_name(kernels[ki]),
                                     sk ? "auto" : "1");
                            be.name = name;
                            be.sgemm = cuda_s;
                            be.dgemm = cuda_d;
                            be.ctx = &ctx;
                            c.layout = battery_layouts[li];
                            c.ta = battery_transposes[ai];
                            c.tb = battery_transposes[bi];
                            c.m = shapes[si][0]; c.n = shapes[si][1]; c.k = shapes[si][2];
                            c.alpha = 0.75; c.beta = (si + ai) % 2 ? -0.5 : 0.0;
                            battery_min_lds(&c);
                            if (bi) { c.lda += 3; c.ldb += 1; c.ldc += 5; } /* unaligned: element-sized copies */
                            if (ki == 0) battery_case(&be, GEMM_F32, &c, 1000u + (uint64_t)si);
                            battery_case(&be, GEMM_F64, &c, 2000u + (uint64_t)si);
                        }
}

static void test_cuda_specific(void)
{
    float *h = (float *)calloc(64, sizeof(float)), *d = NULL;
    gemm_cuda_options o;
    gemm_timing t;
    gemm_status s;
    int i;
    memset(&o, 0, sizeof o);
    cudaMalloc((void **)&d, 64 * sizeof(float));

    s = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, h, 4, d, 4, 0, d + 16, 4, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "host pointer"),
                  "cuda: a host pointer for A is refused, not dereferenced: \"%s\"", gemm_last_error_detail());
    s = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, d, 4, d, 4, 0, h, 4, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "C is a host pointer"),
                  "cuda: a host pointer for C is refused: \"%s\"", gemm_last_error_detail());
    o.kernel = (gemm_cuda_kernel)99;
    s = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, d, 4, d, 4, 0, d + 16, 4, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "options.kernel"),
                  "cuda: options.kernel = 99 is refused");
    o.kernel = GEMM_CUDA_KERNEL_SIMT;
    o.variant = 99;
    s = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, d, 4, d, 4, 0, d + 16, 4, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "options.variant"),
                  "cuda: options.variant = 99 is refused");
    o.variant = 0;
    o.kernel = GEMM_CUDA_KERNEL_DMMA;
    s = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, d, 4, d, 4, 0, d + 16, 4, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "fp64 only"),
                  "cuda: the DMMA kernel refuses fp32");
    memset(&o, 0, sizeof o);
    o.math = (gemm_cuda_math)3;
    s = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, d, 4, d, 4, 0, d + 16, 4, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "options.math"),
                  "cuda: an unknown math mode is refused");
    memset(&o, 0, sizeof o);
    o.mode = (gemm_cuda_mode)7;
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, h, 4, h, 4, 0, h + 16, 4, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "options.mode"),
                  "cuda: an unknown host mode is refused");
    memset(&o, 0, sizeof o);
    o.device = 999;
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, h, 4, h, 4, 0, h + 16, 4, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "devices"),
                  "cuda: a device index past the last device is refused: \"%s\"", gemm_last_error_detail());

    for (i = 0; i < 3; i++) {
        float *A = (float *)malloc(sizeof(float) * 300 * 300), *C = (float *)malloc(sizeof(float) * 300 * 300);
        uint64_t st = 5;
        int j;
        for (j = 0; j < 300 * 300; j++) A[j] = (float)battery_uniform(&st);
        memset(&o, 0, sizeof o);
        memset(&t, 0xff, sizeof t);
        o.mode = (gemm_cuda_mode)i;
        o.timing = &t;
        s = gemm_cuda_sgemm_host(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 300, 300, 300, 1, A, 300, A, 300, 0, C,
                                 300, &o);
        battery_check(s == GEMM_OK && t.compute_s > 0 && t.to_device_s >= 0 && t.from_device_s >= 0 &&
                          t.compute_s < 10,
                      "cuda host mode %d fills the timing: h2d %.3f kernel %.3f d2h %.3f ms", i, t.to_device_s * 1e3,
                      t.compute_s * 1e3, t.from_device_s * 1e3);
        free(A);
        free(C);
    }
    battery_check(strcmp(gemm_cuda_kernel_name(GEMM_CUDA_KERNEL_DMMA), "dmma") == 0 &&
                      gemm_cuda_auto_kernel(GEMM_F32, GEMM_CUDA_MATH_EXACT, 1024, 1024, 1024) == GEMM_CUDA_KERNEL_SIMT,
                  "cuda: kernel names; AUTO runs SIMT for fp32, %s for fp64",
                  gemm_cuda_kernel_name(gemm_cuda_auto_kernel(GEMM_F64, GEMM_CUDA_MATH_EXACT, 1024, 1024, 1024)));
    cudaFree(d);
    free(h);
}

int main(void)
{
    int count = 0, small = getenv("GEMM_CUDA_TEST_SMALL") != NULL;
    int cases = small ? 3 : 60, max_dim = small ? 80 : 300;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIPPED test_cuda: no CUDA device here\n0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    {
        struct cudaDeviceProp prop;
        cudaGetDeviceProperties(&prop, 0);
        printf("device: %s (compute capability %d.%d, %d SMs)\n", prop.name, prop.major, prop.minor,
               prop.multiProcessorCount);
    }
    test_cuda_specific();
    battery_cuda("cuda auto", GEMM_CUDA_KERNEL_AUTO, GEMM_CUDA_PAGEABLE, 0, 0, 0, small ? cases : 200, max_dim);
    battery_cuda("cuda simt", GEMM_CUDA_KERNEL_SIMT, GEMM_CUDA_PAGEABLE, 0, 0, 0, cases, max_dim);
    battery_cuda("cuda simt split_k=1", GEMM_CUDA_KERNEL_SIMT, GEMM_CUDA_PAGEABLE, 0, 1, 0, cases, max_dim);
    battery_cuda("cuda dmma", GEMM_CUDA_KERNEL_DMMA, GEMM_CUDA_PAGEABLE, 0, 0, 1, cases, max_dim);
    battery_cuda("cuda dmma split_k=1", GEMM_CUDA_KERNEL_DMMA, GEMM_CUDA_PAGEABLE, 0, 1, 1, cases, max_dim);
    battery_cuda("cuda naive", GEMM_CUDA_KERNEL_NAIVE, GEMM_CUDA_PAGEABLE, 0, 0, 0, small ? 1 : 20, max_dim);
    battery_cuda("cuda tiled16", GEMM_CUDA_KERNEL_TILED16, GEMM_CUDA_PAGEABLE, 0, 0, 0, small ? 1 : 20, max_dim);
    battery_cuda("cuda host pageable", GEMM_CUDA_KERNEL_AUTO, GEMM_CUDA_PAGEABLE, 1, 0, 0, cases, max_dim);
    battery_cuda("cuda host pinned", GEMM_CUDA_KERNEL_AUTO, GEMM_CUDA_PINNED, 1, 0, 0, cases, max_dim);
    battery_cuda("cuda host mapped", GEMM_CUDA_KERNEL_AUTO, GEMM_CUDA_MAPPED, 1, 0, 0, cases, max_dim);
    test_larger(small);
    return battery_summary();
}
