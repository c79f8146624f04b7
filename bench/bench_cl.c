/* bench/bench_cl.c - gemm_cl beside CLBlast, same process, same device, same queue.

   make bench-cl [BENCH_ARGS="--sizes 256,512 --quick"]
   build/bench_cl [--sizes n,...] [--prec f32,f64] [--trans-size n] [--csv FILE] [--quick]
                  [--no-first-call]
   GEMM_CL_DEVICE picks the device (e.g. NVIDIA), GEMM_CL_TUNING_FILE a tuning file.

   Protocol (../shared/BENCHMARKS.md): inputs on the device, random in
   [-0.5, 0.5); one warm-up call each (CLBlast's first call, which compiles its
   kernels, is timed and reported); then ours and CLBlast's calls interleaved
   (A B A B), each timed from enqueue to clFinish; the median of the repeats
   (at least 5, or as many as fit in about a second; 3 when a call takes over
   half a second) with min and max. Every result is checked once against fp64
   sums on 64 sampled elements. First-call latency of gemm_cl is measured in
   child processes: cold (no disk cache, PoCL's and NVIDIA's own caches off)
   and with GEMM_CL_CACHE_DIR warm. */
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
#define HAVE_PEER 1
#else
#define HAVE_PEER 0
#endif

static gemm_cl_context *cl;
static cl_context context;
static cl_command_queue queue;

typedef struct problem {
    gemm_precision prec;
    gemm_transpose ta, tb;
    int64_t n;
    cl_mem A, B, C;
    battery_buf hA, hB;
} problem;

/* One call by ours (who = 0) or CLBlast (1), waited for; seconds, or -1 on failure. */
static double run_once(int who, problem *p)
{
    double t = gemm__cl_now();
    size_t n = (size_t)p->n;
    if (who == 0) {
        gemm_status s = p->prec == GEMM_F32
            ? gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, p->ta, p->tb, p->n, p->n, p->n, 1.0f, p->A, 0, p->n, p->B, 0, p->n, 0.0f,
                            p->C, 0, p->n, NULL)
            : gemm_cl_dgemm(cl, GEMM_ROW_MAJOR, p->ta, p->tb, p->n, p->n, p->n, 1.0, p->A, 0, p->n, p->B, 0, p->n, 0.0,
                            p->C, 0, p->n, NULL);
        if (s != GEMM_OK) {
            fprintf(stderr, "bench_cl: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
            return -1;
        }
    }
#ifdef BENCH_HAVE_CLBLAST
    else {
        int s = p->prec == GEMM_F32
            ? CLBlastSgemm(101, (int)p->ta, (int)p->tb, n, n, n, 1.0f, p->A, 0, n, p->B, 0, n, 0.0f, p->C, 0, n, &queue, NULL)
            : CLBlastDgemm(101, (int)p->ta, (int)p->tb, n, n, n, 1.0, p->A, 0, n, p->B, 0, n, 0.0, p->C, 0, n, &queue, NULL);
        if (s != 0) {
            fprintf(stderr, "bench_cl: CLBlast returned %d\n", s);
            return -1;
        }
    }
#endif
    (void)n;
    if (clFinish(queue) != CL_SUCCESS) return -1;
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

static int check_sampled(problem *p)
{
    battery_shape s;
    s.m = s.n = s.k = p->n;
    return battery_sampled_ok(p->prec, p->ta, p->tb, s, &p->hA, &p->hB, read_device, p);
}

static cl_mem upload(const battery_buf *b)
{
    cl_int e;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, battery_buf_bytes(b), b->data, &e);
    if (e != CL_SUCCESS) { fprintf(stderr, "bench_cl: clCreateBuffer failed (%d)\n", (int)e); exit(1); }
    return m;
}

