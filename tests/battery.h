/* tests/battery.h - the differential test battery every backend runs.

   A backend's test program fills in a battery_backend (its sgemm and dgemm
   behind one CBLAS-shaped signature with a context pointer), calls
   battery_run() once per kernel or mode it wants covered, and ends with
   `return battery_summary();`, which prints the closing line
   `N passed, N failed[, N skipped]` and returns the exit status.

   What battery_run() checks, each case against gemm_ref_?gemm (gemm.h):
     - randomized differential cases: both precisions, all 8 combinations of
       layout x transA x transB, shapes 0, 1, primes, powers of two and their
       neighbours, tall-skinny and short-wide, padded leading dimensions,
       alpha and beta from {0, 1, -1, random}; elements outside the m x n
       window of C (the padding of ldc) must stay bit-for-bit unchanged;
       where the suite sets battery_small_dim, every shape up to it;
     - edge semantics: beta == 0 with NaN in C, alpha == 0 and k == 0 with
       NaN in A and B, m == 0 and n == 0, beta == 1 with alpha == 0, NULL
       pointers that are not referenced;
     - a table of invalid arguments: each returns GEMM_ERR_INVALID_ARG with a
       detail, and C stays byte-for-byte unchanged.

   A result passes when
       max|C - C_ref| <= c * eps * max(k, 1) * max(|alpha|*max|A|*max|B|, |beta|*max|C0|)
   (c = 2 unless the backend says otherwise, eps of the precision or of the
   backend's reduced-precision mode); NaN never passes.

   Seeds: GEMM_TEST_SEED=<n> changes the base seed; every failure prints the
   seed and the whole call, so it reproduces.

   Test-only code: every function is static, the file is included once per
   test program, compiled as C99, C++ or CUDA C++. */

#ifndef GEMM_TESTS_BATTERY_H
#define GEMM_TESTS_BATTERY_H

#include "../gemm.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything here is static; a program uses only part of it. */
#define BATTERY_STATIC static GEMM__UNUSED

/* Precisions are gemm.h's gemm_precision: GEMM_F32 and GEMM_F64. */

typedef gemm_status (*battery_sgemm_fn)(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                        int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                        const float *B, int64_t ldb, float beta, float *C, int64_t ldc);
typedef gemm_status (*battery_dgemm_fn)(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                        int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                        const double *B, int64_t ldb, double beta, double *C, int64_t ldc);

typedef struct battery_backend {
    const char *name;        /* printed in every line about this backend */
    battery_sgemm_fn sgemm;  /* NULL: fp32 reported as skipped */
    battery_dgemm_fn dgemm;  /* NULL: fp64 reported as skipped */
    void *ctx;               /* handed to sgemm/dgemm */
    double tolerance_c;      /* c of the tolerance; 0 = 2 */
    double eps32;            /* eps used for fp32 results; 0 = FLT_EPSILON (TF32 etc. raise it) */
    int max_dim;             /* largest m, n, k of a random case; 0 = 300 */
    int cases;               /* random cases per precision and combination; 0 = 200 */
} battery_backend;

BATTERY_STATIC int battery_passed, battery_failed, battery_skipped;
BATTERY_STATIC int battery_verbose = -1; /* GEMM_TEST_VERBOSE=1 prints every case */
/* 1: the invalid-argument table also passes INT64_MIN as each size and
   leading dimension (no check may overflow on it: UBSan). A suite sets it
   when its adapters pass any int64_t through without using it first. */
BATTERY_STATIC int battery_extreme_args;
/* > 0: battery_run also makes every shape with m, n and k from 1 to this,
   in each layout and transpose (battery_small): the tiny products' own
   paths, which random shapes seldom reach. A suite sets it. */
BATTERY_STATIC int battery_small_dim;

/* ---- small helpers, also used by the benchmarks ---- */

BATTERY_STATIC uint64_t battery_next(uint64_t *state) /* splitmix64 */
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [-0.5, 0.5), exactly representable in float. */
BATTERY_STATIC double battery_uniform(uint64_t *state)
{
    return (double)(battery_next(state) >> 40) / 16777216.0 - 0.5;
}

BATTERY_STATIC int64_t battery_below(uint64_t *state, int64_t n) { return (int64_t)(battery_next(state) % (uint64_t)n); }

BATTERY_STATIC uint64_t battery_base_seed(void)
{
    const char *env = getenv("GEMM_TEST_SEED");
    return env ? strtoull(env, NULL, 10) : 20261122ull;
}

