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
       dimension and offset, so the eight cases run on one tuned kernel. The
       kernels see a row-major C: gemm.h's column-major form of the call, an
       m x n C, is a row-major n x m C with A and B swapped. Small problems
       (m*n*k <= params.direct^3) skip the copies and run a direct kernel
       instead; the crossover is measured by the tuner. On GPUs, the members
       of a batch that would fill at most half of the tiled kernel's tiles
       (64^3 in 128 x 128) run a small-tile kernel instead: 32 x 32 or
       64 x 64 tiles read in place through local memory, no copies, each
       element summed as the direct kernel sums it (params.small: 0 by this
       rule, 1 never, 32 or 64 that tile for every call past the crossover).

   Parameters, tuning and self-check
       For each precision the first call picks a parameter set: the last line
       of the tuning file ($GEMM_CL_TUNING_FILE or the create options'
       tuning_file; at most its first MiB is read) for this device, else the
       last matching line of the built-in table (PoCL on x86-64 CPUs, NVIDIA
       H100/H200), else a generic default; gemm_cl_kernel_info_get() names
       the one in use ("tuning file F, line N", "built-in: KEY", ...). The
       chosen kernel is built once per context, then checked against the
       reference on a small problem. A set that fails to build or to check is
       replaced by the safe default kernel; gemm_cl_kernel_info_get() (and,
       for that call, gemm_last_error_detail()) says why. A transient failure
       (out of host or device memory) is returned as such and replaces
       nothing: the next call tries again. gemm_cl_tune() (and `make
       tune-cl`) searches the parameter space on the device and appends its
       line to the tuning file it is given: one line per (device,
       precision), plain text, the last line for a device wins.

   Disk cache ($GEMM_CL_CACHE_DIR or the create options' cache_dir)
       Each built program is stored there as one file per (device, driver,
       build options, source): a 48-byte header (magic "gemmclb\n", format
       version, header length, a 128-bit key, the binary's length and
       FNV-1a hash, little-endian) and the driver's binary. An entry that is
       damaged (cut short, overwritten), belongs to another key, is refused
       by the driver, or whose kernel fails the self-check is removed and
       the program built from source again; the checks stop accidents before
       the binary reaches the driver, not an attacker who can write the
       directory. Files are written under a private name and renamed, so
       processes may share a directory.
       What it buys is the compilation in the first call of each precision
       in a new process; context creation, the self-check and the copies
       remain. On PoCL (CPUs) the binary is native code: a first call of
       about a second (2-core x86-64) becomes a few hundredths of one, and
       PoCL's own kernel cache, on by default, buys most of that too. On
       NVIDIA the binary is PTX, compiled again to machine code when loaded:
       with the driver's own cache off (CUDA_CACHE_DISABLE=1) the first call
       on an H100 went from 2.4 s to 1.1 s; with it on (the default,
       ~/.nv/ComputeCache), the driver caches that second step and ours
       saves the OpenCL C front end. Creating an NVIDIA context takes 2-3 s
       more, cache or not.

   Choosing the device (gemm_cl_create_options)
       device_name (a substring of "platform: device"), else the
       GEMM_CL_DEVICE environment variable (a substring, or "P:D" indices),
       else the platform / device indices (0 = first). Or hand over your own
       cl_context + cl_command_queue (in-order).

   Calls
       gemm_cl_sgemm / gemm_cl_dgemm work on cl_mem buffers with element
       offsets, enqueue asynchronously on the context's queue after an optional
       wait list, and return the last kernel's event if asked (both in the
       per-call gemm_cl_options). The _host variants take host pointers, block,
       and can fill a gemm_timing. fp64 needs cl_khr_fp64
       (GEMM_ERR_UNAVAILABLE otherwise). Semantics, checks and errors are
       gemm.h's; every OpenCL error becomes a status with the call and the
       error's name in gemm_last_error_detail().
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

/* >>cl api: src/cl/api.h */
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
/* <<cl api */

#define GEMM__CL_API_DONE
#endif /* GEMM_CL_H_INCLUDED */

/* ====================================================================== */
/*  IMPLEMENTATION                                                         */
/* ====================================================================== */

#if defined(GEMM_IMPLEMENTATION) && defined(GEMM__CL_API_DONE) && !defined(GEMM__CL_IMPLEMENTED)
#define GEMM__CL_IMPLEMENTED

#include <math.h>
#include <stddef.h>
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

/* The kernels, one OpenCL C source in literals each under C99's 4095
   characters (and MSVC's limits); the host prepends the #defines. */
static const char *const gemm__cl_source[] = {
/* >>cl gemm: src/cl/gemm.cl (7 literals) */
    "/* gemm_cl kernels: pack, direct, small (batches) and tiled. The host prepends a parameter set\n"
    "   as #defines; each #ifndef below is the value used when one is left out, so\n"
    "   this file also compiles on its own (tests/test_cl.sh checks it with clang).\n"
    "   Helper functions carry INLINE: they must be inlined before the compiler\n"
    "   unrolls their loops and keeps the sums in registers (PoCL inlines only\n"
    "   later, and ran them at half speed). Not C99's `inline`, whose rules for\n"
    "   functions that are not static differ between OpenCL drivers. */\n"
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
    "#ifndef WARPM\n"
    "#define WARPM 0 /* >0: each 32 consecutive work-items (a warp) are WARPM along M x 32/WARPM along N */\n"
    "#endif\n"
    "\n"
    "#ifndef INLINE\n"
    "#define INLINE __attribute__((always_inline))\n"
    "#endif\n"
    "\n"
    "#define MWI (MWG / MDIMC) /* rows of C per work-item */\n"
    "#define NWI (NWG / NDIMC) /* columns of C per work-item */\n"
    "#define WGS (MDIMC * NDIMC) /* work-items per work-group */\n"
    "/* vectors of the A and B tiles each work-item moves to local memory */\n"
    "#define LA ((KWG * MWG / VWM + WGS - 1) / WGS)\n"
    "#define LB ((KWG * NWG / VWN + WGS - 1) / WGS)\n"
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
    "/* Element e of a vector of width 1..16 by component selects, not through\n"
    "   its address: a vector whose address is taken may live in slow private\n"
    "   memory on GPUs. With e known after unrolling the selects fold away. */\n"
    "#define GET1(v, e) (v)\n"
    "#define GET2(v, e) ((e) == 0 ? (v).s0 : (v).s1)\n"
    "#define GET4(v, e) ((e) < 2 ? GET2((v).lo, (e)) : GET2((v).hi, (e) - 2))\n"
    "#define GET8(v, e) ((e) < 4 ? GET4((v).lo, (e)) : GET4((v).hi, (e) - 4))\n"
    "#define GET16(v, e) ((e) < 8 ? GET8((v).lo, (e)) : GET8((v).hi, (e) - 8))\n"
    "#define ELEMM(v, e) GLUE(GET, VWM)(v, e)\n"
    "#define ELEMN(v, e) GLUE(GET, VWN)(v, e)\n"
    "#if VWM == 1\n"
    "typedef real realM;\n"
    "#else\n"
    "typedef GLUE(GEMM_CL_REAL, VWM) realM;\n"
    "#endif\n"
    "#if VWN == 1\n"
    "typedef real realN;\n"
    "#else\n"
    "typedef GLUE(GEMM_CL_REAL, VWN) realN;\n"
    "#endif\n"
    "/* Vectors of the packed operands and the local tiles: aligned to their\n"
    "   size (the pack kernel lays every tile row out on a multiple of VWM, VWN\n"
    "   elements, and buffers start aligned), so one wide load or store each: a\n"
    "   vloadN may only assume its element's alignment and is split into\n"
    "   scalar loads by some compilers. C, the caller's, takes vload / vstore. */\n"
    "#define TILEM(space, p) (*(space realM *)(p))\n"
    "#define TILEN(space, p) (*(space realN *)(p))\n"
    "#if VWN == 1\n"
    "#define LOADC(p) (*(p))\n"
    "#define STOREC(x, p) (*(p) = (x))\n"
    "#else\n"
    "#define LOADC(p) GLUE(vload, VWN)(0, p)\n"
    "#define STOREC(x, p) GLUE(vstore, VWN)(x, 0, p)\n"
    "#endif\n"
    "\n",
    "/* The distance between two k rows of a packed operand: the tile width in a\n"
    "   panel (PACK 1), the padded width otherwise, where KWG * Mp can pass 2^31. */\n"
    "#if PACK\n"
    "typedef int stride;\n"
    "#else\n"
    "typedef long stride;\n"
    "#endif\n"
    "/* Where the tiled kernel reads its tiles: local memory or the packed operands. */\n"
    "#if SA\n"
    "#define A_SPACE __local\n"
    "#else\n"
    "#define A_SPACE __global\n"
    "#endif\n"
    "#if SB\n"
    "#define B_SPACE __local\n"
    "#else\n"
    "#define B_SPACE __global\n"
    "#endif\n"
    "\n"
    "/* Batches: the third NDRange dimension runs over the members (a single\n"
    "   call is a batch of one), z = get_global_id(2), member first + z. Member b\n"
    "   of an operand starts at off + b*stride elements, or at off + list[b] when\n"
    "   the host passes a list of offsets (pointer-array batches). */\n"
    "INLINE long member_at(const long off, const long stride, const __global long *list, const long b)\n"
    "{\n"
    "    return off + (list ? list[b] : b * stride);\n"
    "}\n"
    "\n"
    "/* Copies op(X), R x K with element (r, p) at X[r*rs + p*ps] (X: member\n"
    "   first + z), into the packed, zero-padded Rp x Kp form the tiled kernel\n"
    "   reads (member z of P, Rp*Kp apart): element (r, p) at P[p*Rp + r] (PACK 0)\n"
    "   or, panel by panel of `tile` rows, P[(r/tile)*Kp*tile + p*tile + r%tile]\n"
    "   (PACK 1). One kernel serves A and B, every layout and transpose: they are\n"
    "   only strides. */\n"
    "__kernel void gemm_cl_pack(const int R, const int K, const int Rp, const int Kp, const int tile,\n"
    "                           const __global real *X, const long offx, const long xs, const __global long *xl,\n"
    "                           const long first, const long rs, const long ps, __global real *P)\n"
    "{\n"
    "    const int r = (int)get_global_id(0), p = (int)get_global_id(1);\n"
    "    const long z = (long)get_global_id(2);\n"
    "    if (r >= Rp || p >= Kp) return;\n"
    "    X += member_at(offx, xs, xl, first + z);\n"
    "    P += z * Rp * Kp;\n"
    "    const real v = r < R && p < K ? X[r * rs + p * ps] : (real)0;\n"
    "#if PACK\n"
    "    P[(long)(r / tile) * Kp * tile + (long)p * tile + r % tile] = v;\n"
    "#else\n"
    "    (void)tile;\n"
    "    P[(long)p * Rp + r] = v;\n"
    "#endif\n"
    "}\n"
    "\n"
    "/* The same copy for CPUs, where one element per work-item (with a division\n"
    "   each) ran at a gigabyte per second: a work-item moves a block of `tile`\n"
    "   rows by KWG k rows of the packed form, loops a compiler vectorises. */\n"
    "__kernel void gemm_cl_pack_rows(const int R, const int K, const int Rp, const int Kp, const int tile,\n"
    "                                const __global real *X, const long offx, const long xs, const __global long *xl,\n"
    "                                const long first, const long rs, const long ps, __global real *P)\n"
    "{\n"
    "    const int g = (int)get_global_id(0), p0 = (int)get_global_id(1) * KWG;\n"
    "    const long z = (long)get_global_id(2);\n"
    "    if (g * tile >= Rp || p0 >= Kp) return;\n"
    "    const int rows = min(tile, R - g * tile);\n"
    "    const __global real *src = X + member_at(offx, xs, xl, first + z) + (long)g * tile * rs;\n"
    "    P += z * Rp * Kp;\n"
    "    for (int p = p0; p < p0 + KWG; p++) {\n"
    "#if PACK\n"
    "        __global real *dst = P + (long)g * Kp * tile + (long)p * tile;\n"
    "#else\n"
    "        __global real *dst = P + (long)p * Rp + g * tile;\n"
    "#endif\n"
    "        if (p < K) {\n"
    "            for (int e = 0; e < rows; e++) dst[e] = src[e * rs + p * ps];\n"
    "            for (int e = max(rows, 0); e < tile; e++) dst[e] = (real)0;\n"
    "        } else {\n"
    "            for (int e = 0; e < tile; e++) dst[e] = (real)0;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "/* Writes alpha*ab + beta*c into *c; beta == 0 never reads C. */\n"
    "INLINE void store_one(__global real *c, const real ab, const real alpha, const real beta)\n"
    "{\n"
    "    *c = beta != (real)0 ? alpha * ab + beta * *c : alpha * ab;\n"
    "}\n"
    "\n",
    "/* Small problems: one work-item per element of C, reading A and B where they\n"
    "   are, no copies. Row-major C (the host hands over the transposed problem of\n"
    "   its column-major form). K == 0 with alpha == 0 is how the host scales C by\n"
    "   beta. Member first + z of a batch, as the pack kernels. */\n"
    "__kernel void gemm_cl_direct(const int M, const int N, const int K, const real alpha, const real beta,\n"
    "                             const __global real *A, const long offa, const long as, const __global long *al,\n"
    "                             const long ars, const long acs,\n"
    "                             const __global real *B, const long offb, const long bs, const __global long *bl,\n"
    "                             const long brs, const long bcs,\n"
    "                             __global real *C, const long offc, const long cs, const __global long *cl,\n"
    "                             const long ldc, const long first)\n"
    "{\n"
    "    const int j = (int)get_global_id(0), i = (int)get_global_id(1);\n"
    "    const long member = first + (long)get_global_id(2);\n"
    "    if (i >= M || j >= N) return;\n"
    "    const __global real *a = A + member_at(offa, as, al, member) + i * ars;\n"
    "    const __global real *b = B + member_at(offb, bs, bl, member) + j * bcs;\n"
    "    real sum = (real)0;\n"
    "    for (int p = 0; p < K; p++) sum = fma(a[p * acs], b[p * brs], sum);\n"
    "    store_one(C + member_at(offc, cs, cl, member) + i * ldc + j, sum, alpha, beta);\n"
    "}\n"
    "\n"
    "/* Small members of a batch (a 64^3 member fills a quarter of a 128 x 128\n"
    "   tile of the tiled kernel, and its packs are a second pass over A and B):\n"
    "   tiles of T x T of C (T = 32 or 64) read in place from A and B through\n"
    "   local memory, no packing, the next k-step's loads in flight while this\n"
    "   one is multiplied; DIM x DIM work-items (8 x 8 or 16 x 16), each\n"
    "   with a SMALL_W x SMALL_W block of C: rows tm*W.., columns tn*W.., read\n"
    "   from the local tiles as W-vectors (the work-items of a warp read\n"
    "   consecutive B vectors and a few broadcast A vectors: no bank conflicts).\n"
    "   Every element is summed in the direct kernel's order, one fma per k, and\n"
    "   stored as it does: the members are bitwise the direct kernel's. */\n"
    "#define SMALL_KT 16 /* k-depth of one local-memory step */\n"
    "#define SMALL_W 4   /* rows and columns of C per work-item */\n"
    "typedef GLUE(GEMM_CL_REAL, 4) realW;\n"
    "\n"
    "/* Element l of this work-item's share of a T x SMALL_KT block of op(X)\n"
    "   (element (r, q) at X[r*rs + q*ps]): consecutive work-items take\n"
    "   consecutive addresses, along q where ps == 1 (then 16 of them share a\n"
    "   row), along r otherwise. */\n"
    "#define SMALL_R(x) (ps == 1 ? (x) / SMALL_KT : (x) % T)\n"
    "#define SMALL_Q(x) (ps == 1 ? (x) % SMALL_KT : (x) / T)\n"
    "#define SMALL_MAXL 8 /* elements of a block per work-item: T * SMALL_KT / WG, 4 or 8 */\n"
    "\n"
    "/* This work-item's share of the block at rows r0.., ks q0.., into\n"
    "   registers (zeros outside R x K): the next block's loads are issued\n"
    "   before this one is multiplied. */\n"
    "static INLINE void small_fetch(real v[SMALL_MAXL], const __global real *X, const long rs, const long ps,\n"
    "                               const int R, const int K, const int r0, const int q0, const int T, const int WG,\n"
    "                               const int tid)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int l = 0; l < T * SMALL_KT / WG; l++) {\n"
    "        const int gr = r0 + SMALL_R(tid + l * WG), gq = q0 + SMALL_Q(tid + l * WG);\n"
    "        v[l] = gr < R && gq < K ? X[gr * rs + gq * ps] : (real)0;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* ...and from the registers into the local tile, element (r, q) at\n"
    "   t[q*(T + SMALL_W) + r]: rows padded by a vector, which keeps them aligned\n"
    "   for the vector reads. */\n"
    "static INLINE void small_stash(__local real *t, const real v[SMALL_MAXL], const long ps, const int T, const int WG,\n"
    "                               const int tid)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int l = 0; l < T * SMALL_KT / WG; l++)\n"
    "        t[SMALL_Q(tid + l * WG) * (T + SMALL_W) + SMALL_R(tid + l * WG)] = v[l];\n"
    "}\n"
    "\n",
    "/* acc[u] (row u of this work-item's block) += its A rows times its B\n"
    "   columns for k row kk of the local tiles. */\n"
    "#define SMALL_FMA(kk)                                                                                                \\\n"
    "    do {                                                                                                             \\\n"
    "        const realW a_ = *(const __local realW *)(at + (kk) * (T + SMALL_W) + tm * SMALL_W);                          \\\n"
    "        const realW b_ = *(const __local realW *)(bt + (kk) * (T + SMALL_W) + tn * SMALL_W);                          \\\n"
    "        acc[0] = fma((realW)a_.s0, b_, acc[0]);                                                                      \\\n"
    "        acc[1] = fma((realW)a_.s1, b_, acc[1]);                                                                      \\\n"
    "        acc[2] = fma((realW)a_.s2, b_, acc[2]);                                                                      \\\n"
    "        acc[3] = fma((realW)a_.s3, b_, acc[3]);                                                                      \\\n"
    "    } while (0)\n"
    "\n"
    "/* One k-step, unrolled. */\n"
    "static INLINE void small_step(realW acc[SMALL_W], const __local real *at, const __local real *bt, const int T,\n"
    "                              const int tm, const int tn)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int kk = 0; kk < SMALL_KT; kk++) SMALL_FMA(kk);\n"
    "}\n"
    "\n"
    "/* One T x T tile of C of member first + get_group_id(2), with the direct\n"
    "   kernel's arguments; at, bt: the kernel's local tiles. The zeros of a\n"
    "   partial last k-step add nothing: fma(0, 0, s) is s for every s but -0,\n"
    "   and a sum that starts at +0 never becomes -0. */\n"
    "static INLINE void small_tile(__local real *at, __local real *bt, const int T, const int DIM, const int M,\n"
    "                              const int N, const int K, const real alpha, const real beta,\n"
    "                              const __global real *A, const long offa, const long as, const __global long *al,\n"
    "                              const long ars, const long acs,\n"
    "                              const __global real *B, const long offb, const long bs, const __global long *bl,\n"
    "                              const long brs, const long bcs,\n"
    "                              __global real *C, const long offc, const long cs, const __global long *cl,\n"
    "                              const long ldc, const long first)\n"
    "{\n"
    "    const int tn = (int)get_local_id(0), tm = (int)get_local_id(1), tid = tm * DIM + tn;\n"
    "    const int row0 = (int)get_group_id(1) * T, col0 = (int)get_group_id(0) * T;\n"
    "    const long member = first + (long)get_group_id(2);\n"
    "    A += member_at(offa, as, al, member);\n"
    "    B += member_at(offb, bs, bl, member);\n"
    "    C += member_at(offc, cs, cl, member);\n"
    "    const int WG = DIM * DIM;\n"
    "    real va[SMALL_MAXL], vb[SMALL_MAXL];\n"
    "    realW acc[SMALL_W];\n"
    "#pragma unroll\n"
    "    for (int u = 0; u < SMALL_W; u++) acc[u] = (realW)0;\n"
    "    small_fetch(va, A, ars, acs, M, K, row0, 0, T, WG, tid);\n"
    "    small_fetch(vb, B, bcs, brs, N, K, col0, 0, T, WG, tid);\n"
    "    for (int k0 = 0; k0 < K; k0 += SMALL_KT) {\n"
    "        small_stash(at, va, acs, T, WG, tid);\n"
    "        small_stash(bt, vb, brs, T, WG, tid);\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        if (k0 + SMALL_KT < K) {\n"
    "            small_fetch(va, A, ars, acs, M, K, row0, k0 + SMALL_KT, T, WG, tid);\n"
    "            small_fetch(vb, B, bcs, brs, N, K, col0, k0 + SMALL_KT, T, WG, tid);\n"
    "        }\n"
    "        small_step(acc, at, bt, T, tm, tn);\n"
    "        barrier(CLK_LOCAL_MEM_FENCE); /* everyone is done with the tiles before the next stash */\n"
    "    }\n"
    "#pragma unroll\n"
    "    for (int u = 0; u < SMALL_W; u++) {\n"
    "        const int i = row0 + tm * SMALL_W + u;\n"
    "        if (i >= M) continue;\n"
    "#pragma unroll\n"
    "        for (int v = 0; v < SMALL_W; v++) {\n"
    "            const int j = col0 + tn * SMALL_W + v;\n"
    "            if (j < N) store_one(C + (long)i * ldc + j, GET4(acc[u], v), alpha, beta);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n",
    "#define SMALL_ARGS                                                                                                   \\\n"
    "    const int M, const int N, const int K, const real alpha, const real beta, const __global real *A,                \\\n"
    "        const long offa, const long as, const __global long *al, const long ars, const long acs,                     \\\n"
    "        const __global real *B, const long offb, const long bs, const __global long *bl, const long brs,             \\\n"
    "        const long bcs, __global real *C, const long offc, const long cs, const __global long *cl, const long ldc,   \\\n"
    "        const long first\n"
    "#define SMALL_PASS \\\n"
    "    M, N, K, alpha, beta, A, offa, as, al, ars, acs, B, offb, bs, bl, brs, bcs, C, offc, cs, cl, ldc, first\n"
    "\n"
    "/* 32 x 32 tiles, 8 x 8 work-items; and 64 x 64 tiles, 16 x 16 work-items. */\n"
    "__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void gemm_cl_small32(SMALL_ARGS)\n"
    "{\n"
    "    __local real at[SMALL_KT * (32 + SMALL_W)] __attribute__((aligned(32)));\n"
    "    __local real bt[SMALL_KT * (32 + SMALL_W)] __attribute__((aligned(32)));\n"
    "    small_tile(at, bt, 32, 8, SMALL_PASS);\n"
    "}\n"
    "\n"
    "__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void gemm_cl_small64(SMALL_ARGS)\n"
    "{\n"
    "    __local real at[SMALL_KT * (64 + SMALL_W)] __attribute__((aligned(32)));\n"
    "    __local real bt[SMALL_KT * (64 + SMALL_W)] __attribute__((aligned(32)));\n"
    "    small_tile(at, bt, 64, 16, SMALL_PASS);\n"
    "}\n"
    "\n"
    "/* The distance between two k rows of a packed operand (Rp x Kp in tiles of\n"
    "   `width` rows), and where work-group g's first k row starts. */\n"
    "INLINE stride panel_rows(const int Rp, const int width)\n"
    "{\n"
    "#if PACK\n"
    "    (void)Rp;\n"
    "    return width;\n"
    "#else\n"
    "    (void)width;\n"
    "    return Rp;\n"
    "#endif\n"
    "}\n"
    "\n"
    "INLINE const __global real *panel(const __global real *P, const int g, const int Kp, const int width)\n"
    "{\n"
    "#if PACK\n"
    "    return P + (long)g * Kp * width;\n"
    "#else\n"
    "    (void)Kp;\n"
    "    return P + g * width;\n"
    "#endif\n"
    "}\n"
    "\n"
    "#if SA\n"
    "/* This work-item's share of the KWG x MWG tile of A at src, into registers:\n"
    "   the global loads of the next tile overlap the arithmetic on this one.\n"
    "   Unrolled, so ra[] stays in registers on GPUs, where local memory is used\n"
    "   (PoCL ran these loops unrolled 20% slower, but its sets use no local memory). */\n"
    "INLINE void fetch_a(realM ra[LA], const __global real *src, const stride as, const int tid)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int l = 0; l < LA; l++) {\n"
    "        const int x = tid + l * WGS;\n"
    "        if (x < KWG * MWG / VWM) ra[l] = TILEM(const __global, src + x / (MWG / VWM) * as + x % (MWG / VWM) * VWM);\n"
    "    }\n"
    "}\n"
    "\n"
    "/* ...and from the registers into the local tile (KWG rows of MWG). */\n"
    "INLINE void stash_a(__local real *tile, const realM ra[LA], const int tid)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int l = 0; l < LA; l++) {\n"
    "        const int x = tid + l * WGS;\n"
    "        if (x < KWG * MWG / VWM) TILEM(__local, tile + x * VWM) = ra[l];\n"
    "    }\n"
    "}\n"
    "#endif\n"
    "\n"
    "#if SB\n"
    "/* The same for the KWG x NWG tile of B. */\n"
    "INLINE void fetch_b(realN rb[LB], const __global real *src, const stride bs, const int tid)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int l = 0; l < LB; l++) {\n"
    "        const int x = tid + l * WGS;\n"
    "        if (x < KWG * NWG / VWN) rb[l] = TILEN(const __global, src + x / (NWG / VWN) * bs + x % (NWG / VWN) * VWN);\n"
    "    }\n"
    "}\n"
    "\n"
    "INLINE void stash_b(__local real *tile, const realN rb[LB], const int tid)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int l = 0; l < LB; l++) {\n"
    "        const int x = tid + l * WGS;\n"
    "        if (x < KWG * NWG / VWN) TILEN(__local, tile + x * VWN) = rb[l];\n"
    "    }\n"
    "}\n"
    "#endif\n"
    "\n",
    "/* acc += this work-item's rows of the A tile times its columns of the B\n"
    "   tile, over one step of KWG: tile row kk of A at at + kk*ats, of B at\n"
    "   bt + kk*bts. A work-item's rows are VWM-vectors spaced MDIMC*VWM apart\n"
    "   (its columns VWN-vectors spaced NDIMC*VWN apart), so neighbouring\n"
    "   work-items touch neighbouring vectors. */\n"
    "INLINE void multiply_step(realN acc[MWI][NWI / VWN], const A_SPACE real *at, const stride ats, const B_SPACE real *bt,\n"
    "                   const stride bts, const int tm, const int tn)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int kk = 0; kk < KWG; kk++) {\n"
    "        const A_SPACE real *ak = at + kk * ats;\n"
    "        const B_SPACE real *bk = bt + kk * bts;\n"
    "        realN bv[NWI / VWN];\n"
    "#pragma unroll\n"
    "        for (int v = 0; v < NWI / VWN; v++) bv[v] = TILEN(const B_SPACE, bk + (v * NDIMC + tn) * VWN);\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < MWI / VWM; u++) {\n"
    "            realM av = TILEM(const A_SPACE, ak + (u * MDIMC + tm) * VWM);\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < VWM; e++)\n"
    "#pragma unroll\n"
    "                for (int v = 0; v < NWI / VWN; v++)\n"
    "                    acc[u * VWM + e][v] = fma((realN)ELEMM(av, e), bv[v], acc[u * VWM + e][v]);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "/* C = alpha * acc + beta * C for this work-item's elements inside M x N;\n"
    "   whole vectors where they fit, elements at the ragged edge. */\n"
    "INLINE void store_tile(__global real *C, const long ldc, const int M, const int N, const int row0, const int col0,\n"
    "                const int tm, const int tn, const real alpha, const real beta, realN acc[MWI][NWI / VWN])\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int u = 0; u < MWI / VWM; u++)\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < VWM; e++) {\n"
    "            const int i = row0 + (u * MDIMC + tm) * VWM + e;\n"
    "            if (i >= M) continue;\n"
    "            __global real *crow = C + (long)i * ldc;\n"
    "#pragma unroll\n"
    "            for (int v = 0; v < NWI / VWN; v++) {\n"
    "                const int j = col0 + (v * NDIMC + tn) * VWN;\n"
    "                const realN r = acc[u * VWM + e][v];\n"
    "                if (j + VWN <= N) {\n"
    "                    if (beta != (real)0) STOREC(alpha * r + beta * LOADC(crow + j), crow + j);\n"
    "                    else STOREC(alpha * r, crow + j);\n"
    "                } else {\n"
    "                    for (int c = 0; c < VWN && j + c < N; c++) store_one(crow + j + c, ELEMN(r, c), alpha, beta);\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "}\n"
    "\n"
    "/* Where work-item tid computes in the grid of C's blocks (tm along M, tn\n"
    "   along N). With WARPM, warp-level tiling: warp w covers WARPM x 32/WARPM\n"
    "   work-items of the grid, so one vector read of the local A (B) tile by the\n"
    "   warp touches WARPM (32/WARPM) consecutive vectors of one row: few\n"
    "   distinct addresses, each a broadcast, and no bank conflicts. */\n"
    "INLINE int place_m(const int tid)\n"
    "{\n"
    "#if WARPM\n"
    "    return (tid / 32 % (MDIMC / WARPM)) * WARPM + tid % 32 % WARPM;\n"
    "#else\n"
    "    (void)tid;\n"
    "    return (int)get_local_id(1);\n"
    "#endif\n"
    "}\n"
    "\n"
    "INLINE int place_n(const int tid)\n"
    "{\n"
    "#if WARPM\n"
    "    return (tid / 32 / (MDIMC / WARPM)) * (32 / WARPM) + tid % 32 / WARPM;\n"
    "#else\n"
    "    (void)tid;\n"
    "    return (int)get_local_id(0);\n"
    "#endif\n"
    "}\n"
    "\n",
    "/* The tuned kernel: C = alpha * A B + beta * C for packed A (Mp x Kp) and B\n"
    "   (Np x Kp), row-major C. A work-group computes an MWG x NWG tile with\n"
    "   MDIMC x NDIMC work-items; each holds an MWI x NWI block of sums in\n"
    "   registers (coalesced on GPUs, conflict-free in local memory, and plain\n"
    "   contiguous rows when MDIMC = NDIMC = 1 on CPUs). With SA/SB the tiles go\n"
    "   through local memory: a tile is stored, one barrier, then the next is\n"
    "   fetched into registers while this one is multiplied; without DB a second\n"
    "   barrier keeps the stores of the next step off a tile still being read.\n"
    "   Batches: group z of the third dimension is member first + z, its packed\n"
    "   operands pas (pbs) elements after member z-1's (0: one shared by all). */\n"
    "__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))\n"
    "void gemm_cl_tiled(const int M, const int N, const int Kp, const int Mp, const int Np,\n"
    "                   const real alpha, const real beta,\n"
    "                   const __global real *restrict Ap, const long pas, const __global real *restrict Bp, const long pbs,\n"
    "                   __global real *C, const long offc, const long cs, const __global long *cl, const long ldc,\n"
    "                   const long first)\n"
    "{\n"
    "    /* tid: the work-item's place in the group, for the cooperative copies\n"
    "       (consecutive tids read consecutive vectors: coalesced); (tm, tn): its\n"
    "       place in the grid of C's blocks */\n"
    "    const int tid = (int)get_local_id(1) * NDIMC + (int)get_local_id(0);\n"
    "    const int tm = place_m(tid), tn = place_n(tid);\n"
    "    const int gn = (int)get_group_id(0), gm = (int)get_group_id(1);\n"
    "    const long z = (long)get_group_id(2);\n"
    "    Ap += z * pas;\n"
    "    Bp += z * pbs;\n"
    "    (void)tid; /* unused without local memory or WARPM */\n"
    "    const stride as = panel_rows(Mp, MWG), bs = panel_rows(Np, NWG);\n"
    "    const __global real *a = panel(Ap, gm, Kp, MWG), *b = panel(Bp, gn, Kp, NWG);\n"
    "#if SA || SB\n"
    "    int cur = 0; /* which of the DB tiles is current (not \"half\": a type in OpenCL C) */\n"
    "#endif\n"
    "#if SA\n"
    "    __local real alm[(1 + DB) * KWG * MWG] __attribute__((aligned(128)));\n"
    "    realM ra[LA];\n"
    "    fetch_a(ra, a, as, tid);\n"
    "#endif\n"
    "#if SB\n"
    "    __local real blm[(1 + DB) * KWG * NWG] __attribute__((aligned(128)));\n"
    "    realN rb[LB];\n"
    "    fetch_b(rb, b, bs, tid);\n"
    "#endif\n"
    "    realN acc[MWI][NWI / VWN];\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < MWI; i++)\n"
    "#pragma unroll\n"
    "        for (int v = 0; v < NWI / VWN; v++) acc[i][v] = (realN)0;\n"
    "\n"
    "    for (int k0 = 0; k0 < Kp; k0 += KWG) {\n"
    "#if (SA || SB) && !DB\n"
    "        barrier(CLK_LOCAL_MEM_FENCE); /* everyone is done reading the last tile */\n"
    "#endif\n"
    "#if SA\n"
    "        stash_a(alm + cur * KWG * MWG, ra, tid);\n"
    "#endif\n"
    "#if SB\n"
    "        stash_b(blm + cur * KWG * NWG, rb, tid);\n"
    "#endif\n"
    "#if SA || SB\n"
    "        /* The tile is complete. With DB the next stores go to the other one, and\n"
    "           nobody can reach them before everyone has passed this barrier, i.e. has\n"
    "           finished reading that tile one step ago: one barrier suffices. */\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        if (k0 + KWG < Kp) {\n"
    "#if SA\n"
    "            fetch_a(ra, a + KWG * as, as, tid);\n"
    "#endif\n"
    "#if SB\n"
    "            fetch_b(rb, b + KWG * bs, bs, tid);\n"
    "#endif\n"
    "        }\n"
    "#endif\n"
    "#if SA\n"
    "        const __local real *at = alm + cur * KWG * MWG;\n"
    "        const stride ats = MWG;\n"
    "#else\n"
    "        const __global real *at = a;\n"
    "        const stride ats = as;\n"
    "#endif\n"
    "#if SB\n"
    "        const __local real *bt = blm + cur * KWG * NWG;\n"
    "        const stride bts = NWG;\n"
    "#else\n"
    "        const __global real *bt = b;\n"
    "        const stride bts = bs;\n"
    "#endif\n"
    "        multiply_step(acc, at, ats, bt, bts, tm, tn);\n"
    "        a += KWG * as;\n"
    "        b += KWG * bs;\n"
    "#if (SA || SB) && DB\n"
    "        cur ^= 1;\n"
    "#endif\n"
    "    }\n"
    "    store_tile(C + member_at(offc, cs, cl, first + z), ldc, M, N, gm * MWG, gn * NWG, tm, tn, alpha, beta, acc);\n"
    "}\n",
