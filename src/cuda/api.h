/* The public declarations of gemm_cuda.cuh: its kernels, modes and
   options, the device-pointer, host-pointer and batch calls, and the
   helpers that name or report kernels. The doc block at the top of the
   header is their user reference; the parts under src/cuda/ explain the
   kernels and paths (host/choose.cuh: which runs when). */
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h> /* __half, for callers of the _mixed calls */
#include <cuda_bf16.h> /* __nv_bfloat16 */
#include "../core/api.h" /* gemm_status, gemm_layout, gemm_precision, gemm_timing, GEMM_DEF */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemm_cuda_kernel {
    GEMM_CUDA_KERNEL_AUTO = 0,    /* by precision and compute capability */
    GEMM_CUDA_KERNEL_NAIVE = 1,   /* one thread per element of C */
    GEMM_CUDA_KERNEL_TILED16 = 2, /* 16x16 tiles of A and B in shared memory (the textbook's second step) */
    GEMM_CUDA_KERNEL_SIMT = 3,    /* register-blocked, cp.async, fp32 and fp64 */
    GEMM_CUDA_KERNEL_DMMA = 4,    /* fp64 tensor cores (sm_80+); fp64 only */
    GEMM_CUDA_KERNEL_MMA = 5,     /* TF32/FP16/BF16 tensor cores through mma.sync (sm_80+) */
    GEMM_CUDA_KERNEL_WGMMA = 6    /* TF32/FP16/BF16 tensor cores through wgmma and TMA (sm_90a) */
} gemm_cuda_kernel;

typedef enum gemm_cuda_math { /* what gemm_cuda_sgemm and _sgemm_host compute in */
    GEMM_CUDA_MATH_EXACT = 0,        /* fp32 in fp32 (and fp64 in fp64) */
    GEMM_CUDA_MATH_TF32 = 1,         /* fp32 inputs cut to TF32 (10-bit mantissa) on the tensor cores, fp32 sums */
    GEMM_CUDA_MATH_FP32_ACCURATE = 2, /* fp32's accuracy on the tensor cores: three TF32 products (3xTF32) or,
                                         for large products, int8 products modulo small moduli (as FP64_EMULATED),
                                         whichever is faster */
    GEMM_CUDA_MATH_FP64_EMULATED = 3  /* gemm_cuda_dgemm: fp64 from exact int8 tensor-core products modulo
                                         options.moduli small moduli (the Ozaki scheme II) where that is faster
                                         and the inputs allow, else the native fp64 kernels */
} gemm_cuda_math;

typedef enum gemm_cuda_mode { /* how the _host calls move data */
    GEMM_CUDA_PAGEABLE = 0, /* the pipeline: pageable memory staged through page-locked chunks, page-locked,
                               device and managed memory copied straight; zero-copy under 96 KB of operands */
    GEMM_CUDA_PINNED = 1,   /* the caller page-locked its memory (cudaHostAlloc, cudaHostRegister): copied
                               straight, no staging (memory that is not page-locked is staged, as by default) */
    GEMM_CUDA_MAPPED = 2    /* zero-copy (the kernel reads host memory over the bus) up to 1 MB of operands,
                               else the pipeline */
} gemm_cuda_mode;

