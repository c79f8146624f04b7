/* tests/test_cuda_batch.cu - the CUDA batches (gemm_cuda_?gemm_strided_batched,
   gemm_cuda_?gemm_batched, the _mixed forms). Needs a GPU. Last line:
   N passed, N failed.

   build/test_cuda_batch: the battery member by member through both forms
   (tests/battery_batch.h; the other members' oracle is a batch of one,
   bit for bit), for fp32 and fp64 on the automatic kernels, fp32 on the
   64 x 64 configuration and on TF32; larger members against an fp64
   reference on every path (warp-tiled, 64 x 64, unaligned, DMMA 128 x 64
   and 64 x 64, the tensor-core modes on WGMMA and on MMA's 64 x 64 tiles
   with op(A) in place either way or copied, FP32_ACCURATE) with each member
   bitwise what it gives alone; a batch past one grid's 65535 slices;
   shared operands; and the refusals (a stride or a member past its
   allocation, a host pointer among device ones, members writing one C,
   WGMMA), each writing nothing; the pointer lists in device, managed and
   page-locked memory (cuBLAS's convention: the host lists' bits, checked
   the same way, read in stream order) and lists nothing can read
   (refused, not read); C in host memory mapped for the device
   (cudaHostAlloc, cudaHostRegister) checked against its allocation too;
   a member's C over any member's A or B refused (device pointers, and,
   with --host, host arrays standing in for them).
   GEMM_CUDA_TEST_SMALL=1: fewer cases (compute-sanitizer).
   build/test_cuda_batch --host: only the checks' host side (no GPU).
   build/test_cuda_batch --tiny: the host side, tiny members and grouped
   batches only. */
#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "battery_batch.h"
#include <errno.h>
#include <algorithm>
#include <vector>
#include <sys/mman.h> /* mmap: host memory no one may read */
#include <sys/uio.h>  /* process_vm_readv */
#include <unistd.h>   /* sysconf */

static int small_run;

typedef struct cuda_ctx { gemm_cuda_options opt; } cuda_ctx;

/* Elements of one operand as stored (0 for an empty or invalid shape). */
static size_t extent_of(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (ld < 1) ld = 1;
    return battery_extent(layout == GEMM_COL_MAJOR ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR, rows, cols, ld);
}

static void stop_on(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    printf("FAIL CUDA error (%s): %s\n", what, cudaGetErrorString(e));
    battery_failed++;
    exit(battery_summary());
}

/* A device copy of n elements of host (NULL stays NULL); exactly n
   elements, so a call that reads past them is caught by the batch's
   allocation check (or by compute-sanitizer). */
template <typename T> static T *dev_copy(const T *host, size_t n)
{
    T *d = NULL;
    if (!host) return NULL;
    stop_on(cudaMalloc((void **)&d, n ? n * sizeof(T) : 16), "cudaMalloc");
    if (n) stop_on(cudaMemcpy(d, host, n * sizeof(T), cudaMemcpyHostToDevice), "to device");
    return d;
}

template <typename T> static void dev_back(T *host, const T *d, size_t n)
{
    stop_on(cudaDeviceSynchronize(), "after the call");
    if (host && n) stop_on(cudaMemcpy(host, d, n * sizeof(T), cudaMemcpyDeviceToHost), "to host");
}

/* The three operands' extents of a call. */
static void extents(gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                    int64_t lda, int64_t ldb, int64_t ldc, size_t e[3])
{
    bool na = ta == GEMM_NO_TRANS, nb = tb == GEMM_NO_TRANS;
    e[0] = extent_of(l, na ? m : k, na ? k : m, lda);
    e[1] = extent_of(l, nb ? k : n, nb ? n : k, ldb);
    e[2] = extent_of(l, m, n, ldc);
}

template <typename T>
static gemm_status call_strided(const gemm_cuda_options *o, gemm_layout l, gemm_transpose ta, gemm_transpose tb,
                                int64_t m, int64_t n, int64_t k, T alpha, const T *A, int64_t lda, int64_t sa,
                                const T *B, int64_t ldb, int64_t sb, T beta, T *C, int64_t ldc, int64_t sc,
                                int64_t count)
{
    if constexpr (sizeof(T) == 4)
        return gemm_cuda_sgemm_strided_batched(0, l, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,
                                               count, o);
    else
        return gemm_cuda_dgemm_strided_batched(0, l, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,
                                               count, o);
}

template <typename T>
static gemm_status call_batched(const gemm_cuda_options *o, gemm_layout l, gemm_transpose ta, gemm_transpose tb,
                                int64_t m, int64_t n, int64_t k, T alpha, const T *const *A, int64_t lda,
                                const T *const *B, int64_t ldb, T beta, T *const *C, int64_t ldc, int64_t count)
{
    if constexpr (sizeof(T) == 4)
        return gemm_cuda_sgemm_batched(0, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count, o);
    else
        return gemm_cuda_dgemm_batched(0, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count, o);
}

/* ---- the battery's adapters: host operands in, device batch, host out ---- */

template <typename T>
static gemm_status run_strided(void *vctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                               int64_t k, T alpha, const T *A, int64_t lda, int64_t sa, const T *B, int64_t ldb,
                               int64_t sb, T beta, T *C, int64_t ldc, int64_t sc, int64_t count)
{
    cuda_ctx *ctx = (cuda_ctx *)vctx;
    size_t e[3], span[3];
    int64_t st[3] = {sa, sb, sc}, members = count > 1 ? count : 1;
    extents(l, ta, tb, m, n, k, lda, ldb, ldc, e);
    for (int x = 0; x < 3; x++) span[x] = (size_t)(st[x] > 0 ? st[x] : 0) * (size_t)(members - 1) + e[x];
    T *dA = dev_copy(A, span[0]), *dB = dev_copy(B, span[1]), *dC = dev_copy(C, span[2]);
    gemm_status s = call_strided<T>(&ctx->opt, l, ta, tb, m, n, k, alpha, dA, lda, sa, dB, ldb, sb, beta, dC, ldc, sc,
                                    count);
    dev_back(C, dC, span[2]);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return s;
}

template <typename T>
static gemm_status run_batched(void *vctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                               int64_t k, T alpha, const T *const A[], int64_t lda, const T *const B[], int64_t ldb,
                               T beta, T *const C[], int64_t ldc, int64_t count)
{
    cuda_ctx *ctx = (cuda_ctx *)vctx;
    size_t e[3];
    const T *dA[8] = {}, *dB[8] = {};
    T *dC[8] = {};
    int64_t i, members = count < 0 ? 0 : count > 8 ? 8 : count;
    gemm_status s;
    extents(l, ta, tb, m, n, k, lda, ldb, ldc, e);
    for (i = 0; i < members; i++) {
        dA[i] = A ? dev_copy(A[i], e[0]) : NULL;
        dB[i] = B ? dev_copy(B[i], e[1]) : NULL;
        dC[i] = C ? dev_copy((const T *)C[i], e[2]) : NULL;
    }
    s = call_batched<T>(&ctx->opt, l, ta, tb, m, n, k, alpha, A ? dA : NULL, lda, B ? dB : NULL, ldb, beta,
                        C ? dC : NULL, ldc, count);
    for (i = 0; i < members; i++) {
        if (C) dev_back(C[i], dC[i], e[2]);
        cudaFree((void *)dA[i]); cudaFree((void *)dB[i]); cudaFree(dC[i]);
    }
    return s;
}

/* The oracle of the other members: the member alone, as a batch of one. */
template <typename T>
static gemm_status run_alone(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C,
                             int64_t ldc)
{
    return run_strided<T>(ctx, l, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

static gemm_status s_strided(void *c, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, float al, const float *A, int64_t lda, int64_t sa, const float *B, int64_t ldb,
                             int64_t sb, float be, float *C, int64_t ldc, int64_t sc, int64_t count)
{ return run_strided<float>(c, l, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, count); }
static gemm_status d_strided(void *c, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, double al, const double *A, int64_t lda, int64_t sa, const double *B,
                             int64_t ldb, int64_t sb, double be, double *C, int64_t ldc, int64_t sc, int64_t count)
{ return run_strided<double>(c, l, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, count); }
static gemm_status s_batched(void *c, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, float al, const float *const A[], int64_t lda, const float *const B[],
                             int64_t ldb, float be, float *const C[], int64_t ldc, int64_t count)
{ return run_batched<float>(c, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, count); }
static gemm_status d_batched(void *c, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, double al, const double *const A[], int64_t lda, const double *const B[],
                             int64_t ldb, double be, double *const C[], int64_t ldc, int64_t count)
{ return run_batched<double>(c, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, count); }
static gemm_status s_alone(void *c, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                           int64_t k, float al, const float *A, int64_t lda, const float *B, int64_t ldb, float be,
                           float *C, int64_t ldc)
{ return run_alone<float>(c, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc); }
static gemm_status d_alone(void *c, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                           int64_t k, double al, const double *A, int64_t lda, const double *B, int64_t ldb,
                           double be, double *C, int64_t ldc)
{ return run_alone<double>(c, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc); }

/* The battery through both forms with these options. */
static void battery_cuda_batch(const char *name, const gemm_cuda_options *opt, int f32_only, double eps32)
{
    static cuda_ctx ctxs[8];
    static int used;
    static battery_backend singles[8];
    static battery_batch bbs[8][2];
    static char names[8][2][96];
    cuda_ctx *ctx = &ctxs[used];
    battery_backend *single = &singles[used];
    ctx->opt = *opt;
    memset(single, 0, sizeof *single);
    single->name = "alone";
    single->sgemm = s_alone;
    single->dgemm = d_alone;
    single->ctx = ctx;
    for (int form = 0; form < 2; form++) {
        battery_batch *bb = &bbs[used][form];
        battery_backend be;
        memset(bb, 0, sizeof *bb);
        bb->sstrided = s_strided; bb->dstrided = d_strided; bb->sbatched = s_batched; bb->dbatched = d_batched;
        bb->ctx = ctx;
        bb->single = single;
        /* a member alone may run another kernel than in its batch (the kernel depends on every member's
           alignment), so its rounding may differ: the big cases below check bits where the kernel is the same */
        bb->oracle_eps = FLT_EPSILON;
        snprintf(names[used][form], sizeof names[used][form], "%s/%s", name, form ? "pointers" : "strided");
        be = battery_batch_backend(bb, form ? BATTERY_BATCH_POINTERS : BATTERY_BATCH_STRIDED, names[used][form]);
        be.cases = small_run ? 12 : 60;
        be.eps32 = eps32;
        if (f32_only) be.dgemm = NULL;
        if (f32_only) {
            int before = battery_failed;
            printf("== %s: fp32 only (a mode of fp32)\n", names[used][form]);
            battery_random(&be, GEMM_F32);
            battery_edges(&be, GEMM_F32);
            battery_invalid(&be, GEMM_F32);
            printf("== %s: %s\n", names[used][form], battery_failed == before ? "all passed" : "FAILURES above");
        } else {
            battery_run(&be);
        }
    }
    used++;
}

/* ---- larger members against an fp64 reference ---- */

/* Element (r, c) of a rows x cols matrix stored in `layout` with ld. */
static int64_t at(gemm_layout l, int64_t r, int64_t c, int64_t ld) { return l == GEMM_COL_MAJOR ? r + c * ld : r * ld + c; }

/* One member's reference: alpha*op(A)*op(B) + beta*C in fp64. */
template <typename TA, typename TC>
static void reference(gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                      double alpha, const TA *A, int64_t lda, const TA *B, int64_t ldb, double beta, const TC *C,
                      int64_t ldc, double *out, double *mag)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double sum = 0, abs_sum = 0;
            for (int64_t p = 0; p < k; p++) {
                double a = (double)(ta != GEMM_NO_TRANS ? A[at(l, p, i, lda)] : A[at(l, i, p, lda)]);
                double b = (double)(tb != GEMM_NO_TRANS ? B[at(l, j, p, ldb)] : B[at(l, p, j, ldb)]);
                sum += a * b;
                abs_sum += fabs(a * b);
            }
            double c = beta == 0 ? 0 : beta * (double)C[at(l, i, j, ldc)];
            out[i * n + j] = alpha * sum + c;
            mag[i * n + j] = fabs(alpha) * abs_sum + fabs(c);
        }
}

