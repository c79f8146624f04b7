/* The small path's kernels: a whole product of at most 64 x 64 x 64 (or a
   run of such products, a batch's members) in one call, on the caller's
   matrices where they are: no packing, no panel, no call per tile.

   The direct path runs one MR x NR tile per call of the micro-kernel
   through a pointer, with the tile's set-up each time, and its one tile
   shape (on AVX-512 two vectors by 8 columns) fits neither the smallest
   products (an 8- or 16-row C fills a quarter or half of it) nor the
   largest here (its 8 columns leave a 32-row fp64 C's last tile a
   quarter full). These kernels walk C in row blocks of up to four vectors
   and give each block the register tile of its size class, chosen by how
   many vectors its rows need:

       vectors   tile (vectors x columns)   accumulators
       1         1 x 8                       8
       2         2 x 8                      16
       3         2 x 8, then 1 x 8          16, 8
       4         4 x 4                      16

   Measured on the 2-core EPYC (Zen 5), 1 thread: 4 x 6 (24 accumulators)
   left n = 32's last tile with 2 of its 6 columns (fp64 32^3 608 ns, 4 x 4
   552); 1 x 16 for one-vector rows lost to 1 x 8 (fp32 16^3 84 against 71
   ns). The last vector of a block, when partial, moves only its rows
   (masked loads and stores); a block whose last vector is whole takes
   plain moves. Columns past the last re-read B's last column and are not
   stored.

   Both transposes of B are read in place (B's element (p, j) at
   b[p*bp + j*bj] through one row pointer and a column offset per column,
   so each broadcast is a single addressed load), and op(a) when its
   columns are contiguous (as, canonical "N"); a transposed op(a) is first
   copied into a panel (driver.c: from 32^3 on; smaller ones take the
   direct path). The arithmetic is the direct kernel's term for
   term: each element's sum runs over k in order from zero with one FMA per
   term, then alpha*sum, then beta*C added (beta == 1: an add; beta == 0: C
   is not read; alpha == 1 skips its exact multiply), so a product has
   the same bits on either path.

   `count` products run in one call, member i's operands `sa`, `sb`, `sc`
   elements past member 0's (a batch's strided members: no call, no
   checks and no set-up per member). */
#pragma once

#include <stdint.h>
#include "platform.h"         /* GEMM__CPU_X86, GEMM__RESTRICT */
#include "ukernel_template.h" /* gemm__cpu_small_args, GEMM__CPU_REP8 */
#include "ukernel_x86.c"      /* the AVX-512 vector tables GEMM__CPU_Z_S, GEMM__CPU_Z_D */

#define GEMM__CPU_REP4(X, P) X(0, P) X(1, P) X(2, P) X(3, P)
/* A partial vector of C stored through its mask (the direct kernel's
   plain narrower moves, which a later load can forward from, take a
   branch per width in every column: they made the small kernels' code
   half as large again, and slower to compile) */
#define GEMM__CPU_Z_S_STOREM(p, v, n) _mm512_mask_storeu_ps(p, (__mmask16)((1u << (unsigned)(n)) - 1u), v)
#define GEMM__CPU_Z_D_STOREM(p, v, n) _mm512_mask_storeu_pd(p, (__mmask8)((1u << (unsigned)(n)) - 1u), v)

#if defined(GEMM__CPU_X86)

/* The next member's operands, brought into cache a few lines per tile
   while the current member is computed: three spans (a, b, c; c for
   writing), a cursor through them. Only addresses inside the spans are
   formed. */
typedef struct gemm__cpu_small_next {
    uintptr_t at[3], end[3];
    int part;
} gemm__cpu_small_next;

static void gemm__cpu_small_next_set(gemm__cpu_small_next *nx, const void *a, int64_t sa, const void *b, int64_t sb,
                                     const void *c, int64_t sc)
{
    nx->at[0] = (uintptr_t)a & ~(uintptr_t)63;
    nx->end[0] = (uintptr_t)a + (uintptr_t)sa;
    nx->at[1] = (uintptr_t)b & ~(uintptr_t)63;
    nx->end[1] = (uintptr_t)b + (uintptr_t)sb;
    nx->at[2] = (uintptr_t)c & ~(uintptr_t)63;
    nx->end[2] = (uintptr_t)c + (uintptr_t)sc;
    nx->part = 0;
}

