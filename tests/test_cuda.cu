/* tests/test_cuda.cu - the CUDA backend through the differential battery
   (tests/battery.h): every kernel and every configuration of the exact
   kernels (options.variant) on device pointers, and the three host-pointer
   modes, against the reference on the host; then the CUDA-only checks
   (host pointers refused, bad options and configurations, the timing
   breakdown, the paths the automatic choice takes, seen through
   gemm__cuda_exact_last(): operand copies, K splits, tile shapes; split-K
   off is bit-reproducible; stream-K forced on small grids; larger shapes with and without split-K,
   misaligned operands). Needs a GPU. Last line: N passed, N failed.

   GEMM_CUDA_TEST_SMALL=1 runs a small battery (for compute-sanitizer). */
#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "battery.h"

/* A battery adapter: copies the caller's host buffers to the device, runs
   gemm_cuda_?gemm with these options, copies all of C back (so a write
   outside the m x n window would show), and reports kernel faults. */
typedef struct cuda_ctx {
    gemm_cuda_options opt;
    int host;   /* 1: call the _host API directly */
    int offset; /* device pointers one element past an aligned base (copies of whole elements only) */
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

/* A device copy of `bytes` from `host`, `offset` bytes past cudaMalloc's
   (aligned) base; *base gets what to free. */
static void *to_device(const void *host, size_t bytes, size_t offset, void **base, int *ok)
{
    char *d = NULL;
    *base = NULL;
    if (!host) return NULL;
    if (cudaMalloc((void **)&d, bytes + offset + 16) != cudaSuccess) { *ok = 0; return NULL; }
    *base = d;
    if (bytes && cudaMemcpy(d + offset, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) *ok = 0;
    return d + offset;
}

template <typename T>
static gemm_status run_cuda(void *vctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                            int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta,
                            T *C, int64_t ldc)
{
    cuda_ctx *ctx = (cuda_ctx *)vctx;
    bool nt_a = ta == GEMM_NO_TRANS, nt_b = tb == GEMM_NO_TRANS; /* GEMM_CONJ_TRANS is a transpose */
    size_t na = extent_of(layout, nt_a ? m : k, nt_a ? k : m, lda) * sizeof(T);
    size_t nb = extent_of(layout, nt_b ? k : n, nt_b ? n : k, ldb) * sizeof(T);
    size_t nc = extent_of(layout, m, n, ldc) * sizeof(T);
    int ok = 1;
    T *dA, *dB, *dC;
    void *fA, *fB, *fC;
    gemm_status s;
    cudaError_t e;

    if (ctx->host)
        return sizeof(T) == 4
            ? gemm_cuda_sgemm_host(layout, ta, tb, m, n, k, (float)alpha, (const float *)A, lda, (const float *)B, ldb,
                                   (float)beta, (float *)C, ldc, &ctx->opt)
            : gemm_cuda_dgemm_host(layout, ta, tb, m, n, k, (double)alpha, (const double *)A, lda,
                                   (const double *)B, ldb, (double)beta, (double *)C, ldc, &ctx->opt);
    dA = (T *)to_device(A, na, ctx->offset ? sizeof(T) : 0, &fA, &ok);
    dB = (T *)to_device(B, nb, ctx->offset ? sizeof(T) : 0, &fB, &ok);
    dC = (T *)to_device(C, nc, ctx->offset ? sizeof(T) : 0, &fC, &ok);
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
    cudaFree(fA);
    cudaFree(fB);
    cudaFree(fC);
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

/* Which precisions a battery runs: both, or the one a kernel or configuration has. */
enum { BOTH = 0, F32_ONLY = 32, F64_ONLY = 64 };

/* One battery over one kernel and configuration (options.variant). */
static void battery_cuda(const char *name, gemm_cuda_kernel kernel, int variant, gemm_cuda_mode mode, int host,
                         int split_k, int precs, int cases, int max_dim)
{
    static cuda_ctx ctxs[48];
    static int used;
    cuda_ctx *ctx = &ctxs[used++];
    battery_backend be;
    memset(ctx, 0, sizeof *ctx);
    memset(&be, 0, sizeof be);
    ctx->opt.kernel = kernel;
    ctx->opt.variant = variant;
    ctx->opt.mode = mode;
    ctx->opt.split_k = split_k;
    ctx->host = host;
    be.name = name;
    be.sgemm = cuda_s;
    be.dgemm = cuda_d;
    be.ctx = ctx;
    be.cases = cases;
    be.max_dim = max_dim;
    if (precs == BOTH) { battery_run(&be); return; }
    printf("== %s: seed %llu (fp%d only: the configuration has no other)\n", name,
           (unsigned long long)battery_base_seed(), precs);
    {
        int before = battery_failed;
        gemm_precision prec = precs == F32_ONLY ? GEMM_F32 : GEMM_F64;
        battery_random(&be, prec);
        battery_edges(&be, prec);
        battery_invalid(&be, prec);
        printf("== %s: %s\n", name, battery_failed == before ? "all passed" : "FAILURES above");
    }
}

/* Shapes past the battery's 300: several K-tiles, split-K on and off, odd
   sizes, misaligned leading dimensions and bases; 2049 x 63 reaches the
   fp32 transposed copy of row-major NT. */
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
                            if (bi) { c.lda += 3; c.ldb += 1; c.ldc += 5; } /* unaligned: copies, or element-sized loads */
                            ctx.offset = li && bi; /* and misaligned bases */
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

/* Whether this GPU runs the sm_90a kernels (Hopper; the test is built with sm_90a). */
static int hopper(void)
{
    struct cudaDeviceProp prop;
    return cudaGetDeviceProperties(&prop, 0) == cudaSuccess && prop.major == 9 && prop.minor == 0;
}

/* options.variant: what each exact kernel accepts, and what this GPU runs. */
static void test_configurations_refused(void)
{
    static const struct { gemm_cuda_kernel kernel; int variant, bits; } bad[] = {
        {GEMM_CUDA_KERNEL_SIMT, 7, 32}, {GEMM_CUDA_KERNEL_SIMT, -1, 32}, {GEMM_CUDA_KERNEL_SIMT, 1, 64},
        {GEMM_CUDA_KERNEL_DMMA, 4, 64}, {GEMM_CUDA_KERNEL_AUTO, 1, 32}, {GEMM_CUDA_KERNEL_AUTO, 2, 64},
        {GEMM_CUDA_KERNEL_TILED16, 1, 32}};
    double *d = NULL;
    gemm_cuda_options o;
    gemm_status s;
    size_t i;
    cudaMalloc((void **)&d, 64 * sizeof(double));
    cudaMemset(d, 0, 64 * sizeof(double));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&o, 0, sizeof o);
        o.kernel = bad[i].kernel;
        o.variant = bad[i].variant;
        s = bad[i].bits == 32 ? gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1,
                                                (const float *)d, 4, (const float *)d, 4, 0, (float *)(d + 32), 4, &o)
                              : gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, d, 4, d,
                                                4, 0, d + 32, 4, &o);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "options.variant"),
                      "cuda: %s variant %d (fp%d) is refused: \"%s\"", gemm_cuda_kernel_name(bad[i].kernel),
                      bad[i].variant, bad[i].bits, gemm_last_error_detail());
    }
    for (i = 2; i <= 3; i++) {
        memset(&o, 0, sizeof o);
        o.kernel = GEMM_CUDA_KERNEL_DMMA;
        o.variant = (int)i;
        s = gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, d, 4, d, 4, 0, d + 32, 4, &o);
        if (hopper())
            battery_check(s == GEMM_OK && cudaDeviceSynchronize() == cudaSuccess, "cuda: DMMA variant %d runs on Hopper",
                          (int)i);
        else
            battery_check(s == GEMM_ERR_UNAVAILABLE && strstr(gemm_last_error_detail(), "sm_90a"),
                          "cuda: DMMA variant %d is refused without Hopper: \"%s\"", (int)i, gemm_last_error_detail());
    }
    cudaFree(d);
}

