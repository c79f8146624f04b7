/* >>cuda whole_cuda: src/cuda/whole_cuda.h */
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

   Two ways to call it
     - device pointers, asynchronous on a stream (no synchronisation, and
       nothing allocated but the tensor-core modes' stream-ordered operand
       copies below; the call returns once the kernels are queued):
           gemm_cuda_sgemm(layout, ta, tb, m, n, k, alpha, dA, lda, dB, ldb,
                           beta, dC, ldc, stream);
       gemm_cuda_sgemm_ex() takes a gemm_cuda_options as well (kernel choice).
       A, B, C must be memory the current device can address (cudaMalloc,
       managed or mapped host memory); a plain host pointer is refused with
       GEMM_ERR_INVALID_ARG, not dereferenced.
     - host pointers, synchronous: gemm_cuda_sgemm_host() allocates on the
       device, copies, multiplies, copies C back and frees, in one of three
       modes (gemm_cuda_mode): pageable copies, pinned staging buffers, or
       mapped (zero-copy) host memory that the kernel reads over the bus.
       It can fill a gemm_cuda_timing (copies and kernel, not allocation).
       Pinned and mapped allocate page-locked buffers on every call (0.7 ms
       even for tiny matrices on an H200), so pageable is the fastest end
       to end; mapped wins the copies-plus-kernel time for small matrices
       only (bench/RESULTS.md). Keep data on the device when it matters.

   Kernels (gemm_cuda_kernel; AUTO picks by precision and compute capability)
     - SIMT: fp32 (and fp64 on GPUs without FP64 tensor cores). 128x128
       block tiles, 8x8 per thread (fp64: 64x64, 4x4), two blocks per SM, 16-byte cp.async
       copies into a 3-stage shared-memory ring, 16-byte shared-memory reads
       laid out so that no two threads of a warp hit one bank. Each operand is read in the
       orientation it is stored in (k-contiguous or not: two shared-memory
       layouts), so no transpose pass is needed for any of the 8 cases.
       Operands whose pointer or leading dimension is not 16-byte aligned
       take the same kernel with element-sized copies.
     - DMMA: fp64 on the FP64 tensor cores (mma.sync; m16n8k4 on sm_90,
       pairs of m8n8k4 on sm_80). 128x64 block tiles, 32x32 per warp, two
       blocks per SM, the same cp.async ring.
     - Configurations (options.variant; 0 = the default, 1..8 pick one,
       tables at "Kernel configurations" below): 8 per precision, among
       them SIMT2 for fp32 (both tiles in one [k][side] layout so each
       fragment read is a 16-byte load for one k, fragments of k+1 read
       while k is multiplied; a k-major operand goes through registers
       and is transposed into shared memory), swizzled block order, DMMA
       with 128x128 blocks, BK 32, more stages, double-buffered fragments.
       Only the defaults (GEMM__CUDA_S_VARIANT, GEMM__CUDA_D_VARIANT;
       variant 1 = the kernels of commit b0358f8) are compiled unless
       GEMM_CUDA_TUNING is defined; tests/cuda_sweep.sh measures them all
       (its benchmark adds GEMM_CUDA_TUNING_NN_ONLY: only the layout of a
       row-major NN call is compiled, every other call fails).
     - NAIVE (one thread per element) and TILED16 (the 16x16 shared-memory
       tile of the seed paper 000): the textbook ladder, for benchmarks.
   Edges (any m, n, k) are bounds-checked in every kernel. When the tiles
   are too few to fill the GPU, the K loop is split over several blocks
   that add into C with atomics (after C = beta*C): such results may differ
   in the last bits from run to run. options.split_k = 1 turns that off.

   SIMT and DMMA need compute capability 8.0 or later (cp.async); on older
   GPUs AUTO runs TILED16, slowly but right. On an H200 the SIMT
   kernel runs at 0.71-0.79 of cuBLAS's sgemm, DMMA at 0.66-0.76 of its
   dgemm (bench/RESULTS.md).

   Reduced precision, opt-in by name (fp32 sums in every mode):
     - TF32: gemm_cuda_sgemm_ex / _host with options.math = GEMM_CUDA_MATH_TF32.
       The tensor cores read fp32 inputs with 10 mantissa bits (the low 13
       are dropped): expect relative errors near 1e-3, not fp32's 1e-7.
     - FP16, BF16: gemm_cuda_gemm_mixed() / _mixed_host(), A and B __half
       or __nv_bfloat16, C fp32 or the input type (rounded once from the
       fp32 result).
     Kernels: WGMMA on Hopper (sm_90 with an sm_90a build): tiles copied by
     the copy engine (TMA) into a 3-4 stage ring, wgmma m64n256 (m64n128)
     from shared memory, a producer and two consumer warpgroups, block
     tiles of 256x128, or 128x128 with two blocks per SM for short K
     (options.variant 1 or 2 picks one). MMA elsewhere from sm_80 (mma.sync m16n8k16 / m16n8k8 on
     the SIMT kernel's cp.async ring, 128x128 tiles); NAIVE below sm_80
     (exact fp32 sums there). Both read op(A) and op(B) k-major from
     16-byte aligned rows (WGMMA also reads a 16-bit op(A) M-major, so a
     16-bit NN call, row- or column-major, is read in place): any other
     operand, or one with an odd leading dimension or a misaligned pointer,
     is first copied into that form in a scratch buffer taken in stream
     order on the caller's stream and freed there. Its memory pool, one
     per device, keeps what it took for the next calls (a workspace, as
     cuBLAS keeps one); gemm_cuda_release_scratch() hands it back. When
     the tiles are too few to fill the GPU, WGMMA splits K: each part writes
     its fp32 sums into the scratch buffer and one more kernel adds them
     in a fixed order (no atomics: the same result on every run). MMA never
     splits K.
     The first such call on a device asks it, once, whether the sm_90a
     code was loaded for it (a 4-byte synchronous copy).
     Speed on an H200 against cublasGemmEx: bench/RESULTS.md.

   Errors: every CUDA call is checked; a failure returns GEMM_ERR_DEVICE
   (GEMM_ERR_OUT_OF_MEMORY, GEMM_ERR_UNAVAILABLE where they fit) with the
   CUDA error name and string in gemm_last_error_detail(). An asynchronous
   kernel fault shows up at the caller's next synchronisation, as in CUDA.
   One case writes C before failing: with split-K, C = beta*C is queued
   first, so if the main launch is then refused, C is left scaled.

   LICENSE: MIT, see the end of gemm.h.
*/

#ifndef GEMM_CUDA_CUH_INCLUDED
#define GEMM_CUDA_CUH_INCLUDED

#include "gemm.h"
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

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

typedef enum gemm_cuda_math { /* what gemm_cuda_sgemm* computes in */
    GEMM_CUDA_MATH_EXACT = 0, /* fp32 in fp32 (and fp64 in fp64) */
    GEMM_CUDA_MATH_TF32 = 1   /* fp32 inputs cut to TF32 (10-bit mantissa) on the tensor cores, fp32 sums */
} gemm_cuda_math;

typedef enum gemm_cuda_type { /* element types of gemm_cuda_gemm_mixed */
    GEMM_CUDA_F32 = 0,  /* float */
    GEMM_CUDA_F16 = 1,  /* __half (cuda_fp16.h) */
    GEMM_CUDA_BF16 = 2  /* __nv_bfloat16 (cuda_bf16.h) */
} gemm_cuda_type;

typedef enum gemm_cuda_mode { /* how the _host calls move data */
    GEMM_CUDA_PAGEABLE = 0, /* cudaMemcpy from and to the caller's memory */
    GEMM_CUDA_PINNED = 1,   /* through page-locked staging buffers */
    GEMM_CUDA_MAPPED = 2    /* page-locked mapped buffers the kernel reads directly */
} gemm_cuda_mode;

typedef struct gemm_cuda_timing { /* milliseconds of one _host call */
    double h2d_ms;    /* host to device (including the copy into staging buffers) */
    double kernel_ms; /* the kernels, CUDA events */
    double d2h_ms;    /* device to host (including the copy out of staging buffers) */
} gemm_cuda_timing;

/* Zero-initialised means every default; NULL works too. */
typedef struct gemm_cuda_options {
    gemm_cuda_kernel kernel;  /* AUTO */
    gemm_cuda_math math;      /* EXACT */
    gemm_cuda_mode mode;      /* _host calls: PAGEABLE */
    int device;               /* _host calls: CUDA device index (0 = the first) */
    int split_k;              /* 0 = automatic, 1 = never split K, s = split K in s parts */
    gemm_cuda_timing *timing; /* _host calls: filled when not NULL */
    int variant;              /* tuning: 0 = the default configuration; 1..8 pick one (GEMM_CUDA_TUNING, below);
                                 tensor-core modes: 1 = WGMMA tiles of 256 rows, 2 = of 128 */
} gemm_cuda_options;

GEMM_DEF gemm_status gemm_cuda_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                     int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                     const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                     cudaStream_t stream);
GEMM_DEF gemm_status gemm_cuda_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                     int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                     const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                     cudaStream_t stream);
GEMM_DEF gemm_status gemm_cuda_sgemm_ex(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                        const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                        cudaStream_t stream, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_dgemm_ex(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                        int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                        int64_t ldc, cudaStream_t stream, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_sgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                          int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                          int64_t ldc, const gemm_cuda_options *options);
GEMM_DEF gemm_status gemm_cuda_dgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                          int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                          int64_t ldc, const gemm_cuda_options *options);

/* Reduced precision on the tensor cores: A and B of `input` type (F16 or
   BF16), sums in fp32, C of `output` type (F32 or the input type); alpha
   and beta are floats. Device pointers, asynchronous, as gemm_cuda_sgemm_ex.
   (TF32 is gemm_cuda_sgemm_ex with options->math = GEMM_CUDA_MATH_TF32.) */
GEMM_DEF gemm_status gemm_cuda_gemm_mixed(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, float alpha, const void *A, int64_t lda,
                                          const void *B, int64_t ldb, float beta, void *C, int64_t ldc,
                                          gemm_cuda_type input, gemm_cuda_type output, cudaStream_t stream,
                                          const gemm_cuda_options *options);

/* The same with host pointers, synchronous, as gemm_cuda_sgemm_host (the
   options' mode, device and timing apply). */
GEMM_DEF gemm_status gemm_cuda_gemm_mixed_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                               int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                                               int64_t lda, const void *B, int64_t ldb, float beta, void *C,
                                               int64_t ldc, gemm_cuda_type input, gemm_cuda_type output,
                                               const gemm_cuda_options *options);

/* Hands the memory the tensor-core modes keep for their operand copies on
   the current device back to the driver; waits for the device first. */
GEMM_DEF gemm_status gemm_cuda_release_scratch(void);

/* The kernel AUTO would run for this problem on the current device
   (precision_bits 32 or 64; 16 for the tensor-core modes: TF32, FP16,
   BF16); GEMM_CUDA_KERNEL_AUTO if it cannot tell. */
GEMM_DEF gemm_cuda_kernel gemm_cuda_auto_kernel(int precision_bits, int64_t m, int64_t n, int64_t k);

/* "naive", "tiled16", "simt", "dmma", "mma", "wgmma", "auto"; "?" for anything else. */
GEMM_DEF const char *gemm_cuda_kernel_name(gemm_cuda_kernel kernel);

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

#include <atomic>
#include <chrono>
#include <type_traits>
#include <cuda.h> /* CUtensorMap (types only: the driver is reached through the runtime) */
#include <stdint.h>
#include <string.h>

/* ---- errors ---- */

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

