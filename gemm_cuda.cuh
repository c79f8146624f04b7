/* gemm_cuda.cuh - the CUDA backend of gemm: C = alpha*op(A)*op(B) + beta*C on
   an NVIDIA GPU, fp32 and fp64, without cuBLAS.

   Do this in *one* .cu file (compiled by nvcc):
       #define GEMM_IMPLEMENTATION
       #include "gemm_cuda.cuh"        (it includes gemm.h and gemm_cpu.h)
   and include it without the macro anywhere else. Build for the GPUs you
   run on, e.g. -gencode arch=compute_80,code=sm_80
                -gencode arch=compute_90,code=[sm_90,compute_90]

   Two ways to call it
     - device pointers, asynchronous on a stream (nothing is allocated, no
       synchronisation; the call returns once the kernels are queued):
           gemm_cuda_sgemm(layout, ta, tb, m, n, k, alpha, dA, lda, dB, ldb,
                           beta, dC, ldc, stream);
       gemm_cuda_sgemm_ex() takes a gemm_cuda_options as well (kernel choice).
       A, B, C must be memory the current device can address (cudaMalloc,
       managed or mapped host memory); a plain host pointer is refused with
       GEMM_ERR_INVALID_ARG, not dereferenced.
     - host pointers, synchronous: gemm_cuda_sgemm_host() allocates on the
       device, copies, multiplies, copies C back and frees, in one of three
       modes (gemm_cuda_mode): pageable copies, pinned staging buffers, or
       mapped (zero-copy) host memory that the kernel reads over the bus,
       which wins for small matrices. It can fill a gemm_cuda_timing.

   Kernels (gemm_cuda_kernel; AUTO picks by precision and compute capability)
     - SIMT: fp32 (and fp64 on GPUs without FP64 tensor cores). 128x128
       block tiles, 8x8 per thread, two blocks per SM, 16-byte cp.async copies into a 3-stage
       shared-memory ring, 16-byte shared-memory reads laid out so that no
       two threads of a warp hit one bank. Each operand is read in the
       orientation it is stored in (k-contiguous or not: two shared-memory
       layouts), so no transpose pass is needed for any of the 8 cases.
       Operands whose pointer or leading dimension is not 16-byte aligned
       take the same kernel with element-sized copies.
     - DMMA: fp64 on the FP64 tensor cores (mma.sync; m16n8k4 on sm_90,
       pairs of m8n8k4 on sm_80). 128x64 block tiles, 32x32 per warp, two
       blocks per SM, the same cp.async ring.
     - NAIVE (one thread per element) and TILED16 (the 16x16 shared-memory
       tile of the seed paper 000): the textbook ladder, for benchmarks.
   Edges (any m, n, k) are bounds-checked in every kernel. When the tiles
   are too few to fill the GPU, the K loop is split over several blocks
   that add into C with atomics (after C = beta*C): such results may differ
   in the last bits from run to run. options.split_k = 1 turns that off.

   Exact fp32/fp64 arithmetic only. gemm_cuda_math reserves the room for
   opt-in reduced-precision modes (TF32, FP16/BF16 inputs), not done yet.

   Errors: every CUDA call is checked; a failure returns GEMM_ERR_DEVICE
   (GEMM_ERR_OUT_OF_MEMORY, GEMM_ERR_UNAVAILABLE where they fit) with the
   CUDA error name and string in gemm_last_error_detail(). An asynchronous
   kernel fault shows up at the caller's next synchronisation, as in CUDA.

   LICENSE: MIT, see the end of gemm.h.
*/

#ifndef GEMM_CUDA_CUH_INCLUDED
#define GEMM_CUDA_CUH_INCLUDED

#include "gemm.h"
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemm_cuda_kernel {
    GEMM_CUDA_KERNEL_AUTO = 0,    /* by precision, shape and compute capability */
    GEMM_CUDA_KERNEL_NAIVE = 1,   /* one thread per element of C */
    GEMM_CUDA_KERNEL_TILED16 = 2, /* the seed paper's 16x16 shared-memory tiles */
    GEMM_CUDA_KERNEL_SIMT = 3,    /* register-blocked, cp.async, fp32 and fp64 */
    GEMM_CUDA_KERNEL_DMMA = 4     /* fp64 tensor cores (sm_80+); fp64 only */
} gemm_cuda_kernel;