/* One call through the battery's check, then what ran: every string of
   `want` (NULL-terminated) must be in gemm__cuda_exact_last(). */
static void path_case(const char *what, gemm_precision prec, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                      int64_t m, int64_t n, int64_t k, int pad, int offset, int variant, int split_k,
                      const char *const *want)
{
    cuda_ctx ctx;
    battery_backend be;
    battery_call c;
    char name[96];
    const char *ran;
    int ok = 1, i;
    memset(&ctx, 0, sizeof ctx);
    memset(&be, 0, sizeof be);
    ctx.opt.kernel = variant ? (prec == GEMM_F32 ? GEMM_CUDA_KERNEL_SIMT : GEMM_CUDA_KERNEL_DMMA) : GEMM_CUDA_KERNEL_AUTO;
    ctx.opt.variant = variant;
    ctx.opt.split_k = split_k;
    ctx.offset = offset;
    snprintf(name, sizeof name, "cuda path (%s)", what);
    be.name = name;
    be.sgemm = cuda_s;
    be.dgemm = cuda_d;
    be.ctx = &ctx;
    c.layout = layout; c.ta = ta; c.tb = tb;
    c.m = m; c.n = n; c.k = k;
    c.alpha = 1.25; c.beta = m % 2 ? 0.0 : -0.75;
    battery_min_lds(&c);
    c.lda += pad; c.ldb += pad;
    battery_case(&be, prec, &c, 3000u + (uint64_t)m);
    ran = gemm__cuda_exact_last();
    for (i = 0; want[i]; i++) ok &= strstr(ran, want[i]) != NULL;
    battery_check(ok, "cuda path (%s): ran \"%s\"", what, ran);
}

/* The automatic choice reaches each configuration, copy and split (shapes
   from the plan's rules, exact_plan.cuh); forced ones run as named. */
