/* bench/bench_cuda_devices.cu - one product from pageable host memory on
   several GPUs: gemm_cuda_?gemm_host with options.device_count = D beside
   the same call on one GPU and cuBLASXt on the same D GPUs, in one process,
   with the physical limit measured in the same run.

   build/bench_cuda_devices [--devices 2] [--sizes 16384,32768] [--prec f32,f64] [--reps 5]
                            [--xt-blocks 4096,8192] [--cap BYTES] [--threads 8,12,16]
                            [--huge N] [--csv FILE]

   Protocol (bench/RESULTS.md): row-major NN squares, inputs uniform in
   [-0.5, 0.5) in malloc'd memory touched before timing, beta = 0. Each
   way is warmed up once with C poisoned (NaN) and checked on 64 sampled
   elements against fp64 sums; then `reps` rounds in which each way runs
   once, in turn (A B C A B C); wall-clock seconds, median with min and
   max. cuBLASXt's block size is the fastest of --xt-blocks (one timed call
   each after a warm-up). The limit = max(bytes to and from the busiest GPU
   / the host links' pinned rate with all D GPUs copying at once, flops /
   (D x our one-GPU rate on device buffers)), each measured here. --cap
   also runs ours on D GPUs with options.max_device_bytes = BYTES per device
   at the largest size (out of core on each GPU) and prints its rate per
   flop against the in-core call's. --threads runs ours on D GPUs at the
   largest size with each options.host_threads (copy threads per GPU).
   --huge N, after the sizes: ours on D GPUs once more at n = N, a product
   whose operands are larger than the D GPUs' memory together (out of core
   on each GPU with no cap), checked on 64 sampled elements, timed once
   (the first call: no warm-up at that size), its rate per flop against
   the in-core call's at the largest of --sizes, same precision; with the
   limit (as above) for n = N beside it. cuBLAS is linked here only. */
#define GEMM__TEST_HOOKS /* gemm__cuda_devices_plan: the pieces, for the bytes per GPU */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "../tests/battery.h"
#include "host_matrices.h"

#include <cublasXt.h>

/* Pinned host -> device bytes per second of each GPU while all D copy at once. */
static double concurrent_h2d(int d)
{
    const size_t bytes = (size_t)1 << 30;
    std::vector<double> rate(d);
    std::vector<std::thread> th;
    for (int g = 0; g < d; g++)
        th.emplace_back([&, g] {
            void *h, *dv;
            CHECK_CUDA(cudaSetDevice(g));
            CHECK_CUDA(cudaHostAlloc(&h, bytes, cudaHostAllocDefault));
            CHECK_CUDA(cudaMalloc(&dv, bytes));
            memset(h, 1, bytes);
            CHECK_CUDA(cudaMemcpy(dv, h, bytes, cudaMemcpyHostToDevice));
            double t0 = gemm__cuda_now();
            for (int r = 0; r < 4; r++) CHECK_CUDA(cudaMemcpy(dv, h, bytes, cudaMemcpyHostToDevice));
            rate[g] = 4.0 * (double)bytes / (gemm__cuda_now() - t0);
            cudaFree(dv);
            cudaFreeHost(h);
        });
    for (std::thread &t : th) t.join();
    CHECK_CUDA(cudaSetDevice(0));
    return *std::min_element(rate.begin(), rate.end());
}

enum { WAY_ONE, WAY_MANY, WAY_XT, WAYS };

struct bench {
    int devices;
    cublasXtHandle_t xt;
    int xt_block;
    size_t cap;
    int host_threads;                   /* options.host_threads of ours on D GPUs (0: automatic) */
    int64_t sweep[8];                   /* --threads: host_threads to try at the largest size */
    int nsweep;
    double incore_rate;                 /* FLOP/s of ours on D GPUs at the largest size (for --huge) */
    double device_rate;                 /* our one-GPU FLOP/s on device buffers there */
};

