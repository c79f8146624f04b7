/* bench/research/exact/model.cu - host-only checks of the fp64 kernels'
   index maps (no GPU needed; runs here and in CI-like places):

     nvcc -std=c++17 -O1 bench/research/exact/model.cu -o build/rx_model && build/rx_model

   1. the shared-memory layout functions d_kmaj / d_mnmaj against the copy
      engine's 128-byte swizzle (bits 7-9 of the byte offset XORed into bits
      4-6), box by box;
   2. the cp.async copies (d_copy_tile_with, d_copy_tile_t_with) for every
      thread: each shared element written exactly once, with the right
      value or zero outside the valid part, and no global read outside it;
   3. the MMA fragments (XFrag, YFrag) and the accumulator map (d_acc_pos):
      an emulation of mma.m16n8k8 / m16n8k16 .f64 on the fragments every
      lane loads, for every warp of each block shape and all four layouts,
      must give the block's C = A * B^T of one K tile exactly (small
      integers);
   4. bank conflicts: for every fragment load instruction of a warp, the
      wavefronts (16-byte loads: 4 quarter-warp phases, 8-byte loads: 2
      half-warp phases, a phase costing the most distinct 4-byte words any
      bank is asked for); the minimum is 4 and 2.
   5. the fp32 kernel (s_w_kernel): one block over one K tile, emulated
      from the same helpers (s_copy_tile_with, s_transpose, SWShape's
      thread geometry): every element of C owned by one thread exactly and
      equal to the sum, at full and cut edges, both copy widths; and the
      banks of its fragment loads (one wavefront per LDS.128: LM or LN
      distinct 16-byte words) and of the transpose.
   6. the shipped TMA DMMA kernel's maps (src/cuda/device/dmma_frag.cuh): its
      layouts equal the ones above, and 3 and 4 for its roles (both
      operands k-major: a k-major X) and block shapes.
   Last line: N passed, N failed. */
#include "f32_kernels.cuh"
#include "f64_kernels.cuh"
/* the shipped TMA DMMA kernel's maps (self-contained part of gemm_cuda.cuh) */
#include "../../../src/cuda/device/dmma_frag.cuh"

#include <algorithm>
#include <map>
#include <math.h>
#include <stdarg.h>
#include <set>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

using namespace rx;

static int passed = 0, failed = 0;
static void check(bool ok, const char *fmt, ...)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static int swz128(int byte) { return byte ^ (((byte >> 7) & 7) << 4); }

/* 1 */
static void check_layouts()
{
    bool ok = true;
    for (int side = 64; side <= 256; side *= 2) {
        std::set<int> seen;
        for (int r = 0; r < side; r++)
            for (int q = 0; q < 16; q++) {
                int phys = swz128(r * 128 + q * 8); /* one box of 16 k x side rows */
                ok &= d_kmaj(r, q) * 8 == phys;
                seen.insert(d_kmaj(r, q));
            }
        ok &= (int)seen.size() == side * 16 && *seen.rbegin() == side * 16 - 1;
        seen.clear();
        for (int s = 0; s < side; s++)
            for (int q = 0; q < 16; q++) {
                int phys = (s / 16) * 2048 + swz128(q * 128 + (s % 16) * 8); /* boxes of 16 side x 16 k, 2 KB apart */
                ok &= d_mnmaj(s, q) * 8 == phys;
                seen.insert(d_mnmaj(s, q));
            }
        ok &= (int)seen.size() == side * 16 && *seen.rbegin() == side * 16 - 1;
    }
    check(ok, "layouts: d_kmaj / d_mnmaj differ from the copy engine's 128-byte swizzle");
}

/* 2: a global matrix of `rows` x `cols` (row stride ld) whose element (r, c) is 1000 r + c + 1 */
struct Global {
    std::vector<double> v;
    int64_t ld;
    int rows, cols;
    Global(int r, int c, int64_t l) : v((size_t)r * l, -7.0), ld(l), rows(r), cols(c)
    {
        for (int i = 0; i < r; i++)
            for (int j = 0; j < c; j++) v[(size_t)i * l + j] = 1000.0 * i + j + 1;
    }
    bool inside(const double *p) const
    {
        int64_t o = p - v.data();
        return o >= 0 && o < (int64_t)v.size() && (o % ld) < cols;
    }
};

