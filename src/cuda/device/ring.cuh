/* The cp.async ring of the SIMT, DMMA and MMA kernels: each operand's K
   tiles go through STAGES slots of shared memory, and the copies of the
   next STAGES-1 tiles are in flight while one is multiplied. */
#pragma once
#include "common.cuh" /* cp.async, gemm__cuda_load_tile */

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