/* <<cl gemm */
};

/* >>cl platform: src/cl/platform.h */
/* Small portable pieces: a lock, a wall clock, the process id (for file
   names no other process writes at the same time). */

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
/* <<cl platform */
/* >>cl errors: src/cl/errors.h */
/* OpenCL errors -> gemm_status, with the call and the error's name in the detail. */

static const char *gemm__cl_errname(cl_int e)
{
    switch (e) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_MISALIGNED_SUB_BUFFER_OFFSET: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
    case CL_INVALID_BUILD_OPTIONS: return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
    case CL_INVALID_PROGRAM_EXECUTABLE: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_OFFSET: return "CL_INVALID_GLOBAL_OFFSET";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_EVENT_WAIT_LIST: return "CL_INVALID_EVENT_WAIT_LIST";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
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
/* <<cl errors */
/* >>cl memory: src/cl/memory.h */
/* Host and device allocations go through these two functions, so the tests
   can make any one of them fail (gemm__hooks.cl_fail_alloc); and byte counts
   are multiplied only where the product is known to fit. */

/* Test hook: is this the allocation that must fail? */
static int gemm__cl_injected_failure(void)
{
#ifdef GEMM__TEST_HOOKS
    gemm__hooks *h = gemm__test_hooks();
    if (h->cl_fail_alloc > 0 && --h->cl_fail_alloc == 0) return 1;
#endif
    return 0;
}

static void *gemm__cl_malloc(size_t size) { return gemm__cl_injected_failure() ? NULL : GEMM_MALLOC(size); }

static cl_mem gemm__cl_buffer(cl_context context, cl_mem_flags flags, size_t size, void *host, cl_int *err)
{
    if (gemm__cl_injected_failure()) {
        *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    return clCreateBuffer(context, flags, size, host, err);
}

/* *bytes = rows * cols * elem; 0 when that does not fit in size_t (rows, cols >= 0). */
static int gemm__cl_bytes(int64_t rows, int64_t cols, size_t elem, size_t *bytes)
{
    const size_t max = (size_t)-1;
    if (rows < 0 || cols < 0) return 0;
    if (rows == 0 || cols == 0) {
        *bytes = 0;
        return 1;
    }
    if ((uint64_t)rows > max / elem || (uint64_t)cols > max / elem / (size_t)rows) return 0;
    *bytes = (size_t)rows * (size_t)cols * elem;
    return 1;
}
/* <<cl memory */
/* >>cl params: src/cl/params.h */
/* Parameter sets: the one list of their names, the text form of tuning
   files, and the checks that a set can run on a device. */

/* The fields of gemm_cl_params in tuning-file order, with their names and
   what they are: a #define of the kernel source, a build option (REGS), or
   the host's own (DIRECT, the crossover, and SMALL, the batches' small
   kernel: not part of the program). Fields
   added later are optional: a line without them means 0. */
typedef enum gemm__cl_field_kind { GEMM__CL_HOST = 0, GEMM__CL_DEFINE = 1, GEMM__CL_OPTION = 2 } gemm__cl_field_kind;

typedef struct gemm__cl_field {
    const char *name;
    size_t offset;
    gemm__cl_field_kind kind;
    int optional;
} gemm__cl_field;

static const gemm__cl_field gemm__cl_fields[] = {
    {"MWG", offsetof(gemm_cl_params, mwg), GEMM__CL_DEFINE, 0},
    {"NWG", offsetof(gemm_cl_params, nwg), GEMM__CL_DEFINE, 0},
    {"KWG", offsetof(gemm_cl_params, kwg), GEMM__CL_DEFINE, 0},
    {"MDIMC", offsetof(gemm_cl_params, mdimc), GEMM__CL_DEFINE, 0},
    {"NDIMC", offsetof(gemm_cl_params, ndimc), GEMM__CL_DEFINE, 0},
    {"VWM", offsetof(gemm_cl_params, vwm), GEMM__CL_DEFINE, 0},
    {"VWN", offsetof(gemm_cl_params, vwn), GEMM__CL_DEFINE, 0},
    {"SA", offsetof(gemm_cl_params, sa), GEMM__CL_DEFINE, 0},
    {"SB", offsetof(gemm_cl_params, sb), GEMM__CL_DEFINE, 0},
    {"PACK", offsetof(gemm_cl_params, pack), GEMM__CL_DEFINE, 0},
    {"DIRECT", offsetof(gemm_cl_params, direct), GEMM__CL_HOST, 0},
    {"DB", offsetof(gemm_cl_params, db), GEMM__CL_DEFINE, 1},
    {"WARPM", offsetof(gemm_cl_params, warpm), GEMM__CL_DEFINE, 1},
    {"REGS", offsetof(gemm_cl_params, regs), GEMM__CL_OPTION, 1},
    {"SMALL", offsetof(gemm_cl_params, small), GEMM__CL_HOST, 1},
};
#define GEMM__CL_NFIELDS (sizeof gemm__cl_fields / sizeof gemm__cl_fields[0])

static int gemm__cl_field_get(const gemm_cl_params *p, size_t i)
{
    return *(const int *)(const void *)((const char *)p + gemm__cl_fields[i].offset);
}

static void gemm__cl_field_set(gemm_cl_params *p, size_t i, int value)
{
    *(int *)(void *)((char *)p + gemm__cl_fields[i].offset) = value;
}

GEMM_DEF gemm_status gemm_cl_params_str(const gemm_cl_params *p, char *out, size_t size)
{
    size_t used = 0, i;
    gemm__clear_error();
    if (!p || !out || size == 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_params_str: NULL argument");
    out[0] = '\0';
    for (i = 0; i < GEMM__CL_NFIELDS && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s=%d", used ? " " : "", gemm__cl_fields[i].name,
                                 gemm__cl_field_get(p, i));
    return used < size ? GEMM_OK : gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_params_str: buffer too small");
}

/* The value of "NAME=value" in text, a token starting the text or after a space; 0 when absent. */
static int gemm__cl_token(const char *text, const char *name, int *value)
{
    const char *at = text;
    size_t len = strlen(name);
    while ((at = strstr(at, name)) != NULL) {
        if ((at == text || at[-1] == ' ') && at[len] == '=') {
            *value = atoi(at + len + 1);
            return 1;
        }
        at += len;
    }
    return 0;
}

/* Reads "NAME=value" tokens into p; returns 1 when every field but the
   optional ones was present (those missing are 0). */
static int gemm__cl_params_parse(const char *text, gemm_cl_params *p)
{
    size_t i;
    int ok = 1, v;
    for (i = 0; i < GEMM__CL_NFIELDS; i++) {
        if (gemm__cl_token(text, gemm__cl_fields[i].name, &v)) gemm__cl_field_set(p, i, v);
        else if (gemm__cl_fields[i].optional) gemm__cl_field_set(p, i, 0);
        else ok = 0;
    }
    return ok;
}

/* Do a and b make the same program? DIRECT and SMALL are not part of its identity. */
static int gemm__cl_same_program(const gemm_cl_params *a, const gemm_cl_params *b)
{
    size_t i;
    for (i = 0; i < GEMM__CL_NFIELDS; i++)
        if (gemm__cl_fields[i].kind != GEMM__CL_HOST && gemm__cl_field_get(a, i) != gemm__cl_field_get(b, i)) return 0;
    return 1;
}

/* The #define lines that specialise the kernel source for p. */
static void gemm__cl_params_defines(gemm_precision prec, const gemm_cl_params *p, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "#define PRECISION %d\n", prec == GEMM_F64 ? 64 : 32), i;
    for (i = 0; i < GEMM__CL_NFIELDS && used < size; i++)
        if (gemm__cl_fields[i].kind == GEMM__CL_DEFINE)
            used += (size_t)snprintf(out + used, size - used, "#define %s %d\n", gemm__cl_fields[i].name,
                                     gemm__cl_field_get(p, i));
}

/* The small kernel with T x T tiles (32, 64) runs on the device: (T/4)^2
   work-items, two local tiles of 16 x (T + 4) elements (gemm.cl). */
static int gemm__cl_small_fits(int tile, size_t max_wg, cl_ulong local_mem, size_t elem)
{
    return (size_t)(tile / 4) * (size_t)(tile / 4) <= max_wg && (cl_ulong)(2 * 16 * (tile + 4)) * elem <= local_mem;
}

static int gemm__cl_vector_width_ok(int v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 16; }

/* Why a set cannot run on this device, or NULL when it can. */
static const char *gemm__cl_params_invalid(const gemm_cl_params *p, size_t max_wg, cl_ulong local_mem, size_t elem)
{
    if (p->mwg < 1 || p->nwg < 1 || p->kwg < 1 || p->mdimc < 1 || p->ndimc < 1 || p->direct < 0)
        return "a size is not positive";
    if (!gemm__cl_vector_width_ok(p->vwm) || !gemm__cl_vector_width_ok(p->vwn))
        return "vector widths must be 1, 2, 4, 8 or 16";
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
    if (p->warpm != 0 && (!gemm__cl_vector_width_ok(p->warpm) || p->mdimc % p->warpm || p->ndimc % (32 / p->warpm)))
        return "WARPM must be 1, 2, 4, 8 or 16, divide MDIMC, and 32/WARPM divide NDIMC";
    if (p->regs != 0 && (p->regs < 16 || p->regs > 255)) return "REGS is 0 (the driver's choice) or 16..255";
    if (p->small != 0 && p->small != 1 && p->small != 32 && p->small != 64) return "SMALL is 0, 1, 32 or 64";
    if (p->small > 1 && !gemm__cl_small_fits(p->small, max_wg, local_mem, elem))
        return "SMALL's tile needs more work-items or local memory than the device has";
    if ((cl_ulong)((size_t)p->kwg * ((size_t)p->sa * (size_t)p->mwg + (size_t)p->sb * (size_t)p->nwg) * elem *
                   (size_t)(1 + p->db)) > local_mem)
        return "the local-memory tiles exceed the device's local memory";
    return NULL;
}
/* <<cl params */

/* The built-in parameter sets: one line per (precision, device), "f32
   MWG=.. ... device=<substring of the device name>", the last match wins.
   Measured with `make tune-cl` on the devices named. */
static const char *const gemm__cl_builtin[] = {
/* >>tuning: tuning/gemm_cl.txt */
    /* gemm_cl tuning file (gemm_cl_tune / make tune-cl): precision, parameters, device name. */
    /* These lines are also the built-in table of gemm_cl.h (make headers); the LAST line that matches a device wins, */
    /* so more specific or newer lines go below older ones. make tune-cl writes build/gemm_cl_tuning.txt, not this file. */
    /* PoCL's CPU device (pthread-<cpu>): 14 rows x 2 (fp64: 2) 512-bit vectors of C per work-item, 28 of the 32 */
    /* vector registers (the shape of AVX-512 BLAS micro-kernels), one contiguous panel per tile; measured against */
    /* 8x32 / 12x16 (the earlier lines, from a 2-core Xeon) and the CPU stage of the tuner on a 2-core AMD EPYC */
    /* (AVX-512) by hand, single-threaded in CPU time beside gemm's CPU backend (the machine was shared). */
    "f32 MWG=14 NWG=32 KWG=16 MDIMC=1 NDIMC=1 VWM=1 VWN=16 SA=0 SB=0 PACK=1 DIRECT=0 device=pthread-",
    "f64 MWG=14 NWG=16 KWG=16 MDIMC=1 NDIMC=1 VWM=1 VWN=8 SA=0 SB=0 PACK=1 DIRECT=0 device=pthread-",
    /* NVIDIA H100 and H200 through NVIDIA's OpenCL (driver 580): the template's GPU design (128x128 tiles of 8x8 */
    /* per work-item, warps of 8x4 work-items, 16-byte local-memory reads, double-buffered, two groups per SM under a */
    /* 128-register cap); not yet measured on the GPUs: bench/gpu/opencl.sh measures them and tunes lines to go below. */
    "f32 MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=16 VWM=4 VWN=4 SA=1 SB=1 PACK=1 DIRECT=324 DB=1 WARPM=8 REGS=128 device=NVIDIA H100",
    "f64 MWG=64 NWG=128 KWG=8 MDIMC=16 NDIMC=16 VWM=2 VWN=2 SA=1 SB=1 PACK=1 DIRECT=324 DB=1 WARPM=8 REGS=128 device=NVIDIA H100",
    /* NVIDIA H100, fp32: tune_cl's set (2026-11-24, 92 candidates in 110 s): 64x256 tiles, 8x32 work-items, no */
    /* packing; beside CLBlast 1.5.3 on the H100: 1.48-1.66x at n = 2048..8192, all four transposes 1.56-1.63 (46-48 */
    /* TFLOP/s), test_cl passed with it. The same set on the H200 (2026-11-24, bench_cl beside CLBlast): 1.79 / 1.51 / */
    /* 1.47x at n = 2048 / 4096 / 8192, the four transposes 1.49-1.53 (41-48 TFLOP/s), where the 128x128 set above ran */
    /* 1.05-1.18x: it is the H200's line too. */
    "f32 MWG=64 NWG=256 KWG=16 MDIMC=8 NDIMC=32 VWM=4 VWN=4 SA=1 SB=1 PACK=0 DIRECT=486 DB=1 WARPM=0 REGS=0 device=NVIDIA H100",
    "f32 MWG=64 NWG=256 KWG=16 MDIMC=8 NDIMC=32 VWM=4 VWN=4 SA=1 SB=1 PACK=0 DIRECT=486 DB=1 WARPM=0 REGS=0 device=NVIDIA H200",
    "f64 MWG=64 NWG=128 KWG=8 MDIMC=16 NDIMC=16 VWM=2 VWN=2 SA=1 SB=1 PACK=1 DIRECT=324 DB=1 WARPM=8 REGS=128 device=NVIDIA H200",
/* <<tuning */
};

/* >>cl lookup: src/cl/lookup.h */
/* Which parameter set a device starts with: the last line of the tuning file
   for it, else the last line of the built-in table for it, else the generic
   default. The last line wins, so a line appended later (by the tuner, or by
   hand) overrides the ones above it. */

/* Any other device: modest tiles through local memory, fine on most GPUs. */
static const char gemm__cl_generic[] = "MWG=64 NWG=64 KWG=16 MDIMC=16 NDIMC=16 VWM=2 VWN=2 SA=1 SB=1 PACK=1 DIRECT=64";
/* The fallback when a set fails to build or to check: the plainest kernel the template makes. */
static const char gemm__cl_safe[] = "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=32";

/* A tuning file is a few lines: reading stops after this many bytes, so an
   endless or huge file (/dev/zero, a log given by mistake) cannot stall the
   first call, which holds the context's lock. */
#define GEMM__CL_TUNING_MAX_BYTES ((size_t)1 << 20)
/* Longer lines are no tuning lines: skipped. */
#define GEMM__CL_LINE_MAX 1024

static const char *gemm__cl_prec_prefix(gemm_precision prec) { return prec == GEMM_F64 ? "f64 " : "f32 "; }

/* Reads the next line of f (without its newline) into line; *budget counts
   the bytes left to read. Returns 0 at the end of the file or of the budget,
   -1 for a line to skip (too long, or with a NUL byte), else 1. */
static int gemm__cl_read_line(FILE *f, char line[GEMM__CL_LINE_MAX], size_t *budget)
{
    size_t len = 0;
    int c = EOF, ok = 1;
    while (*budget > 0 && (c = getc(f)) != EOF) {
        --*budget;
        if (c == '\n') break;
        if (c == '\0' || len + 1 >= GEMM__CL_LINE_MAX) ok = 0;
        else line[len++] = (char)c;
    }
    line[len] = '\0';
    if (c == '\n') return ok ? 1 : -1;
    return c == EOF && len > 0 && ok; /* a last line without its newline; a line cut by the budget is dropped */
}

/* Looks `device` up in one tuning line; returns 1 and fills p (and key, the
   line's device substring) on a match. */
static int gemm__cl_line_match(const char *line, gemm_precision prec, const char *device, gemm_cl_params *p,
                               char *key, size_t keysize)
{
    const char *dev = strstr(line, "device=");
    char name[256];
    size_t len;
    if (!dev || strncmp(line, gemm__cl_prec_prefix(prec), 4) != 0) return 0;
    dev += 7;
    len = strcspn(dev, "\r\n");
    if (len == 0 || len >= sizeof name) return 0;
    memcpy(name, dev, len);
    name[len] = '\0';
    if (!strstr(device, name) || !gemm__cl_params_parse(line, p)) return 0;
    snprintf(key, keysize, "%s", name);
    return 1;
}

/* The last line of the tuning file at path for (device, prec); its line
   number, or 0 when none matches (or the file cannot be read). */
static int gemm__cl_lookup_file(const char *path, const char *device, gemm_precision prec, gemm_cl_params *p)
{
    char line[GEMM__CL_LINE_MAX], key[256];
    size_t budget = GEMM__CL_TUNING_MAX_BYTES;
    gemm_cl_params q;
    FILE *f = path[0] ? fopen(path, "r") : NULL;
    int at = 0, found = 0, r;
    while (f && (r = gemm__cl_read_line(f, line, &budget)) != 0) {
        at++;
        if (r > 0 && gemm__cl_line_match(line, prec, device, &q, key, sizeof key)) {
            *p = q;
            found = at;
        }
    }
    if (f) fclose(f);
    return found;
}

/* The parameter set for (device, prec), and where it came from (origin). */
static void gemm__cl_lookup(const char *tuning_file, const char *device, gemm_precision prec, gemm_cl_params *p,
                            char *origin, size_t size)
{
    char key[256];
    size_t i;
    gemm_cl_params q;
    int line = gemm__cl_lookup_file(tuning_file, device, prec, p), builtin = 0;
    if (line > 0) {
        snprintf(origin, size, "tuning file %.90s, line %d", tuning_file, line);
        return;
    }
    for (i = 0; i < sizeof gemm__cl_builtin / sizeof gemm__cl_builtin[0]; i++)
        if (gemm__cl_line_match(gemm__cl_builtin[i], prec, device, &q, key, sizeof key)) {
            *p = q;
            builtin = 1;
            snprintf(origin, size, "built-in: %.100s", key);
        }
    if (!builtin) {
        gemm__cl_params_parse(gemm__cl_generic, p);
        snprintf(origin, size, "default");
    }
}
/* <<cl lookup */
/* >>cl context: src/cl/context.h */
/* The context: the device, its queues, the programs built for it and the
   parameter set each precision uses. */

typedef struct gemm__cl_program {
    struct gemm__cl_program *next;
    gemm_precision prec;
    gemm_cl_params params; /* DIRECT: whichever set built it first; see gemm__cl_choice */
    cl_program program;
    cl_kernel pack, pack_rows, direct, tiled;
    cl_kernel small[2]; /* 32 x 32 and 64 x 64 tiles */
    int checked; /* 0 not yet, 1 passed, -1 failed */
    int small_bad; /* the small kernel failed its self-check: batches keep the packed path */
    int cached;  /* loaded from the disk cache, not compiled */
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
    int has_fp64, has_nv_options, no_self_check, break_kernel;
    size_t max_wg;
    cl_ulong max_alloc; /* the largest buffer the device allocates */
    cl_ulong local_mem;
    char tuning_file[512], cache_dir[512], build_options[512];
    gemm__cl_lock lock;
    gemm__cl_program *programs;
    gemm__cl_choice choice[2]; /* f32, f64: see gemm__cl_choice_of */
    gemm__cl_lane lane[2];
    int adopted; /* context and queue are the caller's */
};

static gemm__cl_choice *gemm__cl_choice_of(gemm_cl_context *ctx, gemm_precision prec)
{
    return &ctx->choice[prec == GEMM_F64];
}

static void gemm__cl_program_free(gemm__cl_program *g)
{
    if (g->pack) clReleaseKernel(g->pack);
    if (g->pack_rows) clReleaseKernel(g->pack_rows);
    if (g->direct) clReleaseKernel(g->direct);
    if (g->tiled) clReleaseKernel(g->tiled);
    if (g->small[0]) clReleaseKernel(g->small[0]);
    if (g->small[1]) clReleaseKernel(g->small[1]);
    if (g->program) clReleaseProgram(g->program);
    GEMM_FREE(g);
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

/* "platform name: device name" of one device. */
static void gemm__cl_full_name(cl_platform_id plat, cl_device_id dev, char *out, size_t size)
{
    char pname[128], dname[256];
    pname[0] = dname[0] = '\0';
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    snprintf(out, size, "%s: %s", pname, dname);
}

/* Does device di of platform pi match what the options ask for? */
static int gemm__cl_device_matches(cl_platform_id plat, cl_device_id dev, const char *name, int by_name, int want_p,
                                   int want_d, cl_uint pi, cl_uint di)
{
    char full[400];
    if (!by_name) return (int)pi == want_p && (int)di == want_d;
    gemm__cl_full_name(plat, dev, full, sizeof full);
    return strstr(full, name) != NULL;
}

/* Appends "P:D name" of every device to list, for the error of a choice
   that matches none of them. */
static void gemm__cl_list_devices(const cl_platform_id *plats, cl_uint np, char *list, size_t size)
{
    cl_device_id devs[64];
    cl_uint nd, pi, di;
    char full[400];
    size_t used = 0;
    list[0] = '\0';
    for (pi = 0; pi < np; pi++) {
        if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) nd = 0;
        for (di = 0; di < nd && di < 64 && used < size; di++) {
            gemm__cl_full_name(plats[pi], devs[di], full, sizeof full);
            used += (size_t)snprintf(list + used, size - used, "%s%u:%u \"%s\"", used ? ", " : "", pi, di, full);
        }
    }
    if (!list[0]) snprintf(list, size, "none");
}

/* Finds the device: by name substring, by "P:D" indices, or by indices. */
static gemm_status gemm__cl_pick(const gemm_cl_create_options *o, cl_platform_id *platform, cl_device_id *device)
{
    cl_platform_id plats[16];
    cl_device_id devs[64];
    cl_uint np = 0, nd, pi, di;
    const char *name = o->device_name && o->device_name[0] ? o->device_name : getenv("GEMM_CL_DEVICE");
    int want_p = o->platform, want_d = o->device, by_name = name && name[0];
    char list[640];
    cl_int e = clGetPlatformIDs(16, plats, &np);
    if (np > 16) np = 16; /* np and nd count them all, not the ones written */
    if (e == -1001 || (e == CL_SUCCESS && np == 0))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: no OpenCL platform is installed");
    if (e != CL_SUCCESS) return gemm__cl_fail(e, "clGetPlatformIDs");
    if (by_name && sscanf(name, "%d:%d", &want_p, &want_d) == 2) by_name = 0;
    for (pi = 0; pi < np; pi++) {
        if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) nd = 0;
        if (nd > 64) nd = 64;
        for (di = 0; di < nd; di++)
            if (gemm__cl_device_matches(plats[pi], devs[di], name, by_name, want_p, want_d, pi, di)) {
                *platform = plats[pi];
                *device = devs[di];
                return GEMM_OK;
            }
    }
    gemm__cl_list_devices(plats, np, list, sizeof list);
    if (by_name)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: no OpenCL device matches \"%.200s\"; the devices: %s",
                          name, list);
    return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: there is no device %d on platform %d; the devices: %s",
                      want_d, want_p, list);
}

