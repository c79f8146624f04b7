/* The small kernels of the complex calls (host/complex.cuh), which run a
   complex product as one real product (the "1m" method): in the canonical
   column-major problem, C (m x n complex) read as a 2m x n real matrix is
       C = Y * B,  Y (2m x 2k real) the expansion of alpha*op(a),
                   B (2k x n real) op(b) as stored, k x n complex,
   where each complex a' = x + iy of alpha*op(a) at (i, l) becomes the 2x2
   block [x -y; y x] at rows 2i, 2i+1 and columns 2l, 2l+1 of Y (for
   conj(b): [x y; y -x], so conjugating b costs nothing). The real product
   does exactly the 8mnk flops of the complex one. These kernels build Y,
   copy a transposed b into k x n form (the real kernel cannot read b's
   re/im pairs across its K index otherwise), and scale C by a complex
   beta. Caller's matrices are read as pairs of scalars (an interleaved
   complex array may be only 8- or 4-byte aligned); Y, the scratch the
   product reads, is written in aligned pairs.

   Every kernel serves a batch: blockIdx.z is the member (first + z), and a
   member's matrix is found through a gemm__cuda_cside, either strided or
   listed (byte addresses, as device/batch.cuh lists them). */
#pragma once
#include <stdint.h>

/* Where member i's matrix starts: base + list[i] bytes, or base + i *
   stride scalars (a complex element is two scalars). */
struct gemm__cuda_cside {
    const int64_t *list; /* NULL: strided */
    int64_t stride;      /* scalars from one member to the next */
};

template <typename T>
__device__ __forceinline__ T *gemm__cuda_cside_at(const gemm__cuda_cside &s, T *base, int64_t i)
{
    return (T *)((char *)base + (s.list ? s.list[i] : i * s.stride * (int64_t)sizeof(T)));
}

/* Two scalars stored as one aligned access. */
template <typename T> struct gemm__cuda_pair;
template <> struct gemm__cuda_pair<float> { typedef float2 type; };
template <> struct gemm__cuda_pair<double> { typedef double2 type; };

/* One complex element of the caller's (x = re, y = im): an aligned pair
   where the matrix is (every element then is: they lie whole elements
   apart), two scalars otherwise. */
template <typename T> __device__ __forceinline__ void gemm__cuda_cload(const T *src, bool paired, T &x, T &y)
{
    typedef typename gemm__cuda_pair<T>::type P;
    if (paired) {
        P v = *reinterpret_cast<const P *>(src);
        x = v.x;
        y = v.y;
    } else {
        x = src[0];
        y = src[1];
    }
}

/* Writes the 2x2 block of x + iy (an element of alpha*op(a) at (i, l)) into Y. */
template <typename T>
__device__ __forceinline__ void gemm__cuda_cput(T *Y, int64_t ldy, int i, int l, T x, T y, int conj_b)
{
    typedef typename gemm__cuda_pair<T>::type P;
    P even, odd;
    even.x = x; even.y = y;                 /* column 2l: (x, y) down rows 2i, 2i+1 */
    odd.x = conj_b ? y : -y;                /* column 2l+1: (-y, x), or (y, -x) for conj(b) */
    odd.y = conj_b ? -x : x;
    *reinterpret_cast<P *>(Y + 2 * (int64_t)i + 2 * (int64_t)l * ldy) = even;
    *reinterpret_cast<P *>(Y + 2 * (int64_t)i + (2 * (int64_t)l + 1) * ldy) = odd;
}