template <typename T> static T from_double(double v)
{
    if constexpr (std::is_same<T, __half>::value) return __float2half((float)v);
    else if constexpr (std::is_same<T, __nv_bfloat16>::value) return __float2bfloat16((float)v);
    else return (T)v;
}
template <typename T> static double to_double(T v)
{
    if constexpr (std::is_same<T, __half>::value) return (double)__half2float(v);
    else if constexpr (std::is_same<T, __nv_bfloat16>::value) return (double)__bfloat162float(v);
    else return (double)v;
}

/* A shape, its layout and transposes, and how the batch is laid out. */
typedef struct big_case {
    int64_t m, n, k, count;
    gemm_layout layout;
    gemm_transpose ta, tb;
    int pad;      /* extra elements in each stride (odd: members not 16-byte aligned) */
    int pointers; /* 1: pointer arrays, members in reverse address order */
} big_case;

/* The strided or pointer-array call of T (A, B) and TC (C): sgemm /
   dgemm, or the _mixed forms for FP16 and BF16. */
template <typename T, typename TC>
static gemm_status call_any(const gemm_cuda_options *o, const big_case &bc, int64_t lda, int64_t ldb, int64_t ldc,
                            float alpha, float beta, const T *A, int64_t sa, const T *B, int64_t sb, TC *C, int64_t sc,
                            int64_t count, const void **la, const void **lb, void **lc)
{
    if constexpr (sizeof(T) == 2) {
        gemm_precision pt = std::is_same<T, __half>::value ? GEMM_F16 : GEMM_BF16,
                       pc = std::is_same<TC, float>::value ? GEMM_F32 : pt;
        if (la)
            return gemm_cuda_sgemm_mixed_batched(0, bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, alpha, la, pt, lda, lb,
                                                 pt, ldb, beta, lc, pc, ldc, count, o);
        return gemm_cuda_sgemm_mixed_strided_batched(0, bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, alpha, A, pt, lda,
                                                     sa, B, pt, ldb, sb, beta, C, pc, ldc, sc, count, o);
    } else {
        if (la)
            return call_batched<T>(o, bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, (T)alpha, (const T *const *)la, lda,
                                   (const T *const *)lb, ldb, (T)beta, (T *const *)lc, ldc, count);
        return call_strided<T>(o, bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, (T)alpha, A, lda, sa, B, ldb, sb, (T)beta,
                               (T *)C, ldc, sc, count);
    }
}

/* A batch of one case, each member checked against the reference (error
   within (in_err + 4 * eps * (k + 2)) times the member's sum of
   |products|: in_err for inputs or outputs rounded to a shorter type, eps
   for the sums) and, for the exact
   modes, against itself alone, bit for bit. T: A and B, TC: C. */
template <typename T, typename TC>
static void big_batch(const char *what, const big_case &bc, const gemm_cuda_options *opt, double in_err, double eps,
                      int exact)
{
    size_t e[3];
    int64_t lda = (bc.layout == GEMM_COL_MAJOR) == (bc.ta == GEMM_NO_TRANS) ? bc.m + 3 : bc.k + 3;
    int64_t ldb = (bc.layout == GEMM_COL_MAJOR) == (bc.tb == GEMM_NO_TRANS) ? bc.k + 1 : bc.n + 1;
    int64_t ldc = bc.layout == GEMM_COL_MAJOR ? bc.m + 2 : bc.n + 2;
    if (bc.pad % 2 == 0) { lda = (lda + 7) / 8 * 8; ldb = (ldb + 7) / 8 * 8; ldc = (ldc + 7) / 8 * 8; }
    extents(bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, lda, ldb, ldc, e);
    int64_t st[3];
    for (int x = 0; x < 3; x++) st[x] = (int64_t)(e[x] + 7) / 8 * 8 + bc.pad;
    size_t total[3];
    for (int x = 0; x < 3; x++) total[x] = (size_t)st[x] * (size_t)bc.count;
    uint64_t state = 12345u + (uint64_t)bc.m * 7 + (uint64_t)bc.count;
    T *hA = (T *)malloc(total[0] * sizeof(T)), *hB = (T *)malloc(total[1] * sizeof(T));
    TC *hC = (TC *)malloc(total[2] * sizeof(TC)), *out = (TC *)malloc(total[2] * sizeof(TC)),
       *alone = (TC *)malloc(e[2] * sizeof(TC) + 16);
    for (size_t i = 0; i < total[0]; i++) hA[i] = from_double<T>(battery_uniform(&state));
    for (size_t i = 0; i < total[1]; i++) hB[i] = from_double<T>(battery_uniform(&state));
    for (size_t i = 0; i < total[2]; i++) hC[i] = from_double<TC>(battery_uniform(&state));
    T *dA = dev_copy(hA, total[0]), *dB = dev_copy(hB, total[1]);
    TC *dC = dev_copy(hC, total[2]);
    float alpha = 0.75f, beta = -0.5f;
    gemm_status s;
    /* pointer arrays: member i at the slot count-1-i (addresses descending) */
    const void **la = (const void **)malloc(bc.count * sizeof(void *)), **lb = (const void **)malloc(bc.count * sizeof(void *));
    void **lc = (void **)malloc(bc.count * sizeof(void *));
    for (int64_t i = 0; i < bc.count; i++) {
        int64_t slot = bc.count - 1 - i;
        la[i] = dA + slot * st[0]; lb[i] = dB + slot * st[1]; lc[i] = dC + slot * st[2];
    }
    s = call_any<T, TC>(opt, bc, lda, ldb, ldc, alpha, beta, dA, st[0], dB, st[1], dC, st[2], bc.count,
                        bc.pointers ? la : NULL, lb, lc);
    dev_back(out, dC, total[2]);
    char desc[160];
    snprintf(desc, sizeof desc, "%s: %lldx%lldx%lld x %lld %s %c%c pad %d %s", what, (long long)bc.m, (long long)bc.n,
             (long long)bc.k, (long long)bc.count, bc.layout == GEMM_COL_MAJOR ? "col" : "row",
             bc.ta == GEMM_TRANS ? 'T' : 'N', bc.tb == GEMM_TRANS ? 'T' : 'N', bc.pad,
             bc.pointers ? "pointers" : "strided");
    battery_check(s == GEMM_OK, "%s: runs (%s)", desc, gemm_last_error_detail());
    if (bc.pointers && s == GEMM_OK) {
        /* the same batch with its lists in device memory, as cuBLAS takes them: the host lists' bits (where
           K is not split: a split's sums may land in any order) */
        TC *again = (TC *)malloc(total[2] * sizeof(TC));
        void **dl = NULL;
        size_t lb_bytes = (size_t)bc.count * sizeof(void *);
        stop_on(cudaMemcpy(dC, hC, total[2] * sizeof(TC), cudaMemcpyHostToDevice), "to device");
        stop_on(cudaMalloc((void **)&dl, 3 * lb_bytes), "cudaMalloc (lists)");
        stop_on(cudaMemcpy(dl, la, lb_bytes, cudaMemcpyHostToDevice), "list to device");
        stop_on(cudaMemcpy(dl + bc.count, lb, lb_bytes, cudaMemcpyHostToDevice), "list to device");
        stop_on(cudaMemcpy(dl + 2 * bc.count, lc, lb_bytes, cudaMemcpyHostToDevice), "list to device");
        gemm_status s2 = call_any<T, TC>(opt, bc, lda, ldb, ldc, alpha, beta, dA, st[0], dB, st[1], dC, st[2],
                                         bc.count, (const void **)dl, (const void **)(dl + bc.count),
                                         dl + 2 * bc.count);
        dev_back(again, dC, total[2]);
        battery_check(s2 == GEMM_OK && (!exact || memcmp(again, out, total[2] * sizeof(TC)) == 0),
                      "%s: lists in device memory give the host lists' results (%s)", desc,
                      s2 == GEMM_OK ? "ok" : gemm_last_error_detail());
        cudaFree(dl);
        free(again);
    }
    double *ref = (double *)malloc(sizeof(double) * bc.m * bc.n), *mag = (double *)malloc(sizeof(double) * bc.m * bc.n);
    int64_t checked = bc.count < 6 ? bc.count : 6; /* first, last and a few between */
    for (int64_t q = 0; q < checked && s == GEMM_OK; q++) {
        int64_t i = q == checked - 1 ? bc.count - 1 : q * (bc.count / checked);
        int64_t slot = bc.pointers ? bc.count - 1 - i : i;
        reference<T, TC>(bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, alpha, hA + slot * st[0], lda, hB + slot * st[1],
                         ldb, beta, hC + slot * st[2], ldc, ref, mag);
        double worst = 0;
        for (int64_t r = 0; r < bc.m; r++)
            for (int64_t c = 0; c < bc.n; c++) {
                double got = to_double(out[slot * st[2] + at(bc.layout, r, c, ldc)]);
                double err = fabs(got - ref[r * bc.n + c]) / (mag[r * bc.n + c] + 1e-30);
                if (err > worst) worst = err;
            }
        double tol = in_err + 4 * eps * (double)(bc.k + 2);
        battery_check(worst <= tol, "%s: member %lld within %.3g of the reference (worst %.3g)", desc, (long long)i,
                      tol, worst);
        /* the member alone, a batch of one of the same form (strided: with the same strides, so the same
           alignment and kernel; pointers: where every member is aligned, so is it), bit for bit */
        if (exact && (!bc.pointers || bc.pad % 2 == 0)) {
            TC *one;
            cudaMemcpy(dC + slot * st[2], hC + slot * st[2], e[2] * sizeof(TC), cudaMemcpyHostToDevice);
            s = call_any<T, TC>(opt, bc, lda, ldb, ldc, alpha, beta, dA + slot * st[0], st[0], dB + slot * st[1], st[1],
                                dC + slot * st[2], st[2], 1, bc.pointers ? la + i : NULL, lb + i, lc + i);
            one = alone;
            dev_back(one, dC + slot * st[2], e[2]);
            battery_check(s == GEMM_OK && memcmp(one, out + slot * st[2], e[2] * sizeof(TC)) == 0,
                          "%s: member %lld is bitwise what it gives alone", desc, (long long)i);
        }
    }
    free(ref); free(mag); free(la); free(lb); free(lc);
    free(hA); free(hB); free(hC); free(out); free(alone);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}

