/* The complex product on the CUDA cores, read in place (the native path
   of host/complex_native.cuh): C = alpha*op(a)*op(b) + beta*C for complex
   a, b, C in the canonical column-major problem, op() in {N, T, C},
   without the expansion the real kernels need (kernels/complex_expand.cuh).
   Each operand is read once from the caller's memory, so a member moves
   a, b and C and nothing else: what a memory-bound small member costs. A
   complex multiply-add is four real ones on the two scalars a complex
   load brings, twice a real kernel's sums per loaded scalar, so the tiles
   ask half the shared-memory traffic per flop that a real tile of the
   same registers does.

   Shape: a block of (BM/TM) x (BN/TN) threads owns a BM x BN tile of C,
   TM x TN complex sums a thread (rows tx + TX*r, columns ty + TY*c: a
   warp's loads from shared memory run along contiguous rows, and its
   stores down a column of C are contiguous). op(a) and op(b) come through
   shared memory in k-slices, double-buffered through registers
   (gemm__cuda_ctiles, which complex_dmma.cuh's kernel walks too). An
   element is loaded as an aligned pair where the matrix allows
   (gemm__cuda_cload), conjugated on its way into shared memory. A thread
   sums its products over k in order: a member's bits depend on the
   configuration alone, never on the grid or on the members around it.

   Every block serves a batch: blockIdx.z is the member (first + z), found
   through a gemm__cuda_cside; blockIdx.x strides over the tiles of C. */
#pragma once
#include <stdint.h>
#include "complex_expand.cuh" /* gemm__cuda_cside, _cside_at, _pair, _cload */

/* The tile of configuration (BM, BN, TM, TN) for scalar type T: threads
   along m and n, and the padding that keeps a shared row's stores free of
   bank conflicts (a row is 16 bytes longer than a multiple of 128, so the
   threads that store one k-run of a k-major operand hit distinct banks). */
template <typename T, int BM, int BN, int TM, int TN> struct gemm__cuda_csimt_shape {
    typedef typename gemm__cuda_pair<T>::type P;
    static constexpr int TX = BM / TM, TY = BN / TN, NT = TX * TY;
    static constexpr int PAD = 16 / (int)sizeof(P);
};

/* The k-slice of both native kernels. */
#define GEMM__CUDA_CSLICE 8

/* The run-time part of a launch: sizes, the canonical operands (their
   transposes are the kernel's template), conjugations, scalars, and the
   members' sides. */
template <typename T> struct gemm__cuda_csimt_args {
    int m, n, k;
    const T *a, *b;
    T *c;
    int64_t lda, ldb, ldc;
    int conj_a, conj_b;
    T alpha_re, alpha_im, beta_re, beta_im;
    gemm__cuda_cside sa, sb, sc;
    int64_t first; /* the member of blockIdx.z == 0 */
};

/* Element e (of a slice's BM x BK or BN x BK) of an operand: its row r
   (along m or n) and k index q. KMAJOR: the operand's contiguous index
   is k, so consecutive threads walk q. */
template <int ROWS, int BK, bool KMAJOR> __device__ __forceinline__ void gemm__cuda_csimt_at(int e, int &r, int &q)
{
    r = KMAJOR ? e / BK : e % ROWS;
    q = KMAJOR ? e % BK : e / ROWS;
}

/* Loads this thread's LOADS elements of the slice at k0 of an operand
   (ROWS rows of which `rows` exist from row0, the element at row r and k
   index q at x[r + q*ld], or x[q + r*ld] when KMAJOR) into registers;
   outside the matrix, zeros. Nothing here uses what it loads: the loads
   stay in flight while the slice before is summed. */
template <typename T, int ROWS, int BK, int NT, bool KMAJOR, int LOADS>
__device__ __forceinline__ void gemm__cuda_csimt_fetch(T (&v)[LOADS][2], const T *x, int64_t ld, bool paired, int row0,
                                                      int rows, int k0, int k)
{
#pragma unroll
    for (int j = 0; j < LOADS; j++) {
        int r, q;
        gemm__cuda_csimt_at<ROWS, BK, KMAJOR>((int)threadIdx.x + j * NT, r, q);
        int gr = row0 + r, gq = k0 + q;
        v[j][0] = v[j][1] = T(0);
        if (gr < rows && gq < k) {
            gemm__cuda_cload(x + 2 * (KMAJOR ? gq + (int64_t)gr * ld : gr + (int64_t)gq * ld), paired, v[j][0], v[j][1]);
        }
    }
}