/* Takes the caller's context and in-order queue (retained). */
static gemm_status gemm__cl_adopt(gemm_cl_context *ctx, const gemm_cl_create_options *o, cl_platform_id *platform)
{
    cl_command_queue_properties props = 0;
    cl_context qctx = NULL;
    cl_int e = clGetCommandQueueInfo(o->queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device, NULL);
    if (e == CL_SUCCESS) e = clGetCommandQueueInfo(o->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (e != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue is not valid (%s)", gemm__cl_errname(e));
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue must be in-order");
    e = clGetCommandQueueInfo(o->queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (e != CL_SUCCESS || qctx != o->context)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue does not belong to the context");
    if ((e = clRetainContext(o->context)) != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the context is not valid (%s)", gemm__cl_errname(e));
    ctx->context = o->context;
    if ((e = clRetainCommandQueue(o->queue)) != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue is not valid (%s)", gemm__cl_errname(e));
    ctx->queue = o->queue;
    ctx->adopted = 1;
    clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof *platform, platform, NULL);
    return GEMM_OK;
}

/* Picks a device and makes a context and an in-order queue for it. */
static gemm_status gemm__cl_open(gemm_cl_context *ctx, const gemm_cl_create_options *o, cl_platform_id *platform)
{
    cl_int e = CL_SUCCESS;
    gemm_status s = gemm__cl_pick(o, platform, &ctx->device);
    if (s != GEMM_OK) return s;
    ctx->context = clCreateContext(NULL, 1, &ctx->device, NULL, NULL, &e);
    if (e == CL_SUCCESS) ctx->queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &e);
    if (e != CL_SUCCESS) return gemm__cl_fail(e, ctx->context ? "clCreateCommandQueue" : "clCreateContext");
    return GEMM_OK;
}

/* What the kernels and the parameter checks need to know about the device. */
static gemm_status gemm__cl_query(gemm_cl_context *ctx, cl_platform_id platform)
{
    char *ext = NULL;
    size_t ext_len = 0;
    cl_int e;
    clGetDeviceInfo(ctx->device, CL_DEVICE_NAME, sizeof ctx->device_name, ctx->device_name, NULL);
    clGetDeviceInfo(ctx->device, CL_DRIVER_VERSION, sizeof ctx->driver, ctx->driver, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof ctx->type, &ctx->type, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof ctx->max_wg, &ctx->max_wg, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ctx->local_mem, &ctx->local_mem, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ctx->max_alloc, &ctx->max_alloc, NULL);
    if (platform) clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof ctx->platform_name, ctx->platform_name, NULL);
    /* asked for in full: a long extension list must not hide cl_khr_fp64 */
    e = clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len);
    if (e != CL_SUCCESS) return gemm__cl_fail(e, "clGetDeviceInfo (CL_DEVICE_EXTENSIONS)");
    /* a failure here must not pass for a device without fp64 */
    if (!(ext = (char *)gemm__cl_malloc(ext_len + 1)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl_create: out of host memory");
    e = clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL);
    ext[e == CL_SUCCESS ? ext_len : 0] = '\0';
    ctx->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    ctx->has_nv_options = strstr(ext, "cl_nv_compiler_options") != NULL;
    GEMM_FREE(ext);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clGetDeviceInfo (CL_DEVICE_EXTENSIONS)");
}

static void gemm__cl_copy_opt(char *dst, size_t size, const char *opt, const char *env)
{
    const char *v = opt && opt[0] ? opt : env ? getenv(env) : NULL;
    snprintf(dst, size, "%s", v ? v : "");
}

/* Everything after the allocation: the queues, the device, the settings. */
static gemm_status gemm__cl_setup(gemm_cl_context *ctx, const gemm_cl_create_options *o)
{
    cl_platform_id platform = NULL;
    cl_int e = CL_SUCCESS;
    gemm_status s = o->queue ? gemm__cl_adopt(ctx, o, &platform) : gemm__cl_open(ctx, o, &platform);
    if (s != GEMM_OK) return s;
    ctx->lane[0].queue = ctx->queue;
    ctx->lane[1].queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &e);
    if (e != CL_SUCCESS) {
        ctx->lane[1].queue = NULL;
        return gemm__cl_fail(e, "clCreateCommandQueue (private queue)");
    }
    if ((s = gemm__cl_query(ctx, platform)) != GEMM_OK) return s;
    gemm__cl_copy_opt(ctx->tuning_file, sizeof ctx->tuning_file, o->tuning_file, "GEMM_CL_TUNING_FILE");
    gemm__cl_copy_opt(ctx->cache_dir, sizeof ctx->cache_dir, o->cache_dir, "GEMM_CL_CACHE_DIR");
    gemm__cl_copy_opt(ctx->build_options, sizeof ctx->build_options, o->build_options, NULL);
    ctx->no_self_check = o->no_self_check;
    ctx->break_kernel = GEMM__HOOK(cl_break_kernel, 0);
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_create(const gemm_cl_create_options *options, gemm_cl_context **out)
{
    gemm_cl_create_options none;
    gemm_cl_context *ctx;
    gemm_status s;
    gemm__clear_error();
    if (!out) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: out is NULL");
    *out = NULL;
    memset(&none, 0, sizeof none);
    if (!options) options = &none;
    if (!options->context != !options->queue)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: give both context and queue, or neither");
    ctx = (gemm_cl_context *)gemm__cl_malloc(sizeof *ctx);
    if (!ctx) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl_create: out of host memory");
    memset(ctx, 0, sizeof *ctx);
    gemm__cl_lock_init(&ctx->lock);
    if ((s = gemm__cl_setup(ctx, options)) != GEMM_OK) {
        gemm__cl_free(ctx);
        return s;
    }
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

#ifdef GEMM__TEST_HOOKS
GEMM_DEF int gemm__cl_program_count(gemm_cl_context *ctx, gemm_precision precision, int *first_in_use)
{
    const gemm__cl_program *g;
    int n = 0;
    gemm__cl_lock_take(&ctx->lock);
    for (g = ctx->programs; g; g = g->next) n++;
    if (first_in_use) *first_in_use = ctx->programs && ctx->programs == gemm__cl_choice_of(ctx, precision)->prog;
    gemm__cl_lock_give(&ctx->lock);
    return n;
}
#endif
/* <<cl context */
/* >>cl program: src/cl/program.h */
/* Programs: one per (precision, parameter set), built from the kernel source
   with the set's #defines, kept in the context and, when a cache directory
   is set, as a binary on disk so the next process starts without compiling. */

#define GEMM__CL_NSOURCE (sizeof gemm__cl_source / sizeof gemm__cl_source[0])

static uint64_t gemm__cl_hash(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

static uint64_t gemm__cl_hash_bytes(const unsigned char *b, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < len; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* The #define block that specialises the source; under the test hook
   cl_break_kernel every set but the fallback computes a wrong result. */
static void gemm__cl_defines(const gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p, char *out,
                             size_t size)
{
    gemm_cl_params safe;
    size_t used;
    gemm__cl_params_parse(gemm__cl_safe, &safe);
    gemm__cl_params_defines(prec, p, out, size);
    used = strlen(out);
    if (ctx->break_kernel && !gemm__cl_same_program(p, &safe))
        snprintf(out + used, size - used, "#undef fma\n#define fma(a, b, c) ((a) * (b) - (c))\n");
}

/* The source of (prec, p): its #define block (written to defines), then the
   kernels; returns how many strings src holds. */
static size_t gemm__cl_sources(const gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                               char defines[1024], const char *src[1 + GEMM__CL_NSOURCE])
{
    size_t i, nsrc = 0;
    gemm__cl_defines(ctx, prec, p, defines, 1024);
    src[nsrc++] = defines;
    for (i = 0; i < GEMM__CL_NSOURCE; i++) src[nsrc++] = gemm__cl_source[i];
    return nsrc;
}

/* A cache entry is a header, then the driver's binary:
       bytes  0-7   magic "gemmclb\n"     16-31  the key (two 64-bit hashes)
             8-11  format version        32-39  length of the binary
            12-15  header length (48)    40-47  FNV-1a hash of the binary
   all little-endian. Everything is checked before the binary reaches the
   driver: some drivers (PoCL) abort the process on a damaged binary. The
   checks catch damage (a file cut short, overwritten, or renamed), not an
   attacker: whoever can write the cache directory chooses the code it runs. */
#define GEMM__CL_CACHE_VERSION 1u
#define GEMM__CL_CACHE_HEADER 48
#define GEMM__CL_CACHE_MAX_BINARY ((uint64_t)1 << 30)
static const char gemm__cl_cache_magic[8] = {'g', 'e', 'm', 'm', 'c', 'l', 'b', '\n'};

typedef struct gemm__cl_cache_key {
    uint64_t h[2];
} gemm__cl_cache_key;

static void gemm__cl_put_le(unsigned char *at, uint64_t v, int bytes)
{
    int i;
    for (i = 0; i < bytes; i++) at[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t gemm__cl_get_le(const unsigned char *at, int bytes)
{
    uint64_t v = 0;
    int i;
    for (i = bytes - 1; i >= 0; i--) v = v << 8 | at[i];
    return v;
}

/* The key of a program: two hashes of the device, the driver, the options
   and the source; the first names the file. */
static gemm__cl_cache_key gemm__cl_cache_key_of(const gemm_cl_context *ctx, const char *const *src, size_t nsrc,
                                                const char *opts)
{
    gemm__cl_cache_key k;
    size_t i;
    int j;
    k.h[0] = 0xcbf29ce484222325ull;
    k.h[1] = 0x84222325cbf29ce4ull;
    for (j = 0; j < 2; j++) {
        k.h[j] = gemm__cl_hash(k.h[j], ctx->platform_name);
        k.h[j] = gemm__cl_hash(k.h[j], ctx->device_name);
        k.h[j] = gemm__cl_hash(k.h[j], ctx->driver);
        k.h[j] = gemm__cl_hash(k.h[j], opts);
        for (i = 0; i < nsrc; i++) k.h[j] = gemm__cl_hash(k.h[j], src[i]);
    }
    return k;
}

static void gemm__cl_cache_path(const gemm_cl_context *ctx, const gemm__cl_cache_key *key, char *out, size_t size)
{
    snprintf(out, size, "%s/gemm_cl_%016llx.bin", ctx->cache_dir, (unsigned long long)key->h[0]);
}

static void gemm__cl_cache_header(unsigned char hdr[GEMM__CL_CACHE_HEADER], const gemm__cl_cache_key *key,
                                  const unsigned char *bin, size_t len)
{
    memcpy(hdr, gemm__cl_cache_magic, 8);
    gemm__cl_put_le(hdr + 8, GEMM__CL_CACHE_VERSION, 4);
    gemm__cl_put_le(hdr + 12, GEMM__CL_CACHE_HEADER, 4);
    gemm__cl_put_le(hdr + 16, key->h[0], 8);
    gemm__cl_put_le(hdr + 24, key->h[1], 8);
    gemm__cl_put_le(hdr + 32, (uint64_t)len, 8);
    gemm__cl_put_le(hdr + 40, gemm__cl_hash_bytes(bin, len), 8);
}

/* Writes the entry for key at path: to a name no other process or context
   writes, then renamed, so a reader sees the old file or the whole new one. */
static int gemm__cl_cache_write(const gemm_cl_context *ctx, const char *path, const gemm__cl_cache_key *key,
                                const unsigned char *bin, size_t len)
{
    unsigned char hdr[GEMM__CL_CACHE_HEADER];
    char tmp[600];
    FILE *f;
    int ok;
    snprintf(tmp, sizeof tmp, "%.540s.%ld.%p.tmp", path, gemm__cl_pid(), (const void *)ctx);
    if (!(f = fopen(tmp, "wb"))) return 0;
    gemm__cl_cache_header(hdr, key, bin, len);
    ok = fwrite(hdr, 1, sizeof hdr, f) == sizeof hdr && fwrite(bin, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0) return 1;
    remove(tmp);
    return 0;
}

/* The binary of the entry at path, if the whole entry is sound and belongs
   to key (free it with GEMM_FREE); NULL otherwise. *bad: the file exists but
   is not a sound entry for key. */
static unsigned char *gemm__cl_cache_read(const char *path, const gemm__cl_cache_key *key, size_t *len, int *bad)
{
    unsigned char hdr[GEMM__CL_CACHE_HEADER], *bin = NULL;
    uint64_t size;
    FILE *f = fopen(path, "rb");
    *bad = 0;
    if (!f) return NULL;
    *bad = fread(hdr, 1, sizeof hdr, f) != sizeof hdr || memcmp(hdr, gemm__cl_cache_magic, 8) != 0 ||
           gemm__cl_get_le(hdr + 8, 4) != GEMM__CL_CACHE_VERSION || gemm__cl_get_le(hdr + 12, 4) != sizeof hdr ||
           gemm__cl_get_le(hdr + 16, 8) != key->h[0] || gemm__cl_get_le(hdr + 24, 8) != key->h[1] ||
           (size = gemm__cl_get_le(hdr + 32, 8)) == 0 || size > GEMM__CL_CACHE_MAX_BINARY;
    if (!*bad && (bin = (unsigned char *)gemm__cl_malloc((size_t)size)) != NULL) {
        /* exactly `size` bytes follow: not one fewer, not one more */
        *bad = fread(bin, 1, (size_t)size, f) != (size_t)size || getc(f) != EOF ||
               gemm__cl_hash_bytes(bin, (size_t)size) != gemm__cl_get_le(hdr + 40, 8);
        *len = (size_t)size;
    }
    fclose(f);
    if (*bad && bin) {
        GEMM_FREE(bin);
        bin = NULL;
    }
    return bin;
}

/* The program in the cache entry at path, built; NULL when there is none.
   An entry that is damaged, belongs to another key or that the driver
   refuses is removed (and rebuilt from source by the caller). */
static cl_program gemm__cl_from_cache(gemm_cl_context *ctx, const char *path, const gemm__cl_cache_key *key,
                                      const char *opts)
{
    size_t len = 0;
    int bad = 0;
    unsigned char *bin = gemm__cl_cache_read(path, key, &len, &bad);
    cl_int e = CL_SUCCESS, status = CL_SUCCESS;
    cl_program prog = NULL;
    if (bin) {
        const unsigned char *b = bin;
        prog = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &len, &b, &status, &e);
        if (prog && (e != CL_SUCCESS || status != CL_SUCCESS ||
                     clBuildProgram(prog, 1, &ctx->device, opts, NULL, NULL) != CL_SUCCESS)) {
            clReleaseProgram(prog);
            prog = NULL;
        }
        bad = prog == NULL;
        GEMM_FREE(bin);
    }
    if (bad) remove(path);
    return prog;
}

static void gemm__cl_to_cache(const gemm_cl_context *ctx, cl_program prog, const char *path,
                              const gemm__cl_cache_key *key)
{
    size_t size = 0;
    unsigned char *bin;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || size == 0) return;
    if (!(bin = (unsigned char *)gemm__cl_malloc(size))) return; /* no entry this time; nothing else changes */
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
        gemm__cl_cache_write(ctx, path, key, bin, size);
    GEMM_FREE(bin);
}

/* The start of a program's build log (asked for in full: a buffer too small
   gets nothing at all from some drivers). */
static void gemm__cl_build_log(cl_program prog, cl_device_id device, char *log, size_t size)
{
    size_t len = 0;
    char *full;
    log[0] = '\0';
    if (prog && clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS && len > 0 &&
        (full = (char *)gemm__cl_malloc(len + 1)) != NULL) {
        if (clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, len, full, NULL) == CL_SUCCESS) {
            full[len] = '\0';
            snprintf(log, size, "%s", full);
        }
        GEMM_FREE(full);
    }
}

/* Compiles the source; on failure the status carries the build log. */
static gemm_status gemm__cl_compile(gemm_cl_context *ctx, gemm_precision prec, const char **src, size_t nsrc,
                                    const char *opts, const char *pstr, cl_program *out)
{
    cl_int e = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx->context, (cl_uint)nsrc, src, NULL, &e);
    char log[850];
    if (e == CL_SUCCESS) e = clBuildProgram(prog, 1, &ctx->device, opts, NULL, NULL);
    if (e == CL_SUCCESS) {
        *out = prog;
        return GEMM_OK;
    }
    gemm__cl_build_log(prog, ctx->device, log, sizeof log);
    if (prog) clReleaseProgram(prog);
    if (e == CL_BUILD_PROGRAM_FAILURE || e == CL_INVALID_BUILD_OPTIONS)
        return gemm__fail(GEMM_ERR_BUILD, "gemm_cl: %s kernels with %s failed to build (%s). Log: %s",
                          gemm_precision_name(prec), pstr, gemm__cl_errname(e), log);
    return gemm__cl_fail(e, "clBuildProgram");
}

/* clBuildProgram's options for p: the caller's, and REGS where the driver
   takes it. No -cl-mad-enable: reduced precision is opt-in only
   (DESIGN.md); the kernels call fma. */
static void gemm__cl_options(const gemm_cl_context *ctx, const gemm_cl_params *p, char *out, size_t size)
{
    if (p->regs > 0 && ctx->has_nv_options)
        snprintf(out, size, "%.511s -cl-nv-maxrregcount=%d", ctx->build_options, p->regs);
    else
        snprintf(out, size, "%.511s", ctx->build_options);
}

/* The program of (prec, p): from the cache directory (unless from_source),
   or compiled (and stored there). *cached: it came from the cache. */
static gemm_status gemm__cl_build(gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                                  const char *pstr, int from_source, cl_program *out, int *cached)
{
    const char *src[1 + GEMM__CL_NSOURCE];
    char defines[1024], path[700], opts[700];
    size_t nsrc = gemm__cl_sources(ctx, prec, p, defines, src);
    gemm__cl_cache_key key;
    gemm_status s;
    gemm__cl_options(ctx, p, opts, sizeof opts);
    key = gemm__cl_cache_key_of(ctx, src, nsrc, opts);
    *out = NULL;
    *cached = 0;
    if (ctx->cache_dir[0]) {
        gemm__cl_cache_path(ctx, &key, path, sizeof path);
        if (!from_source && (*out = gemm__cl_from_cache(ctx, path, &key, opts)) != NULL) {
            *cached = 1;
            return GEMM_OK;
        }
    }
    if ((s = gemm__cl_compile(ctx, prec, src, nsrc, opts, pstr, out)) != GEMM_OK) return s;
    if (ctx->cache_dir[0]) gemm__cl_to_cache(ctx, *out, path, &key);
    return GEMM_OK;
}

/* Builds (or finds) the program of one parameter set; lock held. */
static gemm_status gemm__cl_program_get(gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                                        int from_source, gemm__cl_program **out)
{
    char pstr[256];
    const char *why;
    gemm__cl_program *g;
    cl_int e = CL_SUCCESS;
    gemm_status s;
    /* checked first: the host's fields (DIRECT, SMALL) differ between sets sharing a program */
    gemm_cl_params_str(p, pstr, sizeof pstr);
    if ((why = gemm__cl_params_invalid(p, ctx->max_wg, ctx->local_mem, gemm_precision_size(prec))) != NULL)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl: parameter set %s: %s", pstr, why);
    for (g = ctx->programs; g; g = g->next)
        if (g->prec == prec && gemm__cl_same_program(&g->params, p)) { *out = g; return GEMM_OK; }
    g = (gemm__cl_program *)gemm__cl_malloc(sizeof *g);
    if (!g) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: out of host memory");
    memset(g, 0, sizeof *g);
    g->prec = prec;
    g->params = *p;
    if ((s = gemm__cl_build(ctx, prec, p, pstr, from_source, &g->program, &g->cached)) != GEMM_OK) {
        GEMM_FREE(g);
        return s;
    }
    g->pack = clCreateKernel(g->program, "gemm_cl_pack", &e);
    if (e == CL_SUCCESS) g->pack_rows = clCreateKernel(g->program, "gemm_cl_pack_rows", &e);
    if (e == CL_SUCCESS) g->direct = clCreateKernel(g->program, "gemm_cl_direct", &e);
    if (e == CL_SUCCESS) g->tiled = clCreateKernel(g->program, "gemm_cl_tiled", &e);
    if (e == CL_SUCCESS) g->small[0] = clCreateKernel(g->program, "gemm_cl_small32", &e);
    if (e == CL_SUCCESS) g->small[1] = clCreateKernel(g->program, "gemm_cl_small64", &e);
    if (e != CL_SUCCESS) {
        gemm__cl_program_free(g);
        return gemm__cl_fail(e, "clCreateKernel");
    }
    g->next = ctx->programs;
    ctx->programs = g;
    *out = g;
    return GEMM_OK;
}

/* Removes g from the context's programs and frees it (OpenCL keeps it
   alive for commands still queued); lock held. */
static void gemm__cl_program_drop(gemm_cl_context *ctx, gemm__cl_program *g)
{
    gemm__cl_program **at = &ctx->programs;
    while (*at && *at != g) at = &(*at)->next;
    if (*at) *at = g->next;
    gemm__cl_program_free(g);
}

/* The cache entry g came from is removed: its binary loaded but computed
   wrong, so the next process must not load it again. */
static void gemm__cl_uncache(gemm_cl_context *ctx, const gemm__cl_program *g)
{
    const char *src[1 + GEMM__CL_NSOURCE];
    char defines[1024], path[700], opts[700];
    size_t nsrc = gemm__cl_sources(ctx, g->prec, &g->params, defines, src);
    gemm__cl_cache_key key;
    gemm__cl_options(ctx, &g->params, opts, sizeof opts);
    key = gemm__cl_cache_key_of(ctx, src, nsrc, opts);
    gemm__cl_cache_path(ctx, &key, path, sizeof path);
    remove(path);
}
/* <<cl program */
/* >>cl run: src/cl/run.h */
/* Running one multiplication, or a batch of them, on a queue: the direct
   kernel for small problems (and for C = beta*C), else pack + pad both
   operands and run the tiled kernel. A batch is each of these launches
   once, its members along the third NDRange dimension; a single call is a
   batch of one. */

/* The three matrices on the device in gemm__problem's names: a and b are the
   operands of its column-major view (the caller's B and A for a row-major call). */
typedef struct gemm__cl_operands {
    cl_mem a, b, c;
    size_t offa, offb, offc;
} gemm__cl_operands;

static void gemm__cl_operands_set(gemm__cl_operands *o, const gemm__problem *p, cl_mem A, size_t offa, cl_mem B,
                                  size_t offb, cl_mem C, size_t offc)
{
    o->a = p->swapped ? B : A;
    o->offa = p->swapped ? offb : offa;
    o->b = p->swapped ? A : B;
    o->offb = p->swapped ? offa : offb;
    o->c = C;
    o->offc = offc;
}

/* Where each member of a batch finds its operands, in gemm__problem's names
   (a, b, c): member i of x at offset + i*stride[x] elements, or at offset +
   list[x][i] when list[x] (a buffer of cl_long) is given. A stride of 0
   without a list: every member reads the same operand (packed once). */
typedef struct gemm__cl_members {
    int64_t count;
    int64_t stride[3];
    cl_mem list[3];
} gemm__cl_members;

/* The problem as the kernels see it: a row-major M x N C at C[i*ldc + j].
   gemm__problem's column-major m x n C is exactly that with M = n, N = m,
   and C^T = op(b)^T op(a)^T: the kernels' first operand is b, their second a. */
typedef struct gemm__cl_call {
    int64_t m, n, k;
    cl_mem A, B, C;
    size_t offa, offb, offc;
    int64_t ars, acs, brs, bcs, ldc; /* op(A)(i, q) at A[offa + i*ars + q*acs]; op(B)(q, j) likewise */
    int64_t count, as, bs, cs;       /* members, and the distance from one's A (B, C) to the next's... */
    cl_mem al, bl, cl;               /* ...or the lists of their offsets */
} gemm__cl_call;

static void gemm__cl_call_of(const gemm__problem *p, const gemm__cl_operands *o, const gemm__cl_members *mb,
                             gemm__cl_call *c)
{
    c->m = p->n;
    c->n = p->m;
    c->k = p->k;
    c->A = o->b; /* (j, q) of op(b)^T is op(b)(q, j) */
    c->offa = o->offb;
    c->ars = p->bcs;
    c->acs = p->brs;
    c->B = o->a; /* (q, i) of op(a)^T is op(a)(i, q) */
    c->offb = o->offa;
    c->brs = p->acs;
    c->bcs = p->ars;
    c->C = o->c;
    c->offc = o->offc;
    c->ldc = p->ldc;
    c->count = mb->count;
    c->as = mb->stride[1];
    c->al = mb->list[1];
    c->bs = mb->stride[0];
    c->bl = mb->list[0];
    c->cs = mb->stride[2];
    c->cl = mb->list[2];
}

/* Members per launch: the NDRange's third dimension reaches 65535 groups
   on some GPUs (CUDA's grid.z), and a batch's packed operands (per_member
   bytes each) stay within the device's largest buffer and 256 MiB, so a
   big batch takes a few launches of each kernel rather than a huge copy. */
static int64_t gemm__cl_chunk(const gemm_cl_context *ctx, int64_t count, size_t per_member)
{
    uint64_t cap = ctx->max_alloc && ctx->max_alloc < ((uint64_t)1 << 28) ? ctx->max_alloc : (uint64_t)1 << 28;
    int64_t n = count < 65535 ? count : 65535;
    if (per_member > 0 && (uint64_t)n > cap / per_member) n = (int64_t)(cap / per_member);
    return n > 0 ? n : 1;
}

static int64_t gemm__cl_roundup(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/* A kernel's arguments, set in order; the first failure is kept. */
typedef struct gemm__cl_args {
    cl_kernel kernel;
    cl_uint next;
    cl_int err;
} gemm__cl_args;

static gemm__cl_args gemm__cl_args_of(cl_kernel kernel)
{
    gemm__cl_args a;
    a.kernel = kernel;
    a.next = 0;
    a.err = CL_SUCCESS;
    return a;
}

static void gemm__cl_arg(gemm__cl_args *a, size_t size, const void *value)
{
    if (a->err == CL_SUCCESS) a->err = clSetKernelArg(a->kernel, a->next, size, value);
    a->next++;
}

static void gemm__cl_arg_int(gemm__cl_args *a, int64_t v)
{
    cl_int x = (cl_int)v;
    gemm__cl_arg(a, sizeof x, &x);
}

static void gemm__cl_arg_long(gemm__cl_args *a, int64_t v)
{
    cl_long x = (cl_long)v;
    gemm__cl_arg(a, sizeof x, &x);
}

static void gemm__cl_arg_mem(gemm__cl_args *a, cl_mem m) { gemm__cl_arg(a, sizeof m, &m); }

static void gemm__cl_arg_real(gemm__cl_args *a, gemm_precision prec, double v)
{
    cl_float f = (cl_float)v;
    cl_double d = v;
    if (prec == GEMM_F64) gemm__cl_arg(a, sizeof d, &d);
    else gemm__cl_arg(a, sizeof f, &f);
}

/* Grows one of the lane's packing buffers to at least `bytes`. */
static gemm_status gemm__cl_scratch(gemm_cl_context *ctx, gemm__cl_lane *lane, int which, size_t bytes)
{
    cl_int e;
    if (bytes <= lane->scratch_size[which]) return GEMM_OK;
    if (lane->scratch[which]) clReleaseMemObject(lane->scratch[which]); /* freed once queued users finish */
    lane->scratch_size[which] = 0;
    lane->scratch[which] = gemm__cl_buffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS) {
        lane->scratch[which] = NULL;
        return gemm__cl_fail(e, "clCreateBuffer (packed operands)");
    }
    lane->scratch_size[which] = bytes;
    return GEMM_OK;
}

/* The direct kernel (tile 0) on members [first, first + n): one work-item
   per element of C, `scale`: C = beta*C, A and B unread; or the small
   kernel with tile x tile tiles (32, 64) of (tile/4)^2 work-items: the
   same arguments. */
static gemm_status gemm__cl_run_direct(gemm__cl_lane *lane, const gemm__cl_program *g, const gemm__cl_call *c,
                                       int tile, int scale, double alpha, double beta, int64_t first, int64_t n,
                                       cl_uint nw, const cl_event *wait, cl_event *event)
{
    cl_kernel kernel = tile == 64 ? g->small[1] : tile == 32 ? g->small[0] : g->direct;
    size_t side = tile ? (size_t)tile / 4 : 8, local[3], global[3];
    gemm__cl_args a = gemm__cl_args_of(kernel);
    cl_int e;
    gemm__cl_arg_int(&a, c->m);
    gemm__cl_arg_int(&a, c->n);
    gemm__cl_arg_int(&a, scale ? 0 : c->k);
    gemm__cl_arg_real(&a, g->prec, scale ? 0.0 : alpha);
    gemm__cl_arg_real(&a, g->prec, beta);
    gemm__cl_arg_mem(&a, scale ? c->C : c->A); /* unread when scaling */
    gemm__cl_arg_long(&a, (int64_t)c->offa);
    gemm__cl_arg_long(&a, c->as);
    gemm__cl_arg_mem(&a, scale ? NULL : c->al);
    gemm__cl_arg_long(&a, c->ars);
    gemm__cl_arg_long(&a, c->acs);
    gemm__cl_arg_mem(&a, scale ? c->C : c->B);
    gemm__cl_arg_long(&a, (int64_t)c->offb);
    gemm__cl_arg_long(&a, c->bs);
    gemm__cl_arg_mem(&a, scale ? NULL : c->bl);
    gemm__cl_arg_long(&a, c->brs);
    gemm__cl_arg_long(&a, c->bcs);
    gemm__cl_arg_mem(&a, c->C);
    gemm__cl_arg_long(&a, (int64_t)c->offc);
    gemm__cl_arg_long(&a, c->cs);
    gemm__cl_arg_mem(&a, c->cl);
    gemm__cl_arg_long(&a, c->ldc);
    gemm__cl_arg_long(&a, first);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, tile ? "clSetKernelArg (small)" : "clSetKernelArg (direct)");
    /* a work-item per element, or per 4 x 4 block of a tile */
    local[0] = local[1] = side;
    local[2] = 1;
    global[0] = (size_t)(tile ? gemm__cl_roundup(c->n, tile) / 4 : gemm__cl_roundup(c->n, 8));
    global[1] = (size_t)(tile ? gemm__cl_roundup(c->m, tile) / 4 : gemm__cl_roundup(c->m, 8));
    global[2] = (size_t)n;
    e = clEnqueueNDRangeKernel(lane->queue, kernel, 3, NULL, global, local, nw, nw ? wait : NULL, event);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, tile ? "clEnqueueNDRangeKernel (small)"
                                                             : "clEnqueueNDRangeKernel (direct)");
}

/* Every member through the direct kernel (tile 0) or the small one, 65535
   to a launch. */
static gemm_status gemm__cl_run_direct_all(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                           const gemm__cl_call *c, int tile, int scale, double alpha, double beta,
                                           cl_uint nw, const cl_event *wait, cl_event *event)
{
    int64_t first, n, chunk = gemm__cl_chunk(ctx, c->count, 0);
    gemm_status s = GEMM_OK;
    for (first = 0; first < c->count && s == GEMM_OK; first += n) {
        n = c->count - first < chunk ? c->count - first : chunk;
        s = gemm__cl_run_direct(lane, g, c, tile, scale, alpha, beta, first, n, first ? 0 : nw, wait,
                                first + n == c->count ? event : NULL);
    }
    return s;
}

/* One operand of the tiled path: op(X) is R x K, element (r, q) of member i
   at X[member's offset + r*rs + q*ps], packed as Rp x Kp into the lane's
   buffer `side` (0: A, 1: B). */
typedef struct gemm__cl_pack_job {
    int side;
    int64_t R, K, Rp, Kp;
    cl_mem X, list;
    size_t off;
    int64_t stride, rs, ps;
} gemm__cl_pack_job;

/* Copies members [first, first + n) of op(X) into the lane's packing buffer
   `side`, zero-padded, one after the other, in the layout PACK asks for: on
   GPUs an element per work-item (coalesced), on CPUs a block of a tile's
   rows by KWG per work-item. */
static gemm_status gemm__cl_run_pack(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                     const gemm__cl_pack_job *j, int64_t first, int64_t n, cl_uint nw,
                                     const cl_event *wait)
{
    int rows = (ctx->type & CL_DEVICE_TYPE_CPU) != 0;
    int tile = j->side ? g->params.nwg : g->params.mwg;
    size_t local[3], global[3];
    gemm__cl_args a = gemm__cl_args_of(rows ? g->pack_rows : g->pack);
    cl_int e;
    gemm__cl_arg_int(&a, j->R);
    gemm__cl_arg_int(&a, j->K);
    gemm__cl_arg_int(&a, j->Rp);
    gemm__cl_arg_int(&a, j->Kp);
    gemm__cl_arg_int(&a, tile);
    gemm__cl_arg_mem(&a, j->X);
    gemm__cl_arg_long(&a, (int64_t)j->off);
    gemm__cl_arg_long(&a, j->stride);
    gemm__cl_arg_mem(&a, j->list);
    gemm__cl_arg_long(&a, first);
    gemm__cl_arg_long(&a, j->rs);
    gemm__cl_arg_long(&a, j->ps);
    gemm__cl_arg_mem(&a, lane->scratch[j->side]);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, "clSetKernelArg (pack)");
    /* A fixed work-group shape: PoCL compiles a kernel anew for each one it meets. */
    local[0] = rows ? 1 : ctx->max_wg >= 256 ? 32 : 1;
    local[1] = rows ? 16 : ctx->max_wg >= 256 ? 8 : 1;
    local[2] = 1;
    global[0] = (size_t)gemm__cl_roundup(rows ? j->Rp / tile : j->Rp, (int64_t)local[0]);
    global[1] = (size_t)gemm__cl_roundup(rows ? j->Kp / g->params.kwg : j->Kp, (int64_t)local[1]);
    global[2] = (size_t)n;
    e = clEnqueueNDRangeKernel(lane->queue, rows ? g->pack_rows : g->pack, 3, NULL, global, local, nw, nw ? wait : NULL,
                               NULL);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueNDRangeKernel (pack)");
}

