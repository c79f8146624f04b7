/* The fp64 tiles of the TMA DMMA kernel in shared memory and the mma.sync
   .f64 fragments read from them with 16-byte loads (sm_90: m16n8k16).
   Host-and-device index maps with no other dependency, so that the
   research model (bench/research/exact/model.cu) checks these very maps on
   the host: every product, and every load's bank wavefronts.

   Tiles. A K tile is 16 doubles (128 bytes) deep. A k-major operand's tile
   is SIDE rows of 128 bytes; an M-(N-)major one SIDE/16 boxes of 16 k rows
   x 16 side elements (2 KB each). Both are what the copy engine writes with
   CU_TENSOR_MAP_SWIZZLE_128B: in each 128-byte row r, 16-byte chunk c is
   stored at chunk c ^ (r % 8).

   Fragments. mma.m16n8k8.f64: lane 4g + t holds A(row g + 8i, slot t + 4j)
   as a[i + 2j], B(slot t + 4j, col g) as b[j], D(row g + 8i, col 2t + q)
   as d[2i + q]; m16n8k16 is two such steps in one instruction. The 8 slots
   of a step may stand for any 8 k of the tile as long as both operands
   agree, and the rows and columns for any rows and columns: in step s,
   slot t + 4j is k = 2t + 8s + j, so a lane's two k are neighbours (one
   16-byte load when the operand is k-major); for an M-major X, MMA rows g
   and g + 8 are tile rows 2g and 2g + 1 (neighbours again); for an N-major
   Y the two n-tiles 2p, 2p + 1 interleave. A k-major operand's rows are
   permuted (sigma, rho) so that the 8 lanes of each quarter-warp read 8
   different 16-byte bank groups: every 16-byte load of a warp is 4
   wavefronts, the minimum. */
#pragma once

#define GEMM__CUDA_HD __host__ __device__ __forceinline__

/* doubles offset of (side index s, k index q < 16) in a k-major / M-major tile */
GEMM__CUDA_HD constexpr int gemm__cuda_dt_kmaj(int s, int q) { return s * 16 + ((((q >> 1) ^ s) & 7) << 1) + (q & 1); }
GEMM__CUDA_HD constexpr int gemm__cuda_dt_mnmaj(int s, int q)
{
    return (s >> 4) * 256 + q * 16 + (((((s & 15) >> 1) ^ q) & 7) << 1) + (s & 1);
}
GEMM__CUDA_HD constexpr int gemm__cuda_dt_rho(int g) { return ((g & 1) << 2) | (g >> 1); }
GEMM__CUDA_HD constexpr int gemm__cuda_dt_sigma(int g) { return (g & 4) | ((g & 1) << 1) | ((g >> 1) & 1); }

/* Two neighbouring doubles in one 16-byte load (device), or two reads (host). */
GEMM__CUDA_HD double2 gemm__cuda_dt_ld2(const double *p)
{
#ifdef __CUDA_ARCH__
    return *reinterpret_cast<const double2 *>(p);
#else
    return make_double2(p[0], p[1]);
#endif
}

/* The MMA's row operand X (mma's A). XK: X is k-major (both operands
   k-major); else M-(N-)major. A lane's loads are per-lane base offsets
   (doubles, the warp's origin wx included) plus constants, so every load of
   a K tile has an immediate offset. */
template <bool XK> struct gemm__cuda_dt_xfrag {
    int base[4];
    GEMM__CUDA_HD gemm__cuda_dt_xfrag(int wx, int g, int t)
    {
        if (XK) { /* base[2s + j]: tile row 2 sigma(g) + j, k = 2t + 8s and the next */
            int r0 = 2 * gemm__cuda_dt_sigma(g), x = r0 & 7;
            for (int s = 0; s < 2; s++)
                for (int j = 0; j < 2; j++) base[2 * s + j] = (wx + r0 + j) * 16 + ((((t + 4 * s) ^ x ^ j) & 7) << 1);
        } else { /* base[j]: tile rows 2g, 2g + 1 at k = 2t + j */
            for (int j = 0; j < 2; j++) base[j] = (wx >> 4) * 256 + (2 * t + j) * 16 + (((g ^ (2 * t + j)) & 7) << 1);
            base[2] = base[3] = 0;
        }
    }
    /* offset of load j (0, 1) of 16-row tile mt in step s */
    GEMM__CUDA_HD int off(int mt, int s, int j) const { return XK ? base[2 * s + j] + 256 * mt : base[j] + 256 * mt + 128 * s; }
    GEMM__CUDA_HD void load(const double *X, int mt, int s, double (&f)[4]) const
    {
        double2 v0 = gemm__cuda_dt_ld2(X + off(mt, s, 0)), v1 = gemm__cuda_dt_ld2(X + off(mt, s, 1));
        if (XK) { /* v0: MMA row g at k, k + 1; v1: row g + 8 */
            f[0] = v0.x; f[1] = v1.x; f[2] = v0.y; f[3] = v1.y;
        } else { /* v0: MMA rows g, g + 8 at k; v1: at k + 1 */
            f[0] = v0.x; f[1] = v0.y; f[2] = v1.x; f[3] = v1.y;
        }
    }
    /* tile row (of the 16) of MMA row g; MMA row g + 8 is the next one */
    GEMM__CUDA_HD static int row(int g) { return 2 * (XK ? gemm__cuda_dt_sigma(g) : g); }
};

