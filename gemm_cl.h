/* >>cl whole_cl: src/cl/whole_cl.h */
/* gemm_cl.h - the OpenCL backend of gemm: generated, autotuned GEMM kernels
   for any OpenCL 1.2+ device (GPUs, and CPUs through PoCL).

       C <- alpha * op(A) * op(B) + beta * C

   Do this:
       #define GEMM_IMPLEMENTATION
   in *one* C or C++ file before including "gemm_cl.h" (or "gemm.h" with
   GEMM_ENABLE_OPENCL), and link with -lOpenCL. Copy gemm.h, gemm_cpu.h and
   this file. The OpenCL headers (CL/cl.h) must be installed.

       gemm_cl_context *cl;
       gemm_status s = gemm_cl_create(NULL, &cl);     // first device, or $GEMM_CL_DEVICE
       s = gemm_cl_sgemm_host(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS,
                              m, n, k, 1.0f, A, k, B, n, 0.0f, C, n, NULL);
       gemm_cl_destroy(cl);

   How it works (after Matsumoto, Nakasato & Sedukhin, seed paper 002)
       One kernel template, embedded below as string literals, is specialised
       by a parameter set (gemm_cl_params) prepended as #defines: the
       work-group tile MWG x NWG x KWG, the work-items MDIMC x NDIMC (so each
       computes an MWI x NWI block in registers), vector widths VWM/VWN,
       whether A and B go through local memory (SA/SB; the next tile is fetched
       into registers while this one is multiplied, and DB keeps two tiles so
       one barrier per step suffices), and the layout of the packed operands
       (PACK: k-major rows, or one contiguous panel per tile).
       The tiled kernel reads only packed, zero-padded operands; a pack kernel
       copies op(A) and op(B) into that form from any layout, transpose, leading
       dimension and offset, so the eight cases run on one tuned kernel. A
       column-major C is the row-major problem C^T = op(B)^T op(A)^T: strides
       again. Small problems (m*n*k <= params.direct^3) skip the copies and run a
       direct kernel instead; the crossover is measured by the tuner.

   Parameters, tuning and self-check
       For each precision the first call picks a parameter set: the tuning file
       ($GEMM_CL_TUNING_FILE or options.tuning_file) if it has a line for this
       device, else the built-in table (PoCL on x86-64 CPUs, NVIDIA H100/H200),
       else a generic default. The chosen kernel is built once per context
       (and stored in $GEMM_CL_CACHE_DIR, if set, so the next process starts
       without compiling), then checked against the reference on a small
       problem. A set that fails to build or to check is replaced by the safe
       default kernel; gemm_cl_kernel_info_get() (and, for that call,
       gemm_last_error_detail()) says why. gemm_cl_tune() (and
       `make tune-cl`) searches the parameter space on the device and writes the
       tuning file: one line per (device, precision), plain text.

   Choosing the device
       options.device_name (a substring of "platform: device"), else the
       GEMM_CL_DEVICE environment variable (a substring, or "P:D" indices),
       else options.platform / options.device indices (0 = first). Or hand
       over your own cl_context + cl_command_queue (in-order) in the options.

   Calls
       gemm_cl_sgemm / gemm_cl_dgemm work on cl_mem buffers with element
       offsets, enqueue asynchronously on the context's queue after an optional
       wait list, and return the last kernel's event if asked. The _host
       variants take host pointers, block, and can fill a gemm_cl_timing.
       fp64 needs cl_khr_fp64 (GEMM_ERR_UNAVAILABLE otherwise). Semantics,
       checks and errors are gemm.h's; every OpenCL error becomes a status
       with the call and the error's name in gemm_last_error_detail().
       A context may be used by several threads at once (calls serialise).
       The first call's build and self-check, and the tuner, run on a private
       queue of the same context: they never wait for commands on yours.

   LICENSE: MIT, see the end of gemm.h.
*/

#ifndef GEMM_CL_H_INCLUDED
#define GEMM_CL_H_INCLUDED

#include "gemm.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#if defined(__APPLE__)
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemm_cl_context gemm_cl_context;

typedef enum gemm_cl_precision { GEMM_CL_F32 = 0, GEMM_CL_F64 = 1 } gemm_cl_precision;

/* Zero (or NULL) means default everywhere. */
typedef struct gemm_cl_options {
    int platform, device;        /* indices, used when no name is given */
    const char *device_name;     /* substring of "platform name: device name" */
    cl_context context;          /* adopt these (both, or neither); retained, */
    cl_command_queue queue;      /* released on destroy; in-order, of that context */
    const char *tuning_file;     /* else $GEMM_CL_TUNING_FILE */
    const char *cache_dir;       /* else $GEMM_CL_CACHE_DIR; none: no disk cache */
    const char *build_options;   /* appended to clBuildProgram's options */
    int no_self_check;           /* 1: trust kernels without checking them */
    int test_break_kernel;       /* tests only: 1 makes the tuned kernel wrong */
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
} gemm_cl_params;

typedef struct gemm_cl_kernel_info {
    gemm_cl_params params;     /* the set in use for this precision */
    char origin[128];          /* "tuning file ...", "built-in: <key>", "default", "set by caller", "tuned", "safe default" */
    char fallback_reason[512]; /* why the chosen set was replaced; "" if it was not */
    char device_name[256];
} gemm_cl_kernel_info;

typedef struct gemm_cl_timing {
    double write_s, kernels_s, read_s, total_s; /* host-pointer calls, wall clock */
} gemm_cl_timing;

GEMM_DEF gemm_status gemm_cl_create(const gemm_cl_options *options, gemm_cl_context **out);
GEMM_DEF gemm_status gemm_cl_destroy(gemm_cl_context *ctx);

/* The context's OpenCL objects (not retained for the caller). */
GEMM_DEF gemm_status gemm_cl_handles(gemm_cl_context *ctx, cl_context *context, cl_command_queue *queue,
                                     cl_device_id *device);

/* Which kernel a precision uses, and why; picks (and checks) it if no call has yet. */
GEMM_DEF gemm_status gemm_cl_kernel_info_get(gemm_cl_context *ctx, gemm_cl_precision prec, gemm_cl_kernel_info *info);

/* Use this parameter set from now on: validated (GEMM_ERR_INVALID_ARG),
   built (GEMM_ERR_BUILD, with the build log as detail) and self-checked
   (GEMM_ERR_DEVICE on a wrong result); on failure the previous set stays. */
GEMM_DEF gemm_status gemm_cl_set_params(gemm_cl_context *ctx, gemm_cl_precision prec, const gemm_cl_params *params);

/* Buffers: element offsets; asynchronous; `event` (may be NULL) gets the last command's event. */
GEMM_DEF gemm_status gemm_cl_sgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   float beta, cl_mem C, size_t offc, int64_t ldc,
                                   cl_uint num_wait, const cl_event *wait, cl_event *event);
GEMM_DEF gemm_status gemm_cl_dgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   double beta, cl_mem C, size_t offc, int64_t ldc,
                                   cl_uint num_wait, const cl_event *wait, cl_event *event);

/* Host pointers: copies in, multiplies, copies back, blocks. `timing` may be NULL. */
GEMM_DEF gemm_status gemm_cl_sgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                        const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                        float *C, int64_t ldc, gemm_cl_timing *timing);
GEMM_DEF gemm_status gemm_cl_dgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                        const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                        double *C, int64_t ldc, gemm_cl_timing *timing);

/* ---- the autotuner ---- */

typedef struct gemm_cl_tune_options {
    double budget_s;           /* wall-clock budget; 0 = 120 s */
    int coarse_sizes[2];       /* the coarse pass's two sizes; 0 = by device type */
    int refine_sizes[4];       /* the refinement's sizes (0 ends the list); 0 = by device type */
    int refine_top;            /* candidates refined; 0 = 4 */
    int max_candidates;        /* cap on the coarse pass; 0 = no cap but the budget */
    int tiny;                  /* 1: a handful of candidates at small sizes (tests) */
    const char *output;        /* tuning file to update; NULL = none written */
    /* called after each candidate; `line` says what happened to it. It runs
       with the context locked: it must not call gemm_cl on this context. */
    void (*progress)(void *user, int done, int total, const char *line);
    void *user;
} gemm_cl_tune_options;

typedef struct gemm_cl_tune_result {
    gemm_cl_params best;
    double best_gflops;        /* mean over the refine sizes */
    int tried, built, failed;  /* candidates measured, built and checked, skipped */
    char line[512];            /* the tuning-file line written */
} gemm_cl_tune_result;

/* Searches, checks every candidate, and makes the winner this context's set. */
GEMM_DEF gemm_status gemm_cl_tune(gemm_cl_context *ctx, gemm_cl_precision prec, const gemm_cl_tune_options *options,
                                  gemm_cl_tune_result *result);

