/* The verified products' line sums (core/verify.h) on the device, in fp64:
   for `lines` lines of `len` elements of x (element t of line l at
   x[l*line_stride + t*elem_stride]), ws[out + l] += f * sum_t x*ws[w + t]
   and ws[outa + l] += |f| * sum_t |x|*ws[wa + t], a weight of 1 where w
   (wa) is negative, an output skipped where out (outa) is. Lines whose
   elements are contiguous take a warp each (the warp reads along the
   line); lines side by side take a thread each, their elements cut over
   gridDim.y parts added atomically (the threads of a warp read adjacent
   lines). The order of the sums differs from launch to launch by rounding
   only: the bound allows for it. */
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

/* One line's partial sums over elements [t0, t1) stepping by `step`. */
template <typename T>
__device__ __forceinline__ void gemm__cuda_vsum(const T *xl, int t0, int t1, int step, int64_t elem_stride,
                                                const double *ws, int64_t w, int64_t wa, double *s, double *sa)
{
    for (int t = t0; t < t1; t += step) {
        double v = gemm__cuda_vload(xl + (int64_t)t * elem_stride);
        *s += w >= 0 ? v * ws[w + t] : v;
        *sa += wa >= 0 ? fabs(v) * ws[wa + t] : fabs(v);
    }
}

/* A warp per line (elem_stride 1); 8 lines per block of 256. */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_verify_warp(const T *x, int lines, int len, int64_t line_stride,
                                                              double *ws, int64_t w, int64_t wa, int64_t out,
                                                              int64_t outa, double f)
{
    int l = (int)blockIdx.x * 8 + (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    double s = 0, sa = 0;
    if (l >= lines) return;
    gemm__cuda_vsum(x + (int64_t)l * line_stride, lane, len, 32, 1, ws, w, wa, &s, &sa);
    for (int d = 16; d > 0; d /= 2) {
        s += __shfl_down_sync(0xffffffffu, s, d);
        sa += __shfl_down_sync(0xffffffffu, sa, d);
    }
    if (lane == 0) {
        if (out >= 0) ws[out + l] += f * s;
        if (outa >= 0) ws[outa + l] += fabs(f) * sa;
    }
}

/* A thread per line, its elements in gridDim.y parts of `part` each. */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_verify_thread(const T *x, int lines, int len, int64_t line_stride,
                                                                int64_t elem_stride, int part, double *ws, int64_t w,
                                                                int64_t wa, int64_t out, int64_t outa, double f)
{
    int l = (int)blockIdx.x * 256 + (int)threadIdx.x, t0 = (int)blockIdx.y * part;
    int t1 = len - t0 < part ? len : t0 + part;
    double s = 0, sa = 0;
    if (l >= lines) return;
    gemm__cuda_vsum(x + (int64_t)l * line_stride, t0, t1, 1, elem_stride, ws, w, wa, &s, &sa);
    if (out >= 0) atomicAdd(&ws[out + l], f * s);
    if (outa >= 0) atomicAdd(&ws[outa + l], fabs(f) * sa);
}
