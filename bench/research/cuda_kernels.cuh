/* bench/research/cuda_kernels.cuh - research configurations of gemm_cuda.cuh's
   exact kernels, kept compiling beside the shipped header (which holds only
   the configurations that ship). Included after gemm_cuda.cuh with
   GEMM_IMPLEMENTATION: it builds on the header's internal pieces (the
   cp.async ring, the tile copies, the SIMT fragment reads, the m16n8k4
   DMMA wrapper, the SIMT and DMMA kernel templates and their launch) and
   adds two kernels of its own:
     - SIMT2 (fp32): both tiles in one [k][side] layout, so each fragment
       read is a 16-byte load for one k, fragments of k+1 read while k is
       multiplied; a k-major operand goes through registers and is
       transposed into shared memory;
     - DMMA with double-buffered fragments (fp64): every fragment of step
       k+4 is read before the mma of step k.
   research_gemm() runs one configuration ("variant", numbered as in
   bench/RESULTS.md's tuning tables) on device pointers. Define
   RESEARCH_NN_ONLY to compile only the row-major NN layout (A' not k-major,
   B' k-major); every other layout is then refused. */

/* SIMT2 keeps both tiles as [BK][side + 4] (the side index contiguous), so
   every fragment read is one 16-byte load per 4 values for one k, and the
   fragments of k+1 are read while k is multiplied (two register sets). An
   operand that is not k-major goes there by cp.async as in the ring; a
   k-major one through registers: 16-byte global loads issued before the
   multiply of the current tile, written transposed after it. Two stages.
   Chunk c of a k-major tile: 16 consecutive rows per half-warp, the two
   half-warps on neighbouring 4-wide k chunks, so the transposed 4-byte
   stores of a warp hit 32 distinct banks and each row reads 32 bytes. */
template <int SIDE, int BK, int NT> struct research_kstage {
    static constexpr int V = 4, PER_ROW = BK / V, CHUNKS = SIDE * PER_ROW, PER_T = CHUNKS / NT, SLD = SIDE + 4;
    static_assert(CHUNKS % NT == 0 && SIDE % 16 == 0 && PER_ROW % 2 == 0, "k-major tile does not split evenly");
    float v[PER_T][V];
    static __device__ __forceinline__ void where(int u, int &r, int &col)
    {
        int c = (int)threadIdx.x + u * NT;
        r = (c / (16 * PER_ROW)) * 16 + c % 16;
        col = ((c / 16) % PER_ROW) * V;
    }
    /* X: element (side 0, k 0) of the tile; rows past side_left, k past k_left read as zero */
    __device__ __forceinline__ void ldg(const float *X, int64_t ld, int side_left, int k_left)
    {
#pragma unroll
        for (int u = 0; u < PER_T; u++) {
            int r, col;
            where(u, r, col);
            const float *g = X + (int64_t)r * ld + col;
            if (r < side_left && col + V <= k_left) {
                float4 x = *reinterpret_cast<const float4 *>(g);
                v[u][0] = x.x; v[u][1] = x.y; v[u][2] = x.z; v[u][3] = x.w;
            } else {
#pragma unroll
                for (int e = 0; e < V; e++) v[u][e] = r < side_left && col + e < k_left ? g[e] : 0.0f;
            }
        }
    }
    __device__ __forceinline__ void sts(float *s) const
    {
#pragma unroll
        for (int u = 0; u < PER_T; u++) {
            int r, col;
            where(u, r, col);
#pragma unroll
            for (int e = 0; e < V; e++) s[(col + e) * SLD + r] = v[u][e];
        }
    }
};

