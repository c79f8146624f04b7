/* examples/batched.c - 10,000 small products in one call: the strided batch
   (every member's matrices one after the other), then the pointer-array
   batch (members anywhere), each checked against a loop of single calls.

       cc -std=c99 -O2 examples/batched.c -o batched -lm -lpthread
       ./batched [n] [count]          (default: 10,000 products of 16x16x16) */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
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

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoi(argv[1]) : 16, count = argc > 2 ? atoi(argv[2]) : 10000, size = n * n, i;
    float *A = malloc(sizeof(float) * size * count), *B = malloc(sizeof(float) * size * count);
    float *C = malloc(sizeof(float) * size * count), *R = malloc(sizeof(float) * size * count);
    const float **a = malloc(sizeof(float *) * count), **b = malloc(sizeof(float *) * count);
    float **c = malloc(sizeof(float *) * count);
    double t_loop, t_batch;
    gemm_status s;
    int same;
    if (!A || !B || !C || !R || !a || !b || !c) return 1;
    for (i = 0; i < size * count; i++) A[i] = (float)(rand() % 7 - 3), B[i] = (float)(rand() % 5 - 2);

    /* the loop a caller would write without batches */
    t_loop = now();
    for (i = 0; i < count; i++)
        gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A + i * size, n, B + i * size, n, 0.0f,
                   R + i * size, n);
    t_loop = now() - t_loop;

    /* strided: member i's matrices start i*size elements in (a stride may
       be 0: one A or B for every member) */
    t_batch = now();
    s = gemm_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A, n, size, B, n, size,
                                   0.0f, C, n, size, count);
    t_batch = now() - t_batch;
    if (s != GEMM_OK) printf("%s: %s\n", gemm_strerror(s), gemm_last_error_detail());
    same = memcmp(C, R, sizeof(float) * size * count) == 0;
    printf("%lld products of %lldx%lldx%lld: loop of gemm_sgemm %.2f ms, gemm_sgemm_strided_batched %.2f ms, %s\n",
           (long long)count, (long long)n, (long long)n, (long long)n, 1e3 * t_loop, 1e3 * t_batch,
           same ? "the same bits" : "DIFFERENT");

    /* pointer arrays: member i's matrices are a[i], b[i], c[i], anywhere
       (here the same ones, last member first) */
    for (i = 0; i < count; i++) {
        a[i] = A + (count - 1 - i) * size;
        b[i] = B + (count - 1 - i) * size;
        c[i] = C + (count - 1 - i) * size;
    }
    memset(C, 0, sizeof(float) * size * count);
    s = gemm_sgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n, count);
    same = same && s == GEMM_OK && memcmp(C, R, sizeof(float) * size * count) == 0;
    printf("gemm_sgemm_batched: %s\n", s == GEMM_OK && same ? "the same bits" : "DIFFERENT");

    /* a refused batch names the member at fault and writes nothing */
    c[7] = NULL;
    s = gemm_sgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n, count);
    printf("with c[7] = NULL: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());

    free(A); free(B); free(C); free(R); free(a); free(b); free(c);
    return same && s == GEMM_ERR_INVALID_ARG ? 0 : 1;
}
