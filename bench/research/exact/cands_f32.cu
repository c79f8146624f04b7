/* bench/research/exact/cands_f32.cu - the fp32 candidates: configurations,
   launches, the registry. */
#include "cands.h"
#include "f32_kernels.cuh"

namespace rx {

template <int BM, int BN, int BK, int WM, int WN, int LM, int STAGES, int MINB, int GROUP> struct SW {
    typedef SWShape<BM, BN, BK, WM, WN, LM> S;
    template <bool AK, bool BKM, int V> static int launch(const Prob<float> &p, RunCtx &c)
    {
        static KernelInfo ki;
        return launch_grid<float>((const void *)s_w_kernel<BM, BN, BK, WM, WN, LM, STAGES, MINB, GROUP, AK, BKM, V>,
                                  S::NT, S::template smem_bytes<AK, BKM, STAGES>(), ki, BM, BN, BK, p, c);
    }
};

template <typename CFG> static int run(const Prob<float> &p, RunCtx &c)
{
    bool v = vec_ok(p);
#define RX_CASE(AK, BKM)                                                                                               \
    if (p.ak == AK && p.bk == BKM) return v ? CFG::template launch<AK, BKM, 4>(p, c) : CFG::template launch<AK, BKM, 1>(p, c);
    RX_CASE(false, false) RX_CASE(false, true) RX_CASE(true, false) RX_CASE(true, true)
#undef RX_CASE
    return -1;
}

/* The configurations that shipped (src/cuda/simt_warp.cuh: 128x128 with
   8x16 or 16x8 threads, 256x128, 128x256) are measured through the library
   as base.v1..base.v4 (baseline.cu); their research copies were removed.
   What remains are the shapes that did not ship. */
const Cand cands_f32[] = {
    {"s_w128x128_k8", 32,
     "128 thr (2x2 warps of 64x64), thread 8x16, BK 8, 4 stages (cuBLAS's SIMT tile 128x128x8), 2 blocks/SM",
     run<SW<128, 128, 8, 64, 64, 8, 4, 2, 8>>, NULL},
    {"s_w128x64", 32, "64 thr (2x1 warps of 64x64), thread 8x16, BK 16, 3 stages, up to 3-4 blocks/SM",
     run<SW<128, 64, 16, 64, 64, 8, 3, 2, 8>>, NULL},
};
const int n_cands_f32 = (int)(sizeof cands_f32 / sizeof cands_f32[0]);

} // namespace rx