/* copy of one tile: KMAJ: global rows are the side index; else the k index */
template <int SIDE, bool KMAJ, int VEC, int NT, bool TRANS>
static void check_copy(int side_left, int k_left)
{
    /* global: KMAJ (or TRANS): side rows x k cols; else: k rows x side cols. Offset the tile by (3, 5). */
    int grows = (KMAJ || TRANS) ? 3 + std::min(side_left, SIDE) : 5 + std::min(k_left, 16);
    int gcols = (KMAJ || TRANS) ? 5 + std::min(k_left, 16) : 3 + std::min(side_left, SIDE);
    Global G(grows, gcols, gcols + 6);
    const double *X = (KMAJ || TRANS) ? &G.v[3 * G.ld + 5] : &G.v[5 * G.ld + 3];
    std::vector<double> s(SIDE * 16, -1.0);
    std::vector<int> writes(SIDE * 16, 0);
    bool bad_read = false;
    auto cp = [&](double *d, const double *g, int bytes, int src_bytes) {
        int n = bytes / 8, ns = src_bytes / 8;
        for (int e = 0; e < n; e++) {
            int64_t o = d + e - s.data();
            if (o < 0 || o >= (int64_t)s.size()) {
                bad_read = true;
                continue;
            }
            writes[o]++;
            if (e < ns) {
                if (!G.inside(g + e)) bad_read = true;
                s[o] = g[e];
            } else s[o] = 0.0;
        }
    };
    for (int tid = 0; tid < NT; tid++) {
        if (TRANS) d_copy_tile_t_with<SIDE, NT>(s.data(), X, G.ld, side_left, k_left, tid, cp);
        else d_copy_tile_with<SIDE, KMAJ, VEC, NT>(s.data(), X, G.ld, side_left, k_left, tid, cp);
    }
    bool ok = !bad_read;
    for (int side = 0; side < SIDE; side++)
        for (int q = 0; q < 16; q++) {
            int o = (KMAJ && !TRANS) ? d_kmaj(side, q) : d_mnmaj(side, q);
            bool valid = side < side_left && q < k_left;
            double want = valid ? ((KMAJ || TRANS) ? 1000.0 * (3 + side) + 5 + q + 1 : 1000.0 * (5 + q) + 3 + side + 1) : 0.0;
            ok &= writes[o] == 1 && s[o] == want;
        }
    check(ok, "copy SIDE %d %s VEC %d NT %d%s side_left %d k_left %d%s", SIDE, KMAJ ? "k-major" : "M-major", VEC, NT,
          TRANS ? " transposed" : "", side_left, k_left, bad_read ? " (out-of-range access)" : "");
}

template <int SIDE, int NT> static void check_copies()
{
    const int sl[] = {SIDE, SIDE - 1, 1, 17, SIDE + 5}, kl[] = {16, 15, 1, 7, 40};
    for (int a : sl)
        for (int b : kl) {
            check_copy<SIDE, true, 2, NT, false>(a, b);
            check_copy<SIDE, false, 2, NT, false>(a, b);
            check_copy<SIDE, true, 1, NT, false>(a, b);
            check_copy<SIDE, false, 1, NT, false>(a, b);
            check_copy<SIDE, true, 1, NT, true>(a, b);
        }
}

/* 4: wavefronts of one shared load instruction; addr: byte addresses per lane, width 8 or 16 */
static int wavefronts(const int (&addr)[32], int width)
{
    int per_phase = 128 / width, total = 0;
    for (int p = 0; p < 32; p += per_phase) {
        std::map<int, std::set<int>> bank_words;
        for (int l = p; l < p + per_phase; l++)
            for (int w = 0; w < width / 4; w++) {
                int word = addr[l] / 4 + w;
                bank_words[word % 32].insert(word);
            }
        int worst = 1;
        for (auto &b : bank_words) worst = std::max(worst, (int)b.second.size());
        total += worst;
    }
    return total;
}

