/* MMA: TF32, FP16 and BF16 on the tensor cores through mma.sync (sm_80+),
   fp32 sums, over the cp.async ring: m16n8k16 for FP16 and BF16, m16n8k8
   for TF32 (plain fp32 data; the tensor cores ignore its 13 low mantissa
   bits). Block tiles of 128 x 128 (256 threads, 3 stages of K tiles of
   32), or of 64 x 64 for a batch's small members (128 threads; 2 stages
   for 16-bit inputs). op(B) is read k-major; op(A) k-major, or M-major in
   place (batches); the host copies any other operand first (copy.cuh).
   The fp32-accurate instance sums the three TF32 products over a K of
   three regions (split.cuh). K is never split. The kernel AUTO takes on
   sm_80 and later GPUs without WGMMA. */
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <type_traits>
#include "../device/batch.cuh"
#include "../device/common.cuh"
#include "../device/ring.cuh" /* the cp.async mainloop */

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