/* Measures one (precision, transposes, n) row; prints it and appends to csv. */
static int measure(gemm_precision prec, gemm_transpose ta, gemm_transpose tb, int64_t n, int quick, FILE *csv)
{
    problem p;
    uint64_t st = 42;
    double t[2][64], gf[2][3], flops = 2.0 * (double)n * (double)n * (double)n, first[2] = {0, 0};
    int reps, r, who, ok[2] = {1, 1}, nwho = 1 + HAVE_PEER;
    static int peer_first_done[2];
    p.prec = prec; p.ta = ta; p.tb = tb; p.n = n;
    p.hA = battery_buf_new(prec, (size_t)(n * n));
    p.hB = battery_buf_new(prec, (size_t)(n * n));
    battery_fill(&p.hA, &st);
    battery_fill(&p.hB, &st);
    p.A = upload(&p.hA);
    p.B = upload(&p.hB);
    p.C = upload(&p.hA);
    for (who = 0; who < nwho; who++) { /* warm-up, checked */
        first[who] = run_once(who, &p);
        ok[who] = first[who] >= 0 && check_sampled(&p);
    }
    if (HAVE_PEER && !peer_first_done[prec == GEMM_F64]) {
        printf("  (CLBlast's first %s call, compiling its kernels: %.2f s)\n", prec == GEMM_F32 ? "fp32" : "fp64",
               first[1]);
        peer_first_done[prec == GEMM_F64] = 1;
        first[1] = run_once(1, &p);
    }
    reps = first[0] > 0.5 ? 3 : (int)(1.0 / (first[0] + first[nwho - 1] + 1e-9));
    if (reps < 5) reps = first[0] > 0.5 ? 3 : 5;
    if (reps > 50) reps = 50;
    if (quick) reps = 3;
    for (r = 0; r < reps; r++)
        for (who = 0; who < nwho; who++) t[who][r] = run_once(who, &p);
    for (who = 0; who < nwho; who++) {
        battery_sort(t[who], (int)reps);
        gf[who][0] = flops / t[who][reps / 2] * 1e-9;
        gf[who][1] = flops / t[who][reps - 1] * 1e-9;
        gf[who][2] = flops / t[who][0] * 1e-9;
    }
    printf("%4s %c%c %6lld | %8.1f [%7.1f-%7.1f]%s | ", prec == GEMM_F32 ? "fp32" : "fp64",
           ta == GEMM_NO_TRANS ? 'N' : 'T', tb == GEMM_NO_TRANS ? 'N' : 'T', (long long)n, gf[0][0], gf[0][1],
           gf[0][2], ok[0] ? "  " : " !");
    if (HAVE_PEER)
        printf("%8.1f [%7.1f-%7.1f]%s | %5.2f\n", gf[1][0], gf[1][1], gf[1][2], ok[1] ? "  " : " !", gf[0][0] / gf[1][0]);
    else
        printf("%-26s | n/a\n", "n/a (no CLBlast)");
    if (csv) {
        fprintf(csv, "opencl,%s,%c%c,%lld,%.2f,", prec == GEMM_F32 ? "f32" : "f64", ta == GEMM_NO_TRANS ? 'N' : 'T',
                tb == GEMM_NO_TRANS ? 'N' : 'T', (long long)n, gf[0][0]);
        if (HAVE_PEER) fprintf(csv, "CLBlast,%.2f,%.3f\n", gf[1][0], gf[0][0] / gf[1][0]);
        else fprintf(csv, "n/a,n/a,n/a\n");
    }
    fflush(stdout);
    clReleaseMemObject(p.A);
    clReleaseMemObject(p.B);
    clReleaseMemObject(p.C);
    battery_buf_free(&p.hA);
    battery_buf_free(&p.hB);
    return ok[0];
}

/* Child mode: create a context and finish one 256^3 call; print the seconds. */
static int first_call(const char *prec)
{
    double t0 = gemm__cl_now();
    problem p;
    uint64_t st = 1;
    int f64 = !strcmp(prec, "f64");
    memset(&p, 0, sizeof p);
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) {
        fprintf(stderr, "bench_cl --first-call: %s\n", gemm_last_error_detail());
        return 1;
    }
    gemm_cl_handles(cl, &context, &queue, NULL);
    p.prec = f64 ? GEMM_F64 : GEMM_F32;
    p.ta = p.tb = GEMM_NO_TRANS;
    p.n = 256;
    p.hA = battery_buf_new(p.prec, 256 * 256);
    battery_fill(&p.hA, &st);
    p.A = upload(&p.hA);
    p.B = upload(&p.hA);
    p.C = upload(&p.hA);
    if (run_once(0, &p) < 0) return 1; /* it says why */
    printf("%.3f\n", gemm__cl_now() - t0);
    return 0;
}

/* Runs this program in first-call mode with extra environment; seconds or -1. */
static double child(const char *self, const char *prec, const char *env)
{
    char cmd[1200], buf[64];
    FILE *f;
    double s = -1;
    snprintf(cmd, sizeof cmd, "env %s '%s' --first-call %s", env, self, prec);
    if ((f = popen(cmd, "r"))) {
        if (fgets(buf, sizeof buf, f)) s = atof(buf);
        if (pclose(f) != 0) {
            fprintf(stderr, "bench_cl: the first-call child failed: %s\n", cmd);
            s = -1;
        }
    }
    return s;
}

