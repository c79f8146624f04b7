/* bench/bench_sbgemm.c - gemm_cpu_sbgemm (bf16 A and B, fp32 C) beside
   OpenBLAS's cblas_sbgemm and beside gemm_cpu_sgemm on the same matrices
   widened to fp32, in one process.

   make bench-sbgemm               n = 256..4096, 1 and 2 threads, the peer from .peers/
   build/bench_sbgemm [--sizes 256,1024] [--threads 1,2] [--peer PATH]
   build/bench_sbgemm --sizes 2,4,8,16,32,64,128 --threads 1   small calls
   build/bench_sbgemm --op TN ...  op(A), op(B) transposed as named (default NN)

   The peer is OpenBLAS's cblas_sbgemm from the library named by --peer (or
   GEMM_BENCH_SBGEMM_PEER), else libopenblas.so.0 when it exports one.
   Debian's OpenBLAS 0.3.21 does not (its bf16 kernels are not built
   there): build one with BUILD_BFLOAT16=1 (bench/RESULTS.md says how). The
   header prints the peer's openblas_get_config() and
   openblas_get_corename(); the peer's threads are set per row with
   openblas_set_num_threads, and OPENBLAS_THREAD_TIMEOUT=4 (unless set)
   before it loads, so that its idle threads sleep between calls. Without a peer the sbgemm and sgemm columns
   are still timed.

   Row-major, NN unless --op says, alpha 1, beta 0, random bf16 inputs; calls interleaved
   (ours, the peer's, the widened sgemm, ours, ...), the median of at least
   7 (or as many as fit in about a second), wall time; below n = 256 each
   sample times about 2 ms of calls in a row and divides. The machine's load
   average is printed before and after (the 2-core CI machine is shared). Each of our results
   is checked against the peer's and the sgemm one within the fp32 sum
   bound, 2 * k * 2^-24 * sum |a||b| per element (both compute fp32 sums of
   the same exact products, in different orders). */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"

#include <dlfcn.h>
#include <math.h>
#include <time.h>

typedef void (*sbgemm_fn)(int layout, int ta, int tb, int m, int n, int k, float alpha, const uint16_t *a, int lda,
                          const uint16_t *b, int ldb, float beta, float *c, int ldc);
typedef void (*set_threads_fn)(int);
typedef char *(*text_fn)(void);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The peer's entry points, from `path` (NULL: libopenblas.so.0). */
typedef struct peer {
    sbgemm_fn sbgemm;
    set_threads_fn set_threads;
    char what[400];
} peer;

static void peer_open(peer *pr, const char *path)
{
    void *h;
    text_fn config, core;
    memset(pr, 0, sizeof *pr);
    /* read when the library loads: its idle threads then sleep after a
       call instead of spinning, which would take a core from our next
       2-thread call (bench_cpu.c measured it) */
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
    h = dlopen(path ? path : "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(pr->what, sizeof pr->what, "no peer: %s", dlerror());
        return;
    }
    pr->sbgemm = (sbgemm_fn)(uintptr_t)dlsym(h, "cblas_sbgemm");
    pr->set_threads = (set_threads_fn)(uintptr_t)dlsym(h, "openblas_set_num_threads");
    config = (text_fn)(uintptr_t)dlsym(h, "openblas_get_config");
    core = (text_fn)(uintptr_t)dlsym(h, "openblas_get_corename");
    snprintf(pr->what, sizeof pr->what, "%s %s: %s; config \"%s\", core %s", pr->sbgemm ? "peer" : "no peer",
             path ? path : "libopenblas.so.0", pr->sbgemm ? "cblas_sbgemm" : "exports no cblas_sbgemm",
             config ? config() : "?", core ? core() : "?");
}

/* The largest |c - r| / bound over the elements, bound = 2 k 2^-24 sum|a||b|
   (a and b the widened operands, row-major n x n, transposed when ta, tb). */