#define GEMM__CUDA_TRY(func, call)                                                                 \
    do {                                                                                           \
        cudaError_t gemm__e = (call);                                                              \
        if (gemm__e != cudaSuccess) return gemm__cuda_fail(func, #call, gemm__e);                  \
    } while (0)

/* ---- device helpers ---- */

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
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int N> __device__ __forceinline__ void gemm__cuda_cp_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
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

/* The normalised problem every kernel solves: C is column-major (element
   (i, j) at C[i + j*ldc]); op(A) is M x K and op(B) is K x N. A "k-major"
   operand has its K index contiguous in memory. */

/* ---- the ladder: naive and the seed paper's 16x16 tiles ---- */

/* T: A and B; S: the sums and scalars; TC: C (the tensor-core modes' fallback
   runs here with FP16/BF16 inputs, and with exact fp32 sums for TF32). */
template <typename T, typename S = T, typename TC = T>
__global__ void gemm__cuda_naive_kernel(int M, int N, int K, S alpha, const T *A, int64_t ars, int64_t acs,
                                        const T *B, int64_t brs, int64_t bcs, S beta, TC *C, int64_t ldc)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x), j = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (i >= M || j >= N) return;
    S sum = 0;
    for (int p = 0; p < K; p++) sum += S(A[i * ars + p * acs]) * S(B[p * brs + j * bcs]);
    gemm__cuda_store(&C[i + (int64_t)j * ldc], sum, alpha, beta, 0);
}

template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_tiled16_kernel(int M, int N, int K, T alpha, const T *A,
                                                                 int64_t ars, int64_t acs, const T *B, int64_t brs,
                                                                 int64_t bcs, T beta, T *C, int64_t ldc)
{
    __shared__ T As[16][17], Bs[16][17]; /* +1: a column read does not hit one bank 16 times */
    int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    int i = (int)blockIdx.x * 16 + tx, j = (int)blockIdx.y * 16 + ty;
    T sum = 0;
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

template <typename T, typename S = T> __global__ void gemm__cuda_scale_kernel(int M, int N, S beta, T *C, int64_t ldc)
{
    int64_t total = (int64_t)M * N;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        T *c = &C[e % M + (e / M) * ldc];
        *c = beta == S(0) ? T(0) : T(beta * S(*c));
    }
}

/* ---- the shared-memory ring both fast kernels use ---- */

/* Tile geometry of one operand in shared memory: a k-major operand is kept
   as [rows of the M (or N) side][BK + PAD], the other as [BK][side + PAD]. */
/* PAD = -1: the DMMA "paired" layout (row strides of 8 mod 16 doubles when
   k-major, 2 mod 8 when not), where its 16-byte fragment reads are conflict-free. */
template <int SIDE, int BK, int PAD, bool KMAJOR> struct gemm__cuda_tile {
    static constexpr int ROWS = KMAJOR ? SIDE : BK, COLS = KMAJOR ? BK : SIDE,
                         SLD = COLS + (PAD >= 0 ? PAD : KMAJOR ? 8 : 2), SIZE = ROWS * SLD;
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

/* The K range of this block (split-K over blockIdx.z) and the main loop of a
   STAGES-deep cp.async ring: while stage kt is multiplied, the copies of
   the next STAGES-1 tiles are in flight. COMPUTE(stage) does the math. */
template <typename T, int BM, int BN, int BK, int STAGES, int NT, bool AK, bool BKM, int VEC, int PAD,
          typename COMPUTE>
__device__ __forceinline__ void gemm__cuda_mainloop(T *As, T *Bs, int M, int N, int K, int kchunk, const T *A,
                                                    int64_t lda, const T *B, int64_t ldb, int bm, int bn,
                                                    COMPUTE compute)
{
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    int m0 = bm * BM, n0 = bn * BN;
    int kbeg = (int)blockIdx.z * kchunk, kend = min(K, kbeg + kchunk);
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

/* ---- SIMT: register-blocked, fp32 and fp64 ---- */

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
                       T beta, T *C, int64_t ldc, int atomic)
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
    gemm__cuda_block_tile<SWZ>(bm, bn);
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = T(0);

    gemm__cuda_mainloop<T, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, A, lda, B, ldb, bm, bn, [&](const T *as, const T *bs) {
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

/* ---- SIMT2: fp32 with both operands in one shared-memory layout ---- */

/* SIMT2 keeps both tiles as [BK][side + 4] (the side index contiguous), so
   every fragment read is one 16-byte load per 4 values for one k, and the
   fragments of k+1 are read while k is multiplied (two register sets). An
   operand that is not k-major goes there by cp.async as in the ring; a
   k-major one through registers: 16-byte global loads issued before the
   multiply of the current tile, written transposed after it. Two stages.
   Chunk c of a k-major tile: 16 consecutive rows per half-warp, the two
   half-warps on neighbouring 4-wide k chunks, so the transposed 4-byte
   stores of a warp hit 32 distinct banks and each row reads 32 bytes. */
template <int SIDE, int BK, int NT> struct gemm__cuda_kstage {
    static constexpr int V = 4, PER_ROW = BK / V, CHUNKS = SIDE * PER_ROW, PER_T = CHUNKS / NT, SLD = SIDE + 4;
    static_assert(CHUNKS % NT == 0 && SIDE % 16 == 0 && PER_ROW % 2 == 0, "k-major tile does not split evenly");
    float v[PER_T][V];
    static __device__ __forceinline__ void where(int u, int &r, int &col)
    {
        int c = (int)threadIdx.x + u * NT;
        r = (c / (16 * PER_ROW)) * 16 + c % 16;
        col = ((c / 16) % PER_ROW) * V;
    }
    /* X: element (side 0, k 0) of the tile; rows past side_left, k past k_left read as zero */
    __device__ __forceinline__ void ldg(const float *X, int64_t ld, int side_left, int k_left)
    {
#pragma unroll
        for (int u = 0; u < PER_T; u++) {
            int r, col;
            where(u, r, col);
            const float *g = X + (int64_t)r * ld + col;
            if (r < side_left && col + V <= k_left) {
                float4 x = *reinterpret_cast<const float4 *>(g);
                v[u][0] = x.x; v[u][1] = x.y; v[u][2] = x.z; v[u][3] = x.w;
            } else {
#pragma unroll
                for (int e = 0; e < V; e++) v[u][e] = r < side_left && col + e < k_left ? g[e] : 0.0f;
            }
        }
    }
    __device__ __forceinline__ void sts(float *s) const
    {
#pragma unroll
        for (int u = 0; u < PER_T; u++) {
            int r, col;
            where(u, r, col);
#pragma unroll
            for (int e = 0; e < V; e++) s[(col + e) * SLD + r] = v[u][e];
        }
    }
};

/* LM: threads of a warp along M (8 or 4; the other 32/LM along N). */
template <int BM, int BN, int BK, int TM, int TN, int MINB, int SWZ, int LM, bool AK, bool BKM>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), MINB)
gemm__cuda_simt2_kernel(int M, int N, int K, int kchunk, float alpha, const float *A, int64_t lda, const float *B,
                        int64_t ldb, float beta, float *C, int64_t ldc, int atomic)
{
    constexpr int NT = (BM / TM) * (BN / TN), V = 4, LN = 32 / LM, XT = BM / TM, SLDA = BM + 4, SLDB = BN + 4,
                  SA = BK * SLDA, SB = BK * SLDB;
    static_assert(XT % LM == 0 && (BN / TN) % LN == 0 && TM % V == 0 && TN % V == 0 && BK % V == 0, "bad tile");
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    float *As = reinterpret_cast<float *>(gemm__cuda_smem), *Bs = As + 2 * SA;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    int tx = (warp % (XT / LM)) * LM + lane % LM, ty = (warp / (XT / LM)) * LN + lane / LM, bm, bn;
    gemm__cuda_block_tile<SWZ>(bm, bn);
    int m0 = bm * BM, n0 = bn * BN;
    int kbeg = (int)blockIdx.z * kchunk, kend = min(K, kbeg + kchunk);
    int ktiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
    const float *Ap = AK ? A + (int64_t)m0 * lda + kbeg : A + m0 + (int64_t)kbeg * lda;
    const float *Bp = BKM ? B + (int64_t)n0 * ldb + kbeg : B + n0 + (int64_t)kbeg * ldb;
    int64_t astep = AK ? BK : (int64_t)BK * lda, bstep = BKM ? BK : (int64_t)BK * ldb;
    gemm__cuda_kstage<BM, BK, NT> sa;
    gemm__cuda_kstage<BN, BK, NT> sb;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    /* issue the loads of tile kt into stage st (k-major ones only into registers) */
    auto issue = [&](int kt, int st) {
        int kleft = kend - kbeg - kt * BK;
        if (AK) sa.ldg(Ap + kt * astep, lda, M - m0, kleft);
        else gemm__cuda_load_tile<float, BK, BM, SLDA, V, NT>(As + st * SA, Ap + kt * astep, lda, kleft, M - m0);
        if (BKM) sb.ldg(Bp + kt * bstep, ldb, N - n0, kleft);
        else gemm__cuda_load_tile<float, BK, BN, SLDB, V, NT>(Bs + st * SB, Bp + kt * bstep, ldb, kleft, N - n0);
        gemm__cuda_cp_commit();
    };
    auto finish = [&](int st) {
        if (AK) sa.sts(As + st * SA);
        if (BKM) sb.sts(Bs + st * SB);
        gemm__cuda_cp_wait<0>();
        __syncthreads();
    };
    if (ktiles > 0) {
        issue(0, 0);
        finish(0);
    }
    for (int kt = 0; kt < ktiles; kt++) {
        int cur = kt & 1;
        bool next = kt + 1 < ktiles;
        if (next) issue(kt + 1, cur ^ 1);
        const float *as = As + cur * SA, *bs = Bs + cur * SB;
        float a[2][TM], b[2][TN];
#pragma unroll
        for (int k = 0; k <= BK; k++) {
            if (k < BK) {
#pragma unroll
                for (int i = 0; i < TM; i += V) {
                    float4 x = *reinterpret_cast<const float4 *>(as + k * SLDA + gemm__cuda_simt_row<false, BM, TM, V>(tx, i));
                    a[k & 1][i] = x.x; a[k & 1][i + 1] = x.y; a[k & 1][i + 2] = x.z; a[k & 1][i + 3] = x.w;
                }
#pragma unroll
                for (int j = 0; j < TN; j += V) {
                    float4 x = *reinterpret_cast<const float4 *>(bs + k * SLDB + gemm__cuda_simt_row<false, BN, TN, V>(ty, j));
                    b[k & 1][j] = x.x; b[k & 1][j + 1] = x.y; b[k & 1][j + 2] = x.z; b[k & 1][j + 3] = x.w;
                }
            }
            if (k > 0) {
                const int p = (k - 1) & 1;
#pragma unroll
                for (int i = 0; i < TM; i++)
#pragma unroll
                    for (int j = 0; j < TN; j++) acc[i][j] = fmaf(a[p][i], b[p][j], acc[i][j]);
            }
        }
        if (next) finish(cur ^ 1);
    }
    gemm__cuda_cp_wait<0>();

#pragma unroll
    for (int j = 0; j < TN; j++) {
        int n = n0 + gemm__cuda_simt_row<false, BN, TN, V>(ty, j);
#pragma unroll
        for (int i = 0; i < TM; i++) {
            int m = m0 + gemm__cuda_simt_row<false, BM, TM, V>(tx, i);
            if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[i][j], alpha, beta, atomic);
        }
    }
}

/* ---- DMMA: fp64 on the tensor cores ---- */

/* D += A*B for a 16x8 tile and K = KI (4, 8 or 16), in the fragment layout
   of mma.m16n8kKI.f64: lane = 4*g + t holds a[i] = A(g + 8*(i%2), t + 4*(i/2)),
   b[i] = B(t + 4*i, g), d = D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1).
   Hopper has these shapes natively; Ampere runs them as m8n8k4 pairs. */
template <int KI> __device__ __forceinline__ void gemm__cuda_dmma(double *d, const double *a, const double *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(GEMM__CUDA_DMMA_M8N8K4)
    if constexpr (KI == 4)
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(b[0]));
    else if constexpr (KI == 8)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};\n"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                       "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
    for (int q = 0; q < KI / 4; q++) {
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                     : "+d"(d[0]), "+d"(d[1])
                     : "d"(a[2 * q]), "d"(b[q]));
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                     : "+d"(d[2]), "+d"(d[3])
                     : "d"(a[2 * q + 1]), "d"(b[q]));
    }