BATTERY_STATIC void battery_check(int ok, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#include <stdarg.h>
/* Counts one assertion; prints it when it fails (or always when verbose). */
BATTERY_STATIC void battery_check(int ok, const char *fmt, ...)
{
    va_list ap;
    if (battery_verbose < 0) battery_verbose = getenv("GEMM_TEST_VERBOSE") != NULL;
    if (ok) battery_passed++;
    else battery_failed++;
    if (!ok || battery_verbose) {
        printf("%s ", ok ? "ok  " : "FAIL");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        fflush(stdout);
    }
}

BATTERY_STATIC void battery_skip(const char *what, const char *why)
{
    battery_skipped++;
    printf("SKIPPED %s: %s\n", what, why);
    fflush(stdout);
}

/* The closing line; returns the exit status for main(). */
BATTERY_STATIC int battery_summary(void)
{
    if (battery_skipped) printf("%d passed, %d failed, %d skipped\n", battery_passed, battery_failed, battery_skipped);
    else printf("%d passed, %d failed\n", battery_passed, battery_failed);
    return battery_failed ? 1 : 0;
}

/* ---- a matrix buffer of either precision, read and written as double ---- */

typedef struct battery_buf {
    gemm_precision prec;
    size_t count;
    void *data;
} battery_buf;

BATTERY_STATIC battery_buf battery_buf_new(gemm_precision prec, size_t count)
{
    battery_buf b;
    size_t size = (prec == GEMM_F32 ? sizeof(float) : sizeof(double)) * (count ? count : 1);
    b.prec = prec;
    b.count = count;
    b.data = malloc(size);
    if (!b.data) { fprintf(stderr, "battery: out of memory\n"); exit(2); }
    return b;
}
BATTERY_STATIC void battery_buf_free(battery_buf *b) { free(b->data); b->data = NULL; }
BATTERY_STATIC size_t battery_buf_bytes(const battery_buf *b)
{
    return (b->prec == GEMM_F32 ? sizeof(float) : sizeof(double)) * b->count;
}
BATTERY_STATIC double battery_get(const battery_buf *b, size_t i)
{
    return b->prec == GEMM_F32 ? (double)((const float *)b->data)[i] : ((const double *)b->data)[i];
}
BATTERY_STATIC void battery_set(battery_buf *b, size_t i, double v)
{
    if (b->prec == GEMM_F32) ((float *)b->data)[i] = (float)v;
    else ((double *)b->data)[i] = v;
}
BATTERY_STATIC void battery_fill(battery_buf *b, uint64_t *state)
{
    size_t i;
    for (i = 0; i < b->count; i++) battery_set(b, i, battery_uniform(state));
}
BATTERY_STATIC void battery_fill_value(battery_buf *b, double v)
{
    size_t i;
    for (i = 0; i < b->count; i++) battery_set(b, i, v);
}
BATTERY_STATIC battery_buf battery_buf_copy(const battery_buf *src)
{
    battery_buf b = battery_buf_new(src->prec, src->count);
    memcpy(b.data, src->data, battery_buf_bytes(src));
    return b;
}

/* Element count a stored rows x cols matrix needs with leading dimension ld. */
BATTERY_STATIC size_t battery_extent(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows == 0 || cols == 0) return 0;
    return layout == GEMM_ROW_MAJOR ? (size_t)((rows - 1) * ld + cols) : (size_t)((cols - 1) * ld + rows);
}

/* ---- one call through a backend or the reference ---- */

typedef struct battery_call {
    gemm_layout layout;
    gemm_transpose ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    double alpha, beta;
} battery_call;

