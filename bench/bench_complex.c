/* bench/bench_complex.c - gemm's complex calls (gemm_cgemm / gemm_zgemm)
   beside OpenBLAS's cblas_cgemm / cblas_zgemm, in one process.

   make bench-complex              cgemm and zgemm, 1 and 2 threads,
                                   square n = 256..4096, row-major NN
   build/bench_complex [--threads 1,2] [--sizes 256,512] [--prec c,z]
                       [--ops NN,CN,NT] [--csv FILE] [--quick] [--3m]

   --3m: the 3M (Gauss) calls on both sides, gemm_cpu_cgemm3m / zgemm3m
   beside OpenBLAS's cblas_cgemm3m / zgemm3m (GFLOP/s still 8mnk: the
   complex product's, so the gain over the 4M calls shows).

   Protocol as bench/bench_cpu.c's: random inputs in [-0.5, 0.5), a warm-up
   call each, then ours and the peer's calls interleaved (A B A B), the
   median of the repeats (5 or more, as many as fit in about a second; 3
   when one call takes over half a second), min and max beside it;
   GFLOP/s counts 8mnk real flops (the complex product's). Every result is
   checked on 64 sampled elements against a long double sum. OpenBLAS runs
   the kernel OPENBLAS_CORETYPE names (SkylakeX on AVX-512: Debian's 0.3.21
   does not know newer CPUs), set before it loads by re-executing; the
   kernel it ran (openblas_get_corename) is printed in the header. */
#define _POSIX_C_SOURCE 200809L
#define GEMM__TEST_HOOKS /* gemm__cpu_kernel(): which kernel runs */
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"

#include <time.h>
#include <unistd.h>

#ifdef BENCH_HAVE_OPENBLAS
void cblas_cgemm(int layout, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int lda,
                 const void *B, int ldb, const void *beta, void *C, int ldc);
void cblas_zgemm(int layout, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int lda,
                 const void *B, int ldb, const void *beta, void *C, int ldc);
void cblas_cgemm3m(int layout, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int lda,
                   const void *B, int ldb, const void *beta, void *C, int ldc);
void cblas_zgemm3m(int layout, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int lda,
                   const void *B, int ldb, const void *beta, void *C, int ldc);
char *openblas_get_corename(void);
void openblas_set_num_threads(int n);
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct bench_case {
    gemm_precision prec; /* GEMM_F32: cgemm, GEMM_F64: zgemm */
    gemm_transpose ta, tb;
    int64_t n;
} bench_case;

static const double alpha_z[2] = {0.75, -0.25}, beta_z[2] = {0, 0};
static int use_3m; /* --3m */
static const float alpha_c[2] = {0.75f, -0.25f}, beta_c[2] = {0, 0};

/* Runs ours (who = 0) or the peer (who = 1) once, row-major, square;
   returns seconds. */
static double run_once(int who, const bench_case *c, const void *A, const void *B, void *C)
{
    int64_t n = c->n;
    double t = now();
    if (who == 0) {
        gemm_status st = use_3m
            ? (c->prec == GEMM_F32
                   ? gemm_cpu_cgemm3m(GEMM_ROW_MAJOR, c->ta, c->tb, n, n, n, alpha_c, A, n, B, n, beta_c, C, n, NULL)
                   : gemm_cpu_zgemm3m(GEMM_ROW_MAJOR, c->ta, c->tb, n, n, n, alpha_z, A, n, B, n, beta_z, C, n, NULL))
            : c->prec == GEMM_F32
            ? gemm_cgemm(GEMM_ROW_MAJOR, c->ta, c->tb, n, n, n, alpha_c, A, n, B, n, beta_c, C, n)
            : gemm_zgemm(GEMM_ROW_MAJOR, c->ta, c->tb, n, n, n, alpha_z, A, n, B, n, beta_z, C, n);
        if (st != GEMM_OK) {
            fprintf(stderr, "bench: %s (%s)\n", gemm_strerror(st), gemm_last_error_detail());
            exit(1);
        }
    }
#ifdef BENCH_HAVE_OPENBLAS
    else if (use_3m)
        (c->prec == GEMM_F32 ? cblas_cgemm3m : cblas_zgemm3m)(101, (int)c->ta, (int)c->tb, (int)n, (int)n, (int)n,
                                                              c->prec == GEMM_F32 ? (const void *)alpha_c
                                                                                  : (const void *)alpha_z,
                                                              A, (int)n, B, (int)n,
                                                              c->prec == GEMM_F32 ? (const void *)beta_c
                                                                                  : (const void *)beta_z,
                                                              C, (int)n);
    else if (c->prec == GEMM_F32)
        cblas_cgemm(101, (int)c->ta, (int)c->tb, (int)n, (int)n, (int)n, alpha_c, A, (int)n, B, (int)n, beta_c, C,
                    (int)n);
    else
        cblas_zgemm(101, (int)c->ta, (int)c->tb, (int)n, (int)n, (int)n, alpha_z, A, (int)n, B, (int)n, beta_z, C,
                    (int)n);
#endif
    return now() - t;
}

