/* bench/bench_cl_batch.c - gemm_cl's strided batches beside CLBlast's
   GemmStridedBatched (same process, device and queue).

   make bench-cl-batch [BENCH_ARGS="--shapes 16:10000,64:1000 --quick"]
   build/bench_cl_batch [--shapes n:count,...] [--prec f32,f64] [--csv FILE] [--label TEXT] [--quick]
                        [--no-clblast] [--paths]
   Default shapes: 16^3 x 10000, 64^3 x 1000, 256^3 x 50 on a CPU device;
   64^3 x 10000, 256^3 x 1000, 1024^3 x 16 on a GPU. GEMM_CL_DEVICE picks
   the device. --paths adds gemm_cl with each of its kernels forced (pack +
   tiled, direct, small with 32 x 32 and with 64 x 64 tiles: the parameter
   set's host fields DIRECT and SMALL, one program), to place the crossover
   and the small-kernel rule on a new device.

   Protocol (docs/DESIGN.md, "Measuring"): row-major NN, alpha 1, beta 0, data
   on the device, random in [-0.5, 0.5); one warm-up batch each (CLBlast's
   first, which compiles its kernels, is timed and reported), into a C of
   NaNs, checked on 48 sampled elements of the first, a middle and the
   last member against sums in double; then the contenders' batches
   interleaved (A B A B), each timed from enqueue to clFinish; the median of the repeats (at least 5, or as
   many as fit in about 2 s, at most 30; 3 with --quick) with min and max. */
#define GEMM_IMPLEMENTATION
#include "../gemm_cl.h"
#include "../tests/battery.h"

#ifdef BENCH_HAVE_CLBLAST
/* CLBlast's C API (clblast_c.h), declared here so the GPU machine, which has
   the library but not its header, builds too. Enum values equal CBLAS's. */
int CLBlastSgemmStridedBatched(int layout, int ta, int tb, size_t m, size_t n, size_t k, float alpha, cl_mem a,
                               size_t offa, size_t lda, size_t stride_a, cl_mem b, size_t offb, size_t ldb,
                               size_t stride_b, float beta, cl_mem c, size_t offc, size_t ldc, size_t stride_c,
                               size_t batch_count, cl_command_queue *queue, cl_event *event);
int CLBlastDgemmStridedBatched(int layout, int ta, int tb, size_t m, size_t n, size_t k, double alpha, cl_mem a,
                               size_t offa, size_t lda, size_t stride_a, cl_mem b, size_t offb, size_t ldb,
                               size_t stride_b, double beta, cl_mem c, size_t offc, size_t ldc, size_t stride_c,
                               size_t batch_count, cl_command_queue *queue, cl_event *event);
#define HAVE_CLBLAST 1
#else
#define HAVE_CLBLAST 0
#endif

/* The contenders, in column order: gemm_cl by its own rules, then with
   each kernel forced (--paths), then CLBlast. */
enum { OURS = 0, TILED = 1, DIRECT = 2, SMALL32 = 3, SMALL64 = 4, CLBLAST = 5, NWHO = 6 };
static const char *const who_name[NWHO] = {"gemm_cl", "tiled", "direct", "small32", "small64", "CLBlast"};
static const char *const who_csv[NWHO] = {"gemm_cl", "gemm_cl-tiled", "gemm_cl-direct", "gemm_cl-small32",
                                          "gemm_cl-small64", "CLBlast"};

static gemm_cl_context *cl;
static cl_context context;
static cl_command_queue queue;
static int enabled[NWHO] = {1, 0, 0, 0, 0, HAVE_CLBLAST};
static const char *label = "";

typedef struct batch {
    gemm_precision prec;
    int64_t n, count;
    cl_mem A, B, C;
    battery_buf hA, hB;
    gemm_cl_params set[CLBLAST]; /* the set in use, and the same with each kernel forced */
} batch;

static int run_gemm_cl(batch *b)
{
    int64_t n = b->n, nn = n * n;
    gemm_status s = b->prec == GEMM_F32
        ? gemm_cl_sgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, b->A, 0, n,
                                        nn, b->B, 0, n, nn, 0.0f, b->C, 0, n, nn, b->count, NULL)
        : gemm_cl_dgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, b->A, 0, n,
                                        nn, b->B, 0, n, nn, 0.0, b->C, 0, n, nn, b->count, NULL);
    if (s != GEMM_OK) fprintf(stderr, "bench_cl_batch: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
    return s == GEMM_OK ? 0 : -1;
}

