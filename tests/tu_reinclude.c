/* tests/tu_reinclude.c - build check: the stb habit in one file. Each header
   is included once for its declarations, then again after
   #define GEMM_IMPLEMENTATION for its bodies; TU_CL, TU_MPI, TU_CBLAS and
   TU_CUDA add those headers, TU_UMBRELLA takes the GEMM_ENABLE_* route
   through gemm.h instead. The program multiplies 1 x 1 matrices through
   every header it took in and prints 6 when each gave 2 * 3. */
#if defined(TU_UMBRELLA)
#  if defined(TU_MPI)
#    define GEMM_ENABLE_MPI
#  endif
#  if defined(TU_CL)
#    define GEMM_ENABLE_OPENCL
#  endif
#  if defined(TU_CBLAS)
#    define GEMM_CBLAS
#  endif
#  if defined(TU_CUDA)
#    define GEMM_ENABLE_CUDA
#  endif
#  include "../gemm.h"
#  define GEMM_IMPLEMENTATION
#  include "../gemm.h"
#else
#  include "../gemm.h"
#  if defined(TU_CL)
#    include "../gemm_cl.h"
#  endif
#  if defined(TU_MPI)
#    include "../gemm_mpi.h"
#  endif
#  if defined(TU_CBLAS)
#    include "../gemm_cblas.h"
#  endif
#  if defined(TU_CUDA)
#    include "../gemm_cuda.cuh"
#  endif
#  define GEMM_IMPLEMENTATION
#  include "../gemm.h"
#  if defined(TU_CL)
#    include "../gemm_cl.h"
#  endif
#  if defined(TU_MPI)
#    include "../gemm_mpi.h"
#  endif
#  if defined(TU_CBLAS)
#    include "../gemm_cblas.h"
#  endif
#  if defined(TU_CUDA)
#    include "../gemm_cuda.cuh"
#  endif
#endif
#include <stdio.h>

int main(int argc, char **argv)
{
    float a = 2, b = 3, c = 0;
    int ok;
    (void)argc; /* used by the MPI and CUDA cases only */
    (void)argv;
    ok = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1) == GEMM_OK && c == 6;
#if defined(TU_CBLAS)
    c = 0;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1);
    ok = ok && c == 6;
#endif
#if defined(TU_MPI)
    /* the MPI program is linked, not run: linking proves the bodies were emitted */
    if (argc > 99)
        ok = gemm_mpi_sgemm(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1, &a, 1, &b, 1, 0,
                            &c, 1, NULL) == GEMM_OK;
#endif
#if defined(TU_CL)
    ok = ok && gemm_cl_destroy(NULL) == GEMM_OK; /* needs no device */
#endif
#if defined(TU_CUDA)
    /* compiled, not run */
    if (argc > 99)
        ok = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1, NULL) ==
             GEMM_OK;
#endif
    printf("%s\n", ok ? "6" : "wrong");
    return ok ? 0 : 1;
}