/* Zero-initialised means every default; NULL works too. */
typedef struct gemm_cuda_options {
    gemm_cuda_kernel kernel; /* AUTO */
    gemm_cuda_math math;     /* EXACT; TF32 is opt-in (gemm_cuda_sgemm, _sgemm_host) */
    gemm_cuda_mode mode;     /* _host calls: PAGEABLE */
    int device;              /* _host calls: CUDA device index (0 = the first) */
    size_t max_device_bytes; /* _host calls: device memory the call may take (0 = what is free less a margin;
                                too small for tiles of 32: GEMM_ERR_INVALID_ARG) */
    int host_threads;        /* _host calls: threads copying to and from pageable memory, per device (0 = half
                                the host's cores, at most 8; on several devices the cores shared, at most 12 each) */
    int split_k;             /* 0 = automatic, 1 = never split K, s = split K in s parts */
    int variant;             /* 0 = automatic, else a configuration of options.kernel:
                                SIMT (fp32) 1 = 128x128 blocks, 8x16 per thread; 2 = the same, 16x8;
                                  3 = 256x128; 4 = 128x256; 5 = 128x64 and 6 = 64x128, 8x8 per thread
                                DMMA 1 = 128x64 on cp.async (sm_80+); 2 = 128x128 through TMA, persistent;
                                  3 = 128x64 through TMA, two blocks per SM (2 and 3: Hopper, sm_90a build)
                                WGMMA (tensor-core modes) 1 = tiles of 256 x 128, 2 = 128 x 128, 3 = 128 x 64 */
    gemm_timing *timing;     /* _host calls: filled in seconds when not NULL: setup_s, to_device_s (the time
                                the multiplies waited for copies), compute_s (the multiplies, both streams),
                                from_device_s (after the last multiply), total_s (wall clock: the four
                                parts add up to it); on several devices, the slowest device's parts */
    int device_count;        /* _host calls: how many devices share the call (0 or 1 = options.device alone;
                                n > 1 = `devices`, or devices options.device .. options.device + n - 1;
                                GEMM_CUDA_ALL_DEVICES = every device there is) */
    const int *devices;      /* _host calls with device_count > 1: their indices (NULL: from options.device on) */
    int verify;              /* 1 = check the product (every batch member's) with row and column checksums,
                                GEMM_ERR_VERIFY when it fails them (sums on the device; the call then synchronizes
                                its stream) */
    int moduli;              /* FP64_EMULATED and FP32_ACCURATE: 0 = by size (fp64 15 moduli, fp32 9, where the
                                int8 products pay), n = 2..20: always emulate with n moduli (more: more bits) */
} gemm_cuda_options;

/* options.device_count: every CUDA device of the process. */
#define GEMM_CUDA_ALL_DEVICES (-1)

/* Device pointers, asynchronous on `stream` (0 or NULL: the default stream). */
GEMM_DEF gemm_status gemm_cuda_sgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                     int64_t ldc, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_dgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                     const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                     double *C, int64_t ldc, const gemm_cuda_options *options);

/* int8 A and B, int32 C = alpha*op(A)*op(B) + beta*C with exact int32
   sums (wrapping past 2^31 as cublasGemmEx with CUBLAS_COMPUTE_32I does);
   device pointers, asynchronous; the int8 tensor cores (WGMMA) where the
   sm_90a code runs, else a plain kernel. */
GEMM_DEF gemm_status gemm_cuda_s8gemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                      gemm_transpose transb, int64_t m, int64_t n, int64_t k, int32_t alpha,
                                      const int8_t *A, int64_t lda, const int8_t *B, int64_t ldb, int32_t beta,
                                      int32_t *C, int64_t ldc, const gemm_cuda_options *options);

/* How many moduli the calling thread's last gemm_cuda_dgemm with
   FP64_EMULATED, or gemm_cuda_sgemm with FP32_ACCURATE, used: 0 when the
   native kernels (or 3xTF32) ran. */
GEMM_DEF int gemm_cuda_last_moduli(void);

/* Host pointers, synchronous, on options->device. */
GEMM_DEF gemm_status gemm_cuda_sgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                          int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                          int64_t ldc, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_dgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                          int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                          int64_t ldc, const gemm_cuda_options *options);

/* FP16/BF16 inputs on the tensor cores, fp32 sums and scalars; each
   pointer's element type right after it (cublasSgemmEx's shape). a_type ==
   b_type, GEMM_F16 or GEMM_BF16; c_type GEMM_F32 or a_type; anything else
   is GEMM_ERR_INVALID_ARG. Device pointers, asynchronous, as
   gemm_cuda_sgemm. (TF32 is gemm_cuda_sgemm with options->math =
   GEMM_CUDA_MATH_TF32.) */
GEMM_DEF gemm_status gemm_cuda_sgemm_mixed(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                           const void *A, gemm_precision a_type, int64_t lda, const void *B,
                                           gemm_precision b_type, int64_t ldb, float beta, void *C,
                                           gemm_precision c_type, int64_t ldc, const gemm_cuda_options *options);