/* The text form of a parameter set, as in tuning files ("MWG=64 NWG=64 ..."). */
GEMM_DEF gemm_status gemm_cl_params_str(const gemm_cl_params *params, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#define GEMM__CL_API_DONE
#endif /* GEMM_CL_H_INCLUDED */

/* ====================================================================== */
/*  IMPLEMENTATION                                                         */
/* ====================================================================== */

#if defined(GEMM_IMPLEMENTATION) && defined(GEMM__CL_API_DONE) && !defined(GEMM__CL_IMPLEMENTED)
#define GEMM__CL_IMPLEMENTED

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#include <process.h>
#else
#include <pthread.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the kernel template: one source in four literals, each under C99's
   4095 characters (and MSVC's limits); the host prepends the #defines ---- */

static const char *const gemm__cl_source[] = {
    "/* gemm_cl kernels. The host prepends the parameter set as #defines; each\n"
    "   #ifndef below is the value used when the host leaves one out. */\n"
    "#ifndef PRECISION\n"
    "#define PRECISION 32 /* 32 or 64 */\n"
    "#endif\n"
    "#ifndef MWG\n"
    "#define MWG 8 /* rows of C per work-group */\n"
    "#endif\n"
    "#ifndef NWG\n"
    "#define NWG 8 /* columns of C per work-group */\n"
    "#endif\n"
    "#ifndef KWG\n"
    "#define KWG 1 /* k-depth of one step (of one local-memory tile) */\n"
    "#endif\n"
    "#ifndef MDIMC\n"
    "#define MDIMC 8 /* work-items along M */\n"
    "#endif\n"
    "#ifndef NDIMC\n"
    "#define NDIMC 8 /* work-items along N */\n"
    "#endif\n"
    "#ifndef VWM\n"
    "#define VWM 1 /* vector width of loads along M */\n"
    "#endif\n"
    "#ifndef VWN\n"
    "#define VWN 1 /* vector width of loads and stores along N */\n"
    "#endif\n"
    "#ifndef SA\n"
    "#define SA 0 /* 1: stage the A tile in local memory */\n"
    "#endif\n"
    "#ifndef SB\n"
    "#define SB 0 /* 1: stage the B tile in local memory */\n"
    "#endif\n"
    "#ifndef DB\n"
    "#define DB 0 /* 1: two local-memory tiles, so one barrier per k-step */\n"
    "#endif\n"
    "#ifndef PACK\n"
    "#define PACK 0 /* packed operands: 0 = k-major rows, 1 = one contiguous panel per tile */\n"
    "#endif\n"
    "#define MWI (MWG / MDIMC) /* rows of C per work-item */\n"
    "#define NWI (NWG / NDIMC) /* columns of C per work-item */\n"
    "/* vectors of the A and B tiles each work-item moves to local memory */\n"
    "#define LA ((KWG * MWG / VWM + MDIMC * NDIMC - 1) / (MDIMC * NDIMC))\n"
    "#define LB ((KWG * NWG / VWN + MDIMC * NDIMC - 1) / (MDIMC * NDIMC))\n"
    "\n"
    "#if PRECISION == 64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#ifndef GEMM_CL_REAL\n"
    "#define GEMM_CL_REAL double\n"
    "#endif\n"
    "#else\n"
    "#ifndef GEMM_CL_REAL\n"
    "#define GEMM_CL_REAL float\n"
    "#endif\n"
    "#endif\n"
    "typedef GEMM_CL_REAL real;\n"
    "\n"
    "#define GLUE_(a, b) a##b\n"
    "#define GLUE(a, b) GLUE_(a, b)\n"
    "/* Element e of a vector, for e known after unrolling. */\n"
    "#define ELEM(v, e) (((real *)&(v))[e])\n"
    "#if VWM == 1\n"
    "typedef real realM;\n"
    "#define LOADM(p) (*(p))\n"
    "#define STOREM(x, p) (*(p) = (x))\n"
    "#else\n"
    "typedef GLUE(GEMM_CL_REAL, VWM) realM;\n"
    "#define LOADM(p) GLUE(vload, VWM)(0, p)\n"
    "#define STOREM(x, p) GLUE(vstore, VWM)(x, 0, p)\n"
    "#endif\n"
    "#if VWN == 1\n"
    "typedef real realN;\n"
    "#define LOADN(p) (*(p))\n"
    "#define STOREN(x, p) (*(p) = (x))\n"
    "#else\n"
    "typedef GLUE(GEMM_CL_REAL, VWN) realN;\n"
    "#define LOADN(p) GLUE(vload, VWN)(0, p)\n"
    "#define STOREN(x, p) GLUE(vstore, VWN)(x, 0, p)\n"
    "#endif\n"
    ,
    "\n"
    "/* Copies op(X), R x K with element (r, p) at X[offx + r*rs + p*ps], into\n"
    "   the packed, zero-padded Rp x Kp form the tiled kernel reads: element\n"
    "   (r, p) at P[p*Rp + r] (PACK 0) or, panel by panel of `tile` rows,\n"
    "   P[(r/tile)*Kp*tile + p*tile + r%tile] (PACK 1). One kernel serves A and B,\n"
    "   every layout and transpose: they are only strides. */\n"
    "__kernel void gemm_cl_pack(const int R, const int K, const int Rp, const int Kp, const int tile,\n"
    "                           const __global real *X, const long offx, const long rs, const long ps,\n"
    "                           __global real *P)\n"
    "{\n"
    "    const int r = (int)get_global_id(0), p = (int)get_global_id(1);\n"
    "    if (r >= Rp || p >= Kp) return;\n"
    "    const real v = r < R && p < K ? X[offx + r * rs + p * ps] : (real)0;\n"
    "#if PACK\n"
    "    P[(long)(r / tile) * Kp * tile + (long)p * tile + r % tile] = v;\n"
    "#else\n"
    "    P[(long)p * Rp + r] = v;\n"
    "#endif\n"
    "}\n"
    "\n"
    "/* Writes alpha*ab + beta*c into C; beta == 0 never reads C. */\n"
    "#define GEMM_CL_STORE1(ab, cp) (*(cp) = beta != (real)0 ? alpha * (ab) + beta * *(cp) : alpha * (ab))\n"
    "\n"
    "/* Small problems: one work-item per element of C, reading A and B where they\n"
    "   are, no copies. Row-major C (the host transposes a column-major problem).\n"
    "   K == 0 with alpha == 0 is how the host scales C by beta. */\n"
    "__kernel void gemm_cl_direct(const int M, const int N, const int K, const real alpha, const real beta,\n"
    "                             const __global real *A, const long offa, const long ars, const long acs,\n"
    "                             const __global real *B, const long offb, const long brs, const long bcs,\n"
    "                             __global real *C, const long offc, const long ldc)\n"
    "{\n"
    "    const int j = (int)get_global_id(0), i = (int)get_global_id(1);\n"
    "    if (i >= M || j >= N) return;\n"
    "    const __global real *a = A + offa + i * ars, *b = B + offb + j * bcs;\n"
    "    real sum = (real)0;\n"
    "    for (int p = 0; p < K; p++) sum = fma(a[p * acs], b[p * brs], sum);\n"
    "    GEMM_CL_STORE1(sum, C + offc + i * ldc + j);\n"
    "}\n"
    ,
    "\n"
    "/* The tuned kernel: C = alpha * A B + beta * C for packed A (Mp x Kp) and B\n"
    "   (Np x Kp), row-major C. A work-group computes an MWG x NWG tile with\n"
    "   MDIMC x NDIMC work-items; each holds an MWI x NWI block of sums in\n"
    "   registers. A work-item's rows are VWM-vectors spaced MDIMC*VWM apart (and\n"
    "   its columns VWN-vectors spaced NDIMC*VWN apart), so neighbouring work-items\n"
    "   touch neighbouring vectors: coalesced on GPUs, conflict-free in local\n"
    "   memory, and plain contiguous rows when MDIMC = NDIMC = 1 (CPUs). */\n"
    "__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))\n"
    "void gemm_cl_tiled(const int M, const int N, const int Kp, const int Mp, const int Np,\n"
    "                   const real alpha, const real beta,\n"
    "                   const __global real *restrict Ap, const __global real *restrict Bp,\n"
    "                   __global real *C, const long offc, const long ldc)\n"
    "{\n"
    "    const int tn = (int)get_local_id(0), tm = (int)get_local_id(1);\n"
    "    const int gn = (int)get_group_id(0), gm = (int)get_group_id(1);\n"
    "#if PACK\n"
    "    const __global real *a = Ap + (long)gm * Kp * MWG, *b = Bp + (long)gn * Kp * NWG;\n"
    "    const int as = MWG, bs = NWG;\n"
    "#else\n"
    "    const __global real *a = Ap + gm * MWG, *b = Bp + gn * NWG;\n"
    "    const long as = Mp, bs = Np; /* KWG * Mp can pass 2^31 */\n"
    "#endif\n"
    "#if SA || SB\n"
    "    const int tid = tm * NDIMC + tn;\n"
    "#endif\n"
    "#if SA\n"
    "    __local real alm[(1 + DB) * KWG * MWG];\n"
    "    realM ra[LA]; /* the next A tile, fetched while this one is multiplied */\n"
    "#define FETCH_A(src) for (int l = 0; l < LA; l++) { const int x = tid + l * MDIMC * NDIMC; \\\n"
    "        if (x < KWG * MWG / VWM) ra[l] = LOADM((src) + x / (MWG / VWM) * as + x % (MWG / VWM) * VWM); }\n"
    "    FETCH_A(a);\n"
    "#endif\n"
    "#if SB\n"
    "    __local real blm[(1 + DB) * KWG * NWG];\n"
    "    realN rb[LB];\n"
    "#define FETCH_B(src) for (int l = 0; l < LB; l++) { const int x = tid + l * MDIMC * NDIMC; \\\n"
    "        if (x < KWG * NWG / VWN) rb[l] = LOADN((src) + x / (NWG / VWN) * bs + x % (NWG / VWN) * VWN); }\n"
    "    FETCH_B(b);\n"
    "#endif\n"
    "    realN acc[MWI][NWI / VWN];\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < MWI; i++)\n"
    "#pragma unroll\n"
    "        for (int v = 0; v < NWI / VWN; v++) acc[i][v] = (realN)0;\n"
    "#if SA || SB\n"
    "    int cur = 0; /* which of the DB tiles is current (not \"half\": a type in OpenCL C) */\n"
    "#endif\n"
    "\n"
    ,
    "    for (int k0 = 0; k0 < Kp; k0 += KWG) {\n"
    "#if (SA || SB) && !DB\n"
    "        barrier(CLK_LOCAL_MEM_FENCE); /* everyone is done reading the last tile */\n"
    "#endif\n"
    "#if SA\n"
    "#pragma unroll\n"
    "        for (int l = 0; l < LA; l++) {\n"
    "            const int x = tid + l * MDIMC * NDIMC;\n"
    "            if (x < KWG * MWG / VWM) STOREM(ra[l], alm + cur * KWG * MWG + x * VWM);\n"
    "        }\n"
    "#endif\n"
    "#if SB\n"
    "#pragma unroll\n"
    "        for (int l = 0; l < LB; l++) {\n"
    "            const int x = tid + l * MDIMC * NDIMC;\n"
    "            if (x < KWG * NWG / VWN) STOREN(rb[l], blm + cur * KWG * NWG + x * VWN);\n"
    "        }\n"
    "#endif\n"
    "#if SA || SB\n"
    "        /* The tile is complete. With DB the next stores go to the other one, and\n"
    "           nobody can reach them before everyone has passed this barrier, i.e. has\n"
    "           finished reading that tile one step ago: one barrier suffices. */\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        if (k0 + KWG < Kp) { /* global loads of the next tile overlap the arithmetic below */\n"
    "#if SA\n"
    "            FETCH_A(a + KWG * as);\n"
    "#endif\n"
    "#if SB\n"
    "            FETCH_B(b + KWG * bs);\n"
    "#endif\n"
    "        }\n"
    "#endif\n"
    "#pragma unroll\n"
    "        for (int kk = 0; kk < KWG; kk++) {\n"
    "#if SA\n"
    "            const __local real *ak = alm + cur * KWG * MWG + kk * MWG;\n"
    "#else\n"
    "            const __global real *ak = a + kk * as;\n"
    "#endif\n"
    "#if SB\n"
    "            const __local real *bk = blm + cur * KWG * NWG + kk * NWG;\n"
    "#else\n"
    "            const __global real *bk = b + kk * bs;\n"
    "#endif\n"
    "            realN bv[NWI / VWN];\n"
    "#pragma unroll\n"
    "            for (int v = 0; v < NWI / VWN; v++) bv[v] = LOADN(bk + (v * NDIMC + tn) * VWN);\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < MWI / VWM; u++) {\n"
    "                realM av = LOADM(ak + (u * MDIMC + tm) * VWM);\n"
    "#pragma unroll\n"
    "                for (int e = 0; e < VWM; e++)\n"
    "#pragma unroll\n"
    "                    for (int v = 0; v < NWI / VWN; v++)\n"
    "                        acc[u * VWM + e][v] = fma((realN)ELEM(av, e), bv[v], acc[u * VWM + e][v]);\n"
    "            }\n"
    "        }\n"
    "        a += KWG * as;\n"
    "        b += KWG * bs;\n"
    "#if (SA || SB) && DB\n"
    "        cur ^= 1;\n"
    "#endif\n"
    "    }\n"
    "\n"
    "#pragma unroll\n"
    "    for (int u = 0; u < MWI / VWM; u++)\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < VWM; e++) {\n"
    "            const int i = gm * MWG + (u * MDIMC + tm) * VWM + e;\n"
    "            if (i >= M) continue;\n"
    "            __global real *crow = C + offc + (long)i * ldc;\n"
    "#pragma unroll\n"
    "            for (int v = 0; v < NWI / VWN; v++) {\n"
    "                const int j = gn * NWG + (v * NDIMC + tn) * VWN;\n"
    "                realN r = acc[u * VWM + e][v];\n"
    "                if (j + VWN <= N) {\n"
    "                    if (beta != (real)0) STOREN(alpha * r + beta * LOADN(crow + j), crow + j);\n"
    "                    else STOREN(alpha * r, crow + j);\n"
    "                } else {\n"
    "                    for (int c = 0; c < VWN && j + c < N; c++) GEMM_CL_STORE1(ELEM(r, c), crow + j + c);\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "}\n"
};

/* ---- small portable pieces: a lock, a clock ---- */

#ifdef _WIN32
typedef CRITICAL_SECTION gemm__cl_lock;
static void gemm__cl_lock_init(gemm__cl_lock *l) { InitializeCriticalSection(l); }
static void gemm__cl_lock_free(gemm__cl_lock *l) { DeleteCriticalSection(l); }
static void gemm__cl_lock_take(gemm__cl_lock *l) { EnterCriticalSection(l); }
static void gemm__cl_lock_give(gemm__cl_lock *l) { LeaveCriticalSection(l); }
static long gemm__cl_pid(void) { return (long)_getpid(); }
static double gemm__cl_now(void)
{
    LARGE_INTEGER f, t;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart / (double)f.QuadPart;
}
#else
typedef pthread_mutex_t gemm__cl_lock;
static void gemm__cl_lock_init(gemm__cl_lock *l) { pthread_mutex_init(l, NULL); }
static void gemm__cl_lock_free(gemm__cl_lock *l) { pthread_mutex_destroy(l); }
static void gemm__cl_lock_take(gemm__cl_lock *l) { pthread_mutex_lock(l); }
static void gemm__cl_lock_give(gemm__cl_lock *l) { pthread_mutex_unlock(l); }
static long gemm__cl_pid(void) { return (long)getpid(); }
static double gemm__cl_now(void)
{
    struct timeval t;
    gettimeofday(&t, NULL);
    return (double)t.tv_sec + 1e-6 * (double)t.tv_usec;
}
#endif

/* ---- OpenCL errors -> gemm_status ---- */

static const char *gemm__cl_errname(cl_int e)
{
    switch (e) {
#define GEMM__CL_E(x) case x: return #x;
        GEMM__CL_E(CL_DEVICE_NOT_FOUND) GEMM__CL_E(CL_DEVICE_NOT_AVAILABLE) GEMM__CL_E(CL_COMPILER_NOT_AVAILABLE)
        GEMM__CL_E(CL_MEM_OBJECT_ALLOCATION_FAILURE) GEMM__CL_E(CL_OUT_OF_RESOURCES) GEMM__CL_E(CL_OUT_OF_HOST_MEMORY)
        GEMM__CL_E(CL_BUILD_PROGRAM_FAILURE) GEMM__CL_E(CL_INVALID_VALUE) GEMM__CL_E(CL_INVALID_DEVICE)
        GEMM__CL_E(CL_INVALID_CONTEXT) GEMM__CL_E(CL_INVALID_COMMAND_QUEUE) GEMM__CL_E(CL_INVALID_MEM_OBJECT)
        GEMM__CL_E(CL_INVALID_BINARY) GEMM__CL_E(CL_INVALID_BUILD_OPTIONS) GEMM__CL_E(CL_INVALID_PROGRAM)
        GEMM__CL_E(CL_INVALID_KERNEL_NAME) GEMM__CL_E(CL_INVALID_KERNEL_ARGS) GEMM__CL_E(CL_INVALID_WORK_DIMENSION)
        GEMM__CL_E(CL_INVALID_WORK_GROUP_SIZE) GEMM__CL_E(CL_INVALID_WORK_ITEM_SIZE) GEMM__CL_E(CL_INVALID_GLOBAL_OFFSET)
        GEMM__CL_E(CL_INVALID_EVENT_WAIT_LIST) GEMM__CL_E(CL_INVALID_EVENT) GEMM__CL_E(CL_INVALID_BUFFER_SIZE)
        GEMM__CL_E(CL_INVALID_GLOBAL_WORK_SIZE) GEMM__CL_E(CL_INVALID_PLATFORM) GEMM__CL_E(CL_INVALID_ARG_SIZE)
        GEMM__CL_E(CL_INVALID_ARG_VALUE) GEMM__CL_E(CL_INVALID_OPERATION) GEMM__CL_E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        GEMM__CL_E(CL_MISALIGNED_SUB_BUFFER_OFFSET) GEMM__CL_E(CL_INVALID_PROGRAM_EXECUTABLE)
#undef GEMM__CL_E
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}

/* Records an OpenCL failure of `what` and returns its status. */
static gemm_status gemm__cl_fail(cl_int e, const char *what)
{
    gemm_status s = GEMM_ERR_DEVICE;
    /* not CL_OUT_OF_RESOURCES: drivers report any device-side failure with it */
    if (e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_HOST_MEMORY || e == CL_INVALID_BUFFER_SIZE)
        s = GEMM_ERR_OUT_OF_MEMORY;
    else if (e == CL_BUILD_PROGRAM_FAILURE || e == CL_INVALID_BUILD_OPTIONS || e == CL_COMPILER_NOT_AVAILABLE)
        s = GEMM_ERR_BUILD;
    else if (e == CL_DEVICE_NOT_FOUND || e == CL_DEVICE_NOT_AVAILABLE || e == -1001)
        s = GEMM_ERR_UNAVAILABLE;
    return gemm__fail(s, "gemm_cl: %s failed: %s (%d)", what, gemm__cl_errname(e), (int)e);
}

#define GEMM__CL_TRY(call, what)                                            \
    do {                                                                    \
        cl_int gemm__cl_e = (call);                                         \
        if (gemm__cl_e != CL_SUCCESS) return gemm__cl_fail(gemm__cl_e, what); \
    } while (0)

/* ---- parameter sets ---- */

/* Fields of gemm_cl_params in tuning-file order, with their #define names. */
#define GEMM__CL_FIELDS(X)                                                   \
    X(mwg, "MWG") X(nwg, "NWG") X(kwg, "KWG") X(mdimc, "MDIMC") X(ndimc, "NDIMC") \
    X(vwm, "VWM") X(vwn, "VWN") X(sa, "SA") X(sb, "SB") X(pack, "PACK") X(direct, "DIRECT") X(db, "DB")

GEMM_DEF gemm_status gemm_cl_params_str(const gemm_cl_params *p, char *out, size_t size)
{
    size_t used = 0;
    gemm__clear_error();
    if (!p || !out || size == 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_params_str: NULL argument");
    out[0] = '\0';
#define GEMM__CL_PRINT(f, name)                                                                  \
    if (used < size) used += (size_t)snprintf(out + used, size - used, "%s%s=%d", used ? " " : "", name, p->f);
    GEMM__CL_FIELDS(GEMM__CL_PRINT)
#undef GEMM__CL_PRINT
    return used < size ? GEMM_OK : gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_params_str: buffer too small");
}

/* Reads "NAME=value" tokens; returns 1 when every field was present (DB,
   added later, may be missing: 0). */
static int gemm__cl_params_parse(const char *text, gemm_cl_params *p)
{
    int found = 0, all = 0;
    p->db = 0;
#define GEMM__CL_PARSE(f, name)                                              \
    {                                                                        \
        const char *at = text;                                               \
        size_t len = strlen(name);                                           \
        all++;                                                               \
        while ((at = strstr(at, name)) != NULL) {                            \
            if ((at == text || at[-1] == ' ') && at[len] == '=') {           \
                p->f = atoi(at + len + 1);                                   \
                found++;                                                     \
                break;                                                       \
            }                                                                \
            at += len;                                                       \
        }                                                                    \
    }
    GEMM__CL_FIELDS(GEMM__CL_PARSE)
#undef GEMM__CL_PARSE
    return found == all || (found == all - 1 && !strstr(text, " DB="));
}

/* Do a and b make the same program? DIRECT is not in the source (it is the
   host's crossover), so it is not part of a program's identity. */
static int gemm__cl_same_program(const gemm_cl_params *a, const gemm_cl_params *b)
{
#define GEMM__CL_EQ(f, name) if (a->f != b->f && strcmp(name, "DIRECT") != 0) return 0;
    GEMM__CL_FIELDS(GEMM__CL_EQ)
#undef GEMM__CL_EQ
    return 1;
}

/* One line per (device, precision): "f32 MWG=.. ... device=<substring of the device name>".
   Measured with `make tune-cl` on the devices named (bench/RESULTS.md). */
static const char *const gemm__cl_builtin[] = {
    /* PoCL's CPU device (pthread-<cpu>), tuned on a 2-core AVX-512 Xeon (then
       re-measured by hand at n = 512..2048: the machine was shared while the
       tuner ran and it picked PACK=0, 4-6x slower from n = 1024 on) */
    "f32 MWG=8 NWG=32 KWG=16 MDIMC=1 NDIMC=1 VWM=1 VWN=16 SA=0 SB=0 PACK=1 DIRECT=0 device=pthread-",
    "f64 MWG=12 NWG=16 KWG=8 MDIMC=1 NDIMC=1 VWM=1 VWN=8 SA=0 SB=0 PACK=1 DIRECT=0 device=pthread-",
    /* NVIDIA H200 through NVIDIA's OpenCL (driver 580), two tuner runs of 40-45 s
       per precision; H100s (same SM) get the same sets, not measured there */
    "f32 MWG=128 NWG=64 KWG=16 MDIMC=16 NDIMC=8 VWM=1 VWN=4 SA=1 SB=1 PACK=0 DIRECT=324 DB=0 device=NVIDIA H200",
    "f64 MWG=64 NWG=64 KWG=8 MDIMC=16 NDIMC=8 VWM=2 VWN=1 SA=1 SB=1 PACK=1 DIRECT=324 DB=1 device=NVIDIA H200",
    "f32 MWG=128 NWG=64 KWG=16 MDIMC=16 NDIMC=8 VWM=1 VWN=4 SA=1 SB=1 PACK=0 DIRECT=324 DB=0 device=NVIDIA H100",
    "f64 MWG=64 NWG=64 KWG=8 MDIMC=16 NDIMC=8 VWM=2 VWN=1 SA=1 SB=1 PACK=1 DIRECT=324 DB=1 device=NVIDIA H100",
};
/* Any other device: modest tiles through local memory, fine on most GPUs. */
static const char gemm__cl_generic[] = "MWG=64 NWG=64 KWG=16 MDIMC=16 NDIMC=16 VWM=2 VWN=2 SA=1 SB=1 PACK=1 DIRECT=64";
/* The fallback: the plainest kernel the template makes. */
static const char gemm__cl_safe[] = "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=32";

/* Looks `device` up in one tuning line; returns 1 and fills p on a match. */
static int gemm__cl_line_match(const char *line, gemm_cl_precision prec, const char *device, gemm_cl_params *p,
                               char *key, size_t keysize)
{
    const char *dev = strstr(line, "device=");
    char name[256];
    size_t len;
    if (!dev || strncmp(line, prec == GEMM_CL_F64 ? "f64 " : "f32 ", 4) != 0) return 0;
    dev += 7;
    len = strcspn(dev, "\r\n");
    if (len == 0 || len >= sizeof name) return 0;
    memcpy(name, dev, len);
    name[len] = '\0';
    if (!strstr(device, name) || !gemm__cl_params_parse(line, p)) return 0;
    if (key) snprintf(key, keysize, "%s", name);
    return 1;
}

/* Why a set cannot run on this device, or NULL when it can. */
static const char *gemm__cl_params_invalid(const gemm_cl_params *p, size_t max_wg, cl_ulong local_mem, size_t elem)
{
    int vw_ok = 1, w;
    for (w = 0; w < 2; w++) {
        int v = w ? p->vwn : p->vwm;
        vw_ok = vw_ok && (v == 1 || v == 2 || v == 4 || v == 8 || v == 16);
    }
    if (p->mwg < 1 || p->nwg < 1 || p->kwg < 1 || p->mdimc < 1 || p->ndimc < 1 || p->direct < 0)
        return "a size is not positive";
    if (!vw_ok) return "vector widths must be 1, 2, 4, 8 or 16";
    if ((p->sa != 0 && p->sa != 1) || (p->sb != 0 && p->sb != 1) || (p->pack != 0 && p->pack != 1) ||
        (p->db != 0 && p->db != 1))
        return "SA, SB, PACK and DB are 0 or 1";
    /* the limits first: after them no product below can overflow an int */
    if (p->mwg > 1024 || p->nwg > 1024 || p->kwg > 256 || p->mdimc > p->mwg || p->ndimc > p->nwg)
        return "tiles too large or too few (MWG, NWG <= 1024, KWG <= 256, MDIMC <= MWG, NDIMC <= NWG)";
    if (p->mwg % (p->mdimc * p->vwm) || p->nwg % (p->ndimc * p->vwn))
        return "MWG must be a multiple of MDIMC*VWM and NWG of NDIMC*VWN";
    if ((p->mwg / p->mdimc) * (p->nwg / p->ndimc) > 512) return "tiles too large (MWI*NWI <= 512)";
    if ((size_t)p->mdimc * (size_t)p->ndimc > max_wg) return "MDIMC*NDIMC exceeds the device's work-group size";
    if ((cl_ulong)((size_t)p->kwg * ((size_t)p->sa * (size_t)p->mwg + (size_t)p->sb * (size_t)p->nwg) * elem *
                   (size_t)(1 + p->db)) > local_mem)
        return "the local-memory tiles exceed the device's local memory";
    return NULL;
}

/* ---- the context ---- */

typedef struct gemm__cl_program {
    struct gemm__cl_program *next;
    gemm_cl_precision prec;
    gemm_cl_params params; /* DIRECT: whichever set built it first; see gemm__cl_choice */
    cl_program program;
    cl_kernel pack, direct, tiled;
    int checked; /* 0 not yet, 1 passed, -1 failed */
} gemm__cl_program;

/* A queue with its packing buffers. lane[0] is the caller's queue (calls);
   lane[1] a private in-order queue for the self-check and the tuner, which
   block on it with the lock held: they never wait on the caller's commands. */
typedef struct gemm__cl_lane {
    cl_command_queue queue;
    cl_mem scratch[2]; /* packed A and B, grown on demand */
    size_t scratch_size[2];
} gemm__cl_lane;

typedef struct gemm__cl_choice {
    gemm__cl_program *prog; /* NULL until the first call picks one */
    gemm_cl_params params;  /* the set in use: prog's, with its own DIRECT */
    char origin[128], reason[512];
} gemm__cl_choice;

struct gemm_cl_context {
    cl_context context;
    cl_command_queue queue;
    cl_device_id device;
    cl_device_type type;
    char device_name[256], platform_name[128], driver[128];
    int has_fp64, no_self_check, break_kernel;
    size_t max_wg;
    cl_ulong local_mem;
    char tuning_file[512], cache_dir[512], build_options[512];
    gemm__cl_lock lock;
    gemm__cl_program *programs;
    gemm__cl_choice choice[2];
    gemm__cl_lane lane[2];
    int adopted; /* context and queue are the caller's */
};

static void gemm__cl_program_free(gemm__cl_program *g)
{
    if (g->pack) clReleaseKernel(g->pack);
    if (g->direct) clReleaseKernel(g->direct);
    if (g->tiled) clReleaseKernel(g->tiled);
    if (g->program) clReleaseProgram(g->program);
    GEMM_FREE(g);
}

static size_t gemm__cl_elem(gemm_cl_precision prec) { return prec == GEMM_CL_F64 ? sizeof(double) : sizeof(float); }

static void gemm__cl_copy_opt(char *dst, size_t size, const char *opt, const char *env)
{
    const char *v = opt && opt[0] ? opt : env ? getenv(env) : NULL;
    snprintf(dst, size, "%s", v ? v : "");
}

/* Finds the device: by name substring, by "P:D" indices, or by indices. */
static gemm_status gemm__cl_pick(const gemm_cl_options *o, cl_platform_id *platform, cl_device_id *device)
{
    cl_platform_id plats[16];
    cl_device_id devs[64];
    cl_uint np = 0, nd, pi, di;
    const char *name = o->device_name && o->device_name[0] ? o->device_name : getenv("GEMM_CL_DEVICE");
    int want_p = o->platform, want_d = o->device, by_name = name && name[0];
    cl_int e = clGetPlatformIDs(16, plats, &np);
    if (np > 16) np = 16; /* np and nd count them all, not the ones written */
    if (e == -1001 || (e == CL_SUCCESS && np == 0))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: no OpenCL platform is installed");
    GEMM__CL_TRY(e, "clGetPlatformIDs");
    if (by_name && sscanf(name, "%d:%d", &want_p, &want_d) == 2) by_name = 0;
    for (pi = 0; pi < np; pi++) {
        if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) nd = 0;
        if (nd > 64) nd = 64;
        for (di = 0; di < nd; di++) {
            char full[512], pname[128], dname[256];
            int match;
            pname[0] = dname[0] = '\0';
            clGetPlatformInfo(plats[pi], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
            clGetDeviceInfo(devs[di], CL_DEVICE_NAME, sizeof dname, dname, NULL);
            snprintf(full, sizeof full, "%s: %s", pname, dname);
            match = by_name ? strstr(full, name) != NULL : (int)pi == want_p && (int)di == want_d;
            if (match) {
                *platform = plats[pi];
                *device = devs[di];
                return GEMM_OK;
            }
        }
    }
    if (by_name) return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: no OpenCL device matches \"%s\"", name);
    return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: there is no device %d on platform %d", want_d, want_p);
}

/* Frees everything a context holds; keeps the error detail. */
static void gemm__cl_free(gemm_cl_context *ctx)
{
    gemm__cl_program *p, *next;
    int i, j;
    /* OpenCL defers every release until the commands using the object finish:
       no clFinish on the caller's queue, which may wait on the caller's events */
    if (ctx->queue && !ctx->adopted) clFinish(ctx->queue);
    for (p = ctx->programs; p; p = next) {
        next = p->next;
        gemm__cl_program_free(p);
    }
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            if (ctx->lane[i].scratch[j]) clReleaseMemObject(ctx->lane[i].scratch[j]);
    if (ctx->lane[1].queue) clReleaseCommandQueue(ctx->lane[1].queue);
    if (ctx->queue) clReleaseCommandQueue(ctx->queue);
    if (ctx->context) clReleaseContext(ctx->context);
    gemm__cl_lock_free(&ctx->lock);
    GEMM_FREE(ctx);
}

GEMM_DEF gemm_status gemm_cl_destroy(gemm_cl_context *ctx)
{
    gemm__clear_error();
    if (ctx) gemm__cl_free(ctx);
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_create(const gemm_cl_options *options, gemm_cl_context **out)
{
    gemm_cl_options none;
    gemm_cl_context *ctx;
    cl_platform_id platform = NULL;
    cl_int e = CL_SUCCESS;
    gemm_status s;
    char *ext = NULL;
    size_t ext_len = 0;

    gemm__clear_error();
    if (!out) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: out is NULL");
    *out = NULL;
    memset(&none, 0, sizeof none);
    if (!options) options = &none;
    if (!options->context != !options->queue)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: give both context and queue, or neither");
    ctx = (gemm_cl_context *)GEMM_MALLOC(sizeof *ctx);
    if (!ctx) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl_create: out of host memory");
    memset(ctx, 0, sizeof *ctx);
    gemm__cl_lock_init(&ctx->lock);

    if (options->queue) {
        cl_command_queue_properties props = 0;
        cl_context qctx = NULL;
        e = clGetCommandQueueInfo(options->queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device, NULL);
        if (e == CL_SUCCESS)
            e = clGetCommandQueueInfo(options->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
        if (e != CL_SUCCESS) {
            gemm__cl_free(ctx);
            return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue is not valid (%s)", gemm__cl_errname(e));
        }
        if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
            gemm__cl_free(ctx);
            return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue must be in-order");
        }
        e = clGetCommandQueueInfo(options->queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
        if (e != CL_SUCCESS || qctx != options->context) {
            gemm__cl_free(ctx);
            return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue does not belong to the context");
        }
        if ((e = clRetainContext(options->context)) != CL_SUCCESS) {
            gemm__cl_free(ctx);
            return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the context is not valid (%s)", gemm__cl_errname(e));
        }
        ctx->context = options->context;
        if ((e = clRetainCommandQueue(options->queue)) != CL_SUCCESS) {
            gemm__cl_free(ctx);
            return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue is not valid (%s)", gemm__cl_errname(e));
        }
        ctx->queue = options->queue;
        ctx->adopted = 1;
        clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    } else {
        s = gemm__cl_pick(options, &platform, &ctx->device);
        if (s != GEMM_OK) { gemm__cl_free(ctx); return s; }
        ctx->context = clCreateContext(NULL, 1, &ctx->device, NULL, NULL, &e);
        if (e == CL_SUCCESS) ctx->queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &e);
        if (e != CL_SUCCESS) {
            s = gemm__cl_fail(e, ctx->context ? "clCreateCommandQueue" : "clCreateContext");
            gemm__cl_free(ctx);
            return s;
        }
    }
    ctx->lane[0].queue = ctx->queue;
    ctx->lane[1].queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &e);
    if (e != CL_SUCCESS) {
        ctx->lane[1].queue = NULL;
        s = gemm__cl_fail(e, "clCreateCommandQueue (private queue)");
        gemm__cl_free(ctx);
        return s;
    }
    clGetDeviceInfo(ctx->device, CL_DEVICE_NAME, sizeof ctx->device_name, ctx->device_name, NULL);
    clGetDeviceInfo(ctx->device, CL_DRIVER_VERSION, sizeof ctx->driver, ctx->driver, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof ctx->type, &ctx->type, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof ctx->max_wg, &ctx->max_wg, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ctx->local_mem, &ctx->local_mem, NULL);
    /* asked for in full: a long extension list must not hide cl_khr_fp64 */
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len) == CL_SUCCESS && ext_len > 0 &&
        (ext = (char *)GEMM_MALLOC(ext_len + 1)) != NULL) {
        if (clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL) != CL_SUCCESS) ext_len = 0;
        ext[ext_len] = '\0';
        ctx->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
        GEMM_FREE(ext);
    }
    if (platform) clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof ctx->platform_name, ctx->platform_name, NULL);
    gemm__cl_copy_opt(ctx->tuning_file, sizeof ctx->tuning_file, options->tuning_file, "GEMM_CL_TUNING_FILE");
    gemm__cl_copy_opt(ctx->cache_dir, sizeof ctx->cache_dir, options->cache_dir, "GEMM_CL_CACHE_DIR");
    gemm__cl_copy_opt(ctx->build_options, sizeof ctx->build_options, options->build_options, NULL);
    ctx->no_self_check = options->no_self_check;
    ctx->break_kernel = options->test_break_kernel;
    *out = ctx;
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_handles(gemm_cl_context *ctx, cl_context *context, cl_command_queue *queue,
                                     cl_device_id *device)
{
    gemm__clear_error();
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_handles: ctx is NULL");
    if (context) *context = ctx->context;
    if (queue) *queue = ctx->queue;
    if (device) *device = ctx->device;
    return GEMM_OK;
}

