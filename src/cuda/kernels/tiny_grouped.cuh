/* A grouped call whose members are all small (m, n, k at most 64; the
   host's rule, host/grouped.cuh): one launch for every group. The host
   builds a table of the groups (sizes, scalars, leading dimensions,
   layout, where each group's pointer lists start, its first block) and
   uploads it with the lists in one copy. The work is TILE x TILE tiles of
   the members' C (one for a member the tile covers, up to four for a 64 x
   64 one), G to a block; a block finds its group by a binary search of
   the first blocks, then runs tiny.cuh's member code on each tile, so an
   element's sum is the tiny batch kernel's (one thread, k in order) and a
   tiny member's bits are what gemm_cuda_?gemm_batched gives it. A group's
   tiles start a block of their own: a block's tiles share K, so its
   barriers are the same for every thread. */
#pragma once
#include <stddef.h> /* NULL */
#include <stdint.h>
#include "tiny.cuh"

/* One group of the table (T: fp32 or fp64). a, b, c: where the lists of
   the group's members' addresses start in the launch's lists; ak, bk:
   op(A), op(B) k-major. */
template <typename T> struct gemm__cuda_tiny_group {
    int64_t a, b, c;
    int64_t lda, ldb, ldc;
    int64_t block0, count; /* the group's first block in the launch, its members */
    T alpha, beta;
    int m, n, k, ak, bk;
    int tiles_m, tiles; /* a member's tiles down its rows, and in all */
};

/* Blocks per SM for the grouped kernel's registers: the tiny kernel's,
   two fewer at 16 x 16, where the group lookup and the four layouts'
   code spilled at the tiny kernel's count and at one fewer (sm_90a,
   ptxas 13.0: fp32 3 blocks at 80 registers, fp64 2 at 120). */
template <typename T, int TILE> struct gemm__cuda_tiny_grouped_minb {
    static constexpr int value = gemm__cuda_tiny_shape<T, TILE>::MINB - (TILE == 16 ? 2 : 0);
};

/* The groups' tiles, G per block along blockIdx.x (groups: `count`
   entries in order of block0, the first at block 0; lists: the members'
   addresses the table's a, b and c index). */
template <typename T, int TILE>
__global__ void __launch_bounds__(256, (gemm__cuda_tiny_grouped_minb<T, TILE>::value))
gemm__cuda_tiny_grouped_kernel(const gemm__cuda_tiny_group<T> *groups, int count, const int64_t *lists)
{
    typedef gemm__cuda_tiny_shape<T, TILE> S;
    __shared__ T As[S::G][S::KC][S::LD], Bs[S::G][S::KC][S::LD];
    int64_t block = blockIdx.x;
    int lo = 0, hi = count - 1; /* the last group whose first block is at or before this one */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (groups[mid].block0 <= block) lo = mid;
        else hi = mid - 1;
    }
    const gemm__cuda_tiny_group<T> &gr = groups[lo];
    int64_t w = (block - gr.block0) * S::G + (int)threadIdx.x / S::TPM, i = w / gr.tiles; /* tile w: member i's */
    int tile = (int)(w % gr.tiles), r0 = tile % gr.tiles_m * TILE, c0 = tile / gr.tiles_m * TILE;
    bool live = i < gr.count;
    int M = min(TILE, gr.m - r0), N = min(TILE, gr.n - c0);
    const T *A = NULL, *B = NULL;
    T *C = NULL;
    if (live) { /* the tile's corner in each operand: op(A) rows r0.., op(B) columns c0.. */
        A = (const T *)(uintptr_t)lists[gr.a + i] + (gr.ak ? (int64_t)r0 * gr.lda : r0);
        B = (const T *)(uintptr_t)lists[gr.b + i] + (gr.bk ? (int64_t)c0 * gr.ldb : c0);
        C = (T *)(uintptr_t)lists[gr.c + i] + r0 + (int64_t)c0 * gr.ldc;
    }
    /* the group's layout is the block's: every thread takes one branch */
    if (gr.ak && gr.bk)
        gemm__cuda_tiny_member<T, TILE, true, true>(M, N, gr.k, gr.alpha, A, gr.lda, B, gr.ldb, gr.beta, C, gr.ldc,
                                                    live, As, Bs);
    else if (gr.ak)
        gemm__cuda_tiny_member<T, TILE, true, false>(M, N, gr.k, gr.alpha, A, gr.lda, B, gr.ldb, gr.beta, C, gr.ldc,
                                                     live, As, Bs);
    else if (gr.bk)
        gemm__cuda_tiny_member<T, TILE, false, true>(M, N, gr.k, gr.alpha, A, gr.lda, B, gr.ldb, gr.beta, C, gr.ldc,
                                                     live, As, Bs);
    else
        gemm__cuda_tiny_member<T, TILE, false, false>(M, N, gr.k, gr.alpha, A, gr.lda, B, gr.ldb, gr.beta, C, gr.ldc,
                                                      live, As, Bs);
}
