/* Where matrices lie in memory: column-major rectangles (m contiguous
   elements per column, n columns ld apart, at a byte address) and whether
   two share an element, exactly, from their addresses and shapes alone:
   the batches' check that no two members write one element of C, and the
   check that C shares no element with A or B (overlap.c). */
#pragma once

#include <stdint.h>
#include <stdlib.h>   /* qsort */
#include "internal.h" /* gemm__batch_rect */

/* Whether two column-major rectangles x (at element 0) and y (at element
   e >= 0) share an element. Same shape: y's element (i', j') is x's
   (i, j) when e = (i - i') + (j - j')*ld with |i - i'| < m, |j - j'| < n;
   as ld >= m, only j - j' = e/ld or e/ld + 1 can work. Else each column
   of the narrower one is tested against the first column of the other
   that ends past its start. */
static int gemm__rects_meet(int64_t e, const gemm__batch_rect *x, const gemm__batch_rect *y)
{
    const gemm__batch_rect *w = x->n <= y->n ? x : y, *o = w == x ? y : x;
    int64_t w0 = w == x ? 0 : e, o0 = w == x ? e : 0, j;
    if (x->m == y->m && x->n == y->n && x->ld == y->ld) {
        int64_t q = e / x->ld, r = e % x->ld;
        return (r < x->m && q < x->n) || (x->ld - r < x->m && q + 1 < x->n);
    }
    for (j = 0; j < w->n; j++) {
        int64_t lo = w0 + j * w->ld, t = lo - o0 - o->m; /* o's column c ends past lo when c*ld > t */
        int64_t c = t < 0 ? 0 : t / o->ld + 1;
        if (c < o->n && o0 + c * o->ld < lo + w->m) return 1;
    }
    return 0;
}

/* Bytes from a rectangle's first element to one past its last. */
static uint64_t gemm__rect_bytes(const gemm__batch_rect *r, size_t es)
{
    return r->m > 0 && r->n > 0 ? (uint64_t)((r->n - 1) * r->ld + r->m) * es : 0;
}

static int gemm__rect_cmp(const void *x, const void *y)
{
    uint64_t a = ((const gemm__batch_rect *)x)->addr, b = ((const gemm__batch_rect *)y)->addr;
    return a < b ? -1 : a > b;
}

GEMM_DEF int gemm__batch_overlap(gemm__batch_rect *r, int64_t count, size_t es, int64_t *first, int64_t *second)
{
    int64_t i, j;
    qsort(r, (size_t)count, sizeof *r, gemm__rect_cmp);
    for (i = 0; i < count; i++) {
        uint64_t end = r[i].addr + gemm__rect_bytes(&r[i], es);
        for (j = i + 1; j < count && r[j].addr < end; j++) {
            uint64_t d = r[j].addr - r[i].addr;
            /* elements that do not line up overlap wherever their spans do */
            if (gemm__rect_bytes(&r[j], es) == 0) continue;
            if (d % es != 0 || gemm__rects_meet((int64_t)(d / es), &r[i], &r[j])) {
                *first = r[i].member < r[j].member ? r[i].member : r[j].member;
                *second = r[i].member < r[j].member ? r[j].member : r[i].member;
                return 1;
            }
        }
    }
    return 0;
}

/* Whether rectangles x and y (at their byte addresses, elements of es
   bytes) share a byte: their spans first, then their elements. */
static int gemm__rects_share(const gemm__batch_rect *x, const gemm__batch_rect *y, size_t es)
{
    uint64_t xb = gemm__rect_bytes(x, es), yb = gemm__rect_bytes(y, es);
    const gemm__batch_rect *lo = x->addr <= y->addr ? x : y, *hi = lo == x ? y : x;
    uint64_t d = hi->addr - lo->addr;
    if (!xb || !yb || x->addr + xb <= y->addr || y->addr + yb <= x->addr) return 0;
    /* elements that do not line up overlap wherever their spans do */
    return d % es != 0 || gemm__rects_meet((int64_t)(d / es), lo, hi);
}

GEMM_DEF int gemm__batch_reads_overlap(gemm__batch_rect *r, int64_t count, size_t es, int64_t *written,
                                       int64_t *read)
{
    int64_t i, j;
    qsort(r, (size_t)count, sizeof *r, gemm__rect_cmp);
    for (i = 0; i < count; i++) {
        uint64_t end = r[i].addr + gemm__rect_bytes(&r[i], es);
        for (j = i + 1; j < count && r[j].addr < end; j++)
            if ((r[i].kind == 0) != (r[j].kind == 0) && gemm__rects_share(&r[i], &r[j], es)) {
                *written = r[i].kind == 0 ? i : j;
                *read = r[i].kind == 0 ? j : i;
                return 1;
            }
    }
    return 0;
}