static double worst_ratio(const float *c, const float *r, const float *fa, const float *fb, int64_t n, int ta, int tb)
{
    double *rowsum = (double *)malloc(sizeof(double) * (size_t)n), *colsum = (double *)calloc((size_t)n, sizeof(double));
    double worst = 0, u = ldexp(1.0, -24);
    int64_t i, j, p;
    /* sum_p |a_ip||b_pj| <= max_p|a_ip| * sum_p |b_pj|: a bound cheap at n = 4096 */
    for (i = 0; i < n; i++) {
        rowsum[i] = 0;
        for (p = 0; p < n; p++) rowsum[i] = fmax(rowsum[i], fabs((double)fa[ta ? p * n + i : i * n + p]));
    }
    for (p = 0; p < n; p++)
        for (j = 0; j < n; j++) colsum[j] += fabs((double)fb[tb ? j * n + p : p * n + j]);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double d = fabs((double)c[i * n + j] - (double)r[i * n + j]), bound = 2.0 * (double)n * u * rowsum[i] * colsum[j];
            if (!(d <= bound)) return INFINITY;
            if (bound > 0 && d / bound > worst) worst = d / bound;
        }
    free(rowsum);
    free(colsum);
    return worst;
}

/* Linux's 1-minute load average, or -1. */
static double load_average(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

static void fill(uint16_t *a, float *fa, int64_t cnt, uint64_t *state)
{
    int64_t j;
    for (j = 0; j < cnt; j++) {
        float x = (float)battery_uniform(state);
        uint32_t u;
        memcpy(&u, &x, 4);
        a[j] = (uint16_t)(u >> 16); /* truncated: any bf16 will do */
        u = (uint32_t)a[j] << 16;
        memcpy(&fa[j], &u, 4);
    }
}

int main(int argc, char **argv)
{
    int64_t sizes[16] = {256, 512, 1024, 2048, 4096}, threads[8] = {1, 2};
    int nsizes = 5, nthreads = 2, i, si, ti, failed = 0, ta = 0, tb = 0;
    const gemm_transpose ops[2] = {GEMM_NO_TRANS, GEMM_TRANS};
    const char *path = getenv("GEMM_BENCH_SBGEMM_PEER");
    peer pr;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 16);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = battery_parse_list(argv[++i], threads, 8);
        else if (!strcmp(argv[i], "--peer") && i + 1 < argc) path = argv[++i];
        else if (!strcmp(argv[i], "--op") && i + 1 < argc && strlen(argv[i + 1]) == 2) {
            ta = argv[++i][0] == 'T';
            tb = argv[i][1] == 'T';
        }
        else {
            fprintf(stderr, "usage: %s [--sizes 256,1024] [--threads 1,2] [--peer libopenblas.so] [--op NN|NT|TN|TT]\n", argv[0]);
            return 2;
        }
    }
    peer_open(&pr, path);
    printf("gemm_cpu_sbgemm beside OpenBLAS cblas_sbgemm and gemm_cpu_sgemm on the widened matrices\n%s\n", pr.what);
    printf("load average (1 min) at the start: %.2f\n", load_average());
    printf("row-major %c%c, alpha 1, beta 0; GFLOP/s median [min-max]; ratio = peer time / ours (> 1: ours faster);\n"
           "check: worst |ours - theirs| / (2 k 2^-24 sum|a||b|), peer and sgemm\n", ta ? 'T' : 'N', tb ? 'T' : 'N');
    printf("%5s %3s | %-23s | %-23s | %-23s | %6s %6s | %s\n", "n", "thr", "gemm sbgemm", "OpenBLAS sbgemm",
           "gemm sgemm (widened)", "/peer", "/sgemm", "check");
    for (ti = 0; ti < nthreads; ti++)
        for (si = 0; si < nsizes; si++) {
            int64_t n = sizes[si], cnt = n * n, j, reps, r, inner, x;
            uint16_t *a = (uint16_t *)malloc(sizeof *a * (size_t)cnt), *b = (uint16_t *)malloc(sizeof *b * (size_t)cnt);
            float *fa = (float *)malloc(sizeof *fa * (size_t)cnt), *fb = (float *)malloc(sizeof *fb * (size_t)cnt);
            float *c[3];
            double t[3][64], flops = 2.0 * (double)n * (double)n * (double)n, t0, one, g[3][3], wp = 0, ws;
            uint64_t state = 99 + (uint64_t)n;
            gemm_cpu_options o;
            int have = pr.sbgemm != NULL, ok;
            o.threads = (int)threads[ti];
            o.verify = 0;
            for (r = 0; r < 3; r++) c[r] = (float *)malloc(sizeof(float) * (size_t)cnt);
            fill(a, fa, cnt, &state);
            fill(b, fb, cnt, &state);
            if (have && pr.set_threads) pr.set_threads((int)threads[ti]);
            /* one of each first (pages, the pool, the peer's threads), timing ours */
            t0 = now();
            gemm_cpu_sbgemm(GEMM_ROW_MAJOR, ops[ta], ops[tb], n, n, n, 1, a, n, b, n, 0, c[0], n, &o);
            one = now() - t0;
            if (have) pr.sbgemm(101, 111 + ta, 111 + tb, (int)n, (int)n, (int)n, 1, a, (int)n, b, (int)n, 0, c[1], (int)n);
            gemm_cpu_sgemm(GEMM_ROW_MAJOR, ops[ta], ops[tb], n, n, n, 1, fa, n, fb, n, 0, c[2], n, &o);
            if (have) wp = worst_ratio(c[0], c[1], fa, fb, n, ta, tb);
            ws = worst_ratio(c[0], c[2], fa, fb, n, ta, tb);
            ok = (!have || wp <= 1) && ws <= 1;
            reps = (int64_t)(1.0 / (3 * one + 1e-9));
            if (reps < 7) reps = 7;
            if (reps > 64) reps = 64;
            /* a sample times `inner` calls in a row, about 2 ms of them at small n
               (a call of a microsecond is below the clock's resolution) */
            inner = n >= 256 ? 1 : (int64_t)(2e-3 / (one + 1e-9)) + 1;
            for (j = 0; j < reps; j++) {
                t0 = now();
                for (x = 0; x < inner; x++)
                    gemm_cpu_sbgemm(GEMM_ROW_MAJOR, ops[ta], ops[tb], n, n, n, 1, a, n, b, n, 0, c[0], n, &o);
                t[0][j] = (now() - t0) / (double)inner;
                t0 = now();
                for (x = 0; x < inner && have; x++)
                    pr.sbgemm(101, 111 + ta, 111 + tb, (int)n, (int)n, (int)n, 1, a, (int)n, b, (int)n, 0, c[1], (int)n);
                t[1][j] = (now() - t0) / (double)inner;
                t0 = now();
                for (x = 0; x < inner; x++)
                    gemm_cpu_sgemm(GEMM_ROW_MAJOR, ops[ta], ops[tb], n, n, n, 1, fa, n, fb, n, 0, c[2], n, &o);
                t[2][j] = (now() - t0) / (double)inner;
            }
            for (r = 0; r < 3; r++) {
                battery_sort(t[r], (int)reps);
                g[r][0] = flops / t[r][reps / 2] / 1e9;
                g[r][1] = flops / t[r][reps - 1] / 1e9;
                g[r][2] = flops / t[r][0] / 1e9;
            }
            printf("%5lld %3lld | %6.1f [%6.1f-%6.1f] | ", (long long)n, (long long)threads[ti], g[0][0], g[0][1],
                   g[0][2]);
            if (have) printf("%6.1f [%6.1f-%6.1f] | ", g[1][0], g[1][1], g[1][2]);
            else printf("%-23s | ", "-");
            printf("%6.1f [%6.1f-%6.1f] | ", g[2][0], g[2][1], g[2][2]);
            if (have) printf("%6.3f ", t[1][reps / 2] / t[0][reps / 2]);
            else printf("%6s ", "-");
            printf("%6.3f | ", t[2][reps / 2] / t[0][reps / 2]);
            if (have) printf("%.3f ", wp);
            printf("%.3f%s\n", ws, ok ? "" : "  OUTSIDE THE BOUND");
            fflush(stdout);
            failed += !ok;
            free(a); free(b); free(fa); free(fb);
            for (r = 0; r < 3; r++) free(c[r]);
        }
    printf("load average (1 min) at the end: %.2f\n", load_average());
    return failed != 0;
}
