/* gemm_cblas.h - CBLAS's cblas_sgemm and cblas_dgemm (and the batch forms
   MKL and OpenBLAS share) on gemm's CPU backend, for programs written
   against cblas.h.

   Do this:
       #define GEMM_CBLAS               (or include this file in that unit)
       #define GEMM_IMPLEMENTATION
       #include "gemm.h"
   in *one* C or C++ file, and include "gemm_cblas.h" instead of <cblas.h>
   wherever the program calls these routines; copy gemm.h, gemm_cpu.h and
   this file. Nothing else changes:

       cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k,
                   1.0f, A, k, B, k, 0.0f, C, n);

   What is here (netlib's cblas.h spelling; CBLAS_INT is int32_t unless the
   program defines it, e.g. as int64_t for an ILP64 build)
       CBLAS_LAYOUT (CblasRowMajor, CblasColMajor; CBLAS_ORDER is the same),
       CBLAS_TRANSPOSE (CblasNoTrans, CblasTrans, CblasConjTrans, which is
       CblasTrans for real matrices, and OpenBLAS's CblasConjNoTrans),
       CBLAS_UPLO, CBLAS_DIAG, CBLAS_SIDE
       cblas_sgemm, cblas_dgemm
       cblas_sgemm_batch_strided, cblas_dgemm_batch_strided (MKL's, and
       OpenBLAS's since late 2025, with the same arguments): batch_size
       products, member i's a, b, c stridea*i, strideb*i, stridec*i
       elements after a, b, c
       cblas_sgemm_batch, cblas_dgemm_batch (MKL's, and OpenBLAS's since
       2024): groups of pointer-array batches, group g of group_size[g]
       members sharing transa_array[g] ... ldc_array[g]
       cblas_xerbla, the error handler
   They run gemm_cpu_?gemm / gemm_cpu_?gemm_*batched with default options:
   gemm_cpu_set_threads() and GEMM_NUM_THREADS set their threads.

   Errors
       A bad argument reaches cblas_xerbla(p, "cblas_sgemm", form, detail)
       with p its position in the call's list, layout = 1 (cblas_?gemm:
       TransA 2, TransB 3, M 4, N 5, K 6, A 8, lda 9, B 10, ldb 11, C 13,
       ldc 14; the batch forms number their own lists the same way: stridea
       10, stridec 17, batch_size 18; group_count 15, group_size 16), the
       number netlib's CBLAS reports and its tests expect, for either
       layout (netlib reaches it by remapping in its cblas_xerbla; here p is
       final). Checked in gemm's order: layout, transposes, sizes, each
       matrix's pointer and leading dimension, then the batch's strides,
       members and count; gemm also refuses NULL matrices that are read
       (A 8, B 10, C 13), and batches whose members would write one element
       of C twice (stridec 17, c_array 13). Nothing is written then. A
       failure that is no bad argument (out of memory) reaches cblas_xerbla
       with p = 0 (in cblas_?gemm_batch, groups before the one that failed
       are computed: each group allocates its own workspace). The default cblas_xerbla prints netlib's "Parameter p to
       routine r was incorrect" and gemm's detail to stderr and returns, as
       OpenBLAS's and MKL's do (netlib's exits). It is a weak symbol: a
       program's own cblas_xerbla replaces it; define GEMM_CBLAS_NO_XERBLA
       when the program defines it in the implementation's own file, or
       the compiler has no weak symbols. (MKL's cblas_xerbla has another
       signature, (const char *name, int num).)

   With a real BLAS linked too
       Both define cblas_sgemm and friends. Linked statically, the linker
       takes the first definition it meets (gemm's, from an object file)
       or reports duplicates; linked as a shared library, the program's
       definitions take the place of the library's for every caller in the
       process (ELF symbol interposition), other libraries included. To keep
       a real BLAS for some calls, leave GEMM_CBLAS out and call gemm_sgemm
       where gemm should run. gemm_cblas.h and a real cblas.h cannot both be
       included in one file (their enums clash).

   For maintainers: this file is generated from src/ (src/gemm_cblas.h.in
   and the files it names; `make headers`). Edit those.

   LICENSE: MIT, see the end of gemm.h.
*/