static void test_paths(void)
{
    const gemm_layout R = GEMM_ROW_MAJOR, Cm = GEMM_COL_MAJOR;
    const gemm_transpose N = GEMM_NO_TRANS, T = GEMM_TRANS;
    int h = hopper();
#define WANT(...) (const char *const[]){__VA_ARGS__, NULL}
    /* fp32, row-major: canonical M = n, N = m, op(A) = B (k-major when B is transposed), op(B) = A;
       the large tiles where they fill their rounds of the SMs (132 on an H100 or H200) better than
       128 x 64 would (2048^3-like shapes) */
    path_case("f32 NN, 256x128", GEMM_F32, R, N, N, 2048, 2048, 64, 0, 0, 0, 0, WANT("simt 256x128 mk", "a:- b:-"));
    path_case("f32 NN, M <= 128", GEMM_F32, R, N, N, 33792, 72, 40, 0, 0, 0, 0, WANT("simt 128x128 mk"));
    path_case("f32 TT, 128x256", GEMM_F32, R, T, T, 2048, 2048, 64, 0, 0, 0, 0, WANT("simt 128x256 kn"));
    path_case("f32 TN, 16x8 threads", GEMM_F32, R, T, N, 2048, 2048, 16, 0, 0, 0, 0, WANT("simt 128x128/16x8 mn"));
    /* 128 x 128 tiles fewer than the SMs, K <= 2048: 128 x 64 or 64 x 128 with K whole */
    path_case("f32 TN, one partial wave: 128x64", GEMM_F32, R, T, N, 1000, 1000, 300, 0, 0, 0, 0, WANT("simt 128x64 mn", "split 1"));
    path_case("f32 NN, one partial wave: 128x64", GEMM_F32, R, N, N, 1000, 1000, 1000, 0, 0, 0, 0, WANT("simt 128x64 mk", "split 1"));
    /* the large tiles' last round idle (256 x 128: 72 tiles for 132 SMs): 128 x 64, 288 tiles */
    /* ... whose last round of the slots (264) leaves half the SMs idle or more: stream-K (24 of 288), else not
       (128 of 392) */
    path_case("f32 NN, 1536^3-like rounds: 128x64, stream-K", GEMM_F32, R, N, N, 1536, 1536, 64, 0, 0, 0, 0,
              WANT("simt 128x64 mk", "split 1 ", "stream-k"));
    path_case("f32 NN, 1792^3-like rounds: 128x64, whole tiles", GEMM_F32, R, N, N, 1792, 1792, 64, 0, 0, 0, 0,
              WANT("simt 128x64 mk", "split 1 grid 392 "));
    path_case("f32 NN, 1536^3-like rounds, split_k = 1: whole tiles", GEMM_F32, R, N, N, 1536, 1536, 64, 0, 0, 0, 1,
              WANT("simt 128x64 mk", "split 1 grid 288 "));
    path_case("f32 TT, one partial wave: 128x64", GEMM_F32, R, T, T, 1000, 1000, 520, 0, 0, 0, 0, WANT("simt 128x64 kn", "split 1"));
    path_case("f32 NN, 128x64 past one round: K in 2", GEMM_F32, R, N, N, 1100, 900, 1000, 0, 0, 0, 0,
              WANT("simt 128x64 mk", "split 2"));
    path_case("f32 NN, 128x64 at 200 tiles: K whole (4 rounds of halves)", GEMM_F32, R, N, N, 1280, 1280, 200, 0, 0, 0, 0,
              WANT("simt 128x64 mk", "split 1"));
    path_case("f32 NN, M <= 64: 64x128, K split to fill", GEMM_F32, Cm, N, N, 40, 300, 2000, 0, 0, 0, 0, WANT("simt 64x128 mk"));
    path_case("f32 TN, 128x64, K split to fill", GEMM_F32, R, T, N, 300, 300, 2000, 0, 0, 0, 0, WANT("simt 128x64 mn", "split 8"));
    path_case("f32 NN, one partial wave, K > 2048: 256x128", GEMM_F32, R, N, N, 128, 1100, 2100, 0, 0, 0, 0, WANT("simt 256x128 mk"));
    path_case("f32 forced 128x64, split 3", GEMM_F32, Cm, N, T, 200, 150, 300, 0, 0, 5, 3, WANT("simt 128x64 mn", "split 3"));
    path_case("f32 forced 64x128 NT", GEMM_F32, R, N, T, 150, 200, 100, 1, 0, 6, 0, WANT("simt 64x128 kk"));
    path_case("f32 NT in place", GEMM_F32, R, N, T, 2040, 2040, 40, 0, 0, 0, 0, WANT("simt 128x256 kk", "a:- b:-"));
    path_case("f32 NT, op(A) transposed", GEMM_F32, R, N, T, 2100, 72, 40, 0, 0, 0, 0, WANT("mk", "a:t b:-"));
    path_case("f32 NT, op(B) transposed", GEMM_F32, R, N, T, 72, 2100, 40, 0, 0, 0, 0, WANT("kn", "a:- b:t"));
    path_case("f32 col TN, op(B) transposed", GEMM_F32, Cm, T, N, 2100, 72, 40, 0, 0, 0, 0, WANT("kn", "a:- b:t"));
    path_case("f32 NT misaligned, transposed", GEMM_F32, R, N, T, 2100, 72, 40, 1, 0, 0, 0, WANT("a:t b:r"));
    path_case("f32 misaligned ld", GEMM_F32, R, N, N, 300, 600, 64, 1, 0, 0, 0, WANT("a:r b:r"));
    path_case("f32 misaligned base", GEMM_F32, Cm, T, T, 200, 300, 64, 0, 1, 0, 0, WANT("a:r b:r"));
    path_case("f32 forced 16x8, split 3", GEMM_F32, R, N, N, 100, 200, 300, 0, 0, 2, 3, WANT("128x128/16x8", "split 3"));
    path_case("f32 forced 256x128 NT", GEMM_F32, Cm, T, N, 300, 200, 100, 0, 0, 3, 0, WANT("256x128 kk"));
    /* fp64 */
    if (h) {
        path_case("f64 short, 128x64", GEMM_F64, R, N, N, 300, 300, 300, 0, 0, 0, 0, WANT("dmma tma 128x64 mk"));
        path_case("f64 long K, 128x128", GEMM_F64, R, N, N, 200, 300, 2100, 0, 0, 0, 0, WANT("dmma tma 128x128 mk"));
        /* 128 x 128 tiles for 60% of the SMs or more (100 of 132), K short: 128 x 128 all the same */
        path_case("f64 1200^2, 128x128", GEMM_F64, R, N, N, 1200, 1200, 40, 0, 0, 0, 0, WANT("dmma tma 128x128 mk"));
        path_case("f64 2048^2, 128x128", GEMM_F64, R, T, N, 2048, 2048, 40, 0, 0, 0, 0, WANT("dmma tma 128x128 mn"));
        /* 144 tiles of 128 x 128 on 132 SMs: stream-K evens out the last round; without it (split_k = 1)
           128 x 64, where 128 x 128 would idle over 40% of the SMs' rounds */
        path_case("f64 1536^2, stream-K: 128x128", GEMM_F64, R, N, N, 1536, 1536, 40, 0, 0, 0, 0,
                  WANT("dmma tma 128x128 mk", "split 1 grid 132 ", "stream-k"));
        path_case("f64 1536^2, split_k = 1: 128x64", GEMM_F64, R, N, N, 1536, 1536, 40, 0, 0, 0, 1,
                  WANT("dmma tma 128x64 mk"));
        /* the last round 48% full (196 tiles on 132 SMs): stream-K; 8 full rounds of 132 and 128 tiles: none */
        path_case("f64 1792^2, stream-K", GEMM_F64, Cm, N, N, 1792, 1792, 40, 0, 0, 0, 0,
                  WANT("dmma tma 128x128 mk", "split 1 ", "stream-k"));
        path_case("f64 NT, k-major X", GEMM_F64, R, N, T, 150, 130, 70, 0, 0, 0, 0, WANT("tma", "kk", "a:- b:-"));
        /* both k-major with a side of 1024 or more: the smaller operand transposed first */
        path_case("f64 NT, op(A) transposed", GEMM_F64, R, N, T, 1100, 72, 70, 0, 0, 0, 0, WANT("tma", "mk", "a:t b:-"));
        path_case("f64 NT, op(B) transposed", GEMM_F64, R, N, T, 72, 1100, 70, 0, 0, 0, 0, WANT("tma", "kn", "a:- b:t"));
        path_case("f64 NT misaligned, transposed", GEMM_F64, R, N, T, 1100, 72, 70, 1, 0, 0, 0, WANT("tma", "a:t b:r"));
        path_case("f64 forced 128x128 NT in place", GEMM_F64, R, N, T, 1100, 72, 70, 0, 0, 2, 0, WANT("tma", "kk", "a:- b:-"));
        path_case("f64 TT", GEMM_F64, R, T, T, 150, 130, 70, 0, 0, 0, 0, WANT("tma", "kn"));
        path_case("f64 TN", GEMM_F64, R, T, N, 150, 130, 70, 0, 0, 0, 0, WANT("tma", "mn"));
        path_case("f64 misaligned ld", GEMM_F64, Cm, N, T, 150, 130, 70, 1, 0, 0, 0, WANT("tma", "a:r b:r"));
        path_case("f64 misaligned base", GEMM_F64, R, T, N, 150, 130, 70, 0, 1, 0, 0, WANT("tma", "a:r b:r"));
        path_case("f64 forced 128x128, split 3", GEMM_F64, Cm, N, N, 150, 130, 700, 0, 0, 2, 3,
                  WANT("tma 128x128", "split 3"));
        path_case("f64 forced 128x64, split 1", GEMM_F64, Cm, T, T, 150, 130, 700, 0, 0, 3, 1,
                  WANT("tma 128x64", "split 1"));
    } else {
        path_case("f64 without Hopper: the ring", GEMM_F64, R, N, N, 300, 300, 300, 0, 0, 0, 0, WANT("dmma ring"));
    }
    path_case("f64 forced ring", GEMM_F64, R, N, T, 150, 130, 70, 1, 1, 1, 0, WANT("dmma ring"));
#undef WANT
}