BATTERY_STATIC const char *battery_call_str(const battery_call *c, char *out, size_t size)
{
    snprintf(out, size, "%s %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld alpha=%g beta=%g",
             c->layout == GEMM_ROW_MAJOR ? "row" : c->layout == GEMM_COL_MAJOR ? "col" : "bad-layout",
             c->ta == GEMM_NO_TRANS ? 'N' : c->ta == GEMM_TRANS ? 'T' : c->ta == GEMM_CONJ_TRANS ? 'C' : '?',
             c->tb == GEMM_NO_TRANS ? 'N' : c->tb == GEMM_TRANS ? 'T' : c->tb == GEMM_CONJ_TRANS ? 'C' : '?',
             (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->lda, (long long)c->ldb,
             (long long)c->ldc, c->alpha, c->beta);
    return out;
}

/* NULL backend = the reference. Buffers may be passed as NULL pointers. */
BATTERY_STATIC gemm_status battery_invoke(const battery_backend *be, gemm_precision prec, const battery_call *c,
                                  const void *A, const void *B, void *C)
{
    if (prec == GEMM_F32) {
        if (!be) return gemm_ref_sgemm(c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, (const float *)A,
                                       c->lda, (const float *)B, c->ldb, (float)c->beta, (float *)C, c->ldc);
        return be->sgemm(be->ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, (const float *)A,
                         c->lda, (const float *)B, c->ldb, (float)c->beta, (float *)C, c->ldc);
    }
    if (!be) return gemm_ref_dgemm(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, (const double *)A, c->lda,
                                   (const double *)B, c->ldb, c->beta, (double *)C, c->ldc);
    return be->dgemm(be->ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, (const double *)A, c->lda,
                     (const double *)B, c->ldb, c->beta, (double *)C, c->ldc);
}

BATTERY_STATIC double battery_max_abs(const battery_buf *b)
{
    double mx = 0;
    size_t i;
    for (i = 0; i < b->count; i++) {
        double v = fabs(battery_get(b, i));
        if (v > mx) mx = v;
    }
    return mx;
}

/* Compares backend result `got` with reference `want` element by element:
   inside the m x n window within the tolerance, outside it bit-identical.
   Returns the max error inside (or INFINITY on NaN / mismatch outside). */
BATTERY_STATIC double battery_compare(const battery_call *c, const battery_buf *got, const battery_buf *want)
{
    size_t i, elem = got->prec == GEMM_F32 ? sizeof(float) : sizeof(double);
    double err = 0;
    for (i = 0; i < got->count; i++) {
        int64_t r, col, row_major = c->layout == GEMM_ROW_MAJOR;
        int inside;
        r = (int64_t)i / c->ldc;
        col = (int64_t)i % c->ldc; /* (outer, inner) index of the storage */
        inside = row_major ? (r < c->m && col < c->n) : (r < c->n && col < c->m);
        if (inside) {
            double d = fabs(battery_get(got, i) - battery_get(want, i));
            if (d != d) return INFINITY;
            if (d > err) err = d;
        } else if (memcmp((const char *)got->data + i * elem, (const char *)want->data + i * elem, elem) != 0) {
            return INFINITY;
        }
    }
    return err;
}

BATTERY_STATIC double battery_bound(const battery_backend *be, gemm_precision prec, const battery_call *c, double maxA,
                            double maxB, double maxC0)
{
    double cc = be->tolerance_c > 0 ? be->tolerance_c : 2.0;
    double eps = prec == GEMM_F32 ? (be->eps32 > 0 ? be->eps32 : FLT_EPSILON) : DBL_EPSILON;
    double ab = fabs(c->alpha) * maxA * maxB, cterm = fabs(c->beta) * maxC0;
    return cc * eps * (double)(c->k > 1 ? c->k : 1) * (ab > cterm ? ab : cterm);
}

/* Runs one call on random data through the backend and the reference and
   checks the result. Returns 1 when it passed. */
BATTERY_STATIC int battery_case(const battery_backend *be, gemm_precision prec, const battery_call *c, uint64_t seed)
{
    const char *pname = prec == GEMM_F32 ? "f32" : "f64";
    int64_t arows = c->ta == GEMM_NO_TRANS ? c->m : c->k, acols = c->ta == GEMM_NO_TRANS ? c->k : c->m;
    int64_t brows = c->tb == GEMM_NO_TRANS ? c->k : c->n, bcols = c->tb == GEMM_NO_TRANS ? c->n : c->k;
    uint64_t state = seed;
    battery_buf A = battery_buf_new(prec, battery_extent(c->layout, arows, acols, c->lda));
    battery_buf B = battery_buf_new(prec, battery_extent(c->layout, brows, bcols, c->ldb));
    battery_buf C = battery_buf_new(prec, battery_extent(c->layout, c->m, c->n, c->ldc)), R;
    gemm_status s_got, s_want;
    double err, bound;
    char desc[256];
    int ok;

    battery_fill(&A, &state);
    battery_fill(&B, &state);
    battery_fill(&C, &state);
    R = battery_buf_copy(&C);
    bound = battery_bound(be, prec, c, battery_max_abs(&A), battery_max_abs(&B), battery_max_abs(&C));
    s_got = battery_invoke(be, prec, c, A.data, B.data, C.data);
    s_want = battery_invoke(NULL, prec, c, A.data, B.data, R.data);
    err = s_got == GEMM_OK ? battery_compare(c, &C, &R) : INFINITY;
    ok = s_got == GEMM_OK && s_want == GEMM_OK && err <= bound;
    battery_check(ok, "%s %s %s seed=%llu: status %d (%s) err %.3g bound %.3g", be->name, pname,
                  battery_call_str(c, desc, sizeof desc), (unsigned long long)seed, (int)s_got,
                  s_got == GEMM_OK ? "ok" : gemm_last_error_detail(), err, bound);
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C);
    battery_buf_free(&R);
    return ok;
}

