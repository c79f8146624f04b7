/* bench/research/exact/f64_frag.cuh - the fp64 tile layout in shared memory
   and the DMMA (mma.sync .f64) fragments read from it with 16-byte loads.
   Host and device code: model.cu checks every mapping here on the host
   (coverage, the products, bank conflicts).

   Tiles. One K tile is 16 doubles (128 bytes) deep. A k-major operand tile
   is SIDE rows of 128 bytes; an M-(N-)major one is SIDE/16 boxes of 16 k
   rows x 16 side elements (2 KB each). Both use the 128-byte swizzle of the
   copy engine (CU_TENSOR_MAP_SWIZZLE_128B): in each 128-byte row r the
   16-byte chunk c is stored at chunk c ^ (r % 8). The TMA kernel has the
   copy engine write exactly this; the cp.async kernels write it themselves.

   Fragments. mma.m16n8k8.f64: lane = 4g + t holds A(row g + 8i, slot t + 4j)
   as a[i + 2j], B(slot t + 4j, col g) as b[j], D(row g + 8i, col 2t + q) as
   d[2i + q]. The 8 k "slots" may stand for any 8 k of the tile as long as A
   and B agree, and the 16 rows and 8 columns for any rows and columns of
   their tiles. Here, in step s (0, 1) of the 16-deep tile, slot t + 4j is
   k = 2t + 8s + j, so a lane's two k are neighbours: one 16-byte load holds
   both when the operand is k-major. For an M-major A, MMA rows g and g+8 are
   tile rows 2g and 2g+1 (neighbours again); for an N-major B, the two
   n-tiles 2p and 2p+1 interleave (column g of tile 2p+h is tile column
   16p + 2g + h). For a k-major operand the row order is permuted so that the
   8 lanes of each quarter-warp (g = 2p, 2p+1; t = 0..3) read 8 different
   16-byte bank groups: A row g -> 2*sigma(g) (+1 for g+8), B column g ->
   rho(g). m16n8k16 is two such steps in one instruction (its a[0..3] and
   a[4..7] are the two steps' a, its b[0..1] and b[2..3] the two steps' b).

   Every 16-byte fragment load of a warp is then 4 wavefronts, the minimum
   (model.cu counts them). */
#ifndef RX_F64_FRAG_CUH
#define RX_F64_FRAG_CUH

#include "common.cuh"

