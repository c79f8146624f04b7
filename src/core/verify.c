/* The checksums' bound and comparison, shared by every backend
   (verify.h). The bound of one line (a column j; rows alike):

     |got - want| <= 2 * (u*(k+2) + ud*(m+n+k+4)) * scale + (k+2)*(m+n)*tiny

   An honest product's element carries at most gamma_{k+2} times
   |alpha|*|op(a)_i| |op(b)_j| + |beta|*|C0_ij| of error (k products and
   their sum, alpha, beta and the final add, in any order: Higham's
   gamma_k); a column sum adds those of its m elements, which is
   u*(k+2)*scale. The sums themselves are taken in fp64 (ud = 2^-53) over
   at most m + n + k terms, and an underflow to a subnormal loses up to
   the precision's smallest subnormal (tiny) per product; the factor 2
   covers gamma's 1/(1 - ku). A flipped bit or a lost slice of k that
   moves a column's sum by more than this is caught; one smaller is
   indistinguishable from rounding. */
#pragma once

#include <float.h>    /* FLT_MAX, DBL_MAX */
#include <math.h>     /* fabs, ldexp */
#include "config.h"   /* snprintf */
#include "internal.h" /* gemm__fail */
#include "verify.h"

/* Each vector is padded to its length + 40 doubles (5 cache lines), so
   that two vectors a pass updates side by side never lie a multiple of
   4 KiB apart (n = 2048: the loads of one wait on the stores of the other,
   "4K aliasing", which made the passes 8x slower). */
#define GEMM__VERIFY_PAD(len) ((size_t)(len) + 40)

GEMM_DEF size_t gemm__verify_doubles(int64_t m, int64_t n, int64_t k)
{
    return 3 * GEMM__VERIFY_PAD(m) + 3 * GEMM__VERIFY_PAD(n) + 4 * GEMM__VERIFY_PAD(k);
}

GEMM_DEF double *gemm__verify_layout(gemm__verify_sums *v, double *ws, int64_t m, int64_t n, int64_t k)
{
    v->got_row = ws;
    v->want_row = v->got_row + GEMM__VERIFY_PAD(m);
    v->scale_row = v->want_row + GEMM__VERIFY_PAD(m);
    v->got_col = v->scale_row + GEMM__VERIFY_PAD(m);
    v->want_col = v->got_col + GEMM__VERIFY_PAD(n);
    v->scale_col = v->want_col + GEMM__VERIFY_PAD(n);
    (void)k;
    return v->scale_col + GEMM__VERIFY_PAD(n);
}

GEMM_DEF double *gemm__verify_scratch(double *after, int64_t k, int x) { return after + (size_t)x * GEMM__VERIFY_PAD(k); }

GEMM_DEF double gemm__verify_unit(gemm_precision compute, int input_bits)
{
    double u = ldexp(1.0, compute == GEMM_F64 ? -53 : compute == GEMM_F32 ? -24 : compute == GEMM_F16 ? -11 : -8);
    double ui = input_bits > 0 ? ldexp(1.0, -input_bits) : 0.0;
    return ui > u ? ui : u;
}

/* The worst of count lines (gemm__verify_worst) against factor * scale +
   floor; kernels/verify.cuh's compare kernel takes the same steps on a
   GPU. */
static void gemm__verify_lines(const double *got, const double *want, const double *scale, int64_t count,
                               double factor, double floor_, double max, gemm__verify_worst *w)
{
    int64_t i;
    w->at = -1;
    w->failed = 0;
    w->residual = w->bound = w->ratio = 0;
    for (i = 0; i < count; i++) {
        double s = scale[i], bound = factor * s + floor_, r = fabs(got[i] - want[i]), ratio;
        if (!(s * (1.0 + factor) < max)) continue; /* an Inf or NaN in the inputs, or an honest overflow */
        if (r <= bound) continue;
        ratio = r != r ? HUGE_VAL : bound > 0 ? r / bound : HUGE_VAL; /* r NaN: the sum of C is, its inputs are not */
        w->failed++;
        if (w->at < 0 || ratio > w->ratio) {
            w->at = i;
            w->residual = r;
            w->bound = bound;
            w->ratio = ratio;
        }
    }
}

GEMM_DEF void gemm__verify_limits(int64_t m, int64_t n, int64_t k, double u, double max, double *factor,
                                  double *floor_)
{
    const double ud = ldexp(1.0, -53);
    double tiny = max == FLT_MAX ? ldexp(1.0, -149) : max == DBL_MAX ? ldexp(1.0, -1074)
                : max == 65504.0  ? ldexp(1.0, -24) /* F16 */ : ldexp(1.0, -133) /* BF16 */;
    *factor = 2.0 * (u * ((double)k + 2.0) + ud * ((double)m + (double)n + (double)k + 4.0));
    *floor_ = ((double)k + 2.0) * ((double)m + (double)n) * tiny;
}

GEMM_DEF gemm_status gemm__verify_report(const char *func, const gemm__verify_worst *rows,
                                         const gemm__verify_worst *cols, int64_t m, int64_t n, int swapped,
                                         int64_t member)
{
    char who[48] = "", line[2][160];
    int x;
    if (!rows->failed && !cols->failed) return GEMM_OK;
    if (member >= 0) snprintf(who, sizeof who, "member %lld: ", (long long)member);
    for (x = 0; x < 2; x++) {
        const gemm__verify_worst *w = x == 0 ? rows : cols;
        /* a row-major call's canonical rows are its columns */
        const char *name = (x == 0) != (swapped != 0) ? "row" : "column";
        if (w->failed)
            snprintf(line[x], sizeof line[x], "%s %lld's sum is off by %.3g (bound %.3g; %lld of %lld %ss out of bound)",
                     name, (long long)w->at, w->residual, w->bound, (long long)w->failed, (long long)(x == 0 ? m : n),
                     name);
        else
            snprintf(line[x], sizeof line[x], "every %s's sum within its bound", name);
    }
    return gemm__fail(GEMM_ERR_VERIFY, "%s: %sthe product failed its checksum verification: %s; %s", func, who,
                      line[swapped ? 1 : 0], line[swapped ? 0 : 1]);
}

GEMM_DEF gemm_status gemm__verify_compare(const char *func, const gemm__verify_sums *v, int64_t m, int64_t n,
                                          int64_t k, double u, double max, int swapped, int64_t member)
{
    double factor, floor_;
    gemm__verify_worst rows, cols;
    gemm__verify_limits(m, n, k, u, max, &factor, &floor_);
    gemm__verify_lines(v->got_row, v->want_row, v->scale_row, m, factor, floor_, max, &rows);
    gemm__verify_lines(v->got_col, v->want_col, v->scale_col, n, factor, floor_, max, &cols);
    return gemm__verify_report(func, &rows, &cols, m, n, swapped, member);
}
