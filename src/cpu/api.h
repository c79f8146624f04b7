/* The CPU backend's calls: gemm_cpu_sgemm / gemm_cpu_dgemm with their
   options, the thread count, and the test hooks' introspection. */
#pragma once

#include "../core/api.h"      /* gemm_status, gemm_layout, gemm_transpose, GEMM_DEF */
#include "../core/internal.h" /* gemm__problem */

#ifdef __cplusplus
extern "C" {
#endif

/* Options of one CPU call. NULL or all zeros means every default, so a
   field added later never changes what an old caller gets. */
typedef struct gemm_cpu_options {
    int threads; /* threads this call may use; 0 = gemm_cpu_set_threads(), else GEMM_NUM_THREADS, else automatic */
    int verify;  /* 1: check the product with row and column checksums; GEMM_ERR_VERIFY when it fails them */
} gemm_cpu_options;

/* C = alpha*op(A)*op(B) + beta*C on the CPU: cblas_?gemm's arguments, then
   the options (may be NULL). gemm_sgemm / gemm_dgemm are these with NULL. */
GEMM_DEF gemm_status gemm_cpu_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb,
                                    float beta, float *C, int64_t ldc, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb,
                                    double beta, double *C, int64_t ldc, const gemm_cpu_options *options);

/* C = alpha*op(A)*op(B) + beta*C for complex matrices on the CPU:
   cblas_cgemm / cblas_zgemm's arguments, then the options (may be NULL).
   Interleaved complex storage (Re, Im: C99 float _Complex / double
   _Complex, std::complex, cuComplex), sizes and leading dimensions in
   complex elements, alpha and beta by pointer to one element, op() in
   {GEMM_NO_TRANS, GEMM_TRANS, GEMM_CONJ_TRANS}. The product runs on the
   real kernels at the complex flop count: op(A) is expanded with alpha
   folded in, a few MiB at a time, B and C are used in place (a
   transposed B is copied a panel at a time). beta == 0 never reads C; a
   complex beta scales C once before the product adds. Same checks and
   statuses as the real calls; a NULL alpha or beta is refused (7, 12).
   gemm_cgemm / gemm_zgemm are these with NULL options. */
GEMM_DEF gemm_status gemm_cpu_cgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_zgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options);

/* The same product by the 3M (Gauss) method, opt-in: three real products
   (T1 = Ar*Br, T2 = Ai*Bi, T3 = (Ar+Ai)*(Br+Bi); Re = T1 - T2, Im = T3 -
   T1 - T2) instead of four, 6mnk real flops instead of 8mnk, as cuBLAS's
   cublasCgemm3m and MKL's cblas_cgemm3m. The error of Im is larger: it
   scales with (|Re A| + |Im A|)(|Re B| + |Im B|) instead of |Re A||Im B|
   + |Im A||Re B|, so where imaginary parts are much smaller than real
   ones it loses digits gemm_cpu_cgemm keeps. Arguments, checks and
   statuses as gemm_cpu_cgemm / _zgemm; it allocates 3(mk + kn + mn)
   reals before C is touched. */
GEMM_DEF gemm_status gemm_cpu_cgemm3m(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                      int64_t m, int64_t n, int64_t k,
                                      const void *alpha, const void *A, int64_t lda,
                                      const void *B, int64_t ldb,
                                      const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_zgemm3m(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                      int64_t m, int64_t n, int64_t k,
                                      const void *alpha, const void *A, int64_t lda,
                                      const void *B, int64_t ldb,
                                      const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options);

/* Threads a CPU call may use; 0 = automatic. Returns GEMM_ERR_INVALID_ARG
   for a negative count. */
GEMM_DEF gemm_status gemm_cpu_set_threads(int threads);

/* The thread count a call made now would use (resolving "automatic"). */
GEMM_DEF int gemm_cpu_get_threads(void);

/* For the other backends' complex calls (gemm__ names, not for users; in
   cpu/complex.c): on the canonical complex problem p, alpha*op(a) expanded
   into the real 2m x 2k matrix x (leading dimension 2m), op(b) copied
   untransposed into y (2k x n, leading dimension 2k), and C = beta*C. */
GEMM_DEF void gemm__complex_expand(const gemm__problem *p, gemm_precision precision, const void *a,
                                       const double alpha[2], void *x);
GEMM_DEF void gemm__complex_copy_b(const gemm__problem *p, gemm_precision precision, const void *b, void *y);
GEMM_DEF void gemm__complex_scale_c(const gemm__problem *p, gemm_precision precision, const double beta[2],
                                        void *C);

#ifdef GEMM__TEST_HOOKS
/* For the tests only (the kernel and block sizes are forced through
   gemm__hooks): the names of the micro-kernels this CPU can run, best first
   ("avx512", "avx2", "neon", "scalar"), and how many (at most max are
   written); and the kernel calls use now (NULL when gemm__hooks.cpu_kernel
   names one this build or CPU cannot run); the threads the last call that
   computed a product ran on. */
GEMM_DEF int gemm__cpu_kernels(const char **names, int max);
GEMM_DEF const char *gemm__cpu_kernel(void);
/* The threads the last call that computed a product ran on. */
GEMM_DEF int gemm__cpu_last_threads(void);
#endif

#ifdef __cplusplus
}
#endif