/* The same with host pointers, synchronous, as gemm_cuda_sgemm_host (the
   options' mode, device and timing apply). */
GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                                                gemm_precision a_type, int64_t lda, const void *B,
                                                gemm_precision b_type, int64_t ldb, float beta, void *C,
                                                gemm_precision c_type, int64_t ldc, const gemm_cuda_options *options);

/* Batches on the device: batch_count products C_i = alpha*op(A_i)*op(B_i)
   + beta*C_i that share every argument but where their matrices are,
   asynchronous on `stream`, the members side by side in one launch (the
   member index in the grid; a batch of over 65535 members, or of fewer
   with K split, takes one launch per 65535 grid slices). Arguments as
   cublas?gemmStridedBatched / cublas?gemmBatched in gemm's shape: each
   matrix's batch argument right after its leading dimension, then the
   count, then the options (options.math chooses TF32 or FP32_ACCURATE for
   fp32, as for gemm_cuda_sgemm; the _mixed forms take FP16 / BF16).
     Strided: member i's A, B, C start stride_a*i, stride_b*i, stride_c*i
       elements after A, B, C; a stride of 0 shares A or B between members.
     Pointer arrays: A, B and C are arrays of device pointers, in host
       memory (pageable or page-locked) or, as cuBLAS takes them, in device
       or managed memory (cudaPointerGetAttributes tells). The call reads
       them before it returns, a list on the device in `stream`'s order (it
       waits for the work queued there before it; not while the stream is
       being captured), and copies them to the device itself, so they may
       change as soon as it returns. A list nothing can read (freed, a
       stray pointer) is GEMM_ERR_INVALID_ARG, not a crash (on Linux,
       through process_vm_readv where allowed; else a list the runtime
       calls host memory is read as given). Lists the call does not read
       (A and B when alpha = 0 or k = 0) may be anything.
   Every member is checked before anything is queued: the single call's
   checks, members that would write one element of C, and each member's
   memory (device, managed or mapped host memory, inside its allocation:
   a stride or a pointer that runs past the end is refused, with the
   member in the detail). A
   refused batch writes nothing; batch_count = 0 does nothing. K is split
   only when options.split_k asks, so a member's result has the same bits
   whatever the batch around it. The kernels are the single call's, in
   configurations for the members (options.kernel WGMMA runs strided
   batches only, on Hopper; DMMA's variants 2 and 3 are for single calls);
   FP32_ACCURATE runs its members one after another. Tiny members (m and
   n at most 32, k at most 64, options.kernel AUTO, K whole) run four to a
   block on the CUDA cores, fp64 too. */
GEMM_DEF gemm_status gemm_cuda_sgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                     const float *B, int64_t ldb, int64_t stride_b, float beta,
                                                     float *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_dgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                     const double *B, int64_t ldb, int64_t stride_b, double beta,
                                                     double *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_sgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                             const float *const A[], int64_t lda, const float *const B[], int64_t ldb,
                                             float beta, float *const C[], int64_t ldc, int64_t batch_count,
                                             const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_dgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                             const double *const A[], int64_t lda, const double *const B[],
                                             int64_t ldb, double beta, double *const C[], int64_t ldc,
                                             int64_t batch_count, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_strided_batched(cudaStream_t stream, gemm_layout layout,
                                                           gemm_transpose transa, gemm_transpose transb, int64_t m,
                                                           int64_t n, int64_t k, float alpha, const void *A,
                                                           gemm_precision a_type, int64_t lda, int64_t stride_a,
                                                           const void *B, gemm_precision b_type, int64_t ldb,
                                                           int64_t stride_b, float beta, void *C,
                                                           gemm_precision c_type, int64_t ldc, int64_t stride_c,
                                                           int64_t batch_count, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                   float alpha, const void *const A[], gemm_precision a_type,
                                                   int64_t lda, const void *const B[], gemm_precision b_type,
                                                   int64_t ldb, float beta, void *const C[], gemm_precision c_type,
                                                   int64_t ldc, int64_t batch_count,
                                                   const gemm_cuda_options *options);