/* split_k = 1: one K part (no atomics), the same bits on every run; the
   automatic split of the same shape (several parts) is checked against the
   reference. */
template <typename T> static void test_split_off(int small)
{
    const int64_t m = 128, n = 96, k = small ? 1024 : 8192;
    gemm_precision prec = sizeof(T) == 4 ? GEMM_F32 : GEMM_F64;
    battery_buf A = battery_buf_new(prec, (size_t)(m * k)), B = battery_buf_new(prec, (size_t)(k * n));
    battery_buf C[3], R = battery_buf_new(prec, (size_t)(m * n));
    battery_backend be;
    battery_call c = {GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, m, k, m, 1.0, 0.0};
    T *dA, *dB, *dC;
    gemm_cuda_options o;
    uint64_t st = 11;
    int run, ok = 1;
    char ran[3][160];
    double err;
    memset(&be, 0, sizeof be);
    battery_fill(&A, &st);
    battery_fill(&B, &st);
    cudaMalloc((void **)&dA, sizeof(T) * m * k);
    cudaMalloc((void **)&dB, sizeof(T) * k * n);
    cudaMalloc((void **)&dC, sizeof(T) * m * n);
    cudaMemcpy(dA, A.data, sizeof(T) * m * k, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data, sizeof(T) * k * n, cudaMemcpyHostToDevice);
    for (run = 0; run < 3; run++) {
        memset(&o, 0, sizeof o);
        o.split_k = run < 2 ? 1 : 0;
        C[run] = battery_buf_new(prec, (size_t)(m * n));
        ok &= (sizeof(T) == 4 ? gemm_cuda_sgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0f,
                                                (const float *)dA, m, (const float *)dB, k, 0.0f, (float *)dC, m, &o)
                              : gemm_cuda_dgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0,
                                                (const double *)dA, m, (const double *)dB, k, 0.0, (double *)dC, m,
                                                &o)) == GEMM_OK;
        ok &= cudaMemcpy(C[run].data, dC, sizeof(T) * m * n, cudaMemcpyDeviceToHost) == cudaSuccess;
        snprintf(ran[run], sizeof ran[run], "%s", gemm__cuda_exact_last());
    }
    ok &= memcmp(C[0].data, C[1].data, sizeof(T) * m * n) == 0;
    battery_check(ok && strstr(ran[0], "split 1 ") && strstr(ran[1], "split 1 "),
                  "cuda fp%d split_k = 1: one K part, bit-identical runs (\"%s\")", (int)sizeof(T) * 8, ran[0]);
    battery_invoke(NULL, prec, &c, A.data, B.data, R.data);
    err = battery_compare(&c, &C[2], &R);
    battery_check(!strstr(ran[2], "split 1 ") && err <= battery_bound(&be, prec, &c, battery_max_abs(&A),
                                                                        battery_max_abs(&B), 0),
                  "cuda fp%d automatic split-K: several parts (\"%s\"), error %.3g", (int)sizeof(T) * 8, ran[2], err);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    for (run = 0; run < 3; run++) battery_buf_free(&C[run]);
    battery_buf_free(&A); battery_buf_free(&B); battery_buf_free(&R);
}

