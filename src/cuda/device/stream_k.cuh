/* Stream-K (arXiv 2301.03598), as the persistent kernels run it: a single
   call, K whole, whose tiles leave the grid's last round partly idle. The
   units (tiles of C) before `first` run whole, round robin; the K steps of
   the tiles from `first` on, tile after tile, are dealt out in equal runs,
   one a block. The host leaves at least as many such tiles as blocks, so
   each run covers a whole tile's worth of steps or more: a block begins
   with the end of a tile that the block before it began (a TAIL: its sums
   go to partial[block], then flags[block] = 1), may run whole tiles, and
   ends with the beginning of a tile (a HEAD: it waits for flags[block + 1]
   and adds that block's partial to its own sums before it writes C). The
   wait is a block's last piece and the TAIL the first piece of the run, so
   no block waits on one that waits: every order of the blocks on the SMs
   finishes. The sums of a shared tile go in one order (the HEAD's K steps,
   then the TAIL's), the same bits on every run on the same GPU. Used by the
   TMA DMMA kernel (fp64, dmma_tma.cuh; on one block a SM at most: at two
   the H200 gave other sums on every run, a cause not found) and the
   warp-tiled SIMT kernel (fp32, simt_warp.cuh); the host side is
   exact_run.cuh's. */
#pragma once
#include <stdint.h>

/* The schedule a stream-K launch reads. first = the units: none dealt out. */
template <typename T> struct gemm__cuda_stream_k {
    int first;
    T *partial;      /* a tile's sums per block, in the threads' register order */
    unsigned *flags; /* per block, zero before the launch */
};
enum { GEMM__CUDA_SK_WHOLE, GEMM__CUDA_SK_HEAD, GEMM__CUDA_SK_TAIL };

/* The dealt-out part of this block's walk: units first..total-1 of `steps`
   K steps each; f(unit, first step, end step, role) for each piece, in
   order. */
template <typename F> __device__ __forceinline__ void gemm__cuda_sk_deal(int first, int total, int steps, F &&f)
{
    int64_t all = (int64_t)(total - first) * steps, pos = all * blockIdx.x / gridDim.x,
            end = all * (blockIdx.x + 1) / gridDim.x;
    while (pos < end) {
        int u = first + (int)(pos / steps), s0 = (int)(pos % steps);
        int s1 = end - pos < (int64_t)(steps - s0) ? s0 + (int)(end - pos) : steps;
        f(u, s0, s1, (int)(s0 > 0 ? GEMM__CUDA_SK_TAIL : s1 < steps ? GEMM__CUDA_SK_HEAD : GEMM__CUDA_SK_WHOLE));
        pos += s1 - s0;
    }
}

/* A TAIL: the N sums of each of the THREADS threads that hold the tile
   (threadIdx.x < THREADS), THREADS apart (every store a coalesced row),
   then the block's flag once every thread's stores are out; `sync` is a
   barrier of those threads. The flag's thread fences after the barrier
   too (a release of every thread's stores, which the barrier ordered
   before it), and the waiting thread before it (an acquire for the
   block), the pattern of PTX's memory model. */
template <int THREADS, int N, typename T, typename Sync>
__device__ __forceinline__ void gemm__cuda_sk_put(const T (&sums)[N], const gemm__cuda_stream_k<T> &sk, Sync &&sync)
{
    T *mine = sk.partial + (int64_t)blockIdx.x * (N * THREADS) + threadIdx.x;
#pragma unroll
    for (int i = 0; i < N; i++) __stcg(mine + i * THREADS, sums[i]);
    __threadfence();
    sync();
    if (threadIdx.x == 0) { /* a release by the flag's thread, after the barrier: every thread's sums before the flag */
        __threadfence();
        atomicExch(&sk.flags[blockIdx.x], 1u);
    }
}

/* A HEAD: one thread waits for the next block's flag, then each thread
   adds that block's sums of the tile (its TAIL) to its own, in the same
   order. */
template <int THREADS, int N, typename T, typename Sync>
__device__ __forceinline__ void gemm__cuda_sk_add(T (&sums)[N], const gemm__cuda_stream_k<T> &sk, Sync &&sync)
{
    if (threadIdx.x == 0) { /* an acquire by the flag's thread, before the barrier */
        while (atomicAdd(&sk.flags[blockIdx.x + 1], 0u) == 0) __nanosleep(64);
        __threadfence();
    }
    __syncwarp(); /* warp 0 whole again: bar.sync (barrier.sync.aligned) wants converged warps */
    sync();
    __threadfence();
    const T *next = sk.partial + (int64_t)(blockIdx.x + 1) * (N * THREADS) + threadIdx.x;
#pragma unroll
    for (int i = 0; i < N; i++) sums[i] += __ldcg(next + i * THREADS);
}