#else
    (void)d; (void)a; (void)b;
    __trap();
#endif
}

#ifndef GEMM__CUDA_DMMA_KI
#define GEMM__CUDA_DMMA_KI 4 /* K of one mma (4, 8, 16); a tuning knob for the benchmark */
#endif

/* WARPS_M x WARPS_N warps, each a (BM/WARPS_M) x (BN/WARPS_N) tile of C made
   of 16x8 mma tiles. PAD = 4 doubles puts the 4 rows a half-warp reads 8
   banks apart. */
template <int BM, int BN, int BK, int STAGES, int WARPS_M, int WARPS_N, int MINB, int SWZ, int DB, bool AK, bool BKM,
          int VEC>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, MINB)
gemm__cuda_dmma_kernel(int M, int N, int K, int kchunk, double alpha, const double *A, int64_t lda,
                       const double *B, int64_t ldb, double beta, double *C, int64_t ldc, int atomic)
{
    constexpr int NT = 32 * WARPS_M * WARPS_N, PAD = (DB & 2) ? -1 : 4, WM = BM / WARPS_M, WN = BN / WARPS_N,
                  MT = WM / 16, NTL = WN / 8, KI = (DB & 2) ? 8 : GEMM__CUDA_DMMA_KI;
    static_assert(!(DB & 2) || (NTL % 2 == 0 && BK % 8 == 0), "paired layout needs an even number of n tiles");
    static_assert(BK % KI == 0 && WM % 16 == 0 && WN % 8 == 0, "bad tile");
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    double *As = reinterpret_cast<double *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN, bm, bn;
    gemm__cuda_block_tile<SWZ>(bm, bn);
    double acc[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;

    gemm__cuda_mainloop<double, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, A, lda, B, ldb, bm, bn, [&](const double *as, const double *bs) {
            if constexpr ((DB & 2) != 0) {
                /* Paired: m16n8k8 with 16-byte fragment reads. The 8 k of one mma
                   are taken in the order 0,2,4,6,1,3,5,7 (slot t <-> k 2t, slot
                   t+4 <-> k 2t+1, the same for A and B, so the sum is unchanged):
                   a thread's two k are adjacent. Along a side that is not
                   k-major, mma row g / g+8 is tile row 2g / 2g+1 (A), and n
                   tiles 2p / 2p+1 interleave column by column (B); the
                   epilogue maps back. With DB & 1 the fragments of the next
                   step are read before the mma of this one. */
                constexpr int NB = (DB & 1) ? 2 : 1;
                double a[NB][MT][4], b[NB][NTL][2];
                auto frag_a = [&](int ks, int mt, double (&fa)[4]) {
                    {
                        if (AK) {
                            double2 v0 = *reinterpret_cast<const double2 *>(&as[TA::at(wm + mt * 16 + g, ks + 2 * t)]);
                            double2 v1 = *reinterpret_cast<const double2 *>(&as[TA::at(wm + mt * 16 + g + 8, ks + 2 * t)]);
                            fa[0] = v0.x; fa[2] = v0.y; fa[1] = v1.x; fa[3] = v1.y;
                        } else {
                            double2 v0 = *reinterpret_cast<const double2 *>(&as[TA::at(wm + mt * 16 + 2 * g, ks + 2 * t)]);
                            double2 v1 = *reinterpret_cast<const double2 *>(&as[TA::at(wm + mt * 16 + 2 * g, ks + 2 * t + 1)]);
                            fa[0] = v0.x; fa[1] = v0.y; fa[2] = v1.x; fa[3] = v1.y;
                        }
                    }
                };
                auto frag_b = [&](int ks, double (&fb)[NTL][2]) {
                    if (BKM) {
#pragma unroll
                        for (int j = 0; j < NTL; j++) {
                            double2 v = *reinterpret_cast<const double2 *>(&bs[TB::at(wn + j * 8 + g, ks + 2 * t)]);
                            fb[j][0] = v.x; fb[j][1] = v.y;
                        }
                    } else {
#pragma unroll
                        for (int jp = 0; jp < NTL / 2; jp++) {
                            double2 v0 = *reinterpret_cast<const double2 *>(&bs[TB::at(wn + jp * 16 + 2 * g, ks + 2 * t)]);
                            double2 v1 = *reinterpret_cast<const double2 *>(&bs[TB::at(wn + jp * 16 + 2 * g, ks + 2 * t + 1)]);
                            fb[2 * jp][0] = v0.x; fb[2 * jp + 1][0] = v0.y; fb[2 * jp][1] = v1.x; fb[2 * jp + 1][1] = v1.y;
                        }
                    }
                };
                auto frag = [&](int ks, double (&fa)[MT][4], double (&fb)[NTL][2]) {
#pragma unroll
                    for (int mt = 0; mt < MT; mt++) frag_a(ks, mt, fa[mt]);
                    frag_b(ks, fb);
                };
                if constexpr (NB == 1) { /* B of the step, then A one m tile at a time: few live registers */
#pragma unroll
                    for (int ks = 0; ks < BK; ks += 8) {
                        frag_b(ks, b[0]);
#pragma unroll
                        for (int mt = 0; mt < MT; mt++) {
                            frag_a(ks, mt, a[0][0]);
#pragma unroll
                            for (int j = 0; j < NTL; j++) gemm__cuda_dmma<8>(acc[mt][j], a[0][0], b[0][j]);
                        }
                    }
                } else {
                    frag(0, a[0], b[0]);
#pragma unroll
                    for (int ks = 0; ks < BK; ks += 8) {
                        const int cur = (ks / 8) % 2;
                        if (ks + 8 < BK) frag(ks + 8, a[cur ^ 1], b[cur ^ 1]);
#pragma unroll
                        for (int mt = 0; mt < MT; mt++)
#pragma unroll
                            for (int j = 0; j < NTL; j++) gemm__cuda_dmma<8>(acc[mt][j], a[cur][mt], b[cur][j]);
                    }
                }
            } else if constexpr (DB != 0) { /* every fragment of step ks+KI is loaded before the mma of step ks */
                double a[2][MT][KI / 2], b[2][NTL][KI / 4];
#pragma unroll
                for (int ks = 0; ks <= BK; ks += KI) {
                    const int cur = (ks / KI) % 2;
                    if (ks < BK) {
#pragma unroll
                        for (int j = 0; j < NTL; j++)
#pragma unroll
                            for (int i = 0; i < KI / 4; i++) b[cur][j][i] = bs[TB::at(wn + j * 8 + g, ks + t + 4 * i)];
#pragma unroll
                        for (int mt = 0; mt < MT; mt++)
#pragma unroll
                            for (int i = 0; i < KI / 2; i++)
                                a[cur][mt][i] = as[TA::at(wm + mt * 16 + g + 8 * (i % 2), ks + t + 4 * (i / 2))];
                    }
                    if (ks > 0) {
#pragma unroll
                        for (int mt = 0; mt < MT; mt++)
#pragma unroll
                            for (int j = 0; j < NTL; j++) gemm__cuda_dmma<KI>(acc[mt][j], a[cur ^ 1][mt], b[cur ^ 1][j]);
                    }
                }
            } else {
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
                    for (int j = 0; j < NTL; j++) gemm__cuda_dmma<KI>(acc[mt][j], a, b[j]);
                }
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
                if ((DB & 2) && !AK) m = m0 + mt * 16 + 2 * g + r / 2;
                if ((DB & 2) && !BKM) n = n0 + (j / 2) * 16 + 2 * (2 * t + r % 2) + j % 2;
                if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[mt][j][r], alpha, beta, atomic);
            }
}

/* ---- tensor cores: TF32, FP16, BF16 (fp32 sums) ---- */

/* Both tensor-core kernels read A and B k-major (each row of op(A), each
   column of op(B) contiguous) from 16-byte aligned rows; WGMMA also reads
   a 16-bit op(A) M-major (wgmma transposes 16-bit operands itself; TF32
   it does not). Any other operand is first copied into k-major form
   (gemm__cuda_transpose_kernel or gemm__cuda_pack_kernel, into a
   stream-ordered scratch buffer). TF32 data is plain fp32; the tensor
   cores ignore its 13 low mantissa bits. */

/* X(r, q) of a rows x K operand (q the k index) -> out[r*ldo + q]. 32x32
   tiles through shared memory so that both the read and the write run
   along contiguous memory whichever way X is stored. */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_pack_kernel(int rows, int K, const T *X, int64_t ld, int kmajor,
                                                              T *out, int64_t ldo)
{
    __shared__ T tile[32][33];
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
                                                                   int64_t ldo)
{
    constexpr int V = 16 / (int)sizeof(T), PER = 64 / V; /* elements per vector, vectors per tile row */
    struct alignas(16) vec { T x[V]; };
    __shared__ T tile[64][65]; /* [q][r] */
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

/* MMA (sm_80+): 128x128 block tiles, BK 32, the cp.async ring of the SIMT
   kernel, 8 warps of 64 (M) x 32 (N), 16x8 mma tiles. Fragments follow the
   mma.m16n8kKS layouts: lane = 4g + t holds A rows g and g+8 at k columns
   c and c + KS/2 (c = 2t for 16-bit pairs, t for TF32), B column g at the
   same k, D rows g and g+8 at columns 2t and 2t+1. */
template <typename T, typename TC>
__global__ void __launch_bounds__(256, 2) gemm__cuda_mma_kernel(int M, int N, int K, float alpha, const T *A,
                                                                int64_t lda, const T *B, int64_t ldb, float beta,
                                                                TC *C, int64_t ldc)
{
    constexpr int BM = 128, BN = 128, BK = 32, STAGES = 3, NT = 256, VEC = 16 / (int)sizeof(T), PAD = VEC,
                  WM = 64, WN = 32, MT = WM / 16, NTL = WN / 8, KS = sizeof(T) == 2 ? 16 : 8,
                  STEP = sizeof(T) == 2 ? 2 : 1; /* elements per 32-bit register */
    typedef gemm__cuda_tile<BM, BK, PAD, true> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, true> TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    T *As = reinterpret_cast<T *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wm = (warp % 2) * WM, wn = (warp / 2) * WN, bm, bn;
    gemm__cuda_block_tile<8>(bm, bn);
    float acc[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0f;

    gemm__cuda_mainloop<T, BM, BN, BK, STAGES, NT, true, true, VEC, PAD>(
        As, Bs, M, N, K, K, A, lda, B, ldb, bm, bn, [&](const T *as, const T *bs) {
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
                    a[0] = gemm__cuda_tc_bits(&as[TA::at(wm + mt * 16 + g, c)]);
                    a[1] = gemm__cuda_tc_bits(&as[TA::at(wm + mt * 16 + g + 8, c)]);
                    a[2] = gemm__cuda_tc_bits(&as[TA::at(wm + mt * 16 + g, c + KS / 2)]);
                    a[3] = gemm__cuda_tc_bits(&as[TA::at(wm + mt * 16 + g + 8, c + KS / 2)]);
#pragma unroll
                    for (int j = 0; j < NTL; j++) gemm__cuda_mma<T>(acc[mt][j], a, b[j]);
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
                if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[mt][j][r], alpha, beta, 0);
            }
}

/* WGMMA (sm_90a, Hopper): the architecture-specific instructions exist only
   in a build for sm_90a (-gencode arch=compute_90a,code=sm_90a); in any other
   build the kernel body is empty and gemm__cuda_wgmma_built says so. */
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
#define GEMM__WG_256(TYPES, TAIL)                                                                              \
    asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n256" TYPES " {" GEMM__WG_R0_63 ", "           \
                 GEMM__WG_R64_127 "}, %128, %129, p, 1, 1" TAIL ";\n}\n"                                     \
                 : GEMM__WG_D32(0), GEMM__WG_D32(32), GEMM__WG_D32(64), GEMM__WG_D32(96)                      \
                 : "l"(da), "l"(db), "n"(B_MN ? 1 : 0))
#define GEMM__WG_128(TYPES, TAIL)                                                                              \
    asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n128" TYPES " {" GEMM__WG_R0_63               \
                 "}, %64, %65, p, 1, 1" TAIL ";\n}\n"                                                        \
                 : GEMM__WG_D32(0), GEMM__WG_D32(32)                                                          \
                 : "l"(da), "l"(db), "n"(B_MN ? 1 : 0))

