/* The int8 WGMMA kernel: s8 x s8 products with exact int32 sums on
   Hopper's tensor cores (sm_90a). It shares the floating-point kernel's
   ring of TMA-filled stages, its producer and its walk over units
   (wgmma.cuh); its consumers keep int32 accumulators and write one of two
   things:
     int32 C = x*sum + y*C (gemm_cuda_s8gemm; y == 0 never reads C), or
     uint8 C = (sum + (y ? C : 0)) mod x, in [0, x): the residue of the
       product modulo a small modulus, the emulated fp64 and fp32 modes'
       int8 products (ozaki.cuh); y adds the residue of an earlier part
       of K, so that a long K runs in parts whose sums fit int32.
   wgmma reads 8-bit operands only k-major: op(A) as M x K rows, op(B)^T as
   N x K rows, each 16-byte aligned (the host copies other layouts first).
   K is not split over blocks. */
#pragma once
#include <stdint.h>
#include <type_traits>
#include "../device/ozaki_math.cuh" /* gemm__ozaki_divisor, gemm__ozaki_mod */
#include "../device/wgmma_ptx.cuh"
#include "wgmma.cuh" /* gemm__cuda_wgmma_shape, _work, _unit, _ring, _produce */

/* One element of the int8 kernel's output (above); dx: x as a divisor
   (the uint8 output's). */
__device__ __forceinline__ void gemm__cuda_s8_put(int32_t *c, int sum, int x, int y, const gemm__ozaki_divisor &)
{
    *c = y == 0 ? x * sum : x * sum + y * *c;
}
__device__ __forceinline__ void gemm__cuda_s8_put(uint8_t *c, int sum, int, int y, const gemm__ozaki_divisor &dx)
{
    *c = (uint8_t)gemm__ozaki_mod(y ? sum + (int)*c : sum, dx);
}

/* Four consecutive rows of one column of C (vec: one aligned 4-element
   access, when all four rows exist), element by element up to `left`
   rows otherwise. */
template <typename TC>
__device__ __forceinline__ void gemm__cuda_s8_put4(TC *c, int4 v, int left, int x, int y, const gemm__ozaki_divisor &dx,
                                                   bool vec)
{
    struct alignas(4 * sizeof(TC)) four { TC e[4]; };
    const int s[4] = {v.x, v.y, v.z, v.w};
    if (vec && left >= 4) {
        four o;
        if (y != 0) o = *reinterpret_cast<const four *>(c);
#pragma unroll
        for (int i = 0; i < 4; i++) gemm__cuda_s8_put(&o.e[i], s[i], x, y, dx);
        *reinterpret_cast<four *>(c) = o;
    } else {
        for (int i = 0; i < 4 && i < left; i++) gemm__cuda_s8_put(c + i, s[i], x, y, dx);
    }
}

/* One consumer warp's sums to C (its 16 columns n0.. x S::BM rows m0..;
   register i of lane 4g + t holds row m0 + 8*(i/4) + 2t + i%2 of column
   n0 + g + 8*((i%4)/2), as in wgmma.cuh), staged through the warp's
   buffer as the floating-point epilogue is: EPI_M rows at a time, so that
   a quarter-warp writes EPI_M contiguous elements of one column;
   elements outside M x N left. */
template <typename S, typename TC>
__device__ __forceinline__ void gemm__cuda_wgmma_s8_store(const int (&d)[S::ACC], int *buf, int M, int N, int m0,
                                                          int n0, int x, int y, TC *C, int64_t ldc)
{
    constexpr int REGS = S::EPI_M / 2, LANES_PER_COL = S::EPI_M / 4, COLS_PER_PASS = 32 / LANES_PER_COL;
    int lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    bool vec = (uintptr_t)C % (4 * sizeof(TC)) == 0 && ldc % 4 == 0;
    gemm__ozaki_divisor dx = gemm__ozaki_divisor_of(std::is_same<TC, uint8_t>::value ? x : 1); /* once a tile */
#pragma unroll
    for (int c = 0; c < S::BM / S::EPI_M; c++) {
#pragma unroll
        for (int j = 0; j < REGS; j += 2) {
            int i = c * REGS + j;
            *reinterpret_cast<int2 *>(&buf[(g + 8 * ((i % 4) / 2)) * S::EPI_LD + 8 * (j / 4) + 2 * t]) =
                make_int2(d[i], d[i + 1]);
        }
        __syncwarp();
        for (int col = lane / LANES_PER_COL; col < 16; col += COLS_PER_PASS) {
            int ml = lane % LANES_PER_COL * 4, m = m0 + c * S::EPI_M + ml, n = n0 + col;
            if (n < N && m < M)
                gemm__cuda_s8_put4(&C[m + (int64_t)n * ldc], *reinterpret_cast<const int4 *>(&buf[col * S::EPI_LD + ml]),
                                   M - m, x, y, dx, vec);
        }
        __syncwarp();
    }
}

/* One stage: D += this stage's 128 bytes of K, four wgmma of K = 32.
   wgmma's A: this warpgroup's 64 rows of op(B)^T; its B: all BM rows of
   op(A). */
