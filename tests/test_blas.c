/* tests/test_blas.c - libgemm_blas.so's Fortran routines, called directly
   (linked with -lgemm_blas; tests/test_blas.sh builds and runs it).
   Last line: N passed, N failed.

   - sgemm_ / dgemm_ for every TRANSA x TRANSB among 'N','n','T','t','C','c'
     (C is T for real matrices), odd leading dimensions, alpha and beta
     (0, 1, other), m, n, k of 0, 1 and odd sizes, against a naive
     column-major loop in long double; the padding of C beyond m rows is
     never written;
   - every argument reference BLAS checks (TRANSA 1, TRANSB 2, M 3, N 4,
     K 5, LDA 8, LDB 10, LDC 13) reaches XERBLA with its number, and C is
     untouched. Built with -DTEST_OWN_XERBLA the program defines xerbla_,
     which records each call (name, number); without it no xerbla_ is in
     the process, and the library prints reference BLAS's line to stderr
     (which tests/test_blas.sh reads) and returns;
   - gemm_blas_calls_of() counted every call made, gemm_blas_calls() their
     sum;
   - cgemm_ / zgemm_ for TRANSA x TRANSB in N, T, C (C the conjugate
     transpose) and some lower-case letters, complex alpha and beta,
     against a complex loop in long double; their bad arguments with
     reference BLAS's numbers (CGEMM, ZGEMM); cblas_zgemm through the
     library, counted;
   - the same for cgemm3m_ / zgemm3m_ (the 3M method: a bound four times
     wider; XERBLA names CGEMM3M, ZGEMM3M), and cblas_zgemm3m, counted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);
void cgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const void *alpha,
            const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c, const int *ldc);
void zgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const void *alpha,
            const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c, const int *ldc);
void cgemm3m_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const void *alpha,
              const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c, const int *ldc);
void zgemm3m_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const void *alpha,
              const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c, const int *ldc);
void cblas_zgemm(int layout, int transa, int transb, int m, int n, int k, const void *alpha, const void *a, int lda,
                 const void *b, int ldb, const void *beta, void *c, int ldc);
void cblas_zgemm3m(int layout, int transa, int transb, int m, int n, int k, const void *alpha, const void *a, int lda,
                   const void *b, int ldb, const void *beta, void *c, int ldc);
unsigned long long gemm_blas_calls(void);
unsigned long long gemm_blas_calls_of(const char *name);

static int passed, failed;
static void check(int ok, const char *what)
{
    if (ok) passed++;
    else failed++;
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

#ifdef TEST_OWN_XERBLA
static char xerbla_name[16], xerbla_names[32]; /* the last name; every name, one after the other */
static int xerbla_info = -1, xerbla_calls;
void xerbla_(const char *srname, const int *info, size_t len)
{
    size_t n = len < sizeof xerbla_name - 1 ? len : sizeof xerbla_name - 1;
    memcpy(xerbla_name, srname, n);
    xerbla_name[n] = '\0';
    if (strlen(xerbla_names) + n < sizeof xerbla_names) strcat(xerbla_names, xerbla_name);
    xerbla_info = *info;
    xerbla_calls++;
}
#endif