/* LM: threads of a warp along M (8 or 4; the other 32/LM along N). */
template <int BM, int BN, int BK, int TM, int TN, int MINB, int SWZ, int LM, bool AK, bool BKM>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), MINB)
research_simt2_kernel(int M, int N, int K, int kchunk, float alpha, const float *A, int64_t lda, const float *B,
                        int64_t ldb, float beta, float *C, int64_t ldc, int atomic)
{
    constexpr int NT = (BM / TM) * (BN / TN), V = 4, LN = 32 / LM, XT = BM / TM, SLDA = BM + 4, SLDB = BN + 4,
                  SA = BK * SLDA, SB = BK * SLDB;
    static_assert(XT % LM == 0 && (BN / TN) % LN == 0 && TM % V == 0 && TN % V == 0 && BK % V == 0, "bad tile");
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    float *As = reinterpret_cast<float *>(gemm__cuda_smem), *Bs = As + 2 * SA;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    int tx = (warp % (XT / LM)) * LM + lane % LM, ty = (warp / (XT / LM)) * LN + lane / LM, bm, bn;
    gemm__cuda_block_tile<SWZ>(bm, bn);
    int m0 = bm * BM, n0 = bn * BN;
    int kbeg = (int)blockIdx.z * kchunk, kend = min(K, kbeg + kchunk);
    int ktiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
    const float *Ap = AK ? A + (int64_t)m0 * lda + kbeg : A + m0 + (int64_t)kbeg * lda;
    const float *Bp = BKM ? B + (int64_t)n0 * ldb + kbeg : B + n0 + (int64_t)kbeg * ldb;
    int64_t astep = AK ? BK : (int64_t)BK * lda, bstep = BKM ? BK : (int64_t)BK * ldb;
    research_kstage<BM, BK, NT> sa;
    research_kstage<BN, BK, NT> sb;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    /* issue the loads of tile kt into stage st (k-major ones only into registers) */
    auto issue = [&](int kt, int st) {
        int kleft = kend - kbeg - kt * BK;
        if (AK) sa.ldg(Ap + kt * astep, lda, M - m0, kleft);
        else gemm__cuda_load_tile<float, BK, BM, SLDA, V, NT>(As + st * SA, Ap + kt * astep, lda, kleft, M - m0);
        if (BKM) sb.ldg(Bp + kt * bstep, ldb, N - n0, kleft);
        else gemm__cuda_load_tile<float, BK, BN, SLDB, V, NT>(Bs + st * SB, Bp + kt * bstep, ldb, kleft, N - n0);
        gemm__cuda_cp_commit();
    };
    auto finish = [&](int st) {
        if (AK) sa.sts(As + st * SA);
        if (BKM) sb.sts(Bs + st * SB);
        gemm__cuda_cp_wait<0>();
        __syncthreads();
    };
    if (ktiles > 0) {
        issue(0, 0);
        finish(0);
    }
    for (int kt = 0; kt < ktiles; kt++) {
        int cur = kt & 1;
        bool next = kt + 1 < ktiles;
        if (next) issue(kt + 1, cur ^ 1);
        const float *as = As + cur * SA, *bs = Bs + cur * SB;
        float a[2][TM], b[2][TN];
#pragma unroll
        for (int k = 0; k <= BK; k++) {
            if (k < BK) {
#pragma unroll
                for (int i = 0; i < TM; i += V) {
                    float4 x = *reinterpret_cast<const float4 *>(as + k * SLDA + gemm__cuda_simt_row<false, BM, TM, V>(tx, i));
                    a[k & 1][i] = x.x; a[k & 1][i + 1] = x.y; a[k & 1][i + 2] = x.z; a[k & 1][i + 3] = x.w;
                }
#pragma unroll
                for (int j = 0; j < TN; j += V) {
                    float4 x = *reinterpret_cast<const float4 *>(bs + k * SLDB + gemm__cuda_simt_row<false, BN, TN, V>(ty, j));
                    b[k & 1][j] = x.x; b[k & 1][j + 1] = x.y; b[k & 1][j + 2] = x.z; b[k & 1][j + 3] = x.w;
                }
            }
            if (k > 0) {
                const int p = (k - 1) & 1;
#pragma unroll
                for (int i = 0; i < TM; i++)
#pragma unroll
                    for (int j = 0; j < TN; j++) acc[i][j] = fmaf(a[p][i], b[p][j], acc[i][j]);
            }
        }
        if (next) finish(cur ^ 1);
    }
    gemm__cuda_cp_wait<0>();

#pragma unroll
    for (int j = 0; j < TN; j++) {
        int n = n0 + gemm__cuda_simt_row<false, BN, TN, V>(ty, j);
#pragma unroll
        for (int i = 0; i < TM; i++) {
            int m = m0 + gemm__cuda_simt_row<false, BM, TM, V>(tx, i);
            if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[i][j], alpha, beta, atomic);
        }
    }
}