/* The MMA's column operand Y (mma's B). YK: k-major (one 16-byte load per
   n-tile and step); else N-major (two 8-byte loads, also conflict-free). */
template <bool YK> struct gemm__cuda_dt_yfrag {
    int base[4];
    GEMM__CUDA_HD gemm__cuda_dt_yfrag(int wy, int g, int t)
    {
        if (YK) { /* base[s]: tile column rho(g), k = 2t + 8s and the next */
            int rr = gemm__cuda_dt_rho(g);
            for (int s = 0; s < 2; s++) base[s] = (wy + rr) * 16 + ((((t + 4 * s) ^ rr) & 7) << 1);
            base[2] = base[3] = 0;
        } else { /* base[2h + j]: tile column 8h + g, k = 2t + j */
            for (int h = 0; h < 2; h++)
                for (int j = 0; j < 2; j++) {
                    int n = 8 * h + g;
                    base[2 * h + j] =
                        (wy >> 4) * 256 + (2 * t + j) * 16 + (((((n & 15) >> 1) ^ (2 * t + j)) & 7) << 1) + (n & 1);
                }
        }
    }
    /* offset of the load for n-tile nt (8 columns) in step s; j: which 8-byte load (N-major) */
    GEMM__CUDA_HD int off(int nt, int s, int j) const
    {
        return YK ? base[s] + 128 * nt : base[2 * (nt & 1) + j] + 256 * (nt >> 1) + 128 * s;
    }
    GEMM__CUDA_HD void load(const double *Y, int nt, int s, double (&f)[2]) const
    {
        if (YK) {
            double2 v = gemm__cuda_dt_ld2(Y + off(nt, s, 0));
            f[0] = v.x; f[1] = v.y;
        } else {
            f[0] = Y[off(nt, s, 0)];
            f[1] = Y[off(nt, s, 1)];
        }
    }
    /* tile column (of the 8) of d[2i + q] */
    GEMM__CUDA_HD static int col(int t, int q) { return YK ? 4 * q + t : 2 * t + q; }
};

/* Which operand plays which role, from the layouts of op(A) (AK: k-major)
   and op(B) (BKM). SWAP (op(A) k-major, op(B) not): the warp computes C^T,
   X = op(B)^T (N-major) and Y = op(A)^T (k-major), so that no X is k-major
   there. Both k-major: X = op(A) k-major (XK; its fragment interleaves two
   loads in registers). Otherwise X = op(A), Y = op(B). */
template <bool AK, bool BKM> struct gemm__cuda_dt_roles {
    static constexpr bool SWAP = AK && !BKM, XK = AK && BKM, YK = SWAP ? true : BKM;
};

/* The warps of a BM x BN block tile: each a 64 x 32 tile of X rows x Y
   columns, 4 x 4 MMA tiles of 16 x 8. */
template <int BM, int BN, bool AK, bool BKM> struct gemm__cuda_dt_warps {
    typedef gemm__cuda_dt_roles<AK, BKM> R;
    static constexpr int BX = R::SWAP ? BN : BM, BY = R::SWAP ? BM : BN, WX = 64, WY = 32, WARPS_X = BX / WX,
                         WARPS = (BX / WX) * (BY / WY), MT = WX / 16, NTL = WY / 8;
    static_assert(BX % WX == 0 && BY % WY == 0, "the block is not a whole number of 64x32 warp tiles");
};

/* X row and Y column (from the warp's origin) of accumulator r of MMA tile (mt, nt) */
template <bool XK, bool YK> GEMM__CUDA_HD void gemm__cuda_dt_acc_pos(int mt, int nt, int r, int g, int t, int &x, int &y)
{
    x = 16 * mt + gemm__cuda_dt_xfrag<XK>::row(g) + (r >> 1);
    y = 8 * nt + gemm__cuda_dt_yfrag<YK>::col(t, r & 1);
}