static double rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (double)((*s >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* C = alpha*op(A)*op(B) + beta*C, column-major, in long double; beta == 0
   does not read C. */
static void naive(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda, const double *B,
                  int ldb, double beta, long double *C, int ldc)
{
    int i, j, p;
    int nta = ta == 'N' || ta == 'n', ntb = tb == 'N' || tb == 'n';
    for (j = 0; j < n; j++)
        for (i = 0; i < m; i++) {
            long double s = 0;
            for (p = 0; p < k; p++)
                s += (long double)(nta ? A[i + (size_t)p * lda] : A[p + (size_t)i * lda]) *
                     (ntb ? B[p + (size_t)j * ldb] : B[j + (size_t)p * ldb]);
            C[i + (size_t)j * ldc] = alpha * s + (beta == 0 ? 0 : beta * C[i + (size_t)j * ldc]);
        }
}

/* One case in both precisions; returns 1 when both agree with the loop. */
static int one_case(char ta, char tb, int m, int n, int k, int pad, double alpha, double beta, unsigned seed,
                    char *why, size_t why_len)
{
    int nta = ta == 'N' || ta == 'n', ntb = tb == 'N' || tb == 'n';
    int lda = (nta ? m : k) + pad, ldb = (ntb ? k : n) + pad, ldc = m + pad + 1;
    int ra = nta ? k : m, rb = ntb ? n : k; /* columns of A and B as stored */
    size_t na = (size_t)lda * (ra > 0 ? ra : 1), nb = (size_t)ldb * (rb > 0 ? rb : 1), nc = (size_t)ldc * (n > 0 ? n : 1);
    double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C0 = malloc(nc * sizeof *C0);
    double *Cd = malloc(nc * sizeof *Cd);
    float *As = malloc(na * sizeof *As), *Bs = malloc(nb * sizeof *Bs), *Cs = malloc(nc * sizeof *Cs);
    long double *R = malloc(nc * sizeof *R);
    float alphas = (float)alpha, betas = (float)beta;
    size_t i;
    int ok = 1, row, col;
    double errd = 0, errs = 0, scale = 0;
    for (i = 0; i < na; i++) As[i] = (float)(A[i] = rnd(&seed));
    for (i = 0; i < nb; i++) Bs[i] = (float)(B[i] = rnd(&seed));
    for (i = 0; i < nc; i++) Cs[i] = (float)(Cd[i] = C0[i] = rnd(&seed)), R[i] = C0[i];
    naive(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, R, ldc);
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, Cd, &ldc);
    sgemm_(&ta, &tb, &m, &n, &k, &alphas, As, &lda, Bs, &ldb, &betas, Cs, &ldc);
    for (col = 0; col < n; col++)
        for (row = 0; row < ldc; row++) {
            size_t at = (size_t)row + (size_t)col * ldc;
            if (row >= m) { /* the padding is never written */
                if (Cd[at] != C0[at] || Cs[at] != (float)C0[at]) ok = 0;
                continue;
            }
            errd = fmax(errd, fabs((double)(Cd[at] - R[at])));
            errs = fmax(errs, fabs((double)(Cs[at] - R[at])));
        }
    scale = (fabs(alpha) * k + fabs(beta)) + 1; /* |A|, |B|, |C| <= 1 */
    if (errd > 8 * 1.1e-16 * scale || errs > 8 * 6e-8 * scale) ok = 0;
    snprintf(why, why_len, "%c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g: err fp64 %.2g, fp32 %.2g%s",
             ta, tb, m, n, k, lda, ldb, ldc, alpha, beta, errd, errs, ok ? "" : " (or padding written)");
    free(A), free(B), free(C0), free(Cd), free(As), free(Bs), free(Cs), free(R);
    return ok;
}

/* A bad argument: XERBLA gets its number (with TEST_OWN_XERBLA), C stays. */
static void bad_call(int want, char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc)
{
    double A[64], B[64], C[64], one = 1;
    float As[64], Bs[64], Cs[64], ones = 1;
    int i, same = 1;
    char what[160];
    for (i = 0; i < 64; i++) A[i] = B[i] = As[i] = Bs[i] = 1, C[i] = Cs[i] = 7;
#ifdef TEST_OWN_XERBLA
    xerbla_calls = 0;
    xerbla_names[0] = '\0';
#endif
    dgemm_(&ta, &tb, &m, &n, &k, &one, A, &lda, B, &ldb, &one, C, &ldc);
    sgemm_(&ta, &tb, &m, &n, &k, &ones, As, &lda, Bs, &ldb, &ones, Cs, &ldc);
    for (i = 0; i < 64; i++) same &= C[i] == 7 && Cs[i] == 7;
#ifdef TEST_OWN_XERBLA
    snprintf(what, sizeof what, "parameter %d (%c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d): xerbla_ called %d times, "
             "names '%s', last number %d, C untouched", want, ta, tb, m, n, k, lda, ldb, ldc, xerbla_calls,
             xerbla_names, xerbla_info);
    check(xerbla_calls == 2 && xerbla_info == want && strcmp(xerbla_names, "DGEMM SGEMM ") == 0 && same, what);
#else
    snprintf(what, sizeof what, "parameter %d (%c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d): returns, C untouched", want,
             ta, tb, m, n, k, lda, ldb, ldc);
    check(same, what);
#endif
}

/* C = alpha*op(A)*op(B) + beta*C for interleaved complex column-major
   matrices, long double; 'C' conjugates. */
static void naive_z(char ta, char tb, int m, int n, int k, const double *al, const double *A, int lda,
                    const double *B, int ldb, const double *be, long double *C, int ldc)
{
    int i, j, p;
    int nta = ta == 'N' || ta == 'n', ntb = tb == 'N' || tb == 'n';
    long double sa = ta == 'C' || ta == 'c' ? -1 : 1, sb = tb == 'C' || tb == 'c' ? -1 : 1;
    for (j = 0; j < n; j++)
        for (i = 0; i < m; i++) {
            long double sr = 0, si = 0, cr, ci;
            size_t at = 2 * ((size_t)i + (size_t)j * ldc);
            for (p = 0; p < k; p++) {
                size_t ia = 2 * (nta ? i + (size_t)p * lda : p + (size_t)i * lda);
                size_t ib = 2 * (ntb ? p + (size_t)j * ldb : j + (size_t)p * ldb);
                long double ar = A[ia], ai = sa * A[ia + 1], br = B[ib], bi = sb * B[ib + 1];
                sr += ar * br - ai * bi;
                si += ar * bi + ai * br;
            }
            cr = be[0] == 0 && be[1] == 0 ? 0 : C[at];
            ci = be[0] == 0 && be[1] == 0 ? 0 : C[at + 1];
            C[at] = al[0] * sr - al[1] * si + be[0] * cr - be[1] * ci;
            C[at + 1] = al[0] * si + al[1] * sr + be[0] * ci + be[1] * cr;
        }
}

/* One complex case in both precisions (zgemm_, cgemm_; m3: zgemm3m_,
   cgemm3m_); 1 when both agree with the loop and C's padding is
   untouched. */
static int one_case_z(int m3, char ta, char tb, int m, int n, int k, int pad, const double *al, const double *be,
                      unsigned seed, char *why, size_t why_len)
{
    int nta = ta == 'N' || ta == 'n', ntb = tb == 'N' || tb == 'n';
    int lda = (nta ? m : k) + pad, ldb = (ntb ? k : n) + pad, ldc = m + pad + 1;
    int ra = nta ? k : m, rb = ntb ? n : k;
    size_t na = 2 * (size_t)lda * (ra > 0 ? ra : 1), nb = 2 * (size_t)ldb * (rb > 0 ? rb : 1);
    size_t nc = 2 * (size_t)ldc * (n > 0 ? n : 1), i;
    double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C0 = malloc(nc * sizeof *C0);
    double *Cd = malloc(nc * sizeof *Cd);
    float *As = malloc(na * sizeof *As), *Bs = malloc(nb * sizeof *Bs), *Cs = malloc(nc * sizeof *Cs);
    float als[2] = {(float)al[0], (float)al[1]}, bes[2] = {(float)be[0], (float)be[1]};
    long double *R = malloc(nc * sizeof *R);
    int ok = 1, row, col, c2;
    double errd = 0, errs = 0, scale;
    for (i = 0; i < na; i++) As[i] = (float)(A[i] = rnd(&seed));
    for (i = 0; i < nb; i++) Bs[i] = (float)(B[i] = rnd(&seed));
    for (i = 0; i < nc; i++) Cs[i] = (float)(Cd[i] = C0[i] = rnd(&seed)), R[i] = C0[i];
    naive_z(ta, tb, m, n, k, al, A, lda, B, ldb, be, R, ldc);
    (m3 ? zgemm3m_ : zgemm_)(&ta, &tb, &m, &n, &k, al, A, &lda, B, &ldb, be, Cd, &ldc);
    (m3 ? cgemm3m_ : cgemm_)(&ta, &tb, &m, &n, &k, als, As, &lda, Bs, &ldb, bes, Cs, &ldc);
    for (col = 0; col < n; col++)
        for (row = 0; row < ldc; row++)
            for (c2 = 0; c2 < 2; c2++) {
                size_t at = 2 * ((size_t)row + (size_t)col * ldc) + (size_t)c2;
                if (row >= m) {
                    if (Cd[at] != C0[at] || Cs[at] != (float)C0[at]) ok = 0;
                    continue;
                }
                errd = fmax(errd, fabs((double)(Cd[at] - R[at])));
                errs = fmax(errs, fabs((double)(Cs[at] - R[at])));
            }
    scale = (m3 ? 4 : 1) * (2 * (hypot(al[0], al[1]) * k + hypot(be[0], be[1])) + 1);
    if (errd > 8 * 1.1e-16 * scale || errs > 8 * 6e-8 * scale) ok = 0;
    snprintf(why, why_len, "complex%s %c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=(%g,%g) beta=(%g,%g): err "
             "fp64 %.2g, fp32 %.2g%s", m3 ? " 3M" : "", ta, tb, m, n, k, lda, ldb, ldc, al[0], al[1], be[0], be[1],
             errd, errs, ok ? "" : " (or padding written)");
    free(A), free(B), free(C0), free(Cd), free(As), free(Bs), free(Cs), free(R);
    return ok;
}

/* A bad complex argument: XERBLA gets its number (ZGEMM, then CGEMM; m3:
   ZGEMM3M, then CGEMM3M), C stays. */
static void bad_call_z(int m3, int want, char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc)
{
    double C[128], A[128], one[2] = {1, 0};
    float Cs[128], As[128], ones[2] = {1, 0};
    int i, same = 1;
    char what[200];
    for (i = 0; i < 128; i++) A[i] = As[i] = 1, C[i] = Cs[i] = 7;
#ifdef TEST_OWN_XERBLA
    xerbla_calls = 0;
    xerbla_names[0] = '\0';
#endif
    (m3 ? zgemm3m_ : zgemm_)(&ta, &tb, &m, &n, &k, one, A, &lda, A, &ldb, one, C, &ldc);
    (m3 ? cgemm3m_ : cgemm_)(&ta, &tb, &m, &n, &k, ones, As, &lda, As, &ldb, ones, Cs, &ldc);
    for (i = 0; i < 128; i++) same &= C[i] == 7 && Cs[i] == 7;
#ifdef TEST_OWN_XERBLA
    snprintf(what, sizeof what, "complex%s parameter %d (%c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d): xerbla_ called "
             "%d times, names '%s', last number %d, C untouched", m3 ? " 3M" : "", want, ta, tb, m, n, k, lda, ldb, ldc,
             xerbla_calls, xerbla_names, xerbla_info);
    check(xerbla_calls == 2 && xerbla_info == want &&
              strcmp(xerbla_names, m3 ? "ZGEMM3MCGEMM3M" : "ZGEMM CGEMM ") == 0 && same,
          what);
#else
    snprintf(what, sizeof what, "complex%s parameter %d (%c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d): returns, C "
             "untouched", m3 ? " 3M" : "", want, ta, tb, m, n, k, lda, ldb, ldc);
    check(same, what);
#endif
}

/* m3: the 3M names (cgemm3m_, zgemm3m_, cblas_zgemm3m). */
static void test_complex(int m3)
{
    static const char trans[] = "NTCc";
    static const int sizes[][3] = {{0, 5, 3}, {4, 5, 0}, {1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {129, 67, 131}};
    static const double ab[][4] = {{1, 0, 0, 0}, {0.5, -1.5, 0.25, 1}, {-1, 0, 1, 0}, {0, 0, 0, 2}};
    const char *zname = m3 ? "zgemm3m_" : "zgemm_", *cname = m3 ? "cgemm3m_" : "cgemm_",
               *cblas = m3 ? "cblas_zgemm3m" : "cblas_zgemm";
    unsigned long long z0 = gemm_blas_calls_of(zname), c0 = gemm_blas_calls_of(cname);
    unsigned long long cz0 = gemm_blas_calls_of(cblas), calls = 0;
    int a, b, z, v, cases = 0, bad = 0;
    char why[300], first[300] = "";
    for (a = 0; a < 4; a++)
        for (b = 0; b < 4; b++)
            for (z = 0; z < (int)(sizeof sizes / sizeof sizes[0]); z++)
                for (v = 0; v < 4; v++) {
                    if ((a == 3 || b == 3) && (z != 3 || v > 1)) continue;
                    cases++, calls++;
                    if (!one_case_z(m3, trans[a], trans[b], sizes[z][0], sizes[z][1], sizes[z][2], (z + v) % 3 + 1,
                                    ab[v], ab[v] + 2, 7000u + 1000u * a + 100u * b + 10u * z + v, why, sizeof why)) {
                        if (!bad++) strcpy(first, why);
                        printf("FAIL %s\n", why);
                    }
                }
    snprintf(why, sizeof why, "%d cases of %s and %s (TRANSA x TRANSB in NTCc, complex alpha/beta) match the "
             "loop%s%s", cases, cname, zname, bad ? "; first failure: " : "", first);
    check(bad == 0, why);
    bad_call_z(m3, 1, 'X', 'N', 2, 2, 2, 2, 2, 2);
    bad_call_z(m3, 2, 'C', 'Y', 2, 2, 2, 2, 2, 2);
    bad_call_z(m3, 3, 'N', 'N', -1, 2, 2, 2, 2, 2);
    bad_call_z(m3, 8, 'C', 'N', 2, 2, 4, 3, 4, 2);
    bad_call_z(m3, 10, 'N', 'C', 2, 4, 2, 2, 3, 2);
    bad_call_z(m3, 13, 'N', 'N', 4, 2, 2, 4, 2, 3);
    calls += 6;
    {
        double A[8] = {1, 2, 3, 4, 5, 6, 7, 8}, C[8], al[2] = {1, 0}, be[2] = {0, 0};
        /* C = A^H A: Hermitian, real diagonal */
        (m3 ? cblas_zgemm3m : cblas_zgemm)(102, 113, 111, 2, 2, 2, al, A, 2, A, 2, be, C, 2);
        snprintf(why, sizeof why, "%s through the library: A^H A is Hermitian with a real diagonal, counted", cblas);
        check(C[1] == 0 && C[7] == 0 && C[0] == 1 + 4 + 9 + 16 && C[4] == C[2] && C[5] == -C[3] && C[3] != 0 &&
                  gemm_blas_calls_of(cblas) - cz0 == 1, /* small integers: exact by either method */
              why);
    }
    snprintf(why, sizeof why, "gemm_blas_calls_of counted the complex calls: %s %llu, %s %llu of %llu", cname,
             gemm_blas_calls_of(cname) - c0, zname, gemm_blas_calls_of(zname) - z0, calls);
    check(gemm_blas_calls_of(cname) - c0 == calls && gemm_blas_calls_of(zname) - z0 == calls, why);
}

int main(void)
{
    static const char trans[] = "NnTtCc";
    static const int sizes[][3] = {{0, 5, 3}, {5, 0, 3}, {4, 5, 0}, {1, 1, 1}, {7, 5, 3},
                                   {33, 17, 65}, {64, 64, 64}, {129, 67, 131}, {300, 200, 150}};
    static const double ab[][2] = {{1, 0}, {1, 1}, {-1.5, 0.5}, {0, 2}};
    unsigned long long s0 = gemm_blas_calls_of("sgemm_"), d0 = gemm_blas_calls_of("dgemm_"), calls = 0;
    int a, b, z, v, cases = 0, bad = 0;
    char why[256], first[256] = "";
    for (a = 0; a < 6; a++)
        for (b = 0; b < 6; b++)
            for (z = 0; z < (int)(sizeof sizes / sizeof sizes[0]); z++)
                for (v = 0; v < 4; v++) {
                    /* every size with NN..CC upper case; the lower-case letters with fewer */
                    if ((a % 2 || b % 2) && (z % 3 != 1 || v > 1)) continue;
                    cases++, calls++;
                    if (!one_case(trans[a], trans[b], sizes[z][0], sizes[z][1], sizes[z][2], (z + v) % 3 * 2 + 1,
                                  ab[v][0], ab[v][1], 1000u * a + 100u * b + 10u * z + v, why, sizeof why)) {
                        if (!bad++) strcpy(first, why);
                        printf("FAIL %s\n", why);
                    }
                }
    snprintf(why, sizeof why, "%d cases of sgemm_ and dgemm_ (every TRANSA x TRANSB in NnTtCc, odd leading "
             "dimensions, alpha/beta 0, 1, other) match the loop%s%s", cases, bad ? "; first failure: " : "", first);
    check(bad == 0, why);

    bad_call(1, 'X', 'N', 2, 2, 2, 2, 2, 2);
    bad_call(2, 'N', 'Y', 2, 2, 2, 2, 2, 2);
    bad_call(3, 'N', 'N', -1, 2, 2, 2, 2, 2);
    bad_call(4, 'N', 'N', 2, -1, 2, 2, 2, 2);
    bad_call(5, 'N', 'N', 2, 2, -1, 2, 2, 2);
    bad_call(8, 'N', 'N', 4, 2, 2, 3, 2, 4);  /* lda < m */
    bad_call(8, 'T', 'N', 2, 2, 4, 3, 4, 2);  /* lda < k for op(A) = A^T */
    bad_call(8, 'N', 'N', 0, 2, 2, 0, 2, 1);  /* lda < 1, even with m = 0 */
    bad_call(10, 'N', 'N', 2, 2, 4, 2, 3, 2); /* ldb < k */
    bad_call(10, 'N', 'T', 2, 4, 2, 2, 3, 2); /* ldb < n for op(B) = B^T */
    bad_call(13, 'N', 'N', 4, 2, 2, 4, 2, 3); /* ldc < m */
    bad_call(1, 'X', 'Y', -1, -1, -1, 0, 0, 0); /* the first bad argument is the one reported */
    calls += 12;

    snprintf(why, sizeof why, "gemm_blas_calls_of counted every call: sgemm_ %llu, dgemm_ %llu of %llu each; "
             "gemm_blas_calls() %llu", gemm_blas_calls_of("sgemm_") - s0, gemm_blas_calls_of("dgemm_") - d0, calls,
             gemm_blas_calls());
    check(gemm_blas_calls_of("sgemm_") - s0 == calls && gemm_blas_calls_of("dgemm_") - d0 == calls &&
              gemm_blas_calls() == 2 * calls && gemm_blas_calls_of("cblas_sgemm") == 0 &&
              gemm_blas_calls_of("no_such_routine") == 0,
          why);
    test_complex(0);
    test_complex(1);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
