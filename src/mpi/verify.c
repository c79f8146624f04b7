/* ---- verified products (options.verify) ------------------------------------ */

/* The checksums of core/verify.h over the grid. Every rank holds its
   pieces of op(a), op(b) and C (the root all of them in the root-held
   form, the others none; in the distributed form each its tiles, on the
   host: the CPU multiply) and keeps the sums as full-length vectors, its
   own contributions at its tiles' offsets, zeros elsewhere; sums over
   the ranks (MPI_Allreduce) make them whole:
     before  e^T op(a) and op(b) e (4k doubles, reduced), then, weighted
             by them, this rank's part of want and scale of every row and
             column, with beta*C0's (reduced: 3m + 3n doubles)
     after   the sums of the C computed (m + n doubles, reduced)
   and every rank compares the same vectors (core/verify.c), so they agree
   on GEMM_ERR_VERIFY. A corrupted block in a shift, a rank's faulty
   multiply or a flipped element of C anywhere shows in the sums. The
   work is O(local pieces); the messages O(m + n + k) doubles. */
#pragma once

#include <float.h>                /* FLT_MAX, DBL_MAX */
#include <math.h>                 /* fabs */
#include <string.h>
#include "../core/verify.c"       /* gemm__verify_compare */
#include "../cpu/verify_sums.c"   /* gemm__verify_pass_mt */
#include "state.h"
#include "status.c"               /* GEMM__MPI_DO, gemm__mpi_keep */
#include "vote.c"                 /* gemm__mpi_vote */

/* One call's sums: the vectors (NULL when the call does not verify). */
typedef struct gemm__mpi_verify {
    double *ws, *scratch;
    gemm__verify_sums v;
} gemm__mpi_verify;

/* This rank's pieces in the view: op(a), op(b), C tiles (empty on a rank
   that holds none), read through the call's canonical strides. */
static void gemm__mpi_verify_tiles(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_call *c,
                                   gemm_mpi_tile *a, gemm_mpi_tile *b, gemm_mpi_tile *C)
{
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    memset(C, 0, sizeof *C);
    if (c->form == 1) {
        *a = tm->g.a;
        *b = tm->g.b;
        *C = tm->g.c;
    } else if (tm->rank == sh->o.root) {
        a->rows = C->rows = c->p.m;
        a->cols = b->rows = c->p.k;
        b->cols = C->cols = c->p.n;
    }
}

/* Before the product (every rank, when the call verifies): the sums'
   vectors, and their want and scale. A rank without memory fails the
   call on every rank (a vote) before any sum moves. */
static void gemm__mpi_verify_before(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_call *c,
                                    gemm__mpi_err *e, gemm__mpi_verify *vf)
{
    const gemm__problem *p = &c->p;
    int64_t m = p->m, n = p->n, k = p->k;
    size_t doubles = gemm__verify_doubles(m, n, k);
    gemm_mpi_tile ta, tb, tc;
    double *s, *sa, *r, *ra, alpha = c->alpha, beta = c->beta;
    gemm_status st;
    int64_t x;
    vf->ws = (double *)GEMM_MALLOC(doubles * sizeof(double));
    if (!vf->ws)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the verification's sums, %llu "
                                     "bytes", e->func, (unsigned long long)(doubles * sizeof(double))));
    st = gemm__mpi_vote(tm, e, NULL, 0, NULL);
    if (st != GEMM_OK) {
        gemm__mpi_agreed(e, st);
        return;
    }
    memset(vf->ws, 0, doubles * sizeof(double));
    vf->scratch = gemm__verify_layout(&vf->v, vf->ws, m, n, k);
    s = gemm__verify_scratch(vf->scratch, k, 0);
    sa = gemm__verify_scratch(vf->scratch, k, 1);
    r = gemm__verify_scratch(vf->scratch, k, 2);
    ra = gemm__verify_scratch(vf->scratch, k, 3);
    gemm__mpi_verify_tiles(sh, tm, c, &ta, &tb, &tc);
    if (beta != 0 && tc.rows > 0 && tc.cols > 0) { /* beta*C0, this rank's part */
        gemm__verify_pass_mt(sh->precision, c->C, tc.rows, tc.cols, 1, p->ldc, NULL, NULL, NULL, NULL,
                          vf->v.want_col + tc.col0, vf->v.scale_col + tc.col0, vf->v.want_row + tc.row0,
                          vf->v.scale_row + tc.row0, 1);
        for (x = 0; x < m; x++) vf->v.want_row[x] *= beta, vf->v.scale_row[x] *= fabs(beta);
        for (x = 0; x < n; x++) vf->v.want_col[x] *= beta, vf->v.scale_col[x] *= fabs(beta);
    }
    if (p->work == GEMM__WORK_FULL) {
        if (ta.rows > 0 && ta.cols > 0)
            gemm__verify_pass_mt(sh->precision, c->A, ta.rows, ta.cols, p->ars, p->acs, NULL, NULL, NULL, NULL,
                              s + ta.col0, sa + ta.col0, NULL, NULL, 1);
        if (tb.rows > 0 && tb.cols > 0)
            gemm__verify_pass_mt(sh->precision, c->B, tb.rows, tb.cols, p->brs, p->bcs, NULL, NULL, NULL, NULL, NULL,
                              NULL, r + tb.row0, ra + tb.row0, 1);
        /* the four k-vectors lie one after the other: one reduction */
        GEMM__MPI_DO(e, MPI_Allreduce(MPI_IN_PLACE, s, (int)(ra + k - s), MPI_DOUBLE, MPI_SUM, tm->comm));
        for (x = 0; x < k; x++) s[x] *= alpha, sa[x] *= fabs(alpha), r[x] *= alpha, ra[x] *= fabs(alpha);
        if (tb.rows > 0 && tb.cols > 0)
            gemm__verify_pass_mt(sh->precision, c->B, tb.rows, tb.cols, p->brs, p->bcs, s + tb.row0, sa + tb.row0, NULL,
                              NULL, vf->v.want_col + tb.col0, vf->v.scale_col + tb.col0, NULL, NULL, 1);
        if (ta.rows > 0 && ta.cols > 0)
            gemm__verify_pass_mt(sh->precision, c->A, ta.rows, ta.cols, p->ars, p->acs, NULL, NULL, r + ta.col0,
                              ra + ta.col0, NULL, NULL, vf->v.want_row + ta.row0, vf->v.scale_row + ta.row0, 1);
    }
    GEMM__MPI_DO(e, MPI_Allreduce(MPI_IN_PLACE, vf->ws, (int)(vf->scratch - vf->ws), MPI_DOUBLE, MPI_SUM, tm->comm));
}

