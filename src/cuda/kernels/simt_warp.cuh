/* SIMT for fp32, warp-tiled (the shape of cuBLAS's SIMT kernels on Ampere
   and Hopper): each warp owns a 64 x WN tile of C (WN 64, or 32 for the
   128 x 64 and 64 x 128 blocks that fill the GPU at n near 1000), each of
   its 32 threads an 8 x WN/4 (LM = 8) or 16 x WN/8 (LM = 4) tile made of
   4 x 4 sub-tiles LM*4 rows and LN*4 columns apart (LN = 32/LM), so every
   shared-memory read is a 16-byte load touching LM (LN) distinct 16-byte
   words: one wavefront, 128 (64) FFMA per 6 (4) loads per k. Both operands
   are multiplied from [k][side] tiles: an M-(N-)major operand is copied
   there by cp.async (a ring of 3 or 4 K tiles of 16), a k-major one into a
   [side][16 + 4] staging ring and transposed, one K tile ahead, by the
   block itself into one of two [k][side] buffers (about 1% of the
   instructions). One barrier per K tile. No 128-register cap: 128-thread
   blocks run two per SM, 256-thread ones one. Operands must be 16-byte
   aligned (base and leading dimension); the host copies any other first. */
#pragma once
#include <stdint.h>
#include "../device/batch.cuh"
#include "../device/common.cuh" /* cp.async, gemm__cuda_store */
#include "../device/stream_k.cuh"

/* Copies a [ROWS][COLS] tile whose COLS are contiguous in global memory (row
   stride ld) into shared memory (row stride SLD) in 16-byte chunks; rows <
   rows_left and cols < cols_left are read. ROWS_K: the rows run along K
   (an M- or N-major operand), else the columns do (a k-major one). Past
   the edge of K the tile holds zeros (they must not add to the sums); past
   the edge of M or N (the tile's side) it holds zeros, the padding of a
   chunk that edge cuts, or with CLAMP anything, for those rows or columns
   of C are never stored: a chunk there is copied from the last chunk
   inside, so the blocks on C's edges keep the 16-byte copies. CLAMP is
   the 64 x 32-warp blocks', which run in one round of the SMs where the
   slowest block sets the time: on the H200 it took 1000^3 from 0.72-0.74
   of cuBLAS to 0.77-0.78, 1000 x 1000 x 1024 from 0.78-0.79 to 0.86-0.90
   and 1500^3 from 0.78-0.82 to 0.84-0.85; the large tiles ran 4000^3 at
   0.88 with it against 0.91-0.92 without, and keep the zeros. A thread's
   chunks are NT / (COLS/4) rows apart. */
template <int ROWS, int COLS, int SLD, int NT, bool ROWS_K, bool CLAMP>
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
        int cv = min(4, max(0, cols_left - c)), sc = c;
        if (CLAMP && ROWS_K && cv == 0 && cols_left > 0) { /* past the side: the last chunk inside */
            sc = (cols_left - 1) / 4 * 4;
            cv = cols_left - sc;
        }