BATTERY_STATIC const gemm_layout battery_layouts[2] = {GEMM_ROW_MAJOR, GEMM_COL_MAJOR};
BATTERY_STATIC const gemm_transpose battery_transposes[2] = {GEMM_NO_TRANS, GEMM_TRANS};

/* Smallest valid leading dimensions for a call, written into it. */
BATTERY_STATIC void battery_min_lds(battery_call *c)
{
    int row = c->layout == GEMM_ROW_MAJOR;
    int64_t a = row ? (c->ta == GEMM_NO_TRANS ? c->k : c->m) : (c->ta == GEMM_NO_TRANS ? c->m : c->k);
    int64_t b = row ? (c->tb == GEMM_NO_TRANS ? c->n : c->k) : (c->tb == GEMM_NO_TRANS ? c->k : c->n);
    int64_t cc = row ? c->n : c->m;
    c->lda = a > 1 ? a : 1;
    c->ldb = b > 1 ? b : 1;
    c->ldc = cc > 1 ? cc : 1;
}

/* A random size: mostly the awkward ones, sometimes anything up to max. */
BATTERY_STATIC int64_t battery_random_dim(uint64_t *state, int64_t max)
{
    static const int64_t awkward[] = {0, 1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 32, 33, 47, 63, 64, 65, 97, 127, 128, 129,
                                      255, 256, 257};
    int64_t d;
    do {
        d = battery_below(state, 4) == 0 ? battery_below(state, max + 1)
                                         : awkward[battery_below(state, (int64_t)(sizeof awkward / sizeof awkward[0]))];
    } while (d > max);
    return d;
}

BATTERY_STATIC double battery_random_scalar(uint64_t *state)
{
    switch (battery_below(state, 5)) {
    case 0: return 0.0;
    case 1: return 1.0;
    case 2: return -1.0;
    default: return 2.0 * battery_uniform(state) + (battery_uniform(state) < 0 ? -0.25 : 0.25);
    }
}

BATTERY_STATIC void battery_random(const battery_backend *be, gemm_precision prec)
{
    int64_t max = be->max_dim > 0 ? be->max_dim : 300;
    int cases = be->cases > 0 ? be->cases : 200, li, ai, bi, i;
    uint64_t seed0 = battery_base_seed() * 1000003ull + (uint64_t)prec * 7919ull;
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 2; ai++)
            for (bi = 0; bi < 2; bi++)
                for (i = 0; i < cases; i++) {
                    uint64_t seed = seed0 + (uint64_t)((((li * 2 + ai) * 2 + bi) * cases) + i), state = seed;
                    battery_call c;
                    int shape = (int)battery_below(&state, 8);
                    c.layout = battery_layouts[li];
                    c.ta = battery_transposes[ai];
                    c.tb = battery_transposes[bi];
                    /* every third transpose as GEMM_CONJ_TRANS: for real types a transpose, as in BLAS */
                    if (c.ta == GEMM_TRANS && i % 3 == 1) c.ta = GEMM_CONJ_TRANS;
                    if (c.tb == GEMM_TRANS && i % 3 == 2) c.tb = GEMM_CONJ_TRANS;
                    c.m = battery_random_dim(&state, max);
                    c.n = battery_random_dim(&state, max);
                    c.k = battery_random_dim(&state, max);
                    if (shape == 0) { c.m = max; c.n = 1 + battery_below(&state, 4); }      /* tall-skinny */
                    else if (shape == 1) { c.n = max; c.m = 1 + battery_below(&state, 4); } /* short-wide */
                    c.alpha = battery_random_scalar(&state);
                    c.beta = battery_random_scalar(&state);
                    battery_min_lds(&c);
                    if (battery_below(&state, 3) == 0) { /* padded leading dimensions */
                        c.lda += 1 + battery_below(&state, 17);
                        c.ldb += 1 + battery_below(&state, 17);
                        c.ldc += 1 + battery_below(&state, 17);
                    }
                    battery_case(be, prec, &c, seed);
                }
}

/* ---- edge semantics ---- */

