/* examples/cuda_basic.cu - multiply two random matrices on the GPU, once
   from device pointers on a stream and once from host pointers, check
   against the reference, print the time. `make demo-cuda` (needs a GPU). */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, i;
    size_t bytes = sizeof(float) * (size_t)n * (size_t)n;
    float *A = (float *)malloc(bytes), *B = (float *)malloc(bytes), *C = (float *)malloc(bytes);
    float *R = (float *)malloc(bytes), *dA = NULL, *dB = NULL, *dC = NULL;
    gemm_cuda_options opt = {}; /* zero = every default */
    gemm_timing t;
    cudaEvent_t e0, e1;
    float ms;
    double err = 0;
    gemm_status s;

    if (n <= 0 || !A || !B || !C || !R) return 1;
    for (i = 0; i < n * n; i++) {
        A[i] = (float)rand() / RAND_MAX - 0.5f;
        B[i] = (float)rand() / RAND_MAX - 0.5f;
    }

    /* 1. Device pointers: the data stays on the GPU, the call is asynchronous. */
    if (cudaMalloc((void **)&dA, bytes) != cudaSuccess || cudaMalloc((void **)&dB, bytes) != cudaSuccess ||
        cudaMalloc((void **)&dC, bytes) != cudaSuccess) {
        fprintf(stderr, "no GPU memory (is there a GPU?)\n");
        return 1;
    }
    cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0, 0);
    s = gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, dA, n, dB, n, 0.0f, dC, n,
                        NULL); /* NULL options: every default */
    cudaEventRecord(e1, 0);
    if (s != GEMM_OK) {
        fprintf(stderr, "%s: %s\n", gemm_strerror(s), gemm_last_error_detail());
        return 1;
    }
    cudaEventSynchronize(e1); /* kernel faults, if any, show up here */
    cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost);

    /* 2. Host pointers: one call copies in, multiplies, copies out. */
    opt.mode = GEMM_CUDA_PINNED;
    opt.timing = &t; /* seconds */
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A, n, B, n, 0.0f, R, n, &opt);
    if (s != GEMM_OK) {
        fprintf(stderr, "%s: %s\n", gemm_strerror(s), gemm_last_error_detail());
        return 1;
    }
    for (i = 0; i < n * n; i++) err = fmax(err, fabs((double)C[i] - (double)R[i]));

    /* 3. The reference for one row (the whole product would take a while on one core). */
    gemm_ref_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, n, n, 1.0f, A, n, B, n, 0.0f, R, n);
    for (i = 0; i < n; i++) err = fmax(err, fabs((double)C[i] - (double)R[i]));

    printf("n = %d: device pointers %.3f ms (%.1f TFLOP/s); host pointers (pinned) h2d %.2f + kernel %.2f + d2h "
           "%.2f ms; max difference %.2g\n",
           n, ms, 2.0 * n * n * (double)n / (ms * 1e-3) * 1e-12, t.to_device_s * 1e3, t.compute_s * 1e3,
           t.from_device_s * 1e3, err);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(A); free(B); free(C); free(R);
    return err <= 1e-5 * n ? 0 : 1;
}
