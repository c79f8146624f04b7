/* examples/cblas_compat.c - a program written for CBLAS, on gemm.

   The program was written against <cblas.h>; two lines made it run on
   gemm instead: the #include below (was: #include <cblas.h>), and the
   GEMM_IMPLEMENTATION in this one file. Nothing to link but -lm -lpthread:

       cc -std=c99 -O2 examples/cblas_compat.c -o cblas_compat -lm -lpthread */
#define GEMM_IMPLEMENTATION /* in one file of the program */
#include "../gemm_cblas.h"  /* was: #include <cblas.h> */

#include <stdio.h>

int main(void)
{
    /* C = A * B^T, row-major: A is 2x3, B is 2x3 */
    float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, 1, 0, 1, 0}, C[4];
    /* three 2x2 products at once, one B for all (strideb = 0) */
    double X[12] = {1, 0, 0, 1, 2, 0, 0, 2, 0, 1, 1, 0}, Y[4] = {1, 2, 3, 4}, Z[12];
    int i, ok;

    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 2, 2, 3, 1.0f, A, 3, B, 3, 0.0f, C, 2);
    printf("A * B^T = [%g %g; %g %g]\n", C[0], C[1], C[2], C[3]);
    ok = C[0] == 4 && C[1] == 2 && C[2] == 10 && C[3] == 5;

    cblas_dgemm_batch_strided(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, X, 2, 4, Y, 2, 0, 0.0, Z, 2, 4,
                              3);
    for (i = 0; i < 3; i++) printf("X%d * Y = [%g %g; %g %g]\n", i, Z[4 * i], Z[4 * i + 1], Z[4 * i + 2], Z[4 * i + 3]);
    ok = ok && Z[0] == 1 && Z[3] == 4 && Z[4] == 2 && Z[7] == 8 && Z[8] == 3 && Z[11] == 2;

    /* a bad argument goes to cblas_xerbla: "Parameter 9 to routine
       cblas_sgemm was incorrect" on stderr, and C is left alone */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, 1.0f, A, 2, B, 2, 0.0f, C, 2);
    ok = ok && C[0] == 4;

    printf("%s\n", ok ? "right" : "WRONG");
    return ok ? 0 : 1;
}