/* ---- building, with the optional on-disk binary cache ---- */

static uint64_t gemm__cl_hash(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

/* The #define block that specialises the template. */
static void gemm__cl_defines(const gemm_cl_context *ctx, gemm_cl_precision prec, const gemm_cl_params *p, char *out,
                             size_t size)
{
    gemm_cl_params safe; /* options.test_break_kernel breaks every set but the fallback */
    gemm__cl_params_parse(gemm__cl_safe, &safe);
    snprintf(out, size,
             "#define PRECISION %d\n#define MWG %d\n#define NWG %d\n#define KWG %d\n#define MDIMC %d\n"
             "#define NDIMC %d\n#define VWM %d\n#define VWN %d\n#define SA %d\n#define SB %d\n#define PACK %d\n"
             "#define DB %d\n%s",
             prec == GEMM_CL_F64 ? 64 : 32, p->mwg, p->nwg, p->kwg, p->mdimc, p->ndimc, p->vwm, p->vwn, p->sa, p->sb,
             p->pack, p->db, ctx->break_kernel && !gemm__cl_same_program(p, &safe) ? "#define fma(a, b, c) ((a) * (b) - (c))\n" : "");
}

static void gemm__cl_cache_path(const gemm_cl_context *ctx, const char *const *src, size_t nsrc, const char *opts,
                                char *out, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    h = gemm__cl_hash(h, ctx->platform_name);
    h = gemm__cl_hash(h, ctx->device_name);
    h = gemm__cl_hash(h, ctx->driver);
    h = gemm__cl_hash(h, opts);
    for (i = 0; i < nsrc; i++) h = gemm__cl_hash(h, src[i]);
    snprintf(out, size, "%s/gemm_cl_%016llx.bin", ctx->cache_dir, (unsigned long long)h);
}

static cl_program gemm__cl_from_cache(gemm_cl_context *ctx, const char *path, const char *opts)
{
    FILE *f = fopen(path, "rb");
    unsigned char *bin;
    long size;
    cl_int e, status;
    cl_program prog = NULL;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    bin = size > 0 ? (unsigned char *)GEMM_MALLOC((size_t)size) : NULL;
    if (bin && fread(bin, 1, (size_t)size, f) == (size_t)size) {
        size_t len = (size_t)size;
        const unsigned char *b = bin;
        prog = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &len, &b, &status, &e);
        if (prog && (e != CL_SUCCESS || status != CL_SUCCESS ||
                     clBuildProgram(prog, 1, &ctx->device, opts, NULL, NULL) != CL_SUCCESS)) {
            clReleaseProgram(prog); /* stale or foreign: build from source instead */
            prog = NULL;
        }
    }
    if (bin) GEMM_FREE(bin);
    fclose(f);
    return prog;
}

