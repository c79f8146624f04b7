/* The micro-kernels: one signature for every ISA and both precisions, so
   the driver that calls them is written once.

   void kernel(k, a, as, b, bp, bj, alpha, beta, c, ldc):
       C[0:MR, 0:NR] = alpha * A * B + beta * C   (beta == 0: C is not read)
   A is MR x k, column p at a + p*as (as = MR: a packed panel); element
   (p, j) of B is at b[p*bp + j*bj]: the packed variant ignores bp, bj and
   reads (NR, 1), the strided variant reads them (a panel stored column by
   column); C is column-major with leading dimension ldc. The tile is
   always full. Strides count elements of the kernel's precision; alpha and
   beta come as double (exact for a float) and are turned back into the
   kernel's type before any arithmetic.

   void direct(k, a, as, b, bp, bj, alpha, beta, c, ldc, mw, nw): the same
   product on the caller's matrices where they are (no packing), for a tile
   of mw <= MR rows and nw <= NR columns: rows past mw are neither read nor
   written (masked or partial vector moves), columns past nw re-read column
   nw-1 of B and are not stored. A's rows must be contiguous (element (i, p)
   at a[i + p*as]). Its arithmetic is the packed kernel's, term for term,
   so a tile has the same bits whichever path computes it with the same k.

   void direct_t(k, a, as, b, bp, bj, alpha, beta, c, ldc, mw, nw): the
   direct kernel's sums of the tile T = A * B (mw x nw, as above), stored
   transposed: C[j + i*ldc] = alpha * T[i, j] + beta * C[j + i*ldc] for
   i < mw, j < nw. A product whose operands are both transposed computes
   C^T = op(b)^T op(a)^T with it, reading both where they lie (direct.c).
   Each element's terms are the direct kernel's (the FMAs' multiplicands
   swap places, which changes no bit), so its bits are the same.

   void direct_wide(...): the direct kernel for mw == VL (one whole vector
   of rows, VL = MR / 2) and nw == 2 * NR columns, with its arithmetic.

   void pack_a(kc, s, ps, nx, d): packs the nx rows (a multiple of MR) of a
   block of A whose columns are contiguous (column p at s + p*ps) into
   MR x kc panels with vector moves, walking each source column once (long
   runs for the hardware prefetcher: such a block often streams from memory).

   Addresses are formed from indices that stay inside the matrices: no
   pointer ever steps past the last element it reads (a stride may be near
   INT64_MAX / 8 when k = 1). */
#pragma once

#include <stdint.h>   /* int64_t */
#include "platform.h" /* GEMM__RESTRICT */

typedef void (*gemm__cpu_ukernel_fn)(int64_t k, const void *a, int64_t as, const void *b, int64_t bp, int64_t bj,
                                     double alpha, double beta, void *c, int64_t ldc);
typedef void (*gemm__cpu_direct_fn)(int64_t k, const void *a, int64_t as, const void *b, int64_t bp, int64_t bj,
                                    double alpha, double beta, void *c, int64_t ldc, int64_t mw, int64_t nw);
typedef void (*gemm__cpu_pack_a_fn)(int64_t kc, const void *s, int64_t ps, int64_t nx, void *d);
/* d[q*w + i] = s[i*rs + q] for i < rows <= w, q < k: a transposed op(a)'s
   rows into a panel of w-long columns (packing.c's gemm__cpu_copy_rows,
   or the ISA's register transposes). */
typedef void (*gemm__cpu_copy_rows_fn)(char *d, int64_t w, const char *s, int64_t rs, int64_t rows, int64_t k,
                                       int64_t es);

/* A small product for the small path's kernels (small_kernels.c), or a
   run of `count` of them: C (m x n, column-major, ldc) = alpha * op(a) *
   op(b) + beta * C, op(a)'s column p at a + p*as (its rows contiguous),
   op(b)'s element (p, j) at b[p*bp + j*bj]; member i's a, b and c lie
   sa, sb and sc elements past member 0's. Strides count elements. ahead:
   each member brings the next one's operands into cache first (members
   that stream from memory). */