/* D(64xWN, fp32, WN/2 registers per thread) += A(64xKS) * B(KSxWN), both
   from shared memory through descriptors; WN = 256 or 128, KS = 16
   (FP16/BF16) or 8 (TF32). B_MN: B is stored N-major (16-bit types only;
   TF32 reads both k-major). Register i of lane 4g + t of warp w holds
   D(16w + g + 8*(i%4/2), 8*(i/4) + 2t + i%2). */
template <typename T, bool B_MN, int WN>
__device__ __forceinline__ void gemm__cuda_wgmma(float (&d)[WN / 2], uint64_t da, uint64_t db)
{
#if GEMM__CUDA_SM90A
    if constexpr (WN == 256) {
        if constexpr (std::is_same<T, __half>::value) GEMM__WG_256("k16.f32.f16.f16", ", 0, %130");
        else if constexpr (std::is_same<T, __nv_bfloat16>::value) GEMM__WG_256("k16.f32.bf16.bf16", ", 0, %130");
        else GEMM__WG_256("k8.f32.tf32.tf32", "");
    } else {
        if constexpr (std::is_same<T, __half>::value) GEMM__WG_128("k16.f32.f16.f16", ", 0, %66");
        else if constexpr (std::is_same<T, __nv_bfloat16>::value) GEMM__WG_128("k16.f32.bf16.bf16", ", 0, %66");
        else GEMM__WG_128("k8.f32.tf32.tf32", "");
    }
#else
    (void)d; (void)da; (void)db;
#endif
}
#undef GEMM__WG_D8
#undef GEMM__WG_D32
#undef GEMM__WG_R0_63
#undef GEMM__WG_R64_127
#undef GEMM__WG_PRED
#undef GEMM__WG_256
#undef GEMM__WG_128

/* The WGMMA kernel's shape: a block computes BM (M) x 128 (N) of C. Threads
   0-255 are two consumer warpgroups, each one m64nBM accumulator: wgmma's
   M is our N (64 columns of C each), its N our M, so a thread's
   neighbouring accumulators are neighbouring rows of column-major C. From
   thread 256 on the producer: one thread issues the copies of a
   128-byte-wide K slice of both operands per stage.
   BM = 256 (large problems): 4 stages, one block per SM, the producer a
   whole warpgroup so that setmaxnreg can move its registers to the
   consumers (128 accumulators each). BM = 128 (short K, small grids): 3
   stages and two blocks per SM, whose copies and epilogues overlap; the
   producer one warp (64 accumulators fit without setmaxnreg). */
template <int BM_> struct gemm__cuda_wgmma_shape {
    static constexpr int BM = BM_, BN = 128, ROW_BYTES = 128, STAGES = BM == 256 ? 4 : 3,
                         THREADS = BM == 256 ? 384 : 288, BLOCKS_PER_SM = BM == 256 ? 1 : 2,
                         REGS_PRODUCER = 40, REGS_CONSUMER = 232, /* setmaxnreg, BM = 256 only */
                         ACC = BM / 2, /* accumulators per consumer thread */
                         A_BYTES = BM * ROW_BYTES, B_BYTES = BN * ROW_BYTES, STAGE_BYTES = A_BYTES + B_BYTES,
                         SMEM = STAGES * STAGE_BYTES + 1024 /* alignment */ + 2 * STAGES * 8 /* barriers */,
                         EPI_LD = BM + 8, /* floats per column of the epilogue's tile: a warp's float2 writes
                                             (8 columns x 4 row pairs) land on 32 distinct bank pairs */
                         MN_CHUNK_BYTES = 64 * 128; /* an M-major 16-bit A: 64 k rows of 64 elements */
    static_assert(BN * EPI_LD * 4 <= STAGES * STAGE_BYTES, "the epilogue's tile must fit in the ring");
    static_assert(2 * 128 * REGS_CONSUMER + 128 * REGS_PRODUCER <= 65536, "registers");
};

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

/* Writes a warpgroup's 64 columns x S::BM rows of C, laid out in shared
   memory column by column (`tile`), 4 rows per thread at a time, so that a
   warp writes 128 contiguous elements of a column. */
template <typename S, typename TC>
__device__ __forceinline__ void gemm__cuda_wgmma_write(const float *tile, int M, int N, int m0, int n0, float alpha,
                                                       float beta, TC *C, int64_t ldc)
{
    bool vec = (uintptr_t)C % (4 * sizeof(TC)) == 0 && ldc % 4 == 0;
    for (int e = (int)threadIdx.x % 128; e < 64 * (S::BM / 4); e += 128) {
        int nl = e / (S::BM / 4), ml = e % (S::BM / 4) * 4, n = n0 + nl, m = m0 + ml;
        if (n < N && m < M)
            gemm__cuda_store4(&C[m + (int64_t)n * ldc], *reinterpret_cast<const float4 *>(&tile[nl * S::EPI_LD + ml]),
                              M - m, alpha, beta, vec);
    }
}

/* map_a: op(A) as a k-major M x K tensor (A_MN: as stored, M-major: a K x M
   tensor read in boxes of 64 rows of M); map_b: op(B)^T as a k-major N x K
   tensor. Block z multiplies K tiles [z*kt_per, (z+1)*kt_per): with one part
   it writes C, with several it writes its raw sums into partial[z] (M x N,
   column-major) and gemm__cuda_splitk_sum_kernel adds them up. */
template <typename T, typename TC, bool A_MN, int BM>
__global__ void __launch_bounds__(gemm__cuda_wgmma_shape<BM>::THREADS, gemm__cuda_wgmma_shape<BM>::BLOCKS_PER_SM)
gemm__cuda_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int M,
                        int N, int K, int kt_per, float alpha, float beta, TC *C, int64_t ldc, float *partial)
{
#if GEMM__CUDA_SM90A
    typedef gemm__cuda_wgmma_shape<BM> S;
    constexpr int BK = S::ROW_BYTES / (int)sizeof(T), KS = sizeof(T) == 2 ? 16 : 8;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    /* the 128-byte swizzle repeats every 1024 bytes: tiles start on such a boundary */
    unsigned char *smem = gemm__cuda_smem + ((1024 - gemm__cuda_smem_addr(gemm__cuda_smem) % 1024) % 1024);
    uint64_t *full = reinterpret_cast<uint64_t *>(smem + S::STAGES * S::STAGE_BYTES), *empty = full + S::STAGES;
    int wg = (int)threadIdx.x / 128, bm, bn, kt0 = (int)blockIdx.z * kt_per; /* wg 0, 1: consumers */
    int ktiles = min((K + BK - 1) / BK - kt0, kt_per);
    gemm__cuda_block_tile<8>(bm, bn);
    if (threadIdx.x == 0) {
        for (int s = 0; s < S::STAGES; s++) {
            gemm__cuda_mbar_init(&full[s], 1);
            gemm__cuda_mbar_init(&empty[s], 256);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 2) { /* producer: few registers, one thread */
        if constexpr (S::THREADS == 384) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(S::REGS_PRODUCER));
        if (threadIdx.x == 256)
            for (int kt = 0; kt < ktiles; kt++) {
                int s = kt % S::STAGES;
                if (kt >= S::STAGES) gemm__cuda_mbar_wait(&empty[s], (unsigned)(kt / S::STAGES - 1) & 1);
                unsigned char *stage = smem + s * S::STAGE_BYTES;
                gemm__cuda_mbar_expect(&full[s], S::STAGE_BYTES);
                if (A_MN)
                    for (int j = 0; j < S::BM / 64; j++)
                        gemm__cuda_tma_load(stage + j * S::MN_CHUNK_BYTES, &map_a, bm * S::BM + 64 * j, (kt0 + kt) * BK, &full[s]);
                else
                    gemm__cuda_tma_load(stage, &map_a, (kt0 + kt) * BK, bm * S::BM, &full[s]);
                gemm__cuda_tma_load(stage + S::A_BYTES, &map_b, (kt0 + kt) * BK, bn * S::BN, &full[s]);
            }
    } else { /* consumers */
        if constexpr (S::THREADS == 384) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(S::REGS_CONSUMER));
        float d[S::ACC];
#pragma unroll
        for (int i = 0; i < S::ACC; i++) d[i] = 0.0f;
        gemm__cuda_wgmma_fence_acc(d);
        for (int kt = 0; kt < ktiles; kt++) {
            int s = kt % S::STAGES;
            gemm__cuda_mbar_wait(&full[s], (unsigned)(kt / S::STAGES) & 1);
            const unsigned char *stage = smem + s * S::STAGE_BYTES;
            /* wgmma's A: this warpgroup's 64 rows of op(B)^T; its B: all BM rows of op(A) */
            uint64_t da = gemm__cuda_wgmma_desc(stage + S::A_BYTES + wg * 64 * S::ROW_BYTES),
                     db = A_MN ? gemm__cuda_wgmma_desc_mn(stage) : gemm__cuda_wgmma_desc(stage);
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
            for (int q = 0; q < BK / KS; q++) /* the next KS elements of K: 32 bytes on, 2 descriptor units */
                gemm__cuda_wgmma<T, A_MN, BM>(d, da + (uint64_t)(q * KS * (int)sizeof(T) / 16),
                                          db + (uint64_t)(A_MN ? q * KS * S::ROW_BYTES / 16 : q * KS * (int)sizeof(T) / 16));
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            /* the previous stage's group is done once at most this one is pending */
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            gemm__cuda_wgmma_fence_acc(d);
            if (kt > 0) gemm__cuda_mbar_arrive(&empty[(kt - 1) % S::STAGES]);
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        gemm__cuda_wgmma_fence_acc(d);

        /* The epilogue goes through shared memory, free once both consumer
           warpgroups are past their last wgmma (every copy has landed by
           then too). */
        asm volatile("bar.sync 1, 256;\n" ::: "memory");
        float *tile = reinterpret_cast<float *>(smem) + wg * 64 * S::EPI_LD;
        int tid = (int)threadIdx.x % 128, w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
#pragma unroll
        for (int i = 0; i < S::ACC; i += 2)
            *reinterpret_cast<float2 *>(&tile[(16 * w + g + 8 * ((i % 4) / 2)) * S::EPI_LD + 8 * (i / 4) + 2 * t]) =
                make_float2(d[i], d[i + 1]);
        asm volatile("bar.sync %0, 128;\n" ::"r"(2 + wg) : "memory"); /* this warpgroup only */
        if (partial)
            gemm__cuda_wgmma_write<S>(tile, M, N, bm * S::BM, bn * S::BN + wg * 64, 1.0f, 0.0f,
                                   partial + (int64_t)blockIdx.z * M * N, (int64_t)M);
        else
            gemm__cuda_wgmma_write<S>(tile, M, N, bm * S::BM, bn * S::BN + wg * 64, alpha, beta, C, ldc);
    }
#else
    (void)map_a; (void)map_b; (void)M; (void)N; (void)K; (void)kt_per; (void)alpha; (void)beta; (void)C; (void)ldc;
    (void)partial;
#endif
}

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

/* ---- host side: choosing and launching ---- */

/* The normalised problem (see above): T is A's and B's type, TC C's, S the
   scalars' (all T for fp32 and fp64). */
template <typename T, typename TC = T, typename S = T> struct gemm__cuda_problem {
    int M, N, K;
    S alpha, beta;
    const T *A, *B;
    TC *C;
    int64_t lda, ldb, ldc;
    bool ak, bk; /* op(A) / op(B) is k-major */
};