static void gemm__cl_to_cache(const gemm_cl_context *ctx, cl_program prog, const char *path)
{
    size_t size = 0;
    unsigned char *bin;
    char tmp[600];
    FILE *f;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || size == 0) return;
    bin = (unsigned char *)GEMM_MALLOC(size);
    if (!bin) return;
    /* a name no other process or context writes at the same time */
    snprintf(tmp, sizeof tmp, "%.540s.%ld.%p.tmp", path, gemm__cl_pid(), (const void *)ctx);
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS && (f = fopen(tmp, "wb"))) {
        int ok = fwrite(bin, 1, size, f) == size;
        ok = fclose(f) == 0 && ok;
        /* rename: a reader sees the old file or the whole new one, never half */
        if (!ok || rename(tmp, path) != 0) remove(tmp);
    }
    GEMM_FREE(bin);
}

/* Builds (or loads) the program of one parameter set; lock held. */
static gemm_status gemm__cl_program_get(gemm_cl_context *ctx, gemm_cl_precision prec, const gemm_cl_params *p,
                                        gemm__cl_program **out)
{
    const char *src[1 + sizeof gemm__cl_source / sizeof gemm__cl_source[0]];
    char defines[1024], opts[640], path[700], pstr[256];
    const char *why;
    gemm__cl_program *g;
    cl_int e = CL_SUCCESS;
    size_t i, nsrc = 0;

    for (g = ctx->programs; g; g = g->next)
        if (g->prec == prec && gemm__cl_same_program(&g->params, p)) { *out = g; return GEMM_OK; }
    gemm_cl_params_str(p, pstr, sizeof pstr);
    if ((why = gemm__cl_params_invalid(p, ctx->max_wg, ctx->local_mem, gemm__cl_elem(prec))) != NULL)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl: parameter set %s: %s", pstr, why);
    g = (gemm__cl_program *)GEMM_MALLOC(sizeof *g);
    if (!g) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: out of host memory");
    memset(g, 0, sizeof *g);
    g->prec = prec;
    g->params = *p;
    gemm__cl_defines(ctx, prec, p, defines, sizeof defines);
    /* no -cl-mad-enable: reduced precision is opt-in only (DESIGN.md); the kernels call fma */
    snprintf(opts, sizeof opts, "%s", ctx->build_options);
    src[nsrc++] = defines;
    for (i = 0; i < sizeof gemm__cl_source / sizeof gemm__cl_source[0]; i++) src[nsrc++] = gemm__cl_source[i];
    if (ctx->cache_dir[0]) {
        gemm__cl_cache_path(ctx, src, nsrc, opts, path, sizeof path);
        g->program = gemm__cl_from_cache(ctx, path, opts);
    }
    if (!g->program) {
        g->program = clCreateProgramWithSource(ctx->context, (cl_uint)nsrc, src, NULL, &e);
        if (e == CL_SUCCESS) e = clBuildProgram(g->program, 1, &ctx->device, opts, NULL, NULL);
        if (e != CL_SUCCESS) {
            char log[850], *full;
            size_t len = 0;
            log[0] = '\0';
            /* asked for in full: a buffer too small gets nothing at all from some drivers */
            if (g->program &&
                clGetProgramBuildInfo(g->program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS &&
                len > 0 && (full = (char *)GEMM_MALLOC(len + 1)) != NULL) {
                if (clGetProgramBuildInfo(g->program, ctx->device, CL_PROGRAM_BUILD_LOG, len, full, NULL) == CL_SUCCESS) {
                    full[len] = '\0';
                    snprintf(log, sizeof log, "%s", full);
                }
                GEMM_FREE(full);
            }
            if (g->program) clReleaseProgram(g->program);
            GEMM_FREE(g);
            if (e == CL_BUILD_PROGRAM_FAILURE || e == CL_INVALID_BUILD_OPTIONS)
                return gemm__fail(GEMM_ERR_BUILD, "gemm_cl: %s kernels with %s failed to build (%s). Log: %s",
                                  prec == GEMM_CL_F64 ? "f64" : "f32", pstr, gemm__cl_errname(e), log);
            return gemm__cl_fail(e, "clBuildProgram");
        }
        if (ctx->cache_dir[0]) gemm__cl_to_cache(ctx, g->program, path);
    }
    g->pack = clCreateKernel(g->program, "gemm_cl_pack", &e);
    if (e == CL_SUCCESS) g->direct = clCreateKernel(g->program, "gemm_cl_direct", &e);
    if (e == CL_SUCCESS) g->tiled = clCreateKernel(g->program, "gemm_cl_tiled", &e);
    if (e != CL_SUCCESS) {
        gemm__cl_program_free(g);
        return gemm__cl_fail(e, "clCreateKernel");
    }
    g->next = ctx->programs;
    ctx->programs = g;
    *out = g;
    return GEMM_OK;
}

/* ---- running a multiplication ---- */

/* A call after the checks, as the kernels see it: row-major C (a column-major
   C is the transposed problem), op(A) and op(B) as strides. */
typedef struct gemm__cl_call {
    int64_t m, n, k;
    double alpha, beta;
    gemm__work work;
    cl_mem A, B, C;
    size_t offa, offb, offc;
    int64_t ars, acs, brs, bcs, ldc;
} gemm__cl_call;

static void gemm__cl_canon(gemm__cl_call *c, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                           int64_t n, int64_t k, double alpha, cl_mem A, size_t offa, int64_t lda, cl_mem B,
                           size_t offb, int64_t ldb, double beta, cl_mem C, size_t offc, int64_t ldc, gemm__work work)
{
    int64_t ars, acs, brs, bcs;
    gemm__op_strides(layout, ta, lda, &ars, &acs);
    gemm__op_strides(layout, tb, ldb, &brs, &bcs);
    c->k = k;
    c->alpha = alpha;
    c->beta = beta;
    c->work = work;
    c->C = C;
    c->offc = offc;
    c->ldc = ldc;
    if (layout == GEMM_ROW_MAJOR) {
        c->m = m; c->n = n;
        c->A = A; c->offa = offa; c->ars = ars; c->acs = acs;
        c->B = B; c->offb = offb; c->brs = brs; c->bcs = bcs;
    } else { /* C^T = op(B)^T op(A)^T */
        c->m = n; c->n = m;
        c->A = B; c->offa = offb; c->ars = bcs; c->acs = brs;
        c->B = A; c->offb = offa; c->brs = acs; c->bcs = ars;
    }
}

static int64_t gemm__cl_roundup(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

#define GEMM__CL_ARG(kern, idx, T, val)                                        \
    do {                                                                      \
        T gemm__cl_v = (val);                                                 \
        GEMM__CL_TRY(clSetKernelArg(kern, idx, sizeof gemm__cl_v, &gemm__cl_v), "clSetKernelArg"); \
    } while (0)
#define GEMM__CL_REAL_ARG(kern, idx, prec, val)                     \
    do {                                                           \
        if ((prec) == GEMM_CL_F64) GEMM__CL_ARG(kern, idx, cl_double, (val)); \
        else GEMM__CL_ARG(kern, idx, cl_float, (cl_float)(val));   \
    } while (0)

static gemm_status gemm__cl_scratch(gemm_cl_context *ctx, gemm__cl_lane *lane, int which, size_t bytes)
{
    cl_int e;
    if (bytes <= lane->scratch_size[which]) return GEMM_OK;
    if (lane->scratch[which]) clReleaseMemObject(lane->scratch[which]); /* freed once queued users finish */
    lane->scratch_size[which] = 0;
    lane->scratch[which] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS) {
        lane->scratch[which] = NULL;
        return gemm__cl_fail(e, "clCreateBuffer (packed operands)");
    }
    lane->scratch_size[which] = bytes;
    return GEMM_OK;
}

/* Enqueues one call with program g. path: 0 = by size, 1 = direct, 2 = tiled. Lock held. */
static gemm_status gemm__cl_enqueue(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm__cl_program *g,
                                    const gemm__cl_call *c, int path,
                                    cl_uint nw, const cl_event *wait, cl_event *event)
{
    const gemm_cl_params *p = &g->params;
    gemm_cl_precision prec = g->prec;
    double d = path == 0 ? (double)ctx->choice[prec].params.direct : 0, volume = (double)c->m * (double)c->n * (double)c->k;
    gemm_status s;
    if (c->work == GEMM__WORK_SCALE || path == 1 || (path == 0 && volume <= d * d * d)) {
        int scale = c->work == GEMM__WORK_SCALE;
        size_t local[2] = {8, 8}, global[2];
        cl_kernel kd = g->direct;
        global[0] = (size_t)gemm__cl_roundup(c->n, 8);
        global[1] = (size_t)gemm__cl_roundup(c->m, 8);
        GEMM__CL_ARG(kd, 0, cl_int, (cl_int)c->m);
        GEMM__CL_ARG(kd, 1, cl_int, (cl_int)c->n);
        GEMM__CL_ARG(kd, 2, cl_int, scale ? 0 : (cl_int)c->k);
        GEMM__CL_REAL_ARG(kd, 3, prec, scale ? 0.0 : c->alpha);
        GEMM__CL_REAL_ARG(kd, 4, prec, c->beta);
        GEMM__CL_ARG(kd, 5, cl_mem, scale ? c->C : c->A); /* unread when scaling */
        GEMM__CL_ARG(kd, 6, cl_long, (cl_long)c->offa);
        GEMM__CL_ARG(kd, 7, cl_long, (cl_long)c->ars);
        GEMM__CL_ARG(kd, 8, cl_long, (cl_long)c->acs);
        GEMM__CL_ARG(kd, 9, cl_mem, scale ? c->C : c->B);
        GEMM__CL_ARG(kd, 10, cl_long, (cl_long)c->offb);
        GEMM__CL_ARG(kd, 11, cl_long, (cl_long)c->brs);
        GEMM__CL_ARG(kd, 12, cl_long, (cl_long)c->bcs);
        GEMM__CL_ARG(kd, 13, cl_mem, c->C);
        GEMM__CL_ARG(kd, 14, cl_long, (cl_long)c->offc);
        GEMM__CL_ARG(kd, 15, cl_long, (cl_long)c->ldc);
        GEMM__CL_TRY(clEnqueueNDRangeKernel(lane->queue, kd, 2, NULL, global, local, nw, wait, event),
                     "clEnqueueNDRangeKernel (direct)");
        return GEMM_OK;
    } else {
        int64_t Mp = gemm__cl_roundup(c->m, p->mwg), Np = gemm__cl_roundup(c->n, p->nwg);
        int64_t Kp = gemm__cl_roundup(c->k, p->kwg);
        size_t elem = gemm__cl_elem(prec), global[2], local[2];
        int side;
        if ((s = gemm__cl_scratch(ctx, lane, 0, (size_t)(Mp * Kp) * elem)) != GEMM_OK) return s;
        if ((s = gemm__cl_scratch(ctx, lane, 1, (size_t)(Np * Kp) * elem)) != GEMM_OK) return s;
        for (side = 0; side < 2; side++) { /* pack op(A) as Mp x Kp, op(B) as Np x Kp */
            cl_kernel kp = g->pack;
            int64_t R = side ? c->n : c->m, Rp = side ? Np : Mp;
            GEMM__CL_ARG(kp, 0, cl_int, (cl_int)R);
            GEMM__CL_ARG(kp, 1, cl_int, (cl_int)c->k);
            GEMM__CL_ARG(kp, 2, cl_int, (cl_int)Rp);
            GEMM__CL_ARG(kp, 3, cl_int, (cl_int)Kp);
            GEMM__CL_ARG(kp, 4, cl_int, side ? p->nwg : p->mwg);
            GEMM__CL_ARG(kp, 5, cl_mem, side ? c->B : c->A);
            GEMM__CL_ARG(kp, 6, cl_long, (cl_long)(side ? c->offb : c->offa));
            GEMM__CL_ARG(kp, 7, cl_long, (cl_long)(side ? c->bcs : c->ars));
            GEMM__CL_ARG(kp, 8, cl_long, (cl_long)(side ? c->brs : c->acs));
            GEMM__CL_ARG(kp, 9, cl_mem, lane->scratch[side]);
            /* A fixed work-group shape: PoCL compiles a kernel anew for each one it meets. */
            local[0] = ctx->max_wg >= 256 ? 32 : 1;
            local[1] = ctx->max_wg >= 256 ? 8 : 1;
            global[0] = (size_t)gemm__cl_roundup(Rp, (int64_t)local[0]);
            global[1] = (size_t)gemm__cl_roundup(Kp, (int64_t)local[1]);
            GEMM__CL_TRY(clEnqueueNDRangeKernel(lane->queue, kp, 2, NULL, global, local, side ? 0 : nw,
                                                side ? NULL : wait, NULL),
                         "clEnqueueNDRangeKernel (pack)");
        }
        GEMM__CL_ARG(g->tiled, 0, cl_int, (cl_int)c->m);
        GEMM__CL_ARG(g->tiled, 1, cl_int, (cl_int)c->n);
        GEMM__CL_ARG(g->tiled, 2, cl_int, (cl_int)Kp);
        GEMM__CL_ARG(g->tiled, 3, cl_int, (cl_int)Mp);
        GEMM__CL_ARG(g->tiled, 4, cl_int, (cl_int)Np);
        GEMM__CL_REAL_ARG(g->tiled, 5, prec, c->alpha);
        GEMM__CL_REAL_ARG(g->tiled, 6, prec, c->beta);
        GEMM__CL_ARG(g->tiled, 7, cl_mem, lane->scratch[0]);
        GEMM__CL_ARG(g->tiled, 8, cl_mem, lane->scratch[1]);
        GEMM__CL_ARG(g->tiled, 9, cl_mem, c->C);
        GEMM__CL_ARG(g->tiled, 10, cl_long, (cl_long)c->offc);
        GEMM__CL_ARG(g->tiled, 11, cl_long, (cl_long)c->ldc);
        local[0] = (size_t)p->ndimc;
        local[1] = (size_t)p->mdimc;
        global[0] = (size_t)(Np / p->nwg) * local[0];
        global[1] = (size_t)(Mp / p->mwg) * local[1];
        GEMM__CL_TRY(clEnqueueNDRangeKernel(lane->queue, g->tiled, 2, NULL, global, local, 0, NULL, event),
                     "clEnqueueNDRangeKernel (tiled)");
        return GEMM_OK;
    }
}

/* Elements a stored rows x cols matrix spans with leading dimension ld. */
static size_t gemm__cl_extent(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows == 0 || cols == 0) return 0;
    return (size_t)(layout == GEMM_ROW_MAJOR ? (rows - 1) * ld + cols : (cols - 1) * ld + rows);
}

