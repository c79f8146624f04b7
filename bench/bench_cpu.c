/* bench/bench_cpu.c - gemm's CPU backend beside OpenBLAS, in one process.

   make bench                      the default table
   build/bench_cpu [--threads 1,2] [--sizes 256,512] [--shapes m:n:k,...]
                   [--prec f32,f64] [--csv FILE] [--quick]

   Protocol (../shared/BENCHMARKS.md): random inputs in [-0.5, 0.5), a warm-up
   call, then ours and the peer's calls interleaved (A B A B), the median of
   the repeats (at least 5, or as many as fit in about a second; 3 when one
   call takes over half a second), min and max beside it. Every result is
   checked once against the fp64 reference on a sample of its elements.

   OpenBLAS (Debian's 0.3.21) does not know newer Xeons and falls back to
   its SSE3 "Prescott" kernels; its best kernel is chosen before it loads by
   setting OPENBLAS_CORETYPE (SkylakeX with AVX-512, Haswell with AVX2) and
   re-executing this program. The kernel it ran is printed in the header. */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"

#include <time.h>
#include <unistd.h>

#ifdef BENCH_HAVE_OPENBLAS
/* The few CBLAS entry points the benchmark needs (no header required). */
void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc);
void cblas_dgemm(int layout, int ta, int tb, int m, int n, int k, double alpha, const double *A, int lda,
                 const double *B, int ldb, double beta, double *C, int ldc);
char *openblas_get_corename(void);
void openblas_set_num_threads(int n);
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct shape { int64_t m, n, k; } shape;

/* Runs ours (who = 0) or the peer (who = 1) once; returns seconds. */
static double run_once(int who, battery_precision prec, shape s, const battery_buf *A, const battery_buf *B,
                       battery_buf *C)
{
    double t = now();
    if (who == 0) {
        gemm_status st = prec == BATTERY_F32
            ? gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, 1.0f, (const float *)A->data,
                         s.k, (const float *)B->data, s.n, 0.0f, (float *)C->data, s.n)
            : gemm_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, 1.0, (const double *)A->data,
                         s.k, (const double *)B->data, s.n, 0.0, (double *)C->data, s.n);
        if (st != GEMM_OK) {
            fprintf(stderr, "bench: %s (%s)\n", gemm_strerror(st), gemm_last_error_detail());
            exit(1);
        }
    }
#ifdef BENCH_HAVE_OPENBLAS
    else if (prec == BATTERY_F32)
        cblas_sgemm(101, 111, 111, (int)s.m, (int)s.n, (int)s.k, 1.0f, (const float *)A->data, (int)s.k,
                    (const float *)B->data, (int)s.n, 0.0f, (float *)C->data, (int)s.n);
    else
        cblas_dgemm(101, 111, 111, (int)s.m, (int)s.n, (int)s.k, 1.0, (const double *)A->data, (int)s.k,
                    (const double *)B->data, (int)s.n, 0.0, (double *)C->data, (int)s.n);
#endif
    return now() - t;
}

/* Checks 64 sampled elements of C = A*B against fp64 sums. */
static int check_sampled(battery_precision prec, shape s, const battery_buf *A, const battery_buf *B,
                         const battery_buf *C)
{
    uint64_t state = 7;
    double eps = prec == BATTERY_F32 ? FLT_EPSILON : DBL_EPSILON;
    int t;
    for (t = 0; t < 64; t++) {
        int64_t i = battery_below(&state, s.m), j = battery_below(&state, s.n), p;
        double sum = 0;
        for (p = 0; p < s.k; p++) sum += battery_get(A, (size_t)(i * s.k + p)) * battery_get(B, (size_t)(p * s.n + j));
        if (!(fabs(battery_get(C, (size_t)(i * s.n + j)) - sum) <= 2 * eps * (double)s.k * 0.25)) return 0;
    }
    return 1;
}

static int parse_list(const char *arg, int64_t *out, int max)
{
    int n = 0;
    while (*arg && n < max) {
        out[n++] = strtoll(arg, (char **)&arg, 10);
        if (*arg == ',') arg++;
    }
    return n;
}

