/* The fp32-accurate mode's operand split (GEMM_CUDA_MATH_FP32_ACCURATE,
   "3xTF32"): each fp32 operand x becomes hi + lo, hi = x rounded to TF32
   (to nearest even; 11 significant bits), lo = x - hi (exact in fp32)
   rounded to TF32 again, so hi + lo carries about 22 of x's 24 bits. The
   tensor cores then sum lo*hi + hi*lo + hi*hi in fp32 (lo*lo, below
   2^-22 of the product, is dropped), the small products first, as
   CUTLASS's 3xTF32 orders them.

   The split is a pass before the GEMM that writes k-major rows of three
   regions of ldo elements each (ldo: K rounded up to 32, zeros past K):
   the kind of each region is chosen per call (hi, lo, or "hc": hi with
   every Inf and NaN replaced by 0). Why hc: an Inf in x makes hi = Inf and
   lo = 0, and an Inf in a cross product Inf*lo_y turns into NaN whenever
   lo_y is 0 (y exact in TF32), or Inf - Inf when hi_y and lo_y differ in
   sign, where fp32 gives Inf. With hc in the cross products the Inf or NaN
   enters only through hi*hi, as it does through x*y. */

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

/* Writes the parts of x (k index q of one row) into the row's regions. */
__device__ __forceinline__ void gemm__cuda_split_put(float *row, int ldo, int q, float x, int pattern, int regions,
                                                     int *nonfinite)
{
    float hi = gemm__cuda_tf32_round(x), lo = 0.0f;
    bool finite = isfinite(x);
    if (finite) lo = gemm__cuda_tf32_round(x - hi);
    else *nonfinite = 1; /* benign race: every writer stores 1 */
    for (int j = 0; j < regions; j++) {
        int kind = pattern >> (2 * j) & 3;
        row[(int64_t)j * ldo + q] = kind == GEMM__CUDA_HI ? hi : kind == GEMM__CUDA_LO ? lo : finite ? hi : 0.0f;
    }
}

/* X(r, q) of a rows x K k-major operand (q contiguous) -> the regions of
   out's row r (ldout apart). Each thread takes 4 consecutive q, with one
   16-byte load where X allows it; q in [K, ldo) becomes 0. */
__global__ void __launch_bounds__(256) gemm__cuda_split_rows_kernel(int rows, int K, const float *X, int64_t ld,
                                                                    float *out, int64_t ldout, int ldo, int pattern,
                                                                    int regions, int *nonfinite)
{
    bool vec = (uintptr_t)X % 16 == 0 && ld % 4 == 0;
    int64_t per_row = ldo / 4, total = (int64_t)rows * per_row;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int r = (int)(e / per_row), q = (int)(e % per_row) * 4;
        const float *src = X + (int64_t)r * ld + q;
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (vec && q + 4 <= K) {
            float4 f = *reinterpret_cast<const float4 *>(src);
            v[0] = f.x; v[1] = f.y; v[2] = f.z; v[3] = f.w;
        } else {
            for (int j = 0; j < 4 && q + j < K; j++) v[j] = src[j];
        }
        float *row = out + (int64_t)r * ldout;
#pragma unroll
        for (int j = 0; j < 4; j++) gemm__cuda_split_put(row, ldo, q + j, v[j], pattern, regions, nonfinite);
    }
}

/* The same for an operand that is not k-major (X(r, q) at X[q*ld + r]):
   32x32 tiles through shared memory, so that reads run along r and writes
   along q, both contiguous. Grid: ldo/32 x rows/32 blocks of 32x8. */
__global__ void __launch_bounds__(256) gemm__cuda_split_cols_kernel(int rows, int K, const float *X, int64_t ld,
                                                                    float *out, int64_t ldout, int ldo, int pattern,
                                                                    int regions, int *nonfinite)
{
    __shared__ float tile[32][33]; /* [q][r] */
    int r0 = (int)blockIdx.y * 32, q0 = (int)blockIdx.x * 32, tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    for (int i = ty; i < 32; i += 8)
        tile[i][tx] = r0 + tx < rows && q0 + i < K ? X[(int64_t)(q0 + i) * ld + r0 + tx] : 0.0f;
    __syncthreads();
    for (int i = ty; i < 32; i += 8)
        if (r0 + i < rows)
            gemm__cuda_split_put(out + (int64_t)(r0 + i) * ldout, ldo, q0 + tx, tile[tx][i], pattern, regions, nonfinite);
}

/* Region 2 = hc of region 0 (hi) for rows of both operands, only when the
   split saw an Inf or a NaN (*nonfinite); otherwise every thread returns at
   once and region 2 is never read. */
__global__ void __launch_bounds__(256) gemm__cuda_split_hc_kernel(int rows_a, int rows_b, float *a, float *b,
                                                                  int64_t ldout, int ldo, const int *nonfinite)
{
    if (!*nonfinite) return;
    int64_t per = (int64_t)(rows_a + rows_b) * ldo;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < per; e += (int64_t)gridDim.x * blockDim.x) {
        int r = (int)(e / ldo), q = (int)(e % ldo);
        float *row = r < rows_a ? a + (int64_t)r * ldout : b + (int64_t)(r - rows_a) * ldout;
        float hi = row[q];
        row[2 * (int64_t)ldo + q] = isfinite(hi) ? hi : 0.0f;
    }
}
