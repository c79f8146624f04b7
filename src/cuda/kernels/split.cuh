/* The fp32-accurate mode's operand split (GEMM_CUDA_MATH_FP32_ACCURATE,
   "3xTF32"): each fp32 operand x becomes hi + lo, hi = x rounded to TF32
   (to nearest even; 11 significant bits), lo = x - hi (exact in fp32)
   rounded to TF32 again, so hi + lo carries about 22 of x's 24 bits. The
   tensor cores then sum lo*hi + hi*lo + hi*hi (lo*lo, below 2^-22 of the
   product, is dropped), the small products first, so that their sums stay
   small beside the truncation of the tensor cores' fp32 adds; the hi*hi
   sums are then taken 32 products at a time and added up with rounding
   fp32 adds (wgmma.cuh, mma.cuh).

   The split is a pass before the GEMM that writes three regions of K
   (rounded up to ldo, a multiple of 32, zeros past K) per row: the kind of
   each region is chosen per call (hi, lo, or "hc": hi with every Inf and
   NaN replaced by 0). For WGMMA the regions are "sliced": region j's
   32-element slice q of all rows is one plane, row after row (plane
   j*ldo/32 + q, rows x 128 bytes), so that each copy of a tile is one
   contiguous run of memory; for MMA each row holds its three regions one
   after another (ldout = 3*ldo). Why hc: an Inf in x makes hi = Inf and
   lo = 0, and an Inf in a cross product Inf*lo_y turns into NaN whenever
   lo_y is 0 (y exact in TF32), or Inf - Inf when hi_y and lo_y differ in
   sign, where fp32 gives Inf. With hc in the cross products the Inf or NaN
   enters only through hi*hi, as it does through x*y.

   What the user sees: the max relative error of an fp32 SIMT product
   (the tests compare against this library's SIMT kernel,
   bench/RESULTS.md against cublasSgemm), Inf and NaN where fp32 gives
   them, with two differences: an Inf times a value below about 2^-136 in
   magnitude (whose hi is 0) gives NaN, not Inf; and a product within
   2^-11 of FLT_MAX can round up to Inf, as hi may exceed x by that much (a
   finite x whose hi would overflow is truncated instead). The tensor
   cores' treatment of subnormal parts may lose values below 2^-126 (then
   fp32's absolute error there). */
#pragma once
#include <float.h> /* FLT_MAX */
#include <stdint.h>

/* x rounded to TF32 (the low 13 mantissa bits zero), to nearest even; a
   finite x that would round up past FLT_MAX is truncated instead. Inf and
   NaN come back unchanged. */
__device__ __forceinline__ float gemm__cuda_tf32_round(float x)
{
    uint32_t u = __float_as_uint(x), r;
    if ((u & 0x7f800000u) == 0x7f800000u) return x; /* Inf, NaN */
    r = (u + 0x0fffu + ((u >> 13) & 1u)) & 0xffffe000u;
    if ((r & 0x7f800000u) == 0x7f800000u) r = u & 0xffffe000u; /* rounding overflowed */
    return __uint_as_float(r);
}

/* The three kinds of region; a pattern packs one kind per region, 2 bits
   each, region 0 lowest. */
enum { GEMM__CUDA_HI = 0, GEMM__CUDA_LO = 1, GEMM__CUDA_HC = 2 };
#define GEMM__CUDA_PATTERN(r0, r1, r2) ((r0) | (r1) << 2 | (r2) << 4)

/* Where a split goes: `rows` rows of `regions` regions of ldo elements,
   sliced (WGMMA) or one row after another, ldout apart (MMA); the kind of
   each region; the flag set when an Inf or NaN was seen. */
typedef struct gemm__cuda_split_dst {
    float *out;
    int64_t ldout;
    int rows, ldo, sliced, pattern, regions;
    int *nonfinite;
} gemm__cuda_split_dst;

/* The index of element q (a multiple of 4 gives 16-byte alignment) of
   region j of row r. */
__device__ __forceinline__ int64_t gemm__cuda_split_at(const gemm__cuda_split_dst &o, int r, int j, int q)
{
    if (o.sliced) return (((int64_t)j * (o.ldo / 32) + q / 32) * o.rows + r) * 32 + (q & 31);
    return (int64_t)r * o.ldout + (int64_t)j * o.ldo + q;
}