static int run_clblast(batch *b)
{
#ifdef BENCH_HAVE_CLBLAST
    size_t n = (size_t)b->n, nn = n * n, cnt = (size_t)b->count;
    int s = b->prec == GEMM_F32
        ? CLBlastSgemmStridedBatched(101, 111, 111, n, n, n, 1.0f, b->A, 0, n, nn, b->B, 0, n, nn, 0.0f, b->C, 0, n,
                                     nn, cnt, &queue, NULL)
        : CLBlastDgemmStridedBatched(101, 111, 111, n, n, n, 1.0, b->A, 0, n, nn, b->B, 0, n, nn, 0.0, b->C, 0, n, nn,
                                     cnt, &queue, NULL);
    if (s != 0) fprintf(stderr, "bench_cl_batch: CLBlast returned %d\n", s);
    return s == 0 ? 0 : -1;
#else
    (void)b;
    return -1;
#endif
}

/* One batch by `who`, waited for; seconds, or -1 on failure. gemm_cl's
   columns switch parameter sets, which is cheap: they differ in DIRECT and
   SMALL alone, the host's fields, and share one program. */
static double run_once(int who, batch *b)
{
    double t0;
    int r;
    if (who != CLBLAST && gemm_cl_set_params(cl, b->prec, &b->set[who]) != GEMM_OK) return -1;
    t0 = gemm__cl_now();
    r = who == CLBLAST ? run_clblast(b) : run_gemm_cl(b);
    if (r < 0 || clFinish(queue) != CL_SUCCESS) return -1;
    return gemm__cl_now() - t0;
}

/* Member `member`'s C against sums in double on 16 sampled elements. */
static int member_ok(const batch *b, int64_t member)
{
    int64_t n = b->n, p;
    size_t es = b->prec == GEMM_F32 ? sizeof(float) : sizeof(double);
    uint64_t st = 77 + (uint64_t)member;
    int s, ok = 1;
    for (s = 0; s < 16 && ok; s++) {
        int64_t r = (int64_t)(battery_next(&st) % (uint64_t)n), c = (int64_t)(battery_next(&st) % (uint64_t)n);
        size_t at = (size_t)(member * n * n + r * n + c);
        double want = 0, got, bound = 4.0 * (double)n * (b->prec == GEMM_F32 ? FLT_EPSILON : DBL_EPSILON) * 0.25;
        float f;
        double d;
        for (p = 0; p < n; p++)
            want += battery_get(&b->hA, (size_t)(member * n * n + r * n + p)) *
                    battery_get(&b->hB, (size_t)(member * n * n + p * n + c));
        if (clEnqueueReadBuffer(queue, b->C, CL_TRUE, at * es, es, b->prec == GEMM_F32 ? (void *)&f : (void *)&d, 0,
                                NULL, NULL) != CL_SUCCESS)
            return 0;
        got = b->prec == GEMM_F32 ? f : d;
        ok = fabs(got - want) <= bound;
    }
    return ok;
}

/* C filled with NaN before each contender's checked batch: one that
   writes nothing cannot pass on the previous one's results. */
static void poison(const batch *b)
{
    const float fnan = NAN;
    const double dnan = NAN;
    size_t es = b->prec == GEMM_F32 ? sizeof(float) : sizeof(double);
    if (clEnqueueFillBuffer(queue, b->C, b->prec == GEMM_F32 ? (const void *)&fnan : (const void *)&dnan, es, 0,
                            (size_t)(b->n * b->n * b->count) * es, 0, NULL, NULL) != CL_SUCCESS ||
        clFinish(queue) != CL_SUCCESS) {
        fprintf(stderr, "bench_cl_batch: clEnqueueFillBuffer failed\n");
        exit(1);
    }
}

static int batch_ok(const batch *b)
{
    return member_ok(b, 0) && member_ok(b, b->count / 2) && member_ok(b, b->count - 1);
}

static cl_mem upload(const battery_buf *h)
{
    cl_int e;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, battery_buf_bytes(h), h->data, &e);
    if (e != CL_SUCCESS) { fprintf(stderr, "bench_cl_batch: clCreateBuffer failed (%d)\n", (int)e); exit(1); }
    return m;
}