/* Stores the fetched elements into the slice buffer s[q][r], conjugated
   when sign is -1. */
template <typename T, int ROWS, int BK, int NT, int LD, bool KMAJOR, int LOADS>
__device__ __forceinline__ void gemm__cuda_csimt_stash(typename gemm__cuda_pair<T>::type (*s)[LD],
                                                      const T (&v)[LOADS][2], T sign)
{
#pragma unroll
    for (int j = 0; j < LOADS; j++) {
        int r, q;
        typename gemm__cuda_pair<T>::type e;
        gemm__cuda_csimt_at<ROWS, BK, KMAJOR>((int)threadIdx.x + j * NT, r, q);
        e.x = v[j][0];
        e.y = v[j][1] * sign;
        s[q][r] = e;
    }
}

/* One complex element of C from its sum: alpha*sum + beta*C (beta = 0
   never reads C; a real beta scales C's two scalars, as the real kernels
   do, so a C of infinities is not multiplied by beta's zero imaginary part). */
template <typename T>
__device__ __forceinline__ void gemm__cuda_csimt_put(T *c, bool paired, T x, T y, const gemm__cuda_csimt_args<T> &g)
{
    typedef typename gemm__cuda_pair<T>::type P;
    T ox = g.alpha_re * x - g.alpha_im * y, oy = g.alpha_re * y + g.alpha_im * x;
    if (g.beta_re != T(0) || g.beta_im != T(0)) {
        T cx, cy;
        gemm__cuda_cload(c, paired, cx, cy);
        if (g.beta_im == T(0)) {
            ox += g.beta_re * cx;
            oy += g.beta_re * cy;
        } else {
            ox += g.beta_re * cx - g.beta_im * cy;
            oy += g.beta_re * cy + g.beta_im * cx;
        }
    }
    if (paired) {
        P v;
        v.x = ox;
        v.y = oy;
        *reinterpret_cast<P *>(c) = v;
    } else {
        c[0] = ox;
        c[1] = oy;
    }
}

/* One member's product as both native kernels run it (this one and
   complex_dmma.cuh's): the member's matrices and their alignment, its
   tiles of C from blockIdx.x, and each tile's k-slices of BK,
   double-buffered: the next slice is loaded into registers while the
   current one is summed, then stashed into the other buffer, one barrier
   a slice. The kernel brings its buffers and sums: zero() clears a tile's
   sums, stash(buf, va, vb, sign_a, sign_b) stores a fetched slice of
   op(a) and op(b) into buffer buf (conjugating by the signs), sum(buf)
   sums the slice there, put(i0, j0, c, paired) writes the tile at (i0,
   j0) of C. A_TRANS: op(a)(i, l) = a[l + i*lda] (else a[i + l*lda]);
   B_TRANS: op(b)(l, j) = b[j + l*ldb] (else b[l + j*ldb]). */
template <typename T, int BM, int BN, int BK, int NT, bool A_TRANS, bool B_TRANS, typename Zero, typename Stash,
          typename Sum, typename Put>
__device__ __forceinline__ void gemm__cuda_ctiles(const gemm__cuda_csimt_args<T> &g, Zero zero, Stash stash, Sum sum,
                                                  Put put)
{
    static_assert(BM * BK % NT == 0 && BN * BK % NT == 0, "a slice does not split evenly over the threads");
    int64_t member = g.first + (int64_t)blockIdx.z;
    const T *a = gemm__cuda_cside_at(g.sa, g.a, member), *b = gemm__cuda_cside_at(g.sb, g.b, member);
    T *c = gemm__cuda_cside_at(g.sc, g.c, member);
    bool pa = ((uintptr_t)a & (2 * sizeof(T) - 1)) == 0, pb = ((uintptr_t)b & (2 * sizeof(T) - 1)) == 0,
         pc = ((uintptr_t)c & (2 * sizeof(T) - 1)) == 0;
    T sign_a = g.conj_a ? T(-1) : T(1), sign_b = g.conj_b ? T(-1) : T(1);
    int tiles_m = (g.m + BM - 1) / BM;
    int64_t tiles = (int64_t)tiles_m * ((g.n + BN - 1) / BN);
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        int i0 = (int)(t % tiles_m) * BM, j0 = (int)(t / tiles_m) * BN, buf = 0;
        T va[BM * BK / NT][2], vb[BN * BK / NT][2];
        zero();
        gemm__cuda_csimt_fetch<T, BM, BK, NT, A_TRANS>(va, a, g.lda, pa, i0, g.m, 0, g.k);
        gemm__cuda_csimt_fetch<T, BN, BK, NT, !B_TRANS>(vb, b, g.ldb, pb, j0, g.n, 0, g.k);
        stash(0, va, vb, sign_a, sign_b);
        __syncthreads();
        for (int k0 = 0; k0 < g.k; k0 += BK) {
            bool more = k0 + BK < g.k;
            if (more) { /* the next slice in flight while this one is summed */
                gemm__cuda_csimt_fetch<T, BM, BK, NT, A_TRANS>(va, a, g.lda, pa, i0, g.m, k0 + BK, g.k);
                gemm__cuda_csimt_fetch<T, BN, BK, NT, !B_TRANS>(vb, b, g.ldb, pb, j0, g.n, k0 + BK, g.k);
            }
            sum(buf);
            /* the other buffer: every thread finished reading it before the last barrier */
            if (more) stash(buf ^ 1, va, vb, sign_a, sign_b);
            __syncthreads();
            buf ^= 1;
        }
        put(i0, j0, c, pc);
    }
}