/* The tiled kernel on members [first, first + n), whose packed operands
   are the lane's buffers (member z at z*pas, z*pbs elements). */
static gemm_status gemm__cl_run_tiles(gemm__cl_lane *lane, const gemm__cl_program *g, const gemm__cl_call *c,
                                      int64_t Mp, int64_t Np, int64_t Kp, int64_t pas, int64_t pbs, double alpha,
                                      double beta, int64_t first, int64_t n, cl_uint nw, const cl_event *wait,
                                      cl_event *event)
{
    const gemm_cl_params *p = &g->params;
    size_t global[3], local[3];
    gemm__cl_args a = gemm__cl_args_of(g->tiled);
    cl_int e;
    gemm__cl_arg_int(&a, c->m);
    gemm__cl_arg_int(&a, c->n);
    gemm__cl_arg_int(&a, Kp);
    gemm__cl_arg_int(&a, Mp);
    gemm__cl_arg_int(&a, Np);
    gemm__cl_arg_real(&a, g->prec, alpha);
    gemm__cl_arg_real(&a, g->prec, beta);
    gemm__cl_arg_mem(&a, lane->scratch[0]);
    gemm__cl_arg_long(&a, pas);
    gemm__cl_arg_mem(&a, lane->scratch[1]);
    gemm__cl_arg_long(&a, pbs);
    gemm__cl_arg_mem(&a, c->C);
    gemm__cl_arg_long(&a, (int64_t)c->offc);
    gemm__cl_arg_long(&a, c->cs);
    gemm__cl_arg_mem(&a, c->cl);
    gemm__cl_arg_long(&a, c->ldc);
    gemm__cl_arg_long(&a, first);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, "clSetKernelArg (tiled)");
    local[0] = (size_t)p->ndimc;
    local[1] = (size_t)p->mdimc;
    local[2] = 1;
    global[0] = (size_t)(Np / p->nwg) * local[0];
    global[1] = (size_t)(Mp / p->mwg) * local[1];
    global[2] = (size_t)n;
    e = clEnqueueNDRangeKernel(lane->queue, g->tiled, 3, NULL, global, local, nw, nw ? wait : NULL, event);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueNDRangeKernel (tiled)");
}