/* 3 and 4 for one block shape and layout */
template <int BM, int BN, bool AK, bool BKM, int KI> static void check_block()
{
    typedef DRoles<AK, BKM> R;
    typedef DWarps<BM, BN, AK, BKM> W;
    /* logical tiles: A(m, q), B(n, q), small integers */
    std::vector<double> At(BM * 16), Bt(BN * 16), sA(BM * 16, NAN), sB(BN * 16, NAN);
    unsigned seed = 12345 + BM * 7 + BN * 13 + AK * 3 + BKM * 5 + KI;
    auto rnd = [&]() {
        seed = seed * 1103515245u + 12345u;
        return (double)((int)((seed >> 16) % 17) - 8);
    };
    for (auto &x : At) x = rnd();
    for (auto &x : Bt) x = rnd();
    for (int m = 0; m < BM; m++)
        for (int q = 0; q < 16; q++) sA[R::A_SMEM_KMAJ ? d_kmaj(m, q) : d_mnmaj(m, q)] = At[m * 16 + q];
    for (int n = 0; n < BN; n++)
        for (int q = 0; q < 16; q++) sB[BKM ? d_kmaj(n, q) : d_mnmaj(n, q)] = Bt[n * 16 + q];
    const double *Xs = R::SWAP ? sB.data() : sA.data(), *Ys = R::SWAP ? sA.data() : sB.data();
    std::vector<double> Cb((size_t)BM * BN, NAN);
    int worst_x = 0, worst_y = 0;
    bool ok = true;
    for (int warp = 0; warp < W::WARPS; warp++) {
        int wx = (warp % W::WARPS_X) * W::WX, wy = (warp / W::WARPS_X) * W::WY;
        std::vector<XFrag<R::XK>> fx;
        std::vector<YFrag<R::YK>> fy;
        for (int lane = 0; lane < 32; lane++) {
            fx.push_back(XFrag<R::XK>(wx, lane / 4, lane % 4));
            fy.push_back(YFrag<R::YK>(wy, lane / 4, lane % 4));
        }
        /* bank conflicts of every load instruction */
        for (int s = 0; s < 2; s++) {
            for (int mt = 0; mt < W::MT; mt++)
                for (int j = 0; j < 2; j++) {
                    int addr[32];
                    for (int l = 0; l < 32; l++) addr[l] = fx[l].off(mt, s, j) * 8;
                    worst_x = std::max(worst_x, wavefronts(addr, 16));
                }
            for (int nt = 0; nt < W::NTL; nt++)
                for (int j = 0; j < (R::YK ? 1 : 2); j++) {
                    int addr[32];
                    for (int l = 0; l < 32; l++) addr[l] = fy[l].off(nt, s, j) * 8;
                    worst_y = std::max(worst_y, wavefronts(addr, R::YK ? 16 : 8) * (R::YK ? 1 : 2));
                }
        }
        /* the products */
        double acc[W::MT][W::NTL][32][4] = {};
        for (int step = 0; step < 2; step += KI / 8) {
            double a[32][W::MT][8], b[32][W::NTL][4];
            for (int l = 0; l < 32; l++) {
                for (int mt = 0; mt < W::MT; mt++)
                    for (int h = 0; h < KI / 8; h++) {
                        double f[4];
                        fx[l].load(Xs, mt, step + h, f);
                        for (int i = 0; i < 4; i++) a[l][mt][4 * h + i] = f[i];
                    }
                for (int nt = 0; nt < W::NTL; nt++)
                    for (int h = 0; h < KI / 8; h++) {
                        double f[2];
                        fy[l].load(Ys, nt, step + h, f);
                        for (int i = 0; i < 2; i++) b[l][nt][2 * h + i] = f[i];
                    }
            }
            /* mma.m16n8kKI: a[i] of lane 4g+t = A(g + 8(i%2), t + 4(i/2)), b[j] = B(t + 4j, g),
               d[r] = D(g + 8(r/2), 2t + r%2) */
            for (int mt = 0; mt < W::MT; mt++)
                for (int nt = 0; nt < W::NTL; nt++) {
                    double Am[16][16], Bm[16][8];
                    for (int l = 0; l < 32; l++) {
                        int g = l / 4, t = l % 4;
                        for (int i = 0; i < KI / 2; i++) Am[g + 8 * (i % 2)][t + 4 * (i / 2)] = a[l][mt][i];
                        for (int j = 0; j < KI / 4; j++) Bm[t + 4 * j][g] = b[l][nt][j];
                    }
                    for (int l = 0; l < 32; l++) {
                        int g = l / 4, t = l % 4;
                        for (int r = 0; r < 4; r++) {
                            int row = g + 8 * (r / 2), col = 2 * t + r % 2;
                            for (int kk = 0; kk < KI; kk++) acc[mt][nt][l][r] += Am[row][kk] * Bm[kk][col];
                        }
                    }
                }
        }
        for (int mt = 0; mt < W::MT; mt++)
            for (int nt = 0; nt < W::NTL; nt++)
                for (int l = 0; l < 32; l++)
                    for (int r = 0; r < 4; r++) {
                        int x, y;
                        d_acc_pos<R::XK, R::YK>(mt, nt, r, l / 4, l % 4, x, y);
                        x += wx;
                        y += wy;
                        int m = R::SWAP ? y : x, n = R::SWAP ? x : y;
                        if (m < 0 || m >= BM || n < 0 || n >= BN || Cb[(size_t)m * BN + n] == Cb[(size_t)m * BN + n])
                            ok = false; /* outside, or written twice */
                        else Cb[(size_t)m * BN + n] = acc[mt][nt][l][r];
                    }
    }
    for (int m = 0; m < BM; m++)
        for (int n = 0; n < BN; n++) {
            double ref = 0;
            for (int q = 0; q < 16; q++) ref += At[m * 16 + q] * Bt[n * 16 + q];
            ok &= Cb[(size_t)m * BN + n] == ref;
        }
    check(ok, "fragments %dx%d AK %d BKM %d k%d: the emulated MMAs do not give A*B", BM, BN, AK, BKM, KI);
    check(worst_x == 4, "banks %dx%d AK %d BKM %d: an X fragment load takes %d wavefronts (4 at best)", BM, BN, AK, BKM,
          worst_x);
    check(worst_y == 4, "banks %dx%d AK %d BKM %d: the Y fragment loads of a tile take %d wavefronts (4 at best)", BM, BN,
          AK, BKM, worst_y);
    printf("  %3dx%-3d A%s B%s k%-2d: X loads %d wavefronts, Y loads %d per tile (%s)\n", BM, BN, AK ? "k" : "m",
           BKM ? "k" : "n", KI, worst_x, worst_y, R::SWAP ? "X = op(B)^T" : R::ATRANS ? "A copied transposed" : "X = op(A)");
}

