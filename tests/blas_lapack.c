/* tests/blas_lapack.c - reference LAPACK's dgesv_ (LU with partial
   pivoting, then the solve) on an n x n system, linked against the
   system's LAPACK and BLAS (-llapack). tests/test_blas.sh runs it as is
   and under LD_PRELOAD=libgemm_blas.so.

       blas_lapack N system|gemm

   N = 500 is large enough for LAPACK's blocked dgetrf (blocks of 64), which
   updates the trailing matrix with dgemm_. Checks: dgesv_ returns INFO = 0;
   the scaled residual |A x - b|_inf / (|A|_inf |x|_inf N eps) is below 30
   (LAPACK's own test threshold); with `gemm` the preloaded library's
   gemm_blas_calls_of("dgemm_") (found with dlsym, as the program does not
   link it) counted calls, with `system` the function is not in the
   process. Last line: N passed, N failed. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb, int *info);

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 500, one = 1, info = -1, i, j, passed = 0, failed = 0;
    int want_gemm = argc > 2 && strcmp(argv[2], "gemm") == 0;
    double *A, *LU, *x, *b, anorm = 0, xnorm = 0, rnorm = 0, ratio;
    int *ipiv;
    unsigned s = 12345u;
    unsigned long long (*calls_of)(const char *);
    unsigned long long before = 0, after = 0;
    if (n < 1) return 2;
    A = malloc(sizeof *A * n * n), LU = malloc(sizeof *LU * n * n), x = malloc(sizeof *x * n), b = malloc(sizeof *b * n);
    ipiv = malloc(sizeof *ipiv * n);
    for (i = 0; i < n * n; i++) {
        s = s * 1103515245u + 12345u;
        LU[i] = A[i] = (double)((s >> 8) & 0xffff) / 32768.0 - 1.0;
    }
    for (i = 0; i < n; i++) x[i] = b[i] = 1.0 + i % 7; /* dgesv_ overwrites x with the solution */
    *(void **)&calls_of = dlsym(RTLD_DEFAULT, "gemm_blas_calls_of");
    if (calls_of) before = calls_of("dgemm_");
    dgesv_(&n, &one, LU, &n, ipiv, x, &n, &info);
    if (calls_of) after = calls_of("dgemm_");
    printf("%s dgesv_ n = %d returns INFO = %d\n", info == 0 ? "ok  " : "FAIL", n, info);
    info == 0 ? passed++ : failed++;
    for (i = 0; i < n; i++) {
        double r = -b[i], row = 0;
        for (j = 0; j < n; j++) r += A[i + (size_t)j * n] * x[j], row += fabs(A[i + (size_t)j * n]);
        anorm = fmax(anorm, row), xnorm = fmax(xnorm, fabs(x[i])), rnorm = fmax(rnorm, fabs(r));
    }
    ratio = rnorm / (anorm * xnorm * n * DBL_EPSILON);
    printf("%s scaled residual |Ax - b| / (|A| |x| n eps) = %.3g (< 30)\n", ratio < 30 ? "ok  " : "FAIL", ratio);
    ratio < 30 ? passed++ : failed++;
    if (want_gemm) {
        int ok = calls_of && after > before;
        printf("%s gemm served LAPACK's dgemm_ calls: %llu\n", ok ? "ok  " : "FAIL", after - before);
        ok ? passed++ : failed++;
    } else {
        printf("%s without the preload gemm_blas_calls_of is not in the process\n", calls_of ? "FAIL" : "ok  ");
        calls_of ? failed++ : passed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    free(A), free(LU), free(x), free(b), free(ipiv);
    return failed != 0;
}
