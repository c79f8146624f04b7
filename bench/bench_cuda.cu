/* bench/bench_cuda.cu - gemm's CUDA backend beside cuBLAS, in one process.

   make bench-cuda                 the default tables (needs a GPU)
   build/bench_cuda [--sizes 1024,2048] [--shapes m:n:k,...] [--prec f32,f64,tf32,f16,bf16,acc]
                    [--kernel auto|simt|dmma|mma|wgmma|tiled16|naive] [--host 64,256,...]
                    [--csv FILE] [--quick] [--variants 1,2,...] [--configs v:g:G:s[:e:r],...]
                    [--trans NN,TN,NT,TT] [--acc-sizes 2048,4096,...] [--nt-copy-min n]
                    [--stream-k n]

   --prec: f32 and f64 unless named (make bench-cuda names them all). The
   tensor-core modes, each beside cublasGemmEx with the same types, math and
   transposes: tf32 (gemm_cuda_sgemm with options.math =
   GEMM_CUDA_MATH_TF32; CUBLAS_COMPUTE_32F_FAST_TF32), f16 and bf16
   (gemm_cuda_sgemm_mixed with C of the input type; CUBLAS_COMPUTE_32F,
   float alpha and beta). Their default shapes are the shapes of bench/RESULTS.md's tensor-core table: squares
   1024..16384 (4096 also TN, NT and TT), 4096x4096x256, 256x4096x4096,
   4096x256x4096, 1000^3, 8192x8192x1024, 16384x128x16384; --sizes and
   --shapes replace them, each in the transposes of --trans (NN unless
   given). Inputs are [-0.5, 0.5) converted to the type.
   acc: the fp32-accurate mode (options.math = GEMM_CUDA_MATH_FP32_ACCURATE)
   beside cublasSgemm and beside our exact fp32 kernel (SIMT), interleaved,
   at the squares of --acc-sizes (default 1024..16384), with each one's max
   |err| / max |ref| over 256 sampled elements against fp64 sums, on inputs
   in [-1, 1] and on inputs spread over 2^-20..2^20 (and cuBLAS TF32's,
   for scale).

   fp32 and fp64 with the default shapes, kernel and variant print issue
   13's table instead (bench_exact13): row-major 1024^3, 2048^3 and 4096^3
   in all four transposes, 8192^3, 16384^3 (fp32), 256x4096x4096,
   4096x4096x256, 8192x8192x1024, 16384x128x16384, fp32 and fp64 beside
   cublasSgemm / cublasDgemm, inputs in [-1, 1) rotated over several sets
   while one set fits in L2 three times, calls under 0.3 ms timed in bursts,
   2 warm-ups, 9 interleaved pairs (alternating order), the median; what
   ours ran (configuration, layouts read, K parts, operand copies); each
   result compared with cuBLAS's on 256 elements (over 8 eps k: WRONG); a
   summary per precision (geomean, min, cells below the issue's bar).

   --nt-copy-min: fp32 and fp64 calls with both operands k-major (row-major
   NT) copy one of them transposed from this larger side on (the plan's
   GEMM__CUDA_DMMA_NT_COPY_MIN and fp32's 2048 by default; a side above
   every shape's: never), so that one binary measures both forms.

   --stream-k: stream-K on the fp64 TMA kernel and the fp32 128 x 64 and
   64 x 128 blocks (exact_run.cuh): -1 never, n > 0 on a grid of n blocks
   wherever the tiles are more; the automatic rule otherwise.

   --variants: each listed gemm_cuda_options.variant (0 = automatic; the
   tensor-core modes' WGMMA tile: 1 = 256 x 128, 2 = 128 x 128, 3 = 128 x 64) on each
   shape, each beside its own cuBLAS runs; a wrong result is reported and
   the sweep goes on. --configs does the same for WGMMA schedules, each
   v:g:G:s[:e:r] = options.variant, the raster group (test hook; < 0 along
   N, 0 the default), the grid (test hook; -1 a block per unit, 0
   persistent), options.split_k, and two more test hooks: the epilogue (3
   the copy engine's where it applies, 1 staged through shared memory, 2
   straight from the registers, 0 the default: 3) and how a split K is summed (1 a separate kernel, 2 by the part
   that finishes last, 0 the default); with --kernel simt or dmma, the
   exact kernels' configurations (gemm_cuda.cuh's doc block). (The research
   kernels: bench/research/exact/.)

   Protocol (docs/DESIGN.md, "Measuring"): row-major NN, inputs in [-0.5, 0.5)
   already on the device, a warm-up call each, then ours and cuBLAS's calls
   interleaved (A B A B), each timed with CUDA events; the median of the
   repeats (at least 5, more while they fit in about half a second) with
   min and max. Every result is checked once on 64 sampled elements
   against fp64 sums on the host (of the inputs as converted, for the
   tensor-core modes: tolerance at tc_sampled_ok). cuBLAS is linked here only.
   The host-pointer table times gemm_cuda_?gemm_host end to end (wall clock,
   allocation included) per mode, with the call's own breakdown. */
#define GEMM_IMPLEMENTATION
#define GEMM__TEST_HOOKS /* --configs: the WGMMA schedule's raster group and grid; gemm__cuda_exact_last(): what ran */
#include "../gemm_cuda.cuh"
#include "../tests/battery.h"