/* Kernel configurations ("variants"; tuning knobs measured on an H200:
   bench/RESULTS.md). options.variant = 0 runs the default of the
   precision (GEMM__CUDA_S_VARIANT for fp32, GEMM__CUDA_D_VARIANT for fp64
   DMMA); 1..8 pick a row of the tables below. Only the defaults are
   compiled unless GEMM_CUDA_TUNING is defined (the benchmark and the
   tests define it: 8 configurations x 8 layouts cost compile time).
   Each configuration gives its block (BM x BN, K tile BK, NT threads), its
   shared memory per layout, its kernel per layout and alignment, and the
   configuration that takes operands not 16-byte aligned (`unaligned`). */
template <typename T, int BM_, int BN_, int BK_, int TM, int TN, int STAGES, int MINB, int SWZ> struct gemm__cuda_simt_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, NT = (BM / TM) * (BN / TN), PAD = 16 / (int)sizeof(T);
    typedef gemm__cuda_simt_cfg unaligned;
    template <bool AK, bool BKM> static size_t smem()
    {
        return (size_t)STAGES * (gemm__cuda_tile<BM, BK, PAD, AK>::SIZE + gemm__cuda_tile<BN, BK, PAD, BKM>::SIZE) * sizeof(T);
    }
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)gemm__cuda_simt_kernel<T, BM, BN, BK, TM, TN, STAGES, MINB, SWZ, AK, BKM, VEC>;
    }
};
typedef gemm__cuda_simt_cfg<float, 128, 128, 16, 8, 8, 3, 2, 0> gemm__cuda_s_base; /* variant 1, the first tuned one */
template <int BM_, int BN_, int BK_, int MINB, int SWZ, int LM> struct gemm__cuda_simt2_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, NT = (BM / 8) * (BN / 8);
    typedef gemm__cuda_s_base unaligned;
    template <bool AK, bool BKM> static size_t smem() { return (size_t)2 * BK * (BM + 4 + BN + 4) * sizeof(float); }
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)gemm__cuda_simt2_kernel<BM, BN, BK, 8, 8, MINB, SWZ, LM, AK, BKM>;
    }
};
template <int BM_, int BN_, int BK_, int STAGES, int WARPS_M, int WARPS_N, int MINB, int SWZ, int DB>
struct gemm__cuda_dmma_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, NT = 32 * WARPS_M * WARPS_N, PAD = (DB & 2) ? -1 : 4;
    typedef gemm__cuda_dmma_cfg unaligned;
    template <bool AK, bool BKM> static size_t smem()
    {
        return (size_t)STAGES * (gemm__cuda_tile<BM, BK, PAD, AK>::SIZE + gemm__cuda_tile<BN, BK, PAD, BKM>::SIZE) * sizeof(double);
    }
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)gemm__cuda_dmma_kernel<BM, BN, BK, STAGES, WARPS_M, WARPS_N, MINB, SWZ, DB, AK, BKM, VEC>;
    }
};

/* fp32 (SIMT). SWZ 8: blocks in groups of 8 tile-rows (L2 reuse).
   SIMT2: one smem layout for both operands, per-k fragments double-buffered. */
template <int V> struct gemm__cuda_s_variant;
template <> struct gemm__cuda_s_variant<1> { typedef gemm__cuda_s_base type; };                                    /* SIMT 128x128x16, 3 stages, 2 blocks/SM (commit b0358f8) */
template <> struct gemm__cuda_s_variant<2> { typedef gemm__cuda_simt_cfg<float, 128, 128, 16, 8, 8, 3, 2, 8> type; }; /* 1 + swizzle */
template <> struct gemm__cuda_s_variant<3> { typedef gemm__cuda_simt2_cfg<128, 128, 16, 2, 0, 8> type; };          /* SIMT2 128x128x16, warp 8x4 threads */
template <> struct gemm__cuda_s_variant<4> { typedef gemm__cuda_simt2_cfg<128, 128, 16, 2, 8, 8> type; };          /* 3 + swizzle */
template <> struct gemm__cuda_s_variant<5> { typedef gemm__cuda_simt2_cfg<128, 128, 16, 2, 0, 4> type; };          /* 3, warp 4x8 threads */
template <> struct gemm__cuda_s_variant<6> { typedef gemm__cuda_simt2_cfg<128, 128, 8, 2, 0, 8> type; };           /* 3 with BK 8 */
template <> struct gemm__cuda_s_variant<7> { typedef gemm__cuda_simt2_cfg<256, 128, 16, 1, 0, 8> type; };          /* SIMT2 256x128, 512 threads */
template <> struct gemm__cuda_s_variant<8> { typedef gemm__cuda_simt_cfg<float, 256, 128, 16, 8, 8, 3, 1, 0> type; }; /* SIMT 256x128, 512 threads */
/* fp64 on the tensor cores: BM, BN, BK, stages, warps M x N, blocks/SM, swizzle,
   DB (1: fragments double-buffered, 2: paired m16n8k8 layout with 16-byte
   fragment reads, 3: both) */
template <int V> struct gemm__cuda_d_variant;
template <> struct gemm__cuda_d_variant<1> { typedef gemm__cuda_dmma_cfg<128, 64, 16, 3, 4, 2, 2, 0, 0> type; };  /* commit b0358f8 */
template <> struct gemm__cuda_d_variant<2> { typedef gemm__cuda_dmma_cfg<128, 64, 16, 3, 4, 2, 2, 0, 2> type; };  /* 1, paired */
template <> struct gemm__cuda_d_variant<3> { typedef gemm__cuda_dmma_cfg<128, 64, 16, 3, 4, 2, 2, 0, 1> type; };  /* 1, fragment DB */
template <> struct gemm__cuda_d_variant<4> { typedef gemm__cuda_dmma_cfg<128, 128, 16, 3, 4, 4, 1, 0, 0> type; }; /* 128x128, 512 threads */
template <> struct gemm__cuda_d_variant<5> { typedef gemm__cuda_dmma_cfg<128, 128, 16, 3, 4, 4, 1, 0, 2> type; }; /* 4, paired */
template <> struct gemm__cuda_d_variant<6> { typedef gemm__cuda_dmma_cfg<64, 64, 16, 3, 2, 2, 3, 0, 2> type; };   /* paired 64x64, 3 blocks/SM (170 registers: no spills) */
template <> struct gemm__cuda_d_variant<7> { typedef gemm__cuda_dmma_cfg<128, 128, 32, 2, 4, 4, 1, 0, 1> type; }; /* 128x128x32, 2 stages, DB */
template <> struct gemm__cuda_d_variant<8> { typedef gemm__cuda_dmma_cfg<64, 64, 32, 2, 2, 2, 3, 8, 2> type; };   /* 6 with BK 32, 2 stages, swizzle */
#define GEMM__CUDA_VARIANTS 8
#ifndef GEMM__CUDA_S_VARIANT
#define GEMM__CUDA_S_VARIANT 1 /* the default fp32 configuration */
#endif
#ifndef GEMM__CUDA_D_VARIANT
#define GEMM__CUDA_D_VARIANT 1 /* the default fp64 DMMA configuration */
#endif
/* fp64 without FP64 tensor cores */
typedef gemm__cuda_simt_cfg<double, 64, 64, 16, 4, 4, 3, 2, 0> gemm__cuda_simt_f64;

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

template <typename T, typename CFG, bool AK, bool BKM, int VEC>
static gemm_status gemm__cuda_launch_fast(const char *fn, const gemm__cuda_problem<T> &p, int sms, int split_req,
                                          cudaStream_t stream)
{
    size_t smem = CFG::template smem<AK, BKM>();
    int tm = (p.M + CFG::BM - 1) / CFG::BM, tn = (p.N + CFG::BN - 1) / CFG::BN, per_sm = 1, split, kchunk;
    void *kernel = CFG::template kernel<AK, BKM, VEC>();
    int atomic = 0;
    /* Above 48 KB a block must ask for its shared memory, and the largest
       carveout lets two blocks share an SM where the registers allow it. */
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, CFG::NT, smem));
    split = gemm__cuda_split(tm * tn, p.K, CFG::BK, sms * (per_sm > 0 ? per_sm : 1), split_req);
    kchunk = ((p.K + split - 1) / split + CFG::BK - 1) / CFG::BK * CFG::BK;
    split = (p.K + kchunk - 1) / kchunk; /* no empty parts */
    if (tn > 65535) /* p.N is the caller's n, or its m for a row-major call */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage need %d tiles of %d, more than "
                          "one launch's 65535", fn, p.N, tn, CFG::BN);
    if (split > 1) {
        atomic = 1;
        if (p.beta != T(1)) {
            gemm__cuda_scale_kernel<T><<<1024, 256, 0, stream>>>(p.M, p.N, p.beta, p.C, p.ldc);
            GEMM__CUDA_TRY(fn, cudaGetLastError());
        }
    }
    {
        int M = p.M, N = p.N, K = p.K;
        T alpha = p.alpha, beta = p.beta;
        const T *A = p.A, *B = p.B;
        T *C = p.C;
        int64_t lda = p.lda, ldb = p.ldb, ldc = p.ldc;
        void *args[] = {&M, &N, &K, &kchunk, &alpha, (void *)&A, &lda, (void *)&B, &ldb, &beta, (void *)&C, &ldc, &atomic};
        GEMM__CUDA_TRY(fn, cudaLaunchKernel(kernel, dim3((unsigned)tm, (unsigned)tn, (unsigned)split),
                                            dim3(CFG::NT), args, smem, stream));
    }
    return GEMM_OK;
}

/* Runtime flags -> one of the 8 instantiations of a configuration. */
template <typename T, typename CFG>
static gemm_status gemm__cuda_pick_layout(const char *fn, const gemm__cuda_problem<T> &p, int sms, int split,
                                          cudaStream_t stream)
{
    constexpr int V = 16 / (int)sizeof(T);
    typedef typename CFG::unaligned CFG1;
    /* 16-byte copies need 16-byte aligned panels: aligned bases and leading dimensions. */
    bool vec = (uintptr_t)p.A % 16 == 0 && (uintptr_t)p.B % 16 == 0 && p.lda % V == 0 && p.ldb % V == 0;
#define GEMM__CUDA_CASE(AK, BKM)                                                                       \
    if (p.ak == AK && p.bk == BKM)                                                                     \
        return vec ? gemm__cuda_launch_fast<T, CFG, AK, BKM, V>(fn, p, sms, split, stream)             \
                   : gemm__cuda_launch_fast<T, CFG1, AK, BKM, 1>(fn, p, sms, split, stream);
#ifdef GEMM_CUDA_TUNING_NN_ONLY /* a benchmark-only build: row-major NN (A' not k-major, B' k-major) */
    GEMM__CUDA_CASE(false, true)
#else
    GEMM__CUDA_CASE(false, false) GEMM__CUDA_CASE(false, true)
    GEMM__CUDA_CASE(true, false) GEMM__CUDA_CASE(true, true)
#endif
#undef GEMM__CUDA_CASE
    return gemm__fail(GEMM_ERR_INTERNAL, "%s: no kernel instance", fn);
}