typedef struct gemm__cpu_small_args {
    int64_t m, n, k;
    const void *a, *b;
    void *c;
    int64_t as, bp, bj, ldc;
    int64_t sa, sb, sc;
    double alpha, beta;
    int ahead;
} gemm__cpu_small_args;
typedef void (*gemm__cpu_small_fn)(const gemm__cpu_small_args *s, int64_t count);

/* One precision's micro-kernel: its tile (mr x nr), the variant that reads
   packed B, the one that reads B through strides, the direct kernel for
   partial tiles of unpacked operands, its A packer, its copy of a
   transposed op(a) into a panel, its kernel for whole small products
   (NULL: this ISA has none; they take the direct path), and its direct
   kernel that stores the tile transposed (NULL: none; a transposed op(a)
   is copied instead). */
typedef struct gemm__cpu_microkernel {
    int mr, nr;
    gemm__cpu_ukernel_fn packed_b, strided_b;
    gemm__cpu_direct_fn direct;
    gemm__cpu_pack_a_fn pack_a;
    gemm__cpu_copy_rows_fn copy_rows;
    gemm__cpu_small_fn small;
    gemm__cpu_direct_fn direct_t, direct_wide;
} gemm__cpu_microkernel;

/* One template, instantiated per ISA and precision from a table P of
   vector operations (P##_T element, P##_V vector of P##_VL elements, LOAD,
   STORE, SET1, FMA(a, b, c) = a*b + c, MUL, ADD, ZERO, and LOADN / STOREN,
   which move only the first n lanes, 1 <= n <= VL, and read zeros into the
   others; LOADM is LOADN for A, in the inner loop, where a plain mask is
   cheapest): MR = 2 vectors, NR = the count of the REP macro. The
   accumulators are named variables, not an array, so they stay in
   registers at any optimisation level. */

#define GEMM__CPU_REP6(X, P) X(0, P) X(1, P) X(2, P) X(3, P) X(4, P) X(5, P)
#define GEMM__CPU_REP8(X, P) GEMM__CPU_REP6(X, P) X(6, P) X(7, P)
#define GEMM__CPU_REP12(X, P) GEMM__CPU_REP8(X, P) X(8, P) X(9, P) X(10, P) X(11, P)

#define GEMM__CPU_UK_DECL(j, P) P##_V c0_##j = P##_ZERO(), c1_##j = P##_ZERO();
#define GEMM__CPU_UK_STEP(j, P)                                                                    \
    {                                                                                              \
        P##_V bv = P##_SET1(b[q + (j) * bjs]);                                                     \
        c0_##j = P##_FMA(a0, bv, c0_##j);                                                          \
        c1_##j = P##_FMA(a1, bv, c1_##j);                                                          \
    }
/* C = alpha*acc (beta == 0), C + alpha*acc (beta == 1), beta*C + alpha*acc. */
#define GEMM__CPU_UK_PUT0(j, P)                                                                    \
    P##_STORE(c + (j) * ldc, P##_MUL(c0_##j, va));                                                 \
    P##_STORE(c + (j) * ldc + P##_VL, P##_MUL(c1_##j, va));
/* beta*C + alpha*sum with one FMA, beta == 1 included (1*c + x rounds
   once, as c + x does): the product alpha*sum only ever feeds an FMA, so
   no compiler contracts it into one (g++ and -std=gnu* would contract an
   add, by heuristics), and the bits do not depend on the language mode. */
#define GEMM__CPU_UK_PUTB(j, P)                                                                    \
    P##_STORE(c + (j) * ldc, P##_FMA(vb, P##_LOAD(c + (j) * ldc), P##_MUL(c0_##j, va)));           \
    P##_STORE(c + (j) * ldc + P##_VL, P##_FMA(vb, P##_LOAD(c + (j) * ldc + P##_VL), P##_MUL(c1_##j, va)));

/* Every kernel's typed views of its arguments: a, b, c, alpha and beta. */
#define GEMM__CPU_UK_ARGS(P)                                                                       \
    const P##_T *GEMM__RESTRICT a = (const P##_T *)a_in;                                           \
    const P##_T *GEMM__RESTRICT b = (const P##_T *)b_in;                                           \
    P##_T *GEMM__RESTRICT c = (P##_T *)c_in;                                                       \
    const P##_T alpha = (P##_T)alpha_in, beta = (P##_T)beta_in;

