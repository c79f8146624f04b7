/* bench/bench_cl.c - gemm_cl beside CLBlast (same process, device and queue)
   and, on a CPU device, beside gemm's own CPU backend (gemm_cpu_?gemm: the
   same process on the same cores).

   make bench-cl [BENCH_ARGS="--sizes 256,512 --quick"]
   build/bench_cl [--sizes n,...] [--prec f32,f64] [--trans-size n] [--csv FILE] [--label TEXT]
                  [--quick] [--no-first-call | --first-call-only] [--no-clblast] [--cpu | --no-cpu]
   GEMM_CL_DEVICE picks the device (e.g. NVIDIA), GEMM_CL_TUNING_FILE a tuning file.
   The CPU backend's column is on by default when the OpenCL device is a CPU.
   --label tags the CSV rows (e.g. "built-in" or "tuned").

   Protocol (docs/DESIGN.md, "Measuring"): inputs on the device, random in
   [-0.5, 0.5); one warm-up call each (CLBlast's first call, which compiles its
   kernels, is timed and reported); then the contenders' calls interleaved
   (A B C A B C), each timed from enqueue to clFinish (the CPU backend: the
   blocking call on host arrays); the median of the repeats (at least 5, or as
   many as fit in about a second; 3 when a call takes over half a second) with
   min and max. Every result is checked once against fp64 sums on 64 sampled
   elements. First-call latency of gemm_cl is measured in child processes: the
   context alone, then one 256^3 call, with no cache, with GEMM_CL_CACHE_DIR
   warm (the driver's own cache off: PoCL's kernel cache, NVIDIA's
   ComputeCache), with the driver's warm (ours off), and with both warm. */
#define GEMM_IMPLEMENTATION
#include "../gemm_cl.h"
#include "../tests/battery.h"

#include <unistd.h>

#ifdef BENCH_HAVE_CLBLAST
/* CLBlast's C API (clblast_c.h), declared here so the GPU machine, which has
   the library but not its header, builds too. Enum values equal CBLAS's. */
int CLBlastSgemm(int layout, int ta, int tb, size_t m, size_t n, size_t k, float alpha, cl_mem a, size_t offa,
                 size_t lda, cl_mem b, size_t offb, size_t ldb, float beta, cl_mem c, size_t offc, size_t ldc,
                 cl_command_queue *queue, cl_event *event);
int CLBlastDgemm(int layout, int ta, int tb, size_t m, size_t n, size_t k, double alpha, cl_mem a, size_t offa,
                 size_t lda, cl_mem b, size_t offb, size_t ldb, double beta, cl_mem c, size_t offc, size_t ldc,
                 cl_command_queue *queue, cl_event *event);
#define HAVE_CLBLAST 1
#else
#define HAVE_CLBLAST 0
#endif

/* The contenders, in column order. */
enum { OURS = 0, CLBLAST = 1, CPU = 2, NWHO = 3 };
static const char *const who_name[NWHO] = {"gemm_cl", "CLBlast", "gemm CPU backend"};

static gemm_cl_context *cl;
static cl_context context;
static cl_command_queue queue;
static int enabled[NWHO] = {1, HAVE_CLBLAST, 0};
static const char *label = "";

typedef struct problem {
    gemm_precision prec;
    gemm_transpose ta, tb;
    int64_t n;
    cl_mem A, B, C;
    battery_buf hA, hB, hC; /* hC: the CPU backend's result */
} problem;

static double run_ours(problem *p)
{
    gemm_status s = p->prec == GEMM_F32
        ? gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, p->ta, p->tb, p->n, p->n, p->n, 1.0f, p->A, 0, p->n, p->B, 0, p->n, 0.0f,
                        p->C, 0, p->n, NULL)
        : gemm_cl_dgemm(cl, GEMM_ROW_MAJOR, p->ta, p->tb, p->n, p->n, p->n, 1.0, p->A, 0, p->n, p->B, 0, p->n, 0.0,
                        p->C, 0, p->n, NULL);
    if (s != GEMM_OK) fprintf(stderr, "bench_cl: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
    return s == GEMM_OK ? 0 : -1;
}