template <int BM, int BN> static void check_blocks()
{
    check_block<BM, BN, false, false, 8>();
    check_block<BM, BN, false, true, 8>();
    check_block<BM, BN, true, false, 8>();
    check_block<BM, BN, true, true, 8>();
    check_block<BM, BN, false, false, 16>();
    check_block<BM, BN, false, true, 16>();
    check_block<BM, BN, true, false, 16>();
    check_block<BM, BN, true, true, 16>();
}

/* the k-major X fragment (kept for comparison, not used by the kernels): products and banks */
static void check_xk()
{
    std::vector<double> At(64 * 16), sA(64 * 16);
    for (int i = 0; i < 64 * 16; i++) At[i] = (i * 7) % 11 - 5;
    for (int m = 0; m < 64; m++)
        for (int q = 0; q < 16; q++) sA[d_kmaj(m, q)] = At[m * 16 + q];
    bool ok = true;
    int worst = 0;
    for (int s = 0; s < 2; s++)
        for (int mt = 0; mt < 4; mt++) {
            for (int j = 0; j < 2; j++) {
                int addr[32];
                for (int l = 0; l < 32; l++) addr[l] = XFrag<true>(0, l / 4, l % 4).off(mt, s, j) * 8;
                worst = std::max(worst, wavefronts(addr, 16));
            }
            for (int l = 0; l < 32; l++) {
                int g = l / 4, t = l % 4;
                double f[4];
                XFrag<true>(0, g, t).load(sA.data(), mt, s, f);
                for (int i = 0; i < 4; i++) {
                    int row = 16 * mt + XFrag<true>::row(g) + (i % 2), q = 2 * t + 8 * s + (i / 2);
                    ok &= f[i] == At[row * 16 + q];
                }
            }
        }
    check(ok && worst == 4, "k-major X fragments: values %s, %d wavefronts", ok ? "right" : "wrong", worst);
}