int main(int argc, char **argv)
{
    int64_t sizes[32] = {256, 512, 1024, 2048, 4096};
    int nsizes = 5, i, pi, quick = 0, first = 1, ok = 1, gpu;
    int64_t tsize = 0;
    const char *precs = "f32,f64", *csv_path = NULL;
    FILE *csv = NULL;
    gemm_cl_kernel_info info[2];
    cl_device_id dev = NULL;
    cl_device_type type = 0;
    char self[1024], pstr[256];

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--first-call") && i + 1 < argc) return first_call(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 32);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) precs = argv[++i];
        else if (!strcmp(argv[i], "--trans-size") && i + 1 < argc) tsize = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--no-first-call")) first = 0;
        else {
            fprintf(stderr, "usage: %s [--sizes n,...] [--prec f32,f64] [--trans-size n] [--csv FILE] [--quick] "
                            "[--no-first-call]\n", argv[0]);
            return 2;
        }
    }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "backend,precision,trans,n,ours_gflops,peer,peer_gflops,ratio\n");
    /* First calls before this process opens the device: some GPUs run one process at a time. */
    if (first) {
        char dir[] = "/tmp/gemm_cl_bench_XXXXXX", env[600];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        self[len > 0 ? len : 0] = '\0';
        printf("first call (new process: create the context, build + self-check, one 256^3 multiply), seconds\n");
        if (mkdtemp(dir)) {
            for (pi = 0; pi < 2; pi++) {
                const char *p = pi ? "f64" : "f32";
                double cold, warm;
                if (!strstr(precs, p)) continue;
                cold = child(self, p, "POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 GEMM_CL_CACHE_DIR=");
                snprintf(env, sizeof env, "POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 GEMM_CL_CACHE_DIR=%s", dir);
                child(self, p, env); /* fills the cache */
                warm = child(self, p, env);
                printf("%s: cold (no caches at all) %.3f s; with GEMM_CL_CACHE_DIR warm %.3f s\n", p, cold, warm);
                if (csv) fprintf(csv, "opencl-first-call,%s,cold,%.3f,warm,%.3f,,\n", p, cold, warm);
            }
            snprintf(env, sizeof env, "rm -rf %s", dir);
            if (system(env) != 0) fprintf(stderr, "bench_cl: could not remove %s\n", dir);
        }
    }
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) {
        fprintf(stderr, "bench_cl: %s\n", gemm_last_error_detail());
        return 1;
    }
    gemm_cl_handles(cl, &context, &queue, &dev);
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    if (!tsize) tsize = gpu ? 4096 : 1024;
    printf("gemm_cl vs %s, row-major, GFLOP/s median [min-max] of interleaved runs\n",
           HAVE_PEER ? "CLBlast (same process, device and queue)" : "nothing (CLBlast not linked)");
    for (pi = 0; pi < 2; pi++) {
        if (gemm_cl_kernel_info_get(cl, pi ? GEMM_F64 : GEMM_F32, &info[pi]) != GEMM_OK) continue;
        gemm_cl_params_str(&info[pi].params, pstr, sizeof pstr);
        if (pi == 0) printf("device: %s\n", info[pi].device_name);
        printf("%s kernel: %s (%s)%s%s\n", pi ? "fp64" : "fp32", pstr, info[pi].origin,
               info[pi].fallback_reason[0] ? " FALLBACK: " : "", info[pi].fallback_reason);
    }
    printf("\nprec op      n | %-26s | %-26s | ratio\n", "gemm_cl", "CLBlast");
    for (pi = 0; pi < 2; pi++) {
        gemm_precision prec = pi ? GEMM_F64 : GEMM_F32;
        if (!strstr(precs, pi ? "f64" : "f32")) continue;
        if (pi == 1 && gemm_cl_kernel_info_get(cl, GEMM_F64, &info[1]) != GEMM_OK) {
            printf("fp64: %s\n", gemm_last_error_detail());
            continue;
        }
        for (i = 0; i < nsizes; i++) ok &= measure(prec, GEMM_NO_TRANS, GEMM_NO_TRANS, sizes[i], quick, csv);
    }
    printf("\nall four transpose cases at n = %lld\n", (long long)tsize);
    for (pi = 0; pi < 2; pi++) {
        int c;
        if (!strstr(precs, pi ? "f64" : "f32") || (pi == 1 && gemm_cl_kernel_info_get(cl, GEMM_F64, &info[1]) != GEMM_OK))
            continue;
        for (c = 0; c < 4; c++)
            ok &= measure(pi ? GEMM_F64 : GEMM_F32, c & 2 ? GEMM_TRANS : GEMM_NO_TRANS,
                          c & 1 ? GEMM_TRANS : GEMM_NO_TRANS, tsize, quick, csv);
    }
    if (csv) { fclose(csv); printf("\nwrote %s\n", csv_path); }
    gemm_cl_destroy(cl);
    if (!ok) fprintf(stderr, "bench_cl: a result of gemm_cl was WRONG (marked !)\n");
    return ok ? 0 : 1;
}