typedef enum gemm_cuda_math {
    GEMM_CUDA_MATH_EXACT = 0 /* fp32 in fp32, fp64 in fp64; the only mode so far */
} gemm_cuda_math;

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

/* The kernel AUTO would run for this problem on the current device
   (precision_bits 32 or 64); GEMM_CUDA_KERNEL_AUTO if it cannot tell. */
GEMM_DEF gemm_cuda_kernel gemm_cuda_auto_kernel(int precision_bits, int64_t m, int64_t n, int64_t k);

/* "naive", "tiled16", "simt", "dmma", "auto"; "?" for anything else. */
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

#include <chrono>
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
        if (valid == VEC) {
            gemm__cuda_cp_async<VEC * (int)sizeof(T)>(dst, g + (int64_t)r * gld + col);
        } else {
#pragma unroll
            for (int e = 0; e < VEC; e++) dst[e] = e < valid ? g[(int64_t)r * gld + col + e] : T(0);
        }
    }
}

/* The epilogue of one element: C = alpha*acc + beta*C, never reading C when
   beta == 0; split-K partial sums add into C (already scaled by beta). */
template <typename T>
__device__ __forceinline__ void gemm__cuda_store(T *c, T acc, T alpha, T beta, int atomic)
{
    if (atomic) atomicAdd(c, alpha * acc);
    else if (beta == T(0)) *c = alpha * acc;
    else *c = alpha * acc + beta * *c;
}

/* The normalised problem every kernel solves: C is column-major (element
   (i, j) at C[i + j*ldc]); op(A) is M x K and op(B) is K x N. A "k-major"
   operand has its K index contiguous in memory. */

/* ---- the ladder: naive and the seed paper's 16x16 tiles ---- */

template <typename T>
__global__ void gemm__cuda_naive_kernel(int M, int N, int K, T alpha, const T *A, int64_t ars, int64_t acs,
                                        const T *B, int64_t brs, int64_t bcs, T beta, T *C, int64_t ldc)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x), j = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (i >= M || j >= N) return;
    T sum = 0;
    for (int p = 0; p < K; p++) sum += A[i * ars + p * acs] * B[p * brs + j * bcs];
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

template <typename T> __global__ void gemm__cuda_scale_kernel(int M, int N, T beta, T *C, int64_t ldc)
{
    int64_t total = (int64_t)M * N;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        T *c = &C[e % M + (e / M) * ldc];
        *c = beta == T(0) ? T(0) : beta * *c;
    }
}

/* ---- the shared-memory ring both fast kernels use ---- */

/* Tile geometry of one operand in shared memory: a k-major operand is kept
   as [rows of the M (or N) side][BK + PAD], the other as [BK][side + PAD]. */