template <typename T> static double way_call(bench *b, int way, int64_t n, const T *A, const T *B, T *C, gemm_timing *t)
{
    double t0 = gemm__cuda_now();
    if (way == WAY_XT) {
        T one = 1, zero = 0;
        if (sizeof(T) == 4)
            CHECK_CUBLAS(cublasXtSgemm(b->xt, CUBLAS_OP_N, CUBLAS_OP_N, (size_t)n, (size_t)n, (size_t)n, (const float *)&one,
                                       (const float *)B, (size_t)n, (const float *)A, (size_t)n, (const float *)&zero,
                                       (float *)C, (size_t)n));
        else
            CHECK_CUBLAS(cublasXtDgemm(b->xt, CUBLAS_OP_N, CUBLAS_OP_N, (size_t)n, (size_t)n, (size_t)n, (const double *)&one,
                                       (const double *)B, (size_t)n, (const double *)A, (size_t)n, (const double *)&zero,
                                       (double *)C, (size_t)n));
    } else {
        gemm_cuda_options o = {};
        gemm_status s;
        o.device_count = way == WAY_MANY ? b->devices : 0;
        o.max_device_bytes = way == WAY_MANY ? b->cap : 0;
        o.host_threads = way == WAY_MANY ? b->host_threads : 0;
        o.timing = t;
        s = sizeof(T) == 4 ? gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, (const float *)A,
                                                  n, (const float *)B, n, 0.0f, (float *)C, n, &o)
                           : gemm_cuda_dgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, (const double *)A,
                                                  n, (const double *)B, n, 0.0, (double *)C, n, &o);
        if (s != GEMM_OK) { fprintf(stderr, "bench: ours: %s\n", gemm_last_error_detail()); exit(1); }
    }
    return gemm__cuda_now() - t0;
}

template <typename T> static bool sampled_ok(int64_t n, const T *A, const T *B, const T *C)
{
    gemm_precision prec = sizeof(T) == 4 ? GEMM_F32 : GEMM_F64;
    size_t count = (size_t)(n * n);
    battery_buf a = {prec, count, (void *)A}, b = {prec, count, (void *)B}, c = {prec, count, (void *)C};
    battery_shape s = {n, n, n};
    return battery_sampled_ok(prec, GEMM_NO_TRANS, GEMM_NO_TRANS, s, &a, &b, battery_read_host, &c);
}

static const char *way_name(int way, int d)
{
    static char many[32];
    snprintf(many, sizeof many, "ours on %d GPUs", d);
    return way == WAY_ONE ? "ours on 1 GPU" : way == WAY_MANY ? many : "cuBLASXt";
}