#include <chrono>
#include <cublas_v2.h>

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) { fprintf(stderr, "bench: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } \
    } while (0)

/* The tables' precisions: the battery's two, then the tensor-core modes. */
typedef enum bench_prec { PREC_F32, PREC_F64, PREC_TF32, PREC_F16, PREC_BF16, PREC_ACC, PRECS } bench_prec;
static const struct {
    const char *name, *title; /* CSV column, table heading */
    size_t elem;              /* bytes of an element on the device */
} prec_info[PRECS] = {{"f32", "fp32", 4},
                      {"f64", "fp64", 8},
                      {"tf32", "tf32 (fp32 data on the TF32 tensor cores, fp32 sums)", 4},
                      {"f16", "fp16 (fp32 sums, fp16 C)", 2},
                      {"bf16", "bf16 (fp32 sums, bf16 C)", 2},
                      {"acc", "fp32-accurate (its own table)", 4}};

static int is_tc(bench_prec p) { return p >= PREC_TF32 && p <= PREC_BF16; }

/* "f32,tf32" -> out[]; returns how many were named, -1 for an unknown name. */
static int parse_precs(const char *arg, bench_prec *out, int max)
{
    int n = 0, p;
    while (*arg && n < max) {
        size_t len = strcspn(arg, ",");
        for (p = 0; p < PRECS; p++)
            if (strlen(prec_info[p].name) == len && !strncmp(arg, prec_info[p].name, len)) break;
        if (p == PRECS) return -1;
        out[n++] = (bench_prec)p;
        arg += len;
        if (*arg == ',') arg++;
    }
    return n;
}

/* Whether the kernel forced with --kernel runs this precision. */
static int kernel_fits(gemm_cuda_kernel k, bench_prec p)
{
    int tc_kernel = k == GEMM_CUDA_KERNEL_MMA || k == GEMM_CUDA_KERNEL_WGMMA;
    if (is_tc(p)) return k == GEMM_CUDA_KERNEL_AUTO || k == GEMM_CUDA_KERNEL_NAIVE || tc_kernel;
    return !tc_kernel && (p == PREC_F64 || k != GEMM_CUDA_KERNEL_DMMA);
}

static cublasHandle_t handle;
static gemm_cuda_options ours_opt;
static int keep_going, ours_failed; /* --variants: a failing call of ours is reported, not fatal */
static int tc_ta, tc_tb;            /* the tensor-core modes' transposes of the shape being measured */

/* A WGMMA schedule of --configs: options.variant, the raster group and grid hooks, options.split_k,
   the epilogue and split-K sum hooks. */
typedef struct bench_config { int variant, group, grid, split, epilogue, reduce; } bench_config;
static void config_apply(const bench_config *c)
{
    ours_opt.variant = c->variant;
    ours_opt.split_k = c->split;
    gemm__test_hooks()->cuda_wgmma_group = c->group;
    gemm__test_hooks()->cuda_wgmma_grid = c->grid;
    gemm__test_hooks()->cuda_wgmma_epilogue = c->epilogue;
    gemm__test_hooks()->cuda_wgmma_reduce = c->reduce;
}

/* who = 0: ours, 1: cuBLAS. Row-major: cuBLAS (column-major) computes C^T = op(B)^T op(A)^T. The
   tensor-core modes read A and B transposed when tc_ta / tc_tb (A stored k x m, B n x k). */
static void call(int who, bench_prec prec, battery_shape s, const void *A, const void *B, void *C)
{
    gemm_status st = GEMM_OK;
    if (is_tc(prec)) {
        float alpha = 1, beta = 0;
        gemm_transpose ta = tc_ta ? GEMM_TRANS : GEMM_NO_TRANS, tb = tc_tb ? GEMM_TRANS : GEMM_NO_TRANS;
        int64_t lda = tc_ta ? s.m : s.k, ldb = tc_tb ? s.k : s.n;
        if (who == 0 && prec == PREC_TF32) {
            gemm_cuda_options o = ours_opt;
            o.math = GEMM_CUDA_MATH_TF32;
            st = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, ta, tb, s.m, s.n, s.k, alpha, (const float *)A, lda,
                                 (const float *)B, ldb, beta, (float *)C, s.n, &o);
        } else if (who == 0) {
            gemm_precision t = prec == PREC_F16 ? GEMM_F16 : GEMM_BF16;
            st = gemm_cuda_sgemm_mixed(0, GEMM_ROW_MAJOR, ta, tb, s.m, s.n, s.k, alpha, A, t, lda, B, t, ldb, beta, C,
                                       t, s.n, &ours_opt);
        } else {
            cudaDataType t = prec == PREC_TF32 ? CUDA_R_32F : prec == PREC_F16 ? CUDA_R_16F : CUDA_R_16BF;
            cublasComputeType_t math = prec == PREC_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
            if (cublasGemmEx(handle, tc_tb ? CUBLAS_OP_T : CUBLAS_OP_N, tc_ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)s.n,
                             (int)s.m, (int)s.k, &alpha, B, t, (int)ldb, A, t, (int)lda, &beta, C, t, (int)s.n, math,
                             CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
                fprintf(stderr, "bench: cublasGemmEx (%s) failed\n", prec_info[prec].name);
                exit(1);
            }
        }
    } else if (prec == PREC_F32) {
        float alpha = 1, beta = 0;
        if (who == 0)
            st = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, alpha,
                                 (const float *)A, s.k, (const float *)B, s.n, beta, (float *)C, s.n, &ours_opt);
        else if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)s.n, (int)s.m, (int)s.k, &alpha, (const float *)B,
                             (int)s.n, (const float *)A, (int)s.k, &beta, (float *)C, (int)s.n) != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "bench: cublasSgemm failed\n");
            exit(1);
        }
    } else {
        double alpha = 1, beta = 0;
        if (who == 0)
            st = gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, alpha,
                                 (const double *)A, s.k, (const double *)B, s.n, beta, (double *)C, s.n, &ours_opt);
        else if (cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)s.n, (int)s.m, (int)s.k, &alpha,
                             (const double *)B, (int)s.n, (const double *)A, (int)s.k, &beta, (double *)C,
                             (int)s.n) != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "bench: cublasDgemm failed\n");
            exit(1);
        }
    }
    if (st != GEMM_OK) {
        fprintf(stderr, "bench: %s (%s)\n", gemm_strerror(st), gemm_last_error_detail());
        if (keep_going) { ours_failed = 1; return; }
        exit(1);
    }
}

static double timed(int who, bench_prec prec, battery_shape s, const void *A, const void *B, void *C)
{
    cudaEvent_t e0, e1;
    float ms;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    CHECK_CUDA(cudaEventRecord(e0, 0));
    call(who, prec, s, A, B, C);
    CHECK_CUDA(cudaEventRecord(e1, 0));
    CHECK_CUDA(cudaEventSynchronize(e1));
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return ms * 1e-3;
}

/* battery_read_fn for the benchmark's result on the device. */
typedef struct device_c { const void *data; bench_prec prec; } device_c;
static double read_device(void *ctx, size_t index)
{
    const device_c *c = (const device_c *)ctx;
    size_t elem = prec_info[c->prec].elem;
    unsigned char v[8];
    CHECK_CUDA(cudaMemcpy(v, (const char *)c->data + index * elem, elem, cudaMemcpyDeviceToHost));
    if (c->prec == PREC_F64) return *(const double *)v;
    if (c->prec == PREC_F16) return __half2float(*(const __half *)v);
    if (c->prec == PREC_BF16) return __bfloat162float(*(const __nv_bfloat16 *)v);
    return *(const float *)v;
}

/* fp16/bf16 inputs: rounds x's fp32 values to the type in place (the check
   then sums what the GPU gets) and returns them in that type. */
static void *narrow(bench_prec prec, battery_buf *x)
{
    float *f = (float *)x->data;
    unsigned char *out = (unsigned char *)malloc(x->count * 2 + 1);
    size_t i;
    if (!out) { fprintf(stderr, "bench: out of memory\n"); exit(1); }
    for (i = 0; i < x->count; i++) {
        if (prec == PREC_F16) {
            __half h = __float2half_rn(f[i]);
            memcpy(out + 2 * i, &h, 2);
            f[i] = __half2float(h);
        } else {
            __nv_bfloat16 h = __float2bfloat16_rn(f[i]);
            memcpy(out + 2 * i, &h, 2);
            f[i] = __bfloat162float(h);
        }
    }
    return out;
}