/* Stream-K (device/stream_k.cuh), forced on small grids so that blocks
   share tiles: on the TMA DMMA kernel (fp64, Hopper) and the warp-tiled
   SIMT kernel's 128 x 64 and 64 x 128 blocks (fp32). Each shape's tiles
   are more than the blocks, every role runs (whole tiles before the last
   two rounds, a block's TAIL of one tile and HEAD of the next, whole
   tiles between), every layout, alpha and beta, tiles cut by C's edges;
   each result against the reference, run twice for the same bits, and
   the note says stream-K ran. Then the same shapes with the hook at -1:
   never. */
struct stream_k_shape {
    int64_t m, n, k;
    int variant, grid;
    gemm_transpose ta, tb;
};

template <typename T>
static void test_stream_k(gemm_precision prec, gemm_cuda_kernel kernel, const stream_k_shape *shapes, size_t count)
{
    battery_backend be;
    memset(&be, 0, sizeof be);
    for (size_t i = 0; i < count; i++) {
        const int64_t m = shapes[i].m, n = shapes[i].n, k = shapes[i].k;
        battery_call c = {GEMM_COL_MAJOR, shapes[i].ta, shapes[i].tb, m, n, k, 0, 0, m, -1.25, 0.5};
        c.lda = shapes[i].ta == GEMM_NO_TRANS ? m : k;
        c.ldb = shapes[i].tb == GEMM_NO_TRANS ? k : n;
        battery_buf A = battery_buf_new(prec, (size_t)(m * k)), B = battery_buf_new(prec, (size_t)(k * n));
        battery_buf C0 = battery_buf_new(prec, (size_t)(m * n)), R = battery_buf_new(prec, (size_t)(m * n));
        battery_buf C[3];
        T *dA, *dB, *dC;
        double err;
        char ran[3][160];
        int ok = 1;
        uint64_t st = 77 + i;
        battery_fill(&A, &st);
        battery_fill(&B, &st);
        battery_fill(&C0, &st);
        memcpy(R.data, C0.data, sizeof(T) * m * n);
        cudaMalloc((void **)&dA, sizeof(T) * m * k);
        cudaMalloc((void **)&dB, sizeof(T) * k * n);
        cudaMalloc((void **)&dC, sizeof(T) * m * n);
        cudaMemcpy(dA, A.data, sizeof(T) * m * k, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, B.data, sizeof(T) * k * n, cudaMemcpyHostToDevice);
        for (int run = 0; run < 3; run++) {
            gemm_cuda_options o;
            memset(&o, 0, sizeof o);
            o.kernel = kernel;
            o.variant = shapes[i].variant;
            gemm__test_hooks()->cuda_stream_k = run < 2 ? shapes[i].grid : -1;
            C[run] = battery_buf_new(prec, (size_t)(m * n));
            ok &= cudaMemcpy(dC, C0.data, sizeof(T) * m * n, cudaMemcpyHostToDevice) == cudaSuccess;
            if constexpr (sizeof(T) == 8)
                ok &= gemm_cuda_dgemm(0, GEMM_COL_MAJOR, c.ta, c.tb, m, n, k, c.alpha, dA, c.lda, dB, c.ldb, c.beta,
                                      dC, m, &o) == GEMM_OK;
            else
                ok &= gemm_cuda_sgemm(0, GEMM_COL_MAJOR, c.ta, c.tb, m, n, k, (float)c.alpha, dA, c.lda, dB, c.ldb,
                                      (float)c.beta, dC, m, &o) == GEMM_OK;
            ok &= cudaDeviceSynchronize() == cudaSuccess;
            ok &= cudaMemcpy(C[run].data, dC, sizeof(T) * m * n, cudaMemcpyDeviceToHost) == cudaSuccess;
            snprintf(ran[run], sizeof ran[run], "%s", gemm__cuda_exact_last());
        }
        gemm__test_hooks()->cuda_stream_k = 0;
        battery_invoke(NULL, prec, &c, A.data, B.data, R.data);
        err = battery_compare(&c, &C[0], &R);
        double bound = battery_bound(&be, prec, &c, battery_max_abs(&A), battery_max_abs(&B), battery_max_abs(&C0));
        battery_check(ok && err <= bound && strstr(ran[0], "stream-k") && strstr(ran[1], "stream-k"),
                      "cuda %s stream-K %lld x %lld x %lld on %d blocks: error %.3g (bound %.3g), ran \"%s\"",
                      sizeof(T) == 8 ? "f64" : "f32", (long long)m, (long long)n, (long long)k, shapes[i].grid, err,
                      bound, ran[0]);
        battery_check(memcmp(C[0].data, C[1].data, sizeof(T) * m * n) == 0,
                      "cuda %s stream-K %lld x %lld x %lld: two runs give the same bits", sizeof(T) == 8 ? "f64" : "f32",
                      (long long)m, (long long)n, (long long)k);
        err = battery_compare(&c, &C[2], &R);
        battery_check(err <= bound && !strstr(ran[2], "stream-k"),
                      "cuda %s stream-K off (hook -1) %lld x %lld x %lld: error %.3g, ran \"%s\"",
                      sizeof(T) == 8 ? "f64" : "f32", (long long)m, (long long)n, (long long)k, err, ran[2]);
        cudaFree(dA); cudaFree(dB); cudaFree(dC);
        for (int run = 0; run < 3; run++) battery_buf_free(&C[run]);
        battery_buf_free(&A); battery_buf_free(&B); battery_buf_free(&C0); battery_buf_free(&R);
    }
}

