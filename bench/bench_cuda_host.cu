/* bench/bench_cuda_host.cu - GEMM on matrices in pageable host memory, end
   to end, in one process: gemm_cuda_?gemm_host in each mode beside
   copy-then-cuBLAS and cuBLASXt, with the physical limit measured in the
   same run; then the out-of-core product.

   build/bench_cuda_host [--sizes 1024,2048,4096,8192,16384] [--sizes-f64 LIST] [--prec f32,f64] [--reps 5]
                         [--small 32,64,128,256,512] [--threads 2,4,8,12] [--xt-blocks 1024,2048,4096,8192]
                         [--ooc 90000] [--ooc-cap BYTES] [--incore 32768] [--csv FILE]

   Protocol (docs/DESIGN.md, "Measuring"): row-major NN squares, inputs uniform
   in [-0.5, 0.5) in malloc'd memory touched before timing, beta = 0; a
   warm-up call of each way (its C poisoned with NaN first and checked on
   64 sampled elements against fp64 sums), then `reps` rounds in which
   each way runs once, in turn (ours in PAGEABLE, PINNED and MAPPED mode,
   copy-then-cuBLAS, cuBLASXt, and ours on page-locked copies of A, B, C:
   the "locked" column, PINNED's own case); wall-clock seconds, median with
   min and max. copy-then-cuBLAS = cudaMalloc x3, cudaMemcpy of A and B, cublas?gemm,
   cudaMemcpy of C, cudaFree x3. cuBLASXt = cublasXt?gemm on the same host
   pointers on GPU 0, its block size the fastest of --xt-blocks between n/8
   and n (one timed call each after a warm-up). The physical limit = max(bytes in / pinned
   H2D rate, bytes out / pinned D2H rate, flops / our rate on device
   buffers), each measured here.

   --sizes-f64: fp64's sizes when they differ from --sizes (fp64 at n =
   16384 moves twice fp32's bytes for a row the issue does not ask for).
   --small: the same ways at small sizes (median of 30), where the
   zero-copy path is taken. --threads: options.host_threads at the largest
   size of --sizes in fp32. --ooc N: fp32 n x n x n from host memory (A,
   B, C together 12 n^2 bytes: n = 90000 is 97 GB, more than an H100
   holds), once, its rate beside the in-core rate of the same call at
   --incore, 64 sampled elements against fp64 sums and every element of C
   checked written; --ooc-cap also runs it under options.max_device_bytes
   (a block order). cuBLAS is linked here only. */
#define GEMM__TEST_HOOKS /* only to print which order a call took (gemm__cuda_host_last) */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "../tests/battery.h"
#include "host_matrices.h"

#include <cublasXt.h>

static const gemm_cuda_options default_options = {}; /* the library's choices */

static double now_s(void) { return gemm__cuda_now(); }

/* ---- the link and the device, measured here ---- */

typedef struct link_rates {
    double h2d, d2h, host_copy; /* bytes per second: pinned DMA each way; pageable -> pinned by our copy threads' count */
} link_rates;

static link_rates measure_link(void)
{
    const size_t bytes = (size_t)256 << 20;
    link_rates r;
    void *h, *d, *src;
    cudaEvent_t e0, e1;
    std::vector<double> up, down, copy;
    int i, threads = gemm__cuda_copy_threads(&default_options);
    CHECK_CUDA(cudaHostAlloc(&h, bytes, cudaHostAllocDefault));
    CHECK_CUDA(cudaMalloc(&d, bytes));
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    src = big_alloc(bytes);
    memset(src, 1, bytes);
    memset(h, 1, bytes);
    for (i = 0; i < 6; i++) {
        float ms;
        CHECK_CUDA(cudaEventRecord(e0, 0));
        CHECK_CUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0));
        CHECK_CUDA(cudaEventRecord(e1, 0));
        CHECK_CUDA(cudaEventSynchronize(e1));
        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        if (i) up.push_back(bytes / (ms * 1e-3));
        CHECK_CUDA(cudaEventRecord(e0, 0));
        CHECK_CUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, 0));
        CHECK_CUDA(cudaEventRecord(e1, 0));
        CHECK_CUDA(cudaEventSynchronize(e1));
        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        if (i) down.push_back(bytes / (ms * 1e-3));
    }
    for (i = 0; i < 4; i++) {
        double t0 = now_s();
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; t++)
            pool.push_back(std::thread([=] {
                size_t part = bytes / threads;
                memcpy((char *)h + part * t, (char *)src + part * t, part);
            }));
        for (auto &th : pool) th.join();
        if (i) copy.push_back(bytes / (now_s() - t0));
    }
    r.h2d = median_of(up, NULL, NULL);
    r.d2h = median_of(down, NULL, NULL);
    r.host_copy = median_of(copy, NULL, NULL);
    cudaFreeHost(h);
    cudaFree(d);
    free(src);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return r;
}