static void gemm__cl_pack_jobs(const gemm__cl_call *c, int64_t Mp, int64_t Np, int64_t Kp, gemm__cl_pack_job j[2])
{
    j[0].side = 0; j[0].R = c->m; j[0].K = c->k; j[0].Rp = Mp; j[0].Kp = Kp;
    j[0].X = c->A; j[0].list = c->al; j[0].off = c->offa; j[0].stride = c->as; j[0].rs = c->ars; j[0].ps = c->acs;
    j[1].side = 1; j[1].R = c->n; j[1].K = c->k; j[1].Rp = Np; j[1].Kp = Kp;
    j[1].X = c->B; j[1].list = c->bl; j[1].off = c->offb; j[1].stride = c->bs; j[1].rs = c->bcs; j[1].ps = c->brs;
}

/* Packs op(A) as Mp x Kp and op(B) as Np x Kp, then runs the tiled kernel on
   them: chunk members at a time, an operand every member shares packed once. */
static gemm_status gemm__cl_run_tiled(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                      const gemm__cl_call *c, double alpha, double beta, cl_uint nw,
                                      const cl_event *wait, cl_event *event)
{
    const gemm_cl_params *p = &g->params;
    int64_t Mp = gemm__cl_roundup(c->m, p->mwg), Np = gemm__cl_roundup(c->n, p->nwg), Kp = gemm__cl_roundup(c->k, p->kwg);
    int64_t first, n, chunk;
    size_t elem = gemm_precision_size(g->prec), bytes[2];
    gemm__cl_pack_job job[2];
    int shared[2], x;
    gemm_status s = GEMM_OK;
    gemm__cl_pack_jobs(c, Mp, Np, Kp, job);
    if (!gemm__cl_bytes(Mp, Kp, elem, &bytes[0]) || !gemm__cl_bytes(Np, Kp, elem, &bytes[1]))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: the packed operands (%lld x %lld and %lld x %lld) exceed "
                          "the address space", (long long)Mp, (long long)Kp, (long long)Np, (long long)Kp);
    for (x = 0; x < 2; x++) shared[x] = c->count == 1 || (!job[x].list && job[x].stride == 0);
    chunk = gemm__cl_chunk(ctx, c->count, (shared[0] ? 0 : bytes[0]) + (shared[1] ? 0 : bytes[1]));
    for (x = 0; x < 2 && s == GEMM_OK; x++) {
        s = gemm__cl_scratch(ctx, lane, x, bytes[x] * (size_t)(shared[x] ? 1 : chunk));
        if (s == GEMM_OK && shared[x] && c->count > 1) { /* one copy serves every member */
            s = gemm__cl_run_pack(ctx, lane, g, &job[x], 0, 1, nw, wait);
            nw = 0;
        }
    }
    for (first = 0; first < c->count && s == GEMM_OK; first += n) {
        n = c->count - first < chunk ? c->count - first : chunk;
        for (x = 0; x < 2 && s == GEMM_OK; x++)
            if (!shared[x] || c->count == 1) {
                s = gemm__cl_run_pack(ctx, lane, g, &job[x], first, n, nw, wait);
                nw = 0;
            }
        if (s == GEMM_OK)
            s = gemm__cl_run_tiles(lane, g, c, Mp, Np, Kp, shared[0] ? 0 : Mp * Kp, shared[1] ? 0 : Np * Kp, alpha,
                                   beta, first, n, 0, NULL, first + n == c->count ? event : NULL);
    }
    return s;
}

/* Which kernel runs a call: by size against the choice's crossover, or forced. */
typedef enum gemm__cl_path {
    GEMM__CL_BY_SIZE = 0, GEMM__CL_DIRECT = 1, GEMM__CL_TILED = 2, GEMM__CL_SMALL = 3
} gemm__cl_path;

/* The small kernel's tile for a call past the direct crossover, or 0 for
   the tiled kernel. SMALL forces it (32, 64: that tile; 1: never); by size
   (SMALL = 0) it takes the members of a batch, on GPUs, whose tiles of the
   tiled kernel would be at most half full (M x N inside Mp x Np, rounded up
   to MWG x NWG): there most of its work is padding, and its packs, a second
   pass over A and B, cost as much as the product (64^3 members in 128 x 128
   tiles ran at a third of CLBlast's direct kernel on an H200). The tile is
   64 x 64 unless the member is at most 32 wide in M or N (a 64 tile would
   then be half empty too). CPUs keep the packed path: PoCL's tiled sets run
   contiguous rows per work-item, where packing pays even for small members.
   A program whose small kernel failed its self-check keeps it too. */
static int gemm__cl_small_tile(const gemm_cl_context *ctx, const gemm__cl_program *g, const gemm__cl_call *c,
                               const gemm_cl_params *set, gemm__cl_path path)
{
    size_t elem = gemm_precision_size(g->prec);
    double Mp = (double)gemm__cl_roundup(c->m, g->params.mwg), Np = (double)gemm__cl_roundup(c->n, g->params.nwg);
    /* fp64 keeps the 32x32 tile up to 64 rows and columns: on the H100, 64^3 x 10000 ran at 7.5 TFLOP/s with
       it and 6.2 with 64x64 (fp32: 12.5 and 16.5, so fp32 takes 64 from 33 on) */
    int most32 = elem == 8 ? 64 : 32;
    int tile = c->m > most32 && c->n > most32 && gemm__cl_small_fits(64, ctx->max_wg, ctx->local_mem, elem) ? 64 : 32;
    if (path == GEMM__CL_SMALL) return tile;
    if (path != GEMM__CL_BY_SIZE) return 0;
    if (set->small > 1) return set->small;
    if (set->small == 1 || g->small_bad || c->count < 2 || (ctx->type & CL_DEVICE_TYPE_CPU) ||
        !gemm__cl_small_fits(32, ctx->max_wg, ctx->local_mem, elem))
        return 0;
    return 2.0 * (double)c->m * (double)c->n <= Mp * Np ? tile : 0;
}

/* Enqueues a batch (p->work is SCALE or FULL) with program g on lane's
   queue; lock held. By size, the direct kernel takes it when the batch's
   whole volume is below the crossover: the tiled kernel's work-groups and
   copies pay off once a product is large, or members are many; past the
   crossover, small members take the small kernel (gemm__cl_small_tile). */
static gemm_status gemm__cl_enqueue_batch(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                          const gemm__problem *p, const gemm__cl_operands *o,
                                          const gemm__cl_members *mb, double alpha, double beta, gemm__cl_path path,
                                          cl_uint nw, const cl_event *wait, cl_event *event)
{
    const gemm_cl_params *set = &gemm__cl_choice_of(ctx, g->prec)->params;
    double d = path == GEMM__CL_BY_SIZE ? (double)set->direct : 0;
    double volume = (double)p->m * (double)p->n * (double)p->k * (double)mb->count;
    int scale = p->work == GEMM__WORK_SCALE, tile;
    gemm__cl_call c;
    gemm__cl_call_of(p, o, mb, &c);
    if (scale || path == GEMM__CL_DIRECT || (path == GEMM__CL_BY_SIZE && volume <= d * d * d))
        return gemm__cl_run_direct_all(ctx, lane, g, &c, 0, scale, alpha, beta, nw, wait, event);
    if ((tile = gemm__cl_small_tile(ctx, g, &c, set, path)) > 0)
        return gemm__cl_run_direct_all(ctx, lane, g, &c, tile, 0, alpha, beta, nw, wait, event);
    return gemm__cl_run_tiled(ctx, lane, g, &c, alpha, beta, nw, wait, event);
}

/* Enqueues one call: a batch of one. */
static gemm_status gemm__cl_enqueue(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                    const gemm__problem *p, const gemm__cl_operands *o, double alpha, double beta,
                                    gemm__cl_path path, cl_uint nw, const cl_event *wait, cl_event *event)
{
    gemm__cl_members one;
    memset(&one, 0, sizeof one);
    one.count = 1;
    return gemm__cl_enqueue_batch(ctx, lane, g, p, o, &one, alpha, beta, path, nw, wait, event);
}
/* <<cl run */
/* >>cl host: src/cl/host.h */
/* The host-pointer path: copy the operands to device buffers, run, copy C
   back, blocking; on the caller's queue for calls, on the private one for
   the self-check. */

static gemm_status gemm__cl_select(gemm_cl_context *ctx, gemm_precision prec, gemm__cl_program **out);

/* One matrix a host call moves: rows x cols in gemm__problem's column-major
   view, with leading dimension ld on the host and dense (ld = rows) on the
   device, so its buffer holds what the call touches and no padding crosses
   the bus. */
typedef struct gemm__cl_matrix {
    int64_t rows, cols, ld;
} gemm__cl_matrix;

/* The device copies of one host call, and the call as it runs on them. */
typedef struct gemm__cl_staged {
    gemm__cl_operands dev;
    gemm__problem dense;
    gemm__cl_matrix mat[3]; /* a, b, c */
} gemm__cl_staged;

static gemm__cl_matrix gemm__cl_matrix_of(int64_t rows, int64_t cols, int64_t ld)
{
    gemm__cl_matrix x;
    x.rows = rows;
    x.cols = cols;
    x.ld = ld;
    return x;
}

/* The problem on dense copies: the same call with leading dimensions equal
   to the stored rows, and the three matrices to move. */
static void gemm__cl_densify(const gemm__problem *p, gemm__cl_staged *st)
{
    gemm__problem *d = &st->dense;
    *d = *p;
    st->mat[0] = gemm__cl_matrix_of(p->a_trans ? p->k : p->m, p->a_trans ? p->m : p->k, p->lda);
    st->mat[1] = gemm__cl_matrix_of(p->b_trans ? p->n : p->k, p->b_trans ? p->k : p->n, p->ldb);
    st->mat[2] = gemm__cl_matrix_of(p->m, p->n, p->ldc);
    d->lda = st->mat[0].rows > 0 ? st->mat[0].rows : 1;
    d->ldb = st->mat[1].rows > 0 ? st->mat[1].rows : 1;
    d->ldc = st->mat[2].rows > 0 ? st->mat[2].rows : 1;
    d->ars = d->a_trans ? d->lda : 1;
    d->acs = d->a_trans ? 1 : d->lda;
    d->brs = d->b_trans ? d->ldb : 1;
    d->bcs = d->b_trans ? 1 : d->ldb;
    d->a_extent = p->a_extent ? st->mat[0].rows * st->mat[0].cols : 0;
    d->b_extent = p->b_extent ? st->mat[1].rows * st->mat[1].cols : 0;
    d->c_extent = p->c_extent ? st->mat[2].rows * st->mat[2].cols : 0;
}

static void gemm__cl_staged_free(gemm__cl_staged *st)
{
    if (st->dev.a) clReleaseMemObject(st->dev.a);
    if (st->dev.b) clReleaseMemObject(st->dev.b);
    if (st->dev.c) clReleaseMemObject(st->dev.c);
}

/* Enqueues the copy of host matrix x into its dense buffer (to_device) or
   back; the copy back blocks. */
static cl_int gemm__cl_move(cl_command_queue q, cl_mem buf, void *host, gemm__cl_matrix x, size_t elem, int to_device)
{
    size_t origin[3] = {0, 0, 0}, region[3];
    region[0] = (size_t)x.rows * elem;
    region[1] = (size_t)x.cols;
    region[2] = 1;
    if (x.ld == x.rows || x.cols == 1)
        return to_device ? clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, region[0] * region[1], host, 0, NULL, NULL)
                         : clEnqueueReadBuffer(q, buf, CL_TRUE, 0, region[0] * region[1], host, 0, NULL, NULL);
    /* host_row_pitch ld*elem fits: entry.h checked that the host matrix spans
       less than half the address space */
    return to_device ? clEnqueueWriteBufferRect(q, buf, CL_FALSE, origin, origin, region, region[0], 0,
                                                (size_t)x.ld * elem, 0, host, 0, NULL, NULL)
                     : clEnqueueReadBufferRect(q, buf, CL_TRUE, origin, origin, region, region[0], 0,
                                               (size_t)x.ld * elem, 0, host, 0, NULL, NULL);
}

