/* WGMMA: TF32, FP16 and BF16 on Hopper's tensor cores (sm_90a), fp32 sums,
   and the fp32-accurate mode's three TF32 products. A persistent kernel:
   each block walks work units (a tile of C, or one K part of it) in a
   rasterised order; in each, the copy engine (TMA) fills a ring of
   shared-memory stages that wgmma reads through descriptors. One producer
   thread issues the copies, two consumer warpgroups the wgmma; the ring
   runs on across units, so the copies of a block's next tile are in
   flight while its consumers write the last one. Blocks walk the tiles of
   C in groups of 8 tile-rows, so that blocks running together share
   panels of A and B in L2. wgmma reads op(A) and op(B) k-major from
   16-byte aligned rows, and 16-bit operands MN-major as well (its
   transpose bits), so every aligned 16-bit layout is read in place; the
   host copies other operands first (copy.cuh). With K split, each part
   writes its fp32 sums to scratch and splitk.cuh adds them in a fixed
   order (no atomics: the same bits on every run). Built only for sm_90a:
   the host asks once per device whether this code was loaded
   (gemm__cuda_wgmma_built, a 4-byte synchronous copy). */
#pragma once
#include <cuda.h> /* CUtensorMap */
#include <stdint.h>
#include <type_traits>
#include "../device/common.cuh" /* gemm__cuda_store */
#include "../device/wgmma_ptx.cuh"
#include "splitk.cuh" /* gemm__cuda_splitk_put */

/* The WGMMA kernel's shape: a block computes BM (M) x BN (N) of C. Its
   consumer warpgroups (threads 0 .. 128*CONSUMERS-1) each hold one m64nBM
   accumulator: wgmma's M is our N (64 columns of C each), its N our M, so
   a thread's neighbouring accumulators are neighbouring rows of
   column-major C. After them the producer: one thread issues the copies
   of a 128-byte-wide K slice of both operands per stage. Three shapes:
   256 x 128 (large problems): one block per SM, the producer a whole
   warpgroup so that setmaxnreg can move its registers to the consumers
   (128 accumulators each, and in the fp32-accurate mode 64 more for its
   short sums). 128 x 128 (M of at most 128, and problems whose 256-row
   tiles would leave most SMs idle) and 128 x 64 (one consumer warpgroup:
   twice the tiles again, for thin and short products whose larger tiles
   are fewer than the SMs): the producer one warp, registers for two
   blocks per SM (64 accumulators fit without setmaxnreg).
   The ring's depth is the launch's (work.stages): as many stages as the
   shared memory of the blocks an SM runs holds (gemm__cuda_wgmma_depth):
   4 for 256 x 128; for the 128-row shapes 3 or 4 with two blocks on an
   SM, 6 or 8 when a launch has no more blocks than SMs (thin products:
   one block an SM has the whole of its shared memory to keep copies in
   flight).
   Three epilogues. The copy engine's (BM = 256 with beta == 0 and C's
   columns 16-byte aligned, or a split K's parts summed by the sum kernel
   with M a multiple of 4: the host's map of C or of the parts' sums) has
   each warp write its sums into shared memory, 2 KB at a time, and the
   copy engine store them while the warp goes on to its next tile, so that
   C's writes overlap the next K loop instead of idling the tensor cores.
   The staged one (elsewhere) passes each consumer warp's sums through a
   buffer per warp, EPI_M rows of its 16 columns at a time (EPI_LD floats
   per column: the float2 writes of a half-warp and the float4 reads of a
   quarter-warp land on 32 distinct banks for EPI_M = 32; 2-way conflicts
   for 16), so that a quarter-warp writes EPI_M contiguous elements of one
   column. The direct
   epilogue, kept for comparison (test hook), writes each thread's pairs of
   neighbouring rows straight from the registers (a warp's store covers 8
   columns x 2*sizeof(C)*4 bytes); measured on an H100 it was slower (up
   to 0.83 of the staged one) or no faster on every shape swept. */
