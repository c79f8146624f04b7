/* examples/cpu_basic.c - multiply two random matrices on the CPU, check the
   result against the reference, print the time and GFLOP/s. `make demo`;
   build/cpu_basic [n] [threads]. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define GEMM_IMPLEMENTATION
#include "../gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, i;
    float *A = malloc(sizeof(float) * n * n), *B = malloc(sizeof(float) * n * n);
    float *C = malloc(sizeof(float) * n * n), *R = malloc(sizeof(float) * n * n);
    double t, err = 0;
    gemm_status s;
    gemm_cpu_options options = {0, 0}; /* all zeros = the defaults (NULL works too) */

    /* 0 = gemm_cpu_set_threads(), else GEMM_NUM_THREADS, else every CPU */
    options.threads = argc > 2 ? atoi(argv[2]) : 0;

    if (n <= 0 || !A || !B || !C || !R) return 1;
    for (i = 0; i < n * n; i++) {
        A[i] = (float)rand() / RAND_MAX - 0.5f;
        B[i] = (float)rand() / RAND_MAX - 0.5f;
    }

    /* C = 1.0 * A * B + 0.0 * C, all n x n, row-major. gemm_sgemm(...) takes
       the same arguments without the options. */
    t = now();
    s = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n,
                       1.0f, A, n, B, n, 0.0f, C, n, &options);
    t = now() - t;
    if (s != GEMM_OK) {
        fprintf(stderr, "gemm_cpu_sgemm: %s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
        return 1;
    }

    /* The reference sums in double: slow, but it is the yardstick. */
    gemm_ref_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n,
                   1.0f, A, n, B, n, 0.0f, R, n);
    for (i = 0; i < n * n; i++) err = fmax(err, fabs((double)C[i] - R[i]));

    printf("sgemm %d x %d x %d on %d CPU thread(s): %.3f s, %.1f GFLOP/s, max error %.2g vs reference\n",
           n, n, n, options.threads > 0 ? options.threads : gemm_cpu_get_threads(), t, 2.0 * n * n * n / t * 1e-9, err);
    free(A); free(B); free(C); free(R);
    return err < 1e-3 * n ? 0 : 1;
}