static void gemm__cpu_small_next_lines(gemm__cpu_small_next *nx, int64_t lines)
{
    for (; lines > 0 && nx->part < 3; lines--) {
        int x = nx->part;
        if (x == 2) __builtin_prefetch((const void *)nx->at[x], 1, 3);
        else __builtin_prefetch((const void *)nx->at[x], 0, 3);
        nx->at[x] += 64;
        if (nx->at[x] >= nx->end[x]) nx->part++;
    }
}

/* The vectors of the next row block of `rows` rows: up to four, and
   three as two (a 2-vector block, then a 1-vector one: a fourth class of
   tile would cost every program that includes the header more compile
   time than it saves). */
static int64_t gemm__cpu_small_vecs(int64_t rows, int64_t vl)
{
    int64_t v = (rows + vl - 1) / vl;
    return v >= 4 ? 4 : v == 3 ? 2 : v;
}

/* Per column j of a tile of V vectors (V = 1, 2, 4 in the names: each
   class's code names only its own accumulators, so the compiler has no
   dead ones to remove): its accumulators and offset into B (columns past
   nw re-read column nw-1), its k step (a broadcast of B, one FMA per
   vector), and its store. */
#define GEMM__CPU_SK_D(j, t, P) P##_V s##t##_##j = P##_ZERO();
#define GEMM__CPU_SK_OFF(j) const int64_t o##j = ((j) < nw ? (j) : nw - 1) * bj;
#define GEMM__CPU_SK_DECL1(j, P) GEMM__CPU_SK_D(j, 0, P) GEMM__CPU_SK_OFF(j)
#define GEMM__CPU_SK_DECL2(j, P) GEMM__CPU_SK_D(j, 0, P) GEMM__CPU_SK_D(j, 1, P) GEMM__CPU_SK_OFF(j)
#define GEMM__CPU_SK_DECL4(j, P)                                                                        \
    GEMM__CPU_SK_D(j, 0, P) GEMM__CPU_SK_D(j, 1, P) GEMM__CPU_SK_D(j, 2, P) GEMM__CPU_SK_D(j, 3, P)     \
    GEMM__CPU_SK_OFF(j)
#define GEMM__CPU_SK_F(j, t, P) s##t##_##j = P##_FMA(a##t, bv, s##t##_##j);
#define GEMM__CPU_SK_STEP1(j, P) { P##_V bv = P##_SET1(bq[o##j]); GEMM__CPU_SK_F(j, 0, P) }
#define GEMM__CPU_SK_STEP2(j, P) { P##_V bv = P##_SET1(bq[o##j]); GEMM__CPU_SK_F(j, 0, P) GEMM__CPU_SK_F(j, 1, P) }
#define GEMM__CPU_SK_STEP4(j, P)                                                                        \
    {                                                                                                   \
        P##_V bv = P##_SET1(bq[o##j]);                                                                  \
        GEMM__CPU_SK_F(j, 0, P) GEMM__CPU_SK_F(j, 1, P) GEMM__CPU_SK_F(j, 2, P) GEMM__CPU_SK_F(j, 3, P) \
    }
/* C's vector t of column j from its sum: alpha*sum, then beta*C added
   (the direct kernel's epilogue; alpha == 1 skips its exact multiply);
   a whole vector, or (the last, when it is partial) ml rows. */
#define GEMM__CPU_SK_W(j, t, P)                                                                         \
    {                                                                                                   \
        P##_T *cv = ct + (j) * ldc + (t) * P##_VL;                                                      \
        P##_V r = alpha == 1 ? s##t##_##j : P##_MUL(s##t##_##j, va);                                    \
        if (beta == 1) r = P##_ADD(P##_LOAD(cv), r);                                                    \
        else if (beta != 0) r = P##_FMA(vb, P##_LOAD(cv), r);                                          \
        P##_STORE(cv, r);                                                                               \
    }