/* Grouped batches: group_count groups of pointer-array batches, group g
   of group_size[g] members sharing transa_array[g], transb_array[g],
   m_array[g], n_array[g], k_array[g], alpha_array[g], lda_array[g],
   ldb_array[g], beta_array[g] and ldc_array[g] (cblas_?gemm_batch's
   arguments after the stream, as cublasGemmGroupedBatchedEx; the layout is
   the call's). A_array, B_array and C_array list every member, group
   after group (group g's start after the members of groups 0..g-1); they
   may be in host, device or managed memory, as a pointer-array batch's
   lists (read before the call returns); the other arrays are host arrays
   of group_count entries. Every group is checked before anything is
   queued (its arguments: the detail names the group; its members as a
   pointer-array batch's: C over A or B, two members writing one C, each
   member's memory, within the group), so a refused call writes nothing;
   group_count = 0 does nothing, a negative group_count or group_size, or
   a NULL array, is GEMM_ERR_INVALID_ARG. Then the groups run as if in
   order on the stream (a group may read what an earlier one wrote):
   - when every group with work multiplies small members (m, n and k at
     most 64, alpha != 0; the exact modes, options.kernel AUTO, K whole,
     sm_80 and later) and no group's C meets another group's operands,
     all groups run in one launch of the tiny kernel's code, 32 x 32 (or
     16 x 16) tiles of C: an element's sum is the tiny batch kernel's, so
     a member within its rule (m, n <= 32, k <= 64) has the bits
     gemm_cuda_?gemm_batched gives it, and any member the bits it has
     in a call of its group alone;
   - else group after group, each as a pointer-array batch of its shape
     (one launch for its members; its kernel the chooser's, the tiny
     kernel for tiny members): the same bits as gemm_cuda_?gemm_batched
     on that group. A group of one member is then the single call
     gemm_cuda_?gemm (K split over the blocks when its tiles are too few
     for the GPU, as there).
   fp32 (options.math as for gemm_cuda_sgemm_batched) and fp64. */
GEMM_DEF gemm_status gemm_cuda_sgemm_grouped_batched(cudaStream_t stream, gemm_layout layout,
                                                     const gemm_transpose transa_array[],
                                                     const gemm_transpose transb_array[], const int64_t m_array[],
                                                     const int64_t n_array[], const int64_t k_array[],
                                                     const float alpha_array[], const float *const A_array[],
                                                     const int64_t lda_array[], const float *const B_array[],
                                                     const int64_t ldb_array[], const float beta_array[],
                                                     float *const C_array[], const int64_t ldc_array[],
                                                     int64_t group_count, const int64_t group_size[],
                                                     const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_dgemm_grouped_batched(cudaStream_t stream, gemm_layout layout,
                                                     const gemm_transpose transa_array[],
                                                     const gemm_transpose transb_array[], const int64_t m_array[],
                                                     const int64_t n_array[], const int64_t k_array[],
                                                     const double alpha_array[], const double *const A_array[],
                                                     const int64_t lda_array[], const double *const B_array[],
                                                     const int64_t ldb_array[], const double beta_array[],
                                                     double *const C_array[], const int64_t ldc_array[],
                                                     int64_t group_count, const int64_t group_size[],
                                                     const gemm_cuda_options *options);

/* Complex products: C = alpha*op(A)*op(B) + beta*C with op in
   {GEMM_NO_TRANS, GEMM_TRANS, GEMM_CONJ_TRANS}, cblas_cgemm / cblas_zgemm's
   arguments after the stream. A, B and C are interleaved (re, im) pairs,
   single (cgemm) or double (zgemm) precision, as C99 float _Complex,
   std::complex, cuComplex and cuDoubleComplex lay them out (leading
   dimensions and strides in complex elements); alpha and beta point to one
   such complex value in host memory. They run on the real kernels (fp32
   SIMT or, with options.math, TF32 / FP32_ACCURATE for cgemm; fp64 DMMA
   for zgemm): one operand expanded into 2x2 real blocks in scratch, so one
   real product of twice the sizes does the complex product's 8mnk flops
   (a transposed op(B) of a column-major call, op(A) of a row-major one,
   is copied first). A complex beta (Im != 0) makes a copy of C, which goes
   back to C when the product is done; beta = 0 never reads C. options as
   for gemm_cuda_sgemm / _dgemm (kernel, variant, split_k name the real
   product's). Scratch: 4mk scalars of the expanded operand (4nk in a
   row-major call) per member, 2kn for a copied op(B) and 2mn for C's copy,
   from the pool gemm_cuda_release_scratch() empties. */
GEMM_DEF gemm_status gemm_cuda_cgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                     const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta, void *C,
                                     int64_t ldc, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_zgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                     const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta, void *C,
                                     int64_t ldc, const gemm_cuda_options *options);