namespace rx {

/* doubles offset of (side index s, k index q, 0 <= q < 16) in a tile */
RX_HD constexpr int d_kmaj(int s, int q) { return s * 16 + ((((q >> 1) ^ s) & 7) << 1) + (q & 1); }
RX_HD constexpr int d_mnmaj(int s, int q)
{
    return (s >> 4) * 256 + q * 16 + (((((s & 15) >> 1) ^ q) & 7) << 1) + (s & 1);
}
template <bool KMAJ> RX_HD constexpr int d_off(int s, int q) { return KMAJ ? d_kmaj(s, q) : d_mnmaj(s, q); }

RX_HD constexpr int d_rho(int g) { return ((g & 1) << 2) | (g >> 1); }
RX_HD constexpr int d_sigma(int g) { return (g & 4) | ((g & 1) << 1) | ((g >> 1) & 1); }

struct dpair {
    double x, y;
};
RX_HD dpair d_ld2(const double *p)
{
#ifdef __CUDA_ARCH__
    double2 v = *reinterpret_cast<const double2 *>(p);
    return dpair{v.x, v.y};
#else
    return dpair{p[0], p[1]};
#endif
}

/* The MMA's two operands: X gives its rows (mma's A), Y its columns (mma's
   B). Normally X = op(A) and Y = op(B); when op(A) is k-major and op(B) is
   not, the warp computes C^T instead (X = op(B)^T, Y = op(A)^T), so that
   the M-(N-)major operand is always X: its 16-byte loads (rows 2g, 2g+1 at
   one k) are a[0..1] or a[2..3] as they stand, and a k-major Y's (two k of
   one column) are b[0..1]. Only with both operands k-major does a k-major
   X need its two loads interleaved (register moves); an N-major Y is read
   with 8-byte loads (no moves, no bank conflicts either).

   A lane's loads are a few per-lane base offsets (doubles from the tile's
   start, the warp's origin included) plus constants, so that every load of
   a K tile uses an immediate offset. model.cu checks them against
   d_kmaj / d_mnmaj. */
template <bool XK> struct XFrag {
    int base[4];
    /* wx: the warp's first row (a multiple of 16) in the X tile */
    RX_HD XFrag(int wx, int g, int t)
    {
        if (XK) { /* base[2s + j]: row 2 sigma(g) + j, k = 2t + 8s */
            int r0 = 2 * d_sigma(g), x = r0 & 7;
            for (int s = 0; s < 2; s++)
                for (int j = 0; j < 2; j++) base[2 * s + j] = (wx + r0 + j) * 16 + ((((t + 4 * s) ^ x ^ j) & 7) << 1);
        } else { /* base[j]: rows 2g, 2g+1, k = 2t + j */
            for (int j = 0; j < 2; j++) base[j] = (wx >> 4) * 256 + (2 * t + j) * 16 + (((g ^ (2 * t + j)) & 7) << 1);
            base[2] = base[3] = 0;
        }
    }
    /* offset of load j (0, 1) for 16-row tile mt, step s */
    RX_HD int off(int mt, int s, int j) const { return XK ? base[2 * s + j] + 256 * mt : base[j] + 256 * mt + 128 * s; }
    RX_HD void load(const double *X, int mt, int s, double (&f)[4]) const
    {
        dpair v0 = d_ld2(X + off(mt, s, 0)), v1 = d_ld2(X + off(mt, s, 1));
        if (XK) { /* v0: row of mma row g at k, k+1; v1: row of mma row g+8 */
            f[0] = v0.x; f[1] = v1.x; f[2] = v0.y; f[3] = v1.y;
        } else { /* v0: rows of mma rows g, g+8 at k; v1: at k+1 */
            f[0] = v0.x; f[1] = v0.y; f[2] = v1.x; f[3] = v1.y;
        }
    }
    /* tile row (in the 16) of mma row g; mma row g+8 is the next one */
    RX_HD static int row(int g) { return 2 * (XK ? d_sigma(g) : g); }
};

template <bool YK> struct YFrag {
    int base[4];
    /* wy: the warp's first column (a multiple of 16) in the Y tile */
    RX_HD YFrag(int wy, int g, int t)
    {
        if (YK) { /* base[s]: column rho(g), k = 2t + 8s and the next (one 16-byte load) */
            int rr = d_rho(g);
            for (int s = 0; s < 2; s++) base[s] = (wy + rr) * 16 + ((((t + 4 * s) ^ rr) & 7) << 1);
            base[2] = base[3] = 0;
        } else { /* base[2h + j]: column 8h + g, k = 2t + j (one 8-byte load each) */
            for (int h = 0; h < 2; h++)
                for (int j = 0; j < 2; j++) {
                    int n = 8 * h + g;
                    base[2 * h + j] = (wy >> 4) * 256 + (2 * t + j) * 16 + (((((n & 15) >> 1) ^ (2 * t + j)) & 7) << 1) + (n & 1);
                }
        }
    }
    /* offset of the load for n-tile nt (8 columns), step s; j: the 8-byte load (N-major) */
    RX_HD int off(int nt, int s, int j) const
    {
        return YK ? base[s] + 128 * nt : base[2 * (nt & 1) + j] + 256 * (nt >> 1) + 128 * s;
    }
    RX_HD void load(const double *Y, int nt, int s, double (&f)[2]) const
    {
        if (YK) {
            dpair v = d_ld2(Y + off(nt, s, 0));
            f[0] = v.x; f[1] = v.y;
        } else {
            f[0] = Y[off(nt, s, 0)];
            f[1] = Y[off(nt, s, 1)];
        }
    }
    /* tile column (in the 8) of d[2i + q] */
    RX_HD static int col(int t, int q) { return YK ? 4 * q + t : 2 * t + q; }
};

/* Which operand plays which role. SWAP: op(A) k-major, op(B) not: X =
   op(B)^T, Y = op(A)^T. ATRANS: both k-major: op(A) is copied into shared
   memory transposed (M-major, 8-byte copies: d_copy_tile_t) so that X is
   M-major there too. So X is always M-(N-)major in shared memory (XK is
   false); XFrag<true> (k-major X, register moves) is kept for model.cu. */
template <bool AK, bool BKM> struct DRoles {
    static constexpr bool SWAP = AK && !BKM, ATRANS = AK && BKM, XK = false, YK = SWAP ? AK : BKM,
                          A_SMEM_KMAJ = AK && !ATRANS; /* the layout of A's shared tile */
};

/* ---- the DMMA instructions (sm_90: m16n8k8 and m16n8k16 natively) ---- */
__device__ __forceinline__ void dmma8(double (&d)[4], const double (&a)[4], const double (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    (void)d; (void)a; (void)b;
#endif
}
/* a0/b0: step 0, a1/b1: step 1 */
__device__ __forceinline__ void dmma16(double (&d)[4], const double (&a0)[4], const double (&a1)[4],
                                       const double (&b0)[2], const double (&b1)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a0[0]), "d"(a0[1]), "d"(a0[2]), "d"(a0[3]), "d"(a1[0]), "d"(a1[1]), "d"(a1[2]), "d"(a1[3]),
                   "d"(b0[0]), "d"(b0[1]), "d"(b1[0]), "d"(b1[1]));
#else
    (void)d; (void)a0; (void)a1; (void)b0; (void)b1;
#endif
}

