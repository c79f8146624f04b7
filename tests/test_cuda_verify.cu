/* tests/test_cuda_verify.cu - verified products on CUDA (options.verify):
   faults injected after the product (a flipped exponent bit, a flipped
   mantissa bit above the bound, a dropped K slice; tests/verify_faults.h)
   on device pointers (sums on the device: the exact kernels, split K, TF32)
   and on host pointers (sums on the host), each caught; then the battery
   with verify on through both: no false alarm; then batches (strided,
   pointer arrays with host and with device lists): a fault in member 2 of
   4 caught and named, the battery verified through each.
   Needs a GPU. Last line: N passed, N failed.

   GEMM_CUDA_TEST_SMALL=1 runs smaller shapes and batteries (for
   compute-sanitizer, tests/cuda_run.sh). */
#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "battery.h"
#include "verify_faults.h"

typedef struct cuda_ctx {
    gemm_cuda_options opt;
    int host;  /* 1: the _host API */
    int batch; /* device pointers: 1 a strided batch, 2 a pointer-array batch with host lists, 3 with device lists;
                  4 members, the call's is member 2 (verify_fault_skip = 2 puts the fault there) */
} cuda_ctx;

static size_t extent_of(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (ld < 1) ld = 1;
    return battery_extent(layout == GEMM_COL_MAJOR ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR, rows, cols, ld);
}

static void *to_device(const void *host, size_t bytes)
{
    char *d = NULL;
    if (!host) return NULL;
    if (cudaMalloc((void **)&d, bytes + 16) != cudaSuccess ||
        (bytes && cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess)) {
        fprintf(stderr, "test_cuda_verify: cannot stage buffers on the device\n");
        exit(2);
    }
    return d;
}

/* The battery's call as member 2 of a batch of 4 (every member the same
   product: A and B shared, C copied 4 times). A GEMM_ERR_VERIFY must name
   member 2 and leave member 3 as it was. Frees dA, dB. */