/* The kind `kind` of x, given hi and lo. */
__device__ __forceinline__ float gemm__cuda_split_kind(int kind, float x, float hi, float lo)
{
    return kind == GEMM__CUDA_HI ? hi : kind == GEMM__CUDA_LO ? lo : isfinite(x) ? hi : 0.0f;
}

/* hi and lo of x; flags an Inf or NaN. */
__device__ __forceinline__ void gemm__cuda_split_one(float x, float &hi, float &lo, int *nonfinite)
{
    hi = gemm__cuda_tf32_round(x);
    lo = 0.0f;
    if (isfinite(x)) lo = gemm__cuda_tf32_round(x - hi);
    else *nonfinite = 1; /* benign race: every writer stores 1 */
}

/* X(r, q) of a rows x K k-major operand (q contiguous) -> the regions of
   row r. Each thread takes 4 consecutive q, with one 16-byte load where X
   allows it and one 16-byte store per region; q in [K, ldo) becomes 0. */
__global__ void __launch_bounds__(256) gemm__cuda_split_rows_kernel(int K, const float *X, int64_t ld,
                                                                    gemm__cuda_split_dst o)
{
    bool vec = (uintptr_t)X % 16 == 0 && ld % 4 == 0;
    int64_t per_row = o.ldo / 4, total = (int64_t)o.rows * per_row;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int r = (int)(e / per_row), q = (int)(e % per_row) * 4;
        const float *src = X + (int64_t)r * ld + q;
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f}, hi[4], lo[4];
        if (vec && q + 4 <= K) {
            float4 f = *reinterpret_cast<const float4 *>(src);
            v[0] = f.x; v[1] = f.y; v[2] = f.z; v[3] = f.w;
        } else {
            for (int j = 0; j < 4 && q + j < K; j++) v[j] = src[j];
        }
#pragma unroll
        for (int j = 0; j < 4; j++) gemm__cuda_split_one(v[j], hi[j], lo[j], o.nonfinite);
        for (int j = 0; j < o.regions; j++) {
            int kind = o.pattern >> (2 * j) & 3;
            *reinterpret_cast<float4 *>(o.out + gemm__cuda_split_at(o, r, j, q)) =
                make_float4(gemm__cuda_split_kind(kind, v[0], hi[0], lo[0]), gemm__cuda_split_kind(kind, v[1], hi[1], lo[1]),
                            gemm__cuda_split_kind(kind, v[2], hi[2], lo[2]), gemm__cuda_split_kind(kind, v[3], hi[3], lo[3]));
        }
    }
}

/* The same for an operand that is not k-major (X(r, q) at X[q*ld + r]):
   32x32 tiles through shared memory, so that reads run along r and writes
   along q, both contiguous. Grid: ldo/32 x rows/32 blocks of 32x8. */
__global__ void __launch_bounds__(256) gemm__cuda_split_cols_kernel(int K, const float *X, int64_t ld,
                                                                    gemm__cuda_split_dst o)
{
    __shared__ float tile[32][33]; /* [q][r] */
    int r0 = (int)blockIdx.y * 32, q0 = (int)blockIdx.x * 32, tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    for (int i = ty; i < 32; i += 8)
        tile[i][tx] = r0 + tx < o.rows && q0 + i < K ? X[(int64_t)(q0 + i) * ld + r0 + tx] : 0.0f;
    __syncthreads();
    for (int i = ty; i < 32 && r0 + i < o.rows; i += 8) {
        float x = tile[tx][i], hi, lo;
        gemm__cuda_split_one(x, hi, lo, o.nonfinite);
        for (int j = 0; j < o.regions; j++)
            o.out[gemm__cuda_split_at(o, r0 + i, j, q0 + tx)] = gemm__cuda_split_kind(o.pattern >> (2 * j) & 3, x, hi, lo);
    }
}

/* Region 2 = hc of region 0 (hi) of both operands' sliced splits (each
   rows x ldo elements per region), only when the split saw an Inf or a NaN
   (*nonfinite); otherwise every thread returns at once and region 2 is
   never read. */
__global__ void __launch_bounds__(256) gemm__cuda_split_hc_kernel(int64_t elems_a, int64_t elems_b, float *a, float *b,
                                                                  const int *nonfinite)
{
    if (!*nonfinite) return;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < elems_a + elems_b;
         e += (int64_t)gridDim.x * blockDim.x) {
        float *region0 = e < elems_a ? a + e : b + (e - elems_a);
        int64_t per = e < elems_a ? elems_a : elems_b;
        float hi = *region0;
        region0[2 * per] = isfinite(hi) ? hi : 0.0f;
    }
}