/* The tensor-core modes' check of the row-major NN C (battery_sampled_ok is
   fp32/fp64 only): 64 sampled elements against fp64 sums of the inputs as
   the GPU got them, |inputs| <= 0.5, within
       4*(u_in*sqrt(k) + 2^-23*k)*0.25 + u_out*|sum| + tiny
   u_in = 2^-9 for TF32 (10 mantissa bits kept), 0 for fp16/bf16 (exact);
   u_out = 2^-24, 2^-11, 2^-8 for fp32, fp16, bf16 C; tiny = 2^-24 for an
   fp16 C (its subnormal spacing). */
static int tc_sampled_ok(bench_prec prec, battery_shape s, const battery_buf *A, const battery_buf *B, device_c *C)
{
    double u_in = prec == PREC_TF32 ? 0x1p-9 : 0, u_out = prec == PREC_F16 ? 0x1p-11 : prec == PREC_BF16 ? 0x1p-8 : 0x1p-24;
    double tiny = prec == PREC_F16 ? 0x1p-24 : 0, k = (double)s.k;
    uint64_t state = 7;
    int t;
    for (t = 0; t < 64; t++) {
        int64_t i = battery_below(&state, s.m), j = battery_below(&state, s.n), p;
        double sum = 0;
        for (p = 0; p < s.k; p++)
            sum += battery_get(A, (size_t)(tc_ta ? p * s.m + i : i * s.k + p)) *
                   battery_get(B, (size_t)(tc_tb ? j * s.k + p : p * s.n + j));
        if (!(fabs(read_device(C, (size_t)(i * s.n + j)) - sum) <=
              4 * (u_in * sqrt(k) + 0x1p-23 * k) * 0.25 + u_out * fabs(sum) + tiny))
            return 0;
    }
    return 1;
}

/* Squares n x n x n of `sizes`, then the non-square shapes; returns the count. */
static int default_shapes(const int64_t *sizes, int nsizes, battery_shape *out)
{
    int n = 0, i;
    for (i = 0; i < nsizes; i++) { out[n].m = out[n].n = out[n].k = sizes[i]; n++; }
    out[n++] = (battery_shape){4096, 4096, 256};
    out[n++] = (battery_shape){256, 4096, 4096};
    out[n++] = (battery_shape){4096, 256, 4096};
    out[n++] = (battery_shape){1000, 1000, 1000};
    return n;
}

static double now_ms(void)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* The host-pointer path: every mode, end to end and the call's own breakdown. */
static void bench_host(const int64_t *sizes, int nsizes, FILE *csv)
{
    static const char *modes[3] = {"pageable", "pinned", "mapped"};
    int si, mi;
    printf("\nhost pointers, fp32 row-major NN: gemm_cuda_sgemm_host, ms (median of 5; total = wall clock incl. allocation)\n");
    printf("%6s | %-8s | %9s %9s %9s %9s\n", "n", "mode", "total", "h2d", "kernel", "d2h");
    for (si = 0; si < nsizes; si++) {
        int64_t n = sizes[si];
        battery_buf A = battery_buf_new(GEMM_F32, (size_t)(n * n)), C = battery_buf_new(GEMM_F32, (size_t)(n * n));
        uint64_t st = 3;
        battery_fill(&A, &st);
        for (mi = 0; mi < 3; mi++) {
            double tot[5], h2d[5], ker[5], d2h[5];
            gemm_cuda_options o;
            gemm_timing t;
            int r;
            memset(&o, 0, sizeof o);
            o.mode = (gemm_cuda_mode)mi;
            o.timing = &t;
            if (mi == 2 && n > 4096) continue; /* the kernel reads the bus n/128 times over: pointless past this */
            for (r = -1; r < 5; r++) {
                double t0 = now_ms();
                gemm_status s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f,
                                                     (const float *)A.data, n, (const float *)A.data, n, 0.0f,
                                                     (float *)C.data, n, &o);
                if (s != GEMM_OK) { fprintf(stderr, "bench: host %s: %s\n", modes[mi], gemm_last_error_detail()); exit(1); }
                if (r < 0) continue;
                tot[r] = now_ms() - t0;
                h2d[r] = t.to_device_s * 1e3; ker[r] = t.compute_s * 1e3; d2h[r] = t.from_device_s * 1e3;
            }
            battery_sort(tot, 5); battery_sort(h2d, 5);
            battery_sort(ker, 5); battery_sort(d2h, 5);
            printf("%6lld | %-8s | %9.3f %9.3f %9.3f %9.3f\n", (long long)n, modes[mi], tot[2], h2d[2], ker[2], d2h[2]);
            if (csv) fprintf(csv, "cuda-host-%s,f32,auto,%lld,%lld,%lld,total_ms=%.3f,h2d_ms=%.3f,kernel_ms=%.3f,d2h_ms=%.3f\n",
                             modes[mi], (long long)n, (long long)n, (long long)n, tot[2], h2d[2], ker[2], d2h[2]);
            fflush(stdout);
        }
        battery_buf_free(&A);
        battery_buf_free(&C);
    }
}

/* Issue 19's table: squares 1024..16384 (4096 in all four transposes), then the short-K,
   thin and odd shapes; returns the count. ta/tb: the transposes of each. */
static int issue19_shapes(battery_shape *out, int *ta, int *tb)
{
    static const int64_t sq[] = {1024, 2048, 4096, 8192, 16384};
    static const battery_shape odd[] = {{4096, 4096, 256}, {256, 4096, 4096}, {4096, 256, 4096},
                                        {1000, 1000, 1000}, {8192, 8192, 1024}, {16384, 128, 16384}};
    int n = 0, i, t;
    for (i = 0; i < 5; i++)
        for (t = 0; t < (sq[i] == 4096 ? 4 : 1); t++) {
            out[n].m = out[n].n = out[n].k = sq[i];
            ta[n] = t >> 1; tb[n] = t & 1; /* NN, NT, TN, TT */
            n++;
        }
    for (i = 0; i < 6; i++) { out[n] = odd[i]; ta[n] = tb[n] = 0; n++; }
    return n;
}

/* "NN,TN" -> bits of the transposes (bit 2*ta + tb); 0 for a bad name. */
static int parse_trans(const char *arg)
{
    int bits = 0;
    while (*arg) {
        if ((arg[0] != 'N' && arg[0] != 'T') || (arg[1] != 'N' && arg[1] != 'T')) return 0;
        bits |= 1 << (2 * (arg[0] == 'T') + (arg[1] == 'T'));
        arg += 2;
        if (*arg == ',') arg++;
        else if (*arg) return 0;
    }
    return bits;
}

/* "1:8:0:0,2:-8:-1:3:1:2" -> configs (missing fields 0); returns how many. */
static int parse_configs(const char *arg, bench_config *out, int max)
{
    int n = 0;
    char *end;
    while (*arg && n < max) {
        long v[6] = {0, 0, 0, 0, 0, 0};
        for (int f = 0; f < 6; f++) {
            v[f] = strtol(arg, &end, 10);
            arg = end;
            if (*arg != ':') break;
            arg++;
        }
        out[n].variant = (int)v[0]; out[n].group = (int)v[1]; out[n].grid = (int)v[2]; out[n].split = (int)v[3];
        out[n].epilogue = (int)v[4]; out[n].reduce = (int)v[5];
        n++;
        if (*arg != ',') break;
        arg++;
    }
    return n;
}