int main(int argc, char **argv)
{
    int64_t sizes[32] = {64, 128, 256, 512, 1024, 2048, 4096}, threads[8] = {1, 2}, prec_count = 2;
    shape shapes[64];
    int nsizes = 7, nthreads = 2, nshapes = 0, i, ti, si, quick = 0;
    battery_precision precs[2] = {BATTERY_F32, BATTERY_F64};
    const char *csv_path = NULL, *peer = "n/a";
    FILE *csv = NULL;

#ifdef BENCH_HAVE_OPENBLAS
    if (!getenv("OPENBLAS_CORETYPE")) { /* must be set before OpenBLAS loads: re-exec */
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
        else if (__builtin_cpu_supports("avx2")) setenv("OPENBLAS_CORETYPE", "Haswell", 1);
        if (getenv("OPENBLAS_CORETYPE")) {
            execv("/proc/self/exe", argv);
            perror("bench: re-exec with OPENBLAS_CORETYPE failed; continuing");
        }
    }
    peer = openblas_get_corename();
#endif
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = parse_list(argv[++i], threads, 8);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = parse_list(argv[++i], sizes, 32);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) {
            const char *p = argv[++i];
            prec_count = 0;
            if (strstr(p, "f32")) precs[prec_count++] = BATTERY_F32;
            if (strstr(p, "f64")) precs[prec_count++] = BATTERY_F64;
        } else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            const char *p = argv[++i];
            while (*p && nshapes < 64) {
                shapes[nshapes].m = strtoll(p, (char **)&p, 10); if (*p == ':') p++;
                shapes[nshapes].n = strtoll(p, (char **)&p, 10); if (*p == ':') p++;
                shapes[nshapes].k = strtoll(p, (char **)&p, 10); if (*p == ',') p++;
                nshapes++;
            }
        } else {
            fprintf(stderr, "usage: %s [--threads 1,2] [--sizes n,...] [--shapes m:n:k,...] [--prec f32,f64] "
                            "[--csv FILE] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (nshapes == 0)
        for (i = 0; i < nsizes; i++) { shapes[nshapes].m = shapes[nshapes].n = shapes[nshapes].k = sizes[i]; nshapes++; }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "backend,precision,threads,m,n,k,ours_gflops,peer,peer_gflops,ratio\n");

    printf("gemm CPU vs OpenBLAS (core: %s), row-major NN, GFLOP/s median [min-max]\n", peer);
    for (ti = 0; ti < nthreads; ti++) {
        int th = (int)threads[ti], pi;
        gemm_cpu_set_threads(th);
#ifdef BENCH_HAVE_OPENBLAS
        openblas_set_num_threads(th);
#endif
        for (pi = 0; pi < prec_count; pi++) {
            battery_precision prec = precs[pi];
            printf("\n%s, %d thread%s\n%6s %6s %6s | %-24s | %-24s | %s\n", prec == BATTERY_F32 ? "fp32" : "fp64", th,
                   th == 1 ? "" : "s", "m", "n", "k", "gemm", "OpenBLAS", "ratio");
            for (si = 0; si < nshapes; si++) {
                shape s = shapes[si];
                uint64_t state = 42;
                battery_buf A = battery_buf_new(prec, (size_t)(s.m * s.k)), B = battery_buf_new(prec, (size_t)(s.k * s.n));
                battery_buf C = battery_buf_new(prec, (size_t)(s.m * s.n));
                double t[2][64], gf[2][3], flops = 2.0 * (double)s.m * (double)s.n * (double)s.k, first;
                int reps, r, who, have_peer = strcmp(peer, "n/a") != 0, ok[2] = {1, 1};
                battery_fill(&A, &state);
                battery_fill(&B, &state);
                first = run_once(0, prec, s, &A, &B, &C); /* warm-up */
                ok[0] = check_sampled(prec, s, &A, &B, &C);
                if (have_peer) { run_once(1, prec, s, &A, &B, &C); ok[1] = check_sampled(prec, s, &A, &B, &C); }
                reps = first > 0.5 ? 3 : (int)(1.0 / (first + 1e-9));
                if (reps < 5) reps = first > 0.5 ? 3 : 5;
                if (reps > 50) reps = 50;
                if (quick) reps = 3;
                for (r = 0; r < reps; r++)
                    for (who = 0; who < 1 + have_peer; who++) t[who][r] = run_once(who, prec, s, &A, &B, &C);
                for (who = 0; who < 1 + have_peer; who++) {
                    qsort(t[who], (size_t)reps, sizeof(double), cmp_double);
                    gf[who][0] = flops / t[who][reps / 2] * 1e-9;
                    gf[who][1] = flops / t[who][reps - 1] * 1e-9;
                    gf[who][2] = flops / t[who][0] * 1e-9;
                }
                printf("%6lld %6lld %6lld | %7.1f [%6.1f-%6.1f]%s | ", (long long)s.m, (long long)s.n, (long long)s.k,
                       gf[0][0], gf[0][1], gf[0][2], ok[0] ? "  " : " !");
                if (have_peer)
                    printf("%7.1f [%6.1f-%6.1f]%s | %.2f\n", gf[1][0], gf[1][1], gf[1][2], ok[1] ? "  " : " !",
                           gf[0][0] / gf[1][0]);
                else
                    printf("%-24s | n/a\n", "n/a");
                if (csv) {
                    fprintf(csv, "cpu,%s,%d,%lld,%lld,%lld,%.2f,%s,", prec == BATTERY_F32 ? "f32" : "f64", th,
                            (long long)s.m, (long long)s.n, (long long)s.k, gf[0][0], have_peer ? peer : "n/a");
                    if (have_peer) fprintf(csv, "%.2f,%.3f\n", gf[1][0], gf[0][0] / gf[1][0]);
                    else fprintf(csv, "n/a,n/a\n");
                }
                fflush(stdout);
                if (!ok[0]) { fprintf(stderr, "bench: gemm's result is WRONG for %lldx%lldx%lld\n", (long long)s.m, (long long)s.n, (long long)s.k); return 1; }
                battery_buf_free(&A);
                battery_buf_free(&B);
                battery_buf_free(&C);
            }
        }
    }
    if (csv) { fclose(csv); printf("\nwrote %s\n", csv_path); }
    return 0;
}