/* Y = the expansion of alpha*op(a) (above), op(a) m x k: a[i + l*lda]
   (complex elements), or a[l + i*lda] when a_trans; conj_a conjugates a,
   conj_b writes the blocks for conj(b). 32x32 tiles of op(a); a
   transposed a goes through shared memory, so that reading a and writing
   Y's columns both run along contiguous memory (an untransposed one does
   already: each thread writes the blocks of the element it read). Grid:
   x over the tiles of m, y strides over those of k, z the members; 32 x 8
   threads. */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_cexpand_kernel(int m, int k, const T *a, int64_t lda, int a_trans,
                                                                 T alpha_re, T alpha_im, int conj_a, int conj_b, T *Y,
                                                                 int64_t ldy, gemm__cuda_cside as, int64_t y_stride,
                                                                 int64_t first)
{
    __shared__ T re[32][33], im[32][33]; /* [l][i]; +1: a column read does not hit one bank 32 times */
    int64_t member = first + (int64_t)blockIdx.z;
    int tx = (int)threadIdx.x, ty = (int)threadIdx.y, i0 = (int)blockIdx.x * 32;
    a = gemm__cuda_cside_at(as, a, member);
    Y += member * y_stride;
    bool paired = ((uintptr_t)a & (2 * sizeof(T) - 1)) == 0;
    if (!a_trans) {
        int i = i0 + tx;
        if (i >= m) return; /* no barrier on this path */
        for (int l0 = (int)blockIdx.y * 32; l0 < k; l0 += (int)gridDim.y * 32)
            for (int l = l0 + ty; l < l0 + 32 && l < k; l += 8) {
                T x, y;
                gemm__cuda_cload(a + 2 * (i + (int64_t)l * lda), paired, x, y);
                if (conj_a) y = -y;
                gemm__cuda_cput(Y, ldy, i, l, alpha_re * x - alpha_im * y, alpha_re * y + alpha_im * x, conj_b);
            }
        return;
    }
    for (int l0 = (int)blockIdx.y * 32; l0 < k; l0 += (int)gridDim.y * 32) {
        for (int r = ty; r < 32; r += 8) {
            int i = i0 + r, l = l0 + tx; /* tx runs along l, contiguous in a */
            if (i < m && l < k) {
                T x, y;
                gemm__cuda_cload(a + 2 * (l + (int64_t)i * lda), paired, x, y);
                if (conj_a) y = -y;
                re[tx][r] = alpha_re * x - alpha_im * y; /* [l - l0][i - i0] */
                im[tx][r] = alpha_re * y + alpha_im * x;
            }
        }
        __syncthreads();
        for (int r = ty; r < 32; r += 8) {
            int i = i0 + tx, l = l0 + r;
            if (i < m && l < k) gemm__cuda_cput(Y, ldy, i, l, re[r][tx], im[r][tx], conj_b);
        }
        __syncthreads(); /* the next tile must not overwrite what slower threads still read */
    }
}

/* out (Q x R complex, column-major, ldo) = the transpose of in (R x Q,
   in[r + q*ldi]): op(b) of a transposed b in the k x n form the real
   product reads. 32x32 tiles; grid x over the tiles of R, y strides over
   those of Q, z the members. */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_ctranspose_kernel(int R, int Q, const T *in, int64_t ldi,
                                                                    gemm__cuda_cside is, T *out, int64_t ldo,
                                                                    int64_t out_stride, int64_t first)
{
    typedef typename gemm__cuda_pair<T>::type P;
    __shared__ T re[32][33], im[32][33]; /* [r][q] */
    int64_t member = first + (int64_t)blockIdx.z;
    int tx = (int)threadIdx.x, ty = (int)threadIdx.y, r0 = (int)blockIdx.x * 32;
    in = gemm__cuda_cside_at(is, in, member);
    out += member * out_stride;
    bool paired = ((uintptr_t)in & (2 * sizeof(T) - 1)) == 0;
    for (int q0 = (int)blockIdx.y * 32; q0 < Q; q0 += (int)gridDim.y * 32) {
        for (int j = ty; j < 32; j += 8)
            if (r0 + tx < R && q0 + j < Q)
                gemm__cuda_cload(in + 2 * (r0 + tx + (int64_t)(q0 + j) * ldi), paired, re[tx][j], im[tx][j]);
        __syncthreads();
        for (int j = ty; j < 32; j += 8)
            if (r0 + j < R && q0 + tx < Q) {
                P v;
                v.x = re[j][tx];
                v.y = im[j][tx];
                *reinterpret_cast<P *>(out + 2 * (q0 + tx + (int64_t)(r0 + j) * ldo)) = v;
            }
        __syncthreads();
    }
}

/* out = beta * in over m x n complex elements of every member (in[i +
   j*ldi], out[i + j*ldo]); beta = 0 writes zeros without reading in. In
   and out may be one matrix. A grid-stride loop over the elements of
   blockIdx.z's member. */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_cscale_kernel(int m, int n, T beta_re, T beta_im, const T *in,
                                                                int64_t ldi, gemm__cuda_cside is, T *out, int64_t ldo,
                                                                gemm__cuda_cside os, int64_t first)
{
    int64_t member = first + (int64_t)blockIdx.z, total = (int64_t)m * n;
    bool zero = beta_re == T(0) && beta_im == T(0);
    in = gemm__cuda_cside_at(is, in, member);
    out = gemm__cuda_cside_at(os, out, member);
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = e % m, j = e / m;
        T *o = out + 2 * (i + j * ldo);
        if (zero) {
            o[0] = T(0);
            o[1] = T(0);
        } else {
            const T *c = in + 2 * (i + j * ldi);
            T x = c[0], y = c[1];
            o[0] = beta_re * x - beta_im * y;
            o[1] = beta_re * y + beta_im * x;
        }
    }
}
