/* bench/bench_cl_complex.c - gemm_cl's complex calls (gemm_cl_cgemm /
   zgemm on cl_mem) beside CLBlast's Cgemm / Zgemm, same process, device
   and queue.

   make bench-cl-complex [BENCH_ARGS="--sizes 256,512 --ops NN,CN"]
   build/bench_cl_complex [--sizes n,...] [--ops NN,CN,NT,...] [--reps R]
   GEMM_CL_DEVICE picks the device (e.g. NVIDIA).

   Protocol (as bench_cl's): column-major square products, interleaved
   complex inputs on the device, random in [-0.5, 0.5) in both parts,
   alpha = (1, 0.5), beta = 0; op() of each operand from N, T, C (C the
   conjugate transpose). One warm-up call each (CLBlast's first call of a
   precision compiles its kernels and is reported), then the two calls
   interleaved (ours, CLBlast, ours, ...), each timed from enqueue to
   clFinish; the median of R (default 5) with min and max. GFLOP/s count
   the complex product's 8 n^3 flops. Each contender's result is checked
   once on 64 sampled elements against long double sums
   (battery_complex_sampled_ok; tolerance 8 n^2 eps of the precision). */
#define GEMM_IMPLEMENTATION
#include "../gemm_cl.h"
#include "../tests/battery.h"

#ifdef BENCH_HAVE_CLBLAST
/* CLBlast's C API (clblast_c.h), declared here so that a machine with the
   library but not its header builds too. Enum values equal CBLAS's. */
int CLBlastCgemm(int layout, int ta, int tb, size_t m, size_t n, size_t k, cl_float2 alpha, cl_mem a, size_t offa,
                 size_t lda, cl_mem b, size_t offb, size_t ldb, cl_float2 beta, cl_mem c, size_t offc, size_t ldc,
                 cl_command_queue *queue, cl_event *event);
int CLBlastZgemm(int layout, int ta, int tb, size_t m, size_t n, size_t k, cl_double2 alpha, cl_mem a, size_t offa,
                 size_t lda, cl_mem b, size_t offb, size_t ldb, cl_double2 beta, cl_mem c, size_t offc, size_t ldc,
                 cl_command_queue *queue, cl_event *event);
#define HAVE_CLBLAST 1
#else
#define HAVE_CLBLAST 0
#endif

enum { OURS = 0, CLBLAST = 1, NWHO = 2 };

static gemm_cl_context *cl;
static cl_context context;
static cl_command_queue queue;

typedef struct problem {
    int f64;                 /* zgemm, else cgemm */
    gemm_transpose ta, tb;
    int64_t n;
    battery_buf hA, hB;      /* interleaved pairs, as uploaded */
    cl_mem A, B, C;
} problem;

static const double alpha_d[2] = {1.0, 0.5}, beta_d[2] = {0.0, 0.0};

static int run(int who, problem *p)
{
    int64_t n = p->n;
    if (who == OURS) {
        float af[2] = {(float)alpha_d[0], (float)alpha_d[1]}, bf[2] = {0.0f, 0.0f};
        gemm_status s = p->f64 ? gemm_cl_zgemm(cl, GEMM_COL_MAJOR, p->ta, p->tb, n, n, n, alpha_d, p->A, 0, n, p->B,
                                               0, n, beta_d, p->C, 0, n, NULL)
                               : gemm_cl_cgemm(cl, GEMM_COL_MAJOR, p->ta, p->tb, n, n, n, af, p->A, 0, n, p->B, 0, n,
                                               bf, p->C, 0, n, NULL);
        if (s != GEMM_OK) fprintf(stderr, "bench_cl_complex: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
        return s == GEMM_OK ? 0 : -1;
    }
#ifdef BENCH_HAVE_CLBLAST
    {
        size_t z = (size_t)n;
        int s;
        if (p->f64) {
            cl_double2 a, b;
            a.s[0] = alpha_d[0], a.s[1] = alpha_d[1], b.s[0] = b.s[1] = 0.0;
            s = CLBlastZgemm(102, (int)p->ta, (int)p->tb, z, z, z, a, p->A, 0, z, p->B, 0, z, b, p->C, 0, z, &queue,
                             NULL);
        } else {
            cl_float2 a, b;
            a.s[0] = (float)alpha_d[0], a.s[1] = (float)alpha_d[1], b.s[0] = b.s[1] = 0.0f;
            s = CLBlastCgemm(102, (int)p->ta, (int)p->tb, z, z, z, a, p->A, 0, z, p->B, 0, z, b, p->C, 0, z, &queue,
                             NULL);
        }
        if (s != 0) fprintf(stderr, "bench_cl_complex: CLBlast returned %d\n", s);
        return s == 0 ? 0 : -1;
    }
#else
    return -1;
#endif
}

/* One call by `who`, waited for: seconds, or -1 on failure. */
static double run_once(int who, problem *p)
{
    double t = gemm__cl_now();
    if (run(who, p) < 0 || clFinish(queue) != CL_SUCCESS) return -1;
    return gemm__cl_now() - t;
}

/* battery_read_fn for the result in the problem's cl_mem C. */
static double read_device(void *ctx, size_t index)
{
    const problem *p = (const problem *)ctx;
    double d;
    float f;
    if (clEnqueueReadBuffer(queue, p->C, CL_TRUE, index * (p->f64 ? sizeof d : sizeof f), p->f64 ? sizeof d : sizeof f,
                            p->f64 ? (void *)&d : (void *)&f, 0, NULL, NULL) != CL_SUCCESS)
        return NAN;
    return p->f64 ? d : f;
}

/* The result in C on 64 sampled elements. */
static int check(problem *p)
{
    double eps = p->f64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    return battery_complex_sampled_ok(GEMM_COL_MAJOR, p->ta, p->tb, p->n, alpha_d, &p->hA, &p->hB, read_device, p,
                                      8.0 * (double)p->n * (double)p->n * eps);
}

static cl_mem upload(const battery_buf *b)
{
    cl_int e;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, battery_buf_bytes(b), b->data, &e);
    if (e != CL_SUCCESS) { fprintf(stderr, "bench_cl_complex: clCreateBuffer failed (%d)\n", (int)e); exit(1); }
    return m;
}

