/* bench/bench_cuda.cu - gemm's CUDA backend beside cuBLAS, in one process.

   make bench-cuda                 the default tables (needs a GPU)
   build/bench_cuda [--sizes 1024,2048] [--shapes m:n:k,...] [--prec f32,f64]
                    [--kernel auto|simt|dmma|tiled16|naive] [--host 64,256,...]
                    [--csv FILE] [--quick] [--variants 1,2,...]

   --variants: each listed kernel configuration (gemm_cuda_options.variant,
   needs -DGEMM_CUDA_TUNING; 0 = the default) on each shape, each beside
   its own cuBLAS runs; a wrong result is reported and the sweep goes on.

   Protocol (../shared/BENCHMARKS.md): row-major NN, inputs in [-0.5, 0.5)
   already on the device, a warm-up call each, then ours and cuBLAS's calls
   interleaved (A B A B), each timed with CUDA events; the median of the
   repeats (at least 5, more while they fit in about half a second) with
   min and max. Every result is checked once on 64 sampled elements
   against fp64 sums on the host. cuBLAS is linked here only.
   The host-pointer table times gemm_cuda_?gemm_host end to end (wall clock,
   allocation included) per mode, with the call's own breakdown. */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "../tests/battery.h"

#include <chrono>
#include <cublas_v2.h>

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) { fprintf(stderr, "bench: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } \
    } while (0)

static cublasHandle_t handle;
static gemm_cuda_options ours_opt;
static int keep_going, ours_failed; /* --variants: a failing call of ours is reported, not fatal */

/* who = 0: ours, 1: cuBLAS. Row-major NN: cuBLAS (column-major) computes C^T = B^T A^T. */
static void call(int who, battery_precision prec, battery_shape s, const void *A, const void *B, void *C)
{
    gemm_status st = GEMM_OK;
    if (prec == BATTERY_F32) {
        float alpha = 1, beta = 0;
        if (who == 0)
            st = gemm_cuda_sgemm_ex(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, alpha,
                                    (const float *)A, s.k, (const float *)B, s.n, beta, (float *)C, s.n, 0, &ours_opt);
        else if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)s.n, (int)s.m, (int)s.k, &alpha, (const float *)B,
                             (int)s.n, (const float *)A, (int)s.k, &beta, (float *)C, (int)s.n) != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "bench: cublasSgemm failed\n");
            exit(1);
        }
    } else {
        double alpha = 1, beta = 0;
        if (who == 0)
            st = gemm_cuda_dgemm_ex(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, alpha,
                                    (const double *)A, s.k, (const double *)B, s.n, beta, (double *)C, s.n, 0,
                                    &ours_opt);
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

static double timed(int who, battery_precision prec, battery_shape s, const void *A, const void *B, void *C)
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
typedef struct device_c { const void *data; battery_precision prec; } device_c;
static double read_device(void *ctx, size_t index)
{
    const device_c *c = (const device_c *)ctx;
    double d;
    float f;
    if (c->prec == BATTERY_F32) {
        CHECK_CUDA(cudaMemcpy(&f, (const float *)c->data + index, sizeof f, cudaMemcpyDeviceToHost));
        return f;
    }
    CHECK_CUDA(cudaMemcpy(&d, (const double *)c->data + index, sizeof d, cudaMemcpyDeviceToHost));
    return d;
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
        battery_buf A = battery_buf_new(BATTERY_F32, (size_t)(n * n)), C = battery_buf_new(BATTERY_F32, (size_t)(n * n));
        uint64_t st = 3;
        battery_fill(&A, &st);
        for (mi = 0; mi < 3; mi++) {
            double tot[5], h2d[5], ker[5], d2h[5];
            gemm_cuda_options o;
            gemm_cuda_timing t;
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
                tot[r] = now_ms() - t0; h2d[r] = t.h2d_ms; ker[r] = t.kernel_ms; d2h[r] = t.d2h_ms;
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

int main(int argc, char **argv)
{
    int64_t sizes[32] = {1024, 2048, 4096, 8192, 16384}, host_sizes[16] = {64, 256, 1024, 4096};
    battery_shape shapes[64];
    int64_t variants[16] = {0};
    int nsizes = 5, nhost = 4, nshapes = 0, i, si, pi, quick = 0, prec_count = 2, nvariants = 1, vi, wrong = 0;
    battery_precision precs[2] = {BATTERY_F32, BATTERY_F64};
    const char *csv_path = NULL;
    FILE *csv = NULL;
    struct cudaDeviceProp prop;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 32);
        else if (!strcmp(argv[i], "--host") && i + 1 < argc) nhost = battery_parse_list(argv[++i], host_sizes, 16);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--variants") && i + 1 < argc) nvariants = battery_parse_list(argv[++i], variants, 16);
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
            const char *k = argv[++i];
            ours_opt.kernel = !strcmp(k, "naive") ? GEMM_CUDA_KERNEL_NAIVE : !strcmp(k, "tiled16") ? GEMM_CUDA_KERNEL_TILED16
                            : !strcmp(k, "simt") ? GEMM_CUDA_KERNEL_SIMT : !strcmp(k, "dmma") ? GEMM_CUDA_KERNEL_DMMA
                            : GEMM_CUDA_KERNEL_AUTO;
        } else if (!strcmp(argv[i], "--prec") && i + 1 < argc) prec_count = battery_parse_precs(argv[++i], precs);
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            const char *p = argv[++i];
            nshapes = battery_parse_shapes(p, shapes, 64);
        } else {
            fprintf(stderr, "usage: %s [--sizes n,...] [--shapes m:n:k,...] [--prec f32,f64] [--kernel K] "
                            "[--host n,...] [--csv FILE] [--quick] [--variants v,...]\n", argv[0]);
            return 2;
        }
    }
    if (nshapes == 0) {
        for (i = 0; i < nsizes; i++) { shapes[nshapes].m = shapes[nshapes].n = shapes[nshapes].k = sizes[i]; nshapes++; }
        shapes[nshapes++] = (battery_shape){4096, 4096, 256};
        shapes[nshapes++] = (battery_shape){256, 4096, 4096};
        shapes[nshapes++] = (battery_shape){4096, 256, 4096};
        shapes[nshapes++] = (battery_shape){1000, 1000, 1000};
    }
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "bench: cublasCreate failed\n"); return 1; }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "backend,precision,kernel,m,n,k,ours_tflops,ours_min,ours_max,peer,peer_tflops,peer_min,peer_max,ratio\n");

    printf("gemm CUDA vs cuBLAS on %s (cc %d.%d, %d SMs), row-major NN, TFLOP/s median [min-max]\n", prop.name,
           prop.major, prop.minor, prop.multiProcessorCount);
    for (pi = 0; pi < prec_count; pi++) {
        battery_precision prec = precs[pi];
        size_t elem = prec == BATTERY_F32 ? sizeof(float) : sizeof(double);
        printf("\n%s\n%6s %6s %6s | %-7s | %-22s | %-22s | %s\n", prec == BATTERY_F32 ? "fp32" : "fp64", "m", "n", "k",
               "kernel", "gemm", "cuBLAS", "ratio");
        for (si = 0; si < nshapes; si++) {
            battery_shape s = shapes[si];
            uint64_t state = 42;
            battery_buf A = battery_buf_new(prec, (size_t)(s.m * s.k)), B = battery_buf_new(prec, (size_t)(s.k * s.n));
            void *dA, *dB, *dC;
            double t[2][64], tf[2][3], flops = 2.0 * (double)s.m * (double)s.n * (double)s.k, first;
            int reps, r, who, ok;
            gemm_cuda_kernel kern = ours_opt.kernel ? ours_opt.kernel
                                                    : gemm_cuda_auto_kernel(prec == BATTERY_F32 ? 32 : 64, s.m, s.n, s.k);
            if (prec == BATTERY_F32 && kern == GEMM_CUDA_KERNEL_DMMA) continue;
            battery_fill(&A, &state);
            battery_fill(&B, &state);
            CHECK_CUDA(cudaMalloc(&dA, A.count * elem));
            CHECK_CUDA(cudaMalloc(&dB, B.count * elem));
            CHECK_CUDA(cudaMalloc(&dC, (size_t)(s.m * s.n) * elem));
            CHECK_CUDA(cudaMemcpy(dA, A.data, A.count * elem, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(dB, B.data, B.count * elem, cudaMemcpyHostToDevice));
            for (vi = 0; vi < nvariants; vi++) {
            char kname[32];
            ours_opt.variant = (int)variants[vi];
            keep_going = nvariants > 1;
            ours_failed = 0;
            if (nvariants > 1 || variants[0] != 0)
                snprintf(kname, sizeof kname, "%s.v%d", gemm_cuda_kernel_name(kern), ours_opt.variant);
            else
                snprintf(kname, sizeof kname, "%s", gemm_cuda_kernel_name(kern));
            CHECK_CUDA(cudaMemset(dC, 0xff, (size_t)(s.m * s.n) * elem)); /* NaN: every element must be written */
            first = timed(0, prec, s, dA, dB, dC);
            {
                device_c result = {dC, prec};
                ok = !ours_failed && battery_sampled_ok(prec, GEMM_NO_TRANS, GEMM_NO_TRANS, s, &A, &B, read_device, &result);
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
            printf("%6lld %6lld %6lld | %-7s | %6.2f [%6.2f-%6.2f]%s | %6.2f [%6.2f-%6.2f] | %.2f\n", (long long)s.m,
                   (long long)s.n, (long long)s.k, kname, tf[0][0], tf[0][1], tf[0][2],
                   ok ? " " : "!", tf[1][0], tf[1][1], tf[1][2], tf[0][0] / tf[1][0]);
            if (csv)
                fprintf(csv, "cuda,%s,%s,%lld,%lld,%lld,%.3f,%.3f,%.3f,cublas,%.3f,%.3f,%.3f,%.3f\n",
                        prec == BATTERY_F32 ? "f32" : "f64", kname, (long long)s.m,
                        (long long)s.n, (long long)s.k, tf[0][0], tf[0][1], tf[0][2], tf[1][0], tf[1][1], tf[1][2],
                        tf[0][0] / tf[1][0]);
            if (csv) fflush(csv);
            fflush(stdout);
            if (!ok) {
                fprintf(stderr, "bench: gemm's result is WRONG for %lldx%lldx%lld (%s)\n", (long long)s.m,
                        (long long)s.n, (long long)s.k, kname);
                if (nvariants == 1) return 1;
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
