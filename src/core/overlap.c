/* C must share no element with A or B where the call reads them: a
   product written over one of its own operands reads elements it has
   already overwritten, in an order that depends on the path, the blocks
   and the threads, so no caller can rely on what comes out. The check
   costs a few comparisons when the matrices' spans (first to last byte)
   are apart, the usual case; spans that meet are compared element by
   element (rects.c; byte by byte where A's and C's elements differ in
   size), because blocks of one matrix side by side (the
   trailing update A22 -= A21 * A12 of a blocked LU, whose A12 and A22
   share columns) or interleaved column by column share no element though
   their spans do. */
#pragma once

#include <stdint.h>
#include "config.h"   /* GEMM_MALLOC, GEMM_FREE */
#include "internal.h" /* gemm__problem, gemm__batch, gemm__fail */
#include "lists.c"    /* gemm__list_range */
#include "problem.c"  /* GEMM__INLINE */
#include "rects.c"    /* gemm__rects_share, gemm__batch_reads_overlap */

/* The stored rectangles of the canonical a and b (op(a) = a^T: a is k x
   m) and of C, at address 0, each of kind A or B as the caller named it. */
static void gemm__problem_rects(const gemm__problem *p, gemm__batch_rect *a, gemm__batch_rect *b, gemm__batch_rect *c)
{
    a->m = p->a_trans ? p->k : p->m;
    a->n = p->a_trans ? p->m : p->k;
    a->ld = p->lda;
    b->m = p->b_trans ? p->n : p->k;
    b->n = p->b_trans ? p->k : p->n;
    b->ld = p->ldb;
    c->m = p->m;
    c->n = p->n;
    c->ld = p->ldc;
    a->addr = b->addr = c->addr = 0;
    a->member = b->member = c->member = 0;
    a->kind = p->swapped ? 2 : 1;
    b->kind = p->swapped ? 1 : 2;
    c->kind = 0;
}

/* Whether the byte spans [x, x + xb) and [y, y + yb) are apart. */
static GEMM__INLINE int gemm__spans_apart(uint64_t x, uint64_t xb, uint64_t y, uint64_t yb)
{
    return x + xb <= y || y + yb <= x;
}

/* The common case of gemm__check_overlap_sized, inlined into the entry
   points: nothing read (p->work), or C's span apart from A's and B's. */
static GEMM__INLINE int gemm__overlap_apart_sized(const gemm__problem *p, uint64_t A, uint64_t B, uint64_t C,
                                                  size_t es_ab, size_t es_c)
{
    uint64_t cb = (uint64_t)p->c_extent * es_c;
    return p->work != GEMM__WORK_FULL ||
           (gemm__spans_apart(C, cb, p->swapped ? B : A, (uint64_t)p->a_extent * es_ab) &&
            gemm__spans_apart(C, cb, p->swapped ? A : B, (uint64_t)p->b_extent * es_ab));
}

static GEMM__INLINE int gemm__overlap_apart(const gemm__problem *p, uint64_t A, uint64_t B, uint64_t C, size_t es)
{
    return gemm__overlap_apart_sized(p, A, B, C, es, es);
}

/* A rectangle of es-byte elements as one of bytes (m * es bytes a column,
   columns ld * es bytes apart), so that matrices of different element
   types (C of floats, A and B of halves) compare exactly; the extents'
   byte offsets fit in int64_t (gemm__prepare). */
static gemm__batch_rect gemm__rect_in_bytes(gemm__batch_rect r, size_t es)
{
    r.m *= (int64_t)es;
    r.ld = r.n > 1 ? r.ld * (int64_t)es : r.m; /* one column: ld is not used, and may be huge */
    return r;
}

GEMM_DEF gemm_status gemm__check_overlap_rects(const char *func, const gemm__batch_rect *a, const gemm__batch_rect *b,
                                               const gemm__batch_rect *c, size_t es_ab, size_t es_c)
{
    gemm__batch_rect cb = gemm__rect_in_bytes(*c, es_c), xb;
    int x;
    for (x = 1; x <= 2; x++) { /* the caller's A, then B */
        const char *name = x == 1 ? "A" : "B";
        xb = gemm__rect_in_bytes(x == 1 ? *a : *b, es_ab);
        if (!gemm__rects_share(&cb, &xb, 1)) continue;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: C overlaps %s: they share elements, and C is written while %s "
                          "is read", func, name, name);
    }
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm__check_overlap_sized(const char *func, gemm__problem *p, uint64_t A, uint64_t B, uint64_t C,
                                               size_t es_ab, size_t es_c)
{
    gemm__batch_rect r[3]; /* the canonical a, b, and C */
    gemm_status s;
    if (gemm__overlap_apart_sized(p, A, B, C, es_ab, es_c)) return GEMM_OK;
    gemm__problem_rects(p, &r[0], &r[1], &r[2]);
    r[0].addr = p->swapped ? B : A;
    r[1].addr = p->swapped ? A : B;
    r[2].addr = C;
    s = gemm__check_overlap_rects(func, p->swapped ? &r[1] : &r[0], p->swapped ? &r[0] : &r[1], &r[2], es_ab, es_c);
    if (s != GEMM_OK) p->bad_arg = 13;
    return s;
}

GEMM_DEF gemm_status gemm__check_overlap(const char *func, gemm__problem *p, uint64_t A, uint64_t B, uint64_t C,
                                         size_t es)
{
    return gemm__check_overlap_sized(func, p, A, B, C, es, es);
}

/* The span [*lo, *hi) of a batch's members of one matrix, each `bytes`
   long: from its list (addr) or from base in steps of stride elements. */
static void gemm__members_span(const gemm__batch *bt, const void *list, gemm__batch_addr_fn addr, uint64_t base,
                               int64_t stride, uint64_t bytes, size_t es, uint64_t *lo, uint64_t *hi)
{
    if (!list) { /* strides are >= 0 and the span fits (gemm__prepare_strided) */
        *lo = base;
        *hi = base + (uint64_t)(bt->count - 1) * (uint64_t)stride * es + bytes;
        return;
    }
    gemm__list_range(list, addr, bt->count, lo, hi);
    *hi += bytes;
}

/* The refusal of a batch whose member cm's C shares an element with member
   rm's matrix of `kind` (shared: one matrix every member reads). */
static gemm_status gemm__batch_overlap_fail(const char *func, gemm__problem *p, gemm__batch *bt, int64_t cm,
                                            int64_t rm, int kind, int shared)
{
    const char *name = kind == 1 ? "A" : "B";
    bt->bad_member = cm;
    p->bad_arg = bt->c_list ? 13 : 15;
    if (shared)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: member %lld: C overlaps %s, which every member reads", func,
                          (long long)cm, name);
    if (cm == rm)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: member %lld: C overlaps %s: they share elements", func,
                          (long long)cm, name);
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: member %lld's C overlaps member %lld's %s: they share elements", func,
                      (long long)cm, (long long)rm, name);
}

GEMM_DEF gemm_status gemm__check_batch_overlap_sized(const char *func, gemm__problem *p, gemm__batch *bt, uint64_t A,
                                                     uint64_t B, uint64_t C, size_t es_ab, size_t es_c)
{
    gemm__batch_rect shape[3], *r;   /* the canonical a, b, and C, in bytes */
    const void *list[3];
    uint64_t base[3], lo[3], hi[3];
    int64_t stride[3], per[3], n, i, w, rd;
    size_t es[3];
    int x, met;
    if (p->work != GEMM__WORK_FULL || bt->count == 0) return GEMM_OK;
    gemm__problem_rects(p, &shape[0], &shape[1], &shape[2]);
    es[0] = es[1] = es_ab;
    es[2] = es_c;
    for (x = 0; x < 3; x++) shape[x] = gemm__rect_in_bytes(shape[x], es[x]);
    base[0] = p->swapped ? B : A;
    base[1] = p->swapped ? A : B;
    base[2] = C;
    list[0] = bt->a_list;
    list[1] = bt->b_list;
    list[2] = bt->c_list;
    stride[0] = bt->stride_a;
    stride[1] = bt->stride_b;
    stride[2] = bt->stride_c;
    for (x = 0; x < 3; x++)
        gemm__members_span(bt, list[x], x == 2 ? bt->addr_c : bt->addr_ab, base[x], stride[x],
                           gemm__rect_bytes(&shape[x], 1), es[x], &lo[x], &hi[x]);
    for (x = 0, n = 0; x < 3; x++) { /* the members of each matrix whose span meets C's */
        int meets = x == 2 || !gemm__spans_apart(lo[2], hi[2] - lo[2], lo[x], hi[x] - lo[x]);
        per[x] = !meets ? 0 : !list[x] && stride[x] == 0 ? 1 : bt->count;
        n += per[x];
    }
    if (per[0] == 0 && per[1] == 0) return GEMM_OK;
    if (!(r = (gemm__batch_rect *)GEMM_MALLOC(sizeof *r * (size_t)n)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory to check %lld members' C against A and B", func,
                          (long long)bt->count);
    for (x = 0, n = 0; x < 3; x++)
        for (i = 0; i < per[x]; i++, n++) {
            r[n] = shape[x];
            r[n].member = i;
            r[n].addr = list[x] ? (x == 2 ? bt->addr_c : bt->addr_ab)(list[x], i)
                                : base[x] + (uint64_t)i * (uint64_t)stride[x] * es[x];
        }
    met = gemm__batch_reads_overlap(r, n, 1, &w, &rd);
    if (met) {
        gemm__batch_rect cw = r[w], cr = r[rd];
        GEMM_FREE(r);
        x = cr.kind == shape[0].kind ? 0 : 1; /* the canonical matrix read */
        return gemm__batch_overlap_fail(func, p, bt, cw.member, cr.member, cr.kind,
                                        !list[x] && stride[x] == 0 && bt->count > 1);
    }
    GEMM_FREE(r);
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm__check_batch_overlap(const char *func, gemm__problem *p, gemm__batch *bt, uint64_t A,
                                               uint64_t B, uint64_t C, size_t es)
{
    return gemm__check_batch_overlap_sized(func, p, bt, A, B, C, es, es);
}