#ifndef GEMM_CBLAS_H_INCLUDED
#define GEMM_CBLAS_H_INCLUDED

#include "gemm.h"

/* >>cblas api: src/cblas/api.h */
/* CBLAS's types, as netlib's cblas.h spells them (the values are the
   CBLAS standard's, which gemm_layout and gemm_transpose share). */
#ifndef CBLAS_INT
#define CBLAS_INT int32_t /* netlib's default; define CBLAS_INT as int64_t for an ILP64 program */
#endif

typedef enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_LAYOUT;
/* CblasConjTrans is CblasTrans for real matrices; CblasConjNoTrans
   (OpenBLAS's) is CblasNoTrans. */
typedef enum CBLAS_TRANSPOSE {
    CblasNoTrans = 111,
    CblasTrans = 112,
    CblasConjTrans = 113,
    CblasConjNoTrans = 114
} CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 } CBLAS_UPLO;
typedef enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 } CBLAS_DIAG;
typedef enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 } CBLAS_SIDE;
#define CBLAS_ORDER CBLAS_LAYOUT /* the older name; `enum CBLAS_ORDER` works too */

#ifdef __cplusplus
extern "C" {
#endif

GEMM_DEF void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const float alpha, const float *A, const CBLAS_INT lda,
                          const float *B, const CBLAS_INT ldb, const float beta, float *C, const CBLAS_INT ldc);
GEMM_DEF void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const double alpha, const double *A,
                          const CBLAS_INT lda, const double *B, const CBLAS_INT ldb, const double beta, double *C,
                          const CBLAS_INT ldc);

/* MKL's and OpenBLAS's batches. Strided: batch_size products, member i's
   a, b, c starting stridea*i, strideb*i, stridec*i elements after a, b, c. */
GEMM_DEF void cblas_sgemm_batch_strided(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE transa,
                                        const CBLAS_TRANSPOSE transb, const CBLAS_INT m, const CBLAS_INT n,
                                        const CBLAS_INT k, const float alpha, const float *a, const CBLAS_INT lda,
                                        const CBLAS_INT stridea, const float *b, const CBLAS_INT ldb,
                                        const CBLAS_INT strideb, const float beta, float *c, const CBLAS_INT ldc,
                                        const CBLAS_INT stridec, const CBLAS_INT batch_size);
GEMM_DEF void cblas_dgemm_batch_strided(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE transa,
                                        const CBLAS_TRANSPOSE transb, const CBLAS_INT m, const CBLAS_INT n,
                                        const CBLAS_INT k, const double alpha, const double *a, const CBLAS_INT lda,
                                        const CBLAS_INT stridea, const double *b, const CBLAS_INT ldb,
                                        const CBLAS_INT strideb, const double beta, double *c, const CBLAS_INT ldc,
                                        const CBLAS_INT stridec, const CBLAS_INT batch_size);
/* Groups: group g has group_size[g] members sharing transa_array[g] ...
   ldc_array[g]; a_array, b_array, c_array list every member, group after
   group. */
GEMM_DEF void cblas_sgemm_batch(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array,
                                const CBLAS_TRANSPOSE *transb_array, const CBLAS_INT *m_array,
                                const CBLAS_INT *n_array, const CBLAS_INT *k_array, const float *alpha_array,
                                const float **a_array, const CBLAS_INT *lda_array, const float **b_array,
                                const CBLAS_INT *ldb_array, const float *beta_array, float **c_array,
                                const CBLAS_INT *ldc_array, const CBLAS_INT group_count, const CBLAS_INT *group_size);
GEMM_DEF void cblas_dgemm_batch(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array,
                                const CBLAS_TRANSPOSE *transb_array, const CBLAS_INT *m_array,
                                const CBLAS_INT *n_array, const CBLAS_INT *k_array, const double *alpha_array,
                                const double **a_array, const CBLAS_INT *lda_array, const double **b_array,
                                const CBLAS_INT *ldb_array, const double *beta_array, double **c_array,
                                const CBLAS_INT *ldc_array, const CBLAS_INT group_count, const CBLAS_INT *group_size);