/* 6: the shipped maps (gemm__cuda_dt_*): 3 and 4 for one block shape and layout */
template <int BM, int BN, bool AK, bool BKM, int KI> static void check_shipped_block()
{
    typedef gemm__cuda_dt_roles<AK, BKM> R;
    typedef gemm__cuda_dt_warps<BM, BN, AK, BKM> W;
    std::vector<double> At(BM * 16), Bt(BN * 16), sA(BM * 16, NAN), sB(BN * 16, NAN);
    unsigned seed = 777 + BM * 7 + BN * 13 + AK * 3 + BKM * 5 + KI;
    auto rnd = [&]() {
        seed = seed * 1103515245u + 12345u;
        return (double)((int)((seed >> 16) % 17) - 8);
    };
    for (auto &x : At) x = rnd();
    for (auto &x : Bt) x = rnd();
    /* the copy engine writes a k-major operand as gemm__cuda_dt_kmaj, an M-major one as _mnmaj */
    for (int m = 0; m < BM; m++)
        for (int q = 0; q < 16; q++) sA[AK ? gemm__cuda_dt_kmaj(m, q) : gemm__cuda_dt_mnmaj(m, q)] = At[m * 16 + q];
    for (int n = 0; n < BN; n++)
        for (int q = 0; q < 16; q++) sB[BKM ? gemm__cuda_dt_kmaj(n, q) : gemm__cuda_dt_mnmaj(n, q)] = Bt[n * 16 + q];
    const double *Xs = R::SWAP ? sB.data() : sA.data(), *Ys = R::SWAP ? sA.data() : sB.data();
    std::vector<double> Cb((size_t)BM * BN, NAN);
    int worst_x = 0, worst_y = 0;
    bool ok = true;
    for (int warp = 0; warp < W::WARPS; warp++) {
        int wx = (warp % W::WARPS_X) * W::WX, wy = (warp / W::WARPS_X) * W::WY;
        std::vector<gemm__cuda_dt_xfrag<R::XK>> fx;
        std::vector<gemm__cuda_dt_yfrag<R::YK>> fy;
        for (int lane = 0; lane < 32; lane++) {
            fx.push_back(gemm__cuda_dt_xfrag<R::XK>(wx, lane / 4, lane % 4));
            fy.push_back(gemm__cuda_dt_yfrag<R::YK>(wy, lane / 4, lane % 4));
        }
        for (int s = 0; s < 2; s++) {
            for (int mt = 0; mt < W::MT; mt++)
                for (int j = 0; j < 2; j++) {
                    int addr[32];
                    for (int l = 0; l < 32; l++) addr[l] = fx[l].off(mt, s, j) * 8;
                    worst_x = std::max(worst_x, wavefronts(addr, 16));
                }
            for (int nt = 0; nt < W::NTL; nt++)
                for (int j = 0; j < (R::YK ? 1 : 2); j++) {
                    int addr[32];
                    for (int l = 0; l < 32; l++) addr[l] = fy[l].off(nt, s, j) * 8;
                    worst_y = std::max(worst_y, wavefronts(addr, R::YK ? 16 : 8) * (R::YK ? 1 : 2));
                }
        }
        double acc[W::MT][W::NTL][32][4] = {};
        for (int step = 0; step < 2; step += KI / 8) {
            double a[32][W::MT][8], b[32][W::NTL][4];
            for (int l = 0; l < 32; l++) {
                for (int mt = 0; mt < W::MT; mt++)
                    for (int h = 0; h < KI / 8; h++) {
                        double f[4];
                        fx[l].load(Xs, mt, step + h, f);
                        for (int i = 0; i < 4; i++) a[l][mt][4 * h + i] = f[i];
                    }
                for (int nt = 0; nt < W::NTL; nt++)
                    for (int h = 0; h < KI / 8; h++) {
                        double f[2];
                        fy[l].load(Ys, nt, step + h, f);
                        for (int i = 0; i < 2; i++) b[l][nt][2 * h + i] = f[i];
                    }
            }
            for (int mt = 0; mt < W::MT; mt++)
                for (int nt = 0; nt < W::NTL; nt++) {
                    double Am[16][16], Bm[16][8];
                    for (int l = 0; l < 32; l++) {
                        int g = l / 4, t = l % 4;
                        for (int i = 0; i < KI / 2; i++) Am[g + 8 * (i % 2)][t + 4 * (i / 2)] = a[l][mt][i];
                        for (int j = 0; j < KI / 4; j++) Bm[t + 4 * j][g] = b[l][nt][j];
                    }
                    for (int l = 0; l < 32; l++) {
                        int g = l / 4, t = l % 4;
                        for (int r = 0; r < 4; r++) {
                            int row = g + 8 * (r / 2), col = 2 * t + r % 2;
                            for (int kk = 0; kk < KI; kk++) acc[mt][nt][l][r] += Am[row][kk] * Bm[kk][col];
                        }
                    }
                }
        }
        for (int mt = 0; mt < W::MT; mt++)
            for (int nt = 0; nt < W::NTL; nt++)
                for (int l = 0; l < 32; l++)
                    for (int r = 0; r < 4; r++) {
                        int x, y;
                        gemm__cuda_dt_acc_pos<R::XK, R::YK>(mt, nt, r, l / 4, l % 4, x, y);
                        x += wx;
                        y += wy;
                        int m = R::SWAP ? y : x, n = R::SWAP ? x : y;
                        if (m < 0 || m >= BM || n < 0 || n >= BN || Cb[(size_t)m * BN + n] == Cb[(size_t)m * BN + n])
                            ok = false;
                        else Cb[(size_t)m * BN + n] = acc[mt][nt][l][r];
                    }
    }
    for (int m = 0; m < BM; m++)
        for (int n = 0; n < BN; n++) {
            double ref = 0;
            for (int q = 0; q < 16; q++) ref += At[m * 16 + q] * Bt[n * 16 + q];
            ok &= Cb[(size_t)m * BN + n] == ref;
        }
    check(ok, "shipped fragments %dx%d AK %d BKM %d k%d: the emulated MMAs do not give A*B", BM, BN, AK, BKM, KI);
    check(worst_x == 4 && worst_y == 4, "shipped banks %dx%d AK %d BKM %d: X loads %d, Y loads %d wavefronts (4 at best)",
          BM, BN, AK, BKM, worst_x, worst_y);
    printf("  shipped %3dx%-3d A%s B%s k%-2d: X loads %d wavefronts, Y loads %d per tile (%s)\n", BM, BN, AK ? "k" : "m",
           BKM ? "k" : "n", KI, worst_x, worst_y, R::SWAP ? "X = op(B)^T" : R::XK ? "X = op(A), k-major" : "X = op(A)");
}

