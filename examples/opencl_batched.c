/* examples/opencl_batched.c - many small products in one call on an OpenCL
   device (the first one, or GEMM_CL_DEVICE=...): `count` products of n x n
   matrices with one shared B, as a strided batch and as a batch of offsets
   (members in reverse order: block j of C is still block j of A times B),
   each timed and checked against the reference on the first and the last
   block.
   `make example-cl-batch`; build: cc -std=c99 x.c -lOpenCL -lm -lpthread; run: ./a.out [n] [count] */
#define GEMM_IMPLEMENTATION
#include "../gemm_cl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Member i of C (read back from the device) against the reference. */
static double member_error(cl_command_queue q, cl_mem Cm, const float *A, const float *B, int n, int i)
{
    size_t nn = (size_t)n * n, j;
    float *got = (float *)malloc(sizeof(float) * nn), *want = (float *)calloc(nn, sizeof(float));
    double err = -1;
    if (got && want && clEnqueueReadBuffer(q, Cm, CL_TRUE, sizeof(float) * nn * (size_t)i, sizeof(float) * nn, got, 0,
                                           NULL, NULL) == CL_SUCCESS) {
        gemm_ref_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A + nn * (size_t)i, n, B, n, 0.0f,
                       want, n);
        for (err = 0, j = 0; j < nn; j++) err = fmax(err, fabs((double)got[j] - want[j]));
    }
    free(got);
    free(want);
    return err;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16, count = argc > 2 ? atoi(argv[2]) : 10000, i, form;
    size_t nn = (size_t)(n > 0 ? n : 1) * (size_t)(n > 0 ? n : 1);
    float *A = (float *)malloc(sizeof(float) * nn * (size_t)(count > 0 ? count : 1)), *B = (float *)malloc(sizeof(float) * nn);
    size_t *offa = (size_t *)malloc(sizeof(size_t) * (size_t)(count > 0 ? count : 1));
    size_t *offb = (size_t *)calloc((size_t)(count > 0 ? count : 1), sizeof(size_t)); /* all 0: one B */
    size_t *offc = (size_t *)malloc(sizeof(size_t) * (size_t)(count > 0 ? count : 1));
    gemm_cl_context *cl;
    cl_context context = NULL;
    cl_command_queue q = NULL;
    cl_mem Am, Bm, Cm;
    cl_int e1, e2, e3;
    gemm_status s;
    if (n <= 0 || count <= 0 || !A || !B || !offa || !offb || !offc) return 1;
    for (i = 0; i < (int)nn; i++) B[i] = (float)rand() / RAND_MAX - 0.5f;
    for (i = 0; i < (int)nn * count; i++) A[i] = (float)rand() / RAND_MAX - 0.5f;
    if ((s = gemm_cl_create(NULL, &cl)) != GEMM_OK) {
        printf("%s\n", gemm_last_error_detail());
        return 1;
    }
    gemm_cl_handles(cl, &context, &q, NULL);
    Am = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * nn * count, A, &e1);
    Bm = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * nn, B, &e2);
    Cm = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(float) * nn * count, NULL, &e3);
    if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS) return 1;
    for (i = 0; i < count; i++) offa[i] = nn * (size_t)(count - 1 - i), offc[i] = nn * (size_t)(count - 1 - i);
    for (form = 0; form < 2 && s == GEMM_OK; form++) {
        double t0 = 0, t = 0, err;
        int rep;
        for (rep = 0; rep < 3 && s == GEMM_OK; rep++) { /* the first compiles the kernels */
            t0 = gemm__cl_now();
            if (form == 0) /* member i at i*n*n elements of A and C; stride_b = 0: one B for all */
                s = gemm_cl_sgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, Am,
                                                  0, n, (int64_t)nn, Bm, 0, n, 0, 0.0f, Cm, 0, n, (int64_t)nn, count,
                                                  NULL);
            else /* member i at the offsets offa[i], offb[i], offc[i] of the three buffers */
                s = gemm_cl_sgemm_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, Am, offa, n,
                                          Bm, offb, n, 0.0f, Cm, offc, n, count, NULL);
            if (s == GEMM_OK && clFinish(q) != CL_SUCCESS) s = GEMM_ERR_DEVICE;
            t = gemm__cl_now() - t0;
        }
        if (s != GEMM_OK) break;
        err = fmax(member_error(q, Cm, A, B, n, 0), member_error(q, Cm, A, B, n, count - 1));
        printf("%s: %d products of %d^3 in %.2f ms, %.1f GFLOP/s, max error %.2g\n",
               form ? "offset arrays" : "strided      ", count, n, t * 1e3, 2.0 * n * n * n * count / t * 1e-9, err);
        if (!(err >= 0 && err < 1e-4 * n)) s = GEMM_ERR_DEVICE;
    }
    if (s != GEMM_OK) printf("%s (%s)\n", gemm_strerror(s), gemm_last_error_detail());
    clReleaseMemObject(Am);
    clReleaseMemObject(Bm);
    clReleaseMemObject(Cm);
    gemm_cl_destroy(cl);
    free(A); free(B); free(offa); free(offb); free(offc);
    return s != GEMM_OK;
}
