/* tests/netlib/gemm_impl.c - the implementation unit netlib's CBLAS level-3
   testers link: gemm's cblas_sgemm and cblas_dgemm (GEMM_CBLAS). The
   tester's own cblas_xerbla (c_xerbla.c) replaces gemm's weak one.

   Linked with -Wl,--wrap=cblas_sgemm,--wrap=cblas_dgemm, every call the
   tester's C wrappers make passes through the counters below on its way to
   gemm's routine (__real_cblas_?gemm is the definition in this unit), and
   the count is printed at exit, so the suite can tell that the calls the
   tester reports reached gemm. NETLIB_BREAK_GEMM, the suite's negative
   control, scales alpha on the way: the tester must then fail. */
#define GEMM_CBLAS
#define GEMM_IMPLEMENTATION
#include "../../gemm.h"

#include <stdio.h>

#ifdef NETLIB_BREAK_GEMM
#define NUDGE 1.001
#else
#define NUDGE 1
#endif

static long sgemm_calls, dgemm_calls;

void __real_cblas_sgemm(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, CBLAS_INT, CBLAS_INT, CBLAS_INT, float,
                        const float *, CBLAS_INT, const float *, CBLAS_INT, float, float *, CBLAS_INT);
void __real_cblas_dgemm(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, CBLAS_INT, CBLAS_INT, CBLAS_INT, double,
                        const double *, CBLAS_INT, const double *, CBLAS_INT, double, double *, CBLAS_INT);
void __wrap_cblas_sgemm(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, CBLAS_INT, CBLAS_INT, CBLAS_INT, float,
                        const float *, CBLAS_INT, const float *, CBLAS_INT, float, float *, CBLAS_INT);
void __wrap_cblas_dgemm(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, CBLAS_INT, CBLAS_INT, CBLAS_INT, double,
                        const double *, CBLAS_INT, const double *, CBLAS_INT, double, double *, CBLAS_INT);

void __wrap_cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n,
                        CBLAS_INT k, float alpha, const float *A, CBLAS_INT lda, const float *B, CBLAS_INT ldb,
                        float beta, float *C, CBLAS_INT ldc)
{
    sgemm_calls++;
    __real_cblas_sgemm(layout, ta, tb, m, n, k, (float)(alpha * NUDGE), A, lda, B, ldb, beta, C, ldc);
}

void __wrap_cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n,
                        CBLAS_INT k, double alpha, const double *A, CBLAS_INT lda, const double *B, CBLAS_INT ldb,
                        double beta, double *C, CBLAS_INT ldc)
{
    dgemm_calls++;
    __real_cblas_dgemm(layout, ta, tb, m, n, k, alpha * NUDGE, A, lda, B, ldb, beta, C, ldc);
}

/* after the Fortran driver's STOP, which exits through the C library */
__attribute__((destructor)) static void report_calls(void)
{
    fprintf(stderr, "gemm_impl: %ld cblas_sgemm calls and %ld cblas_dgemm calls reached gemm\n", sgemm_calls,
            dgemm_calls);
}
