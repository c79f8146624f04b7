/* bench/bench_sbgemm.c - gemm_cpu_sbgemm (bf16 A and B, fp32 C) beside
   gemm_cpu_sgemm on the same matrices widened to fp32, in one process.

   make bench-sbgemm               n = 256, 512, 1024, 2048; 1 and 2 threads
   build/bench_sbgemm [--sizes 256,1024] [--threads 1,2]

   The peer of the speed goal is OpenBLAS's cblas_sbgemm; Debian's OpenBLAS
   0.3.21 does not export it (its bf16 kernels are not built there), so the
   bench looks for it in libopenblas.so.0 at run time, says whether it is
   there, and compares with our own fp32 call on the widened data instead:
   what a caller without a bf16 product does. Row-major NN, alpha 1, beta
   0, random bf16 inputs; calls interleaved (sbgemm, sgemm, sbgemm, ...),
   the median of at least 5 (or as many as fit in about a second), wall
   time; each result checked bitwise against the sgemm one (the contract). */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"

#include <dlfcn.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int64_t sizes[16] = {256, 512, 1024, 2048}, threads[8] = {1, 2};
    int nsizes = 4, nthreads = 2, i, si, ti;
    void *ob = dlopen("libopenblas.so.0", RTLD_LAZY);
    const char *peer = !ob ? "libopenblas.so.0 not found"
                       : dlsym(ob, "cblas_sbgemm") ? "libopenblas.so.0 exports cblas_sbgemm (not used here)"
                                                   : "libopenblas.so.0 exports no cblas_sbgemm: the peer is missing";
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 16);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = battery_parse_list(argv[++i], threads, 8);
        else {
            fprintf(stderr, "usage: %s [--sizes 256,1024] [--threads 1,2]\n", argv[0]);
            return 2;
        }
    }
    printf("gemm_cpu_sbgemm beside gemm_cpu_sgemm on the widened matrices; %s\n", peer);
    printf("row-major NN, alpha 1, beta 0; GFLOP/s median [min-max]; ratio sbgemm / sgemm speed\n");
    printf("%6s %3s | %-24s | %-24s | %6s\n", "n", "thr", "sbgemm", "sgemm (widened)", "ratio");
    for (ti = 0; ti < nthreads; ti++)
        for (si = 0; si < nsizes; si++) {
            int64_t n = sizes[si], cnt = n * n, j, reps;
            uint16_t *a = (uint16_t *)malloc(sizeof *a * (size_t)cnt), *b = (uint16_t *)malloc(sizeof *b * (size_t)cnt);
            float *fa = (float *)malloc(sizeof *fa * (size_t)cnt), *fb = (float *)malloc(sizeof *fb * (size_t)cnt);
            float *c1 = (float *)malloc(sizeof *c1 * (size_t)cnt), *c2 = (float *)malloc(sizeof *c2 * (size_t)cnt);
            double t[2][64], flops = 2.0 * (double)n * (double)n * (double)n, t0, one;
            uint64_t state = 99 + (uint64_t)n;
            gemm_cpu_options o;
            int ok;
            o.threads = (int)threads[ti];
            for (j = 0; j < cnt; j++) {
                float x = (float)battery_uniform(&state), y = (float)battery_uniform(&state);
                uint32_t u, v;
                memcpy(&u, &x, 4);
                memcpy(&v, &y, 4);
                a[j] = (uint16_t)(u >> 16); /* truncated: any bf16 will do */
                b[j] = (uint16_t)(v >> 16);
                u = (uint32_t)a[j] << 16;
                v = (uint32_t)b[j] << 16;
                memcpy(&fa[j], &u, 4);
                memcpy(&fb[j], &v, 4);
            }
            gemm_cpu_sbgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1, a, n, b, n, 0, c1, n, &o);
            t0 = now();
            gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1, fa, n, fb, n, 0, c2, n, &o);
            one = now() - t0;
            ok = memcmp(c1, c2, sizeof *c1 * (size_t)cnt) == 0;
            reps = (int64_t)(1.0 / (2 * one + 1e-9));
            if (reps < 5) reps = 5;
            if (reps > 64) reps = 64;
            for (j = 0; j < reps; j++) {
                t0 = now();
                gemm_cpu_sbgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1, a, n, b, n, 0, c1, n, &o);
                t[0][j] = now() - t0;
                t0 = now();
                gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1, fa, n, fb, n, 0, c2, n, &o);
                t[1][j] = now() - t0;
            }
            battery_sort(t[0], (int)reps);
            battery_sort(t[1], (int)reps);
            printf("%6lld %3lld | %7.1f [%7.1f-%7.1f] | %7.1f [%7.1f-%7.1f] | %6.3f%s\n", (long long)n,
                   (long long)threads[ti], flops / t[0][reps / 2] / 1e9, flops / t[0][reps - 1] / 1e9,
                   flops / t[0][0] / 1e9, flops / t[1][reps / 2] / 1e9, flops / t[1][reps - 1] / 1e9,
                   flops / t[1][0] / 1e9, t[1][reps / 2] / t[0][reps / 2], ok ? "" : "  NOT sgemm's bits");
            fflush(stdout);
            free(a); free(b); free(fa); free(fb); free(c1); free(c2);
            if (!ok) return 1;
        }
    return 0;
}