template <int BM_, int BN_ = 128> struct gemm__cuda_wgmma_shape {
    static constexpr int BM = BM_, BN = BN_, CONSUMERS = BN / 64, ROW_BYTES = 128,
                         THREADS = 128 * CONSUMERS + (BM == 256 ? 128 : 32), BLOCKS_PER_SM = BM == 256 ? 1 : 2,
                         REGS_PRODUCER = 40, REGS_CONSUMER = 232, /* setmaxnreg, BM = 256 only */
                         /* registers per thread at launch: BLOCKS_PER_SM blocks fill the 64K (rounded down to 8) */
                         MAX_REGS = 65536 / (BLOCKS_PER_SM * THREADS) / 8 * 8,
                         ACC = BM / 2, /* accumulators per consumer thread */
                         A_BYTES = BM * ROW_BYTES, B_BYTES = BN * ROW_BYTES, STAGE_BYTES = A_BYTES + B_BYTES,
                         MAX_STAGES = 8, /* the barriers' room */
                         EPI_M = BM == 256 ? 32 : 16, EPI_LD = EPI_M + 8, EPI_BYTES = 4 * CONSUMERS * 16 * EPI_LD * 4,
                         /* the copy-engine epilogue (BM = 256): two boxes of 2 KB a consumer warp */
                         TMA_BOX_BYTES = 2048, TMA_EPI_BYTES = BM == 256 ? 4 * CONSUMERS * 2 * TMA_BOX_BYTES : 0,
                         EPI_REGION = EPI_BYTES > TMA_EPI_BYTES ? EPI_BYTES : TMA_EPI_BYTES,
                         /* all but the ring: the epilogue's buffers, a full and an empty barrier per stage, the
                            split-K flag, the ring's alignment */
                         OTHER_BYTES = EPI_REGION + 2 * MAX_STAGES * 8 + 16 + 1024,
                         MN_CHUNK_BYTES = 64 * 128; /* an MN-major 16-bit tile: 64 k rows of 64 elements */
    /* a block's shared memory with a ring of `stages` */
    static constexpr int smem(int stages) { return stages * STAGE_BYTES + OTHER_BYTES; }
    static_assert(BN == 64 || BN == 128, "one or two consumer warpgroups");
    static_assert(BM == 128 || BN == 128, "256-row tiles have two consumer warpgroups");
    static_assert(EPI_REGION % 1024 == 0, "the ring after the epilogue's buffers stays 1024-byte aligned");
    static_assert(2 * 128 * REGS_CONSUMER + 128 * REGS_PRODUCER <= 65536, "registers");
};

/* The kernel's register limit: MAX_REGS where nvcc takes it (12.4 on);
   older ones derive a limit from the blocks per SM, for 128-row tiles a
   lower one, which spills. */
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define GEMM__CUDA_WGMMA_BOUNDS(...) __launch_bounds__((__VA_ARGS__::THREADS)) __maxnreg__((__VA_ARGS__::MAX_REGS))
#else
#define GEMM__CUDA_WGMMA_BOUNDS(...) __launch_bounds__((__VA_ARGS__::THREADS), (__VA_ARGS__::BLOCKS_PER_SM))
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
   gemm__cuda_splitk_sum_kernel does after the kernel. `epilogue` 3: the
   copy engine's (above; the launch sets it only where it applies), 1: the
   staged one, 2: the direct one. */
typedef struct gemm__cuda_wgmma_work {
    int units, tiles, tm, tn, group; /* tm x tn tiles, `units` = tiles x K parts x members */
    int kt_total, kt_per;            /* k tiles in all, per part (the last part may have fewer) */
    int kt_seg;                      /* fp32-accurate: slices per segment; 0: not that mode */
    int epilogue;                    /* 3: the copy engine's; 1: staged through shared memory; 2: from the registers */
    int stages;                      /* the ring's depth (at most the shape's MAX_STAGES) */
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

/* The copy engine's epilogue of one consumer warp: its 16 columns of C
   (n0 ..) x S::BM rows (m0 ..) in boxes of 128 bytes of rows (64 rows of
   a 16-bit C, 32 of a 4-byte one, 128 of a byte) x 16 columns. Each box
   is written as value(d[i]) (the element of C the sum d[i] gives) into
   one of the warp's two buffers `bufs` (2 KB each, 1024-byte aligned) in
   the map's 128-byte swizzle (16-byte unit u of column n at unit u ^ n %
   8: a warp's writes of a pair of rows land on distinct banks), then lane
   0 has the copy engine store it (plane z of a 3-D map; z < 0: a 2-D
   map) and goes on. A buffer is written again two boxes later, once lane
   0 has seen its store read it (wait_group.read 1). Before the kernel
   ends lane 0 waits for its stores (gemm__cuda_wgmma_epilogue_tma_done).
   The copy engine clips a box at C's last column, but at its last row
   only in whole 16-byte units (measured on an H200: the rows up to the
   next 16 bytes were written), so the map ends at the last whole unit,
   M16 = M rounded down to 16 bytes of rows, and the warp writes the rows
   M16 .. M-1 itself; C is Cm, ldc apart. Shared by the int8 kernel. */
template <typename S, typename TC, typename V, typename F>
__device__ __forceinline__ void gemm__cuda_wgmma_epilogue_tma(const V (&d)[S::ACC], unsigned char *bufs,
                                                              const CUtensorMap *map_c, int M, int N, int m0, int n0,
                                                              int z, TC *Cm, int64_t ldc, F value)
{
    if constexpr (S::TMA_EPI_BYTES > 0) { /* 256-row tiles only (the buffers' shared memory); else never called */
        constexpr int E = (int)sizeof(TC), CH = 128 / E, BOXES = S::BM / CH, REGS = S::ACC / BOXES;
        static_assert(BOXES % 2 == 0 && CH * 16 * E == S::TMA_BOX_BYTES, "two buffers a warp, used in turn");
        struct alignas(2 * E) two { TC x[2]; };
        int lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
        for (int c = 0; c < BOXES; c++) {
            unsigned char *buf = bufs + (c % 2) * S::TMA_BOX_BYTES;
            if (lane == 0) gemm__cuda_bulk_wait<1, true>(); /* the store of two boxes back has read this buffer */
            __syncwarp();
#pragma unroll
            for (int j = 0; j < REGS; j += 2) {
                int i = c * REGS + j;
                int m = 8 * (i / 4) + 2 * t - c * CH, n = g + 8 * ((i % 4) / 2); /* within the box; m even */
                two o;
                o.x[0] = value(d[i]);
                o.x[1] = value(d[i + 1]);
                *reinterpret_cast<two *>(buf + n * 128 + (((m * E / 16) ^ (n % 8)) * 16) + m * E % 16) = o;
            }
            gemm__cuda_fence_proxy_async(); /* the writes, seen by the copy engine */
            __syncwarp();
            if (lane == 0) {
                gemm__cuda_tma_store_z(map_c, buf, m0 + c * CH, n0, z);
                gemm__cuda_bulk_commit();
            }
        }
        int m16 = M / (16 / E) * (16 / E);
        if (m16 < M && m0 + S::BM > m16 && m0 < M) /* the rows past the map's last whole unit */
#pragma unroll
            for (int i = 0; i < S::ACC; i++) {
                int m = m0 + 8 * (i / 4) + 2 * t + i % 2, n = n0 + g + 8 * ((i % 4) / 2);
                if (m >= m16 && m < M && n < N) Cm[m + (int64_t)n * ldc] = value(d[i]);
            }
    }
}

/* Lane 0 of each consumer warp, before the block ends: its stores done. */
__device__ __forceinline__ void gemm__cuda_wgmma_epilogue_tma_done(void)
{
    if (threadIdx.x % 32 == 0) gemm__cuda_bulk_wait<0, false>();
}

/* One unit of a split K, in the kernel: the warp writes its raw sums into
   partial[part] (M x N, column-major); once all the consumer threads have,
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
    gemm__cuda_bar_sync<128 * S::CONSUMERS>(1);
    if (threadIdx.x == 0) *last = atomicAdd(&w.counters[tile], 1) == split - 1;
    gemm__cuda_bar_sync<128 * S::CONSUMERS>(1);
    if (!*last) return;
    __threadfence(); /* the other parts' sums are seen after their counts */
    for (int col = 0; col < 16 && n0 + col < N; col++)
        for (int m = m0 + lane; m < m0 + S::BM && m < M; m += 32) {
            const float *p = partial + m + (int64_t)(n0 + col) * M;
            float sum = 0.0f;
            for (int z = 0; z < split; z++) sum += __ldcg(p + z * MN);
            gemm__cuda_splitk_put(C + m + (int64_t)(n0 + col) * ldc, sum, alpha, beta);
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

/* A place in the ring of `stages` stages: the stage, and how many times
   the ring has come round to it (its lap: the barriers' phase). */
struct gemm__cuda_ring_pos {
    int stage = 0, lap = 0;
    __device__ __forceinline__ void next(int stages)
    {
        if (++stage == stages) stage = 0, lap++;
    }
};

/* The block's shared memory: the epilogue buffers (from a 1024-byte
   boundary, where the 128-byte swizzle repeats), the ring of `stages`
   stages after them, then a full and an empty barrier per stage, which
   thread 0 initialises. Returns the start (the buffers); every thread
   has passed the initialisation. */
template <typename S>
__device__ __forceinline__ unsigned char *gemm__cuda_wgmma_ring(unsigned char *raw, int stages, uint64_t *&full,
                                                                uint64_t *&empty)
{
    unsigned char *smem = raw + ((1024 - gemm__cuda_smem_addr(raw) % 1024) % 1024);
    full = reinterpret_cast<uint64_t *>(smem + S::EPI_REGION + stages * S::STAGE_BYTES);
    empty = full + S::MAX_STAGES;
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; s++) {
            gemm__cuda_mbar_init(&full[s], 1);
            gemm__cuda_mbar_init(&empty[s], 4 * S::CONSUMERS); /* one arrival per consumer warp */
        }
        gemm__cuda_fence_mbar_init();
        gemm__cuda_fence_proxy_async();
    }
    __syncthreads();
    return smem;
}

/* The producer's thread: walks the block's units and, for each K slice,
   waits for the stage to be free, then has the copy engine fill it with
   the slices of both operands (completing on the stage's full barrier).
   Shared by the floating-point and the int8 kernels. */
template <typename S, typename T, bool A_MN, bool B_MN, bool ACCURATE>
__device__ __forceinline__ void gemm__cuda_wgmma_produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                         const gemm__cuda_wgmma_work &w, unsigned char *ring,
                                                         uint64_t *full, uint64_t *empty)
{
#if GEMM__CUDA_SM90A
    constexpr int BK = S::ROW_BYTES / (int)sizeof(T);
    int nonfinite = w.nonfinite ? *w.nonfinite : 0;
    gemm__cuda_ring_pos r;
    for (int u = (int)blockIdx.x; u < w.units; u += (int)gridDim.x) {
        int member, bm, bn, part, kt0, nkt;
        gemm__cuda_wgmma_unit(w, u, member, bm, bn, part, kt0, nkt);
        int za = w.a3 ? member : -1, zb = w.b3 ? member : -1;
        for (int kt = 0; kt < nkt; kt++, r.next(w.stages)) {
            int s = r.stage, ka, kb;
            if (r.lap > 0) gemm__cuda_mbar_wait(&empty[s], (unsigned)(r.lap - 1) & 1);
            unsigned char *stage = ring + s * S::STAGE_BYTES;
            gemm__cuda_wgmma_k(w, kt0 + kt, BK, nonfinite, ka, kb);
            gemm__cuda_mbar_expect(&full[s], S::STAGE_BYTES);
            if constexpr (ACCURATE) {
                gemm__cuda_tma_load3(stage, map_a, 0, bm * S::BM, ka, &full[s]);
                gemm__cuda_tma_load3(stage + S::A_BYTES, map_b, 0, bn * S::BN, kb, &full[s]);
                continue;
            }
            if (A_MN)
                for (int j = 0; j < S::BM / 64; j++)
                    gemm__cuda_tma_load_z(stage + j * S::MN_CHUNK_BYTES, map_a, bm * S::BM + 64 * j, ka, za,
                                          &full[s]);
            else
                gemm__cuda_tma_load_z(stage, map_a, ka, bm * S::BM, za, &full[s]);
            if (B_MN)
                for (int j = 0; j < S::BN / 64; j++)
                    gemm__cuda_tma_load_z(stage + S::A_BYTES + j * S::MN_CHUNK_BYTES, map_b,
                                          bn * S::BN + 64 * j, kb, zb, &full[s]);
            else
                gemm__cuda_tma_load_z(stage + S::A_BYTES, map_b, kb, bn * S::BN, zb, &full[s]);
        }
    }
#else
    (void)map_a; (void)map_b; (void)w; (void)ring; (void)full; (void)empty;
#endif
}

/* map_a: op(A) as a k-major M x K tensor (A_MN: as stored, M-major: a K x M
   tensor read in boxes of 64 rows of M); map_b: op(B)^T as a k-major N x K
   tensor (B_MN, 16-bit only: N-major, wgmma's transposed A). ACCURATE
   (fp32, BM = 256): both are 3-D maps of the split's slice planes, and the
   hi*hi segment's stages are summed in short runs (above). The blocks walk
   the units of `w`; a unit of a split K goes through `partial` (above). */