template <typename T>
static void bench_size(bench *b, int64_t n, int reps, const int64_t *blocks, int nb, double h2d, FILE *csv, bool last)
{
    size_t count = (size_t)(n * n);
    T *A = (T *)big_alloc(count * sizeof(T)), *B = (T *)big_alloc(count * sizeof(T)), *C = (T *)big_alloc(count * sizeof(T));
    std::vector<double> v[WAYS];
    double med[WAYS], lo[WAYS], hi[WAYS], rate, flops = 2.0 * (double)n * n * n, busiest = 0, limit;
    gemm_timing t = {}, tw;
    gemm__cuda_piece pc[GEMM__CUDA_MAX_DEVICES];
    double w[GEMM__CUDA_MAX_DEVICES];
    int used;
    const char *prec = sizeof(T) == 4 ? "f32" : "f64";
    fill_random(A, count, 1);
    fill_random(B, count, 2);
    for (int way = 0; way < WAYS; way++) {
        fill_value(C, count, (T)NAN);
        if (way == WAY_XT) {
            double best = 1e30;
            for (int i = 0; i < nb; i++) {
                CHECK_CUBLAS(cublasXtSetBlockDim(b->xt, (int)blocks[i]));
                if (i == 0) way_call(b, WAY_XT, n, A, B, C, (gemm_timing *)NULL);
                double s = way_call(b, WAY_XT, n, A, B, C, (gemm_timing *)NULL);
                if (s < best) best = s, b->xt_block = (int)blocks[i];
            }
            CHECK_CUBLAS(cublasXtSetBlockDim(b->xt, b->xt_block));
        } else {
            way_call(b, way, n, A, B, C, (gemm_timing *)NULL);
        }
        if (!sampled_ok(n, A, B, C)) { fprintf(stderr, "bench: %s at n = %lld: wrong result\n", way_name(way, b->devices), (long long)n); exit(1); }
    }
    for (int r = 0; r < reps; r++)
        for (int way = 0; way < WAYS; way++) {
            v[way].push_back(way_call(b, way, n, A, B, C, way == WAY_MANY ? &tw : (gemm_timing *)NULL));
            if (way == WAY_MANY && (r == 0 || tw.total_s < t.total_s)) t = tw;
        }
    for (int way = 0; way < WAYS; way++) med[way] = median_of(v[way], &lo[way], &hi[way]);
    for (int i = 0; i < b->devices; i++) w[i] = 1;
    used = gemm__cuda_devices_plan(n, n, n, b->devices, w, pc);
    for (int i = 0; i < used; i++) {
        double bytes = ((double)pc[i].rows * n + (double)n * pc[i].cols + (double)pc[i].rows * pc[i].cols) * sizeof(T);
        busiest = bytes > busiest ? bytes : busiest;
    }
    for (int g = 0; g < b->devices; g++) { /* the host calls' scratch back, for the device buffers below */
        CHECK_CUDA(cudaSetDevice(g));
        gemm_cuda_release_scratch();
    }
    CHECK_CUDA(cudaSetDevice(0));
    rate = device_rate<T>(n < 32768 ? n : 16384);
    limit = std::max(busiest / h2d, flops / (used * rate));
    b->incore_rate = flops / med[WAY_MANY];
    b->device_rate = rate;
    printf("| %s | %lld | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) b%d | **%.2fx** | **%.2fx** | %.3f | %.2f | "
           "%.3f / %.3f / %.3f / %.3f |\n",
           prec, (long long)n, med[WAY_ONE], lo[WAY_ONE], hi[WAY_ONE], med[WAY_MANY], lo[WAY_MANY], hi[WAY_MANY], med[WAY_XT],
           lo[WAY_XT], hi[WAY_XT], b->xt_block, med[WAY_ONE] / med[WAY_MANY], med[WAY_XT] / med[WAY_MANY], limit,
           limit / med[WAY_MANY], t.to_device_s, t.compute_s, t.from_device_s, t.total_s);
    if (csv)
        fprintf(csv, "%s,%lld,%d,%.6f,%.6f,%.6f,%d,%.6f,%.4f\n", prec, (long long)n, b->devices, med[WAY_ONE], med[WAY_MANY],
                med[WAY_XT], b->xt_block, limit, rate / 1e12);
    fflush(stdout);
    if (last && b->nsweep) { /* copy threads per GPU on D GPUs */
        printf("\n%s n = %lld on %d GPUs by options.host_threads (median of 3):", prec, (long long)n, b->devices);
        for (int i = 0; i < b->nsweep; i++) {
            std::vector<double> ts;
            gemm_timing tt = {};
            b->host_threads = (int)b->sweep[i];
            for (int r = 0; r < 3; r++) ts.push_back(way_call(b, WAY_MANY, n, A, B, C, &tt));
            printf(" %d: %.3f s (to dev %.3f);", b->host_threads, median_of(ts, NULL, NULL), tt.to_device_s);
        }
        b->host_threads = 0;
        printf("\n");
    }
    if (last && b->cap) { /* out of core on every GPU: the rate per flop against the in-core call's */
        std::vector<double> oc;
        fill_value(C, count, (T)NAN);
        way_call(b, WAY_MANY, n, A, B, C, (gemm_timing *)NULL);
        if (!sampled_ok(n, A, B, C)) { fprintf(stderr, "bench: capped run: wrong result\n"); exit(1); }
        for (int r = 0; r < (reps < 3 ? reps : 3); r++) oc.push_back(way_call(b, WAY_MANY, n, A, B, C, (gemm_timing *)NULL));
        double m = median_of(oc, NULL, NULL);
        printf("\nout of core on %d GPUs (options.max_device_bytes = %.2f GB per GPU, %s n = %lld): %.3f s, %.1f TFLOP/s, "
               "**%.2f** of the in-core call's rate\n",
               b->devices, (double)b->cap / 1e9, prec, (long long)n, m, flops / m / 1e12, med[WAY_MANY] / m);
    }
    free(A);
    free(B);
    free(C);
}

/* --huge: one product larger than the GPUs' memory together, on all D. */
template <typename T> static void bench_huge(bench *b, int64_t n, double h2d)
{
    size_t count = (size_t)(n * n), free_b = 0, total_b = 0, gpus_b = 0;
    double flops = 2.0 * (double)n * n * n, busiest = 0, t0, s, limit;
    gemm__cuda_piece pc[GEMM__CUDA_MAX_DEVICES];
    double w[GEMM__CUDA_MAX_DEVICES];
    gemm_timing t = {};
    int used;
    for (int g = 0; g < b->devices; g++) {
        CHECK_CUDA(cudaSetDevice(g));
        CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
        gemm_cuda_release_scratch();
        gpus_b += total_b;
    }
    CHECK_CUDA(cudaSetDevice(0));
    T *A = (T *)big_alloc(count * sizeof(T)), *B = (T *)big_alloc(count * sizeof(T)), *C = (T *)big_alloc(count * sizeof(T));
    t0 = gemm__cuda_now();
    fill_random(A, count, 1);
    fill_random(B, count, 2);
    fill_value(C, count, (T)NAN);
    printf("\n--huge: %s n = %lld, operands %.1f GB against %.1f GB on the %d GPUs together (filled in %.1f s)\n",
           sizeof(T) == 4 ? "f32" : "f64", (long long)n, 3.0 * (double)count * sizeof(T) / 1e9, (double)gpus_b / 1e9,
           b->devices, gemm__cuda_now() - t0);
    fflush(stdout);
    s = way_call(b, WAY_MANY, n, A, B, C, &t);
    if (!sampled_ok(n, A, B, C)) { fprintf(stderr, "bench: --huge: wrong result\n"); exit(1); }
    for (int i = 0; i < b->devices; i++) w[i] = 1;
    used = gemm__cuda_devices_plan(n, n, n, b->devices, w, pc);
    for (int i = 0; i < used; i++) {
        double bytes = ((double)pc[i].rows * n + (double)n * pc[i].cols + (double)pc[i].rows * pc[i].cols) * sizeof(T);
        busiest = bytes > busiest ? bytes : busiest;
    }
    limit = std::max(busiest / h2d, b->device_rate > 0 ? flops / (used * b->device_rate) : 0);
    printf("--huge: %.2f s, %.1f TFLOP/s, **%.2f** of the in-core rate per flop (%.1f TFLOP/s); limit %.2f s (each GPU's "
           "first-read bytes / link rate, or compute); slowest GPU: to dev %.2f / compute %.2f / from dev %.2f\n",
           s, flops / s / 1e12, b->incore_rate > 0 ? flops / s / b->incore_rate : 0, b->incore_rate / 1e12, limit,
           t.to_device_s, t.compute_s, t.from_device_s);
    free(A);
    free(B);
    free(C);
}

