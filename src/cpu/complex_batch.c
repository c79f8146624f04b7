/* The complex batches: gemm_cpu_cgemm_strided_batched / _zgemm_ and the
   pointer-array gemm_cpu_cgemm_batched / _zgemm_, and the front door's.
   Every member is checked first, as the real batches check theirs
   (core/batch.c), then the members run one after another, each as the
   single complex call (its panels, on the call's threads), so each
   member's bits are the single call's; the first member that fails stops
   the batch there. */
#pragma once

#include <stdint.h>          /* uintptr_t */
#include <stdio.h>           /* snprintf */
#include <string.h>          /* strlen, strncmp */
#include "../core/batch.c"   /* gemm__prepare_strided */
#include "../core/complex.c" /* gemm__complex_load */
#include "../core/lists.c"   /* gemm__pointer_list_addr */
#include "../core/overlap.c" /* gemm__check_batch_overlap */
#include "batch_api.h"
#include "complex.c"         /* gemm__cpu_complex_run */

/* count members `stride` complex elements apart, each `extent` long, stay
   below half the real calls' limit: an element is twice their bytes. */
static int gemm__cpu_complex_strided_fits(int64_t count, int64_t stride, int64_t extent)
{
    return count <= 1 || extent == 0 || stride == 0 ||
           (extent <= GEMM__MAX_EXTENT / 2 && (count - 1) <= (GEMM__MAX_EXTENT / 2 - extent) / stride);
}

/* The options both forms refuse after the batch checks (as the single
   complex call does). */
static gemm_status gemm__cpu_complex_batch_options(const char *func, const gemm_cpu_options *options)
{
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (options && options->verify) /* the checksums are the real products' (gemm_cpu.h, "Verified products") */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->verify is not offered for complex products", func);
    return GEMM_OK;
}

/* The members of a checked batch (p, bt), one after another: member i's
   canonical a and b and its C from bt's lists (pointer arrays) or from
   a0, b0, c0 in steps of bt's strides. The first member that fails stops
   the batch: those before it are written, it and those after it are not
   (the single complex call leaves its C as it was when it fails). */
static gemm_status gemm__cpu_complex_members(const char *func, gemm_precision precision, const gemm__problem *p,
                                             const gemm__batch *bt, const double az[2], const double bz[2],
                                             const void *a0, const void *b0, void *c0,
                                             const gemm_cpu_options *options)
{
    int64_t es = 2 * (int64_t)gemm_precision_size(precision), i;
    gemm_status s = GEMM_OK;
    for (i = 0; i < bt->count && s == GEMM_OK; i++) {
        const char *a, *b;
        char *c;
        if (bt->c_list) { /* the lists of A and B may be NULL where they are not read */
            a = bt->a_list ? (const char *)(uintptr_t)bt->addr_ab(bt->a_list, i) : NULL;
            b = bt->b_list ? (const char *)(uintptr_t)bt->addr_ab(bt->b_list, i) : NULL;
            c = (char *)(uintptr_t)bt->addr_c(bt->c_list, i);
        } else {
            a = a0 ? (const char *)a0 + i * bt->stride_a * es : NULL;
            b = b0 ? (const char *)b0 + i * bt->stride_b * es : NULL;
            c = (char *)c0 + i * bt->stride_c * es;
        }
        s = gemm__cpu_complex_run(func, precision, p, az, bz, a, b, c, options);
        if (s != GEMM_OK) {
            char detail[1024];
            const char *d = gemm_last_error_detail();
            size_t skip = strlen(func);
            if (strncmp(d, func, skip) == 0 && d[skip] == ':') d += skip + 1 + (d[skip + 1] == ' ');
            snprintf(detail, sizeof detail, "%s", d);
            s = gemm__fail(s, "%s: member %lld of %lld failed: %s; %s", func, (long long)i, (long long)bt->count, detail,
                           i == 0 ? "no member was written"
                                  : "members before it were written, it and those after it were not");
        }
    }
    return s;
}

static gemm_status gemm__cpu_complex_strided(const char *func, gemm_precision precision, gemm_layout layout,
                                             gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                             int64_t k, const void *alpha, const void *A, int64_t lda,
                                             int64_t stride_a, const void *B, int64_t ldb, int64_t stride_b,
                                             const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                             int64_t batch_count, const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    double az[2], bz[2];
    int64_t es = 2 * (int64_t)gemm_precision_size(precision), ea, eb;
    gemm__clear_error();
    gemm__complex_load(precision, alpha, az);
    gemm__complex_load(precision, beta, bz);
    s = gemm__prepare_strided(func, layout, transa, transb, m, n, k, alpha && az[0] == 0 && az[1] == 0, A != NULL,
                              lda, stride_a, B != NULL, ldb, stride_b, beta && bz[0] == 1 && bz[1] == 0, C != NULL,
                              ldc, stride_c, batch_count, &p, &bt);
    /* alpha is argument 7 and beta 14 of the strided list */
    if (!alpha && (s == GEMM_OK || p.bad_arg > 7)) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: alpha is NULL", func);
    if (!beta && (s == GEMM_OK || p.bad_arg > 14)) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: beta is NULL", func);
    if (s != GEMM_OK) return s;
    ea = p.swapped ? p.b_extent : p.a_extent; /* the caller's A and B */
    eb = p.swapped ? p.a_extent : p.b_extent;
    if (!gemm__cpu_complex_strided_fits(batch_count, stride_a, ea) ||
        !gemm__cpu_complex_strided_fits(batch_count, stride_b, eb) ||
        !gemm__cpu_complex_strided_fits(batch_count, stride_c, p.c_extent))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld members span more than 2^59 complex elements", func,
                          (long long)batch_count);
    s = gemm__check_batch_overlap(func, &p, &bt, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, (size_t)es);
    if (s == GEMM_OK) s = gemm__cpu_complex_batch_options(func, options);
    if (s != GEMM_OK) return s;
    return gemm__cpu_complex_members(func, precision, &p, &bt, az, bz, p.swapped ? B : A, p.swapped ? A : B, C,
                                     options);
}

