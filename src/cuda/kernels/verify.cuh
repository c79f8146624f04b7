/* The verified products' sums (core/verify.h) on the device, in fp64: one
   pass over a matrix X of rows x cols whose columns are contiguous
   (element (r, c) at x[r + c*ld]) gives both its column sums and its row
   sums, weighted and over absolute values:
     ws[col + c]  += fcol * sum_r X(r,c) * ws[wr + r]
     ws[cola + c] += |fcol| * sum_r |X(r,c)| * ws[wra + r]
     ws[row + r]  += frow * sum_c X(r,c) * ws[wc + c]
     ws[rowa + r] += |frow| * sum_c |X(r,c)| * ws[wca + c]
   a weight of 1 where its offset is negative, an output skipped where its
   offset is. A block takes a tile of 256 rows and walks column strips of
   32 (gridDim.y of them at a time); each warp reads a column's 256 rows as
   8 coalesced runs of 32, sums them for the column (a warp shuffle, then
   one atomic add), and keeps the 8 rows' sums in registers over its
   columns; the block adds its warps' row sums in shared memory and each
   row gets one atomic add per block. The order of the sums differs from
   launch to launch by rounding only: the bound allows for it. */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "../../core/verify.h" /* gemm__verify_worst */

template <typename T> __device__ __forceinline__ double gemm__cuda_vload(const T *p) { return (double)*p; }
template <> __device__ __forceinline__ double gemm__cuda_vload<__half>(const __half *p)
{
    return (double)__half2float(*p);
}
template <> __device__ __forceinline__ double gemm__cuda_vload<__nv_bfloat16>(const __nv_bfloat16 *p)
{
    return (double)__bfloat162float(*p);
}

#define GEMM__CUDA_VERIFY_ROWS 256 /* a block's rows: 8 of 32 for each lane */
#define GEMM__CUDA_VERIFY_COLS 32  /* a strip's columns: 4 for each of the 8 warps */

/* The offsets of one pass's weights and outputs in ws (negative: none). */
struct gemm__cuda_verify_io {
    int64_t wr, wra, wc, wca, col, cola, row, rowa;
    double fcol, frow;
};

/* The kernel for one pass's shape of work (gemm__cuda_verify_pass picks
   it from the io): COLS, ROWS: whether it sums columns, rows; ABS: the
   sums of absolute values too; ROW_WEIGHTS: rows weighted by ws[wr + r]
   (else 1). A pass pays in registers only for what it sums: the weights
   and the rows' sums are 8 doubles each a lane, and with all of them
   (112 registers) two blocks fit an SM, a quarter of its warps (ncu,
   H100: DRAM 37-44% busy at n = 8192). */
template <typename T, bool COLS, bool ROWS, bool ABS, bool ROW_WEIGHTS>
__global__ void __launch_bounds__(256) gemm__cuda_verify_tile(const T *x, int rows, int cols, int64_t ld, double *ws,
                                                              gemm__cuda_verify_io io)
{
    __shared__ double part[ABS ? 2 : 1][8][ROWS ? GEMM__CUDA_VERIFY_ROWS : 1];
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    const int r0 = (int)blockIdx.x * GEMM__CUDA_VERIFY_ROWS, strips = (cols + GEMM__CUDA_VERIFY_COLS - 1) / GEMM__CUDA_VERIFY_COLS;
    double w[8], wa[8], rsum[8], rsuma[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int r = r0 + lane + 32 * i;
        bool in = r < rows;
        w[i] = !ROW_WEIGHTS || !in ? 1.0 : io.wr >= 0 ? ws[io.wr + r] : 1.0;
        wa[i] = !ROW_WEIGHTS || !in ? 1.0 : io.wra >= 0 ? ws[io.wra + r] : 1.0;
        rsum[i] = rsuma[i] = 0.0;
    }
    for (int strip = (int)blockIdx.y; strip < strips; strip += (int)gridDim.y) {
        int c1 = min(cols, (strip + 1) * GEMM__CUDA_VERIFY_COLS);
        for (int c = strip * GEMM__CUDA_VERIFY_COLS + warp; c < c1; c += 8) {
            const T *xc = x + (int64_t)c * ld;
            double s = 0.0, sa = 0.0, wc = 1.0, wca = 1.0;
            if (ROWS && io.wc >= 0) wc = ws[io.wc + c];
            if (ROWS && ABS && io.wca >= 0) wca = ws[io.wca + c];
            double v[8];
#pragma unroll
            for (int i = 0; i < 8; i++) { /* the loads first: 8 in flight */
                int r = r0 + lane + 32 * i;
                v[i] = r < rows ? gemm__cuda_vload(xc + r) : 0.0; /* 0 past the rows: their weights need not be */
            }
#pragma unroll
            for (int i = 0; i < 8; i++) {
                double a = fabs(v[i]);
                if (COLS) s += v[i] * w[i];
                if (COLS && ABS) sa += a * wa[i];
                if (ROWS) rsum[i] += v[i] * wc;
                if (ROWS && ABS) rsuma[i] += a * wca;
            }
            if (COLS) {
                for (int d = 16; d > 0; d /= 2) {
                    s += __shfl_down_sync(0xffffffffu, s, d);
                    if (ABS) sa += __shfl_down_sync(0xffffffffu, sa, d);
                }
                if (lane == 0) {
                    if (io.col >= 0) atomicAdd(&ws[io.col + c], io.fcol * s);
                    if (ABS && io.cola >= 0) atomicAdd(&ws[io.cola + c], fabs(io.fcol) * sa);
                }
            }
        }
    }
    if (ROWS) { /* the block's row sums, one atomic add a row */
#pragma unroll
        for (int i = 0; i < 8; i++) {
            part[0][warp][lane + 32 * i] = rsum[i];
            if (ABS) part[ABS ? 1 : 0][warp][lane + 32 * i] = rsuma[i];
        }
        __syncthreads();
        {
            int t = (int)threadIdx.x, r = r0 + t;
            double s = 0.0, sa = 0.0;
            for (int q = 0; q < 8; q++) {
                s += part[0][q][t];
                if (ABS) sa += part[ABS ? 1 : 0][q][t];
            }
            if (r < rows) {
                if (io.row >= 0) atomicAdd(&ws[io.row + r], io.frow * s);
                if (ABS && io.rowa >= 0) atomicAdd(&ws[io.rowa + r], fabs(io.frow) * sa);
            }
        }
    }
}