/* ---- the fp32-accurate table ---- */

/* `count` samples (i, j) of a row-major m x n C and their fp64 sums of the
   fp32 inputs A (m x k) and B (k x n). */
typedef struct acc_samples { int count; int64_t i[256], j[256]; double ref[256]; } acc_samples;
static void acc_sample(acc_samples *x, int64_t m, int64_t n, int64_t k, const float *A, const float *B)
{
    uint64_t state = 11;
    x->count = 256;
    for (int t = 0; t < x->count; t++) {
        double sum = 0;
        x->i[t] = battery_below(&state, m);
        x->j[t] = battery_below(&state, n);
        for (int64_t p = 0; p < k; p++) sum += (double)A[x->i[t] * k + p] * (double)B[p * n + x->j[t]];
        x->ref[t] = sum;
    }
}

/* max |C - ref| / max |ref| over the samples (NaN: infinite). */
static double acc_error(const acc_samples *x, const float *dC, int64_t n)
{
    double err = 0, top = 0;
    for (int t = 0; t < x->count; t++) {
        float c;
        CHECK_CUDA(cudaMemcpy(&c, dC + x->i[t] * n + x->j[t], sizeof c, cudaMemcpyDeviceToHost));
        if (fabs(x->ref[t]) > top) top = fabs(x->ref[t]);
        if (!(fabs(c - x->ref[t]) <= err)) err = isnan(c) ? INFINITY : fabs(c - x->ref[t]);
    }
    return top > 0 ? err / top : err;
}

/* who: 0 ours fp32-accurate, 1 cublasSgemm, 2 ours exact (SIMT), 3 cuBLAS TF32; row-major NN n x n. */
static void acc_call(int who, int64_t n, const float *A, const float *B, float *C)
{
    float alpha = 1, beta = 0;
    gemm_cuda_options o;
    gemm_status st = GEMM_OK;
    memset(&o, 0, sizeof o);
    if (who == 0 || who == 2) {
        o.math = who == 0 ? GEMM_CUDA_MATH_FP32_ACCURATE : GEMM_CUDA_MATH_EXACT;
        st = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, alpha, A, n, B, n, beta, C, n, &o);
    } else if (who == 1) {
        if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &alpha, B, (int)n, A, (int)n, &beta, C,
                        (int)n) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "bench: cublasSgemm failed\n"); exit(1); }
    } else if (cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &alpha, B, CUDA_R_32F, (int)n, A,
                            CUDA_R_32F, (int)n, &beta, C, CUDA_R_32F, (int)n, CUBLAS_COMPUTE_32F_FAST_TF32,
                            CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench: cublasGemmEx (tf32) failed\n"); exit(1);
    }
    if (st != GEMM_OK) { fprintf(stderr, "bench: fp32-accurate: %s (%s)\n", gemm_strerror(st), gemm_last_error_detail()); exit(1); }
}

static double acc_timed(int who, int64_t n, const float *A, const float *B, float *C)
{
    cudaEvent_t e0, e1;
    float ms;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    CHECK_CUDA(cudaEventRecord(e0, 0));
    acc_call(who, n, A, B, C);
    CHECK_CUDA(cudaEventRecord(e1, 0));
    CHECK_CUDA(cudaEventSynchronize(e1));
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return ms * 1e-3;
}

/* Speed (inputs in [-0.5, 0.5)) and errors (in [-1, 1], and spread over 2^-20..2^20) of the three
   fp32 products, and cuBLAS TF32's error for scale; the first three interleaved, median [min-max]. */