/* Stream-K on the whole grid, every block sharing tiles with its
   neighbours: 1536^3 (fp32 AUTO: 288 tiles of 128 x 64 on 264 blocks;
   fp64 AUTO: 144 of 128 x 128 on 132; fp64 `variant` 3: 288 of 128 x 64
   on 132), run `repeats` times, every run the same bits as the first and
   within the error bound of the run without stream-K (hook -1) at every
   element: a race between the blocks that share a tile shows as runs that
   differ (on the H200 the fp64 128 x 64 tiles on 264 blocks differed in
   every run). */
template <typename T> static void test_stream_k_full(gemm_precision prec, int variant, int repeats)
{
    const int64_t n = 1536;
    const size_t count = (size_t)(n * n);
    battery_buf A = battery_buf_new(prec, count), B = battery_buf_new(prec, count);
    T *dA, *dB, *dC, *first = (T *)malloc(sizeof(T) * count), *now = (T *)malloc(sizeof(T) * count);
    double eps = sizeof(T) == 8 ? DBL_EPSILON : FLT_EPSILON, worst = 0;
    int ok = first && now, same = 1, ran_sk = 1;
    uint64_t st = 1536;
    battery_fill(&A, &st);
    battery_fill(&B, &st);
    cudaMalloc((void **)&dA, sizeof(T) * count);
    cudaMalloc((void **)&dB, sizeof(T) * count);
    cudaMalloc((void **)&dC, sizeof(T) * count);
    cudaMemcpy(dA, A.data, sizeof(T) * count, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data, sizeof(T) * count, cudaMemcpyHostToDevice);
    for (int run = 0; ok && run <= repeats; run++) { /* the last run without stream-K */
        gemm_cuda_options o;
        memset(&o, 0, sizeof o);
        if (variant) {
            o.kernel = sizeof(T) == 8 ? GEMM_CUDA_KERNEL_DMMA : GEMM_CUDA_KERNEL_SIMT;
            o.variant = variant;
        }
        gemm__test_hooks()->cuda_stream_k = run < repeats ? 0 : -1;
        ok &= cudaMemset(dC, 0xff, sizeof(T) * count) == cudaSuccess; /* NaN: every element must be written */
        if constexpr (sizeof(T) == 8)
            ok &= gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, dA, n, dB, n, 0.0, dC,
                                  n, &o) == GEMM_OK;
        else
            ok &= gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, dA, n, dB, n, 0.0f,
                                  dC, n, &o) == GEMM_OK;
        ok &= cudaMemcpy(run ? now : first, dC, sizeof(T) * count, cudaMemcpyDeviceToHost) == cudaSuccess;
        if (run < repeats) ran_sk &= strstr(gemm__cuda_exact_last(), "stream-k") != NULL;
        if (run > 0 && run < repeats) same &= memcmp(first, now, sizeof(T) * count) == 0;
        if (run == repeats)
            for (size_t i = 0; i < count; i++) {
                double d = fabs((double)first[i] - (double)now[i]);
                if (!(d <= worst)) worst = d; /* NaN included */
            }
    }
    gemm__test_hooks()->cuda_stream_k = 0;
    battery_check(ok && ran_sk && same && worst <= 2 * eps * (double)n,
                  "cuda %s variant %d stream-K 1536^3 on the whole grid, %d runs: %s, the same bits %s, largest "
                  "difference from whole tiles %.3g (bound %.3g)", sizeof(T) == 8 ? "f64" : "f32", variant, repeats,
                  ran_sk ? "stream-k ran" : "stream-k did NOT run", same ? "every run" : "NOT every run", worst,
                  2 * eps * (double)n);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(first); free(now);
    battery_buf_free(&A); battery_buf_free(&B);
}

