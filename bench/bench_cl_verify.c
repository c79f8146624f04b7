/* bench/bench_cl_verify.c - what gemm_cl_options.verify costs on OpenCL
   (PoCL in CI): the same cl_mem call with and without verification, in one
   process, on the first OpenCL device (GEMM_CL_DEVICE picks another).

   build/bench_cl_verify [--n 2048,4096] [--rounds R]

   Protocol (docs/DESIGN.md, "Measuring"): random inputs in [-0.5, 0.5) in
   device buffers, column-major NN, alpha = 1, beta = 0, fp32 and fp64
   (where the device has it); a warm-up of both columns, then R rounds
   (default 5) of the two interleaved, each call timed to its completion
   (clFinish); each column's median. Every verified call must return
   GEMM_OK. */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm_cl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double timed(gemm_cl_context *cl, cl_command_queue q, gemm_precision prec, int n, cl_mem A, cl_mem B, cl_mem C,
                    int verify, gemm_status *s)
{
    gemm_cl_options o;
    double t = now();
    memset(&o, 0, sizeof o);
    o.verify = verify;
    *s = prec == GEMM_F32 ? gemm_cl_sgemm(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A, 0, n, B, 0,
                                          n, 0.0f, C, 0, n, &o)
                          : gemm_cl_dgemm(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, A, 0, n, B, 0,
                                          n, 0.0, C, 0, n, &o);
    clFinish(q);
    return now() - t;
}

int main(int argc, char **argv)
{
    int ns[8] = {2048, 4096}, nn = 2, rounds = 5, i, a, d, r;
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    cl_context context = NULL;
    cl_command_queue q = NULL;
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--n") == 0) {
            char *p = argv[i + 1];
            nn = 0;
            while (*p && nn < 8) {
                ns[nn++] = atoi(p);
                while (*p && *p != ',') p++;
                if (*p == ',') p++;
            }
        } else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
        else return fprintf(stderr, "usage: %s [--n 2048,4096] [--rounds R]\n", argv[0]), 2;
    }
    if (rounds < 1 || rounds > 99) return fprintf(stderr, "bench_cl_verify: 1 to 99 rounds\n"), 2;
    if (gemm_cl_create(NULL, &cl) != GEMM_OK)
        return fprintf(stderr, "bench_cl_verify: %s\n", gemm_last_error_detail()), 1;
    gemm_cl_handles(cl, &context, &q, NULL);
    gemm_cl_kernel_info_get(cl, GEMM_F32, &info);
    printf("# %s\n", info.device_name);
    printf("%-5s %6s %12s %12s %8s\n", "prec", "n", "plain (s)", "verified (s)", "cost");
    for (d = 0; d < 2; d++)
        for (a = 0; a < nn; a++) {
            gemm_precision prec = d ? GEMM_F64 : GEMM_F32;
            size_t es = gemm_precision_size(prec), count = (size_t)ns[a] * (size_t)ns[a], e;
            char *h = (char *)malloc(es * count);
            unsigned long long st = 12345;
            double tp[99], tv[99];
            cl_mem A, B, C;
            cl_int err;
            gemm_status s1, s2;
            if (d && gemm_cl_kernel_info_get(cl, GEMM_F64, &info) != GEMM_OK) break; /* no fp64 */
            if (!h) return fprintf(stderr, "bench_cl_verify: out of memory\n"), 1;
            for (e = 0; e < count; e++) {
                double x;
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                x = (double)(st >> 11) / 9007199254740992.0 - 0.5;
                if (d) ((double *)h)[e] = x;
                else ((float *)h)[e] = (float)x;
            }
            A = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, es * count, h, &err);
            B = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, es * count, h, &err);
            C = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, es * count, h, &err);
            timed(cl, q, prec, ns[a], A, B, C, 0, &s1);
            timed(cl, q, prec, ns[a], A, B, C, 1, &s2);
            for (r = 0; r < rounds; r++) {
                tp[r] = timed(cl, q, prec, ns[a], A, B, C, 0, &s1);
                tv[r] = timed(cl, q, prec, ns[a], A, B, C, 1, &s2);
                if (s1 != GEMM_OK || s2 != GEMM_OK)
                    return fprintf(stderr, "bench_cl_verify: %s (%s)\n", gemm_strerror(s1 != GEMM_OK ? s1 : s2),
                                   gemm_last_error_detail()), 1;
            }
            qsort(tp, (size_t)rounds, sizeof(double), cmp);
            qsort(tv, (size_t)rounds, sizeof(double), cmp);
            printf("%-5s %6d %12.4f %12.4f %7.1f%%\n", gemm_precision_name(prec), ns[a], tp[rounds / 2],
                   tv[rounds / 2], 100.0 * (tv[rounds / 2] / tp[rounds / 2] - 1.0));
            fflush(stdout);
            clReleaseMemObject(A);
            clReleaseMemObject(B);
            clReleaseMemObject(C);
            free(h);
        }
    gemm_cl_destroy(cl);
    return 0;
}