/* Elements op(X) (rows x cols after transposing) spans in storage. */
static size_t gemm__cl_op_extent(gemm_layout layout, gemm_transpose t, int64_t rows, int64_t cols, int64_t ld)
{
    return t == GEMM_NO_TRANS ? gemm__cl_extent(layout, rows, cols, ld) : gemm__cl_extent(layout, cols, rows, ld);
}

/* The checks both APIs share beyond gemm__check_args. */
static gemm_status gemm__cl_check_more(gemm_cl_context *ctx, gemm_cl_precision prec, const char *func, int64_t m,
                                       int64_t n, int64_t k)
{
    const int64_t limit = 2147483647 - 4096; /* kernels index rows and columns with int */
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    if (m > limit || n > limit || k > limit)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must be below %lld on OpenCL", func, (long long)limit);
    if (prec == GEMM_CL_F64 && !ctx->has_fp64)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the device (%s) has no cl_khr_fp64", func, ctx->device_name);
    return GEMM_OK;
}

static gemm_status gemm__cl_select(gemm_cl_context *ctx, gemm_cl_precision prec, gemm__cl_program **out);

/* Host pointers in, host pointers out, on lane's queue; g == NULL: the context's kernel for prec. */
static gemm_status gemm__cl_host(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_cl_precision prec, gemm__cl_program *g, int path,
                                 const char *func, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                 int64_t n, int64_t k, double alpha, const void *A, int64_t lda, const void *B,
                                 int64_t ldb, double beta, void *C, int64_t ldc, gemm_cl_timing *timing)
{
    size_t elem = gemm__cl_elem(prec), na, nb, nc, origin[3] = {0, 0, 0}, region[3];
    cl_mem dA = NULL, dB = NULL, dC = NULL;
    cl_int e = CL_SUCCESS;
    gemm__work work;
    gemm__cl_call call;
    gemm_status s;
    double t0 = gemm__cl_now(), t1, t2;
    int row = layout == GEMM_ROW_MAJOR;

    if (timing) memset(timing, 0, sizeof *timing);
    s = gemm__check_args(func, layout, ta, tb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb, beta == 1,
                         C != NULL, ldc, &work);
    if (s == GEMM_OK) s = gemm__cl_check_more(ctx, prec, func, m, n, k);
    if (s != GEMM_OK || work == GEMM__WORK_NONE) return s;
    na = gemm__cl_op_extent(layout, ta, m, k, lda);
    nb = gemm__cl_op_extent(layout, tb, k, n, ldb);
    /* whole rows of ldc: NVIDIA's driver checks rect copies against region rows * pitch */
    nc = (size_t)(layout == GEMM_ROW_MAJOR ? m : n) * (size_t)ldc;
    region[0] = (size_t)(row ? n : m) * elem; /* C's window: rows of the storage, never its padding */
    region[1] = (size_t)(row ? m : n);
    region[2] = 1;
    dC = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, nc * elem, NULL, &e);
    if (e == CL_SUCCESS && work == GEMM__WORK_FULL) {
        dA = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, na * elem, NULL, &e);
        if (e == CL_SUCCESS) dB = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, nb * elem, NULL, &e);
        if (e == CL_SUCCESS) e = clEnqueueWriteBuffer(lane->queue, dA, CL_FALSE, 0, na * elem, A, 0, NULL, NULL);
        if (e == CL_SUCCESS) e = clEnqueueWriteBuffer(lane->queue, dB, CL_FALSE, 0, nb * elem, B, 0, NULL, NULL);
    }
    if (e == CL_SUCCESS && beta != 0) /* beta == 0: C is not read */
        e = clEnqueueWriteBufferRect(lane->queue, dC, CL_FALSE, origin, origin, region, (size_t)ldc * elem, 0,
                                     (size_t)ldc * elem, 0, C, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = clFinish(lane->queue);
    t1 = gemm__cl_now();
    if (e != CL_SUCCESS) {
        s = gemm__cl_fail(e, "allocating device memory for, or copying, the operands");
        goto done;
    }
    gemm__cl_canon(&call, layout, ta, tb, m, n, k, alpha, dA, 0, lda, dB, 0, ldb, beta, dC, 0, ldc, work);
    if (!g) {
        gemm__cl_lock_take(&ctx->lock);
        s = gemm__cl_select(ctx, prec, &g);
        if (s == GEMM_OK) s = gemm__cl_enqueue(ctx, lane, g, &call, path, 0, NULL, NULL);
        gemm__cl_lock_give(&ctx->lock);
    } else {
        s = gemm__cl_enqueue(ctx, lane, g, &call, path, 0, NULL, NULL);
    }
    if (s != GEMM_OK) goto done;
    if ((e = clFinish(lane->queue)) != CL_SUCCESS) {
        s = gemm__cl_fail(e, "running the kernels");
        goto done;
    }
    t2 = gemm__cl_now();
    e = clEnqueueReadBufferRect(lane->queue, dC, CL_TRUE, origin, origin, region, (size_t)ldc * elem, 0,
                                (size_t)ldc * elem, 0, C, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
        s = gemm__cl_fail(e, "clEnqueueReadBufferRect (C)");
        goto done;
    }
    if (timing) {
        timing->write_s = t1 - t0;
        timing->kernels_s = t2 - t1;
        timing->read_s = gemm__cl_now() - t2;
        timing->total_s = gemm__cl_now() - t0;
    }
done:
    if (dA) clReleaseMemObject(dA);
    if (dB) clReleaseMemObject(dB);
    if (dC) clReleaseMemObject(dC);
    return s;
}

