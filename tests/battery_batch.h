/* tests/battery_batch.h - the differential battery (battery.h), member by
   member, through a backend's batch calls.

   A backend fills in a battery_batch (its strided and pointer-array batch
   calls behind host-pointer signatures with a context pointer, and its
   single call as the oracle of the other members), then runs the battery
   through an adapter:

       battery_batch bb = {...};
       battery_backend be = battery_batch_backend(&bb, BATTERY_BATCH_STRIDED, "cpu/strided");
       battery_run(&be);

   Each battery call becomes a batch of 1, 2, 3 or 5 members (in turn) in
   which the battery's own operands are one member (first, middle or last,
   in turn) and the others hold random data of the same shape, with
   strides a few elements longer than a member (strided form) or separate
   allocations (pointer arrays). The battery checks its member as it checks
   a single call (result, untouched padding, edge semantics, refusals); the
   adapter checks that every other member's C is bitwise what the
   backend's single call gives on it, and that a refused batch leaves every
   member's C as it was. Arguments the single call refuses go to the batch
   as they are (with the battery's pointers in every member). */

#ifndef GEMM_TESTS_BATTERY_BATCH_H
#define GEMM_TESTS_BATTERY_BATCH_H

#include "battery.h"

typedef gemm_status (*battery_sgemm_strided_fn)(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                                int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                                int64_t lda, int64_t stride_a, const float *B, int64_t ldb,
                                                int64_t stride_b, float beta, float *C, int64_t ldc, int64_t stride_c,
                                                int64_t count);
typedef gemm_status (*battery_dgemm_strided_fn)(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                                int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                                int64_t lda, int64_t stride_a, const double *B, int64_t ldb,
                                                int64_t stride_b, double beta, double *C, int64_t ldc,
                                                int64_t stride_c, int64_t count);
typedef gemm_status (*battery_sgemm_batched_fn)(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                                int64_t m, int64_t n, int64_t k, float alpha, const float *const A[],
                                                int64_t lda, const float *const B[], int64_t ldb, float beta,
                                                float *const C[], int64_t ldc, int64_t count);
typedef gemm_status (*battery_dgemm_batched_fn)(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                                int64_t m, int64_t n, int64_t k, double alpha, const double *const A[],
                                                int64_t lda, const double *const B[], int64_t ldb, double beta,
                                                double *const C[], int64_t ldc, int64_t count);

typedef struct battery_batch {
    battery_sgemm_strided_fn sstrided;
    battery_dgemm_strided_fn dstrided;
    battery_sgemm_batched_fn sbatched;
    battery_dgemm_batched_fn dbatched;
    void *ctx;                    /* handed to the four calls above */
    const battery_backend *single; /* the backend's single call: the other members' oracle, bit for bit */
    int form;                     /* set by battery_batch_backend */
    unsigned calls;               /* calls so far: picks the member count and the battery's member */
    double oracle_eps;            /* 0: the other members are the oracle's bit for bit; else within
                                     oracle_eps * (k + 2) * (1 + the largest |element|) of it (a backend whose
                                     kernel, so its rounding, depends on the whole batch, e.g. its alignment) */
} battery_batch;

#define BATTERY_BATCH_STRIDED 1
#define BATTERY_BATCH_POINTERS 2

/* The shape of one operand of a call: rows x cols stored with ld. */
typedef struct battery_operand { int64_t rows, cols, ld; size_t extent; } battery_operand;

BATTERY_STATIC void battery_operands(const battery_call *c, battery_operand op[3])
{
    op[0].rows = c->ta == GEMM_NO_TRANS ? c->m : c->k; op[0].cols = c->ta == GEMM_NO_TRANS ? c->k : c->m;
    op[1].rows = c->tb == GEMM_NO_TRANS ? c->k : c->n; op[1].cols = c->tb == GEMM_NO_TRANS ? c->n : c->k;
    op[2].rows = c->m; op[2].cols = c->n;
    op[0].ld = c->lda; op[1].ld = c->ldb; op[2].ld = c->ldc;
    op[0].extent = battery_extent(c->layout, op[0].rows, op[0].cols, op[0].ld);
    op[1].extent = battery_extent(c->layout, op[1].rows, op[1].cols, op[1].ld);
    op[2].extent = battery_extent(c->layout, op[2].rows, op[2].cols, op[2].ld);
}

