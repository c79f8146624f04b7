/* The host path's orders (plan.cuh names them): the device memory each
   needs, its steps, and the choice of the first that fits. */
#pragma once
#include <string.h>
#include "plan.cuh"

/* Rotating slots: streamed panels of A or B, and pieces of C (one more:
   a piece's store may still run while the next three multiply). */
#define GEMM__CUDA_RING 3
#define GEMM__CUDA_C_RING 4

/* Scratch the tensor-core modes may take per multiply for operand copies
   (a rows x k and k x cols view), on each of the two compute streams,
   with their split-K sums. */
static size_t gemm__cuda_tc_reserve(const gemm__cuda_shape *sh, int64_t rows, int64_t cols, int64_t k)
{
    if (!sh->tc || !sh->reads_ab) return 0;
    return 2 * ((size_t)(rows + cols) * (size_t)(k + 64) * sh->elem[0] + ((size_t)32 << 20));
}

/* Pieces of C in SQUARE: up to g tiles in a row, within piece_bytes. */
static int64_t gemm__cuda_square_group(const gemm__cuda_shape *sh, int64_t t)
{
    size_t tile = gemm__cuda_area_bytes(sh, 2, gemm__cuda_min64(sh->m, t), gemm__cuda_min64(sh->n, t));
    int64_t g = tile ? (int64_t)(sh->piece_bytes / tile) : 4;
    return g < 1 ? 1 : g > 4 ? 4 : g;
}

static size_t gemm__cuda_square_piece(const gemm__cuda_shape *sh, int64_t t, int64_t g)
{
    size_t wide = gemm__cuda_area_bytes(sh, 2, gemm__cuda_min64(sh->m, t), gemm__cuda_min64(sh->n, g * t));
    size_t tall = gemm__cuda_area_bytes(sh, 2, gemm__cuda_min64(sh->m, g * t), gemm__cuda_min64(sh->n, t));
    return wide > tall ? wide : tall;
}

static size_t gemm__cuda_square_bytes(const gemm__cuda_shape *sh, int64_t t, int64_t g)
{
    size_t ab = sh->reads_ab ? gemm__cuda_area_bytes(sh, 0, sh->m, sh->k) + gemm__cuda_area_bytes(sh, 1, sh->k, sh->n) : 0;
    return ab + GEMM__CUDA_C_RING * (gemm__cuda_square_piece(sh, t, g) + 256) +
           gemm__cuda_tc_reserve(sh, gemm__cuda_min64(sh->m, g * t), gemm__cuda_min64(sh->n, g * t), sh->k);
}

/* SQUARE: pieces of `group` tiles of t x t; shell s loads panel s of A, multiplies the pieces of C's row s
   that do not need B's panel s, loads that panel, then the rest of row s
   and the pieces of column s above it. */
static void gemm__cuda_order_square(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, int64_t t, int64_t group)
{
    int64_t m = sh->m, n = sh->n, k = sh->k, pa = gemm__cuda_cdiv(m, t), pb = gemm__cuda_cdiv(n, t), g, s, q;
    gemm__cuda_area A = {-1, 0, 0, 1}, B = {-1, 0, 0, 1};
    if (sh->reads_ab) {
        A = gemm__cuda_area_of(sh, 0, gemm__cuda_slot(pl, gemm__cuda_area_bytes(sh, 0, m, k)), 0, 0, m, k);
        B = gemm__cuda_area_of(sh, 1, gemm__cuda_slot(pl, gemm__cuda_area_bytes(sh, 1, k, n)), 0, 0, k, n);
    }
    gemm__cuda_ring(pl, 2, GEMM__CUDA_C_RING, gemm__cuda_square_piece(sh, t, group));
    for (s = 0; s < (pa > pb ? pa : pb); s++) {
        int64_t r0 = s * t, r1 = gemm__cuda_min64(m, r0 + t), c0 = s * t, c1 = gemm__cuda_min64(n, c0 + t);
        bool b_due = sh->reads_ab && s < pb;
        if (s < pa) {
            int64_t last = gemm__cuda_min64(s + 1, pb);
            if (sh->reads_ab) gemm__cuda_plan_load(pl, 0, &A, r0, r1, 0, k, -1);
            for (g = 0; g < last; g += group) {
                q = gemm__cuda_min64(g + group, last);
                if (b_due && q > s) {
                    gemm__cuda_plan_load(pl, 1, &B, 0, k, c0, c1, -1);
                    b_due = false;
                }
                gemm__cuda_plan_piece(pl, sh, r0, r1, g * t, gemm__cuda_min64(n, q * t), &A, &B);
            }
        }
        if (b_due) gemm__cuda_plan_load(pl, 1, &B, 0, k, c0, c1, -1);
        if (s < pb)
            for (g = 0; g < gemm__cuda_min64(s, pa); g += group) {
                q = gemm__cuda_min64(g + group, gemm__cuda_min64(s, pa));
                gemm__cuda_plan_piece(pl, sh, g * t, gemm__cuda_min64(m, q * t), c0, c1, &A, &B);
            }
    }
    pl->order = GEMM__CUDA_SQUARE;
    pl->tm = gemm__cuda_min64(m, group * t);
    pl->tn = gemm__cuda_min64(n, group * t);
    pl->tk = k;
}

