/* bench/research/exact/common.cuh - what the research kernels share: the
   canonical problem, cp.async with zero fill, mbarriers and the bulk tensor
   copy (TMA), the block order, the epilogue's element stores.

   The canonical problem is gemm_cuda.cuh's: C column-major M x N (element
   (i, j) at C[i + j*ldc]), op(A) M x K, op(B) K x N; AK / BKM: op(A) / op(B)
   is k-major (its K index contiguous). Every kernel here takes
       (int M, int N, int K, int kchunk, T alpha, const T *A, int64_t lda,
        const T *B, int64_t ldb, T beta, T *C, int64_t ldc, int atomic)
   as the shipped ones (the TMA kernels take two tensor maps and the grid's
   tile counts in front), K is split over blockIdx.z (or the persistent
   kernels' work units) in parts of kchunk, a multiple of the kernel's BK,
   and with atomic != 0 each part adds alpha*sum into C already scaled by beta.

   Research code: not part of the library, built only by
   `make bench-cuda-research-exact` (sm_90a). */
#ifndef RX_COMMON_CUH
#define RX_COMMON_CUH

#include <cuda.h> /* CUtensorMap */
#include <cuda_runtime.h>
#include <stdint.h>
#include <type_traits>

#define RX_HD __host__ __device__ __forceinline__
/* #pragma unroll in host-and-device code: the host compiler does not know it */
#ifdef __CUDA_ARCH__
#define RX_UNROLL(n) _Pragma(#n)
#else
#define RX_UNROLL(n)
#endif

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define RX_SM90A 1
#else
#define RX_SM90A 0
#endif

namespace rx {

/* ---- host-visible problem description (canonical, see above) ---- */
template <typename T> struct Prob {
    int M, N, K;
    T alpha, beta;
    const T *A, *B;
    T *C;
    int64_t lda, ldb, ldc;
    bool ak, bk; /* op(A) / op(B) k-major */
};

/* ---- cp.async ---- */

/* cp.async of BYTES (4, 8 or 16) bytes of which the first src_bytes are read
   from global memory and the rest of the BYTES become zero (src_bytes 0:
   nothing is read, `g` must still be a valid address). */
template <int BYTES> __device__ __forceinline__ void cp_async(void *s, const void *g, int src_bytes)
{
    unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    if constexpr (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sa), "l"(g), "r"(src_bytes) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(sa), "l"(g), "n"(BYTES), "r"(src_bytes)
                     : "memory");
}
/* the same without zero fill: all BYTES are read */
template <int BYTES> __device__ __forceinline__ void cp_async_full(void *s, const void *g)
{
    unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    if constexpr (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(g) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(sa), "l"(g), "n"(BYTES) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

/* ---- mbarriers ---- */
__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t *b, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_fence_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *b, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *b)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(b)) : "memory");
}
/* the barrier completes (for this phase) once every cp.async this thread issued before has landed */
__device__ __forceinline__ void mbar_cp_async_arrive(uint64_t *b)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *b, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(smem_u32(b)), "r"(parity)
                     : "memory");
    } while (!done);
}

/* One box of a 2-D tensor map into shared memory (x: the contiguous index),
   completing on `bar`; out-of-range elements arrive as zeros. */
__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar)
{
#if RX_SM90A
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(smem_u32(dst)), "l"((uint64_t)map), "r"(x), "r"(y), "r"(smem_u32(bar))
                 : "memory");
#else
    (void)dst; (void)map; (void)x; (void)y; (void)bar;
#endif
}

template <int N> __device__ __forceinline__ void setmaxnreg_inc()
{
#if RX_SM90A
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N> __device__ __forceinline__ void setmaxnreg_dec()
{
#if RX_SM90A
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}

/* ---- block order ---- */

/* Tile `pid` of a tm x tn grid of C tiles -> (bm, bn). GROUP = 0: M tiles
   fastest (blockIdx order); GROUP = G: groups of G tile-rows, N fastest
   inside a group, so blocks resident together share panels of A and B in L2. */
template <int GROUP> RX_HD void raster(int pid, int tm, int tn, int &bm, int &bn)
{
    if (GROUP <= 0) {
        bm = pid % tm;
        bn = pid / tm;
    } else {
        int per_group = GROUP * tn, first = (pid / per_group) * GROUP, size = tm - first < GROUP ? tm - first : GROUP,
            r = pid % per_group;
        bm = first + r % size;
        bn = r / size;
    }
}

/* ---- epilogue stores ---- */

/* C = alpha*acc + beta*C, never reading C when beta == 0; with `atomic`,
   C += alpha*acc (C was scaled by beta before the launch). */
template <typename T> __device__ __forceinline__ void store1(T *c, T acc, T alpha, T beta, int atomic)
{
    if (atomic) atomicAdd(c, alpha * acc);
    else if (beta == T(0)) *c = alpha * acc;
    else *c = alpha * acc + beta * *c;
}

/* Two consecutive rows of one column of C (c 16-byte aligned when vec). */
__device__ __forceinline__ void store2(double *c, double x0, double x1, int rows_left, double alpha, double beta,
                                       int atomic, bool vec)
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
        if (rows_left >= 1) store1(c, x0, alpha, beta, atomic);
        if (rows_left >= 2) store1(c + 1, x1, alpha, beta, atomic);
    }
}

/* Four consecutive rows of one column of C (c 16-byte aligned when vec). */
__device__ __forceinline__ void store4(float *c, const float (&x)[4], int rows_left, float alpha, float beta,
                                       int atomic, bool vec)
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
            if (e < rows_left) store1(c + e, x[e], alpha, beta, atomic);
    }
}

/* C = beta*C before a split-K launch (beta == 0: zeros, C never read). */
template <typename T> __global__ void scale_kernel(int M, int N, T beta, T *C, int64_t ldc)
{
    int64_t total = (int64_t)M * N;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        T *c = &C[e % M + (e / M) * ldc];
        *c = beta == T(0) ? T(0) : beta * *c;
    }
}

} // namespace rx

#endif
