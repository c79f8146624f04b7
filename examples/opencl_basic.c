/* examples/opencl_basic.c - multiply two random matrices on an OpenCL device
   (the first one, or GEMM_CL_DEVICE="NVIDIA" / "pthread" / "1:0"), check the
   result against the reference, print the device, the kernel in use and the
   time of each phase. `make example-cl`; build: cc -std=c99 x.c -lOpenCL -lm -lpthread */
#define GEMM_IMPLEMENTATION
#include "../gemm_cl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, i, pass;
    float *A = (float *)malloc(sizeof(float) * (size_t)n * n), *B = (float *)malloc(sizeof(float) * (size_t)n * n);
    float *C = (float *)malloc(sizeof(float) * (size_t)n * n), *R = (float *)malloc(sizeof(float) * (size_t)n * n);
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    gemm_cl_options opts;
    gemm_timing t;
    char params[256];
    double err = 0;
    gemm_status s;

    if (n <= 0 || !A || !B || !C || !R) return 1;
    for (i = 0; i < n * n; i++) {
        A[i] = (float)rand() / RAND_MAX - 0.5f;
        B[i] = (float)rand() / RAND_MAX - 0.5f;
    }
    /* NULL options: first device (or $GEMM_CL_DEVICE), tuned parameters for it. */
    s = gemm_cl_create(NULL, &cl);
    if (s != GEMM_OK) {
        fprintf(stderr, "gemm_cl_create: %s: %s\n", gemm_strerror(s), gemm_last_error_detail());
        return 1;
    }
    memset(&opts, 0, sizeof opts);
    opts.timing = &t;
    for (pass = 0; pass < 2; pass++) { /* the first call also builds and checks the kernel (setup) */
        s = gemm_cl_sgemm_host(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A, n, B, n, 0.0f, C,
                               n, &opts);
        if (s != GEMM_OK) {
            fprintf(stderr, "gemm_cl_sgemm_host: %s: %s\n", gemm_strerror(s), gemm_last_error_detail());
            gemm_cl_destroy(cl);
            return 1;
        }
        printf("%s call: setup %.4f s, to device %.4f s, kernels %.4f s (%.1f GFLOP/s), from device %.4f s\n",
               pass ? "second" : "first", t.setup_s, t.to_device_s, t.compute_s, 2e-9 * n * (double)n * n / t.compute_s,
               t.from_device_s);
    }
    gemm_cl_kernel_info_get(cl, GEMM_F32, &info);
    gemm_cl_params_str(&info.params, params, sizeof params);
    printf("device: %s\nkernel: %s (%s)%s%s\n", info.device_name, params, info.origin,
           info.fallback_reason[0] ? "\nfallback because: " : "", info.fallback_reason);
    gemm_ref_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A, n, B, n, 0.0f, R, n);
    for (i = 0; i < n * n; i++) err = fmax(err, fabs((double)C[i] - R[i]));
    printf("%dx%d: max error vs reference %.3g: %s\n", n, n, err, err <= 2 * 1.2e-7 * n * 0.25 ? "ok" : "WRONG");
    gemm_cl_destroy(cl);
    free(A); free(B); free(C); free(R);
    return err <= 2 * 1.2e-7 * n * 0.25 ? 0 : 1;
}