static double run_clblast(problem *p)
{
#ifdef BENCH_HAVE_CLBLAST
    size_t n = (size_t)p->n;
    int s = p->prec == GEMM_F32
        ? CLBlastSgemm(101, (int)p->ta, (int)p->tb, n, n, n, 1.0f, p->A, 0, n, p->B, 0, n, 0.0f, p->C, 0, n, &queue, NULL)
        : CLBlastDgemm(101, (int)p->ta, (int)p->tb, n, n, n, 1.0, p->A, 0, n, p->B, 0, n, 0.0, p->C, 0, n, &queue, NULL);
    if (s != 0) fprintf(stderr, "bench_cl: CLBlast returned %d\n", s);
    return s == 0 ? 0 : -1;
#else
    (void)p;
    return -1;
#endif
}

static double run_cpu(problem *p)
{
    gemm_status s = p->prec == GEMM_F32
        ? gemm_cpu_sgemm(GEMM_ROW_MAJOR, p->ta, p->tb, p->n, p->n, p->n, 1.0f, (const float *)p->hA.data, p->n,
                         (const float *)p->hB.data, p->n, 0.0f, (float *)p->hC.data, p->n, NULL)
        : gemm_cpu_dgemm(GEMM_ROW_MAJOR, p->ta, p->tb, p->n, p->n, p->n, 1.0, (const double *)p->hA.data, p->n,
                         (const double *)p->hB.data, p->n, 0.0, (double *)p->hC.data, p->n, NULL);
    if (s != GEMM_OK) fprintf(stderr, "bench_cl: gemm_cpu: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
    return s == GEMM_OK ? 0 : -1;
}

/* One call by `who`, waited for; seconds, or -1 on failure. */
static double run_once(int who, problem *p)
{
    double t = gemm__cl_now();
    if ((who == OURS ? run_ours(p) : who == CLBLAST ? run_clblast(p) : run_cpu(p)) < 0) return -1;
    if (who != CPU && clFinish(queue) != CL_SUCCESS) return -1;
    return gemm__cl_now() - t;
}

/* battery_read_fn for the result in the problem's cl_mem C. */
static double read_device(void *ctx, size_t index)
{
    const problem *p = (const problem *)ctx;
    double d;
    float f;
    int f32 = p->prec == GEMM_F32;
    if (clEnqueueReadBuffer(queue, p->C, CL_TRUE, index * (f32 ? sizeof f : sizeof d), f32 ? sizeof f : sizeof d,
                            f32 ? (void *)&f : (void *)&d, 0, NULL, NULL) != CL_SUCCESS)
        return NAN;
    return f32 ? f : d;
}

static int check_sampled(int who, problem *p)
{
    battery_shape s;
    s.m = s.n = s.k = p->n;
    if (who == CPU) return battery_sampled_ok(p->prec, p->ta, p->tb, s, &p->hA, &p->hB, battery_read_host, &p->hC);
    return battery_sampled_ok(p->prec, p->ta, p->tb, s, &p->hA, &p->hB, read_device, p);
}

static cl_mem upload(const battery_buf *b)
{
    cl_int e;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, battery_buf_bytes(b), b->data, &e);
    if (e != CL_SUCCESS) { fprintf(stderr, "bench_cl: clCreateBuffer failed (%d)\n", (int)e); exit(1); }
    return m;
}

static void problem_make(problem *p, gemm_precision prec, gemm_transpose ta, gemm_transpose tb, int64_t n)
{
    uint64_t st = 42;
    p->prec = prec; p->ta = ta; p->tb = tb; p->n = n;
    p->hA = battery_buf_new(prec, (size_t)(n * n));
    p->hB = battery_buf_new(prec, (size_t)(n * n));
    battery_fill(&p->hA, &st);
    battery_fill(&p->hB, &st);
    p->hC = battery_buf_copy(&p->hA);
    p->A = upload(&p->hA);
    p->B = upload(&p->hB);
    p->C = upload(&p->hA);
}

static void problem_free(problem *p)
{
    clReleaseMemObject(p->A);
    clReleaseMemObject(p->B);
    clReleaseMemObject(p->C);
    battery_buf_free(&p->hA);
    battery_buf_free(&p->hB);
    battery_buf_free(&p->hC);
}

/* The warm-up call of each contender, checked; CLBlast's first call of a
   precision (its kernels compile then) is reported and repeated. */
static void warm_up(problem *p, double first[NWHO], int ok[NWHO])
{
    static int clblast_first_done[2];
    int who;
    for (who = 0; who < NWHO; who++) {
        if (!enabled[who]) continue;
        first[who] = run_once(who, p);
        ok[who] = first[who] >= 0 && check_sampled(who, p);
    }
    if (enabled[CLBLAST] && !clblast_first_done[p->prec == GEMM_F64]) {
        printf("  (CLBlast's first %s call, compiling its kernels: %.2f s)\n", p->prec == GEMM_F32 ? "fp32" : "fp64",
               first[CLBLAST]);
        clblast_first_done[p->prec == GEMM_F64] = 1;
        first[CLBLAST] = run_once(CLBLAST, p);
    }
}

