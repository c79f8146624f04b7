/* bench/bench_verify.c - what the `verify` option costs on the CPU: the
   same product with and without verification, in one process.

   make bench-verify                       n = 2048 and 4096, fp32 and fp64,
                                           1 and 2 threads, beta 0 and 1
   build/bench_verify [--n 2048,4096] [--threads 1,2] [--prec f32,f64]
                      [--beta 0,1] [--rounds R]

   Protocol (docs/DESIGN.md, "Measuring"): random inputs in [-0.5, 0.5),
   row-major NN, alpha = 1; a warm-up of both columns, then R rounds (default
   7) of the two interleaved (plain, verified, plain, verified, ...) on the
   same operands; each column's median. The cost is verified / plain - 1.
   beta = 1 adds the pass over C0 the checksums take before the product.
   The column "sums" times the verification's own passes alone (the sums
   before and after, on the call's threads; interleaved with the others,
   median) and "sums/plain" sets them against the plain call: the cost
   without the noise of two products. Every verified call must return
   GEMM_OK (no false alarm at this size). */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The verification's passes alone (cpu/verify_sums.c), as a verified call
   runs them around its product; returns their seconds. */
static double sums(gemm_precision prec, int n, double beta, const void *A, const void *B, const void *C, double *ws,
                   int threads)
{
    gemm__problem p;
    gemm__verify_sums v;
    double t = now();
    gemm__prepare("bench", GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 0, 1, n, 1, n, beta == 1, 1, n, &p);
    gemm__verify_host_before(&p, prec, 1.0, B, A, beta, C, ws, &v, threads); /* row-major: a is B */
    gemm__verify_host_after(&p, prec, C, &v, threads);
    return now() - t;
}

static int parse(const char *s, int *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        out[n++] = atoi(s);
        while (*s && *s != ',') s++;
        if (*s == ',') s++;
    }
    return n;
}

/* One call; returns its seconds, or -1 when it failed. */
static double run(gemm_precision prec, int n, double beta, void *A, void *B, void *C, const gemm_cpu_options *o)
{
    double t = now();
    gemm_status s = prec == GEMM_F32
                        ? gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, (float *)A, n,
                                         (float *)B, n, (float)beta, (float *)C, n, o)
                        : gemm_cpu_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, (double *)A, n,
                                         (double *)B, n, beta, (double *)C, n, o);
    t = now() - t;
    if (s != GEMM_OK) {
        fprintf(stderr, "bench_verify: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
        return -1;
    }
    return t;
}

int main(int argc, char **argv)
{
    int ns[8] = {2048, 4096}, ths[8] = {1, 2}, betas[4] = {0, 1}, precs[2] = {1, 2};
    int nn = 2, nt = 2, nb = 2, np = 2, rounds = 7, a, b, c, d, r, i;
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--n") == 0) nn = parse(argv[i + 1], ns, 8);
        else if (strcmp(argv[i], "--threads") == 0) nt = parse(argv[i + 1], ths, 8);
        else if (strcmp(argv[i], "--beta") == 0) nb = parse(argv[i + 1], betas, 4);
        else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--prec") == 0) {
            np = 0;
            if (strstr(argv[i + 1], "f32")) precs[np++] = 1;
            if (strstr(argv[i + 1], "f64")) precs[np++] = 2;
        } else {
            fprintf(stderr, "usage: %s [--n 2048,4096] [--threads 1,2] [--prec f32,f64] [--beta 0,1] [--rounds R]\n",
                    argv[0]);
            return 2;
        }
    }
    if (i < argc || rounds < 1 || rounds > 99) {
        fprintf(stderr, "bench_verify: bad arguments\n");
        return 2;
    }
    printf("# %s\n", gemm_config());
    printf("%-5s %6s %7s %5s %12s %12s %8s %10s %11s\n", "prec", "n", "threads", "beta", "plain (s)", "verified (s)",
           "cost", "sums (s)", "sums/plain");
    for (d = 0; d < np; d++)
        for (a = 0; a < nn; a++) {
            gemm_precision prec = precs[d] == 1 ? GEMM_F32 : GEMM_F64;
            size_t es = gemm_precision_size(prec), count = (size_t)ns[a] * (size_t)ns[a], e;
            char *A = (char *)malloc(es * count), *B = (char *)malloc(es * count), *C = (char *)malloc(es * count);
            double *ws = (double *)malloc(sizeof(double) * gemm__verify_doubles(ns[a], ns[a], ns[a]));
            unsigned long long st = 12345;
            if (!A || !B || !C || !ws) return fprintf(stderr, "bench_verify: out of memory\n"), 1;
            for (e = 0; e < count; e++) {
                double x, y;
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                x = (double)(st >> 11) / 9007199254740992.0 - 0.5;
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                y = (double)(st >> 11) / 9007199254740992.0 - 0.5;
                if (prec == GEMM_F32) ((float *)A)[e] = (float)x, ((float *)B)[e] = (float)y, ((float *)C)[e] = 0;
                else ((double *)A)[e] = x, ((double *)B)[e] = y, ((double *)C)[e] = 0;
            }
            for (b = 0; b < nt; b++)
                for (c = 0; c < nb; c++) {
                    gemm_cpu_options plain = {0, 0}, verified = {0, 1};
                    double tp[99], tv[99], ts[99], beta = betas[c] ? 1.0 : 0.0;
                    plain.threads = verified.threads = ths[b];
                    if (run(prec, ns[a], beta, A, B, C, &plain) < 0 || run(prec, ns[a], beta, A, B, C, &verified) < 0)
                        return 1;
                    for (r = 0; r < rounds; r++) {
                        memset(C, 0, es * count); /* beta = 1: C stays small */
                        if ((tp[r] = run(prec, ns[a], beta, A, B, C, &plain)) < 0) return 1;
                        if ((tv[r] = run(prec, ns[a], beta, A, B, C, &verified)) < 0) return 1;
                        ts[r] = sums(prec, ns[a], beta, A, B, C, ws, gemm_cpu_get_threads() < ths[b] ? gemm_cpu_get_threads() : ths[b]);
                    }
                    qsort(tp, (size_t)rounds, sizeof(double), cmp);
                    qsort(tv, (size_t)rounds, sizeof(double), cmp);
                    qsort(ts, (size_t)rounds, sizeof(double), cmp);
                    printf("%-5s %6d %7d %5g %12.4f %12.4f %7.1f%% %10.4f %10.1f%%\n", gemm_precision_name(prec), ns[a],
                           ths[b], beta, tp[rounds / 2], tv[rounds / 2], 100.0 * (tv[rounds / 2] / tp[rounds / 2] - 1.0),
                           ts[rounds / 2], 100.0 * ts[rounds / 2] / tp[rounds / 2]);
                    fflush(stdout);
                }
            free(A);
            free(B);
            free(C);
            free(ws);
        }
    return 0;
}