static void bench_accurate(const int64_t *sizes, int nsizes, int quick, FILE *csv)
{
    printf("\nfp32-accurate (3xTF32 on the tensor cores) beside cublasSgemm and gemm's exact fp32 kernel, row-major NN\n");
    printf("TFLOP/s median [min-max]; err = max|C - ref| / max|ref| over 256 sampled elements (fp64 sums)\n");
    printf("%6s | %-20s | %-20s | %-20s | %6s %6s | %-30s | %-30s\n", "n", "fp32-accurate", "cublasSgemm",
           "gemm simt", "acc/cb", "acc/sm", "err [-1,1]: acc cuBLAS simt tf32", "err 2^+-20: acc cuBLAS simt tf32");
    for (int si = 0; si < nsizes; si++) {
        int64_t n = sizes[si];
        size_t count = (size_t)(n * n);
        float *hA = (float *)malloc(count * sizeof(float)), *hB = (float *)malloc(count * sizeof(float)), *dA, *dB, *dC;
        double t[3][32], tf[3][3], err[2][4], flops = 2.0 * (double)n * (double)n * (double)n, first;
        int reps, r, who;
        acc_samples x;
        if (!hA || !hB) { fprintf(stderr, "bench: out of memory\n"); exit(1); }
        CHECK_CUDA(cudaMalloc((void **)&dA, count * sizeof(float)));
        CHECK_CUDA(cudaMalloc((void **)&dB, count * sizeof(float)));
        CHECK_CUDA(cudaMalloc((void **)&dC, count * sizeof(float)));
        for (int dist = 0; dist < 2; dist++) { /* the errors */
            uint64_t state = 5 + (uint64_t)dist;
            for (size_t i = 0; i < count; i++) {
                if (dist == 0) { hA[i] = (float)(2 * battery_uniform(&state)); hB[i] = (float)(2 * battery_uniform(&state)); continue; }
                for (int o = 0; o < 2; o++) {
                    double e = -20 + (double)battery_below(&state, 41), f = 1 + (double)battery_below(&state, 1 << 23) / 0x1p23;
                    (o ? hB : hA)[i] = (float)((battery_below(&state, 2) ? -1 : 1) * f * ldexp(1.0, (int)e));
                }
            }
            acc_sample(&x, n, n, n, hA, hB);
            CHECK_CUDA(cudaMemcpy(dA, hA, count * sizeof(float), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(dB, hB, count * sizeof(float), cudaMemcpyHostToDevice));
            for (who = 0; who < 4; who++) {
                CHECK_CUDA(cudaMemset(dC, 0xff, count * sizeof(float)));
                acc_call(who, n, dA, dB, dC);
                CHECK_CUDA(cudaDeviceSynchronize());
                err[dist][who] = acc_error(&x, dC, n);
            }
        }
        { /* the speed */
            uint64_t state = 42;
            for (size_t i = 0; i < count; i++) { hA[i] = (float)battery_uniform(&state); hB[i] = (float)battery_uniform(&state); }
            CHECK_CUDA(cudaMemcpy(dA, hA, count * sizeof(float), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(dB, hB, count * sizeof(float), cudaMemcpyHostToDevice));
        }
        first = acc_timed(0, n, dA, dB, dC);
        acc_timed(1, n, dA, dB, dC);
        acc_timed(2, n, dA, dB, dC);
        reps = (int)(0.4 / (first + 1e-9));
        reps = reps < 5 ? 5 : reps > 30 ? 30 : reps;
        if (quick) reps = 3;
        for (r = 0; r < reps; r++)
            for (who = 0; who < 3; who++) t[who][r] = acc_timed(who, n, dA, dB, dC);
        for (who = 0; who < 3; who++) {
            battery_sort(t[who], reps);
            tf[who][0] = flops / t[who][reps / 2] * 1e-12;
            tf[who][1] = flops / t[who][reps - 1] * 1e-12;
            tf[who][2] = flops / t[who][0] * 1e-12;
        }
        printf("%6lld | %6.2f [%5.1f-%5.1f] | %6.2f [%5.1f-%5.1f] | %6.2f [%5.1f-%5.1f] | %6.2f %6.2f | "
               "%.1e %.1e %.1e %.1e | %.1e %.1e %.1e %.1e\n", (long long)n, tf[0][0], tf[0][1], tf[0][2],
               tf[1][0], tf[1][1], tf[1][2], tf[2][0], tf[2][1], tf[2][2], tf[0][0] / tf[1][0], tf[0][0] / tf[2][0],
               err[0][0], err[0][1], err[0][2], err[0][3], err[1][0], err[1][1], err[1][2], err[1][3]);
        if (csv)
            for (who = 1; who < 3; who++)
                fprintf(csv, "cuda,fp32acc,wgmma,%lld,%lld,%lld,%.3f,%.3f,%.3f,%s,%.3f,%.3f,%.3f,%.3f,"
                        "err_acc=%.3g,err_peer=%.3g,err_acc_spread=%.3g,err_peer_spread=%.3g\n",
                        (long long)n, (long long)n, (long long)n, tf[0][0], tf[0][1], tf[0][2],
                        who == 1 ? "cublas-sgemm" : "gemm-simt", tf[who][0], tf[who][1], tf[who][2],
                        tf[0][0] / tf[who][0], err[0][0], err[0][who], err[1][0], err[1][who]);
        fflush(stdout);
        cudaFree(dA); cudaFree(dB); cudaFree(dC);
        free(hA); free(hB);
    }
}

/* ---- the exact kernels' table: the exact kernels (fp32 SIMT, fp64 DMMA) beside cublasSgemm / cublasDgemm ---- */

typedef struct exact_shape { int64_t m, n, k; int ta, tb; } exact_shape;

/* x[i] uniform in [-1, 1) from a hash of (seed, i): the large inputs are made on the device. */
template <typename T> __global__ void exact_fill_kernel(T *x, size_t count, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = seed * 0x9E3779B97F4A7C15ull + i;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x[i] = (T)((double)(z >> 11) * 0x1p-52 - 1.0);
    }
}

/* Row-major, each call on one of `sets` input sets in turn (C = op(A) op(B)); who 0: ours, 1: cuBLAS
   (column-major: C^T = op(B)^T op(A)^T). */
typedef struct exact_run {
    bench_prec prec;
    exact_shape s;
    void *A[8], *B[8], *C;
    int sets, next, burst;
} exact_run;

static void exact_call(exact_run *x, int who)
{
    const exact_shape *s = &x->s;
    int64_t lda = s->ta ? s->m : s->k, ldb = s->tb ? s->k : s->n;
    gemm_transpose ta = s->ta ? GEMM_TRANS : GEMM_NO_TRANS, tb = s->tb ? GEMM_TRANS : GEMM_NO_TRANS;
    cublasOperation_t oa = s->ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = s->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    const void *A = x->A[x->next], *B = x->B[x->next];
    gemm_status st = GEMM_OK;
    cublasStatus_t cs = CUBLAS_STATUS_SUCCESS;
    x->next = (x->next + 1) % x->sets;
    if (x->prec == PREC_F32) {
        float alpha = 1, beta = 0;
        if (who == 0)
            st = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, ta, tb, s->m, s->n, s->k, alpha, (const float *)A, lda,
                                 (const float *)B, ldb, beta, (float *)x->C, s->n, NULL);
        else
            cs = cublasSgemm(handle, ob, oa, (int)s->n, (int)s->m, (int)s->k, &alpha, (const float *)B, (int)ldb,
                             (const float *)A, (int)lda, &beta, (float *)x->C, (int)s->n);
    } else {
        double alpha = 1, beta = 0;
        if (who == 0)
            st = gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, ta, tb, s->m, s->n, s->k, alpha, (const double *)A, lda,
                                 (const double *)B, ldb, beta, (double *)x->C, s->n, NULL);
        else
            cs = cublasDgemm(handle, ob, oa, (int)s->n, (int)s->m, (int)s->k, &alpha, (const double *)B, (int)ldb,
                             (const double *)A, (int)lda, &beta, (double *)x->C, (int)s->n);
    }
    if (st != GEMM_OK || cs != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench: %s failed (%s)\n", who ? "cuBLAS" : "gemm", st != GEMM_OK ? gemm_last_error_detail() : "");
        exit(1);
    }
}

/* Seconds per call: a burst of x->burst calls between two events. */
static double exact_timed(exact_run *x, int who)
{
    cudaEvent_t e0, e1;
    float ms;
    int i;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    CHECK_CUDA(cudaEventRecord(e0, 0));
    for (i = 0; i < x->burst; i++) exact_call(x, who);
    CHECK_CUDA(cudaEventRecord(e1, 0));
    CHECK_CUDA(cudaEventSynchronize(e1));
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return ms * 1e-3 / x->burst;
}

/* max |ours - cuBLAS| over 256 sampled elements of the last input set's C, in units of 8 eps k (above 1: wrong). */
static double exact_verify(exact_run *x)
{
    size_t elem = prec_info[x->prec].elem, count = (size_t)(x->s.m * x->s.n);
    void *mine = NULL;
    uint64_t state = 9;
    double worst = 0, eps = x->prec == PREC_F32 ? FLT_EPSILON : DBL_EPSILON;
    int t;
    CHECK_CUDA(cudaMalloc(&mine, count * elem));
    x->next = 0;
    exact_call(x, 0);
    CHECK_CUDA(cudaMemcpy(mine, x->C, count * elem, cudaMemcpyDeviceToDevice));
    x->next = 0;
    exact_call(x, 1);
    CHECK_CUDA(cudaDeviceSynchronize());
    for (t = 0; t < 256; t++) {
        size_t i = (size_t)battery_below(&state, (int64_t)count);
        device_c a = {mine, x->prec}, b = {x->C, x->prec};
        double d = fabs(read_device(&a, i) - read_device(&b, i)) / (8 * eps * (double)x->s.k);
        if (!(d <= worst)) worst = d != d ? INFINITY : d;
    }
    cudaFree(mine);
    return worst;
}

