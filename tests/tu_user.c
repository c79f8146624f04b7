/* tests/tu_user.c - build check: a translation unit that only uses the API
   (linked against tu_impl.c, or on its own with -DGEMM_STATIC). */
#ifdef GEMM_STATIC
#define GEMM_IMPLEMENTATION
#endif
#include "../gemm.h"
#include <stdio.h>

int tu_user_check(void);
int tu_user_check(void)
{
    float a = 2, b = 3, c = 0;
    double ad = 2, bd = 3, cd = 1;
    gemm_cpu_options options = {0, 0};
    options.threads = 1;
    return gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1) == GEMM_OK && c == 6 &&
           gemm_cpu_dgemm(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1, &ad, 1, &bd, 1, 1, &cd, 1, &options) == GEMM_OK &&
           cd == 7;
}

#ifdef TU_USER_MAIN
int main(void)
{
    int ok = tu_user_check();
    printf("%s\n", ok ? "6" : "wrong");
    return ok ? 0 : 1;
}
#endif