/* The conjugations and transposes as gemm__cuda_ctiles takes them. alpha
   != 0 and k > 0 here (the rest is the scale kernel's). */
template <typename T, int BM, int BN, int TM, int TN, bool A_TRANS, bool B_TRANS, int MINB>
__global__ void __launch_bounds__(BM / TM * (BN / TN), MINB) gemm__cuda_csimt_kernel(gemm__cuda_csimt_args<T> g)
{
    typedef gemm__cuda_csimt_shape<T, BM, BN, TM, TN> S;
    typedef typename S::P P;
    constexpr int BK = GEMM__CUDA_CSLICE, TX = S::TX, TY = S::TY, NT = S::NT;
    static_assert(sizeof(P) * 2 * BK * (BM + BN + 2 * S::PAD) <= 48 * 1024, "more than 48 KB of shared memory");
    __shared__ P As[2][BK][BM + S::PAD], Bs[2][BK][BN + S::PAD];
    int tx = (int)threadIdx.x % TX, ty = (int)threadIdx.x / TX;
    T re[TM][TN], im[TM][TN];
    gemm__cuda_ctiles<T, BM, BN, BK, NT, A_TRANS, B_TRANS>(
        g,
        [&] {
#pragma unroll
            for (int r = 0; r < TM; r++)
#pragma unroll
                for (int q = 0; q < TN; q++) re[r][q] = im[r][q] = T(0);
        },
        [&](int buf, const auto &va, const auto &vb, T sign_a, T sign_b) {
            gemm__cuda_csimt_stash<T, BM, BK, NT, BM + S::PAD, A_TRANS>(As[buf], va, sign_a);
            gemm__cuda_csimt_stash<T, BN, BK, NT, BN + S::PAD, !B_TRANS>(Bs[buf], vb, sign_b);
        },
        [&](int buf) {
#pragma unroll
            for (int q = 0; q < BK; q++) {
                P x[TM], y[TN];
#pragma unroll
                for (int r = 0; r < TM; r++) x[r] = As[buf][q][tx + TX * r];
#pragma unroll
                for (int s = 0; s < TN; s++) y[s] = Bs[buf][q][ty + TY * s];
#pragma unroll
                for (int r = 0; r < TM; r++)
#pragma unroll
                    for (int s = 0; s < TN; s++) {
                        re[r][s] = fma(x[r].x, y[s].x, re[r][s]);
                        re[r][s] = fma(-x[r].y, y[s].y, re[r][s]);
                        im[r][s] = fma(x[r].x, y[s].y, im[r][s]);
                        im[r][s] = fma(x[r].y, y[s].x, im[r][s]);
                    }
            }
        },
        [&](int i0, int j0, T *c, bool pc) {
#pragma unroll
            for (int s = 0; s < TN; s++)
#pragma unroll
                for (int r = 0; r < TM; r++) {
                    int i = i0 + tx + TX * r, j = j0 + ty + TY * s;
                    if (i < g.m && j < g.n)
                        gemm__cuda_csimt_put(c + 2 * (i + (int64_t)j * g.ldc), pc, re[r][s], im[r][s], g);
                }
        });
}