/* DMMA with double-buffered fragments: the shipped kernel's block and warp
   tiles, but the fragments of step ks+KI are read before the mma of step
   ks (two register sets). */
template <int BM, int BN, int BK, int STAGES, int WARPS_M, int WARPS_N, int MINB, int SWZ, bool AK, bool BKM, int VEC>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, MINB)
research_dmma_db_kernel(int M, int N, int K, int kchunk, double alpha, const double *A, int64_t lda,
                        const double *B, int64_t ldb, double beta, double *C, int64_t ldc, int atomic)
{
    constexpr int NT = 32 * WARPS_M * WARPS_N, PAD = 4, WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16,
                  NTL = WN / 8, KI = 4;
    static_assert(BK % KI == 0 && WM % 16 == 0 && WN % 8 == 0, "bad tile");
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    double *As = reinterpret_cast<double *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN, bm, bn;
    gemm__cuda_block_tile<SWZ>(bm, bn);
    double acc[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;

    gemm__cuda_mainloop<double, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, A, lda, B, ldb, bm, bn, [&](const double *as, const double *bs) {
            double a[2][MT][KI / 2], b[2][NTL][KI / 4];
#pragma unroll
            for (int ks = 0; ks <= BK; ks += KI) {
                const int cur = (ks / KI) % 2;
                if (ks < BK) {
#pragma unroll
                    for (int j = 0; j < NTL; j++)
#pragma unroll
                        for (int i = 0; i < KI / 4; i++) b[cur][j][i] = bs[TB::at(wn + j * 8 + g, ks + t + 4 * i)];
#pragma unroll
                    for (int mt = 0; mt < MT; mt++)
#pragma unroll
                        for (int i = 0; i < KI / 2; i++)
                            a[cur][mt][i] = as[TA::at(wm + mt * 16 + g + 8 * (i % 2), ks + t + 4 * (i / 2))];
                }
                if (ks > 0) {
#pragma unroll
                    for (int mt = 0; mt < MT; mt++)
#pragma unroll
                        for (int j = 0; j < NTL; j++) gemm__cuda_dmma_m16n8k4(acc[mt][j], a[cur ^ 1][mt], b[cur ^ 1][j]);
                }
            }
        });

    int m0 = bm * BM + wm, n0 = bn * BN + wn;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                int m = m0 + mt * 16 + g + 8 * (r / 2), n = n0 + j * 8 + 2 * t + r % 2;
                if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[mt][j][r], alpha, beta, atomic);
            }
}

/* ---- configurations: the shape gemm__cuda_launch_fast takes ---- */

/* SIMT2 (its kernel reads 16 bytes at a time whatever VEC says: operands
   that are not 16-byte aligned take research_unaligned's configuration). */
template <int BM_, int BN_, int BK_, int MINB, int SWZ, int LM> struct research_simt2_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, NT = (BM / 8) * (BN / 8);
    template <bool AK, bool BKM> static size_t smem() { return (size_t)2 * BK * (BM + 4 + BN + 4) * sizeof(float); }
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)research_simt2_kernel<BM, BN, BK, 8, 8, MINB, SWZ, LM, AK, BKM>;
    }
};

template <int BM_, int BN_, int BK_, int STAGES, int WARPS_M, int WARPS_N, int MINB, int SWZ>
struct research_dmma_db_cfg : gemm__cuda_dmma_cfg<BM_, BN_, BK_, STAGES, WARPS_M, WARPS_N, MINB, SWZ> {
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)research_dmma_db_kernel<BM_, BN_, BK_, STAGES, WARPS_M, WARPS_N, MINB, SWZ, AK, BKM, VEC>;
    }
};