/* One warp's MT x NTL tiles of 16x8 (X rows x Y columns) over one 16-deep
   K tile: per step the Y fragments, then per 16-row tile its X fragment
   and the MMAs. KI = 8: m16n8k8 per step; KI = 16: one m16n8k16 for both. */
template <bool XK, bool YK, int MT, int NTL, int KI>
__device__ __forceinline__ void d_warp_tile(const double *Xs, const double *Ys, const XFrag<XK> &FX,
                                            const YFrag<YK> &FY, double (&acc)[MT][NTL][4])
{
    if constexpr (KI == 16) {
        double b[2][NTL][2];
#pragma unroll
        for (int s = 0; s < 2; s++)
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) FY.load(Ys, nt, s, b[s][nt]);
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            double a0[4], a1[4];
            FX.load(Xs, mt, 0, a0);
            FX.load(Xs, mt, 1, a1);
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) dmma16(acc[mt][nt], a0, a1, b[0][nt], b[1][nt]);
        }
    } else {
#pragma unroll
        for (int s = 0; s < 2; s++) {
            double b[NTL][2];
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) FY.load(Ys, nt, s, b[nt]);
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                double a[4];
                FX.load(Xs, mt, s, a);
#pragma unroll
                for (int nt = 0; nt < NTL; nt++) dmma8(acc[mt][nt], a, b[nt]);
            }
        }
    }
}

/* X row and Y column (from the warp's origin) of accumulator r of tile (mt, nt) */
template <bool XK, bool YK> RX_HD void d_acc_pos(int mt, int nt, int r, int g, int t, int &x, int &y)
{
    x = 16 * mt + XFrag<XK>::row(g) + (r >> 1);
    y = 8 * nt + YFrag<YK>::col(t, r & 1);
}

/* Writes a warp's accumulators; x0 / y0: the warp's first X row and Y
   column in C's terms (m and n, or n and m when SWAP). */