static void batch_make(batch *b, gemm_precision prec, int64_t n, int64_t count)
{
    gemm_cl_kernel_info info;
    uint64_t st = 42;
    int who;
    b->prec = prec; b->n = n; b->count = count;
    b->hA = battery_buf_new(prec, (size_t)(n * n * count));
    b->hB = battery_buf_new(prec, (size_t)(n * n * count));
    battery_fill(&b->hA, &st);
    battery_fill(&b->hB, &st);
    b->A = upload(&b->hA);
    b->B = upload(&b->hB);
    b->C = upload(&b->hA);
    gemm_cl_kernel_info_get(cl, prec, &info);
    for (who = 0; who < CLBLAST; who++) {
        b->set[who] = info.params;
        if (who == OURS) continue;
        b->set[who].direct = who == DIRECT ? 1 << 20 : 0; /* 2^60 >= any batch's volume */
        b->set[who].small = who == SMALL32 ? 32 : who == SMALL64 ? 64 : 1;
    }
}

static void batch_free(batch *b)
{
    clReleaseMemObject(b->A);
    clReleaseMemObject(b->B);
    clReleaseMemObject(b->C);
    battery_buf_free(&b->hA);
    battery_buf_free(&b->hB);
}

/* Measures one (precision, n, count) row; prints it and appends to csv. */
static int measure(gemm_precision prec, int64_t n, int64_t count, int quick, FILE *csv)
{
    static int clblast_first_done[2];
    batch b;
    double t[NWHO][32], gf[NWHO][3], first[NWHO] = {0}, sum = 0;
    double flops = 2.0 * (double)n * n * n * (double)count;
    int reps, r, who, all_ok = 1, ok[NWHO] = {1, 1, 1, 1, 1, 1};
    const char *pname = prec == GEMM_F32 ? "fp32" : "fp64";
    batch_make(&b, prec, n, count);
    for (who = 0; who < NWHO; who++) {
        if (!enabled[who]) continue;
        poison(&b);
        first[who] = run_once(who, &b);
        ok[who] = first[who] >= 0 && batch_ok(&b);
        if (who == CLBLAST && !clblast_first_done[prec == GEMM_F64]) {
            printf("  (CLBlast's first %s batch, compiling its kernels: %.2f s)\n", pname, first[who]);
            clblast_first_done[prec == GEMM_F64] = 1;
            first[who] = run_once(who, &b);
        }
        sum += first[who] > 0 ? first[who] : 0;
    }
    reps = quick ? 3 : (int)(2.0 / (sum + 1e-9));
    if (!quick && reps < 5) reps = 5;
    if (reps > 30) reps = 30;
    for (r = 0; r < reps; r++)
        for (who = 0; who < NWHO; who++)
            if (enabled[who]) t[who][r] = run_once(who, &b);
    printf("%4s %5lld x %6lld", pname, (long long)n, (long long)count);
    for (who = 0; who < NWHO; who++) {
        if (!enabled[who]) continue;
        battery_sort(t[who], reps);
        gf[who][0] = t[who][0] < 0 ? 0 : flops / t[who][reps / 2] * 1e-9;
        gf[who][1] = t[who][0] < 0 ? 0 : flops / t[who][reps - 1] * 1e-9;
        gf[who][2] = t[who][0] < 0 ? 0 : flops / t[who][0] * 1e-9;
        if (who == OURS || who == CLBLAST)
            printf(" | %8.1f [%7.1f-%7.1f]%s", gf[who][0], gf[who][1], gf[who][2], ok[who] ? "  " : " !");
        else
            printf(" | %8.1f%s", gf[who][0], ok[who] ? "  " : " !");
        if (who != CLBLAST) all_ok &= ok[who];
    }
    if (enabled[CLBLAST]) printf(" | %5.2f", gf[OURS][0] / gf[CLBLAST][0]);
    printf("\n");
    fflush(stdout);
    for (who = 1; csv && who < NWHO; who++)
        if (enabled[who])
            fprintf(csv, "opencl-batch,%s,%lld,%lld,%.2f,%s,%.2f,%.3f,%s\n", prec == GEMM_F32 ? "f32" : "f64",
                    (long long)n, (long long)count, gf[OURS][0], who_csv[who], gf[who][0],
                    gf[who][0] > 0 ? gf[OURS][0] / gf[who][0] : 0.0, label);
    gemm_cl_set_params(cl, prec, &b.set[OURS]);
    batch_free(&b);
    return all_ok;
}