BATTERY_STATIC void battery_edges(const battery_backend *be, gemm_precision prec)
{
    const char *pname = prec == GEMM_F32 ? "f32" : "f64";
    int li, ai, bi;
    char desc[256];
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 2; ai++)
            for (bi = 0; bi < 2; bi++) {
                battery_call c;
                battery_buf A, B, C;
                uint64_t state = battery_base_seed() + 17u * (uint64_t)(li * 4 + ai * 2 + bi);
                gemm_status s;
                size_t i;
                int ok;
                c.layout = battery_layouts[li];
                c.ta = battery_transposes[ai];
                c.tb = battery_transposes[bi];
                c.m = 37; c.n = 29; c.k = 19;
                battery_min_lds(&c);
                A = battery_buf_new(prec, 64 * 64);
                B = battery_buf_new(prec, 64 * 64);
                C = battery_buf_new(prec, 64 * 64);

                /* beta == 0: NaN and Inf in C must not survive. */
                battery_fill(&A, &state);
                battery_fill(&B, &state);
                c.alpha = 1.5; c.beta = 0.0;
                for (i = 0; i < C.count; i++) battery_set(&C, i, i % 2 ? NAN : INFINITY);
                {
                    battery_buf R = battery_buf_copy(&C);
                    s = battery_invoke(be, prec, &c, A.data, B.data, C.data);
                    battery_invoke(NULL, prec, &c, A.data, B.data, R.data);
                    C.count = R.count = battery_extent(c.layout, c.m, c.n, c.ldc);
                    battery_check(s == GEMM_OK && battery_compare(&c, &C, &R) <= battery_bound(be, prec, &c, 0.5, 0.5, 0),
                                  "%s %s beta=0 clears NaN/Inf in C: %s", be->name, pname, battery_call_str(&c, desc, sizeof desc));
                    C.count = 64 * 64;
                    battery_buf_free(&R);
                }

                /* alpha == 0, and k == 0: A and B (all NaN) are not read; C = beta*C. */
                battery_fill_value(&A, NAN);
                battery_fill_value(&B, NAN);
                {
                    int variant;
                    for (variant = 0; variant < 2; variant++) {
                        battery_buf R;
                        battery_call v = c;
                        if (variant == 0) { v.alpha = 0.0; v.beta = -0.75; }
                        else { v.k = 0; v.alpha = 2.0; v.beta = 0.5; battery_min_lds(&v); }
                        battery_fill(&C, &state);
                        R = battery_buf_copy(&C);
                        s = battery_invoke(be, prec, &v, A.data, B.data, C.data);
                        ok = s == GEMM_OK;
                        for (i = 0; i < C.count && ok; i++) {
                            int64_t outer = (int64_t)i / v.ldc, inner = (int64_t)i % v.ldc;
                            int inside = v.layout == GEMM_ROW_MAJOR ? (outer < v.m && inner < v.n) : (outer < v.n && inner < v.m);
                            double want = inside ? v.beta * battery_get(&R, i) : battery_get(&R, i);
                            if (prec == GEMM_F32) want = (double)(float)want;
                            ok = battery_get(&C, i) == want;
                        }
                        battery_check(ok, "%s %s %s: A and B unread, C = beta*C: %s", be->name, pname,
                                      variant == 0 ? "alpha=0" : "k=0", battery_call_str(&v, desc, sizeof desc));
                        battery_buf_free(&R);
                    }
                }

                /* C untouched, bit for bit: m == 0, n == 0, and beta == 1 with alpha == 0
                   (NaN in C survives there, since C is not touched at all). */
                {
                    int variant;
                    for (variant = 0; variant < 3; variant++) {
                        battery_call v = c;
                        battery_buf before;
                        if (variant == 0) v.m = 0;
                        else if (variant == 1) v.n = 0;
                        else { v.alpha = 0.0; v.beta = 1.0; }
                        battery_fill(&C, &state);
                        battery_set(&C, 0, NAN);
                        before = battery_buf_copy(&C);
                        s = battery_invoke(be, prec, &v, A.data, B.data, C.data);
                        battery_check(s == GEMM_OK && memcmp(C.data, before.data, battery_buf_bytes(&C)) == 0,
                                      "%s %s C untouched (%s): %s", be->name, pname,
                                      variant == 0 ? "m=0" : variant == 1 ? "n=0" : "alpha=0 beta=1",
                                      battery_call_str(&v, desc, sizeof desc));
                        battery_buf_free(&before);
                    }
                }

                /* NULL where nothing is referenced is fine. */
                {
                    battery_call v = c;
                    v.alpha = 0.0; v.beta = 1.0;
                    s = battery_invoke(be, prec, &v, NULL, NULL, NULL);
                    battery_check(s == GEMM_OK, "%s %s NULL A, B, C with alpha=0 beta=1: status %d", be->name, pname, (int)s);
                    v = c; v.alpha = 0.0; v.beta = 2.0;
                    s = battery_invoke(be, prec, &v, NULL, NULL, C.data);
                    battery_check(s == GEMM_OK, "%s %s NULL A, B with alpha=0: status %d", be->name, pname, (int)s);
                    v = c; v.m = 0;
                    s = battery_invoke(be, prec, &v, NULL, NULL, NULL);
                    battery_check(s == GEMM_OK, "%s %s NULL A, B, C with m=0: status %d", be->name, pname, (int)s);
                }
                battery_buf_free(&A);
                battery_buf_free(&B);
                battery_buf_free(&C);
            }
}