static void test_stream_k_both(int small)
{
    static const stream_k_shape f32[] = {
        {300, 200, 333, 5, 5, GEMM_NO_TRANS, GEMM_NO_TRANS}, /* 128 x 64: 12 tiles on 5 blocks, 5 whole */
        {260, 400, 57, 5, 5, GEMM_NO_TRANS, GEMM_TRANS},     /* 21 on 5, K of 4 steps */
        {131, 67, 1000, 6, 2, GEMM_TRANS, GEMM_TRANS},       /* 64 x 128: 3 on 2, a long K */
        {129, 129, 16, 5, 4, GEMM_NO_TRANS, GEMM_NO_TRANS},  /* 6 on 4, one step a tile: none shared */
        {100, 300, 200, 6, 4, GEMM_TRANS, GEMM_NO_TRANS},    /* 64 x 128: 6 on 4 */
    };
    static const stream_k_shape f64[] = {
        {300, 200, 333, 2, 4, GEMM_NO_TRANS, GEMM_NO_TRANS}, /* 6 tiles on 4 blocks: all dealt out */
        {300, 300, 100, 2, 4, GEMM_TRANS, GEMM_NO_TRANS},    /* 9 on 4: 4 whole, 5 dealt out */
        {260, 400, 57, 3, 5, GEMM_NO_TRANS, GEMM_TRANS},     /* 128 x 64: 21 on 5, K of 4 steps */
        {131, 67, 1000, 3, 3, GEMM_TRANS, GEMM_TRANS},        /* 4 on 3, a long K */
        {129, 129, 16, 2, 3, GEMM_NO_TRANS, GEMM_NO_TRANS},  /* 4 on 3, one step a tile: none shared */
    };
    test_stream_k<float>(GEMM_F32, GEMM_CUDA_KERNEL_SIMT, f32, sizeof f32 / sizeof f32[0]);
    if (hopper()) test_stream_k<double>(GEMM_F64, GEMM_CUDA_KERNEL_DMMA, f64, sizeof f64 / sizeof f64[0]);
    if (!small && hopper()) { /* the grids of 132 SMs */
        test_stream_k_full<float>(GEMM_F32, 0, 20);
        test_stream_k_full<double>(GEMM_F64, 0, 20);
        test_stream_k_full<double>(GEMM_F64, 3, 20);
    }
}

/* The warp-tiled fp32 blocks read a chunk that the edge of M or N cuts
   whole (but in K's last row): the rest of it is the row's padding and
   must reach no element of C that is stored. Every configuration, both
   M-major and N-major operands, sides not a multiple of 4 with leading
   dimensions that are, the padding NaN, C checked against the reference
   (no NaN may survive). */