template <bool SWAP, bool XK, bool YK, int MT, int NTL>
__device__ __forceinline__ void d_warp_store(const double (&acc)[MT][NTL][4], int x0, int y0, int g, int t, int M,
                                             int N, double alpha, double beta, double *C, int64_t ldc, int atomic)
{
    bool vec = ((uintptr_t)C & 15) == 0 && (ldc & 1) == 0;
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
#pragma unroll
        for (int nt = 0; nt < NTL; nt++)
#pragma unroll
            for (int q = 0; q < 2; q++) {
                int x, y; /* acc[q] at (x, y), acc[2 + q] at (x + 1, y) */
                d_acc_pos<XK, YK>(mt, nt, q, g, t, x, y);
                x += x0;
                y += y0;
                if (!SWAP) { /* rows x, x+1 of column y */
                    if (x < M && y < N)
                        store2(&C[x + (int64_t)y * ldc], acc[mt][nt][q], acc[mt][nt][2 + q], M - x, alpha, beta, atomic,
                               vec);
                } else { /* row y of columns x, x+1 */
                    if (y < M) {
                        if (x < N) store1(&C[y + (int64_t)x * ldc], acc[mt][nt][q], alpha, beta, atomic);
                        if (x + 1 < N) store1(&C[y + (int64_t)(x + 1) * ldc], acc[mt][nt][2 + q], alpha, beta, atomic);
                    }
                }
            }
    }
}

/* ---- cp.async copies of one operand's K tile into the layout above ---- */

/* X points at element (side 0, k 0) of the tile; ld its leading dimension;
   side_left / k_left bound the valid part (the rest becomes zeros). The
   copies are spread over NT threads (tid). VEC = 2: 16-byte copies (X and
   ld 16-byte aligned):
     k-major: thread -> 128-byte row (tid / 8) + i*NT/8, chunk tid % 8
       (8 threads read a row; the swizzle is the same for all its rows);
     M-major: thread -> k rows r and r + 8 (r = tid / (NT/8)) and chunks
       tid % (NT/8) + u*NT/8 of them (the swizzle is the same for all);
   so a thread's shared-memory offsets differ by constants.
   VEC = 1: 8-byte copies, element by element. */
#pragma nv_exec_check_disable
template <int SIDE, bool KMAJ, int VEC, int NT, typename CP>
RX_HD void d_copy_tile_with(double *s, const double *X, int64_t ld, int side_left, int k_left, int tid, CP cp)
{
    if constexpr (VEC == 2) {
        if constexpr (KMAJ) {
            constexpr int ROWS = NT / 8, ITER = SIDE / ROWS;
            static_assert(NT % 64 == 0 && SIDE % ROWS == 0, "k-major tile does not split evenly");
            int r = tid >> 3, c = tid & 7, q = 2 * c, kv = min(2, max(0, k_left - q));
            double *d = s + d_kmaj(r, q);
            const double *gp = X + (int64_t)r * ld + q;
            int64_t step = (int64_t)ROWS * ld;
            if (side_left >= SIDE && k_left >= 16) { /* the whole tile: no bounds */
RX_UNROLL(unroll)
                for (int i = 0; i < ITER; i++) {
                    cp(d + i * ROWS * 16, gp, 16, 16);
                    gp += step;
                }
                return;
            }
RX_UNROLL(unroll)
            for (int i = 0; i < ITER; i++) {
                int valid = r + i * ROWS < side_left ? kv : 0;
                cp(d + i * ROWS * 16, valid > 0 ? gp : X, 16, valid * 8);
                gp += step;
            }
        } else {
            constexpr int TPR = NT / 8, CR = SIDE / 2, U = CR / TPR;
            static_assert(TPR % 8 == 0 && CR % TPR == 0, "M-major tile does not split evenly");
            int r = tid / TPR, s2 = tid % TPR;
            double *d = s + d_mnmaj(2 * s2, r);
            if (side_left >= SIDE && k_left >= 16) { /* the whole tile: no bounds */
RX_UNROLL(unroll)
                for (int j = 0; j < 2; j++) {
                    const double *gp = X + (int64_t)(r + 8 * j) * ld + 2 * s2;
RX_UNROLL(unroll)
                    for (int u = 0; u < U; u++) cp(d + 256 * (u * TPR / 8) + 128 * j, gp + 2 * u * TPR, 16, 16);
                }
                return;
            }
RX_UNROLL(unroll)
            for (int j = 0; j < 2; j++) {
                int q = r + 8 * j;
                const double *gp = X + (int64_t)q * ld + 2 * s2;
RX_UNROLL(unroll)
                for (int u = 0; u < U; u++) {
                    int side = 2 * (s2 + u * TPR), valid = q < k_left ? min(2, max(0, side_left - side)) : 0;
                    /* side + 2u*TPR: box (side >> 4) + u*TPR/8; row q + 8j */
                    cp(d + 256 * (u * TPR / 8) + 128 * j, valid > 0 ? gp + 2 * u * TPR : X, 16, valid * 8);
                }
            }
        }
    } else {
        constexpr int ELEMS = SIDE * 16;
        static_assert(ELEMS % NT == 0, "tile does not split evenly over the threads");
RX_UNROLL(unroll 2)
        for (int i = 0; i < ELEMS / NT; i++) {
            int e = tid + i * NT, side = KMAJ ? e >> 4 : e % SIDE, q = KMAJ ? e & 15 : e / SIDE;
            bool valid = side < side_left && q < k_left;
            const double *g = X + (KMAJ ? (int64_t)side * ld + q : (int64_t)q * ld + side);
            cp(s + d_off<KMAJ>(side, q), valid ? g : X, 8, valid ? 8 : 0);
        }
    }
}