static void problem_make(problem *p, int f64, gemm_transpose ta, gemm_transpose tb, int64_t n)
{
    uint64_t st = 42;
    p->f64 = f64, p->ta = ta, p->tb = tb, p->n = n;
    p->hA = battery_buf_new(f64 ? GEMM_F64 : GEMM_F32, (size_t)(2 * n * n));
    p->hB = battery_buf_new(f64 ? GEMM_F64 : GEMM_F32, (size_t)(2 * n * n));
    battery_fill(&p->hA, &st);
    battery_fill(&p->hB, &st);
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
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static gemm_transpose trans_of(char c) { return c == 'N' ? GEMM_NO_TRANS : c == 'T' ? GEMM_TRANS : GEMM_CONJ_TRANS; }

int main(int argc, char **argv)
{
    int64_t sizes[16] = {256, 512, 1024};
    int nsizes = 3, reps = 5, i, f64, si, oi, nops = 3, wrong = 0, first_done[2] = {0, 0};
    char ops[16][3] = {"NN", "CN", "NT"}, name[256] = "";
    cl_device_id device = NULL;
    gemm_status s;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 16);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
            const char *a = argv[++i];
            for (nops = 0; nops < 16 && strlen(a) >= 2 && strchr("NTC", a[0]) && strchr("NTC", a[1]); nops++) {
                ops[nops][0] = a[0], ops[nops][1] = a[1], ops[nops][2] = '\0';
                a += 2;
                if (*a == ',') a++;
            }
        } else {
            fprintf(stderr, "usage: %s [--sizes n,...] [--ops NN,CN,...] [--reps R]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > 64 || nsizes < 1 || nops < 1) { fprintf(stderr, "bench_cl_complex: bad arguments\n"); return 2; }
    if ((s = gemm_cl_create(NULL, &cl)) != GEMM_OK ||
        (s = gemm_cl_handles(cl, &context, &queue, &device)) != GEMM_OK) {
        fprintf(stderr, "bench_cl_complex: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
        return 1;
    }
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("# gemm_cl %s on %s; peer: %s; column-major, alpha = (1, 0.5), beta = 0; GFLOP/s (8 n^3 flops) median "
           "[min-max] of %d\n", GEMM_VERSION_STRING, name,
           HAVE_CLBLAST ? "CLBlast (Cgemm, Zgemm)" : "none (built without CLBlast)", reps);
    printf("prec op      n |  gemm_cl                    |  CLBlast                    | ours / CLBlast\n");
    for (f64 = 0; f64 < 2; f64++)
        for (si = 0; si < nsizes; si++)
            for (oi = 0; oi < nops; oi++) {
                problem p;
                double t[NWHO][64], gf[NWHO][3], flops = 8.0 * (double)sizes[si] * (double)sizes[si] * (double)sizes[si];
                int ok[NWHO] = {0, 0}, who, r, nwho = HAVE_CLBLAST ? 2 : 1;
                problem_make(&p, f64, trans_of(ops[oi][0]), trans_of(ops[oi][1]), sizes[si]);
                for (who = 0; who < nwho; who++) {
                    double first = run_once(who, &p);
                    ok[who] = first >= 0 && check(&p);
                    if (who == CLBLAST && !first_done[f64]) {
                        printf("  (CLBlast's first %s call, compiling its kernels: %.2f s)\n", f64 ? "zgemm" : "cgemm",
                               first);
                        first_done[f64] = 1;
                    }
                }
                for (r = 0; r < reps; r++)
                    for (who = 0; who < nwho; who++) t[who][r] = run_once(who, &p);
                for (who = 0; who < nwho; who++) {
                    qsort(t[who], (size_t)reps, sizeof(double), cmp);
                    if (t[who][0] < 0) ok[who] = 0;
                    gf[who][0] = flops / t[who][reps / 2] * 1e-9;
                    gf[who][1] = flops / t[who][reps - 1] * 1e-9;
                    gf[who][2] = flops / t[who][0] * 1e-9;
                }
                printf("%4s %s %6lld", f64 ? "z" : "c", ops[oi], (long long)sizes[si]);
                for (who = 0; who < nwho; who++)
                    printf(" | %8.2f [%7.2f-%7.2f]%s", gf[who][0], gf[who][1], gf[who][2], ok[who] ? "  " : " !");
                if (nwho > 1) printf(" | %6.3f", gf[OURS][0] / gf[CLBLAST][0]);
                printf("\n");
                fflush(stdout);
                for (who = 0; who < nwho; who++) wrong += !ok[who];
                problem_free(&p);
            }
    gemm_cl_destroy(cl);
    if (wrong) printf("%d results WRONG or failed (marked !)\n", wrong);
    return wrong ? 1 : 0;
}