/* The configuration that takes operands a configuration cannot copy with
   element-sized copies: itself, but the shipped SIMT for SIMT2. */
template <typename CFG> struct research_unaligned { typedef CFG type; };
template <int BM, int BN, int BK, int MINB, int SWZ, int LM>
struct research_unaligned<research_simt2_cfg<BM, BN, BK, MINB, SWZ, LM>> { typedef gemm__cuda_simt_f32 type; };

/* The variants, numbered as in bench/RESULTS.md; 1 is what gemm_cuda.cuh ships.
   fp32: SIMT variants 2 (1 + swizzled block order) and 8 (256x128, one
   block per SM) are the shipped kernel in another configuration; 3-7 SIMT2. */
template <int V> struct research_s_variant;
template <> struct research_s_variant<1> { typedef gemm__cuda_simt_f32 type; };
template <> struct research_s_variant<2> { typedef gemm__cuda_simt_cfg<float, 128, 128, 16, 8, 8, 3, 2, 8> type; };
template <> struct research_s_variant<3> { typedef research_simt2_cfg<128, 128, 16, 2, 0, 8> type; }; /* warp 8x4 threads */
template <> struct research_s_variant<4> { typedef research_simt2_cfg<128, 128, 16, 2, 8, 8> type; }; /* 3 + swizzle */
template <> struct research_s_variant<5> { typedef research_simt2_cfg<128, 128, 16, 2, 0, 4> type; }; /* warp 4x8 threads */
template <> struct research_s_variant<6> { typedef research_simt2_cfg<128, 128, 8, 2, 0, 8> type; };  /* 3 with BK 8 */
template <> struct research_s_variant<7> { typedef research_simt2_cfg<256, 128, 16, 1, 0, 8> type; }; /* 512 threads */
template <> struct research_s_variant<8> { typedef gemm__cuda_simt_cfg<float, 256, 128, 16, 8, 8, 3, 1, 0> type; };
/* fp64 DMMA: BM, BN, BK, stages, warps M x N, blocks/SM, swizzle. 2, 5, 6
   and 8 (the paired m16n8k8 layout) are not kept: see README.md. */
template <int V> struct research_d_variant;
template <> struct research_d_variant<1> { typedef gemm__cuda_dmma_f64 type; };
template <> struct research_d_variant<3> { typedef research_dmma_db_cfg<128, 64, 16, 3, 4, 2, 2, 0> type; };
template <> struct research_d_variant<4> { typedef gemm__cuda_dmma_cfg<128, 128, 16, 3, 4, 4, 1, 0> type; };
template <> struct research_d_variant<7> { typedef research_dmma_db_cfg<128, 128, 32, 2, 4, 4, 1, 0> type; };

/* ---- launch ---- */

template <typename T, typename CFG, bool AK, bool BKM>
static gemm_status research_launch_aligned(const char *fn, const gemm__problem *p,
                                           const gemm__cuda_operands<T, T, T> &x, int sms, int split,
                                           cudaStream_t stream)
{
    constexpr int V = 16 / (int)sizeof(T);
    bool vec = (uintptr_t)x.a % 16 == 0 && (uintptr_t)x.b % 16 == 0 && p->lda % V == 0 && p->ldb % V == 0;
    return vec ? gemm__cuda_launch_fast<T, CFG, AK, BKM, V>(fn, p, x, sms, split, stream)
               : gemm__cuda_launch_fast<T, typename research_unaligned<CFG>::type, AK, BKM, 1>(fn, p, x, sms, split,
                                                                                               stream);
}