/* ---- invalid arguments ---- */

BATTERY_STATIC void battery_invalid_one(const battery_backend *be, gemm_precision prec, const battery_call *c,
                                int null_which, const char *what)
{
    const char *pname = prec == GEMM_F32 ? "f32" : "f64";
    battery_buf A = battery_buf_new(prec, 64 * 64), B = battery_buf_new(prec, 64 * 64), C = battery_buf_new(prec, 64 * 64);
    battery_buf before;
    uint64_t state = 99;
    gemm_status s;
    char desc[256];
    battery_fill(&A, &state);
    battery_fill(&B, &state);
    battery_fill(&C, &state);
    before = battery_buf_copy(&C);
    s = battery_invoke(be, prec, c, null_which == 1 ? NULL : A.data, null_which == 2 ? NULL : B.data,
                       null_which == 3 ? NULL : C.data);
    battery_check(s == GEMM_ERR_INVALID_ARG && memcmp(C.data, before.data, battery_buf_bytes(&C)) == 0 &&
                      gemm_last_error_detail()[0] != '\0',
                  "%s %s invalid %s rejected, C unchanged: %s -> status %d \"%s\"", be->name, pname, what,
                  battery_call_str(c, desc, sizeof desc), (int)s, gemm_last_error_detail());
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C);
    battery_buf_free(&before);
}

BATTERY_STATIC void battery_invalid(const battery_backend *be, gemm_precision prec)
{
    int li, ai, bi;
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 2; ai++)
            for (bi = 0; bi < 2; bi++) {
                battery_call c, v;
                c.layout = battery_layouts[li];
                c.ta = battery_transposes[ai];
                c.tb = battery_transposes[bi];
                c.m = 7; c.n = 5; c.k = 3; /* all different, so every ld check is distinct */
                c.alpha = 1.0; c.beta = 0.5;
                battery_min_lds(&c);
                v = c; v.m = -1; battery_invalid_one(be, prec, &v, 0, "m < 0");
                v = c; v.n = -1; battery_invalid_one(be, prec, &v, 0, "n < 0");
                v = c; v.k = -1; battery_invalid_one(be, prec, &v, 0, "k < 0");
                v = c; v.lda -= 1; battery_invalid_one(be, prec, &v, 0, "lda too small");
                v = c; v.ldb -= 1; battery_invalid_one(be, prec, &v, 0, "ldb too small");
                v = c; v.ldc -= 1; battery_invalid_one(be, prec, &v, 0, "ldc too small");
                v = c; v.lda = 0; battery_invalid_one(be, prec, &v, 0, "lda = 0");
                v = c; v.m = 0; v.lda = 0; battery_invalid_one(be, prec, &v, 0, "lda = 0 with m = 0");
                v = c; battery_invalid_one(be, prec, &v, 1, "NULL A");
                v = c; battery_invalid_one(be, prec, &v, 2, "NULL B");
                v = c; battery_invalid_one(be, prec, &v, 3, "NULL C");
                v = c; v.alpha = 0; battery_invalid_one(be, prec, &v, 3, "NULL C with alpha = 0, beta != 1");
                if (!battery_extreme_args) continue;
                v = c; v.m = INT64_MIN; battery_invalid_one(be, prec, &v, 0, "m = INT64_MIN");
                v = c; v.n = INT64_MIN; battery_invalid_one(be, prec, &v, 0, "n = INT64_MIN");
                v = c; v.k = INT64_MIN; battery_invalid_one(be, prec, &v, 0, "k = INT64_MIN");
                v = c; v.lda = INT64_MIN; battery_invalid_one(be, prec, &v, 0, "lda = INT64_MIN");
                v = c; v.ldb = INT64_MIN; battery_invalid_one(be, prec, &v, 0, "ldb = INT64_MIN");
                v = c; v.ldc = INT64_MIN; battery_invalid_one(be, prec, &v, 0, "ldc = INT64_MIN");
            }
    {
        battery_call c, v;
        c.layout = GEMM_ROW_MAJOR; c.ta = GEMM_NO_TRANS; c.tb = GEMM_NO_TRANS;
        c.m = 4; c.n = 4; c.k = 4; c.alpha = 1; c.beta = 0;
        battery_min_lds(&c);
        v = c; v.layout = (gemm_layout)0; battery_invalid_one(be, prec, &v, 0, "layout");
        v = c; v.layout = (gemm_layout)103; battery_invalid_one(be, prec, &v, 0, "layout");
        v = c; v.ta = (gemm_transpose)0; battery_invalid_one(be, prec, &v, 0, "transa");
        v = c; v.ta = (gemm_transpose)114; battery_invalid_one(be, prec, &v, 0, "transa");
        v = c; v.tb = (gemm_transpose)-1; battery_invalid_one(be, prec, &v, 0, "transb");
        v = c; v.tb = (gemm_transpose)114; battery_invalid_one(be, prec, &v, 0, "transb");
    }
}