static void test_big(void)
{
    static const big_case exact[] = {
        {64, 64, 64, 37, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 0, 0},    /* 64 x 64 configuration */
        {256, 256, 256, 5, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 0, 0},  /* warp-tiled, DMMA 128 x 64 */
        {200, 136, 300, 4, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 0, 1},     /* edges, pointer arrays */
        {129, 131, 67, 7, GEMM_COL_MAJOR, GEMM_TRANS, GEMM_TRANS, 1, 0},         /* unaligned members */
        {33, 300, 45, 9, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 3, 1},       /* thin, unaligned, pointers */
        {1024, 512, 384, 2, GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 0, 0},    /* several tiles per member */
        /* the tensor cores' 64 x 64 tiles: op(A) M-major in place, k-major in place, copied */
        {48, 40, 100, 11, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 0, 1},
        {40, 64, 64, 13, GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 0, 0},
        {64, 56, 72, 9, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_TRANS, 1, 0},
        {17, 33, 29, 6, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 0, 0},
    };
    static const gemm_cuda_kernel f64_kernels[] = {GEMM_CUDA_KERNEL_AUTO, GEMM_CUDA_KERNEL_SIMT};
    int n = (int)(sizeof exact / sizeof exact[0]);
    for (int i = 0; i < n; i++) {
        gemm_cuda_options o = {};
        if (small_run && i >= 3 && i != 6) continue; /* under compute-sanitizer: the first three, a 64 x 64 tile */
        big_batch<float, float>("f32", exact[i], &o, 0, FLT_EPSILON, 1);
        for (int kk = 0; kk < 2; kk++) {
            o.kernel = f64_kernels[kk];
            big_batch<double, double>(kk ? "f64 simt" : "f64", exact[i], &o, 0, DBL_EPSILON, 1);
        }
        o = gemm_cuda_options{};
        o.split_k = 3;
        big_batch<float, float>("f32 split_k 3", exact[i], &o, 0, FLT_EPSILON, 0);
        o.kernel = GEMM_CUDA_KERNEL_TILED16;
        o.split_k = 0;
        if (i < 3) big_batch<double, double>("f64 tiled16", exact[i], &o, 0, DBL_EPSILON, 1);
        o = gemm_cuda_options{};
        o.math = GEMM_CUDA_MATH_TF32;
        big_batch<float, float>("tf32", exact[i], &o, 1.0 / 512, FLT_EPSILON, 1);
        o.math = GEMM_CUDA_MATH_FP32_ACCURATE;
        big_batch<float, float>("fp32-accurate", exact[i], &o, 0, FLT_EPSILON, 1);
        o = gemm_cuda_options{};
        big_batch<__half, float>("f16 -> f32", exact[i], &o, 0, FLT_EPSILON, 1);
        big_batch<__nv_bfloat16, float>("bf16 -> f32", exact[i], &o, 0, FLT_EPSILON, 1);
        big_batch<__half, __half>("f16 -> f16", exact[i], &o, 1.0 / 1024, FLT_EPSILON, 1);
    }
}

/* ---- tiny members (m, n <= 32, k <= 64): four per block, in place ---- */

/* beta = 0 never reads C (C starts as NaN) and writes only the members'
   m x n (the rows between m and ldc keep their NaN); alpha = 0 with beta = 2
   doubles C. Small integers: every order of the sums gives the same
   exact values. */
template <typename T> static void tiny_scalars(const char *what, int64_t m, int64_t n, int64_t k, int64_t count)
{
    int64_t lda = m + 1, ldb = k + 2, ldc = m + 3, sa = lda * k, sb = ldb * n, sc = ldc * n;
    T *hA = (T *)malloc(sizeof(T) * sa * count), *hB = (T *)malloc(sizeof(T) * sb * count),
      *hC = (T *)malloc(sizeof(T) * sc * count);
    for (int64_t i = 0; i < sa * count; i++) hA[i] = (T)((i * 7) % 5) - 2;
    for (int64_t i = 0; i < sb * count; i++) hB[i] = (T)((i * 3) % 7) - 3;
    for (int64_t i = 0; i < sc * count; i++) hC[i] = (T)NAN;
    T *dA = dev_copy(hA, sa * count), *dB = dev_copy(hB, sb * count), *dC = dev_copy(hC, sc * count);
    gemm_status s = call_strided<T>(NULL, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, (T)1, dA, lda, sa, dB,
                                    ldb, sb, (T)0, dC, ldc, sc, count);
    dev_back(hC, dC, sc * count);
    int64_t bad = -1;
    for (int64_t i = 0; i < count && bad < 0; i++)
        for (int64_t c = 0; c < n && bad < 0; c++)
            for (int64_t r = 0; r < ldc && bad < 0; r++) {
                T got = hC[i * sc + r + c * ldc], want = 0;
                for (int64_t p = 0; p < k; p++) want += hA[i * sa + r % m + p * lda] * hB[i * sb + p + c * ldb];
                if (r < m ? got != want : !isnan((double)got)) bad = i;
            }
    battery_check(s == GEMM_OK && bad < 0, "%s: %lldx%lldx%lld x %lld, beta = 0 over a NaN C: the products, the rows "
                  "past m untouched (first wrong member %lld; %s)", what, (long long)m, (long long)n, (long long)k,
                  (long long)count, (long long)bad, s == GEMM_OK ? "ok" : gemm_last_error_detail());
    for (int64_t i = 0; i < sc * count; i++) hC[i] = (T)(i % 9);
    stop_on(cudaMemcpy(dC, hC, sizeof(T) * sc * count, cudaMemcpyHostToDevice), "to device");
    s = call_strided<T>(NULL, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, (T)0, dA, lda, sa, dB, ldb, sb,
                        (T)2, dC, ldc, sc, count);
    T *out = (T *)malloc(sizeof(T) * sc * count);
    dev_back(out, dC, sc * count);
    bad = -1;
    for (int64_t i = 0; i < sc * count && bad < 0; i++) {
        int64_t r = i % sc % ldc;
        if (out[i] != (r < m ? 2 * hC[i] : hC[i])) bad = i / sc;
    }
    battery_check(s == GEMM_OK && bad < 0, "%s: alpha = 0, beta = 2: C doubled, the rows past m untouched (first "
                  "wrong member %lld)", what, (long long)bad);
    free(hA); free(hB); free(hC); free(out);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}

static void test_tiny(void)
{
    static const big_case tiny[] = {
        {16, 16, 16, 1000, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 0, 0}, /* 16 x 16 tiles */
        {32, 32, 32, 999, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 0, 1},     /* 32 x 32, pointers */
        {13, 7, 45, 101, GEMM_COL_MAJOR, GEMM_TRANS, GEMM_TRANS, 1, 0},         /* edges, unaligned, K chunks */
        {31, 17, 64, 50, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 3, 1},      /* unaligned pointers */
        {16, 9, 16, 33, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_TRANS, 1, 1},
        {1, 32, 5, 9, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 0, 0},
        {32, 1, 33, 10, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 0, 0},
        {20, 30, 17, 77, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 0, 1},
    };
    int n = (int)(sizeof tiny / sizeof tiny[0]);
    for (int i = 0; i < n; i++) {
        gemm_cuda_options o = {};
        if (small_run && i != 2 && i != 3) continue; /* under compute-sanitizer: the edges */
        big_batch<float, float>("f32 tiny", tiny[i], &o, 0, FLT_EPSILON, 1);
        big_batch<double, double>("f64 tiny", tiny[i], &o, 0, DBL_EPSILON, 1);
    }
    tiny_scalars<float>("f32 tiny", 16, 16, 16, small_run ? 9 : 300);
    tiny_scalars<double>("f64 tiny", 29, 32, 50, small_run ? 9 : 300);
    tiny_scalars<float>("f32 tiny", 3, 30, 64, 5);
}

/* ---- grouped batches ---- */

static void refused(const char *what, gemm_status s, gemm_status want, const char *needle, int unchanged);

/* One group of a grouped call. */
typedef struct group_case {
    int64_t m, n, k;
    gemm_transpose ta, tb;
    double alpha, beta;
    int64_t size;
} group_case;

/* Groups of every kind in one call (tiny members, several tiles, edges,
   alpha = 0, an empty group), lists in host then device memory: each
   member against the fp64 reference, and each group bitwise what
   gemm_cuda_?gemm_batched gives it alone; then refusals in a later group
   write nothing in an earlier one. */
