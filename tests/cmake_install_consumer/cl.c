/* tests/cmake_install_consumer/cl.c - built on gemm::opencl (the OpenCL
   backend's bodies, linked with OpenCL::OpenCL); run, it lists the device. */
#define GEMM_IMPLEMENTATION
#include "gemm_cl.h"
#include <stdio.h>

int main(void)
{
    gemm_cl_context *cl;
    gemm_status s = gemm_cl_create(NULL, &cl);
    printf("gemm_cl_create: %s\n", gemm_strerror(s));
    if (s == GEMM_OK) gemm_cl_destroy(cl);
    return 0;
}
