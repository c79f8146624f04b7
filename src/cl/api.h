/* The public declarations of gemm_cl.h: the context, the per-call options,
   parameter sets, the calls on buffers and on host pointers, the batches and
   the tuner. The OpenCL headers come first, outside any extern "C". */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#if defined(__APPLE__)
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#include "../core/api.h" /* gemm_status, gemm_precision, gemm_layout, gemm_timing, GEMM_DEF */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemm_cl_context gemm_cl_context;

/* How gemm_cl_create finds (or adopts) a device. Zero (or NULL) means default everywhere. */
typedef struct gemm_cl_create_options {
    int platform, device;        /* indices, used when no name is given */
    const char *device_name;     /* substring of "platform name: device name" */
    cl_context context;          /* adopt these (both, or neither); retained, */
    cl_command_queue queue;      /* released on destroy; in-order, of that context */
    const char *tuning_file;     /* else $GEMM_CL_TUNING_FILE */
    const char *cache_dir;       /* else $GEMM_CL_CACHE_DIR; none: no disk cache */
    const char *build_options;   /* appended to clBuildProgram's options */
    int no_self_check;           /* 1: trust kernels without checking them */
} gemm_cl_create_options;

/* Per call; NULL or zero means default everywhere. */
typedef struct gemm_cl_options {
    cl_uint num_wait;            /* buffer calls: wait for these events first */
    const cl_event *wait;
    cl_event *event;             /* buffer calls: receives the last command's event (release it) */
    gemm_timing *timing;         /* host calls: setup_s, to_device_s, compute_s, from_device_s, total_s */
    int verify;                  /* 1 = check the product (every batch member's) with row and column
                                    checksums, GEMM_ERR_VERIFY when it fails them (a buffer call then blocks) */
} gemm_cl_options;

/* One parameter set of the kernel generator (see the doc block). */
typedef struct gemm_cl_params {
    int mwg, nwg, kwg;      /* work-group tile of C (MWG x NWG) and k-step */
    int mdimc, ndimc;       /* work-items per group along M and N */
    int vwm, vwn;           /* vector widths: 1, 2, 4, 8, 16 */
    int sa, sb;             /* 1: A / B tiles through local memory */
    int pack;               /* 0: k-major rows; 1: contiguous panel per tile */
    int direct;             /* m*n*k <= direct^3 runs the direct kernel */
    int db;                 /* 1: two local-memory tiles, one barrier per k-step */
    int warpm;              /* >0: 32 consecutive work-items are WARPM along M x 32/WARPM along N (GPUs) */
    int regs;               /* >0: registers per work-item the compiler may use (NVIDIA's
                               -cl-nv-maxrregcount; ignored elsewhere); 0 = the driver's choice */
    int small;              /* batch members' small-tile kernel (host side): 0 = by the member's size on GPUs,
                               1 = never, 32 or 64 = that tile for every call past the direct crossover */
} gemm_cl_params;

typedef struct gemm_cl_kernel_info {
    gemm_cl_params params;     /* the set in use for this precision */
    char origin[128];          /* "tuning file ...", "built-in: <key>", "default", "set by caller", "tuned", "safe default" */
    char fallback_reason[512]; /* why the chosen set was replaced; "" if it was not */
    char device_name[256];
} gemm_cl_kernel_info;

GEMM_DEF gemm_status gemm_cl_create(const gemm_cl_create_options *options, gemm_cl_context **out);
GEMM_DEF gemm_status gemm_cl_destroy(gemm_cl_context *ctx);

/* The context's OpenCL objects (not retained for the caller). */
GEMM_DEF gemm_status gemm_cl_handles(gemm_cl_context *ctx, cl_context *context, cl_command_queue *queue,
                                     cl_device_id *device);

/* Which kernel a precision (GEMM_F32, GEMM_F64) uses, and why; picks (and
   checks) it if no call has yet. */
GEMM_DEF gemm_status gemm_cl_kernel_info_get(gemm_cl_context *ctx, gemm_precision precision,
                                             gemm_cl_kernel_info *info);

/* Use this parameter set from now on: validated (GEMM_ERR_INVALID_ARG),
   built (GEMM_ERR_BUILD, with the build log as detail) and self-checked
   (GEMM_ERR_DEVICE on a wrong result); on failure the previous set stays. */
