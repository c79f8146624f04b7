/* cblas_xerbla: weak, so that a program's own definition (netlib's tests
   bring one) replaces it; GEMM_CBLAS_NO_XERBLA leaves it out for a program
   that defines it in this translation unit, or a compiler without weak
   symbols.

   The number it gets follows netlib's cblas_?gemm: a bad argument that
   netlib's cblas_sgemm checks itself (layout 1, TransA 2, TransB 3) by its
   position; any other by its position in the column-major Fortran call
   netlib makes, plus one. A row-major call is that Fortran call with M and
   N, A and B swapped, so there M is 5, N 4, lda 11 and ldb 9; netlib's
   cblas_xerbla and its tester (c_xerbla.c) turn them back for "gemm"
   routines only, which is what the default below prints. gemm's own
   refusals (NULL A 8, B 10, C 13) keep their positions, which nothing
   remaps. */
#pragma once

#include <stdarg.h>
#include <stdio.h>            /* vfprintf */
#include <string.h>           /* strcmp */
#include "../core/config.h"   /* GEMM__THREAD_LOCAL */
#include "../core/internal.h" /* gemm_status, gemm_last_error_detail */
#include "api.h"              /* CBLAS_INT, CBLAS_TRANSPOSE */

/* Whether the call now reporting through cblas_xerbla is a row-major
   cblas_?gemm (netlib's RowMajorStrg, per thread). */
static GEMM__THREAD_LOCAL int gemm__cblas_row_major;

/* A number of netlib's row-major cblas_?gemm and the position of the
   argument it names, either way (the swap is its own inverse). */
static CBLAS_INT gemm__cblas_netlib_swap(CBLAS_INT p)
{
    return p == 4 ? 5 : p == 5 ? 4 : p == 9 ? 11 : p == 11 ? 9 : p;
}

#ifndef GEMM_CBLAS_NO_XERBLA
#if defined(__GNUC__) || defined(__clang__)
__attribute__((weak))
#endif
void cblas_xerbla(CBLAS_INT p, const char *rout, const char *form, ...)
{
    va_list ap;
    /* the argument's own position, as netlib's cblas_xerbla prints it */
    if (gemm__cblas_row_major && (strcmp(rout, "cblas_sgemm") == 0 || strcmp(rout, "cblas_dgemm") == 0 ||
                                  strcmp(rout, "cblas_cgemm") == 0 || strcmp(rout, "cblas_zgemm") == 0 ||
                                  strcmp(rout, "cblas_cgemm3m") == 0 || strcmp(rout, "cblas_zgemm3m") == 0))
        p = gemm__cblas_netlib_swap(p);
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