/* Ours and cuBLAS's median TFLOP/s and the run's spread (max/min of ours), 2 warm-ups, `reps` interleaved pairs. */
static void exact_measure(exact_run *x, int reps, double *ours, double *peer, double *spread)
{
    double t[2][32], flops = 2.0 * (double)x->s.m * (double)x->s.n * (double)x->s.k, first;
    int r, who;
    if (reps > 32) reps = 32;
    exact_timed(x, 0);
    exact_timed(x, 1);
    first = exact_timed(x, 0);
    x->burst = first < 3e-4 ? (int)(3e-4 / first) + 1 : 1; /* short calls in bursts: launch gaps do not decide */
    for (r = 0; r < reps; r++) /* interleaved, the order alternating: ours first, then cuBLAS first */
        for (who = 0; who < 2; who++) {
            int w = r % 2 ? 1 - who : who;
            t[w][r] = exact_timed(x, w);
        }
    battery_sort(t[0], reps);
    battery_sort(t[1], reps);
    *ours = flops / t[0][reps / 2] * 1e-12;
    *peer = flops / t[1][reps / 2] * 1e-12;
    *spread = t[0][reps - 1] / t[0][0];
}
/* Issue 13's table for the GPU it runs on: each shape row-major, fp32 and fp64 beside cuBLAS, the
   configuration ours ran, the ratio (ours / cuBLAS TFLOP/s) against the issue's bar (0.90; 0.80 at
   1024^3), and the spread of ours (max / min time). Input sets rotate while one fits in L2 three times. */