template <typename T, typename CFG>
static gemm_status research_launch(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, T, T> &x,
                                   int sms, int split, cudaStream_t stream)
{
#ifdef RESEARCH_NN_ONLY
    if (!p->a_trans && !p->b_trans) return research_launch_aligned<T, CFG, false, true>(fn, p, x, sms, split, stream);
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: built with RESEARCH_NN_ONLY: row-major NN only", fn);
#else
    if (p->a_trans)
        return p->b_trans ? research_launch_aligned<T, CFG, true, false>(fn, p, x, sms, split, stream)
                          : research_launch_aligned<T, CFG, true, true>(fn, p, x, sms, split, stream);
    return p->b_trans ? research_launch_aligned<T, CFG, false, false>(fn, p, x, sms, split, stream)
                      : research_launch_aligned<T, CFG, false, true>(fn, p, x, sms, split, stream);
#endif
}

/* Variant v of SIMT (fp32) or DMMA (fp64); GEMM_ERR_INVALID_ARG for one
   that is not kept. */
template <typename T>
static gemm_status research_pick(const char *fn, int v, const gemm__problem *p, const gemm__cuda_operands<T, T, T> &x,
                                 int sms, int split, cudaStream_t stream)
{
    if constexpr (sizeof(T) == 4) {
        switch (v) {
        case 1: return research_launch<T, research_s_variant<1>::type>(fn, p, x, sms, split, stream);
        case 2: return research_launch<T, research_s_variant<2>::type>(fn, p, x, sms, split, stream);
        case 3: return research_launch<T, research_s_variant<3>::type>(fn, p, x, sms, split, stream);
        case 4: return research_launch<T, research_s_variant<4>::type>(fn, p, x, sms, split, stream);
        case 5: return research_launch<T, research_s_variant<5>::type>(fn, p, x, sms, split, stream);
        case 6: return research_launch<T, research_s_variant<6>::type>(fn, p, x, sms, split, stream);
        case 7: return research_launch<T, research_s_variant<7>::type>(fn, p, x, sms, split, stream);
        case 8: return research_launch<T, research_s_variant<8>::type>(fn, p, x, sms, split, stream);
        default: break;
        }
    } else {
        switch (v) {
        case 1: return research_launch<T, research_d_variant<1>::type>(fn, p, x, sms, split, stream);
        case 3: return research_launch<T, research_d_variant<3>::type>(fn, p, x, sms, split, stream);
        case 4: return research_launch<T, research_d_variant<4>::type>(fn, p, x, sms, split, stream);
        case 7: return research_launch<T, research_d_variant<7>::type>(fn, p, x, sms, split, stream);
        default: break;
        }
    }
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s variant %d is not kept (bench/research/README.md)", fn,
                      sizeof(T) == 4 ? "simt" : "dmma", v);
}

/* C = alpha*op(A)*op(B) + beta*C on device pointers with variant v of the
   SIMT (fp32) or DMMA (fp64) kernel: gemm_cuda_?gemm's checks and first
   steps, then the research launch instead of the shipped one. */
template <typename T>
static gemm_status research_gemm(int v, cudaStream_t stream, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                 int64_t m, int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B,
                                 int64_t ldb, T beta, T *C, int64_t ldc, int split_k)
{
    static const char *fn = "research_gemm";
    gemm__problem p = {};
    gemm__cuda_gpu gpu;
    bool finished;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare(fn, layout, ta, tb, m, n, k, alpha == T(0), A != NULL, lda, B != NULL, ldb, beta == T(1),
                      C != NULL, ldc, &p);
    if (s != GEMM_OK || p.work == GEMM__WORK_NONE) return s;
    gemm__cuda_operands<T, T, T> x = {p.swapped ? B : A, p.swapped ? A : B, C, alpha, beta};
    if ((s = gemm__cuda_begin(fn, &p, x, stream, &finished)) != GEMM_OK || finished) return s;
    if ((s = gemm__cuda_query(fn, &gpu)) != GEMM_OK) return s;
    if (gpu.major < 8) return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the research kernels need sm_80+", fn);
    return research_pick<T>(fn, v, &p, x, gpu.sms, split_k, stream);
}