GEMM_DEF gemm_status gemm_cl_set_params(gemm_cl_context *ctx, gemm_precision precision,
                                        const gemm_cl_params *params);

/* Buffers: element offsets; asynchronous (options: wait list, event). */
GEMM_DEF gemm_status gemm_cl_sgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   float beta, cl_mem C, size_t offc, int64_t ldc, const gemm_cl_options *options);
GEMM_DEF gemm_status gemm_cl_dgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   double beta, cl_mem C, size_t offc, int64_t ldc, const gemm_cl_options *options);

/* Batches on buffers: batch_count products C_i = alpha*op(A_i)*op(B_i) +
   beta*C_i sharing every argument but where their matrices are, in one
   enqueue of each kernel (the member index is the NDRange's third
   dimension; more than 65,535 members, or packed operands over 256 MiB,
   take a few). Arguments as gemm_cl_sgemm's with each matrix's batch
   argument after its leading dimension, then the count, then the options
   (wait list, event: the batch's last command). Semantics as the CPU's
   batches (gemm_cpu.h): a count of 0 does nothing; every member is checked
   (inside its buffer, as the single call checks) before anything is
   enqueued, and a refusal names the member at fault and writes nothing; no
   two members may write one element of C. Each member is the single call's
   result, bit for bit where both take the same kernel (a batch may take
   the tiled kernel where its member alone would take the direct one; on
   GPUs, small members take the small kernel, whose sums are bitwise the
   direct kernel's, where a single call would take the tiled one).
   Strided: member i's A, B, C start at offa + i*stride_a, offb + i*stride_b,
   offc + i*stride_c elements of A, B, C (like CLBlast's GemmStridedBatched);
   a stride of 0 shares A or B among all members. */
GEMM_DEF gemm_status gemm_cl_sgemm_strided_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                                   cl_mem A, size_t offa, int64_t lda, int64_t stride_a,
                                                   cl_mem B, size_t offb, int64_t ldb, int64_t stride_b, float beta,
                                                   cl_mem C, size_t offc, int64_t ldc, int64_t stride_c,
                                                   int64_t batch_count, const gemm_cl_options *options);
GEMM_DEF gemm_status gemm_cl_dgemm_strided_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                                   cl_mem A, size_t offa, int64_t lda, int64_t stride_a,
                                                   cl_mem B, size_t offb, int64_t ldb, int64_t stride_b, double beta,
                                                   cl_mem C, size_t offc, int64_t ldc, int64_t stride_c,
                                                   int64_t batch_count, const gemm_cl_options *options);
/* Offset arrays: member i's A, B, C start at element offa[i], offb[i],
   offc[i] of the one buffer A, B, C (host arrays of batch_count offsets,
   read during the call). CLBlast's GemmBatched also takes an alpha and a
   beta per member; these take one of each, as the CPU and CUDA batches. */
GEMM_DEF gemm_status gemm_cl_sgemm_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                           cl_mem A, const size_t offa[], int64_t lda, cl_mem B, const size_t offb[],
                                           int64_t ldb, float beta, cl_mem C, const size_t offc[], int64_t ldc,
                                           int64_t batch_count, const gemm_cl_options *options);
GEMM_DEF gemm_status gemm_cl_dgemm_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                           cl_mem A, const size_t offa[], int64_t lda, cl_mem B, const size_t offb[],
                                           int64_t ldb, double beta, cl_mem C, const size_t offc[], int64_t ldc,
                                           int64_t batch_count, const gemm_cl_options *options);

/* Host pointers: copies in, multiplies, copies back, blocks (options: timing). */
GEMM_DEF gemm_status gemm_cl_sgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                        const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                        float *C, int64_t ldc, const gemm_cl_options *options);
GEMM_DEF gemm_status gemm_cl_dgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                        const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                        double *C, int64_t ldc, const gemm_cl_options *options);