/* Whether the single call accepts these arguments (gemm.h's own checks;
   the battery's NULL pointers included). */
BATTERY_STATIC int battery_batch_valid(const battery_call *c, const void *A, const void *B, const void *C)
{
    gemm__problem p;
    int ok = gemm__prepare("battery", c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha == 0, A != NULL, c->lda,
                           B != NULL, c->ldb, c->beta == 1, C != NULL, c->ldc, &p) == GEMM_OK;
    gemm__clear_error();
    return ok;
}

/* Every member's operands: `mine` is the battery's, the others random
   ones of its shape (strided: NULL where the battery passed NULL, which
   is every member's base; pointer arrays: always there, so a NULL of the
   battery's is one bad member among good ones). */
typedef struct battery_members {
    int count, mine;
    int64_t stride[3];      /* strided form: elements between members' operands */
    battery_buf strided[3]; /* strided form: every member's A, B, C in one buffer */
    battery_buf own[3][8];  /* pointer arrays: the other members' A, B, C */
    const void *ptr[3][8];  /* every member's A, B, C */
} battery_members;

BATTERY_STATIC void battery_members_make(battery_members *mb, int form, gemm_precision prec, const battery_call *c,
                                         const void *const given[3], uint64_t seed)
{
    battery_operand op[3];
    size_t es = prec == GEMM_F32 ? sizeof(float) : sizeof(double);
    uint64_t state = seed;
    int x, i;
    battery_operands(c, op);
    for (x = 0; x < 3; x++) {
        mb->stride[x] = given[x] ? (int64_t)op[x].extent + (int64_t)battery_below(&state, 4) : 0;
        if (form == BATTERY_BATCH_STRIDED) {
            mb->strided[x] = battery_buf_new(prec, (size_t)mb->stride[x] * (size_t)(mb->count - 1) + op[x].extent);
            battery_fill(&mb->strided[x], &state);
        }
        for (i = 0; i < mb->count; i++) {
            mb->own[x][i].data = NULL;
            if (form == BATTERY_BATCH_STRIDED) {
                mb->ptr[x][i] = given[x] ? (char *)mb->strided[x].data + es * (size_t)(mb->stride[x] * i) : NULL;
                if (given[x] && i == mb->mine) memcpy((char *)mb->ptr[x][i], given[x], es * op[x].extent);
            } else if (i == mb->mine) {
                mb->ptr[x][i] = given[x];
            } else {
                mb->own[x][i] = battery_buf_new(prec, op[x].extent);
                battery_fill(&mb->own[x][i], &state);
                mb->ptr[x][i] = mb->own[x][i].data;
            }
        }
    }
}

BATTERY_STATIC void battery_members_free(battery_members *mb, int form)
{
    int x, i;
    for (x = 0; x < 3; x++) {
        if (form == BATTERY_BATCH_STRIDED) battery_buf_free(&mb->strided[x]);
        for (i = 0; i < mb->count; i++)
            if (mb->own[x][i].data) battery_buf_free(&mb->own[x][i]);
    }
}

