/* cblas_?gemm_batch: groups, each a pointer-array batch of its own shape.
   Every group is checked, and no two members of any groups may write one
   element of C, before any member is computed. Positions: the arrays as
   in cblas_?gemm (transa_array = 2, ..., ldc_array = 14), group_count =
   15, group_size = 16; a detail names the group and its member. */
#pragma once

#include <stdio.h>            /* snprintf */
#include "../core/config.h"   /* GEMM_MALLOC, GEMM_FREE */
#include "../core/internal.h" /* gemm__prepare_batched, gemm__batch_overlap, GEMM__BAD_ARG */
#include "../core/lists.c"    /* gemm__pointer_list_addr */
#include "../core/overlap.c"  /* gemm__check_batch_overlap */
#include "../cpu/batch.c"     /* gemm__cpu_batch_gemm */
#include "api.h"
#include "xerbla.c"           /* gemm__cblas_fail, gemm__cblas_trans */

typedef struct gemm__cblas_groups {
    gemm_precision prec;
    CBLAS_LAYOUT layout;
    const CBLAS_TRANSPOSE *ta, *tb;
    const CBLAS_INT *m, *n, *k, *lda, *ldb, *ldc, *size;
    const void *alpha, *beta; /* float or double, one per group */
    const void *a, *b, *c;    /* one pointer per member, group after group */
    CBLAS_INT count;
} gemm__cblas_groups;

static double gemm__cblas_scalar(const gemm__cblas_groups *g, const void *list, CBLAS_INT i)
{
    return g->prec == GEMM_F32 ? (double)((const float *)list)[i] : ((const double *)list)[i];
}

/* A list of member pointers from its member `first` on. */
static const void *gemm__cblas_sublist(const gemm__cblas_groups *g, const void *list, int64_t first)
{
    size_t size = g->prec == GEMM_F32 ? sizeof(float *) : sizeof(double *);
    return list ? (const void *)((const char *)list + (size_t)first * size) : NULL;
}

/* The per-group arrays are there (when there are groups); returns the
   position of a missing one, else 0. */
static int gemm__cblas_arrays_present(const char *rout, const gemm__cblas_groups *g)
{
    const void *arrays[11];
    static const int at[11] = {2, 3, 4, 5, 6, 7, 9, 11, 12, 14, 16};
    static const char *const names[11] = {"transa_array", "transb_array", "m_array", "n_array", "k_array",
                                          "alpha_array", "lda_array", "ldb_array", "beta_array", "ldc_array",
                                          "group_size"};
    int i;
    arrays[0] = g->ta; arrays[1] = g->tb; arrays[2] = g->m; arrays[3] = g->n; arrays[4] = g->k;
    arrays[5] = g->alpha; arrays[6] = g->lda; arrays[7] = g->ldb; arrays[8] = g->beta; arrays[9] = g->ldc;
    arrays[10] = g->size;
    for (i = 0; i < 11; i++)
        if (!arrays[i]) GEMM__BAD_ARG(at[i], "%s: %s is NULL", rout, names[i]);
    return 0;
}

/* Group i's checks, its members from `first` on. */
static gemm_status gemm__cblas_group_prepare(const char *fn, const gemm__cblas_groups *g, CBLAS_INT i,
                                             int64_t first, gemm__problem *p, gemm__batch *bt)
{
    int f32 = g->prec == GEMM_F32;
    size_t es = f32 ? sizeof(float) : sizeof(double);
    gemm_status s = gemm__prepare_batched(
        fn, (gemm_layout)g->layout, gemm__cblas_trans(g->ta[i]), gemm__cblas_trans(g->tb[i]), g->m[i], g->n[i],
        g->k[i], gemm__cblas_scalar(g, g->alpha, i) == 0, gemm__cblas_sublist(g, g->a, first), g->lda[i],
        gemm__cblas_sublist(g, g->b, first), g->ldb[i], gemm__cblas_scalar(g, g->beta, i) == 1,
        gemm__cblas_sublist(g, g->c, first), g->ldc[i], g->size[i], gemm__pointer_list_addr,
        gemm__pointer_list_addr, es, p, bt);
    return s == GEMM_OK ? gemm__check_batch_overlap(fn, p, bt, 0, 0, 0, es) : s; /* within the group */
}

/* No two members of different groups write one element of C (within a
   group its own checks saw to it). */
static gemm_status gemm__cblas_groups_disjoint(const char *rout, const gemm__cblas_groups *g, const gemm__problem *p,
                                               const gemm__batch *bt)
{
    int64_t total = 0, r = 0, first = 0, second = 0, member = 0, j;
    size_t es = g->prec == GEMM_F32 ? sizeof(float) : sizeof(double);
    gemm__batch_rect *rect;
    CBLAS_INT i;
    int met;
    for (i = 0; i < g->count; i++)
        if (p[i].work != GEMM__WORK_NONE) total += bt[i].count;
    if (total < 2) return GEMM_OK;
    if (!(rect = (gemm__batch_rect *)GEMM_MALLOC(sizeof *rect * (size_t)total)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory to check %lld members' C for overlaps", rout,
                          (long long)total);
    for (i = 0; i < g->count; member += bt[i].count, i++)
        for (j = 0; j < bt[i].count && p[i].work != GEMM__WORK_NONE; j++, r++) {
            rect[r].addr = bt[i].addr_c(bt[i].c_list, j);
            rect[r].m = p[i].m; rect[r].n = p[i].n; rect[r].ld = p[i].ldc; rect[r].member = member + j;
            rect[r].kind = 0;
        }
    met = gemm__batch_overlap(rect, total, es, &first, &second);
    GEMM_FREE(rect);
    if (!met) return GEMM_OK;
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: members %lld and %lld (counted over all groups) would write the same "
                      "elements of C", rout, (long long)first, (long long)second);
}