/* Every shape up to battery_small_dim in m, n and k, each layout and
   transpose; alpha and beta random (0, 1, -1 included), leading
   dimensions minimal or, every other case, padded. */
BATTERY_STATIC void battery_small(const battery_backend *be, gemm_precision prec)
{
    uint64_t seed0 = battery_base_seed() * 1000033ull + (uint64_t)prec * 104729ull, i = 0;
    int64_t m, n, k, d = battery_small_dim;
    int li, ai, bi;
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 2; ai++)
            for (bi = 0; bi < 2; bi++)
                for (m = 1; m <= d; m++)
                    for (n = 1; n <= d; n++)
                        for (k = 1; k <= d; k++, i++) {
                            uint64_t seed = seed0 + i, state = seed;
                            battery_call c;
                            c.layout = battery_layouts[li];
                            c.ta = battery_transposes[ai];
                            c.tb = battery_transposes[bi];
                            c.m = m;
                            c.n = n;
                            c.k = k;
                            c.alpha = battery_random_scalar(&state);
                            c.beta = battery_random_scalar(&state);
                            battery_min_lds(&c);
                            if (i % 2) {
                                c.lda += 1 + battery_below(&state, 3);
                                c.ldb += 1 + battery_below(&state, 3);
                                c.ldc += 1 + battery_below(&state, 3);
                            }
                            battery_case(be, prec, &c, seed);
                        }
}

/* Runs the whole battery on one backend, both precisions. */
BATTERY_STATIC void battery_run(const battery_backend *be)
{
    int before = battery_failed;
    gemm_precision prec;
    printf("== %s: seed %llu\n", be->name, (unsigned long long)battery_base_seed());
    fflush(stdout);
    for (prec = GEMM_F32; prec <= GEMM_F64; prec = (gemm_precision)(prec + 1)) {
        if (prec == GEMM_F32 ? !be->sgemm : !be->dgemm) {
            battery_skip(be->name, prec == GEMM_F32 ? "no fp32" : "no fp64");
            continue;
        }
        battery_random(be, prec);
        if (battery_small_dim > 0) battery_small(be, prec);
        battery_edges(be, prec);
        battery_invalid(be, prec);
    }
    printf("== %s: %s\n", be->name, battery_failed == before ? "all passed" : "FAILURES above");
    fflush(stdout);
}

/* ---- for the benchmarks: argument lists and a sampled check ---- */

typedef struct battery_shape { int64_t m, n, k; } battery_shape;

/* "256,512,1024" -> out[]; returns how many were read (at most max). */
BATTERY_STATIC int battery_parse_list(const char *arg, int64_t *out, int max)
{
    int n = 0;
    char *end;
    while (*arg && n < max) {
        out[n++] = strtoll(arg, &end, 10);
        arg = end;
        if (*arg != ',') break;
        arg++;
    }
    return n;
}

/* "4096:4096:256,1000:1000:1000" -> out[]; returns how many were read. */
BATTERY_STATIC int battery_parse_shapes(const char *arg, battery_shape *out, int max)
{
    int n = 0;
    char *end;
    while (*arg && n < max) {
        out[n].m = strtoll(arg, &end, 10); arg = end; if (*arg == ':') arg++;
        out[n].n = strtoll(arg, &end, 10); arg = end; if (*arg == ':') arg++;
        out[n].k = strtoll(arg, &end, 10); arg = end;
        n++;
        if (*arg != ',') break;
        arg++;
    }
    return n;
}

