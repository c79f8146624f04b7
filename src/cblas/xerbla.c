/* cblas_xerbla: weak, so that a program's own definition (netlib's tests
   bring one) replaces it; GEMM_CBLAS_NO_XERBLA leaves it out for a program
   that defines it in this translation unit, or a compiler without weak
   symbols. */
#pragma once

#include <stdarg.h>
#include <stdio.h>            /* vfprintf */
#include "../core/internal.h" /* gemm_status, gemm_last_error_detail */
#include "api.h"              /* CBLAS_INT, CBLAS_TRANSPOSE */

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