static void test_edge_padding(void)
{
    const int64_t m = 203, n = 141, k = 37; /* row-major: canonical M = n, N = m */
    int t;
    for (t = 0; t < 2; t++) {
        /* NN: op(A) = B is M-major (n cut); TN: op(B) = A^T, A stored k x m, is N-major (m cut) */
        gemm_transpose ta = t ? GEMM_TRANS : GEMM_NO_TRANS;
        int64_t arows = t ? k : m, acols = t ? m : k, lda = (acols + 3) / 4 * 4 + 4, ldb = (n + 3) / 4 * 4;
        battery_buf A = battery_buf_new(GEMM_F32, (size_t)(arows * lda)), B = battery_buf_new(GEMM_F32, (size_t)(k * ldb));
        battery_buf C = battery_buf_new(GEMM_F32, (size_t)(m * n)), R = battery_buf_new(GEMM_F32, (size_t)(m * n));
        battery_call c = {GEMM_ROW_MAJOR, ta, GEMM_NO_TRANS, m, n, k, lda, ldb, n, 1.0, 0.0};
        battery_backend be;
        float *dA, *dB, *dC;
        uint64_t st = 29;
        int64_t i, j;
        int v;
        memset(&be, 0, sizeof be);
        battery_fill(&A, &st);
        battery_fill(&B, &st);
        for (i = 0; i < arows; i++) /* the rows' padding */
            for (j = acols; j < lda; j++) battery_set(&A, (size_t)(i * lda + j), NAN);
        for (i = 0; i < k; i++)
            for (j = n; j < ldb; j++) battery_set(&B, (size_t)(i * ldb + j), NAN);
        battery_invoke(NULL, GEMM_F32, &c, A.data, B.data, R.data);
        cudaMalloc((void **)&dA, sizeof(float) * arows * lda);
        cudaMalloc((void **)&dB, sizeof(float) * k * ldb);
        cudaMalloc((void **)&dC, sizeof(float) * m * n);
        cudaMemcpy(dA, A.data, sizeof(float) * arows * lda, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, B.data, sizeof(float) * k * ldb, cudaMemcpyHostToDevice);
        for (v = 1; v <= GEMM__CUDA_SW_VARIANTS; v++) {
            gemm_cuda_options o;
            gemm_status s;
            double err;
            memset(&o, 0, sizeof o);
            o.kernel = GEMM_CUDA_KERNEL_SIMT;
            o.variant = v;
            cudaMemset(dC, 0, sizeof(float) * m * n);
            s = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, ta, GEMM_NO_TRANS, m, n, k, 1.0f, dA, lda, dB, ldb, 0.0f, dC, n, &o);
            cudaMemcpy(C.data, dC, sizeof(float) * m * n, cudaMemcpyDeviceToHost);
            err = battery_compare(&c, &C, &R);
            battery_check(s == GEMM_OK && err <= battery_bound(&be, GEMM_F32, &c, 1.0, 1.0, 0),
                          "cuda fp32 %s variant %d, NaN in the rows' padding: error %.3g (\"%s\")", t ? "TN" : "NN", v,
                          err, gemm__cuda_exact_last());
        }
        cudaFree(dA); cudaFree(dB); cudaFree(dC);
        battery_buf_free(&A); battery_buf_free(&B); battery_buf_free(&C); battery_buf_free(&R);
    }
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
    test_configurations_refused();
    test_paths();
    test_edge_padding();
    test_split_off<float>(small);
    test_split_off<double>(small);
    test_stream_k_both(small);
    battery_cuda("cuda auto", GEMM_CUDA_KERNEL_AUTO, 0, GEMM_CUDA_PAGEABLE, 0, 0, BOTH, small ? cases : 200, max_dim);
    battery_cuda("cuda simt", GEMM_CUDA_KERNEL_SIMT, 0, GEMM_CUDA_PAGEABLE, 0, 0, BOTH, cases, max_dim);
    battery_cuda("cuda simt split_k=1", GEMM_CUDA_KERNEL_SIMT, 0, GEMM_CUDA_PAGEABLE, 0, 1, BOTH, cases, max_dim);
    battery_cuda("cuda simt 128x128", GEMM_CUDA_KERNEL_SIMT, 1, GEMM_CUDA_PAGEABLE, 0, 0, F32_ONLY, cases, max_dim);
    battery_cuda("cuda simt 128x128/16x8", GEMM_CUDA_KERNEL_SIMT, 2, GEMM_CUDA_PAGEABLE, 0, 0, F32_ONLY, cases, max_dim);
    battery_cuda("cuda simt 256x128", GEMM_CUDA_KERNEL_SIMT, 3, GEMM_CUDA_PAGEABLE, 0, 0, F32_ONLY, cases, max_dim);
    battery_cuda("cuda simt 128x64", GEMM_CUDA_KERNEL_SIMT, 5, GEMM_CUDA_PAGEABLE, 0, 0, F32_ONLY, cases, max_dim);
    battery_cuda("cuda simt 64x128 split_k=2", GEMM_CUDA_KERNEL_SIMT, 6, GEMM_CUDA_PAGEABLE, 0, 2, F32_ONLY, cases,
                 max_dim);
    /* stream-K forced on few blocks: every shape with more tiles shares some (test_stream_k) */
    gemm__test_hooks()->cuda_stream_k = 3;
    battery_cuda("cuda simt 128x64 stream-k on 3 blocks", GEMM_CUDA_KERNEL_SIMT, 5, GEMM_CUDA_PAGEABLE, 0, 0, F32_ONLY,
                 cases, max_dim);
    gemm__test_hooks()->cuda_stream_k = 2;
    battery_cuda("cuda simt 64x128 stream-k on 2 blocks", GEMM_CUDA_KERNEL_SIMT, 6, GEMM_CUDA_PAGEABLE, 0, 0, F32_ONLY,
                 cases, max_dim);
    gemm__test_hooks()->cuda_stream_k = 0;
    battery_cuda("cuda simt 128x256 split_k=3", GEMM_CUDA_KERNEL_SIMT, 4, GEMM_CUDA_PAGEABLE, 0, 3, F32_ONLY, cases,
                 max_dim);
    battery_cuda("cuda dmma", GEMM_CUDA_KERNEL_DMMA, 0, GEMM_CUDA_PAGEABLE, 0, 0, F64_ONLY, cases, max_dim);
    battery_cuda("cuda dmma split_k=1", GEMM_CUDA_KERNEL_DMMA, 0, GEMM_CUDA_PAGEABLE, 0, 1, F64_ONLY, cases, max_dim);
    battery_cuda("cuda dmma ring", GEMM_CUDA_KERNEL_DMMA, 1, GEMM_CUDA_PAGEABLE, 0, 0, F64_ONLY, cases, max_dim);
    if (hopper()) {
        battery_cuda("cuda dmma tma 128x128", GEMM_CUDA_KERNEL_DMMA, 2, GEMM_CUDA_PAGEABLE, 0, 0, F64_ONLY, cases,
                     max_dim);
        battery_cuda("cuda dmma tma 128x64 split_k=3", GEMM_CUDA_KERNEL_DMMA, 3, GEMM_CUDA_PAGEABLE, 0, 3, F64_ONLY,
                     cases, max_dim);
        /* stream-K forced on few blocks: every shape with more tiles shares some (test_stream_k) */
        gemm__test_hooks()->cuda_stream_k = 3;
        battery_cuda("cuda dmma tma 128x128 stream-k on 3 blocks", GEMM_CUDA_KERNEL_DMMA, 2, GEMM_CUDA_PAGEABLE, 0, 0,
                     F64_ONLY, cases, max_dim);
        gemm__test_hooks()->cuda_stream_k = 2;
        battery_cuda("cuda dmma tma 128x64 stream-k on 2 blocks", GEMM_CUDA_KERNEL_DMMA, 3, GEMM_CUDA_PAGEABLE, 0, 0,
                     F64_ONLY, cases, max_dim);
        gemm__test_hooks()->cuda_stream_k = 0;
    }
    battery_cuda("cuda naive", GEMM_CUDA_KERNEL_NAIVE, 0, GEMM_CUDA_PAGEABLE, 0, 0, BOTH, small ? 1 : 20, max_dim);
    battery_cuda("cuda tiled16", GEMM_CUDA_KERNEL_TILED16, 0, GEMM_CUDA_PAGEABLE, 0, 0, BOTH, small ? 1 : 20, max_dim);
    battery_cuda("cuda host pageable", GEMM_CUDA_KERNEL_AUTO, 0, GEMM_CUDA_PAGEABLE, 1, 0, BOTH, cases, max_dim);
    battery_cuda("cuda host pinned", GEMM_CUDA_KERNEL_AUTO, 0, GEMM_CUDA_PINNED, 1, 0, BOTH, cases, max_dim);
    battery_cuda("cuda host mapped", GEMM_CUDA_KERNEL_AUTO, 0, GEMM_CUDA_MAPPED, 1, 0, BOTH, cases, max_dim);
    test_larger(small);
    return battery_summary();
}
