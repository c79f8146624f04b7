/* tests/tu_static.c - build check: a GEMM_STATIC program whose sizes come
   from the command line, compiled at every optimisation level with
   -Werror (the compiler sees every path of the static functions). */
#define GEMM_STATIC
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include <stdlib.h>

int main(int argc, char **argv)
{
    int64_t m = argc > 3 ? atol(argv[1]) : 5, n = argc > 3 ? atol(argv[2]) : 5, k = argc > 3 ? atol(argv[3]) : 5;
    float *a = (float *)calloc((size_t)(m * k + 1), sizeof(float)), *b = (float *)calloc((size_t)(k * n + 1), sizeof(float));
    float *c = (float *)calloc((size_t)(m * n + 1), sizeof(float));
    double *ad = (double *)calloc((size_t)(m * k + 1), sizeof(double)), *bd = (double *)calloc((size_t)(k * n + 1), sizeof(double));
    double *cd = (double *)calloc((size_t)(m * n + 1), sizeof(double));
    gemm_cpu_options o = {0, 0};
    int s = (int)gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
    o.threads = argc > 4 ? atoi(argv[4]) : 0;
    s |= (int)gemm_cpu_dgemm(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, m, n, k, 1.0, ad, k, bd, k, 0.5, cd, m, &o);
    free(a); free(b); free(c); free(ad); free(bd); free(cd);
    return s;
}