/* options.variant -> a configuration (see the tables above). */
template <typename T, bool DMMA>
static gemm_status gemm__cuda_pick_fast(const char *fn, const gemm__cuda_problem<T> &p, int sms, int split, int variant,
                                        cudaStream_t stream)
{
    if constexpr (sizeof(T) == 8 && !DMMA) {
        (void)variant; /* one configuration */
        return gemm__cuda_pick_layout<T, gemm__cuda_simt_f64>(fn, p, sms, split, stream);
    } else {
        constexpr int DEF = DMMA ? GEMM__CUDA_D_VARIANT : GEMM__CUDA_S_VARIANT;
        if (variant == 0) variant = DEF;
#ifdef GEMM_CUDA_TUNING
        switch (variant) {
#define GEMM__CUDA_V(v)                                                                                                \
    case v:                                                                                                            \
        return gemm__cuda_pick_layout<T, typename std::conditional<DMMA, gemm__cuda_d_variant<v>,                     \
                                                                   gemm__cuda_s_variant<v>>::type::type>(fn, p, sms, split, stream);
            GEMM__CUDA_V(1) GEMM__CUDA_V(2) GEMM__CUDA_V(3) GEMM__CUDA_V(4)
            GEMM__CUDA_V(5) GEMM__CUDA_V(6) GEMM__CUDA_V(7) GEMM__CUDA_V(8)
#undef GEMM__CUDA_V
        default: break;
        }
#else
        if (variant == DEF)
            return gemm__cuda_pick_layout<T, typename std::conditional<DMMA, gemm__cuda_d_variant<DEF>,
                                                                       gemm__cuda_s_variant<DEF>>::type::type>(fn, p, sms, split, stream);
#endif
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.variant = %d is not compiled in (GEMM_CUDA_TUNING)", fn,
                          variant);
    }
}

static bool gemm__cuda_has_dmma(int major, int minor)
{
    /* Full-rate FP64 tensor cores: A100 (8.0), H100/H200 (9.0), B200 (10.0). */
    return (major == 8 && minor == 0) || major == 9 || major == 10;
}

static gemm_cuda_kernel gemm__cuda_choose(int bits, int major, int minor)
{
    if (major < 8) return GEMM_CUDA_KERNEL_TILED16; /* no cp.async before sm_80 */
    return bits == 64 && gemm__cuda_has_dmma(major, minor) ? GEMM_CUDA_KERNEL_DMMA : GEMM_CUDA_KERNEL_SIMT;
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

/* What both device-pointer paths do once their own options are checked:
   sizes below 2^31, pointers the device can read, the normalised problem
   (a row-major C is C^T = op(B)^T op(A)^T). When all that is left is
   C = beta*C (work == GEMM__WORK_SCALE), it is queued here and *finished set. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_prepare(const char *fn, gemm__work work, gemm_layout layout, gemm_transpose ta,
                                      gemm_transpose tb, int64_t m, int64_t n, int64_t k, S alpha, const T *A,
                                      int64_t lda, const T *B, int64_t ldb, S beta, TC *C, int64_t ldc,
                                      cudaStream_t stream, gemm__cuda_problem<T, TC, S> *p, bool *finished)
{
    gemm_status s;
    *finished = false;
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_pointer(fn, "C", C)) != GEMM_OK) return s;
    if (work == GEMM__WORK_FULL &&
        ((s = gemm__cuda_check_pointer(fn, "A", A)) != GEMM_OK || (s = gemm__cuda_check_pointer(fn, "B", B)) != GEMM_OK))
        return s;
    if (layout == GEMM_ROW_MAJOR) {
        const T *X = A; int64_t lx = lda, mx = m; gemm_transpose tx = ta;
        A = B; lda = ldb; m = n; ta = tb;
        B = X; ldb = lx; n = mx; tb = tx;
    }
    p->M = (int)m; p->N = (int)n; p->K = (int)k;
    p->alpha = alpha; p->beta = beta; p->A = A; p->B = B; p->C = C;
    p->lda = lda; p->ldb = ldb; p->ldc = ldc;
    p->ak = ta == GEMM_TRANS;
    p->bk = tb == GEMM_NO_TRANS;
    if (work == GEMM__WORK_SCALE) {
        int blocks = (int)((m * n + 255) / 256);
        gemm__cuda_scale_kernel<TC, S><<<blocks < 4096 ? blocks : 4096, 256, 0, stream>>>(p->M, p->N, beta, C, ldc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
        *finished = true;
    }
    return GEMM_OK;
}

/* The current device, its compute capability and SM count. */
static gemm_status gemm__cuda_device(const char *fn, int *dev, int *major, int *minor, int *sms)
{
    GEMM__CUDA_TRY(fn, cudaGetDevice(dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, *dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, *dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, *dev));
    return GEMM_OK;
}

/* The ladder: NAIVE for every type, TILED16 for fp32 and fp64. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_launch_ladder(const char *fn, gemm_cuda_kernel kernel, const gemm__cuda_problem<T, TC, S> &p,
                                            cudaStream_t stream)
{
    int64_t ars = p.ak ? p.lda : 1, acs = p.ak ? 1 : p.lda, brs = p.bk ? 1 : p.ldb, bcs = p.bk ? p.ldb : 1;
    dim3 grid((unsigned)((p.M + 15) / 16), (unsigned)((p.N + 15) / 16)), block(16, 16);
    if (grid.y > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for the ladder kernels",
                          fn, p.N);
    if constexpr (std::is_same<T, TC>::value && std::is_same<T, S>::value)
        if (kernel == GEMM_CUDA_KERNEL_TILED16) {
            gemm__cuda_tiled16_kernel<T><<<grid, block, 0, stream>>>(p.M, p.N, p.K, p.alpha, p.A, ars, acs, p.B, brs, bcs,
                                                                     p.beta, p.C, p.ldc);
            GEMM__CUDA_TRY(fn, cudaGetLastError());
            return GEMM_OK;
        }
    gemm__cuda_naive_kernel<T, S, TC><<<grid, block, 0, stream>>>(p.M, p.N, p.K, p.alpha, p.A, ars, acs, p.B, brs, bcs,
                                                                  p.beta, p.C, p.ldc);
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* ---- tensor cores: choosing and launching ---- */

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

/* An outer x inner matrix (rows of `inner` contiguous elements, ld apart)
   as a tensor map whose box is box_outer rows of 128 bytes, swizzled for
   wgmma. */
template <typename T>
static gemm_status gemm__cuda_tensor_map(const char *fn, CUtensorMap *map, const T *X, int64_t ld, int inner, int outer,
                                         int box_outer)
{
    static std::atomic<gemm__cuda_encode_fn> encode{NULL};
    cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)outer}, strides[1] = {(cuuint64_t)ld * sizeof(T)};
    cuuint32_t box[2] = {(cuuint32_t)(gemm__cuda_wgmma_shape<256>::ROW_BYTES / sizeof(T)), (cuuint32_t)box_outer},
               unit[2] = {1, 1};
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
    r = encode.load()(map, gemm__cuda_tma_type<T>(), 2, (void *)X, dims, strides, box, unit,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gemm__fail(GEMM_ERR_DEVICE, "%s: cuTensorMapEncodeTiled failed (CUresult %d)", fn, (int)r);
    return GEMM_OK;
}

/* The pool the operand copies come from, one per device, created on first
   use. It keeps its memory between calls: the device's default pool hands
   memory back to the driver at every synchronisation, and mapping it again
   cost more than the copy itself (about 3.7 ms for 1 GB at n = 16384). */
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

/* Copies operand X (rows x K; k-major or not) into `out` as k-major rows of
   ldo elements. */
template <typename T>
static gemm_status gemm__cuda_pack(const char *fn, const T *X, int64_t ld, bool kmajor, int rows, int K, T *out,
                                   int64_t ldo, cudaStream_t stream)
{
    if (!kmajor && (uintptr_t)X % 16 == 0 && (ld * (int64_t)sizeof(T)) % 16 == 0) {
        dim3 grid((unsigned)((K + 63) / 64), (unsigned)((rows + 63) / 64));
        if (grid.y > 65535)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the operand copy", fn, rows);
        gemm__cuda_transpose_kernel<T><<<grid, 256, 0, stream>>>(rows, K, X, ld, out, ldo);
    } else {
        dim3 grid((unsigned)((K + 31) / 32), (unsigned)((rows + 31) / 32)), block(32, 8);
        if (grid.y > 65535)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the operand copy", fn, rows);
        gemm__cuda_pack_kernel<T><<<grid, block, 0, stream>>>(rows, K, X, ld, kmajor ? 1 : 0, out, ldo);
    }
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* The WGMMA block height: options.variant 1 = 256, 2 = 128; automatic
   (0): 128 when K spans at most 16 slices of 128 bytes (K <= 1024 for
   16-bit types, 512 for TF32). There a block's fixed costs (first copies,
   epilogue) weigh more than its K loop, and two blocks per SM hide each
   other's; with longer K the 256-row tile's reuse wins (bench/RESULTS.md). */
static int gemm__cuda_wgmma_bm(int K, int elem, int variant)
{
    if (variant == 1 || variant == 2) return variant == 1 ? 256 : 128;
    return ((int64_t)K * elem + 127) / 128 <= 16 ? 128 : 256;
}

/* How many parts the WGMMA kernel splits K into: options.split_k when set,
   else enough to give every SM a block when the tiles are fewer than the
   SMs, keeping at least 4 K tiles per part. */
static int gemm__cuda_wgmma_split(int BM, int M, int N, int K, int elem, int sms, int requested)
{
    int tiles = ((M + BM - 1) / BM) * ((N + 127) / 128), bk = 128 / elem;
    int ktiles = (K + bk - 1) / bk, split = requested > 0 ? requested : tiles < sms ? sms / tiles : 1;
    if (requested <= 0 && split > ktiles / 4) split = ktiles / 4;
    if (split > ktiles) split = ktiles;
    if (split > 64) split = 64;
    if (split < 1) return 1;
    return (ktiles + (ktiles + split - 1) / split - 1) / ((ktiles + split - 1) / split); /* no empty parts */
}

/* split > 1: `partial` holds split x M x N floats. a_mn (16-bit only): A is
   op(A) as stored, M-major (a.X(r, q) at a.X[q*a.ld + r]). */
