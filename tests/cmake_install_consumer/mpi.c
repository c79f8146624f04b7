/* tests/cmake_install_consumer/mpi.c - built on gemm::mpi: the MPI
   backend's bodies compile with the include directory and link with
   MPI::MPI_C that the target brings. */
#define GEMM_IMPLEMENTATION
#include "gemm_mpi.h"
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    printf("gemm %s with MPI\n", GEMM_VERSION_STRING);
    MPI_Finalize();
    return 0;
}
