/* Verified products (the `verify` option of every backend): Huang-Abraham
   checksums. After C = alpha*op(a)*op(b) + beta*C0 (the canonical problem,
   gemm__problem) the column sums e^T C are compared with
   alpha*(e^T op(a)) op(b) + beta*(e^T C0), and the row sums C e with
   alpha*op(a) (op(b) e) + beta*(C0 e), each against the rounding an honest
   product may have. Each backend computes the sums where its data lives;
   the bound and the comparison are shared (verify.c). */
#pragma once

#include "api.h"      /* gemm_status, gemm_precision, GEMM_DEF */
#include "internal.h" /* gemm__problem */

#ifdef __cplusplus
extern "C" {
#endif

/* The sums of one product, in fp64, m of each row vector and n of each
   column vector. `want` is what the checksums say the sums must be, `scale`
   the same sums taken over absolute values (alpha*(e^T|op(a)|)|op(b)| +
   |beta|(e^T|C0|), rows likewise): the size an honest rounding error is
   measured against. `got` are the sums of the C computed. */
typedef struct gemm__verify_sums {
    double *got_row, *want_row, *scale_row; /* m each */
    double *got_col, *want_col, *scale_col; /* n each */
} gemm__verify_sums;

/* Doubles a gemm__verify_sums of m rows and n columns takes, with the 4k
   a host computation needs besides (gemm__verify_host_*). */
GEMM_DEF size_t gemm__verify_doubles(int64_t m, int64_t n, int64_t k);

/* Points the six vectors into ws (gemm__verify_doubles(m, n, k) doubles),
   and returns where the 4 scratch vectors of k a host computation uses
   begin: scratch x (0..3) is gemm__verify_scratch(that, k, x). */
GEMM_DEF double *gemm__verify_layout(gemm__verify_sums *v, double *ws, int64_t m, int64_t n, int64_t k);
GEMM_DEF double *gemm__verify_scratch(double *after, int64_t k, int x);

/* The unit roundoff the bound uses for a product computed in `compute`
   from inputs rounded to `input` (the same but for a reduced-precision
   mode: TF32 is an input of 11 significant bits, F16 of 11, BF16 of 8):
   the larger of the two. */
GEMM_DEF double gemm__verify_unit(gemm_precision compute, int input_bits);

/* The bound of a line is factor * scale + floor (core/verify.c): these two
   for an m x n product with inner dimension k, unit roundoff u and
   largest finite value max (gemm__verify_compare's). */
GEMM_DEF void gemm__verify_limits(int64_t m, int64_t n, int64_t k, double u, double max, double *factor,
                                  double *floor_);

/* The worst line of one kind (rows or columns) that fails its bound: its
   index (-1: none failed), residual, bound and their ratio, and how many
   failed. A device may fill these (the CUDA backend compares on the GPU,
   so that two of them come back rather than the sums). */
typedef struct gemm__verify_worst {
    int64_t at, failed;
    double residual, bound, ratio;
} gemm__verify_worst;

/* The status of a comparison whose worst rows and columns are known:
   GEMM_OK, or GEMM_ERR_VERIFY with the detail gemm__verify_compare gives. */
GEMM_DEF gemm_status gemm__verify_report(const char *func, const gemm__verify_worst *rows,
                                         const gemm__verify_worst *cols, int64_t m, int64_t n, int swapped,
                                         int64_t member);

/* Compares the sums of an m x n product with inner dimension k, computed
   with unit roundoff u (gemm__verify_unit) and elements whose largest
   finite value is `max` (FLT_MAX, DBL_MAX): a line whose residual
   |got - want| exceeds its bound, or is NaN while its scale is finite,
   fails. A line whose scale is not finite, or reaches the overflow
   threshold, holds an Inf or NaN of the inputs or an honest overflow and
   is not checked. Returns GEMM_OK, or GEMM_ERR_VERIFY with a detail naming
   the largest residual of the rows and of the columns, their bounds and
   where, in the caller's terms (swapped: a row-major call, whose canonical
   rows are its columns); member >= 0 names a batch member. */
GEMM_DEF gemm_status gemm__verify_compare(const char *func, const gemm__verify_sums *v, int64_t m, int64_t n,
                                          int64_t k, double u, double max, int swapped, int64_t member);

/* The sums on the host, defined with the CPU backend (cpu/verify_sums.c)
   and used by the MPI, OpenCL and CUDA backends too, whose implementations
   a program may emit before the CPU's (the GEMM_ENABLE_MPI route): a pass
   over a rows x cols matrix with element (r, c) at x[r*rs + c*cs], and the
   sums a product needs before and after it (p canonical; ws and v as for
   gemm__verify_layout), on up to `threads` threads. */
GEMM_DEF void gemm__verify_pass_mt(gemm_precision precision, const void *x, int64_t rows, int64_t cols, int64_t rs,
                                   int64_t cs, const double *wr, const double *wra, const double *wc, const double *wca,
                                   double *col, double *cola, double *row, double *rowa, int threads);
GEMM_DEF void gemm__verify_host_before(const gemm__problem *p, gemm_precision precision, double alpha, const void *a,
                                       const void *b, double beta, const void *C, double *ws, gemm__verify_sums *v,
                                       int threads);
GEMM_DEF void gemm__verify_host_after(const gemm__problem *p, gemm_precision precision, const void *C,
                                      gemm__verify_sums *v, int threads);

#ifdef __cplusplus
}
#endif