template <int BM, int BN> static void check_shipped_blocks()
{
    check_shipped_block<BM, BN, false, false, 8>();
    check_shipped_block<BM, BN, false, true, 8>();
    check_shipped_block<BM, BN, true, false, 8>();
    check_shipped_block<BM, BN, true, true, 8>();
    check_shipped_block<BM, BN, false, false, 16>();
    check_shipped_block<BM, BN, false, true, 16>();
    check_shipped_block<BM, BN, true, false, 16>();
    check_shipped_block<BM, BN, true, true, 16>();
}

static void check_shipped_layouts()
{
    bool ok = true;
    for (int s = 0; s < 256; s++)
        for (int q = 0; q < 16; q++) ok &= gemm__cuda_dt_kmaj(s, q) == d_kmaj(s, q) && gemm__cuda_dt_mnmaj(s, q) == d_mnmaj(s, q);
    check(ok, "shipped layouts differ from d_kmaj / d_mnmaj (checked against the copy engine's swizzle above)");
}

/* 5: fp32 */
template <int BM, int BN, int BK, int WM, int WN, int LM, bool AK, bool BKM, int VEC>
static void check_sblock(int m_left, int n_left, int k_left)
{
    typedef SWShape<BM, BN, BK, WM, WN, LM> S;
    constexpr int NT = S::NT;
    /* global operands: A k-major: BM rows (m) x BK cols (k); else BK rows (k) x BM cols (m); B likewise */
    int ar = AK ? BM : BK, ac = AK ? BK : BM, br = BKM ? BN : BK, bc = BKM ? BK : BN;
    int64_t lda = ac + 4, ldb = bc + 8;
    std::vector<float> gA((size_t)ar * lda, 99.f), gB((size_t)br * ldb, 77.f);
    auto Aval = [&](int m, int k) { return (float)((m * 3 + k * 5) % 13 - 6); };
    auto Bval = [&](int n, int k) { return (float)((n * 7 + k * 2) % 11 - 5); };
    for (int m = 0; m < BM; m++)
        for (int k = 0; k < BK; k++) gA[AK ? m * lda + k : k * lda + m] = (m < m_left && k < k_left) ? Aval(m, k) : 1e30f;
    for (int n = 0; n < BN; n++)
        for (int k = 0; k < BK; k++) gB[BKM ? n * ldb + k : k * ldb + n] = (n < n_left && k < k_left) ? Bval(n, k) : 1e30f;
    /* shared: the ring stage (staging when k-major) and the transposed buffer */
    int ra = AK ? BM * (BK + 4) : BK * BM, rb = BKM ? BN * (BK + 4) : BK * BN;
    float *sA = (float *)aligned_alloc(16, ra * 4), *sB = (float *)aligned_alloc(16, rb * 4);
    float *tA = (float *)aligned_alloc(16, BK * BM * 4), *tB = (float *)aligned_alloc(16, BK * BN * 4);
    for (int i = 0; i < ra; i++) sA[i] = NAN;
    for (int i = 0; i < rb; i++) sB[i] = NAN;
    bool bad = false;
    auto cp = [&](float *d, const float *g, int bytes, int src_bytes) {
        for (int e = 0; e < bytes / 4; e++) d[e] = e < src_bytes / 4 ? g[e] : 0.0f;
        if (src_bytes && (g[0] > 1e29f)) bad = true; /* read an element outside the valid part */
    };
    for (int tid = 0; tid < NT; tid++) {
        if (AK) s_copy_tile_with<BM, BK, BK + 4, VEC, NT>(sA, gA.data(), lda, m_left, k_left, tid, cp);
        else s_copy_tile_with<BK, BM, BM, VEC, NT>(sA, gA.data(), lda, k_left, m_left, tid, cp);
        if (BKM) s_copy_tile_with<BN, BK, BK + 4, VEC, NT>(sB, gB.data(), ldb, n_left, k_left, tid, cp);
        else s_copy_tile_with<BK, BN, BN, VEC, NT>(sB, gB.data(), ldb, k_left, n_left, tid, cp);
    }
    int tr_wave = 0;
    if (AK) {
        for (int tid = 0; tid < NT; tid++) s_transpose<BM, BK, NT>(sA, tA, tid);
        for (int w = 0; w < NT / 32; w++) { /* the transpose's LDS.128 of its first pass */
            int addr[32];
            for (int l = 0; l < 32; l++) {
                int c = 32 * w + l;
                addr[l] = ((c % BM) * (BK + 4) + (c / BM) * 4) * 4;
            }
            tr_wave = std::max(tr_wave, wavefronts(addr, 16));
        }
    }
    if (BKM)
        for (int tid = 0; tid < NT; tid++) s_transpose<BN, BK, NT>(sB, tB, tid);
    const float *as = AK ? tA : sA, *bs = BKM ? tB : sB;
    std::vector<int> owner((size_t)BM * BN, 0);
    bool ok = !bad;
    int worst = 0;
    for (int tid = 0; tid < NT; tid++) {
        int wm, wn;
        S::origin(tid, wm, wn);
        for (int i = 0; i < S::TMV; i++)
            for (int j = 0; j < S::TNV; j++) {
                int m = wm + S::m_of(i), n = wn + S::n_of(j);
                float acc = 0;
                for (int k = 0; k < BK; k++) acc += as[k * BM + m] * bs[k * BN + n];
                owner[(size_t)m * BN + n]++;
                if (m < m_left && n < n_left) {
                    float ref = 0;
                    for (int k = 0; k < k_left; k++) ref += Aval(m, k) * Bval(n, k);
                    ok &= acc == ref;
                }
            }
    }
    for (int x : owner) ok &= x == 1;
    /* banks of the fragment loads: per warp and sub-tile, unique 16-byte words, at most ceil(words/32) per bank */
    for (int w = 0; w < NT / 32; w++)
        for (int side = 0; side < 2; side++)
            for (int sub = 0; sub < (side ? S::TNS : S::TMS); sub++) {
                std::map<int, std::set<int>> banks;
                std::set<int> words;
                for (int l = 0; l < 32; l++) {
                    int wm, wn;
                    S::origin(32 * w + l, wm, wn);
                    int f = side ? wn + S::n_of(4 * sub) : wm + S::m_of(4 * sub);
                    for (int e = 0; e < 4; e++) {
                        banks[(f + e) % 32].insert(f + e);
                        words.insert(f + e);
                    }
                }
                int most = 0;
                for (auto &b : banks) most = std::max(most, (int)b.second.size());
                worst = std::max(worst, most - ((int)words.size() + 31) / 32 + 1);
            }
    check(ok, "fp32 %dx%dx%d warp %dx%d LM %d A%s B%s VEC %d edges %d,%d,%d: wrong sums, ownership or reads", BM, BN, BK,
          WM, WN, LM, AK ? "k" : "m", BKM ? "k" : "n", VEC, m_left, n_left, k_left);
    check(worst == 1, "fp32 %dx%dx%d LM %d: fragment loads conflict (%d)", BM, BN, BK, LM, worst);
    check(!AK || tr_wave == 4, "fp32 %dx%dx%d: the transpose's loads take %d wavefronts (4 at best)", BM, BN, BK, tr_wave);
    free(sA); free(sB); free(tA); free(tB);
}