/* 64 sampled elements of C against long double sums
   (battery_complex_sampled_ok): 1 when all are within 8 eps * n *
   max|a||b| * |alpha| of them (twice that for the 3M calls, whose
   imaginary parts come out of a difference of products). */
static int sampled_ok(const bench_case *c, const battery_buf *A, const battery_buf *B, const battery_buf *C)
{
    double eps = c->prec == GEMM_F32 ? FLT_EPSILON : DBL_EPSILON, bound = 8 * eps * (double)c->n * 0.5 * 0.5 * 2 * (use_3m ? 2 : 1);
    return battery_complex_sampled_ok(GEMM_ROW_MAJOR, c->ta, c->tb, c->n, alpha_z, A, B, battery_read_host, (void *)C,
                                      bound);
}

static gemm_transpose op_of(char ch)
{
    return ch == 'T' ? GEMM_TRANS : ch == 'C' ? GEMM_CONJ_TRANS : GEMM_NO_TRANS;
}

int main(int argc, char **argv)
{
    int64_t sizes[32] = {256, 512, 1024, 2048, 4096}, threads[8] = {1, 2};
    int nsizes = 5, nthreads = 2, nprec = 2, nops = 1, i, ti, pi, oi, si, quick = 0;
    gemm_precision precs[2] = {GEMM_F32, GEMM_F64};
    char ops[8][3] = {"NN"};
    const char *csv_path = NULL, *peer = "n/a";
    FILE *csv = NULL;

#ifdef BENCH_HAVE_OPENBLAS
    if (!getenv("OPENBLAS_THREAD_TIMEOUT")) {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) setenv("OPENBLAS_CORETYPE", "SkylakeX", 0);
        else if (__builtin_cpu_supports("avx2")) setenv("OPENBLAS_CORETYPE", "Haswell", 0);
        setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
        execv("/proc/self/exe", argv);
        perror("bench: re-exec with OPENBLAS_CORETYPE failed; continuing");
    }
    peer = openblas_get_corename();