template <typename T>
static void grouped_case(const char *what, gemm_layout l, const group_case *gc, int groups,
                         const gemm_cuda_options *opt = NULL, double in_err = 0, const char *ran = NULL)
{
    const double eps = sizeof(T) == 4 ? FLT_EPSILON : DBL_EPSILON;
    int64_t total = 0, off = 0;
    for (int g = 0; g < groups; g++) total += gc[g].size;
    std::vector<gemm_transpose> ta(groups), tb(groups);
    std::vector<int64_t> m(groups), n(groups), k(groups), lda(groups), ldb(groups), ldc(groups), size(groups);
    std::vector<T> alpha(groups), beta(groups);
    std::vector<size_t> ea(total), eb(total), ec(total), oa(total + 1), ob(total + 1), oc(total + 1);
    std::vector<int> grp(total);
    for (int g = 0; g < groups; g++) {
        size_t e[3];
        ta[g] = gc[g].ta; tb[g] = gc[g].tb; m[g] = gc[g].m; n[g] = gc[g].n; k[g] = gc[g].k; size[g] = gc[g].size;
        alpha[g] = (T)gc[g].alpha; beta[g] = (T)gc[g].beta;
        lda[g] = (l == GEMM_COL_MAJOR) == (ta[g] == GEMM_NO_TRANS) ? m[g] + 1 + g : k[g] + 1 + g;
        ldb[g] = (l == GEMM_COL_MAJOR) == (tb[g] == GEMM_NO_TRANS) ? k[g] + 2 : n[g] + 2;
        ldc[g] = (l == GEMM_COL_MAJOR ? m[g] : n[g]) + 3;
        extents(l, ta[g], tb[g], m[g], n[g], k[g], lda[g], ldb[g], ldc[g], e);
        for (int64_t i = 0; i < size[g]; i++) {
            ea[off + i] = e[0] + 1; eb[off + i] = e[1] + 3; ec[off + i] = e[2] + 2; /* odd gaps: some unaligned */
            grp[off + i] = g;
        }
        off += size[g];
    }
    oa[0] = ob[0] = oc[0] = 0;
    for (int64_t i = 0; i < total; i++) { oa[i + 1] = oa[i] + ea[i]; ob[i + 1] = ob[i] + eb[i]; oc[i + 1] = oc[i] + ec[i]; }
    uint64_t state = 777u + (uint64_t)total;
    std::vector<T> hA(oa[total]), hB(ob[total]), hC(oc[total]), out(oc[total]), again(oc[total]), want(oc[total]);
    for (auto &v : hA) v = (T)battery_uniform(&state);
    for (auto &v : hB) v = (T)battery_uniform(&state);
    for (auto &v : hC) v = (T)battery_uniform(&state);
    T *dA = dev_copy(hA.data(), oa[total]), *dB = dev_copy(hB.data(), ob[total]), *dC = dev_copy(hC.data(), oc[total]);
    std::vector<const T *> la(total), lb(total);
    std::vector<T *> lc(total);
    for (int64_t i = 0; i < total; i++) { la[i] = dA + oa[i]; lb[i] = dB + ob[i]; lc[i] = dC + oc[i]; }
    auto call = [&](const T *const *A, const T *const *B, T *const *C, const int64_t *sizes) {
        if constexpr (sizeof(T) == 4)
            return gemm_cuda_sgemm_grouped_batched(0, l, ta.data(), tb.data(), m.data(), n.data(), k.data(),
                                                   alpha.data(), A, lda.data(), B, ldb.data(), beta.data(), C,
                                                   ldc.data(), groups, sizes, opt);
        else
            return gemm_cuda_dgemm_grouped_batched(0, l, ta.data(), tb.data(), m.data(), n.data(), k.data(),
                                                   alpha.data(), A, lda.data(), B, ldb.data(), beta.data(), C,
                                                   ldc.data(), groups, sizes, opt);
    };
    gemm_status s = call(la.data(), lb.data(), lc.data(), size.data());
    dev_back(out.data(), dC, oc[total]);
    battery_check(s == GEMM_OK, "%s: %d groups, %lld members run (%s)", what, groups, (long long)total,
                  s == GEMM_OK ? "ok" : gemm_last_error_detail());
    if (ran) /* the path the call took: what it last noted */
        battery_check(strstr(gemm__cuda_exact_last(), ran) != NULL, "%s: ran \"%s\" (noted: \"%s\")", what, ran,
                      gemm__cuda_exact_last());
    /* every member against the reference */
    int64_t worst_member = -1;
    double worst = 0;
    for (int64_t i = 0; i < total && s == GEMM_OK; i++) {
        int g = grp[i];
        std::vector<double> ref(m[g] * n[g]), mag(m[g] * n[g]);
        reference<T, T>(l, ta[g], tb[g], m[g], n[g], k[g], (double)alpha[g], hA.data() + oa[i], lda[g],
                        hB.data() + ob[i], ldb[g], (double)beta[g], hC.data() + oc[i], ldc[g], ref.data(), mag.data());
        for (int64_t r = 0; r < m[g]; r++)
            for (int64_t c = 0; c < n[g]; c++) {
                double err = fabs((double)out[oc[i] + at(l, r, c, ldc[g])] - ref[r * n[g] + c]) /
                             (mag[r * n[g] + c] + 1e-30) / (in_err + 4 * eps * (double)(k[g] + 2));
                if (err > worst) { worst = err; worst_member = i; }
            }
    }
    battery_check(s == GEMM_OK && worst <= 1, "%s: every member within in_err + 4 eps (k + 2) of the reference (worst %.3g of "
                  "that, member %lld)", what, worst, (long long)worst_member);
    /* each group alone, as a pointer-array batch: the same bits (a group of one member is the single call,
       whose K may be split with atomics: the reference above checks it) */
    /* in one launch (ran), a member beyond the tiny batch kernel's rule (m or n over 32) is summed as the
       tiny kernel sums, where gemm_cuda_?gemm_batched runs the 64 x 64 tiles (fp64: DMMA): its bits are
       checked below against the group alone instead */
    auto compared = [&](int64_t i) {
        int g = grp[i];
        return size[g] > 1 && (!ran || (m[g] <= 32 && n[g] <= 32 && k[g] <= 64));
    };
    auto same = [&](const std::vector<T> &x) {
        for (int64_t i = 0; i < total; i++)
            if (compared(i) && memcmp(x.data() + oc[i], out.data() + oc[i], ec[i] * sizeof(T))) return false;
        return true;
    };
    stop_on(cudaMemcpy(dC, hC.data(), oc[total] * sizeof(T), cudaMemcpyHostToDevice), "to device");
    off = 0;
    gemm_status s2 = GEMM_OK;
    for (int g = 0; g < groups && s2 == GEMM_OK; off += size[g], g++)
        if (size[g] > 1)
            s2 = call_batched<T>(opt, l, ta[g], tb[g], m[g], n[g], k[g], alpha[g], la.data() + off, lda[g],
                                 lb.data() + off, ldb[g], beta[g], lc.data() + off, ldc[g], size[g]);
    dev_back(again.data(), dC, oc[total]);
    battery_check(s2 == GEMM_OK && same(again), "%s: each group bitwise what gemm_cuda_?gemm_batched gives it (%s)",
                  what, s2 == GEMM_OK ? "ok" : gemm_last_error_detail());
    if (ran) { /* each group alone in a grouped call: the bits it has beside the others */
        bool alone = true;
        std::vector<int64_t> one(groups);
        for (int g = 0; g < groups && alone; g++) {
            if (size[g] == 0) continue;
            stop_on(cudaMemcpy(dC, hC.data(), oc[total] * sizeof(T), cudaMemcpyHostToDevice), "to device");
            int64_t first = 0; /* the group's members' place in the lists */
            for (int h = 0; h < groups; h++) {
                one[h] = h == g ? size[h] : 0;
                first += h < g ? size[h] : 0;
            }
            alone = call(la.data() + first, lb.data() + first, lc.data() + first, one.data()) == GEMM_OK;
            dev_back(again.data(), dC, oc[total]);
            for (int64_t i = 0; i < total && alone; i++)
                if (grp[i] == g && memcmp(again.data() + oc[i], out.data() + oc[i], ec[i] * sizeof(T))) alone = false;
        }
        battery_check(alone, "%s: each group alone in a grouped call: the bits it had beside the others", what);
    }
    /* the lists in device memory, as cublasGemmGroupedBatchedEx takes them */
    void **dl = NULL;
    stop_on(cudaMemcpy(dC, hC.data(), oc[total] * sizeof(T), cudaMemcpyHostToDevice), "to device");
    stop_on(cudaMalloc((void **)&dl, 3 * total * sizeof(void *)), "cudaMalloc (lists)");
    stop_on(cudaMemcpy(dl, la.data(), total * sizeof(void *), cudaMemcpyHostToDevice), "lists");
    stop_on(cudaMemcpy(dl + total, lb.data(), total * sizeof(void *), cudaMemcpyHostToDevice), "lists");
    stop_on(cudaMemcpy(dl + 2 * total, lc.data(), total * sizeof(void *), cudaMemcpyHostToDevice), "lists");
    s2 = call((const T *const *)dl, (const T *const *)(dl + total), (T *const *)(dl + 2 * total), size.data());
    dev_back(again.data(), dC, oc[total]);
    battery_check(s2 == GEMM_OK && same(again), "%s: lists in device memory give the host lists' bits (%s)", what,
                  s2 == GEMM_OK ? "ok" : gemm_last_error_detail());
    cudaFree(dl);
    /* refusals in the last group with members: nothing written anywhere */
    int last = groups - 1;
    while (last > 0 && size[last] == 0) last--;
    int64_t first_of_last = total - size[last];
    stop_on(cudaMemcpy(dC, hC.data(), oc[total] * sizeof(T), cudaMemcpyHostToDevice), "to device");
    T *saved = lc[total - 1];
    lc[total - 1] = dC + oc[total] - 1; /* its C runs past the allocation */
    s2 = call(la.data(), lb.data(), lc.data(), size.data());
    dev_back(again.data(), dC, oc[total]);
    refused("grouped: the last member's C past its allocation", s2, GEMM_ERR_INVALID_ARG, "past the end",
            again == hC);
    if (size[last] > 1) {
        lc[total - 1] = lc[first_of_last]; /* two members of one group write one C */
        s2 = call(la.data(), lb.data(), lc.data(), size.data());
        dev_back(again.data(), dC, oc[total]);
        refused("grouped: two members of the last group write one C", s2, GEMM_ERR_INVALID_ARG, "group", again == hC);
    }
    lc[total - 1] = saved;
    la[first_of_last] = (const T *)lc[first_of_last]; /* C over A within the group (one start: an element shared
                                                            whatever the shape; one element on, a 16 x 1 C and A
                                                            of ld 4 would interleave) */
    if (alpha[last] != T(0) && k[last] > 0) {
        s2 = call(la.data(), lb.data(), lc.data(), size.data());
        dev_back(again.data(), dC, oc[total]);
        refused("grouped: a member's C over its A", s2, GEMM_ERR_INVALID_ARG, "overlaps", again == hC);
    }
    la[first_of_last] = NULL; /* a NULL member: the refusal names the group and the member */
    if (alpha[last] != T(0) && k[last] > 0) {
        char want[64];
        snprintf(want, sizeof want, "group %d: member 0: A[0] is NULL", last);
        s2 = call(la.data(), lb.data(), lc.data(), size.data());
        dev_back(again.data(), dC, oc[total]);
        refused("grouped: a NULL A in the last group", s2, GEMM_ERR_INVALID_ARG, want, again == hC);
    }
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}

/* Groups run in order: a later group may read what an earlier one wrote.
   Group 1's A is group 0's C (tiny members both, so one launch would race
   them): group 1 must see C0 = A0 B0, as two calls in a row would. */
static void test_grouped_in_order(void)
{
    const int64_t n = 16;
    std::vector<float> h(5 * n * n), out(5 * n * n);
    uint64_t state = 4242;
    for (auto &v : h) v = (float)battery_uniform(&state);
    float *d = dev_copy(h.data(), h.size());
    float *A0 = d, *B0 = d + n * n, *C0 = d + 2 * n * n, *B1 = d + 3 * n * n, *C1 = d + 4 * n * n;
    const float *la[2] = {A0, C0}, *lb[2] = {B0, B1};
    float *lc[2] = {C0, C1};
    gemm_transpose t[2] = {GEMM_NO_TRANS, GEMM_NO_TRANS};
    int64_t m[2] = {n, n}, ld[2] = {n, n}, size[2] = {1, 1};
    float alpha[2] = {1, 1}, beta[2] = {0, 0};
    gemm_status s = gemm_cuda_sgemm_grouped_batched(0, GEMM_COL_MAJOR, t, t, m, m, m, alpha, la, ld, lb, ld, beta, lc,
                                                    ld, 2, size, NULL);
    dev_back(out.data(), d, h.size());
    std::vector<double> c0(n * n, 0.0);
    double worst = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t q = 0; q < n; q++) c0[i + j * n] += (double)h[i + q * n] * h[n * n + q + j * n];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double c1 = 0, mag = 0;
            for (int64_t q = 0; q < n; q++) {
                c1 += c0[i + q * n] * h[3 * n * n + q + j * n];
                mag += fabs(c0[i + q * n] * h[3 * n * n + q + j * n]);
            }
            worst = fmax(worst, fabs(out[4 * n * n + i + j * n] - c1) / (mag + 1e-30));
        }
    battery_check(s == GEMM_OK && worst < 64 * FLT_EPSILON * n,
                  "grouped: group 1 reads group 0's C: it sees C0 = A0 B0 (worst %.3g, noted \"%s\")", worst,
                  gemm__cuda_exact_last());
    battery_check(strstr(gemm__cuda_exact_last(), "tiny grouped") == NULL,
                  "grouped: groups that meet run one after another, not in one launch (noted \"%s\")",
                  gemm__cuda_exact_last());
    cudaFree(d);
}