/* Allocates the buffers and enqueues the copies in (not waited for). */
static gemm_status gemm__cl_upload(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec,
                                   const gemm__problem *p, const void *a, const void *b, double beta, const void *c,
                                   gemm__cl_staged *st)
{
    size_t elem = gemm_precision_size(prec), bytes;
    const void *host[3];
    cl_mem *buf[3];
    cl_int e = CL_SUCCESS;
    int i;
    memset(st, 0, sizeof *st);
    gemm__cl_densify(p, st);
    host[0] = a; host[1] = b; host[2] = c;
    buf[0] = &st->dev.a; buf[1] = &st->dev.b; buf[2] = &st->dev.c;
    for (i = p->work == GEMM__WORK_FULL ? 0 : 2; i < 3 && e == CL_SUCCESS; i++) {
        if (!gemm__cl_bytes(st->mat[i].rows, st->mat[i].cols, elem, &bytes))
            return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: a %lld x %lld matrix exceeds the address space",
                              (long long)st->mat[i].rows, (long long)st->mat[i].cols);
        *buf[i] = gemm__cl_buffer(ctx->context, i < 2 ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE, bytes, NULL, &e);
        if (e == CL_SUCCESS && (i < 2 || beta != 0)) /* beta == 0: C is not read */
            e = gemm__cl_move(lane->queue, *buf[i], (void *)host[i], st->mat[i], elem, 1);
    }
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "allocating device memory for, or copying, the operands");
}

/* Enqueues the multiplication with g, or (g == NULL) with prec's choice,
   picked under the lock; *picked_at is when the kernel was ready. */
static gemm_status gemm__cl_host_run(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec,
                                     gemm__cl_program *g, gemm__cl_path path, const gemm__problem *p,
                                     const gemm__cl_operands *dev, double alpha, double beta, double *picked_at)
{
    gemm_status s = GEMM_OK;
    if (g) {
        *picked_at = gemm__cl_now();
        return gemm__cl_enqueue(ctx, lane, g, p, dev, alpha, beta, path, 0, NULL, NULL);
    }
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_select(ctx, prec, &g);
    *picked_at = gemm__cl_now();
    if (s == GEMM_OK) s = gemm__cl_enqueue(ctx, lane, g, p, dev, alpha, beta, path, 0, NULL, NULL);
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

/* One blocking call on host pointers a, b, c (gemm__problem's names;
   p->work is SCALE or FULL). g == NULL: the context's kernel for prec. */
static gemm_status gemm__cl_host(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec, gemm__cl_program *g,
                                 gemm__cl_path path, const gemm__problem *p, double alpha, const void *a,
                                 const void *b, double beta, void *c, gemm_timing *timing)
{
    double t0 = gemm__cl_now(), t_alloc, t_in, t_pick, t_run;
    gemm__cl_staged st;
    cl_int e;
    gemm_status s = gemm__cl_upload(ctx, lane, prec, p, a, b, beta, c, &st);
    t_alloc = gemm__cl_now();
    /* waited for after a failed upload too: the copies it enqueued still read the caller's arrays */
    if ((e = clFinish(lane->queue)) != CL_SUCCESS && s == GEMM_OK) s = gemm__cl_fail(e, "copying the operands");
    t_in = gemm__cl_now();
    if (s == GEMM_OK &&
        (s = gemm__cl_host_run(ctx, lane, prec, g, path, &st.dense, &st.dev, alpha, beta, &t_pick)) == GEMM_OK) {
        if ((e = clFinish(lane->queue)) != CL_SUCCESS) s = gemm__cl_fail(e, "running the kernels");
        t_run = gemm__cl_now();
        if (s == GEMM_OK && (e = gemm__cl_move(lane->queue, st.dev.c, c, st.mat[2], gemm_precision_size(prec), 0)) !=
                                CL_SUCCESS)
            s = gemm__cl_fail(e, "copying C back");
        if (s == GEMM_OK && timing) {
            /* clCreateBuffer allocates lazily on most drivers: the first copy pays for it */
            timing->setup_s = (t_alloc - t0) + (t_pick - t_in);
            timing->to_device_s = t_in - t_alloc;
            timing->compute_s = t_run - t_pick;
            timing->from_device_s = gemm__cl_now() - t_run;
            timing->total_s = gemm__cl_now() - t0;
        }
    }
    gemm__cl_staged_free(&st);
    return s;
}
/* <<cl host */
/* >>cl choice: src/cl/choice.h */
/* Which program each precision uses: looked up on first use, built, checked
   against the reference on a small problem (drivers do miscompile GEMM
   kernels), and replaced by the safe default when it fails. */

/* ctx is usable for prec: not NULL, a precision OpenCL runs, fp64 on the device. */
static gemm_status gemm__cl_usable(gemm_cl_context *ctx, gemm_precision prec, const char *func)
{
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    if (prec != GEMM_F32 && prec != GEMM_F64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: precision %d is not GEMM_F32 or GEMM_F64", func, (int)prec);
    if (prec == GEMM_F64 && !ctx->has_fp64)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the device (%s) has no cl_khr_fp64", func, ctx->device_name);
    return GEMM_OK;
}

/* One small problem through one kernel of g (path), against the reference:
   for the tiled kernel several tiles and ragged edges in every dimension;
   for the small kernel (path SMALL) 2 x 2 tiles of 64 with ragged edges
   and a partial k-step when `big`, else 5 x 7 x 9 (a 32 tile).
   GEMM_ERR_DEVICE for a wrong result; any other failure (memory, the
   device) is the status of that failure. */
static gemm_status gemm__cl_check_path(gemm_cl_context *ctx, gemm__cl_program *g, gemm__cl_path path, int big)
{
    const gemm_cl_params *p = &g->params;
    int tiled = path == GEMM__CL_TILED, f64 = g->prec == GEMM_F64;
    int64_t m = tiled ? 2 * p->mwg + 3 : big ? 67 : 5, n = tiled ? 2 * p->nwg + 5 : big ? 69 : 7;
    int64_t k = tiled ? 2 * p->kwg + 7 : big ? 39 : 9;
    int64_t i, cnt = m * n + m * k + k * n;
    gemm_layout lay = tiled ? GEMM_ROW_MAJOR : GEMM_COL_MAJOR;
    gemm_transpose ta = tiled ? GEMM_NO_TRANS : GEMM_TRANS, tb = tiled ? GEMM_TRANS : GEMM_NO_TRANS;
    int64_t lda = (lay == GEMM_ROW_MAJOR) == (ta == GEMM_NO_TRANS) ? k : m;
    int64_t ldb = (lay == GEMM_ROW_MAJOR) == (tb == GEMM_NO_TRANS) ? n : k;
    int64_t ldc = lay == GEMM_ROW_MAJOR ? n : m;
    double *buf = (double *)gemm__cl_malloc(sizeof(double) * (size_t)(cnt + m * n));
    float *fbuf = (float *)gemm__cl_malloc(sizeof(float) * (size_t)(cnt + m * n));
    double eps = f64 ? 2.220446049250313e-16 : 1.1920929e-7, bound = 4 * eps * (double)k * 0.375;
    uint64_t x = 88172645463325252ull;
    gemm__problem pr;
    char pstr[256];
    gemm_status s = buf && fbuf ? GEMM_OK : gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl self-check: out of host memory");
    for (i = 0; s == GEMM_OK && i < cnt + m * n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = (double)(x >> 40) / 16777216.0 - 0.5; /* exact in float */
        fbuf[i] = (float)buf[i];
    }
    gemm_cl_params_str(p, pstr, sizeof pstr);
    if (s == GEMM_OK) s = gemm__prepare("gemm_cl self-check", lay, ta, tb, m, n, k, 0, 1, lda, 1, ldb, 0, 1, ldc, &pr);
    if (s == GEMM_OK) {
        double *A = buf, *B = buf + m * k, *C = B + k * n, *R = C + m * n;
        float *fA = fbuf, *fB = fbuf + m * k, *fC = fB + k * n;
        const void *a = f64 ? (const void *)A : (const void *)fA, *b = f64 ? (const void *)B : (const void *)fB;
        memcpy(R, C, sizeof(double) * (size_t)(m * n));
        gemm_ref_dgemm(lay, ta, tb, m, n, k, 1.5, A, lda, B, ldb, -0.5, R, ldc);
        s = gemm__cl_host(ctx, &ctx->lane[1], g->prec, g, path, &pr, 1.5, pr.swapped ? b : a, pr.swapped ? a : b,
                          -0.5, f64 ? (void *)C : (void *)fC, NULL);
        for (i = 0; s == GEMM_OK && i < m * n; i++)
            if (!(fabs((f64 ? C[i] : (double)fC[i]) - R[i]) <= bound))
                s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl: the %s kernels with %s gave a wrong result in the self-check "
                               "on %s", gemm_precision_name(g->prec), pstr, ctx->device_name);
    }
    if (buf) GEMM_FREE(buf);
    if (fbuf) GEMM_FREE(fbuf);
    return s;
}

/* Checks g once, every kernel: 1 when right, -1 when wrong (or when the
   device cannot run it), 0 when a transient failure (memory) left the
   question open: then *status says why and the next call asks again. The
   small kernel (both tiles, where the device runs them) is an option of
   batches: when it alone fails, g stays usable without it (small_bad). */
static int gemm__cl_check(gemm_cl_context *ctx, gemm__cl_program *g, gemm_status *status)
{
    size_t elem = gemm_precision_size(g->prec);
    gemm_status s = gemm__cl_check_path(ctx, g, GEMM__CL_DIRECT, 0), t = GEMM_OK;
    if (s == GEMM_OK) s = gemm__cl_check_path(ctx, g, GEMM__CL_TILED, 0);
    if (s == GEMM_OK && gemm__cl_small_fits(32, ctx->max_wg, ctx->local_mem, elem))
        t = gemm__cl_check_path(ctx, g, GEMM__CL_SMALL, 0);
    if (s == GEMM_OK && t == GEMM_OK && gemm__cl_small_fits(64, ctx->max_wg, ctx->local_mem, elem))
        t = gemm__cl_check_path(ctx, g, GEMM__CL_SMALL, 1);
    g->small_bad = t != GEMM_OK && t != GEMM_ERR_OUT_OF_MEMORY;
    if (t == GEMM_ERR_OUT_OF_MEMORY) s = t;
    *status = s;
    return s == GEMM_OK ? 1 : s == GEMM_ERR_OUT_OF_MEMORY ? 0 : -1;
}

/* Builds and checks one set; lock held. A program that fails its check
   leaves no cache entry behind; one that came from the disk cache is built
   again from source and checked again, as the binary may be what was
   wrong. *bad (may be NULL): the failure is the set's own (it does not
   build, does not fit the device, computes wrong), not a transient one
   (memory) that the next call may not meet. */
static gemm_status gemm__cl_try(gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                                gemm__cl_program **out, int *bad)
{
    gemm_status s = gemm__cl_program_get(ctx, prec, p, 0, out);
    int verdict; /* 1 right, -1 the set's own failure, 0 transient */
    if (s != GEMM_OK) {
        verdict = s == GEMM_ERR_OUT_OF_MEMORY ? 0 : -1;
    } else if (ctx->no_self_check || (*out)->checked != 0) {
        verdict = ctx->no_self_check ? 1 : (*out)->checked;
        if (verdict < 0)
            s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl: this %s parameter set failed its self-check on %s before",
                           gemm_precision_name(prec), ctx->device_name);
    } else {
        verdict = gemm__cl_check(ctx, *out, &s);
        if (verdict < 0 && (*out)->cached) {
            gemm__cl_uncache(ctx, *out);
            gemm__cl_program_drop(ctx, *out);
            *out = NULL;
            s = gemm__cl_program_get(ctx, prec, p, 1, out);
            verdict = s != GEMM_OK ? (s == GEMM_ERR_OUT_OF_MEMORY ? 0 : -1) : gemm__cl_check(ctx, *out, &s);
        }
        if (*out && verdict != 0) (*out)->checked = verdict;
        if (*out && verdict < 0 && ctx->cache_dir[0]) gemm__cl_uncache(ctx, *out);
    }
    if (s == GEMM_OK && *out && p->small > 1 && (*out)->small_bad) { /* the set asks for the kernel that failed */
        s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl: SMALL=%d: the %s small kernel failed its self-check on %s", p->small,
                       gemm_precision_name(prec), ctx->device_name);
        verdict = -1;
    }
    if (bad) *bad = verdict < 0;
    return s;
}

/* Makes (g, p) prec's choice; lock held. */
static void gemm__cl_install(gemm_cl_context *ctx, gemm_precision prec, gemm__cl_program *g,
                             const gemm_cl_params *p, const char *origin)
{
    gemm__cl_choice *ch = gemm__cl_choice_of(ctx, prec);
    ch->prog = g;
    ch->params = *p;
    snprintf(ch->origin, sizeof ch->origin, "%s", origin);
    ch->reason[0] = '\0';
}

/* prec's program, picked (and checked) on first use; callers check
   gemm__cl_usable first. Lock held. A set that is bad on this device is
   replaced by the safe default for good; after a transient failure nothing
   is chosen, so the next call tries the same set again. */