/* Runs the batch through the backend. */
BATTERY_STATIC gemm_status battery_batch_invoke(battery_batch *bb, gemm_precision prec, const battery_call *c,
                                                battery_members *mb)
{
    const battery_call *v = c;
    if (bb->form == BATTERY_BATCH_STRIDED && prec == GEMM_F32)
        return bb->sstrided(bb->ctx, v->layout, v->ta, v->tb, v->m, v->n, v->k, (float)v->alpha,
                            (const float *)mb->ptr[0][0], v->lda, mb->stride[0], (const float *)mb->ptr[1][0], v->ldb,
                            mb->stride[1], (float)v->beta, (float *)mb->ptr[2][0], v->ldc, mb->stride[2], mb->count);
    if (bb->form == BATTERY_BATCH_STRIDED)
        return bb->dstrided(bb->ctx, v->layout, v->ta, v->tb, v->m, v->n, v->k, v->alpha,
                            (const double *)mb->ptr[0][0], v->lda, mb->stride[0], (const double *)mb->ptr[1][0],
                            v->ldb, mb->stride[1], v->beta, (double *)mb->ptr[2][0], v->ldc, mb->stride[2], mb->count);
    if (prec == GEMM_F32) {
        const float *a[8], *b[8];
        float *cc[8];
        int i;
        for (i = 0; i < mb->count; i++) {
            a[i] = (const float *)mb->ptr[0][i]; b[i] = (const float *)mb->ptr[1][i]; cc[i] = (float *)mb->ptr[2][i];
        }
        return bb->sbatched(bb->ctx, v->layout, v->ta, v->tb, v->m, v->n, v->k, (float)v->alpha, a, v->lda, b, v->ldb,
                            (float)v->beta, cc, v->ldc, mb->count);
    } else {
        const double *a[8], *b[8];
        double *cc[8];
        int i;
        for (i = 0; i < mb->count; i++) {
            a[i] = (const double *)mb->ptr[0][i]; b[i] = (const double *)mb->ptr[1][i]; cc[i] = (double *)mb->ptr[2][i];
        }
        return bb->dbatched(bb->ctx, v->layout, v->ta, v->tb, v->m, v->n, v->k, v->alpha, a, v->lda, b, v->ldb,
                            v->beta, cc, v->ldc, mb->count);
    }
}

/* Element e of an fp32 or fp64 buffer. */
BATTERY_STATIC double battery_batch_at(gemm_precision prec, const void *data, size_t e)
{
    return prec == GEMM_F32 ? (double)((const float *)data)[e] : ((const double *)data)[e];
}

/* The other members after the batch: each C what the single call makes of
   its C before (the copy in `before`), or, when the batch was refused,
   unchanged. Returns 1 when all are. */
BATTERY_STATIC int battery_members_right(battery_batch *bb, gemm_precision prec, const battery_call *c,
                                         battery_members *mb, battery_buf before[8], gemm_status s)
{
    size_t bytes = (prec == GEMM_F32 ? sizeof(float) : sizeof(double)) * before[0].count, e;
    int i, ok = 1;
    for (i = 0; i < mb->count && ok; i++) {
        if (i == mb->mine || !mb->ptr[2][i]) continue;
        if (s == GEMM_OK && battery_invoke(bb->single, prec, c, mb->ptr[0][i], mb->ptr[1][i], before[i].data) != GEMM_OK)
            ok = 0;
        if (bb->oracle_eps > 0 && s == GEMM_OK) {
            double big = 0, bound;
            for (e = 0; e < before[i].count; e++) {
                double y = battery_batch_at(prec, before[i].data, e);
                big = fabs(y) > big ? fabs(y) : big;
            }
            bound = bb->oracle_eps * (double)(c->k + 2) * (1 + big);
            for (e = 0; e < before[i].count && ok; e++)
                ok = fabs(battery_batch_at(prec, mb->ptr[2][i], e) - battery_batch_at(prec, before[i].data, e)) <= bound;
        } else {
            ok = ok && memcmp(before[i].data, mb->ptr[2][i], bytes) == 0;
        }
    }
    return ok;
}