template <typename T>
static gemm_status run_batch(cuda_ctx *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                             int64_t n, int64_t k, T alpha, T *dA, int64_t lda, T *dB, int64_t ldb, T beta, T *C,
                             size_t nc, int64_t ldc)
{
    size_t ec = nc / sizeof(T);
    T *all = (T *)malloc(4 * nc + 1), *back = (T *)malloc(4 * nc + 1), *dC;
    const T *la[4], *lb[4];
    T *lc[4];
    void **dl = NULL;
    gemm_status s;
    cudaError_t e;
    for (int x = 0; x < 4; x++) {
        if (C) memcpy(all + x * ec, C, nc);
        la[x] = dA;
        lb[x] = dB;
    }
    dC = C ? (T *)to_device(all, 4 * nc) : NULL;
    for (int x = 0; x < 4; x++) lc[x] = dC ? dC + x * ec : NULL;
    if (ctx->batch == 3) { /* the lists on the device, as cuBLAS takes them */
        const void *lists[12];
        for (int x = 0; x < 4; x++) lists[x] = la[x], lists[4 + x] = lb[x], lists[8 + x] = lc[x];
        dl = (void **)to_device(lists, sizeof lists);
    }
    const T *const *pa = dl ? (const T *const *)dl : la, *const *pb = dl ? (const T *const *)(dl + 4) : lb;
    T *const *pc = dl ? (T *const *)(dl + 8) : lc;
    if (ctx->batch == 1)
        s = sizeof(T) == 4
            ? gemm_cuda_sgemm_strided_batched(0, layout, ta, tb, m, n, k, (float)alpha, (const float *)dA, lda, 0,
                                              (const float *)dB, ldb, 0, (float)beta, (float *)dC, ldc, (int64_t)ec, 4,
                                              &ctx->opt)
            : gemm_cuda_dgemm_strided_batched(0, layout, ta, tb, m, n, k, (double)alpha, (const double *)dA, lda, 0,
                                              (const double *)dB, ldb, 0, (double)beta, (double *)dC, ldc, (int64_t)ec,
                                              4, &ctx->opt);
    else
        s = sizeof(T) == 4
            ? gemm_cuda_sgemm_batched(0, layout, ta, tb, m, n, k, (float)alpha, (const float *const *)pa, lda,
                                      (const float *const *)pb, ldb, (float)beta, (float *const *)pc, ldc, 4, &ctx->opt)
            : gemm_cuda_dgemm_batched(0, layout, ta, tb, m, n, k, (double)alpha, (const double *const *)pa, lda,
                                      (const double *const *)pb, ldb, (double)beta, (double *const *)pc, ldc, 4,
                                      &ctx->opt);
    e = cudaDeviceSynchronize();
    if (e == cudaSuccess && dC && nc) e = cudaMemcpy(back, dC, 4 * nc, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        printf("FAIL CUDA error after the batch: %s\n", cudaGetErrorString(e));
        battery_failed++;
        exit(battery_summary());
    }
    if (dC && nc) memcpy(C, back + 2 * ec, nc);
    if (s == GEMM_ERR_VERIFY)
        battery_check(strstr(gemm_last_error_detail(), "member 2 of 4 failed") != NULL &&
                          memcmp(back + 3 * ec, all + 3 * ec, nc) == 0,
                      "a verified CUDA batch (%s) names its failing member 2 and leaves member 3 untouched: %s",
                      ctx->batch == 1 ? "strided" : ctx->batch == 2 ? "host lists" : "device lists",
                      gemm_last_error_detail());
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dl);
    free(all);
    free(back);
    return s;
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
    T *dA, *dB, *dC;
    gemm_status s;
    cudaError_t e;
    if (ctx->host)
        return sizeof(T) == 4
            ? gemm_cuda_sgemm_host(layout, ta, tb, m, n, k, (float)alpha, (const float *)A, lda, (const float *)B, ldb,
                                   (float)beta, (float *)C, ldc, &ctx->opt)
            : gemm_cuda_dgemm_host(layout, ta, tb, m, n, k, (double)alpha, (const double *)A, lda,
                                   (const double *)B, ldb, (double)beta, (double *)C, ldc, &ctx->opt);
    dA = (T *)to_device(A, na);
    dB = (T *)to_device(B, nb);
    if (ctx->batch) return run_batch<T>(ctx, layout, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, C, nc, ldc);
    dC = (T *)to_device(C, nc);
    s = sizeof(T) == 4
        ? gemm_cuda_sgemm(0, layout, ta, tb, m, n, k, (float)alpha, (const float *)dA, lda, (const float *)dB, ldb,
                          (float)beta, (float *)dC, ldc, &ctx->opt)
        : gemm_cuda_dgemm(0, layout, ta, tb, m, n, k, (double)alpha, (const double *)dA, lda, (const double *)dB,
                          ldb, (double)beta, (double *)dC, ldc, &ctx->opt);
    e = cudaDeviceSynchronize();
    if (e == cudaSuccess && C && nc) e = cudaMemcpy(C, dC, nc, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
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

static battery_backend backend(const char *name, cuda_ctx *c, int fp64)
{
    battery_backend be;
    memset(&be, 0, sizeof be);
    be.name = name;
    be.sgemm = cuda_s;
    be.dgemm = fp64 ? cuda_d : NULL;
    be.ctx = c;
    return be;
}

int main(void)
{
    cuda_ctx dev, host, split, tf32;
    battery_backend be;
    int count = 0, small = getenv("GEMM_CUDA_TEST_SMALL") != NULL, cases = small ? 8 : 0, max_dim = small ? 80 : 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        battery_skip("test_cuda_verify", "no CUDA device");
        return battery_summary();
    }
    memset(&dev, 0, sizeof dev);
    dev.opt.verify = 1;
    host = split = tf32 = dev;
    host.host = 1;
    split.opt.split_k = 4;
    tf32.opt.math = GEMM_CUDA_MATH_TF32;

    be = backend("cuda/verify", &dev, 1);
    verify_faults(&be, 37, 29, 31, 0, 0xF);
    if (!small) verify_faults(&be, 300, 260, 280, 0, 0xF);
    be = backend("cuda/verify/split-k-4", &split, 1);
    verify_faults(&be, 70, 90, small ? 256 : 1024, 0, 0xF);
    be = backend("cuda/verify/host", &host, 1);
    verify_faults(&be, small ? 50 : 150, 130, 170, 0, 0xF);
    /* TF32: the bound takes TF32's unit roundoff (2^-11) times k times the
       row's or column's |A||B| sums (about 1900 here), so none of these
       faults is above it for certain: a mantissa flip or a lost slice of K
       never, the exponent flip only when it makes the element huge (an
       element of 2 or more loses its top exponent bit and becomes tiny:
       on an H100 such flips went unseen). Here the
       verified TF32 call must give no false alarm, its C compared with
       TF32's tolerance; the faults are tested in the exact modes above. */
    be = backend("cuda/verify/tf32", &tf32, 0);
    be.eps32 = 0x1p-9; /* TF32's inputs (tests/test_cuda_tc.cu) */
    verify_faults(&be, small ? 60 : 200, 160, 180, 0, 0x1);

    /* the battery with verify on: no false alarm */
    be = backend("cuda/verify", &dev, 1);
    be.cases = cases;
    be.max_dim = max_dim;
    battery_run(&be);
    be = backend("cuda/verify/split-k-4", &split, 1);
    be.cases = small ? cases : 40;
    be.max_dim = max_dim;
    battery_run(&be);
    be = backend("cuda/verify/host", &host, 1);
    be.cases = small ? cases : 40;
    be.max_dim = max_dim;
    battery_run(&be);
    be = backend("cuda/verify/tf32", &tf32, 0);
    be.eps32 = 0x1p-9; /* TF32's inputs (tests/test_cuda_tc.cu) */
    be.cases = small ? cases : 60;
    be.max_dim = max_dim;
    battery_run(&be);
    /* batches: every member verified, a fault in member 2 of 4 caught and
       named, member 3 untouched; the battery through each form, no false
       alarm */
    for (int form = 1; form <= 3; form++) {
        static const char *const names[4] = {"", "cuda/verify/strided-batch", "cuda/verify/batch-host-lists",
                                             "cuda/verify/batch-device-lists"};
        cuda_ctx bc = dev;
        bc.batch = form;
        be = backend(names[form], &bc, 1);
        verify_faults(&be, 30, 20, 25, 2, 0xF);
        if (small) continue; /* compute-sanitizer: the faults only (the members run the single call's kernels) */
        be.cases = 20;
        be.max_dim = 120;
        battery_run(&be);
    }
    return battery_summary();
}