/* Complex on buffers: gemm_cl_sgemm's arguments with interleaved complex
   A, B, C (float or double pairs; offsets and leading dimensions in
   complex elements), alpha and beta by pointer to one complex value in
   host memory (read during the call), op() in {GEMM_NO_TRANS, GEMM_TRANS,
   GEMM_CONJ_TRANS}. Asynchronous on the context's queue (options: wait
   list, event: the call's last command). op(A) is expanded with alpha on
   the device into a real matrix twice its size (a transposed B is copied
   untransposed; with a complex beta, beta*C into a copy the product adds
   to, which goes back into C last), then one real product of 2m x n x 2k,
   the complex flop count; those buffers (4mk, 2kn, 2mn reals) are made
   per call and freed when its commands are done. beta == 0 never reads C.
   Checks as the real buffer calls'; a NULL alpha or beta is refused. */
GEMM_DEF gemm_status gemm_cl_cgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   const void *beta, cl_mem C, size_t offc, int64_t ldc,
                                   const gemm_cl_options *options);
GEMM_DEF gemm_status gemm_cl_zgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   const void *beta, cl_mem C, size_t offc, int64_t ldc,
                                   const gemm_cl_options *options);

/* Complex, host pointers: interleaved complex A, B, C (float or double
   pairs), alpha and beta by pointer, op() in {GEMM_NO_TRANS, GEMM_TRANS,
   GEMM_CONJ_TRANS}. op(A) is expanded on the host with alpha into a real
   matrix twice its size (a transposed B copied; with a complex beta, C
   too), then the real kernels run one product of 2m x n x 2k, the complex
   flop count; blocks as the real host calls. */
GEMM_DEF gemm_status gemm_cl_cgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                        const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                        void *C, int64_t ldc, const gemm_cl_options *options);
GEMM_DEF gemm_status gemm_cl_zgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                        const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                        void *C, int64_t ldc, const gemm_cl_options *options);

/* ---- the autotuner ---- */

typedef struct gemm_cl_tune_options {
    double budget_s;           /* wall-clock budget; 0 = 120 s. No candidate of stage 1 starts after
                                  half of it, none of stage 2 after 80%; the refinement stops past it */
    int coarse_sizes[2];       /* the coarse pass's two sizes; 0 = by device type */
    int refine_sizes[4];       /* the refinement's sizes (0 ends the list); 0 = by device type */
    int refine_top;            /* candidates refined; 0 = 4 */
    int max_candidates;        /* cap on the coarse pass; 0 = no cap but the budget */
    int tiny;                  /* 1: a handful of candidates at small sizes (tests) */
    const char *output;        /* tuning file to update; NULL = none written */
    /* called after each candidate: done of total in its phase, and `line`,
       "PHASE: G GFLOP/s SET" or "PHASE: skip SET: why". The phases, in order:
       "stage 1" (every structure of the space at the coarse sizes), "stage 2"
       (one knob at a time around the best), both scored by the mean GFLOP/s
       of the two coarse sizes; "refine" (the best refine_top over the refine
       sizes; its best mean is best_gflops). It runs with the context locked:
       it must not call gemm_cl on this context. */
    void (*progress)(void *user, int done, int total, const char *line);
    void *user;
} gemm_cl_tune_options;

typedef struct gemm_cl_tune_result {
    gemm_cl_params best;
    double best_gflops;        /* the winner's mean GFLOP/s over the refine sizes */
    int tried, built, failed;  /* candidates measured, built and checked, skipped */
    char line[512];            /* the tuning-file line written */
} gemm_cl_tune_result;

/* Searches, checks every candidate, and makes the winner this context's set. */
GEMM_DEF gemm_status gemm_cl_tune(gemm_cl_context *ctx, gemm_precision precision,
                                  const gemm_cl_tune_options *options, gemm_cl_tune_result *result);

/* The text form of a parameter set, as in tuning files ("MWG=64 NWG=64 ..."). */
GEMM_DEF gemm_status gemm_cl_params_str(const gemm_cl_params *params, char *out, size_t size);

#ifdef GEMM__TEST_HOOKS
/* Tests: the number of programs ctx holds; *first_in_use says whether the
   first of them is the one `precision` uses. */
GEMM_DEF int gemm__cl_program_count(gemm_cl_context *ctx, gemm_precision precision, int *first_in_use);
#endif

#ifdef __cplusplus
}
#endif
