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

template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_verify_tile(const T *x, int rows, int cols, int64_t ld, double *ws,
                                                              gemm__cuda_verify_io io)
{
    __shared__ double part[2][8][GEMM__CUDA_VERIFY_ROWS];
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    const int r0 = (int)blockIdx.x * GEMM__CUDA_VERIFY_ROWS, strips = (cols + GEMM__CUDA_VERIFY_COLS - 1) / GEMM__CUDA_VERIFY_COLS;
    const bool cs = io.col >= 0 || io.cola >= 0, rs = io.row >= 0 || io.rowa >= 0;
    double w[8], wa[8], rsum[8], rsuma[8];
    for (int i = 0; i < 8; i++) {
        int r = r0 + lane + 32 * i;
        bool in = r < rows;
        w[i] = !in ? 0.0 : io.wr >= 0 ? ws[io.wr + r] : 1.0;
        wa[i] = !in ? 0.0 : io.wra >= 0 ? ws[io.wra + r] : 1.0;
        rsum[i] = rsuma[i] = 0.0;
    }
    for (int strip = (int)blockIdx.y; strip < strips; strip += (int)gridDim.y) {
        int c1 = min(cols, (strip + 1) * GEMM__CUDA_VERIFY_COLS);
        for (int c = strip * GEMM__CUDA_VERIFY_COLS + warp; c < c1; c += 8) {
            const T *xc = x + (int64_t)c * ld;
            double s = 0.0, sa = 0.0, wc = io.wc >= 0 ? ws[io.wc + c] : 1.0, wca = io.wca >= 0 ? ws[io.wca + c] : 1.0;
            double v[8];
#pragma unroll
            for (int i = 0; i < 8; i++) { /* the loads first: 8 in flight */
                int r = r0 + lane + 32 * i;
                v[i] = r < rows ? gemm__cuda_vload(xc + r) : 0.0;
            }
#pragma unroll
            for (int i = 0; i < 8; i++) {
                double a = fabs(v[i]);
                s += v[i] * w[i];
                sa += a * wa[i];
                rsum[i] += v[i] * wc;
                rsuma[i] += a * wca;
            }
            if (cs) {
                for (int d = 16; d > 0; d /= 2) {
                    s += __shfl_down_sync(0xffffffffu, s, d);
                    sa += __shfl_down_sync(0xffffffffu, sa, d);
                }
                if (lane == 0) {
                    if (io.col >= 0) atomicAdd(&ws[io.col + c], io.fcol * s);
                    if (io.cola >= 0) atomicAdd(&ws[io.cola + c], fabs(io.fcol) * sa);
                }
            }
        }
    }
    if (!rs) return;
    for (int i = 0; i < 8; i++) {
        part[0][warp][lane + 32 * i] = rsum[i];
        part[1][warp][lane + 32 * i] = rsuma[i];
    }
    __syncthreads();
    {
        int t = (int)threadIdx.x, r = r0 + t;
        double s = 0.0, sa = 0.0;
        for (int q = 0; q < 8; q++) {
            s += part[0][q][t];
            sa += part[1][q][t];
        }
        if (r < rows) {
            if (io.row >= 0) atomicAdd(&ws[io.row + r], io.frow * s);
            if (io.rowa >= 0) atomicAdd(&ws[io.rowa + r], fabs(io.frow) * sa);
        }
    }
}
