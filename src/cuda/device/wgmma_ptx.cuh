/* The Hopper instructions of the WGMMA kernel, each behind a small named
   wrapper: mbarriers, the copy engine (TMA), wgmma and its fences, register
   reallocation and named barriers. They exist only in a build for sm_90a
   (-gencode arch=compute_90a,code=sm_90a); in any other build the kernel
   body is empty and gemm__cuda_wgmma_built says so. */
#pragma once
#include <cuda.h> /* CUtensorMap (types only: the driver is reached through the runtime) */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <type_traits>

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

/* The copy engine the other way: one box of shared memory into a 2-D map
   (z < 0; x: the row of C, y: its column) or plane z of a 3-D one, as
   part of this thread's current bulk group. Past the tensor's edges
   nothing is written, but along its innermost dimension only in whole
   16-byte units (an H200 wrote the rest of the unit that holds the last
   element: callers end their maps at a whole unit). The writers of the
   box make their stores visible to the copy engine first
   (gemm__cuda_fence_proxy_async). */
__device__ __forceinline__ void gemm__cuda_tma_store_z(const CUtensorMap *map, const void *src, int x, int y, int z)
{
#if GEMM__CUDA_SM90A
    if (z < 0)
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n"
                     ::"l"((uint64_t)map), "r"(x), "r"(y), "r"(gemm__cuda_smem_addr(src))
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n"
                     ::"l"((uint64_t)map), "r"(x), "r"(y), "r"(z), "r"(gemm__cuda_smem_addr(src))
                     : "memory");
#else
    (void)map; (void)src; (void)x; (void)y; (void)z;
#endif
}

/* Closes this thread's bulk group of stores. */
__device__ __forceinline__ void gemm__cuda_bulk_commit(void)
{
#if GEMM__CUDA_SM90A
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

/* Waits until at most N of this thread's bulk groups still read their
   shared memory (READ), or are still running at all (their writes done). */
template <int N, bool READ> __device__ __forceinline__ void gemm__cuda_bulk_wait(void)
{
#if GEMM__CUDA_SM90A
    if constexpr (READ) asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
    else asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
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

/* The same for int32 accumulators (the int8 kernel). */
template <int N> __device__ __forceinline__ void gemm__cuda_wgmma_fence_acc(int (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++) asm volatile("" : "+r"(d[i])::"memory");
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
/* int8: D(64x256 or 64x128, int32) += A(64x32) * B(32xWN), s8 x s8, both
   k-major (wgmma has no transpose for 8-bit types); the sums are exact
   (wrapping only past 2^31, which the callers' K keeps them from). The
   registers hold D as in the 16-bit forms. */
#define GEMM__WG_I8(i) "+r"(d[i]), "+r"(d[i + 1]), "+r"(d[i + 2]), "+r"(d[i + 3]), "+r"(d[i + 4]), "+r"(d[i + 5]), \
                       "+r"(d[i + 6]), "+r"(d[i + 7])
#define GEMM__WG_I32(i) GEMM__WG_I8(i), GEMM__WG_I8(i + 8), GEMM__WG_I8(i + 16), GEMM__WG_I8(i + 24)
__device__ __forceinline__ void gemm__cuda_wgmma_m64n256_s8(int (&d)[128], uint64_t da, uint64_t db)
{
#if GEMM__CUDA_SM90A
    asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {" GEMM__WG_R0_63 ", "
                 GEMM__WG_R64_127 "}, %128, %129, p;\n}\n"
                 : GEMM__WG_I32(0), GEMM__WG_I32(32), GEMM__WG_I32(64), GEMM__WG_I32(96)
                 : "l"(da), "l"(db));
#else
    (void)d; (void)da; (void)db;
#endif
}
__device__ __forceinline__ void gemm__cuda_wgmma_m64n128_s8(int (&d)[64], uint64_t da, uint64_t db)
{
#if GEMM__CUDA_SM90A
    asm volatile(GEMM__WG_PRED "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {" GEMM__WG_R0_63
                 "}, %64, %65, p;\n}\n"
                 : GEMM__WG_I32(0), GEMM__WG_I32(32)
                 : "l"(da), "l"(db));
#else
    (void)d; (void)da; (void)db;
#endif
}
#undef GEMM__WG_I8
#undef GEMM__WG_I32
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