/* One battery call through the batch (see the top of this file). */
BATTERY_STATIC gemm_status battery_batch_call(battery_batch *bb, gemm_precision prec, const battery_call *c,
                                              const void *A, const void *B, void *C)
{
    static const int counts[4] = {1, 2, 3, 5};
    const void *given[3];
    battery_members mb;
    battery_buf before[8];
    battery_operand op[3];
    size_t es = prec == GEMM_F32 ? sizeof(float) : sizeof(double);
    unsigned call = bb->calls++;
    uint64_t pick = call; /* the member count and the battery's member; not call % 4: the battery's tables have periods */
    gemm_status s;
    int i, valid = battery_batch_valid(c, A, B, C), shape_valid = battery_batch_valid(c, c, c, c);
    char desc[256];
    given[0] = A; given[1] = B; given[2] = C;
    pick = battery_next(&pick);
    mb.count = counts[pick % 4];
    mb.mine = (int)(pick / 4 % (uint64_t)mb.count);
    if (!shape_valid) { /* the battery's operands in every member, strides 0: the shared checks refuse first */
        for (i = 0; i < mb.count; i++) {
            mb.ptr[0][i] = A;
            mb.ptr[1][i] = B;
            mb.ptr[2][i] = C;
        }
        mb.stride[0] = mb.stride[1] = mb.stride[2] = 0;
        return battery_batch_invoke(bb, prec, c, &mb);
    }
    battery_operands(c, op);
    battery_members_make(&mb, bb->form, prec, c, given, 977u * call + 13u);
    for (i = 0; i < mb.count; i++) {
        before[i] = battery_buf_new(prec, op[2].extent);
        if (mb.ptr[2][i]) memcpy(before[i].data, mb.ptr[2][i], es * op[2].extent);
    }
    s = battery_batch_invoke(bb, prec, c, &mb);
    if (C && bb->form == BATTERY_BATCH_STRIDED) memcpy(C, mb.ptr[2][mb.mine], es * op[2].extent);
    if (!valid && bb->form == BATTERY_BATCH_POINTERS) { /* only the battery's member has a NULL */
        char member[32];
        snprintf(member, sizeof member, "member %d:", mb.mine);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), member) != NULL,
                      "%s members: the refusal names the battery's %s of %d (\"%s\")", prec == GEMM_F32 ? "f32" : "f64",
                      member, mb.count, gemm_last_error_detail());
    }
    battery_check(battery_members_right(bb, prec, c, &mb, before, s),
                  "%s members: the %d other member(s) of %d are the single call's, %s (%s): %s",
                  prec == GEMM_F32 ? "f32" : "f64", mb.count - 1, mb.count,
                  bb->oracle_eps > 0 ? "within the oracle's bound" : "bit for bit", s == GEMM_OK ? "ran" : "refused: unchanged",
                  battery_call_str(c, desc, sizeof desc));
    for (i = 0; i < mb.count; i++) battery_buf_free(&before[i]);
    battery_members_free(&mb, bb->form);
    return s;
}

BATTERY_STATIC gemm_status battery_batch_s(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                           int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                           const float *B, int64_t ldb, float beta, float *C, int64_t ldc)
{
    battery_call c;
    c.layout = layout; c.ta = ta; c.tb = tb; c.m = m; c.n = n; c.k = k;
    c.lda = lda; c.ldb = ldb; c.ldc = ldc; c.alpha = alpha; c.beta = beta;
    return battery_batch_call((battery_batch *)ctx, GEMM_F32, &c, A, B, C);
}

BATTERY_STATIC gemm_status battery_batch_d(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                           int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                           int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                           int64_t ldc)
{
    battery_call c;
    c.layout = layout; c.ta = ta; c.tb = tb; c.m = m; c.n = n; c.k = k;
    c.lda = lda; c.ldb = ldb; c.ldc = ldc; c.alpha = alpha; c.beta = beta;
    return battery_batch_call((battery_batch *)ctx, GEMM_F64, &c, A, B, C);
}

/* A battery backend that runs every call as a batch of `form`
   (BATTERY_BATCH_STRIDED or BATTERY_BATCH_POINTERS) through bb. */
BATTERY_STATIC battery_backend battery_batch_backend(battery_batch *bb, int form, const char *name)
{
    battery_backend be;
    memset(&be, 0, sizeof be);
    bb->form = form;
    be.name = name;
    be.sgemm = battery_batch_s;
    be.dgemm = battery_batch_d;
    be.ctx = bb;
    return be;
}

#endif /* GEMM_TESTS_BATTERY_BATCH_H */
