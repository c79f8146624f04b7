/* bench/ladder.c - the CPU ladder of seed 001, step by step, up to gemm.

   make bench-ladder               n = 256, 512, 1024, 2 threads
   build/ladder [--sizes 256,512] [--threads 2]

   Each rung is the textbook code of one idea, fp32, row-major C = A*B:
     1. naive ijk        the definition; walks B down a column (a new cache
                         line per multiply-add)
     2. ikj              loop order: the inner loop streams rows of B and C
     3. tiled            64x64x64 blocks, so each block of B is reused from
                         cache before it is evicted
     4. tiled + threads  the same blocks, rows of C split over pthreads
     5. gemm             packing, an AVX-512/AVX2 register-blocked
                         micro-kernel, the thread pool (gemm_cpu.h)
   The rungs use restrict and are built with -O3, so the compiler vectorises
   their inner loops as well as it can (SSE2: a plain x86-64 target).
   Teaching material: none of this is in the library's API. GFLOP/s is the
   median of 3 runs (1 for a rung slower than 2 s); every result is checked
   against gemm's. Naive ijk stops at n = 1024, where it takes ~10 s. */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE 64

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void naive_ijk(int n, const float *A, const float *B, float *C)
{
    int i, j, p;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            float sum = 0;
            for (p = 0; p < n; p++) sum += A[i * n + p] * B[p * n + j];
            C[i * n + j] = sum;
        }
}

static void ikj(int n, const float *restrict A, const float *restrict B, float *restrict C)
{
    int i, j, p;
    memset(C, 0, sizeof(float) * (size_t)n * (size_t)n);
    for (i = 0; i < n; i++)
        for (p = 0; p < n; p++) {
            float a = A[i * n + p];
            for (j = 0; j < n; j++) C[i * n + j] += a * B[p * n + j];
        }
}

/* Rows [r0, r1) of C, in TILE^3 blocks with ikj order inside. */
static void tiled_rows(int n, const float *restrict A, const float *restrict B, float *restrict C, int r0, int r1)
{
    int ii, jj, pp, i, j, p;
    for (i = r0; i < r1; i++) memset(C + (size_t)i * n, 0, sizeof(float) * (size_t)n);
    for (ii = r0; ii < r1; ii += TILE)
        for (pp = 0; pp < n; pp += TILE)
            for (jj = 0; jj < n; jj += TILE) {
                int ie = ii + TILE < r1 ? ii + TILE : r1, pe = pp + TILE < n ? pp + TILE : n;
                int je = jj + TILE < n ? jj + TILE : n;
                for (i = ii; i < ie; i++)
                    for (p = pp; p < pe; p++) {
                        float a = A[i * n + p];
                        for (j = jj; j < je; j++) C[i * n + j] += a * B[p * n + j];
                    }
            }
}

static void tiled(int n, const float *A, const float *B, float *C) { tiled_rows(n, A, B, C, 0, n); }

typedef struct rows_job { int n, r0, r1; const float *A, *B; float *C; } rows_job;
static int ladder_threads = 2;

static void *tiled_thread(void *p)
{
    rows_job *j = (rows_job *)p;
    tiled_rows(j->n, j->A, j->B, j->C, j->r0, j->r1);
    return NULL;
}

static void tiled_threads(int n, const float *A, const float *B, float *C)
{
    pthread_t th[64];
    rows_job jobs[64];
    int t, nt = ladder_threads < 64 ? ladder_threads : 64, started[64];
    for (t = 0; t < nt; t++) {
        jobs[t].n = n; jobs[t].A = A; jobs[t].B = B; jobs[t].C = C;
        jobs[t].r0 = (int)((long)n * t / nt / TILE * TILE);
        jobs[t].r1 = t == nt - 1 ? n : (int)((long)n * (t + 1) / nt / TILE * TILE);
        started[t] = pthread_create(&th[t], NULL, tiled_thread, &jobs[t]) == 0;
        if (!started[t]) tiled_thread(&jobs[t]);
    }
    for (t = 0; t < nt; t++)
        if (started[t]) pthread_join(th[t], NULL);
}

static void ours(int n, const float *A, const float *B, float *C)
{
    gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
}

typedef void (*rung_fn)(int n, const float *A, const float *B, float *C);

int main(int argc, char **argv)
{
    static const char *names[] = {"naive ijk", "ikj", "tiled 64", "tiled 64 + threads", "gemm (gemm_cpu.h)"};
    static const rung_fn rungs[] = {naive_ijk, ikj, tiled, tiled_threads, ours};
    int sizes[16] = {256, 512, 1024}, nsizes = 3, si, r, i;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *p = argv[++i];
            nsizes = 0;
            while (*p && nsizes < 16) { sizes[nsizes++] = (int)strtol(p, &p, 10); if (*p == ',') p++; }
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) ladder_threads = atoi(argv[++i]);
        else { fprintf(stderr, "usage: %s [--sizes n,...] [--threads t]\n", argv[0]); return 2; }
    }
    if (ladder_threads < 1) ladder_threads = 1;
    gemm_cpu_set_threads(ladder_threads);
    printf("The CPU ladder, fp32 row-major C = A*B, GFLOP/s (threaded rungs: %d threads)\n\n", ladder_threads);
    printf("%-20s", "n");
    for (si = 0; si < nsizes; si++) printf(" %9d", sizes[si]);
    printf("\n");
    for (r = 0; r < 5; r++) {
        printf("%-20s", names[r]);
        for (si = 0; si < nsizes; si++) {
            int n = sizes[si], rep, reps = 3;
            size_t nn = (size_t)n * (size_t)n, e;
            float *A = (float *)malloc(sizeof(float) * nn), *B = (float *)malloc(sizeof(float) * nn);
            float *C = (float *)malloc(sizeof(float) * nn), *R = (float *)malloc(sizeof(float) * nn);
            double t[3], err = 0;
            if (!A || !B || !C || !R || n <= 0) { printf(" %9s", "-"); continue; }
            srand(1);
            for (e = 0; e < nn; e++) { A[e] = (float)rand() / RAND_MAX - 0.5f; B[e] = (float)rand() / RAND_MAX - 0.5f; }
            if (r == 0 && n > 1024) { printf(" %9s", "-"); free(A); free(B); free(C); free(R); continue; }
            ours(n, A, B, R);
            for (rep = 0; rep < reps; rep++) {
                t[rep] = now();
                rungs[r](n, A, B, C);
                t[rep] = now() - t[rep];
                if (t[rep] > 2.0) { reps = rep + 1; break; }
            }
            battery_sort(t, (int)reps);
            for (e = 0; e < nn; e++) err = fmax(err, fabs((double)C[e] - (double)R[e]));
            if (err > 1e-5 * n) printf(" %8s!", "WRONG");
            else printf(" %9.1f", 2.0 * n * (double)n * n / t[reps / 2] * 1e-9);
            fflush(stdout);
            free(A); free(B); free(C); free(R);
        }
        printf("\n");
    }
    return 0;
}