#define GEMM__CPU_SK_L(j, t, P)                                                                         \
    if (FULL) GEMM__CPU_SK_W(j, t, P)                                                                   \
    else {                                                                                              \
        P##_T *cv = ct + (j) * ldc + (t) * P##_VL;                                                      \
        P##_V r = alpha == 1 ? s##t##_##j : P##_MUL(s##t##_##j, va);                                    \
        if (beta == 1) r = P##_ADD(P##_LOADM(cv, ml), r);                                               \
        else if (beta != 0) r = P##_FMA(vb, P##_LOADM(cv, ml), r);                                     \
        P##_STOREM(cv, r, ml);                                                                          \
    }
#define GEMM__CPU_SK_PUT1(j, P) if ((j) < nw) { GEMM__CPU_SK_L(j, 0, P) }
#define GEMM__CPU_SK_PUT2(j, P) if ((j) < nw) { GEMM__CPU_SK_W(j, 0, P) GEMM__CPU_SK_L(j, 1, P) }
#define GEMM__CPU_SK_PUT4(j, P)                                                                         \
    if ((j) < nw) { GEMM__CPU_SK_W(j, 0, P) GEMM__CPU_SK_W(j, 1, P) GEMM__CPU_SK_W(j, 2, P) GEMM__CPU_SK_L(j, 3, P) }
/* The vectors of A at one k: whole ones, the last (when partial) through
   the mask of its ml rows (a masked load of a whole vector, streaming from
   memory, made fp32 16^3 x 10,000 batches 1.3-1.7x slower on the EPYC). */
#define GEMM__CPU_SK_A1(P) P##_V a0 = FULL ? P##_LOAD(ap) : P##_LOADM(ap, ml);
#define GEMM__CPU_SK_A2(P) P##_V a0 = P##_LOAD(ap), a1 = FULL ? P##_LOAD(ap + P##_VL) : P##_LOADM(ap + P##_VL, ml);
#define GEMM__CPU_SK_A4(P)                                                                              \
    P##_V a0 = P##_LOAD(ap), a1 = P##_LOAD(ap + P##_VL), a2 = P##_LOAD(ap + 2 * P##_VL),               \
          a3 = FULL ? P##_LOAD(ap + 3 * P##_VL) : P##_LOADM(ap + 3 * P##_VL, ml);

/* The tiles of one row block of V vectors (rows i0 .. i0 + mb - 1, the
   last vector ml of them), NR = the count of REP columns each, across all
   n columns of C; compiled twice, for a whole last vector (plain moves)
   and a partial one (masked). The small kernels cost every program that
   includes the header about 1 s more of gcc -O2 -g (2.9 -> 3.9 s on the
   EPYC): each class's macros name only its own accumulators, and partial
   vectors of C go through masks, for that. */
#define GEMM__CPU_SK_BLOCK(P, V, REP, NR)                                                               \
    if (ml == P##_VL) GEMM__CPU_SK_TILES(P, V, REP, NR, 1)                                              \
    else GEMM__CPU_SK_TILES(P, V, REP, NR, 0)
#define GEMM__CPU_SK_TILES(P, V, REP, NR, FF)                                                           \
    {                                                                                                   \
        const int FULL = FF;                                                                            \
        const P##_T *ab = a + i0;                                                                       \
        P##_T *cb = c + i0;                                                                             \
        int64_t j0, p, qa, qb;                                                                          \
        for (j0 = 0; j0 < n; j0 += NR) {                                                                \
            const int64_t nw = n - j0 < NR ? n - j0 : NR;                                               \
            const P##_T *bt = b + j0 * bj;                                                              \
            P##_T *ct = cb + j0 * ldc;                                                                  \
            REP(GEMM__CPU_SK_DECL##V, P)                                                                \
            if (ahead) gemm__cpu_small_next_lines(&nx, per_tile);                                       \
            /* offsets, not running pointers: no pointer past an operand's last element */              \
            for (p = 0, qa = 0, qb = 0; p < k; p++, qa += as, qb += bp) {                               \
                const P##_T *ap = ab + qa, *bq = bt + qb;                                               \
                GEMM__CPU_SK_A##V(P)                                                                    \
                REP(GEMM__CPU_SK_STEP##V, P)                                                            \
            }                                                                                           \
            {                                                                                           \
                P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                        \
                REP(GEMM__CPU_SK_PUT##V, P)                                                             \
            }                                                                                           \
        }                                                                                               \
    }

#define GEMM__CPU_SMALL_KERNEL(NAME, ATTR, P)                                                           \
    static ATTR void NAME(const gemm__cpu_small_args *s, int64_t count)                                 \
    {                                                                                                   \
        const int64_t m = s->m, n = s->n, k = s->k, as = s->as, bp = s->bp, bj = s->bj, ldc = s->ldc;   \
        const P##_T alpha = (P##_T)s->alpha, beta = (P##_T)s->beta;                                     \
        /* the bytes each operand spans, from its first element to its last */                         \
        const int64_t span_a = ((k - 1) * as + m) * (int64_t)sizeof(P##_T);                             \
        const int64_t span_b = ((k - 1) * bp + (n - 1) * bj + 1) * (int64_t)sizeof(P##_T);              \
        const int64_t span_c = ((n - 1) * ldc + m) * (int64_t)sizeof(P##_T);                            \
        int64_t member, per_tile = 0, i0, vecs = 1, ml;                                                 \
        gemm__cpu_small_next nx = {{0, 0, 0}, {0, 0, 0}, 3}; /* nothing ahead until a member sets it */ \
        if (s->ahead) { /* the lines of a member over its tiles */                                      \
            int64_t tiles = 0;                                                                          \
            for (i0 = 0; i0 < m; i0 += vecs * P##_VL) {                                                 \
                vecs = gemm__cpu_small_vecs(m - i0, P##_VL);                                            \
                tiles += vecs == 4 ? (n + 3) / 4 : (n + 7) / 8;                                         \
            }                                                                                           \
            per_tile = ((span_a + span_b + span_c) / 64 + 6 + tiles - 1) / tiles;                       \
        }                                                                                               \
        for (member = 0; member < count; member++) {                                                    \
            const P##_T *GEMM__RESTRICT a = (const P##_T *)s->a + member * s->sa;                       \
            const P##_T *GEMM__RESTRICT b = (const P##_T *)s->b + member * s->sb;                       \
            P##_T *GEMM__RESTRICT c = (P##_T *)s->c + member * s->sc;                                   \
            const int ahead = s->ahead && member + 1 < count;                                           \
            if (ahead) gemm__cpu_small_next_set(&nx, a + s->sa, span_a, b + s->sb, span_b, c + s->sc, span_c); \
            for (i0 = 0; i0 < m; i0 += vecs * P##_VL) {                                                 \
                vecs = gemm__cpu_small_vecs(m - i0, P##_VL);                                            \
                ml = (m - i0 < vecs * P##_VL ? m - i0 : vecs * P##_VL) - (vecs - 1) * P##_VL;           \
                switch (vecs) {                                                                         \
                case 1: GEMM__CPU_SK_BLOCK(P, 1, GEMM__CPU_REP8, 8) break;                              \
                case 2: GEMM__CPU_SK_BLOCK(P, 2, GEMM__CPU_REP8, 8) break;                              \
                default: GEMM__CPU_SK_BLOCK(P, 4, GEMM__CPU_REP4, 4) break;                             \
                }                                                                                       \
            }                                                                                           \
        }                                                                                               \
    }

#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic push /* g++ 12's false alarm in its own AVX-512 casts (ukernel_x86.c) */
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
GEMM__CPU_SMALL_KERNEL(gemm__cpu_avx512_s_small, GEMM__CPU_AVX512, GEMM__CPU_Z_S)
GEMM__CPU_SMALL_KERNEL(gemm__cpu_avx512_d_small, GEMM__CPU_AVX512, GEMM__CPU_Z_D)
#pragma GCC diagnostic pop
#else
GEMM__CPU_SMALL_KERNEL(gemm__cpu_avx512_s_small, GEMM__CPU_AVX512, GEMM__CPU_Z_S)
GEMM__CPU_SMALL_KERNEL(gemm__cpu_avx512_d_small, GEMM__CPU_AVX512, GEMM__CPU_Z_D)
#endif

#endif