#pragma unroll
        for (int i = 0; i < ITER; i++) {
            int row = r + i * RSTEP, sr = row;
            int valid = cv;
            if (row >= rows_left) {
                if (ROWS_K || !CLAMP) valid = 0; /* past K (or the side, without CLAMP): zeros */
                else sr = rows_left - 1;           /* past the side: its last row */
            }
            const float *src = X + (int64_t)sr * ld + sc;
            float *di = d + i * RSTEP * SLD;
            /* A chunk the side's edge cuts (ROWS_K) is read whole but in K's
               last row: ld is a whole number of chunks, so the rest of the
               chunk is the row's padding, inside the matrix's memory, and
               lands in columns of C that are never stored. By hand, its
               loads wait in line on every K step of the blocks on C's edge,
               and in one round of tiles the slowest block sets the time
               (H200, fp32 1001 x 999 x 1000: 0.47-0.51 of cuBLAS where
               1000^3 ran 0.76-0.85). */
            if (valid == 4 || (ROWS_K && valid > 0 && row < rows_left - 1)) gemm__cuda_cp_async<16>(di, src);
            else
#pragma unroll
                for (int e = 0; e < 4; e++) di[e] = e < valid ? src[e] : 0.0f;
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

/* A BM x BN block of 64 x WN_ warps; LM lanes along M. BK 16, 3 stages, 4
   for the 64 x 32 warps (their blocks run one to an SM, four warps: on the
   H200 at 1024^3 4 stages gave 0.86-0.96 of cuBLAS, 3 gave 0.84-0.92). */
template <int BM, int BN, int LM, int WN_ = 64> struct gemm__cuda_sw_shape {
    static constexpr int BK = 16, STAGES = WN_ == 32 ? 4 : 3, WM = 64, WN = WN_, WARPS_M = BM / WM, NT = 32 * (BM / WM) * (BN / WN),
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

/* Tile `pid` of C (blockIdx.x, or stream-K's unit): groups of 8
   tile-rows, N tiles fastest inside a group, so blocks resident together
   share panels of A and B in L2. */
__device__ __forceinline__ void gemm__cuda_sw_raster(int pid, int tm, int tn, int &bm, int &bn)
{
    int per_group = 8 * tn, first = (pid / per_group) * 8, size = min(tm - first, 8),
        r = pid % per_group;
    bm = first + r % size;
    bn = r / size;
}

/* BATCH: the launch is a batch (its members from bt, K not split); a
   single call runs the instance without, whose registers the batch's
   pointer arithmetic would otherwise reshuffle (it ran 5% slower in the
   256x128 configuration with it, at the same register count). SK: a
   single call's stream-K (device/stream_k.cuh; the host launches it on
   the 64 x 32-warp blocks, MINB a SM): each block walks its tiles
   and pieces of tiles, and the instance without keeps one tile a block. */
template <int BM, int BN, int LM, int WN, int MINB, bool AK, bool BKM, bool BATCH, bool SK>
__global__ void __launch_bounds__(gemm__cuda_sw_shape<BM, BN, LM, WN>::NT, MINB)
gemm__cuda_simt_warp_kernel(int M, int N, int K, int kchunk, float alpha, const float *A, int64_t lda, const float *B,
                            int64_t ldb, float beta, float *C, int64_t ldc, int atomic, gemm__cuda_batch bt,
                            gemm__cuda_stream_k<float> sk)
{
    typedef gemm__cuda_sw_shape<BM, BN, LM, WN> S;
    constexpr int NT = S::NT, BK = S::BK, STAGES = S::STAGES, TMV = S::TMV, TNV = S::TNV;
    constexpr bool TR = AK || BKM; /* some operand is transposed one K tile ahead */
    constexpr int RA = AK ? BM * (BK + 4) : BK * BM, RB = BKM ? BN * (BK + 4) : BK * BN; /* ring stage sizes */
    extern __shared__ __align__(16) unsigned char gemm__cuda_sw_dyn[];
    float *ringA = reinterpret_cast<float *>(gemm__cuda_sw_dyn), *ringB = ringA + STAGES * RA;
    float *TA = ringB + STAGES * RB, *TB = TA + (AK ? 2 * BK * BM : 0); /* transposed buffers [2][BK][side] */
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    int wm = (warp % S::WARPS_M) * S::WM + (lane % LM) * 4, wn = (warp / S::WARPS_M) * S::WN + (lane / LM) * 4;
    int part = (int)blockIdx.z;
    if constexpr (BATCH) {
        gemm__cuda_member_whole_k(bt, A, B, C);
        part = 0;
    }
    else (void)bt;
    const int tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN;
    /* Tile pid of C over K from kbeg to kend: whole, or a stream-K piece of `role`. */
    auto tile = [&](int pid, int kbeg, int kend, int role) {
        if constexpr (SK) __syncthreads(); /* every thread is done with the piece before's shared memory */
        else (void)role;
        int bm, bn;
        gemm__cuda_sw_raster(pid, tm, tn, bm, bn);
        int m0 = bm * BM, n0 = bn * BN;
        const int m_from = m0, n_from = n0; /* the rows and columns of C this block stores start here */
        if constexpr (WN == 32) {
            /* A tile that C's edge cuts moves back inside C, over rows (columns) its neighbour stores: its loads
               are then those of a whole tile, and it stores only from m_from (n_from). Rows move by a multiple of
               4, which keeps an M-major operand's 16-byte alignment and the stores' groups of 4 rows; columns
               too where op(B) is N-major. These blocks run in one round of the SMs, where the slowest one sets
               the time (H200, 1000^3: 0.79-0.82 of cuBLAS before, 0.86-0.90 after; 1024^3, the same 128 tiles
               whole, 0.93-1.03). */
            if (m0 + BM > M && M >= BM && (M - BM) % 4 == 0) m0 = M - BM;
            if (n0 + BN > N && N >= BN && (BKM || (N - BN) % 4 == 0)) n0 = N - BN;
        }
        int ktiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
        const float *Ap = AK ? A + (int64_t)m0 * lda + kbeg : A + m0 + (int64_t)kbeg * lda;
        const float *Bp = BKM ? B + (int64_t)n0 * ldb + kbeg : B + n0 + (int64_t)kbeg * ldb;
        int64_t astep = AK ? BK : (int64_t)BK * lda, bstep = BKM ? BK : (int64_t)BK * ldb;
        auto load = [&](int st, int kt) {
            int kleft = kend - kbeg - kt * BK;
            if (AK) gemm__cuda_sw_copy<BM, BK, BK + 4, NT, false, WN == 32>(ringA + st * RA, Ap + kt * astep, lda, M - m0, kleft);
            else gemm__cuda_sw_copy<BK, BM, BM, NT, true, WN == 32>(ringA + st * RA, Ap + kt * astep, lda, kleft, M - m0);
            if (BKM) gemm__cuda_sw_copy<BN, BK, BK + 4, NT, false, WN == 32>(ringB + st * RB, Bp + kt * bstep, ldb, N - n0, kleft);
            else gemm__cuda_sw_copy<BK, BN, BN, NT, true, WN == 32>(ringB + st * RB, Bp + kt * bstep, ldb, kleft, N - n0);
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
        if constexpr (SK) { /* a thread's sums in register order, i * TNV + j */
            auto &sums = reinterpret_cast<float(&)[TMV * TNV]>(acc);
            auto block = [] { __syncthreads(); };
            if (role == GEMM__CUDA_SK_TAIL) {
                gemm__cuda_sk_put<NT>(sums, sk, block);
                return;
            }
            if (role == GEMM__CUDA_SK_HEAD) gemm__cuda_sk_add<NT>(sums, sk, block);
        }

        bool vec = ((uintptr_t)C & 15) == 0 && (ldc & 3) == 0;
#pragma unroll
        for (int j = 0; j < TNV; j++) {
            int n = n0 + wn + S::n_of(j);
            if (n >= N || (WN == 32 && n < n_from)) continue; /* (the other blocks' code as it was) */
#pragma unroll
            for (int i = 0; i < S::TMS; i++) {
                int m = m0 + wm + S::m_of(4 * i);
                if (m < M && (WN != 32 || m >= m_from)) { /* m_from - m0: a whole number of these groups of 4 rows */
                    const float x[4] = {acc[4 * i][j], acc[4 * i + 1][j], acc[4 * i + 2][j], acc[4 * i + 3][j]};
                    gemm__cuda_sw_store4(&C[m + (int64_t)n * ldc], x, M - m, alpha, beta, atomic, vec);
                }
            }
        }
    };
    if constexpr (!SK) {
        tile((int)blockIdx.x, part * kchunk, min(K, part * kchunk + kchunk), GEMM__CUDA_SK_WHOLE);
    } else {
        for (int u = (int)blockIdx.x; u < sk.first; u += (int)gridDim.x) tile(u, 0, K, GEMM__CUDA_SK_WHOLE);
        gemm__cuda_sk_deal(sk.first, tm * tn, (K + BK - 1) / BK,
                           [&](int u, int s0, int s1, int role) { tile(u, BK * s0, min(K, BK * s1), role); });
    }
}
