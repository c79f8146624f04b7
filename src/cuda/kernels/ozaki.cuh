/* The elementwise passes of the emulated fp64 and fp32 products
   (device/ozaki_math.cuh has the arithmetic; the int8 products are
   wgmma_s8.cuh's): the scaling pass over the rows of op(A) and of op(B)^T,
   the residues, and the reconstruction of C. An operand is read as R rows
   of K: element (r, q) at X[r*rs + q*ks], with rs or ks equal to 1. */
#pragma once
#include <stdint.h>
#include "../device/ozaki_math.cuh"

/* What the scaling pass finds: any Inf or NaN, and per operand the most
   bits a line needs for AUTO's accuracy (gemm__ozaki_need, in
   1/GEMM__OZAKI_NEED_UNIT of a bit). */
typedef struct gemm__ozaki_found {
    int nonfinite, need_a, need_b, pad;
} gemm__ozaki_found;

/* A line's statistics, struct of arrays over the R lines: its largest
   magnitude (an fp64 >= 0, whose bit pattern orders as its value, so a
   64-bit atomicMax folds it), the sum of its magnitudes and the count of
   its nonzero entries. The caller zeroes them before the scan. */
typedef struct gemm__ozaki_lines {
    unsigned long long *max;
    double *sum;
    int *nnz;
} gemm__ozaki_lines;

/* The scaling pass, first half: each block takes 32 rows and 256 of K
   and folds each row's part into the row's statistics (atomics); an Inf
   or NaN sets *nonfinite. Rows along K contiguous (KC): the lanes of a
   warp read along a row; else along the rows, the 8 warps splitting K. */
template <typename T, bool KC>
__global__ void __launch_bounds__(256) gemm__ozaki_scan_kernel(int R, int K, const T *X, int64_t rs, int64_t ks,
                                                               gemm__ozaki_lines lines, int *nonfinite)
{
    int tx = (int)threadIdx.x % 32, ty = (int)threadIdx.x / 32;
    int64_t r0 = (int64_t)blockIdx.y * 32, q0 = (int64_t)blockIdx.x * 256;
    int bad = 0;
    for (int j = 0; j < (KC ? 4 : 1); j++) {
        int64_t r = r0 + (KC ? ty + 8 * j : tx);
        double big = 0.0, sum = 0.0;
        int nnz = 0;
        if (r < R)
            for (int64_t q = q0 + (KC ? tx : ty); q < q0 + 256 && q < K; q += KC ? 32 : 8) {
                double v = fabs((double)X[r * rs + q * ks]);
                bad |= !isfinite(v);
                big = fmax(big, v);
                sum += v;
                nnz += v > 0.0;
            }
        if (KC)
#pragma unroll
            for (int o = 16; o > 0; o /= 2) {
                big = fmax(big, __shfl_xor_sync(0xffffffffu, big, o));
                sum += __shfl_xor_sync(0xffffffffu, sum, o);
                nnz += __shfl_xor_sync(0xffffffffu, nnz, o);
            }
        if (r < R && (!KC || tx == 0) && big > 0.0 && isfinite(big)) {
            atomicMax(&lines.max[r], (unsigned long long)__double_as_longlong(big));
            atomicAdd(&lines.sum[r], sum);
            atomicAdd(&lines.nnz[r], nnz);
        }
    }
    if (bad) atomicOr(nonfinite, 1);
}

/* The scaling pass, second half: each row's exponent for its scale into
   e[r] (0 for a row of zeros: nothing to scale), and the most bits a row
   needs (gemm__ozaki_need with `target`) into *need. */
__global__ void gemm__ozaki_need_kernel(int R, gemm__ozaki_lines lines, int target, int *e, int *need)
{
    int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= R) return;
    double max = __longlong_as_double((long long)lines.max[r]);
    int nnz = lines.nnz[r];
    e[r] = nnz > 0 ? ilogb(max) : 0;
    if (nnz > 0) atomicMax(need, gemm__ozaki_need(max, lines.sum[r], nnz, target));
}

/* The residues of row r's integers (scaled by 2^(bits - 1 - e[r])) modulo
   each of m's moduli, k-major int8: plane l at out + l*plane, row r at
   r*ldo (ldo and plane multiples of 8, out 8-byte aligned). Tiles of 32
   rows x 64 of K through shared memory, so that the reads (along whichever
   of rows and K is contiguous) are coalesced; then each thread takes eight
   neighbours along K of one row and writes their eight residues of a
   modulus as one 8-byte store. The pass is bound by issued instructions
   (ncu: issue slots 78-85% busy, DRAM 16%, on an H200), and a modulus's
   constants, its address and its store are paid once for eight residues
   (for four before: about 1.0 ms an fp64 operand at 8192^2 with 15
   moduli). */