template <typename S> __device__ __forceinline__ void gemm__cuda_wgmma_s8_stage(int (&d)[S::ACC], const unsigned char *stage, int wg)
{
    uint64_t da = gemm__cuda_wgmma_desc(stage + S::A_BYTES + wg * 64 * S::ROW_BYTES), db = gemm__cuda_wgmma_desc(stage);
    gemm__cuda_wgmma_arrive();
#pragma unroll
    for (int q = 0; q < 4; q++) { /* 32 bytes of K: 2 steps of the descriptors' 16-byte units */
        if constexpr (S::BM == 256) gemm__cuda_wgmma_m64n256_s8(d, da + (uint64_t)(2 * q), db + (uint64_t)(2 * q));
        else gemm__cuda_wgmma_m64n128_s8(d, da + (uint64_t)(2 * q), db + (uint64_t)(2 * q));
    }
    gemm__cuda_wgmma_commit();
}

/* map_a: op(A) as a k-major M x K int8 tensor, map_b: op(B)^T as N x K;
   the blocks walk the units of `w` (K not split); C column-major. With
   w.epilogue == 3 (y == 0, 256-row tiles, the host's map_c of C) the copy
   engine writes C (wgmma.cuh's gemm__cuda_wgmma_epilogue_tma), else the
   staged epilogue above. */
template <typename TC, int BM>
__global__ void GEMM__CUDA_WGMMA_BOUNDS(gemm__cuda_wgmma_shape<BM>)
gemm__cuda_wgmma_s8_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                           const __grid_constant__ CUtensorMap map_c, const gemm__cuda_wgmma_work w, int M, int N,
                           int x, int y, TC *C, int64_t ldc)
{
#if GEMM__CUDA_SM90A
    typedef gemm__cuda_wgmma_shape<BM> S;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    uint64_t *full, *empty;
    unsigned char *smem = gemm__cuda_wgmma_ring<S>(gemm__cuda_smem, w.stages, full, empty),
                  *ring = smem + S::EPI_REGION;
    int *epi = reinterpret_cast<int *>(smem);
    int wg = (int)threadIdx.x / 128, warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32; /* wg 0, 1: consumers */
    if (wg == 2) { /* producer */
        if constexpr (S::BM == 256) gemm__cuda_setmaxnreg_dec<S::REGS_PRODUCER>();
        if (threadIdx.x == 256)
            gemm__cuda_wgmma_produce<S, int8_t, false, false, false>(&map_a, &map_b, w, ring, full, empty);
        return;
    }
    if constexpr (S::BM == 256) gemm__cuda_setmaxnreg_inc<S::REGS_CONSUMER>();
    gemm__cuda_ring_pos r;
    for (int u = (int)blockIdx.x; u < w.units; u += (int)gridDim.x) {
        int member, bm, bn, part, kt0, nkt, pending = -1; /* the stage whose wgmma may still run, not yet given back */
        gemm__cuda_wgmma_unit(w, u, member, bm, bn, part, kt0, nkt);
        int d[S::ACC];
#pragma unroll
        for (int i = 0; i < S::ACC; i++) d[i] = 0;
        gemm__cuda_wgmma_fence_acc(d);
        for (int kt = 0; kt < nkt; kt++, r.next(w.stages)) {
            int s = r.stage;
            gemm__cuda_mbar_wait(&full[s], (unsigned)r.lap & 1);
            gemm__cuda_wgmma_s8_stage<S>(d, ring + s * S::STAGE_BYTES, wg);
            gemm__cuda_wgmma_wait<1>(); /* the previous stage's group is done */
            gemm__cuda_wgmma_fence_acc(d);
            if (pending >= 0 && lane == 0) gemm__cuda_mbar_arrive(&empty[pending]);
            pending = s;
            __syncwarp();
        }
        gemm__cuda_wgmma_wait<0>();
        gemm__cuda_wgmma_fence_acc(d);
        if (pending >= 0 && lane == 0) gemm__cuda_mbar_arrive(&empty[pending]);
        __syncwarp();
        int m0 = bm * S::BM, n0 = bn * S::BN + wg * 64 + (warp % 4) * 16;
        if (w.epilogue == 3) {
            gemm__ozaki_divisor dx = gemm__ozaki_divisor_of(std::is_same<TC, uint8_t>::value ? x : 1);
            gemm__cuda_wgmma_epilogue_tma<S>(d, reinterpret_cast<unsigned char *>(epi) + warp * 2 * S::TMA_BOX_BYTES,
                                             &map_c, M, N, m0, n0, -1, C, ldc, [x, dx](int v) {
                                                 TC o;
                                                 gemm__cuda_s8_put(&o, v, x, 0, dx);
                                                 return o;
                                             });
        } else {
            gemm__cuda_wgmma_s8_store<S>(d, epi + warp * 16 * S::EPI_LD, M, N, m0, n0, x, y, C + member * w.stride_c,
                                         ldc);
        }
    }
    if (w.epilogue == 3) gemm__cuda_wgmma_epilogue_tma_done();
#else
    (void)map_a; (void)map_b; (void)map_c; (void)w; (void)M; (void)N; (void)x; (void)y; (void)C; (void)ldc;
#endif
}