template <int SIDE, int BK, int PAD, bool KMAJOR> struct gemm__cuda_tile {
    static constexpr int ROWS = KMAJOR ? SIDE : BK, COLS = KMAJOR ? BK : SIDE, SLD = COLS + PAD,
                         SIZE = ROWS * SLD;
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
                                                    int64_t lda, const T *B, int64_t ldb, COMPUTE compute)
{
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    int m0 = (int)blockIdx.x * BM, n0 = (int)blockIdx.y * BN;
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
#ifndef GEMM__CUDA_SIMT_MINB
#define GEMM__CUDA_SIMT_MINB 2 /* blocks per SM the register budget must allow; a tuning knob */
#endif
template <typename T, int BM, int BN, int BK, int TM, int TN, int STAGES, bool AK, bool BKM, int VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), GEMM__CUDA_SIMT_MINB)
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
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = T(0);

    gemm__cuda_mainloop<T, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, A, lda, B, ldb, [&](const T *as, const T *bs) {
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

    int m0 = (int)blockIdx.x * BM, n0 = (int)blockIdx.y * BN;
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

/* ---- DMMA: fp64 on the tensor cores ---- */

/* D += A*B for a 16x8 tile and K = KI (4, 8 or 16), in the fragment layout
   of mma.m16n8kKI.f64: lane = 4*g + t holds a[i] = A(g + 8*(i%2), t + 4*(i/2)),
   b[i] = B(t + 4*i, g), d = D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1).
   Hopper has these shapes natively; Ampere runs them as m8n8k4 pairs. */
template <int KI> __device__ __forceinline__ void gemm__cuda_dmma(double *d, const double *a, const double *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(GEMM_CUDA_DMMA_M8N8K4)
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
#ifndef GEMM__CUDA_DMMA_MINB
#define GEMM__CUDA_DMMA_MINB 2 /* blocks per SM the register budget must allow; a tuning knob */
#endif
template <int BM, int BN, int BK, int STAGES, int WARPS_M, int WARPS_N, bool AK, bool BKM, int VEC>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, GEMM__CUDA_DMMA_MINB)
gemm__cuda_dmma_kernel(int M, int N, int K, int kchunk, double alpha, const double *A, int64_t lda,
                       const double *B, int64_t ldb, double beta, double *C, int64_t ldc, int atomic)
{
    constexpr int NT = 32 * WARPS_M * WARPS_N, PAD = 4, WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16,
                  NTL = WN / 8, KI = GEMM__CUDA_DMMA_KI;
    static_assert(BK % KI == 0 && WM % 16 == 0 && WN % 8 == 0, "bad tile");
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    double *As = reinterpret_cast<double *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;
    double acc[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;

    gemm__cuda_mainloop<double, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, A, lda, B, ldb, [&](const double *as, const double *bs) {
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
        });

    int m0 = (int)blockIdx.x * BM + wm, n0 = (int)blockIdx.y * BN + wn;
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

/* ---- host side: choosing and launching ---- */

/* The normalised problem (see above), with the caller's names for errors. */
template <typename T> struct gemm__cuda_problem {
    int M, N, K;
    T alpha, beta;
    const T *A, *B;
    T *C;
    int64_t lda, ldb, ldc;
    bool ak, bk; /* op(A) / op(B) is k-major */
};

/* Tile shapes (tuning knobs, measured on an H200: bench/RESULTS.md). */
#ifndef GEMM__CUDA_S_BM
#define GEMM__CUDA_S_BM 128
#endif
#ifndef GEMM__CUDA_S_BN
#define GEMM__CUDA_S_BN 128
#endif
#ifndef GEMM__CUDA_S_BK
#define GEMM__CUDA_S_BK 16
#endif
#ifndef GEMM__CUDA_S_STAGES
#define GEMM__CUDA_S_STAGES 3
#endif
#ifndef GEMM__CUDA_D_BM
#define GEMM__CUDA_D_BM 128
#endif
#ifndef GEMM__CUDA_D_BN
#define GEMM__CUDA_D_BN 64
#endif
#ifndef GEMM__CUDA_D_WARPS_M
#define GEMM__CUDA_D_WARPS_M 4
#endif
#ifndef GEMM__CUDA_D_WARPS_N
#define GEMM__CUDA_D_WARPS_N 2
#endif
#ifndef GEMM__CUDA_D_BK
#define GEMM__CUDA_D_BK 16
#endif
#ifndef GEMM__CUDA_D_STAGES
#define GEMM__CUDA_D_STAGES 3
#endif
#define GEMM__CUDA_SIMT_F32 float, GEMM__CUDA_S_BM, GEMM__CUDA_S_BN, GEMM__CUDA_S_BK, 8, 8, GEMM__CUDA_S_STAGES
#define GEMM__CUDA_SIMT_F64 double, 64, 64, 16, 4, 4, 3
#define GEMM__CUDA_DMMA_CFG GEMM__CUDA_D_BM, GEMM__CUDA_D_BN, GEMM__CUDA_D_BK, GEMM__CUDA_D_STAGES, \
                            GEMM__CUDA_D_WARPS_M, GEMM__CUDA_D_WARPS_N

/* Block tile, shared memory and kernel of a fast configuration. */
template <typename T, bool AK, bool BKM, int VEC, bool DMMA> struct gemm__cuda_config;
template <bool AK, bool BKM, int VEC> struct gemm__cuda_config<float, AK, BKM, VEC, false> {
    static constexpr int BM = GEMM__CUDA_S_BM, BN = GEMM__CUDA_S_BN, BK = GEMM__CUDA_S_BK,
                         STAGES = GEMM__CUDA_S_STAGES, NT = (BM / 8) * (BN / 8), PAD = 4;
    static void *kernel() { return (void *)gemm__cuda_simt_kernel<GEMM__CUDA_SIMT_F32, AK, BKM, VEC>; }
};
template <bool AK, bool BKM, int VEC> struct gemm__cuda_config<double, AK, BKM, VEC, false> {
    static constexpr int BM = 64, BN = 64, BK = 16, STAGES = 3, NT = 256, PAD = 2;
    static void *kernel() { return (void *)gemm__cuda_simt_kernel<GEMM__CUDA_SIMT_F64, AK, BKM, VEC>; }
};
template <bool AK, bool BKM, int VEC> struct gemm__cuda_config<double, AK, BKM, VEC, true> {
    static constexpr int BM = GEMM__CUDA_D_BM, BN = GEMM__CUDA_D_BN, BK = GEMM__CUDA_D_BK,
                         STAGES = GEMM__CUDA_D_STAGES, NT = 32 * GEMM__CUDA_D_WARPS_M * GEMM__CUDA_D_WARPS_N, PAD = 4;
    static void *kernel() { return (void *)gemm__cuda_dmma_kernel<GEMM__CUDA_DMMA_CFG, AK, BKM, VEC>; }
};

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

template <typename T, bool AK, bool BKM, int VEC, bool DMMA>
static gemm_status gemm__cuda_launch_fast(const char *fn, const gemm__cuda_problem<T> &p, int sms, int split_req,
                                          cudaStream_t stream)
{
    typedef gemm__cuda_config<T, AK, BKM, VEC, DMMA> CFG;
    typedef gemm__cuda_tile<CFG::BM, CFG::BK, CFG::PAD, AK> TA;
    typedef gemm__cuda_tile<CFG::BN, CFG::BK, CFG::PAD, BKM> TB;
    size_t smem = (size_t)CFG::STAGES * (TA::SIZE + TB::SIZE) * sizeof(T);
    int tm = (p.M + CFG::BM - 1) / CFG::BM, tn = (p.N + CFG::BN - 1) / CFG::BN, per_sm = 1, split, kchunk;
    void *kernel = CFG::kernel();
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
    if (tn > 65535 || split > 65535) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: n is too large for one launch", fn);
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

/* Runtime flags -> one of the 8 instantiations. */
template <typename T, bool DMMA>
static gemm_status gemm__cuda_pick_fast(const char *fn, const gemm__cuda_problem<T> &p, int sms, int split,
                                        cudaStream_t stream)
{
    constexpr int V = 16 / (int)sizeof(T);
    /* 16-byte copies need 16-byte aligned panels: aligned bases and leading dimensions. */
    bool vec = (uintptr_t)p.A % 16 == 0 && (uintptr_t)p.B % 16 == 0 && p.lda % V == 0 && p.ldb % V == 0;
#define GEMM__CUDA_CASE(AK, BKM)                                                                       \
    if (p.ak == AK && p.bk == BKM)                                                                     \
        return vec ? gemm__cuda_launch_fast<T, AK, BKM, V, DMMA>(fn, p, sms, split, stream)            \
                   : gemm__cuda_launch_fast<T, AK, BKM, 1, DMMA>(fn, p, sms, split, stream);
    GEMM__CUDA_CASE(false, false) GEMM__CUDA_CASE(false, true)
    GEMM__CUDA_CASE(true, false) GEMM__CUDA_CASE(true, true)
#undef GEMM__CUDA_CASE
    return gemm__fail(GEMM_ERR_INTERNAL, "%s: no kernel instance", fn);
}

static bool gemm__cuda_has_dmma(int major, int minor)
{
    /* Full-rate FP64 tensor cores: A100 (8.0), H100/H200 (9.0), B200 (10.0). */
    return (major == 8 && minor == 0) || major == 9 || major == 10;
}

static gemm_cuda_kernel gemm__cuda_choose(int bits, int major, int minor)
{
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

template <typename T>
static gemm_status gemm__cuda_gemm(const char *fn, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                   int64_t m, int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B,
                                   int64_t ldb, T beta, T *C, int64_t ldc, cudaStream_t stream,
                                   const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__cuda_problem<T> p;
    gemm__work work;
    gemm_cuda_kernel kernel;
    int dev, major, minor, sms, bits = (int)sizeof(T) * 8;
    gemm_status s;

    gemm__clear_error();
    s = gemm__check_args(fn, layout, ta, tb, m, n, k, alpha == T(0), A != NULL, lda, B != NULL, ldb, beta == T(1),
                         C != NULL, ldc, &work);
    if (s != GEMM_OK || work == GEMM__WORK_NONE) return s;
    if (!opt) opt = &defaults;
    if ((unsigned)opt->kernel > GEMM_CUDA_KERNEL_DMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.kernel = %d is not a gemm_cuda_kernel", fn, (int)opt->kernel);
    if (opt->kernel == GEMM_CUDA_KERNEL_DMMA && bits != 64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the DMMA kernel is fp64 only", fn);
    if (opt->math != GEMM_CUDA_MATH_EXACT)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.math = %d is not supported", fn, (int)opt->math);
    if (opt->split_k < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.split_k = %d is negative", fn, opt->split_k);
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_pointer(fn, "C", C)) != GEMM_OK) return s;
    if (work == GEMM__WORK_FULL &&
        ((s = gemm__cuda_check_pointer(fn, "A", A)) != GEMM_OK || (s = gemm__cuda_check_pointer(fn, "B", B)) != GEMM_OK))
        return s;

    /* Column-major view: a row-major C is C^T = op(B)^T op(A)^T. */
    if (layout == GEMM_ROW_MAJOR) {
        const T *X = A; int64_t lx = lda, mx = m; gemm_transpose tx = ta;
        A = B; lda = ldb; m = n; ta = tb;
        B = X; ldb = lx; n = mx; tb = tx;
    }
    p.M = (int)m; p.N = (int)n; p.K = (int)k;
    p.alpha = alpha; p.beta = beta; p.A = A; p.B = B; p.C = C;
    p.lda = lda; p.ldb = ldb; p.ldc = ldc;
    p.ak = ta == GEMM_TRANS;
    p.bk = tb == GEMM_NO_TRANS;

    if (work == GEMM__WORK_SCALE) {
        int blocks = (int)((m * n + 255) / 256);
        gemm__cuda_scale_kernel<T><<<blocks < 4096 ? blocks : 4096, 256, 0, stream>>>(p.M, p.N, beta, C, ldc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
        return GEMM_OK;
    }

    GEMM__CUDA_TRY(fn, cudaGetDevice(&dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    kernel = opt->kernel == GEMM_CUDA_KERNEL_AUTO ? gemm__cuda_choose(bits, major, minor) : opt->kernel;
    if (kernel == GEMM_CUDA_KERNEL_DMMA && major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the DMMA kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, major, minor);

    if (kernel == GEMM_CUDA_KERNEL_NAIVE || kernel == GEMM_CUDA_KERNEL_TILED16) {
        int64_t ars = p.ak ? lda : 1, acs = p.ak ? 1 : lda, brs = p.bk ? 1 : ldb, bcs = p.bk ? ldb : 1;
        dim3 grid((unsigned)((p.M + 15) / 16), (unsigned)((p.N + 15) / 16)), block(16, 16);
        if (grid.y > 65535) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: n is too large for the ladder kernels", fn);
        if (kernel == GEMM_CUDA_KERNEL_NAIVE)
            gemm__cuda_naive_kernel<T><<<grid, block, 0, stream>>>(p.M, p.N, p.K, alpha, A, ars, acs, B, brs, bcs, beta, C, ldc);
        else
            gemm__cuda_tiled16_kernel<T><<<grid, block, 0, stream>>>(p.M, p.N, p.K, alpha, A, ars, acs, B, brs, bcs, beta, C, ldc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
        return GEMM_OK;
    }
    if constexpr (sizeof(T) == 8) /* DMMA was refused for fp32 above */
        if (kernel == GEMM_CUDA_KERNEL_DMMA) return gemm__cuda_pick_fast<T, true>(fn, p, sms, opt->split_k, stream);
    return gemm__cuda_pick_fast<T, false>(fn, p, sms, opt->split_k, stream);
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

template <typename T>
static gemm_status gemm__cuda_host(const char *fn, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                   int64_t m, int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B,
                                   int64_t ldb, T beta, T *C, int64_t ldc, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm_cuda_options dev_opt;
    gemm__work work = GEMM__WORK_NONE;
    gemm_status s;
    cudaError_t e = cudaSuccess;
    const char *what = "";
    int old_dev = -1, count = 0, full, read_c, mapped, staged;
    size_t na = 0, nb = 0, nc = 0, elem = sizeof(T);
    int64_t c_outer = layout == GEMM_ROW_MAJOR ? m : n, c_inner = layout == GEMM_ROW_MAJOR ? n : m;
    T *dA = NULL, *dB = NULL, *dC = NULL, *hA = NULL, *hB = NULL, *hC = NULL;
    cudaStream_t stream = NULL;
    cudaEvent_t ev0 = NULL, ev1 = NULL;
    double t0, t1;
    float kernel_ms = 0;
    gemm_cuda_timing timing = {0, 0, 0};

    gemm__clear_error();
    s = gemm__check_args(fn, layout, ta, tb, m, n, k, alpha == T(0), A != NULL, lda, B != NULL, ldb, beta == T(1),
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
    read_c = beta != T(0);
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
        GEMM__CUDA_STEP(cudaHostAlloc((void **)&hC, nc * elem, flags));
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
        GEMM__CUDA_STEP(cudaMalloc((void **)&dC, nc * elem));
    }

    /* In: A and B whole, of C only the m x n window and only when it is read. */
    t0 = gemm__cuda_now_ms();
    if (staged) {
        if (full) { memcpy(hA, A, na * elem); memcpy(hB, B, nb * elem); }
        if (read_c) gemm__cuda_copy_window(hC, C, c_outer, c_inner, ldc, elem);
    }
    if (!mapped) {
        const T *sa = staged ? hA : A, *sb = staged ? hB : B, *sc = staged ? hC : C;
        if (full) {
            GEMM__CUDA_STEP(cudaMemcpyAsync(dA, sa, na * elem, cudaMemcpyHostToDevice, stream));
            GEMM__CUDA_STEP(cudaMemcpyAsync(dB, sb, nb * elem, cudaMemcpyHostToDevice, stream));
        }
        if (read_c)
            GEMM__CUDA_STEP(cudaMemcpy2DAsync(dC, (size_t)ldc * elem, sc, (size_t)ldc * elem, (size_t)c_inner * elem,
                                              (size_t)c_outer, cudaMemcpyHostToDevice, stream));
        GEMM__CUDA_STEP(cudaStreamSynchronize(stream));
    }
    t1 = gemm__cuda_now_ms();
    timing.h2d_ms = t1 - t0;

    dev_opt = *opt;
    dev_opt.timing = NULL;
    GEMM__CUDA_STEP(cudaEventRecord(ev0, stream));
    s = sizeof(T) == 4
        ? gemm_cuda_sgemm_ex(layout, ta, tb, m, n, k, (float)alpha, (const float *)dA, lda, (const float *)dB, ldb,
                             (float)beta, (float *)dC, ldc, stream, &dev_opt)
        : gemm_cuda_dgemm_ex(layout, ta, tb, m, n, k, (double)alpha, (const double *)dA, lda, (const double *)dB, ldb,
                             (double)beta, (double *)dC, ldc, stream, &dev_opt);
    if (s != GEMM_OK) goto done;
    GEMM__CUDA_STEP(cudaEventRecord(ev1, stream));
    GEMM__CUDA_STEP(cudaEventSynchronize(ev1));
    GEMM__CUDA_STEP(cudaEventElapsedTime(&kernel_ms, ev0, ev1));
    timing.kernel_ms = kernel_ms;

    /* Out: only the m x n window of C, so its padding stays untouched. */
    t0 = gemm__cuda_now_ms();
    if (!mapped) {
        T *dst = staged ? hC : C;
        GEMM__CUDA_STEP(cudaMemcpy2DAsync(dst, (size_t)ldc * elem, dC, (size_t)ldc * elem, (size_t)c_inner * elem,
                                          (size_t)c_outer, cudaMemcpyDeviceToHost, stream));
        GEMM__CUDA_STEP(cudaStreamSynchronize(stream));
    }
    if (staged) gemm__cuda_copy_window(C, hC, c_outer, c_inner, ldc, elem);
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
    return gemm__cuda_host<float>("gemm_cuda_sgemm_host", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                  beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                          int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                          int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_host<double>("gemm_cuda_dgemm_host", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                   beta, C, ldc, options);
}

GEMM_DEF gemm_cuda_kernel gemm_cuda_auto_kernel(int precision_bits, int64_t m, int64_t n, int64_t k)
{
    int dev, major, minor;
    (void)m; (void)n; (void)k;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return GEMM_CUDA_KERNEL_AUTO;
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
    default: return "?";
    }
}

} /* extern "C" */

#endif /* GEMM_IMPLEMENTATION */