#endif
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = battery_parse_list(argv[++i], threads, 8);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 32);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--3m")) use_3m = 1;
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) {
            const char *p = argv[++i];
            nprec = 0;
            if (strchr(p, 'c')) precs[nprec++] = GEMM_F32;
            if (strchr(p, 'z')) precs[nprec++] = GEMM_F64;
        } else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
            const char *p = argv[++i];
            for (nops = 0; nops < 8 && p[0] && p[1]; p += p[2] ? 3 : 2) {
                ops[nops][0] = p[0];
                ops[nops][1] = p[1];
                ops[nops++][2] = '\0';
                if (!p[2]) break;
            }
        } else {
            fprintf(stderr, "usage: %s [--threads 1,2] [--sizes n,...] [--prec c,z] [--ops NN,CN] [--csv FILE] "
                            "[--quick] [--3m]\n", argv[0]);
            return 2;
        }
    }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "backend,precision,threads,op,n,ours_gflops,peer,peer_gflops,ratio\n");
    printf("gemm complex%s vs OpenBLAS%s (core: %s), row-major, GFLOP/s (8mnk) median [min-max]\n",
           use_3m ? " 3M (gemm_cpu_?gemm3m)" : "", use_3m ? " cblas_?gemm3m" : "", peer);
    printf("gemm kernel: %s, %ld CPUs online\n", gemm__cpu_kernel(), sysconf(_SC_NPROCESSORS_ONLN));
    for (ti = 0; ti < nthreads; ti++) {
        int th = (int)threads[ti];
        gemm_cpu_set_threads(th);
#ifdef BENCH_HAVE_OPENBLAS
        openblas_set_num_threads(th);
#endif
        for (pi = 0; pi < nprec; pi++)
            for (oi = 0; oi < nops; oi++) {
                printf("\n%s%s %s, %d thread%s\n%6s | %-24s | %-24s | %s\n",
                       precs[pi] == GEMM_F32 ? "cgemm" : "zgemm", use_3m ? "3m" : "",
                       ops[oi], th, th == 1 ? "" : "s", "n", "gemm", "OpenBLAS", "ratio");
                for (si = 0; si < nsizes; si++) {
                    bench_case c;
                    uint64_t state = 42;
                    battery_buf A, B, C;
                    double t[2][64], gf[2][3], flops, first;
                    int reps, r, who, have_peer = strcmp(peer, "n/a") != 0, ok[2] = {1, 1};
                    c.prec = precs[pi];
                    c.ta = op_of(ops[oi][0]);
                    c.tb = op_of(ops[oi][1]);
                    c.n = sizes[si];
                    flops = 8.0 * (double)c.n * (double)c.n * (double)c.n;
                    A = battery_buf_new(c.prec, (size_t)(2 * c.n * c.n));
                    B = battery_buf_new(c.prec, (size_t)(2 * c.n * c.n));
                    C = battery_buf_new(c.prec, (size_t)(2 * c.n * c.n));
                    battery_fill(&A, &state);
                    battery_fill(&B, &state);
                    first = run_once(0, &c, A.data, B.data, C.data);
                    ok[0] = sampled_ok(&c, &A, &B, &C);
                    if (have_peer) {
                        run_once(1, &c, A.data, B.data, C.data);
                        ok[1] = sampled_ok(&c, &A, &B, &C);
                    }
                    reps = first > 0.5 ? 3 : (int)(1.0 / (first + 1e-9));
                    if (reps < 5) reps = first > 0.5 ? 3 : 5;
                    if (reps > 50) reps = 50;
                    if (quick) reps = 3;
                    for (r = 0; r < reps; r++)
                        for (who = 0; who < 1 + have_peer; who++) t[who][r] = run_once(who, &c, A.data, B.data, C.data);
                    for (who = 0; who < 1 + have_peer; who++) {
                        battery_sort(t[who], reps);
                        gf[who][0] = flops / t[who][reps / 2] * 1e-9;
                        gf[who][1] = flops / t[who][reps - 1] * 1e-9;
                        gf[who][2] = flops / t[who][0] * 1e-9;
                    }
                    printf("%6lld | %7.1f [%6.1f-%6.1f]%s | ", (long long)c.n, gf[0][0], gf[0][1], gf[0][2],
                           ok[0] ? "  " : " !");
                    if (have_peer)
                        printf("%7.1f [%6.1f-%6.1f]%s | %5.2f\n", gf[1][0], gf[1][1], gf[1][2], ok[1] ? "  " : " !",
                               gf[0][0] / gf[1][0]);
                    else
                        printf("%-24s | n/a\n", "n/a");
                    if (csv) {
                        fprintf(csv, "cpu,%s%s,%d,%s,%lld,%.2f,%s,", c.prec == GEMM_F32 ? "c" : "z",
                                use_3m ? "3m" : "", th, ops[oi],
                                (long long)c.n, gf[0][0], have_peer ? peer : "n/a");
                        if (have_peer) fprintf(csv, "%.2f,%.3f\n", gf[1][0], gf[0][0] / gf[1][0]);
                        else fprintf(csv, "n/a,n/a\n");
                    }
                    fflush(stdout);
                    battery_buf_free(&A);
                    battery_buf_free(&B);
                    battery_buf_free(&C);
                    if (!ok[0]) {
                        fprintf(stderr, "bench: gemm's result is WRONG for n = %lld\n", (long long)c.n);
                        return 1;
                    }
                }
            }
    }
    if (csv) { fclose(csv); printf("\nwrote %s\n", csv_path); }
    return 0;
}