/* ---- the ways, each one call from host memory ---- */

/* The ways; the last is ours again with A, B and C in page-locked memory
   (cudaHostAlloc; PINNED's case: no staging), not a peer. */
enum { WAY_PAGEABLE, WAY_PINNED, WAY_MAPPED, WAY_COPY_CUBLAS, WAY_XT, WAY_LOCKED, WAYS };
static const char *way_names[WAYS] = {"ours", "ours-pinned-mode", "ours-mapped-mode", "copy+cuBLAS", "cuBLASXt",
                                      "ours-page-locked-memory"};

typedef struct peers {
    cublasHandle_t blas;
    cublasXtHandle_t xt;
    int xt_block;
} peers;

template <typename T> static void copy_then_cublas(peers *pe, int64_t n, const T *A, const T *B, T *C)
{
    size_t bytes = (size_t)(n * n) * sizeof(T);
    T *d[3], one = 1, zero = 0;
    int i, nn = (int)n;
    for (i = 0; i < 3; i++) CHECK_CUDA(cudaMalloc((void **)&d[i], bytes));
    CHECK_CUDA(cudaMemcpy(d[0], A, bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d[1], B, bytes, cudaMemcpyHostToDevice));
    /* row-major C = A B is column-major C^T = B^T A^T */
    if (sizeof(T) == 4)
        CHECK_CUBLAS(cublasSgemm(pe->blas, CUBLAS_OP_N, CUBLAS_OP_N, nn, nn, nn, (const float *)&one, (const float *)d[1], nn,
                                 (const float *)d[0], nn, (const float *)&zero, (float *)d[2], nn));
    else
        CHECK_CUBLAS(cublasDgemm(pe->blas, CUBLAS_OP_N, CUBLAS_OP_N, nn, nn, nn, (const double *)&one, (const double *)d[1], nn,
                                 (const double *)d[0], nn, (const double *)&zero, (double *)d[2], nn));
    CHECK_CUDA(cudaMemcpy(C, d[2], bytes, cudaMemcpyDeviceToHost));
    for (i = 0; i < 3; i++) CHECK_CUDA(cudaFree(d[i]));
}

template <typename T> static void cublas_xt(peers *pe, int64_t n, const T *A, const T *B, T *C)
{
    T one = 1, zero = 0;
    if (sizeof(T) == 4)
        CHECK_CUBLAS(cublasXtSgemm(pe->xt, CUBLAS_OP_N, CUBLAS_OP_N, (size_t)n, (size_t)n, (size_t)n, (const float *)&one,
                                   (const float *)B, (size_t)n, (const float *)A, (size_t)n, (const float *)&zero, (float *)C,
                                   (size_t)n));
    else
        CHECK_CUBLAS(cublasXtDgemm(pe->xt, CUBLAS_OP_N, CUBLAS_OP_N, (size_t)n, (size_t)n, (size_t)n, (const double *)&one,
                                   (const double *)B, (size_t)n, (const double *)A, (size_t)n, (const double *)&zero,
                                   (double *)C, (size_t)n));
}

template <typename T>
static gemm_status ours(int64_t n, const T *A, const T *B, T *C, gemm_cuda_mode mode, int threads, size_t cap,
                        gemm_timing *t)
{
    gemm_cuda_options o;
    memset(&o, 0, sizeof o);
    o.mode = mode;
    o.host_threads = threads;
    o.max_device_bytes = cap;
    o.timing = t;
    return sizeof(T) == 4 ? gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, (const float *)A, n,
                                                 (const float *)B, n, 0.0f, (float *)C, n, &o)
                          : gemm_cuda_dgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, (const double *)A, n,
                                                 (const double *)B, n, 0.0, (double *)C, n, &o);
}