static void bench_exact13(const bench_prec *precs, int nprec, int quick, FILE *csv)
{
    static const exact_shape shapes[] = {
        {1024, 1024, 1024, 0, 0}, {1024, 1024, 1024, 0, 1}, {1024, 1024, 1024, 1, 0}, {1024, 1024, 1024, 1, 1},
        {2048, 2048, 2048, 0, 0}, {2048, 2048, 2048, 0, 1}, {2048, 2048, 2048, 1, 0}, {2048, 2048, 2048, 1, 1},
        {4096, 4096, 4096, 0, 0}, {4096, 4096, 4096, 0, 1}, {4096, 4096, 4096, 1, 0}, {4096, 4096, 4096, 1, 1},
        {8192, 8192, 8192, 0, 0}, {16384, 16384, 16384, 0, 0}, {256, 4096, 4096, 0, 0}, {4096, 4096, 256, 0, 0},
        {8192, 8192, 1024, 0, 0}, {16384, 128, 16384, 0, 0}};
    struct cudaDeviceProp prop;
    enum { SHAPES = sizeof shapes / sizeof shapes[0] };
    int si, pi, missed[2] = {0, 0}, cells[2] = {0, 0};
    double lsum[2] = {0, 0}, worst[2] = {9, 9}, all[SHAPES][2] = {{0}};
    char labels[SHAPES][32];
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("\nexact fp32 and fp64 beside cuBLAS on %s (%d SMs, L2 %d MB), row-major, TFLOP/s median of %d "
           "interleaved pairs\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, quick ? 3 : 9);
    printf("%-16s | %-30s | %-30s | %s\n", "shape (m n k)", "fp32 ours  cuBLAS  ratio spread", "fp64 ours  cuBLAS  ratio spread",
           "what ran: fp32 ; fp64");
    for (si = 0; si < SHAPES; si++) {
        exact_shape s = shapes[si];
        char label[32], cell[2][48], ran[2][200];
        double ratio;
        int have[2] = {0, 0};
        if (s.m == s.n && s.n == s.k) snprintf(label, sizeof label, "%lld^3 %c%c", (long long)s.m, s.ta ? 'T' : 'N', s.tb ? 'T' : 'N');
        else snprintf(label, sizeof label, "%lldx%lldx%lld", (long long)s.m, (long long)s.n, (long long)s.k);
        for (pi = 0; pi < nprec; pi++) {
            bench_prec prec = precs[pi];
            int p = prec == PREC_F64, i, ok, reps = quick ? 3 : 9;
            size_t elem = prec_info[prec].elem, set_bytes = (size_t)(s.m * s.k + s.k * s.n) * elem;
            exact_run x;
            double ours, peer, spread, v;
            if (prec != PREC_F32 && prec != PREC_F64) continue;
            if (p && s.m == 16384 && s.n == 16384) continue; /* not in the issue's fp64 column */
            memset(&x, 0, sizeof x);
            x.prec = prec;
            x.s = s;
            x.burst = 1;
            x.sets = (int)((3 * (size_t)prop.l2CacheSize) / set_bytes) + 1;
            if (x.sets > 8) x.sets = 8;
            for (i = 0; i < x.sets; i++) {
                size_t na = (size_t)(s.m * s.k), nb = (size_t)(s.k * s.n);
                CHECK_CUDA(cudaMalloc(&x.A[i], na * elem));
                CHECK_CUDA(cudaMalloc(&x.B[i], nb * elem));
                if (p) {
                    exact_fill_kernel<double><<<1024, 256>>>((double *)x.A[i], na, 2 * (uint64_t)i + 1);
                    exact_fill_kernel<double><<<1024, 256>>>((double *)x.B[i], nb, 2 * (uint64_t)i + 2);
                } else {
                    exact_fill_kernel<float><<<1024, 256>>>((float *)x.A[i], na, 2 * (uint64_t)i + 1);
                    exact_fill_kernel<float><<<1024, 256>>>((float *)x.B[i], nb, 2 * (uint64_t)i + 2);
                }
                CHECK_CUDA(cudaGetLastError());
            }
            CHECK_CUDA(cudaMalloc(&x.C, (size_t)(s.m * s.n) * elem));
            exact_measure(&x, reps, &ours, &peer, &spread);
            v = exact_verify(&x);
            ok = v <= 1;
            exact_call(&x, 0);
            CHECK_CUDA(cudaDeviceSynchronize());
            snprintf(cell[p], sizeof cell[p], "%6.2f %7.2f %6.3f%s %5.2f", ours, peer, ours / peer, ok ? " " : "!",
                     spread);
            snprintf(ran[p], sizeof ran[p], "%s%s", gemm__cuda_exact_last(), ok ? "" : " (WRONG result)");
            ratio = ours / peer;
            all[si][p] = ok ? ratio : -ratio;
            have[p] = 1;
            cells[p]++;
            lsum[p] += log(ratio);
            if (ratio < worst[p]) worst[p] = ratio;
            if (ratio < (s.m == 1024 && s.n == 1024 && s.k == 1024 ? 0.80 : 0.90) || !ok) missed[p]++;
            if (csv)
                fprintf(csv, "cuda-exact,%s,%s,%lld,%lld,%lld,%.3f,%.3f,%.3f,cublas,%.3f,%.3f,%.3f,%.3f\n",
                        prec_info[prec].name, label, (long long)s.m, (long long)s.n, (long long)s.k, ours, ours / spread,
                        ours, peer, peer, peer, ratio);
            for (i = 0; i < x.sets; i++) { cudaFree(x.A[i]); cudaFree(x.B[i]); }
            cudaFree(x.C);
        }
        snprintf(labels[si], sizeof labels[si], "%s", label);
        printf("%-16s | %-30s | %-30s | %s ; %s\n", label, have[0] ? cell[0] : "", have[1] ? cell[1] : "",
               have[0] ? ran[0] : "-", have[1] ? ran[1] : "-");
        fflush(stdout);
    }
    printf("\nsummary: ours / cuBLAS on %s (* below the issue's bar: 0.90, 0.80 at 1024^3; ! wrong result)\n",
           prop.name);
    printf("%-16s %8s %8s\n", "shape", "fp32", "fp64");
    for (si = 0; si < SHAPES; si++) {
        char c[2][16];
        double bar = shapes[si].m == 1024 && shapes[si].k == 1024 ? 0.80 : 0.90;
        for (pi = 0; pi < 2; pi++) {
            double r = fabs(all[si][pi]);
            if (all[si][pi] == 0) snprintf(c[pi], sizeof c[pi], "-");
            else snprintf(c[pi], sizeof c[pi], "%.3f%s", r, all[si][pi] < 0 ? "!" : r < bar ? "*" : "");
        }
        printf("%-16s %8s %8s\n", labels[si], c[0], c[1]);
    }
    for (pi = 0; pi < 2; pi++)
        if (cells[pi])
            printf("fp%d: %d cells, geomean %.3f, min %.3f, below the bar: %d\n", pi ? 64 : 32, cells[pi],
                   exp(lsum[pi] / cells[pi]), worst[pi], missed[pi]);
}

int main(int argc, char **argv)
{
    int64_t sizes[32] = {1024, 2048, 4096, 8192, 16384}, acc_sizes[16] = {1024, 2048, 4096, 8192, 16384};
    int64_t host_sizes[16] = {64, 256, 1024, 4096};
    battery_shape shapes[64], tc_shapes[256];
    int64_t variants[16] = {0};
    bench_config configs[32] = {{0, 0, 0, 0, 0, 0}};
    int tc_ta_of[256], tc_tb_of[256], trans_bits = 1, nacc = 5;
    int nsizes = 5, sizes_given = 0, nhost = 4, nshapes = 0, ntc_shapes, i, si, pi, quick = 0, prec_count = 2;
    int nconfigs = 1, vi, wrong = 0, configs_given = 0, shapes_given, exact13;
    bench_prec precs[PRECS] = {PREC_F32, PREC_F64};
    const char *csv_path = NULL;
    FILE *csv = NULL;
    struct cudaDeviceProp prop;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = battery_parse_list(argv[++i], sizes, 32);
            sizes_given = 1;
        } else if (!strcmp(argv[i], "--host") && i + 1 < argc) nhost = battery_parse_list(argv[++i], host_sizes, 16);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--variants") && i + 1 < argc) {
            nconfigs = battery_parse_list(argv[++i], variants, 16);
            for (vi = 0; vi < nconfigs; vi++) configs[vi] = bench_config{(int)variants[vi], 0, 0, 0, 0, 0};
            configs_given = nconfigs > 1 || variants[0] != 0;
        } else if (!strcmp(argv[i], "--configs") && i + 1 < argc) {
            nconfigs = parse_configs(argv[++i], configs, 32);
            configs_given = 1;
        } else if (!strcmp(argv[i], "--trans") && i + 1 < argc && (trans_bits = parse_trans(argv[i + 1])) != 0)
            i++;
        else if (!strcmp(argv[i], "--nt-copy-min") && i + 1 < argc) /* both-k-major calls: copy one operand from this side */
            gemm__test_hooks()->cuda_nt_copy_min = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--stream-k") && i + 1 < argc) /* -1 never, n > 0 forced on n blocks */
            gemm__test_hooks()->cuda_stream_k = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--acc-sizes") && i + 1 < argc) nacc = battery_parse_list(argv[++i], acc_sizes, 16);
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
            const char *k = argv[++i];
            ours_opt.kernel = !strcmp(k, "naive") ? GEMM_CUDA_KERNEL_NAIVE : !strcmp(k, "tiled16") ? GEMM_CUDA_KERNEL_TILED16
                            : !strcmp(k, "simt") ? GEMM_CUDA_KERNEL_SIMT : !strcmp(k, "dmma") ? GEMM_CUDA_KERNEL_DMMA
                            : !strcmp(k, "mma") ? GEMM_CUDA_KERNEL_MMA : !strcmp(k, "wgmma") ? GEMM_CUDA_KERNEL_WGMMA
                            : GEMM_CUDA_KERNEL_AUTO;
        } else if (!strcmp(argv[i], "--prec") && i + 1 < argc && (prec_count = parse_precs(argv[i + 1], precs, PRECS)) >= 0)
            i++;
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            const char *p = argv[++i];
            nshapes = battery_parse_shapes(p, shapes, 64);
        } else {
            fprintf(stderr, "usage: %s [--sizes n,...] [--shapes m:n:k,...] [--prec f32,f64,tf32,f16,bf16,acc] "
                            "[--kernel auto|simt|dmma|mma|wgmma|tiled16|naive] [--host n,...] [--csv FILE] [--quick] "
                            "[--variants v,...] [--configs v:g:G:s[:e:r],...] [--trans NN,TN,NT,TT] [--acc-sizes n,...] "
                            "[--nt-copy-min n] [--stream-k n]\n",
                    argv[0]);
            return 2;
        }
    }
    shapes_given = nshapes > 0;
    if (nshapes == 0) nshapes = default_shapes(sizes, nsizes, shapes);
    if (!sizes_given && !shapes_given) {
        ntc_shapes = issue19_shapes(tc_shapes, tc_ta_of, tc_tb_of);
    } else { /* each given shape in each transpose of --trans */
        ntc_shapes = 0;
        for (si = 0; si < nshapes; si++)
            for (int t = 0; t < 4; t++)
                if (trans_bits >> t & 1) {
                    tc_shapes[ntc_shapes] = shapes[si];
                    tc_ta_of[ntc_shapes] = t >> 1;
                    tc_tb_of[ntc_shapes++] = t & 1;
                }
    }
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "bench: cublasCreate failed\n"); return 1; }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "backend,precision,kernel,m,n,k,ours_tflops,ours_min,ours_max,peer,peer_tflops,peer_min,peer_max,ratio\n");

    printf("gemm CUDA vs cuBLAS on %s (cc %d.%d, %d SMs), row-major NN, TFLOP/s median [min-max]\n", prop.name,
           prop.major, prop.minor, prop.multiProcessorCount);
    /* fp32 / fp64 with the default shapes and kernel: the exact table (transposes, bursts, rotated inputs) */
    exact13 = !shapes_given && !sizes_given && ours_opt.kernel == GEMM_CUDA_KERNEL_AUTO && !configs_given;
    for (pi = 0, i = 0; pi < prec_count; pi++) i |= precs[pi] == PREC_F32 || precs[pi] == PREC_F64;
    if (exact13 && i) bench_exact13(precs, prec_count, quick, csv);
    for (pi = 0; pi < prec_count; pi++) {
        bench_prec prec = precs[pi];
        if (exact13 && (prec == PREC_F32 || prec == PREC_F64)) continue;
        size_t elem = prec_info[prec].elem;
        /* Host copies of the inputs in fp32 (fp64 for f64): the values the GPU gets. */
        gemm_precision host_prec = prec == PREC_F64 ? GEMM_F64 : GEMM_F32;
        const battery_shape *list = is_tc(prec) ? tc_shapes : shapes;
        int count = is_tc(prec) ? ntc_shapes : nshapes;
        if (prec == PREC_ACC) {
            bench_accurate(acc_sizes, nacc, quick, csv);
            continue;
        }
        printf("\n%s\n", prec_info[prec].title);
        if (!kernel_fits(ours_opt.kernel, prec)) {
            printf("(--kernel %s does not run %s)\n", gemm_cuda_kernel_name(ours_opt.kernel), prec_info[prec].name);
            continue;
        }
        printf("%6s %6s %6s | %-16s | %-22s | %-22s | %s\n", "m", "n", "k", "kernel", "gemm", "cuBLAS", "ratio");
        for (si = 0; si < count; si++) {
            battery_shape s = list[si];
            tc_ta = is_tc(prec) ? tc_ta_of[si] : 0;
            tc_tb = is_tc(prec) ? tc_tb_of[si] : 0;
            uint64_t state = 42;
            battery_buf A = battery_buf_new(host_prec, (size_t)(s.m * s.k));
            battery_buf B = battery_buf_new(host_prec, (size_t)(s.k * s.n));
            void *dA, *dB, *dC, *upA, *upB;
            double t[2][64], tf[2][3], flops = 2.0 * (double)s.m * (double)s.n * (double)s.k, first;
            int reps, r, who, ok, narrowed = prec == PREC_F16 || prec == PREC_BF16;
            gemm_cuda_kernel kern =
                ours_opt.kernel ? ours_opt.kernel
                                : gemm_cuda_auto_kernel(prec == PREC_F64 ? GEMM_F64 : prec == PREC_F16 ? GEMM_F16
                                                        : prec == PREC_BF16 ? GEMM_BF16 : GEMM_F32,
                                                        prec == PREC_TF32 ? GEMM_CUDA_MATH_TF32 : GEMM_CUDA_MATH_EXACT,
                                                        s.m, s.n, s.k);
            battery_fill(&A, &state);
            battery_fill(&B, &state);
            upA = narrowed ? narrow(prec, &A) : A.data;
            upB = narrowed ? narrow(prec, &B) : B.data;
            CHECK_CUDA(cudaMalloc(&dA, A.count * elem));
            CHECK_CUDA(cudaMalloc(&dB, B.count * elem));
            CHECK_CUDA(cudaMalloc(&dC, (size_t)(s.m * s.n) * elem));
            CHECK_CUDA(cudaMemcpy(dA, upA, A.count * elem, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(dB, upB, B.count * elem, cudaMemcpyHostToDevice));
            if (narrowed) { free(upA); free(upB); }
            for (vi = 0; vi < nconfigs; vi++) {
            char kname[48], tname[4] = {' ', tc_ta ? 'T' : 'N', tc_tb ? 'T' : 'N', 0};
            const bench_config *cf = &configs[vi];
            config_apply(cf);
            keep_going = nconfigs > 1;
            ours_failed = 0;
            if (!is_tc(prec)) tname[0] = 0;
            if (configs_given && (cf->epilogue || cf->reduce))
                snprintf(kname, sizeof kname, "%s.v%d:%d:%d:%d:%d:%d%s", gemm_cuda_kernel_name(kern), cf->variant,
                         cf->group, cf->grid, cf->split, cf->epilogue, cf->reduce, tname);
            else if (configs_given && (cf->group || cf->grid || cf->split))
                snprintf(kname, sizeof kname, "%s.v%d:%d:%d:%d%s", gemm_cuda_kernel_name(kern), cf->variant, cf->group,
                         cf->grid, cf->split, tname);
            else if (configs_given)
                snprintf(kname, sizeof kname, "%s.v%d%s", gemm_cuda_kernel_name(kern), ours_opt.variant, tname);
            else
                snprintf(kname, sizeof kname, "%s%s", gemm_cuda_kernel_name(kern), tname);
            CHECK_CUDA(cudaMemset(dC, 0xff, (size_t)(s.m * s.n) * elem)); /* NaN: every element must be written */
            first = timed(0, prec, s, dA, dB, dC);
            {
                device_c result = {dC, prec};
                ok = !ours_failed && (is_tc(prec) ? tc_sampled_ok(prec, s, &A, &B, &result)
                                                  : battery_sampled_ok(host_prec, GEMM_NO_TRANS, GEMM_NO_TRANS, s, &A, &B,
                                                                       read_device, &result));
            }
            timed(1, prec, s, dA, dB, dC);
            reps = (int)(0.5 / (first + 1e-9));
            if (reps < 5) reps = 5;
            if (reps > 30) reps = 30;
            if (quick) reps = 3;
            for (r = 0; r < reps; r++)
                for (who = 0; who < 2; who++) t[who][r] = timed(who, prec, s, dA, dB, dC);
            for (who = 0; who < 2; who++) {
                battery_sort(t[who], (int)reps);
                tf[who][0] = flops / t[who][reps / 2] * 1e-12;
                tf[who][1] = flops / t[who][reps - 1] * 1e-12;
                tf[who][2] = flops / t[who][0] * 1e-12;
            }
            printf("%6lld %6lld %6lld | %-16s | %6.2f [%6.2f-%6.2f]%s | %6.2f [%6.2f-%6.2f] | %.2f\n", (long long)s.m,
                   (long long)s.n, (long long)s.k, kname, tf[0][0], tf[0][1], tf[0][2],
                   ok ? " " : "!", tf[1][0], tf[1][1], tf[1][2], tf[0][0] / tf[1][0]);
            if (csv)
                fprintf(csv, "cuda,%s,%s,%lld,%lld,%lld,%.3f,%.3f,%.3f,cublas,%.3f,%.3f,%.3f,%.3f\n",
                        prec_info[prec].name, kname, (long long)s.m,
                        (long long)s.n, (long long)s.k, tf[0][0], tf[0][1], tf[0][2], tf[1][0], tf[1][1], tf[1][2],
                        tf[0][0] / tf[1][0]);
            if (csv) fflush(csv);
            fflush(stdout);
            if (!ok) {
                fprintf(stderr, "bench: gemm's result is WRONG for %lldx%lldx%lld (%s)\n", (long long)s.m,
                        (long long)s.n, (long long)s.k, kname);
                if (nconfigs == 1) return 1;
                wrong++;
            }
            }
            cudaFree(dA);
            cudaFree(dB);
            cudaFree(dC);
            battery_buf_free(&A);
            battery_buf_free(&B);
        }
    }
    if (nhost > 0 && host_sizes[0] > 0) bench_host(host_sizes, nhost, csv);
    if (csv) { fclose(csv); printf("\nwrote %s\n", csv_path); }
    cublasDestroy(handle);
    if (wrong) printf("\n%d WRONG results (see above)\n", wrong);
    return wrong ? 1 : 0;
}