/* Where a bad argument goes: p is its position in the call's list
   (layout = 1), rout the routine ("cblas_sgemm"), form a printf format
   for gemm's detail. A weak default prints "Parameter p to routine rout
   was incorrect" and the detail to stderr and returns (as OpenBLAS's and
   MKL's do; netlib's exits); a program's own definition replaces it. */
void cblas_xerbla(CBLAS_INT p, const char *rout, const char *form, ...);

#ifdef __cplusplus
}
#endif
/* <<cblas api */

#define GEMM__CBLAS_API_DONE
#endif /* GEMM_CBLAS_H_INCLUDED */

/* ====================================================================== */
/*  IMPLEMENTATION                                                         */
/* ====================================================================== */

/* Emitted once, after the CPU backend's implementation, which it calls
   (gemm.h reaches this file in the middle of gemm_cpu.h when GEMM_CBLAS
   is defined, and again after it). */
#if defined(GEMM_IMPLEMENTATION) && defined(GEMM__CBLAS_API_DONE) && defined(GEMM__CPU_IMPLEMENTED) && \
    !defined(GEMM__CBLAS_IMPLEMENTED)
#define GEMM__CBLAS_IMPLEMENTED

#ifdef __cplusplus
extern "C" {
#endif

/* >>cblas xerbla: src/cblas/xerbla.c */
/* cblas_xerbla: weak, so that a program's own definition (netlib's tests
   bring one) replaces it; GEMM_CBLAS_NO_XERBLA leaves it out for a program
   that defines it in this translation unit, or a compiler without weak
   symbols. */
#ifndef GEMM_CBLAS_NO_XERBLA
#if defined(__GNUC__) || defined(__clang__)
__attribute__((weak))
#endif
void cblas_xerbla(CBLAS_INT p, const char *rout, const char *form, ...)
{
    va_list ap;
    if (p) fprintf(stderr, "Parameter %lld to routine %s was incorrect\n", (long long)p, rout);
    va_start(ap, form);
    vfprintf(stderr, form, ap);
    va_end(ap);
}
#endif

/* A failed call, through cblas_xerbla: a bad argument by its position,
   anything else (no memory) as position 0 with the status's sentence. */
static void gemm__cblas_fail(const char *rout, gemm_status s, int position)
{
    if (s == GEMM_ERR_INVALID_ARG && position > 0) cblas_xerbla(position, rout, "%s\n", gemm_last_error_detail());
    else cblas_xerbla(0, rout, "%s: %s\n", gemm_strerror(s), gemm_last_error_detail());
}

static gemm_transpose gemm__cblas_trans(CBLAS_TRANSPOSE t)
{
    return t == CblasConjTrans ? GEMM_TRANS : t == CblasConjNoTrans ? GEMM_NO_TRANS : (gemm_transpose)t;
}
/* <<cblas xerbla */
/* >>cblas entry: src/cblas/entry.c */
/* The CBLAS calls: gemm's checks (a refusal names the argument by its
   position in the CBLAS call, layout = 1, through cblas_xerbla), then the
   CPU backend with default options. */

static void gemm__cblas_gemm(const char *rout, gemm_precision prec, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta,
                             CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n, CBLAS_INT k, double alpha, const void *A,
                             CBLAS_INT lda, const void *B, CBLAS_INT ldb, double beta, void *C, CBLAS_INT ldc)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare(rout, (gemm_layout)layout, gemm__cblas_trans(ta), gemm__cblas_trans(tb), m, n, k, alpha == 0,
                      A != NULL, lda, B != NULL, ldb, beta == 1, C != NULL, ldc, &p);
    if (s == GEMM_OK) s = gemm__cpu_gemm(rout, &p, prec, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, NULL);
    if (s != GEMM_OK) gemm__cblas_fail(rout, s, p.bad_arg);
}

