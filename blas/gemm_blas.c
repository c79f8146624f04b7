/* blas/gemm_blas.c - libgemm_blas.so: gemm's CPU backend as a (partial)
   BLAS library, for programs that already call a BLAS (`make blas`, or
   CMake with -DGEMM_BUILD_BLAS=ON).

   It exports, and nothing else (built with -fvisibility=hidden):
     sgemm_, dgemm_     the Fortran BLAS routines (column-major, every
                        argument by pointer, TRANSA/TRANSB 'N','n','T','t',
                        'C','c'; C is T for real matrices), with reference
                        BLAS's checks and parameter numbers (TRANSA 1,
                        TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10, LDC 13)
     cgemm_, zgemm_     the same for complex matrices (COMPLEX, COMPLEX*16:
                        interleaved pairs; 'C' the conjugate transpose)
     cgemm3m_, zgemm3m_ the same arguments by the 3M method (OpenBLAS's and
                        MKL's names: three real products instead of four,
                        a larger error), XERBLA names CGEMM3M, ZGEMM3M
     cblas_sgemm, cblas_dgemm, cblas_cgemm, cblas_zgemm,
     cblas_cgemm3m, cblas_zgemm3m,
     cblas_?gemm_batch_strided, cblas_?gemm_batch
                        gemm_cblas.h's functions (its errors go to its own
                        cblas_xerbla, which prints and returns; it is not
                        exported, so other CBLAS routines keep the system's)
     gemm_blas_calls()  how many calls of the names above gemm served
                        (refused ones included), and gemm_blas_calls_of(name)
                        for one name ("dgemm_", "cblas_sgemm", ...): a
                        program or a test can prove that gemm ran them.
   Every call runs gemm_cpu_?gemm (complex: gemm_cpu_cgemm / zgemm, or
   gemm_cpu_cgemm3m / zgemm3m) with default options: the CPU kernel
   chosen at run time, threads from gemm_cpu_set_threads / GEMM_NUM_THREADS
   / the affinity mask.

   A bad Fortran argument goes to the process's xerbla_ when one is loaded
   with the program (a weak reference: the system BLAS or LAPACK, or the
   program's own), called as XERBLA('SGEMM ', INFO); else it is printed as
   reference BLAS's XERBLA prints it
       ** On entry to SGEMM  parameter number  8 had an illegal value
   and the call returns with C untouched.

   Three ways in (README.md, "A drop-in BLAS"): link it (-lgemm_blas);
   LD_PRELOAD it in front of the system BLAS (the other BLAS routines stay
   the system's); or register it as a BLAS alternative (only for a
   complete BLAS, which this is not). */
#define GEMM_CBLAS
#define GEMM_IMPLEMENTATION
/* gemm_cblas.h's entry points under inner names; the exported ones below
   count each call, then run them. */
#define cblas_sgemm gemm_blas__cblas_sgemm
#define cblas_dgemm gemm_blas__cblas_dgemm
#define cblas_cgemm gemm_blas__cblas_cgemm
#define cblas_zgemm gemm_blas__cblas_zgemm
#define cblas_cgemm3m gemm_blas__cblas_cgemm3m
#define cblas_zgemm3m gemm_blas__cblas_zgemm3m
#define cblas_sgemm_batch_strided gemm_blas__cblas_sgemm_batch_strided
#define cblas_dgemm_batch_strided gemm_blas__cblas_dgemm_batch_strided
#define cblas_sgemm_batch gemm_blas__cblas_sgemm_batch
#define cblas_dgemm_batch gemm_blas__cblas_dgemm_batch
#include "../gemm.h"
#undef cblas_sgemm
#undef cblas_dgemm
#undef cblas_cgemm
#undef cblas_zgemm
#undef cblas_cgemm3m
#undef cblas_zgemm3m
#undef cblas_sgemm_batch_strided
#undef cblas_dgemm_batch_strided
#undef cblas_sgemm_batch
#undef cblas_dgemm_batch

#include <stdio.h>
#include <string.h>

#if !defined(__GNUC__) && !defined(__clang__)
#error "blas/gemm_blas.c needs gcc or clang (symbol visibility, weak references, atomics)"
#endif
#define GEMM_BLAS_EXPORT __attribute__((visibility("default")))

/* ---- the counters ---- */

static const char *const gemm_blas__names[] = {"sgemm_",
                                               "dgemm_",
                                               "cblas_sgemm",
                                               "cblas_dgemm",
                                               "cblas_sgemm_batch_strided",
                                               "cblas_dgemm_batch_strided",
                                               "cblas_sgemm_batch",
                                               "cblas_dgemm_batch",
                                               "cgemm_",
                                               "zgemm_",
                                               "cblas_cgemm",
                                               "cblas_zgemm",
                                               "cgemm3m_",
                                               "zgemm3m_",
                                               "cblas_cgemm3m",
                                               "cblas_zgemm3m"};
#define GEMM_BLAS__NNAMES ((int)(sizeof gemm_blas__names / sizeof gemm_blas__names[0]))
static unsigned long long gemm_blas__count[GEMM_BLAS__NNAMES];

static void gemm_blas__counted(int which) { __atomic_fetch_add(&gemm_blas__count[which], 1ULL, __ATOMIC_RELAXED); }

GEMM_BLAS_EXPORT unsigned long long gemm_blas_calls(void)
{
    unsigned long long total = 0;
    int i;
    for (i = 0; i < GEMM_BLAS__NNAMES; i++) total += __atomic_load_n(&gemm_blas__count[i], __ATOMIC_RELAXED);
    return total;
}

/* 0 for a name this library does not export. */
GEMM_BLAS_EXPORT unsigned long long gemm_blas_calls_of(const char *name)
{
    int i;
    for (i = 0; name && i < GEMM_BLAS__NNAMES; i++)
        if (strcmp(name, gemm_blas__names[i]) == 0) return __atomic_load_n(&gemm_blas__count[i], __ATOMIC_RELAXED);
    return 0;
}

/* ---- the Fortran routines ---- */

/* The process's XERBLA, when one is loaded with the program. */
extern void xerbla_(const char *srname, const int *info, size_t srname_len) __attribute__((weak));

/* srname: the routine's name as XERBLA takes it, its length passed
   along ("SGEMM ": reference BLAS's six characters; "CGEMM3M"). */
static void gemm_blas__xerbla(const char *srname, int info)
{
    if (xerbla_) {
        xerbla_(srname, &info, strlen(srname));
        return;
    }
    fprintf(stderr, " ** On entry to %-6s parameter number %2d had an illegal value\n", srname, info);
}

static int gemm_blas__is(char c, char upper) { return c == upper || c == upper - 'A' + 'a'; }

/* Reference BLAS's checks of ?GEMM, in its order; 0 when they pass. */
static int gemm_blas__check(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc)
{
    int nota = gemm_blas__is(ta, 'N'), notb = gemm_blas__is(tb, 'N');
    int nrowa = nota ? m : k, nrowb = notb ? k : n;
    if (!nota && !gemm_blas__is(ta, 'T') && !gemm_blas__is(ta, 'C')) return 1;
    if (!notb && !gemm_blas__is(tb, 'T') && !gemm_blas__is(tb, 'C')) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < (nrowa > 1 ? nrowa : 1)) return 8;
    if (ldb < (nrowb > 1 ? nrowb : 1)) return 10;
    if (ldc < (m > 1 ? m : 1)) return 13;
    return 0;
}

/* After the reference's checks gemm refuses only what a Fortran caller
   cannot pass (a NULL matrix it reads: A 7, B 9, C 12) or a matrix too
   large to address; anything else that fails (no memory) is printed. */
static void gemm_blas__failed(const char *srname, gemm_status s, int a_null, int b_null, int c_null)
{
    int info = a_null ? 7 : b_null ? 9 : c_null ? 12 : 0;
    if (s == GEMM_ERR_INVALID_ARG && info) gemm_blas__xerbla(srname, info);
    else fprintf(stderr, "gemm_blas: %s: %s: %s\n", srname, gemm_strerror(s), gemm_last_error_detail());
}

#define GEMM_BLAS__TRANS(c) (gemm_blas__is(c, 'N') ? GEMM_NO_TRANS : GEMM_TRANS)

