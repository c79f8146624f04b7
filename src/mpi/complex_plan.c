/* ---- complex plans and the distributed complex calls ---------------------- */

/* A complex plan is a real plan of the complex problem's real form, in the
   caller's layout with no transposes. Column-major, C (m x n complex) is a
   real 2m x n matrix and C = X * b, X the real 2m x 2k expansion of
   alpha*op(A) and b op(B) as a real 2k x n matrix; row-major, C is a real
   m x 2n matrix and C = a * X, a op(A) as a real m x 2k matrix and X the
   real 2k x 2n expansion of alpha*op(B). Both are the column-major view's
   expansion of its a (cpu/complex.c tells how), so one code serves both.
   The real plan's blocks are the complex sizes' blocks with each
   element's two reals side by side (shape.pairs), so each rank's real
   pieces are the reals of its complex pieces (gemm_mpi_blocks_of of the
   complex sizes): the distributed form expands its own pieces, and no
   element is split between ranks.

   An execute checks its complex arguments on each rank (the root-held
   form's matrices on the root, every rank's scalars; the distributed
   form's pieces on every rank), makes room for the expanded operand, a
   copy of a transposed or conjugated other operand, and a copy of C for a
   complex beta (one buffer the plan keeps), and the ranks vote on it all
   and on alpha and beta. Then each rank that holds data expands, and the
   real plan runs with alpha = 1 and a real beta (1 when a complex beta
   has scaled C's copy, which goes back into C once the product
   succeeded, so a failed execute leaves C as it was). alpha = 0 or k = 0
   is C = beta*C where C is, with no message. */
#pragma once

#include <string.h>
#include "../core/complex.c" /* gemm__prepare_complex, gemm__complex_load */
#include "../core/overlap.c" /* gemm__check_overlap */
#include "../cpu/api.h"      /* gemm__complex_expand, _copy_b, _scale_c */
#include "api.h"
#include "check.c"           /* gemm__mpi_check_pieces, gemm__mpi_min_ld */
#include "comm.c"            /* gemm__mpi_running */
#include "entry.c"           /* gemm__mpi_plan_make, gemm__mpi_plan_call, gemm__mpi_outputs_early */
#include "grid.c"            /* gemm__mpi_grid_view */
#include "vote.c"            /* gemm__mpi_vote */

/* The canonical problem's pieces this rank expands, copies and scales:
   op(a) (am x ak), op(b) (bk x bn), C (cm x cn), in complex elements. */
typedef struct gemm__mpi_cx_pieces {
    int64_t am, ak, bk, bn, cm, cn;
    size_t xoff, yoff, toff, bytes; /* where X, b's copy and C's copy lie in the plan's buffer, and its size */
} gemm__mpi_cx_pieces;

/* This rank's checks (into p, the canonical problem with this rank's
   leading dimensions, strides and pieces' extents; az, bz the scalars) and
   the room its expansion needs (*pc; nothing where it holds no data). */
