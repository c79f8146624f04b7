/* Device helpers every fast kernel shares: the cp.async wrappers (global to
   shared memory without a register round trip, sm_80+), the bounds-checked
   tile copy built on them, and the one-element epilogue. */
#pragma once
#include <type_traits>

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