static void test_grouped(void)
{
    static const group_case mixed[] = {
        {16, 16, 16, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 0, 40},   /* tiny */
        {70, 33, 100, GEMM_TRANS, GEMM_NO_TRANS, 0.5, -1, 3},   /* edges */
        {9, 9, 9, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 0},       /* empty */
        {130, 257, 64, GEMM_NO_TRANS, GEMM_TRANS, -0.75, 0.5, 2},
        {5, 6, 7, GEMM_TRANS, GEMM_TRANS, 0, 2, 4},             /* alpha = 0: C = 2C */
        {200, 300, 500, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 0.5, 1}, /* one member: the single call */
        {31, 20, 45, GEMM_TRANS, GEMM_NO_TRANS, 1.5, 0.25, 25}, /* tiny, K in chunks */
    };
    int groups = (int)(sizeof mixed / sizeof mixed[0]);
    grouped_case<float>("grouped f32 col", GEMM_COL_MAJOR, mixed, groups);
    grouped_case<double>("grouped f64 row", GEMM_ROW_MAJOR, mixed, groups);
    if (!small_run) {
        gemm_cuda_options o = {};
        grouped_case<float>("grouped f32 row", GEMM_ROW_MAJOR, mixed, groups);
        grouped_case<double>("grouped f64 col", GEMM_COL_MAJOR, mixed, groups);
        o.math = GEMM_CUDA_MATH_TF32;
        grouped_case<float>("grouped tf32 col", GEMM_COL_MAJOR, mixed, groups, &o, 1.0 / 512);
    }
    /* every member tiny: one launch for all groups, each layout, a lone
       member, an empty group, members of different sizes side by side */
    static const group_case tiny[] = {
        {16, 16, 16, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 0, 9},
        {31, 20, 45, GEMM_TRANS, GEMM_NO_TRANS, 1.5, 0.25, 6},
        {9, 9, 9, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 0}, /* empty */
        {32, 32, 64, GEMM_NO_TRANS, GEMM_TRANS, -0.75, 0.5, 5},
        {1, 17, 3, GEMM_TRANS, GEMM_TRANS, 2, -1, 3},
        {24, 8, 33, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1}, /* one member */
        {5, 6, 7, GEMM_TRANS, GEMM_NO_TRANS, 0.5, 0, 2},
    };
    static const group_case tiny16[] = {
        {16, 16, 16, GEMM_TRANS, GEMM_NO_TRANS, 1, 0.5, 7},
        {3, 16, 40, GEMM_NO_TRANS, GEMM_TRANS, -1, 0, 2},
        {16, 1, 1, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1},
    };
    int nt = (int)(sizeof tiny / sizeof tiny[0]), n16 = (int)(sizeof tiny16 / sizeof tiny16[0]);
    grouped_case<float>("grouped tiny f32 col", GEMM_COL_MAJOR, tiny, nt, NULL, 0, "tiny grouped 32x32 groups 6");
    grouped_case<double>("grouped tiny f64 row", GEMM_ROW_MAJOR, tiny, nt, NULL, 0, "tiny grouped 32x32 groups 6");
    grouped_case<float>("grouped tiny16 f32 row", GEMM_ROW_MAJOR, tiny16, n16, NULL, 0, "tiny grouped 16x16 groups 3");
    grouped_case<double>("grouped tiny16 f64 col", GEMM_COL_MAJOR, tiny16, n16, NULL, 0, "tiny grouped 16x16 groups 3");
    /* members up to 64 x 64 x 64: up to four 32 x 32 tiles each, still one launch */
    static const group_case small[] = {
        {64, 64, 64, GEMM_TRANS, GEMM_TRANS, 1, 0, 3},
        {48, 16, 64, GEMM_NO_TRANS, GEMM_NO_TRANS, -1, 0.5, 4},
        {33, 50, 20, GEMM_TRANS, GEMM_NO_TRANS, 0.5, 1, 5},   /* edges in both tile directions */
        {16, 16, 16, GEMM_NO_TRANS, GEMM_TRANS, 1, 0, 6},
        {64, 1, 64, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, -1, 1},
        {5, 64, 3, GEMM_TRANS, GEMM_NO_TRANS, 1, 0.25, 2},
    };
    int ns = (int)(sizeof small / sizeof small[0]);
    grouped_case<float>("grouped small f32 col", GEMM_COL_MAJOR, small, ns, NULL, 0, "tiny grouped 32x32 groups 6");
    grouped_case<double>("grouped small f64 row", GEMM_ROW_MAJOR, small, ns, NULL, 0, "tiny grouped 32x32 groups 6");
    if (!small_run) {
        grouped_case<float>("grouped tiny f32 row", GEMM_ROW_MAJOR, tiny, nt, NULL, 0, "tiny grouped 32x32 groups 6");
        grouped_case<double>("grouped tiny f64 col", GEMM_COL_MAJOR, tiny, nt, NULL, 0, "tiny grouped 32x32 groups 6");
        grouped_case<float>("grouped small f32 row", GEMM_ROW_MAJOR, small, ns, NULL, 0, "tiny grouped 32x32 groups 6");
        grouped_case<double>("grouped small f64 col", GEMM_COL_MAJOR, small, ns, NULL, 0, "tiny grouped 32x32 groups 6");
    }
    test_grouped_in_order();
}

/* ---- more than one grid's 65535 slices; shared operands; refusals ---- */

static void test_many_and_shared(void)
{
    int64_t count = small_run ? 1000 : 70000, i;
    float *hA = (float *)malloc(sizeof(float) * 4 * count), hB[4] = {1, 2, 3, 4}, *hC = (float *)malloc(sizeof(float) * 4 * count);
    for (i = 0; i < 4 * count; i++) { hA[i] = (float)(i % 7) - 3; hC[i] = 1; }
    float *dA = dev_copy(hA, 4 * count), *dB = dev_copy(hB, 4), *dC = dev_copy(hC, 4 * count);
    /* 2 x 2 members, B shared (stride 0): C_i = A_i * B + C_i */
    gemm_status s = gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0f, dA,
                                                    2, 4, dB, 2, 0, 1.0f, dC, 2, 4, count, NULL);
    dev_back(hC, dC, 4 * count);
    int bad = 0;
    for (i = 0; i < count && !bad; i++) {
        const float *a = hA + 4 * i;
        float want[4] = {a[0] * 1 + a[2] * 2 + 1, a[1] * 1 + a[3] * 2 + 1, a[0] * 3 + a[2] * 4 + 1, a[1] * 3 + a[3] * 4 + 1};
        bad = memcmp(want, hC + 4 * i, sizeof want) != 0;
    }
    battery_check(s == GEMM_OK && !bad, "%lld members of 2x2x2 with a shared B: every member right (first wrong: %lld)",
                  (long long)count, (long long)(bad ? i - 1 : -1));
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hC);
}

/* C (count members of 8x8, stride 64) is as it was. */
static int c_unchanged(const float *dC, const float *hC, int64_t n)
{
    float *now = (float *)malloc(sizeof(float) * n);
    dev_back(now, dC, n);
    int same = memcmp(now, hC, sizeof(float) * n) == 0;
    free(now);
    return same;
}

static void refused(const char *what, gemm_status s, gemm_status want, const char *needle, int unchanged)
{
    battery_check(s == want && strstr(gemm_last_error_detail(), needle) != NULL && unchanged,
                  "%s: refused with status %d, \"%s\" in the detail, nothing written (got %d: \"%s\")", what, (int)want,
                  needle, (int)s, gemm_last_error_detail());
}

static void test_refusals(void)
{
    const int64_t count = 5, st = 64;
    float hA[count * 64], hC[count * 64], host_member[64];
    for (int i = 0; i < count * 64; i++) hA[i] = hC[i] = (float)(i % 5);
    float *dA = dev_copy(hA, count * st), *dC = dev_copy(hC, count * st), *short_C = dev_copy(hC, 4 * st + 63);
    const float *la[count], *lb[count];
    float *lc[count];
    gemm_cuda_options wg = {};
    for (int i = 0; i < count; i++) { la[i] = dA + i * st; lb[i] = dA + i * st; lc[i] = dC + i * st; }
    /* the last member's C runs one element past its allocation */
    refused("strided C one element short",
            gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, dA, 8, st,
                                            dA, 8, st, 0, short_C, 8, st, count, NULL),
            GEMM_ERR_INVALID_ARG, "past the end", c_unchanged(short_C, hC, 4 * st + 63));
    refused("strided A past its allocation",
            gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, dA, 8, st + 1,
                                            dA, 8, 0, 0, dC, 8, st, count, NULL),
            GEMM_ERR_INVALID_ARG, "past the end", c_unchanged(dC, hC, count * st));
    lb[3] = host_member; /* a host pointer among device ones */
    refused("a host pointer as member 3's B",
            gemm_cuda_sgemm_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, la, 8, lb, 8, 0, lc,
                                    8, count, NULL),
            GEMM_ERR_INVALID_ARG, "member 3", c_unchanged(dC, hC, count * st));
    lb[3] = dA + 3 * st;
    lc[4] = dC + 2 * st + 1; /* member 4 writes into member 2's C */
    refused("members 2 and 4 writing one C",
            gemm_cuda_sgemm_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, la, 8, lb, 8, 0, lc,
                                    8, count, NULL),
            GEMM_ERR_INVALID_ARG, "members 2 and 4", c_unchanged(dC, hC, count * st));
    lc[4] = dC + 4 * st;
    lc[1] = NULL;
    refused("member 1's C NULL",
            gemm_cuda_sgemm_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, la, 8, lb, 8, 0, lc,
                                    8, count, NULL),
            GEMM_ERR_INVALID_ARG, "member 1", c_unchanged(dC, hC, count * st));
    lc[1] = dC + st;
    lc[2] = (float *)la[2]; /* member 2 writes over its own A */
    refused("member 2's C == its A (device pointers)",
            gemm_cuda_sgemm_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, la, 8, lb, 8, 0, lc,
                                    8, count, NULL),
            GEMM_ERR_INVALID_ARG, "member 2: C overlaps", c_unchanged(dA, hA, count * st));
    lc[2] = dC + 2 * st;
    refused("strided: every member's C over the next member's A (device pointers)",
            gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, dA + st, 8,
                                            st, dC, 8, st, 0, dA, 8, st, count - 1, NULL),
            GEMM_ERR_INVALID_ARG, "C overlaps", c_unchanged(dA, hA, count * st));
    refused("stride_c smaller than a member",
            gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, dA, 8, st,
                                            dA, 8, st, 0, dC, 8, 32, count, NULL),
            GEMM_ERR_INVALID_ARG, "stride_c", c_unchanged(dC, hC, count * st));
    wg.kernel = GEMM_CUDA_KERNEL_WGMMA;
    wg.math = GEMM_CUDA_MATH_TF32;
    refused("WGMMA forced on pointer arrays",
            gemm_cuda_sgemm_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, la, 8, lb, 8, 0, lc, 8,
                                    count, &wg),
            GEMM_ERR_UNAVAILABLE, "mma kernel", c_unchanged(dC, hC, count * st));
    refused("F16 A with BF16 B",
            gemm_cuda_sgemm_mixed_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, dA,
                                                  GEMM_F16, 8, st, dA, GEMM_BF16, 8, st, 0, dC, GEMM_F32, 8, st, count,
                                                  NULL),
            GEMM_ERR_INVALID_ARG, "a_type", c_unchanged(dC, hC, count * st));
    battery_check(gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, dA, 8,
                                                  st, dA, 8, st, 0, dC, 8, st, 0, NULL) == GEMM_OK &&
                      c_unchanged(dC, hC, count * st),
                  "batch_count = 0: GEMM_OK, nothing written");
    battery_check(gemm_cuda_sgemm_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, NULL, 8, NULL,
                                          8, 0, NULL, 8, 0, NULL) == GEMM_OK,
                  "pointer arrays, batch_count = 0, NULL lists: GEMM_OK");
    cudaFree(dA); cudaFree(dC); cudaFree(short_C);
}

/* ---- the host side of the checks, no GPU needed (--host) ---- */

/* Whether this process may read its own memory through process_vm_readv,
   the way the library tells unreadable host addresses from readable ones
   (else a stray list is read directly, and the tests of stray lists would
   crash). */
static int host_probe_works(void)
{
    char buf[8];
    struct iovec to = {buf, sizeof buf}, from = {(void *)(uintptr_t)16, sizeof buf};
    return process_vm_readv(getpid(), &to, 1, &from, 1, 0) < 0 && errno == EFAULT;
}

/* C overlapping A or B in a batch: refused before any CUDA call (so on the
   CPU too; the addresses are host arrays standing in for device memory),
   C untouched; members interleaved in one array are not refused. */
static void test_host_overlaps(void)
{
    static float X[5 * 128], keep[5 * 128], Y[5 * 64];
    static double D[5 * 64], keepd[5 * 64], E[5 * 64];
    gemm_status s;
    for (int i = 0; i < 5 * 128; i++) X[i] = keep[i] = (float)(i % 7);
    for (int i = 0; i < 5 * 64; i++) Y[i] = 1, D[i] = keepd[i] = (double)(i % 5), E[i] = 2;
    s = gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, X, 8, 64, Y, 8,
                                        64, 0, X, 8, 64, 5, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "member 0: C overlaps A") &&
                      !memcmp(X, keep, sizeof X),
                  "batch overlap: strided C == A refused, C untouched -> %d \"%s\"", (int)s, gemm_last_error_detail());
    s = gemm_cuda_dgemm_strided_batched(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, E, 8, 64, D + 128,
                                        8, 0, 1, D, 8, 64, 5, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "C overlaps B, which every member reads") &&
                      !memcmp(D, keepd, sizeof D),
                  "batch overlap: strided member 2's C over the B all members share refused -> %d \"%s\"", (int)s,
                  gemm_last_error_detail());
    /* F16 A and B (members 64 halves apart), F32 C: compared byte by byte */
    s = gemm_cuda_sgemm_mixed_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, X, GEMM_F16,
                                              8, 64, Y, GEMM_F16, 8, 64, 0, X + 96, GEMM_F32, 8, 64, 5, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "C overlaps member 3's A") &&
                      !memcmp(X, keep, sizeof X),
                  "batch overlap: mixed strided, F32 C over F16 A members refused -> %d \"%s\"", (int)s,
                  gemm_last_error_detail());
    s = gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, X, 8, 128, Y, 8,
                                        64, 0, X + 64, 8, 128, 5, NULL);
    battery_check(!strstr(gemm_last_error_detail(), "overlaps"),
                  "batch overlap: A and C members interleaved in one array are not refused as an overlap -> %d \"%s\"",
                  (int)s, gemm_last_error_detail());
}