/* One call of a way; returns its wall-clock seconds. */
template <typename T> static double run_way(int way, peers *pe, int64_t n, const T *A, const T *B, T *C, gemm_timing *t)
{
    double t0 = now_s();
    if (way <= WAY_MAPPED || way == WAY_LOCKED) {
        gemm_status s = ours(n, A, B, C, way == WAY_LOCKED ? GEMM_CUDA_PINNED : (gemm_cuda_mode)way, 0, 0, t);
        if (s != GEMM_OK) { fprintf(stderr, "bench: ours (%s): %s\n", way_names[way], gemm_last_error_detail()); exit(1); }
    } else if (way == WAY_COPY_CUBLAS) {
        copy_then_cublas(pe, n, A, B, C);
    } else {
        cublas_xt(pe, n, A, B, C);
    }
    return now_s() - t0;
}

template <typename T> static int sampled_ok(int64_t n, const T *A, const T *B, const T *C)
{
    gemm_precision prec = sizeof(T) == 4 ? GEMM_F32 : GEMM_F64;
    size_t count = (size_t)(n * n);
    battery_buf a = {prec, count, (void *)A}, b = {prec, count, (void *)B}, c = {prec, count, (void *)C};
    battery_shape s = {n, n, n};
    return battery_sampled_ok(prec, GEMM_NO_TRANS, GEMM_NO_TRANS, s, &a, &b, battery_read_host, &c);
}

/* cuBLASXt's block size: the fastest of `blocks` from n/8 to n (one call
   each, after a warm-up; smaller blocks only repeat more copies). */
template <typename T> static void tune_xt(peers *pe, int64_t n, const T *A, const T *B, T *C, const int64_t *blocks, int nb)
{
    double best = 1e30;
    int i, tried = 0;
    for (i = 0; i < nb; i++) {
        double t;
        if ((blocks[i] < n / 8 || blocks[i] > n) && (tried || i + 1 < nb)) continue;
        CHECK_CUBLAS(cublasXtSetBlockDim(pe->xt, (int)blocks[i]));
        if (tried++ == 0) cublas_xt(pe, n, A, B, C);
        t = run_way(WAY_XT, pe, n, A, B, C, (gemm_timing *)NULL);
        if (t < best) {
            best = t;
            pe->xt_block = (int)blocks[i];
        }
    }
    CHECK_CUBLAS(cublasXtSetBlockDim(pe->xt, pe->xt_block));
}

typedef struct row {
    const char *prec;
    int64_t n;
    double med[WAYS], lo[WAYS], hi[WAYS], limit, device_tflops;
    gemm_timing t;
    int xt_block, order;
} row;

/* One size: warm-ups with checks, cuBLASXt's block, `reps` interleaved rounds. */
template <typename T>
static row bench_size(peers *pe, int64_t n, int reps, const link_rates *lr, const int64_t *blocks, int nb, bool with_xt)
{
    size_t count = (size_t)(n * n), bytes = count * sizeof(T);
    T *A = (T *)big_alloc(bytes), *B = (T *)big_alloc(bytes), *C = (T *)big_alloc(bytes), *L[3];
    std::vector<double> times[WAYS];
    double rate = device_rate<T>(n), in_s, out_s;
    row r;
    int way, i;
    memset(&r, 0, sizeof r);
    r.prec = sizeof(T) == 4 ? "f32" : "f64";
    r.n = n;
    fill_random(A, count, 1);
    fill_random(B, count, 2);
    for (i = 0; i < 3; i++) CHECK_CUDA(cudaHostAlloc((void **)&L[i], bytes, cudaHostAllocDefault));
    memcpy(L[0], A, bytes);
    memcpy(L[1], B, bytes);
    for (way = 0; way < WAYS; way++) {
        T *c = way == WAY_LOCKED ? L[2] : C;
        if (way == WAY_XT && !with_xt) continue;
        fill_value(c, count, (T)NAN);
        run_way(way, pe, n, way == WAY_LOCKED ? L[0] : A, way == WAY_LOCKED ? L[1] : B, c, (gemm_timing *)NULL);
        if (!sampled_ok(n, A, B, c)) { fprintf(stderr, "bench: %s n=%lld %s: wrong result\n", r.prec, (long long)n, way_names[way]); exit(1); }
    }
    if (with_xt) tune_xt(pe, n, A, B, C, blocks, nb);
    for (i = 0; i < reps; i++)
        for (way = 0; way < WAYS; way++)
            if (way == WAY_LOCKED) times[way].push_back(run_way(way, pe, n, L[0], L[1], L[2], (gemm_timing *)NULL));
            else if (way != WAY_XT || with_xt) times[way].push_back(run_way(way, pe, n, A, B, C, way == 0 ? &r.t : (gemm_timing *)NULL));
    for (i = 0; i < 3; i++) cudaFreeHost(L[i]);
    r.order = gemm__cuda_host_last[0];
    for (way = 0; way < WAYS; way++)
        r.med[way] = times[way].empty() ? 0 : median_of(times[way], &r.lo[way], &r.hi[way]);
    in_s = 2.0 * bytes / lr->h2d;
    out_s = (double)bytes / lr->d2h;
    r.limit = in_s > out_s ? in_s : out_s;
    if (2.0 * (double)n * n * n / rate > r.limit) r.limit = 2.0 * (double)n * n * n / rate;
    r.device_tflops = rate * 1e-12;
    r.xt_block = pe->xt_block;
    free(A);
    free(B);
    free(C);
    return r;
}