/* BLOCK-A and BLOCK-B, as one: `kept` is the operand that stays (0 = a's
   rows, 1 = b's columns), `streamed` the other. Sizes along C's rows for
   BLOCK-A: `block` rows kept, pieces of `piece` rows, streamed panels of
   `panel` columns (and the other way round for BLOCK-B). */
typedef struct gemm__cuda_blocking {
    int kept;
    int64_t block, piece, panel, blocks;
} gemm__cuda_blocking;

/* The operand rectangle (rows of C or columns of C, and all of K). */
static void gemm__cuda_block_rect(int which, int64_t x0, int64_t x1, int64_t k, int64_t *r)
{
    if (which == 0) { r[0] = x0; r[1] = x1; r[2] = 0; r[3] = k; }
    else { r[0] = 0; r[1] = k; r[2] = x0; r[3] = x1; }
}

static size_t gemm__cuda_block_bytes(const gemm__cuda_shape *sh, const gemm__cuda_blocking *b)
{
    int kept = b->kept, other = 1 - kept;
    int64_t k = sh->k, len_kept = kept == 0 ? sh->m : sh->n, len_other = kept == 0 ? sh->n : sh->m;
    int64_t block = gemm__cuda_min64(len_kept, b->block), piece = gemm__cuda_min64(block, b->piece);
    int64_t panel = gemm__cuda_min64(len_other, b->panel);
    size_t kept_bytes = kept == 0 ? gemm__cuda_area_bytes(sh, 0, block, k) : gemm__cuda_area_bytes(sh, 1, k, block);
    size_t other_bytes = other == 0 ? gemm__cuda_area_bytes(sh, 0, panel, k) : gemm__cuda_area_bytes(sh, 1, k, panel);
    size_t c_bytes = kept == 0 ? gemm__cuda_area_bytes(sh, 2, piece, panel) : gemm__cuda_area_bytes(sh, 2, panel, piece);
    return kept_bytes + GEMM__CUDA_RING * (other_bytes + 256) + GEMM__CUDA_C_RING * (c_bytes + 256) + 256 +
           gemm__cuda_tc_reserve(sh, piece, panel, k);
}

static void gemm__cuda_order_block(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, const gemm__cuda_blocking *b)
{
    int kept = b->kept, other = 1 - kept, prev = -1;
    int64_t k = sh->k, len_kept = kept == 0 ? sh->m : sh->n, len_other = kept == 0 ? sh->n : sh->m, x0, y0, z0;
    int64_t block = gemm__cuda_min64(len_kept, b->block), piece = gemm__cuda_min64(block, b->piece);
    int64_t panel = gemm__cuda_min64(len_other, b->panel), r[4];
    int keep = gemm__cuda_slot(pl, kept == 0 ? gemm__cuda_area_bytes(sh, 0, block, k) : gemm__cuda_area_bytes(sh, 1, k, block));
    gemm__cuda_ring(pl, other, GEMM__CUDA_RING,
                    other == 0 ? gemm__cuda_area_bytes(sh, 0, panel, k) : gemm__cuda_area_bytes(sh, 1, k, panel));
    gemm__cuda_ring(pl, 2, GEMM__CUDA_C_RING,
                    kept == 0 ? gemm__cuda_area_bytes(sh, 2, piece, panel) : gemm__cuda_area_bytes(sh, 2, panel, piece));
    for (x0 = 0; x0 < len_kept; x0 += block) {
        int64_t x1 = gemm__cuda_min64(len_kept, x0 + block);
        gemm__cuda_block_rect(kept, x0, x1, k, r);
        gemm__cuda_area K = gemm__cuda_area_of(sh, kept, keep, r[0], r[2], r[1] - r[0], r[3] - r[2]);
        for (y0 = 0; y0 < len_other; y0 += panel) {
            int64_t y1 = gemm__cuda_min64(len_other, y0 + panel);
            int slot = gemm__cuda_ring_take(pl, other);
            gemm__cuda_block_rect(other, y0, y1, k, r);
            gemm__cuda_area O = gemm__cuda_area_of(sh, other, slot, r[0], r[2], r[1] - r[0], r[3] - r[2]);
            gemm__cuda_plan_load(pl, other, &O, r[0], r[1], r[2], r[3], pl->last_reader[slot]);
            for (z0 = x0; z0 < x1; z0 += piece) {
                int64_t z1 = gemm__cuda_min64(x1, z0 + piece);
                gemm__cuda_block_rect(kept, z0, z1, k, r);
                if (y0 == 0) gemm__cuda_plan_load(pl, kept, &K, r[0], r[1], r[2], r[3], prev);
                if (kept == 0) gemm__cuda_plan_piece(pl, sh, z0, z1, y0, y1, &K, &O);
                else gemm__cuda_plan_piece(pl, sh, y0, y1, z0, z1, &O, &K);
            }
        }
        prev = pl->multiplies - 1;
    }
    pl->order = kept == 0 ? GEMM__CUDA_BLOCK_A : GEMM__CUDA_BLOCK_B;
    pl->tm = kept == 0 ? piece : panel;
    pl->tn = kept == 0 ? panel : piece;
    pl->tk = k;
}

/* The fewest blocks of `kept` that fit in `budget` with panels of `panel`
   (b->blocks = 0 when not even one piece's worth fits). */
static void gemm__cuda_block_fit(const gemm__cuda_shape *sh, int kept, int64_t panel, size_t budget,
                                 gemm__cuda_blocking *b)
{
    int64_t len_kept = kept == 0 ? sh->m : sh->n, per_row = (int64_t)sh->elem[2] * gemm__cuda_min64(panel, kept == 0 ? sh->n : sh->m);
    int64_t piece = (int64_t)sh->piece_bytes / (per_row > 0 ? per_row : 1), nb;
    if (piece >= 128) piece = piece / 128 * 128;
    b->kept = kept;
    b->panel = panel;
    b->piece = gemm__cuda_min64(len_kept, piece < GEMM__CUDA_MIN_TILE ? GEMM__CUDA_MIN_TILE : piece);
    b->blocks = 0;
    for (;;) { /* the smallest block (one piece) first: if even that fails, smaller pieces */
        b->block = b->piece;
        if (gemm__cuda_block_bytes(sh, b) <= budget) break;
        if (b->piece <= GEMM__CUDA_MIN_TILE) return;
        b->piece = b->piece / 2 < GEMM__CUDA_MIN_TILE ? GEMM__CUDA_MIN_TILE : b->piece / 2;
    }
    for (nb = 1; nb <= gemm__cuda_cdiv(len_kept, b->piece); nb++) {
        b->block = gemm__cuda_min64(len_kept, gemm__cuda_cdiv(gemm__cuda_cdiv(len_kept, nb), b->piece) * b->piece);
        if (gemm__cuda_block_bytes(sh, b) <= budget) {
            b->blocks = gemm__cuda_cdiv(len_kept, b->block);
            return;
        }
    }
}

static size_t gemm__cuda_ksplit_bytes(const gemm__cuda_shape *sh, int64_t tm, int64_t tn, int64_t tk)
{
    return GEMM__CUDA_RING * (gemm__cuda_area_bytes(sh, 0, tm, tk) + gemm__cuda_area_bytes(sh, 1, tk, tn) + 512) +
           GEMM__CUDA_C_RING * (gemm__cuda_area_bytes(sh, 2, tm, tn) + 256) + gemm__cuda_tc_reserve(sh, tm, tn, tk);
}

/* K-SPLIT: each tile of C stays in its slot while the parts of K pass. */
static void gemm__cuda_order_ksplit(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, int64_t tm, int64_t tn, int64_t tk)
{
    int64_t m = sh->m, n = sh->n, k = sh->k, i0, j0, p0;
    gemm__cuda_ring(pl, 0, GEMM__CUDA_RING, gemm__cuda_area_bytes(sh, 0, tm, tk));
    gemm__cuda_ring(pl, 1, GEMM__CUDA_RING, gemm__cuda_area_bytes(sh, 1, tk, tn));
    gemm__cuda_ring(pl, 2, GEMM__CUDA_C_RING, gemm__cuda_area_bytes(sh, 2, tm, tn));
    for (i0 = 0; i0 < m; i0 += tm)
        for (j0 = 0; j0 < n; j0 += tn) {
            int64_t i1 = gemm__cuda_min64(m, i0 + tm), j1 = gemm__cuda_min64(n, j0 + tn);
            int cs = gemm__cuda_ring_take(pl, 2);
            gemm__cuda_area C = gemm__cuda_area_of(sh, 2, cs, i0, j0, i1 - i0, j1 - j0);
            if (sh->loads_c) gemm__cuda_plan_load(pl, 2, &C, i0, i1, j0, j1, pl->last_store[cs]);
            for (p0 = 0; p0 < k; p0 += tk) {
                int64_t p1 = gemm__cuda_min64(k, p0 + tk);
                int as = gemm__cuda_ring_take(pl, 0), bs = gemm__cuda_ring_take(pl, 1);
                gemm__cuda_area A = gemm__cuda_area_of(sh, 0, as, i0, p0, i1 - i0, p1 - p0);
                gemm__cuda_area B = gemm__cuda_area_of(sh, 1, bs, p0, j0, p1 - p0, j1 - j0);
                gemm__cuda_plan_load(pl, 0, &A, i0, i1, p0, p1, pl->last_reader[as]);
                gemm__cuda_plan_load(pl, 1, &B, p0, p1, j0, j1, pl->last_reader[bs]);
                gemm__cuda_plan_multiply(pl, i0, i1, j0, j1, p0, p1, &A, &B, &C,
                                         p0 == 0 && !sh->loads_c ? pl->last_store[cs] : -1, p0 > 0);
            }
            gemm__cuda_plan_store(pl, &C, i0, i1, j0, j1);
        }
    pl->order = GEMM__CUDA_KSPLIT;
    pl->tm = tm;
    pl->tn = tn;
    pl->tk = tk;
}

static void gemm__cuda_plan_reset(gemm__cuda_plan *pl)
{
    pl->order = 0;
    pl->tm = pl->tn = pl->tk = 0;
    pl->ops.clear();
    pl->slot_offset.clear();
    pl->slot_bytes.clear();
    pl->last_reader.clear();
    pl->last_store.clear();
    pl->bytes = 0;
    pl->multiplies = pl->stores = 0;
    memset(pl->ring_size, 0, sizeof pl->ring_size);
}

static bool gemm__cuda_few_enough(int64_t a, int64_t b, int64_t c)
{
    return (double)a * (double)b * (double)c <= (double)GEMM__CUDA_MAX_MULTIPLIES;
}

/* BLOCK-A or BLOCK-B with panels of t, whichever moves fewer bytes; false
   when neither fits. */
static bool gemm__cuda_plan_blocks(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, int64_t t, size_t budget)
{
    gemm__cuda_blocking a, b;
    double bytes_a = (double)gemm__cuda_area_bytes(sh, 0, sh->m, sh->k), bytes_b = (double)gemm__cuda_area_bytes(sh, 1, sh->k, sh->n);
    gemm__cuda_block_fit(sh, 0, gemm__cuda_min64(sh->n, t), budget, &a);
    gemm__cuda_block_fit(sh, 1, gemm__cuda_min64(sh->m, t), budget, &b);
    if (a.blocks && !gemm__cuda_few_enough(gemm__cuda_cdiv(sh->m, a.piece), gemm__cuda_cdiv(sh->n, a.panel), 1)) a.blocks = 0;
    if (b.blocks && !gemm__cuda_few_enough(gemm__cuda_cdiv(sh->n, b.piece), gemm__cuda_cdiv(sh->m, b.panel), 1)) b.blocks = 0;
    if (!a.blocks && !b.blocks) return false;
    if (a.blocks && (!b.blocks || bytes_a + bytes_b * (double)a.blocks <= bytes_b + bytes_a * (double)b.blocks))
        gemm__cuda_order_block(pl, sh, &a);
    else
        gemm__cuda_order_block(pl, sh, &b);
    return true;
}

/* SQUARE with tiles of t if some piece size fits (*g: pieces of g tiles). */
static bool gemm__cuda_square_fits(const gemm__cuda_shape *sh, int64_t t, size_t budget, int64_t *g)
{
    if (!gemm__cuda_few_enough(gemm__cuda_cdiv(sh->m, t), gemm__cuda_cdiv(sh->n, t), 1)) return false;
    for (*g = gemm__cuda_square_group(sh, t); *g >= 1; (*g)--)
        if (gemm__cuda_square_bytes(sh, t, *g) <= budget) return true;
    return false;
}

/* K-SPLIT for C in one tile and a long K: parts of about an eighth of K,
   halved until three of A's and B's fit. */
static bool gemm__cuda_plan_long_k(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, size_t budget)
{
    int64_t tk = gemm__cuda_cdiv(gemm__cuda_cdiv(sh->k, 8), 128) * 128;
    if (!sh->reads_ab || sh->k <= 4 * (sh->m > sh->n ? sh->m : sh->n) ||
        gemm__cuda_area_bytes(sh, 2, sh->m, sh->n) > ((size_t)64 << 20))
        return false;
    for (; tk >= sh->tile && tk >= GEMM__CUDA_MIN_TILE; tk /= 2)
        if (gemm__cuda_ksplit_bytes(sh, sh->m, sh->n, tk) <= budget &&
            gemm__cuda_few_enough(gemm__cuda_cdiv(sh->k, tk), 1, 1)) {
            gemm__cuda_order_ksplit(pl, sh, sh->m, sh->n, tk);
            return true;
        }
    return false;
}

/* The plan of a call: the first order (plan.cuh) whose device memory fits
   in `budget` bytes, tiles halving from sh->tile down to
   GEMM__CUDA_MIN_TILE where that helps; false when none fits. */
static bool gemm__cuda_plan_make(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, size_t budget)
{
    int64_t m = sh->m, n = sh->n, k = sh->k, t, g;
    gemm__cuda_plan_reset(pl);
    if (!sh->reads_ab) { /* C = beta*C alone: pieces of C, nothing else */
        for (t = sh->tile;; t /= 2) {
            if (gemm__cuda_square_fits(sh, t, budget, &g)) {
                gemm__cuda_order_square(pl, sh, t, g);
                return true;
            }
            if (t <= GEMM__CUDA_MIN_TILE) return false;
        }
    }
    if (gemm__cuda_plan_long_k(pl, sh, budget)) return true;
    if (gemm__cuda_square_fits(sh, sh->tile, budget, &g)) {
        gemm__cuda_order_square(pl, sh, sh->tile, g);
        return true;
    }
    for (t = sh->tile;; t /= 2) {
        if (gemm__cuda_plan_blocks(pl, sh, t, budget)) return true;
        if (t <= GEMM__CUDA_MIN_TILE) break;
    }
    for (t = sh->tile;; t /= 2) {
        int64_t tm = gemm__cuda_min64(m, t), tn = gemm__cuda_min64(n, t), tk = gemm__cuda_min64(k, t);
        if (gemm__cuda_ksplit_bytes(sh, tm, tn, tk) <= budget &&
            gemm__cuda_few_enough(gemm__cuda_cdiv(m, tm), gemm__cuda_cdiv(n, tn), gemm__cuda_cdiv(k, tk))) {
            gemm__cuda_order_ksplit(pl, sh, tm, tn, tk);
            return true;
        }
        if (t <= GEMM__CUDA_MIN_TILE) return false;
    }
}