GEMM_BLAS_EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                             const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
                             const float *beta, float *c, const int *ldc)
{
    gemm_status s;
    int info = gemm_blas__check(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
    gemm_blas__counted(0);
    if (info) {
        gemm_blas__xerbla("SGEMM ", info);
        return;
    }
    s = gemm_cpu_sgemm(GEMM_COL_MAJOR, GEMM_BLAS__TRANS(*transa), GEMM_BLAS__TRANS(*transb), *m, *n, *k, *alpha, a,
                       *lda, b, *ldb, *beta, c, *ldc, NULL);
    if (s != GEMM_OK) gemm_blas__failed("SGEMM ", s, a == NULL, b == NULL, c == NULL);
}

GEMM_BLAS_EXPORT void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                             const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
                             const double *beta, double *c, const int *ldc)
{
    gemm_status s;
    int info = gemm_blas__check(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
    gemm_blas__counted(1);
    if (info) {
        gemm_blas__xerbla("DGEMM ", info);
        return;
    }
    s = gemm_cpu_dgemm(GEMM_COL_MAJOR, GEMM_BLAS__TRANS(*transa), GEMM_BLAS__TRANS(*transb), *m, *n, *k, *alpha, a,
                       *lda, b, *ldb, *beta, c, *ldc, NULL);
    if (s != GEMM_OK) gemm_blas__failed("DGEMM ", s, a == NULL, b == NULL, c == NULL);
}

/* 'N' as is, 'T' transposed, 'C' the conjugate transpose (complex). */
#define GEMM_BLAS__CTRANS(c) \
    (gemm_blas__is(c, 'N') ? GEMM_NO_TRANS : gemm_blas__is(c, 'T') ? GEMM_TRANS : GEMM_CONJ_TRANS)

/* The complex routines (COMPLEX / COMPLEX*16 arrays are interleaved
   pairs; alpha and beta point to one): reference BLAS's checks, then
   `run` (gemm_cpu_cgemm, zgemm, or their 3M forms), counted as `which`. */
typedef gemm_status (*gemm_blas__complex_fn)(gemm_layout, gemm_transpose, gemm_transpose, int64_t, int64_t, int64_t,
                                             const void *, const void *, int64_t, const void *, int64_t,
                                             const void *, void *, int64_t, const gemm_cpu_options *);

static void gemm_blas__complex(int which, const char *srname, gemm_blas__complex_fn run, const char *transa,
                               const char *transb, const int *m, const int *n, const int *k, const void *alpha,
                               const void *a, const int *lda, const void *b, const int *ldb, const void *beta,
                               void *c, const int *ldc)
{
    gemm_status s;
    int info = gemm_blas__check(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
    gemm_blas__counted(which);
    if (info) {
        gemm_blas__xerbla(srname, info);
        return;
    }
    s = run(GEMM_COL_MAJOR, GEMM_BLAS__CTRANS(*transa), GEMM_BLAS__CTRANS(*transb), *m, *n, *k, alpha, a, *lda, b,
            *ldb, beta, c, *ldc, NULL);
    if (s != GEMM_OK) gemm_blas__failed(srname, s, a == NULL, b == NULL, c == NULL);
}

GEMM_BLAS_EXPORT void cgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                             const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
                             const void *beta, void *c, const int *ldc)
{
    gemm_blas__complex(8, "CGEMM ", gemm_cpu_cgemm, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

GEMM_BLAS_EXPORT void zgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                             const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
                             const void *beta, void *c, const int *ldc)
{
    gemm_blas__complex(9, "ZGEMM ", gemm_cpu_zgemm, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

GEMM_BLAS_EXPORT void cgemm3m_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                               const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
                               const void *beta, void *c, const int *ldc)
{
    gemm_blas__complex(12, "CGEMM3M", gemm_cpu_cgemm3m, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                       ldc);
}

GEMM_BLAS_EXPORT void zgemm3m_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                               const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
                               const void *beta, void *c, const int *ldc)
{
    gemm_blas__complex(13, "ZGEMM3M", gemm_cpu_zgemm3m, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                       ldc);
}

/* ---- the CBLAS names: counted, then gemm_cblas.h's ---- */

GEMM_BLAS_EXPORT void cblas_cgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                                  const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K, const void *alpha,
                                  const void *A, const CBLAS_INT lda, const void *B, const CBLAS_INT ldb,
                                  const void *beta, void *C, const CBLAS_INT ldc)
{
    gemm_blas__counted(10);
    gemm_blas__cblas_cgemm(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

GEMM_BLAS_EXPORT void cblas_zgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                                  const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K, const void *alpha,
                                  const void *A, const CBLAS_INT lda, const void *B, const CBLAS_INT ldb,
                                  const void *beta, void *C, const CBLAS_INT ldc)
{
    gemm_blas__counted(11);
    gemm_blas__cblas_zgemm(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

GEMM_BLAS_EXPORT void cblas_cgemm3m(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                                    const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K, const void *alpha,
                                    const void *A, const CBLAS_INT lda, const void *B, const CBLAS_INT ldb,
                                    const void *beta, void *C, const CBLAS_INT ldc)
{
    gemm_blas__counted(14);
    gemm_blas__cblas_cgemm3m(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

GEMM_BLAS_EXPORT void cblas_zgemm3m(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                                    const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K, const void *alpha,
                                    const void *A, const CBLAS_INT lda, const void *B, const CBLAS_INT ldb,
                                    const void *beta, void *C, const CBLAS_INT ldc)
{
    gemm_blas__counted(15);
    gemm_blas__cblas_zgemm3m(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

GEMM_BLAS_EXPORT void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                                  const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K, const float alpha,
                                  const float *A, const CBLAS_INT lda, const float *B, const CBLAS_INT ldb,
                                  const float beta, float *C, const CBLAS_INT ldc)
{
    gemm_blas__counted(2);
    gemm_blas__cblas_sgemm(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

GEMM_BLAS_EXPORT void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                                  const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K, const double alpha,
                                  const double *A, const CBLAS_INT lda, const double *B, const CBLAS_INT ldb,
                                  const double beta, double *C, const CBLAS_INT ldc)
{
    gemm_blas__counted(3);
    gemm_blas__cblas_dgemm(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

GEMM_BLAS_EXPORT void cblas_sgemm_batch_strided(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE transa,
                                                const CBLAS_TRANSPOSE transb, const CBLAS_INT m, const CBLAS_INT n,
                                                const CBLAS_INT k, const float alpha, const float *a,
                                                const CBLAS_INT lda, const CBLAS_INT stridea, const float *b,
                                                const CBLAS_INT ldb, const CBLAS_INT strideb, const float beta,
                                                float *c, const CBLAS_INT ldc, const CBLAS_INT stridec,
                                                const CBLAS_INT batch_size)
{
    gemm_blas__counted(4);
    gemm_blas__cblas_sgemm_batch_strided(layout, transa, transb, m, n, k, alpha, a, lda, stridea, b, ldb, strideb,
                                         beta, c, ldc, stridec, batch_size);
}

GEMM_BLAS_EXPORT void cblas_dgemm_batch_strided(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE transa,
                                                const CBLAS_TRANSPOSE transb, const CBLAS_INT m, const CBLAS_INT n,
                                                const CBLAS_INT k, const double alpha, const double *a,
                                                const CBLAS_INT lda, const CBLAS_INT stridea, const double *b,
                                                const CBLAS_INT ldb, const CBLAS_INT strideb, const double beta,
                                                double *c, const CBLAS_INT ldc, const CBLAS_INT stridec,
                                                const CBLAS_INT batch_size)
{
    gemm_blas__counted(5);
    gemm_blas__cblas_dgemm_batch_strided(layout, transa, transb, m, n, k, alpha, a, lda, stridea, b, ldb, strideb,
                                         beta, c, ldc, stridec, batch_size);
}

GEMM_BLAS_EXPORT void cblas_sgemm_batch(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array,
                                        const CBLAS_TRANSPOSE *transb_array, const CBLAS_INT *m_array,
                                        const CBLAS_INT *n_array, const CBLAS_INT *k_array, const float *alpha_array,
                                        const float **a_array, const CBLAS_INT *lda_array, const float **b_array,
                                        const CBLAS_INT *ldb_array, const float *beta_array, float **c_array,
                                        const CBLAS_INT *ldc_array, const CBLAS_INT group_count,
                                        const CBLAS_INT *group_size)
{
    gemm_blas__counted(6);
    gemm_blas__cblas_sgemm_batch(layout, transa_array, transb_array, m_array, n_array, k_array, alpha_array, a_array,
                                 lda_array, b_array, ldb_array, beta_array, c_array, ldc_array, group_count,
                                 group_size);
}

GEMM_BLAS_EXPORT void cblas_dgemm_batch(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array,
                                        const CBLAS_TRANSPOSE *transb_array, const CBLAS_INT *m_array,
                                        const CBLAS_INT *n_array, const CBLAS_INT *k_array,
                                        const double *alpha_array, const double **a_array,
                                        const CBLAS_INT *lda_array, const double **b_array,
                                        const CBLAS_INT *ldb_array, const double *beta_array, double **c_array,
                                        const CBLAS_INT *ldc_array, const CBLAS_INT group_count,
                                        const CBLAS_INT *group_size)
{
    gemm_blas__counted(7);
    gemm_blas__cblas_dgemm_batch(layout, transa_array, transb_array, m_array, n_array, k_array, alpha_array, a_array,
                                 lda_array, b_array, ldb_array, beta_array, c_array, ldc_array, group_count,
                                 group_size);
}
