/* Operand copies for the tensor-core kernels, which read A and B k-major
   (each row of op(A), each column of op(B) contiguous) from 16-byte aligned
   rows; WGMMA also reads a 16-bit op(A) M-major (wgmma transposes 16-bit
   operands itself; TF32 it does not). Any other operand is first copied
   into k-major form by one of these kernels, into a stream-ordered scratch
   buffer. */
#pragma once
#include "../device/batch.cuh" /* gemm__cuda_batch_copy */

/* X(r, q) of a rows x K operand (q the k index) -> out[r*ldo + q]. 32x32
   tiles through shared memory so that both the read and the write run
   along contiguous memory whichever way X is stored. */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_pack_kernel(int rows, int K, const T *X, int64_t ld, int kmajor,
                                                              T *out, int64_t ldo, gemm__cuda_batch_copy bc)
{
    __shared__ T tile[32][33];
    X = gemm__cuda_copy_member(bc, X, out);
    int r0 = (int)blockIdx.y * 32, q0 = (int)blockIdx.x * 32, tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    for (int i = ty; i < 32; i += 8) {
        int r = r0 + (kmajor ? i : tx), q = q0 + (kmajor ? tx : i);
        if (r < rows && q < K) {
            T v = kmajor ? X[(int64_t)r * ld + q] : X[(int64_t)q * ld + r];
            if (kmajor) tile[i][tx] = v;
            else tile[tx][i] = v;
        }
    }
    __syncthreads();
    for (int i = ty; i < 32; i += 8)
        if (r0 + i < rows && q0 + tx < K) out[(int64_t)(r0 + i) * ldo + q0 + tx] = tile[i][tx];
}

/* The usual case of the copy above with 16-byte accesses: X not k-major,
   its rows (along r) 16-byte aligned. 64x64 tiles; 16-byte loads along r,
   16-byte stores along q; a warp moves whole 128-byte lines both ways.
   Shared-memory rows of 65 elements keep the column reads of the store
   phase on distinct banks (2-way for fp32). */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_transpose_kernel(int rows, int K, const T *X, int64_t ld, T *out,
                                                                   int64_t ldo, gemm__cuda_batch_copy bc)
{
    constexpr int V = 16 / (int)sizeof(T), PER = 64 / V; /* elements per vector, vectors per tile row */
    struct alignas(16) vec { T x[V]; };
    __shared__ T tile[64][65]; /* [q][r] */
    X = gemm__cuda_copy_member(bc, X, out);
    int r0 = (int)blockIdx.y * 64, q0 = (int)blockIdx.x * 64;
    for (int e = (int)threadIdx.x; e < 64 * PER; e += 256) {
        int q = e / PER, r = e % PER * V;
        if (q0 + q >= K) continue;
        const T *src = X + (int64_t)(q0 + q) * ld + r0 + r;
        if (r0 + r + V <= rows) {
            vec v = *reinterpret_cast<const vec *>(src);
#pragma unroll
            for (int j = 0; j < V; j++) tile[q][r + j] = v.x[j];
        } else {
            for (int j = 0; j < V && r0 + r + j < rows; j++) tile[q][r + j] = src[j];
        }
    }
    __syncthreads();
    for (int e = (int)threadIdx.x; e < 64 * PER; e += 256) {
        int r = e / PER, q = e % PER * V;
        vec v;
        if (r0 + r >= rows || q0 + q >= K) continue; /* rows of `out` are padded to whole vectors */
#pragma unroll
        for (int j = 0; j < V; j++) v.x[j] = tile[q + j][r];
        *reinterpret_cast<vec *>(out + (int64_t)(r0 + r) * ldo + q0 + q) = v;
    }
}

/* out[r*ldo + i] = X[r*ld + i] for r < outer, i < inner: an operand whose
   rows are not 16-byte aligned copied into rows that are (ldo a whole
   number of vectors), for the kernels that read only aligned rows. A warp
   a row, its lanes along the row: both sides coalesced whatever ld is.
   cudaMemcpy2DAsync did this job at a fraction of the memory's speed when
   the source pitch was not a multiple of 16 bytes (fp32 1001 x 999 x 1000:
   0.48-0.51 of cuBLAS, the two copies about as long as the product). */
template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_realign_kernel(int64_t outer, int64_t inner,
                                                                 const T *__restrict__ X, int64_t ld,
                                                                 T *__restrict__ out, int64_t ldo)
{
    int64_t warps = (int64_t)gridDim.x * 8;
    int lane = (int)threadIdx.x % 32;
    for (int64_t r = (int64_t)blockIdx.x * 8 + (int64_t)threadIdx.x / 32; r < outer; r += warps) {
        const T *src = X + r * ld;
        T *dst = out + r * ldo;
#pragma unroll 4
        for (int64_t i = lane; i < inner; i += 32) dst[i] = src[i];
    }
}