GEMM_DEF void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const float alpha, const float *A, const CBLAS_INT lda,
                          const float *B, const CBLAS_INT ldb, const float beta, float *C, const CBLAS_INT ldc)
{
    gemm__cblas_gemm("cblas_sgemm", GEMM_F32, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

GEMM_DEF void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const double alpha, const double *A,
                          const CBLAS_INT lda, const double *B, const CBLAS_INT ldb, const double beta, double *C,
                          const CBLAS_INT ldc)
{
    gemm__cblas_gemm("cblas_dgemm", GEMM_F64, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* Strided: gemm's strided batch, whose argument positions are MKL's
   (stridea = 10, strideb = 13, stridec = 17, batch_size = 18). */
static void gemm__cblas_strided(const char *rout, gemm_precision prec, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta,
                                CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n, CBLAS_INT k, double alpha, const void *A,
                                CBLAS_INT lda, CBLAS_INT sa, const void *B, CBLAS_INT ldb, CBLAS_INT sb, double beta,
                                void *C, CBLAS_INT ldc, CBLAS_INT sc, CBLAS_INT count)
{
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_strided(rout, (gemm_layout)layout, gemm__cblas_trans(ta), gemm__cblas_trans(tb), m, n, k,
                              alpha == 0, A != NULL, lda, sa, B != NULL, ldb, sb, beta == 1, C != NULL, ldc, sc, count,
                              &p, &bt);
    if (s == GEMM_OK)
        s = gemm__cpu_batch_gemm(rout, &p, &bt, prec, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, NULL);
    if (s != GEMM_OK) gemm__cblas_fail(rout, s, p.bad_arg);
}

GEMM_DEF void cblas_sgemm_batch_strided(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE transa,
                                        const CBLAS_TRANSPOSE transb, const CBLAS_INT m, const CBLAS_INT n,
                                        const CBLAS_INT k, const float alpha, const float *a, const CBLAS_INT lda,
                                        const CBLAS_INT stridea, const float *b, const CBLAS_INT ldb,
                                        const CBLAS_INT strideb, const float beta, float *c, const CBLAS_INT ldc,
                                        const CBLAS_INT stridec, const CBLAS_INT batch_size)
{
    gemm__cblas_strided("cblas_sgemm_batch_strided", GEMM_F32, layout, transa, transb, m, n, k, alpha, a, lda, stridea,
                        b, ldb, strideb, beta, c, ldc, stridec, batch_size);
}

GEMM_DEF void cblas_dgemm_batch_strided(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE transa,
                                        const CBLAS_TRANSPOSE transb, const CBLAS_INT m, const CBLAS_INT n,
                                        const CBLAS_INT k, const double alpha, const double *a, const CBLAS_INT lda,
                                        const CBLAS_INT stridea, const double *b, const CBLAS_INT ldb,
                                        const CBLAS_INT strideb, const double beta, double *c, const CBLAS_INT ldc,
                                        const CBLAS_INT stridec, const CBLAS_INT batch_size)
{
    gemm__cblas_strided("cblas_dgemm_batch_strided", GEMM_F64, layout, transa, transb, m, n, k, alpha, a, lda, stridea,
                        b, ldb, strideb, beta, c, ldc, stridec, batch_size);
}
/* <<cblas entry */
/* >>cblas groups: src/cblas/groups.c */
/* cblas_?gemm_batch: groups, each a pointer-array batch of its own shape.
   Every group is checked, and no two members of any groups may write one
   element of C, before any member is computed. Positions: the arrays as
   in cblas_?gemm (transa_array = 2, ..., ldc_array = 14), group_count =
   15, group_size = 16; a detail names the group and its member. */

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
    return gemm__prepare_batched(fn, (gemm_layout)g->layout, gemm__cblas_trans(g->ta[i]), gemm__cblas_trans(g->tb[i]),
                                 g->m[i], g->n[i], g->k[i], gemm__cblas_scalar(g, g->alpha, i) == 0,
                                 gemm__cblas_sublist(g, g->a, first), g->lda[i], gemm__cblas_sublist(g, g->b, first),
                                 g->ldb[i], gemm__cblas_scalar(g, g->beta, i) == 1,
                                 gemm__cblas_sublist(g, g->c, first), g->ldc[i], g->size[i],
                                 f32 ? gemm__cpu_addr_cs : gemm__cpu_addr_cd, f32 ? gemm__cpu_addr_s : gemm__cpu_addr_d,
                                 f32 ? sizeof(float) : sizeof(double), p, bt);
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
/* <<cblas groups */

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */
