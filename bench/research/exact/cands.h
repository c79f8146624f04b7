/* bench/research/exact/cands.h - the candidates the sweep runs, and how it
   launches them (host side). A candidate takes the canonical problem
   (common.cuh: rx::Prob) and launches one of its 8 instances (A k-major or
   not, B k-major or not, 16-byte copies or element copies). */
#ifndef RX_CANDS_H
#define RX_CANDS_H

#include "common.cuh"
#include <stdio.h>

namespace rx {

struct RunCtx {
    int sms;              /* multiprocessors of the device */
    cudaStream_t stream;
    int split_req;        /* 0: automatic (only when the tiles do not fill the SMs), 1: never, s: s parts */
    /* filled by the launch */
    int grid, split, block, smem, per_sm, regs, local_bytes;
};

typedef int (*run_f32_fn)(const Prob<float> &p, RunCtx &c);
typedef int (*run_f64_fn)(const Prob<double> &p, RunCtx &c);

struct Cand {
    const char *name;
    int bits; /* 32 or 64 */
    const char *what;
    run_f32_fn run32;
    run_f64_fn run64;
};

extern const Cand cands_f32[];
extern const int n_cands_f32;
extern const Cand cands_f64[];
extern const int n_cands_f64;

/* K parts: split_req if set; else, when tiles do not give every block slot
   (SMs x blocks per SM) work, as many as fill them, at least 4 K tiles per
   part. Returns kchunk (a multiple of BK); *split = parts actually used. */
inline int choose_kchunk(int K, int BK, int tiles, int slots, int split_req, int *split)
{
    int s = split_req > 0 ? split_req : (tiles < slots ? slots / tiles : 1);
    int most = (K + 4 * BK - 1) / (4 * BK);
    if (split_req <= 0 && s > most) s = most;
    if (s > 64) s = 64;
    if (s < 1) s = 1;
    int kchunk = ((K + s - 1) / s + BK - 1) / BK * BK;
    if (kchunk < BK) kchunk = BK;
    *split = (K + kchunk - 1) / kchunk;
    if (*split < 1) *split = 1;
    return kchunk;
}

/* Sets a kernel's shared-memory limit and carveout once, reads its
   occupancy, registers and local memory. */
struct KernelInfo {
    int ready, per_sm, regs, local_bytes;
};
inline int kernel_prepare(const void *k, int threads, int smem, KernelInfo &ki)
{
    if (ki.ready) return 0;
    cudaError_t e;
    if ((e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)) != cudaSuccess ||
        (e = cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared)) !=
            cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ki.per_sm, k, threads, smem)) != cudaSuccess) {
        fprintf(stderr, "kernel_prepare: %s\n", cudaGetErrorString(e));
        return -1;
    }
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, k) == cudaSuccess) {
        ki.regs = fa.numRegs;
        ki.local_bytes = (int)fa.localSizeBytes;
    }
    if (ki.per_sm < 1) {
        fprintf(stderr, "kernel_prepare: the kernel does not fit on an SM (%d threads, %d bytes)\n", threads, smem);
        return -1;
    }
    ki.ready = 1;
    return 0;
}

/* The common launch of a grid of (tiles, K parts) blocks: kernel argument
   list of the shipped kernels. */
template <typename T>
inline int launch_grid(const void *k, int threads, int smem, KernelInfo &ki, int BM, int BN, int BK, const Prob<T> &p,
                       RunCtx &c)
{
    if (kernel_prepare(k, threads, smem, ki)) return -1;
    int tm = (p.M + BM - 1) / BM, tn = (p.N + BN - 1) / BN, split;
    int kchunk = choose_kchunk(p.K, BK, tm * tn, c.sms * ki.per_sm, c.split_req, &split);
    int atomic = split > 1;
    if (split > 65535) return -1;
    if (atomic) {
        scale_kernel<T><<<1024, 256, 0, c.stream>>>(p.M, p.N, p.beta, p.C, p.ldc);
        if (cudaGetLastError() != cudaSuccess) return -1;
    }
    int M = p.M, N = p.N, K = p.K;
    T alpha = p.alpha, beta = p.beta;
    const T *A = p.A, *B = p.B;
    T *C = p.C;
    int64_t lda = p.lda, ldb = p.ldb, ldc = p.ldc;
    void *args[] = {&M, &N, &K, &kchunk, &alpha, (void *)&A, &lda, (void *)&B, &ldb, &beta, (void *)&C, &ldc, &atomic};
    c.grid = tm * tn;
    c.split = split;
    c.block = threads;
    c.smem = smem;
    c.per_sm = ki.per_sm;
    c.regs = ki.regs;
    c.local_bytes = ki.local_bytes;
    cudaError_t e = cudaLaunchKernel(k, dim3((unsigned)(tm * tn), (unsigned)split), dim3(threads), args, (size_t)smem,
                                     c.stream);
    if (e != cudaSuccess) {
        fprintf(stderr, "launch: %s\n", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* 16-byte copies need 16-byte aligned bases and leading dimensions. */
template <typename T> inline bool vec_ok(const Prob<T> &p)
{
    constexpr int V = 16 / (int)sizeof(T);
    return (uintptr_t)p.A % 16 == 0 && (uintptr_t)p.B % 16 == 0 && p.lda % V == 0 && p.ldb % V == 0;
}

} // namespace rx

#endif