/* A direct kernel's signature (gemm__cpu_direct_fn's): the micro-kernel's
   arguments and the tile's rows and columns. */
#define GEMM__CPU_DIRECT_SIGNATURE(NAME, ATTR)                                                     \
    static ATTR void NAME(int64_t k, const void *a_in, int64_t as, const void *b_in, int64_t bp,    \
                          int64_t bj, double alpha_in, double beta_in, void *c_in, int64_t ldc,     \
                          int64_t mw, int64_t nw)

/* BP, BJ: the B strides the body uses; constants (NR, 1) for the packed
   variant, the arguments bp, bj for the strided one. */
#define GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, BP, BJ)                                              \
    static ATTR void NAME(int64_t k, const void *a_in, int64_t as, const void *b_in, int64_t bp,    \
                          int64_t bj, double alpha_in, double beta_in, void *c_in, int64_t ldc)     \
    {                                                                                              \
        GEMM__CPU_UK_ARGS(P)                                                                       \
        int64_t p, q;                                                                              \
        const int64_t bjs = BJ; /* read by GEMM__CPU_UK_STEP */                                    \
        REP(GEMM__CPU_UK_DECL, P)                                                                  \
        (void)bp;                                                                                  \
        (void)bj;                                                                                  \
        for (p = 0, q = 0; p < k; p++, q += BP) {                                                  \
            P##_V a0 = P##_LOAD(a + p * as), a1 = P##_LOAD(a + p * as + P##_VL);                   \
            REP(GEMM__CPU_UK_STEP, P)                                                              \
        }                                                                                          \
        {                                                                                          \
            P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                       \
            if (beta == 0) { REP(GEMM__CPU_UK_PUT0, P) }                                           \
            else { REP(GEMM__CPU_UK_PUTB, P) }                                                     \
        }                                                                                          \
    }

/* The direct kernel's parts: column j of B through its own pointer (the
   last real column repeated past nw; the running pointer stops there, so
   it never leaves B), one or two vectors of A per k. */
#define GEMM__CPU_DK_COL(j, P) const P##_T *b##j = bcol; bcol += (j) + 1 < nw ? bj : 0;
#define GEMM__CPU_DK_STEP2(j, P)                                                                   \
    {                                                                                              \
        P##_V bv = P##_SET1(b##j[q]);                                                              \
        c0_##j = P##_FMA(a0, bv, c0_##j);                                                          \
        c1_##j = P##_FMA(a1, bv, c1_##j);                                                          \
    }
#define GEMM__CPU_DK_STEP1(j, P) c0_##j = P##_FMA(a0, P##_SET1(b##j[q]), c0_##j);
/* Stores column j (when j < nw): the first vector whole when two are in
   use (m1 > 0 lanes in the second), else only its m0 lanes. */
#define GEMM__CPU_DK_PUT(j, P)                                                                     \
    if ((j) < nw) {                                                                                \
        P##_T *cj = c + (j) * ldc;                                                                 \
        P##_V r0 = P##_MUL(c0_##j, va), r1 = P##_MUL(c1_##j, va);                                  \
        if (m1 > 0) {                                                                              \
            if (beta == 1) r0 = P##_ADD(P##_LOAD(cj), r0);                                         \
            else if (beta != 0) r0 = P##_FMA(vb, P##_LOAD(cj), r0);                                \
            P##_STORE(cj, r0);                                                                     \
            if (beta == 1) r1 = P##_ADD(P##_LOADN(cj + P##_VL, m1), r1);                           \
            else if (beta != 0) r1 = P##_FMA(vb, P##_LOADN(cj + P##_VL, m1), r1);                  \
            P##_STOREN(cj + P##_VL, r1, m1);                                                       \
        } else {                                                                                   \
            if (beta == 1) r0 = P##_ADD(P##_LOADN(cj, m0), r0);                                    \
            else if (beta != 0) r0 = P##_FMA(vb, P##_LOADN(cj, m0), r0);                           \
            P##_STOREN(cj, r0, m0);                                                                \
        }                                                                                          \
    }

/* A direct kernel: the sums of an mw x nw tile in the accumulators, then
   PUT(P, REP) stores them (reading c, ldc, mw, nw, m0, m1, alpha, beta). */