int main(int argc, char **argv)
{
    int64_t sizes[8] = {16384, 32768}, blocks[8] = {4096, 8192};
    int nsizes = 2, nb = 2, reps = 5, count = 0, devs[GEMM__CUDA_MAX_DEVICES];
    gemm_precision precs[4] = {GEMM_F32, GEMM_F64};
    int nprec = 2;
    int64_t huge = 0;
    FILE *csv = NULL;
    bench b = {};
    b.devices = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--devices") && i + 1 < argc) b.devices = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 8);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) nprec = battery_parse_precs(argv[++i], precs);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--xt-blocks") && i + 1 < argc) nb = battery_parse_list(argv[++i], blocks, 8);
        else if (!strcmp(argv[i], "--cap") && i + 1 < argc) b.cap = (size_t)atof(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) b.nsweep = battery_parse_list(argv[++i], b.sweep, 8);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = fopen(argv[++i], "w");
        else if (!strcmp(argv[i], "--huge") && i + 1 < argc) huge = atoll(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--devices D] [--sizes n,...] [--prec f32,f64] [--reps R] [--xt-blocks b,...] "
                            "[--cap BYTES] [--threads t,...] [--huge N] [--csv FILE]\n", argv[0]);
            return 2;
        }
    }
    CHECK_CUDA(cudaGetDeviceCount(&count));
    if (b.devices < 2 || b.devices > count) { fprintf(stderr, "bench: --devices %d, but %d GPUs are here\n", b.devices, count); return 2; }
    for (int i = 0; i < b.devices; i++) devs[i] = i;
    CHECK_CUBLAS(cublasXtCreate(&b.xt));
    CHECK_CUBLAS(cublasXtDeviceSelect(b.xt, b.devices, devs));
    {
        struct cudaDeviceProp prop;
        int version = 0;
        cudaGetDeviceProperties(&prop, 0);
        cudaRuntimeGetVersion(&version);
        double h2d = concurrent_h2d(b.devices);
        printf("%d x %s, %u host threads, CUDA runtime %d; pinned H2D per GPU with all %d copying: %.1f GB/s\n\n", b.devices,
               prop.name, std::thread::hardware_concurrency(), version, b.devices, h2d / 1e9);
        printf("| prec | n | ours 1 GPU s | ours %d GPUs s | cuBLASXt %d GPUs s (block) | %d GPUs / 1 | ours / cuBLASXt | "
               "limit s | limit / ours | ours %d GPUs: to dev / compute / from dev / total (slowest GPU) |\n",
               b.devices, b.devices, b.devices, b.devices);
        printf("|---|---|---|---|---|---|---|---|---|---|\n");
        if (csv) fprintf(csv, "prec,n,devices,ours_1gpu_s,ours_s,cublasxt_s,xt_block,limit_s,device_tflops\n");
        for (int p = 0; p < nprec; p++)
            for (int i = 0; i < nsizes; i++) {
                bool last = i == nsizes - 1;
                if (precs[p] == GEMM_F32) bench_size<float>(&b, sizes[i], reps, blocks, nb, h2d, csv, last);
                else if (precs[p] == GEMM_F64) bench_size<double>(&b, sizes[i], reps, blocks, nb, h2d, csv, last);
            }
        if (huge > 0 && precs[nprec - 1] == GEMM_F32) bench_huge<float>(&b, huge, h2d);
        else if (huge > 0) bench_huge<double>(&b, huge, h2d);
    }
    cublasXtDestroy(b.xt);
    if (csv) fclose(csv);
    return 0;
}