template <int BM, int BN, int BK, int WM, int WN, int LM> static void check_sconfig()
{
    const int e[][3] = {{BM, BN, BK}, {BM - 3, BN - 1, BK - 5}, {1, 1, 1}, {BM / 2 + 1, 7, BK / 2}};
    for (auto &x : e) {
        check_sblock<BM, BN, BK, WM, WN, LM, false, false, 4>(x[0], x[1], x[2]);
        check_sblock<BM, BN, BK, WM, WN, LM, false, true, 4>(x[0], x[1], x[2]);
        check_sblock<BM, BN, BK, WM, WN, LM, true, false, 4>(x[0], x[1], x[2]);
        check_sblock<BM, BN, BK, WM, WN, LM, true, true, 4>(x[0], x[1], x[2]);
        check_sblock<BM, BN, BK, WM, WN, LM, false, true, 1>(x[0], x[1], x[2]);
        check_sblock<BM, BN, BK, WM, WN, LM, true, false, 1>(x[0], x[1], x[2]);
    }
}

int main()
{
    check_layouts();
    check_copies<64, 128>();
    check_copies<128, 128>();
    check_copies<128, 256>();
    check_copies<64, 256>();
    check_xk();
    printf("fragments and banks (per block shape and layout):\n");
    check_blocks<128, 64>();
    check_blocks<128, 128>();
    check_blocks<64, 128>();
    /* the fp32 configurations of cands_f32.cu */
    check_sconfig<128, 128, 16, 64, 64, 8>();
    check_sconfig<128, 128, 8, 64, 64, 8>();
    check_sconfig<128, 128, 16, 64, 64, 4>();
    check_sconfig<256, 128, 16, 64, 64, 8>();
    check_sconfig<128, 256, 16, 64, 64, 8>();
    check_sconfig<128, 64, 16, 64, 64, 8>();
    /* the shipped TMA DMMA kernel's maps */
    check_shipped_layouts();
    check_shipped_blocks<128, 128>();
    check_shipped_blocks<128, 64>();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
