/* bench/research/exact/cands_f64.cu - the fp64 candidates: configurations,
   launches (with the tensor maps of the TMA kernel), the registry. */
#include "cands.h"
#include "f64_kernels.cuh"

#include <string.h>

namespace rx {

/* ---- d_ms: cp.async ring, all threads copy and multiply ---- */
template <int BM, int BN, int STAGES, int MINB, int KI, int GROUP> struct DMs {
    static constexpr int NT = BM * BN / 64, SMEM = STAGES * (BM + BN) * 16 * 8;
    template <bool AK, bool BKM, int V> static int launch(const Prob<double> &p, RunCtx &c)
    {
        static KernelInfo ki;
        return launch_grid<double>((const void *)d_ms_kernel<BM, BN, STAGES, MINB, KI, GROUP, AK, BKM, V>,
                                   NT, SMEM, ki, BM, BN, 16, p, c);
    }
};

/* ---- d_ws: TMA producer warpgroup, NCWG consumer warpgroups, persistent ---- */
typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static encode_fn get_encode()
{
    static encode_fn f = NULL;
    if (!f) {
        void *p = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess)
            return NULL;
        f = (encode_fn)p;
    }
    return f;
}

/* An fp64 operand of `rows` x K (k-major: X(r, q) at X[r*ld + q], boxes of
   16 k x box_rows rows; else X(r, q) at X[q*ld + r], boxes of 16 rows x
   16 k), 128-byte swizzle, zeros outside. */
static int encode_operand(CUtensorMap *map, const double *X, int64_t ld, bool kmajor, int rows, int K, int box_rows)
{
    encode_fn enc = get_encode();
    if (!enc) {
        fprintf(stderr, "no cuTensorMapEncodeTiled in the driver\n");
        return -1;
    }
    cuuint64_t dims[2], strides[1] = {(cuuint64_t)ld * 8};
    cuuint32_t box[2], unit[2] = {1, 1};
    if (kmajor) {
        dims[0] = (cuuint64_t)K; dims[1] = (cuuint64_t)rows;
        box[0] = 16; box[1] = (cuuint32_t)box_rows;
    } else {
        dims[0] = (cuuint64_t)rows; dims[1] = (cuuint64_t)K;
        box[0] = 16; box[1] = 16;
    }
    CUresult r = enc(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 2, (void *)X, dims, strides, box, unit,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed (%d): rows %d K %d ld %lld kmajor %d\n", (int)r, rows, K,
                (long long)ld, (int)kmajor);
        return -1;
    }
    return 0;
}

/* PERSIST: grid = at most the block slots, each block walks the units;
   else one block per unit. */
template <int NCWG, int STAGES, int KI, int GROUP, bool PERSIST> struct DWs {
    template <bool AK, bool BKM, int V> static int launch(const Prob<double> &p, RunCtx &c)
    {
        typedef DWsShape<NCWG> S;
        static KernelInfo ki;
        const void *k = (const void *)d_ws_kernel<NCWG, STAGES, KI, GROUP, AK, BKM, V>;
        int smem = S::smem(STAGES);
        if (kernel_prepare(k, S::THREADS, smem, ki)) return -1;
        int tm = (p.M + S::BM - 1) / S::BM, tn = (p.N + S::BN - 1) / S::BN, split, slots = c.sms * ki.per_sm;
        int kchunk = choose_kchunk(p.K, 16, tm * tn, slots, c.split_req, &split);
        int units = tm * tn * split, grid = PERSIST && units > slots ? slots : units, atomic = split > 1;
        CUtensorMap ma, mb;
        memset(&ma, 0, sizeof ma);
        memset(&mb, 0, sizeof mb);
        if (V == 2 && ((!(AK && BKM) && encode_operand(&ma, p.A, p.lda, p.ak, p.M, p.K, S::BM)) ||
                       encode_operand(&mb, p.B, p.ldb, p.bk, p.N, p.K, S::BN)))
            return -1;
        if (atomic) {
            scale_kernel<double><<<1024, 256, 0, c.stream>>>(p.M, p.N, p.beta, p.C, p.ldc);
            if (cudaGetLastError() != cudaSuccess) return -1;
        }
        int M = p.M, N = p.N, K = p.K;
        double alpha = p.alpha, beta = p.beta;
        const double *A = p.A, *B = p.B;
        double *C = p.C;
        int64_t lda = p.lda, ldb = p.ldb, ldc = p.ldc;
        void *args[] = {&ma, &mb, &tm, &tn, &split, &M, &N, &K, &kchunk, &alpha, (void *)&A, &lda,
                        (void *)&B, &ldb, &beta, (void *)&C, &ldc, &atomic};
        c.grid = grid;
        c.split = split;
        c.block = S::THREADS;
        c.smem = smem;
        c.per_sm = ki.per_sm;
        c.regs = ki.regs;
        c.local_bytes = ki.local_bytes;
        cudaError_t e = cudaLaunchKernel(k, dim3((unsigned)grid), dim3(S::THREADS), args, (size_t)smem, c.stream);
        if (e != cudaSuccess) {
            fprintf(stderr, "launch: %s\n", cudaGetErrorString(e));
            return -1;
        }
        return 0;
    }
};

/* runtime flags -> one of the 8 instances */
template <typename CFG> static int run(const Prob<double> &p, RunCtx &c)
{
    bool v = vec_ok(p);
#define RX_CASE(AK, BKM)                                                                                               \
    if (p.ak == AK && p.bk == BKM) return v ? CFG::template launch<AK, BKM, 2>(p, c) : CFG::template launch<AK, BKM, 1>(p, c);
    RX_CASE(false, false) RX_CASE(false, true) RX_CASE(true, false) RX_CASE(true, true)
#undef RX_CASE
    return -1;
}

/* The TMA configurations that shipped (src/cuda/dmma_tma.cuh: 128x128 in
   m16n8k16, 128x64 in m16n8k8) are measured through the library as base.v2
   and base.v3 (baseline.cu); their research copies (d_ws_128x128_k16,
   d_ws_128x64) were removed. */
const Cand cands_f64[] = {
    {"d_ms_128x64", 64,
     "cp.async ring 4x16, 128 thr (4 warps of 64x32), m16n8k8, 16-byte fragment loads, 2 blocks/SM, <=255 regs",
     NULL, run<DMs<128, 64, 4, 2, 8, 8>>},
    {"d_ms_128x128", 64, "cp.async ring 4x16, 256 thr (8 warps of 64x32), m16n8k8, 1 block/SM", NULL,
     run<DMs<128, 128, 4, 1, 8, 8>>},
    {"d_ms_128x128_k16", 64, "d_ms_128x128 with m16n8k16 (one DMMA per 16-deep K tile and 16x8 tile)", NULL,
     run<DMs<128, 128, 4, 1, 16, 8>>},
    {"d_ms_64x128", 64, "cp.async ring 4x16, 128 thr (4 warps of 64x32), m16n8k8, 2 blocks/SM", NULL,
     run<DMs<64, 128, 4, 2, 8, 8>>},
    {"d_ws_128x128", 64,
     "TMA producer WG + 2 consumer WGs (8 warps of 64x32), 5 stages, setmaxnreg 40/232, persistent, m16n8k8", NULL,
     run<DWs<2, 5, 8, 8, true>>},
    {"d_ws_128x128_np", 64, "d_ws_128x128, one block per tile (not persistent)", NULL, run<DWs<2, 5, 8, 8, false>>},
};
const int n_cands_f64 = (int)(sizeof cands_f64 / sizeof cands_f64[0]);

} // namespace rx
