/* CBLAS's types, as netlib's cblas.h spells them (the values are the
   CBLAS standard's, which gemm_layout and gemm_transpose share). */
#pragma once

#include <stdint.h>          /* int32_t, CBLAS_INT's default */
#include "../core/api.h"     /* GEMM_DEF */

#ifndef CBLAS_INT
#define CBLAS_INT int32_t /* netlib's default; define CBLAS_INT as int64_t for an ILP64 program */
#endif

typedef enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_LAYOUT;
/* CblasConjTrans is CblasTrans for real matrices and X^H for complex
   ones; CblasConjNoTrans (OpenBLAS's) is CblasNoTrans for real matrices
   and refused for complex ones. */
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

/* Complex: interleaved complex matrices (float or double pairs), alpha
   and beta by pointer; CblasConjTrans is op(X) = X^H. CblasConjNoTrans is
   refused (TransA 2, TransB 3). */
GEMM_DEF void cblas_cgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const void *alpha, const void *A, const CBLAS_INT lda,
                          const void *B, const CBLAS_INT ldb, const void *beta, void *C, const CBLAS_INT ldc);
GEMM_DEF void cblas_zgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const void *alpha, const void *A, const CBLAS_INT lda,
                          const void *B, const CBLAS_INT ldb, const void *beta, void *C, const CBLAS_INT ldc);

/* The 3M method (MKL's and OpenBLAS's cblas_?gemm3m): the same arguments
   and checks, gemm_cpu_cgemm3m / zgemm3m behind them (three real
   products, a larger error in Im: gemm_cpu.h, "Complex"). */
GEMM_DEF void cblas_cgemm3m(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                            const CBLAS_INT N, const CBLAS_INT K, const void *alpha, const void *A, const CBLAS_INT lda,
                            const void *B, const CBLAS_INT ldb, const void *beta, void *C, const CBLAS_INT ldc);
GEMM_DEF void cblas_zgemm3m(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                            const CBLAS_INT N, const CBLAS_INT K, const void *alpha, const void *A, const CBLAS_INT lda,
                            const void *B, const CBLAS_INT ldb, const void *beta, void *C, const CBLAS_INT ldc);

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

/* Where a bad argument goes: p is netlib's number for it (its position in
   the call's list, layout = 1, but for a row-major cblas_?gemm, where M
   and N, lda and ldb trade numbers as in netlib's Fortran call), rout the
   routine ("cblas_sgemm"), form a printf format for gemm's detail. A weak
   default prints "Parameter p to routine rout was incorrect" with the
   argument's own position and the detail to stderr and returns (as
   OpenBLAS's and MKL's do; netlib's exits); a program's own definition
   replaces it. */
void cblas_xerbla(CBLAS_INT p, const char *rout, const char *form, ...);

#ifdef __cplusplus
}
#endif