static gemm_status gemm__mpi_cx_check(const gemm_mpi_plan *plan, const char *func, int form, const void *alpha,
                                      const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                      void *C, int64_t ldc, gemm__problem *p, double az[2], double bz[2],
                                      gemm__mpi_cx_pieces *pc)
{
    const gemm__mpi_cplx *cx = &plan->cx;
    const gemm__mpi_shape *sh = &plan->shape;
    gemm_precision prec = sh->precision;
    int full = form == 0 && plan->team.rank == sh->o.root, holds = form == 1 || full;
    size_t es = 2 * gemm_precision_size(prec);
    gemm_status s;
    memset(pc, 0, sizeof *pc);
    if (full) { /* the root's matrices, in its memory */
        s = gemm__prepare_complex(func, prec, sh->layout, cx->transa, cx->transb, cx->m, cx->n, cx->k, alpha,
                                  A != NULL, lda, B != NULL, ldb, beta, C != NULL, ldc, p, az, bz);
        if (s == GEMM_OK) s = gemm__check_overlap(func, p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, es);
        if (s != GEMM_OK) return s;
        pc->am = pc->cm = p->m;
        pc->ak = pc->bk = p->k;
        pc->bn = pc->cn = p->n;
    } else { /* the scalars, as a call with the smallest leading dimensions */
        s = gemm__prepare_complex(func, prec, sh->layout, cx->transa, cx->transb, cx->m, cx->n, cx->k, alpha, 1,
                                  gemm__mpi_min_ld(sh->layout, cx->transa, cx->m, cx->k), 1,
                                  gemm__mpi_min_ld(sh->layout, cx->transb, cx->k, cx->n), beta, 1,
                                  gemm__mpi_min_ld(sh->layout, GEMM_NO_TRANS, cx->m, cx->n), p, az, bz);
        if (s != GEMM_OK) return s;
    }
    if (form == 1) { /* this rank's pieces of the complex call */
        gemm_mpi_blocks u;
        gemm__mpi_grid g;
        gemm__mpi_args in;
        memset(&in, 0, sizeof in);
        in.A = A; in.lda = lda; in.B = B; in.ldb = ldb; in.C = C; in.ldc = ldc;
        if ((s = gemm_mpi_blocks_of(plan->team.P, plan->team.rank, cx->m, cx->n, cx->k, &u)) != GEMM_OK) return s;
        gemm__mpi_grid_view(&u, p->swapped, &g);
        if ((s = gemm__mpi_check_pieces(func, &g, &in, es, p)) != GEMM_OK) return s;
        /* a complex element is twice the real calls' bytes: spans within half their limit */
        if (p->a_extent > GEMM__MAX_EXTENT / 2 || p->b_extent > GEMM__MAX_EXTENT / 2 ||
            p->c_extent > GEMM__MAX_EXTENT / 2)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: a piece spans more than 2^59 complex elements", func);
        pc->am = g.a.rows; pc->ak = g.a.cols;
        pc->bk = g.b.rows; pc->bn = g.b.cols;
        pc->cm = g.c.rows; pc->cn = g.c.cols;
    }
    if (!holds || p->work != GEMM__WORK_FULL) return GEMM_OK;
    /* X, 2am x 2ak reals; b's copy (transposed or conjugated), 2bk x bn;
       C's copy (a complex beta), 2cm x cn: each 64-byte aligned */
    pc->xoff = 0;
    pc->yoff = pc->xoff + ((size_t)(4 * pc->am * pc->ak) * (es / 2) + 63) / 64 * 64;
    pc->toff = pc->yoff + (p->b_trans ? ((size_t)(2 * pc->bk * pc->bn) * (es / 2) + 63) / 64 * 64 : 0);
    pc->bytes = pc->toff + (bz[1] != 0 ? (size_t)(2 * pc->cm * pc->cn) * (es / 2) : 0);
    return GEMM_OK;
}

/* The plan's buffer grown to `bytes` (kept: later executes of the same
   shape allocate nothing). */