#ifdef GEMM__TEST_HOOKS
/* The tests' flipped bit of C (gemm__hooks), on the rank whose piece of
   C holds the element (canonical coordinates). */
static void gemm__mpi_verify_flip(const gemm__mpi_shape *sh, const gemm_mpi_tile *tc, const gemm__mpi_call *c)
{
    const gemm__hooks *h = gemm__test_hooks();
    int64_t i = h->verify_flip_row - tc->row0, j = h->verify_flip_col - tc->col0;
    if (!h->verify_flip_bit || i < 0 || i >= tc->rows || j < 0 || j >= tc->cols) return;
    if (sh->precision == GEMM_F32) *((uint32_t *)c->C + i + j * c->p.ldc) ^= (uint32_t)1 << (h->verify_flip_bit - 1);
    else *((uint64_t *)c->C + i + j * c->p.ldc) ^= (uint64_t)1 << (h->verify_flip_bit - 1);
}
#endif

/* After the product and C written (every rank, unless a vote already
   failed the call): the sums of C, reduced, then the comparison. */
static void gemm__mpi_verify_after(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_call *c,
                                   gemm__mpi_err *e, gemm__mpi_verify *vf)
{
    const gemm__problem *p = &c->p;
    gemm_mpi_tile ta, tb, tc;
    if (!vf->ws || e->agreed) return;
    gemm__mpi_verify_tiles(sh, tm, c, &ta, &tb, &tc);
    memset(vf->v.got_row, 0, sizeof(double) * (size_t)p->m);
    memset(vf->v.got_col, 0, sizeof(double) * (size_t)p->n);
    if (e->st == GEMM_OK && tc.rows > 0 && tc.cols > 0) {
#ifdef GEMM__TEST_HOOKS
        gemm__mpi_verify_flip(sh, &tc, c);
#endif
        gemm__verify_pass_mt(sh->precision, c->C, tc.rows, tc.cols, 1, p->ldc, NULL, NULL, NULL, NULL,
                          vf->v.got_col + tc.col0, NULL, vf->v.got_row + tc.row0, NULL, 1);
    }
    GEMM__MPI_DO(e, MPI_Allreduce(MPI_IN_PLACE, vf->v.got_row, (int)p->m, MPI_DOUBLE, MPI_SUM, tm->comm));
    GEMM__MPI_DO(e, MPI_Allreduce(MPI_IN_PLACE, vf->v.got_col, (int)p->n, MPI_DOUBLE, MPI_SUM, tm->comm));
    if (e->st == GEMM_OK)
        gemm__mpi_keep(e, gemm__verify_compare(e->func, &vf->v, p->m, p->n, p->k, gemm__verify_unit(sh->precision, 0),
                                               sh->precision == GEMM_F32 ? FLT_MAX : DBL_MAX, p->swapped, -1));
}

static void gemm__mpi_verify_free(gemm__mpi_verify *vf)
{
    GEMM_FREE(vf->ws);
    vf->ws = NULL;
}