static gemm_status gemm__cl_select(gemm_cl_context *ctx, gemm_precision prec, gemm__cl_program **out)
{
    gemm__cl_choice *ch = gemm__cl_choice_of(ctx, prec);
    char origin[sizeof ch->origin], reason[sizeof ch->reason];
    gemm_cl_params p;
    gemm_status s;
    int bad = 0;
    if (ch->prog) { *out = ch->prog; return GEMM_OK; }
    gemm__cl_lookup(ctx->tuning_file, ctx->device_name, prec, &p, origin, sizeof origin);
    reason[0] = '\0';
    s = gemm__cl_try(ctx, prec, &p, out, &bad);
    if (s != GEMM_OK && !bad) return s;
    if (s != GEMM_OK) {
        snprintf(reason, sizeof reason, "%.380s [%.120s]", gemm_last_error_detail(), origin);
        snprintf(origin, sizeof origin, "safe default");
        gemm__cl_params_parse(gemm__cl_safe, &p);
        if ((s = gemm__cl_try(ctx, prec, &p, out, NULL)) != GEMM_OK) return s;
        /* the call succeeds; the detail still tells why the tuned set was dropped */
        gemm__fail(GEMM_OK, "gemm_cl: fell back to the safe default kernel: %s", reason);
    }
    ch->prog = *out;
    ch->params = p;
    memcpy(ch->origin, origin, sizeof origin);
    memcpy(ch->reason, reason, sizeof reason);
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_kernel_info_get(gemm_cl_context *ctx, gemm_precision precision,
                                             gemm_cl_kernel_info *info)
{
    const char *func = "gemm_cl_kernel_info_get";
    gemm__cl_choice *ch;
    gemm__cl_program *g;
    gemm_status s;
    gemm__clear_error();
    if (!info) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: info is NULL", func);
    memset(info, 0, sizeof *info);
    if ((s = gemm__cl_usable(ctx, precision, func)) != GEMM_OK) return s;
    snprintf(info->device_name, sizeof info->device_name, "%s", ctx->device_name);
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_select(ctx, precision, &g);
    if (s == GEMM_OK) {
        ch = gemm__cl_choice_of(ctx, precision);
        info->params = ch->params;
        snprintf(info->origin, sizeof info->origin, "%s", ch->origin);
        snprintf(info->fallback_reason, sizeof info->fallback_reason, "%s", ch->reason);
    }
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

GEMM_DEF gemm_status gemm_cl_set_params(gemm_cl_context *ctx, gemm_precision precision, const gemm_cl_params *params)
{
    gemm__cl_program *g;
    gemm_status s;
    gemm__clear_error();
    if (!params) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_set_params: params is NULL");
    if ((s = gemm__cl_usable(ctx, precision, "gemm_cl_set_params")) != GEMM_OK) return s;
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_try(ctx, precision, params, &g, NULL);
    if (s == GEMM_OK) gemm__cl_install(ctx, precision, g, params, "set by caller");
    gemm__cl_lock_give(&ctx->lock);
    return s;
}
/* <<cl choice */
/* >>cl entry: src/cl/entry.h */
/* The entry points: thin typed wrappers over one internal function per
   memory space, each of which checks once (gemm__prepare) and hands the
   canonical problem inward. */

/* OpenCL's own checks after gemm__prepare's: the precision, and the sizes
   the kernels index with int. */
static gemm_status gemm__cl_device_checks(gemm_cl_context *ctx, gemm_precision prec, const char *func, int64_t m,
                                          int64_t n, int64_t k)
{
    const int64_t limit = 2147483647 - 4096;
    gemm_status s = gemm__cl_usable(ctx, prec, func);
    if (s == GEMM_OK && (m > limit || n > limit || k > limit))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must be below %lld on OpenCL", func, (long long)limit);
    return s;
}

/* The context first (it is the first argument), then gemm__prepare's
   checks and canonical form, then OpenCL's own. */
static gemm_status gemm__cl_prepare(gemm_cl_context *ctx, gemm_precision prec, const char *func, gemm_layout layout,
                                    gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                    double alpha, int have_a, int64_t lda, int have_b, int64_t ldb, double beta,
                                    int have_c, int64_t ldc, gemm__problem *p)
{
    gemm_status s;
    p->work = GEMM__WORK_NONE;
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    s = gemm__prepare(func, layout, ta, tb, m, n, k, alpha == 0, have_a, lda, have_b, ldb, beta == 1, have_c, ldc, p);
    return s == GEMM_OK ? gemm__cl_device_checks(ctx, prec, func, m, n, k) : s;
}

/* *cap: how many elements buffer X, which must belong to ctx, holds. */
static gemm_status gemm__cl_capacity(const gemm_cl_context *ctx, cl_mem X, size_t elem, const char *func,
                                     const char *name, size_t *cap)
{
    size_t size = 0;
    cl_context owner = NULL;
    cl_int e = clGetMemObjectInfo(X, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (e == CL_SUCCESS) e = clGetMemObjectInfo(X, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (e != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is not a valid cl_mem (%s)", func, name, gemm__cl_errname(e));
    if (owner != ctx->context)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s belongs to another OpenCL context than ctx's", func, name);
    *cap = size / elem;
    return GEMM_OK;
}

/* Is [off, off + count) inside buffer X, which belongs to ctx? Counted in
   whole elements, so no product can overflow: an offset near 2^64 / elem
   must not wrap around to a small byte count. */
static gemm_status gemm__cl_fits(const gemm_cl_context *ctx, cl_mem X, size_t off, int64_t count, size_t elem,
                                 const char *func, const char *name)
{
    size_t cap = 0;
    gemm_status s = gemm__cl_capacity(ctx, X, elem, func, name, &cap);
    if (s != GEMM_OK) return s;
    if (count > 0 && (off > cap || (uint64_t)count > (uint64_t)(cap - off)))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s holds %llu elements; offset %llu + extent %lld do not fit", func,
                          name, (unsigned long long)cap, (unsigned long long)off, (long long)count);
    return GEMM_OK;
}

/* The buffers hold what the call touches, at their offsets. */
static gemm_status gemm__cl_buffers_fit(const gemm_cl_context *ctx, const gemm__problem *p, const gemm__cl_operands *o,
                                        size_t elem, const char *func)
{
    gemm_status s = GEMM_OK;
    if (p->work == GEMM__WORK_FULL) {
        s = gemm__cl_fits(ctx, o->a, o->offa, p->a_extent, elem, func, p->swapped ? "B" : "A");
        if (s == GEMM_OK) s = gemm__cl_fits(ctx, o->b, o->offb, p->b_extent, elem, func, p->swapped ? "A" : "B");
    }
    if (s == GEMM_OK && p->work != GEMM__WORK_NONE) s = gemm__cl_fits(ctx, o->c, o->offc, p->c_extent, elem, func, "C");
    return s;
}

/* Host matrices span less than half the address space in bytes: then every
   byte count and pitch of their copies fits in size_t. */
static gemm_status gemm__cl_host_fits(const gemm__problem *p, size_t elem, const char *func)
{
    size_t bytes;
    if (!gemm__cl_bytes(p->a_extent, 2, elem, &bytes) || !gemm__cl_bytes(p->b_extent, 2, elem, &bytes) ||
        !gemm__cl_bytes(p->c_extent, 2, elem, &bytes))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: a matrix spans more bytes than this address space holds", func);
    return GEMM_OK;
}

/* Enqueues a checked batch (a single call: one member) on the caller's
   queue: a marker when there is nothing to compute (for the event and the
   wait list), else the kernels. */
static gemm_status gemm__cl_launch(gemm_cl_context *ctx, gemm_precision prec, const gemm__problem *p,
                                   const gemm__cl_operands *o, const gemm__cl_members *mb, double alpha, double beta,
                                   cl_uint nw, const cl_event *wait, cl_event *event)
{
    gemm__cl_program *g;
    gemm_status s = GEMM_OK;
    gemm__cl_lock_take(&ctx->lock);
    if (p->work == GEMM__WORK_NONE || mb->count == 0) {
        cl_int e = event || nw ? clEnqueueMarkerWithWaitList(ctx->queue, nw, nw ? wait : NULL, event) : CL_SUCCESS;
        if (e != CL_SUCCESS) s = gemm__cl_fail(e, "clEnqueueMarkerWithWaitList");
    } else {
        s = gemm__cl_select(ctx, prec, &g);
        if (s == GEMM_OK)
            s = gemm__cl_enqueue_batch(ctx, &ctx->lane[0], g, p, o, mb, alpha, beta, GEMM__CL_BY_SIZE, nw, wait, event);
    }
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

/* One call on cl_mem buffers, enqueued on the caller's queue. */
static gemm_status gemm__cl_buffer_call(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                        gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                        int64_t n, int64_t k, double alpha, cl_mem A, size_t offa, int64_t lda,
                                        cl_mem B, size_t offb, int64_t ldb, double beta, cl_mem C, size_t offc,
                                        int64_t ldc, const gemm_cl_options *options)
{
    cl_uint nw = options ? options->num_wait : 0;
    const cl_event *wait = options ? options->wait : NULL;
    cl_event *event = options ? options->event : NULL;
    gemm__cl_operands o;
    gemm__cl_members one;
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    if (event) *event = NULL;
    s = gemm__cl_prepare(ctx, prec, func, layout, ta, tb, m, n, k, alpha, A != NULL, lda, B != NULL, ldb, beta,
                         C != NULL, ldc, &p);
    if (s != GEMM_OK) return s;
    if (nw > 0 && !wait) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: num_wait > 0 but wait is NULL", func);
    gemm__cl_operands_set(&o, &p, A, offa, B, offb, C, offc);
    if ((s = gemm__cl_buffers_fit(ctx, &p, &o, gemm_precision_size(prec), func)) != GEMM_OK) return s;
    memset(&one, 0, sizeof one);
    one.count = 1;
    return gemm__cl_launch(ctx, prec, &p, &o, &one, alpha, beta, nw, wait, event);
}

/* One blocking call on host pointers, on the caller's queue. */
static gemm_status gemm__cl_host_call(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                      gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                      int64_t k, double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                      double beta, void *C, int64_t ldc, const gemm_cl_options *options)
{
    gemm_timing *timing = options ? options->timing : NULL;
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    if (timing) memset(timing, 0, sizeof *timing);
    s = gemm__cl_prepare(ctx, prec, func, layout, ta, tb, m, n, k, alpha, A != NULL, lda, B != NULL, ldb, beta,
                         C != NULL, ldc, &p);
    if (s != GEMM_OK || p.work == GEMM__WORK_NONE) return s;
    if ((s = gemm__cl_host_fits(&p, gemm_precision_size(prec), func)) != GEMM_OK) return s;
    return gemm__cl_host(ctx, &ctx->lane[0], prec, NULL, GEMM__CL_BY_SIZE, &p, alpha, p.swapped ? B : A,
                         p.swapped ? A : B, beta, C, timing);
}

GEMM_DEF gemm_status gemm_cl_sgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   float beta, cl_mem C, size_t offc, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_buffer_call(ctx, GEMM_F32, "gemm_cl_sgemm", layout, transa, transb, m, n, k, alpha, A, offa, lda,
                                B, offb, ldb, beta, C, offc, ldc, options);
}

GEMM_DEF gemm_status gemm_cl_dgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   double beta, cl_mem C, size_t offc, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_buffer_call(ctx, GEMM_F64, "gemm_cl_dgemm", layout, transa, transb, m, n, k, alpha, A, offa, lda,
                                B, offb, ldb, beta, C, offc, ldc, options);
}

GEMM_DEF gemm_status gemm_cl_sgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                        const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                        float *C, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_host_call(ctx, GEMM_F32, "gemm_cl_sgemm_host", layout, transa, transb, m, n, k, alpha, A, lda, B,
                              ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cl_dgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                        const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                        double *C, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_host_call(ctx, GEMM_F64, "gemm_cl_dgemm_host", layout, transa, transb, m, n, k, alpha, A, lda, B,
                              ldb, beta, C, ldc, options);
}
/* <<cl entry */
/* >>cl batch: src/cl/batch.h */
/* Batches on buffers: the checks every backend shares (gemm__prepare_strided,
   gemm__prepare_batched in core/batch.c), then OpenCL's own (the device,
   the sizes, every member inside its buffer), all before anything is
   enqueued; then one launch of each kernel for the whole batch
   (gemm__cl_launch, run.h). */

/* Member i of a strided operand at off + i*stride, `extent` elements long,
   inside buffer X (`name`), for i < count: else the first that is not,
   named in the detail (*bad: its index). */
static gemm_status gemm__cl_strided_fit(const gemm_cl_context *ctx, cl_mem X, size_t off, int64_t stride,
                                        int64_t extent, int64_t count, size_t elem, const char *func,
                                        const char *name, int64_t *bad)
{
    size_t cap = 0;
    uint64_t room;
    int64_t i;
    gemm_status s = gemm__cl_capacity(ctx, X, elem, func, name, &cap);
    if (s != GEMM_OK || extent == 0) return s;
    if (off > cap || (uint64_t)extent > (uint64_t)(cap - off)) {
        i = 0;
    } else {
        room = (uint64_t)(cap - off) - (uint64_t)extent; /* how far the last member may start past the first */
        if (stride == 0 || (uint64_t)(count - 1) <= room / (uint64_t)stride) return GEMM_OK;
        i = (int64_t)(room / (uint64_t)stride) + 1;
    }
    *bad = i;
    /* off + i*stride fits: off <= cap here (or i == 0), and i*stride < 2^60 (gemm__prepare_strided) */
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: member %lld: %s holds %llu elements; offset %llu + extent %lld do "
                      "not fit", func, (long long)i, name, (unsigned long long)cap,
                      (unsigned long long)(off + (uint64_t)(i * stride)), (long long)extent);
}

/* Member i of a listed operand at offs[i], `extent` elements long, inside
   buffer X for every i < count: else the first that is not. */
static gemm_status gemm__cl_listed_fit(const gemm_cl_context *ctx, cl_mem X, const size_t *offs, int64_t extent,
                                       int64_t count, size_t elem, const char *func, const char *name, int64_t *bad)
{
    size_t cap = 0;
    int64_t i;
    gemm_status s = gemm__cl_capacity(ctx, X, elem, func, name, &cap);
    if (s != GEMM_OK || extent == 0) return s;
    for (i = 0; i < count; i++)
        if (offs[i] > cap || (uint64_t)extent > (uint64_t)(cap - offs[i])) {
            *bad = i;
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: member %lld: %s holds %llu elements; off%c[%lld] = %llu + "
                              "extent %lld do not fit", func, (long long)i, name, (unsigned long long)cap,
                              name[0] + 'a' - 'A', (long long)i, (unsigned long long)offs[i], (long long)extent);
        }
    return GEMM_OK;
}

/* The caller's operands (A, B, C in the caller's order), present and large
   enough for every member; `fit` checks one of them. The extents of the
   caller's A and B are the problem's a and b swapped back. */
typedef struct gemm__cl_batch_args {
    cl_mem X[3];
    size_t off[3];          /* strided form: member 0's offsets */
    int64_t stride[3];      /* strided form */
    const size_t *offs[3];  /* pointer-array form: the lists (NULL in the strided form) */
} gemm__cl_batch_args;

static gemm_status gemm__cl_batch_fit(const gemm_cl_context *ctx, const gemm__problem *p, const gemm__cl_batch_args *a,
                                      int64_t count, size_t elem, const char *func, gemm__batch *bt)
{
    static const char *const names[3] = {"A", "B", "C"};
    int64_t extent[3];
    gemm_status s = GEMM_OK;
    int x;
    extent[0] = p->swapped ? p->b_extent : p->a_extent;
    extent[1] = p->swapped ? p->a_extent : p->b_extent;
    extent[2] = p->c_extent;
    for (x = p->work == GEMM__WORK_FULL ? 0 : 2; x < 3 && s == GEMM_OK; x++) {
        if (!a->X[x]) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is NULL", func, names[x]);
        s = a->offs[x] ? gemm__cl_listed_fit(ctx, a->X[x], a->offs[x], extent[x], count, elem, func, names[x],
                                             &bt->bad_member)
                       : gemm__cl_strided_fit(ctx, a->X[x], a->off[x], a->stride[x], extent[x], count, elem, func,
                                              names[x], &bt->bad_member);
    }
    return s;
}

/* A list of offsets as the kernels take it. Offsets that step by a fixed
   distance (members side by side, in either order, or one operand every
   member shares) become a start and a stride; others go to a device buffer
   of cl_long made here (*list; the caller releases it). */
static gemm_status gemm__cl_list_of(gemm_cl_context *ctx, const size_t *offs, int64_t count, size_t *start,
                                    int64_t *stride, cl_mem *list)
{
    /* offsets fit in the buffer, so each difference fits in int64_t */
    int64_t i, d = count > 1 ? (int64_t)(offs[1] - offs[0]) : 0;
    size_t bytes;
    cl_long *host;
    cl_int e = CL_SUCCESS;
    *start = offs[0];
    *stride = d;
    *list = NULL;
    for (i = 2; i < count && (int64_t)(offs[i] - offs[i - 1]) == d; i++) continue;
    if (i >= count) return GEMM_OK;
    *start = 0;
    *stride = 0;
    if (!gemm__cl_bytes(count, 1, sizeof(cl_long), &bytes) || !(host = (cl_long *)gemm__cl_malloc(bytes)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: no host memory for %lld offsets", (long long)count);
    for (i = 0; i < count; i++) host[i] = (cl_long)offs[i];
    *list = gemm__cl_buffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host, &e);
    GEMM_FREE(host);
    if (e != CL_SUCCESS) {
        *list = NULL;
        return gemm__cl_fail(e, "clCreateBuffer (the members' offsets)");
    }
    return GEMM_OK;
}

/* The members of a checked batch in the problem's names (a, b swapped for
   row-major calls), the kernels' operands and their placing. */
static gemm_status gemm__cl_members_of(gemm_cl_context *ctx, const gemm__problem *p, const gemm__cl_batch_args *a,
                                       int64_t count, gemm__cl_operands *o, gemm__cl_members *mb)
{
    size_t off[3];
    int64_t stride[3];
    cl_mem list[3] = {NULL, NULL, NULL};
    gemm_status s = GEMM_OK;
    int x, from[3];
    from[0] = p->swapped ? 1 : 0; /* the caller's operand each of a, b, c is */
    from[1] = p->swapped ? 0 : 1;
    from[2] = 2;
    memset(mb, 0, sizeof *mb);
    mb->count = count;
    for (x = 0; x < 3; x++) {
        const int y = from[x];
        off[x] = a->off[y];
        stride[x] = a->stride[y];
        if (a->offs[y] && (x == 2 || p->work == GEMM__WORK_FULL) && s == GEMM_OK)
            s = gemm__cl_list_of(ctx, a->offs[y], count, &off[x], &stride[x], &list[x]);
        mb->stride[x] = stride[x];
        mb->list[x] = list[x];
    }
    o->a = a->X[from[0]]; o->offa = off[0];
    o->b = a->X[from[1]]; o->offb = off[1];
    o->c = a->X[2]; o->offc = off[2];
    return s;
}

static void gemm__cl_members_free(gemm__cl_members *mb)
{
    int x;
    for (x = 0; x < 3; x++)
        if (mb->list[x]) clReleaseMemObject(mb->list[x]);
}

/* After the shared checks: the device's, the wait list, every member in
   its buffer; then the launch. */
static gemm_status gemm__cl_batch_run(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                      const gemm__problem *p, gemm__batch *bt, const gemm__cl_batch_args *a,
                                      int64_t count, double alpha, double beta, const gemm_cl_options *options)
{
    cl_uint nw = options ? options->num_wait : 0;
    const cl_event *wait = options ? options->wait : NULL;
    cl_event *event = options ? options->event : NULL;
    gemm__cl_operands o;
    gemm__cl_members mb;
    gemm_status s = gemm__cl_device_checks(ctx, prec, func, p->m, p->n, p->k);
    if (s != GEMM_OK) return s;
    if (nw > 0 && !wait) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: num_wait > 0 but wait is NULL", func);
    if (count == 0 || p->work == GEMM__WORK_NONE) count = 0; /* nothing read or written: a marker at most */
    if (count > 0 && (s = gemm__cl_batch_fit(ctx, p, a, count, gemm_precision_size(prec), func, bt)) != GEMM_OK)
        return s;
    memset(&o, 0, sizeof o);
    memset(&mb, 0, sizeof mb);
    if (count > 0) s = gemm__cl_members_of(ctx, p, a, count, &o, &mb);
    if (s == GEMM_OK) s = gemm__cl_launch(ctx, prec, p, &o, &mb, alpha, beta, nw, wait, event);
    gemm__cl_members_free(&mb); /* OpenCL keeps the lists until the kernels are done */
    return s;
}

static gemm_status gemm__cl_strided_call(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                         gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                         int64_t n, int64_t k, double alpha, cl_mem A, size_t offa, int64_t lda,
                                         int64_t sa, cl_mem B, size_t offb, int64_t ldb, int64_t sb, double beta,
                                         cl_mem C, size_t offc, int64_t ldc, int64_t sc, int64_t count,
                                         const gemm_cl_options *options)
{
    gemm__cl_batch_args a;
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    if (options && options->event) *options->event = NULL;
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    s = gemm__prepare_strided(func, layout, ta, tb, m, n, k, alpha == 0, A != NULL, lda, sa, B != NULL, ldb, sb,
                              beta == 1, C != NULL, ldc, sc, count, &p, &bt);
    if (s != GEMM_OK) return s;
    memset(&a, 0, sizeof a);
    a.X[0] = A; a.off[0] = offa; a.stride[0] = sa;
    a.X[1] = B; a.off[1] = offb; a.stride[1] = sb;
    a.X[2] = C; a.off[2] = offc; a.stride[2] = sc;
    return gemm__cl_batch_run(ctx, prec, func, &p, &bt, &a, count, alpha, beta, options);
}

/* The overlap check's address of member i: (offset + 1) * element size, as
   0 would mean a missing member; saturated where that overflows, an offset
   no buffer holds (refused all the same). */
static uint64_t gemm__cl_addr(const void *list, int64_t i, uint64_t es)
{
    uint64_t off = ((const size_t *)list)[i];
    return off >= UINT64_MAX / es - 1 ? UINT64_MAX : (off + 1) * es;
}

static uint64_t gemm__cl_addr_f32(const void *list, int64_t i) { return gemm__cl_addr(list, i, 4); }
static uint64_t gemm__cl_addr_f64(const void *list, int64_t i) { return gemm__cl_addr(list, i, 8); }

static gemm_status gemm__cl_listed_call(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                        gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                        int64_t n, int64_t k, double alpha, cl_mem A, const size_t *offa,
                                        int64_t lda, cl_mem B, const size_t *offb, int64_t ldb, double beta,
                                        cl_mem C, const size_t *offc, int64_t ldc, int64_t count,
                                        const gemm_cl_options *options)
{
    gemm__batch_addr_fn addr = prec == GEMM_F64 ? gemm__cl_addr_f64 : gemm__cl_addr_f32;
    gemm__cl_batch_args a;
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    if (options && options->event) *options->event = NULL;
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    s = gemm__prepare_batched(func, layout, ta, tb, m, n, k, alpha == 0, offa, lda, offb, ldb, beta == 1, offc, ldc,
                              count, addr, addr, gemm_precision_size(prec), &p, &bt);
    if (s != GEMM_OK) return s;
    memset(&a, 0, sizeof a);
    a.X[0] = A; a.offs[0] = offa;
    a.X[1] = B; a.offs[1] = offb;
    a.X[2] = C; a.offs[2] = offc;
    return gemm__cl_batch_run(ctx, prec, func, &p, &bt, &a, count, alpha, beta, options);
}

GEMM_DEF gemm_status gemm_cl_sgemm_strided_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                                   cl_mem A, size_t offa, int64_t lda, int64_t stride_a,
                                                   cl_mem B, size_t offb, int64_t ldb, int64_t stride_b, float beta,
                                                   cl_mem C, size_t offc, int64_t ldc, int64_t stride_c,
                                                   int64_t batch_count, const gemm_cl_options *options)
{
    return gemm__cl_strided_call(ctx, GEMM_F32, "gemm_cl_sgemm_strided_batched", layout, transa, transb, m, n, k,
                                 alpha, A, offa, lda, stride_a, B, offb, ldb, stride_b, beta, C, offc, ldc, stride_c,
                                 batch_count, options);
}

GEMM_DEF gemm_status gemm_cl_dgemm_strided_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                                   cl_mem A, size_t offa, int64_t lda, int64_t stride_a,
                                                   cl_mem B, size_t offb, int64_t ldb, int64_t stride_b, double beta,
                                                   cl_mem C, size_t offc, int64_t ldc, int64_t stride_c,
                                                   int64_t batch_count, const gemm_cl_options *options)
{
    return gemm__cl_strided_call(ctx, GEMM_F64, "gemm_cl_dgemm_strided_batched", layout, transa, transb, m, n, k,
                                 alpha, A, offa, lda, stride_a, B, offb, ldb, stride_b, beta, C, offc, ldc, stride_c,
                                 batch_count, options);
}