BATTERY_STATIC int battery_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts n timings in place, so t[n / 2] is the median and t[0] the best. */
BATTERY_STATIC void battery_sort(double *t, int n) { qsort(t, (size_t)n, sizeof(double), battery_cmp_double); }

/* "f32,f64" -> out[]; returns how many precisions were named. */
BATTERY_STATIC int battery_parse_precs(const char *arg, gemm_precision out[2])
{
    int n = 0;
    if (strstr(arg, "f32")) out[n++] = GEMM_F32;
    if (strstr(arg, "f64")) out[n++] = GEMM_F64;
    return n;
}

/* Reads element `index` of C wherever it lives (host memory, a device). */
typedef double (*battery_read_fn)(void *ctx, size_t index);

/* A benchmark's check of one result: 64 sampled elements of the row-major
   m x n C = op(A) op(B) (A, B row-major and dense, inputs in [-0.5, 0.5))
   against fp64 sums, within 2 * eps * k * 0.25. A full reference would take
   longer than the benchmark. */
BATTERY_STATIC int battery_sampled_ok(gemm_precision prec, gemm_transpose ta, gemm_transpose tb, battery_shape s,
                                      const battery_buf *A, const battery_buf *B, battery_read_fn read_c, void *ctx)
{
    uint64_t state = 7;
    double eps = prec == GEMM_F32 ? FLT_EPSILON : DBL_EPSILON;
    int t;
    for (t = 0; t < 64; t++) {
        int64_t i = battery_below(&state, s.m), j = battery_below(&state, s.n), p;
        double sum = 0;
        for (p = 0; p < s.k; p++)
            sum += battery_get(A, (size_t)(ta == GEMM_NO_TRANS ? i * s.k + p : p * s.m + i)) *
                   battery_get(B, (size_t)(tb == GEMM_NO_TRANS ? p * s.n + j : j * s.k + p));
        if (!(fabs(read_c(ctx, (size_t)(i * s.n + j)) - sum) <= 2 * eps * (double)s.k * 0.25)) return 0;
    }
    return 1;
}

/* The same for a square complex product C = alpha op(A) op(B) (n x n,
   interleaved pairs, stored by `layout`; op() in N, T, C): 64 sampled
   elements of C against long double sums, each part within `bound`. */
BATTERY_STATIC int battery_complex_sampled_ok(gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t n,
                                              const double alpha[2], const battery_buf *A, const battery_buf *B,
                                              battery_read_fn read_c, void *ctx, double bound)
{
    uint64_t state = 77;
    int t;
#define BATTERY_AT(r, c) (size_t)(layout == GEMM_ROW_MAJOR ? (r) * n + (c) : (r) + (c) * n)
    for (t = 0; t < 64; t++) {
        int64_t i = battery_below(&state, n), j = battery_below(&state, n), l;
        long double sr = 0, si = 0, rr, ri;
        size_t ic = BATTERY_AT(i, j);
        for (l = 0; l < n; l++) {
            size_t ia = ta == GEMM_NO_TRANS ? BATTERY_AT(i, l) : BATTERY_AT(l, i);
            size_t ib = tb == GEMM_NO_TRANS ? BATTERY_AT(l, j) : BATTERY_AT(j, l);
            long double ar = battery_get(A, 2 * ia), ai = battery_get(A, 2 * ia + 1);
            long double br = battery_get(B, 2 * ib), bi = battery_get(B, 2 * ib + 1);
            if (ta == GEMM_CONJ_TRANS) ai = -ai;
            if (tb == GEMM_CONJ_TRANS) bi = -bi;
            sr += ar * br - ai * bi;
            si += ar * bi + ai * br;
        }
        rr = alpha[0] * sr - alpha[1] * si;
        ri = alpha[0] * si + alpha[1] * sr;
        if (!(fabsl(rr - read_c(ctx, 2 * ic)) <= bound) || !(fabsl(ri - read_c(ctx, 2 * ic + 1)) <= bound)) return 0;
    }
#undef BATTERY_AT
    return 1;
}

/* battery_read_fn for a result in host memory: ctx is the battery_buf. */
BATTERY_STATIC double battery_read_host(void *ctx, size_t index) { return battery_get((const battery_buf *)ctx, index); }

#endif /* GEMM_TESTS_BATTERY_H */