/* When a grouped call runs as one launch of the tiny grouped kernel: every
   group with work small (m, n, k <= 64), the exact modes, options that
   keep the tiny kernel; the tile 16 only when every member fits it.
   The decision alone (gemm__cuda_grouped_all_tiny), on a described GPU. */
static void test_host_grouped_tiny(void)
{
    struct tcase {
        const char *what;
        int64_t m[3], n[3], k[3], size[3];
        float alpha[3];
        int major, math, kernel, split_k;
        bool want;
        int tile;
    } cs[] = {
        {"all tiny, up to 32", {16, 32, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 0, true, 32},
        {"all within 16", {16, 3, 8}, {16, 16, 1}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 0, true, 16},
        {"m = 33 in one group", {16, 33, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 0, true, 32},
        {"64 x 64 x 64", {64, 33, 8}, {64, 20, 8}, {64, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 0, true, 32},
        {"m = 65 in one group", {16, 65, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 0, false, 0},
        {"n = 65 in one group", {16, 32, 8}, {16, 20, 65}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 0, false, 0},
        {"k = 65 in one group", {16, 32, 8}, {16, 20, 8}, {16, 65, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 0, false, 0},
        {"the big group empty", {16, 300, 8}, {16, 20, 8}, {16, 64, 1}, {5, 0, 9}, {1, 1, 1}, 9, 0, 0, 0, true, 16},
        {"alpha = 0 in one group (C = beta C)", {16, 32, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 0, 1}, 9, 0, 0, 0,
         false, 0},
        {"every group empty", {16, 32, 8}, {16, 20, 8}, {16, 64, 1}, {0, 0, 0}, {1, 1, 1}, 9, 0, 0, 0, false, 0},
        {"compute capability 7.0", {16, 32, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 7, 0, 0, 0, false, 0},
        {"TF32", {16, 32, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 1, 0, 0, false, 0},
        {"a kernel forced", {16, 32, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 1, 0, false, 0},
        {"split_k = 2", {16, 32, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 2, false, 0},
        {"split_k = 1", {16, 32, 8}, {16, 20, 8}, {16, 64, 1}, {5, 1, 9}, {1, 1, 1}, 9, 0, 0, 1, true, 32},
    };
    for (const tcase &c : cs) {
        gemm_transpose ta[3] = {GEMM_NO_TRANS, GEMM_TRANS, GEMM_NO_TRANS}, tb[3] = {GEMM_TRANS, GEMM_NO_TRANS, GEMM_NO_TRANS};
        int64_t ld[3];
        float beta[3] = {0, 1.5f, 0};
        gemm__problem p[3];
        gemm__cuda_gpu gpu = {0, c.major, 0, 132, 233472, 232448, 1024}; /* an H100's SMs and shared memory */
        gemm_cuda_options o = {};
        int tile = -1;
        bool ok = true;
        for (int i = 0; i < 3; i++) {
            ld[i] = 400;
            ok = ok && gemm__prepare("grouped tiny", GEMM_ROW_MAJOR, ta[i], tb[i], c.m[i], c.n[i], c.k[i],
                                     c.alpha[i] == 0, 1, ld[i], 1, ld[i], beta[i] == 1, 1, ld[i], &p[i]) == GEMM_OK;
        }
        if (c.math) o.math = GEMM_CUDA_MATH_TF32;
        if (c.kernel) o.kernel = GEMM_CUDA_KERNEL_SIMT;
        o.split_k = c.split_k;
        gemm__cuda_groups<float> g = {GEMM_ROW_MAJOR, ta, tb, c.m, c.n, c.k, ld, ld, ld, c.size, c.alpha, beta, 3};
        bool got = ok && gemm__cuda_grouped_all_tiny<float>(g, p, &o, &gpu, &tile);
        battery_check(ok && got == c.want && (!got || tile == c.tile), "grouped tiny: %s -> %s (want %s), tile %d", c.what,
                      got ? "one launch" : "group by group", c.want ? "one launch" : "group by group", got ? tile : 0);
    }
}

/* Grouped batches' argument checks: before any CUDA call, so on the CPU
   too (host arrays stand in for the lists; nothing is read). */
static void test_host_grouped(void)
{
    static float X[64];
    const float *A[3] = {X, X, X}, *B[3] = {X, X, X};
    float *C[3] = {X, X, X};
    gemm_transpose ta[2] = {GEMM_NO_TRANS, GEMM_TRANS}, tb[2] = {GEMM_NO_TRANS, GEMM_NO_TRANS};
    int64_t m[2] = {2, 3}, n[2] = {2, 3}, k[2] = {2, 3}, lda[2] = {2, 3}, ldb[2] = {2, 3}, ldc[2] = {2, 3},
            size[2] = {1, 2};
    float alpha[2] = {1, 1}, beta[2] = {0, 0};
    gemm_status s;
#define GROUPED(...) gemm_cuda_sgemm_grouped_batched(0, GEMM_COL_MAJOR, __VA_ARGS__)
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, -1, size, NULL);
    refused("grouped: group_count = -1", s, GEMM_ERR_INVALID_ARG, "group_count = -1 is negative", 1);
    s = GROUPED(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL);
    battery_check(s == GEMM_OK, "grouped: group_count = 0 with NULL arrays: GEMM_OK");
    s = GROUPED(ta, tb, NULL, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, size, NULL);
    refused("grouped: a NULL m_array", s, GEMM_ERR_INVALID_ARG, "m_array is NULL", 1);
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, NULL, NULL);
    refused("grouped: a NULL group_size", s, GEMM_ERR_INVALID_ARG, "group_size is NULL", 1);
    size[1] = -2;
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, size, NULL);
    refused("grouped: group_size[1] = -2", s, GEMM_ERR_INVALID_ARG, "group_size[1] = -2 is negative", 1);
    size[1] = 2;
    m[1] = -1;
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, size, NULL);
    refused("grouped: m = -1 in group 1", s, GEMM_ERR_INVALID_ARG, "group 1", 1);
    m[1] = 3;
    lda[1] = 2; /* group 1's op(A) is transposed: lda must hold k = 3 */
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, size, NULL);
    refused("grouped: lda below k in group 1 (transposed A)", s, GEMM_ERR_INVALID_ARG, "group 1", 1);
    lda[1] = 3;
    ldc[0] = 1;
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, size, NULL);
    refused("grouped: ldc below m in group 0", s, GEMM_ERR_INVALID_ARG, "group 0", 1);
    ldc[0] = 2;
    gemm_cuda_options o = {};
    o.split_k = -1;
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, size, &o);
    refused("grouped: options.split_k = -1", s, GEMM_ERR_INVALID_ARG, "split_k", 1);
    o = gemm_cuda_options{};
    o.math = GEMM_CUDA_MATH_TF32; /* fp32 on the tensor cores: their kernels' checks */
    o.kernel = GEMM_CUDA_KERNEL_DMMA;
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, size, &o);
    refused("grouped: TF32 with the DMMA kernel", s, GEMM_ERR_INVALID_ARG, "not a tensor-core kernel", 1);
    o.kernel = GEMM_CUDA_KERNEL_AUTO;
    {
        double da[2] = {1, 1}, db[2] = {0, 0};
        const double *dl[3] = {NULL, NULL, NULL};
        double *dcl[3] = {NULL, NULL, NULL};
        s = gemm_cuda_dgemm_grouped_batched(0, GEMM_COL_MAJOR, ta, tb, m, n, k, da, dl, lda, dl, ldb, db, dcl, ldc, 2,
                                            size, &o);
        refused("grouped: fp64 with TF32", s, GEMM_ERR_INVALID_ARG, "options.math", 1);
    }
    o = gemm_cuda_options{};
    o.verify = 1;
    s = GROUPED(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 2, size, &o);
    refused("grouped: options.verify", s, GEMM_ERR_INVALID_ARG, "not for batches", 1);
    double dalpha[2] = {0, 0}, dbeta[2] = {1, 1};
    const double *dA[3] = {NULL, NULL, NULL};
    double *dC[3] = {NULL, NULL, NULL};
    n[0] = 0; /* every group without work (no columns; alpha = 0, beta = 1): nothing read, GEMM_OK */
    s = gemm_cuda_dgemm_grouped_batched(0, GEMM_ROW_MAJOR, ta, tb, m, n, k, dalpha, dA, lda, dA, ldb, dbeta, dC, ldc,
                                        2, size, NULL);
    battery_check(s == GEMM_OK, "grouped: every group C = 1*C: GEMM_OK, no list read (%s)", gemm_last_error_detail());
#undef GROUPED
}

static void test_host_side(void)
{
    uint64_t b = 0, e = 0;
    /* a host allocation at 0x10000 whose alias is the device range [0x7000000, +0x400) */
    bool in = gemm__cuda_alias_span(0x10000 + 0x40, 0x7000000 + 0x40, 0x7000000, 0x400, &b, &e);
    battery_check(in && b == 0x10000 && e == 0x10400,
                  "alias span: an address 0x40 into a mapped allocation of 0x400 bytes gives [0x10000, 0x10400) "
                  "(got [0x%llx, 0x%llx))", (unsigned long long)b, (unsigned long long)e);
    battery_check(gemm__cuda_alias_span(0x5000, 0x5000, 0x5000, 0x100, &b, &e) && b == 0x5000 && e == 0x5100,
                  "alias span: the same address on both sides (UVA) gives the device range");
    battery_check(!gemm__cuda_alias_span(0x10000, 0x7000400, 0x7000000, 0x400, &b, &e),
                  "alias span: an alias one past its range is refused");
    battery_check(!gemm__cuda_alias_span(0x10000, 0x6ffffff, 0x7000000, 0x400, &b, &e),
                  "alias span: an alias before its range is refused");
    battery_check(!gemm__cuda_alias_span(0x20, 0x7000040, 0x7000000, 0x400, &b, &e),
                  "alias span: a range that would start below address 0 is refused");
    battery_check(!gemm__cuda_alias_span(UINT64_MAX - 0x10, 0x7000000, 0x7000000, 0x400, &b, &e),
                  "alias span: a range past 2^64 is refused");

    /* where a list lives, from cudaPointerGetAttributes' answer */
    cudaPointerAttributes at = {};
    static const struct { cudaMemoryType type; int home; const char *name; } homes[] = {
        {cudaMemoryTypeUnregistered, GEMM__CUDA_LIST_HOST, "pageable host memory: read on the host"},
        {cudaMemoryTypeHost, GEMM__CUDA_LIST_HOST, "page-locked host memory: read on the host"},
        {cudaMemoryTypeDevice, GEMM__CUDA_LIST_DEVICE, "device memory: copied from the device"},
        {cudaMemoryTypeManaged, GEMM__CUDA_LIST_DEVICE, "managed memory: copied from the device"},
        {(cudaMemoryType)77, GEMM__CUDA_LIST_UNKNOWN, "a memory type this code does not know: refused"},
    };
    for (const auto &h : homes) {
        at.type = h.type;
        battery_check(gemm__cuda_list_home(cudaSuccess, &at) == h.home, "list home: %s", h.name);
    }
    at.type = cudaMemoryTypeDevice;
    battery_check(gemm__cuda_list_home(cudaErrorInvalidValue, &at) == GEMM__CUDA_LIST_UNKNOWN,
                  "list home: an address the runtime refuses (cudaErrorInvalidValue) is refused, whatever *at holds");
    battery_check(gemm__cuda_list_home(cudaErrorNoDevice, &at) == GEMM__CUDA_LIST_FAILED,
                  "list home: another runtime error is the runtime's failure");

    /* reading a host list without faulting */
    size_t n = 1 << 20;
    char *src = (char *)malloc(n), *dst = (char *)malloc(n);
    for (size_t i = 0; i < n; i++) src[i] = (char)(i * 7);
    battery_check(gemm__cuda_read_host(dst, src, n) && memcmp(dst, src, n) == 0, "read host: 1 MiB read whole");
    if (!host_probe_works()) {
        battery_skip("read host: unreadable addresses", "process_vm_readv is not allowed here (the library then "
                     "reads host lists directly)");
    } else {
        long page = sysconf(_SC_PAGESIZE);
        char *two = (char *)mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        battery_check(two != MAP_FAILED && mprotect(two + page, (size_t)page, PROT_NONE) == 0, "read host: a page "
                      "no one may read after a readable one");
        memset(two, 5, (size_t)page);
        battery_check(!gemm__cuda_read_host(dst, (const void *)(uintptr_t)16, 8), "read host: address 16 refused");
        battery_check(!gemm__cuda_read_host(dst, two + page, 8), "read host: a PROT_NONE page refused");
        battery_check(!gemm__cuda_read_host(dst, two + page - 8, 16),
                      "read host: a list whose second half lies in a PROT_NONE page refused");
        battery_check(gemm__cuda_read_host(dst, two + page - 8, 8) && dst[0] == 5 && dst[7] == 5,
                      "read host: the last 8 readable bytes before it read");
        munmap(two, 2 * (size_t)page);
    }
    free(src);
    free(dst);
    test_host_overlaps();
    test_host_grouped();
    test_host_grouped_tiny();
}

/* ---- the lists of a pointer-array batch in host, device or managed memory ---- */

__global__ void spin_kernel(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

/* The pointer-array call of T (A, B) and TC (C) on `stream`, the lists
   anywhere. */
template <typename T, typename TC>
static gemm_status call_lists(cudaStream_t stream, const big_case &bc, int64_t lda, int64_t ldb, int64_t ldc,
                              float alpha, float beta, const void *const *la, const void *const *lb, void *const *lc,
                              int64_t count)
{
    if constexpr (sizeof(T) == 2) {
        gemm_precision pt = std::is_same<T, __half>::value ? GEMM_F16 : GEMM_BF16,
                       pc = std::is_same<TC, float>::value ? GEMM_F32 : pt;
        return gemm_cuda_sgemm_mixed_batched(stream, bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, alpha, la, pt, lda, lb,
                                             pt, ldb, beta, lc, pc, ldc, count, NULL);
    } else if constexpr (sizeof(T) == 4) {
        return gemm_cuda_sgemm_batched(stream, bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, alpha, (const float *const *)la,
                                       lda, (const float *const *)lb, ldb, beta, (float *const *)lc, ldc, count, NULL);
    } else {
        return gemm_cuda_dgemm_batched(stream, bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, (double)alpha,
                                       (const double *const *)la, lda, (const double *const *)lb, ldb, (double)beta,
                                       (double *const *)lc, ldc, count, NULL);
    }
}

/* A batch of 7 members, its lists (members in a shuffled order) in host
   memory, then in device memory (cudaMalloc, cudaMallocAsync), managed
   memory, page-locked host memory, and in device memory written on a
   non-blocking stream just before the call on that stream: every run the
   host lists' bits. T: A and B, TC: C. */
template <typename T, typename TC>
static void device_lists(const char *what)
{
    const big_case bc = {40, 24, 56, 7, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 0, 1};
    const int64_t count = bc.count, lda = 40, ldb = 24, ldc = 40;
    size_t e[3], lbytes = (size_t)count * sizeof(void *);
    extents(bc.layout, bc.ta, bc.tb, bc.m, bc.n, bc.k, lda, ldb, ldc, e);
    int64_t st[3];
    for (int x = 0; x < 3; x++) st[x] = (int64_t)(e[x] + 7) / 8 * 8;
    size_t total[3] = {(size_t)(st[0] * count), (size_t)(st[1] * count), (size_t)(st[2] * count)};
    uint64_t state = 777;
    T *hA = (T *)malloc(total[0] * sizeof(T)), *hB = (T *)malloc(total[1] * sizeof(T));
    TC *hC = (TC *)malloc(total[2] * sizeof(TC)), *ref = (TC *)malloc(total[2] * sizeof(TC)),
       *got = (TC *)malloc(total[2] * sizeof(TC));
    for (size_t i = 0; i < total[0]; i++) hA[i] = from_double<T>(battery_uniform(&state));
    for (size_t i = 0; i < total[1]; i++) hB[i] = from_double<T>(battery_uniform(&state));
    for (size_t i = 0; i < total[2]; i++) hC[i] = from_double<TC>(battery_uniform(&state));
    T *dA = dev_copy(hA, total[0]), *dB = dev_copy(hB, total[1]);
    TC *dC = dev_copy(hC, total[2]);
    void *host[3 * 7];
    for (int64_t i = 0; i < count; i++) { /* member i in slot 3i mod 7 */
        int64_t slot = i * 3 % count;
        host[i] = dA + slot * st[0];
        host[count + i] = dB + slot * st[1];
        host[2 * count + i] = dC + slot * st[2];
    }
    gemm_status s = call_lists<T, TC>(0, bc, lda, ldb, ldc, 0.75f, -0.5f, host, host + count, host + 2 * count, count);
    dev_back(ref, dC, total[2]);
    battery_check(s == GEMM_OK, "%s: host lists: runs (%s)", what, s == GEMM_OK ? "ok" : gemm_last_error_detail());
    static const char *const kinds[] = {"cudaMalloc", "cudaMallocAsync", "cudaMallocManaged", "cudaHostAlloc",
                                        "cudaMalloc, written on a non-blocking stream just before the call there"};
    for (int kind = 0; kind < 5 && s == GEMM_OK; kind++) {
        void **l = NULL, **staged = NULL;
        cudaStream_t stream = 0;
        stop_on(cudaMemcpy(dC, hC, total[2] * sizeof(TC), cudaMemcpyHostToDevice), "to device");
        if (kind == 0 || kind == 4) stop_on(cudaMalloc((void **)&l, 3 * lbytes), "cudaMalloc (lists)");
        if (kind == 1) stop_on(cudaMallocAsync((void **)&l, 3 * lbytes, 0), "cudaMallocAsync (lists)");
        if (kind == 2) stop_on(cudaMallocManaged((void **)&l, 3 * lbytes), "cudaMallocManaged (lists)");
        if (kind == 3) stop_on(cudaHostAlloc((void **)&l, 3 * lbytes, cudaHostAllocDefault), "cudaHostAlloc (lists)");
        if (kind == 4) { /* the lists are zeros until the stream, after ~10 ms of spinning, copies them */
            stop_on(cudaMemset(l, 0, 3 * lbytes), "cudaMemset");
            stop_on(cudaHostAlloc((void **)&staged, 3 * lbytes, cudaHostAllocDefault), "cudaHostAlloc");
            memcpy(staged, host, 3 * lbytes); /* page-locked: the copy below is queued, not made at once */
            stop_on(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
            spin_kernel<<<1, 1, 0, stream>>>(20 * 1000 * 1000);
            stop_on(cudaMemcpyAsync(l, staged, 3 * lbytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
        } else {
            stop_on(cudaMemcpy(l, host, 3 * lbytes, cudaMemcpyDefault), "the lists");
        }
        s = call_lists<T, TC>(stream, bc, lda, ldb, ldc, 0.75f, -0.5f, l, l + count, l + 2 * count, count);
        dev_back(got, dC, total[2]);
        battery_check(s == GEMM_OK && memcmp(got, ref, total[2] * sizeof(TC)) == 0,
                      "%s: lists in %s memory (%s): the host lists' bits (%s)", what, kinds[kind],
                      kind == 3 ? "page-locked host" : kind == 2 ? "managed" : "device",
                      s == GEMM_OK ? "ok" : gemm_last_error_detail());
        if (kind == 3) cudaFreeHost(l);
        else cudaFree(l);
        if (stream) cudaStreamDestroy(stream);
        if (staged) cudaFreeHost(staged);
    }
    free(hA); free(hB); free(hC); free(ref); free(got);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}

/* Device lists are checked like host ones, before anything is queued;
   a list the host and the runtime cannot read is refused, never read. */
static void device_list_refusals(void)
{
    const int64_t count = 5, st = 64;
    float hA[count * 64], hC[count * 64];
    for (int i = 0; i < count * 64; i++) hA[i] = hC[i] = (float)(i % 5);
    float *dA = dev_copy(hA, count * st), *dC = dev_copy(hC, count * st);
    const float *la[count], *lb[count];
    float *lc[count];
    for (int i = 0; i < count; i++) { la[i] = dA + i * st; lb[i] = dA + i * st; lc[i] = dC + i * st; }
    const float **dla = NULL, **dlb = NULL;
    float **dlc = NULL, **short_lc = NULL;
    stop_on(cudaMalloc((void **)&dla, sizeof la), "cudaMalloc");
    stop_on(cudaMalloc((void **)&dlb, sizeof lb), "cudaMalloc");
    stop_on(cudaMalloc((void **)&dlc, sizeof lc), "cudaMalloc");
    stop_on(cudaMalloc((void **)&short_lc, sizeof lc - sizeof lc[0]), "cudaMalloc");
    auto put = [](void *d, const void *h, size_t n) { stop_on(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice), "list"); };
    auto call = [&](const float *const *a, const float *const *b, float *const *c, float alpha) {
        return gemm_cuda_sgemm_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, alpha, a, 8, b, 8, 0,
                                       c, 8, count, NULL);
    };
    put(dla, la, sizeof la); put(dlb, lb, sizeof lb); put(dlc, lc, sizeof lc);
    put(short_lc, lc, sizeof lc - sizeof lc[0]);
    /* the call, then C as it was (refused() could read C before the call were both its arguments) */
    auto refused_now = [&](const char *what, gemm_status s, const char *needle) {
        refused(what, s, GEMM_ERR_INVALID_ARG, needle, c_unchanged(dC, hC, count * st));
    };
    refused_now("device list: C's list holds 4 of 5 pointers", call(dla, dlb, short_lc, 1), "past the end");
    float host_member[64];
    lb[3] = host_member;
    put(dlb, lb, sizeof lb);
    refused_now("device list: a host pointer as member 3's B", call(dla, dlb, dlc, 1), "member 3");
    lb[3] = dA + 3 * st;
    put(dlb, lb, sizeof lb);
    lc[4] = dC + 2 * st + 1;
    put(dlc, lc, sizeof lc);
    refused_now("device list: members 2 and 4 writing one C", call(dla, dlb, dlc, 1), "members 2 and 4");
    lc[4] = dC + 4 * st;
    lc[1] = NULL;
    put(dlc, lc, sizeof lc);
    refused_now("device list: member 1's C NULL", call(dla, dlb, dlc, 1), "member 1");
    lc[1] = dC + st;
    put(dlc, lc, sizeof lc);
    /* lists no one can read: refused, not read */
    if (!host_probe_works()) {
        battery_skip("lists at addresses nothing can read", "process_vm_readv is not allowed here, so the library "
                     "reads such a list directly");
    } else {
        const float **stray = (const float **)(uintptr_t)16, **freed = NULL;
        stop_on(cudaMalloc((void **)&freed, sizeof la), "cudaMalloc");
        put(freed, la, sizeof la);
        cudaFree(freed);
        long page = sysconf(_SC_PAGESIZE);
        void *none = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        (void)cudaGetLastError();
        refused_now("A's list at address 16", call(stray, dlb, dlc, 1), "list of member pointers");
        refused_now("A's list in freed device memory", call(freed, dlb, dlc, 1), "list of member pointers");
        refused_now("C's list in host memory no one may read", call(dla, dlb, (float *const *)none, 1),
                    "list of member pointers");
        battery_check(cudaGetLastError() == cudaSuccess, "the refused lists leave no CUDA error behind");
        /* alpha = 0: A and B are not read, so stray lists there are no error */
        gemm_status s = call(stray, stray, dlc, 0);
        battery_check(s == GEMM_OK && cudaDeviceSynchronize() == cudaSuccess,
                      "alpha = 0 with stray A and B lists: GEMM_OK (%s)", s == GEMM_OK ? "ok" : gemm_last_error_detail());
        float now[count * 64];
        dev_back(now, dC, count * st);
        int zero = 1;
        for (int i = 0; i < count * 64; i++) zero = zero && now[i] == 0;
        battery_check(zero, "alpha = 0, beta = 0 with device lists: every member's C is 0");
        munmap(none, (size_t)page);
    }
    cudaFree(dla); cudaFree(dlb); cudaFree(dlc); cudaFree(short_lc);
    cudaFree(dA); cudaFree(dC);
}

/* Uploads through the slots (host/uploads.cuh): calls queued behind a
   long kernel take the free slots, then, finding each slot's copy still
   queued, go through the pool; every call's C is the bits the same call
   gives on an idle stream, so no call's lists were overwritten by a
   later call's before the stream copied them. After the stream is done,
   a call takes a slot again. */
static void test_upload_slots(void)
{
    enum { CALLS = 10, COUNT = 7, ST = 64 };
    float hA[COUNT * ST], hC[CALLS * COUNT * ST];
    for (int i = 0; i < COUNT * ST; i++) hA[i] = (float)((i * 7) % 13) - 6.0f;
    for (int i = 0; i < CALLS * COUNT * ST; i++) hC[i] = (float)(i % 5);
    float *dA = dev_copy(hA, COUNT * ST), *dC = dev_copy(hC, CALLS * COUNT * ST);
    std::vector<float> want(CALLS * COUNT * ST), got(CALLS * COUNT * ST);
    const float *la[CALLS][COUNT];
    float *lc[CALLS][COUNT];
    int route[CALLS];
    cudaStream_t stream;
    stop_on(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    auto call = [&](cudaStream_t st, int c) { /* call c: member i reads A's member (i + c) % COUNT */
        for (int i = 0; i < COUNT; i++) {
            la[c][i] = dA + (i + c) % COUNT * ST;
            lc[c][i] = dC + (c * COUNT + i) * ST;
        }
        return gemm_cuda_sgemm_batched(st, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 8, 8, 8, 1.0f + c, la[c], 8,
                                       la[c], 8, 0.5f, lc[c], 8, COUNT, NULL);
    };
    bool ok = true;
    for (int c = 0; c < CALLS; c++) ok = ok && call(0, c) == GEMM_OK; /* on an idle stream, one after another */
    stop_on(cudaDeviceSynchronize(), "sync");
    dev_back(want.data(), dC, want.size());
    battery_check(ok, "upload slots: %d calls on an idle stream run (%s)", CALLS, gemm_last_error_detail());
    stop_on(cudaMemcpy(dC, hC, sizeof hC, cudaMemcpyHostToDevice), "to device");
    spin_kernel<<<1, 1, 0, stream>>>(20 * 1000 * 1000);
    for (int c = 0; c < CALLS; c++) {
        ok = ok && call(stream, c) == GEMM_OK;
        route[c] = gemm__cuda_upload_last_slot;
        memset(la[c], 0, sizeof la[c]); /* the caller's lists may change once the call returns */
        memset(lc[c], 0, sizeof lc[c]);
    }
    int slots = 0, pooled = 0;
    for (int c = 0; c < CALLS; c++) {
        slots += route[c] >= 0;
        pooled += route[c] == -1 && c >= GEMM__CUDA_SLOTS;
    }
    stop_on(cudaStreamSynchronize(stream), "sync");
    dev_back(got.data(), dC, got.size());
    battery_check(ok && got == want, "upload slots: %d calls behind a 10 ms kernel give the idle stream's bits (%s)",
                  CALLS, ok ? "ok" : gemm_last_error_detail());
    battery_check(slots == GEMM__CUDA_SLOTS && pooled == CALLS - GEMM__CUDA_SLOTS,
                  "upload slots: behind the kernel, the first %d calls take the %d slots and the other %d the pool "
                  "(slots %d, pool %d)", GEMM__CUDA_SLOTS, GEMM__CUDA_SLOTS, CALLS - GEMM__CUDA_SLOTS, slots, pooled);
    ok = call(stream, 0) == GEMM_OK;
    battery_check(ok && gemm__cuda_upload_last_slot >= 0, "upload slots: on the idle stream again, a call takes a "
                  "slot (slot %d)", gemm__cuda_upload_last_slot);
    /* gemm_cuda_release_scratch gives the slots back (after the call above is done); the next call makes them again */
    battery_check(gemm_cuda_release_scratch() == GEMM_OK && gemm__cuda_device_slots(0)->state.load() == 0,
                  "upload slots: gemm_cuda_release_scratch frees them (state %d)",
                  gemm__cuda_device_slots(0)->state.load());
    stop_on(cudaMemcpy(dC, hC, sizeof hC, cudaMemcpyHostToDevice), "to device");
    ok = call(stream, 3) == GEMM_OK;
    int remade = gemm__cuda_upload_last_slot;
    stop_on(cudaStreamSynchronize(stream), "sync");
    dev_back(got.data(), dC, got.size());
    battery_check(ok && remade >= 0 && std::equal(got.begin() + 3 * COUNT * ST, got.begin() + 4 * COUNT * ST,
                                                  want.begin() + 3 * COUNT * ST),
                  "upload slots: after the release, a call makes them again (slot %d) and gives its bits", remade);
    stop_on(cudaStreamSynchronize(stream), "sync");
    cudaStreamDestroy(stream);
    cudaFree(dA); cudaFree(dC);
}

static void test_device_lists(void)
{
    device_lists<float, float>("sgemm_batched");
    device_lists<double, double>("dgemm_batched");
    device_lists<__half, float>("sgemm_mixed_batched f16 -> f32");
    device_lists<__nv_bfloat16, __nv_bfloat16>("sgemm_mixed_batched bf16 -> bf16");
    device_list_refusals();
    test_upload_slots();
}

/* ---- host memory mapped for the device: C's extent checked as on the device ---- */

/* Members of 8 x 8 x 8, C_i = A_i * A_i with A's members 64 floats apart
   (small integers: every kernel gives the exact products): C holds
   members st floats apart from c (the device's address of it). */
static gemm_status mapped_call(const float *dA, float *c, int64_t st, int64_t count)
{
    return gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, dA, 8, 64, dA,
                                           8, 64, 0, c, 8, st, count, NULL);
}

/* C's count members, st floats apart in host memory, are A_i * A_i. */
static int mapped_right(const float *hC, int64_t st, int64_t count, const float *hA)
{
    for (int64_t i = 0; i < count; i++)
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) {
                float want = 0;
                for (int p = 0; p < 8; p++) want += hA[i * 64 + r + p * 8] * hA[i * 64 + p + c * 8];
                if (hC[i * st + r + c * 8] != want) return 0;
            }
    return 1;
}

/* One C in mapped host memory (host address hC, holding 4 members st
   floats apart and nothing more): 5 members refused with C as it was, 4
   computed. */
static void mapped_case(const char *what, const float *dA, const float *hA, float *hC, int64_t st)
{
    float *dC = NULL, *before = (float *)malloc(sizeof(float) * 4 * st);
    for (int64_t i = 0; i < 4 * st; i++) hC[i] = (float)(i % 3) + 0.5f;
    memcpy(before, hC, sizeof(float) * 4 * st);
    stop_on(cudaHostGetDevicePointer((void **)&dC, hC, 0), "cudaHostGetDevicePointer");
    gemm_status s = mapped_call(dA, dC, st, 5);
    stop_on(cudaDeviceSynchronize(), "after the call");
    char name[160];
    snprintf(name, sizeof name, "%s: 5 members in room for 4", what);
    refused(name, s, GEMM_ERR_INVALID_ARG, "past the end", memcmp(before, hC, sizeof(float) * 4 * st) == 0);
    s = mapped_call(dA, dC, st, 4);
    stop_on(cudaDeviceSynchronize(), "after the call");
    battery_check(s == GEMM_OK && mapped_right(hC, st, 4, hA), "%s: 4 members in room for 4 computed (%s)", what,
                  s == GEMM_OK ? "ok" : gemm_last_error_detail());
    free(before);
}

static void test_mapped(void)
{
    const int64_t count = 5;
    long page = sysconf(_SC_PAGESIZE);
    int64_t st_page = page / 16 > 64 ? page / 16 : 64; /* 4 members fill whole pages */
    float hA[count * 64], *hC = NULL;
    for (int i = 0; i < count * 64; i++) hA[i] = (float)(i % 5) - 2;
    float *dA = dev_copy(hA, count * 64);
    /* the allocation exactly 4 members long, and one of whole pages (were the driver to give a
       mapped allocation's range in pages, the first would pass and the second not) */
    stop_on(cudaHostAlloc((void **)&hC, sizeof(float) * 4 * 64, cudaHostAllocMapped), "cudaHostAlloc");
    mapped_case("C in cudaHostAlloc'd mapped memory (1 KiB)", dA, hA, hC, 64);
    cudaFreeHost(hC);
    stop_on(cudaHostAlloc((void **)&hC, sizeof(float) * 4 * st_page, cudaHostAllocMapped), "cudaHostAlloc");
    mapped_case("C in cudaHostAlloc'd mapped memory (whole pages)", dA, hA, hC, st_page);
    cudaFreeHost(hC);
    /* registered memory: whole pages, then a page that is not registered */
    void *region = NULL;
    if (posix_memalign(&region, (size_t)page, sizeof(float) * 4 * st_page + (size_t)page) != 0) stop_on(cudaErrorMemoryAllocation, "posix_memalign");
    stop_on(cudaHostRegister(region, sizeof(float) * 4 * st_page, cudaHostRegisterMapped), "cudaHostRegister");
    mapped_case("C in cudaHostRegister'ed memory (whole pages)", dA, hA, (float *)region, st_page);
    cudaHostUnregister(region);
    free(region);
    cudaFree(dA);
}

int main(int argc, char **argv)
{
    int devices = 0;
    small_run = getenv("GEMM_CUDA_TEST_SMALL") != NULL;
    test_host_side();
    if (argc > 1 && !strcmp(argv[1], "--host")) return battery_summary();
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("FAIL no CUDA device: run this on a GPU machine (--host: the checks that need none)\n");
        battery_failed++;
        return battery_summary();
    }
    if (argc > 1 && !strcmp(argv[1], "--tiny")) { /* the tiny members and grouped batches alone (memcheck's run) */
        test_tiny();
        test_grouped();
        return battery_summary();
    }
    {
        gemm_cuda_options o = {};
        battery_cuda_batch("cuda batch auto", &o, 0, 0);
        o.math = GEMM_CUDA_MATH_TF32;
        battery_cuda_batch("cuda batch tf32", &o, 1, 1.0 / 1024);
    }
    test_big();
    test_tiny();
    test_grouped();
    test_many_and_shared();
    test_refusals();
    test_device_lists();
    test_mapped(); /* last: were a check to let a member past its allocation, the device might fault */
    return battery_summary();
}