#define GEMM__CPU_DIRECT_SUMS(NAME, ATTR, P, REP, PUT)                                             \
    GEMM__CPU_DIRECT_SIGNATURE(NAME, ATTR)                                                         \
    {                                                                                              \
        GEMM__CPU_UK_ARGS(P)                                                                       \
        const int64_t m1 = mw - P##_VL, m0 = mw < P##_VL ? mw : P##_VL;                            \
        int64_t p, q;                                                                              \
        const P##_T *bcol = b; /* the columns' pointers: adds, no multiplies */                   \
        REP(GEMM__CPU_UK_DECL, P)                                                                  \
        REP(GEMM__CPU_DK_COL, P)                                                                   \
        (void)m0; /* unused where a "vector" is one element */                                    \
        if (m1 == P##_VL) { /* whole: plain loads (a mask ran out of registers, reloaded each k) */ \
            for (p = 0, q = 0; p < k; p++, q += bp) {                                              \
                P##_V a0 = P##_LOAD(a + p * as), a1 = P##_LOAD(a + p * as + P##_VL);               \
                REP(GEMM__CPU_DK_STEP2, P)                                                         \
            }                                                                                      \
        } else if (m1 > 0) {                                                                       \
            for (p = 0, q = 0; p < k; p++, q += bp) {                                              \
                P##_V a0 = P##_LOAD(a + p * as), a1 = P##_LOADM(a + p * as + P##_VL, m1);          \
                REP(GEMM__CPU_DK_STEP2, P)                                                         \
            }                                                                                      \
        } else if (m0 == P##_VL) { /* one whole vector: plain loads too */                        \
            for (p = 0, q = 0; p < k; p++, q += bp) {                                              \
                P##_V a0 = P##_LOAD(a + p * as);                                                   \
                REP(GEMM__CPU_DK_STEP1, P)                                                         \
            }                                                                                      \
        } else {                                                                                   \
            for (p = 0, q = 0; p < k; p++, q += bp) {                                              \
                P##_V a0 = P##_LOADM(a + p * as, m0);                                              \
                REP(GEMM__CPU_DK_STEP1, P)                                                         \
            }                                                                                      \
        }                                                                                          \
        PUT(P, REP)                                                                                \
    }
/* The direct kernel: the sums of a tile of C, stored column by column. */
/* A whole tile (both vectors or the first one whole, all NR columns)
   takes straight-line plain moves with beta tested once (as the packed
   kernel's, whose beta == 1 by the FMA has the add's bits); tested per
   column, the branches cost as much as the k loop of an 8^3 fp64 tile. */
#define GEMM__CPU_ONE(j, P) +1
#define GEMM__CPU_DK_PUT1_0(j, P) P##_STORE(c + (j) * ldc, P##_MUL(c0_##j, va));
#define GEMM__CPU_DK_PUT1_B(j, P) P##_STORE(c + (j) * ldc, P##_FMA(vb, P##_LOAD(c + (j) * ldc), P##_MUL(c0_##j, va)));
#define GEMM__CPU_DK_PUTS(P, REP)                                                                  \
    {                                                                                              \
        P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                           \
        if (nw == (0 REP(GEMM__CPU_ONE, P)) && mw == 2 * P##_VL) {                                 \
            if (beta == 0) { REP(GEMM__CPU_UK_PUT0, P) }                                           \
            else { REP(GEMM__CPU_UK_PUTB, P) }                                                     \
        } else if (nw == (0 REP(GEMM__CPU_ONE, P)) && mw == P##_VL) {                              \
            if (beta == 0) { REP(GEMM__CPU_DK_PUT1_0, P) }                                         \
            else { REP(GEMM__CPU_DK_PUT1_B, P) }                                                   \
        } else {                                                                                   \
            REP(GEMM__CPU_DK_PUT, P)                                                               \
        }                                                                                          \
    }
#define GEMM__CPU_DIRECT(NAME, ATTR, P, REP) GEMM__CPU_DIRECT_SUMS(NAME, ATTR, P, REP, GEMM__CPU_DK_PUTS)

