/* tests/cmake_consumer/main.c - built against gemm::gemm (CMake) and with
   pkg-config: the implementation, a threaded call, the version. */
#define GEMM_IMPLEMENTATION
#include "gemm.h"
#include <stdio.h>
#include <string.h>

int main(void)
{
    static float A[300 * 300], B[300 * 300], C[300 * 300];
    gemm_cpu_options o = {2, 0};
    int i;
    for (i = 0; i < 300 * 300; i++) A[i] = 1.0f, B[i] = 0.5f;
    if (gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 300, 300, 300, 1.0f, A, 300, B, 300, 0.0f, C, 300,
                       &o) != GEMM_OK || C[0] != 150.0f) {
        printf("wrong: %g (%s)\n", C[0], gemm_last_error_detail());
        return 1;
    }
    printf("gemm %s: C[0] = %g\n", GEMM_VERSION_STRING, C[0]);
    return 0;
}