/* The lines of one kind for the comparison below: offsets in ws of their
   sums got, want and scale, and how many. */
struct gemm__cuda_verify_lines {
    int64_t got, want, scale, count;
};

/* Whether a is a worse line than b: a larger ratio, or the same ratio at a
   smaller index (core/verify.c keeps the first of equals). */
__device__ __forceinline__ bool gemm__cuda_verify_worse(const gemm__verify_worst &a, const gemm__verify_worst &b)
{
    return a.at >= 0 && (b.at < 0 || a.ratio > b.ratio || (a.ratio == b.ratio && a.at < b.at));
}

/* The worst line of a warp's (lane 0 holds it), its failures summed. */
__device__ __forceinline__ gemm__verify_worst gemm__cuda_verify_warp_worst(gemm__verify_worst w)
{
    for (int d = 16; d > 0; d /= 2) {
        gemm__verify_worst o;
        o.at = __shfl_down_sync(0xffffffffu, w.at, d);
        o.failed = __shfl_down_sync(0xffffffffu, w.failed, d);
        o.residual = __shfl_down_sync(0xffffffffu, w.residual, d);
        o.bound = __shfl_down_sync(0xffffffffu, w.bound, d);
        o.ratio = __shfl_down_sync(0xffffffffu, w.ratio, d);
        long long failed = w.failed + o.failed;
        if (gemm__cuda_verify_worse(o, w)) w = o;
        w.failed = failed;
    }
    return w;
}

/* The block's worst line of one kind into *out (thread 0), from each
   thread's: each warp's, then the warps'. */
__device__ void gemm__cuda_verify_reduce(gemm__verify_worst w, gemm__verify_worst *part, gemm__verify_worst *out)
{
    const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
    w = gemm__cuda_verify_warp_worst(w);
    if (lane == 0) part[warp] = w;
    __syncthreads();
    if (warp == 0) {
        w = gemm__cuda_verify_warp_worst(lane < (int)(blockDim.x / 32) ? part[lane]
                                                                        : gemm__verify_worst{-1, 0, 0.0, 0.0, 0.0});
        if (lane == 0) *out = w;
    }
    __syncthreads();
}

/* core/verify.c's comparison on the device, one block: the rows' and the
   columns' worst lines and failures into out[0] and out[1], so that these
   two come back to the host instead of the 3m + 3n sums (and the host no
   longer walks them). Each line's bound factor * scale + floor and residual
   |got - want| are rounded as the host rounds them, with no contraction
   into an FMA. */
__global__ void __launch_bounds__(1024) gemm__cuda_verify_compare_kernel(const double *ws, gemm__cuda_verify_lines rows,
                                                                         gemm__cuda_verify_lines cols, double factor,
                                                                         double floor_, double max,
                                                                         gemm__verify_worst *out)
{
    __shared__ gemm__verify_worst part[32];
    const double grow = __dadd_rn(1.0, factor);
    for (int x = 0; x < 2; x++) {
        const gemm__cuda_verify_lines l = x == 0 ? rows : cols;
        gemm__verify_worst w = {-1, 0, 0.0, 0.0, 0.0};
        for (int64_t i = threadIdx.x; i < l.count; i += blockDim.x) {
            double sc = ws[l.scale + i], bound = __dadd_rn(__dmul_rn(factor, sc), floor_);
            double r = fabs(__dsub_rn(ws[l.got + i], ws[l.want + i])), ratio;
            if (!(__dmul_rn(sc, grow) < max)) continue; /* an Inf or NaN in the inputs, or an honest overflow */
            if (r <= bound) continue;
            ratio = r != r ? HUGE_VAL : bound > 0 ? __ddiv_rn(r, bound) : HUGE_VAL;
            w.failed++;
            if (w.at < 0 || ratio > w.ratio) { /* the thread's lines come in order: the first of equals */
                w.at = i;
                w.residual = r;
                w.bound = bound;
                w.ratio = ratio;
            }
        }
        gemm__cuda_verify_reduce(w, part, out + x);
    }
}