/* Multiplies a small problem through each kernel of g and compares with the
   reference: drivers do miscompile GEMM kernels. Returns 1 when right. */
static int gemm__cl_self_check(gemm_cl_context *ctx, gemm__cl_program *g)
{
    const gemm_cl_params *p = &g->params;
    int path, ok = 1;
    for (path = 1; path <= 2 && ok; path++) {
        /* tiled: several tiles and ragged edges in every dimension */
        int64_t m = path == 2 ? 2 * p->mwg + 3 : 5, n = path == 2 ? 2 * p->nwg + 5 : 7;
        int64_t k = path == 2 ? 2 * p->kwg + 7 : 9, i, cnt = m * n + m * k + k * n;
        gemm_layout lay = path == 2 ? GEMM_ROW_MAJOR : GEMM_COL_MAJOR;
        gemm_transpose ta = path == 2 ? GEMM_NO_TRANS : GEMM_TRANS, tb = path == 2 ? GEMM_TRANS : GEMM_NO_TRANS;
        int64_t lda = (lay == GEMM_ROW_MAJOR) == (ta == GEMM_NO_TRANS) ? k : m;
        int64_t ldb = (lay == GEMM_ROW_MAJOR) == (tb == GEMM_NO_TRANS) ? n : k;
        int64_t ldc = lay == GEMM_ROW_MAJOR ? n : m;
        double *buf = (double *)GEMM_MALLOC(sizeof(double) * (size_t)(cnt + m * n)), bound;
        double eps = g->prec == GEMM_CL_F64 ? 2.220446049250313e-16 : 1.1920929e-7;
        float *fbuf = (float *)GEMM_MALLOC(sizeof(float) * (size_t)(cnt + m * n));
        uint64_t x = 88172645463325252ull;
        if (!buf || !fbuf) ok = 0;
        for (i = 0; ok && i < cnt + m * n; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            buf[i] = (double)(x >> 40) / 16777216.0 - 0.5; /* exact in float */
            fbuf[i] = (float)buf[i];
        }
        if (ok) {
            double *A = buf, *B = buf + m * k, *C = B + k * n, *R = C + m * n;
            float *fC = fbuf + m * k + k * n;
            memcpy(R, C, sizeof(double) * (size_t)(m * n));
            gemm_ref_dgemm(lay, ta, tb, m, n, k, 1.5, A, lda, B, ldb, -0.5, R, ldc);
            if (g->prec == GEMM_CL_F64)
                ok = gemm__cl_host(ctx, &ctx->lane[1], g->prec, g, path, "gemm_cl self-check", lay, ta, tb, m, n, k, 1.5, A, lda, B,
                                   ldb, -0.5, C, ldc, NULL) == GEMM_OK;
            else
                ok = gemm__cl_host(ctx, &ctx->lane[1], g->prec, g, path, "gemm_cl self-check", lay, ta, tb, m, n, k, 1.5, fbuf, lda,
                                   fbuf + m * k, ldb, -0.5, fC, ldc, NULL) == GEMM_OK;
            bound = 4 * eps * (double)k * 0.375;
            for (i = 0; ok && i < m * n; i++) {
                double got = g->prec == GEMM_CL_F64 ? C[i] : (double)fC[i];
                ok = fabs(got - R[i]) <= bound;
            }
        }
        if (buf) GEMM_FREE(buf);
        if (fbuf) GEMM_FREE(fbuf);
    }
    return ok;
}

/* Builds and checks one set; lock held. */
static gemm_status gemm__cl_try(gemm_cl_context *ctx, gemm_cl_precision prec, const gemm_cl_params *p,
                                gemm__cl_program **out)
{
    char pstr[256];
    gemm_status s = gemm__cl_program_get(ctx, prec, p, out);
    if (s != GEMM_OK) return s;
    if (ctx->no_self_check) return GEMM_OK;
    if ((*out)->checked == 0) (*out)->checked = gemm__cl_self_check(ctx, *out) ? 1 : -1;
    if ((*out)->checked > 0) return GEMM_OK;
    gemm_cl_params_str(p, pstr, sizeof pstr);
    return gemm__fail(GEMM_ERR_DEVICE, "gemm_cl: the %s kernels with %s gave a wrong result in the self-check on %s",
                      prec == GEMM_CL_F64 ? "f64" : "f32", pstr, ctx->device_name);
}

/* The parameter set the tuning file, the built-in table or the default gives. */
static void gemm__cl_lookup(gemm_cl_context *ctx, gemm_cl_precision prec, gemm_cl_params *p, char *origin, size_t size)
{
    char line[512], key[256];
    size_t i;
    FILE *f = ctx->tuning_file[0] ? fopen(ctx->tuning_file, "r") : NULL;
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        if (gemm__cl_line_match(line, prec, ctx->device_name, p, key, sizeof key)) {
            snprintf(origin, size, "tuning file %.100s", ctx->tuning_file);
            found = 1;
        }
    if (f) fclose(f);
    for (i = 0; !found && i < sizeof gemm__cl_builtin / sizeof gemm__cl_builtin[0]; i++)
        if (gemm__cl_line_match(gemm__cl_builtin[i], prec, ctx->device_name, p, key, sizeof key)) {
            snprintf(origin, size, "built-in: %.100s", key);
            found = 1;
        }
    if (!found) {
        gemm__cl_params_parse(gemm__cl_generic, p);
        snprintf(origin, size, "default");
    }
}

/* Makes (g, p) prec's choice; lock held. */
static void gemm__cl_install(gemm_cl_context *ctx, gemm_cl_precision prec, gemm__cl_program *g,
                             const gemm_cl_params *p, const char *origin)
{
    gemm__cl_choice *ch = &ctx->choice[prec];
    ch->prog = g;
    ch->params = *p;
    snprintf(ch->origin, sizeof ch->origin, "%s", origin);
    ch->reason[0] = '\0';
}