static void print_row(const problem *p, double gf[NWHO][3], const int ok[NWHO], FILE *csv)
{
    const char *prec = p->prec == GEMM_F32 ? "fp32" : "fp64";
    char op[3];
    int who;
    op[0] = p->ta == GEMM_NO_TRANS ? 'N' : 'T';
    op[1] = p->tb == GEMM_NO_TRANS ? 'N' : 'T';
    op[2] = '\0';
    printf("%4s %s %6lld", prec, op, (long long)p->n);
    for (who = 0; who < NWHO; who++)
        if (enabled[who]) printf(" | %8.1f [%7.1f-%7.1f]%s", gf[who][0], gf[who][1], gf[who][2], ok[who] ? "  " : " !");
    for (who = 1; who < NWHO; who++)
        if (enabled[who]) printf(" | %5.2f", gf[OURS][0] / gf[who][0]);
    printf("\n");
    for (who = 1; csv && who < NWHO; who++)
        if (enabled[who])
            fprintf(csv, "opencl,%s,%s,%lld,%.2f,%s,%.2f,%.3f,%s\n", p->prec == GEMM_F32 ? "f32" : "f64", op,
                    (long long)p->n, gf[OURS][0], who == CLBLAST ? "CLBlast" : "gemm-cpu", gf[who][0],
                    gf[OURS][0] / gf[who][0], label);
    fflush(stdout);
}

/* Measures one (precision, transposes, n) row; prints it and appends to csv. */
static int measure(gemm_precision prec, gemm_transpose ta, gemm_transpose tb, int64_t n, int quick, FILE *csv)
{
    problem p;
    double t[NWHO][64], gf[NWHO][3], flops = 2.0 * (double)n * (double)n * (double)n, first[NWHO] = {0, 0, 0};
    double slowest = 0, sum = 0;
    int reps, r, who, ok[NWHO] = {1, 1, 1};
    problem_make(&p, prec, ta, tb, n);
    warm_up(&p, first, ok);
    for (who = 0; who < NWHO; who++) {
        if (!enabled[who]) continue;
        slowest = first[who] > slowest ? first[who] : slowest;
        sum += first[who];
    }
    reps = slowest > 0.5 ? 3 : (int)(1.0 / (sum + 1e-9));
    if (reps < 5) reps = slowest > 0.5 ? 3 : 5;
    if (reps > 50) reps = 50;
    if (quick) reps = 3;
    for (r = 0; r < reps; r++)
        for (who = 0; who < NWHO; who++)
            if (enabled[who]) t[who][r] = run_once(who, &p);
    for (who = 0; who < NWHO; who++) {
        if (!enabled[who]) continue;
        battery_sort(t[who], (int)reps);
        gf[who][0] = flops / t[who][reps / 2] * 1e-9;
        gf[who][1] = flops / t[who][reps - 1] * 1e-9;
        gf[who][2] = flops / t[who][0] * 1e-9;
    }
    print_row(&p, gf, ok, csv);
    problem_free(&p);
    return ok[OURS];
}

/* Child mode: create a context, then finish one 256^3 call; prints the
   seconds of each and of both. */
static int first_call(const char *prec)
{
    double t0 = gemm__cl_now(), t_ctx;
    problem p;
    uint64_t st = 1;
    int f64 = !strcmp(prec, "f64");
    memset(&p, 0, sizeof p);
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) {
        fprintf(stderr, "bench_cl --first-call: %s\n", gemm_last_error_detail());
        return 1;
    }
    t_ctx = gemm__cl_now() - t0;
    gemm_cl_handles(cl, &context, &queue, NULL);
    p.prec = f64 ? GEMM_F64 : GEMM_F32;
    p.ta = p.tb = GEMM_NO_TRANS;
    p.n = 256;
    p.hA = battery_buf_new(p.prec, 256 * 256);
    battery_fill(&p.hA, &st);
    p.A = upload(&p.hA);
    p.B = upload(&p.hA);
    p.C = upload(&p.hA);
    if (run_once(OURS, &p) < 0) return 1; /* it says why */
    printf("%.3f %.3f\n", t_ctx, gemm__cl_now() - t0);
    return 0;
}

/* Runs this program in first-call mode with extra environment; fills the
   context's and the whole first call's seconds (-1 on failure). */