template <typename T, typename TC, bool A_MN, bool B_MN, int BM, int BN, bool ACCURATE>
__global__ void GEMM__CUDA_WGMMA_BOUNDS(gemm__cuda_wgmma_shape<BM, BN>)
gemm__cuda_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                        const __grid_constant__ CUtensorMap map_c, const gemm__cuda_wgmma_work w, int M, int N,
                        float alpha, float beta, TC *C, int64_t ldc, float *partial)
{
#if GEMM__CUDA_SM90A
    typedef gemm__cuda_wgmma_shape<BM, BN> S;
    static_assert(!ACCURATE || (BM == 256 && std::is_same<T, float>::value && !A_MN && !B_MN), "fp32-accurate");
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    uint64_t *full, *empty;
    unsigned char *smem = gemm__cuda_wgmma_ring<S>(gemm__cuda_smem, w.stages, full, empty),
                  *ring = smem + S::EPI_REGION;
    float *epi = reinterpret_cast<float *>(smem);
    int *last = reinterpret_cast<int *>(empty + S::MAX_STAGES);
    int wg = (int)threadIdx.x / 128, warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32; /* wg < CONSUMERS: consumers */

    if (wg == S::CONSUMERS) { /* producer: few registers, one thread */
        if constexpr (S::BM == 256) gemm__cuda_setmaxnreg_dec<S::REGS_PRODUCER>();
        if (threadIdx.x == 128 * S::CONSUMERS)
            gemm__cuda_wgmma_produce<S, T, A_MN, B_MN, ACCURATE>(&map_a, &map_b, w, ring, full, empty);
    } else { /* consumers */
        if constexpr (S::BM == 256) gemm__cuda_setmaxnreg_inc<S::REGS_CONSUMER>();
        float *buf = epi + warp * 16 * S::EPI_LD;
        unsigned char *tma_bufs = smem + warp * 2 * S::TMA_BOX_BYTES;
        gemm__cuda_ring_pos r;
        for (int u = (int)blockIdx.x; u < w.units; u += (int)gridDim.x) {
            int member, bm, bn, part, kt0, nkt, pending = -1; /* the stage whose wgmma may still run, not yet given back */
            gemm__cuda_wgmma_unit(w, u, member, bm, bn, part, kt0, nkt);
            float d[S::ACC];
#pragma unroll
            for (int i = 0; i < S::ACC; i++) d[i] = 0.0f;
            gemm__cuda_wgmma_fence_acc(d);
            /* the accurate mode's hi*hi stages (from k tile `promoted` of the unit on) come last */
            int promoted = ACCURATE ? min(nkt, max(0, 2 * w.kt_seg - kt0)) : nkt, kt = 0;
            for (; kt < promoted; kt++, r.next(w.stages)) {
                int s = r.stage;
                gemm__cuda_mbar_wait(&full[s], (unsigned)r.lap & 1);
                gemm__cuda_wgmma_stage<S, T, A_MN, B_MN>(d, ring + s * S::STAGE_BYTES, wg);
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
                for (; kt < nkt; kt++, r.next(w.stages)) { /* hi*hi: short sums, each stage done before the next */
                    int s = r.stage;
                    float sums[64];
                    gemm__cuda_mbar_wait(&full[s], (unsigned)r.lap & 1);
                    gemm__cuda_wgmma_stage_promoted<S>(d, sums, ring + s * S::STAGE_BYTES, wg);
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
                if (S::TMA_EPI_BYTES > 0 && w.epilogue == 3) /* map_c: the parts' sums, part z at plane z */
                    gemm__cuda_wgmma_epilogue_tma<S>(d, tma_bufs, &map_c, M, N, m0, n0, part, sums, (int64_t)M,
                                                     [](float v) { return v; });
                else if (w.epilogue == 1 || !gemm__cuda_wgmma_store<S>(d, M, N, m0, n0, 1.0f, 0.0f, sums, (int64_t)M))
                    gemm__cuda_wgmma_epilogue<S>(d, buf, M, N, m0, n0, 1.0f, 0.0f, sums, (int64_t)M);
            } else if (S::TMA_EPI_BYTES > 0 && w.epilogue == 3) {
                gemm__cuda_wgmma_epilogue_tma<S>(d, tma_bufs, &map_c, M, N, m0, n0, w.members > 1 ? member : -1, Cm,
                                                 ldc, [alpha](float v) { return TC(alpha * v); });
            } else if (w.epilogue == 1 || !gemm__cuda_wgmma_store<S>(d, M, N, m0, n0, alpha, beta, Cm, ldc)) {
                gemm__cuda_wgmma_epilogue<S>(d, buf, M, N, m0, n0, alpha, beta, Cm, ldc);
            }
        }
        if (w.epilogue == 3) gemm__cuda_wgmma_epilogue_tma_done();
    }
#else
    (void)map_a; (void)map_b; (void)map_c; (void)w; (void)M; (void)N; (void)alpha; (void)beta; (void)C; (void)ldc;
    (void)partial;
#endif
}