/* Checks every group, then runs them in order. */
static gemm_status gemm__cblas_groups_run(const char *rout, const gemm__cblas_groups *g, gemm__problem *p,
                                         gemm__batch *bt, int *position)
{
    char fn[96];
    int64_t first = 0;
    CBLAS_INT i;
    gemm_status s = GEMM_OK;
    for (i = 0; i < g->count && s == GEMM_OK; first += g->size[i], i++) {
        snprintf(fn, sizeof fn, "%s (group %lld)", rout, (long long)i);
        s = gemm__cblas_group_prepare(fn, g, i, first, &p[i], &bt[i]);
        *position = p[i].bad_arg == 15 ? 16 : p[i].bad_arg; /* gemm's batch_count is the group's size */
    }
    if (s == GEMM_OK && g->count > 1) {
        s = gemm__cblas_groups_disjoint(rout, g, p, bt);
        *position = s == GEMM_ERR_INVALID_ARG ? 13 : 0;
    }
    for (i = 0; i < g->count && s == GEMM_OK; i++) {
        snprintf(fn, sizeof fn, "%s (group %lld)", rout, (long long)i);
        s = gemm__cpu_batch_gemm(fn, &p[i], &bt[i], g->prec, gemm__cblas_scalar(g, g->alpha, i), NULL, NULL,
                                 gemm__cblas_scalar(g, g->beta, i), NULL, NULL);
        *position = 0;
    }
    return s;
}

static void gemm__cblas_batch(const char *rout, const gemm__cblas_groups *g)
{
    gemm__problem *p;
    gemm__batch *bt;
    gemm_status s;
    int position = 0;
    gemm__clear_error();
    if (g->count < 0) {
        gemm__fail(GEMM_ERR_INVALID_ARG, "%s: group_count = %lld is negative", rout, (long long)g->count);
        gemm__cblas_fail(rout, GEMM_ERR_INVALID_ARG, 15);
        return;
    }
    if (g->count == 0) return;
    if ((position = gemm__cblas_arrays_present(rout, g)) != 0) {
        gemm__cblas_fail(rout, GEMM_ERR_INVALID_ARG, position);
        return;
    }
    p = (gemm__problem *)GEMM_MALLOC(sizeof *p * (size_t)g->count);
    bt = (gemm__batch *)GEMM_MALLOC(sizeof *bt * (size_t)g->count);
    s = p && bt ? gemm__cblas_groups_run(rout, g, p, bt, &position)
                : gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for %lld groups", rout, (long long)g->count);
    if (p) GEMM_FREE(p);
    if (bt) GEMM_FREE(bt);
    if (s != GEMM_OK) gemm__cblas_fail(rout, s, position);
}

GEMM_DEF void cblas_sgemm_batch(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array,
                                const CBLAS_TRANSPOSE *transb_array, const CBLAS_INT *m_array,
                                const CBLAS_INT *n_array, const CBLAS_INT *k_array, const float *alpha_array,
                                const float **a_array, const CBLAS_INT *lda_array, const float **b_array,
                                const CBLAS_INT *ldb_array, const float *beta_array, float **c_array,
                                const CBLAS_INT *ldc_array, const CBLAS_INT group_count, const CBLAS_INT *group_size)
{
    gemm__cblas_groups g;
    g.prec = GEMM_F32; g.layout = layout; g.ta = transa_array; g.tb = transb_array;
    g.m = m_array; g.n = n_array; g.k = k_array; g.lda = lda_array; g.ldb = ldb_array; g.ldc = ldc_array;
    g.size = group_size; g.alpha = alpha_array; g.beta = beta_array;
    g.a = a_array; g.b = b_array; g.c = c_array; g.count = group_count;
    gemm__cblas_batch("cblas_sgemm_batch", &g);
}

GEMM_DEF void cblas_dgemm_batch(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array,
                                const CBLAS_TRANSPOSE *transb_array, const CBLAS_INT *m_array,
                                const CBLAS_INT *n_array, const CBLAS_INT *k_array, const double *alpha_array,
                                const double **a_array, const CBLAS_INT *lda_array, const double **b_array,
                                const CBLAS_INT *ldb_array, const double *beta_array, double **c_array,
                                const CBLAS_INT *ldc_array, const CBLAS_INT group_count, const CBLAS_INT *group_size)
{
    gemm__cblas_groups g;
    g.prec = GEMM_F64; g.layout = layout; g.ta = transa_array; g.tb = transb_array;
    g.m = m_array; g.n = n_array; g.k = k_array; g.lda = lda_array; g.ldb = ldb_array; g.ldc = ldc_array;
    g.size = group_size; g.alpha = alpha_array; g.beta = beta_array;
    g.a = a_array; g.b = b_array; g.c = c_array; g.count = group_count;
    gemm__cblas_batch("cblas_dgemm_batch", &g);
}