/* "n:count,..." into the arrays; returns how many. */
static int parse_shapes(const char *arg, int64_t *n, int64_t *count, int max)
{
    int k = 0;
    while (*arg && k < max) {
        long long a, c;
        int used = 0;
        if (sscanf(arg, "%lld:%lld%n", &a, &c, &used) != 2 || a < 1 || c < 1) return -1;
        n[k] = a; count[k++] = c;
        arg += used;
        if (*arg == ',') arg++;
    }
    return k;
}

int main(int argc, char **argv)
{
    int64_t n[16], count[16];
    int nshapes = 0, i, pi, quick = 0, ok = 1, who;
    const char *precs = "f32,f64", *csv_path = NULL, *shapes = NULL;
    FILE *csv = NULL;
    cl_device_id dev = NULL;
    cl_device_type type = 0;
    gemm_cl_kernel_info info;
    char pstr[256];
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--shapes") && i + 1 < argc) shapes = argv[++i];
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) precs = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--label") && i + 1 < argc) label = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--no-clblast")) enabled[CLBLAST] = 0;
        else if (!strcmp(argv[i], "--paths"))
            for (who = TILED; who < CLBLAST; who++) enabled[who] = 1;
        else {
            fprintf(stderr, "usage: %s [--shapes n:count,...] [--prec f32,f64] [--csv FILE] [--label TEXT] [--quick] "
                            "[--no-clblast] [--paths]\n", argv[0]);
            return 2;
        }
    }
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) {
        fprintf(stderr, "bench_cl_batch: %s\n", gemm_last_error_detail());
        return 1;
    }
    gemm_cl_handles(cl, &context, &queue, &dev);
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (!shapes) shapes = (type & CL_DEVICE_TYPE_GPU) ? "64:10000,256:1000,1024:16" : "16:10000,64:1000,256:50";
    if ((nshapes = parse_shapes(shapes, n, count, 16)) <= 0) {
        fprintf(stderr, "bench_cl_batch: --shapes takes n:count,... (\"%s\")\n", shapes);
        return 2;
    }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) setvbuf(csv, NULL, _IOLBF, 0); /* every row on disk at once: a run cut by a time limit keeps its rows */
    if (csv) fprintf(csv, "backend,precision,n,count,ours_gflops,peer,peer_gflops,ratio,label\n");
    printf("gemm_cl strided batches%s, row-major NN, n^3 x count, GFLOP/s median [min-max] of interleaved runs\n",
           enabled[CLBLAST] ? " vs CLBlast's GemmStridedBatched (same process, device and queue)" : "");
    for (pi = 0; pi < 2; pi++) {
        gemm_precision prec = pi ? GEMM_F64 : GEMM_F32;
        if (!strstr(precs, pi ? "f64" : "f32")) continue;
        if (gemm_cl_kernel_info_get(cl, prec, &info) != GEMM_OK) {
            printf("%s: %s\n", pi ? "fp64" : "fp32", gemm_last_error_detail());
            continue;
        }
        gemm_cl_params_str(&info.params, pstr, sizeof pstr);
        if (pi == 0 || !strstr(precs, "f32")) printf("device: %s\n", info.device_name);
        printf("%s kernel: %s (%s)\n", pi ? "fp64" : "fp32", pstr, info.origin);
        printf("prec     n x  count");
        for (i = 0; i < NWHO; i++)
            if (enabled[i]) printf(i == OURS || i == CLBLAST ? " | %-26s" : " | %-10s", who_name[i]);
        if (enabled[CLBLAST]) printf(" | /CLBl");
        printf("\n");
        for (i = 0; i < nshapes; i++) ok &= measure(prec, n[i], count[i], quick, csv);
    }
    if (csv) { fclose(csv); printf("wrote %s\n", csv_path); }
    gemm_cl_destroy(cl);
    if (!ok) fprintf(stderr, "bench_cl_batch: a result of gemm_cl was WRONG (marked !)\n");
    return ok ? 0 : 1;
}