/* prec's program, picked (and checked) on first use; callers check fp64 first. Lock held. */
static gemm_status gemm__cl_select(gemm_cl_context *ctx, gemm_cl_precision prec, gemm__cl_program **out)
{
    gemm__cl_choice *ch = &ctx->choice[prec];
    gemm_cl_params p;
    gemm_status s;
    if (ch->prog) { *out = ch->prog; return GEMM_OK; }
    gemm__cl_lookup(ctx, prec, &p, ch->origin, sizeof ch->origin);
    s = gemm__cl_try(ctx, prec, &p, out);
    if (s != GEMM_OK) {
        char origin[sizeof ch->origin];
        memcpy(origin, ch->origin, sizeof origin);
        snprintf(ch->reason, sizeof ch->reason, "%.380s [%.120s]", gemm_last_error_detail(), origin);
        snprintf(ch->origin, sizeof ch->origin, "safe default");
        gemm__cl_params_parse(gemm__cl_safe, &p);
        if ((s = gemm__cl_try(ctx, prec, &p, out)) != GEMM_OK) return s;
        /* the call succeeds; the detail still tells why the tuned set was dropped */
        gemm__fail(GEMM_OK, "gemm_cl: fell back to the safe default kernel: %s", ch->reason);
    }
    ch->prog = *out;
    ch->params = p;
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_kernel_info_get(gemm_cl_context *ctx, gemm_cl_precision prec, gemm_cl_kernel_info *info)
{
    gemm__cl_program *g;
    gemm_status s;
    gemm__clear_error();
    if (!ctx || !info || (prec != GEMM_CL_F32 && prec != GEMM_CL_F64))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_kernel_info_get: NULL argument or bad precision");
    memset(info, 0, sizeof *info);
    if ((s = gemm__cl_check_more(ctx, prec, "gemm_cl_kernel_info_get", 0, 0, 0)) != GEMM_OK) return s;
    snprintf(info->device_name, sizeof info->device_name, "%s", ctx->device_name);
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_select(ctx, prec, &g);
    if (s == GEMM_OK) {
        info->params = ctx->choice[prec].params;
        snprintf(info->origin, sizeof info->origin, "%s", ctx->choice[prec].origin);
        snprintf(info->fallback_reason, sizeof info->fallback_reason, "%s", ctx->choice[prec].reason);
    }
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

GEMM_DEF gemm_status gemm_cl_set_params(gemm_cl_context *ctx, gemm_cl_precision prec, const gemm_cl_params *params)
{
    gemm__cl_program *g;
    gemm_status s;
    gemm__clear_error();
    if (!ctx || !params || (prec != GEMM_CL_F32 && prec != GEMM_CL_F64))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_set_params: NULL argument or bad precision");
    if ((s = gemm__cl_check_more(ctx, prec, "gemm_cl_set_params", 0, 0, 0)) != GEMM_OK) return s;
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_try(ctx, prec, params, &g);
    if (s == GEMM_OK) gemm__cl_install(ctx, prec, g, params, "set by caller");
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

/* Is [off, off + count) inside buffer X? */
static gemm_status gemm__cl_fits(cl_mem X, size_t off, size_t count, size_t elem, const char *func, const char *name)
{
    size_t size = 0;
    cl_int e = clGetMemObjectInfo(X, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (e != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is not a valid cl_mem (%s)", func, name, gemm__cl_errname(e));
    if (count > 0 && (off + count) * elem > size)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s holds %llu bytes; offset + extent need %llu", func, name,
                          (unsigned long long)size, (unsigned long long)((off + count) * elem));
    return GEMM_OK;
}

static gemm_status gemm__cl_buffers(gemm_cl_context *ctx, gemm_cl_precision prec, const char *func,
                                    gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                    int64_t k, double alpha, cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb,
                                    int64_t ldb, double beta, cl_mem C, size_t offc, int64_t ldc, cl_uint nw,
                                    const cl_event *wait, cl_event *event)
{
    size_t elem = gemm__cl_elem(prec);
    gemm__work work;
    gemm__cl_call call;
    gemm__cl_program *g;
    gemm_status s;
    if (event) *event = NULL;
    s = gemm__check_args(func, layout, ta, tb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb, beta == 1,
                         C != NULL, ldc, &work);
    if (s == GEMM_OK) s = gemm__cl_check_more(ctx, prec, func, m, n, k);
    if (s != GEMM_OK) return s;
    if (nw > 0 && !wait) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: num_wait > 0 but wait is NULL", func);
    if (work == GEMM__WORK_FULL) {
        s = gemm__cl_fits(A, offa, gemm__cl_op_extent(layout, ta, m, k, lda), elem, func, "A");
        if (s == GEMM_OK) s = gemm__cl_fits(B, offb, gemm__cl_op_extent(layout, tb, k, n, ldb), elem, func, "B");
    }
    if (s == GEMM_OK && work != GEMM__WORK_NONE) s = gemm__cl_fits(C, offc, gemm__cl_extent(layout, m, n, ldc), elem, func, "C");
    if (s != GEMM_OK) return s;
    gemm__cl_lock_take(&ctx->lock);
    if (work == GEMM__WORK_NONE) {
        cl_int e = event || nw ? clEnqueueMarkerWithWaitList(ctx->queue, nw, wait, event) : CL_SUCCESS;
        if (e != CL_SUCCESS) s = gemm__cl_fail(e, "clEnqueueMarkerWithWaitList");
    } else {
        gemm__cl_canon(&call, layout, ta, tb, m, n, k, alpha, A, offa, lda, B, offb, ldb, beta, C, offc, ldc, work);
        s = gemm__cl_select(ctx, prec, &g);
        if (s == GEMM_OK) s = gemm__cl_enqueue(ctx, &ctx->lane[0], g, &call, 0, nw, wait, event);
    }
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

/* The four entry points, written once: precision is all that differs. */
#define GEMM__CL_DEFINE(NAME, HOSTNAME, T, PREC)                                                            \
    GEMM_DEF gemm_status NAME(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,              \
                              gemm_transpose transb, int64_t m, int64_t n, int64_t k, T alpha, cl_mem A,    \
                              size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb, T beta,          \
                              cl_mem C, size_t offc, int64_t ldc, cl_uint num_wait, const cl_event *wait,    \
                              cl_event *event)                                                              \
    {                                                                                                        \
        gemm__clear_error();                                                                                 \
        return gemm__cl_buffers(ctx, PREC, #NAME, layout, transa, transb, m, n, k, alpha, A, offa, lda, B,   \
                                offb, ldb, beta, C, offc, ldc, num_wait, wait, event);                       \
    }                                                                                                        \
    GEMM_DEF gemm_status HOSTNAME(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,          \
                                  gemm_transpose transb, int64_t m, int64_t n, int64_t k, T alpha,          \
                                  const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C,            \
                                  int64_t ldc, gemm_cl_timing *timing)                                      \
    {                                                                                                        \
        gemm__clear_error();                                                                                 \
        return gemm__cl_host(ctx, &ctx->lane[0], PREC, NULL, 0, #HOSTNAME, layout, transa, transb, m, n, k, alpha, A, lda,  \
                             B, ldb, beta, C, ldc, timing);                                                  \
    }
GEMM__CL_DEFINE(gemm_cl_sgemm, gemm_cl_sgemm_host, float, GEMM_CL_F32)
GEMM__CL_DEFINE(gemm_cl_dgemm, gemm_cl_dgemm_host, double, GEMM_CL_F64)
#undef GEMM__CL_DEFINE

/* ---- the autotuner ---- */

typedef struct gemm__cl_cand {
    gemm_cl_params p;
    double score;
} gemm__cl_cand;

/* Seconds per call on n x n x n: the best of 3 after a warm-up (other
   processes only ever slow a run down, so the minimum is the least noisy); < 0 on failure. */
static double gemm__cl_time(gemm_cl_context *ctx, gemm__cl_program *g, int path, int64_t n, cl_mem A, cl_mem B, cl_mem C)
{
    gemm__cl_call c;
    double t[3];
    int r, i;
    gemm__cl_canon(&c, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, A, 0, n, B, 0, n, 0.0, C, 0, n,
                   GEMM__WORK_FULL);
    for (r = -1; r < 3; r++) {
        double t0 = gemm__cl_now();
        if (gemm__cl_enqueue(ctx, &ctx->lane[1], g, &c, path, 0, NULL, NULL) != GEMM_OK ||
            clFinish(ctx->lane[1].queue) != CL_SUCCESS)
            return -1;
        if (r >= 0) t[r] = gemm__cl_now() - t0;
    }
    for (i = 1; i < 3; i++)
        if (t[i] < t[0]) t[0] = t[i];
    return t[0];
}

/* Checks 16 sampled elements of the last C = A B (row-major, n x n) on the host. */
static int gemm__cl_sample_ok(gemm_cl_context *ctx, gemm_cl_precision prec, int64_t n, const double *hA,
                              const double *hB, cl_mem C)
{
    size_t elem = gemm__cl_elem(prec);
    uint64_t x = 12345;
    int t;
    for (t = 0; t < 16; t++) {
        int64_t i, j, p;
        double sum = 0, got;
        float f;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        i = (int64_t)(x % (uint64_t)n);
        j = (int64_t)((x >> 20) % (uint64_t)n);
        for (p = 0; p < n; p++) sum += hA[i * n + p] * hB[p * n + j];
        if (prec == GEMM_CL_F64) {
            if (clEnqueueReadBuffer(ctx->lane[1].queue, C, CL_TRUE, (size_t)(i * n + j) * elem, elem, &got, 0, NULL, NULL)) return 0;
        } else {
            if (clEnqueueReadBuffer(ctx->lane[1].queue, C, CL_TRUE, (size_t)(i * n + j) * elem, elem, &f, 0, NULL, NULL)) return 0;
            got = f;
        }
        if (!(fabs(got - sum) <= 4 * (prec == GEMM_CL_F64 ? 2.220446049250313e-16 : 1.1920929e-7) * (double)n * 0.25))
            return 0;
    }
    return 1;
}

/* The search space: the seed paper's blocking factors, vector widths,
   local-memory use and packed layout, shaped by the kind of device. */
static int gemm__cl_space(const gemm_cl_context *ctx, gemm_cl_precision prec, int tiny, gemm__cl_cand *out, int max,
                          int *fixed)
{
    static const int dims[] = {8, 16, 32}, wis[] = {1, 2, 4, 8}, kwgs[] = {8, 16, 32}, vws[] = {1, 2, 4};
    static const int cpu_m[] = {4, 6, 8, 12, 16}, cpu_n[] = {8, 16, 32, 64}, cpu_v[] = {4, 8, 16}, cpu_k[] = {4, 8, 16};
    int cnt = 0, a, b, c, d, e, f, g, h;
    int gpu = (ctx->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
    size_t elem = gemm__cl_elem(prec);
    gemm_cl_params p;
    memset(&p, 0, sizeof p);
    if (tiny) {
        static const char *const small[] = {
            "MWG=4 NWG=8 KWG=2 MDIMC=1 NDIMC=1 VWM=1 VWN=4 SA=0 SB=0 PACK=1 DIRECT=0",
            "MWG=8 NWG=8 KWG=4 MDIMC=2 NDIMC=2 VWM=2 VWN=2 SA=1 SB=1 PACK=0 DIRECT=0",
            "MWG=16 NWG=16 KWG=3 MDIMC=4 NDIMC=4 VWM=1 VWN=2 SA=0 SB=1 PACK=1 DIRECT=0",
            /* more work-items than any device allows: must be skipped, not fail the run */
            "MWG=128 NWG=128 KWG=4 MDIMC=128 NDIMC=128 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=0",
        };
        for (a = 0; a < 4 && cnt < max; a++) gemm__cl_params_parse(small[a], &out[cnt++].p);
        return cnt;
    }
    *fixed = 0;
    if (gpu) { /* the usual GPU shapes first, then the space in random order */
        static const char *const seeds[] = {
            "MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=16 VWM=4 VWN=4 SA=1 SB=1 PACK=1 DIRECT=128",
            "MWG=128 NWG=128 KWG=8 MDIMC=16 NDIMC=16 VWM=2 VWN=4 SA=1 SB=1 PACK=1 DIRECT=128",
            "MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=16 VWM=4 VWN=4 SA=1 SB=1 PACK=1 DIRECT=128",
            "MWG=64 NWG=64 KWG=16 MDIMC=16 NDIMC=16 VWM=2 VWN=2 SA=1 SB=1 PACK=1 DIRECT=128",
        };
        for (a = 0; a < 4; a++)
            if (gemm__cl_params_parse(seeds[a], &p) && !gemm__cl_params_invalid(&p, ctx->max_wg, ctx->local_mem, elem))
                out[(*fixed)++].p = p;
        cnt = *fixed;
        memset(&p, 0, sizeof p);
        for (a = 0; a < 3; a++) for (b = 0; b < 3; b++) for (c = 0; c < 4; c++) for (d = 0; d < 4; d++)
        for (e = 0; e < 3; e++) for (f = 0; f < 3; f++) for (g = 0; g < 3; g++) for (h = 0; h < 3; h++) {
            p.mdimc = dims[a]; p.ndimc = dims[b];
            p.mwg = dims[a] * wis[c]; p.nwg = dims[b] * wis[d];
            p.kwg = kwgs[e]; p.vwm = vws[f]; p.vwn = vws[g];
            p.sa = p.sb = h != 2; p.pack = h != 0; p.direct = 128;
            if (p.mdimc * p.ndimc < 64 || p.mdimc * p.ndimc > 256 || wis[c] % p.vwm || wis[d] % p.vwn || wis[c] * wis[d] < 8) continue;
            if (gemm__cl_params_invalid(&p, ctx->max_wg, ctx->local_mem, elem) || cnt >= max) continue;
            out[cnt++].p = p;
        }
    } else {
        for (a = 0; a < 5; a++) for (b = 0; b < 4; b++) for (c = 0; c < 3; c++) for (d = 0; d < 3; d++)
        for (h = 0; h < 2; h++) {
            p.mdimc = p.ndimc = 1; p.mwg = cpu_m[a]; p.nwg = cpu_n[b]; p.vwm = 1; p.vwn = cpu_v[c];
            p.kwg = cpu_k[d]; p.sa = p.sb = 0; p.pack = h; p.direct = 64;
            if (p.nwg % p.vwn || p.mwg * p.nwg > 512 || p.mwg * p.nwg / p.vwn > 32 * (int)(8 / elem)) continue;
            if (gemm__cl_params_invalid(&p, ctx->max_wg, ctx->local_mem, elem) || cnt >= max) continue;
            out[cnt++].p = p;
        }
    }
    return cnt;
}

static int gemm__cl_by_score(const void *x, const void *y)
{
    double a = ((const gemm__cl_cand *)x)->score, b = ((const gemm__cl_cand *)y)->score;
    return a > b ? -1 : a < b;
}

/* Replaces this (precision, device)'s line of a tuning file, keeping the others. */
static gemm_status gemm__cl_write_tuning(const gemm_cl_context *ctx, const char *path, const char *newline,
                                         const char *prefix, const char *device)
{
    char tmp[600], line[512];
    FILE *in = fopen(path, "r"), *out;
    int header = 0;
    snprintf(tmp, sizeof tmp, "%.540s.%ld.%p.tmp", path, gemm__cl_pid(), (const void *)ctx); /* unique per writer */
    if (!(out = fopen(tmp, "w"))) {
        if (in) fclose(in);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_tune: cannot write %s", tmp);
    }
    while (in && fgets(line, sizeof line, in)) {
        const char *dev = strstr(line, "device=");
        if (line[0] == '#') header = 1;
        if (dev && strncmp(line, prefix, 4) == 0 && strncmp(dev + 7, device, strlen(device)) == 0 &&
            (dev[7 + strlen(device)] == '\n' || dev[7 + strlen(device)] == '\0'))
            continue;
        fputs(line, out);
    }
    if (in) fclose(in);
    if (!header && !in) fputs("# gemm_cl tuning file (gemm_cl_tune / make tune-cl): precision, parameters, device name\n", out);
    fprintf(out, "%s\n", newline);
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_tune: cannot write %s", path);
    }
    return GEMM_OK;
}

/* Frees the programs no precision's choice uses (the tuner's losers); lock held. */
static void gemm__cl_prune(gemm_cl_context *ctx)
{
    gemm__cl_program **at = &ctx->programs, *g;
    while ((g = *at) != NULL) {
        if (g == ctx->choice[0].prog || g == ctx->choice[1].prog) {
            at = &g->next;
        } else {
            *at = g->next;
            gemm__cl_program_free(g); /* OpenCL keeps it alive for commands still queued */
        }
    }
}

GEMM_DEF gemm_status gemm_cl_tune(gemm_cl_context *ctx, gemm_cl_precision prec, const gemm_cl_tune_options *options,
                                  gemm_cl_tune_result *result)
{
    gemm_cl_tune_options o;
    gemm__cl_cand *cands = NULL;
    gemm__cl_program *g;
    gemm_cl_params cur;
    gemm_cl_tune_result res;
    cl_mem A = NULL, B = NULL, C = NULL;
    double *hA = NULL, *hB = NULL, start = gemm__cl_now(), best_score = 0;
    void *conv = NULL;
    size_t elem = gemm__cl_elem(prec);
    int gpu, ncand, i, j, nref = 0, maxn = 0, best = -1, nfixed = 0;
    char line[512], pstr[256];
    cl_int e = CL_SUCCESS;
    gemm_status s;
    const int max_cand = 16384;

    gemm__clear_error();
    if (!ctx || (prec != GEMM_CL_F32 && prec != GEMM_CL_F64))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_tune: ctx is NULL or the precision is bad");
    if ((s = gemm__cl_check_more(ctx, prec, "gemm_cl_tune", 0, 0, 0)) != GEMM_OK) return s;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    memset(&res, 0, sizeof res);
    gpu = (ctx->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
    if (o.budget_s <= 0) o.budget_s = 120;
    if (o.refine_top <= 0) o.refine_top = 4;
    if (o.coarse_sizes[0] <= 0) {
        o.coarse_sizes[0] = o.tiny ? 48 : gpu ? 1024 : 512;
        o.coarse_sizes[1] = o.tiny ? 72 : gpu ? 2048 : 1024; /* CPUs: cache effects start near 1024 */
    }
    if (o.coarse_sizes[1] <= 0) o.coarse_sizes[1] = o.coarse_sizes[0];
    if (o.refine_sizes[0] <= 0) {
        o.refine_sizes[0] = o.tiny ? 64 : gpu ? 1024 : 512;
        o.refine_sizes[1] = o.tiny ? 96 : gpu ? 2048 : 1024;
        o.refine_sizes[2] = o.tiny ? 0 : gpu ? 4096 : 2048;
    }
    for (i = 0; i < 4 && o.refine_sizes[i] > 0; i++) nref++;
    for (i = 0; i < 2; i++) maxn = o.coarse_sizes[i] > maxn ? o.coarse_sizes[i] : maxn;
    for (i = 0; i < nref; i++) maxn = o.refine_sizes[i] > maxn ? o.refine_sizes[i] : maxn;
    if (maxn < 512) maxn = 512; /* the crossover search goes to 512 */

    cands = (gemm__cl_cand *)GEMM_MALLOC(sizeof *cands * (size_t)max_cand);
    hA = (double *)GEMM_MALLOC(sizeof(double) * (size_t)maxn * (size_t)maxn * 2);
    conv = GEMM_MALLOC(elem * (size_t)maxn * (size_t)maxn * 2);
    if (!cands || !hA || !conv) { s = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl_tune: out of host memory"); goto done; }
    hB = hA + (size_t)maxn * (size_t)maxn;
    {
        uint64_t x = 2463534242ull;
        size_t cnt = (size_t)maxn * (size_t)maxn * 2;
        for (i = 0; (size_t)i < cnt; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            hA[i] = (double)(x >> 40) / 16777216.0 - 0.5;
            if (prec == GEMM_CL_F64) ((double *)conv)[i] = hA[i];
            else ((float *)conv)[i] = (float)hA[i];
        }
    }
    A = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elem * (size_t)maxn * (size_t)maxn, conv, &e);
    if (e == CL_SUCCESS)
        B = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elem * (size_t)maxn * (size_t)maxn,
                           (char *)conv + elem * (size_t)maxn * (size_t)maxn, &e);
    if (e == CL_SUCCESS) C = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, elem * (size_t)maxn * (size_t)maxn, NULL, &e);
    if (e != CL_SUCCESS) { s = gemm__cl_fail(e, "gemm_cl_tune: clCreateBuffer"); goto done; }

    gemm__cl_lock_take(&ctx->lock);
    /* The set in use now goes first: the tuner never does worse than it. */
    s = gemm__cl_select(ctx, prec, &g);
    if (s == GEMM_OK) cur = ctx->choice[prec].params;
    else gemm__cl_params_parse(gemm__cl_safe, &cur);
    cands[0].p = cur;
    ncand = 1 + gemm__cl_space(ctx, prec, o.tiny, cands + 1, max_cand - 1, &nfixed);
    {   /* shuffle the rest: with a budget, sample the space evenly */
        uint64_t x = 99991;
        for (i = ncand - 1; i > 1 + nfixed; i--) {
            gemm__cl_cand t;
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            j = 1 + nfixed + (int)(x % (uint64_t)(i - nfixed));
            t = cands[i]; cands[i] = cands[j]; cands[j] = t;
        }
    }
    if (o.max_candidates > 0 && ncand > o.max_candidates) ncand = o.max_candidates;

    /* Coarse pass: every candidate at the two sizes, within 70% of the budget. */
    for (i = 0; i < ncand; i++) {
        double t0, t1, n0 = o.coarse_sizes[0], n1 = o.coarse_sizes[1];
        gemm_cl_params_str(&cands[i].p, pstr, sizeof pstr);
        cands[i].score = -1;
        if (gemm__cl_now() - start > 0.7 * o.budget_s) { ncand = i; break; }
        res.tried++;
        if (gemm__cl_try(ctx, prec, &cands[i].p, &g) != GEMM_OK) {
            res.failed++;
            snprintf(line, sizeof line, "skip %s: %.200s", pstr, gemm_last_error_detail());
        } else if ((t0 = gemm__cl_time(ctx, g, 2, o.coarse_sizes[0], A, B, C)) < 0 ||
                   !gemm__cl_sample_ok(ctx, prec, o.coarse_sizes[0], hA, hB, C) ||
                   (t1 = gemm__cl_time(ctx, g, 2, o.coarse_sizes[1], A, B, C)) < 0) {
            res.failed++;
            snprintf(line, sizeof line, "skip %s: failed to run or wrong result", pstr);
        } else {
            res.built++;
            cands[i].score = 0.5 * (2e-9 * n0 * n0 * n0 / t0 + 2e-9 * n1 * n1 * n1 / t1);
            snprintf(line, sizeof line, "%8.1f GFLOP/s  %s", cands[i].score, pstr);
        }
        if (o.progress) o.progress(o.user, i + 1, ncand, line);
    }
    qsort(cands, (size_t)ncand, sizeof *cands, gemm__cl_by_score);

    /* Refinement: the best few over the range of sizes, mean GFLOP/s; each one
       with local memory also with DB toggled (one barrier per step, or two). */
    for (i = 0; i < 2 * o.refine_top && i / 2 < ncand && cands[i / 2].score > 0; i++) {
        gemm_cl_params q = cands[i / 2].p;
        double sum = 0;
        int ok;
        if (i % 2) {
            if (!q.sa && !q.sb) continue;
            q.db = !q.db;
        }
        ok = gemm__cl_try(ctx, prec, &q, &g) == GEMM_OK;
        for (j = 0; ok && j < nref; j++) {
            double n = o.refine_sizes[j], t = gemm__cl_time(ctx, g, 2, o.refine_sizes[j], A, B, C);
            ok = t > 0;
            sum += ok ? 2e-9 * n * n * n / t : 0;
        }
        gemm_cl_params_str(&q, pstr, sizeof pstr);
        snprintf(line, sizeof line, "refine %8.1f GFLOP/s  %s", ok ? sum / nref : 0.0, pstr);
        if (o.progress) o.progress(o.user, i + 1, 2 * o.refine_top, line);
        if (ok && sum / nref > best_score) {
            best_score = sum / nref;
            res.best = q;
            best = i;
        }
        if (gemm__cl_now() - start > o.budget_s) break;
    }
    if (best < 0) {
        gemm__cl_prune(ctx);
        gemm__cl_lock_give(&ctx->lock);
        s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl_tune: no candidate built and ran correctly on %s", ctx->device_name);
        goto done;
    }

    /* Crossover: the largest size (up to 512) where the direct kernel still wins. */
    res.best.direct = 0;
    s = gemm__cl_try(ctx, prec, &res.best, &g);
    if (s == GEMM_OK) {
        for (i = 16; i <= 512; i = i < 64 ? i + 16 : i * 3 / 2) {
            double td = gemm__cl_time(ctx, g, 1, i, A, B, C), tt = gemm__cl_time(ctx, g, 2, i, A, B, C);
            if (td > 0 && tt > 0 && td < tt) res.best.direct = i;
            else break;
        }
        gemm__cl_install(ctx, prec, g, &res.best, "tuned");
    }
    gemm__cl_prune(ctx);
    gemm__cl_lock_give(&ctx->lock);
    res.best_gflops = best_score;
    gemm_cl_params_str(&res.best, pstr, sizeof pstr);
    snprintf(res.line, sizeof res.line, "%s %.200s device=%.255s", prec == GEMM_CL_F64 ? "f64" : "f32", pstr,
             ctx->device_name);
    if (s == GEMM_OK && o.output && o.output[0])
        s = gemm__cl_write_tuning(ctx, o.output, res.line, prec == GEMM_CL_F64 ? "f64 " : "f32 ", ctx->device_name);
done:
    if (A) clReleaseMemObject(A);
    if (B) clReleaseMemObject(B);
    if (C) clReleaseMemObject(C);
    if (cands) GEMM_FREE(cands);
    if (hA) GEMM_FREE(hA);
    if (conv) GEMM_FREE(conv);
    if (result) *result = res;
    return s;
}

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */
/* <<cl whole_cl */