GEMM_DEF gemm_status gemm_cpu_cgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                    const void *B, int64_t ldb, int64_t stride_b,
                                                    const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_strided("gemm_cpu_cgemm_strided_batched", GEMM_F32, layout, transa, transb, m, n, k,
                                     alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count,
                                     options);
}

GEMM_DEF gemm_status gemm_cpu_zgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                    const void *B, int64_t ldb, int64_t stride_b,
                                                    const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_strided("gemm_cpu_zgemm_strided_batched", GEMM_F64, layout, transa, transb, m, n, k,
                                     alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count,
                                     options);
}

/* The pointer-array form: the single complex call's checks (a NULL alpha
   is 7, a NULL beta 12, spans within 2^59 complex elements), then the
   real pointer-array batch's (lists and members present, batch_count 15,
   no two members writing one element of C, no member's C over any
   member's A or B), all before any member runs. */
static gemm_status gemm__cpu_complex_pointers(const char *func, gemm_precision precision, gemm_layout layout,
                                              gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                              int64_t k, const void *alpha, const void *const A[], int64_t lda,
                                              const void *const B[], int64_t ldb, const void *beta,
                                              void *const C[], int64_t ldc, int64_t batch_count,
                                              const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    double az[2], bz[2];
    size_t es = 2 * gemm_precision_size(precision);
    gemm__clear_error();
    /* the single call's checks first, with the lists standing for the
       matrices: they bound the spans before any byte count is formed */
    s = gemm__prepare_complex(func, precision, layout, transa, transb, m, n, k, alpha, 1, lda, 1, ldb, beta, 1, ldc,
                              &p, az, bz);
    if (s != GEMM_OK) return s;
    s = gemm__prepare_batched(func, layout, transa, transb, m, n, k, az[0] == 0 && az[1] == 0, A, lda, B, ldb,
                              bz[0] == 1 && bz[1] == 0, C, ldc, batch_count, gemm__pointer_list_addr, gemm__pointer_list_addr, es,
                              &p, &bt);
    if (s == GEMM_OK) s = gemm__check_batch_overlap(func, &p, &bt, 0, 0, 0, es);
    if (s == GEMM_OK) s = gemm__cpu_complex_batch_options(func, options);
    if (s != GEMM_OK) return s;
    return gemm__cpu_complex_members(func, precision, &p, &bt, az, bz, NULL, NULL, NULL, options);
}

GEMM_DEF gemm_status gemm_cpu_cgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            const void *alpha, const void *const A[], int64_t lda,
                                            const void *const B[], int64_t ldb,
                                            const void *beta, void *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_pointers("gemm_cpu_cgemm_batched", GEMM_F32, layout, transa, transb, m, n, k, alpha, A,
                                      lda, B, ldb, beta, C, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cpu_zgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            const void *alpha, const void *const A[], int64_t lda,
                                            const void *const B[], int64_t ldb,
                                            const void *beta, void *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_pointers("gemm_cpu_zgemm_batched", GEMM_F64, layout, transa, transb, m, n, k, alpha, A,
                                      lda, B, ldb, beta, C, ldc, batch_count, options);
}

/* The front door's, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_cgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                const void *B, int64_t ldb, int64_t stride_b,
                                                const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count)
{
    return gemm__cpu_complex_strided("gemm_cgemm_strided_batched", GEMM_F32, layout, transa, transb, m, n, k, alpha,
                                     A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count, NULL);
}

GEMM_DEF gemm_status gemm_zgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                const void *B, int64_t ldb, int64_t stride_b,
                                                const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count)
{
    return gemm__cpu_complex_strided("gemm_zgemm_strided_batched", GEMM_F64, layout, transa, transb, m, n, k, alpha,
                                     A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count, NULL);
}

GEMM_DEF gemm_status gemm_cgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        const void *alpha, const void *const A[], int64_t lda,
                                        const void *const B[], int64_t ldb,
                                        const void *beta, void *const C[], int64_t ldc, int64_t batch_count)
{
    return gemm__cpu_complex_pointers("gemm_cgemm_batched", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda,
                                      B, ldb, beta, C, ldc, batch_count, NULL);
}

GEMM_DEF gemm_status gemm_zgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        const void *alpha, const void *const A[], int64_t lda,
                                        const void *const B[], int64_t ldb,
                                        const void *beta, void *const C[], int64_t ldc, int64_t batch_count)
{
    return gemm__cpu_complex_pointers("gemm_zgemm_batched", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda,
                                      B, ldb, beta, C, ldc, batch_count, NULL);
}