static const char *order_name(int order)
{
    switch (order) {
    case 0: return "zero-copy";
    case GEMM__CUDA_SQUARE: return "square";
    case GEMM__CUDA_BLOCK_A: return "block-A";
    case GEMM__CUDA_BLOCK_B: return "block-B";
    case GEMM__CUDA_KSPLIT: return "k-split";
    default: return "?";
    }
}

static void print_rows(const char *title, const std::vector<row> &rows, FILE *csv)
{
    size_t i;
    printf("\n%s\n", title);
    printf("%-4s %6s | %-22s | %-9s %-9s %-9s | %-22s | %-26s | %-8s | %6s %6s %6s | ours: setup h2d kern d2h ms (order)\n",
           "prec", "n", "ours auto s (min-max)", "pinned", "mapped", "locked", "copy+cuBLAS s", "cuBLASXt s [block]", "limit s",
           "xcopy", "xXT", "lim/us");
    for (i = 0; i < rows.size(); i++) {
        const row *r = &rows[i];
        printf("%-4s %6lld | %7.4f (%7.4f-%7.4f) | %9.4f %9.4f %9.4f | %7.4f (%6.4f-%6.4f) | %7.4f (%6.4f-%6.4f) [%4d] | %8.4f "
               "| %6.2f %6.2f %6.2f | %.1f %.1f %.1f %.1f (%s)\n",
               r->prec, (long long)r->n, r->med[0], r->lo[0], r->hi[0], r->med[1], r->med[2], r->med[5], r->med[3], r->lo[3], r->hi[3],
               r->med[4], r->lo[4], r->hi[4], r->xt_block, r->limit, r->med[3] / r->med[0],
               r->med[4] > 0 ? r->med[4] / r->med[0] : 0, r->limit / r->med[0], r->t.setup_s * 1e3, r->t.to_device_s * 1e3,
               r->t.compute_s * 1e3, r->t.from_device_s * 1e3, order_name(r->order));
        if (csv)
            for (int w = 0; w < WAYS; w++)
                fprintf(csv, "%s,%s,%lld,%.6f,%.6f,%.6f,%.6f,%.3f\n", way_names[w], r->prec, (long long)r->n, r->med[w], r->lo[w],
                        r->hi[w], r->limit, r->device_tflops);
    }
    fflush(stdout);
}

/* options.host_threads at n (fp32, default mode): median of 3 each. */
static void bench_threads(int64_t n, const int64_t *threads, int nt)
{
    size_t count = (size_t)(n * n);
    float *A = (float *)big_alloc(count * 4), *B = (float *)big_alloc(count * 4), *C = (float *)big_alloc(count * 4);
    int i, r;
    fill_random(A, count, 1);
    fill_random(B, count, 2);
    fill_value(C, count, 0.0f);
    printf("\ncopy threads (options.host_threads), fp32 n = %lld, ours default mode, median of 3 (s):", (long long)n);
    for (i = 0; i < nt; i++) {
        std::vector<double> v;
        for (r = 0; r < 4; r++) {
            double t0 = now_s();
            if (ours(n, A, B, C, GEMM_CUDA_PAGEABLE, (int)threads[i], 0, (gemm_timing *)NULL) != GEMM_OK) exit(1);
            if (r) v.push_back(now_s() - t0);
        }
        printf(" %lld: %.4f", (long long)threads[i], median_of(v, NULL, NULL));
    }
    printf("\n");
    free(A);
    free(B);
    free(C);
}

/* n x n x n fp32 products from host memory, one per entry of caps[]
   (options.max_device_bytes; 0 = none), `runs` calls each (the median of
   all but the first when there are more than two): seconds in secs[],
   timing and order of the last call; each result checked on 64 sampled
   elements and for any element of C left unwritten (C is NaN before). */
static void big_products(int64_t n, const size_t *caps, int ncaps, int runs, double *secs, gemm_timing *t, int *order)
{
    size_t count = (size_t)n * (size_t)n;
    float *A = (float *)big_alloc(count * 4), *B = (float *)big_alloc(count * 4), *C = (float *)big_alloc(count * 4);
    double t0 = now_s();
    int ci, r;
    fill_random(A, count, 11);
    fill_random(B, count, 12);
    printf("  n = %lld: %.1f GB of operands filled in %.1f s\n", (long long)n, 3.0 * count * 4 / 1e9, now_s() - t0);
    fflush(stdout);
    for (ci = 0; ci < ncaps; ci++) {
        std::vector<double> v;
        std::atomic<size_t> unwritten(0);
        fill_value(C, count, (float)NAN);
        for (r = 0; r < runs; r++) {
            gemm_status s;
            t0 = now_s();
            s = ours(n, A, B, C, GEMM_CUDA_PAGEABLE, 0, caps[ci], &t[ci]);
            if (s != GEMM_OK) { fprintf(stderr, "bench: n=%lld: %s\n", (long long)n, gemm_last_error_detail()); exit(1); }
            v.push_back(now_s() - t0);
        }
        order[ci] = gemm__cuda_host_last[0];
        parallel_for(count, [&](size_t b, size_t e) {
            size_t bad = 0;
            for (size_t i = b; i < e; i++) bad += C[i] != C[i];
            unwritten += bad;
        });
        if (unwritten.load() || !sampled_ok(n, A, B, C)) {
            fprintf(stderr, "bench: n=%lld: wrong result (%zu elements unwritten)\n", (long long)n, unwritten.load());
            exit(1);
        }
        if (runs > 2) v.erase(v.begin()); /* the first call maps the device buffer */
        secs[ci] = median_of(v, NULL, NULL);
    }
    free(A);
    free(B);
    free(C);
}

static void bench_out_of_core(int64_t n, int64_t incore, size_t cap)
{
    gemm_timing ti = {}, t[2] = {};
    size_t free_b = 0, total = 0, caps[2] = {0, cap};
    double s_in, s_out[2] = {0, 0}, f_in = 2.0 * incore * incore * incore, f_out = 2.0 * (double)n * n * n, r_in;
    int order_in, order[2] = {-1, -1}, i;
    CHECK_CUDA(cudaMemGetInfo(&free_b, &total));
    printf("\nout of core: fp32, ours default mode from pageable memory; device memory %.1f GB (%.1f free)\n", total / 1e9,
           free_b / 1e9);
    big_products(incore, caps, 1, 3, &s_in, &ti, &order_in);
    r_in = f_in / s_in;
    printf("  in core  n = %6lld: %.3f s, %.2f TFLOP/s (%s; h2d %.3f kern %.3f d2h %.3f s)\n", (long long)incore, s_in,
           r_in * 1e-12, order_name(order_in), ti.to_device_s, ti.compute_s, ti.from_device_s);
    fflush(stdout);
    big_products(n, caps, cap ? 2 : 1, 1, s_out, t, order);
    for (i = 0; i < (cap ? 2 : 1); i++)
        printf("  n = %lld%s: %.3f s, %.2f TFLOP/s (%s; setup %.3f h2d %.3f kern %.3f d2h %.3f s)\n", (long long)n,
               i ? ", capped" : "", s_out[i], f_out / s_out[i] * 1e-12, order_name(order[i]), t[i].setup_s, t[i].to_device_s,
               t[i].compute_s, t[i].from_device_s);
    printf("OOC n=%lld operands %.1f GB device %.1f GB: %.2f TFLOP/s (%s) / in-core n=%lld %.2f TFLOP/s = %.3f",
           (long long)n, 12.0 * n * n / 1e9, total / 1e9, f_out / s_out[0] * 1e-12, order_name(order[0]), (long long)incore,
           r_in * 1e-12, f_out / s_out[0] / r_in);
    if (cap)
        printf("; max_device_bytes %.0f GB: %.2f TFLOP/s (%s) = %.3f", cap / 1e9, f_out / s_out[1] * 1e-12,
               order_name(order[1]), f_out / s_out[1] / r_in);
    printf("  (bar >= 0.80)\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int64_t sizes[16] = {1024, 2048, 4096, 8192, 16384}, small[16] = {32, 64, 128, 256, 512}, threads[16] = {2, 4, 8, 12},
            blocks[8] = {1024, 2048, 4096, 8192};
    int64_t sizes64[16];
    int nsizes = 5, nsizes64 = -1, nsmall = 0, nthreads = 0, nblocks = 4, reps = 5, i, pi, nprec = 2;
    int64_t ooc = 0, incore = 32768;
    size_t ooc_cap = 0;
    gemm_precision precs[2] = {GEMM_F32, GEMM_F64};
    FILE *csv = NULL;
    peers pe;
    link_rates lr;
    cudaDeviceProp prop;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 16);
        else if (!strcmp(argv[i], "--sizes-f64") && i + 1 < argc) nsizes64 = battery_parse_list(argv[++i], sizes64, 16);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) nprec = battery_parse_precs(argv[++i], precs);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--small") && i + 1 < argc) nsmall = battery_parse_list(argv[++i], small, 16);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = battery_parse_list(argv[++i], threads, 16);
        else if (!strcmp(argv[i], "--xt-blocks") && i + 1 < argc) nblocks = battery_parse_list(argv[++i], blocks, 8);
        else if (!strcmp(argv[i], "--ooc") && i + 1 < argc) ooc = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--ooc-cap") && i + 1 < argc) ooc_cap = (size_t)atof(argv[++i]);
        else if (!strcmp(argv[i], "--incore") && i + 1 < argc) incore = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = fopen(argv[++i], "w");
        else {
            fprintf(stderr, "usage: %s [--sizes n,...] [--sizes-f64 n,...] [--prec f32,f64] [--reps N] [--small n,...] [--threads t,...] "
                            "[--xt-blocks b,...] [--ooc N [--ooc-cap BYTES] [--incore N]] [--csv FILE]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 5) reps = 5;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    CHECK_CUBLAS(cublasCreate(&pe.blas));
    CHECK_CUBLAS(cublasXtCreate(&pe.xt));
    {
        int dev0 = 0;
        CHECK_CUBLAS(cublasXtDeviceSelect(pe.xt, 1, &dev0));
    }
    pe.xt_block = (int)blocks[0];
    lr = measure_link();
    printf("device: %s, %d SMs, %.1f GB; host: %u cores; pinned H2D %.1f GB/s, D2H %.1f GB/s; pageable->pinned copy "
           "with %d threads %.1f GB/s\n", prop.name, prop.multiProcessorCount, prop.totalGlobalMem / 1e9, host_cores(),
           lr.h2d / 1e9, lr.d2h / 1e9, gemm__cuda_copy_threads(&default_options),
           lr.host_copy / 1e9);
    if (csv) fprintf(csv, "way,prec,n,median_s,min_s,max_s,limit_s,device_tflops\n");
    if (nsmall > 0) {
        std::vector<row> rows;
        for (pi = 0; pi < nprec; pi++)
            for (i = 0; i < nsmall; i++)
                rows.push_back(precs[pi] == GEMM_F32 ? bench_size<float>(&pe, small[i], 30, &lr, blocks, 1, false)
                                                     : bench_size<double>(&pe, small[i], 30, &lr, blocks, 1, false));
        print_rows("small sizes (median of 30; cuBLASXt not run)", rows, csv);
    }
    if (nthreads > 0) bench_threads(sizes[nsizes - 1] < 8192 ? sizes[nsizes - 1] : 8192, threads, nthreads);
    if (ooc > 0) bench_out_of_core(ooc, incore, ooc_cap);
    if (nsizes > 0 && sizes[0] > 0) {
        std::vector<row> rows;
        for (pi = 0; pi < nprec; pi++) {
            bool f64 = precs[pi] != GEMM_F32;
            const int64_t *list = f64 && nsizes64 >= 0 ? sizes64 : sizes;
            for (i = 0; i < (f64 && nsizes64 >= 0 ? nsizes64 : nsizes); i++)
                rows.push_back(f64 ? bench_size<double>(&pe, list[i], reps, &lr, blocks, nblocks, true)
                                   : bench_size<float>(&pe, list[i], reps, &lr, blocks, nblocks, true));
        }
        char title[512];
        snprintf(title, sizeof title, "host-pointer GEMM on %s, row-major NN, beta = 0, from pageable memory: seconds, median "
                 "of %d interleaved rounds; xcopy, xXT = their time / ours; lim/us = physical limit / ours", prop.name, reps);
        print_rows(title, rows, csv);
    }
    if (csv) fclose(csv);
    cublasXtDestroy(pe.xt);
    cublasDestroy(pe.blas);
    return 0;
}