static void child(const char *self, const char *prec, const char *env, double *ctx_s, double *total_s)
{
    char cmd[1200], buf[128];
    FILE *f;
    *ctx_s = *total_s = -1;
    snprintf(cmd, sizeof cmd, "env %s '%s' --first-call %s", env, self, prec);
    if ((f = popen(cmd, "r"))) {
        if (!fgets(buf, sizeof buf, f) || sscanf(buf, "%lf %lf", ctx_s, total_s) != 2) *ctx_s = *total_s = -1;
        if (pclose(f) != 0) {
            fprintf(stderr, "bench_cl: the first-call child failed: %s\n", cmd);
            *ctx_s = *total_s = -1;
        }
    }
}

/* First calls, each in a new process, with each cache cold or warm: ours
   (GEMM_CL_CACHE_DIR) and the driver's own (PoCL's kernel cache, NVIDIA's
   ComputeCache), each in a private folder so a first run fills it. */
static void first_calls(const char *precs, FILE *csv)
{
    static const char *const what[4] = {"no cache", "GEMM_CL_CACHE_DIR warm", "driver cache warm", "both warm"};
    char ours[] = "/tmp/gemm_cl_bench_XXXXXX", drv[] = "/tmp/gemm_cl_drv_XXXXXX", env[4][700], self[1024];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    int pi, c;
    self[len > 0 ? len : 0] = '\0';
    if (!mkdtemp(ours) || !mkdtemp(drv)) return;
    for (c = 0; c < 4; c++)
        snprintf(env[c], sizeof env[c], "%s GEMM_CL_CACHE_DIR=%s",
                 c & 2 ? "POCL_KERNEL_CACHE=1 CUDA_CACHE_DISABLE=0" : "POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1",
                 c & 1 ? ours : "");
    for (c = 2; c < 4; c++) {
        size_t used = strlen(env[c]);
        snprintf(env[c] + used, sizeof env[c] - used, " POCL_CACHE_DIR=%s CUDA_CACHE_PATH=%s", drv, drv);
    }
    printf("first call in a new process: context creation, then the first 256^3 call (build or load, "
           "self-check, multiply), seconds\n");
    for (pi = 0; pi < 2; pi++) {
        const char *p = pi ? "f64" : "f32";
        double cs, ts;
        if (!strstr(precs, p)) continue;
        for (c = 0; c < 4; c++) {
            if (c > 0) child(self, p, env[c], &cs, &ts); /* fills the warm caches */
            child(self, p, env[c], &cs, &ts);
            printf("%s %-24s context %.3f s, first call %.3f s, total %.3f s\n", p, what[c], cs, ts - cs, ts);
            if (csv) fprintf(csv, "opencl-first-call,%s,%s,%.3f,context,%.3f,,,%s\n", p, what[c], ts - cs, cs, label);
        }
        snprintf(env[0], sizeof env[0], "rm -rf %s/* %s/*", ours, drv); /* the other precision starts cold */
        if (system(env[0]) != 0) fprintf(stderr, "bench_cl: could not empty %s %s\n", ours, drv);
        snprintf(env[0], sizeof env[0], "POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 GEMM_CL_CACHE_DIR=");
    }
    snprintf(env[0], sizeof env[0], "rm -rf %s %s", ours, drv);
    if (system(env[0]) != 0) fprintf(stderr, "bench_cl: could not remove %s %s\n", ours, drv);
}

static void print_kernels(void)
{
    gemm_cl_kernel_info info;
    char pstr[256];
    int pi;
    for (pi = 0; pi < 2; pi++) {
        if (gemm_cl_kernel_info_get(cl, pi ? GEMM_F64 : GEMM_F32, &info) != GEMM_OK) continue;
        gemm_cl_params_str(&info.params, pstr, sizeof pstr);
        if (pi == 0) printf("device: %s\n", info.device_name);
        printf("%s kernel: %s (%s)%s%s\n", pi ? "fp64" : "fp32", pstr, info.origin,
               info.fallback_reason[0] ? " FALLBACK: " : "", info.fallback_reason);
    }
}

static void print_header(void)
{
    int who;
    printf("\nprec op      n");
    for (who = 0; who < NWHO; who++)
        if (enabled[who]) printf(" | %-26s", who_name[who]);
    for (who = 1; who < NWHO; who++)
        if (enabled[who]) printf(" | %s", who == CLBLAST ? "/CLBl" : "/CPU ");
    printf("\n");
}

