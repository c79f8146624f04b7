/* gemm_cuda.cuh - the CUDA backend of gemm: C = alpha*op(A)*op(B) + beta*C on
   an NVIDIA GPU, fp32 and fp64, and opt-in TF32/FP16/BF16 on the tensor
   cores, without cuBLAS.

   Do this in *one* .cu file (compiled by nvcc):
       #define GEMM_IMPLEMENTATION
       #include "gemm_cuda.cuh"        (it includes gemm.h and gemm_cpu.h)
   and include it without the macro anywhere else. Build for the GPUs you
   run on, e.g. -gencode arch=compute_80,code=sm_80
                -gencode arch=compute_90a,code=sm_90a    (Hopper's wgmma)
                -gencode arch=compute_90,code=compute_90 (PTX for later GPUs)

   Two ways to call it (gemm.h's one shape: the stream first, then
   cblas_?gemm's arguments, then a gemm_cuda_options pointer, NULL or all
   zeros for every default)
     - device pointers, asynchronous on a stream (no synchronisation, and
       nothing allocated but the tensor-core modes' stream-ordered operand
       copies below; the call returns once the kernels are queued):
           gemm_cuda_sgemm(stream, layout, ta, tb, m, n, k, alpha, dA, lda,
                           dB, ldb, beta, dC, ldc, NULL);
       A, B, C must be memory the current device can address (cudaMalloc,
       managed or mapped host memory); a plain host pointer is refused with
       GEMM_ERR_INVALID_ARG, not dereferenced.
     - host pointers, synchronous: gemm_cuda_sgemm_host() (no stream), on
       options.device, from any memory the host can address. The call is
       a pipeline: A and B are cut into panels and C into pieces; a piece
       is multiplied (by the device path above, on one of two streams)
       while the next panels arrive and earlier pieces of C go back, each
       direction on a stream of its own. Pageable memory moves through
       page-locked staging chunks that the library's copy threads fill and
       empty while the copy engines move them (options.host_threads, 0 =
       half the host's cores, at most 8); page-locked, device and managed
       memory is copied straight (cudaPointerGetAttributes tells). When
       A, B and C fit, A and B stay as their panels arrive, C's pieces go
       in growing squares (the first multiply waits for one panel of each,
       each panel crosses once); when they do not, a block of A's rows (or
       of B's columns, whichever repeats fewer bytes) stays while the other
       streams past, so matrices larger than the device work.
       options.max_device_bytes caps the device memory a call takes (0:
       what is free less a margin); a cap too small for tiles of 32 is
       GEMM_ERR_INVALID_ARG. The modes (gemm_cuda_mode):
         PAGEABLE (default): as above; problems under 96 KB of operands run
           zero-copy (below).
         PINNED: for memory the caller page-locked (cudaHostAlloc,
           cudaHostRegister): copied straight, no staging; memory that is
           not page-locked is staged, as by default.
         MAPPED: zero-copy up to 1 MB of operands: the kernel reads A and
           B from page-locked memory over the bus (the caller's when it is
           mapped, else a staging chunk) and no copy engine is used; it
           pays for tiny problems only, so larger ones take the pipeline.
       Each device keeps, for the next calls, the staging chunks (8 MB
       each; about 3 x threads + 4 per call running at once), the copy
       threads and streams, and the device buffers in its scratch pool
       (within options.max_device_bytes when set);
       gemm_cuda_release_scratch() hands them back. Two threads may call at
       once (each gets its own chunks and threads). options.timing (a
       gemm_timing, seconds): setup_s (planning, buffers, the rest),
       to_device_s (the time the multiplies waited: before the first one
       and between them, copies not hidden behind compute), compute_s (the
       multiplies, busy time on both streams by CUDA events),
       from_device_s (after the last multiply: the last pieces of C),
       total_s (wall clock; the four parts add up to it).

   Kernels (gemm_cuda_kernel; AUTO picks by precision and compute capability,
   then a configuration by shape and device; options.variant forces one)
     - SIMT: fp32 on the CUDA cores (and fp64 on GPUs without FP64 tensor
       cores), sm_80+. fp32: warp-tiled, each warp a 64 x 64 tile of C,
       each thread 8 x 16 (or 16 x 8) values, every shared-memory read a
       conflict-free 16-byte load; a 3-stage cp.async ring of K tiles of
       16; a k-major operand (one whose K index is contiguous) is
       transposed by the block in shared memory, one K tile ahead.
       Configurations (variant): 1 = 128x128 blocks, two per SM; 2 = the
       same with 16 x 8 threads; 3 = 256x128; 4 = 128x256 (one per SM).
       AUTO puts the 128 side on the k-major operand (3 when op(B) is
       k-major, 4 when op(A) is), takes 2 when neither is and there are
       more 128x128 tiles than SMs (K is not split), and 1 where a 256
       side would stay half empty (M or N <= 128) or the block's shared
       memory is too small.
       Row-major NT (both operands k-major, its slowest case) with m or n
       of 2048 or more first copies one operand transposed into scratch
       (the one whose copy costs least: under about 4% of the time).
       fp64 on SIMT: 64x64 blocks, 4x4 per thread, any alignment.
     - DMMA: fp64 on the FP64 tensor cores (mma.sync). On Hopper with an
       sm_90a build (variant 2, 3): warp-specialised and persistent; a
       producer thread has the copy engine (TMA) bring 128-byte swizzled K
       tiles of 16 into a ring of 4-5 stages on mbarriers, two (one)
       consumer warpgroups multiply, each warp 64 x 32 of C in m16n8k16
       (m16n8k8) MMAs with conflict-free 16-byte fragment loads; one block
       per SM walks the tiles in groups of 8 tile-rows, so the next tile's
       copies run during the epilogue. 2 = 128x128 blocks, one per SM;
       3 = 128x64, two per SM: AUTO's choice when the 128x128 tiles do not
       give every SM one and K <= 2048, or when N <= 64. Every layout is
       read in place. Elsewhere (variant 1): 128x64 blocks on the cp.async
       ring, m16n8k4 (pairs of m8n8k4 on sm_80), two per SM. The first
       call on a Hopper device asks it, once, whether the sm_90a code was
       loaded for it (a 4-byte synchronous copy).
     - Operands the fast kernels cannot read in place (SIMT fp32 and the
       TMA DMMA need 16-byte aligned bases and leading dimensions) are
       first copied, realigned, into a scratch buffer taken in stream
       order from the pool below (as the tensor-core modes' copies).
     - NAIVE (one thread per element) and TILED16 (the 16x16 shared-memory
       tile of the seed paper 000): the textbook ladder, for benchmarks.
   Edges (any m, n, k) are bounds-checked in every kernel (the copy engine
   fills past the edges with zeros). When the tiles are too few to fill
   the GPU, the K loop is split over several blocks that add into C with
   atomics (after C = beta*C): such results may differ in the last bits
   from run to run. options.split_k = 1 turns that off. beta = 0 never
   reads C.

   SIMT and DMMA need compute capability 8.0 or later (cp.async); on older
   GPUs AUTO runs TILED16, slowly but right. Speed beside cuBLAS on the
   H100 and H200: bench/RESULTS.md (make bench-cuda prints issue 13's
   table for the GPU it runs on).

   Reduced precision, opt-in by name (fp32 sums in every mode):
     - TF32: gemm_cuda_sgemm / _host with options.math = GEMM_CUDA_MATH_TF32.
       The tensor cores read fp32 inputs with 10 mantissa bits (the low 13
       are dropped): expect relative errors near 1e-3, not fp32's 1e-7.
     - FP16, BF16: gemm_cuda_sgemm_mixed() / _mixed_host(), A and B both
       GEMM_F16 (__half) or both GEMM_BF16 (__nv_bfloat16), C GEMM_F32 or
       their type (rounded once from the fp32 result); alpha and beta are
       floats. Each pointer's type follows it, as in cublasSgemmEx.
     - fp32 accuracy: gemm_cuda_sgemm / _host with options.math =
       GEMM_CUDA_MATH_FP32_ACCURATE ("3xTF32"). Each fp32 operand is split
       by a pass before the product into hi (rounded to nearest TF32) and
       lo = TF32(x - hi), written k-major into scratch; the tensor cores sum
       lo*hi + hi*lo + hi*hi (the small products first) in fp32; the
       tensor cores' fp32 sums truncate, so the hi*hi products are summed
       32 at a time on them and those sums added with rounding fp32 adds
       (a long K then loses no more than an fp32 product does). Its max
       relative error is that of an fp32 SIMT product (tested against this
       library's SIMT kernel; bench/RESULTS.md against cublasSgemm). Inf
       and NaN inputs give Inf
       and NaN where fp32 arithmetic does (they enter only through hi*hi),
       with two documented differences: an Inf times a value below about
       2^-136 in magnitude (whose TF32 hi part is 0) gives NaN, not Inf;
       and a product within 2^-11 of FLT_MAX can round up to Inf, as hi
       may exceed x by that much (a finite x whose hi would overflow is
       truncated instead). The tensor cores' treatment of subnormal parts
       may lose values below 2^-126 (then fp32's absolute error there).
     Kernels: WGMMA on Hopper (sm_90 with an sm_90a build): a persistent
     kernel, one block per SM (two with 128-row tiles) walking the tiles
     of C in groups of 8 tile-rows, so that blocks running together share
     panels of A and B in L2; tiles copied by the copy engine (TMA) into a
     3-4 stage ring that runs on from one tile to the next, so the next
     tile's copies overlap the last one's epilogue; wgmma m64n256 (m64n128)
     from shared memory, a producer and two consumer warpgroups, block
     tiles of 256x128, or 128x128 with two blocks per SM for short K or M
     of at most 128 (options.variant 1 or 2 picks one). MMA elsewhere from
     sm_80 (mma.sync m16n8k16 / m16n8k8 on the SIMT kernel's cp.async
     ring, 128x128 tiles); NAIVE below sm_80 (exact fp32 sums there). Both
     read op(A) and op(B) k-major from 16-byte aligned rows (WGMMA also
     reads 16-bit operands MN-major, with wgmma's transpose bits, so every
     16-bit layout is read in place): any other operand, or one with an odd leading
     dimension or a misaligned pointer, is first copied into that form in a
     scratch buffer taken in stream order on the caller's stream and freed
     there. Its memory pool, one per device, keeps what it took for the
     next calls (a workspace, as cuBLAS keeps one);
     gemm_cuda_release_scratch() hands it back. When the tiles are too few
     to fill the GPU, WGMMA splits K: each part writes its fp32 sums into
     the scratch buffer and one more kernel adds them in a fixed order (no
     atomics: the same result on every run). MMA never splits K.
     The first such call on a device asks it, once, whether the sm_90a
     code was loaded for it (a 4-byte synchronous copy).
     On an H200 at n = 4096..16384 they run at 0.92-0.97 (TF32), 0.93-0.98
     (FP16) and 0.93-0.99 (BF16) of cublasGemmEx.

   Errors: every CUDA call is checked; a failure returns GEMM_ERR_DEVICE
   (GEMM_ERR_OUT_OF_MEMORY, GEMM_ERR_UNAVAILABLE where they fit) with the
   CUDA error name and string in gemm_last_error_detail(). An asynchronous
   kernel fault shows up at the caller's next synchronisation, as in CUDA.
   Two cases write C before failing: with split-K, C = beta*C is queued
   first, so if the main launch is then refused, C is left scaled; and a
   host-pointer call that fails on the device after its first pieces of C
   went back leaves those pieces written (refusals come before any copy).

   For maintainers: this file is generated from src/ (src/gemm_cuda.cuh.in
   and the files it names; `make headers`). Edit those, not this file.

   LICENSE: MIT, see the end of this file.
*/

#ifndef GEMM_CUDA_CUH_INCLUDED
#define GEMM_CUDA_CUH_INCLUDED

#include "gemm.h"
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

/* ====================================================================== */
/*  API                                                                    */
/* ====================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemm_cuda_kernel {
    GEMM_CUDA_KERNEL_AUTO = 0,    /* by precision and compute capability */
    GEMM_CUDA_KERNEL_NAIVE = 1,   /* one thread per element of C */
    GEMM_CUDA_KERNEL_TILED16 = 2, /* the seed paper's 16x16 shared-memory tiles */
    GEMM_CUDA_KERNEL_SIMT = 3,    /* register-blocked, cp.async, fp32 and fp64 */
    GEMM_CUDA_KERNEL_DMMA = 4,    /* fp64 tensor cores (sm_80+); fp64 only */
    GEMM_CUDA_KERNEL_MMA = 5,     /* TF32/FP16/BF16 tensor cores through mma.sync (sm_80+) */
    GEMM_CUDA_KERNEL_WGMMA = 6    /* TF32/FP16/BF16 tensor cores through wgmma and TMA (sm_90a) */
} gemm_cuda_kernel;

typedef enum gemm_cuda_math { /* what gemm_cuda_sgemm and _sgemm_host compute in */
    GEMM_CUDA_MATH_EXACT = 0,        /* fp32 in fp32 (and fp64 in fp64) */
    GEMM_CUDA_MATH_TF32 = 1,         /* fp32 inputs cut to TF32 (10-bit mantissa) on the tensor cores, fp32 sums */
    GEMM_CUDA_MATH_FP32_ACCURATE = 2 /* fp32 inputs split into two TF32 parts, three products on the tensor
                                        cores, fp32 sums: fp32's accuracy at tensor-core speed (3xTF32) */
} gemm_cuda_math;

typedef enum gemm_cuda_mode { /* how the _host calls move data (the doc block above says when each pays) */
    GEMM_CUDA_PAGEABLE = 0, /* the pipeline: staged through page-locked chunks, page-locked memory copied straight */
    GEMM_CUDA_PINNED = 1,   /* the caller's memory is page-locked: copied straight, no staging */
    GEMM_CUDA_MAPPED = 2    /* zero-copy (the kernel reads host memory) for tiny problems, else the pipeline */
} gemm_cuda_mode;

/* Zero-initialised means every default; NULL works too. */
typedef struct gemm_cuda_options {
    gemm_cuda_kernel kernel; /* AUTO */
    gemm_cuda_math math;     /* EXACT; TF32 is opt-in (gemm_cuda_sgemm, _sgemm_host) */
    gemm_cuda_mode mode;     /* _host calls: PAGEABLE */
    int device;              /* _host calls: CUDA device index (0 = the first) */
    size_t max_device_bytes; /* _host calls: device memory the call may take (0 = most of what is free) */
    int host_threads;        /* _host calls: threads copying to and from pageable memory (0 = automatic) */
    int split_k;             /* 0 = automatic, 1 = never split K, s = split K in s parts */
    int variant;             /* 0 = automatic; tensor-core modes on WGMMA: 1 = tiles of 256 rows, 2 = of 128;
                                exact kernels (with kernel SIMT or DMMA): their configurations, above */
    gemm_timing *timing;     /* _host calls: filled in seconds when not NULL (setup, copies, kernels, total) */
} gemm_cuda_options;

/* Device pointers, asynchronous on `stream` (0 or NULL: the default stream). */
GEMM_DEF gemm_status gemm_cuda_sgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                     int64_t ldc, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_dgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                     const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                     double *C, int64_t ldc, const gemm_cuda_options *options);

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
     Pointer arrays: A, B and C are HOST arrays of device pointers (cuBLAS
       wants device arrays): the call copies them to the device itself, so
       they may change as soon as it returns.
   Every member is checked before anything is queued: the single call's
   checks, members that would write one element of C, and each member's
   memory (device memory, inside its allocation: a stride or a pointer
   that runs past the end is refused, with the member in the detail). A
   refused batch writes nothing; batch_count = 0 does nothing. K is split
   only when options.split_k asks, so a member's result has the same bits
   whatever the batch around it. Kernels:
   fp32 runs the warp-tiled SIMT kernel, or a 64 x 64 configuration for
   small or unaligned members (or K split); on Hopper a strided batch runs
   fp64 on the TMA DMMA kernel and the tensor-core modes on WGMMA, the
   members as a third tensor-map dimension (options.kernel WGMMA is refused
   for a pointer-array batch), elsewhere DMMA's cp.async configurations and
   MMA; tensor-core members of at most 64 x 64, and TF32 members of at most
   256 columns whose op(A) is not k-major, run MMA (64 x 64 tiles for the
   small ones), which reads op(A) in place; FP32_ACCURATE runs its members
   one after another. */
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

/* Hands back what the current device keeps between calls: the memory the
   tensor-core modes keep for their operand copies and the host path's
   device buffers (to the driver), and the host path's idle staging chunks,
   copy threads and streams; waits for the device first. */
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

#define GEMM__CUDA_API_DONE
#endif /* GEMM_CUDA_CUH_INCLUDED */

/* ====================================================================== */
/*  IMPLEMENTATION                                                         */
/* ====================================================================== */

#if defined(GEMM_IMPLEMENTATION) && defined(GEMM__CUDA_API_DONE) && !defined(GEMM__CUDA_IMPLEMENTED)
#define GEMM__CUDA_IMPLEMENTED

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>
#include <cuda.h> /* CUtensorMap (types only: the driver is reached through the runtime) */
#include <stdint.h>
#include <string.h>

/* ---- device code: helpers, then one file per kernel family ---- */
/* >>cuda errors: src/cuda/errors.cuh */
/* CUDA errors as gemm statuses: every CUDA call is checked, and a failure
   returns GEMM_ERR_DEVICE (GEMM_ERR_OUT_OF_MEMORY, GEMM_ERR_UNAVAILABLE
   where they fit) with the CUDA error name and string in the detail. */

static gemm_status gemm__cuda_status_of(cudaError_t e)
{
    switch (e) {
    case cudaErrorMemoryAllocation: return GEMM_ERR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDevice: return GEMM_ERR_UNAVAILABLE;
    default: return GEMM_ERR_DEVICE;
    }
}

/* Records a failed CUDA call; `what` names the call, `func` the entry point. */
static gemm_status gemm__cuda_fail(const char *func, const char *what, cudaError_t e)
{
    return gemm__fail(gemm__cuda_status_of(e), "%s: %s: %s (%s)", func, what, cudaGetErrorName(e),
                      cudaGetErrorString(e));
}

/* Returns the failure of a CUDA call from the enclosing function. */
#define GEMM__CUDA_TRY(func, call)                                                                 \
    do {                                                                                           \
        cudaError_t gemm__e = (call);                                                              \
        if (gemm__e != cudaSuccess) return gemm__cuda_fail(func, #call, gemm__e);                  \
    } while (0)
/* <<cuda errors */
/* >>cuda device: src/cuda/device.cuh */
/* Device helpers every fast kernel shares: the cp.async wrappers (global to
   shared memory without a register round trip, sm_80+), the bounds-checked
   tile copy built on them, and the one-element epilogue. */

/* The 16-byte vector of an element type. */
template <typename T> struct gemm__cuda_vec;
template <> struct gemm__cuda_vec<float> { typedef float4 type; };
template <> struct gemm__cuda_vec<double> { typedef double2 type; };

/* cp.async of BYTES (4, 8 or 16) from global to shared memory. */
template <int BYTES> __device__ __forceinline__ void gemm__cuda_cp_async(void *smem, const void *gmem)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    if (BYTES == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
    else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(BYTES));
#else
    (void)smem; (void)gmem;
    __trap();
#endif
}

__device__ __forceinline__ void gemm__cuda_cp_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N> __device__ __forceinline__ void gemm__cuda_cp_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* Copies a ROWS x COLS tile whose COLS are contiguous in global memory (row
   stride gld) into shared memory (row stride SLD). Only rows < rows_left and
   cols < cols_left are read; the rest of the tile becomes zero. Whole
   chunks go by cp.async; the few chunks an edge cuts through are copied by
   hand, so no copy ever touches a byte past the matrix. */
template <typename T, int ROWS, int COLS, int SLD, int VEC, int NT>
__device__ __forceinline__ void gemm__cuda_load_tile(T *s, const T *g, int64_t gld, int rows_left, int cols_left)
{
    constexpr int PER_ROW = COLS / VEC, CHUNKS = ROWS * PER_ROW;
    static_assert(COLS % VEC == 0 && CHUNKS % NT == 0, "tile does not split evenly over the threads");
#pragma unroll
    for (int c = (int)threadIdx.x; c < CHUNKS; c += NT) {
        int r = c / PER_ROW, col = (c % PER_ROW) * VEC;
        int valid = r < rows_left ? min(VEC, max(0, cols_left - col)) : 0;
        T *dst = s + r * SLD + col;
        if (valid == VEC && VEC * sizeof(T) >= 4) { /* cp.async moves 4, 8 or 16 bytes */
            gemm__cuda_cp_async<VEC * (int)sizeof(T)>(dst, g + (int64_t)r * gld + col);
        } else {
#pragma unroll
            for (int e = 0; e < VEC; e++) dst[e] = e < valid ? g[(int64_t)r * gld + col + e] : T(0);
        }
    }
}

/* The epilogue of one element: C = alpha*acc + beta*C, never reading C when
   beta == 0; split-K partial sums add into C (already scaled by beta).
   S is the type of the sums and scalars, TC C's type (FP16/BF16 C: the
   sum is formed in S and rounded once; no split-K there). */
template <typename TC, typename S>
__device__ __forceinline__ void gemm__cuda_store(TC *c, S acc, S alpha, S beta, int atomic)
{
    if constexpr (std::is_same<TC, S>::value) {
        if (atomic) atomicAdd(c, alpha * acc);
        else if (beta == S(0)) *c = alpha * acc;
        else *c = alpha * acc + beta * *c;
    } else {
        (void)atomic;
        *c = TC(beta == S(0) ? alpha * acc : alpha * acc + beta * S(*c));
    }
}
/* <<cuda device */
/* >>cuda batch: src/cuda/batch.cuh */
/* Where a launch finds its members. Every kernel that multiplies, scales or
   copies operands takes one of these: a single call is a batch of one,
   so a batch runs the same kernels, its members along blockIdx.z. */

/* The members of one launch: blockIdx.z = (member - first) * split + the
   K part. Each operand is either strided (member i's at the base pointer
   plus i * stride elements) or listed (member i's at the base pointer
   plus list[i] bytes, a device array; the base is NULL for a caller's
   pointer array, so list[i] is the address), independently: a batch's
   copies into scratch are strided even when the caller's operands came
   as a list. Listing byte offsets, not pointers, keeps every member's
   operand an offset from the kernel's pointer parameter, which the
   compiler knows to be global memory: a pointer loaded from memory is
   generic, and the fp32 kernel built around one ran 5% slower even for
   single calls. count and the chunking into launches of at most 65535
   z-slices are the host's business. */
struct gemm__cuda_batch {
    int64_t stride_a, stride_b, stride_c;
    const int64_t *a, *b, *c; /* NULL: strided */
    int64_t first, count;
    int split; /* K parts per member (1: K is not split) */
};

/* A single call: one member, K in `split` parts. */
static inline gemm__cuda_batch gemm__cuda_single(int split)
{
    gemm__cuda_batch bt = {};
    bt.count = 1;
    bt.split = split < 1 ? 1 : split;
    return bt;
}

/* This block's member: moves A, B and C to it and returns its K part. */
template <typename T, typename TC>
__device__ __forceinline__ int gemm__cuda_member(const gemm__cuda_batch &bt, const T *&A, const T *&B, TC *&C)
{
    int z = (int)blockIdx.z, part = z % bt.split;
    int64_t i = bt.first + z / bt.split;
    A = (const T *)((const char *)A + (bt.a ? bt.a[i] : i * bt.stride_a * (int64_t)sizeof(T)));
    B = (const T *)((const char *)B + (bt.b ? bt.b[i] : i * bt.stride_b * (int64_t)sizeof(T)));
    C = (TC *)((char *)C + (bt.c ? bt.c[i] : i * bt.stride_c * (int64_t)sizeof(TC)));
    return part;
}

/* The same for a launch whose K is not split (bt.split == 1): blockIdx.z
   is the member, no division. */
template <typename T, typename TC>
__device__ __forceinline__ void gemm__cuda_member_whole_k(const gemm__cuda_batch &bt, const T *&A, const T *&B, TC *&C)
{
    int64_t i = bt.first + (int64_t)blockIdx.z;
    A = (const T *)((const char *)A + (bt.a ? bt.a[i] : i * bt.stride_a * (int64_t)sizeof(T)));
    B = (const T *)((const char *)B + (bt.b ? bt.b[i] : i * bt.stride_b * (int64_t)sizeof(T)));
    C = (TC *)((char *)C + (bt.c ? bt.c[i] : i * bt.stride_c * (int64_t)sizeof(TC)));
}

/* This block's C alone (kernels that only scale C). */
template <typename TC> __device__ __forceinline__ TC *gemm__cuda_member_c(const gemm__cuda_batch &bt, TC *C)
{
    int64_t i = bt.first + (int)blockIdx.z / bt.split;
    return (TC *)((char *)C + (bt.c ? bt.c[i] : i * bt.stride_c * (int64_t)sizeof(TC)));
}

/* The members of an operand copy: blockIdx.z = member - first; member i
   reads the source plus list[i] bytes (or plus i * stride elements) and
   writes the destination plus i * out_stride. */
struct gemm__cuda_batch_copy {
    const int64_t *list;
    int64_t stride, out_stride, first;
};

static inline gemm__cuda_batch_copy gemm__cuda_single_copy(void)
{
    gemm__cuda_batch_copy bc = {};
    return bc;
}

template <typename T>
__device__ __forceinline__ const T *gemm__cuda_copy_member(const gemm__cuda_batch_copy &bc, const T *X, T *&out)
{
    int64_t i = bc.first + (int)blockIdx.z;
    out += i * bc.out_stride;
    return (const T *)((const char *)X + (bc.list ? bc.list[i] : i * bc.stride * (int64_t)sizeof(T)));
}

/* Calls launch(bt, z) once per run of members that fits one grid's 65535
   z-slices (one run for any batch under 65535 / split members), with
   bt.first set to the run's first member; launch queues the kernel and
   returns cudaGetLastError(). */
template <typename F> static gemm_status gemm__cuda_each_run(const char *fn, gemm__cuda_batch bt, F launch)
{
    int64_t per = 65535 / bt.split;
    for (int64_t first = 0; first < bt.count; first += per) {
        int64_t n = bt.count - first < per ? bt.count - first : per;
        cudaError_t e;
        bt.first = first;
        if ((e = launch(bt, (unsigned)(n * bt.split))) != cudaSuccess) return gemm__cuda_fail(fn, "kernel launch", e);
    }
    return GEMM_OK;
}

/* <<cuda batch */
/* >>cuda ladder: src/cuda/ladder.cuh */
/* Every kernel solves the canonical problem of gemm.h (gemm__problem): C is
   column-major, M x N (element (i, j) at C[i + j*ldc]); op(A) is M x K and
   op(B) is K x N, with A and B already swapped for a row-major call. A
   "k-major" operand has its K index contiguous in memory.

   The ladder: one thread per element (NAIVE), the seed paper's 16x16
   shared-memory tiles (TILED16), and C = beta*C alone (the scale kernel,
   also split-K's first step). */

/* T: A and B; S: the sums and scalars; TC: C (the tensor-core modes' fallback
   runs here with FP16/BF16 inputs, and with exact fp32 sums for TF32). */
template <typename T, typename S = T, typename TC = T>
__global__ void gemm__cuda_naive_kernel(int M, int N, int K, S alpha, const T *A, int64_t ars, int64_t acs,
                                        const T *B, int64_t brs, int64_t bcs, S beta, TC *C, int64_t ldc,
                                        gemm__cuda_batch bt)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x), j = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (i >= M || j >= N) return;
    gemm__cuda_member(bt, A, B, C);
    S sum = 0;
    for (int p = 0; p < K; p++) sum += S(A[i * ars + p * acs]) * S(B[p * brs + j * bcs]);
    gemm__cuda_store(&C[i + (int64_t)j * ldc], sum, alpha, beta, 0);
}

template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_tiled16_kernel(int M, int N, int K, T alpha, const T *A,
                                                                 int64_t ars, int64_t acs, const T *B, int64_t brs,
                                                                 int64_t bcs, T beta, T *C, int64_t ldc,
                                                                 gemm__cuda_batch bt)
{
    __shared__ T As[16][17], Bs[16][17]; /* +1: a column read does not hit one bank 16 times */
    int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    int i = (int)blockIdx.x * 16 + tx, j = (int)blockIdx.y * 16 + ty;
    T sum = 0;
    gemm__cuda_member(bt, A, B, C);
    for (int p0 = 0; p0 < K; p0 += 16) {
        /* As[k][i] = op(A)(i, p0+k); Bs[k][j] = op(B)(p0+k, j); zeros outside. */
        int ai = (int)blockIdx.x * 16 + tx, ap = p0 + ty, bp = p0 + tx, bj = (int)blockIdx.y * 16 + ty;
        As[ty][tx] = ai < M && ap < K ? A[ai * ars + ap * acs] : T(0);
        Bs[tx][ty] = bp < K && bj < N ? B[bp * brs + bj * bcs] : T(0);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < 16; q++) sum += As[q][tx] * Bs[q][ty];
        __syncthreads(); /* the next tile must not overwrite what slower threads still read */
    }
    if (i < M && j < N) gemm__cuda_store(&C[i + (int64_t)j * ldc], sum, alpha, beta, 0);
}

template <typename T, typename S = T>
__global__ void gemm__cuda_scale_kernel(int M, int N, S beta, T *C, int64_t ldc, gemm__cuda_batch bt)
{
    int64_t total = (int64_t)M * N;
    C = gemm__cuda_member_c(bt, C);
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        T *c = &C[e % M + (e / M) * ldc];
        *c = beta == S(0) ? T(0) : T(beta * S(*c));
    }
}

/* C = beta*C for every member (split-K's first step, and a batch's whole
   work when alpha = 0 or K = 0). */
template <typename TC, typename S>
static gemm_status gemm__cuda_scale_members(const char *fn, int M, int N, S beta, TC *C, int64_t ldc,
                                            gemm__cuda_batch bt, cudaStream_t stream)
{
    int64_t blocks = ((int64_t)M * N + 255) / 256, cap = bt.count > 1 ? 64 : 1024; /* a grid-stride loop */
    bt.split = 1;
    return gemm__cuda_each_run(fn, bt, [&](const gemm__cuda_batch &run, unsigned z) {
        gemm__cuda_scale_kernel<TC, S><<<dim3((unsigned)(blocks < cap ? blocks : cap), 1, z), 256, 0, stream>>>(
            M, N, beta, C, ldc, run);
        return cudaGetLastError();
    });
}
/* <<cuda ladder */
/* >>cuda ring: src/cuda/ring.cuh */
/* The cp.async ring of the SIMT, DMMA and MMA kernels: each operand's K
   tiles go through STAGES slots of shared memory, and the copies of the
   next STAGES-1 tiles are in flight while one is multiplied. */

/* Tile geometry of one operand in shared memory: a k-major operand is kept
   as [rows of the M (or N) side][BK + PAD], the other as [BK][side + PAD]. */
template <int SIDE, int BK, int PAD, bool KMAJOR> struct gemm__cuda_tile {
    static constexpr int ROWS = KMAJOR ? SIDE : BK, COLS = KMAJOR ? BK : SIDE, SLD = COLS + PAD, SIZE = ROWS * SLD;
    /* offset of element (side index s, k index q) */
    static __device__ __forceinline__ int at(int s, int q) { return KMAJOR ? s * SLD + q : q * SLD + s; }
};

/* Loads K-tile kt of one operand. `X` points at element (side 0, k 0) of the
   block's panel; ld is its leading dimension; side_left / k_left bound it. */
template <typename T, typename TILE, bool KMAJOR, int VEC, int NT>
__device__ __forceinline__ void gemm__cuda_load_operand(T *s, const T *X, int64_t ld, int side_left, int k_left)
{
    if (KMAJOR) gemm__cuda_load_tile<T, TILE::ROWS, TILE::COLS, TILE::SLD, VEC, NT>(s, X, ld, side_left, k_left);
    else gemm__cuda_load_tile<T, TILE::ROWS, TILE::COLS, TILE::SLD, VEC, NT>(s, X, ld, k_left, side_left);
}

/* The K range of this block (K part `part` of chunks of kchunk) and the main loop of a
   STAGES-deep cp.async ring: while stage kt is multiplied, the copies of
   the next STAGES-1 tiles are in flight. COMPUTE(stage) does the math.
   PAD pads A's tile rows, PADB B's (the same unless given). */
template <typename T, int BM, int BN, int BK, int STAGES, int NT, bool AK, bool BKM, int VEC, int PAD,
          int PADB = PAD, typename COMPUTE>
__device__ __forceinline__ void gemm__cuda_mainloop(T *As, T *Bs, int M, int N, int K, int kchunk, int part,
                                                    const T *A, int64_t lda, const T *B, int64_t ldb, int bm,
                                                    int bn, COMPUTE compute)
{
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PADB, BKM> TB;
    int m0 = bm * BM, n0 = bn * BN;
    int kbeg = part * kchunk, kend = min(K, kbeg + kchunk);
    int ktiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
    /* Element (side s, k q) of op(A) is at A[s*?+q*?]: k-major means q is contiguous. */
    const T *Ap = AK ? A + (int64_t)m0 * lda + kbeg : A + m0 + (int64_t)kbeg * lda;
    const T *Bp = BKM ? B + (int64_t)n0 * ldb + kbeg : B + n0 + (int64_t)kbeg * ldb;
    int64_t astep = AK ? BK : (int64_t)BK * lda, bstep = BKM ? BK : (int64_t)BK * ldb;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles) {
            gemm__cuda_load_operand<T, TA, AK, VEC, NT>(As + s * TA::SIZE, Ap + s * astep, lda, M - m0, kend - kbeg - s * BK);
            gemm__cuda_load_operand<T, TB, BKM, VEC, NT>(Bs + s * TB::SIZE, Bp + s * bstep, ldb, N - n0, kend - kbeg - s * BK);
        }
        gemm__cuda_cp_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        gemm__cuda_cp_wait<STAGES - 2>();
        __syncthreads(); /* tile kt is in; every thread is done with the stage refilled below */
        int nk = kt + STAGES - 1, ns = nk % STAGES;
        if (nk < ktiles) {
            gemm__cuda_load_operand<T, TA, AK, VEC, NT>(As + ns * TA::SIZE, Ap + nk * astep, lda, M - m0, kend - kbeg - nk * BK);
            gemm__cuda_load_operand<T, TB, BKM, VEC, NT>(Bs + ns * TB::SIZE, Bp + nk * bstep, ldb, N - n0, kend - kbeg - nk * BK);
        }
        gemm__cuda_cp_commit();
        compute(As + (kt % STAGES) * TA::SIZE, Bs + (kt % STAGES) * TB::SIZE);
    }
    gemm__cuda_cp_wait<0>();
}

/* The block's tile of C (bm along M, bn along N). SWZ = 0: blockIdx as is;
   SWZ = G > 0: the blocks run in groups of G tile-rows, N tiles fastest
   within a group, so blocks resident together share panels of A and B in L2. */
template <int SWZ> __device__ __forceinline__ void gemm__cuda_block_tile(int &bm, int &bn)
{
    if (SWZ <= 0) {
        bm = (int)blockIdx.x;
        bn = (int)blockIdx.y;
    } else {
        int tm = (int)gridDim.x, tn = (int)gridDim.y, pid = (int)blockIdx.x + (int)blockIdx.y * tm;
        int per_group = SWZ * tn, first = (pid / per_group) * SWZ, size = min(tm - first, SWZ), r = pid % per_group;
        bm = first + r % size;
        bn = r / size;
    }
}
/* <<cuda ring */
/* >>cuda simt: src/cuda/simt.cuh */
/* SIMT: register-blocked fp32 and fp64 on the CUDA cores, over the cp.async
   ring. Each thread keeps a TM x TN tile of C in registers; each operand is
   read in the orientation it is stored in (k-major or not: two shared-memory
   layouts), so none of the 8 layout cases needs a transpose pass. VEC is
   the elements per global copy: 16 bytes for aligned operands, 1 for the
   rest. SWZ orders the blocks (gemm__cuda_block_tile). */

/* Which row of its side of a tile (M for A, N for B) the thread's i-th value
   has: a k-major tile is read one row per value (rows x, x + SIDE/TM, ...),
   the other V contiguous rows at a time (x*V .. x*V+V-1, then further on). */
template <bool KMAJOR, int SIDE, int TM, int V> __device__ __forceinline__ int gemm__cuda_simt_row(int x, int i)
{
    return KMAJOR ? x + i * (SIDE / TM) : (i / V) * (SIDE / (TM / V)) + x * V + i % V;
}

/* The thread's TM values of one operand for k = kc .. kc+V-1, in 16-byte reads. */
template <typename T, typename TILE, bool KMAJOR, int SIDE, int TM, int V>
__device__ __forceinline__ void gemm__cuda_simt_frag(T (&f)[V][TM], const T *s, int x, int kc)
{
    typedef typename gemm__cuda_vec<T>::type vec;
#pragma unroll
    for (int i = 0; i < TM; i += KMAJOR ? 1 : V)
#pragma unroll
        for (int q = 0; q < (KMAJOR ? 1 : V); q++) {
            vec v = *reinterpret_cast<const vec *>(s + TILE::at(gemm__cuda_simt_row<KMAJOR, SIDE, TM, V>(x, i), kc + q));
#pragma unroll
            for (int e = 0; e < V; e++) {
                if (KMAJOR) f[e][i] = reinterpret_cast<const T *>(&v)[e];
                else f[q][i + e] = reinterpret_cast<const T *>(&v)[e];
            }
        }
}

/* Threads form a (BM/TM) x (BN/TN) grid; a warp is 8 (along M) x 4 (along N)
   threads, so one 16-byte shared-memory read per operand touches 8 or 4
   distinct addresses of one 128-byte line: no bank conflicts. */
template <typename T, int BM, int BN, int BK, int TM, int TN, int STAGES, int MINB, int SWZ, bool AK, bool BKM,
          int VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), MINB)
gemm__cuda_simt_kernel(int M, int N, int K, int kchunk, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,
                       T beta, T *C, int64_t ldc, int atomic, gemm__cuda_batch bt)
{
    constexpr int NT = (BM / TM) * (BN / TN), V = 16 / (int)sizeof(T), PAD = V, XT = BM / TM;
    static_assert(XT % 8 == 0 && (BN / TN) % 4 == 0 && TM % V == 0 && TN % V == 0 && BK % V == 0, "bad tile");
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    T *As = reinterpret_cast<T *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    int tx = (warp % (XT / 8)) * 8 + lane % 8, ty = (warp / (XT / 8)) * 4 + lane / 8;
    int bm, bn;
    int part = gemm__cuda_member(bt, A, B, C);
    gemm__cuda_block_tile<SWZ>(bm, bn);
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = T(0);

    gemm__cuda_mainloop<T, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, part, A, lda, B, ldb, bm, bn, [&](const T *as, const T *bs) {
#pragma unroll
            for (int kc = 0; kc < BK; kc += V) {
                T a[V][TM], b[V][TN];
                gemm__cuda_simt_frag<T, TA, AK, BM, TM, V>(a, as, tx, kc);
                gemm__cuda_simt_frag<T, TB, BKM, BN, TN, V>(b, bs, ty, kc);
#pragma unroll
                for (int q = 0; q < V; q++)
#pragma unroll
                    for (int i = 0; i < TM; i++)
#pragma unroll
                        for (int j = 0; j < TN; j++) acc[i][j] = fma(a[q][i], b[q][j], acc[i][j]);
            }
        });

    int m0 = bm * BM, n0 = bn * BN;
#pragma unroll
    for (int j = 0; j < TN; j++) {
        int n = n0 + gemm__cuda_simt_row<BKM, BN, TN, V>(ty, j);
#pragma unroll
        for (int i = 0; i < TM; i++) {
            int m = m0 + gemm__cuda_simt_row<AK, BM, TM, V>(tx, i);
            if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[i][j], alpha, beta, atomic);
        }
    }
}
/* <<cuda simt */
/* >>cuda simt_warp: src/cuda/simt_warp.cuh */
/* SIMT for fp32, warp-tiled (the shape of cuBLAS's SIMT kernels on Ampere
   and Hopper): each warp owns a 64 x 64 tile of C, each of its 32 threads
   an 8 x 16 (LM = 8) or 16 x 8 (LM = 4) tile made of 4 x 4 sub-tiles LM*4
   rows and LN*4 columns apart (LN = 32/LM), so every shared-memory read is
   a 16-byte load touching LM (LN) distinct 16-byte words: one wavefront,
   128 FFMA per 6 loads per k. Both operands are multiplied from [k][side]
   tiles: an M-(N-)major operand is copied there by cp.async (a ring of 3
   K tiles of 16), a k-major one into a [side][16 + 4] staging ring and
   transposed, one K tile ahead, by the block itself into one of two
   [k][side] buffers (about 1% of the instructions). One barrier per K
   tile. No 128-register cap: 128-thread blocks run two per SM, 256-thread
   ones one. Operands must be 16-byte aligned (base and leading dimension);
   the host copies any other first. */

/* Copies a [ROWS][COLS] tile whose COLS are contiguous in global memory (row
   stride ld) into shared memory (row stride SLD) in 16-byte chunks; rows <
   rows_left and cols < cols_left are read, the rest becomes zeros. A
   thread's chunks are NT / (COLS/4) rows apart. */
template <int ROWS, int COLS, int SLD, int NT>
__device__ __forceinline__ void gemm__cuda_sw_copy(float *s, const float *X, int64_t ld, int rows_left, int cols_left)
{
    constexpr int CPR = COLS / 4, RSTEP = NT / CPR, ITER = ROWS / RSTEP;
    static_assert(NT % CPR == 0 && ROWS % RSTEP == 0, "tile does not split evenly");
    int r = (int)threadIdx.x / CPR, c = ((int)threadIdx.x % CPR) * 4;
    float *d = s + r * SLD + c;
    const float *gp = X + (int64_t)r * ld + c;
    int64_t step = (int64_t)RSTEP * ld;
    if (rows_left >= ROWS && cols_left >= COLS) {
#pragma unroll
        for (int i = 0; i < ITER; i++, gp += step) gemm__cuda_cp_async<16>(d + i * RSTEP * SLD, gp);
    } else {
        /* a chunk an edge cuts through is copied by hand: compute-sanitizer
           reports a cp.async of 16 bytes with a smaller source size as a
           16-byte read past the matrix (and the host path's buffers end
           exactly where the matrix does) */
        int cv = min(4, max(0, cols_left - c));
#pragma unroll
        for (int i = 0; i < ITER; i++, gp += step) {
            int valid = r + i * RSTEP < rows_left ? cv : 0;
            float *di = d + i * RSTEP * SLD;
            if (valid == 4) gemm__cuda_cp_async<16>(di, gp);
            else
#pragma unroll
                for (int e = 0; e < 4; e++) di[e] = e < valid ? gp[e] : 0.0f;
        }
    }
}

/* staging [SIDE][BK + 4] -> [BK][SIDE]: a warp reads 32 consecutive rows
   (stride BK + 4 floats: 8 rows hit 8 distinct 16-byte bank groups) and
   writes 32 consecutive floats of a k row. */
template <int SIDE, int BK, int NT> __device__ __forceinline__ void gemm__cuda_sw_transpose(const float *st, float *T)
{
    static_assert((SIDE * BK / 4) % NT == 0, "transpose does not split evenly");
#pragma unroll
    for (int i = 0; i < SIDE * BK / 4 / NT; i++) {
        int c = (int)threadIdx.x + i * NT, r = c % SIDE, k4 = (c / SIDE) * 4;
        float4 v = *reinterpret_cast<const float4 *>(st + r * (BK + 4) + k4);
        float *d = T + k4 * SIDE + r;
        d[0] = v.x; d[SIDE] = v.y; d[2 * SIDE] = v.z; d[3 * SIDE] = v.w;
    }
}

/* Four consecutive rows of one column of C (c 16-byte aligned when vec). */
__device__ __forceinline__ void gemm__cuda_sw_store4(float *c, const float (&x)[4], int rows_left, float alpha,
                                                     float beta, int atomic, bool vec)
{
    if (vec && !atomic && rows_left >= 4) {
        float4 o;
        if (beta == 0.0f) o = make_float4(alpha * x[0], alpha * x[1], alpha * x[2], alpha * x[3]);
        else {
            float4 p = *reinterpret_cast<const float4 *>(c);
            o = make_float4(alpha * x[0] + beta * p.x, alpha * x[1] + beta * p.y, alpha * x[2] + beta * p.z,
                            alpha * x[3] + beta * p.w);
        }
        *reinterpret_cast<float4 *>(c) = o;
    } else {
#pragma unroll
        for (int e = 0; e < 4; e++)
            if (e < rows_left) gemm__cuda_store(c + e, x[e], alpha, beta, atomic);
    }
}

/* A BM x BN block of 64 x 64 warps; LM lanes along M. BK 16, 3 stages. */
template <int BM, int BN, int LM> struct gemm__cuda_sw_shape {
    static constexpr int BK = 16, STAGES = 3, WM = 64, WN = 64, WARPS_M = BM / WM, NT = 32 * (BM / WM) * (BN / WN),
                         LN = 32 / LM, TMV = WM / LM, TNV = WN / LN, TMS = TMV / 4, TNS = TNV / 4;
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % (4 * LM) == 0 && WN % (4 * LN) == 0, "bad warp tile");
    /* floats of one operand of side SIDE: its ring, and for a k-major one its two transposed buffers */
    template <bool KMAJ, int SIDE> static constexpr int operand()
    {
        return KMAJ ? STAGES * SIDE * (BK + 4) + 2 * BK * SIDE : STAGES * BK * SIDE;
    }
    template <bool AK, bool BKM> static constexpr size_t smem() { return 4 * (size_t)(operand<AK, BM>() + operand<BKM, BN>()); }
    /* row of a[i] / acc[i][*] and column of b[j] / acc[*][j] from the thread's origin */
    static __device__ __forceinline__ int m_of(int i) { return (i / 4) * LM * 4 + i % 4; }
    static __device__ __forceinline__ int n_of(int j) { return (j / 4) * LN * 4 + j % 4; }
};

/* The block's tile of C from blockIdx.x (blockIdx.z the member and K part): groups
   of 8 tile-rows, N tiles fastest inside a group, so blocks resident
   together share panels of A and B in L2. */
__device__ __forceinline__ void gemm__cuda_sw_raster(int tm, int tn, int &bm, int &bn)
{
    int pid = (int)blockIdx.x, per_group = 8 * tn, first = (pid / per_group) * 8, size = min(tm - first, 8),
        r = pid % per_group;
    bm = first + r % size;
    bn = r / size;
}

/* BATCH: the launch is a batch (its members from bt, K not split); a
   single call runs the instance without, whose registers the batch's
   pointer arithmetic would otherwise reshuffle (it ran 5% slower in the
   256x128 configuration with it, at the same register count). */
template <int BM, int BN, int LM, int MINB, bool AK, bool BKM, bool BATCH>
__global__ void __launch_bounds__(gemm__cuda_sw_shape<BM, BN, LM>::NT, MINB)
gemm__cuda_simt_warp_kernel(int M, int N, int K, int kchunk, float alpha, const float *A, int64_t lda, const float *B,
                            int64_t ldb, float beta, float *C, int64_t ldc, int atomic, gemm__cuda_batch bt)
{
    typedef gemm__cuda_sw_shape<BM, BN, LM> S;
    constexpr int NT = S::NT, BK = S::BK, STAGES = S::STAGES, TMV = S::TMV, TNV = S::TNV;
    constexpr bool TR = AK || BKM; /* some operand is transposed one K tile ahead */
    constexpr int RA = AK ? BM * (BK + 4) : BK * BM, RB = BKM ? BN * (BK + 4) : BK * BN; /* ring stage sizes */
    extern __shared__ __align__(16) unsigned char gemm__cuda_sw_dyn[];
    float *ringA = reinterpret_cast<float *>(gemm__cuda_sw_dyn), *ringB = ringA + STAGES * RA;
    float *TA = ringB + STAGES * RB, *TB = TA + (AK ? 2 * BK * BM : 0); /* transposed buffers [2][BK][side] */
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    int wm = (warp % S::WARPS_M) * S::WM + (lane % LM) * 4, wn = (warp / S::WARPS_M) * S::WN + (lane / LM) * 4;
    int bm, bn, part = (int)blockIdx.z;
    if constexpr (BATCH) {
        gemm__cuda_member_whole_k(bt, A, B, C);
        part = 0;
    }
    else (void)bt;
    gemm__cuda_sw_raster((M + BM - 1) / BM, (N + BN - 1) / BN, bm, bn);
    int m0 = bm * BM, n0 = bn * BN, kbeg = part * kchunk, kend = min(K, kbeg + kchunk);
    int ktiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
    const float *Ap = AK ? A + (int64_t)m0 * lda + kbeg : A + m0 + (int64_t)kbeg * lda;
    const float *Bp = BKM ? B + (int64_t)n0 * ldb + kbeg : B + n0 + (int64_t)kbeg * ldb;
    int64_t astep = AK ? BK : (int64_t)BK * lda, bstep = BKM ? BK : (int64_t)BK * ldb;
    auto load = [&](int st, int kt) {
        int kleft = kend - kbeg - kt * BK;
        if (AK) gemm__cuda_sw_copy<BM, BK, BK + 4, NT>(ringA + st * RA, Ap + kt * astep, lda, M - m0, kleft);
        else gemm__cuda_sw_copy<BK, BM, BM, NT>(ringA + st * RA, Ap + kt * astep, lda, kleft, M - m0);
        if (BKM) gemm__cuda_sw_copy<BN, BK, BK + 4, NT>(ringB + st * RB, Bp + kt * bstep, ldb, N - n0, kleft);
        else gemm__cuda_sw_copy<BK, BN, BN, NT>(ringB + st * RB, Bp + kt * bstep, ldb, kleft, N - n0);
    };
    auto transpose = [&](int st, int buf) {
        if (AK) gemm__cuda_sw_transpose<BM, BK, NT>(ringA + st * RA, TA + buf * BK * BM);
        if (BKM) gemm__cuda_sw_transpose<BN, BK, NT>(ringB + st * RB, TB + buf * BK * BN);
    };
    float acc[TMV][TNV];
#pragma unroll
    for (int i = 0; i < TMV; i++)
#pragma unroll
        for (int j = 0; j < TNV; j++) acc[i][j] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles) load(s, s);
        gemm__cuda_cp_commit();
    }
    if constexpr (TR) {
        gemm__cuda_cp_wait<STAGES - 2>();
        __syncthreads();
        if (ktiles > 0) transpose(0, 0);
    }
    int cs = 0, ls = STAGES - 1; /* the stage computed and the stage loaded next */
    for (int kt = 0; kt < ktiles; kt++) {
        if constexpr (TR) gemm__cuda_cp_wait<STAGES - 3>(); /* tile kt + 1 is in (tile kt is transposed) */
        else gemm__cuda_cp_wait<STAGES - 2>();              /* tile kt is in */
        __syncthreads(); /* ... and every thread is done with the stage and buffer refilled below */
        if (kt + STAGES - 1 < ktiles) load(ls, kt + STAGES - 1);
        gemm__cuda_cp_commit();
        if constexpr (TR)
            if (kt + 1 < ktiles) transpose(cs + 1 == STAGES ? 0 : cs + 1, (kt + 1) & 1);
        const float *as = AK ? TA + (kt & 1) * BK * BM : ringA + cs * RA;
        const float *bs = BKM ? TB + (kt & 1) * BK * BN : ringB + cs * RB;
        float a[2][TMV], b[2][TNV];
        auto frag = [&](int k, float(&fa)[TMV], float(&fb)[TNV]) {
#pragma unroll
            for (int i = 0; i < S::TMS; i++) {
                float4 v = *reinterpret_cast<const float4 *>(as + k * BM + wm + S::m_of(4 * i));
                fa[4 * i] = v.x; fa[4 * i + 1] = v.y; fa[4 * i + 2] = v.z; fa[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < S::TNS; j++) {
                float4 v = *reinterpret_cast<const float4 *>(bs + k * BN + wn + S::n_of(4 * j));
                fb[4 * j] = v.x; fb[4 * j + 1] = v.y; fb[4 * j + 2] = v.z; fb[4 * j + 3] = v.w;
            }
        };
        frag(0, a[0], b[0]);
#pragma unroll
        for (int k = 0; k < BK; k++) { /* the fragments of k + 1 load while k multiplies */
            if (k + 1 < BK) frag(k + 1, a[(k + 1) & 1], b[(k + 1) & 1]);
#pragma unroll
            for (int i = 0; i < TMV; i++)
#pragma unroll
                for (int j = 0; j < TNV; j++) acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
        }
        cs = cs + 1 == STAGES ? 0 : cs + 1;
        ls = ls + 1 == STAGES ? 0 : ls + 1;
    }
    gemm__cuda_cp_wait<0>();

    bool vec = ((uintptr_t)C & 15) == 0 && (ldc & 3) == 0;
#pragma unroll
    for (int j = 0; j < TNV; j++) {
        int n = n0 + wn + S::n_of(j);
        if (n >= N) continue;
#pragma unroll
        for (int i = 0; i < S::TMS; i++) {
            int m = m0 + wm + S::m_of(4 * i);
            if (m < M) {
                const float x[4] = {acc[4 * i][j], acc[4 * i + 1][j], acc[4 * i + 2][j], acc[4 * i + 3][j]};
                gemm__cuda_sw_store4(&C[m + (int64_t)n * ldc], x, M - m, alpha, beta, atomic, vec);
            }
        }
    }
}
/* <<cuda simt_warp */
/* >>cuda dmma: src/cuda/dmma.cuh */
/* DMMA: fp64 on the FP64 tensor cores (mma.sync, sm_80+), over the cp.async
   ring: WARPS_M x WARPS_N warps, each a (BM/WARPS_M) x (BN/WARPS_N) tile of
   C made of 16x8 mma tiles, K = 4 per mma. */

/* D += A*B for a 16x8 tile and K = 4, in the fragment layout of
   mma.m16n8k4.f64: lane = 4*g + t holds a[i] = A(g + 8*i, t), b[0] = B(t, g),
   d = D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1). Hopper has the shape
   natively; Ampere runs it as two m8n8k4 (rows g and g+8). */
__device__ __forceinline__ void gemm__cuda_dmma_m16n8k4(double *d, const double *a, const double *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a[0]), "d"(b[0]));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[2]), "+d"(d[3])
                 : "d"(a[1]), "d"(b[0]));
#else
    (void)d; (void)a; (void)b;
    __trap();
#endif
}

/* PAD = 4 doubles puts the 4 rows a half-warp reads 8 banks apart. */
template <int BM, int BN, int BK, int STAGES, int WARPS_M, int WARPS_N, int MINB, int SWZ, bool AK, bool BKM, int VEC>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, MINB)
gemm__cuda_dmma_kernel(int M, int N, int K, int kchunk, double alpha, const double *A, int64_t lda,
                       const double *B, int64_t ldb, double beta, double *C, int64_t ldc, int atomic,
                       gemm__cuda_batch bt)
{
    constexpr int NT = 32 * WARPS_M * WARPS_N, PAD = 4, WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16,
                  NTL = WN / 8, KI = 4;
    static_assert(BK % KI == 0 && WM % 16 == 0 && WN % 8 == 0, "bad tile");
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    double *As = reinterpret_cast<double *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN, bm, bn;
    int part = gemm__cuda_member(bt, A, B, C);
    gemm__cuda_block_tile<SWZ>(bm, bn);
    double acc[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;

    gemm__cuda_mainloop<double, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, part, A, lda, B, ldb, bm, bn, [&](const double *as, const double *bs) {
#pragma unroll
            for (int ks = 0; ks < BK; ks += KI) {
                double b[NTL][KI / 4];
#pragma unroll
                for (int j = 0; j < NTL; j++)
#pragma unroll
                    for (int i = 0; i < KI / 4; i++) b[j][i] = bs[TB::at(wn + j * 8 + g, ks + t + 4 * i)];
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    double a[KI / 2];
#pragma unroll
                    for (int i = 0; i < KI / 2; i++) a[i] = as[TA::at(wm + mt * 16 + g + 8 * (i % 2), ks + t + 4 * (i / 2))];
#pragma unroll
                    for (int j = 0; j < NTL; j++) gemm__cuda_dmma_m16n8k4(acc[mt][j], a, b[j]);
                }
            }
        });

    int m0 = bm * BM + wm, n0 = bn * BN + wn;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                int m = m0 + mt * 16 + g + 8 * (r / 2), n = n0 + j * 8 + 2 * t + r % 2;
                if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[mt][j][r], alpha, beta, atomic);
            }
}
/* <<cuda dmma */
/* >>cuda dmma_frag: src/cuda/dmma_frag.cuh */
/* The fp64 tiles of the TMA DMMA kernel in shared memory and the mma.sync
   .f64 fragments read from them with 16-byte loads (sm_90: m16n8k16).
   Host-and-device index maps with no other dependency, so that the
   research model (bench/research/exact/model.cu) checks these very maps on
   the host: every product, and every load's bank wavefronts.

   Tiles. A K tile is 16 doubles (128 bytes) deep. A k-major operand's tile
   is SIDE rows of 128 bytes; an M-(N-)major one SIDE/16 boxes of 16 k rows
   x 16 side elements (2 KB each). Both are what the copy engine writes with
   CU_TENSOR_MAP_SWIZZLE_128B: in each 128-byte row r, 16-byte chunk c is
   stored at chunk c ^ (r % 8).

   Fragments. mma.m16n8k8.f64: lane 4g + t holds A(row g + 8i, slot t + 4j)
   as a[i + 2j], B(slot t + 4j, col g) as b[j], D(row g + 8i, col 2t + q)
   as d[2i + q]; m16n8k16 is two such steps in one instruction. The 8 slots
   of a step may stand for any 8 k of the tile as long as both operands
   agree, and the rows and columns for any rows and columns: in step s,
   slot t + 4j is k = 2t + 8s + j, so a lane's two k are neighbours (one
   16-byte load when the operand is k-major); for an M-major X, MMA rows g
   and g + 8 are tile rows 2g and 2g + 1 (neighbours again); for an N-major
   Y the two n-tiles 2p, 2p + 1 interleave. A k-major operand's rows are
   permuted (sigma, rho) so that the 8 lanes of each quarter-warp read 8
   different 16-byte bank groups: every 16-byte load of a warp is 4
   wavefronts, the minimum. */

#define GEMM__CUDA_HD __host__ __device__ __forceinline__

/* doubles offset of (side index s, k index q < 16) in a k-major / M-major tile */
GEMM__CUDA_HD constexpr int gemm__cuda_dt_kmaj(int s, int q) { return s * 16 + ((((q >> 1) ^ s) & 7) << 1) + (q & 1); }
GEMM__CUDA_HD constexpr int gemm__cuda_dt_mnmaj(int s, int q)
{
    return (s >> 4) * 256 + q * 16 + (((((s & 15) >> 1) ^ q) & 7) << 1) + (s & 1);
}
GEMM__CUDA_HD constexpr int gemm__cuda_dt_rho(int g) { return ((g & 1) << 2) | (g >> 1); }
GEMM__CUDA_HD constexpr int gemm__cuda_dt_sigma(int g) { return (g & 4) | ((g & 1) << 1) | ((g >> 1) & 1); }

/* Two neighbouring doubles in one 16-byte load (device), or two reads (host). */
GEMM__CUDA_HD double2 gemm__cuda_dt_ld2(const double *p)
{
#ifdef __CUDA_ARCH__
    return *reinterpret_cast<const double2 *>(p);
#else
    return make_double2(p[0], p[1]);
#endif
}

/* The MMA's row operand X (mma's A). XK: X is k-major (both operands
   k-major); else M-(N-)major. A lane's loads are per-lane base offsets
   (doubles, the warp's origin wx included) plus constants, so every load of
   a K tile has an immediate offset. */
template <bool XK> struct gemm__cuda_dt_xfrag {
    int base[4];
    GEMM__CUDA_HD gemm__cuda_dt_xfrag(int wx, int g, int t)
    {
        if (XK) { /* base[2s + j]: tile row 2 sigma(g) + j, k = 2t + 8s and the next */
            int r0 = 2 * gemm__cuda_dt_sigma(g), x = r0 & 7;
            for (int s = 0; s < 2; s++)
                for (int j = 0; j < 2; j++) base[2 * s + j] = (wx + r0 + j) * 16 + ((((t + 4 * s) ^ x ^ j) & 7) << 1);
        } else { /* base[j]: tile rows 2g, 2g + 1 at k = 2t + j */
            for (int j = 0; j < 2; j++) base[j] = (wx >> 4) * 256 + (2 * t + j) * 16 + (((g ^ (2 * t + j)) & 7) << 1);
            base[2] = base[3] = 0;
        }
    }
    /* offset of load j (0, 1) of 16-row tile mt in step s */
    GEMM__CUDA_HD int off(int mt, int s, int j) const { return XK ? base[2 * s + j] + 256 * mt : base[j] + 256 * mt + 128 * s; }
    GEMM__CUDA_HD void load(const double *X, int mt, int s, double (&f)[4]) const
    {
        double2 v0 = gemm__cuda_dt_ld2(X + off(mt, s, 0)), v1 = gemm__cuda_dt_ld2(X + off(mt, s, 1));
        if (XK) { /* v0: MMA row g at k, k + 1; v1: row g + 8 */
            f[0] = v0.x; f[1] = v1.x; f[2] = v0.y; f[3] = v1.y;
        } else { /* v0: MMA rows g, g + 8 at k; v1: at k + 1 */
            f[0] = v0.x; f[1] = v0.y; f[2] = v1.x; f[3] = v1.y;
        }
    }
    /* tile row (of the 16) of MMA row g; MMA row g + 8 is the next one */
    GEMM__CUDA_HD static int row(int g) { return 2 * (XK ? gemm__cuda_dt_sigma(g) : g); }
};

/* The MMA's column operand Y (mma's B). YK: k-major (one 16-byte load per
   n-tile and step); else N-major (two 8-byte loads, also conflict-free). */
template <bool YK> struct gemm__cuda_dt_yfrag {
    int base[4];
    GEMM__CUDA_HD gemm__cuda_dt_yfrag(int wy, int g, int t)
    {
        if (YK) { /* base[s]: tile column rho(g), k = 2t + 8s and the next */
            int rr = gemm__cuda_dt_rho(g);
            for (int s = 0; s < 2; s++) base[s] = (wy + rr) * 16 + ((((t + 4 * s) ^ rr) & 7) << 1);
            base[2] = base[3] = 0;
        } else { /* base[2h + j]: tile column 8h + g, k = 2t + j */
            for (int h = 0; h < 2; h++)
                for (int j = 0; j < 2; j++) {
                    int n = 8 * h + g;
                    base[2 * h + j] =
                        (wy >> 4) * 256 + (2 * t + j) * 16 + (((((n & 15) >> 1) ^ (2 * t + j)) & 7) << 1) + (n & 1);
                }
        }
    }
    /* offset of the load for n-tile nt (8 columns) in step s; j: which 8-byte load (N-major) */
    GEMM__CUDA_HD int off(int nt, int s, int j) const
    {
        return YK ? base[s] + 128 * nt : base[2 * (nt & 1) + j] + 256 * (nt >> 1) + 128 * s;
    }
    GEMM__CUDA_HD void load(const double *Y, int nt, int s, double (&f)[2]) const
    {
        if (YK) {
            double2 v = gemm__cuda_dt_ld2(Y + off(nt, s, 0));
            f[0] = v.x; f[1] = v.y;
        } else {
            f[0] = Y[off(nt, s, 0)];
            f[1] = Y[off(nt, s, 1)];
        }
    }
    /* tile column (of the 8) of d[2i + q] */
    GEMM__CUDA_HD static int col(int t, int q) { return YK ? 4 * q + t : 2 * t + q; }
};

/* Which operand plays which role, from the layouts of op(A) (AK: k-major)
   and op(B) (BKM). SWAP (op(A) k-major, op(B) not): the warp computes C^T,
   X = op(B)^T (N-major) and Y = op(A)^T (k-major), so that no X is k-major
   there. Both k-major: X = op(A) k-major (XK; its fragment interleaves two
   loads in registers). Otherwise X = op(A), Y = op(B). */
template <bool AK, bool BKM> struct gemm__cuda_dt_roles {
    static constexpr bool SWAP = AK && !BKM, XK = AK && BKM, YK = SWAP ? true : BKM;
};

/* The warps of a BM x BN block tile: each a 64 x 32 tile of X rows x Y
   columns, 4 x 4 MMA tiles of 16 x 8. */
template <int BM, int BN, bool AK, bool BKM> struct gemm__cuda_dt_warps {
    typedef gemm__cuda_dt_roles<AK, BKM> R;
    static constexpr int BX = R::SWAP ? BN : BM, BY = R::SWAP ? BM : BN, WX = 64, WY = 32, WARPS_X = BX / WX,
                         WARPS = (BX / WX) * (BY / WY), MT = WX / 16, NTL = WY / 8;
    static_assert(BX % WX == 0 && BY % WY == 0, "the block is not a whole number of 64x32 warp tiles");
};

/* X row and Y column (from the warp's origin) of accumulator r of MMA tile (mt, nt) */
template <bool XK, bool YK> GEMM__CUDA_HD void gemm__cuda_dt_acc_pos(int mt, int nt, int r, int g, int t, int &x, int &y)
{
    x = 16 * mt + gemm__cuda_dt_xfrag<XK>::row(g) + (r >> 1);
    y = 8 * nt + gemm__cuda_dt_yfrag<YK>::col(t, r & 1);
}
/* <<cuda dmma_frag */
/* >>cuda mma: src/cuda/mma.cuh */
/* MMA: TF32, FP16 and BF16 on the tensor cores through mma.sync (sm_80+),
   fp32 sums, over the cp.async ring. TF32 data is plain fp32; the tensor
   cores ignore its 13 low mantissa bits. */

/* The 32 bits a thread feeds one mma for element (r, q) of a k-major tile:
   two 16-bit values (q, q+1), or one TF32. */
template <typename T> __device__ __forceinline__ uint32_t gemm__cuda_tc_bits(const T *s)
{
    return *reinterpret_cast<const uint32_t *>(s);
}

/* D(16x8) += A(16xKS) * B(KSx8), KS = 16 for FP16/BF16, 8 for TF32; fp32 D. */
template <typename T> __device__ __forceinline__ void gemm__cuda_mma(float *d, const uint32_t *a, const uint32_t *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_same<T, __half>::value)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else if constexpr (std::is_same<T, __nv_bfloat16>::value)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)d; (void)a; (void)b;
    __trap();
#endif
}

/* The 32 bits a thread feeds one mma for element (r, q) of a tile: two
   16-bit values (q, q+1), or one TF32. A k-major tile holds the pair in one
   word; an M-major one (op(A) read in place) in two rows of the tile. */
template <typename T, typename TILE, bool KMAJOR>
__device__ __forceinline__ uint32_t gemm__cuda_tc_frag(const T *s, int r, int q)
{
    if constexpr (KMAJOR || sizeof(T) == 4) {
        return gemm__cuda_tc_bits(&s[TILE::at(r, q)]);
    } else {
        uint32_t lo = *reinterpret_cast<const uint16_t *>(&s[TILE::at(r, q)]);
        uint32_t hi = *reinterpret_cast<const uint16_t *>(&s[TILE::at(r, q + 1)]);
        return lo | hi << 16;
    }
}

/* The MMA kernel's shape: BM x BN block tiles (128 x 128 with 8 warps of
   64 x 32, or 64 x 64 with 4 warps of 32 x 32 for a batch's small
   members), BK 32, 3 stages; AK: op(A) k-major in memory (else M-major,
   read in place); op(B) always k-major. Rows of a k-major tile are padded
   by 16 bytes, of an M-major one by 8 elements: either way the fragment
   loads of a warp fall in distinct banks.
   The 64 x 64 tile of a 16-bit type, whose blocks each do one small
   member, has 2 stages and up to 8 blocks per SM (64 registers) instead:
   more members in flight beat a deeper ring there (H200, FP16 and BF16,
   10,000 members of 32^3: 0.64-0.69 of cuBLAS -> 0.83-0.85; 48^3
   0.58-0.60 -> 0.65; 64 x 64 x 1024 0-3% faster). TF32 keeps 3 stages
   and 4 blocks: at 64 registers it spills, and at 2 stages its
   64 x 64 x 1024 members ran 25% slower. */
template <typename T, int BM_, bool AK_> struct gemm__cuda_mma_shape {
    static constexpr int BM = BM_, BN = BM_, BK = 32, STAGES = BM == 128 || sizeof(T) == 4 ? 3 : 2,
                         NT = BM == 128 ? 256 : 128,
                         VEC = 16 / (int)sizeof(T), PAD_A = AK_ ? VEC : 8, PAD_B = VEC;
    typedef gemm__cuda_tile<BM, BK, PAD_A, AK_> TA;
    typedef gemm__cuda_tile<BN, BK, PAD_B, true> TB;
    static constexpr size_t SMEM = (size_t)STAGES * (TA::SIZE + TB::SIZE) * sizeof(T);
};

/* MMA (sm_80+): the block tiles of gemm__cuda_mma_shape, the cp.async
   ring of the SIMT kernel, 16x8 mma tiles. Fragments follow the
   mma.m16n8kKS layouts: lane = 4g + t holds A rows g and g+8 at k columns
   c and c + KS/2 (c = 2t for 16-bit pairs, t for TF32), B column g at the
   same k, D rows g and g+8 at columns 2t and 2t+1.
   PROMOTE (the fp32-accurate mode): the tensor cores' fp32 sums truncate,
   which over a long K costs about K/16 units in the last place; instead
   each BK slice is summed on the tensor cores from zero and added into a
   second set of sums with ordinary (rounding) fp32 adds. The 64 more
   registers leave one block per SM. */
template <typename T, typename TC, bool PROMOTE, int BM_ = 128, bool AK = true>
__global__ void __launch_bounds__(BM_ == 128 ? 256 : 128, PROMOTE ? 1 : BM_ == 128 ? 2 : sizeof(T) == 2 ? 8 : 4)
    gemm__cuda_mma_kernel(int M, int N, int K, float alpha, const T *A, int64_t lda, const T *B, int64_t ldb,
                          float beta, TC *C, int64_t ldc, gemm__cuda_batch bt)
{
    typedef gemm__cuda_mma_shape<T, BM_, AK> S;
    constexpr int BM = S::BM, BN = S::BN, BK = S::BK, STAGES = S::STAGES, NT = S::NT, WARPS_N = NT / 64,
                  WM = BM / 2, WN = BN / WARPS_N, MT = WM / 16, NTL = WN / 8, KS = sizeof(T) == 2 ? 16 : 8,
                  STEP = sizeof(T) == 2 ? 2 : 1; /* elements per 32-bit register */
    typedef typename S::TA TA;
    typedef typename S::TB TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    T *As = reinterpret_cast<T *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wm = (warp % 2) * WM, wn = (warp / 2) * WN, bm, bn;
    gemm__cuda_member(bt, A, B, C); /* K is not split: part 0 */
    gemm__cuda_block_tile<8>(bm, bn);
    float acc[MT][NTL][4], tot[PROMOTE ? MT : 1][PROMOTE ? NTL : 1][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = tot[PROMOTE ? i : 0][PROMOTE ? j : 0][r] = 0.0f;

    gemm__cuda_mainloop<T, BM, BN, BK, STAGES, NT, AK, true, S::VEC, S::PAD_A, S::PAD_B>(
        As, Bs, M, N, K, K, 0, A, lda, B, ldb, bm, bn, [&](const T *as, const T *bs) {
#pragma unroll
            for (int ks = 0; ks < BK; ks += KS) {
                const int c = ks + t * STEP;
                uint32_t b[NTL][2];
#pragma unroll
                for (int j = 0; j < NTL; j++) {
                    b[j][0] = gemm__cuda_tc_bits(&bs[TB::at(wn + j * 8 + g, c)]);
                    b[j][1] = gemm__cuda_tc_bits(&bs[TB::at(wn + j * 8 + g, c + KS / 2)]);
                }
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    uint32_t a[4];
                    a[0] = gemm__cuda_tc_frag<T, TA, AK>(as, wm + mt * 16 + g, c);
                    a[1] = gemm__cuda_tc_frag<T, TA, AK>(as, wm + mt * 16 + g + 8, c);
                    a[2] = gemm__cuda_tc_frag<T, TA, AK>(as, wm + mt * 16 + g, c + KS / 2);
                    a[3] = gemm__cuda_tc_frag<T, TA, AK>(as, wm + mt * 16 + g + 8, c + KS / 2);
#pragma unroll
                    for (int j = 0; j < NTL; j++) gemm__cuda_mma<T>(acc[mt][j], a, b[j]);
                }
            }
            if constexpr (PROMOTE) {
#pragma unroll
                for (int i = 0; i < MT; i++)
#pragma unroll
                    for (int j = 0; j < NTL; j++)
#pragma unroll
                        for (int r = 0; r < 4; r++) {
                            tot[i][j][r] += acc[i][j][r];
                            acc[i][j][r] = 0.0f;
                        }
            }
        });

    int m0 = bm * BM + wm, n0 = bn * BN + wn;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                int m = m0 + mt * 16 + g + 8 * (r / 2), n = n0 + j * 8 + 2 * t + r % 2;
                if (m < M && n < N)
                    gemm__cuda_store(&C[m + (int64_t)n * ldc], PROMOTE ? tot[PROMOTE ? mt : 0][PROMOTE ? j : 0][r]
                                                                       : acc[mt][j][r], alpha, beta, 0);
            }
}
/* <<cuda mma */
/* >>cuda wgmma_ptx: src/cuda/wgmma_ptx.cuh */
/* The Hopper instructions of the WGMMA kernel, each behind a small named
   wrapper: mbarriers, the copy engine (TMA), wgmma and its fences, register
   reallocation and named barriers. They exist only in a build for sm_90a
   (-gencode arch=compute_90a,code=sm_90a); in any other build the kernel
   body is empty and gemm__cuda_wgmma_built says so. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMM__CUDA_SM90A 1
#else
#define GEMM__CUDA_SM90A 0
#endif
static __device__ int gemm__cuda_wgmma_built = GEMM__CUDA_SM90A;

__device__ __forceinline__ unsigned gemm__cuda_smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* mbarriers: a full barrier per stage completes when the copy engine has
   written the stage's bytes; an empty barrier when every consumer thread is
   done reading it. */
__device__ __forceinline__ void gemm__cuda_mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(gemm__cuda_smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void gemm__cuda_mbar_expect(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(gemm__cuda_smem_addr(bar)), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void gemm__cuda_mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(gemm__cuda_smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void gemm__cuda_mbar_wait(uint64_t *bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(gemm__cuda_smem_addr(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}

/* Makes the barriers' initialisation visible to the other threads and to
   the copy engine (the async proxy). */
__device__ __forceinline__ void gemm__cuda_fence_mbar_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void gemm__cuda_fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* One box of a 2-D tensor map (x: the k index, y: the row) into shared
   memory by the copy engine, completing on `bar`. Rows and columns past the
   tensor's edge arrive as zeros. */
__device__ __forceinline__ void gemm__cuda_tma_load(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar)
{
#if GEMM__CUDA_SM90A
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(gemm__cuda_smem_addr(dst)), "l"((uint64_t)map), "r"(x), "r"(y), "r"(gemm__cuda_smem_addr(bar))
                 : "memory");
#else
    (void)dst; (void)map; (void)x; (void)y; (void)bar;
#endif
}

/* The same from a 3-D tensor map (x: the k index within a 128-byte slice,
   y: the row, z: the slice plane): the fp32-accurate mode's split operands,
   whose every box is one contiguous run of memory. */
__device__ __forceinline__ void gemm__cuda_tma_load3(void *dst, const CUtensorMap *map, int x, int y, int z,
                                                     uint64_t *bar)
{
#if GEMM__CUDA_SM90A
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
                 "[%5];\n" ::"r"(gemm__cuda_smem_addr(dst)), "l"((uint64_t)map), "r"(x), "r"(y), "r"(z),
                 "r"(gemm__cuda_smem_addr(bar))
                 : "memory");
#else
    (void)dst; (void)map; (void)x; (void)y; (void)z; (void)bar;
#endif
}

/* One box from a 2-D map (z < 0) or from plane z of a 3-D one. */
__device__ __forceinline__ void gemm__cuda_tma_load_z(void *dst, const CUtensorMap *map, int x, int y, int z,
                                                      uint64_t *bar)
{
    if (z < 0) gemm__cuda_tma_load(dst, map, x, y, bar);
    else gemm__cuda_tma_load3(dst, map, x, y, z, bar);
}

/* The shared-memory matrix descriptor of a k-major tile written by the copy
   engine with the 128-byte swizzle: rows of 128 bytes, 8-row groups 1024
   bytes apart (stride byte offset 1024 >> 4), swizzle mode 1 (bits 62-63).
   Advancing along K inside the 128-byte row adds bytes >> 4 to the address. */
__device__ __forceinline__ uint64_t gemm__cuda_wgmma_desc(const void *tile)
{
    return (uint64_t)((gemm__cuda_smem_addr(tile) & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

/* The same for an MN-major 16-bit tile: chunks of 64 MN elements (one
   128-byte row per k), 8-k groups 1024 bytes apart (stride byte offset),
   chunks MN_CHUNK_BYTES apart (leading byte offset); advancing along K
   moves whole rows. */
__device__ __forceinline__ uint64_t gemm__cuda_wgmma_desc_mn(const void *tile)
{
    constexpr uint64_t CHUNK_BYTES = 64 * 128; /* gemm__cuda_wgmma_shape<>::MN_CHUNK_BYTES */
    return (uint64_t)((gemm__cuda_smem_addr(tile) & 0x3FFFF) >> 4) | ((CHUNK_BYTES >> 4) << 16) | (64ull << 32) |
           (1ull << 62);
}

/* Keeps the compiler from moving reads or writes of the accumulators across
   the asynchronous wgmma (their registers are written behind its back). */
template <int N> __device__ __forceinline__ void gemm__cuda_wgmma_fence_acc(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
}

/* The accumulator operands of one wgmma: "+f" constraints of d[i..i+7] and
   d[i..i+31], and the operand numbers %0..%63 and %64..%127 in the text. */
#define GEMM__WG_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                       "+f"(d[i + 6]), "+f"(d[i + 7])
#define GEMM__WG_D32(i) GEMM__WG_D8(i), GEMM__WG_D8(i + 8), GEMM__WG_D8(i + 16), GEMM__WG_D8(i + 24)
#define GEMM__WG_R0_63                                                                                         \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "    \
    "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, "     \
    "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "     \
    "%62, %63"
#define GEMM__WG_R64_127                                                                                       \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "     \
    "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, " \
    "%104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, "   \
    "%121, %122, %123, %124, %125, %126, %127"
#define GEMM__WG_PRED "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" /* scale-d = 1: D += A*B */

/* D(64x256, fp32, 128 registers per thread) += A(64xKS) * B(KSx256), both
   from shared memory through descriptors; KS = 16 (FP16/BF16) or 8 (TF32).
   A_MN: A is stored M-major, B_MN: B is stored N-major (the transpose bits;
   16-bit types only: TF32 reads both k-major).
   Register i of lane 4g + t of warp w holds D(16w + g + 8*(i%4/2), 8*(i/4) + 2t + i%2). */
template <typename T, bool A_MN, bool B_MN>
__device__ __forceinline__ void gemm__cuda_wgmma_m64n256(float (&d)[128], uint64_t da, uint64_t db)
{
#if GEMM__CUDA_SM90A
    if constexpr (std::is_same<T, __half>::value)
        asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {" GEMM__WG_R0_63 ", "
                     GEMM__WG_R64_127 "}, %128, %129, p, 1, 1, %130, %131;\n}\n"
                     : GEMM__WG_D32(0), GEMM__WG_D32(32), GEMM__WG_D32(64), GEMM__WG_D32(96)
                     : "l"(da), "l"(db), "n"(A_MN ? 1 : 0), "n"(B_MN ? 1 : 0));
    else if constexpr (std::is_same<T, __nv_bfloat16>::value)
        asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" GEMM__WG_R0_63 ", "
                     GEMM__WG_R64_127 "}, %128, %129, p, 1, 1, %130, %131;\n}\n"
                     : GEMM__WG_D32(0), GEMM__WG_D32(32), GEMM__WG_D32(64), GEMM__WG_D32(96)
                     : "l"(da), "l"(db), "n"(A_MN ? 1 : 0), "n"(B_MN ? 1 : 0));
    else
        asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" GEMM__WG_R0_63 ", "
                     GEMM__WG_R64_127 "}, %128, %129, p, 1, 1;\n}\n"
                     : GEMM__WG_D32(0), GEMM__WG_D32(32), GEMM__WG_D32(64), GEMM__WG_D32(96)
                     : "l"(da), "l"(db));
#else
    (void)d; (void)da; (void)db;
#endif
}

/* The same with 128 columns (64 registers per thread). */
template <typename T, bool A_MN, bool B_MN>
__device__ __forceinline__ void gemm__cuda_wgmma_m64n128(float (&d)[64], uint64_t da, uint64_t db)
{
#if GEMM__CUDA_SM90A
    if constexpr (std::is_same<T, __half>::value)
        asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {" GEMM__WG_R0_63
                     "}, %64, %65, p, 1, 1, %66, %67;\n}\n"
                     : GEMM__WG_D32(0), GEMM__WG_D32(32)
                     : "l"(da), "l"(db), "n"(A_MN ? 1 : 0), "n"(B_MN ? 1 : 0));
    else if constexpr (std::is_same<T, __nv_bfloat16>::value)
        asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" GEMM__WG_R0_63
                     "}, %64, %65, p, 1, 1, %66, %67;\n}\n"
                     : GEMM__WG_D32(0), GEMM__WG_D32(32)
                     : "l"(da), "l"(db), "n"(A_MN ? 1 : 0), "n"(B_MN ? 1 : 0));
    else
        asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" GEMM__WG_R0_63
                     "}, %64, %65, p, 1, 1;\n}\n"
                     : GEMM__WG_D32(0), GEMM__WG_D32(32)
                     : "l"(da), "l"(db));
#else
    (void)d; (void)da; (void)db;
#endif
}
/* D(64x128) = A*B (accumulate == 0) or D += A*B, TF32 from shared memory:
   the fp32-accurate mode's short sums, which start from zero without a
   register write (wgmma's scale-d operand). */
__device__ __forceinline__ void gemm__cuda_wgmma_m64n128_tf32(float (&d)[64], uint64_t da, uint64_t db, int accumulate)
{
#if GEMM__CUDA_SM90A
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" GEMM__WG_R0_63 "}, %64, %65, p, 1, 1;\n}\n"
                 : GEMM__WG_D32(0), GEMM__WG_D32(32)
                 : "l"(da), "l"(db), "r"(accumulate));
#else
    (void)d; (void)da; (void)db; (void)accumulate;
#endif
}
#undef GEMM__WG_D8
#undef GEMM__WG_D32
#undef GEMM__WG_R0_63
#undef GEMM__WG_R64_127
#undef GEMM__WG_PRED

/* One wgmma of WN = 256 or 128 columns. */
template <typename T, bool A_MN, bool B_MN, int WN>
__device__ __forceinline__ void gemm__cuda_wgmma(float (&d)[WN / 2], uint64_t da, uint64_t db)
{
    if constexpr (WN == 256) gemm__cuda_wgmma_m64n256<T, A_MN, B_MN>(d, da, db);
    else gemm__cuda_wgmma_m64n128<T, A_MN, B_MN>(d, da, db);
}

/* wgmma.fence: the accumulators and shared memory are ready for the wgmma
   issued next. */
__device__ __forceinline__ void gemm__cuda_wgmma_arrive(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/* Closes the group of the wgmma issued since the last commit. */
__device__ __forceinline__ void gemm__cuda_wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Waits until at most N committed groups are still running. */
template <int N> __device__ __forceinline__ void gemm__cuda_wgmma_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Gives this warpgroup's registers back to the pool (dec) or takes more
   (inc), so a producer with few registers leaves them to the consumers. */
template <int REGS> __device__ __forceinline__ void gemm__cuda_setmaxnreg_dec(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS> __device__ __forceinline__ void gemm__cuda_setmaxnreg_inc(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

/* Named barrier `id` (1..15; 0 is __syncthreads) among THREADS threads. */
template <int THREADS> __device__ __forceinline__ void gemm__cuda_bar_sync(int id)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(THREADS) : "memory");
}
/* <<cuda wgmma_ptx */
/* >>cuda wgmma: src/cuda/wgmma.cuh */
/* WGMMA: TF32, FP16 and BF16 on Hopper's tensor cores (sm_90a), fp32 sums,
   and the fp32-accurate mode's three TF32 products. A persistent kernel:
   each block walks work units (a tile of C, or one K part of it) in a
   rasterised order; in each, the copy engine (TMA) fills a ring of
   shared-memory stages that wgmma reads through descriptors. One producer
   thread issues the copies, two consumer warpgroups the wgmma; the ring
   runs on across units, so the copies of a block's next tile are in
   flight while its consumers write the last one. */

/* The WGMMA kernel's shape: a block computes BM (M) x 128 (N) of C. Threads
   0-255 are two consumer warpgroups, each one m64nBM accumulator: wgmma's
   M is our N (64 columns of C each), its N our M, so a thread's
   neighbouring accumulators are neighbouring rows of column-major C. From
   thread 256 on the producer: one thread issues the copies of a
   128-byte-wide K slice of both operands per stage.
   BM = 256 (large problems): 4 stages, one block per SM, the producer a
   whole warpgroup so that setmaxnreg can move its registers to the
   consumers (128 accumulators each, and in the fp32-accurate mode 64 more
   for its short sums). BM = 128 (M of at most 128): 3 stages and two
   blocks per SM; the producer one warp (64 accumulators fit without
   setmaxnreg).
   The epilogue (the default) passes each consumer warp's sums through a
   buffer per warp, EPI_M rows
   of its 16 columns at a time (EPI_LD floats per column: the float2 writes
   of a half-warp and the float4 reads of a quarter-warp land on 32
   distinct banks for EPI_M = 32; 2-way conflicts for 16), so that a
   quarter-warp writes EPI_M contiguous elements of one column. The direct
   epilogue, kept for comparison (test hook), writes each thread's pairs of
   neighbouring rows straight from the registers (a warp's store covers 8
   columns x 2*sizeof(C)*4 bytes); measured on an H100 it was slower (up
   to 0.83 of the staged one) or no faster on every shape swept. */
template <int BM_> struct gemm__cuda_wgmma_shape {
    static constexpr int BM = BM_, BN = 128, ROW_BYTES = 128, STAGES = BM == 256 ? 4 : 3,
                         THREADS = BM == 256 ? 384 : 288, BLOCKS_PER_SM = BM == 256 ? 1 : 2,
                         REGS_PRODUCER = 40, REGS_CONSUMER = 232, /* setmaxnreg, BM = 256 only */
                         /* registers per thread at launch: BLOCKS_PER_SM blocks fill the 64K (rounded down to 8) */
                         MAX_REGS = 65536 / (BLOCKS_PER_SM * THREADS) / 8 * 8,
                         ACC = BM / 2, /* accumulators per consumer thread */
                         A_BYTES = BM * ROW_BYTES, B_BYTES = BN * ROW_BYTES, STAGE_BYTES = A_BYTES + B_BYTES,
                         EPI_M = BM == 256 ? 32 : 16, EPI_LD = EPI_M + 8, EPI_BYTES = 8 * 16 * EPI_LD * 4,
                         SMEM = STAGES * STAGE_BYTES + EPI_BYTES + 2 * STAGES * 8 /* barriers */ + 16 /* split-K flag */ +
                                1024 /* alignment */,
                         MN_CHUNK_BYTES = 64 * 128; /* an MN-major 16-bit tile: 64 k rows of 64 elements */
    static_assert(BLOCKS_PER_SM * (SMEM + 1024) <= 228 * 1024, "shared memory per SM");
    static_assert(2 * 128 * REGS_CONSUMER + 128 * REGS_PRODUCER <= 65536, "registers");
};

/* The kernel's register limit: MAX_REGS where nvcc takes it (12.4 on);
   older ones derive a limit from the blocks per SM, for 128-row tiles a
   lower one, which spills. */
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define GEMM__CUDA_WGMMA_BOUNDS(S) __launch_bounds__(S::THREADS) __maxnreg__(S::MAX_REGS)
#else
#define GEMM__CUDA_WGMMA_BOUNDS(S) __launch_bounds__(S::THREADS, S::BLOCKS_PER_SM)
#endif

/* Which units a launch has and where each one's K slices are. Unit u is K
   part u / tiles of tile u % tiles (so the blocks running together work on
   the same K range); tiles go in groups of `group` tile-rows along M, M
   fastest within a group (group < 0: along N), so that concurrent blocks
   share panels of both operands in L2. K is counted in slices of 128 bytes
   ("k tiles"). The fp32-accurate mode has three segments of kt_seg slices
   each: lo*hi, hi*lo, hi*hi, reading slice planes of a's and b's split
   (split.cuh: region r's slice q is plane r*kt_seg + q; regions 0 hi, 1
   lo, 2 hc, which replaces hi in the first two once the split saw an Inf
   or NaN). When K is split, each part writes its raw sums into a region
   of `partial`; with `counters` (one per tile, zero at launch) the part
   that finishes last adds them up in part order and writes C, else
   gemm__cuda_splitk_sum_kernel does after the kernel. `epilogue` 1: the
   staged epilogue (above), else the direct one. */
typedef struct gemm__cuda_wgmma_work {
    int units, tiles, tm, tn, group; /* tm x tn tiles, `units` = tiles x K parts x members */
    int kt_total, kt_per;            /* k tiles in all, per part (the last part may have fewer) */
    int kt_seg;                      /* fp32-accurate: slices per segment; 0: not that mode */
    int epilogue;                    /* 1: staged through shared memory; else straight from the registers */
    const int *nonfinite;            /* fp32-accurate: the split saw an Inf or NaN (then the cross products read hc) */
    int *counters;                   /* split K: finished parts per tile (NULL: the separate sum kernel) */
    int members, a3, b3;             /* a strided batch (1 member for a single call; K is not split then); a3 / b3:
                                        the map of a / b has the members as its third dimension */
    int64_t stride_c;                /* C's elements from one member to the next */
} gemm__cuda_wgmma_work;

/* Unit u: its member, tile (bm, bn), K part, first k tile and how many. */
__device__ __forceinline__ void gemm__cuda_wgmma_unit(const gemm__cuda_wgmma_work &w, int u, int &member, int &bm,
                                                      int &bn, int &part, int &kt0, int &nkt)
{
    int per_member = w.units / w.members;
    member = u / per_member;
    u -= member * per_member;
    int tile = u % w.tiles, g = w.group > 0 ? w.group : -w.group;
    int major = w.group > 0 ? w.tm : w.tn, minor = w.group > 0 ? w.tn : w.tm; /* grouped dimension, the other */
    int per = g * minor, first = tile / per * g, size = min(major - first, g), r = tile % per;
    int gi = first + r % size, oi = r / size;
    bm = w.group > 0 ? gi : oi;
    bn = w.group > 0 ? oi : gi;
    part = u / w.tiles;
    kt0 = part * w.kt_per;
    nkt = min(w.kt_per, w.kt_total - kt0);
}

/* Where k tile `kt` is in a's and b's tensor maps: the element k index
   (k-major maps), or in the fp32-accurate mode the slice planes. */
__device__ __forceinline__ void gemm__cuda_wgmma_k(const gemm__cuda_wgmma_work &w, int kt, int BK, int nonfinite,
                                                   int &ka, int &kb)
{
    if (w.kt_seg == 0) {
        ka = kb = kt * BK;
        return;
    }
    int s = kt / w.kt_seg, q = kt % w.kt_seg; /* segments: lo*hi, hi*lo, hi*hi */
    int ra = s == 0 ? 1 : s == 1 && nonfinite ? 2 : 0, rb = s == 1 ? 1 : s == 0 && nonfinite ? 2 : 0;
    ka = ra * w.kt_seg + q;
    kb = rb * w.kt_seg + q;
}

/* C[0..3] (4 consecutive rows of one column) = alpha*v + beta*C, never
   reading C when beta == 0; one vector access when `vec` (aligned) and all
   4 rows exist, else element by element up to `left` rows. */
template <typename TC>
__device__ __forceinline__ void gemm__cuda_store4(TC *c, float4 v, int left, float alpha, float beta, bool vec)
{
    struct alignas(4 * sizeof(TC)) four { TC x[4]; };
    const float x[4] = {v.x, v.y, v.z, v.w};
    if (vec && left >= 4) {
        four o;
        if (beta != 0.0f) o = *reinterpret_cast<const four *>(c);
#pragma unroll
        for (int e = 0; e < 4; e++) o.x[e] = TC(beta == 0.0f ? alpha * x[e] : alpha * x[e] + beta * float(o.x[e]));
        *reinterpret_cast<four *>(c) = o;
    } else {
        for (int e = 0; e < 4 && e < left; e++) gemm__cuda_store(c + e, x[e], alpha, beta, 0);
    }
}

/* C[0..1] (2 consecutive rows of one column, aligned) = alpha*(x, y) + beta*C
   in one access, never reading C when beta == 0. */
template <typename TC>
__device__ __forceinline__ void gemm__cuda_store2(TC *c, float x, float y, float alpha, float beta)
{
    struct alignas(2 * sizeof(TC)) two { TC x[2]; };
    two o;
    if (beta != 0.0f) o = *reinterpret_cast<const two *>(c);
    o.x[0] = TC(beta == 0.0f ? alpha * x : alpha * x + beta * float(o.x[0]));
    o.x[1] = TC(beta == 0.0f ? alpha * y : alpha * y + beta * float(o.x[1]));
    *reinterpret_cast<two *>(c) = o;
}

/* The direct epilogue of one consumer warp, when its 16 columns of C (n0
   ..) x S::BM rows (m0 ..) lie inside C and C's alignment allows pairs:
   alpha*d + beta*C, a pair of rows per store (register i of lane 4g + t
   holds row m0 + 8*(i/4) + 2t + i%2 of column n0 + g + 8*((i%4)/2)), never
   reading C when beta == 0. Returns false, writing nothing, otherwise (the
   caller takes the staged epilogue, which checks every element). */
template <typename S, typename TC>
__device__ __forceinline__ bool gemm__cuda_wgmma_store(const float (&d)[S::ACC], int M, int N, int m0, int n0,
                                                       float alpha, float beta, TC *C, int64_t ldc)
{
    int lane = (int)threadIdx.x % 32;
    if (m0 + S::BM > M || n0 + 16 > N || (uintptr_t)C % (2 * sizeof(TC)) != 0 || ldc % 2 != 0) return false;
    TC *c = C + m0 + 2 * (lane % 4) + (int64_t)(n0 + lane / 4) * ldc;
    int64_t ld8 = 8 * ldc;
    if (beta == 0.0f) {
#pragma unroll
        for (int i = 0; i < S::ACC; i += 2)
            gemm__cuda_store2(c + 8 * (i / 4) + ((i % 4) / 2) * ld8, d[i], d[i + 1], alpha, 0.0f);
    } else {
#pragma unroll
        for (int i = 0; i < S::ACC; i += 2)
            gemm__cuda_store2(c + 8 * (i / 4) + ((i % 4) / 2) * ld8, d[i], d[i + 1], alpha, beta);
    }
    return true;
}

/* The staged epilogue of one consumer warp (the same elements): EPI_M rows
   at a time through its buffer `buf`, the float2 pairs of the accumulators
   in, then float4 runs along the rows out, so a quarter-warp writes EPI_M
   contiguous elements of one column. */
template <typename S, typename TC>
__device__ __forceinline__ void gemm__cuda_wgmma_epilogue(const float (&d)[S::ACC], float *buf, int M, int N, int m0,
                                                          int n0, float alpha, float beta, TC *C, int64_t ldc)
{
    constexpr int REGS = S::EPI_M / 2, LANES_PER_COL = S::EPI_M / 4, COLS_PER_PASS = 32 / LANES_PER_COL;
    int lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    bool vec = (uintptr_t)C % (4 * sizeof(TC)) == 0 && ldc % 4 == 0;
#pragma unroll
    for (int c = 0; c < S::BM / S::EPI_M; c++) {
#pragma unroll
        for (int j = 0; j < REGS; j += 2) {
            int i = c * REGS + j;
            *reinterpret_cast<float2 *>(&buf[(g + 8 * ((i % 4) / 2)) * S::EPI_LD + 8 * (j / 4) + 2 * t]) =
                make_float2(d[i], d[i + 1]);
        }
        __syncwarp();
        for (int col = lane / LANES_PER_COL; col < 16; col += COLS_PER_PASS) {
            int ml = lane % LANES_PER_COL * 4, m = m0 + c * S::EPI_M + ml, n = n0 + col;
            if (n < N && m < M)
                gemm__cuda_store4(&C[m + (int64_t)n * ldc], *reinterpret_cast<const float4 *>(&buf[col * S::EPI_LD + ml]),
                                  M - m, alpha, beta, vec);
        }
        __syncwarp();
    }
}

/* One unit of a split K, in the kernel: the warp writes its raw sums into
   partial[part] (M x N, column-major); once all 256 consumer threads have,
   one of them counts the part done for the tile, and the consumers of the
   part that finished last add every part's sums in part order and write
   C, each lane a row of the warp's 16 columns at a time. Every run gives
   the same bits whichever part is last (the order of the sum kernel, too).
   `last`: a shared-memory word of the block; `buf`: the warp's buffer. */
template <typename S, typename TC>
__device__ __forceinline__ void gemm__cuda_wgmma_fixup(const float (&d)[S::ACC], float *buf,
                                                       const gemm__cuda_wgmma_work &w, int part, int tile, int *last,
                                                       int M, int N, int m0, int n0, float alpha, float beta, TC *C,
                                                       int64_t ldc, float *partial)
{
    int split = w.units / (w.tiles * w.members), lane = (int)threadIdx.x % 32;
    int64_t MN = (int64_t)M * N;
    float *mine = partial + part * MN;
    if (!gemm__cuda_wgmma_store<S>(d, M, N, m0, n0, 1.0f, 0.0f, mine, (int64_t)M))
        gemm__cuda_wgmma_epilogue<S>(d, buf, M, N, m0, n0, 1.0f, 0.0f, mine, (int64_t)M);
    __threadfence(); /* the sums are visible to the other blocks before the count */
    gemm__cuda_bar_sync<256>(1);
    if (threadIdx.x == 0) *last = atomicAdd(&w.counters[tile], 1) == split - 1;
    gemm__cuda_bar_sync<256>(1);
    if (!*last) return;
    __threadfence(); /* the other parts' sums are seen after their counts */
    for (int col = 0; col < 16 && n0 + col < N; col++)
        for (int m = m0 + lane; m < m0 + S::BM && m < M; m += 32) {
            const float *p = partial + m + (int64_t)(n0 + col) * M;
            float sum = 0.0f;
            for (int z = 0; z < split; z++) sum += __ldcg(p + z * MN);
            gemm__cuda_store(C + m + (int64_t)(n0 + col) * ldc, sum, alpha, beta, 0);
        }
}

/* One stage of the K loop: D += this stage's K slice (BK elements, wgmma
   steps of KS). wgmma's A: this warpgroup's 64 rows of op(B)^T; its B: all
   BM rows of op(A). */
template <typename S, typename T, bool A_MN, bool B_MN>
__device__ __forceinline__ void gemm__cuda_wgmma_stage(float (&d)[S::ACC], const unsigned char *stage, int wg)
{
    constexpr int BK = S::ROW_BYTES / (int)sizeof(T), KS = sizeof(T) == 2 ? 16 : 8;
    uint64_t da = B_MN ? gemm__cuda_wgmma_desc_mn(stage + S::A_BYTES + wg * S::MN_CHUNK_BYTES)
                       : gemm__cuda_wgmma_desc(stage + S::A_BYTES + wg * 64 * S::ROW_BYTES),
             db = A_MN ? gemm__cuda_wgmma_desc_mn(stage) : gemm__cuda_wgmma_desc(stage);
    gemm__cuda_wgmma_arrive();
#pragma unroll
    for (int q = 0; q < BK / KS; q++) /* the next KS elements of K: KS rows on (MN-major), or 32 bytes */
        gemm__cuda_wgmma<T, B_MN, A_MN, S::BM>(
            d, da + (uint64_t)(B_MN ? q * KS * S::ROW_BYTES / 16 : q * KS * (int)sizeof(T) / 16),
            db + (uint64_t)(A_MN ? q * KS * S::ROW_BYTES / 16 : q * KS * (int)sizeof(T) / 16));
    gemm__cuda_wgmma_commit();
}

/* The fp32-accurate mode's hi*hi stage (BM = 256, TF32): the tensor cores
   add to their fp32 sum with truncation, so a long K loses about K/16 units
   in the last place of the result; instead each half of the tile (128
   rows) sums this stage's 32 products in `run`, from zero, and the
   consumer adds that into d with an ordinary (rounding) fp32 add. d keeps
   the layout of the m64n256 accumulator: half h is d[64h ..]. Waits for
   every wgmma this warpgroup issued, so the stage is free afterwards. */
template <typename S>
__device__ __forceinline__ void gemm__cuda_wgmma_stage_promoted(float (&d)[S::ACC], float (&run)[64],
                                                                const unsigned char *stage, int wg)
{
    static_assert(S::BM == 256, "the promoted stage splits a 256-row tile");
    uint64_t da = gemm__cuda_wgmma_desc(stage + S::A_BYTES + wg * 64 * S::ROW_BYTES), db = gemm__cuda_wgmma_desc(stage);
#pragma unroll
    for (int h = 0; h < 2; h++) {
        gemm__cuda_wgmma_arrive();
#pragma unroll
        for (int q = 0; q < 4; q++) /* 8 fp32 of K: 32 bytes; rows 128h.. of op(A): 128h * 128 bytes on */
            gemm__cuda_wgmma_m64n128_tf32(run, da + (uint64_t)(q * 2), db + (uint64_t)(h * 128 * 128 / 16 + q * 2), q);
        gemm__cuda_wgmma_commit();
        gemm__cuda_wgmma_wait<0>();
        gemm__cuda_wgmma_fence_acc(run);
        gemm__cuda_wgmma_fence_acc(d);
#pragma unroll
        for (int i = 0; i < 64; i++) d[64 * h + i] += run[i];
    }
}

/* map_a: op(A) as a k-major M x K tensor (A_MN: as stored, M-major: a K x M
   tensor read in boxes of 64 rows of M); map_b: op(B)^T as a k-major N x K
   tensor (B_MN, 16-bit only: N-major, wgmma's transposed A). ACCURATE
   (fp32, BM = 256): both are 3-D maps of the split's slice planes, and the
   hi*hi segment's stages are summed in short runs (above). The blocks walk
   the units of `w`; a unit of a split K goes through `partial` (above). */
template <typename T, typename TC, bool A_MN, bool B_MN, int BM, bool ACCURATE>
__global__ void GEMM__CUDA_WGMMA_BOUNDS(gemm__cuda_wgmma_shape<BM>)
gemm__cuda_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                        const gemm__cuda_wgmma_work w, int M, int N, float alpha, float beta, TC *C, int64_t ldc,
                        float *partial)
{
#if GEMM__CUDA_SM90A
    typedef gemm__cuda_wgmma_shape<BM> S;
    constexpr int BK = S::ROW_BYTES / (int)sizeof(T);
    static_assert(!ACCURATE || (BM == 256 && std::is_same<T, float>::value && !A_MN && !B_MN), "fp32-accurate");
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    /* the 128-byte swizzle repeats every 1024 bytes: tiles start on such a boundary */
    unsigned char *smem = gemm__cuda_smem + ((1024 - gemm__cuda_smem_addr(gemm__cuda_smem) % 1024) % 1024);
    float *epi = reinterpret_cast<float *>(smem + S::STAGES * S::STAGE_BYTES);
    uint64_t *full = reinterpret_cast<uint64_t *>(smem + S::STAGES * S::STAGE_BYTES + S::EPI_BYTES),
             *empty = full + S::STAGES;
    int *last = reinterpret_cast<int *>(empty + S::STAGES);
    int wg = (int)threadIdx.x / 128, warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32; /* wg 0, 1: consumers */
    if (threadIdx.x == 0) {
        for (int s = 0; s < S::STAGES; s++) {
            gemm__cuda_mbar_init(&full[s], 1);
            gemm__cuda_mbar_init(&empty[s], 8); /* one arrival per consumer warp */
        }
        gemm__cuda_fence_mbar_init();
        gemm__cuda_fence_proxy_async();
    }
    __syncthreads();

    if (wg == 2) { /* producer: few registers, one thread */
        if constexpr (S::THREADS == 384) gemm__cuda_setmaxnreg_dec<S::REGS_PRODUCER>();
        if (threadIdx.x == 256) {
            int nonfinite = w.nonfinite ? *w.nonfinite : 0, it = 0;
            for (int u = (int)blockIdx.x; u < w.units; u += (int)gridDim.x) {
                int member, bm, bn, part, kt0, nkt;
                gemm__cuda_wgmma_unit(w, u, member, bm, bn, part, kt0, nkt);
                int za = w.a3 ? member : -1, zb = w.b3 ? member : -1;
                for (int kt = 0; kt < nkt; kt++, it++) {
                    int s = it % S::STAGES, ka, kb;
                    if (it >= S::STAGES) gemm__cuda_mbar_wait(&empty[s], (unsigned)(it / S::STAGES - 1) & 1);
                    unsigned char *stage = smem + s * S::STAGE_BYTES;
                    gemm__cuda_wgmma_k(w, kt0 + kt, BK, nonfinite, ka, kb);
                    gemm__cuda_mbar_expect(&full[s], S::STAGE_BYTES);
                    if constexpr (ACCURATE) {
                        gemm__cuda_tma_load3(stage, &map_a, 0, bm * S::BM, ka, &full[s]);
                        gemm__cuda_tma_load3(stage + S::A_BYTES, &map_b, 0, bn * S::BN, kb, &full[s]);
                        continue;
                    }
                    if (A_MN)
                        for (int j = 0; j < S::BM / 64; j++)
                            gemm__cuda_tma_load_z(stage + j * S::MN_CHUNK_BYTES, &map_a, bm * S::BM + 64 * j, ka, za,
                                                  &full[s]);
                    else
                        gemm__cuda_tma_load_z(stage, &map_a, ka, bm * S::BM, za, &full[s]);
                    if (B_MN)
                        for (int j = 0; j < S::BN / 64; j++)
                            gemm__cuda_tma_load_z(stage + S::A_BYTES + j * S::MN_CHUNK_BYTES, &map_b,
                                                  bn * S::BN + 64 * j, kb, zb, &full[s]);
                    else
                        gemm__cuda_tma_load_z(stage + S::A_BYTES, &map_b, kb, bn * S::BN, zb, &full[s]);
                }
            }
        }
    } else { /* consumers */
        if constexpr (S::THREADS == 384) gemm__cuda_setmaxnreg_inc<S::REGS_CONSUMER>();
        float *buf = epi + warp * 16 * S::EPI_LD;
        int it = 0;
        for (int u = (int)blockIdx.x; u < w.units; u += (int)gridDim.x) {
            int member, bm, bn, part, kt0, nkt, pending = -1; /* the stage whose wgmma may still run, not yet given back */
            gemm__cuda_wgmma_unit(w, u, member, bm, bn, part, kt0, nkt);
            float d[S::ACC];
#pragma unroll
            for (int i = 0; i < S::ACC; i++) d[i] = 0.0f;
            gemm__cuda_wgmma_fence_acc(d);
            /* the accurate mode's hi*hi stages (from k tile `promoted` of the unit on) come last */
            int promoted = ACCURATE ? min(nkt, max(0, 2 * w.kt_seg - kt0)) : nkt, kt = 0;
            for (; kt < promoted; kt++, it++) {
                int s = it % S::STAGES;
                gemm__cuda_mbar_wait(&full[s], (unsigned)(it / S::STAGES) & 1);
                gemm__cuda_wgmma_stage<S, T, A_MN, B_MN>(d, smem + s * S::STAGE_BYTES, wg);
                /* the previous stage's group is done once at most this one is pending */
                gemm__cuda_wgmma_wait<1>();
                gemm__cuda_wgmma_fence_acc(d);
                if (pending >= 0 && lane == 0) gemm__cuda_mbar_arrive(&empty[pending]);
                pending = s;
                __syncwarp();
            }
            gemm__cuda_wgmma_wait<0>();
            gemm__cuda_wgmma_fence_acc(d);
            if (pending >= 0 && lane == 0) gemm__cuda_mbar_arrive(&empty[pending]);
            __syncwarp();
            if constexpr (ACCURATE) {
                for (; kt < nkt; kt++, it++) { /* hi*hi: short sums, each stage done before the next */
                    int s = it % S::STAGES;
                    float sums[64];
                    gemm__cuda_mbar_wait(&full[s], (unsigned)(it / S::STAGES) & 1);
                    gemm__cuda_wgmma_stage_promoted<S>(d, sums, smem + s * S::STAGE_BYTES, wg);
                    if (lane == 0) gemm__cuda_mbar_arrive(&empty[s]);
                    __syncwarp();
                }
            }
            /* meanwhile the producer fills the freed stages with the next unit's slices */
            int m0 = bm * S::BM, n0 = bn * S::BN + wg * 64 + (warp % 4) * 16;
            TC *Cm = C + member * w.stride_c;
            if (w.units != w.tiles * w.members && w.counters) { /* K split, summed here */
                gemm__cuda_wgmma_fixup<S>(d, buf, w, part, u % w.tiles, last, M, N, m0, n0, alpha, beta, C, ldc,
                                          partial);
            } else if (w.units != w.tiles * w.members) { /* K split: raw sums for the sum kernel */
                float *sums = partial + (int64_t)part * M * N;
                if (w.epilogue == 1 || !gemm__cuda_wgmma_store<S>(d, M, N, m0, n0, 1.0f, 0.0f, sums, (int64_t)M))
                    gemm__cuda_wgmma_epilogue<S>(d, buf, M, N, m0, n0, 1.0f, 0.0f, sums, (int64_t)M);
            } else if (w.epilogue == 1 || !gemm__cuda_wgmma_store<S>(d, M, N, m0, n0, alpha, beta, Cm, ldc)) {
                gemm__cuda_wgmma_epilogue<S>(d, buf, M, N, m0, n0, alpha, beta, Cm, ldc);
            }
        }
    }
#else
    (void)map_a; (void)map_b; (void)w; (void)M; (void)N; (void)alpha; (void)beta; (void)C; (void)ldc; (void)partial;
#endif
}
/* <<cuda wgmma */
/* >>cuda split: src/cuda/split.cuh */
/* The fp32-accurate mode's operand split (GEMM_CUDA_MATH_FP32_ACCURATE,
   "3xTF32"): each fp32 operand x becomes hi + lo, hi = x rounded to TF32
   (to nearest even; 11 significant bits), lo = x - hi (exact in fp32)
   rounded to TF32 again, so hi + lo carries about 22 of x's 24 bits. The
   tensor cores then sum lo*hi + hi*lo + hi*hi (lo*lo, below 2^-22 of the
   product, is dropped), the small products first, so that their sums stay
   small beside the truncation of the tensor cores' fp32 adds; the hi*hi
   sums are then taken 32 products at a time and added up with rounding
   fp32 adds (wgmma.cuh, mma.cuh).

   The split is a pass before the GEMM that writes three regions of K
   (rounded up to ldo, a multiple of 32, zeros past K) per row: the kind of
   each region is chosen per call (hi, lo, or "hc": hi with every Inf and
   NaN replaced by 0). For WGMMA the regions are "sliced": region j's
   32-element slice q of all rows is one plane, row after row (plane
   j*ldo/32 + q, rows x 128 bytes), so that each copy of a tile is one
   contiguous run of memory; for MMA each row holds its three regions one
   after another (ldout = 3*ldo). Why hc: an Inf in x makes hi = Inf and
   lo = 0, and an Inf in a cross product Inf*lo_y turns into NaN whenever
   lo_y is 0 (y exact in TF32), or Inf - Inf when hi_y and lo_y differ in
   sign, where fp32 gives Inf. With hc in the cross products the Inf or NaN
   enters only through hi*hi, as it does through x*y. */

/* x rounded to TF32 (the low 13 mantissa bits zero), to nearest even; a
   finite x that would round up past FLT_MAX is truncated instead. Inf and
   NaN come back unchanged. */
__device__ __forceinline__ float gemm__cuda_tf32_round(float x)
{
    uint32_t u = __float_as_uint(x), r;
    if ((u & 0x7f800000u) == 0x7f800000u) return x; /* Inf, NaN */
    r = (u + 0x0fffu + ((u >> 13) & 1u)) & 0xffffe000u;
    if ((r & 0x7f800000u) == 0x7f800000u) r = u & 0xffffe000u; /* rounding overflowed */
    return __uint_as_float(r);
}

/* The three kinds of region; a pattern packs one kind per region, 2 bits
   each, region 0 lowest. */
enum { GEMM__CUDA_HI = 0, GEMM__CUDA_LO = 1, GEMM__CUDA_HC = 2 };
#define GEMM__CUDA_PATTERN(r0, r1, r2) ((r0) | (r1) << 2 | (r2) << 4)

/* Where a split goes: `rows` rows of `regions` regions of ldo elements,
   sliced (WGMMA) or one row after another, ldout apart (MMA); the kind of
   each region; the flag set when an Inf or NaN was seen. */
typedef struct gemm__cuda_split_dst {
    float *out;
    int64_t ldout;
    int rows, ldo, sliced, pattern, regions;
    int *nonfinite;
} gemm__cuda_split_dst;

/* The index of element q (a multiple of 4 gives 16-byte alignment) of
   region j of row r. */
__device__ __forceinline__ int64_t gemm__cuda_split_at(const gemm__cuda_split_dst &o, int r, int j, int q)
{
    if (o.sliced) return (((int64_t)j * (o.ldo / 32) + q / 32) * o.rows + r) * 32 + (q & 31);
    return (int64_t)r * o.ldout + (int64_t)j * o.ldo + q;
}

/* The kind `kind` of x, given hi and lo. */
__device__ __forceinline__ float gemm__cuda_split_kind(int kind, float x, float hi, float lo)
{
    return kind == GEMM__CUDA_HI ? hi : kind == GEMM__CUDA_LO ? lo : isfinite(x) ? hi : 0.0f;
}

/* hi and lo of x; flags an Inf or NaN. */
__device__ __forceinline__ void gemm__cuda_split_one(float x, float &hi, float &lo, int *nonfinite)
{
    hi = gemm__cuda_tf32_round(x);
    lo = 0.0f;
    if (isfinite(x)) lo = gemm__cuda_tf32_round(x - hi);
    else *nonfinite = 1; /* benign race: every writer stores 1 */
}

/* X(r, q) of a rows x K k-major operand (q contiguous) -> the regions of
   row r. Each thread takes 4 consecutive q, with one 16-byte load where X
   allows it and one 16-byte store per region; q in [K, ldo) becomes 0. */
__global__ void __launch_bounds__(256) gemm__cuda_split_rows_kernel(int K, const float *X, int64_t ld,
                                                                    gemm__cuda_split_dst o)
{
    bool vec = (uintptr_t)X % 16 == 0 && ld % 4 == 0;
    int64_t per_row = o.ldo / 4, total = (int64_t)o.rows * per_row;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int r = (int)(e / per_row), q = (int)(e % per_row) * 4;
        const float *src = X + (int64_t)r * ld + q;
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f}, hi[4], lo[4];
        if (vec && q + 4 <= K) {
            float4 f = *reinterpret_cast<const float4 *>(src);
            v[0] = f.x; v[1] = f.y; v[2] = f.z; v[3] = f.w;
        } else {
            for (int j = 0; j < 4 && q + j < K; j++) v[j] = src[j];
        }
#pragma unroll
        for (int j = 0; j < 4; j++) gemm__cuda_split_one(v[j], hi[j], lo[j], o.nonfinite);
        for (int j = 0; j < o.regions; j++) {
            int kind = o.pattern >> (2 * j) & 3;
            *reinterpret_cast<float4 *>(o.out + gemm__cuda_split_at(o, r, j, q)) =
                make_float4(gemm__cuda_split_kind(kind, v[0], hi[0], lo[0]), gemm__cuda_split_kind(kind, v[1], hi[1], lo[1]),
                            gemm__cuda_split_kind(kind, v[2], hi[2], lo[2]), gemm__cuda_split_kind(kind, v[3], hi[3], lo[3]));
        }
    }
}

/* The same for an operand that is not k-major (X(r, q) at X[q*ld + r]):
   32x32 tiles through shared memory, so that reads run along r and writes
   along q, both contiguous. Grid: ldo/32 x rows/32 blocks of 32x8. */
__global__ void __launch_bounds__(256) gemm__cuda_split_cols_kernel(int K, const float *X, int64_t ld,
                                                                    gemm__cuda_split_dst o)
{
    __shared__ float tile[32][33]; /* [q][r] */
    int r0 = (int)blockIdx.y * 32, q0 = (int)blockIdx.x * 32, tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    for (int i = ty; i < 32; i += 8)
        tile[i][tx] = r0 + tx < o.rows && q0 + i < K ? X[(int64_t)(q0 + i) * ld + r0 + tx] : 0.0f;
    __syncthreads();
    for (int i = ty; i < 32 && r0 + i < o.rows; i += 8) {
        float x = tile[tx][i], hi, lo;
        gemm__cuda_split_one(x, hi, lo, o.nonfinite);
        for (int j = 0; j < o.regions; j++)
            o.out[gemm__cuda_split_at(o, r0 + i, j, q0 + tx)] = gemm__cuda_split_kind(o.pattern >> (2 * j) & 3, x, hi, lo);
    }
}

/* Region 2 = hc of region 0 (hi) of both operands' sliced splits (each
   rows x ldo elements per region), only when the split saw an Inf or a NaN
   (*nonfinite); otherwise every thread returns at once and region 2 is
   never read. */
__global__ void __launch_bounds__(256) gemm__cuda_split_hc_kernel(int64_t elems_a, int64_t elems_b, float *a, float *b,
                                                                  const int *nonfinite)
{
    if (!*nonfinite) return;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < elems_a + elems_b;
         e += (int64_t)gridDim.x * blockDim.x) {
        float *region0 = e < elems_a ? a + e : b + (e - elems_a);
        int64_t per = e < elems_a ? elems_a : elems_b;
        float hi = *region0;
        region0[2 * per] = isfinite(hi) ? hi : 0.0f;
    }
}
/* <<cuda split */
/* >>cuda copy: src/cuda/copy.cuh */
/* Operand copies for the tensor-core kernels, which read A and B k-major
   (each row of op(A), each column of op(B) contiguous) from 16-byte aligned
   rows; WGMMA also reads a 16-bit op(A) M-major (wgmma transposes 16-bit
   operands itself; TF32 it does not). Any other operand is first copied
   into k-major form by one of these kernels, into a stream-ordered scratch
   buffer. */

/* X(r, q) of a rows x K operand (q the k index) -> out[r*ldo + q]. 32x32
   tiles through shared memory so that both the read and the write run
   along contiguous memory whichever way X is stored. */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_pack_kernel(int rows, int K, const T *X, int64_t ld, int kmajor,
                                                              T *out, int64_t ldo, gemm__cuda_batch_copy bc)
{
    __shared__ T tile[32][33];
    X = gemm__cuda_copy_member(bc, X, out);
    int r0 = (int)blockIdx.y * 32, q0 = (int)blockIdx.x * 32, tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    for (int i = ty; i < 32; i += 8) {
        int r = r0 + (kmajor ? i : tx), q = q0 + (kmajor ? tx : i);
        if (r < rows && q < K) {
            T v = kmajor ? X[(int64_t)r * ld + q] : X[(int64_t)q * ld + r];
            if (kmajor) tile[i][tx] = v;
            else tile[tx][i] = v;
        }
    }
    __syncthreads();
    for (int i = ty; i < 32; i += 8)
        if (r0 + i < rows && q0 + tx < K) out[(int64_t)(r0 + i) * ldo + q0 + tx] = tile[i][tx];
}

/* The usual case of the copy above with 16-byte accesses: X not k-major,
   its rows (along r) 16-byte aligned. 64x64 tiles; 16-byte loads along r,
   16-byte stores along q; a warp moves whole 128-byte lines both ways.
   Shared-memory rows of 65 elements keep the column reads of the store
   phase on distinct banks (2-way for fp32). */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_transpose_kernel(int rows, int K, const T *X, int64_t ld, T *out,
                                                                   int64_t ldo, gemm__cuda_batch_copy bc)
{
    constexpr int V = 16 / (int)sizeof(T), PER = 64 / V; /* elements per vector, vectors per tile row */
    struct alignas(16) vec { T x[V]; };
    __shared__ T tile[64][65]; /* [q][r] */
    X = gemm__cuda_copy_member(bc, X, out);
    int r0 = (int)blockIdx.y * 64, q0 = (int)blockIdx.x * 64;
    for (int e = (int)threadIdx.x; e < 64 * PER; e += 256) {
        int q = e / PER, r = e % PER * V;
        if (q0 + q >= K) continue;
        const T *src = X + (int64_t)(q0 + q) * ld + r0 + r;
        if (r0 + r + V <= rows) {
            vec v = *reinterpret_cast<const vec *>(src);
#pragma unroll
            for (int j = 0; j < V; j++) tile[q][r + j] = v.x[j];
        } else {
            for (int j = 0; j < V && r0 + r + j < rows; j++) tile[q][r + j] = src[j];
        }
    }
    __syncthreads();
    for (int e = (int)threadIdx.x; e < 64 * PER; e += 256) {
        int r = e / PER, q = e % PER * V;
        vec v;
        if (r0 + r >= rows || q0 + q >= K) continue; /* rows of `out` are padded to whole vectors */
#pragma unroll
        for (int j = 0; j < V; j++) v.x[j] = tile[q + j][r];
        *reinterpret_cast<vec *>(out + (int64_t)(r0 + r) * ldo + q0 + q) = v;
    }
}
/* <<cuda copy */
/* >>cuda splitk: src/cuda/splitk.cuh */
/* Split-K's deterministic reduction (the WGMMA kernel's): each K part
   wrote its raw fp32 sums into partial[z] (M x N, column-major); one pass
   adds them in a fixed order, so every run gives the same bits. (The exact
   kernels split K with atomics into C instead, after C = beta*C.) */

/* C = alpha * (the sum of the split parts, in order) + beta*C. */
template <typename TC>
__global__ void gemm__cuda_splitk_sum_kernel(int M, int N, int split, const float *partial, float alpha, float beta,
                                             TC *C, int64_t ldc)
{
    int64_t total = (int64_t)M * N;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int z = 0; z < split; z++) sum += partial[z * total + e];
        gemm__cuda_store(&C[e % M + (e / M) * ldc], sum, alpha, beta, 0);
    }
}
/* <<cuda splitk */
/* >>cuda dmma_tma: src/cuda/dmma_tma.cuh */
/* DMMA on Hopper (sm_90a): fp64 on the FP64 tensor cores, warp-specialised
   and persistent. The last warpgroup produces: one thread has the copy
   engine (TMA) bring each K tile of both operands, 128-byte swizzled, into
   a ring of STAGES on mbarriers; the other warpgroups consume, each warp a
   64 x 32 tile of C in m16n8k16 MMAs (dmma_frag.cuh's fragments: 16-byte
   loads, no bank conflicts). setmaxnreg moves the producer's registers to
   the consumers. The grid is at most one block per SM slot; each block
   walks the work units (tile of C, K part) u = blockIdx.x + i * gridDim.x,
   in groups of 8 tile-rows (blocks running together share panels of A and
   B in L2), and the producer fills the next unit's stages while the
   consumers write C. A strided batch adds its members to the units (the
   member outermost) and reads them through 3-D tensor maps. The copy engine zero-fills past every edge, so the
   consumers never test bounds until the epilogue. */

/* D += A * B for a 16x8 tile and K = 16 (two steps of 8 in one instruction). */
__device__ __forceinline__ void gemm__cuda_dmma_m16n8k16(double (&d)[4], const double (&a0)[4], const double (&a1)[4],
                                                         const double (&b0)[2], const double (&b1)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a0[0]), "d"(a0[1]), "d"(a0[2]), "d"(a0[3]), "d"(a1[0]), "d"(a1[1]), "d"(a1[2]), "d"(a1[3]),
                   "d"(b0[0]), "d"(b0[1]), "d"(b1[0]), "d"(b1[1]));
#else
    (void)d; (void)a0; (void)a1; (void)b0; (void)b1;
#endif
}

/* D += A * B for a 16x8 tile and K = 8 (one step). */
__device__ __forceinline__ void gemm__cuda_dmma_m16n8k8(double (&d)[4], const double (&a)[4], const double (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    (void)d; (void)a; (void)b;
#endif
}

/* One warp's MT x NTL MMA tiles over one 16-deep K tile: KI = 16, one
   m16n8k16 per tile (half the instructions), or KI = 8, two m16n8k8 (half
   the fragments live at once: where 16 would spill). */
template <bool XK, bool YK, int MT, int NTL, int KI>
__device__ __forceinline__ void gemm__cuda_dt_warp_tile(const double *Xs, const double *Ys,
                                                        const gemm__cuda_dt_xfrag<XK> &fx,
                                                        const gemm__cuda_dt_yfrag<YK> &fy, double (&acc)[MT][NTL][4])
{
    if constexpr (KI == 16) {
        double b[2][NTL][2];
#pragma unroll
        for (int s = 0; s < 2; s++)
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) fy.load(Ys, nt, s, b[s][nt]);
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            double a0[4], a1[4];
            fx.load(Xs, mt, 0, a0);
            fx.load(Xs, mt, 1, a1);
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) gemm__cuda_dmma_m16n8k16(acc[mt][nt], a0, a1, b[0][nt], b[1][nt]);
        }
    } else {
#pragma unroll
        for (int s = 0; s < 2; s++) {
            double b[NTL][2];
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) fy.load(Ys, nt, s, b[nt]);
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                double a[4];
                fx.load(Xs, mt, s, a);
#pragma unroll
                for (int nt = 0; nt < NTL; nt++) gemm__cuda_dmma_m16n8k8(acc[mt][nt], a, b[nt]);
            }
        }
    }
}

/* Two neighbouring rows of one column of C: one 16-byte access when C
   allows it (vec) and no atomics are asked for. */
__device__ __forceinline__ void gemm__cuda_dt_store2(double *c, double x0, double x1, int rows_left, double alpha,
                                                     double beta, int atomic, bool vec)
{
    if (vec && !atomic && rows_left >= 2) {
        double2 o;
        if (beta == 0.0) o = make_double2(alpha * x0, alpha * x1);
        else {
            double2 p = *reinterpret_cast<const double2 *>(c);
            o = make_double2(alpha * x0 + beta * p.x, alpha * x1 + beta * p.y);
        }
        *reinterpret_cast<double2 *>(c) = o;
    } else {
        gemm__cuda_store(c, x0, alpha, beta, atomic);
        if (rows_left >= 2) gemm__cuda_store(c + 1, x1, alpha, beta, atomic);
    }
}

/* Writes a warp's accumulators; x0 / y0: its first X row and Y column in
   C's terms (m and n, or n and m under SWAP); vec: C takes 16-byte stores
   (decided once per kernel, for every member). */
template <bool SWAP, bool XK, bool YK, int MT, int NTL>
__device__ __forceinline__ void gemm__cuda_dt_warp_store(const double (&acc)[MT][NTL][4], int x0, int y0, int g, int t,
                                                         int M, int N, double alpha, double beta, double *C,
                                                         int64_t ldc, int atomic, bool vec)
{
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int nt = 0; nt < NTL; nt++)
#pragma unroll
            for (int q = 0; q < 2; q++) {
                int x, y; /* acc[q] at (x, y), acc[2 + q] at (x + 1, y) */
                gemm__cuda_dt_acc_pos<XK, YK>(mt, nt, q, g, t, x, y);
                x += x0;
                y += y0;
                if (!SWAP) { /* rows x, x + 1 of column y */
                    if (x < M && y < N)
                        gemm__cuda_dt_store2(&C[x + (int64_t)y * ldc], acc[mt][nt][q], acc[mt][nt][2 + q], M - x,
                                             alpha, beta, atomic, vec);
                } else if (y < M) { /* row y of columns x, x + 1 */
                    if (x < N) gemm__cuda_store(&C[y + (int64_t)x * ldc], acc[mt][nt][q], alpha, beta, atomic);
                    if (x + 1 < N) gemm__cuda_store(&C[y + (int64_t)(x + 1) * ldc], acc[mt][nt][2 + q], alpha, beta, atomic);
                }
            }
}

/* The two block shapes: NCWG consumer warpgroups of 4 warps, BM x BN =
   128 x 64*NCWG; two consumer warpgroups run one block per SM, one runs
   two (their barrier waits and epilogues hide each other's). */
template <int NCWG> struct gemm__cuda_dt_shape {
    static constexpr int BM = 128, BN = 64 * NCWG, CONSUMERS = 128 * NCWG, THREADS = CONSUMERS + 128,
                         MINB = NCWG == 2 ? 1 : 2, STAGES = NCWG == 2 ? 5 : 4, REG_PRODUCER = NCWG == 2 ? 40 : 32,
                         REG_CONSUMER = NCWG == 2 ? 232 : 224, SA = BM * 16, SB = BN * 16, STAGE_BYTES = (SA + SB) * 8,
                         SMEM = STAGES * STAGE_BYTES + 1024 + 2 * STAGES * 8; /* + alignment slack, barriers */
    static_assert(REG_PRODUCER * 128 + REG_CONSUMER * CONSUMERS <= 65536 / MINB, "registers");
};

/* A strided batch on the TMA kernel: `members` units of work per tile
   and K part; a3 / b3: a's / b's tensor map has the members as its third
   dimension (else every member reads the same a or b: a stride of 0). */
struct gemm__cuda_dt_batch {
    int members, a3, b3;
    int64_t stride_c;
};

/* Work unit u -> its tile origin and K range: units run K part by K part,
   tiles in groups of 8 tile-rows (N tiles fastest inside a group). */
template <int BM, int BN>
__device__ __forceinline__ void gemm__cuda_dt_unit(int u, int tm, int tn, int K, int kchunk, int &m0, int &n0,
                                                   int &kbeg, int &ktiles)
{
    int tiles = tm * tn, kz = u / tiles, pid = u - kz * tiles;
    int per_group = 8 * tn, first = (pid / per_group) * 8, size = min(tm - first, 8), r = pid % per_group;
    m0 = (first + r % size) * BM;
    n0 = (r / size) * BN;
    kbeg = kz * kchunk;
    int kend = min(K, kbeg + kchunk);
    ktiles = kend > kbeg ? (kend - kbeg + 15) / 16 : 0;
}

/* The producer's thread: every K tile of every unit of this block into the
   ring, waiting for a stage to be empty before refilling it. An M-major
   tile arrives as BM/16 (BN/16) boxes of 16 x 16, a k-major one as one box. */
template <int NCWG, bool AK, bool BKM>
__device__ __forceinline__ void gemm__cuda_dt_produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                      unsigned char *ring, uint64_t *full, uint64_t *empty, int tm,
                                                      int tn, int total, int per_member, int K, int kchunk,
                                                      const gemm__cuda_dt_batch &bt)
{
    typedef gemm__cuda_dt_shape<NCWG> S;
    unsigned it = 0;
    for (int u = (int)blockIdx.x; u < total; u += (int)gridDim.x) {
        int m0, n0, kbeg, ktiles, member = u / per_member;
        gemm__cuda_dt_unit<S::BM, S::BN>(u - member * per_member, tm, tn, K, kchunk, m0, n0, kbeg, ktiles);
        int za = bt.a3 ? member : -1, zb = bt.b3 ? member : -1;
        for (int kt = 0; kt < ktiles; kt++, it++) {
            unsigned s = it % S::STAGES;
            if (it >= (unsigned)S::STAGES) gemm__cuda_mbar_wait(&empty[s], (it / S::STAGES - 1) & 1);
            double *as = reinterpret_cast<double *>(ring + s * S::STAGE_BYTES), *bs = as + S::SA;
            int k0 = kbeg + kt * 16;
            gemm__cuda_mbar_expect(&full[s], S::STAGE_BYTES);
            if (AK) {
                gemm__cuda_tma_load_z(as, map_a, k0, m0, za, &full[s]);
            } else {
#pragma unroll 1
                for (int j = 0; j < S::BM / 16; j++) gemm__cuda_tma_load_z(as + 256 * j, map_a, m0 + 16 * j, k0, za, &full[s]);
            }
            if (BKM) {
                gemm__cuda_tma_load_z(bs, map_b, k0, n0, zb, &full[s]);
            } else {
#pragma unroll 1
                for (int j = 0; j < S::BN / 16; j++) gemm__cuda_tma_load_z(bs + 256 * j, map_b, n0 + 16 * j, k0, zb, &full[s]);
            }
        }
    }
}

/* map_a / map_b: op(A) and op(B) as the copy engine reads them (k-major:
   {K, rows}, boxes of 16 k x the block's side; else {rows, K}, boxes of
   16 x 16). C column-major; with `atomic` each K part adds alpha*sum into
   C (already scaled by beta). bt: the members of a strided batch (one
   for a single call). In any build without sm_90a the body is empty and
   the host never launches it. */
template <int NCWG, bool AK, bool BKM>
__global__ void __launch_bounds__(gemm__cuda_dt_shape<NCWG>::THREADS, gemm__cuda_dt_shape<NCWG>::MINB)
gemm__cuda_dmma_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                           int tm, int tn, int split, int M, int N, int K, int kchunk, double alpha, double beta,
                           double *C, int64_t ldc, int atomic, gemm__cuda_dt_batch bt)
{
#if GEMM__CUDA_SM90A
    typedef gemm__cuda_dt_shape<NCWG> S;
    typedef gemm__cuda_dt_roles<AK, BKM> R;
    typedef gemm__cuda_dt_warps<S::BM, S::BN, AK, BKM> W;
    static_assert(W::WARPS * 32 == S::CONSUMERS, "consumer warps");
    constexpr int KI = NCWG == 2 && !R::XK ? 16 : 8; /* 16 would spill in the others */
    extern __shared__ __align__(1024) unsigned char gemm__cuda_dt_smem[];
    /* the 128-byte swizzle repeats every 1024 bytes: the ring starts on such a boundary */
    unsigned char *ring = gemm__cuda_dt_smem + ((1024 - gemm__cuda_smem_addr(gemm__cuda_dt_smem) % 1024) % 1024);
    uint64_t *full = reinterpret_cast<uint64_t *>(ring + S::STAGES * S::STAGE_BYTES), *empty = full + S::STAGES;
    int per_member = tm * tn * split, total = per_member * bt.members;
    if (threadIdx.x == 0) {
        for (int s = 0; s < S::STAGES; s++) {
            gemm__cuda_mbar_init(&full[s], 1);               /* the producer's expect_tx; the bytes complete it */
            gemm__cuda_mbar_init(&empty[s], S::CONSUMERS);   /* every consumer thread is done reading */
        }
        gemm__cuda_fence_mbar_init();
        gemm__cuda_fence_proxy_async();
    }
    __syncthreads();

    if ((int)threadIdx.x >= S::CONSUMERS) {
        gemm__cuda_setmaxnreg_dec<S::REG_PRODUCER>();
        if ((int)threadIdx.x == S::CONSUMERS)
            gemm__cuda_dt_produce<NCWG, AK, BKM>(&map_a, &map_b, ring, full, empty, tm, tn, total, per_member, K,
                                                 kchunk, bt);
        return;
    }
    gemm__cuda_setmaxnreg_inc<S::REG_CONSUMER>();
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wx = (warp % W::WARPS_X) * W::WX, wy = (warp / W::WARPS_X) * W::WY;
    const gemm__cuda_dt_xfrag<R::XK> fx(wx, g, t);
    const gemm__cuda_dt_yfrag<R::YK> fy(wy, g, t);
    const bool vec = ((uintptr_t)C & 15) == 0 && (ldc & 1) == 0 && (bt.stride_c & 1) == 0;
    unsigned it = 0;
    for (int u = (int)blockIdx.x; u < total; u += (int)gridDim.x) {
        int m0, n0, kbeg, ktiles, member = u / per_member;
        gemm__cuda_dt_unit<S::BM, S::BN>(u - member * per_member, tm, tn, K, kchunk, m0, n0, kbeg, ktiles);
        double acc[W::MT][W::NTL][4];
#pragma unroll
        for (int i = 0; i < W::MT; i++)
#pragma unroll
            for (int j = 0; j < W::NTL; j++)
#pragma unroll
                for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;
        for (int kt = 0; kt < ktiles; kt++, it++) {
            unsigned s = it % S::STAGES;
            gemm__cuda_mbar_wait(&full[s], (it / S::STAGES) & 1);
            const double *as = reinterpret_cast<const double *>(ring + s * S::STAGE_BYTES), *bs = as + S::SA;
            gemm__cuda_dt_warp_tile<R::XK, R::YK, W::MT, W::NTL, KI>(R::SWAP ? bs : as, R::SWAP ? as : bs, fx, fy, acc);
            gemm__cuda_mbar_arrive(&empty[s]);
        }
        gemm__cuda_dt_warp_store<R::SWAP, R::XK, R::YK, W::MT, W::NTL>(acc, (R::SWAP ? n0 : m0) + wx,
                                                                       (R::SWAP ? m0 : n0) + wy, g, t, M, N, alpha,
                                                                       beta, C + member * bt.stride_c, ldc, atomic,
                                                                       vec);
    }
#else
    (void)map_a; (void)map_b; (void)tm; (void)tn; (void)split; (void)M; (void)N; (void)K; (void)kchunk; (void)alpha;
    (void)beta; (void)C; (void)ldc; (void)atomic; (void)bt;
#endif
}
/* <<cuda dmma_tma */

/* ---- host code: checks, launch and dispatch, the two paths, the API ---- */
/* >>cuda call: src/cuda/call.cuh */
/* What every call shares on the host: its operands in the canonical
   problem's naming, the checks of its options, the device it runs on, and
   the first steps of a device-pointer call (sizes, pointers, C = beta*C). */

/* The pointers and scalars of one call beside its gemm__problem: a and b
   are op(A) and op(B) of the column-major view (the caller's B and A of a
   row-major call). T is a's and b's type, TC c's, S the scalars' (all T
   for fp32 and fp64; float for the tensor-core modes). */
template <typename T, typename TC, typename S> struct gemm__cuda_operands {
    const T *a, *b;
    TC *c;
    S alpha, beta;
};

/* The device a call runs on: its index, compute capability and SM count. */
typedef struct gemm__cuda_gpu {
    int dev, major, minor, sms;
} gemm__cuda_gpu;

static gemm_status gemm__cuda_query(const char *fn, gemm__cuda_gpu *gpu)
{
    GEMM__CUDA_TRY(fn, cudaGetDevice(&gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->major, cudaDevAttrComputeCapabilityMajor, gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->minor, cudaDevAttrComputeCapabilityMinor, gpu->dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&gpu->sms, cudaDevAttrMultiProcessorCount, gpu->dev));
    return GEMM_OK;
}

/* The options of fp32 and fp64 computed exactly (SIMT, DMMA, the ladder);
   `bits` is 32 or 64. */
static gemm_status gemm__cuda_check_exact(const char *fn, const gemm_cuda_options *o, int bits)
{
    if (o->math != GEMM_CUDA_MATH_EXACT)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.math = %d is not supported here (TF32 and "
                          "FP32_ACCURATE are for fp32 only)", fn, (int)o->math);
    if (o->kernel == GEMM_CUDA_KERNEL_MMA || o->kernel == GEMM_CUDA_KERNEL_WGMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the %s kernel is for the tensor-core modes (options.math = "
                          "GEMM_CUDA_MATH_TF32, or gemm_cuda_sgemm_mixed)", fn, gemm_cuda_kernel_name(o->kernel));
    if ((unsigned)o->kernel > GEMM_CUDA_KERNEL_DMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.kernel = %d is not a gemm_cuda_kernel", fn, (int)o->kernel);
    if (o->kernel == GEMM_CUDA_KERNEL_DMMA && bits != 64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the DMMA kernel is fp64 only", fn);
    if (o->split_k < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.split_k = %d is negative", fn, o->split_k);
    if (o->variant != 0 && !(o->variant > 0 && o->kernel == GEMM_CUDA_KERNEL_SIMT && bits == 32 && o->variant <= 4) &&
        !(o->variant > 0 && o->kernel == GEMM_CUDA_KERNEL_DMMA && o->variant <= 3))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.variant = %d: the exact configurations are 1-4 of the "
                          "SIMT kernel (fp32) and 1-3 of DMMA, named with options.kernel (0: automatic)", fn, o->variant);
    return GEMM_OK;
}

/* The options of the tensor-core modes (TF32, FP16, BF16). */
static gemm_status gemm__cuda_check_tc(const char *fn, const gemm_cuda_options *o)
{
    if (o->kernel != GEMM_CUDA_KERNEL_AUTO && o->kernel != GEMM_CUDA_KERNEL_NAIVE &&
        o->kernel != GEMM_CUDA_KERNEL_MMA && o->kernel != GEMM_CUDA_KERNEL_WGMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.kernel = %d is not a tensor-core kernel (auto, mma, wgmma "
                          "or naive)", fn, (int)o->kernel);
    if (o->split_k < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.split_k = %d is negative", fn, o->split_k);
    if (o->variant < 0 || o->variant > 2)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.variant = %d: the tensor-core kernels take 0 (automatic), "
                          "1 (WGMMA blocks of 256 rows) or 2 (128 rows)", fn, o->variant);
    return GEMM_OK;
}

/* The options only the host-pointer calls read. */
static gemm_status gemm__cuda_check_host(const char *fn, const gemm_cuda_options *o)
{
    if ((unsigned)o->mode > GEMM_CUDA_MAPPED)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.mode = %d is not a gemm_cuda_mode", fn, (int)o->mode);
    if (o->device < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device = %d is negative", fn, o->device);
    if (o->host_threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.host_threads = %d is negative", fn, o->host_threads);
    return GEMM_OK;
}

/* Whether a call with A and B of type T runs on the tensor cores: FP16 and
   BF16 always, fp32 under options.math = TF32 or FP32_ACCURATE, fp64 never. */
template <typename T> static bool gemm__cuda_is_tc(const gemm_cuda_options *o)
{
    if constexpr (std::is_same<T, double>::value) return false;
    else if constexpr (std::is_same<T, float>::value)
        return o->math == GEMM_CUDA_MATH_TF32 || o->math == GEMM_CUDA_MATH_FP32_ACCURATE;
    else return true;
}

/* Checks that a pointer can be dereferenced by the current device. */
static gemm_status gemm__cuda_check_pointer(const char *fn, const char *name, const void *p)
{
    cudaPointerAttributes at;
    cudaError_t e = cudaPointerGetAttributes(&at, p);
    if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaPointerGetAttributes", e);
    if (at.type == cudaMemoryTypeUnregistered)
        return gemm__fail(GEMM_ERR_INVALID_ARG,
                          "%s: %s is a host pointer the GPU cannot read; pass device memory or use the _host call",
                          fn, name);
    return GEMM_OK;
}

/* The first steps of every device-pointer call with work to do: sizes below
   2^31, pointers the device can read (A, B, C as the caller named them); when
   all that is left is C = beta*C (GEMM__WORK_SCALE) it is queued here and
   *finished set. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_begin(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                    cudaStream_t stream, bool *finished)
{
    const void *A = p->swapped ? x.b : x.a, *B = p->swapped ? x.a : x.b;
    gemm_status s;
    *finished = false;
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_pointer(fn, "C", x.c)) != GEMM_OK) return s;
    if (p->work == GEMM__WORK_FULL && ((s = gemm__cuda_check_pointer(fn, "A", A)) != GEMM_OK ||
                                       (s = gemm__cuda_check_pointer(fn, "B", B)) != GEMM_OK))
        return s;
    if (p->work == GEMM__WORK_SCALE) {
        *finished = true;
        return gemm__cuda_scale_members(fn, (int)p->m, (int)p->n, x.beta, x.c, p->ldc, gemm__cuda_single(1), stream);
    }
    return GEMM_OK;
}
/* <<cuda call */
/* >>cuda scratch: src/cuda/scratch.cuh */
/* The scratch pool of the tensor-core modes: their operand copies and
   split-K sums are taken from it in stream order on the caller's stream
   and given back there. One pool per device, created on first use (when
   `create`; else *pool may come back NULL). It keeps its memory between
   calls, as cuBLAS keeps a workspace: the device's default pool hands
   memory back to the driver at every synchronisation, and mapping it again
   cost more than the copy itself (about 3.7 ms for 1 GB at n = 16384 on an
   H200). gemm_cuda_release_scratch() hands it back. */
static gemm_status gemm__cuda_scratch_pool(const char *fn, int dev, bool create, cudaMemPool_t *pool)
{
    static std::atomic<cudaMemPool_t> pools[64];
    cudaMemPool_t p, expected = NULL;
    cudaMemPoolProps props;
    uint64_t keep = UINT64_MAX;
    *pool = NULL;
    if (dev < 0 || dev >= 64) return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: device %d: only 64 devices are served", fn, dev);
    if ((p = pools[dev].load()) != NULL || !create) {
        *pool = p;
        return GEMM_OK;
    }
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    GEMM__CUDA_TRY(fn, cudaMemPoolCreate(&p, &props));
    GEMM__CUDA_TRY(fn, cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep));
    if (!pools[dev].compare_exchange_strong(expected, p)) { /* another thread was first */
        cudaMemPoolDestroy(p);
        p = expected;
    }
    *pool = p;
    return GEMM_OK;
}
/* <<cuda scratch */
/* >>cuda exact: src/cuda/exact.cuh */
/* The exact path's cp.async kernels that read the operands in place (any
   alignment): fp64 on SIMT (GPUs without FP64 tensor cores) and DMMA's
   ring configuration (sm_80, or builds without sm_90a); how K is split;
   the ladder; and the choice of kernel family. The warp-tiled SIMT (fp32)
   and the TMA DMMA launches are in exact_run.cuh. */

/* A kernel configuration: its block (BM x BN, K tile BK, NT threads), its
   shared memory per layout, and its kernel per layout and copy width (VEC
   elements; 1 for operands that are not 16-byte aligned). The launch below
   takes any such type. */
template <typename T, int BM_, int BN_, int BK_, int TM, int TN, int STAGES, int MINB, int SWZ>
struct gemm__cuda_simt_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, NT = (BM / TM) * (BN / TN), PAD = 16 / (int)sizeof(T);
    template <bool AK, bool BKM> static size_t smem()
    {
        return (size_t)STAGES * (gemm__cuda_tile<BM, BK, PAD, AK>::SIZE + gemm__cuda_tile<BN, BK, PAD, BKM>::SIZE) * sizeof(T);
    }
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)gemm__cuda_simt_kernel<T, BM, BN, BK, TM, TN, STAGES, MINB, SWZ, AK, BKM, VEC>;
    }
};
template <int BM_, int BN_, int BK_, int STAGES, int WARPS_M, int WARPS_N, int MINB, int SWZ> struct gemm__cuda_dmma_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, NT = 32 * WARPS_M * WARPS_N, PAD = 4;
    template <bool AK, bool BKM> static size_t smem()
    {
        return (size_t)STAGES * (gemm__cuda_tile<BM, BK, PAD, AK>::SIZE + gemm__cuda_tile<BN, BK, PAD, BKM>::SIZE) * sizeof(double);
    }
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)gemm__cuda_dmma_kernel<BM, BN, BK, STAGES, WARPS_M, WARPS_N, MINB, SWZ, AK, BKM, VEC>;
    }
};

/* The configurations: template arguments BM, BN, BK, TM x TN per thread
   (DMMA: warps along M x N), stages, blocks per SM, block order. */
typedef gemm__cuda_simt_cfg<double, 64, 64, 16, 4, 4, 3, 2, 0> gemm__cuda_simt_f64; /* without FP64 tensor cores */
typedef gemm__cuda_dmma_cfg<128, 64, 16, 3, 4, 2, 2, 0> gemm__cuda_dmma_f64;      /* 32x32 per warp */
/* Batches of small members (64 or fewer rows or columns), whose one tile
   would be mostly empty in the configurations above, and fp32 batches
   whose operands are not all 16-byte aligned (the warp-tiled kernel reads
   only aligned ones, and a batch is not copied into scratch). */
typedef gemm__cuda_simt_cfg<float, 64, 64, 16, 8, 4, 3, 2, 0> gemm__cuda_simt_f32_batch;
typedef gemm__cuda_dmma_cfg<64, 64, 16, 3, 2, 2, 2, 0> gemm__cuda_dmma_f64_small;

/* How many parts K is split into: enough blocks to fill every SM (`slots`
   = SMs x resident blocks per SM), and at least 4 K-tiles per part. */
static int gemm__cuda_split(int tiles, int K, int BK, int slots, int requested)
{
    int split = requested > 0 ? requested : (tiles < slots ? slots / tiles : 1);
    int most = (K + 4 * BK - 1) / (4 * BK);
    if (requested <= 0 && split > most) split = most;
    if (split > 64) split = 64;
    return split < 1 ? 1 : split;
}

/* One instance of a configuration for the members of bt: AK / BKM say
   whether op(A) / op(B) is k-major, VEC the elements per copy. With K
   split (when the members' tiles do not fill the SMs), C = beta*C is
   queued first and the parts add into C with atomics. */
template <typename T, typename CFG, bool AK, bool BKM, int VEC>
static gemm_status gemm__cuda_launch_fast(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, T, T> &x,
                                          gemm__cuda_batch bt, int sms, int split_req, cudaStream_t stream)
{
    size_t smem = CFG::template smem<AK, BKM>();
    void *kernel = CFG::template kernel<AK, BKM, VEC>();
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, kchunk, atomic = 0, per_sm = 1;
    int tm = (M + CFG::BM - 1) / CFG::BM, tn = (N + CFG::BN - 1) / CFG::BN;
    int64_t tiles = (int64_t)tm * tn * bt.count;
    T alpha = x.alpha, beta = x.beta;
    const T *A = x.a, *B = x.b;
    T *C = x.c;
    int64_t lda = p->lda, ldb = p->ldb, ldc = p->ldc;
    gemm_status s;
    /* Above 48 KB a block must ask for its shared memory, and the largest
       carveout lets two blocks share an SM where the registers allow it. */
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, CFG::NT, smem));
    bt.split = gemm__cuda_split(tiles < INT32_MAX ? (int)tiles : INT32_MAX, K, CFG::BK, sms * (per_sm > 0 ? per_sm : 1),
                                split_req);
    kchunk = ((K + bt.split - 1) / bt.split + CFG::BK - 1) / CFG::BK * CFG::BK;
    bt.split = (K + kchunk - 1) / kchunk; /* no empty parts */
    if (tn > 65535) /* N is the caller's n, or its m for a row-major call */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage need %d tiles of %d, more than "
                          "one launch's 65535", fn, N, tn, CFG::BN);
    if (bt.split > 1) {
        atomic = 1;
        if (beta != T(1) && (s = gemm__cuda_scale_members(fn, M, N, beta, C, ldc, bt, stream)) != GEMM_OK) return s;
    }
    return gemm__cuda_each_run(fn, bt, [&](gemm__cuda_batch run, unsigned z) {
        void *args[] = {&M, &N, &K, &kchunk, &alpha, (void *)&A, &lda, (void *)&B, &ldb, &beta, (void *)&C, &ldc,
                        &atomic, &run};
        return cudaLaunchKernel(kernel, dim3((unsigned)tm, (unsigned)tn, z), dim3(CFG::NT), args, smem, stream);
    });
}

/* 16-byte copies need 16-byte aligned panels (`aligned`: every member's
   A and B, bases and leading dimensions); other operands take the same
   configuration with copies of one element. */
template <typename T, typename CFG, bool AK, bool BKM>
static gemm_status gemm__cuda_launch_aligned(const char *fn, const gemm__problem *p,
                                             const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_batch &bt,
                                             bool aligned, int sms, int split, cudaStream_t stream)
{
    constexpr int V = 16 / (int)sizeof(T);
    return aligned ? gemm__cuda_launch_fast<T, CFG, AK, BKM, V>(fn, p, x, bt, sms, split, stream)
                   : gemm__cuda_launch_fast<T, CFG, AK, BKM, 1>(fn, p, x, bt, sms, split, stream);
}

/* A configuration for the problem's layout: op(A) is k-major when it is read
   transposed (a_trans), op(B) when it is not (!b_trans). */
template <typename T, typename CFG>
static gemm_status gemm__cuda_launch_config(const char *fn, const gemm__problem *p,
                                            const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_batch &bt,
                                            bool aligned, int sms, int split, cudaStream_t stream)
{
    if (p->a_trans)
        return p->b_trans ? gemm__cuda_launch_aligned<T, CFG, true, false>(fn, p, x, bt, aligned, sms, split, stream)
                          : gemm__cuda_launch_aligned<T, CFG, true, true>(fn, p, x, bt, aligned, sms, split, stream);
    return p->b_trans ? gemm__cuda_launch_aligned<T, CFG, false, false>(fn, p, x, bt, aligned, sms, split, stream)
                      : gemm__cuda_launch_aligned<T, CFG, false, true>(fn, p, x, bt, aligned, sms, split, stream);
}

/* Whether a single call's A and B take 16-byte copies: aligned bases and
   leading dimensions. */
template <typename T, typename TC, typename S>
static bool gemm__cuda_aligned_ab(const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x)
{
    constexpr int V = 16 / (int)sizeof(T);
    return (uintptr_t)x.a % 16 == 0 && (uintptr_t)x.b % 16 == 0 && p->lda % V == 0 && p->ldb % V == 0;
}

/* The ladder: NAIVE for every type, TILED16 for fp32 and fp64. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_launch_ladder(const char *fn, gemm_cuda_kernel kernel, const gemm__problem *p,
                                            const gemm__cuda_operands<T, TC, S> &x, gemm__cuda_batch bt,
                                            cudaStream_t stream)
{
    int M = (int)p->m, N = (int)p->n, K = (int)p->k;
    dim3 grid((unsigned)((M + 15) / 16), (unsigned)((N + 15) / 16)), block(16, 16);
    if (grid.y > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for the ladder kernels",
                          fn, N);
    bt.split = 1;
    return gemm__cuda_each_run(fn, bt, [&](const gemm__cuda_batch &run, unsigned z) {
        dim3 g(grid.x, grid.y, z);
        if constexpr (std::is_same<T, TC>::value && std::is_same<T, S>::value)
            if (kernel == GEMM_CUDA_KERNEL_TILED16) {
                gemm__cuda_tiled16_kernel<T><<<g, block, 0, stream>>>(M, N, K, x.alpha, x.a, p->ars, p->acs, x.b,
                                                                      p->brs, p->bcs, x.beta, x.c, p->ldc, run);
                return cudaGetLastError();
            }
        gemm__cuda_naive_kernel<T, S, TC><<<g, block, 0, stream>>>(M, N, K, x.alpha, x.a, p->ars, p->acs, x.b, p->brs,
                                                                   p->bcs, x.beta, x.c, p->ldc, run);
        return cudaGetLastError();
    });
}

static bool gemm__cuda_has_dmma(int major, int minor)
{
    /* Full-rate FP64 tensor cores: A100 (8.0), H100/H200 (9.0), B200 (10.0). */
    return (major == 8 && minor == 0) || major == 9 || major == 10;
}

/* AUTO's exact kernel for `precision` (GEMM_F32 or GEMM_F64). */
static gemm_cuda_kernel gemm__cuda_choose(gemm_precision precision, int major, int minor)
{
    if (major < 8) return GEMM_CUDA_KERNEL_TILED16; /* no cp.async before sm_80 */
    return precision == GEMM_F64 && gemm__cuda_has_dmma(major, minor) ? GEMM_CUDA_KERNEL_DMMA : GEMM_CUDA_KERNEL_SIMT;
}
/* <<cuda exact */
/* >>cuda exact_plan: src/cuda/exact_plan.cuh */
/* The exact path's plan (fp32 in fp32, fp64 in fp64): which configuration
   of the kernel runs, in which layout it reads the operands, and which
   operands are first copied into scratch for that. Chosen from the shape
   and the device (its SM count, its shared memory per block, whether this
   build has its sm_90a code) on every call.

   Configurations (options.variant with kernel SIMT or DMMA; 0 chooses):
     SIMT fp32 (warp-tiled, cp.async; sm_80+)
       1  128 x 128, threads of 8 x 16, two blocks per SM
       2  128 x 128, threads of 16 x 8, two blocks per SM
       3  256 x 128, one block per SM
       4  128 x 256, one block per SM
     DMMA fp64
       1  cp.async ring, 128 x 64, m16n8k4, two blocks per SM (sm_80+)
       2  TMA and warp-specialised, persistent, 128 x 128, m16n8k16 (sm_90a)
       3  the same with 128 x 64 tiles, two blocks per SM (sm_90a)
   (fp64 on SIMT, for GPUs without FP64 tensor cores, has one configuration.) */

enum {
    GEMM__CUDA_SW_128 = 1,      /* 128x128, 8x16 threads */
    GEMM__CUDA_SW_128_16X8 = 2, /* 128x128, 16x8 threads */
    GEMM__CUDA_SW_256X128 = 3,
    GEMM__CUDA_SW_128X256 = 4,
    GEMM__CUDA_DMMA_RING = 1,
    GEMM__CUDA_DMMA_TMA = 2,    /* 128x128 */
    GEMM__CUDA_DMMA_TMA_64 = 3  /* 128x64, two per SM */
};

/* How an operand reaches the kernel: as it is, copied into scratch with its
   leading dimension rounded up to 16 bytes (the copy engine and the 16-byte
   copies need aligned rows), or transposed there (k-major to M-major). */
typedef enum gemm__cuda_copy { GEMM__CUDA_AS_IS = 0, GEMM__CUDA_REALIGN = 1, GEMM__CUDA_TRANSPOSE = 2 } gemm__cuda_copy;

/* The device facts the plan reads. */
typedef struct gemm__cuda_exact_dev {
    int sms, smem_block; /* SMs; shared memory one block may opt in to (bytes) */
    bool tma;            /* the sm_90a kernels can run (Hopper, and this build has their code) */
} gemm__cuda_exact_dev;

typedef struct gemm__cuda_exact_plan {
    gemm_cuda_kernel kernel; /* SIMT or DMMA */
    int variant;             /* the configuration above */
    bool ak, bk;             /* op(A) / op(B) k-major as the kernel reads them */
    gemm__cuda_copy copy_a, copy_b;
    int64_t lda, ldb;        /* leading dimensions of the copies */
    size_t a_elems, b_elems; /* their sizes in elements (0: no copy) */
} gemm__cuda_exact_plan;

/* Shared memory of fp32 configuration `variant` for the layout. */
static size_t gemm__cuda_sw_smem(int variant, bool ak, bool bk)
{
    typedef gemm__cuda_sw_shape<128, 128, 8> S1;
    typedef gemm__cuda_sw_shape<256, 128, 8> S3;
    typedef gemm__cuda_sw_shape<128, 256, 8> S4;
    if (variant == GEMM__CUDA_SW_256X128)
        return ak ? (bk ? S3::smem<true, true>() : S3::smem<true, false>()) : (bk ? S3::smem<false, true>() : S3::smem<false, false>());
    if (variant == GEMM__CUDA_SW_128X256)
        return ak ? (bk ? S4::smem<true, true>() : S4::smem<true, false>()) : (bk ? S4::smem<false, true>() : S4::smem<false, false>());
    return ak ? (bk ? S1::smem<true, true>() : S1::smem<true, false>()) : (bk ? S1::smem<false, true>() : S1::smem<false, false>());
}

/* AUTO's fp32 configuration for the layout the kernel reads. Each layout's
   best on both Hopper GPUs (bench/research/exact): the side of a k-major
   operand, which the block transposes in shared memory, is the 128 one
   (256x128 when op(B) is k-major, 128x256 when op(A) is); 16x8 threads
   when neither is. A 256 side is not used where it would stay half empty
   (M or N at most 128); 16x8 threads only with the whole K loop in one
   block (at most one 128x128 tile per SM splits K, and its short loops
   ran slower); a configuration must fit the block's shared memory
   (128x128 always does, 94 KB at most). */
static int gemm__cuda_sw_choose(bool ak, bool bk, int64_t M, int64_t N, const gemm__cuda_exact_dev *d)
{
    int prefs[3] = {GEMM__CUDA_SW_128, 0, 0}, i;
    int64_t tiles = ((M + 127) / 128) * ((N + 127) / 128);
    if (!ak && bk) { prefs[0] = GEMM__CUDA_SW_256X128; prefs[1] = GEMM__CUDA_SW_128; }
    else if (ak && !bk) { prefs[0] = GEMM__CUDA_SW_128X256; prefs[1] = GEMM__CUDA_SW_128; }
    else if (!ak && !bk) { prefs[0] = GEMM__CUDA_SW_128_16X8; prefs[1] = GEMM__CUDA_SW_128; }
    else { prefs[0] = GEMM__CUDA_SW_128X256; prefs[1] = GEMM__CUDA_SW_256X128; prefs[2] = GEMM__CUDA_SW_128; }
    for (i = 0; i < 3 && prefs[i]; i++) {
        int v = prefs[i];
        if (gemm__cuda_sw_smem(v, ak, bk) > (size_t)d->smem_block) continue;
        if ((v == GEMM__CUDA_SW_256X128 && M <= 128) || (v == GEMM__CUDA_SW_128X256 && N <= 128)) continue;
        if (v == GEMM__CUDA_SW_128_16X8 && tiles <= (int64_t)d->sms) continue; /* K would be split */
        return v;
    }
    return GEMM__CUDA_SW_128;
}

/* AUTO's fp64 configuration: the TMA kernel where it can run, 128x128
   tiles, or 128x64 at two blocks per SM when the 128x128 tiles do not give
   every SM one and K is short (the fixed costs of a tile weigh more there,
   and two blocks per SM hide each other's), or when N is at most 64. */
static int gemm__cuda_dmma_choose(int64_t M, int64_t N, int64_t K, const gemm__cuda_exact_dev *d)
{
    int64_t tiles = ((M + 127) / 128) * ((N + 127) / 128);
    if (!d->tma) return GEMM__CUDA_DMMA_RING;
    return N <= 64 || (tiles < d->sms && K <= 2048) ? GEMM__CUDA_DMMA_TMA_64 : GEMM__CUDA_DMMA_TMA;
}

/* Whether X (base and leading dimension) is 16-byte aligned. */
static bool gemm__cuda_aligned16(const void *X, int64_t ld, size_t elem)
{
    return (uintptr_t)X % 16 == 0 && (ld * (int64_t)elem) % 16 == 0;
}

/* The copy of one operand (rows x K, k-major or not, leading dimension ld)
   into scratch: rows of whole 16-byte vectors in the layout it gets. */
static void gemm__cuda_plan_copy(gemm__cuda_copy how, bool kmajor, int64_t rows, int64_t K, size_t elem,
                                 gemm__cuda_copy *copy, int64_t *ld, size_t *elems)
{
    int64_t v = 16 / (int64_t)elem, inner = (how == GEMM__CUDA_TRANSPOSE) != kmajor ? K : rows;
    int64_t outer = inner == K ? rows : K;
    *copy = how;
    if (how == GEMM__CUDA_AS_IS) return;
    *ld = (inner + v - 1) / v * v;
    *elems = (size_t)(*ld * outer);
}

/* Row-major NT (both operands k-major) makes the fp32 kernel transpose both
   in shared memory, its slowest case. AUTO copies one of them transposed
   into scratch first when the copy is cheap beside the product: copying
   op(B) (N x K) costs N*K of the product's M*N*K, so op(B) when M >= N,
   else op(A), and only when that other side is at least 2048 (the copy is
   then under about 4% of the time). A forced configuration copies only
   when its both-k-major form does not fit in shared memory. */
static bool gemm__cuda_sw_nt_copy(const gemm__problem *p, int variant, const gemm__cuda_exact_dev *d)
{
    if (!p->a_trans || p->b_trans || p->k > (1 << 21)) return false; /* the copy kernels' grid: K / 32 <= 65535 */
    if (variant) return gemm__cuda_sw_smem(variant, true, true) > (size_t)d->smem_block;
    return (p->m >= p->n ? p->m : p->n) >= 2048;
}

/* The plan of an fp32 SIMT or fp64 DMMA call. `variant`: options.variant
   (0: choose). GEMM_ERR_UNAVAILABLE when a forced configuration cannot
   run on this device. */
template <typename T>
static gemm_status gemm__cuda_exact_plan_of(const char *fn, gemm_cuda_kernel kernel, const gemm__problem *p,
                                            const T *a, const T *b, int variant, const gemm__cuda_exact_dev *d,
                                            gemm__cuda_exact_plan *t)
{
    size_t elem = sizeof(T);
    bool tma;
    memset(t, 0, sizeof *t);
    t->kernel = kernel;
    t->ak = p->a_trans;
    t->bk = !p->b_trans;
    t->lda = p->lda;
    t->ldb = p->ldb;
    if (kernel == GEMM_CUDA_KERNEL_DMMA) {
        t->variant = variant ? variant : gemm__cuda_dmma_choose(p->m, p->n, p->k, d);
        tma = t->variant != GEMM__CUDA_DMMA_RING;
        if (tma && !d->tma)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: DMMA configuration %d needs a Hopper GPU (compute capability "
                              "9.0) and a build for sm_90a (-gencode arch=compute_90a,code=sm_90a)", fn, t->variant);
    } else {
        tma = true; /* the warp-tiled kernel also reads only 16-byte aligned operands */
        if (gemm__cuda_sw_nt_copy(p, variant, d)) {
            if (p->m >= p->n) {
                gemm__cuda_plan_copy(GEMM__CUDA_TRANSPOSE, true, p->n, p->k, elem, &t->copy_b, &t->ldb, &t->b_elems);
                t->bk = false;
            } else {
                gemm__cuda_plan_copy(GEMM__CUDA_TRANSPOSE, true, p->m, p->k, elem, &t->copy_a, &t->lda, &t->a_elems);
                t->ak = false;
            }
        }
        t->variant = variant ? variant : gemm__cuda_sw_choose(t->ak, t->bk, p->m, p->n, d);
        if (gemm__cuda_sw_smem(t->variant, t->ak, t->bk) > (size_t)d->smem_block)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: SIMT configuration %d needs %zu bytes of shared memory per "
                              "block for this layout, this GPU gives %d", fn, t->variant,
                              gemm__cuda_sw_smem(t->variant, t->ak, t->bk), d->smem_block);
    }
    if (tma && t->copy_a == GEMM__CUDA_AS_IS && !gemm__cuda_aligned16(a, p->lda, elem))
        gemm__cuda_plan_copy(GEMM__CUDA_REALIGN, t->ak, p->m, p->k, elem, &t->copy_a, &t->lda, &t->a_elems);
    if (tma && t->copy_b == GEMM__CUDA_AS_IS && !gemm__cuda_aligned16(b, p->ldb, elem))
        gemm__cuda_plan_copy(GEMM__CUDA_REALIGN, t->bk, p->n, p->k, elem, &t->copy_b, &t->ldb, &t->b_elems);
    return GEMM_OK;
}
/* <<cuda exact_plan */
/* >>cuda exact_run: src/cuda/exact_run.cuh */
/* The exact path's run: the plan's operand copies into scratch, the
   launches of the warp-tiled SIMT and the TMA DMMA kernels, and the entry
   every fp32 / fp64 call takes (gemm__cuda_exact). */

/* Whether this build holds the sm_90a code for device `dev` (Hopper):
   read once per device from the module the runtime loaded for it. */
static bool gemm__cuda_exact_tma_built(int dev, int major, int minor)
{
    static std::atomic<int> known[64]; /* 0: not asked yet, 1: no, 2: yes */
    int built = 0;
    if (major != 9 || minor != 0 || dev < 0 || dev >= 64) return false;
    if (known[dev].load() == 0)
        known[dev].store(cudaMemcpyFromSymbol(&built, gemm__cuda_wgmma_built, sizeof built) == cudaSuccess && built ? 2 : 1);
    return known[dev].load() == 2;
}

#ifdef GEMM__TEST_HOOKS
/* What the last exact call of this thread ran (tests and benchmarks). */
static thread_local char gemm__cuda_exact_last_text[160];
GEMM_DEF const char *gemm__cuda_exact_last(void) { return gemm__cuda_exact_last_text; }
#endif

/* Records what runs: "simt 256x128 nn split 1 grid 512 copies a:t" and the like. */
static void gemm__cuda_exact_note(const gemm__cuda_exact_plan *t, const char *config, int split, int64_t grid)
{
#ifdef GEMM__TEST_HOOKS
    static const char *copy_names[3] = {"-", "r", "t"};
    snprintf(gemm__cuda_exact_last_text, sizeof gemm__cuda_exact_last_text, "%s %s %c%c split %d grid %lld copies a:%s b:%s",
             gemm_cuda_kernel_name(t->kernel), config, t->ak ? 'k' : 'm', t->bk ? 'k' : 'n', split, (long long)grid,
             copy_names[t->copy_a], copy_names[t->copy_b]);
#else
    (void)t; (void)config; (void)split; (void)grid;
#endif
}

/* The K split and grid of a launch: `tiles` tiles of C, `slots` blocks
   resident at once; *kchunk a multiple of 16. Fails past one launch's
   reach (2^31 - 1 blocks or work units). */
static gemm_status gemm__cuda_exact_grid(const char *fn, const gemm__problem *p, int64_t tiles, int slots,
                                         int split_req, int *split, int *kchunk)
{
    int K = (int)p->k;
    if (tiles > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld tiles of C are more than one launch can run", fn,
                          (long long)tiles);
    *split = gemm__cuda_split(tiles > slots ? slots : (int)tiles, K, 16, slots, split_req);
    *kchunk = ((K + *split - 1) / *split + 15) / 16 * 16;
    *split = (K + *kchunk - 1) / *kchunk; /* no empty parts */
    if (tiles * *split > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld tiles in %d K parts are more than one launch can run", fn,
                          (long long)tiles, *split);
    return GEMM_OK;
}

/* A K split adds the parts into C with atomics: C = beta*C first. */
template <typename T>
static gemm_status gemm__cuda_exact_prescale(const char *fn, const gemm__problem *p, T beta, T *C,
                                             const gemm__cuda_batch &bt, cudaStream_t stream)
{
    if (beta == T(1)) return GEMM_OK;
    return gemm__cuda_scale_members(fn, (int)p->m, (int)p->n, beta, C, p->ldc, bt, stream);
}

/* The warp-tiled kernel's instance for a batch or a single call. */
template <int BM, int BN, int LM, int MINB, bool AK, bool BKM> static void *gemm__cuda_sw_instance(bool batch)
{
    return batch ? (void *)gemm__cuda_simt_warp_kernel<BM, BN, LM, MINB, AK, BKM, true>
                 : (void *)gemm__cuda_simt_warp_kernel<BM, BN, LM, MINB, AK, BKM, false>;
}

/* The warp-tiled SIMT kernel (fp32) in configuration BM x BN, LM lanes
   along M, MINB blocks per SM, for the plan's layout, over the members of
   bt (its tiles side by side in blockIdx.x, the members and K parts in
   blockIdx.z). */
template <int BM, int BN, int LM, int MINB>
static gemm_status gemm__cuda_launch_sw(const char *fn, const gemm__problem *p, const gemm__cuda_exact_plan *t,
                                        const float *A, const float *B, const gemm__cuda_operands<float, float, float> &x,
                                        gemm__cuda_batch bt, int sms, int split_req, cudaStream_t stream)
{
    typedef gemm__cuda_sw_shape<BM, BN, LM> S;
    bool batch = bt.count > 1 || bt.a || bt.b || bt.c;
    void *kernel = t->ak ? (t->bk ? gemm__cuda_sw_instance<BM, BN, LM, MINB, true, true>(batch)
                                  : gemm__cuda_sw_instance<BM, BN, LM, MINB, true, false>(batch))
                         : (t->bk ? gemm__cuda_sw_instance<BM, BN, LM, MINB, false, true>(batch)
                                  : gemm__cuda_sw_instance<BM, BN, LM, MINB, false, false>(batch));
    int smem = (int)gemm__cuda_sw_smem(t->variant, t->ak, t->bk), per_sm = 1, split, kchunk, atomic;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k;
    int64_t tiles = ((p->m + BM - 1) / BM) * ((p->n + BN - 1) / BN), lda = t->lda, ldb = t->ldb, ldc = p->ldc;
    float alpha = x.alpha, beta = x.beta, *C = x.c;
    gemm_status s;
    char config[16];
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::NT, (size_t)smem));
    if ((s = gemm__cuda_exact_grid(fn, p, tiles * bt.count, sms * (per_sm > 0 ? per_sm : 1), split_req, &split,
                                   &kchunk)) != GEMM_OK)
        return s;
    bt.split = split;
    atomic = split > 1;
    if (atomic && (s = gemm__cuda_exact_prescale<float>(fn, p, beta, C, bt, stream)) != GEMM_OK) return s;
    snprintf(config, sizeof config, "%dx%d%s", BM, BN, LM == 4 ? "/16x8" : "");
    gemm__cuda_exact_note(t, config, split, tiles * bt.count);
    return gemm__cuda_each_run(fn, bt, [&](gemm__cuda_batch run, unsigned z) {
        void *args[] = {&M, &N, &K, &kchunk, &alpha, (void *)&A, &lda, (void *)&B, &ldb, &beta, (void *)&C, &ldc,
                        &atomic, &run};
        return cudaLaunchKernel(kernel, dim3((unsigned)tiles, 1, z), dim3(S::NT), args, (size_t)smem, stream);
    });
}

/* cuTensorMapEncodeTiled from the driver, found through the runtime so that
   nothing needs -lcuda. */
typedef CUresult (*gemm__cuda_dt_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                            const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                            CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                            CUtensorMapFloatOOBfill);

/* An fp64 operand of rows x K as the TMA DMMA kernel reads it: k-major
   (X(r, q) at X[r*ld + q]) in boxes of 16 k x box_rows rows, else
   (X[q*ld + r]) in boxes of 16 x 16; 128-byte swizzle; zeros outside.
   members > 1: a strided batch's operand, `stride` elements apart, as the
   map's third dimension. */
static gemm_status gemm__cuda_dt_map(const char *fn, CUtensorMap *map, const double *X, int64_t ld, bool kmajor,
                                     int64_t rows, int64_t K, int box_rows, int64_t members, int64_t stride)
{
    static std::atomic<gemm__cuda_dt_encode_fn> encode{NULL};
    cuuint64_t dims[3] = {(cuuint64_t)(kmajor ? K : rows), (cuuint64_t)(kmajor ? rows : K), (cuuint64_t)members},
               strides[2] = {(cuuint64_t)ld * sizeof(double), (cuuint64_t)stride * sizeof(double)};
    cuuint32_t box[3] = {16, (cuuint32_t)(kmajor ? box_rows : 16), 1}, unit[3] = {1, 1, 1};
    cuuint32_t rank = members > 1 ? 3 : 2;
    CUresult r;
    if (!encode.load()) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)", e);
        if (q != cudaDriverEntryPointSuccess || !f)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the driver has no cuTensorMapEncodeTiled", fn);
        encode.store((gemm__cuda_dt_encode_fn)f);
    }
    r = encode.load()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, rank, (void *)X, dims, strides, box, unit,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gemm__fail(GEMM_ERR_DEVICE, "%s: cuTensorMapEncodeTiled failed (CUresult %d) for a %lld x %lld operand "
                          "(leading dimension %lld)", fn, (int)r, (long long)rows, (long long)K, (long long)ld);
    return GEMM_OK;
}

/* The TMA DMMA kernel (fp64) with NCWG consumer warpgroups, persistent:
   at most one block per SM slot, each walking its work units; over the
   members of bt (strided only: its maps are 3-D). */
template <int NCWG>
static gemm_status gemm__cuda_launch_dt(const char *fn, const gemm__problem *p, const gemm__cuda_exact_plan *t,
                                        const double *A, const double *B,
                                        const gemm__cuda_operands<double, double, double> &x,
                                        const gemm__cuda_batch &bt, int sms, int split_req, cudaStream_t stream)
{
    typedef gemm__cuda_dt_shape<NCWG> S;
    void *kernel = t->ak ? (t->bk ? (void *)gemm__cuda_dmma_tma_kernel<NCWG, true, true>
                                  : (void *)gemm__cuda_dmma_tma_kernel<NCWG, true, false>)
                         : (t->bk ? (void *)gemm__cuda_dmma_tma_kernel<NCWG, false, true>
                                  : (void *)gemm__cuda_dmma_tma_kernel<NCWG, false, false>);
    CUtensorMap map_a, map_b;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, tm = (M + S::BM - 1) / S::BM, tn = (N + S::BN - 1) / S::BN;
    int per_sm = 1, slots, split, kchunk, atomic;
    int64_t units, grid, ldc = p->ldc;
    double alpha = x.alpha, beta = x.beta, *C = x.c;
    gemm_status s;
    gemm__cuda_dt_batch members = {(int)bt.count, bt.count > 1 && bt.stride_a != 0, bt.count > 1 && bt.stride_b != 0,
                                   bt.stride_c};
    void *args[] = {&map_a, &map_b, &tm, &tn, &split, &M, &N, &K, &kchunk, &alpha, &beta, (void *)&C, &ldc, &atomic,
                    &members};
    if ((s = gemm__cuda_dt_map(fn, &map_a, A, t->lda, t->ak, p->m, p->k, S::BM, members.a3 ? bt.count : 1,
                               bt.stride_a)) != GEMM_OK ||
        (s = gemm__cuda_dt_map(fn, &map_b, B, t->ldb, t->bk, p->n, p->k, S::BN, members.b3 ? bt.count : 1,
                               bt.stride_b)) != GEMM_OK)
        return s;
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::THREADS, S::SMEM));
    slots = sms * (per_sm > 0 ? per_sm : 1);
    if ((s = gemm__cuda_exact_grid(fn, p, (int64_t)tm * tn * bt.count, slots, split_req, &split, &kchunk)) != GEMM_OK)
        return s;
    units = (int64_t)tm * tn * split * bt.count;
    if (units > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld units of work are more than one launch can run", fn,
                          (long long)units);
    grid = units < slots ? units : slots;
    atomic = split > 1;
    if (atomic && (s = gemm__cuda_exact_prescale<double>(fn, p, beta, C, bt, stream)) != GEMM_OK) return s;
    gemm__cuda_exact_note(t, NCWG == 2 ? "tma 128x128" : "tma 128x64", split, grid);
    GEMM__CUDA_TRY(fn, cudaLaunchKernel(kernel, dim3((unsigned)grid), dim3(S::THREADS), args, S::SMEM, stream));
    return GEMM_OK;
}

/* One operand's copy into `out` (the plan's layout, rows of ldo): realigned
   by the copy engine, or transposed (k-major to M-major) by a kernel. */
template <typename T>
static gemm_status gemm__cuda_exact_copy(const char *fn, gemm__cuda_copy how, const T *X, int64_t ld, bool kmajor,
                                         int64_t rows, int64_t K, T *out, int64_t ldo, cudaStream_t stream)
{
    if (how == GEMM__CUDA_REALIGN) {
        int64_t inner = kmajor ? K : rows, outer = kmajor ? rows : K;
        GEMM__CUDA_TRY(fn, cudaMemcpy2DAsync(out, (size_t)ldo * sizeof(T), X, (size_t)ld * sizeof(T),
                                             (size_t)inner * sizeof(T), (size_t)outer, cudaMemcpyDeviceToDevice, stream));
        return GEMM_OK;
    }
    /* X(r, q) at X[r*ld + q] -> out[q*ldo + r]: the copy kernels' "rows" are K here */
    if (gemm__cuda_aligned16(X, ld, sizeof(T))) {
        dim3 grid((unsigned)((rows + 63) / 64), (unsigned)((K + 63) / 64));
        gemm__cuda_transpose_kernel<T><<<grid, 256, 0, stream>>>((int)K, (int)rows, X, ld, out, ldo,
                                                                 gemm__cuda_single_copy());
    } else {
        dim3 grid((unsigned)((rows + 31) / 32), (unsigned)((K + 31) / 32)), block(32, 8);
        gemm__cuda_pack_kernel<T><<<grid, block, 0, stream>>>((int)K, (int)rows, X, ld, 0, out, ldo,
                                                              gemm__cuda_single_copy());
    }
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* The launch of the plan's configuration on operands a and b (the caller's
   or their copies). */
template <typename T>
static gemm_status gemm__cuda_exact_launch(const char *fn, const gemm__problem *p, const gemm__cuda_exact_plan *t,
                                           const T *a, const T *b, const gemm__cuda_operands<T, T, T> &x,
                                           const gemm__cuda_batch &bt, int sms, int split, cudaStream_t stream)
{
    if constexpr (sizeof(T) == 8) {
        if (t->variant == GEMM__CUDA_DMMA_TMA_64) return gemm__cuda_launch_dt<1>(fn, p, t, a, b, x, bt, sms, split, stream);
        return gemm__cuda_launch_dt<2>(fn, p, t, a, b, x, bt, sms, split, stream);
    } else {
        switch (t->variant) {
        case GEMM__CUDA_SW_128_16X8: return gemm__cuda_launch_sw<128, 128, 4, 2>(fn, p, t, a, b, x, bt, sms, split, stream);
        case GEMM__CUDA_SW_256X128: return gemm__cuda_launch_sw<256, 128, 8, 1>(fn, p, t, a, b, x, bt, sms, split, stream);
        case GEMM__CUDA_SW_128X256: return gemm__cuda_launch_sw<128, 256, 8, 1>(fn, p, t, a, b, x, bt, sms, split, stream);
        default: return gemm__cuda_launch_sw<128, 128, 8, 2>(fn, p, t, a, b, x, bt, sms, split, stream);
        }
    }
}

/* Runs a plan: its copies go through one scratch buffer taken from the
   device's pool and given back in stream order, so nothing waits. */
template <typename T>
static gemm_status gemm__cuda_exact_run(const char *fn, const gemm__cuda_exact_plan *t, const gemm__problem *p,
                                        const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_gpu *gpu, int split,
                                        cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    T *scratch = NULL;
    const T *a = x.a, *b = x.b;
    if (t->a_elems + t->b_elems > 0) {
        cudaMemPool_t pool;
        size_t a_bytes = (t->a_elems * sizeof(T) + 255) / 256 * 256;
        cudaError_t e;
        if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
        e = cudaMallocFromPoolAsync((void **)&scratch, a_bytes + t->b_elems * sizeof(T), pool, stream);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (operand copies)", e);
        if (t->copy_a) {
            a = scratch;
            s = gemm__cuda_exact_copy(fn, t->copy_a, x.a, p->lda, p->a_trans, p->m, p->k, scratch, t->lda, stream);
        }
        if (s == GEMM_OK && t->copy_b) {
            b = (const T *)((char *)scratch + a_bytes);
            s = gemm__cuda_exact_copy(fn, t->copy_b, x.b, p->ldb, !p->b_trans, p->n, p->k, (T *)b, t->ldb, stream);
        }
    }
    if (s == GEMM_OK) s = gemm__cuda_exact_launch<T>(fn, p, t, a, b, x, gemm__cuda_single(1), gpu->sms, split, stream);
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

/* fp32 or fp64, computed exactly: the kernel (options.kernel or AUTO's),
   its plan, and the run. The ladder, fp64 on SIMT and DMMA's cp.async
   configuration read the operands where they are. */
template <typename T>
static gemm_status gemm__cuda_exact(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, T, T> &x,
                                    const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    gemm_precision precision = sizeof(T) == 8 ? GEMM_F64 : GEMM_F32;
    gemm_cuda_kernel kernel = opt->kernel ? opt->kernel : gemm__cuda_choose(precision, gpu->major, gpu->minor);
    gemm__cuda_exact_dev dev;
    gemm__cuda_exact_plan t;
    gemm_status s;
    if ((kernel == GEMM_CUDA_KERNEL_DMMA || kernel == GEMM_CUDA_KERNEL_SIMT) && gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the %s kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, gemm_cuda_kernel_name(kernel), gpu->major, gpu->minor);
    if (kernel == GEMM_CUDA_KERNEL_NAIVE || kernel == GEMM_CUDA_KERNEL_TILED16)
        return gemm__cuda_launch_ladder(fn, kernel, p, x, gemm__cuda_single(1), stream);
    if constexpr (sizeof(T) == 8)
        if (kernel == GEMM_CUDA_KERNEL_SIMT)
            return gemm__cuda_launch_config<T, gemm__cuda_simt_f64>(fn, p, x, gemm__cuda_single(1),
                                                                    gemm__cuda_aligned_ab(p, x), gpu->sms,
                                                                    opt->split_k, stream);
    dev.sms = gpu->sms;
    dev.tma = gemm__cuda_exact_tma_built(gpu->dev, gpu->major, gpu->minor);
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&dev.smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu->dev));
    if ((s = gemm__cuda_exact_plan_of<T>(fn, kernel, p, x.a, x.b, opt->variant, &dev, &t)) != GEMM_OK) return s;
    if constexpr (sizeof(T) == 8)
        if (t.variant == GEMM__CUDA_DMMA_RING) {
            gemm__cuda_exact_note(&t, "ring 128x64", 0, 0);
            return gemm__cuda_launch_config<T, gemm__cuda_dmma_f64>(fn, p, x, gemm__cuda_single(1),
                                                                    gemm__cuda_aligned_ab(p, x), gpu->sms,
                                                                    opt->split_k, stream);
        }
    return gemm__cuda_exact_run<T>(fn, &t, p, x, gpu, opt->split_k, stream);
}
/* <<cuda exact_run */
/* >>cuda tc_launch: src/cuda/tc_launch.cuh */
/* The tensor-core modes' launches: which kernel this device and build can
   run, the tensor maps of WGMMA's copy engine, the operand copies, the
   WGMMA tile height and K split, and the launches of WGMMA and MMA. */

/* Whether this build holds the sm_90a WGMMA code for device `dev`: read once
   per device from the module the runtime loaded for it. */
static bool gemm__cuda_wgmma_available(int dev, int major, int minor)
{
    static std::atomic<int> known[64]; /* 0: not asked yet, 1: no, 2: yes */
    int built = 0;
    if (major != 9 || minor != 0 || dev < 0 || dev >= 64) return false;
    if (known[dev].load() == 0)
        known[dev].store(cudaMemcpyFromSymbol(&built, gemm__cuda_wgmma_built, sizeof built) == cudaSuccess && built ? 2 : 1);
    return known[dev].load() == 2;
}

static gemm_cuda_kernel gemm__cuda_choose_tc(int dev, int major, int minor)
{
    if (gemm__cuda_wgmma_available(dev, major, minor)) return GEMM_CUDA_KERNEL_WGMMA;
    return major >= 8 ? GEMM_CUDA_KERNEL_MMA : GEMM_CUDA_KERNEL_NAIVE;
}

/* cuTensorMapEncodeTiled from the driver, found through the runtime so that
   nothing needs -lcuda. */
typedef CUresult (*gemm__cuda_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                         const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                         CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                         CUtensorMapFloatOOBfill);

template <typename T> static CUtensorMapDataType gemm__cuda_tma_type(void)
{
    return std::is_same<T, __half>::value          ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
           : std::is_same<T, __nv_bfloat16>::value ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                   : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/* A k-major operand the tensor-core kernels can read: X(r, q) at X[r*ld + q],
   16-byte aligned base and rows. */
template <typename T> struct gemm__cuda_kmajor {
    const T *X;
    int64_t ld;
};

static bool gemm__cuda_kmajor_ready(const void *X, int64_t ld, size_t elem, bool kmajor)
{
    return kmajor && (uintptr_t)X % 16 == 0 && (ld * (int64_t)elem) % 16 == 0;
}

/* A tensor map of X for wgmma: `rank` dimensions (dims, innermost first;
   strides in bytes of the outer ones), boxes of `box`, the 128-byte
   swizzle. Elements past the edges arrive as zeros. */
template <typename T>
static gemm_status gemm__cuda_encode(const char *fn, CUtensorMap *map, const T *X, int rank, const cuuint64_t *dims,
                                     const cuuint64_t *strides, const cuuint32_t *box)
{
    static std::atomic<gemm__cuda_encode_fn> encode{NULL};
    cuuint32_t unit[3] = {1, 1, 1};
    CUresult r;
    if (!encode.load()) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)", e);
        if (q != cudaDriverEntryPointSuccess || !f)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the driver has no cuTensorMapEncodeTiled", fn);
        encode.store((gemm__cuda_encode_fn)f);
    }
    r = encode.load()(map, gemm__cuda_tma_type<T>(), (cuuint32_t)rank, (void *)X, dims, strides, box, unit,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gemm__fail(GEMM_ERR_DEVICE, "%s: cuTensorMapEncodeTiled failed (CUresult %d)", fn, (int)r);
    return GEMM_OK;
}

/* An outer x inner matrix (rows of `inner` contiguous elements, ld apart)
   whose box is box_outer rows of 128 bytes; members > 1: a strided batch's
   operand (`stride` elements apart) as a third dimension. */
template <typename T>
static gemm_status gemm__cuda_tensor_map(const char *fn, CUtensorMap *map, const T *X, int64_t ld, int inner, int outer,
                                         int box_outer, int64_t members = 1, int64_t stride = 0)
{
    cuuint64_t dims[3] = {(cuuint64_t)inner, (cuuint64_t)outer, (cuuint64_t)members},
               strides[2] = {(cuuint64_t)ld * sizeof(T), (cuuint64_t)stride * sizeof(T)};
    cuuint32_t box[3] = {(cuuint32_t)(gemm__cuda_wgmma_shape<256>::ROW_BYTES / sizeof(T)), (cuuint32_t)box_outer, 1};
    return gemm__cuda_encode(fn, map, X, members > 1 ? 3 : 2, dims, strides, box);
}

/* The fp32-accurate split of `rows` rows (split.cuh's sliced regions):
   planes of rows x 32 floats; a box is box_rows rows of one plane. */
static gemm_status gemm__cuda_tensor_map_sliced(const char *fn, CUtensorMap *map, const float *X, int rows, int planes,
                                                int box_rows)
{
    cuuint64_t dims[3] = {32, (cuuint64_t)rows, (cuuint64_t)planes},
               strides[2] = {32 * sizeof(float), (cuuint64_t)rows * 32 * sizeof(float)};
    cuuint32_t box[3] = {32, (cuuint32_t)box_rows, 1};
    return gemm__cuda_encode(fn, map, X, 3, dims, strides, box);
}

/* Copies operand X (rows x K; k-major or not) into `out` as k-major rows of
   ldo elements: `count` members as bc says (`aligned`: every member's X
   and ld 16-byte aligned), at most 65535 per launch. */
template <typename T>
static gemm_status gemm__cuda_pack(const char *fn, const T *X, int64_t ld, bool kmajor, bool aligned, int rows, int K,
                                   T *out, int64_t ldo, gemm__cuda_batch_copy bc, int64_t count, cudaStream_t stream)
{
    bool wide = !kmajor && aligned;
    dim3 grid((unsigned)((K + (wide ? 63 : 31)) / (wide ? 64 : 32)), (unsigned)((rows + (wide ? 63 : 31)) / (wide ? 64 : 32)));
    if (grid.y > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the operand copy", fn, rows);
    for (int64_t first = 0; first < count; first += 65535) {
        grid.z = (unsigned)(count - first < 65535 ? count - first : 65535);
        bc.first = first;
        if (wide) gemm__cuda_transpose_kernel<T><<<grid, 256, 0, stream>>>(rows, K, X, ld, out, ldo, bc);
        else gemm__cuda_pack_kernel<T><<<grid, dim3(32, 8), 0, stream>>>(rows, K, X, ld, kmajor ? 1 : 0, out, ldo, bc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* The WGMMA block height: options.variant 1 = 256, 2 = 128; automatic
   (0): 128 when M fits one such tile (a 256-row tile would be half empty:
   thin problems such as 16384 x 128 x 16384 row-major), else 256, whose
   reuse of each copied slice wins at every K measured on the H100 and the
   H200, short K included (4096 x 4096 x 256, 8192 x 8192 x 1024: two
   128-row blocks per SM move a third more bytes from L2 per product). The
   fp32-accurate mode always takes 256 (its promoted sums need the split
   tile, wgmma.cuh). */
static int gemm__cuda_wgmma_bm(int M, int variant, bool accurate)
{
    if (accurate) return 256;
    if (variant == 1 || variant == 2) return variant == 1 ? 256 : 128;
    return M <= 128 ? 128 : 256;
}

/* How many parts the WGMMA kernel splits K into: options.split_k when set,
   else enough units to give every block slot (SMs x blocks per SM) one
   when the tiles are fewer than the slots, keeping at least 4 K tiles per
   part. Returns the parts, none empty. */
static int gemm__cuda_wgmma_split(int tiles, int ktiles, int slots, int requested)
{
    int split = requested > 0 ? requested : tiles < slots ? slots / tiles : 1;
    if (requested <= 0 && split > ktiles / 4) split = ktiles / 4;
    if (split > ktiles) split = ktiles;
    if (split > 64) split = 64;
    if (split < 1) return 1;
    return (ktiles + (ktiles + split - 1) / split - 1) / ((ktiles + split - 1) / split); /* no empty parts */
}

/* How one tensor-core call runs: its kernel; whether WGMMA reads a 16-bit
   op(A) M-major (a_mn) or op(B) N-major (b_mn) in place; which operands
   are first copied into k-major rows of ldo elements, or, in the
   fp32-accurate mode (`accurate`), split into `regions` regions of ldo
   elements each (split.cuh); the WGMMA tile height, K split, raster group
   and grid, and whether the last part of a split tile sums the parts
   (`fixup`); and the scratch bytes of the copies (a's elements first), of
   split-K's sums, its counters (at `counters_at`) and the accurate mode's
   Inf/NaN flag (at `flag_at`). */
typedef struct gemm__cuda_tc_plan {
    gemm_cuda_kernel kernel;
    bool a_mn, b_mn, copy_a, copy_b, accurate, fixup;
    int wg_bm, split, group, grid, regions;
    int64_t ldo;
    gemm__cuda_wgmma_work work;
    size_t a_elems, b_elems, packed, partial_bytes, counters_at, flag_at, scratch_bytes;
} gemm__cuda_tc_plan;

/* The WGMMA schedule of a plan: tiles, K split, units, and the grid: one
   block per unit up to the block slots of the device (persistent blocks
   walk the rest). Test hooks may force the raster group, the grid, the
   epilogue or the way a split K is summed. */
static void gemm__cuda_wgmma_schedule(gemm__cuda_tc_plan *t, int M, int N, int64_t K, int elem, int sms, int split_k)
{
    gemm__cuda_wgmma_work *w = &t->work;
    int bk = 128 / elem, slots = sms * (t->wg_bm == 256 ? 1 : 2), grid;
    memset(w, 0, sizeof *w);
    w->members = 1;
    w->tm = (M + t->wg_bm - 1) / t->wg_bm;
    w->tn = (N + 127) / 128;
    w->tiles = w->tm * w->tn;
    if (t->accurate) { /* three segments of K, each padded to whole slices (ldo) */
        w->kt_seg = (int)(t->ldo / bk);
        w->kt_total = 3 * w->kt_seg;
    } else {
        w->kt_total = (int)((K + bk - 1) / bk);
    }
    t->split = gemm__cuda_wgmma_split(w->tiles, w->kt_total, slots, split_k);
    w->kt_per = (w->kt_total + t->split - 1) / t->split;
    w->units = w->tiles * t->split;
    w->group = GEMM__HOOK(cuda_wgmma_group, 8);
    /* the staged epilogue and a separate sum kernel: on an H100 the
       last part's in-kernel sum ran split shapes (1024^3, thin ones) at
       0.4-0.5 of the sum kernel's speed, the direct epilogue large ones at
       0.85-0.9 of the staged one's */
    w->epilogue = GEMM__HOOK(cuda_wgmma_epilogue, 1);
    t->fixup = t->split > 1 && GEMM__HOOK(cuda_wgmma_reduce, 1) == 2;
    grid = GEMM__HOOK(cuda_wgmma_grid, 0);
    t->group = w->group;
    t->grid = grid < 0 ? w->units : grid > 0 ? (grid < w->units ? grid : w->units) : (slots < w->units ? slots : w->units);
}

template <typename T>
static gemm__cuda_tc_plan gemm__cuda_tc_plan_of(gemm_cuda_kernel kernel, const gemm__problem *p, const T *a,
                                                const T *b, const gemm_cuda_options *opt, int sms)
{
    gemm__cuda_tc_plan t;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, elem = (int)sizeof(T);
    bool ak = p->a_trans, bk = !p->b_trans, wgmma = kernel == GEMM_CUDA_KERNEL_WGMMA; /* k-major operands */
    memset(&t, 0, sizeof t);
    t.kernel = kernel;
    t.accurate = std::is_same<T, float>::value && opt->math == GEMM_CUDA_MATH_FP32_ACCURATE;
    t.ldo = t.accurate ? (K + 31) / 32 * 32 : (K + 7) / 8 * 8; /* whole 128-byte slices; 16-byte rows */
    t.regions = t.accurate ? 3 : 1;
    /* WGMMA reads 16-bit operands MN-major as well (wgmma's transpose bits) */
    t.a_mn = wgmma && elem == 2 && !ak && gemm__cuda_kmajor_ready(a, p->lda, elem, true);
    t.b_mn = wgmma && elem == 2 && !bk && gemm__cuda_kmajor_ready(b, p->ldb, elem, true);
    t.copy_a = t.accurate || (!t.a_mn && !gemm__cuda_kmajor_ready(a, p->lda, elem, ak));
    t.copy_b = t.accurate || (!t.b_mn && !gemm__cuda_kmajor_ready(b, p->ldb, elem, bk));
    t.wg_bm = gemm__cuda_wgmma_bm(M, opt->variant, t.accurate);
    t.split = 1;
    if (wgmma) gemm__cuda_wgmma_schedule(&t, M, N, K, elem, sms, opt->split_k);
    t.a_elems = t.copy_a ? (size_t)M * t.regions * t.ldo : 0;
    t.b_elems = t.copy_b ? (size_t)N * t.regions * t.ldo : 0;
    t.packed = ((t.a_elems + t.b_elems) * sizeof(T) + 255) / 256 * 256;
    t.partial_bytes = t.split > 1 ? ((size_t)t.split * M * N * sizeof(float) + 255) / 256 * 256 : 0;
    t.counters_at = t.packed + t.partial_bytes;
    t.flag_at = t.counters_at + (t.fixup ? ((size_t)t.work.tiles * sizeof(int) + 255) / 256 * 256 : 0);
    t.scratch_bytes = t.flag_at + (t.accurate ? 256 : 0);
    return t;
}

/* The WGMMA kernel for a plan's operand layouts. */
template <typename T, typename TC, int BM> static void *gemm__cuda_wgmma_kernel_of(const gemm__cuda_tc_plan *t)
{
    if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value && BM == 256)
        if (t->accurate) return (void *)gemm__cuda_wgmma_kernel<T, TC, false, false, BM, true>;
    if constexpr (sizeof(T) == 2) { /* TF32 reads both operands k-major */
        if (t->a_mn && t->b_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, true, true, BM, false>;
        if (t->a_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, true, false, BM, false>;
        if (t->b_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, false, true, BM, false>;
    }
    return (void *)gemm__cuda_wgmma_kernel<T, TC, false, false, BM, false>;
}

/* WGMMA with BM-row block tiles. a and b: the operands as the kernel reads
   them (x's own, or their k-major copies or splits); a_mn / b_mn (16-bit
   only): a is op(A) as stored, M-major (a.X(r, q) at a.X[q*a.ld + r]), b
   op(B)^T as stored, N-major. With K split, `partial` holds split x M x N
   floats and, when the plan sums in the kernel, `counters` one int per
   tile; in the accurate mode `nonfinite` is the split's Inf/NaN flag.
   A strided batch (plan's work.members > 1, K not split): a and b are
   its members' bases, sa and sb their strides (0: shared). */
template <typename T, typename TC, int BM>
static gemm_status gemm__cuda_launch_wgmma(const char *fn, const gemm__problem *p, const gemm__cuda_tc_plan *t,
                                           gemm__cuda_kmajor<T> a, gemm__cuda_kmajor<T> b,
                                           const gemm__cuda_operands<T, TC, float> &x, float *partial, int *counters,
                                           const int *nonfinite, int64_t sa, int64_t sb, cudaStream_t stream)
{
    typedef gemm__cuda_wgmma_shape<BM> S;
    CUtensorMap map_a, map_b;
    gemm_status s;
    gemm__cuda_wgmma_work w = t->work;
    void *kern = gemm__cuda_wgmma_kernel_of<T, TC, BM>(t);
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, bk = S::ROW_BYTES / (int)sizeof(T);
    float alpha = x.alpha, beta = x.beta;
    TC *C = x.c;
    int64_t ldc = p->ldc;
    void *args[] = {&map_a, &map_b, &w, &M, &N, &alpha, &beta, (void *)&C, &ldc, (void *)&partial};
    w.nonfinite = nonfinite;
    w.counters = t->fixup ? counters : NULL;
    if (t->split <= 1) partial = NULL;
    int64_t ma = w.a3 ? w.members : 1, mb = w.b3 ? w.members : 1;
    if ((int64_t)((M + S::BM - 1) / S::BM) * ((N + S::BN - 1) / S::BN) * t->split * w.members > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d x %d is too many tiles for one launch", fn, M, N);
    if (t->accurate) {
        int planes = 3 * (int)(t->ldo / 32);
        if constexpr (std::is_same<T, float>::value)
            if ((s = gemm__cuda_tensor_map_sliced(fn, &map_a, a.X, M, planes, S::BM)) != GEMM_OK ||
                (s = gemm__cuda_tensor_map_sliced(fn, &map_b, b.X, N, planes, S::BN)) != GEMM_OK)
                return s;
    } else if ((s = t->a_mn ? gemm__cuda_tensor_map(fn, &map_a, a.X, a.ld, M, K, bk, ma, sa)
                            : gemm__cuda_tensor_map(fn, &map_a, a.X, a.ld, K, M, S::BM, ma, sa)) != GEMM_OK ||
               (s = t->b_mn ? gemm__cuda_tensor_map(fn, &map_b, b.X, b.ld, N, K, bk, mb, sb)
                            : gemm__cuda_tensor_map(fn, &map_b, b.X, b.ld, K, N, S::BN, mb, sb)) != GEMM_OK) {
        return s;
    }
    if (w.counters) GEMM__CUDA_TRY(fn, cudaMemsetAsync(w.counters, 0, (size_t)w.tiles * sizeof(int), stream));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaLaunchKernel(kern, dim3((unsigned)t->grid), dim3(S::THREADS), args, S::SMEM, stream));
    if (partial && !w.counters) {
        int64_t blocks = ((int64_t)M * N + 255) / 256;
        gemm__cuda_splitk_sum_kernel<TC><<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
            M, N, t->split, partial, alpha, beta, C, ldc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* MMA over the members of bt (K is not split): BM x BM block tiles
   (gemm__cuda_mma_shape: 128, or 64 for a batch's small members). AK
   false: a is op(A) as stored, M-major (a.X(r, q) at a.X[q*a.ld + r]),
   read in place; b is always k-major. */
template <typename T, typename TC, int BM = 128, bool AK = true>
static gemm_status gemm__cuda_launch_mma(const char *fn, const gemm__problem *p, gemm__cuda_kmajor<T> a,
                                         gemm__cuda_kmajor<T> b, const gemm__cuda_operands<T, TC, float> &x,
                                         bool accurate, gemm__cuda_batch bt, cudaStream_t stream)
{
    typedef gemm__cuda_mma_shape<T, BM, AK> S;
    size_t smem = S::SMEM;
    void *kern = (void *)gemm__cuda_mma_kernel<T, TC, false, BM, AK>;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, tm = (M + S::BM - 1) / S::BM, tn = (N + S::BN - 1) / S::BN;
    float alpha = x.alpha, beta = x.beta;
    const T *A = a.X, *B = b.X;
    TC *C = x.c;
    int64_t ldc = p->ldc;
    if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value && BM == 128 && AK)
        if (accurate) kern = (void *)gemm__cuda_mma_kernel<T, TC, true>;
    if (tn > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for one launch", fn, N);
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    bt.split = 1;
    return gemm__cuda_each_run(fn, bt, [&](gemm__cuda_batch run, unsigned z) {
        void *args[] = {&M, &N, &K, &alpha, (void *)&A, &a.ld, (void *)&B, &b.ld, &beta, (void *)&C, &ldc, &run};
        return cudaLaunchKernel(kern, dim3((unsigned)tm, (unsigned)tn, z), dim3(S::NT), args, smem, stream);
    });
}
/* <<cuda tc_launch */
/* >>cuda tc: src/cuda/tc.cuh */
/* The tensor-core modes (TF32, FP16, BF16 inputs; fp32 sums): the kernel,
   the operand copies and split-K sums in scratch, the launch. */

/* options.kernel, or AUTO's choice, when this device and build can run it. */
static gemm_status gemm__cuda_tc_kernel(const char *fn, const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                        gemm_cuda_kernel *kernel)
{
    *kernel = opt->kernel ? opt->kernel : gemm__cuda_choose_tc(gpu->dev, gpu->major, gpu->minor);
    if (*kernel == GEMM_CUDA_KERNEL_MMA && gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the mma kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, gpu->major, gpu->minor);
    if (*kernel == GEMM_CUDA_KERNEL_WGMMA && !gemm__cuda_wgmma_available(gpu->dev, gpu->major, gpu->minor))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the wgmma kernel needs compute capability 9.0 (this GPU is %d.%d) "
                          "and a build for sm_90a (-gencode arch=compute_90a,code=sm_90a)", fn, gpu->major, gpu->minor);
    return GEMM_OK;
}

/* The fp32-accurate mode's split of both operands into scratch (split.cuh):
   WGMMA reads the sliced regions hi, lo (and hc, written only when an Inf
   or NaN was seen) through its K segments; MMA reads rows [lo | hc | hi]
   against [hc | lo | hi] as one K of 3*ldo. */
static gemm_status gemm__cuda_split_operands(const char *fn, const gemm__cuda_tc_plan *t, const gemm__problem *p,
                                             const float *a, const float *b, float *sa, float *sb, int *flag,
                                             int sms, cudaStream_t stream)
{
    bool wgmma = t->kernel == GEMM_CUDA_KERNEL_WGMMA;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, ldo = (int)t->ldo;
    int pat_a = wgmma ? GEMM__CUDA_PATTERN(GEMM__CUDA_HI, GEMM__CUDA_LO, 0)
                      : GEMM__CUDA_PATTERN(GEMM__CUDA_LO, GEMM__CUDA_HC, GEMM__CUDA_HI),
        pat_b = wgmma ? pat_a : GEMM__CUDA_PATTERN(GEMM__CUDA_HC, GEMM__CUDA_LO, GEMM__CUDA_HI);
    const float *src[2] = {a, b};
    float *dst[2] = {sa, sb};
    int rows[2] = {M, N}, pattern[2] = {pat_a, pat_b}, kmajor[2] = {p->a_trans, !p->b_trans};
    int64_t ld[2] = {p->lda, p->ldb};
    GEMM__CUDA_TRY(fn, cudaMemsetAsync(flag, 0, sizeof(int), stream));
    for (int o = 0; o < 2; o++) {
        gemm__cuda_split_dst d = {dst[o], 3 * (int64_t)ldo, rows[o], ldo, wgmma ? 1 : 0, pattern[o], wgmma ? 2 : 3, flag};
        if (kmajor[o]) {
            int64_t work = (int64_t)rows[o] * (ldo / 4), blocks = (work + 255) / 256;
            gemm__cuda_split_rows_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(K, src[o],
                                                                                                      ld[o], d);
        } else {
            dim3 grid((unsigned)(ldo / 32), (unsigned)((rows[o] + 31) / 32)), block(32, 8);
            if (grid.y > 65535)
                return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the operand split", fn, rows[o]);
            gemm__cuda_split_cols_kernel<<<grid, block, 0, stream>>>(K, src[o], ld[o], d);
        }
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    if (wgmma) {
        gemm__cuda_split_hc_kernel<<<(unsigned)(4 * sms), 256, 0, stream>>>((int64_t)M * ldo, (int64_t)N * ldo, sa, sb,
                                                                            flag);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* The operand copies a plan names (or, accurate, the split) into scratch;
   a and b then describe what the kernel reads. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc_prepare(const char *fn, const gemm__cuda_tc_plan *t, const gemm__problem *p,
                                         const gemm__cuda_operands<T, TC, float> &x, T *scratch, int sms,
                                         gemm__cuda_kmajor<T> *a, gemm__cuda_kmajor<T> *b, cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    if (t->accurate) {
        if constexpr (std::is_same<T, float>::value) {
            a->X = scratch; a->ld = 3 * t->ldo; /* rows for MMA; WGMMA reads the slice planes */
            b->X = scratch + t->a_elems; b->ld = 3 * t->ldo;
            return gemm__cuda_split_operands(fn, t, p, x.a, x.b, scratch, scratch + t->a_elems,
                                             (int *)((char *)scratch + t->flag_at), sms, stream);
        }
    }
    if (t->copy_a) {
        a->X = scratch; a->ld = t->ldo;
        s = gemm__cuda_pack(fn, x.a, p->lda, p->a_trans, gemm__cuda_aligned16(x.a, p->lda, sizeof(T)), (int)p->m,
                            (int)p->k, scratch, t->ldo, gemm__cuda_single_copy(), 1, stream);
    }
    if (s == GEMM_OK && t->copy_b) {
        b->X = scratch + t->a_elems; b->ld = t->ldo;
        s = gemm__cuda_pack(fn, x.b, p->ldb, !p->b_trans, gemm__cuda_aligned16(x.b, p->ldb, sizeof(T)), (int)p->n,
                            (int)p->k, scratch + t->a_elems, t->ldo, gemm__cuda_single_copy(), 1, stream);
    }
    return s;
}

/* Runs a plan: the copies it names and its split-K sums go through one
   scratch buffer taken from the device's pool and given back in stream
   order, so nothing waits for the device. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc_run(const char *fn, const gemm__cuda_tc_plan *t, const gemm__problem *p,
                                     const gemm__cuda_operands<T, TC, float> &x, const gemm__cuda_gpu *gpu,
                                     cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    T *scratch = NULL;
    float *partial = NULL;
    int *counters = NULL;
    const int *flag = NULL;
    gemm__cuda_kmajor<T> a = {x.a, p->lda}, b = {x.b, p->ldb};
    gemm__problem q = *p;
    if (t->scratch_bytes > 0) {
        cudaMemPool_t pool;
        cudaError_t e;
        if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
        e = cudaMallocFromPoolAsync((void **)&scratch, t->scratch_bytes, pool, stream);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (operand copies, split-K sums)", e);
        if (t->partial_bytes) partial = (float *)((char *)scratch + t->packed);
        if (t->fixup) counters = (int *)((char *)scratch + t->counters_at);
        if (t->accurate) flag = (const int *)((char *)scratch + t->flag_at);
        s = gemm__cuda_tc_prepare<T, TC>(fn, t, p, x, scratch, gpu->sms, &a, &b, stream);
    }
    if (t->accurate) q.k = 3 * t->ldo; /* MMA: the three regions are one K */
    if (s == GEMM_OK && t->kernel == GEMM_CUDA_KERNEL_WGMMA)
        s = t->wg_bm == 128 ? gemm__cuda_launch_wgmma<T, TC, 128>(fn, p, t, a, b, x, partial, counters, flag, 0, 0, stream)
                            : gemm__cuda_launch_wgmma<T, TC, 256>(fn, p, t, a, b, x, partial, counters, flag, 0, 0, stream);
    else if (s == GEMM_OK)
        s = gemm__cuda_launch_mma<T, TC>(fn, &q, a, b, x, t->accurate, gemm__cuda_single(1), stream);
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

/* A tensor-core call: T is A's and B's type (float for TF32), TC is C's. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, float> &x,
                                 const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    gemm__cuda_tc_plan t;
    gemm_cuda_kernel kernel;
    gemm_status s = gemm__cuda_tc_kernel(fn, opt, gpu, &kernel);
    if (s != GEMM_OK) return s;
    if (kernel == GEMM_CUDA_KERNEL_NAIVE) return gemm__cuda_launch_ladder(fn, kernel, p, x, gemm__cuda_single(1), stream);
    t = gemm__cuda_tc_plan_of<T>(kernel, p, x.a, x.b, opt, gpu->sms);
    return gemm__cuda_tc_run<T, TC>(fn, &t, p, x, gpu, stream);
}
/* <<cuda tc */
/* >>cuda run: src/cuda/run.cuh */
/* The device-pointer path of every call, after the checks: the first steps
   (sizes, pointers, C = beta*C), the device, then the exact or the
   tensor-core path. The host-pointer path ends here too, with its device
   copies. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_run(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                  const gemm_cuda_options *opt, cudaStream_t stream)
{
    gemm__cuda_gpu gpu;
    bool finished;
    gemm_status s = gemm__cuda_begin(fn, p, x, stream, &finished);
    if (s != GEMM_OK || finished) return s;
    if ((s = gemm__cuda_query(fn, &gpu)) != GEMM_OK) return s;
    if constexpr (std::is_same<T, double>::value) {
        return gemm__cuda_exact<T>(fn, p, x, opt, &gpu, stream);
    } else if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value) {
        if (gemm__cuda_is_tc<T>(opt)) return gemm__cuda_tc<T, TC>(fn, p, x, opt, &gpu, stream);
        return gemm__cuda_exact<T>(fn, p, x, opt, &gpu, stream);
    } else {
        return gemm__cuda_tc<T, TC>(fn, p, x, opt, &gpu, stream);
    }
}
/* <<cuda run */
/* >>cuda batch_run: src/cuda/batch_run.cuh */
/* Batches on the device: the checks of every member's memory, the device
   copy of a pointer-array batch's lists, and the launches, the members in
   the grid (batch.cuh). Exact fp32 runs the warp-tiled kernel when every
   member is 16-byte aligned and larger than 64 x 64 (and K is whole),
   else a 64 x 64 SIMT configuration; fp64 runs the TMA DMMA kernel on a
   strided batch on Hopper (members as the tensor maps' third dimension),
   else DMMA's cp.async configurations (64 x 64 for members of at most 64
   rows, 128 x 64 else); the tensor-core modes run WGMMA on a strided batch
   on Hopper, else MMA, after one batched copy of the operands the kernel
   cannot read in place. The
   fp32-accurate mode runs its members one after another (its split of the
   operands is not batched). Nothing of a batch goes through scratch but
   these copies and the pointer lists. */

/* cuMemGetAddressRange from the driver, through the runtime (no -lcuda). */
typedef CUresult (*gemm__cuda_range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);

/* The allocation that holds address p; false when the driver knows none
   (host memory, a stale pointer, memory mapped without an allocation). */
static bool gemm__cuda_allocation(const void *p, uint64_t *base, uint64_t *size)
{
    static std::atomic<gemm__cuda_range_fn> range{NULL};
    CUdeviceptr b;
    size_t n;
    if (!range.load()) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !f)
            return false;
        range.store((gemm__cuda_range_fn)f);
    }
    if (range.load()((CUdeviceptr *)&b, &n, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS) return false;
    *base = (uint64_t)b;
    *size = (uint64_t)n;
    return true;
}

/* Allocations a batch's checks have met (a batch's members usually live
   in a few), so that each member costs a comparison, not a driver call. */
typedef struct gemm__cuda_spans {
    uint64_t base[8], end[8];
    int n, next;
} gemm__cuda_spans;

/* The device can read `bytes` from p, all in one allocation when the
   driver knows p's. `what` names the operand ("A[17]", "C's members"). */
static gemm_status gemm__cuda_check_span(const char *fn, gemm__cuda_spans *k, const char *what, const void *p,
                                         uint64_t bytes)
{
    uint64_t a = (uint64_t)(uintptr_t)p, base, size, end = 0;
    int i;
    for (i = 0; i < k->n && !end; i++)
        if (a >= k->base[i] && a < k->end[i]) end = k->end[i];
    if (!end) {
        cudaPointerAttributes at;
        cudaError_t e = cudaPointerGetAttributes(&at, p);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaPointerGetAttributes", e);
        if (at.type == cudaMemoryTypeUnregistered)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is a host pointer the GPU cannot read; pass device memory",
                              fn, what);
        /* host memory mapped for the device has no allocation range to check */
        if (at.type == cudaMemoryTypeHost || !gemm__cuda_allocation(p, &base, &size)) return GEMM_OK;
        end = base + size;
        i = k->n < 8 ? k->n++ : k->next++ % 8;
        k->base[i] = base;
        k->end[i] = end;
    }
    if (bytes > end - a)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s runs past the end of its allocation (%llu bytes from its start "
                          "are read or written, %llu are there)", fn, what, (unsigned long long)bytes,
                          (unsigned long long)(end - a));
    return GEMM_OK;
}

/* Bytes from a strided operand's first element to one past the last
   member's last (extent: one member's elements). */
static uint64_t gemm__cuda_strided_bytes(int64_t count, int64_t stride, int64_t extent, size_t elem)
{
    return extent > 0 ? ((uint64_t)(count - 1) * (uint64_t)stride + (uint64_t)extent) * elem : 0;
}

/* Every member's A, B (when read) and C (when written): device memory,
   each within its allocation. */
static gemm_status gemm__cuda_check_members(const char *fn, const gemm__problem *p, const gemm__batch *hb,
                                            const void *a, const void *b, const void *c, size_t elem_ab,
                                            size_t elem_c)
{
    gemm__cuda_spans k = {};
    bool reads = p->work == GEMM__WORK_FULL;
    const char *na = p->swapped ? "B" : "A", *nb = p->swapped ? "A" : "B";
    uint64_t ba = (uint64_t)p->a_extent * elem_ab, bb = (uint64_t)p->b_extent * elem_ab,
             bc = (uint64_t)p->c_extent * elem_c;
    char what[64];
    gemm_status s;
    if (!hb->c_list) {
        snprintf(what, sizeof what, "%s's %lld members", na, (long long)hb->count);
        if (reads && (s = gemm__cuda_check_span(fn, &k, what, a, gemm__cuda_strided_bytes(hb->count, hb->stride_a,
                                                                                          p->a_extent, elem_ab))) != GEMM_OK)
            return s;
        snprintf(what, sizeof what, "%s's %lld members", nb, (long long)hb->count);
        if (reads && (s = gemm__cuda_check_span(fn, &k, what, b, gemm__cuda_strided_bytes(hb->count, hb->stride_b,
                                                                                          p->b_extent, elem_ab))) != GEMM_OK)
            return s;
        snprintf(what, sizeof what, "C's %lld members", (long long)hb->count);
        return gemm__cuda_check_span(fn, &k, what, c, gemm__cuda_strided_bytes(hb->count, hb->stride_c, p->c_extent,
                                                                              elem_c));
    }
    for (int64_t i = 0; i < hb->count; i++) {
        const void *mc = (const void *)(uintptr_t)hb->addr_c(hb->c_list, i);
        if (reads) {
            const void *ma = (const void *)(uintptr_t)hb->addr_ab(hb->a_list, i),
                       *mb = (const void *)(uintptr_t)hb->addr_ab(hb->b_list, i);
            snprintf(what, sizeof what, "member %lld: %s[%lld]", (long long)i, na, (long long)i);
            if ((s = gemm__cuda_check_span(fn, &k, what, ma, ba)) != GEMM_OK) return s;
            snprintf(what, sizeof what, "member %lld: %s[%lld]", (long long)i, nb, (long long)i);
            if ((s = gemm__cuda_check_span(fn, &k, what, mb, bb)) != GEMM_OK) return s;
        }
        snprintf(what, sizeof what, "member %lld: C[%lld]", (long long)i, (long long)i);
        if ((s = gemm__cuda_check_span(fn, &k, what, mc, bc)) != GEMM_OK) return s;
    }
    return GEMM_OK;
}

/* Whether every member's operand is 16-byte aligned for `elem`-byte
   elements: strided (base, ld, stride) or listed (each pointer, ld). */
static bool gemm__cuda_members_aligned(const gemm__batch *hb, const void *list, const void *base, int64_t ld,
                                       int64_t stride, size_t elem)
{
    if ((ld * (int64_t)elem) % 16 != 0) return false;
    if (!list) return (uintptr_t)base % 16 == 0 && (stride * (int64_t)elem) % 16 == 0;
    for (int64_t i = 0; i < hb->count; i++)
        if (hb->addr_ab(list, i) % 16 != 0) return false;
    return true;
}

/* The device's copy of a pointer-array batch's lists (a and b of the
   canonical problem, then C; each address as a byte offset from a NULL
   base, batch.cuh) in `scratch`, a buffer of the pool the caller gives
   back in stream order; bt then reads them. The host's copy is consumed
   before this returns, so the caller's lists may change after the call. */
static gemm_status gemm__cuda_upload_lists(const char *fn, const gemm__batch *hb, int dev, cudaStream_t stream,
                                           void **scratch, gemm__cuda_batch *bt)
{
    size_t bytes = 3 * (size_t)hb->count * sizeof(int64_t);
    int64_t *host = (int64_t *)GEMM_MALLOC(bytes), *d;
    cudaMemPool_t pool;
    cudaError_t e;
    gemm_status s;
    if (!host) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for %lld members' pointers", fn,
                                 (long long)hb->count);
    for (int64_t i = 0; i < hb->count; i++) { /* A and B may be NULL lists where they are not read */
        host[i] = hb->a_list ? (int64_t)hb->addr_ab(hb->a_list, i) : 0;
        host[hb->count + i] = hb->b_list ? (int64_t)hb->addr_ab(hb->b_list, i) : 0;
        host[2 * hb->count + i] = (int64_t)hb->addr_c(hb->c_list, i);
    }
    s = gemm__cuda_scratch_pool(fn, dev, true, &pool);
    e = s == GEMM_OK ? cudaMallocFromPoolAsync(scratch, bytes, pool, stream) : cudaSuccess;
    if (s == GEMM_OK && e != cudaSuccess) s = gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (member pointers)", e);
    if (s == GEMM_OK && (e = cudaMemcpyAsync(*scratch, host, bytes, cudaMemcpyHostToDevice, stream)) != cudaSuccess)
        s = gemm__cuda_fail(fn, "cudaMemcpyAsync (member pointers)", e);
    GEMM_FREE(host);
    if (s != GEMM_OK) return s;
    d = (int64_t *)*scratch;
    bt->a = d;
    bt->b = d + hb->count;
    bt->c = d + 2 * hb->count;
    return GEMM_OK;
}

/* Whether a batch's a and b can be 3-D tensor maps (the TMA kernels):
   strided, each stride 0 (a shared operand) or at least one member's
   whole span, so the copy engine sees the members as a third dimension
   (16-byte alignment is checked apart). */
static bool gemm__cuda_tma_members(const gemm__problem *p, const gemm__cuda_batch &bt)
{
    int64_t span_a = p->lda * (p->a_trans ? p->m : p->k), span_b = p->ldb * (p->b_trans ? p->k : p->n);
    if (bt.a || bt.b || bt.c || bt.count > INT32_MAX) return false;
    return (bt.stride_a == 0 || bt.stride_a >= span_a) && (bt.stride_b == 0 || bt.stride_b >= span_b);
}

/* Exact fp32 and fp64 over the members of bt (`aligned`: every member's A
   and B 16-byte aligned). K is split only when options.split_k asks: a
   member's sums then do not depend on the batch around it (the same bits
   in a batch of one as in a batch of 10,000). */
template <typename T>
static gemm_status gemm__cuda_exact_members(const char *fn, const gemm__problem *p,
                                            const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_batch &bt,
                                            bool aligned, const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                            cudaStream_t stream)
{
    gemm_precision precision = sizeof(T) == 8 ? GEMM_F64 : GEMM_F32;
    gemm_cuda_kernel kernel = opt->kernel ? opt->kernel : gemm__cuda_choose(precision, gpu->major, gpu->minor);
    bool small = p->m <= 64 || (sizeof(T) == 4 && p->n <= 64);
    int split = opt->split_k > 0 ? opt->split_k : 1;
    if ((kernel == GEMM_CUDA_KERNEL_DMMA || kernel == GEMM_CUDA_KERNEL_SIMT) && gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the %s kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, gemm_cuda_kernel_name(kernel), gpu->major, gpu->minor);
    if (kernel == GEMM_CUDA_KERNEL_NAIVE || kernel == GEMM_CUDA_KERNEL_TILED16)
        return gemm__cuda_launch_ladder(fn, kernel, p, x, bt, stream);
    if constexpr (sizeof(T) == 8) {
        if (kernel == GEMM_CUDA_KERNEL_SIMT)
            return gemm__cuda_launch_config<T, gemm__cuda_simt_f64>(fn, p, x, bt, aligned, gpu->sms, split, stream);
        if (opt->variant > 1)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: batches run DMMA's cp.async configuration (variant 1), not "
                              "the TMA configuration %d", fn, opt->variant);
        if (small)
            return gemm__cuda_launch_config<T, gemm__cuda_dmma_f64_small>(fn, p, x, bt, aligned, gpu->sms,
                                                                          split, stream);
        if (opt->variant == 0 && aligned && gemm__cuda_exact_tma_built(gpu->dev, gpu->major, gpu->minor) &&
            gemm__cuda_tma_members(p, bt)) {
            gemm__cuda_exact_plan t = {};
            t.kernel = GEMM_CUDA_KERNEL_DMMA;
            t.ak = p->a_trans;
            t.bk = !p->b_trans;
            t.lda = p->lda;
            t.ldb = p->ldb;
            t.variant = GEMM__CUDA_DMMA_TMA;
            return gemm__cuda_exact_launch<T>(fn, p, &t, x.a, x.b, x, bt, gpu->sms, split, stream);
        }
        return gemm__cuda_launch_config<T, gemm__cuda_dmma_f64>(fn, p, x, bt, aligned, gpu->sms, split, stream);
    } else {
        gemm__cuda_exact_dev dev;
        gemm__cuda_exact_plan t = {};
        if (!aligned || (small && opt->variant == 0) || split > 1) /* the warp-tiled batch instance keeps K whole */
            return gemm__cuda_launch_config<T, gemm__cuda_simt_f32_batch>(fn, p, x, bt, aligned, gpu->sms,
                                                                          split, stream);
        dev.sms = gpu->sms;
        dev.tma = false;
        GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&dev.smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu->dev));
        t.kernel = GEMM_CUDA_KERNEL_SIMT;
        t.ak = p->a_trans;
        t.bk = !p->b_trans;
        t.lda = p->lda;
        t.ldb = p->ldb;
        t.variant = opt->variant ? opt->variant : gemm__cuda_sw_choose(t.ak, t.bk, p->m, p->n, &dev);
        if (gemm__cuda_sw_smem(t.variant, t.ak, t.bk) > (size_t)dev.smem_block)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: SIMT configuration %d needs %zu bytes of shared memory per "
                              "block for this layout, this GPU gives %d", fn, t.variant,
                              gemm__cuda_sw_smem(t.variant, t.ak, t.bk), dev.smem_block);
        return gemm__cuda_exact_launch<T>(fn, p, &t, x.a, x.b, x, bt, gpu->sms, split, stream);
    }
}

/* The WGMMA plan of a strided batch: K not split, the members' units
   side by side (member outermost), a 16-bit operand read M- or N-major in
   place when aligned, every other operand not k-major and aligned copied. */
template <typename T>
static gemm__cuda_tc_plan gemm__cuda_wgmma_members_plan(const gemm__problem *p, const gemm__cuda_batch &bt,
                                                        bool aligned_a, bool aligned_b, int variant, int sms)
{
    gemm__cuda_tc_plan t;
    int elem = (int)sizeof(T), slots;
    memset(&t, 0, sizeof t);
    t.kernel = GEMM_CUDA_KERNEL_WGMMA;
    t.ldo = (p->k + 7) / 8 * 8;
    t.regions = 1;
    t.a_mn = elem == 2 && !p->a_trans && aligned_a;
    t.b_mn = elem == 2 && p->b_trans && aligned_b;
    t.copy_a = !t.a_mn && !(p->a_trans && aligned_a);
    t.copy_b = !t.b_mn && !(!p->b_trans && aligned_b);
    t.wg_bm = gemm__cuda_wgmma_bm((int)p->m, variant, false);
    gemm__cuda_wgmma_schedule(&t, (int)p->m, (int)p->n, p->k, elem, sms, 1);
    t.work.units *= (int)bt.count;
    t.work.members = (int)bt.count;
    t.work.stride_c = bt.stride_c;
    slots = sms * (t.wg_bm == 256 ? 1 : 2);
    t.grid = slots < t.work.units ? slots : t.work.units;
    t.a_elems = t.copy_a ? (size_t)(p->m * t.ldo) : 0;
    t.b_elems = t.copy_b ? (size_t)(p->n * t.ldo) : 0;
    return t;
}

/* The tensor-core modes over the members of bt: members of at most 64 x
   64 on MMA's 64 x 64 tiles, a block per member (a WGMMA tile of 128 rows
   would be three quarters empty: 64^3 x 10,000 ran at 0.52-0.65 of
   cuBLAS's speed on WGMMA, 0.96-0.99 on these tiles, H100); others WGMMA
   for a strided batch where it runs (Hopper, sm_90a code), else MMA.
   MMA reads an aligned op(A) in place, k-major or M-major; WGMMA reads
   TF32 only k-major, so with an M-major op(A) (the NN case) and members
   of at most 256 columns TF32 takes MMA too: WGMMA's copy of op(A) costs
   more than its faster sums (H100, TF32 128^3 x 4000: 0.60 of cuBLAS on
   WGMMA, 0.99 on MMA; 256^3 x 1000: 0.66-0.71 and 0.89-0.92; but
   1024^3 x 16: 0.87 and 0.50). Operands a kernel cannot read in place
   are first copied, every member in one launch, into k-major rows in
   scratch. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc_members(const char *fn, const gemm__problem *p,
                                         const gemm__cuda_operands<T, TC, float> &x, gemm__cuda_batch bt,
                                         bool aligned_a, bool aligned_b, const gemm_cuda_options *opt,
                                         const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    size_t elem = sizeof(T);
    int64_t ldo = (p->k + 7) / 8 * 8; /* 16-byte rows */
    bool small = p->m <= 64 && p->n <= 64 && opt->kernel != GEMM_CUDA_KERNEL_WGMMA;
    bool tf32_mn = elem == 4 && !p->a_trans && aligned_a && p->n <= 256 && opt->kernel == GEMM_CUDA_KERNEL_AUTO;
    bool wgmma = !small && !tf32_mn &&
                 (opt->kernel == GEMM_CUDA_KERNEL_AUTO || opt->kernel == GEMM_CUDA_KERNEL_WGMMA) &&
                 gemm__cuda_wgmma_available(gpu->dev, gpu->major, gpu->minor) && gemm__cuda_tma_members(p, bt);
    gemm__cuda_tc_plan t = gemm__cuda_wgmma_members_plan<T>(p, bt, aligned_a, aligned_b, opt->variant, gpu->sms);
    bool copy_a = wgmma ? t.copy_a : !aligned_a;
    bool copy_b = wgmma ? t.copy_b : !(!p->b_trans && aligned_b);
    bool a_mn = !copy_a && !p->a_trans && !wgmma;
    size_t a_elems = copy_a ? (size_t)(p->m * ldo) : 0, b_elems = copy_b ? (size_t)(p->n * ldo) : 0;
    size_t a_bytes = (a_elems * bt.count * elem + 255) / 256 * 256, bytes = a_bytes + b_elems * bt.count * elem;
    gemm__cuda_kmajor<T> a = {x.a, p->lda}, b = {x.b, p->ldb};
    T *scratch = NULL;
    gemm_status s = GEMM_OK;
    gemm_cuda_kernel kernel = opt->kernel ? opt->kernel : GEMM_CUDA_KERNEL_MMA;
    if (kernel == GEMM_CUDA_KERNEL_NAIVE) return gemm__cuda_launch_ladder(fn, kernel, p, x, bt, stream);
    if (kernel == GEMM_CUDA_KERNEL_WGMMA && !wgmma)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the wgmma kernel runs strided batches on Hopper (compute "
                          "capability 9.0, a build for sm_90a), each stride 0 or at least a member's span; this is %s "
                          "on a %d.%d GPU: use the mma kernel", fn, bt.c ? "a pointer-array batch" : "another batch",
                          gpu->major, gpu->minor);
    if (gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: batches on the tensor cores need compute capability 8.0+; this "
                          "GPU is %d.%d", fn, gpu->major, gpu->minor);
    if (bytes > 0) {
        cudaMemPool_t pool;
        cudaError_t e;
        gemm__cuda_batch_copy ca = {bt.a, bt.stride_a, (int64_t)a_elems, 0},
                              cb = {bt.b, bt.stride_b, (int64_t)b_elems, 0};
        if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
        if ((e = cudaMallocFromPoolAsync((void **)&scratch, bytes, pool, stream)) != cudaSuccess)
            return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (the members' operand copies)", e);
        if (copy_a) {
            s = gemm__cuda_pack(fn, x.a, p->lda, p->a_trans, aligned_a, (int)p->m, (int)p->k, scratch, ldo, ca,
                                bt.count, stream);
            a.X = scratch; a.ld = ldo;
            bt.a = NULL; bt.stride_a = (int64_t)a_elems; /* the copies are strided */
        }
        if (s == GEMM_OK && copy_b) {
            T *out = (T *)((char *)scratch + a_bytes);
            s = gemm__cuda_pack(fn, x.b, p->ldb, !p->b_trans, aligned_b, (int)p->n, (int)p->k, out, ldo, cb, bt.count,
                                stream);
            b.X = out; b.ld = ldo;
            bt.b = NULL; bt.stride_b = (int64_t)b_elems;
        }
    }
    if (s == GEMM_OK && wgmma) {
        t.work.a3 = bt.stride_a != 0 && bt.count > 1;
        t.work.b3 = bt.stride_b != 0 && bt.count > 1;
        s = t.wg_bm == 128 ? gemm__cuda_launch_wgmma<T, TC, 128>(fn, p, &t, a, b, x, NULL, NULL, NULL, bt.stride_a,
                                                                 bt.stride_b, stream)
                           : gemm__cuda_launch_wgmma<T, TC, 256>(fn, p, &t, a, b, x, NULL, NULL, NULL, bt.stride_a,
                                                                 bt.stride_b, stream);
    } else if (s == GEMM_OK && small) {
        s = a_mn ? gemm__cuda_launch_mma<T, TC, 64, false>(fn, p, a, b, x, false, bt, stream)
                 : gemm__cuda_launch_mma<T, TC, 64, true>(fn, p, a, b, x, false, bt, stream);
    } else if (s == GEMM_OK) {
        s = a_mn ? gemm__cuda_launch_mma<T, TC, 128, false>(fn, p, a, b, x, false, bt, stream)
                 : gemm__cuda_launch_mma<T, TC>(fn, p, a, b, x, false, bt, stream);
    }
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

/* The fp32-accurate mode: member after member through the single call's
   path (its operand split runs per member). */
template <typename T, typename TC>
static gemm_status gemm__cuda_members_one_by_one(const char *fn, const gemm__problem *p,
                                                 const gemm__cuda_operands<T, TC, float> &x, const gemm__batch *hb,
                                                 const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                                 cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    for (int64_t i = 0; i < hb->count && s == GEMM_OK; i++) {
        gemm__cuda_operands<T, TC, float> y = x;
        if (hb->c_list) {
            y.a = (const T *)(uintptr_t)hb->addr_ab(hb->a_list, i);
            y.b = (const T *)(uintptr_t)hb->addr_ab(hb->b_list, i);
            y.c = (TC *)(uintptr_t)hb->addr_c(hb->c_list, i);
        } else {
            y.a = x.a + i * hb->stride_a;
            y.b = x.b + i * hb->stride_b;
            y.c = x.c + i * hb->stride_c;
        }
        s = gemm__cuda_tc<T, TC>(fn, p, y, opt, gpu, stream);
    }
    return s;
}

/* A checked batch (gemm__prepare_strided or _batched filled p and hb; x
   holds the strided bases, or NULLs for lists, and the scalars): the
   members' memory, then the launches. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batch_run(const char *fn, const gemm__problem *p, const gemm__batch *hb,
                                        const gemm__cuda_operands<T, TC, S> &x, const gemm_cuda_options *opt,
                                        cudaStream_t stream)
{
    gemm__cuda_gpu gpu;
    gemm__cuda_batch bt = gemm__cuda_single(1);
    void *lists = NULL;
    bool aligned_a, aligned_b;
    gemm_status s;
    if (hb->count == 0 || p->work == GEMM__WORK_NONE) return GEMM_OK;
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_members(fn, p, hb, x.a, x.b, x.c, sizeof(T), sizeof(TC))) != GEMM_OK) return s;
    if ((s = gemm__cuda_query(fn, &gpu)) != GEMM_OK) return s;
    bt.count = hb->count;
    bt.stride_a = hb->stride_a;
    bt.stride_b = hb->stride_b;
    bt.stride_c = hb->stride_c;
    aligned_a = p->work == GEMM__WORK_FULL &&
                gemm__cuda_members_aligned(hb, hb->a_list, x.a, p->lda, hb->stride_a, sizeof(T));
    aligned_b = p->work == GEMM__WORK_FULL &&
                gemm__cuda_members_aligned(hb, hb->b_list, x.b, p->ldb, hb->stride_b, sizeof(T));
    if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value)
        if (opt->math == GEMM_CUDA_MATH_FP32_ACCURATE && p->work == GEMM__WORK_FULL)
            return gemm__cuda_members_one_by_one<T, TC>(fn, p, x, hb, opt, &gpu, stream);
    if (hb->c_list && (s = gemm__cuda_upload_lists(fn, hb, gpu.dev, stream, &lists, &bt)) != GEMM_OK) return s;
    if (p->work == GEMM__WORK_SCALE) {
        s = gemm__cuda_scale_members(fn, (int)p->m, (int)p->n, x.beta, x.c, p->ldc, bt, stream);
    } else if constexpr (std::is_same<T, double>::value) {
        s = gemm__cuda_exact_members<T>(fn, p, x, bt, aligned_a && aligned_b, opt, &gpu, stream);
    } else if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value) {
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_tc_members<T, TC>(fn, p, x, bt, aligned_a, aligned_b, opt, &gpu, stream)
                                     : gemm__cuda_exact_members<T>(fn, p, x, bt, aligned_a && aligned_b, opt, &gpu, stream);
    } else {
        s = gemm__cuda_tc_members<T, TC>(fn, p, x, bt, aligned_a, aligned_b, opt, &gpu, stream);
    }
    if (lists) {
        cudaError_t e = cudaFreeAsync(lists, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}
/* <<cuda batch_run */
/* >>cuda stream_ops: src/cuda/stream_ops.cuh */
/* The device operations of the host path (staging.cuh, pipeline.cuh), as
   the static members of one type: the pipeline is a template over it, so
   the tests can run the same bookkeeping (threads, chunks, events, order)
   on a CPU stand-in; this is the only one that ships. */
struct gemm__cuda_real {
    typedef cudaStream_t stream;
    typedef cudaEvent_t event;

    static cudaError_t stream_create(stream *s) { return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking); }
    static void stream_destroy(stream s) { cudaStreamDestroy(s); }
    static cudaError_t event_create(event *e) { return cudaEventCreate(e); }
    static void event_destroy(event e) { cudaEventDestroy(e); }
    /* Mapped as well: the zero-copy path hands the chunks to kernels. */
    static cudaError_t host_alloc(void **p, size_t bytes)
    {
        return cudaHostAlloc(p, bytes, cudaHostAllocPortable | cudaHostAllocMapped);
    }
    static void host_free(void *p) { cudaFreeHost(p); }
    static void set_device(int dev) { cudaSetDevice(dev); }

    /* rows runs of width bytes; cudaMemcpyDefault: either side may be host
       (page-locked or not), device or managed memory. */
    static cudaError_t copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows, stream s)
    {
        if (rows == 1) return cudaMemcpyAsync(dst, src, width, cudaMemcpyDefault, s);
        return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault, s);
    }
    static cudaError_t record(event e, stream s) { return cudaEventRecord(e, s); }
    static cudaError_t wait(stream s, event e) { return cudaStreamWaitEvent(s, e, 0); }
    static cudaError_t sync_stream(stream s) { return cudaStreamSynchronize(s); }
    static cudaError_t sync_event(void *e) { return cudaEventSynchronize((event)e); }
    static cudaError_t elapsed(float *ms, event a, event b) { return cudaEventElapsedTime(ms, a, b); }

    /* The call's device buffer, from the device's scratch pool (kept
       between calls: mapping gigabytes again would cost milliseconds). */
    static gemm_status device_alloc(const char *fn, void **p, size_t bytes, int dev, stream s)
    {
        cudaMemPool_t pool;
        cudaError_t e;
        gemm_status st = gemm__cuda_scratch_pool(fn, dev, true, &pool);
        *p = NULL;
        if (st != GEMM_OK || bytes == 0) return st;
        if ((e = cudaMallocFromPoolAsync(p, bytes, pool, s)) != cudaSuccess) {
            cudaGetLastError(); /* not sticky: the caller may try a smaller plan */
            *p = NULL;
            return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (the host path's device buffer)", e);
        }
        return GEMM_OK;
    }
    static void device_free(void *p, stream s)
    {
        if (p) cudaFreeAsync(p, s);
    }
    /* Hands the pool's idle memory back, so a smaller plan can get it. */
    static void device_trim(int dev)
    {
        cudaMemPool_t pool;
        if (gemm__cuda_scratch_pool("gemm_cuda", dev, false, &pool) == GEMM_OK && pool) cudaMemPoolTrimTo(pool, 0);
        gemm__clear_error();
    }

    template <typename T, typename TC, typename S>
    static gemm_status multiply(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                const gemm_cuda_options *opt, stream s)
    {
        return gemm__cuda_run(fn, p, x, opt, s);
    }
};
/* <<cuda stream_ops */
/* >>cuda staging: src/cuda/staging.cuh */
/* The host path's staging: the host threads that copy between the caller's
   pageable memory and page-locked staging chunks while the copy engines
   move the chunks, and the per-device context a host call runs in (its
   streams, events, chunks and threads), kept between calls. */

static double gemm__cuda_now(void)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* Bytes of one staging chunk: large enough that a copy engine runs at full
   speed on it, small enough that a few threads fill several at once. */
#define GEMM__CUDA_CHUNK ((size_t)8 << 20)

/* One host copy of a staged piece: `rows` runs of `width` bytes, after
   waiting (when `wait` is set) for the copy engine to be done with the
   chunk. *done becomes 1, or 2 when that wait failed. */
typedef struct gemm__cuda_job {
    char *dst;
    const char *src;
    size_t dpitch, spitch, width, rows;
    cudaError_t (*wait)(void *event);
    void *event;
    std::atomic<int> *done;
} gemm__cuda_job;

static void gemm__cuda_job_run(const gemm__cuda_job *j)
{
    size_t r;
    if (j->wait && j->wait(j->event) != cudaSuccess) {
        j->done->store(2);
        return;
    }
    for (r = 0; r < j->rows; r++) memcpy(j->dst + r * j->dpitch, j->src + r * j->spitch, j->width);
    j->done->store(1);
}

/* The library's own copy threads: a FIFO of jobs; `completions` counts
   finished jobs so a waiter can sleep until the next one. One more thread
   takes the jobs that must first wait for the copy engine (the emptying of
   store chunks, in the order the engine finishes them) and passes each to
   the front of the FIFO once its copy is done, so no copy thread waits for
   a multiply. With no threads a job runs in the caller. */
typedef struct gemm__cuda_workers {
    std::mutex mu;
    std::condition_variable more, more_waiting, finished;
    std::deque<gemm__cuda_job> queue, waiting;
    std::vector<std::thread> threads;
    unsigned long long completions;
    bool stop;
} gemm__cuda_workers;

static void gemm__cuda_workers_count(gemm__cuda_workers *w)
{
    {
        std::lock_guard<std::mutex> lk(w->mu);
        w->completions++;
    }
    w->finished.notify_all();
}

template <class Dev> static void gemm__cuda_worker_main(gemm__cuda_workers *w, int dev)
{
    Dev::set_device(dev); /* the events they wait on belong to this device */
    for (;;) {
        gemm__cuda_job j;
        {
            std::unique_lock<std::mutex> lk(w->mu);
            w->more.wait(lk, [w] { return w->stop || !w->queue.empty(); });
            if (w->queue.empty()) return;
            j = w->queue.front();
            w->queue.pop_front();
        }
        gemm__cuda_job_run(&j);
        gemm__cuda_workers_count(w);
    }
}

template <class Dev> static void gemm__cuda_waiter_main(gemm__cuda_workers *w, int dev)
{
    Dev::set_device(dev);
    for (;;) {
        gemm__cuda_job j;
        {
            std::unique_lock<std::mutex> lk(w->mu);
            w->more_waiting.wait(lk, [w] { return w->stop || !w->waiting.empty(); });
            if (w->waiting.empty()) return;
            j = w->waiting.front();
            w->waiting.pop_front();
        }
        if (j.wait(j.event) != cudaSuccess) {
            j.done->store(2);
            gemm__cuda_workers_count(w);
            continue;
        }
        j.wait = NULL;
        {
            std::lock_guard<std::mutex> lk(w->mu);
            w->queue.push_front(j);
        }
        w->more.notify_one();
    }
}

static void gemm__cuda_workers_stop(gemm__cuda_workers *w)
{
    {
        std::lock_guard<std::mutex> lk(w->mu);
        w->stop = true;
    }
    w->more.notify_all();
    w->more_waiting.notify_all();
    for (size_t i = 0; i < w->threads.size(); i++) w->threads[i].join();
    w->threads.clear();
    w->stop = false;
}

/* `count` copy threads and the waiting one (0: copies run in the calling
   thread). Throws std::system_error when a thread cannot start (the
   caller catches it). */
template <class Dev> static void gemm__cuda_workers_resize(gemm__cuda_workers *w, int count, int dev)
{
    if ((int)w->threads.size() == count + 1) return;
    gemm__cuda_workers_stop(w);
    if (count == 0) return;
    w->threads.push_back(std::thread(gemm__cuda_waiter_main<Dev>, w, dev));
    while ((int)w->threads.size() < count + 1) w->threads.push_back(std::thread(gemm__cuda_worker_main<Dev>, w, dev));
}

/* A job for the copy threads (`in_caller`, or no threads: run here). With
   `after_engine` it goes through the waiting thread first. */
static void gemm__cuda_workers_submit(gemm__cuda_workers *w, const gemm__cuda_job *j, bool in_caller, bool after_engine)
{
    if (in_caller || w->threads.empty()) {
        gemm__cuda_job_run(j);
        gemm__cuda_workers_count(w);
        return;
    }
    try {
        std::lock_guard<std::mutex> lk(w->mu);
        if (after_engine) w->waiting.push_back(*j);
        else w->queue.push_back(*j);
    } catch (const std::exception &) { /* no room in the queue: the caller copies, so no flag is left unset */
        gemm__cuda_job_run(j);
        gemm__cuda_workers_count(w);
        return;
    }
    if (after_engine) w->more_waiting.notify_one();
    else w->more.notify_one();
}

static unsigned long long gemm__cuda_workers_seen(gemm__cuda_workers *w)
{
    std::lock_guard<std::mutex> lk(w->mu);
    return w->completions;
}

/* Sleeps until some job finishes after `seen` was read. A job sets its done
   flag before it counts, so a flag read after `seen` cannot be missed. */
static void gemm__cuda_workers_wait(gemm__cuda_workers *w, unsigned long long seen)
{
    std::unique_lock<std::mutex> lk(w->mu);
    w->finished.wait(lk, [w, seen] { return w->completions != seen; });
}

/* How many copy threads a call uses: options.host_threads, else half the
   host's cores (memory bandwidth, not cores, limits these copies), at
   most 8. */
static int gemm__cuda_copy_threads(const gemm_cuda_options *opt)
{
    unsigned cores = std::thread::hardware_concurrency();
    int n = opt->host_threads > 0 ? opt->host_threads : (int)(cores / 2);
    if (opt->host_threads <= 0 && n > 8) n = 8;
    return n < 1 ? 1 : n > 64 ? 64 : n;
}

/* What a host call runs in: two compute streams (a multiply's last wave
   overlaps the next one's first), one stream per copy direction, events,
   page-locked chunks (mapped, so the zero-copy path can use them too) and
   the copy threads. One context serves one call at a time; a device keeps
   its idle ones for the next calls. */
template <class Dev> struct gemm__cuda_context {
    int dev;
    typename Dev::stream compute[2], h2d, d2h;
    std::vector<typename Dev::event> events;
    std::vector<void *> chunks;
    gemm__cuda_workers workers;
    gemm__cuda_context *next;
};

template <class Dev> static void gemm__cuda_context_destroy(gemm__cuda_context<Dev> *c)
{
    size_t i;
    if (!c) return;
    gemm__cuda_workers_stop(&c->workers);
    for (i = 0; i < c->chunks.size(); i++) Dev::host_free(c->chunks[i]);
    for (i = 0; i < c->events.size(); i++) Dev::event_destroy(c->events[i]);
    for (i = 0; i < 2; i++)
        if (c->compute[i]) Dev::stream_destroy(c->compute[i]);
    if (c->h2d) Dev::stream_destroy(c->h2d);
    if (c->d2h) Dev::stream_destroy(c->d2h);
    delete c;
}

/* A new context on the current device `dev` (NULL and *e set on failure). */
template <class Dev> static gemm__cuda_context<Dev> *gemm__cuda_context_create(int dev, cudaError_t *e)
{
    gemm__cuda_context<Dev> *c = new (std::nothrow) gemm__cuda_context<Dev>();
    if (!c) {
        *e = cudaErrorMemoryAllocation;
        return NULL;
    }
    c->dev = dev;
    c->workers.completions = 0;
    c->workers.stop = false;
    if ((*e = Dev::stream_create(&c->compute[0])) != cudaSuccess || (*e = Dev::stream_create(&c->compute[1])) != cudaSuccess ||
        (*e = Dev::stream_create(&c->h2d)) != cudaSuccess || (*e = Dev::stream_create(&c->d2h)) != cudaSuccess) {
        gemm__cuda_context_destroy(c);
        return NULL;
    }
    return c;
}

/* At least `count` events; returns the error of the first that failed. */
template <class Dev> static cudaError_t gemm__cuda_context_events(gemm__cuda_context<Dev> *c, size_t count)
{
    while (c->events.size() < count) {
        typename Dev::event e;
        cudaError_t r = Dev::event_create(&e);
        if (r != cudaSuccess) return r;
        c->events.push_back(e);
    }
    return cudaSuccess;
}

/* Up to `count` chunks; returns how many there are (page-locked memory may
   run out: a call then works with fewer). */
template <class Dev> static size_t gemm__cuda_context_chunks(gemm__cuda_context<Dev> *c, size_t count)
{
    while (c->chunks.size() < count) {
        void *p = NULL;
        if (Dev::host_alloc(&p, GEMM__CUDA_CHUNK) != cudaSuccess || !p) break;
        c->chunks.push_back(p);
    }
    return c->chunks.size() < count ? c->chunks.size() : count;
}

/* The idle contexts of each device (the real device only). */
struct gemm__cuda_real;
static std::mutex &gemm__cuda_contexts_lock(void)
{
    static std::mutex mu;
    return mu;
}
static gemm__cuda_context<gemm__cuda_real> **gemm__cuda_idle_contexts(int dev)
{
    static gemm__cuda_context<gemm__cuda_real> *idle[64];
    return &idle[dev];
}

/* An idle context of device `dev` (current), or a new one. */
static gemm__cuda_context<gemm__cuda_real> *gemm__cuda_context_take(int dev, cudaError_t *e)
{
    gemm__cuda_context<gemm__cuda_real> *c;
    {
        std::lock_guard<std::mutex> lk(gemm__cuda_contexts_lock());
        gemm__cuda_context<gemm__cuda_real> **head = gemm__cuda_idle_contexts(dev);
        if ((c = *head) != NULL) *head = c->next;
    }
    if (c) return c;
    return gemm__cuda_context_create<gemm__cuda_real>(dev, e);
}

static void gemm__cuda_context_give(gemm__cuda_context<gemm__cuda_real> *c)
{
    std::lock_guard<std::mutex> lk(gemm__cuda_contexts_lock());
    gemm__cuda_context<gemm__cuda_real> **head = gemm__cuda_idle_contexts(c->dev);
    c->next = *head;
    *head = c;
}

/* Destroys the idle contexts of device `dev` (their chunks, threads,
   streams); contexts in use by a running call stay with it. */
static void gemm__cuda_context_release_idle(int dev)
{
    gemm__cuda_context<gemm__cuda_real> *c, *next;
    {
        std::lock_guard<std::mutex> lk(gemm__cuda_contexts_lock());
        c = *gemm__cuda_idle_contexts(dev);
        *gemm__cuda_idle_contexts(dev) = NULL;
    }
    for (; c; c = next) {
        next = c->next;
        gemm__cuda_context_destroy(c);
    }
}
/* <<cuda staging */
/* >>cuda plan: src/cuda/plan.cuh */
/* The host path's plan: a host-pointer call cut into loads (panels of A and
   B; pieces of C when beta != 0), multiplies (pieces of C) and stores
   (pieces of C), in the order the pipeline issues them, and the device
   memory each uses. Pure host code: the tests check plans on the CPU.

   The orders, from the first that fits the device memory the call may
   take (options.max_device_bytes, else most of what is free):
     - K-SPLIT for one tile of C with a long K (m, n <= the tile): C stays
       on the device while the parts of A and B stream past it once.
     - SQUARE (in core): A and B stay on the device as their panels arrive;
       C in pieces, computed shell by shell of a growing square (panel s of
       A, then of B, then the pieces of C that need them), so the first
       multiply waits only for one panel of each and every panel crosses
       the link once. A piece's store runs behind the next multiplies.
     - BLOCK-A / BLOCK-B (out of core): the largest block of A's rows (or
       B's columns) that fits stays, the other operand streams past it
       panel by panel, C in pieces; the operand whose repeats move fewer
       bytes is the one kept. When all of it fits, every byte crosses once.
     - K-SPLIT with smaller tiles when not even one panel of full K fits:
       tiles of C summed over parts of K, every panel streamed. */

enum { GEMM__CUDA_LOAD = 0, GEMM__CUDA_MULTIPLY = 1, GEMM__CUDA_STORE = 2 };
enum { GEMM__CUDA_SQUARE = 1, GEMM__CUDA_BLOCK_A = 2, GEMM__CUDA_BLOCK_B = 3, GEMM__CUDA_KSPLIT = 4 };

/* The smallest tile the plans cut: smaller pieces would drown in launches. */
#define GEMM__CUDA_MIN_TILE 32
/* The most multiplies a plan may have (else the call is refused). */
#define GEMM__CUDA_MAX_MULTIPLIES (1 << 22)

/* What the plan needs of a call (operands 0 = a, 1 = b, 2 = c, after the
   row-major swap): sizes, whether each is stored transposed, bytes per
   element, which are read, the tile, and the most bytes a piece of C may
   have (its store goes through that much staging). */
typedef struct gemm__cuda_shape {
    int64_t m, n, k;
    int trans[3];
    size_t elem[3];
    bool reads_ab, loads_c, tc; /* tc: the tensor-core modes may copy operands into scratch */
    int64_t tile;
    size_t piece_bytes;
} gemm__cuda_shape;

/* Where an operand's rectangle lives on the device: slot `slot` holds the
   operand's rectangle whose top-left element is (r0, c0), stored as the
   operand is stored, with leading dimension ld. slot -1: nowhere. */
typedef struct gemm__cuda_area {
    int slot;
    int64_t r0, c0, ld;
} gemm__cuda_area;

/* One step. LOAD and STORE move the rectangle rows [r0, r1) x columns
   [c0, c1) of operand `which` (a: m x k, b: k x n, c: m x n) into or out
   of at[which]. MULTIPLY computes C's rows [r0, r1) x columns [c0, c1)
   over K's [p0, p1) from at[0], at[1] into at[2] (beta where p0 == 0,
   else 1; `chain`: it adds to the previous multiply's result). `after`:
   for a LOAD of a or b, the multiply (counted among multiplies) that last
   read the memory it overwrites; for a LOAD of c and a MULTIPLY, the
   store (counted among stores) that last read its C slot; -1 for none. */
typedef struct gemm__cuda_op {
    int kind, which;
    int64_t r0, r1, c0, c1, p0, p1;
    gemm__cuda_area at[3];
    int after;
    bool chain;
} gemm__cuda_op;

typedef struct gemm__cuda_plan {
    int order;
    int64_t tm, tn, tk; /* the largest piece of C, and the part of K a multiply takes */
    std::vector<gemm__cuda_op> ops;
    std::vector<size_t> slot_offset, slot_bytes;
    size_t bytes; /* the one device buffer all slots live in */
    int multiplies, stores;
    std::vector<int> last_reader, last_store; /* per slot, while planning */
    int ring[3][4], ring_size[3], ring_next[3];  /* the rotating slots of each operand */
} gemm__cuda_plan;

static int64_t gemm__cuda_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t gemm__cuda_min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* A leading dimension for `rows` stored rows: a multiple of 128 bytes, so
   the kernels' 16-byte copies apply whatever the caller's ld. */
static int64_t gemm__cuda_ld(int64_t rows, size_t elem)
{
    int64_t unit = (int64_t)(128 / elem);
    return gemm__cuda_cdiv(rows > 1 ? rows : 1, unit) * unit;
}

/* Bytes of operand `which`'s rows x columns rectangle stored compactly. */
static size_t gemm__cuda_area_bytes(const gemm__cuda_shape *sh, int which, int64_t rows, int64_t cols)
{
    int64_t srows = sh->trans[which] ? cols : rows, scols = sh->trans[which] ? rows : cols;
    if (rows <= 0 || cols <= 0) return 0;
    return (size_t)gemm__cuda_ld(srows, sh->elem[which]) * (size_t)scols * sh->elem[which];
}

static gemm__cuda_area gemm__cuda_area_of(const gemm__cuda_shape *sh, int which, int slot, int64_t r0, int64_t c0,
                                          int64_t rows, int64_t cols)
{
    gemm__cuda_area a;
    a.slot = slot;
    a.r0 = r0;
    a.c0 = c0;
    a.ld = gemm__cuda_ld(sh->trans[which] ? cols : rows, sh->elem[which]);
    return a;
}

/* A new slot of `bytes` (256-byte aligned); returns its index. */
static int gemm__cuda_slot(gemm__cuda_plan *pl, size_t bytes)
{
    size_t at = (pl->bytes + 255) / 256 * 256;
    pl->slot_offset.push_back(at);
    pl->slot_bytes.push_back(bytes);
    pl->last_reader.push_back(-1);
    pl->last_store.push_back(-1);
    pl->bytes = at + bytes;
    return (int)pl->slot_offset.size() - 1;
}

/* `count` rotating slots of `bytes` for operand `which`. */
static void gemm__cuda_ring(gemm__cuda_plan *pl, int which, int count, size_t bytes)
{
    int i;
    for (i = 0; i < count; i++) pl->ring[which][i] = gemm__cuda_slot(pl, bytes);
    pl->ring_size[which] = count;
    pl->ring_next[which] = 0;
}

static int gemm__cuda_ring_take(gemm__cuda_plan *pl, int which)
{
    int s = pl->ring[which][pl->ring_next[which]];
    pl->ring_next[which] = (pl->ring_next[which] + 1) % pl->ring_size[which];
    return s;
}

static void gemm__cuda_plan_op(gemm__cuda_plan *pl, int kind, int which, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                               int after)
{
    gemm__cuda_op o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.which = which;
    o.r0 = r0; o.r1 = r1; o.c0 = c0; o.c1 = c1;
    o.after = after;
    o.at[0].slot = o.at[1].slot = o.at[2].slot = -1;
    pl->ops.push_back(o);
}

static void gemm__cuda_plan_load(gemm__cuda_plan *pl, int which, const gemm__cuda_area *at, int64_t r0, int64_t r1,
                                 int64_t c0, int64_t c1, int after)
{
    gemm__cuda_plan_op(pl, GEMM__CUDA_LOAD, which, r0, r1, c0, c1, after);
    pl->ops.back().at[which] = *at;
}

static void gemm__cuda_plan_multiply(gemm__cuda_plan *pl, int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t p0,
                                     int64_t p1, const gemm__cuda_area *a, const gemm__cuda_area *b,
                                     const gemm__cuda_area *c, int after, bool chain)
{
    gemm__cuda_op *o;
    gemm__cuda_plan_op(pl, GEMM__CUDA_MULTIPLY, 2, r0, r1, c0, c1, after);
    o = &pl->ops.back();
    o->p0 = p0;
    o->p1 = p1;
    o->at[0] = *a;
    o->at[1] = *b;
    o->at[2] = *c;
    o->chain = chain;
    if (a->slot >= 0) pl->last_reader[a->slot] = pl->multiplies;
    if (b->slot >= 0) pl->last_reader[b->slot] = pl->multiplies;
    pl->multiplies++;
}

static void gemm__cuda_plan_store(gemm__cuda_plan *pl, const gemm__cuda_area *c, int64_t r0, int64_t r1, int64_t c0,
                                  int64_t c1)
{
    gemm__cuda_plan_op(pl, GEMM__CUDA_STORE, 2, r0, r1, c0, c1, -1);
    pl->ops.back().at[2] = *c;
    pl->last_store[c->slot] = pl->stores++;
}

/* A piece of C with all of K: into the next C slot (its C loaded first when
   beta != 0), multiplied, stored. */
static void gemm__cuda_plan_piece(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, int64_t r0, int64_t r1, int64_t c0,
                                  int64_t c1, const gemm__cuda_area *a, const gemm__cuda_area *b)
{
    int slot = gemm__cuda_ring_take(pl, 2);
    gemm__cuda_area c = gemm__cuda_area_of(sh, 2, slot, r0, c0, r1 - r0, c1 - c0);
    if (sh->loads_c) gemm__cuda_plan_load(pl, 2, &c, r0, r1, c0, c1, pl->last_store[slot]);
    gemm__cuda_plan_multiply(pl, r0, r1, c0, c1, 0, sh->k, a, b, &c, sh->loads_c ? -1 : pl->last_store[slot], false);
    gemm__cuda_plan_store(pl, &c, r0, r1, c0, c1);
}
/* <<cuda plan */
/* >>cuda orders: src/cuda/orders.cuh */
/* The host path's orders (plan.cuh names them): the device memory each
   needs, its steps, and the choice of the first that fits. */

/* Rotating slots: streamed panels of A or B, and pieces of C (one more:
   a piece's store may still run while the next three multiply). */
#define GEMM__CUDA_RING 3
#define GEMM__CUDA_C_RING 4

/* Scratch the tensor-core modes may take per multiply for operand copies
   (a rows x k and k x cols view), on each of the two compute streams,
   with their split-K sums. */
static size_t gemm__cuda_tc_reserve(const gemm__cuda_shape *sh, int64_t rows, int64_t cols, int64_t k)
{
    if (!sh->tc || !sh->reads_ab) return 0;
    return 2 * ((size_t)(rows + cols) * (size_t)(k + 64) * sh->elem[0] + ((size_t)32 << 20));
}

/* Pieces of C in SQUARE: up to g tiles in a row, within piece_bytes. */
static int64_t gemm__cuda_square_group(const gemm__cuda_shape *sh, int64_t t)
{
    size_t tile = gemm__cuda_area_bytes(sh, 2, gemm__cuda_min64(sh->m, t), gemm__cuda_min64(sh->n, t));
    int64_t g = tile ? (int64_t)(sh->piece_bytes / tile) : 4;
    return g < 1 ? 1 : g > 4 ? 4 : g;
}

static size_t gemm__cuda_square_piece(const gemm__cuda_shape *sh, int64_t t, int64_t g)
{
    size_t wide = gemm__cuda_area_bytes(sh, 2, gemm__cuda_min64(sh->m, t), gemm__cuda_min64(sh->n, g * t));
    size_t tall = gemm__cuda_area_bytes(sh, 2, gemm__cuda_min64(sh->m, g * t), gemm__cuda_min64(sh->n, t));
    return wide > tall ? wide : tall;
}

static size_t gemm__cuda_square_bytes(const gemm__cuda_shape *sh, int64_t t, int64_t g)
{
    size_t ab = sh->reads_ab ? gemm__cuda_area_bytes(sh, 0, sh->m, sh->k) + gemm__cuda_area_bytes(sh, 1, sh->k, sh->n) : 0;
    return ab + GEMM__CUDA_C_RING * (gemm__cuda_square_piece(sh, t, g) + 256) +
           gemm__cuda_tc_reserve(sh, gemm__cuda_min64(sh->m, g * t), gemm__cuda_min64(sh->n, g * t), sh->k);
}

/* SQUARE: pieces of `group` tiles of t x t; shell s loads panel s of A, multiplies the pieces of C's row s
   that do not need B's panel s, loads that panel, then the rest of row s
   and the pieces of column s above it. */
static void gemm__cuda_order_square(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, int64_t t, int64_t group)
{
    int64_t m = sh->m, n = sh->n, k = sh->k, pa = gemm__cuda_cdiv(m, t), pb = gemm__cuda_cdiv(n, t), g, s, q;
    gemm__cuda_area A = {-1, 0, 0, 1}, B = {-1, 0, 0, 1};
    if (sh->reads_ab) {
        A = gemm__cuda_area_of(sh, 0, gemm__cuda_slot(pl, gemm__cuda_area_bytes(sh, 0, m, k)), 0, 0, m, k);
        B = gemm__cuda_area_of(sh, 1, gemm__cuda_slot(pl, gemm__cuda_area_bytes(sh, 1, k, n)), 0, 0, k, n);
    }
    gemm__cuda_ring(pl, 2, GEMM__CUDA_C_RING, gemm__cuda_square_piece(sh, t, group));
    for (s = 0; s < (pa > pb ? pa : pb); s++) {
        int64_t r0 = s * t, r1 = gemm__cuda_min64(m, r0 + t), c0 = s * t, c1 = gemm__cuda_min64(n, c0 + t);
        bool b_due = sh->reads_ab && s < pb;
        if (s < pa) {
            int64_t last = gemm__cuda_min64(s + 1, pb);
            if (sh->reads_ab) gemm__cuda_plan_load(pl, 0, &A, r0, r1, 0, k, -1);
            for (g = 0; g < last; g += group) {
                q = gemm__cuda_min64(g + group, last);
                if (b_due && q > s) {
                    gemm__cuda_plan_load(pl, 1, &B, 0, k, c0, c1, -1);
                    b_due = false;
                }
                gemm__cuda_plan_piece(pl, sh, r0, r1, g * t, gemm__cuda_min64(n, q * t), &A, &B);
            }
        }
        if (b_due) gemm__cuda_plan_load(pl, 1, &B, 0, k, c0, c1, -1);
        if (s < pb)
            for (g = 0; g < gemm__cuda_min64(s, pa); g += group) {
                q = gemm__cuda_min64(g + group, gemm__cuda_min64(s, pa));
                gemm__cuda_plan_piece(pl, sh, g * t, gemm__cuda_min64(m, q * t), c0, c1, &A, &B);
            }
    }
    pl->order = GEMM__CUDA_SQUARE;
    pl->tm = gemm__cuda_min64(m, group * t);
    pl->tn = gemm__cuda_min64(n, group * t);
    pl->tk = k;
}

/* BLOCK-A and BLOCK-B, as one: `kept` is the operand that stays (0 = a's
   rows, 1 = b's columns), `streamed` the other. Sizes along C's rows for
   BLOCK-A: `block` rows kept, pieces of `piece` rows, streamed panels of
   `panel` columns (and the other way round for BLOCK-B). */
typedef struct gemm__cuda_blocking {
    int kept;
    int64_t block, piece, panel, blocks;
} gemm__cuda_blocking;

/* The operand rectangle (rows of C or columns of C, and all of K). */
static void gemm__cuda_block_rect(int which, int64_t x0, int64_t x1, int64_t k, int64_t *r)
{
    if (which == 0) { r[0] = x0; r[1] = x1; r[2] = 0; r[3] = k; }
    else { r[0] = 0; r[1] = k; r[2] = x0; r[3] = x1; }
}

static size_t gemm__cuda_block_bytes(const gemm__cuda_shape *sh, const gemm__cuda_blocking *b)
{
    int kept = b->kept, other = 1 - kept;
    int64_t k = sh->k, len_kept = kept == 0 ? sh->m : sh->n, len_other = kept == 0 ? sh->n : sh->m;
    int64_t block = gemm__cuda_min64(len_kept, b->block), piece = gemm__cuda_min64(block, b->piece);
    int64_t panel = gemm__cuda_min64(len_other, b->panel);
    size_t kept_bytes = kept == 0 ? gemm__cuda_area_bytes(sh, 0, block, k) : gemm__cuda_area_bytes(sh, 1, k, block);
    size_t other_bytes = other == 0 ? gemm__cuda_area_bytes(sh, 0, panel, k) : gemm__cuda_area_bytes(sh, 1, k, panel);
    size_t c_bytes = kept == 0 ? gemm__cuda_area_bytes(sh, 2, piece, panel) : gemm__cuda_area_bytes(sh, 2, panel, piece);
    return kept_bytes + GEMM__CUDA_RING * (other_bytes + 256) + GEMM__CUDA_C_RING * (c_bytes + 256) + 256 +
           gemm__cuda_tc_reserve(sh, piece, panel, k);
}

static void gemm__cuda_order_block(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, const gemm__cuda_blocking *b)
{
    int kept = b->kept, other = 1 - kept, prev = -1;
    int64_t k = sh->k, len_kept = kept == 0 ? sh->m : sh->n, len_other = kept == 0 ? sh->n : sh->m, x0, y0, z0;
    int64_t block = gemm__cuda_min64(len_kept, b->block), piece = gemm__cuda_min64(block, b->piece);
    int64_t panel = gemm__cuda_min64(len_other, b->panel), r[4];
    int keep = gemm__cuda_slot(pl, kept == 0 ? gemm__cuda_area_bytes(sh, 0, block, k) : gemm__cuda_area_bytes(sh, 1, k, block));
    gemm__cuda_ring(pl, other, GEMM__CUDA_RING,
                    other == 0 ? gemm__cuda_area_bytes(sh, 0, panel, k) : gemm__cuda_area_bytes(sh, 1, k, panel));
    gemm__cuda_ring(pl, 2, GEMM__CUDA_C_RING,
                    kept == 0 ? gemm__cuda_area_bytes(sh, 2, piece, panel) : gemm__cuda_area_bytes(sh, 2, panel, piece));
    for (x0 = 0; x0 < len_kept; x0 += block) {
        int64_t x1 = gemm__cuda_min64(len_kept, x0 + block);
        gemm__cuda_block_rect(kept, x0, x1, k, r);
        gemm__cuda_area K = gemm__cuda_area_of(sh, kept, keep, r[0], r[2], r[1] - r[0], r[3] - r[2]);
        for (y0 = 0; y0 < len_other; y0 += panel) {
            int64_t y1 = gemm__cuda_min64(len_other, y0 + panel);
            int slot = gemm__cuda_ring_take(pl, other);
            gemm__cuda_block_rect(other, y0, y1, k, r);
            gemm__cuda_area O = gemm__cuda_area_of(sh, other, slot, r[0], r[2], r[1] - r[0], r[3] - r[2]);
            gemm__cuda_plan_load(pl, other, &O, r[0], r[1], r[2], r[3], pl->last_reader[slot]);
            for (z0 = x0; z0 < x1; z0 += piece) {
                int64_t z1 = gemm__cuda_min64(x1, z0 + piece);
                gemm__cuda_block_rect(kept, z0, z1, k, r);
                if (y0 == 0) gemm__cuda_plan_load(pl, kept, &K, r[0], r[1], r[2], r[3], prev);
                if (kept == 0) gemm__cuda_plan_piece(pl, sh, z0, z1, y0, y1, &K, &O);
                else gemm__cuda_plan_piece(pl, sh, y0, y1, z0, z1, &O, &K);
            }
        }
        prev = pl->multiplies - 1;
    }
    pl->order = kept == 0 ? GEMM__CUDA_BLOCK_A : GEMM__CUDA_BLOCK_B;
    pl->tm = kept == 0 ? piece : panel;
    pl->tn = kept == 0 ? panel : piece;
    pl->tk = k;
}

/* The fewest blocks of `kept` that fit in `budget` with panels of `panel`
   (b->blocks = 0 when not even one piece's worth fits). */
static void gemm__cuda_block_fit(const gemm__cuda_shape *sh, int kept, int64_t panel, size_t budget,
                                 gemm__cuda_blocking *b)
{
    int64_t len_kept = kept == 0 ? sh->m : sh->n, per_row = (int64_t)sh->elem[2] * gemm__cuda_min64(panel, kept == 0 ? sh->n : sh->m);
    int64_t piece = (int64_t)sh->piece_bytes / (per_row > 0 ? per_row : 1), nb;
    if (piece >= 128) piece = piece / 128 * 128;
    b->kept = kept;
    b->panel = panel;
    b->piece = gemm__cuda_min64(len_kept, piece < GEMM__CUDA_MIN_TILE ? GEMM__CUDA_MIN_TILE : piece);
    b->blocks = 0;
    for (;;) { /* the smallest block (one piece) first: if even that fails, smaller pieces */
        b->block = b->piece;
        if (gemm__cuda_block_bytes(sh, b) <= budget) break;
        if (b->piece <= GEMM__CUDA_MIN_TILE) return;
        b->piece = b->piece / 2 < GEMM__CUDA_MIN_TILE ? GEMM__CUDA_MIN_TILE : b->piece / 2;
    }
    for (nb = 1; nb <= gemm__cuda_cdiv(len_kept, b->piece); nb++) {
        b->block = gemm__cuda_min64(len_kept, gemm__cuda_cdiv(gemm__cuda_cdiv(len_kept, nb), b->piece) * b->piece);
        if (gemm__cuda_block_bytes(sh, b) <= budget) {
            b->blocks = gemm__cuda_cdiv(len_kept, b->block);
            return;
        }
    }
}

static size_t gemm__cuda_ksplit_bytes(const gemm__cuda_shape *sh, int64_t tm, int64_t tn, int64_t tk)
{
    return GEMM__CUDA_RING * (gemm__cuda_area_bytes(sh, 0, tm, tk) + gemm__cuda_area_bytes(sh, 1, tk, tn) + 512) +
           GEMM__CUDA_C_RING * (gemm__cuda_area_bytes(sh, 2, tm, tn) + 256) + gemm__cuda_tc_reserve(sh, tm, tn, tk);
}

/* K-SPLIT: each tile of C stays in its slot while the parts of K pass. */
static void gemm__cuda_order_ksplit(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, int64_t tm, int64_t tn, int64_t tk)
{
    int64_t m = sh->m, n = sh->n, k = sh->k, i0, j0, p0;
    gemm__cuda_ring(pl, 0, GEMM__CUDA_RING, gemm__cuda_area_bytes(sh, 0, tm, tk));
    gemm__cuda_ring(pl, 1, GEMM__CUDA_RING, gemm__cuda_area_bytes(sh, 1, tk, tn));
    gemm__cuda_ring(pl, 2, GEMM__CUDA_C_RING, gemm__cuda_area_bytes(sh, 2, tm, tn));
    for (i0 = 0; i0 < m; i0 += tm)
        for (j0 = 0; j0 < n; j0 += tn) {
            int64_t i1 = gemm__cuda_min64(m, i0 + tm), j1 = gemm__cuda_min64(n, j0 + tn);
            int cs = gemm__cuda_ring_take(pl, 2);
            gemm__cuda_area C = gemm__cuda_area_of(sh, 2, cs, i0, j0, i1 - i0, j1 - j0);
            if (sh->loads_c) gemm__cuda_plan_load(pl, 2, &C, i0, i1, j0, j1, pl->last_store[cs]);
            for (p0 = 0; p0 < k; p0 += tk) {
                int64_t p1 = gemm__cuda_min64(k, p0 + tk);
                int as = gemm__cuda_ring_take(pl, 0), bs = gemm__cuda_ring_take(pl, 1);
                gemm__cuda_area A = gemm__cuda_area_of(sh, 0, as, i0, p0, i1 - i0, p1 - p0);
                gemm__cuda_area B = gemm__cuda_area_of(sh, 1, bs, p0, j0, p1 - p0, j1 - j0);
                gemm__cuda_plan_load(pl, 0, &A, i0, i1, p0, p1, pl->last_reader[as]);
                gemm__cuda_plan_load(pl, 1, &B, p0, p1, j0, j1, pl->last_reader[bs]);
                gemm__cuda_plan_multiply(pl, i0, i1, j0, j1, p0, p1, &A, &B, &C,
                                         p0 == 0 && !sh->loads_c ? pl->last_store[cs] : -1, p0 > 0);
            }
            gemm__cuda_plan_store(pl, &C, i0, i1, j0, j1);
        }
    pl->order = GEMM__CUDA_KSPLIT;
    pl->tm = tm;
    pl->tn = tn;
    pl->tk = tk;
}

static void gemm__cuda_plan_reset(gemm__cuda_plan *pl)
{
    pl->order = 0;
    pl->tm = pl->tn = pl->tk = 0;
    pl->ops.clear();
    pl->slot_offset.clear();
    pl->slot_bytes.clear();
    pl->last_reader.clear();
    pl->last_store.clear();
    pl->bytes = 0;
    pl->multiplies = pl->stores = 0;
    memset(pl->ring_size, 0, sizeof pl->ring_size);
}

static bool gemm__cuda_few_enough(int64_t a, int64_t b, int64_t c)
{
    return (double)a * (double)b * (double)c <= (double)GEMM__CUDA_MAX_MULTIPLIES;
}

/* BLOCK-A or BLOCK-B with panels of t, whichever moves fewer bytes; false
   when neither fits. */
static bool gemm__cuda_plan_blocks(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, int64_t t, size_t budget)
{
    gemm__cuda_blocking a, b;
    double bytes_a = (double)gemm__cuda_area_bytes(sh, 0, sh->m, sh->k), bytes_b = (double)gemm__cuda_area_bytes(sh, 1, sh->k, sh->n);
    gemm__cuda_block_fit(sh, 0, gemm__cuda_min64(sh->n, t), budget, &a);
    gemm__cuda_block_fit(sh, 1, gemm__cuda_min64(sh->m, t), budget, &b);
    if (a.blocks && !gemm__cuda_few_enough(gemm__cuda_cdiv(sh->m, a.piece), gemm__cuda_cdiv(sh->n, a.panel), 1)) a.blocks = 0;
    if (b.blocks && !gemm__cuda_few_enough(gemm__cuda_cdiv(sh->n, b.piece), gemm__cuda_cdiv(sh->m, b.panel), 1)) b.blocks = 0;
    if (!a.blocks && !b.blocks) return false;
    if (a.blocks && (!b.blocks || bytes_a + bytes_b * (double)a.blocks <= bytes_b + bytes_a * (double)b.blocks))
        gemm__cuda_order_block(pl, sh, &a);
    else
        gemm__cuda_order_block(pl, sh, &b);
    return true;
}

/* SQUARE with tiles of t if some piece size fits (*g: pieces of g tiles). */
static bool gemm__cuda_square_fits(const gemm__cuda_shape *sh, int64_t t, size_t budget, int64_t *g)
{
    if (!gemm__cuda_few_enough(gemm__cuda_cdiv(sh->m, t), gemm__cuda_cdiv(sh->n, t), 1)) return false;
    for (*g = gemm__cuda_square_group(sh, t); *g >= 1; (*g)--)
        if (gemm__cuda_square_bytes(sh, t, *g) <= budget) return true;
    return false;
}

/* K-SPLIT for C in one tile and a long K: parts of about an eighth of K,
   halved until three of A's and B's fit. */
static bool gemm__cuda_plan_long_k(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, size_t budget)
{
    int64_t tk = gemm__cuda_cdiv(gemm__cuda_cdiv(sh->k, 8), 128) * 128;
    if (!sh->reads_ab || sh->k <= 4 * (sh->m > sh->n ? sh->m : sh->n) ||
        gemm__cuda_area_bytes(sh, 2, sh->m, sh->n) > ((size_t)64 << 20))
        return false;
    for (; tk >= sh->tile && tk >= GEMM__CUDA_MIN_TILE; tk /= 2)
        if (gemm__cuda_ksplit_bytes(sh, sh->m, sh->n, tk) <= budget &&
            gemm__cuda_few_enough(gemm__cuda_cdiv(sh->k, tk), 1, 1)) {
            gemm__cuda_order_ksplit(pl, sh, sh->m, sh->n, tk);
            return true;
        }
    return false;
}

/* The plan of a call: the first order (plan.cuh) whose device memory fits
   in `budget` bytes, tiles halving from sh->tile down to
   GEMM__CUDA_MIN_TILE where that helps; false when none fits. */
static bool gemm__cuda_plan_make(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, size_t budget)
{
    int64_t m = sh->m, n = sh->n, k = sh->k, t, g;
    gemm__cuda_plan_reset(pl);
    if (!sh->reads_ab) { /* C = beta*C alone: pieces of C, nothing else */
        for (t = sh->tile;; t /= 2) {
            if (gemm__cuda_square_fits(sh, t, budget, &g)) {
                gemm__cuda_order_square(pl, sh, t, g);
                return true;
            }
            if (t <= GEMM__CUDA_MIN_TILE) return false;
        }
    }
    if (gemm__cuda_plan_long_k(pl, sh, budget)) return true;
    if (gemm__cuda_square_fits(sh, sh->tile, budget, &g)) {
        gemm__cuda_order_square(pl, sh, sh->tile, g);
        return true;
    }
    for (t = sh->tile;; t /= 2) {
        if (gemm__cuda_plan_blocks(pl, sh, t, budget)) return true;
        if (t <= GEMM__CUDA_MIN_TILE) break;
    }
    for (t = sh->tile;; t /= 2) {
        int64_t tm = gemm__cuda_min64(m, t), tn = gemm__cuda_min64(n, t), tk = gemm__cuda_min64(k, t);
        if (gemm__cuda_ksplit_bytes(sh, tm, tn, tk) <= budget &&
            gemm__cuda_few_enough(gemm__cuda_cdiv(m, tm), gemm__cuda_cdiv(n, tn), gemm__cuda_cdiv(k, tk))) {
            gemm__cuda_order_ksplit(pl, sh, tm, tn, tk);
            return true;
        }
        if (t <= GEMM__CUDA_MIN_TILE) return false;
    }
}
/* <<cuda orders */
/* >>cuda pipeline: src/cuda/pipeline.cuh */
/* The host path's pipeline: runs a plan (plan.cuh, orders.cuh) in a context
   (staging.cuh). Loads go host-to-device on one stream, multiplies
   alternate between two compute streams (chained ones stay on one), stores
   go device-to-host on a fourth; events order them as the plan's `after`
   fields say, and a multiply waits for the loads issued before it. The
   caller's pageable memory moves through the staging chunks: copy threads
   fill chunks ahead of the copy engine (as many as there are), and empty
   each store chunk once its copy from the device is done (staging.cuh: no
   copy thread sits waiting for a multiply); page-locked, device or managed
   memory is copied straight. One thread (the caller's) issues everything
   in plan order, so every event it waits on was recorded before.

   Entry for other host-data paths (the MPI backend's root-held data, say):
   gemm__cuda_host_run() (host.cuh) with a canonical gemm__problem, its
   operands and options, on the current device: it takes a context, plans
   within options.max_device_bytes, runs, and fills a gemm_timing. */

/* A 2D block of bytes moved between the caller's memory and the device:
   `rows` runs of `width` bytes, hpitch and dpitch apart. */
typedef struct gemm__cuda_region {
    char *host, *dev;
    size_t hpitch, dpitch, width, rows;
} gemm__cuda_region;

/* A store's piece waiting for a staging chunk. */
typedef struct gemm__cuda_outgoing {
    gemm__cuda_region r;
    int store, multiply; /* its store; the last multiply issued before it */
    bool first, last;
} gemm__cuda_outgoing;

/* Cuts a region into pieces of at most z bytes (whole runs where a run
   fits; a contiguous region counts as one run). */
static void gemm__cuda_split(gemm__cuda_region g, size_t z, std::vector<gemm__cuda_region> *out)
{
    size_t r, off;
    if (g.width == 0 || g.rows == 0) return;
    if (g.hpitch == g.width && g.dpitch == g.width) {
        g.width *= g.rows;
        g.rows = 1;
        g.hpitch = g.dpitch = g.width;
    }
    if (g.width <= z) {
        size_t per = z / g.width;
        for (r = 0; r < g.rows; r += per) {
            gemm__cuda_region p = g;
            p.host += r * g.hpitch;
            p.dev += r * g.dpitch;
            p.rows = g.rows - r < per ? g.rows - r : per;
            out->push_back(p);
        }
        return;
    }
    for (r = 0; r < g.rows; r++)
        for (off = 0; off < g.width; off += z) {
            gemm__cuda_region p = g;
            p.host += r * g.hpitch + off;
            p.dev += r * g.dpitch + off;
            p.width = g.width - off < z ? g.width - off : z;
            p.rows = 1;
            out->push_back(p);
        }
}

/* One call's run. Events (ctx->events): e_h2d (the loads so far), e_start,
   then per chunk, per multiply its end (and its start when timed), per
   store its end. */
template <class Dev, typename T, typename TC, typename S> struct gemm__cuda_pipe {
    const char *fn;
    const gemm__cuda_shape *sh;
    const gemm__cuda_plan *pl;
    const gemm__cuda_operands<T, TC, S> *x;
    const gemm_cuda_options *opt;
    gemm__cuda_context<Dev> *ctx;
    char *buf, *host[3];
    int64_t ld[3];
    bool direct[3], in_caller, timed;
    size_t z, s_in, s_out, e_h2d, e_start, e_chunk, e_end, e_begin, e_store;
    std::vector<gemm__cuda_region> in;
    std::vector<int> in_op, stream_of, other_of;
    std::unique_ptr<std::atomic<int>[]> in_done, out_done;
    size_t fill_next, dma_next, out_seq;
    std::deque<gemm__cuda_outgoing> out;
    int last_on[2], multiplies, stores, stores_recorded;
    cudaError_t err;
    const char *what;
    gemm_status status;
};

#define GEMM__CUDA_PIPE_TRY(q, call)                                                               \
    do {                                                                                           \
        cudaError_t gemm__e = (call);                                                              \
        if (gemm__e != cudaSuccess) {                                                              \
            (q)->err = gemm__e;                                                                    \
            (q)->what = #call;                                                                     \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

/* Byte offset of operand `which`'s element (r, c) in area `at`. */
static size_t gemm__cuda_area_offset(const gemm__cuda_shape *sh, int which, const gemm__cuda_area *at, int64_t r, int64_t c)
{
    int tr = sh->trans[which];
    int64_t sr = tr ? c - at->c0 : r - at->r0, sc = tr ? r - at->r0 : c - at->c0;
    return (size_t)(sr + sc * at->ld) * sh->elem[which];
}

/* The caller's memory and the device slot of an operand's rectangle. */
template <class P>
static gemm__cuda_region gemm__cuda_region_of(const P *q, int which, const gemm__cuda_area *at, int64_t r0, int64_t r1,
                                              int64_t c0, int64_t c1)
{
    const gemm__cuda_shape *sh = q->sh;
    int tr = sh->trans[which];
    size_t e = sh->elem[which];
    int64_t sr0 = tr ? c0 : r0, sr1 = tr ? c1 : r1, sc0 = tr ? r0 : c0, sc1 = tr ? r1 : c1;
    gemm__cuda_region g;
    g.host = q->host[which] + (size_t)(sr0 + sc0 * q->ld[which]) * e;
    g.dev = q->buf + q->pl->slot_offset[at->slot] + gemm__cuda_area_offset(sh, which, at, r0, c0);
    g.hpitch = (size_t)q->ld[which] * e;
    g.dpitch = (size_t)at->ld * e;
    g.width = (size_t)(sr1 - sr0) * e;
    g.rows = (size_t)(sc1 - sc0);
    return g;
}

/* Hands piece i's fill to the copy threads: it first waits until the copy
   engine is done with the chunk's previous piece (i - s_in, queued). */
template <class Dev, class P> static void gemm__cuda_pipe_fill(P *q, size_t i)
{
    size_t c = i % q->s_in;
    gemm__cuda_job j;
    j.dst = (char *)q->ctx->chunks[c];
    j.dpitch = q->in[i].width;
    j.src = q->in[i].host;
    j.spitch = q->in[i].hpitch;
    j.width = q->in[i].width;
    j.rows = q->in[i].rows;
    j.wait = i >= q->s_in ? Dev::sync_event : NULL;
    j.event = (void *)q->ctx->events[q->e_chunk + c];
    j.done = &q->in_done[i];
    gemm__cuda_workers_submit(&q->ctx->workers, &j, q->in_caller, false);
}

/* Keeps the copy threads filling every chunk the copy engine is not using. */
template <class Dev, class P> static void gemm__cuda_pipe_top_up(P *q)
{
    if (q->in_caller) return; /* fills run as each piece is due */
    while (q->fill_next < q->in.size() && q->fill_next < q->dma_next + q->s_in) gemm__cuda_pipe_fill<Dev>(q, q->fill_next++);
}

template <class Dev, class P> static bool gemm__cuda_pipe_out(P *q, bool block);

/* Waits until a job's flag is set; meanwhile (`progress`) queues stores
   whose chunks came free. */
template <class Dev, class P> static bool gemm__cuda_pipe_wait(P *q, std::atomic<int> *flag, bool progress)
{
    while (!flag->load()) {
        unsigned long long seen = gemm__cuda_workers_seen(&q->ctx->workers);
        if (progress && !gemm__cuda_pipe_out<Dev>(q, false)) return false;
        if (flag->load()) break;
        gemm__cuda_workers_wait(&q->ctx->workers, seen);
    }
    if (flag->load() == 1) return true;
    q->err = cudaErrorUnknown; /* the event wait of a copy thread failed: the device's error follows at the next sync */
    q->what = "cudaEventSynchronize (a copy thread waiting for the copy engine)";
    return false;
}

/* Makes `stream` wait for multiply g and every multiply before it (g and
   the last one issued before it on the other compute stream). */
template <class Dev, class P> static bool gemm__cuda_pipe_after(P *q, typename Dev::stream stream, int g)
{
    if (g < 0) return true; /* no multiply before it */
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(stream, q->ctx->events[q->e_end + (size_t)g]));
    if (q->other_of[(size_t)g] >= 0) GEMM__CUDA_PIPE_TRY(q, Dev::wait(stream, q->ctx->events[q->e_end + (size_t)q->other_of[(size_t)g]]));
    return true;
}

/* Queues the waiting store pieces whose chunks are free (`block`: all of
   them, waiting for chunks). */
template <class Dev, class P> static bool gemm__cuda_pipe_out(P *q, bool block)
{
    while (!q->out.empty()) {
        const gemm__cuda_outgoing *o = &q->out.front();
        size_t c = q->out_seq % q->s_out;
        char *chunk = (char *)q->ctx->chunks[q->s_in + c];
        typename Dev::event ev = q->ctx->events[q->e_chunk + q->s_in + c];
        gemm__cuda_job j;
        if (!q->out_done[c].load() && !block) break;
        if (!gemm__cuda_pipe_wait<Dev>(q, &q->out_done[c], false)) return false;
        if (o->first && !gemm__cuda_pipe_after<Dev>(q, q->ctx->d2h, o->multiply)) return false;
        GEMM__CUDA_PIPE_TRY(q, Dev::copy(chunk, o->r.width, o->r.dev, o->r.dpitch, o->r.width, o->r.rows, q->ctx->d2h));
        GEMM__CUDA_PIPE_TRY(q, Dev::record(ev, q->ctx->d2h));
        if (o->last) {
            GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_store + (size_t)o->store], q->ctx->d2h));
            q->stores_recorded = o->store + 1;
        }
        j.dst = o->r.host;
        j.dpitch = o->r.hpitch;
        j.src = chunk;
        j.spitch = o->r.width;
        j.width = o->r.width;
        j.rows = o->r.rows;
        j.wait = Dev::sync_event;
        j.event = (void *)ev;
        j.done = &q->out_done[c];
        q->out_done[c].store(0);
        q->out.pop_front();
        q->out_seq++;
        gemm__cuda_workers_submit(&q->ctx->workers, &j, q->in_caller, true);
    }
    return true;
}

/* Makes sure store s's event is recorded (its pieces queued). A plan
   that waits for a store it has not issued is an error, never a spin. */
template <class Dev, class P> static bool gemm__cuda_pipe_flush(P *q, int s)
{
    while (q->stores_recorded <= s) {
        if (q->out.empty() || s >= q->stores) {
            q->err = cudaErrorInvalidValue;
            q->what = "the host path's plan (a step waits for a store not issued before it)";
            return false;
        }
        if (!gemm__cuda_pipe_out<Dev>(q, true)) return false;
    }
    return true;
}

template <class Dev, class P> static bool gemm__cuda_pipe_load(P *q, const gemm__cuda_op *o, int index)
{
    typename Dev::stream h2d = q->ctx->h2d;
    if (o->after >= 0 && o->which == 2) {
        if (!gemm__cuda_pipe_flush<Dev>(q, o->after)) return false;
        GEMM__CUDA_PIPE_TRY(q, Dev::wait(h2d, q->ctx->events[q->e_store + (size_t)o->after]));
    } else if (o->after >= 0 && !gemm__cuda_pipe_after<Dev>(q, h2d, o->after)) {
        return false;
    }
    if (q->direct[o->which]) {
        gemm__cuda_region g = gemm__cuda_region_of(q, o->which, &o->at[o->which], o->r0, o->r1, o->c0, o->c1);
        GEMM__CUDA_PIPE_TRY(q, Dev::copy(g.dev, g.dpitch, g.host, g.hpitch, g.width, g.rows, h2d));
        return true;
    }
    while (q->dma_next < q->in.size() && q->in_op[q->dma_next] == index) {
        size_t i = q->dma_next, c = i % q->s_in;
        const gemm__cuda_region *g = &q->in[i];
        if (q->in_caller) gemm__cuda_pipe_fill<Dev>(q, q->fill_next++);
        else gemm__cuda_pipe_top_up<Dev>(q);
        if (!gemm__cuda_pipe_wait<Dev>(q, &q->in_done[i], true)) return false;
        GEMM__CUDA_PIPE_TRY(q, Dev::copy(g->dev, g->dpitch, q->ctx->chunks[c], g->width, g->width, g->rows, h2d));
        GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_chunk + c], h2d));
        q->dma_next++;
    }
    gemm__cuda_pipe_top_up<Dev>(q);
    return true;
}

/* A multiply's canonical sub-problem on the device slots, through the
   device-pointer path (its kernels, its checks) on stream s. */
template <class Dev, class P> static gemm_status gemm__cuda_pipe_gemm(P *q, const gemm__cuda_op *o, typename Dev::stream s)
{
    typedef decltype(q->x->a) APtr;
    typedef decltype(q->x->c) CPtr;
    const gemm__cuda_shape *sh = q->sh;
    int64_t m = o->r1 - o->r0, n = o->c1 - o->c0, k = o->p1 - o->p0;
    int64_t lda = sh->trans[0] ? (k > 1 ? k : 1) : (m > 1 ? m : 1), ldb = sh->trans[1] ? (n > 1 ? n : 1) : (k > 1 ? k : 1);
    auto y = *q->x; /* alpha; beta on K's first part, then 1 */
    gemm__problem sub = {};
    gemm_status st;
    y.a = NULL;
    y.b = NULL;
    if (sh->reads_ab) {
        y.a = (APtr)(q->buf + q->pl->slot_offset[o->at[0].slot] + gemm__cuda_area_offset(sh, 0, &o->at[0], o->r0, o->p0));
        y.b = (APtr)(q->buf + q->pl->slot_offset[o->at[1].slot] + gemm__cuda_area_offset(sh, 1, &o->at[1], o->p0, o->c0));
        lda = o->at[0].ld;
        ldb = o->at[1].ld;
    }
    y.c = (CPtr)(q->buf + q->pl->slot_offset[o->at[2].slot] + gemm__cuda_area_offset(sh, 2, &o->at[2], o->r0, o->c0));
    if (o->p0 > 0) y.beta = 1;
    st = gemm__prepare(q->fn, GEMM_COL_MAJOR, sh->trans[0] ? GEMM_TRANS : GEMM_NO_TRANS,
                       sh->trans[1] ? GEMM_TRANS : GEMM_NO_TRANS, m, n, k, y.alpha == 0, y.a != NULL, lda, y.b != NULL,
                       ldb, y.beta == 1, 1, o->at[2].ld, &sub);
    if (st != GEMM_OK || sub.work == GEMM__WORK_NONE) return st;
    return Dev::multiply(q->fn, &sub, y, q->opt, s);
}

template <class Dev, class P> static bool gemm__cuda_pipe_multiply(P *q, const gemm__cuda_op *o)
{
    int g = q->multiplies, prev = g > 0 ? q->stream_of[(size_t)g - 1] : 1, st = o->chain ? prev : 1 - prev;
    typename Dev::stream s = q->ctx->compute[st];
    GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_h2d], q->ctx->h2d));
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(s, q->ctx->events[q->e_h2d]));
    if (o->after >= 0) {
        if (!gemm__cuda_pipe_flush<Dev>(q, o->after)) return false;
        GEMM__CUDA_PIPE_TRY(q, Dev::wait(s, q->ctx->events[q->e_store + (size_t)o->after]));
    }
    if (q->timed) GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_begin + (size_t)g], s));
    if ((q->status = gemm__cuda_pipe_gemm<Dev>(q, o, s)) != GEMM_OK) return false;
    GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_end + (size_t)g], s));
    q->stream_of[(size_t)g] = st;
    q->other_of[(size_t)g] = q->last_on[1 - st];
    q->last_on[st] = g;
    q->multiplies++;
    return true;
}

template <class Dev, class P> static bool gemm__cuda_pipe_store(P *q, const gemm__cuda_op *o)
{
    gemm__cuda_region g = gemm__cuda_region_of(q, 2, &o->at[2], o->r0, o->r1, o->c0, o->c1);
    int s = q->stores++;
    if (q->direct[2] || g.width == 0 || g.rows == 0) { /* straight (or nothing to copy: only its event) */
        if (!gemm__cuda_pipe_after<Dev>(q, q->ctx->d2h, q->multiplies - 1)) return false;
        if (g.width && g.rows) GEMM__CUDA_PIPE_TRY(q, Dev::copy(g.host, g.hpitch, g.dev, g.dpitch, g.width, g.rows, q->ctx->d2h));
        GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_store + (size_t)s], q->ctx->d2h));
        q->stores_recorded = s + 1;
        return true;
    }
    {
        std::vector<gemm__cuda_region> pieces;
        size_t i;
        gemm__cuda_split(g, q->z, &pieces);
        for (i = 0; i < pieces.size(); i++) {
            gemm__cuda_outgoing w = {pieces[i], s, q->multiplies - 1, i == 0, i + 1 == pieces.size()};
            q->out.push_back(w);
        }
    }
    return gemm__cuda_pipe_out<Dev>(q, false);
}

template <class Dev, class P> static bool gemm__cuda_pipe_steps(P *q)
{
    size_t i;
    for (i = 0; i < q->pl->ops.size(); i++) {
        const gemm__cuda_op *o = &q->pl->ops[i];
        bool ok = o->kind == GEMM__CUDA_LOAD       ? gemm__cuda_pipe_load<Dev>(q, o, (int)i)
                  : o->kind == GEMM__CUDA_MULTIPLY ? gemm__cuda_pipe_multiply<Dev>(q, o)
                                                   : gemm__cuda_pipe_store<Dev>(q, o);
        if (!ok) return false;
    }
    return gemm__cuda_pipe_out<Dev>(q, true);
}

/* Waits for a job without queueing anything (the end of a call). */
template <class P> static void gemm__cuda_pipe_settle(P *q, std::atomic<int> *flag)
{
    while (!flag->load()) {
        unsigned long long seen = gemm__cuda_workers_seen(&q->ctx->workers);
        if (flag->load()) break;
        gemm__cuda_workers_wait(&q->ctx->workers, seen);
    }
}

/* The end of every call, after a failure too: every job finished (no copy
   thread touches a chunk or the caller's memory after the call returns),
   every stream idle. Keeps the first error. */
template <class Dev, class P> static void gemm__cuda_pipe_drain(P *q)
{
    typename Dev::stream streams[4] = {q->ctx->compute[0], q->ctx->compute[1], q->ctx->h2d, q->ctx->d2h};
    bool ok = q->err == cudaSuccess && q->status == GEMM_OK;
    size_t i;
    for (i = q->dma_next; i < q->fill_next; i++) gemm__cuda_pipe_settle(q, &q->in_done[i]);
    for (i = 0; i < q->s_out; i++) {
        gemm__cuda_pipe_settle(q, &q->out_done[i]);
        if (ok && q->out_done[i].load() != 1) {
            q->err = cudaErrorUnknown;
            q->what = "cudaEventSynchronize (a copy thread waiting for a staged piece of C)";
            ok = false;
        }
    }
    for (i = 0; i < 4; i++) {
        cudaError_t e = Dev::sync_stream(streams[i]);
        if (ok && e != cudaSuccess) {
            q->err = e;
            q->what = "cudaStreamSynchronize (the end of a host call)";
            ok = false;
        }
    }
}

/* The staged pieces, chunks, events and threads of a run; then its start. */
template <class Dev, class P> static bool gemm__cuda_pipe_setup(P *q, int threads)
{
    gemm__cuda_context<Dev> *ctx = q->ctx;
    size_t i, need_in, need_out = 0, have, m = (size_t)q->pl->multiplies;
    std::vector<gemm__cuda_region> outgoing;
    for (i = 0; i < q->pl->ops.size(); i++) {
        const gemm__cuda_op *o = &q->pl->ops[i];
        if (q->direct[o->which] || o->kind == GEMM__CUDA_MULTIPLY) continue;
        if (o->kind == GEMM__CUDA_STORE) { /* only counted: a call needs no more store chunks than pieces */
            if (need_out < (size_t)threads + 2)
                gemm__cuda_split(gemm__cuda_region_of(q, 2, &o->at[2], o->r0, o->r1, o->c0, o->c1), q->z, &outgoing);
            need_out = outgoing.size() < (size_t)threads + 2 ? outgoing.size() : (size_t)threads + 2;
            continue;
        }
        gemm__cuda_split(gemm__cuda_region_of(q, o->which, &o->at[o->which], o->r0, o->r1, o->c0, o->c1), q->z, &q->in);
        q->in_op.resize(q->in.size(), (int)i);
    }
    need_in = q->in.size() < (size_t)(2 * threads + 2) ? q->in.size() : (size_t)(2 * threads + 2);
    have = gemm__cuda_context_chunks(ctx, need_in + need_out);
    if (have < need_in + need_out) { /* page-locked memory ran short: fewer chunks */
        need_out = need_out == 0 ? 0 : need_in == 0 ? have : (have / 3 > 0 ? have / 3 : 1);
        need_in = need_in == 0 ? 0 : have - need_out;
        if ((q->in.size() && need_in == 0) || (q->pl->stores && !q->direct[2] && need_out == 0)) {
            q->err = cudaErrorMemoryAllocation;
            q->what = "cudaHostAlloc (the staging chunks)";
            return false;
        }
    }
    q->in_done.reset(new std::atomic<int>[q->in.size() + 1]());
    q->out_done.reset(new std::atomic<int>[need_out + 1]());
    for (i = 0; i < need_out; i++) q->out_done[i].store(1); /* free */
    q->s_in = need_in; /* set last: the drain reads them */
    q->s_out = need_out;
    q->stream_of.assign(m, 0);
    q->other_of.assign(m, -1);
    q->e_h2d = 0;
    q->e_start = 1;
    q->e_chunk = 2;
    q->e_end = q->e_chunk + q->s_in + q->s_out;
    q->e_begin = q->e_end + m;
    q->e_store = q->e_begin + (q->timed ? m : 0);
    GEMM__CUDA_PIPE_TRY(q, gemm__cuda_context_events(ctx, q->e_store + (size_t)q->pl->stores));
    if (!q->in_caller) gemm__cuda_workers_resize<Dev>(&ctx->workers, threads, ctx->dev);
    GEMM__CUDA_PIPE_TRY(q, Dev::record(ctx->events[q->e_start], ctx->compute[0])); /* after the buffer's allocation */
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(ctx->compute[1], ctx->events[q->e_start]));
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(ctx->h2d, ctx->events[q->e_start]));
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(ctx->d2h, ctx->events[q->e_start]));
    return true;
}

/* Where the time of a run went (run_s: wall clock from its start): the
   multiplies' busy time (the union of their intervals on both compute
   streams), the time before and between them (waiting for loads, or for a
   C slot's store), and the time after the last one. */
template <class Dev, class P> static void gemm__cuda_pipe_times(P *q, double run_s, gemm_timing *t)
{
    std::vector<std::pair<float, float>> iv;
    typename Dev::event start = q->ctx->events[q->e_start];
    float b, e, busy = 0, lo, hi, last = 0;
    size_t g;
    for (g = 0; g < (size_t)q->multiplies; g++) {
        if (Dev::elapsed(&b, start, q->ctx->events[q->e_begin + g]) != cudaSuccess ||
            Dev::elapsed(&e, start, q->ctx->events[q->e_end + g]) != cudaSuccess)
            return;
        iv.push_back(std::make_pair(b, e));
        if (e > last) last = e;
    }
    if (iv.empty()) return;
    std::sort(iv.begin(), iv.end());
    lo = iv[0].first;
    hi = iv[0].second;
    for (g = 1; g < iv.size(); g++) {
        if (iv[g].first > hi) {
            busy += hi - lo;
            lo = iv[g].first;
        }
        if (iv[g].second > hi) hi = iv[g].second;
    }
    busy += hi - lo;
    t->compute_s = busy * 1e-3;
    t->to_device_s = (last - busy) * 1e-3;
    t->from_device_s = run_s > last * 1e-3 ? run_s - last * 1e-3 : 0;
}

/* Runs plan `pl` of shape `sh` in context `ctx` on device buffer `buf`
   (allocated on ctx->compute[0]): the caller's canonical a, b, c with
   leading dimensions ld[], direct[i] when operand i is copied straight,
   `threads` copy threads (in_caller: the calling thread copies), staged
   pieces of at most z bytes. Fills *t (when not NULL) with the run's
   to_device_s, compute_s, from_device_s. */
template <class Dev, typename T, typename TC, typename S>
static gemm_status gemm__cuda_pipeline(const char *fn, gemm__cuda_context<Dev> *ctx, const gemm__cuda_shape *sh,
                                       const gemm__cuda_plan *pl, const gemm__cuda_operands<T, TC, S> &x,
                                       const int64_t ld[3], const bool direct[3], const gemm_cuda_options *opt,
                                       int threads, size_t z, bool in_caller, char *buf, gemm_timing *t)
{
    gemm__cuda_pipe<Dev, T, TC, S> q;
    double t0 = gemm__cuda_now();
    int i;
    q.fn = fn;
    q.sh = sh;
    q.pl = pl;
    q.x = &x;
    q.opt = opt;
    q.ctx = ctx;
    q.buf = buf;
    q.host[0] = (char *)x.a;
    q.host[1] = (char *)x.b;
    q.host[2] = (char *)x.c;
    for (i = 0; i < 3; i++) {
        q.ld[i] = ld[i];
        q.direct[i] = direct[i];
    }
    q.in_caller = in_caller;
    q.timed = t != NULL;
    q.z = z;
    q.s_in = q.s_out = 0;
    q.fill_next = q.dma_next = q.out_seq = 0;
    q.last_on[0] = q.last_on[1] = -1;
    q.multiplies = q.stores = q.stores_recorded = 0;
    q.err = cudaSuccess;
    q.what = "";
    q.status = GEMM_OK;
    try { /* whatever happens, the drain below runs: copy threads hold pointers into q */
        if (gemm__cuda_pipe_setup<Dev>(&q, threads)) {
            t0 = gemm__cuda_now();
            gemm__cuda_pipe_steps<Dev>(&q);
        }
    } catch (const std::exception &) {
        q.err = cudaErrorMemoryAllocation;
        q.what = "the pipeline's bookkeeping (host memory, or a copy thread that could not start)";
    }
    gemm__cuda_pipe_drain<Dev>(&q);
    if (q.status != GEMM_OK) return q.status;
    if (q.err != cudaSuccess) return gemm__cuda_fail(fn, q.what, q.err);
    if (t) gemm__cuda_pipe_times<Dev>(&q, gemm__cuda_now() - t0, t);
    return GEMM_OK;
}
/* <<cuda pipeline */
/* >>cuda host: src/cuda/host.cuh */
/* The host-pointer path (the _host calls): which memory can be copied
   straight, the zero-copy path of tiny problems, the plan within the
   device memory the call may take, the pipeline, the timing. */

/* Problems whose operands (bytes) are at most this small run zero-copy:
   the kernel reads A and B from page-locked memory over the bus, and no
   copy-engine transfer is issued. MAPPED asks for it up to the larger
   size; the default takes it only where the copies' launch latency would
   dominate. Above them every mode takes the pipeline. */
#define GEMM__CUDA_ZERO_COPY_DEFAULT ((size_t)96 << 10)
#define GEMM__CUDA_ZERO_COPY_MAPPED ((size_t)1 << 20)
/* Staged bytes up to which the calling thread copies alone (waking copy
   threads would cost more than the copies). */
#define GEMM__CUDA_IN_CALLER ((size_t)1 << 20)

#ifdef GEMM__TEST_HOOKS
/* Tests: how this thread's last host call ran: [0] 0 for zero-copy, else
   its plan's order; [1] its direct operands as bits (1 a, 2 b, 4 c). */
static GEMM__THREAD_LOCAL int gemm__cuda_host_last[2];
#define GEMM__CUDA_HOST_NOTE(order, direct) (gemm__cuda_host_last[0] = (order), gemm__cuda_host_last[1] = (direct))
#else
#define GEMM__CUDA_HOST_NOTE(order, direct) ((void)0)
#endif

/* How each operand can be reached: direct[i] when the copy engine can use
   the caller's memory as it is (page-locked host memory from cudaHostAlloc
   or cudaHostRegister, device or managed memory); mapped[i] is then the
   address a kernel may dereference (NULL if none). */
typedef struct gemm__cuda_reach {
    bool direct[3];
    const void *mapped[3];
} gemm__cuda_reach;

static void gemm__cuda_reach_of(const void *const ptr[3], gemm__cuda_reach *r)
{
    int i;
    for (i = 0; i < 3; i++) {
        cudaPointerAttributes at;
        r->direct[i] = false;
        r->mapped[i] = NULL;
        if (!ptr[i]) continue;
        if (cudaPointerGetAttributes(&at, ptr[i]) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        r->direct[i] = at.type != cudaMemoryTypeUnregistered;
        r->mapped[i] = r->direct[i] ? at.devicePointer : NULL;
    }
}

/* Device memory a call may take: what is free (and idle in the scratch
   pool) less a margin for the kernels and other users, or
   options.max_device_bytes when that is less (*capped). */
static gemm_status gemm__cuda_host_budget(const char *fn, int dev, const gemm_cuda_options *opt, size_t *budget,
                                          bool *capped)
{
    size_t free_b = 0, total = 0, margin;
    cudaMemPool_t pool;
    GEMM__CUDA_TRY(fn, cudaMemGetInfo(&free_b, &total));
    if (gemm__cuda_scratch_pool(fn, dev, false, &pool) == GEMM_OK && pool) {
        uint64_t reserved = 0, used = 0;
        if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
            cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && reserved > used)
            free_b += (size_t)(reserved - used);
    }
    margin = free_b / 16 > ((size_t)256 << 20) ? free_b / 16 : ((size_t)256 << 20);
    *budget = free_b > margin ? free_b - margin : 0;
    *capped = opt->max_device_bytes > 0 && opt->max_device_bytes < *budget;
    if (*capped) *budget = opt->max_device_bytes;
    return GEMM_OK;
}

/* The zero-copy path: operands the kernel cannot reach are copied whole
   into mapped staging chunks, the device path reads them over the bus,
   C's window comes back. Returns GEMM_ERR_UNAVAILABLE (no detail) when
   the chunks are not there: the caller takes the pipeline then. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_zero_copy(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                        const gemm_cuda_options *opt, gemm__cuda_context<gemm__cuda_real> *ctx,
                                        const gemm__cuda_reach *r, gemm_timing *t)
{
    size_t na = (size_t)p->a_extent * sizeof(T), nb = (size_t)p->b_extent * sizeof(T);
    gemm__cuda_operands<T, TC, S> y = x;
    cudaStream_t s = ctx->compute[0];
    double t0 = gemm__cuda_now(), t1;
    float ms = 0;
    gemm_status st;
    if (gemm__cuda_context_chunks(ctx, 3) < 3 || gemm__cuda_context_events(ctx, 2) != cudaSuccess) return GEMM_ERR_UNAVAILABLE;
    if (p->work == GEMM__WORK_FULL) {
        y.a = r->mapped[0] ? (const T *)r->mapped[0] : (const T *)memcpy(ctx->chunks[0], x.a, na);
        y.b = r->mapped[1] ? (const T *)r->mapped[1] : (const T *)memcpy(ctx->chunks[1], x.b, nb);
    }
    y.c = r->mapped[2] ? (TC *)r->mapped[2] : (TC *)ctx->chunks[2];
    if (!r->mapped[2] && x.beta != S(0))
        for (int64_t j = 0; j < p->n; j++) memcpy(y.c + j * p->ldc, x.c + j * p->ldc, (size_t)p->m * sizeof(TC));
    t1 = gemm__cuda_now();
    GEMM__CUDA_TRY(fn, cudaEventRecord(ctx->events[0], s));
    if ((st = gemm__cuda_run(fn, p, y, opt, s)) != GEMM_OK) {
        cudaStreamSynchronize(s);
        return st;
    }
    GEMM__CUDA_TRY(fn, cudaEventRecord(ctx->events[1], s));
    GEMM__CUDA_TRY(fn, cudaStreamSynchronize(s));
    GEMM__CUDA_TRY(fn, cudaEventElapsedTime(&ms, ctx->events[0], ctx->events[1]));
    if (t) {
        t->to_device_s = t1 - t0;
        t->compute_s = ms * 1e-3;
        t1 = gemm__cuda_now();
    }
    if (!r->mapped[2])
        for (int64_t j = 0; j < p->n; j++) memcpy(x.c + j * p->ldc, y.c + j * p->ldc, (size_t)p->m * sizeof(TC));
    if (t) t->from_device_s = gemm__cuda_now() - t1;
    return GEMM_OK;
}

/* The plan's inputs for a call: sizes, element bytes, the tile (panels of
   about an eighth of the larger side, 256 to 2048), and the most bytes a
   piece of C may have (half the store chunks' worth, so stores never
   wait for a chunk a piece before them holds). */
template <typename T, typename TC, typename S>
static void gemm__cuda_host_shape(const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                  const gemm_cuda_options *opt, const gemm__cuda_reach *r, int threads, size_t z,
                                  gemm__cuda_shape *sh)
{
    int64_t big = p->m > p->n ? p->m : p->n, t = gemm__cuda_cdiv(gemm__cuda_cdiv(big, 8), 128) * 128;
    sh->m = p->m;
    sh->n = p->n;
    sh->k = p->k;
    sh->trans[0] = p->a_trans;
    sh->trans[1] = p->b_trans;
    sh->trans[2] = 0;
    sh->elem[0] = sh->elem[1] = sizeof(T);
    sh->elem[2] = sizeof(TC);
    sh->reads_ab = p->work == GEMM__WORK_FULL;
    sh->loads_c = x.beta != S(0);
    sh->tc = gemm__cuda_is_tc<T>(opt);
    sh->tile = GEMM__HOOK(cuda_host_tile, t < 256 ? 256 : t > 2048 ? 2048 : t);
    sh->piece_bytes = r->direct[2] ? (size_t)64 << 20 : (size_t)(threads + 2) / 2 * z;
}

/* Bytes the copy threads move for a call (the staged operands). */
static size_t gemm__cuda_staged_bytes(const gemm__problem *p, const gemm__cuda_reach *r, size_t ea, size_t ec, bool loads_c)
{
    size_t bytes = 0;
    if (p->work == GEMM__WORK_FULL) {
        if (!r->direct[0]) bytes += (size_t)p->m * (size_t)p->k * ea;
        if (!r->direct[1]) bytes += (size_t)p->k * (size_t)p->n * ea;
    }
    if (!r->direct[2]) bytes += (size_t)p->m * (size_t)p->n * ec * (loads_c ? 2 : 1);
    return bytes;
}

/* A plan that fits, and its device buffer: when the allocation fails, the
   pool's idle memory goes back and a plan for 3/4 of the budget is tried,
   three times. A call no plan fits is refused before anything moves. */
static gemm_status gemm__cuda_host_plan(const char *fn, gemm__cuda_context<gemm__cuda_real> *ctx, const gemm__cuda_shape *sh,
                                        const gemm_cuda_options *opt, gemm__cuda_plan *pl, char **buf)
{
    size_t budget = 0;
    bool capped = false;
    int attempt;
    gemm_status s = gemm__cuda_host_budget(fn, ctx->dev, opt, &budget, &capped);
    for (attempt = 0; s == GEMM_OK; attempt++) {
        if (!gemm__cuda_plan_make(pl, sh, budget))
            return capped ? gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.max_device_bytes = %zu is too small for this "
                                       "call (tiles of %d need more)", fn, opt->max_device_bytes, GEMM__CUDA_MIN_TILE)
                          : gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: %zu bytes of device memory are free: too few for "
                                       "tiles of %d", fn, budget, GEMM__CUDA_MIN_TILE);
        s = gemm__cuda_real::device_alloc(fn, (void **)buf, pl->bytes, ctx->dev, ctx->compute[0]);
        if (s != GEMM_ERR_OUT_OF_MEMORY || attempt == 3) return s;
        cudaStreamSynchronize(ctx->compute[0]);
        gemm__cuda_real::device_trim(ctx->dev);
        budget = pl->bytes / 4 * 3;
    }
    return s;
}

/* A call in a context: zero-copy when tiny, else plan and pipeline. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host_in(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                      const gemm_cuda_options *opt, gemm__cuda_context<gemm__cuda_real> *ctx,
                                      gemm_timing *t)
{
    const void *ptr[3] = {x.a, x.b, x.c};
    gemm__cuda_reach r;
    gemm__cuda_shape sh;
    gemm__cuda_plan pl;
    char *buf = NULL;
    int threads = gemm__cuda_copy_threads(opt);
    int64_t ld[3] = {p->lda, p->ldb, p->ldc};
    size_t operands, staged, z;
    gemm_status s;
    gemm__cuda_reach_of(ptr, &r);
    GEMM__CUDA_HOST_NOTE(0, (r.direct[0] ? 1 : 0) | (r.direct[1] ? 2 : 0) | (r.direct[2] ? 4 : 0));
    operands = ((size_t)p->a_extent + (size_t)p->b_extent) * sizeof(T) + (size_t)p->c_extent * sizeof(TC);
    if (operands <= (opt->mode == GEMM_CUDA_MAPPED ? GEMM__CUDA_ZERO_COPY_MAPPED : GEMM__CUDA_ZERO_COPY_DEFAULT) &&
        (s = gemm__cuda_zero_copy(fn, p, x, opt, ctx, &r, t)) != GEMM_ERR_UNAVAILABLE)
        return s;
    staged = gemm__cuda_staged_bytes(p, &r, sizeof(T), sizeof(TC), x.beta != S(0));
    z = staged / (size_t)(4 * threads);
    z = z < ((size_t)256 << 10) ? (size_t)256 << 10 : z > GEMM__CUDA_CHUNK ? GEMM__CUDA_CHUNK : z;
    z = GEMM__HOOK(cuda_host_chunk_bytes, z);
    if (z > GEMM__CUDA_CHUNK) z = GEMM__CUDA_CHUNK;
    gemm__cuda_host_shape(p, x, opt, &r, threads, z, &sh);
    if ((s = gemm__cuda_host_plan(fn, ctx, &sh, opt, &pl, &buf)) != GEMM_OK) return s;
    GEMM__CUDA_HOST_NOTE(pl.order, (r.direct[0] ? 1 : 0) | (r.direct[1] ? 2 : 0) | (r.direct[2] ? 4 : 0));
    s = gemm__cuda_pipeline<gemm__cuda_real>(fn, ctx, &sh, &pl, x, ld, r.direct, opt, threads, z,
                                             staged <= GEMM__CUDA_IN_CALLER, buf, t);
    gemm__cuda_real::device_free(buf, ctx->compute[0]);
    return s;
}

/* The host path's internal entry, on the current device: canonical problem
   p (gemm__prepare's), its operands (a, b after the row-major swap), the
   options (mode, max_device_bytes, host_threads; kernel, math, split_k,
   variant for the multiplies), *t filled when not NULL (setup_s and
   total_s left to the caller). Another host-data path (the MPI backend's
   root-held matrices, say) calls it as gemm__cuda_host does. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host_run(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                       const gemm_cuda_options *opt, gemm_timing *t)
{
    gemm__cuda_context<gemm__cuda_real> *ctx;
    cudaError_t e = cudaSuccess;
    gemm_status s;
    int dev;
    GEMM__CUDA_TRY(fn, cudaGetDevice(&dev));
    if (dev < 0 || dev >= 64) return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: device %d: only 64 devices are served", fn, dev);
    if ((ctx = gemm__cuda_context_take(dev, &e)) == NULL) return gemm__cuda_fail(fn, "cudaStreamCreateWithFlags", e);
    try {
        s = gemm__cuda_host_in(fn, p, x, opt, ctx, t);
    } catch (const std::bad_alloc &) {
        s = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: out of host memory for the host path's bookkeeping", fn);
    } catch (const std::exception &ex) {
        s = gemm__fail(GEMM_ERR_DEVICE, "%s: the host path's copy threads: %s", fn, ex.what());
    }
    gemm__cuda_context_give(ctx);
    if (opt->max_device_bytes > 0) { /* the cap also bounds what the pool keeps */
        cudaMemPool_t pool;
        if (gemm__cuda_scratch_pool(fn, dev, false, &pool) == GEMM_OK && pool) cudaMemPoolTrimTo(pool, opt->max_device_bytes);
    }
    return s;
}

/* Makes options.device current; *old is the device to restore after. */
static gemm_status gemm__cuda_host_device(const char *fn, int device, int *old)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: no CUDA device (%s)", fn,
                          e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    if (device >= count)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device = %d, but there are %d devices", fn, device, count);
    GEMM__CUDA_TRY(fn, cudaGetDevice(old));
    GEMM__CUDA_TRY(fn, cudaSetDevice(device));
    return GEMM_OK;
}

/* A host-pointer call with work to do. The timing is written only when
   the call succeeds (the entry point zeroed it); its parts add up to
   total_s, setup_s being the rest. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                   const gemm_cuda_options *opt)
{
    gemm_timing t = {};
    double t0 = gemm__cuda_now(), rest;
    int old = -1;
    gemm_status s = gemm__cuda_host_device(fn, opt->device, &old);
    if (s != GEMM_OK) return s;
    s = gemm__cuda_host_run(fn, p, x, opt, opt->timing ? &t : NULL);
    cudaSetDevice(old);
    if (s == GEMM_OK && opt->timing) {
        t.total_s = gemm__cuda_now() - t0;
        rest = t.total_s - t.to_device_s - t.compute_s - t.from_device_s;
        t.setup_s = rest > 0 ? rest : 0;
        *opt->timing = t;
    }
    return s;
}
/* <<cuda host */
/* >>cuda api: src/cuda/api.cuh */
/* The public functions: thin typed wrappers over gemm__cuda_call. */

/* Every call: the argument checks and the canonical problem once
   (gemm__prepare), the options, then the device-pointer path on `stream`
   or, for `host`, the host-pointer path. T: A and B, TC: C, S: alpha and
   beta. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_call(const char *fn, cudaStream_t stream, bool host, gemm_layout layout,
                                   gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k, S alpha,
                                   const T *A, int64_t lda, const T *B, int64_t ldb, S beta, TC *C, int64_t ldc,
                                   const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__problem p = {}; /* zeroed: gcc cannot see that gemm__prepare sets p->work on success */
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    if (host && opt->timing) *opt->timing = gemm_timing{};
    s = gemm__prepare(fn, layout, ta, tb, m, n, k, alpha == S(0), A != NULL, lda, B != NULL, ldb, beta == S(1),
                      C != NULL, ldc, &p);
    if (s == GEMM_OK)
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_check_tc(fn, opt)
                                     : gemm__cuda_check_exact(fn, opt, (int)sizeof(T) * 8);
    if (s == GEMM_OK && host) s = gemm__cuda_check_host(fn, opt);
    if (s != GEMM_OK || p.work == GEMM__WORK_NONE) return s;
    {
        gemm__cuda_operands<T, TC, S> x = {p.swapped ? B : A, p.swapped ? A : B, C, alpha, beta};
        return host ? gemm__cuda_host(fn, &p, x, opt) : gemm__cuda_run(fn, &p, x, opt, stream);
    }
}

/* gemm_cuda_sgemm_mixed with its element types made C++ types. */
template <typename T, typename TC>
static gemm_status gemm__cuda_mixed_as(const char *fn, cudaStream_t stream, bool host, gemm_layout layout,
                                       gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                       float alpha, const void *A, int64_t lda, const void *B, int64_t ldb, float beta,
                                       void *C, int64_t ldc, const gemm_cuda_options *opt)
{
    return gemm__cuda_call<T, TC, float>(fn, stream, host, layout, ta, tb, m, n, k, alpha, (const T *)A, lda,
                                         (const T *)B, ldb, beta, (TC *)C, ldc, opt);
}

typedef gemm_status (*gemm__cuda_mixed_fn)(const char *, cudaStream_t, bool, gemm_layout, gemm_transpose,
                                           gemm_transpose, int64_t, int64_t, int64_t, float, const void *, int64_t,
                                           const void *, int64_t, float, void *, int64_t, const gemm_cuda_options *);

/* The instance for A, B and C of these types: A and B both F16 or both
   BF16, C F32 or their type; NULL for any other combination. */
static gemm__cuda_mixed_fn gemm__cuda_mixed_types(gemm_precision a, gemm_precision b, gemm_precision c)
{
    if (a != b) return NULL;
    if (a == GEMM_F16)
        return c == GEMM_F32   ? gemm__cuda_mixed_as<__half, float>
               : c == GEMM_F16 ? gemm__cuda_mixed_as<__half, __half>
                               : NULL;
    if (a == GEMM_BF16)
        return c == GEMM_F32   ? gemm__cuda_mixed_as<__nv_bfloat16, float>
               : c == GEMM_BF16 ? gemm__cuda_mixed_as<__nv_bfloat16, __nv_bfloat16>
                                : NULL;
    return NULL;
}

static gemm_status gemm__cuda_mixed_refused(const char *fn, gemm_precision a, gemm_precision b, gemm_precision c)
{
    gemm__clear_error();
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: a_type %d (%s), b_type %d (%s), c_type %d (%s): A and B must both be "
                      "GEMM_F16 or both GEMM_BF16 (TF32: gemm_cuda_sgemm with options.math), C GEMM_F32 or their type",
                      fn, (int)a, gemm_precision_name(a), (int)b, gemm_precision_name(b), (int)c, gemm_precision_name(c));
}

/* The batch calls: the batch's checks (gemm__prepare_strided or _batched,
   shared with the CPU), the options, then gemm__cuda_batch_run. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batch_checked(const char *fn, gemm_status s, const gemm__problem *p,
                                            const gemm__batch *hb, const gemm__cuda_operands<T, TC, S> &x,
                                            const gemm_cuda_options *opt, cudaStream_t stream)
{
    if (s == GEMM_OK)
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_check_tc(fn, opt) : gemm__cuda_check_exact(fn, opt, (int)sizeof(T) * 8);
    if (s != GEMM_OK) return s;
    return gemm__cuda_batch_run(fn, p, hb, x, opt, stream);
}

template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_strided(const char *fn, cudaStream_t stream, gemm_layout layout, gemm_transpose ta,
                                      gemm_transpose tb, int64_t m, int64_t n, int64_t k, S alpha, const T *A,
                                      int64_t lda, int64_t sa, const T *B, int64_t ldb, int64_t sb, S beta, TC *C,
                                      int64_t ldc, int64_t sc, int64_t count, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__problem p = {};
    gemm__batch hb;
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    s = gemm__prepare_strided(fn, layout, ta, tb, m, n, k, alpha == S(0), A != NULL, lda, sa, B != NULL, ldb, sb,
                              beta == S(1), C != NULL, ldc, sc, count, &p, &hb);
    gemm__cuda_operands<T, TC, S> x = {p.swapped ? B : A, p.swapped ? A : B, C, alpha, beta};
    return gemm__cuda_batch_checked(fn, s, &p, &hb, x, opt, stream);
}

/* A member's address in a list of device pointers (any element type). */
static uint64_t gemm__cuda_list_addr(const void *list, int64_t i)
{
    return (uint64_t)(uintptr_t)((const void *const *)list)[i];
}

template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batched(const char *fn, cudaStream_t stream, gemm_layout layout, gemm_transpose ta,
                                      gemm_transpose tb, int64_t m, int64_t n, int64_t k, S alpha,
                                      const T *const *A, int64_t lda, const T *const *B, int64_t ldb, S beta,
                                      TC *const *C, int64_t ldc, int64_t count, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__problem p = {};
    gemm__batch hb;
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    s = gemm__prepare_batched(fn, layout, ta, tb, m, n, k, alpha == S(0), A, lda, B, ldb, beta == S(1), C, ldc, count,
                              gemm__cuda_list_addr, gemm__cuda_list_addr, sizeof(TC), &p, &hb);
    gemm__cuda_operands<T, TC, S> x = {NULL, NULL, NULL, alpha, beta};
    return gemm__cuda_batch_checked(fn, s, &p, &hb, x, opt, stream);
}

/* The mixed-precision batches with their element types made C++ types. */
template <typename T, typename TC>
static gemm_status gemm__cuda_mixed_strided_as(const char *fn, cudaStream_t stream, gemm_layout layout,
                                               gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                               float alpha, const void *A, int64_t lda, int64_t sa, const void *B,
                                               int64_t ldb, int64_t sb, float beta, void *C, int64_t ldc, int64_t sc,
                                               int64_t count, const gemm_cuda_options *opt)
{
    return gemm__cuda_strided<T, TC, float>(fn, stream, layout, ta, tb, m, n, k, alpha, (const T *)A, lda, sa,
                                            (const T *)B, ldb, sb, beta, (TC *)C, ldc, sc, count, opt);
}

template <typename T, typename TC>
static gemm_status gemm__cuda_mixed_batched_as(const char *fn, cudaStream_t stream, gemm_layout layout,
                                               gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                               float alpha, const void *const *A, int64_t lda, const void *const *B,
                                               int64_t ldb, float beta, void *const *C, int64_t ldc, int64_t count,
                                               const gemm_cuda_options *opt)
{
    return gemm__cuda_batched<T, TC, float>(fn, stream, layout, ta, tb, m, n, k, alpha, (const T *const *)A, lda,
                                            (const T *const *)B, ldb, beta, (TC *const *)C, ldc, count, opt);
}

extern "C" {

GEMM_DEF gemm_status gemm_cuda_sgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                     int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_call<float, float, float>("gemm_cuda_sgemm", stream, false, layout, transa, transb, m, n, k,
                                                alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                     const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                     double *C, int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_call<double, double, double>("gemm_cuda_dgemm", stream, false, layout, transa, transb, m, n, k,
                                                   alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                          int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                          int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_call<float, float, float>("gemm_cuda_sgemm_host", NULL, true, layout, transa, transb, m, n, k,
                                                alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                          int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                          int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_call<double, double, double>("gemm_cuda_dgemm_host", NULL, true, layout, transa, transb, m, n,
                                                   k, alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_mixed(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                           const void *A, gemm_precision a_type, int64_t lda, const void *B,
                                           gemm_precision b_type, int64_t ldb, float beta, void *C,
                                           gemm_precision c_type, int64_t ldc, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_sgemm_mixed";
    gemm__cuda_mixed_fn run = gemm__cuda_mixed_types(a_type, b_type, c_type);
    if (!run) return gemm__cuda_mixed_refused(fn, a_type, b_type, c_type);
    return run(fn, stream, false, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                                                gemm_precision a_type, int64_t lda, const void *B,
                                                gemm_precision b_type, int64_t ldb, float beta, void *C,
                                                gemm_precision c_type, int64_t ldc, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_sgemm_mixed_host";
    gemm__cuda_mixed_fn run = gemm__cuda_mixed_types(a_type, b_type, c_type);
    if (!run) return gemm__cuda_mixed_refused(fn, a_type, b_type, c_type);
    return run(fn, NULL, true, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                     const float *B, int64_t ldb, int64_t stride_b, float beta,
                                                     float *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options)
{
    return gemm__cuda_strided<float, float, float>("gemm_cuda_sgemm_strided_batched", stream, layout, transa, transb,
                                                   m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
                                                   stride_c, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                     const double *B, int64_t ldb, int64_t stride_b, double beta,
                                                     double *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options)
{
    return gemm__cuda_strided<double, double, double>("gemm_cuda_dgemm_strided_batched", stream, layout, transa,
                                                      transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b,
                                                      beta, C, ldc, stride_c, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                             const float *const A[], int64_t lda, const float *const B[], int64_t ldb,
                                             float beta, float *const C[], int64_t ldc, int64_t batch_count,
                                             const gemm_cuda_options *options)
{
    return gemm__cuda_batched<float, float, float>("gemm_cuda_sgemm_batched", stream, layout, transa, transb, m, n, k,
                                                   alpha, A, lda, B, ldb, beta, C, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                             const double *const A[], int64_t lda, const double *const B[],
                                             int64_t ldb, double beta, double *const C[], int64_t ldc,
                                             int64_t batch_count, const gemm_cuda_options *options)
{
    return gemm__cuda_batched<double, double, double>("gemm_cuda_dgemm_batched", stream, layout, transa, transb, m, n,
                                                      k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_strided_batched(cudaStream_t stream, gemm_layout layout,
                                                           gemm_transpose transa, gemm_transpose transb, int64_t m,
                                                           int64_t n, int64_t k, float alpha, const void *A,
                                                           gemm_precision a_type, int64_t lda, int64_t stride_a,
                                                           const void *B, gemm_precision b_type, int64_t ldb,
                                                           int64_t stride_b, float beta, void *C,
                                                           gemm_precision c_type, int64_t ldc, int64_t stride_c,
                                                           int64_t batch_count, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_sgemm_mixed_strided_batched";
    gemm_status (*run)(const char *, cudaStream_t, gemm_layout, gemm_transpose, gemm_transpose, int64_t, int64_t,
                       int64_t, float, const void *, int64_t, int64_t, const void *, int64_t, int64_t, float, void *,
                       int64_t, int64_t, int64_t, const gemm_cuda_options *) = NULL;
    if (gemm__cuda_mixed_types(a_type, b_type, c_type) == NULL) return gemm__cuda_mixed_refused(fn, a_type, b_type, c_type);
    if (a_type == GEMM_F16) run = c_type == GEMM_F32 ? gemm__cuda_mixed_strided_as<__half, float>
                                                     : gemm__cuda_mixed_strided_as<__half, __half>;
    else run = c_type == GEMM_F32 ? gemm__cuda_mixed_strided_as<__nv_bfloat16, float>
                                  : gemm__cuda_mixed_strided_as<__nv_bfloat16, __nv_bfloat16>;
    return run(fn, stream, layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
               stride_c, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                   float alpha, const void *const A[], gemm_precision a_type,
                                                   int64_t lda, const void *const B[], gemm_precision b_type,
                                                   int64_t ldb, float beta, void *const C[], gemm_precision c_type,
                                                   int64_t ldc, int64_t batch_count, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_sgemm_mixed_batched";
    gemm_status (*run)(const char *, cudaStream_t, gemm_layout, gemm_transpose, gemm_transpose, int64_t, int64_t,
                       int64_t, float, const void *const *, int64_t, const void *const *, int64_t, float,
                       void *const *, int64_t, int64_t, const gemm_cuda_options *) = NULL;
    if (gemm__cuda_mixed_types(a_type, b_type, c_type) == NULL) return gemm__cuda_mixed_refused(fn, a_type, b_type, c_type);
    if (a_type == GEMM_F16) run = c_type == GEMM_F32 ? gemm__cuda_mixed_batched_as<__half, float>
                                                     : gemm__cuda_mixed_batched_as<__half, __half>;
    else run = c_type == GEMM_F32 ? gemm__cuda_mixed_batched_as<__nv_bfloat16, float>
                                  : gemm__cuda_mixed_batched_as<__nv_bfloat16, __nv_bfloat16>;
    return run(fn, stream, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_release_scratch(void)
{
    static const char *fn = "gemm_cuda_release_scratch";
    cudaMemPool_t pool;
    int dev;
    gemm_status s;
    gemm__clear_error();
    GEMM__CUDA_TRY(fn, cudaGetDevice(&dev));
    if (dev >= 0 && dev < 64) gemm__cuda_context_release_idle(dev); /* the host path's staging, threads, streams */
    if ((s = gemm__cuda_scratch_pool(fn, dev, false, &pool)) != GEMM_OK || !pool) return s;
    GEMM__CUDA_TRY(fn, cudaDeviceSynchronize());
    GEMM__CUDA_TRY(fn, cudaMemPoolTrimTo(pool, 0));
    return GEMM_OK;
}

GEMM_DEF gemm_cuda_kernel gemm_cuda_auto_kernel(gemm_precision precision, gemm_cuda_math math, int64_t m, int64_t n,
                                                int64_t k)
{
    int dev, major, minor;
    bool exact = math == GEMM_CUDA_MATH_EXACT && (precision == GEMM_F32 || precision == GEMM_F64);
    bool tc = precision == GEMM_F16 || precision == GEMM_BF16 ||
              (precision == GEMM_F32 && (math == GEMM_CUDA_MATH_TF32 || math == GEMM_CUDA_MATH_FP32_ACCURATE));
    (void)m; (void)n; (void)k;
    if ((!exact && !tc) || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return GEMM_CUDA_KERNEL_AUTO;
    return tc ? gemm__cuda_choose_tc(dev, major, minor) : gemm__cuda_choose(precision, major, minor);
}

GEMM_DEF const char *gemm_cuda_kernel_name(gemm_cuda_kernel kernel)
{
    switch (kernel) {
    case GEMM_CUDA_KERNEL_AUTO: return "auto";
    case GEMM_CUDA_KERNEL_NAIVE: return "naive";
    case GEMM_CUDA_KERNEL_TILED16: return "tiled16";
    case GEMM_CUDA_KERNEL_SIMT: return "simt";
    case GEMM_CUDA_KERNEL_DMMA: return "dmma";
    case GEMM_CUDA_KERNEL_MMA: return "mma";
    case GEMM_CUDA_KERNEL_WGMMA: return "wgmma";
    default: return "?";
    }
}

} /* extern "C" */
/* <<cuda api */

#endif /* GEMM_IMPLEMENTATION */

/*
   LICENSE (MIT)
   Copyright (c) 2026 the gemm authors
   Permission is hereby granted, free of charge, to any person obtaining a copy
   of this software and associated documentation files (the "Software"), to
   deal in the Software without restriction, including without limitation the
   rights to use, copy, modify, merge, publish, distribute, sublicense, and/or
   sell copies of the Software, and to permit persons to whom the Software is
   furnished to do so, subject to the following conditions: The above copyright
   notice and this permission notice shall be included in all copies or
   substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS",
   WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.
*/