template <typename T, bool KC>
__global__ void __launch_bounds__(256) gemm__ozaki_residue_kernel(int R, int K, const T *X, int64_t rs, int64_t ks,
                                                                  const int *e, int bits, const gemm__ozaki_moduli m,
                                                                  int8_t *out, int64_t ldo, int64_t plane)
{
    __shared__ double tile[32][65];
    int tx = (int)threadIdx.x % 32, ty = (int)threadIdx.x / 32;
    int64_t r0 = (int64_t)blockIdx.y * 32, q0 = (int64_t)blockIdx.x * 64;
    for (int i = ty; i < 64; i += 8) { /* 8 loads a thread, lanes along the contiguous dimension */
        int row = KC ? i % 32 : tx, col = KC ? tx + 32 * (i / 32) : i;
        int64_t r = r0 + row, q = q0 + col;
        tile[row][col] = r < R && q < K ? (double)X[r * rs + q * ks] : 0.0;
    }
    __syncthreads();
    int j = (int)threadIdx.x / 8, c = (int)threadIdx.x % 8 * 8; /* row j of the tile, its columns c..c+7 */
    int64_t r = r0 + j, q = q0 + c;
    if (r >= R || q >= K) return;
    int scale = gemm__ozaki_scale(e[r], bits);
    double d[8];
#pragma unroll
    for (int x = 0; x < 8; x++) d[x] = gemm__ozaki_integral(tile[j][c + x], scale); /* past K: zeros */
    uint2 *o = (uint2 *)(out + r * ldo + q); /* K's padding to ldo takes the words' zeros past K */
#pragma unroll
    for (int l = 0; l < GEMM__OZAKI_MAX_MODULI; l++) /* unrolled: the moduli's constants at fixed places */
        if (l < m.count) {
            uint32_t w[2];
#pragma unroll
            for (int h = 0; h < 2; h++) {
                uint32_t b0 = (uint32_t)gemm__ozaki_residue(d[4 * h], m, l),
                         b1 = (uint32_t)gemm__ozaki_residue(d[4 * h + 1], m, l),
                         b2 = (uint32_t)gemm__ozaki_residue(d[4 * h + 2], m, l),
                         b3 = (uint32_t)gemm__ozaki_residue(d[4 * h + 3], m, l);
                w[h] = (b0 & 0xffu) | (b1 & 0xffu) << 8 | (b2 & 0xffu) << 16 | b3 << 24;
            }
            o[l * (plane / 8)] = make_uint2(w[0], w[1]);
        }
}

/* C = alpha*C'*2^-(scale_a + scale_b) + beta*C (beta == 0: C not read),
   C column-major M x N; C' from the residues u (plane l at u + l*plane,
   column-major, ldu a multiple of 4, u 4-byte aligned). A thread per four
   neighbouring rows of a column: one 4-byte load a plane for the four
   (a quarter of the loads of a byte each), then each row's
   reconstruction in turn; rows along x, columns along y (a grid-stride
   loop past 65535 columns). CAP: gemm__ozaki_reconstruct's. */
template <typename TC, int CAP>
__global__ void __launch_bounds__(256) gemm__ozaki_reconstruct_kernel(int M, int N, const uint8_t *u, int64_t ldu,
                                                                      int64_t plane, const int *ea, const int *eb,
                                                                      int bits_a, int bits_b, const gemm__ozaki_moduli m,
                                                                      TC alpha, TC beta, TC *C, int64_t ldc)
{
    int i0 = (int)(blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i0 >= M) return;
    int scale_a[4];
#pragma unroll
    for (int x = 0; x < 4; x++) scale_a[x] = i0 + x < M ? gemm__ozaki_scale(ea[i0 + x], bits_a) : 0;
    for (int j = (int)blockIdx.y; j < N; j += (int)gridDim.y) {
        uint32_t w[CAP];
        const uint32_t *at = (const uint32_t *)(u + i0 + (int64_t)j * ldu);
#pragma unroll
        for (int l = 0; l < CAP; l++) w[l] = l < m.count ? at[l * (plane / 4)] : 0u;
        int scale_b = gemm__ozaki_scale(eb[j], bits_b);
#pragma unroll
        for (int x = 0; x < 4; x++) {
            int res[CAP];
            if (i0 + x >= M) break;
#pragma unroll
            for (int l = 0; l < CAP; l++) res[l] = (int)(w[l] >> (8 * x) & 0xffu);
            double c = gemm__ozaki_ldexp(gemm__ozaki_reconstruct<CAP>(m, res), -(scale_a[x] + scale_b));
            TC *out = C + i0 + x + (int64_t)j * ldc;
            *out = beta == TC(0) ? TC(alpha * c) : TC(alpha * c + beta * *out);
        }
    }
}