/* Every size, then the four transpose cases at tsize; 0 when a result of ours was wrong. */
static int measure_all(const char *precs, const int64_t *sizes, int nsizes, int64_t tsize, int quick, FILE *csv)
{
    gemm_cl_kernel_info info;
    int pi, i, c, ok = 1;
    for (pi = 0; pi < 2; pi++) {
        gemm_precision prec = pi ? GEMM_F64 : GEMM_F32;
        if (!strstr(precs, pi ? "f64" : "f32")) continue;
        if (gemm_cl_kernel_info_get(cl, prec, &info) != GEMM_OK) {
            printf("%s: %s\n", pi ? "fp64" : "fp32", gemm_last_error_detail());
            continue;
        }
        for (i = 0; i < nsizes; i++) ok &= measure(prec, GEMM_NO_TRANS, GEMM_NO_TRANS, sizes[i], quick, csv);
    }
    if (tsize <= 0) return ok;
    printf("\nall four transpose cases at n = %lld\n", (long long)tsize);
    for (pi = 0; pi < 2; pi++) {
        if (!strstr(precs, pi ? "f64" : "f32") || gemm_cl_kernel_info_get(cl, pi ? GEMM_F64 : GEMM_F32, &info) != GEMM_OK)
            continue;
        for (c = 0; c < 4; c++)
            ok &= measure(pi ? GEMM_F64 : GEMM_F32, c & 2 ? GEMM_TRANS : GEMM_NO_TRANS,
                          c & 1 ? GEMM_TRANS : GEMM_NO_TRANS, tsize, quick, csv);
    }
    return ok;
}

int main(int argc, char **argv)
{
    int64_t sizes[32] = {256, 512, 1024, 2048, 4096};
    int nsizes = 5, i, quick = 0, first = 1, ok = 1, cpu = -1;
    int64_t tsize = -1; /* by device */
    const char *precs = "f32,f64", *csv_path = NULL;
    FILE *csv = NULL;
    cl_device_id dev = NULL;
    cl_device_type type = 0;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--first-call") && i + 1 < argc) return first_call(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 32);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) precs = argv[++i];
        else if (!strcmp(argv[i], "--trans-size") && i + 1 < argc) tsize = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--label") && i + 1 < argc) label = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--no-first-call")) first = 0;
        else if (!strcmp(argv[i], "--first-call-only")) first = 2;
        else if (!strcmp(argv[i], "--no-clblast")) enabled[CLBLAST] = 0;
        else if (!strcmp(argv[i], "--cpu")) cpu = 1;
        else if (!strcmp(argv[i], "--no-cpu")) cpu = 0;
        else {
            fprintf(stderr, "usage: %s [--sizes n,...] [--prec f32,f64] [--trans-size n (0: none)] [--csv FILE] "
                            "[--label TEXT] [--quick] [--no-first-call | --first-call-only] [--no-clblast] "
                            "[--cpu | --no-cpu]\n", argv[0]);
            return 2;
        }
    }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) setvbuf(csv, NULL, _IOLBF, 0); /* every row on disk at once: a run cut by a time limit keeps its rows */
    if (csv) fprintf(csv, "backend,precision,trans,n,ours_gflops,peer,peer_gflops,ratio,label\n");
    /* First calls before this process opens the device: some GPUs run one process at a time. */
    if (first) first_calls(precs, csv);
    if (first == 2) {
        if (csv) fclose(csv);
        return 0;
    }
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) {
        fprintf(stderr, "bench_cl: %s\n", gemm_last_error_detail());
        return 1;
    }
    gemm_cl_handles(cl, &context, &queue, &dev);
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    enabled[CPU] = cpu >= 0 ? cpu : (type & CL_DEVICE_TYPE_CPU) != 0;
    if (tsize < 0) tsize = (type & CL_DEVICE_TYPE_GPU) ? 4096 : 1024;
    printf("gemm_cl vs%s%s, row-major, GFLOP/s median [min-max] of interleaved runs\n",
           enabled[CLBLAST] ? " CLBlast (same process, device and queue)" : "",
           enabled[CPU] ? " gemm's CPU backend (same process and cores)" : "");
    print_kernels();
    print_header();
    ok = measure_all(precs, sizes, nsizes, tsize, quick, csv);
    if (csv) { fclose(csv); printf("\nwrote %s\n", csv_path); }
    gemm_cl_destroy(cl);
    if (!ok) fprintf(stderr, "bench_cl: a result of gemm_cl was WRONG (marked !)\n");
    return ok ? 0 : 1;
}