template <typename T, typename TC, int BM>
static gemm_status gemm__cuda_launch_wgmma(const char *fn, int M, int N, int K, float alpha, gemm__cuda_kmajor<T> a,
                                           bool a_mn, gemm__cuda_kmajor<T> b, float beta, TC *C, int64_t ldc,
                                           int split, float *partial, cudaStream_t stream)
{
    typedef gemm__cuda_wgmma_shape<BM> S;
    CUtensorMap map_a, map_b;
    gemm_status s;
    void *kern = (void *)gemm__cuda_wgmma_kernel<T, TC, false, BM>;
    int tm = (M + S::BM - 1) / S::BM, tn = (N + S::BN - 1) / S::BN, bk = S::ROW_BYTES / (int)sizeof(T);
    int kt_per = ((K + bk - 1) / bk + split - 1) / split;
    if (split <= 1) partial = NULL;
    if (tn > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for one launch", fn, N);
    if constexpr (sizeof(T) == 2)
        if (a_mn) kern = (void *)gemm__cuda_wgmma_kernel<T, TC, true, BM>;
    if ((s = a_mn ? gemm__cuda_tensor_map(fn, &map_a, a.X, a.ld, M, K, bk)
                  : gemm__cuda_tensor_map(fn, &map_a, a.X, a.ld, K, M, S::BM)) != GEMM_OK ||
        (s = gemm__cuda_tensor_map(fn, &map_b, b.X, b.ld, K, N, S::BN)) != GEMM_OK)
        return s;
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    {
        void *args[] = {&map_a, &map_b, &M, &N, &K, &kt_per, &alpha, &beta, (void *)&C, &ldc, (void *)&partial};
        GEMM__CUDA_TRY(fn, cudaLaunchKernel(kern, dim3((unsigned)tm, (unsigned)tn, (unsigned)split), dim3(S::THREADS),
                                            args, S::SMEM, stream));
    }
    if (partial) {
        int64_t blocks = ((int64_t)M * N + 255) / 256;
        gemm__cuda_splitk_sum_kernel<TC><<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
            M, N, split, partial, alpha, beta, C, ldc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* WGMMA (block height wg_bm, K in `split` parts) or MMA. */
template <typename T, typename TC>
static gemm_status gemm__cuda_launch_tc(const char *fn, gemm_cuda_kernel kernel, int M, int N, int K, float alpha,
                                        gemm__cuda_kmajor<T> a, bool a_mn, gemm__cuda_kmajor<T> b, float beta, TC *C,
                                        int64_t ldc, int wg_bm, int split, float *partial, cudaStream_t stream)
{
    if (kernel == GEMM_CUDA_KERNEL_WGMMA) {
        if (wg_bm == 128)
            return gemm__cuda_launch_wgmma<T, TC, 128>(fn, M, N, K, alpha, a, a_mn, b, beta, C, ldc, split, partial, stream);
        return gemm__cuda_launch_wgmma<T, TC, 256>(fn, M, N, K, alpha, a, a_mn, b, beta, C, ldc, split, partial, stream);
    } else {
        constexpr int BM = 128, BN = 128, BK = 32, STAGES = 3, PAD = 16 / (int)sizeof(T);
        size_t smem = (size_t)STAGES * 2 * gemm__cuda_tile<BM, BK, PAD, true>::SIZE * sizeof(T);
        void *kern = (void *)gemm__cuda_mma_kernel<T, TC>;
        int tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN;
        const T *A = a.X, *B = b.X;
        void *args[] = {&M, &N, &K, &alpha, (void *)&A, &a.ld, (void *)&B, &b.ld, &beta, (void *)&C, &ldc};
        static_assert(BM == BN, "the shared-memory size above assumes square tiles");
        if (tn > 65535)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for one launch", fn, N);
        GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        GEMM__CUDA_TRY(fn, cudaLaunchKernel(kern, dim3((unsigned)tm, (unsigned)tn), dim3(256), args, smem, stream));
    }
    return GEMM_OK;
}

/* The tensor-core modes: T is A's and B's type (float for TF32), TC is C's. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc(const char *fn, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                 int64_t n, int64_t k, float alpha, const T *A, int64_t lda, const T *B, int64_t ldb,
                                 float beta, TC *C, int64_t ldc, cudaStream_t stream, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__cuda_problem<T, TC, float> p = {};
    gemm__work work;
    gemm_cuda_kernel kernel;
    int dev, major, minor, sms;
    bool finished;
    gemm_status s;

    gemm__clear_error();
    s = gemm__check_args(fn, layout, ta, tb, m, n, k, alpha == 0.0f, A != NULL, lda, B != NULL, ldb, beta == 1.0f,
                         C != NULL, ldc, &work);
    if (s != GEMM_OK || work == GEMM__WORK_NONE) return s;
    if (!opt) opt = &defaults;
    if (opt->kernel != GEMM_CUDA_KERNEL_AUTO && opt->kernel != GEMM_CUDA_KERNEL_NAIVE &&
        opt->kernel != GEMM_CUDA_KERNEL_MMA && opt->kernel != GEMM_CUDA_KERNEL_WGMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.kernel = %d is not a tensor-core kernel (auto, mma, wgmma "
                          "or naive)", fn, (int)opt->kernel);
    if (opt->split_k < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.split_k = %d is negative", fn, opt->split_k);
    if (opt->variant < 0 || opt->variant > 2)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.variant = %d: the tensor-core kernels take 0 (automatic), "
                          "1 (WGMMA blocks of 256 rows) or 2 (128 rows)", fn, opt->variant);
    if ((s = gemm__cuda_prepare(fn, work, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, &p,
                                &finished)) != GEMM_OK || finished)
        return s;
    if ((s = gemm__cuda_device(fn, &dev, &major, &minor, &sms)) != GEMM_OK) return s;
    kernel = opt->kernel == GEMM_CUDA_KERNEL_AUTO ? gemm__cuda_choose_tc(dev, major, minor) : opt->kernel;
    if (kernel == GEMM_CUDA_KERNEL_MMA && major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the mma kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, major, minor);
    if (kernel == GEMM_CUDA_KERNEL_WGMMA && !gemm__cuda_wgmma_available(dev, major, minor))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the wgmma kernel needs compute capability 9.0 (this GPU is %d.%d) "
                          "and a build for sm_90a (-gencode arch=compute_90a,code=sm_90a)", fn, major, minor);

    if (kernel == GEMM_CUDA_KERNEL_NAIVE) return gemm__cuda_launch_ladder(fn, kernel, p, stream);

    {
        /* Operands the kernels cannot read in place, and split-K's partial
           sums, go through one scratch buffer taken and freed in stream order. */
        int64_t ldo = (p.K + 7) / 8 * 8; /* 16-byte rows for every element size */
        /* WGMMA reads a 16-bit op(A) M-major as well (wgmma's transposed B) */
        bool a_mn = kernel == GEMM_CUDA_KERNEL_WGMMA && sizeof(T) == 2 && !p.ak &&
                    gemm__cuda_kmajor_ready(p.A, p.lda, sizeof(T), true);
        bool copy_a = !a_mn && !gemm__cuda_kmajor_ready(p.A, p.lda, sizeof(T), p.ak),
             copy_b = !gemm__cuda_kmajor_ready(p.B, p.ldb, sizeof(T), p.bk);
        int wg_bm = gemm__cuda_wgmma_bm(p.K, (int)sizeof(T), opt->variant);
        int split = kernel == GEMM_CUDA_KERNEL_WGMMA
                        ? gemm__cuda_wgmma_split(wg_bm, p.M, p.N, p.K, (int)sizeof(T), sms, opt->split_k) : 1;
        size_t a_elems = copy_a ? (size_t)p.M * ldo : 0, b_elems = copy_b ? (size_t)p.N * ldo : 0;
        size_t packed = ((a_elems + b_elems) * sizeof(T) + 255) / 256 * 256,
               partial_bytes = split > 1 ? (size_t)split * p.M * p.N * sizeof(float) : 0;
        T *scratch = NULL;
        float *partial = NULL;
        gemm__cuda_kmajor<T> a = {p.A, p.lda}, b = {p.B, p.ldb};
        if (packed + partial_bytes > 0) {
            cudaMemPool_t pool;
            cudaError_t e;
            if ((s = gemm__cuda_scratch_pool(fn, dev, true, &pool)) != GEMM_OK) return s;
            e = cudaMallocFromPoolAsync((void **)&scratch, packed + partial_bytes, pool, stream);
            if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (operand copies, split-K sums)", e);
            if (partial_bytes) partial = (float *)((char *)scratch + packed);
            if (copy_a) {
                a.X = scratch; a.ld = ldo;
                s = gemm__cuda_pack(fn, p.A, p.lda, p.ak, p.M, p.K, scratch, ldo, stream);
            }
            if (s == GEMM_OK && copy_b) {
                b.X = scratch + a_elems; b.ld = ldo;
                s = gemm__cuda_pack(fn, p.B, p.ldb, p.bk, p.N, p.K, scratch + a_elems, ldo, stream);
            }
        }
        if (s == GEMM_OK)
            s = gemm__cuda_launch_tc<T, TC>(fn, kernel, p.M, p.N, p.K, alpha, a, a_mn, b, beta, C, p.ldc, wg_bm, split,
                                            partial, stream);
        if (scratch) {
            cudaError_t e = cudaFreeAsync(scratch, stream);
            if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
        }
        return s;
    }
}

template <typename T>
static gemm_status gemm__cuda_gemm(const char *fn, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                   int64_t m, int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B,
                                   int64_t ldb, T beta, T *C, int64_t ldc, cudaStream_t stream,
                                   const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__cuda_problem<T> p = {};
    gemm__work work;
    gemm_cuda_kernel kernel;
    int dev, major, minor, sms, bits = (int)sizeof(T) * 8;
    bool finished;
    gemm_status s;

    gemm__clear_error();
    s = gemm__check_args(fn, layout, ta, tb, m, n, k, alpha == T(0), A != NULL, lda, B != NULL, ldb, beta == T(1),
                         C != NULL, ldc, &work);
    if (s != GEMM_OK || work == GEMM__WORK_NONE) return s;
    if (!opt) opt = &defaults;
    if constexpr (std::is_same<T, float>::value)
        if (opt->math == GEMM_CUDA_MATH_TF32)
            return gemm__cuda_tc<float, float>(fn, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, opt);
    if (opt->math != GEMM_CUDA_MATH_EXACT)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.math = %d is not supported here (TF32 is for fp32 only)",
                          fn, (int)opt->math);
    if (opt->kernel == GEMM_CUDA_KERNEL_MMA || opt->kernel == GEMM_CUDA_KERNEL_WGMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the %s kernel is for the tensor-core modes (options.math = "
                          "GEMM_CUDA_MATH_TF32, or gemm_cuda_gemm_mixed)", fn, gemm_cuda_kernel_name(opt->kernel));
    if ((unsigned)opt->kernel > GEMM_CUDA_KERNEL_DMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.kernel = %d is not a gemm_cuda_kernel", fn, (int)opt->kernel);
    if (opt->kernel == GEMM_CUDA_KERNEL_DMMA && bits != 64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the DMMA kernel is fp64 only", fn);
    if (opt->split_k < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.split_k = %d is negative", fn, opt->split_k);
    if (opt->variant < 0 || opt->variant > GEMM__CUDA_VARIANTS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.variant = %d is not 0..%d", fn, opt->variant, GEMM__CUDA_VARIANTS);
    if ((s = gemm__cuda_prepare(fn, work, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, &p,
                                &finished)) != GEMM_OK || finished)
        return s;
    if ((s = gemm__cuda_device(fn, &dev, &major, &minor, &sms)) != GEMM_OK) return s;
    kernel = opt->kernel == GEMM_CUDA_KERNEL_AUTO ? gemm__cuda_choose(bits, major, minor) : opt->kernel;
    if ((kernel == GEMM_CUDA_KERNEL_DMMA || kernel == GEMM_CUDA_KERNEL_SIMT) && major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the %s kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, gemm_cuda_kernel_name(kernel), major, minor);

    if (kernel == GEMM_CUDA_KERNEL_NAIVE || kernel == GEMM_CUDA_KERNEL_TILED16)
        return gemm__cuda_launch_ladder(fn, kernel, p, stream);
    if constexpr (sizeof(T) == 8) /* DMMA was refused for fp32 above */
        if (kernel == GEMM_CUDA_KERNEL_DMMA)
            return gemm__cuda_pick_fast<T, true>(fn, p, sms, opt->split_k, opt->variant, stream);
    return gemm__cuda_pick_fast<T, false>(fn, p, sms, opt->split_k, opt->variant, stream);
}

/* ---- host pointers ---- */

static double gemm__cuda_now_ms(void)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* Elements a stored rows x cols matrix spans with leading dimension ld. */
static size_t gemm__cuda_extent(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    return layout == GEMM_ROW_MAJOR ? (size_t)((rows - 1) * ld + cols) : (size_t)((cols - 1) * ld + rows);
}

/* Copies the m x n window of a C (outer x inner with stride ld) between two
   host buffers, leaving the padding of the destination alone. */
static void gemm__cuda_copy_window(void *dst, const void *src, int64_t outer, int64_t inner, int64_t ld, size_t elem)
{
    int64_t o;
    for (o = 0; o < outer; o++)
        memcpy((char *)dst + (size_t)(o * ld) * elem, (const char *)src + (size_t)(o * ld) * elem, (size_t)inner * elem);
}

template <typename T> static gemm_cuda_type gemm__cuda_type_of(void)
{
    return std::is_same<T, __half>::value ? GEMM_CUDA_F16 : std::is_same<T, __nv_bfloat16>::value ? GEMM_CUDA_BF16 : GEMM_CUDA_F32;
}

/* The host-pointer calls: T is A's and B's type, TC C's, S the scalars'. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host(const char *fn, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                   int64_t m, int64_t n, int64_t k, S alpha, const T *A, int64_t lda, const T *B,
                                   int64_t ldb, S beta, TC *C, int64_t ldc, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm_cuda_options dev_opt;
    gemm__work work = GEMM__WORK_NONE;
    gemm_status s;
    cudaError_t e = cudaSuccess;
    const char *what = "";
    int old_dev = -1, count = 0, full, read_c, mapped, staged;
    size_t na = 0, nb = 0, nc = 0, elem = sizeof(T), elem_c = sizeof(TC);
    int64_t c_outer = layout == GEMM_ROW_MAJOR ? m : n, c_inner = layout == GEMM_ROW_MAJOR ? n : m;
    T *dA = NULL, *dB = NULL, *hA = NULL, *hB = NULL;
    TC *dC = NULL, *hC = NULL;
    cudaStream_t stream = NULL;
    cudaEvent_t ev0 = NULL, ev1 = NULL;
    double t0, t1;
    float kernel_ms = 0;
    gemm_cuda_timing timing = {0, 0, 0};

    gemm__clear_error();
    s = gemm__check_args(fn, layout, ta, tb, m, n, k, alpha == S(0), A != NULL, lda, B != NULL, ldb, beta == S(1),
                         C != NULL, ldc, &work);
    if (!opt) opt = &defaults;
    if (s == GEMM_OK && (unsigned)opt->mode > GEMM_CUDA_MAPPED)
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.mode = %d is not a gemm_cuda_mode", fn, (int)opt->mode);
    if (s == GEMM_OK && opt->device < 0)
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device = %d is negative", fn, opt->device);
    if (opt->timing) *opt->timing = timing;
    if (s != GEMM_OK || work == GEMM__WORK_NONE) return s;

    e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: no CUDA device (%s)", fn,
                          e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    if (opt->device >= count)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device = %d, but there are %d devices", fn, opt->device, count);
    GEMM__CUDA_TRY(fn, cudaGetDevice(&old_dev));
    GEMM__CUDA_TRY(fn, cudaSetDevice(opt->device));

    full = work == GEMM__WORK_FULL;
    read_c = beta != S(0);
    mapped = opt->mode == GEMM_CUDA_MAPPED;
    staged = opt->mode != GEMM_CUDA_PAGEABLE;
    if (full) {
        na = gemm__cuda_extent(layout, ta == GEMM_NO_TRANS ? m : k, ta == GEMM_NO_TRANS ? k : m, lda);
        nb = gemm__cuda_extent(layout, tb == GEMM_NO_TRANS ? k : n, tb == GEMM_NO_TRANS ? n : k, ldb);
    }
    nc = gemm__cuda_extent(layout, m, n, ldc);

/* Every failure below jumps to the cleanup with `what` naming the call. */
#define GEMM__CUDA_STEP(call)                                                                      \
    do {                                                                                           \
        what = #call;                                                                              \
        if ((e = (call)) != cudaSuccess) goto done;                                                \
    } while (0)
    GEMM__CUDA_STEP(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    GEMM__CUDA_STEP(cudaEventCreate(&ev0));
    GEMM__CUDA_STEP(cudaEventCreate(&ev1));
    if (staged) {
        unsigned flags = mapped ? cudaHostAllocMapped : cudaHostAllocDefault;
        if (full) {
            GEMM__CUDA_STEP(cudaHostAlloc((void **)&hA, na * elem, flags));
            GEMM__CUDA_STEP(cudaHostAlloc((void **)&hB, nb * elem, flags));
        }
        GEMM__CUDA_STEP(cudaHostAlloc((void **)&hC, nc * elem_c, flags));
    }
    if (mapped) {
        if (full) {
            GEMM__CUDA_STEP(cudaHostGetDevicePointer((void **)&dA, hA, 0));
            GEMM__CUDA_STEP(cudaHostGetDevicePointer((void **)&dB, hB, 0));
        }
        GEMM__CUDA_STEP(cudaHostGetDevicePointer((void **)&dC, hC, 0));
    } else {
        if (full) {
            GEMM__CUDA_STEP(cudaMalloc((void **)&dA, na * elem));
            GEMM__CUDA_STEP(cudaMalloc((void **)&dB, nb * elem));
        }
        GEMM__CUDA_STEP(cudaMalloc((void **)&dC, nc * elem_c));
    }

    /* In: A and B whole, of C only the m x n window and only when it is read. */
    t0 = gemm__cuda_now_ms();
    if (staged) {
        if (full) { memcpy(hA, A, na * elem); memcpy(hB, B, nb * elem); }
        if (read_c) gemm__cuda_copy_window(hC, C, c_outer, c_inner, ldc, elem_c);
    }
    if (!mapped) {
        const T *sa = staged ? hA : A, *sb = staged ? hB : B;
        const TC *sc = staged ? hC : C;
        if (full) {
            GEMM__CUDA_STEP(cudaMemcpyAsync(dA, sa, na * elem, cudaMemcpyHostToDevice, stream));
            GEMM__CUDA_STEP(cudaMemcpyAsync(dB, sb, nb * elem, cudaMemcpyHostToDevice, stream));
        }
        if (read_c)
            GEMM__CUDA_STEP(cudaMemcpy2DAsync(dC, (size_t)ldc * elem_c, sc, (size_t)ldc * elem_c, (size_t)c_inner * elem_c,
                                              (size_t)c_outer, cudaMemcpyHostToDevice, stream));
        GEMM__CUDA_STEP(cudaStreamSynchronize(stream));
    }
    t1 = gemm__cuda_now_ms();
    timing.h2d_ms = t1 - t0;

    dev_opt = *opt;
    dev_opt.timing = NULL;
    GEMM__CUDA_STEP(cudaEventRecord(ev0, stream));
    if constexpr (std::is_same<T, float>::value)
        s = gemm_cuda_sgemm_ex(layout, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc, stream, &dev_opt);
    else if constexpr (std::is_same<T, double>::value)
        s = gemm_cuda_dgemm_ex(layout, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc, stream, &dev_opt);
    else
        s = gemm_cuda_gemm_mixed(layout, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc, gemm__cuda_type_of<T>(),
                                 gemm__cuda_type_of<TC>(), stream, &dev_opt);
    if (s != GEMM_OK) goto done;
    GEMM__CUDA_STEP(cudaEventRecord(ev1, stream));
    GEMM__CUDA_STEP(cudaEventSynchronize(ev1));
    GEMM__CUDA_STEP(cudaEventElapsedTime(&kernel_ms, ev0, ev1));
    timing.kernel_ms = kernel_ms;

    /* Out: only the m x n window of C, so its padding stays untouched. */
    t0 = gemm__cuda_now_ms();
    if (!mapped) {
        TC *dst = staged ? hC : C;
        GEMM__CUDA_STEP(cudaMemcpy2DAsync(dst, (size_t)ldc * elem_c, dC, (size_t)ldc * elem_c, (size_t)c_inner * elem_c,
                                          (size_t)c_outer, cudaMemcpyDeviceToHost, stream));
        GEMM__CUDA_STEP(cudaStreamSynchronize(stream));
    }
    if (staged) gemm__cuda_copy_window(C, hC, c_outer, c_inner, ldc, elem_c);
    timing.d2h_ms = gemm__cuda_now_ms() - t0;
    if (opt->timing) *opt->timing = timing;

done:
#undef GEMM__CUDA_STEP
    if (e != cudaSuccess) s = gemm__cuda_fail(fn, what, e);
    /* Cleanup failures must not hide the first error. */
    if (!mapped) { cudaFree(dA); cudaFree(dB); cudaFree(dC); }
    cudaFreeHost(hA); cudaFreeHost(hB); cudaFreeHost(hC);
    if (ev0) cudaEventDestroy(ev0);
    if (ev1) cudaEventDestroy(ev1);
    if (stream) cudaStreamDestroy(stream);
    if (old_dev >= 0) cudaSetDevice(old_dev);
    return s;
}

/* Calls run(T(), TC()) for the type pairs gemm_cuda_gemm_mixed takes; refuses the rest. */
template <typename F>
static gemm_status gemm__cuda_mixed_types(const char *fn, gemm_cuda_type input, gemm_cuda_type output, F run)
{
    if (input == GEMM_CUDA_F16 && output == GEMM_CUDA_F32) return run(__half(), float());
    if (input == GEMM_CUDA_F16 && output == GEMM_CUDA_F16) return run(__half(), __half());
    if (input == GEMM_CUDA_BF16 && output == GEMM_CUDA_F32) return run(__nv_bfloat16(), float());
    if (input == GEMM_CUDA_BF16 && output == GEMM_CUDA_BF16) return run(__nv_bfloat16(), __nv_bfloat16());
    gemm__clear_error();
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: input type %d with output type %d: the input must be F16 or BF16 "
                      "(TF32: gemm_cuda_sgemm_ex with options.math), the output F32 or the input type",
                      fn, (int)input, (int)output);
}

/* ---- the public functions ---- */

extern "C" {

GEMM_DEF gemm_status gemm_cuda_sgemm_ex(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                        const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                        cudaStream_t stream, const gemm_cuda_options *options)
{
    return gemm__cuda_gemm<float>("gemm_cuda_sgemm", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                                  C, ldc, stream, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_ex(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                        int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                        int64_t ldc, cudaStream_t stream, const gemm_cuda_options *options)
{
    return gemm__cuda_gemm<double>("gemm_cuda_dgemm", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                                   C, ldc, stream, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                     int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                     const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                     cudaStream_t stream)
{
    return gemm_cuda_sgemm_ex(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, NULL);
}

GEMM_DEF gemm_status gemm_cuda_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                     int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                     const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                     cudaStream_t stream)
{
    return gemm_cuda_dgemm_ex(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, NULL);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                          int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                          int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_host<float, float, float>("gemm_cuda_sgemm_host", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                  beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                          int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                          int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_host<double, double, double>("gemm_cuda_dgemm_host", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                   beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_gemm_mixed(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, float alpha, const void *A, int64_t lda,
                                          const void *B, int64_t ldb, float beta, void *C, int64_t ldc,
                                          gemm_cuda_type input, gemm_cuda_type output, cudaStream_t stream,
                                          const gemm_cuda_options *options)
{
    return gemm__cuda_mixed_types("gemm_cuda_gemm_mixed", input, output, [&](auto in, auto out) {
        typedef decltype(in) T;
        typedef decltype(out) TC;
        return gemm__cuda_tc<T, TC>("gemm_cuda_gemm_mixed", layout, transa, transb, m, n, k, alpha, (const T *)A, lda,
                                    (const T *)B, ldb, beta, (TC *)C, ldc, stream, options);
    });
}

GEMM_DEF gemm_status gemm_cuda_gemm_mixed_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                               int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                                               int64_t lda, const void *B, int64_t ldb, float beta, void *C,
                                               int64_t ldc, gemm_cuda_type input, gemm_cuda_type output,
                                               const gemm_cuda_options *options)
{
    return gemm__cuda_mixed_types("gemm_cuda_gemm_mixed_host", input, output, [&](auto in, auto out) {
        typedef decltype(in) T;
        typedef decltype(out) TC;
        return gemm__cuda_host<T, TC, float>("gemm_cuda_gemm_mixed_host", layout, transa, transb, m, n, k, alpha,
                                             (const T *)A, lda, (const T *)B, ldb, beta, (TC *)C, ldc, options);
    });
}

GEMM_DEF gemm_status gemm_cuda_release_scratch(void)
{
    static const char *fn = "gemm_cuda_release_scratch";
    cudaMemPool_t pool;
    int dev;
    gemm_status s;
    gemm__clear_error();
    GEMM__CUDA_TRY(fn, cudaGetDevice(&dev));
    if ((s = gemm__cuda_scratch_pool(fn, dev, false, &pool)) != GEMM_OK || !pool) return s;
    GEMM__CUDA_TRY(fn, cudaDeviceSynchronize());
    GEMM__CUDA_TRY(fn, cudaMemPoolTrimTo(pool, 0));
    return GEMM_OK;
}

GEMM_DEF gemm_cuda_kernel gemm_cuda_auto_kernel(int precision_bits, int64_t m, int64_t n, int64_t k)
{
    int dev, major, minor;
    (void)m; (void)n; (void)k;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return GEMM_CUDA_KERNEL_AUTO;
    if (precision_bits == 16) return gemm__cuda_choose_tc(dev, major, minor);
    return gemm__cuda_choose(precision_bits, major, minor);
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

#endif /* GEMM_IMPLEMENTATION */
/* <<cuda whole_cuda */