GEMM_DEF gemm_status gemm_cl_sgemm_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                           cl_mem A, const size_t offa[], int64_t lda, cl_mem B, const size_t offb[],
                                           int64_t ldb, float beta, cl_mem C, const size_t offc[], int64_t ldc,
                                           int64_t batch_count, const gemm_cl_options *options)
{
    return gemm__cl_listed_call(ctx, GEMM_F32, "gemm_cl_sgemm_batched", layout, transa, transb, m, n, k, alpha, A,
                                offa, lda, B, offb, ldb, beta, C, offc, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cl_dgemm_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                           cl_mem A, const size_t offa[], int64_t lda, cl_mem B, const size_t offb[],
                                           int64_t ldb, double beta, cl_mem C, const size_t offc[], int64_t ldc,
                                           int64_t batch_count, const gemm_cl_options *options)
{
    return gemm__cl_listed_call(ctx, GEMM_F64, "gemm_cl_dgemm_batched", layout, transa, transb, m, n, k, alpha, A,
                                offa, lda, B, offb, ldb, beta, C, offc, ldc, batch_count, options);
}
/* <<cl batch */
/* >>cl tune_space: src/cl/tune_space.h */
/* The tuner's search space, in two stages after the seed paper's: first
   the structure (work-group shape, work-item tile, warp layout) with the
   other knobs at values that suit the kind of device, a space small enough
   to measure whole within the budget; then, around the best few, every
   other knob changed one at a time. */

typedef struct gemm__cl_cand {
    gemm_cl_params p;
    double score; /* GFLOP/s at the coarse sizes; < 0: failed, or not measured */
} gemm__cl_cand;

/* A handful of sets at small sizes, for the tests; the last has more
   work-items than any device allows: it must be skipped, not fail the run. */
static int gemm__cl_space_tiny(gemm__cl_cand *out, int max)
{
    static const char *const small[] = {
        "MWG=4 NWG=8 KWG=2 MDIMC=1 NDIMC=1 VWM=1 VWN=4 SA=0 SB=0 PACK=1 DIRECT=0",
        "MWG=8 NWG=8 KWG=4 MDIMC=2 NDIMC=2 VWM=2 VWN=2 SA=1 SB=1 PACK=0 DIRECT=0",
        "MWG=16 NWG=16 KWG=3 MDIMC=4 NDIMC=4 VWM=1 VWN=2 SA=0 SB=1 PACK=1 DIRECT=0",
        "MWG=128 NWG=128 KWG=4 MDIMC=128 NDIMC=128 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=0",
    };
    int cnt = 0;
    for (; cnt < 4 && cnt < max; cnt++) gemm__cl_params_parse(small[cnt], &out[cnt].p);
    return cnt;
}

static int gemm__cl_is_gpu(const gemm_cl_context *ctx)
{
    return (ctx->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
}

/* Adds p to out[0..*cnt) when the device can run it and it is not there yet
   (DIRECT aside). */
static void gemm__cl_space_add(const gemm_cl_context *ctx, size_t elem, const gemm_cl_params *p, gemm__cl_cand *out,
                               int max, int *cnt)
{
    int i;
    if (*cnt >= max || gemm__cl_params_invalid(p, ctx->max_wg, ctx->local_mem, elem)) return;
    for (i = 0; i < *cnt; i++)
        if (gemm__cl_same_program(&out[i].p, p)) return;
    out[*cnt].p = *p;
    out[*cnt].score = -1;
    ++*cnt;
}

/* GPUs, stage 1: 64-256 work-items, 4x4 to 8x8 elements each (fp64: 2x4 to
   8x4), 16-byte vectors (fp64: 2 elements), with and without warp-level
   tiling and a register cap; both tiles through local memory,
   double-buffered, packed panels, KWG = 16. */
static int gemm__cl_space_gpu(const gemm_cl_context *ctx, size_t elem, gemm__cl_cand *out, int max)
{
    /* first, the sets an earlier template measured best on an H200 (fp32, fp64) */
    static const char *const seeds[] = {
        "MWG=128 NWG=64 KWG=16 MDIMC=16 NDIMC=8 VWM=1 VWN=4 SA=1 SB=1 PACK=0 DIRECT=128 DB=0",
        "MWG=64 NWG=64 KWG=8 MDIMC=16 NDIMC=8 VWM=2 VWN=1 SA=1 SB=1 PACK=1 DIRECT=128 DB=1",
    };
    static const int dims[][2] = {{16, 16}, {8, 16}, {16, 8}, {8, 32}, {32, 8}, {8, 8}};
    static const int tiles32[][2] = {{8, 8}, {4, 8}, {8, 4}, {4, 4}};
    static const int tiles64[][2] = {{4, 8}, {8, 4}, {4, 4}, {2, 4}};
    static const int warps[] = {0, 8, 4};
    const int (*tiles)[2] = elem == 8 ? tiles64 : tiles32, vw = elem == 8 ? 2 : 4;
    gemm_cl_params p;
    int cnt = 0, d, t, w, r;
    memset(&p, 0, sizeof p);
    gemm__cl_params_parse(seeds[elem == 8], &p);
    gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
    memset(&p, 0, sizeof p);
    p.kwg = 16;
    p.sa = p.sb = p.pack = p.db = 1;
    p.direct = 128;
    for (d = 0; d < 6; d++)
        for (t = 0; t < 4; t++)
            for (w = 0; w < 3; w++) {
                p.mdimc = dims[d][0];
                p.ndimc = dims[d][1];
                p.mwg = p.mdimc * tiles[t][0];
                p.nwg = p.ndimc * tiles[t][1];
                p.vwm = tiles[t][0] < vw ? tiles[t][0] : vw;
                p.vwn = tiles[t][1] < vw ? tiles[t][1] : vw;
                p.warpm = warps[w];
                /* 256 work-items: also capped at 128 registers, so two groups share an SM */
                for (r = 0; r < (p.mdimc * p.ndimc == 256 ? 2 : 1); r++) {
                    p.regs = r ? 128 : 0;
                    gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
                }
            }
    return cnt;
}

/* CPUs, stage 1: register tiles of C per work-item (one work-item per
   group), vectors along N, no local memory (PoCL emulates it in global
   memory), packed panels. */
static int gemm__cl_space_cpu(const gemm_cl_context *ctx, size_t elem, gemm__cl_cand *out, int max)
{
    static const int rows[] = {4, 6, 8, 10, 12, 14, 16}, cols[] = {16, 32, 48, 64};
    const int vwn = elem == 8 ? 8 : 16, regs = 32; /* AVX-512: 32 vector registers */
    gemm_cl_params p;
    int cnt = 0, a, b;
    memset(&p, 0, sizeof p);
    p.mdimc = p.ndimc = p.vwm = 1;
    p.kwg = 8;
    p.pack = 1;
    for (a = 0; a < 7; a++)
        for (b = 0; b < 4; b++) {
            p.mwg = rows[a];
            p.nwg = cols[b] / (elem == 8 ? 2 : 1);
            p.vwn = vwn;
            /* the sums and one row of B in registers, one left for A */
            if (p.nwg % p.vwn || p.mwg * (p.nwg / p.vwn) + p.nwg / p.vwn + 1 > regs) continue;
            gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
        }
    return cnt;
}

/* Stage 1 for this device; the tests' tiny space instead when asked. */
static int gemm__cl_space(const gemm_cl_context *ctx, gemm_precision prec, int tiny, gemm__cl_cand *out, int max)
{
    size_t elem = gemm_precision_size(prec);
    if (tiny) return gemm__cl_space_tiny(out, max);
    if (gemm__cl_is_gpu(ctx)) return gemm__cl_space_gpu(ctx, elem, out, max);
    return gemm__cl_space_cpu(ctx, elem, out, max);
}

/* One knob of stage 2: a field and the values it tries. MDIMC keeps the
   work-item tile (MWG changes with it). */
typedef struct gemm__cl_knob {
    const char *name;
    int values[4], count;
} gemm__cl_knob;

static const gemm__cl_knob gemm__cl_knobs_gpu[] = {
    {"KWG", {8, 16, 32, 0}, 3},   {"DB", {0, 1, 0, 0}, 2},    {"PACK", {0, 1, 0, 0}, 2},
    {"VWM", {1, 2, 4, 0}, 3},     {"VWN", {1, 2, 4, 0}, 3},   {"WARPM", {0, 4, 8, 0}, 3},
    {"REGS", {0, 128, 0, 0}, 2},
};
static const gemm__cl_knob gemm__cl_knobs_cpu[] = {
    {"KWG", {4, 8, 16, 32}, 4}, {"PACK", {0, 1, 0, 0}, 2}, {"VWN", {4, 8, 16, 0}, 3}, {"MDIMC", {1, 2, 4, 8}, 4},
};

/* Appends to out[*cnt..] every set that differs from base in one knob. */
static void gemm__cl_neighbours(const gemm_cl_context *ctx, size_t elem, const gemm_cl_params *base,
                                gemm__cl_cand *out, int max, int *cnt)
{
    int gpu = gemm__cl_is_gpu(ctx), nk, k, v;
    const gemm__cl_knob *knobs = gpu ? gemm__cl_knobs_gpu : gemm__cl_knobs_cpu;
    size_t f;
    nk = gpu ? (int)(sizeof gemm__cl_knobs_gpu / sizeof *knobs) : (int)(sizeof gemm__cl_knobs_cpu / sizeof *knobs);
    for (k = 0; k < nk; k++)
        for (f = 0; f < GEMM__CL_NFIELDS; f++) {
            if (strcmp(gemm__cl_fields[f].name, knobs[k].name) != 0) continue;
            for (v = 0; v < knobs[k].count; v++) {
                gemm_cl_params p = *base;
                gemm__cl_field_set(&p, f, knobs[k].values[v]);
                if (!strcmp(knobs[k].name, "MDIMC")) p.mwg = base->mwg / base->mdimc * p.mdimc;
                gemm__cl_space_add(ctx, elem, &p, out, max, cnt);
            }
        }
}

static int gemm__cl_by_score(const void *x, const void *y)
{
    double a = ((const gemm__cl_cand *)x)->score, b = ((const gemm__cl_cand *)y)->score;
    return a > b ? -1 : a < b;
}
/* <<cl tune_space */
/* >>cl tuner: src/cl/tuner.h */
/* The autotuner, in the seed paper's two stages: every structure of the
   space at two sizes, then the other knobs one at a time around the best
   few (tune_space.h); then the best few of all over a range of sizes, and
   the direct kernel's crossover. Every candidate is checked. */

typedef struct gemm__cl_tuner {
    gemm_cl_context *ctx;
    gemm_precision prec;
    gemm_cl_tune_options o;
    gemm_cl_tune_result res;
    gemm__cl_cand *cands;
    int ncand, nref, maxn;
    double *hA, *hB;  /* the inputs in double, for the host's check */
    void *conv;       /* the same in the device's precision */
    cl_mem A, B, C;   /* n x n row-major, for every n up to maxn */
    double start;
} gemm__cl_tuner;

/* Seconds per call on n x n x n: the best of 3 after a warm-up (other
   processes only ever slow a run down, so the minimum is the least noisy); < 0 on failure. */
static double gemm__cl_time(gemm__cl_tuner *t, const gemm__cl_program *g, gemm__cl_path path, int64_t n)
{
    gemm__cl_lane *lane = &t->ctx->lane[1];
    gemm__cl_operands o;
    gemm__problem p;
    double best = -1;
    int r;
    if (gemm__prepare("gemm_cl_tune", GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 0, 1, n, 1, n, 0, 1, n,
                      &p) != GEMM_OK)
        return -1;
    gemm__cl_operands_set(&o, &p, t->A, 0, t->B, 0, t->C, 0);
    for (r = -1; r < 3; r++) {
        double t0 = gemm__cl_now();
        if (gemm__cl_enqueue(t->ctx, lane, g, &p, &o, 1.0, 0.0, path, 0, NULL, NULL) != GEMM_OK ||
            clFinish(lane->queue) != CL_SUCCESS)
            return -1;
        t0 = gemm__cl_now() - t0;
        if (r >= 0 && (best < 0 || t0 < best)) best = t0;
    }
    return best;
}

/* Checks 16 sampled elements of the last C = A B (row-major, n x n) on the host. */
static int gemm__cl_sample_ok(gemm__cl_tuner *t, int64_t n)
{
    size_t elem = gemm_precision_size(t->prec);
    double eps = t->prec == GEMM_F64 ? 2.220446049250313e-16 : 1.1920929e-7;
    uint64_t x = 12345;
    int s;
    for (s = 0; s < 16; s++) {
        int64_t i, j, q;
        double sum = 0, got = 0;
        float f = 0;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        i = (int64_t)(x % (uint64_t)n);
        j = (int64_t)((x >> 20) % (uint64_t)n);
        for (q = 0; q < n; q++) sum += t->hA[i * n + q] * t->hB[q * n + j];
        if (clEnqueueReadBuffer(t->ctx->lane[1].queue, t->C, CL_TRUE, (size_t)(i * n + j) * elem, elem,
                                t->prec == GEMM_F64 ? (void *)&got : (void *)&f, 0, NULL, NULL) != CL_SUCCESS)
            return 0;
        if (t->prec != GEMM_F64) got = f;
        if (!(fabs(got - sum) <= 4 * eps * (double)n * 0.25)) return 0;
    }
    return 1;
}

/* Is line a tuning line of exactly this precision and device? */
static int gemm__cl_same_entry(const char *line, const char *prefix, const char *device)
{
    const char *dev = strstr(line, "device=");
    return dev && strncmp(line, prefix, 4) == 0 && strcmp(dev + 7, device) == 0;
}

/* Appends newline to a tuning file, dropping the earlier lines of this
   (precision, device) and keeping every other line (within the bounded
   read of gemm__cl_read_line: a file past 1 MiB is no tuning file). */
static gemm_status gemm__cl_write_tuning(const gemm_cl_context *ctx, const char *path, const char *newline,
                                         const char *prefix, const char *device)
{
    char tmp[600], line[GEMM__CL_LINE_MAX];
    size_t budget = GEMM__CL_TUNING_MAX_BYTES;
    FILE *in = fopen(path, "r"), *out;
    int r;
    snprintf(tmp, sizeof tmp, "%.540s.%ld.%p.tmp", path, gemm__cl_pid(), (const void *)ctx); /* unique per writer */
    if (!(out = fopen(tmp, "w"))) {
        if (in) fclose(in);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_tune: cannot write %s", tmp);
    }
    while (in && (r = gemm__cl_read_line(in, line, &budget)) != 0) {
        if (r > 0 && !gemm__cl_same_entry(line, prefix, device)) fprintf(out, "%s\n", line);
    }
    if (in) fclose(in);
    else fputs("# gemm_cl tuning file (gemm_cl_tune / make tune-cl): precision, parameters, device name; "
                       "the last line for a device wins\n", out);
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

/* The options with their defaults, which depend on the kind of device:
   GPUs are measured where the speed goals are (n >= 2048), CPUs where their
   caches stop holding the operands (n ~ 1024). */
static void gemm__cl_tune_defaults(gemm__cl_tuner *t, const gemm_cl_tune_options *options)
{
    gemm_cl_tune_options *o = &t->o;
    int gpu = gemm__cl_is_gpu(t->ctx), i;
    memset(o, 0, sizeof *o);
    if (options) *o = *options;
    if (o->budget_s <= 0) o->budget_s = 120;
    if (o->refine_top <= 0) o->refine_top = 4;
    if (o->coarse_sizes[0] <= 0) {
        o->coarse_sizes[0] = o->tiny ? 48 : gpu ? 2048 : 512;
        o->coarse_sizes[1] = o->tiny ? 72 : gpu ? 4096 : 1024;
    }
    if (o->coarse_sizes[1] <= 0) o->coarse_sizes[1] = o->coarse_sizes[0];
    if (o->refine_sizes[0] <= 0) {
        o->refine_sizes[0] = o->tiny ? 64 : gpu ? 2048 : 512;
        o->refine_sizes[1] = o->tiny ? 96 : gpu ? 4096 : 1024;
        o->refine_sizes[2] = o->tiny ? 0 : gpu ? 8192 : 2048;
    }
    for (i = 0; i < 4 && o->refine_sizes[i] > 0; i++) t->nref++;
    for (i = 0; i < 2; i++) t->maxn = o->coarse_sizes[i] > t->maxn ? o->coarse_sizes[i] : t->maxn;
    for (i = 0; i < t->nref; i++) t->maxn = o->refine_sizes[i] > t->maxn ? o->refine_sizes[i] : t->maxn;
    if (t->maxn < 512) t->maxn = 512; /* the crossover search goes to 512 */
}

/* Random inputs on the host (double, and the device's precision) and on the device. */
static gemm_status gemm__cl_tune_data(gemm__cl_tuner *t, int max_cand)
{
    size_t elem = gemm_precision_size(t->prec), nn = (size_t)t->maxn * (size_t)t->maxn, i;
    uint64_t x = 2463534242ull;
    cl_int e = CL_SUCCESS;
    t->cands = (gemm__cl_cand *)gemm__cl_malloc(sizeof *t->cands * (size_t)max_cand);
    t->hA = (double *)gemm__cl_malloc(sizeof(double) * nn * 2);
    t->conv = gemm__cl_malloc(elem * nn * 2);
    if (!t->cands || !t->hA || !t->conv) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl_tune: out of host memory");
    t->hB = t->hA + nn;
    for (i = 0; i < nn * 2; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        t->hA[i] = (double)(x >> 40) / 16777216.0 - 0.5;
        if (t->prec == GEMM_F64) ((double *)t->conv)[i] = t->hA[i];
        else ((float *)t->conv)[i] = (float)t->hA[i];
    }
    t->A = gemm__cl_buffer(t->ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elem * nn, t->conv, &e);
    if (e == CL_SUCCESS)
        t->B = gemm__cl_buffer(t->ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elem * nn,
                              (char *)t->conv + elem * nn, &e);
    if (e == CL_SUCCESS) t->C = gemm__cl_buffer(t->ctx->context, CL_MEM_READ_WRITE, elem * nn, NULL, &e);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "gemm_cl_tune: clCreateBuffer");
}

static void gemm__cl_tune_free(gemm__cl_tuner *t)
{
    if (t->A) clReleaseMemObject(t->A);
    if (t->B) clReleaseMemObject(t->B);
    if (t->C) clReleaseMemObject(t->C);
    if (t->cands) GEMM_FREE(t->cands);
    if (t->hA) GEMM_FREE(t->hA);
    if (t->conv) GEMM_FREE(t->conv);
}

/* Stage 1's candidates: the set in use now first (the tuner never does
   worse than it), then the structures of the space. Lock held. */
static void gemm__cl_tune_candidates(gemm__cl_tuner *t, int max_cand)
{
    gemm__cl_program *g;
    gemm_cl_params cur;
    if (gemm__cl_select(t->ctx, t->prec, &g) == GEMM_OK) cur = gemm__cl_choice_of(t->ctx, t->prec)->params;
    else gemm__cl_params_parse(gemm__cl_safe, &cur);
    t->cands[0].p = cur;
    t->cands[0].score = -1;
    t->ncand = 1 + gemm__cl_space(t->ctx, t->prec, t->o.tiny, t->cands + 1, max_cand - 1);
    if (t->o.max_candidates > 0 && t->ncand > t->o.max_candidates) t->ncand = t->o.max_candidates;
}

/* One candidate at the two coarse sizes: its score, or -1 when it does
   not build, run or check; `line` says which. Lock held. */
static double gemm__cl_tune_one(gemm__cl_tuner *t, const gemm_cl_params *p, const char *stage, char *line, size_t size)
{
    const gemm_cl_tune_options *o = &t->o;
    double t0, t1, n0 = o->coarse_sizes[0], n1 = o->coarse_sizes[1];
    char pstr[256];
    gemm__cl_program *g;
    gemm_cl_params_str(p, pstr, sizeof pstr);
    t->res.tried++;
    if (gemm__cl_try(t->ctx, t->prec, p, &g, NULL) != GEMM_OK) {
        t->res.failed++;
        snprintf(line, size, "skip %s: %.200s", pstr, gemm_last_error_detail());
        return -1;
    }
    if ((t0 = gemm__cl_time(t, g, GEMM__CL_TILED, o->coarse_sizes[0])) < 0 || !gemm__cl_sample_ok(t, o->coarse_sizes[0]) ||
        (t1 = gemm__cl_time(t, g, GEMM__CL_TILED, o->coarse_sizes[1])) < 0) {
        t->res.failed++;
        snprintf(line, size, "skip %s: failed to run or wrong result", pstr);
        return -1;
    }
    t->res.built++;
    t0 = 0.5 * (2e-9 * n0 * n0 * n0 / t0 + 2e-9 * n1 * n1 * n1 / t1);
    snprintf(line, size, "%8.1f GFLOP/s  %s  %s", t0, stage, pstr);
    return t0;
}

/* Measures candidates [from, to) at the coarse sizes while the time spent
   is below `until` of the budget; returns the index after the last measured. */
static int gemm__cl_tune_coarse(gemm__cl_tuner *t, int from, int to, double until, const char *stage)
{
    char line[512];
    int i;
    for (i = from; i < to; i++) {
        if (gemm__cl_now() - t->start > until * t->o.budget_s) break;
        t->cands[i].score = gemm__cl_tune_one(t, &t->cands[i].p, stage, line, sizeof line);
        if (t->o.progress) t->o.progress(t->o.user, i - from + 1, to - from, line);
    }
    return i;
}

/* Stage 2: every one-knob change of the best refine_top of stage 1,
   appended to the candidates and measured; then all of them best first. */
static void gemm__cl_tune_stage2(gemm__cl_tuner *t, int max_cand)
{
    size_t elem = gemm_precision_size(t->prec);
    int i, n = t->ncand;
    qsort(t->cands, (size_t)t->ncand, sizeof *t->cands, gemm__cl_by_score);
    for (i = 0; !t->o.tiny && i < t->o.refine_top && i < t->ncand && t->cands[i].score > 0; i++)
        gemm__cl_neighbours(t->ctx, elem, &t->cands[i].p, t->cands, max_cand, &n);
    if (t->o.max_candidates > 0 && n > t->o.max_candidates) n = t->o.max_candidates;
    t->ncand = gemm__cl_tune_coarse(t, t->ncand, n, 0.8, "stage 2");
    qsort(t->cands, (size_t)t->ncand, sizeof *t->cands, gemm__cl_by_score);
}

/* Refinement: the best few over the range of sizes, mean GFLOP/s. Returns
   1 when one ran, in res.best. */
static int gemm__cl_tune_refine(gemm__cl_tuner *t)
{
    const gemm_cl_tune_options *o = &t->o;
    char line[512], pstr[256];
    gemm__cl_program *g;
    int i, j, found = 0;
    for (i = 0; i < o->refine_top && i < t->ncand && t->cands[i].score > 0; i++) {
        const gemm_cl_params *q = &t->cands[i].p;
        double sum = 0;
        int ok = gemm__cl_try(t->ctx, t->prec, q, &g, NULL) == GEMM_OK;
        for (j = 0; ok && j < t->nref; j++) {
            double n = o->refine_sizes[j], s = gemm__cl_time(t, g, GEMM__CL_TILED, o->refine_sizes[j]);
            ok = s > 0;
            sum += ok ? 2e-9 * n * n * n / s : 0;
        }
        gemm_cl_params_str(q, pstr, sizeof pstr);
        snprintf(line, sizeof line, "refine %8.1f GFLOP/s  %s", ok ? sum / t->nref : 0.0, pstr);
        if (o->progress) o->progress(o->user, i + 1, o->refine_top, line);
        if (ok && sum / t->nref > t->res.best_gflops) {
            t->res.best_gflops = sum / t->nref;
            t->res.best = *q;
            found = 1;
        }
        if (gemm__cl_now() - t->start > o->budget_s) break;
    }
    return found;
}

/* The largest size (up to 512) where the direct kernel still wins, then the
   winner becomes the context's set. Lock held. */
static gemm_status gemm__cl_tune_crossover(gemm__cl_tuner *t)
{
    gemm__cl_program *g;
    gemm_status s;
    int n;
    t->res.best.direct = 0;
    if ((s = gemm__cl_try(t->ctx, t->prec, &t->res.best, &g, NULL)) != GEMM_OK) return s;
    for (n = 16; n <= 512; n = n < 64 ? n + 16 : n * 3 / 2) {
        double td = gemm__cl_time(t, g, GEMM__CL_DIRECT, n), tt = gemm__cl_time(t, g, GEMM__CL_TILED, n);
        if (td > 0 && tt > 0 && td < tt) t->res.best.direct = n;
        else break;
    }
    gemm__cl_install(t->ctx, t->prec, g, &t->res.best, "tuned");
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_tune(gemm_cl_context *ctx, gemm_precision precision, const gemm_cl_tune_options *options,
                                  gemm_cl_tune_result *result)
{
    const int max_cand = 16384;
    gemm__cl_tuner t;
    char pstr[256];
    gemm_status s;
    int found;
    gemm__clear_error();
    memset(&t, 0, sizeof t);
    if ((s = gemm__cl_usable(ctx, precision, "gemm_cl_tune")) != GEMM_OK) goto done;
    t.ctx = ctx;
    t.prec = precision;
    t.start = gemm__cl_now();
    gemm__cl_tune_defaults(&t, options);
    if ((s = gemm__cl_tune_data(&t, max_cand)) != GEMM_OK) goto done;
    gemm__cl_lock_take(&ctx->lock);
    gemm__cl_tune_candidates(&t, max_cand);
    t.ncand = gemm__cl_tune_coarse(&t, 0, t.ncand, 0.5, "stage 1");
    gemm__cl_tune_stage2(&t, max_cand);
    found = gemm__cl_tune_refine(&t);
    if (found) s = gemm__cl_tune_crossover(&t);
    else s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl_tune: no candidate built and ran correctly on %s", ctx->device_name);
    gemm__cl_prune(ctx);
    gemm__cl_lock_give(&ctx->lock);
    if (found) {
        gemm_cl_params_str(&t.res.best, pstr, sizeof pstr);
        snprintf(t.res.line, sizeof t.res.line, "%s %.200s device=%.255s", gemm_precision_name(precision), pstr,
                 ctx->device_name);
    }
    if (s == GEMM_OK && t.o.output && t.o.output[0])
        s = gemm__cl_write_tuning(ctx, t.o.output, t.res.line, gemm__cl_prec_prefix(precision), ctx->device_name);
done:
    gemm__cl_tune_free(&t);
    if (result) *result = t.res;
    return s;
}
/* <<cl tuner */

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */
