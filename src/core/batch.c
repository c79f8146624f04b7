/* Batches: the single call's checks once, then what only a batch can get
   wrong (a stride or a member pointer, two members writing one element of
   C), all before any member is computed, so a refused batch writes
   nothing. */
#pragma once

#include <string.h>  /* memset */
#include "config.h"  /* GEMM_MALLOC, GEMM_FREE */
#include "lists.c"   /* gemm__list_first_null, gemm__list_spaced */
#include "problem.c" /* gemm__prepare, GEMM__MAX_EXTENT */
#include "rects.c"   /* gemm__rects_meet, gemm__batch_overlap */

/* The span of count members stepping `stride` elements, each `extent`
   long, fits in the 2^60 elements every offset is checked against. */
static int gemm__strided_fits(int64_t count, int64_t stride, int64_t extent)
{
    return count <= 1 || extent == 0 || stride == 0 || (count - 1) <= (GEMM__MAX_EXTENT - extent) / stride;
}

/* Strided C: member i and member i+d meet for every i when member 0 and
   member d do; only d with d*stride_c below C's extent can. Returns 0, or
   17 (stride_c's position) when two members would write one element. */
static int gemm__strided_c_disjoint(const char *func, const gemm__problem *p, int64_t stride_c, int64_t count,
                                    gemm__batch *bt)
{
    gemm__batch_rect c;
    int64_t d;
    c.m = p->m; c.n = p->n; c.ld = p->ldc; c.addr = 0; c.member = 0; c.kind = 0;
    if (p->work == GEMM__WORK_NONE || count < 2) return 0;
    if (stride_c == 0)
        GEMM__BAD_ARG(17, "%s: stride_c = 0, so all %lld members would write the same C", func, (long long)count);
    for (d = 1; d < count && d <= p->c_extent / stride_c; d++)
        if (gemm__rects_meet(d * stride_c, &c, &c)) {
            bt->bad_member = d;
            GEMM__BAD_ARG(17, "%s: stride_c = %lld is too small: members 0 and %lld would write the same "
                              "elements of C (%lld x %lld, ldc = %lld)", func, (long long)stride_c, (long long)d,
                          (long long)(p->swapped ? p->n : p->m), (long long)(p->swapped ? p->m : p->n),
                          (long long)p->ldc);
        }
    return 0;
}

/* The batch's own checks of a strided call, after the single call's;
   returns the position of the argument at fault, 0 when there is none. */
static int gemm__strided_checks(const char *func, const gemm__problem *p, int64_t stride_a, int64_t stride_b,
                                int64_t stride_c, int64_t count, gemm__batch *bt)
{
    /* p's a and b are the caller's B and A when row-major */
    int64_t ea = p->swapped ? p->b_extent : p->a_extent, eb = p->swapped ? p->a_extent : p->b_extent;
    if (stride_a < 0) GEMM__BAD_ARG(10, "%s: stride_a = %lld is negative", func, (long long)stride_a);
    if (stride_b < 0) GEMM__BAD_ARG(13, "%s: stride_b = %lld is negative", func, (long long)stride_b);
    if (stride_c < 0) GEMM__BAD_ARG(17, "%s: stride_c = %lld is negative", func, (long long)stride_c);
    if (!gemm__strided_fits(count, stride_a, ea))
        GEMM__BAD_ARG(10, "%s: %lld members stride_a = %lld apart span more than 2^60 elements", func,
                      (long long)count, (long long)stride_a);
    if (!gemm__strided_fits(count, stride_b, eb))
        GEMM__BAD_ARG(13, "%s: %lld members stride_b = %lld apart span more than 2^60 elements", func,
                      (long long)count, (long long)stride_b);
    if (!gemm__strided_fits(count, stride_c, p->c_extent))
        GEMM__BAD_ARG(17, "%s: %lld members stride_c = %lld apart span more than 2^60 elements", func,
                      (long long)count, (long long)stride_c);
    return gemm__strided_c_disjoint(func, p, stride_c, count, bt);
}

/* Positions in a strided call's list of the single call's arguments
   (cblas_?gemm's list, layout = 1 ... ldc = 14). */
static int gemm__strided_position(int single)
{
    static const int at[15] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 14, 15, 16};
    return single >= 0 && single <= 14 ? at[single] : 0;
}

GEMM_DEF gemm_status gemm__prepare_strided(const char *func, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, int alpha_is_zero,
                                           int have_A, int64_t lda, int64_t stride_a, int have_B, int64_t ldb,
                                           int64_t stride_b, int beta_is_one, int have_C, int64_t ldc,
                                           int64_t stride_c, int64_t batch_count, gemm__problem *p, gemm__batch *bt)
{
    gemm_status s;
    memset(bt, 0, sizeof *bt);
    bt->bad_member = -1;
    /* no member, no operand read: NULL is fine then */
    s = gemm__prepare(func, layout, transa, transb, m, n, k, alpha_is_zero, have_A || batch_count == 0, lda,
                      have_B || batch_count == 0, ldb, beta_is_one, have_C || batch_count == 0, ldc, p);
    if (s != GEMM_OK) {
        p->bad_arg = gemm__strided_position(p->bad_arg);
        return s;
    }
    if (batch_count < 0) {
        p->bad_arg = 18;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: batch_count = %lld is negative", func, (long long)batch_count);
    }
    p->bad_arg = gemm__strided_checks(func, p, stride_a, stride_b, stride_c, batch_count, bt);
    if (p->bad_arg) return GEMM_ERR_INVALID_ARG;
    bt->count = batch_count;
    bt->stride_a = p->swapped ? stride_b : stride_a;
    bt->stride_b = p->swapped ? stride_a : stride_b;
    bt->stride_c = stride_c;
    return GEMM_OK;
}

/* Every member's pointers, in member order: present where the call reads
   or writes them. Returns the position of the bad list (A = 8, B = 10,
   C = 13; bt->bad_member says which member when the list itself is
   there), else 0. */
static int gemm__members_present(const char *func, const gemm__problem *p, const void *A, const void *B,
                                 const void *C, int64_t count, gemm__batch *bt)
{
    int reads = p->work == GEMM__WORK_FULL, writes = p->work != GEMM__WORK_NONE;
    if (count == 0) return 0;
    if (reads && !A) GEMM__BAD_ARG(8, "%s: A (the list of member pointers) is NULL", func);
    if (reads && !B) GEMM__BAD_ARG(10, "%s: B (the list of member pointers) is NULL", func);
    if (writes && !C) GEMM__BAD_ARG(13, "%s: C (the list of member pointers) is NULL", func);
    if (reads || writes) { /* the first member with a NULL, and its first NULL operand */
        int64_t na = reads ? gemm__list_first_null(A, bt->addr_ab, count) : count,
                nb = reads ? gemm__list_first_null(B, bt->addr_ab, count) : count,
                nc = writes ? gemm__list_first_null(C, bt->addr_c, count) : count,
                i = na < nb ? na : nb;
        i = i < nc ? i : nc;
        if (i < count) {
            int bad = na == i ? 8 : nb == i ? 10 : 13;
            bt->bad_member = i;
            GEMM__BAD_ARG(bad, "%s: member %lld: %s[%lld] is NULL", func, (long long)i,
                          bad == 8 ? "A" : bad == 10 ? "B" : "C", (long long)i);
        }
    }
    return 0;
}

/* No two members write one element of C. The usual list (Cs in
   increasing or decreasing address order, each past the last) is seen in
   one pass; any other is sorted and swept. */
static gemm_status gemm__members_disjoint(const char *func, const gemm__problem *p, const void *C, int64_t count,
                                          size_t es, gemm__batch *bt)
{
    int met;
    int64_t i, first = 0, second = 0;
    gemm__batch_rect *r;
    if (p->work == GEMM__WORK_NONE || count < 2) return GEMM_OK;
    if (gemm__list_spaced(C, bt->addr_c, count, (uint64_t)p->c_extent * es)) return GEMM_OK;
    r = (gemm__batch_rect *)GEMM_MALLOC(sizeof *r * (size_t)count);
    if (!r)
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory to check %lld members' C for overlaps", func,
                          (long long)count);
    for (i = 0; i < count; i++) {
        r[i].addr = bt->addr_c(C, i);
        r[i].m = p->m; r[i].n = p->n; r[i].ld = p->ldc; r[i].member = i; r[i].kind = 0;
    }
    met = gemm__batch_overlap(r, count, es, &first, &second);
    GEMM_FREE(r);
    if (!met) return GEMM_OK;
    bt->bad_member = second;
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: members %lld and %lld would write the same elements of C", func,
                      (long long)first, (long long)second);
}

GEMM_DEF gemm_status gemm__prepare_batched(const char *func, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, int alpha_is_zero,
                                           const void *A, int64_t lda, const void *B, int64_t ldb, int beta_is_one,
                                           const void *C, int64_t ldc, int64_t batch_count,
                                           gemm__batch_addr_fn addr_ab, gemm__batch_addr_fn addr_c,
                                           size_t elem_size, gemm__problem *p, gemm__batch *bt)
{
    gemm_status s;
    memset(bt, 0, sizeof *bt);
    bt->bad_member = -1;
    bt->addr_ab = addr_ab;
    bt->addr_c = addr_c;
    /* the lists are checked below, member by member */
    s = gemm__prepare(func, layout, transa, transb, m, n, k, alpha_is_zero, 1, lda, 1, ldb, beta_is_one, 1, ldc, p);
    if (s != GEMM_OK) return s;
    if (batch_count < 0) {
        p->bad_arg = 15;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: batch_count = %lld is negative", func, (long long)batch_count);
    }
    p->bad_arg = gemm__members_present(func, p, A, B, C, batch_count, bt);
    if (p->bad_arg) return GEMM_ERR_INVALID_ARG;
    s = gemm__members_disjoint(func, p, C, batch_count, elem_size, bt);
    if (s != GEMM_OK) {
        p->bad_arg = s == GEMM_ERR_INVALID_ARG ? 13 : 0;
        return s;
    }
    bt->count = batch_count;
    bt->a_list = p->swapped ? B : A;
    bt->b_list = p->swapped ? A : B;
    bt->c_list = C;
    return GEMM_OK;
}