static gemm_status gemm__mpi_cx_room(gemm_mpi_plan *plan, const char *func, size_t bytes)
{
    void *b;
    if (bytes <= plan->cx.bytes) return GEMM_OK;
    if (!(b = GEMM_MALLOC(bytes)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the expanded operands, %zu bytes", func, bytes);
    GEMM_FREE(plan->cx.buf);
    plan->cx.buf = b;
    plan->cx.bytes = bytes;
    return GEMM_OK;
}

/* C = beta*C over this rank's cm x cn C (leading dimension p->ldc). */
static void gemm__mpi_cx_scale(const gemm__problem *p, const gemm__mpi_cx_pieces *pc, gemm_precision prec,
                               const double bz[2], void *C)
{
    gemm__problem q = *p;
    q.m = pc->cm;
    q.n = pc->cn;
    if (C && q.m > 0 && q.n > 0) gemm__complex_scale_c(&q, prec, bz, C);
}

/* The execute behind the four complex plan calls (form 0 root-held, 1
   distributed). */
static gemm_status gemm__mpi_cx_execute(gemm_mpi_plan *plan, const char *func, gemm_precision precision, int form,
                                        const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                        const void *beta, void *C, int64_t ldc, const gemm_mpi_options *options)
{
    static const char *const names[] = {"alpha (real part)", "alpha (imaginary part)", "beta (real part)",
                                        "beta (imaginary part)", "forms"};
    const gemm__mpi_shape *sh;
    gemm__mpi_cx_pieces pc;
    gemm__problem p;
    gemm__mpi_err e;
    double az[2] = {0, 0}, bz[2] = {0, 0}, rbeta;
    int64_t v[5];
    size_t es;
    gemm_status s;
    int holds;
    char *x, *y, *t;
    const void *ra, *rb;
    void *rc;
    int64_t lda_r, ldb_r, ldc_r, ldx, ldy, ldt;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: plan is NULL", func);
    sh = &plan->shape;
    es = gemm_precision_size(precision);
    s = gemm__mpi_running(func);
    if (s == GEMM_OK && plan->broken)
        s = gemm__fail(GEMM_ERR_MPI, "%s: an MPI call failed in an earlier execute of this plan: destroy it", func);
    /* (the same plan, so the same answer, on every rank) */
    if (s == GEMM_OK && !plan->cx.on)
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the plan is real (gemm_mpi_plan_create): make a complex one with "
                       "gemm_mpi_plan_create_complex", func);
    if (s == GEMM_OK && sh->precision != precision)
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the plan's precision is %s: execute it with gemm_mpi_%cgemm_plan",
                       func, sh->precision == GEMM_F32 ? "GEMM_F32" : "GEMM_F64",
                       sh->precision == GEMM_F32 ? 'c' : 'z');
    if (s == GEMM_OK && form == 1 && sh->o.local == GEMM_MPI_LOCAL_CUDA)
        s = gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the distributed complex form expands each rank's pieces on the "
                       "host: not offered with the CUDA local multiply (the root-held form is)", func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }

    gemm__mpi_err_init(&e, func);
    gemm__mpi_keep(&e, gemm__mpi_cx_check(plan, func, form, alpha, A, lda, B, ldb, beta, C, ldc, &p, az, bz, &pc));
    if (e.st == GEMM_OK) gemm__mpi_keep(&e, gemm__mpi_cx_room(plan, func, pc.bytes));
    memcpy(&v[0], &az[0], 8);
    memcpy(&v[1], &az[1], 8);
    memcpy(&v[2], &bz[0], 8);
    memcpy(&v[3], &bz[1], 8);
    v[4] = form;
    s = gemm__mpi_vote(&plan->team, &e, v, 5, names);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }

    holds = form == 1 || plan->team.rank == sh->o.root;
    if (p.work != GEMM__WORK_FULL) { /* C = beta*C where C is (or nothing) */
        if (holds && p.work == GEMM__WORK_SCALE) gemm__mpi_cx_scale(&p, &pc, precision, bz, C);
        gemm__mpi_outputs_early(options);
        return GEMM_OK;
    }
    /* (a rank with nothing to expand may have no buffer: no offset from NULL) */
    x = plan->cx.buf ? (char *)plan->cx.buf + pc.xoff : NULL;
    y = plan->cx.buf && p.b_trans ? (char *)plan->cx.buf + pc.yoff : NULL;
    t = plan->cx.buf && bz[1] != 0 ? (char *)plan->cx.buf + pc.toff : NULL;
    ldx = 2 * pc.am > 1 ? 2 * pc.am : 1;
    ldy = 2 * pc.bk > 1 ? 2 * pc.bk : 1;
    ldt = 2 * pc.cm > 1 ? 2 * pc.cm : 1;
    if (holds) {
        gemm__problem q = p;
        const void *a = p.swapped ? B : A, *b = p.swapped ? A : B;
        if (pc.am > 0 && pc.ak > 0) {
            q.m = pc.am;
            q.k = pc.ak;
            gemm__complex_expand(&q, precision, a, az, x);
        }
        if (y && pc.bk > 0 && pc.bn > 0) {
            q = p;
            q.k = pc.bk;
            q.n = pc.bn;
            gemm__complex_copy_b(&q, precision, b, y);
        }
        if (t && pc.cm > 0 && pc.cn > 0) { /* beta*C into the copy, column by column */
            int64_t j;
            q = p;
            q.m = pc.cm;
            q.n = pc.cn;
            q.ldc = pc.cm;
            for (j = 0; j < pc.cn; j++)
                memcpy(t + (size_t)(2 * j * pc.cm) * es, (const char *)C + (size_t)(2 * j * p.ldc) * es,
                       (size_t)(2 * pc.cm) * es);
            gemm__complex_scale_c(&q, precision, bz, t);
        }
    }
    /* the real form's operands in the canonical view (X, b, C), then in
       the caller's layout: a row-major call's A is the view's b */
    rb = !holds ? NULL : y ? (const void *)y : (p.swapped ? A : B);
    ldb_r = !holds ? 1 : y ? ldy : 2 * p.ldb;
    rc = !holds ? NULL : t ? (void *)t : C;
    ldc_r = !holds ? 1 : t ? ldt : 2 * p.ldc;
    /* decided by the agreed beta alone: every rank passes the real call the same */
    rbeta = bz[1] != 0 ? 1.0 : bz[0];
    ra = p.swapped ? rb : (const void *)x;
    lda_r = p.swapped ? ldb_r : ldx;
    if (p.swapped) {
        rb = x;
        ldb_r = ldx;
    }
    if (form == 0 && !holds) { /* the real root-held call reads nothing here: the smallest leading dimensions */
        ra = rb = NULL;
        rc = NULL;
        lda_r = ldb_r = ldc_r = 1;
    }
    plan->cx.inner = 1;
    if (precision == GEMM_F32)
        s = (form ? gemm_mpi_sgemm_plan_dist : gemm_mpi_sgemm_plan)(plan, 1.0f, (const float *)ra, lda_r,
                                                                    (const float *)rb, ldb_r, (float)rbeta,
                                                                    (float *)rc, ldc_r, options);
    else
        s = (form ? gemm_mpi_dgemm_plan_dist : gemm_mpi_dgemm_plan)(plan, 1.0, (const double *)ra, lda_r,
                                                                    (const double *)rb, ldb_r, rbeta, (double *)rc,
                                                                    ldc_r, options);
    plan->cx.inner = 0;
    if (s == GEMM_OK && holds && t) { /* the sum back into C */
        int64_t j;
        for (j = 0; j < pc.cn; j++)
            memcpy((char *)C + (size_t)(2 * j * p.ldc) * es, t + (size_t)(2 * j * pc.cm) * es,
                   (size_t)(2 * pc.cm) * es);
    }
    if (s != GEMM_OK) { /* the real call's detail, under the complex call's name */
        char detail[1024];
        snprintf(detail, sizeof detail, "%s", gemm_last_error_detail());
        return gemm__fail(s, "%s: the real product failed: %s", func, detail);
    }
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_mpi_plan_create_complex(MPI_Comm comm, gemm_precision precision, gemm_layout layout,
                                                  gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                                  int64_t k, const gemm_mpi_options *options, gemm_mpi_plan **plan)
{
    static const char *const func = "gemm_mpi_plan_create_complex";
    static const char *const names[] = {"precision", "layout", "transa", "transb", "m", "n", "k"};
    gemm__mpi_team tm;
    gemm__mpi_err e;
    gemm__problem p;
    gemm_status s;
    int64_t v[7];
    int col;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: plan is NULL", func);
    *plan = NULL;
    if ((s = gemm__mpi_running(func)) != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    /* the complex call's own arguments, agreed by every rank before the
       real form's create (whose sizes are twice these) */
    memset(&tm, 0, sizeof tm);
    tm.comm = comm;
    if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &tm.P) != MPI_SUCCESS ||
        MPI_Comm_rank(comm, &tm.rank) != MPI_SUCCESS) {
        gemm__mpi_outputs_early(options);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: comm is not a valid communicator", func);
    }
    gemm__mpi_err_init(&e, func);
    if (precision != GEMM_F32 && precision != GEMM_F64)
        gemm__mpi_keep(&e, gemm__fail(GEMM_ERR_INVALID_ARG, "%s: precision = %d, not GEMM_F32 (cgemm) or GEMM_F64 "
                                      "(zgemm)", func, (int)precision));
    else if (m > GEMM__MAX_EXTENT / 2 || n > GEMM__MAX_EXTENT / 2 || k > GEMM__MAX_EXTENT / 2)
        gemm__mpi_keep(&e, gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must be below 2^59", func));
    else
        gemm__mpi_keep(&e, gemm__prepare(func, layout, transa, transb, m, n, k, 0, 1,
                                         gemm__mpi_min_ld(layout, transa, m, k), 1,
                                         gemm__mpi_min_ld(layout, transb, k, n), 0, 1,
                                         gemm__mpi_min_ld(layout, GEMM_NO_TRANS, m, n), &p));
    v[0] = precision; v[1] = layout; v[2] = transa; v[3] = transb; v[4] = m; v[5] = n; v[6] = k;
    s = gemm__mpi_vote(&tm, &e, v, 7, names);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    col = layout == GEMM_COL_MAJOR;
    s = gemm__mpi_plan_make(func, comm, precision, layout, GEMM_NO_TRANS, GEMM_NO_TRANS, col ? 2 * m : m,
                            col ? n : 2 * n, 2 * k, 1, options, plan);
    if (s != GEMM_OK) return s;
    (*plan)->cx.on = 1;
    (*plan)->cx.transa = transa;
    (*plan)->cx.transb = transb;
    (*plan)->cx.m = m;
    (*plan)->cx.n = n;
    (*plan)->cx.k = k;
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_mpi_cgemm_plan(gemm_mpi_plan *plan, const void *alpha, const void *A, int64_t lda,
                                         const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                         const gemm_mpi_options *options)
{
    return gemm__mpi_cx_execute(plan, "gemm_mpi_cgemm_plan", GEMM_F32, 0, alpha, A, lda, B, ldb, beta, C, ldc,
                                options);
}

GEMM_DEF gemm_status gemm_mpi_zgemm_plan(gemm_mpi_plan *plan, const void *alpha, const void *A, int64_t lda,
                                         const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                         const gemm_mpi_options *options)
{
    return gemm__mpi_cx_execute(plan, "gemm_mpi_zgemm_plan", GEMM_F64, 0, alpha, A, lda, B, ldb, beta, C, ldc,
                                options);
}

GEMM_DEF gemm_status gemm_mpi_cgemm_plan_dist(gemm_mpi_plan *plan, const void *alpha, const void *A, int64_t lda,
                                              const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                              const gemm_mpi_options *options)
{
    return gemm__mpi_cx_execute(plan, "gemm_mpi_cgemm_plan_dist", GEMM_F32, 1, alpha, A, lda, B, ldb, beta, C, ldc,
                                options);
}

GEMM_DEF gemm_status gemm_mpi_zgemm_plan_dist(gemm_mpi_plan *plan, const void *alpha, const void *A, int64_t lda,
                                              const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                              const gemm_mpi_options *options)
{
    return gemm__mpi_cx_execute(plan, "gemm_mpi_zgemm_plan_dist", GEMM_F64, 1, alpha, A, lda, B, ldb, beta, C, ldc,
                                options);
}

/* The distributed one-shot calls: a complex plan made, executed once and
   destroyed. */
static gemm_status gemm__mpi_cx_dist(const char *func, gemm_precision precision, MPI_Comm comm, gemm_layout layout,
                                     gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                     const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                     const void *beta, void *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm_mpi_plan *plan = NULL;
    gemm_status s = gemm_mpi_plan_create_complex(comm, precision, layout, transa, transb, m, n, k, options, &plan);
    char detail[1024];
    if (s != GEMM_OK) {
        snprintf(detail, sizeof detail, "%s", gemm_last_error_detail());
        return gemm__fail(s, "%s: %s", func, detail);
    }
    s = gemm__mpi_cx_execute(plan, func, precision, 1, alpha, A, lda, B, ldb, beta, C, ldc, options);
    snprintf(detail, sizeof detail, "%s", gemm_last_error_detail());
    gemm_mpi_plan_destroy(&plan);
    if (s != GEMM_OK) return gemm__fail(s, "%s", detail);
    gemm__clear_error();
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_mpi_cgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                         const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                         void *C, int64_t ldc, const gemm_mpi_options *options)
{
    return gemm__mpi_cx_dist("gemm_mpi_cgemm_dist", GEMM_F32, comm, layout, transa, transb, m, n, k, alpha, A, lda,
                             B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_mpi_zgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                         const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                         void *C, int64_t ldc, const gemm_mpi_options *options)
{
    return gemm__mpi_cx_dist("gemm_mpi_zgemm_dist", GEMM_F64, comm, layout, transa, transb, m, n, k, alpha, A, lda,
                             B, ldb, beta, C, ldc, options);
}