/* Host pointers, synchronous, as gemm_cuda_sgemm_host (every option of
   the host path applies): the expanded operand is made on the host by
   options.host_threads threads (its time counted in timing's setup_s),
   then the real host path runs. A, B and C must be memory the host can
   read (device memory: GEMM_ERR_INVALID_ARG). */
GEMM_DEF gemm_status gemm_cuda_cgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                                          int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                          const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                          const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_zgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                                          int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                          const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                          const gemm_cuda_options *options);

/* Complex batches, as the real batches above (the same checks, members
   and lists; strides in complex elements): every member's expanded
   operand in scratch (one for all when its stride is 0), then one real
   batch; except that, with the default options (exact math, kernel AUTO,
   nothing forced, not verified), small members whose tiles give every SM
   one run on complex kernels of their own that read A, B and C in place,
   without scratch: cgemm's up to 256 x 256 on the CUDA cores, zgemm's up
   to 32 x 32 there and up to 128 x 128 (256 x 256 with op(B) transposed)
   on the fp64 tensor cores. */
GEMM_DEF gemm_status gemm_cuda_cgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                     const void *B, int64_t ldb, int64_t stride_b, const void *beta,
                                                     void *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_zgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                     const void *B, int64_t ldb, int64_t stride_b, const void *beta,
                                                     void *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_cgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                             const void *const A[], int64_t lda, const void *const B[], int64_t ldb,
                                             const void *beta, void *const C[], int64_t ldc, int64_t batch_count,
                                             const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_zgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                             const void *const A[], int64_t lda, const void *const B[], int64_t ldb,
                                             const void *beta, void *const C[], int64_t ldc, int64_t batch_count,
                                             const gemm_cuda_options *options);

/* Hands back what the current device keeps between calls: the memory the
   tensor-core modes keep for their operand copies and the host path's
   device buffers (to the driver), the host path's idle staging chunks,
   copy threads and streams, and the page-locked slots the batches upload
   their member lists through (made again at the next batch); waits for
   the device first. */
GEMM_DEF gemm_status gemm_cuda_release_scratch(void);

/* The kernel AUTO would run for this problem on the current device:
   precision GEMM_F32 or GEMM_F64 with math EXACT, GEMM_F32 with TF32, or
   GEMM_F16 / GEMM_BF16 (the tensor-core modes); GEMM_CUDA_KERNEL_AUTO if
   it cannot tell or the pair is not a mode. */
GEMM_DEF gemm_cuda_kernel gemm_cuda_auto_kernel(gemm_precision precision, gemm_cuda_math math, int64_t m, int64_t n,
                                                int64_t k);

/* "naive", "tiled16", "simt", "dmma", "mma", "wgmma", "auto"; "?" for anything else. */
GEMM_DEF const char *gemm_cuda_kernel_name(gemm_cuda_kernel kernel);

#ifdef GEMM__TEST_HOOKS
/* Tests and benchmarks: what the last fp32 / fp64 call of this thread on
   the SIMT or DMMA kernel ran ("simt 256x128 mk split 1 grid 512 copies
   a:- b:t": configuration, the layouts read (m/n: M-/N-major, k: k-major),
   the K parts, the grid, each operand's copy: - none, r realigned, t
   transposed). */
GEMM_DEF const char *gemm__cuda_exact_last(void);
#endif

#ifdef __cplusplus
}
#endif