/* A k-major operand (X(side, q) at X[side*ld + q]) into the M-major layout,
   element by element (8-byte copies): a warp reads 4 rows x 8 k (64
   contiguous bytes each) and writes 16 distinct 8-byte bank pairs per
   half-warp. */
#pragma nv_exec_check_disable
template <int SIDE, int NT, typename CP>
RX_HD void d_copy_tile_t_with(double *s, const double *X, int64_t ld, int side_left, int k_left, int tid, CP cp)
{
    constexpr int ELEMS = SIDE * 16;
    static_assert(ELEMS % NT == 0 && NT % 32 == 0, "tile does not split evenly over the threads");
    bool full = side_left >= SIDE && k_left >= 16;
RX_UNROLL(unroll 4)
    for (int i = 0; i < ELEMS / NT; i++) {
        int e = tid + i * NT, rest = e >> 3, side = rest % SIDE, q = (e & 7) + 8 * (rest / SIDE);
        bool valid = full || (side < side_left && q < k_left);
        cp(s + d_mnmaj(side, q), valid ? X + (int64_t)side * ld + q : X, 8, valid ? 8 : 0);
    }
}

template <int SIDE, int NT>
__device__ __forceinline__ void d_copy_tile_t(double *s, const double *X, int64_t ld, int side_left, int k_left, int tid)
{
    d_copy_tile_t_with<SIDE, NT>(s, X, ld, side_left, k_left, tid, [](double *d, const double *g, int, int src_bytes) {
        if (src_bytes == 8) cp_async_full<8>(d, g);
        else cp_async<8>(d, g, src_bytes);
    });
}

template <int SIDE, bool KMAJ, int VEC, int NT>
__device__ __forceinline__ void d_copy_tile(double *s, const double *X, int64_t ld, int side_left, int k_left, int tid)
{
    d_copy_tile_with<SIDE, KMAJ, VEC, NT>(s, X, ld, side_left, k_left, tid,
                                          [](double *d, const double *g, int bytes, int src_bytes) {
                                              if (bytes == 16) {
                                                  if (src_bytes == 16) cp_async_full<16>(d, g);
                                                  else cp_async<16>(d, g, src_bytes);
                                              } else {
                                                  cp_async<8>(d, g, src_bytes);
                                              }
                                          });
}

} // namespace rx

#endif