/* The direct kernel for a whole vector of rows (mw == VL) and 2 * NR
   whole columns (nw == 2 * NR): a tile of one vector has NR sums, each a
   chain of k dependent FMAs, and NR = 8 chains just cover the FMA's
   latency (4 cycles at 2 a cycle) with nothing to spare: the scheduler
   filled with one tile's waiting FMAs before the next tile's could start
   (fp32 16^3 ran its loop at 6 cycles a k-step, not 4). Twice the chains,
   the same terms in the same order: the direct kernel's bits (beta == 1
   by the FMA too: 1*c + x rounds once, as c + x does). Column j + NR is
   read through column j's pointer and one more offset (no column is
   repeated), so that the pointers fit the registers; whole vectors and
   columns only, so that the stores are plain moves and the code small. */
#define GEMM__CPU_DW_DECL(j, P) P##_V c0_##j = P##_ZERO(), c1_##j = P##_ZERO();
#define GEMM__CPU_DW_STEP(j, P)                                                                    \
    c0_##j = P##_FMA(a0, P##_SET1(b##j[q]), c0_##j);                                               \
    c1_##j = P##_FMA(a0, P##_SET1(b##j[q + half]), c1_##j);
#define GEMM__CPU_DW_PUT(j, P)                                                                     \
    if (beta != 0) {                                                                               \
        P##_STORE(c + (j) * ldc, P##_FMA(vb, P##_LOAD(c + (j) * ldc), P##_MUL(c0_##j, va)));       \
        P##_STORE(c + ((j) + nr) * ldc, P##_FMA(vb, P##_LOAD(c + ((j) + nr) * ldc), P##_MUL(c1_##j, va))); \
    } else {                                                                                       \
        P##_STORE(c + (j) * ldc, P##_MUL(c0_##j, va));                                             \
        P##_STORE(c + ((j) + nr) * ldc, P##_MUL(c1_##j, va));                                      \
    }
#define GEMM__CPU_DIRECT_WIDE(NAME, ATTR, P, REP, NR)                                              \
    GEMM__CPU_DIRECT_SIGNATURE(NAME, ATTR)                                                         \
    {                                                                                              \
        GEMM__CPU_UK_ARGS(P)                                                                       \
        const int64_t nr = NR, half = NR * bj; /* column j + NR from column j's pointer */          \
        int64_t p, q;                                                                              \
        const P##_T *bcol = b;                                                                     \
        REP(GEMM__CPU_DW_DECL, P)                                                                  \
        REP(GEMM__CPU_DK_COL, P) /* nw > NR: no column repeated */                                \
        (void)mw; /* always VL */                                                                  \
        for (p = 0, q = 0; p < k; p++, q += bp) {                                                  \
            P##_V a0 = P##_LOAD(a + p * as);                                                       \
            REP(GEMM__CPU_DW_STEP, P)                                                              \
        }                                                                                          \
        {                                                                                          \
            P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                       \
            REP(GEMM__CPU_DW_PUT, P)                                                               \
        }                                                                                          \
    }

/* Both variants of one kernel (NAME reads packed B, NAME_strided reads B
   through strides), its direct kernel NAME_direct and its A packer NAME_pack. */
#define GEMM__CPU_UKERNELS(NAME, ATTR, P, REP, NR)                                                 \
    GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, NR, 1)                                                   \
    GEMM__CPU_UKERNEL(NAME##_strided, ATTR, P, REP, bp, bj)                                        \
    GEMM__CPU_DIRECT(NAME##_direct, ATTR, P, REP)                                                  \
    static ATTR void NAME##_pack(int64_t kc, const void *s_in, int64_t ps, int64_t nx, void *d_in) \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT s = (const P##_T *)s_in;                                       \
        P##_T *GEMM__RESTRICT d = (P##_T *)d_in;                                                   \
        int64_t p, x0;                                                                             \
        for (p = 0; p < kc; p++)                                                                   \
            for (x0 = 0; x0 < nx; x0 += 2 * P##_VL) {                                              \
                P##_STORE(d + x0 * kc + p * 2 * P##_VL, P##_LOAD(s + p * ps + x0));                \
                P##_STORE(d + x0 * kc + p * 2 * P##_VL + P##_VL, P##_LOAD(s + p * ps + x0 + P##_VL)); \
            }                                                                                      \
    }
