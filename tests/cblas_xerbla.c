/* tests/cblas_xerbla.c - the test's own cblas_xerbla, in a file of its own
   as a program's would be: it replaces gemm_cblas.h's weak default at link
   time, and records each call instead of printing. */
#include "../gemm_cblas.h"

int test_xerbla_calls;       /* calls since the test last cleared it */
CBLAS_INT test_xerbla_p;     /* the last call's parameter number */
char test_xerbla_rout[64];   /* ... and routine */

void cblas_xerbla(CBLAS_INT p, const char *rout, const char *form, ...)
{
    size_t i;
    (void)form;
    test_xerbla_calls++;
    test_xerbla_p = p;
    for (i = 0; rout[i] && i + 1 < sizeof test_xerbla_rout; i++) test_xerbla_rout[i] = rout[i];
    test_xerbla_rout[i] = '\0';
}
