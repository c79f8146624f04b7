/* tests/test_cuda_ozaki.cu - the int8 product (gemm_cuda_s8gemm) and the
   emulated products on the int8 tensor cores (options.math FP64_EMULATED
   and FP32_ACCURATE with options.moduli: the Ozaki scheme II).

   --model (no GPU; CI runs it): the arithmetic of device/ozaki_math.cuh on
   the CPU: the moduli pairwise coprime and the CRT weights right, the
   residues against integer arithmetic, random integers reconstructed from
   their residues, and the whole scheme (scaling, residues, integer
   products modulo each modulus, reconstruction) against exact products,
   within the documented bound; AUTO's choice by size and its rule for a
   line's bits.
   On a GPU: gemm_cuda_s8gemm against an integer reference (layouts, ops,
   alpha, beta, edges, plain kernel too); the battery through FP64_EMULATED
   (14 moduli) and FP32_ACCURATE (7); the bound against exact products
   (double-double on the CPU, sampled) on uniform inputs and entries
   spread over 2^+-10 and 2^+-30, at several forced moduli; AUTO's moduli
   by its rule (gemm__ozaki_need) on uniform lines and lines dominated by
   one entry; the fallbacks (an Inf or NaN, too few moduli for K, fp64
   lines that need more than 16 moduli) run the native kernels, say so
   through gemm_cuda_last_moduli() and give their results; a strided batch
   member by member; the refusals.
   GEMM_CUDA_TEST_SMALL=1 runs smaller shapes and batteries (for
   compute-sanitizer, tests/cuda_run.sh). Last line: N passed, N failed. */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "battery.h"
#include <algorithm>
#include <vector>

static int passed, failed;
static void check(bool ok, const char *what)
{
    if (ok) passed++;
    else failed++;
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}
static double uniform(void) { return (double)(rnd() >> 11) * 0x1.0p-53 * 2.0 - 1.0; }
/* a value of random sign, mantissa, and binary exponent in [-span, span] */
static double spread(int span) { return ldexp(uniform(), (int)(rnd() % (2 * span + 1)) - span); }

/* sum of a[q*as] * b[q*bs] exactly enough (double-double) */
static void exact_dot(int K, const double *a, int64_t as, const double *b, int64_t bs, double *hi, double *lo)
{
    double s = 0.0, c = 0.0;
    for (int q = 0; q < K; q++) {
        double x = a[q * as], y = b[q * bs], p = x * y, pe = fma(x, y, -p);
        double t = s + p, z = t - s, te = (s - (t - z)) + (p - z);
        s = t;
        c += te + pe;
    }
    *hi = s + c;
    *lo = c - (*hi - s);
}

/* The bound of device/ozaki_math.cuh for C(i, j) of row-major A (M x K)
   and B (K x N): truncation of both operands plus the reconstruction's
   roundings; `out_u`: the unit roundoff of C's type (fp32: 2^-24). */
static double ozaki_bound(int K, const double *a, const double *b, int64_t ldb, int j, int bits_a, int bits_b,
                          int count, double c, double out_u)
{
    double ma = 0.0, mb = 0.0, sa = 0.0, sb = 0.0;
    for (int q = 0; q < K; q++) {
        ma = fmax(ma, fabs(a[q])); sa += fabs(a[q]);
        mb = fmax(mb, fabs(b[q * ldb + j])); sb += fabs(b[q * ldb + j]);
    }
    return ldexp(ma * sb, -bits_a) + ldexp(sa * mb, -bits_b) + ldexp((double)K * ma * mb, -bits_a - bits_b) +
           (count + 2) * 0x1.0p-53 * fabs(c) + out_u * fabs(c);
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

static void model(void)
{
    bool ok = true;
    for (int count = 2; count <= GEMM__OZAKI_MAX_MODULI; count++) {
        gemm__ozaki_moduli m = gemm__ozaki_moduli_of(count);
        for (int l = 0; l < count; l++) {
            int64_t mod_l = 0; /* M mod p_l, from M's limbs (most significant first) */
            for (int i = GEMM__OZAKI_MAX_LIMBS - 1; i >= 0; i--) mod_l = ((mod_l << 32) + m.mod[i]) % m.p[l];
            ok = ok && mod_l == 0;
            for (int j = 0; j < count; j++) { /* w_l: 1 mod p_l, 0 mod every other modulus */
                int64_t r = 0;
                for (int i = GEMM__OZAKI_MAX_LIMBS - 1; i >= 0; i--) r = ((r << 32) + m.w[l][i]) % m.p[j];
                ok = ok && r == (j == l ? 1 : 0);
                if (j < l) ok = ok && gcd(m.p[l], m.p[j]) == 1;
            }
            for (int i = GEMM__OZAKI_MAX_LIMBS - 1; i >= 0; i--) /* w_l < M */
                if (m.w[l][i] != m.mod[i]) { ok = ok && m.w[l][i] < m.mod[i]; break; }
        }
        ok = ok && fabs(log2(1.0 / m.rcp_m) - m.log2_m) < 1e-9;
    }
    check(ok, "model: the moduli are pairwise coprime and divide M; each CRT weight is 1 mod its modulus, 0 mod "
              "the others, below M; 1/M right, for 2..20 moduli");
    ok = true;
    gemm__ozaki_moduli all = gemm__ozaki_moduli_of(GEMM__OZAKI_MAX_MODULI);
    for (int t = 0; t < 200000; t++) {
        int64_t v = (int64_t)(rnd() >> 11) * ((rnd() & 1) ? 1 : -1); /* |v| < 2^53 */
        int l = t % GEMM__OZAKI_MAX_MODULI, p = all.p[l], r = gemm__ozaki_residue((double)v, all, l);
        ok = ok && (((v - r) % p) == 0) && r >= -(p / 2) && r < (p + 1) / 2 && r >= -128 && r <= 127;
        /* the int8 kernel's reduction, over its whole range and at both ends */
        int x = t < 512 ? (t % 2 ? 1 : -1) * (GEMM__OZAKI_MOD_RANGE - t / 2)
                        : (int)(rnd() % (GEMM__OZAKI_MOD_RANGE + 1u)) * ((rnd() & 1) ? 1 : -1),
            u = gemm__ozaki_mod(x, gemm__ozaki_divisor_of(p));
        ok = ok && u >= 0 && u < p && ((int64_t)x - u) % p == 0;
    }
    check(ok, "model: symmetric residues of integers below 2^53 fit int8; the products' reduction (|x| <= 2^30 + "
              "2^9) lands in [0, p)");
    ok = true;
    double worst = 0.0;
    for (int count = 4; count <= GEMM__OZAKI_MAX_MODULI; count += 4) {
        gemm__ozaki_moduli m = gemm__ozaki_moduli_of(count);
        for (int t = 0; t < 20000; t++) {
            /* an integer of up to log2(M) - 3 bits as two fp64 halves: hi*2^40 + lo */
            int top = (int)(m.log2_m - 3.0), bits = (int)(rnd() % ((top < 92 ? top : 92) + 1)); /* hi below 2^52 */
            double lo_part = (double)(int64_t)(rnd() >> 24) * ((rnd() & 1) ? 1 : -1); /* < 2^40 */
            double hi_part = bits > 40 ? rint(ldexp(uniform(), bits - 40)) : 0.0;
            if (bits <= 40) lo_part = rint(ldexp(uniform(), bits));
            int u[GEMM__OZAKI_MAX_MODULI] = {0}; /* zero past the count, as the kernel reads them */
            for (int l = 0; l < count; l++) {
                int p = m.p[l], rh = gemm__ozaki_residue(hi_part, m, l), rl = gemm__ozaki_residue(lo_part, m, l);
                int two40 = 1;
                for (int q = 0; q < 40; q++) two40 = two40 * 2 % p;
                u[l] = gemm__ozaki_mod(rh * two40 + rl, gemm__ozaki_divisor_of(p));
            }
            double want = ldexp(hi_part, 40) + lo_part, got = gemm__ozaki_reconstruct<GEMM__OZAKI_MAX_MODULI>(m, u);
            double err = fabs(got - want) / fmax(fabs(want), 1.0);
            if (bits <= 52 && hi_part == 0.0) ok = ok && got == want; /* small values are exact */
            worst = fmax(worst, err);
        }
    }
    ok = ok && worst <= 4 * 0x1.0p-53;
    char line[200];
    snprintf(line, sizeof line, "model: integers up to min(M/8, 2^92) from their residues (exact below 2^53; worst relative "
             "error %.2g)", worst);
    check(ok, line);
    /* the whole range |C'| <= M/4 in 128-bit integers (up to 16 moduli: M < 2^127), every part's carry and sign */
    ok = true;
    worst = 0.0;
    for (int count = 2; count <= 16; count++) {
        gemm__ozaki_moduli m = gemm__ozaki_moduli_of(count);
        unsigned __int128 big = 0;
        for (int i = GEMM__OZAKI_MAX_LIMBS - 1; i >= 0; i--) big = big << 32 | m.mod[i];
        __int128 quarter = (__int128)(big / 4);
        for (int t = 0; t < 4000; t++) {
            unsigned __int128 r = (unsigned __int128)rnd() << 64 | rnd();
            int shift = (int)(rnd() % 128); /* every size, down to single digits */
            __int128 v = (__int128)((r >> shift) % (unsigned __int128)(quarter + 1));
            if (t < 8) v = t < 4 ? quarter - t : t - 4; /* both ends */
            if (rnd() & 1) v = -v;
            int u[GEMM__OZAKI_MAX_MODULI] = {0};
            for (int l = 0; l < count; l++) u[l] = (int)(((v % m.p[l]) + m.p[l]) % m.p[l]);
            double want = (double)v, got = gemm__ozaki_reconstruct<16>(m, u),
                   got20 = gemm__ozaki_reconstruct<GEMM__OZAKI_MAX_MODULI>(m, u);
            if (v > -((__int128)1 << 53) && v < ((__int128)1 << 53)) ok = ok && got == want && got20 == want;
            worst = fmax(worst, fmax(fabs(got - want), fabs(got20 - want)) / fmax(fabs(want), 1.0));
        }
    }
    ok = ok && worst <= 4 * 0x1.0p-53;
    snprintf(line, sizeof line, "model: every integer size up to M/4 from its residues, 2..16 moduli, both signs (exact "
             "below 2^53; worst relative error %.2g)", worst);
    check(ok, line);

    /* the whole scheme on the CPU */
    const int M = 23, N = 19, K = 301;
    std::vector<double> A(M * K), B(K * N);
    for (int dist = 0; dist < 2; dist++) {
        for (auto &v : A) v = dist ? spread(10) : uniform();
        for (auto &v : B) v = dist ? spread(10) : uniform();
        for (int count : {8, 12, 14, 16}) {
            gemm__ozaki_moduli m = gemm__ozaki_moduli_of(count);
            int bits_a = 0, bits_b = 0;
            bool within = gemm__ozaki_bits(&m, K, &bits_a, &bits_b);
            std::vector<int> ea(M), eb(N);
            for (int i = 0; i < M; i++) {
                double mx = 0.0;
                for (int q = 0; q < K; q++) mx = fmax(mx, fabs(A[i * K + q]));
                ea[i] = mx > 0.0 ? ilogb(mx) : 0;
            }
            for (int j = 0; j < N; j++) {
                double mx = 0.0;
                for (int q = 0; q < K; q++) mx = fmax(mx, fabs(B[q * N + j]));
                eb[j] = mx > 0.0 ? ilogb(mx) : 0;
            }
            double worst_ratio = 0.0;
            for (int i = 0; i < M && within; i++)
                for (int j = 0; j < N; j++) {
                    int u[GEMM__OZAKI_MAX_MODULI] = {0}; /* zero past the count, as the kernel reads them */
                    for (int l = 0; l < count; l++) {
                        int64_t sum = 0;
                        for (int q = 0; q < K; q++)
                            sum += (int64_t)gemm__ozaki_residue(gemm__ozaki_integral(A[i * K + q], gemm__ozaki_scale(ea[i], bits_a)), m, l) *
                                   gemm__ozaki_residue(gemm__ozaki_integral(B[q * N + j], gemm__ozaki_scale(eb[j], bits_b)), m, l);
                        u[l] = (int)(((sum % m.p[l]) + m.p[l]) % m.p[l]);
                    }
                    double c = ldexp(gemm__ozaki_reconstruct<GEMM__OZAKI_MAX_MODULI>(m, u),
                                     -(gemm__ozaki_scale(ea[i], bits_a) + gemm__ozaki_scale(eb[j], bits_b)));
                    double hi, lo;
                    exact_dot(K, &A[i * K], 1, &B[j], N, &hi, &lo);
                    double err = fabs((c - hi) - lo), bound = ozaki_bound(K, &A[i * K], B.data(), N, j, bits_a, bits_b, count, hi, 0.0);
                    worst_ratio = fmax(worst_ratio, err / bound);
                }
            snprintf(line, sizeof line, "model: the scheme with %d moduli (%d + %d bits), %s inputs, within the bound "
                     "(worst error / bound %.3g)", count, bits_a, bits_b, dist ? "2^+-10-spread" : "uniform", worst_ratio);
            check(within && worst_ratio <= 1.0, line);
        }
    }
}

/* ---- on the GPU ---- */

template <typename T> static T *dev_copy(const std::vector<T> &h)
{
    T *d = NULL;
    if (cudaMalloc((void **)&d, h.size() * sizeof(T) + 16) != cudaSuccess ||
        cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "test_cuda_ozaki: cannot stage buffers on the device\n");
        exit(2);
    }
    return d;
}
template <typename T> static std::vector<T> host_copy(const T *d, size_t n)
{
    std::vector<T> h(n);
    if (cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "test_cuda_ozaki: CUDA error: %s\n", cudaGetErrorString(cudaGetLastError()));
        exit(2);
    }
    return h;
}

/* element (r, c) of a matrix stored in `layout`, op() not applied */
static int64_t at(gemm_layout layout, int64_t r, int64_t c, int64_t ld)
{
    return layout == GEMM_ROW_MAJOR ? r * ld + c : r + c * ld;
}

static void s8_case(gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int M, int N, int K, int pad,
                    int32_t alpha, int32_t beta, gemm_cuda_kernel kernel)
{
    int ar = ta == GEMM_NO_TRANS ? M : K, ac = ta == GEMM_NO_TRANS ? K : M;
    int br = tb == GEMM_NO_TRANS ? K : N, bc = tb == GEMM_NO_TRANS ? N : K;
    int64_t lda = (layout == GEMM_ROW_MAJOR ? ac : ar) + pad, ldb = (layout == GEMM_ROW_MAJOR ? bc : br) + pad,
            ldc = (layout == GEMM_ROW_MAJOR ? N : M) + pad;
    std::vector<int8_t> A((size_t)lda * (layout == GEMM_ROW_MAJOR ? ar : ac)), B((size_t)ldb * (layout == GEMM_ROW_MAJOR ? br : bc));
    std::vector<int32_t> C((size_t)ldc * (layout == GEMM_ROW_MAJOR ? M : N));
    for (auto &v : A) v = (int8_t)(rnd() & 0xff);
    for (auto &v : B) v = (int8_t)(rnd() & 0xff);
    for (auto &v : C) v = (int32_t)(rnd() % 2001) - 1000;
    int8_t *dA = dev_copy(A), *dB = dev_copy(B);
    int32_t *dC = dev_copy(C);
    gemm_cuda_options o = {};
    o.kernel = kernel;
    gemm_status s = gemm_cuda_s8gemm(0, layout, ta, tb, M, N, K, alpha, dA, lda, dB, ldb, beta, dC, ldc, &o);
    std::vector<int32_t> got = host_copy(dC, C.size());
    bool ok = s == GEMM_OK;
    for (int i = 0; i < M && ok; i++)
        for (int j = 0; j < N && ok; j++) {
            int32_t sum = 0;
            for (int q = 0; q < K; q++) {
                int8_t x = ta == GEMM_NO_TRANS ? A[at(layout, i, q, lda)] : A[at(layout, q, i, lda)];
                int8_t y = tb == GEMM_NO_TRANS ? B[at(layout, q, j, ldb)] : B[at(layout, j, q, ldb)];
                sum += (int32_t)x * y;
            }
            int64_t z = at(layout, i, j, ldc);
            int32_t want = beta == 0 ? alpha * sum : alpha * sum + beta * C[z];
            ok = got[z] == want;
        }
    /* outside the m x n window: untouched */
    for (size_t z = 0; z < C.size() && ok && pad; z++) {
        int64_t r = layout == GEMM_ROW_MAJOR ? (int64_t)z / ldc : (int64_t)z % ldc, c = layout == GEMM_ROW_MAJOR ? (int64_t)z % ldc : (int64_t)z / ldc;
        if (r >= M || c >= N) ok = got[z] == C[z];
    }
    char line[200];
    snprintf(line, sizeof line, "s8gemm %s %c%c %dx%dx%d pad %d alpha %d beta %d %s", layout == GEMM_ROW_MAJOR ? "row" : "col",
             ta == GEMM_NO_TRANS ? 'N' : 'T', tb == GEMM_NO_TRANS ? 'N' : 'T', M, N, K, pad, alpha, beta,
             kernel == GEMM_CUDA_KERNEL_NAIVE ? "plain" : "auto");
    check(ok, line);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}

/* The most bits a line needs by AUTO's rule (gemm__ozaki_need, in
   1/GEMM__OZAKI_NEED_UNIT of a bit): `lines` lines of `len` entries,
   entry q of line r at X[r*rs + q*qs]. */
static int most_need(const std::vector<double> &X, int lines, int len, int64_t rs, int64_t qs, int target)
{
    int most = 0;
    for (int r = 0; r < lines; r++) {
        double big = 0.0, sum = 0.0;
        int nnz = 0;
        for (int q = 0; q < len; q++) {
            double v = fabs(X[r * rs + q * qs]);
            big = fmax(big, v);
            sum += v;
            nnz += v > 0.0;
        }
        most = std::max(most, gemm__ozaki_need(big, sum, nnz, target));
    }
    return most;
}

/* Lines dominated by one entry: each line of `lines` lines of `len`
   (entry q of line r at X[r*rs + q*qs]) gets +-1 at a random place and
   the rest of random sign and magnitude uniform in [0, rest). Its need
   (gemm__ozaki_need) is log2(sqrt(len) / (1 + (len - 1) rest / 2)) + t. */
static void skewed(std::vector<double> &X, int lines, int len, int64_t rs, int64_t qs, double rest)
{
    for (int r = 0; r < lines; r++) {
        int big = (int)(rnd() % (uint64_t)len);
        for (int q = 0; q < len; q++) X[r * rs + q * qs] = q == big ? 1.0 : uniform() * rest;
        if (rnd() & 1) X[r * rs + big * qs] = -1.0;
    }
}

/* The inputs of emulated_case: dist 0 uniform in [-1, 1), > 0
   spread(dist), or lines dominated by one entry (skewed) with the rest
   below SKEW_SMALL_REST (DIST_SKEW_SMALL: at K = 8192 a line needs
   log2(90.5 / 1.41) + t = t + 6.0 bits, fp32's 9 moduli give 28 and 10
   give 32, fp64's 16 give 53) or SKEW_WIDE_REST (DIST_SKEW_WIDE: t - 0.01
   bits, fp64's 15 moduli give 51 and 16 give 53). */
enum { DIST_SKEW_SMALL = -1, DIST_SKEW_WIDE = -2 };
#define SKEW_SMALL_REST 1e-4
#define SKEW_WIDE_REST 0.022

/* One emulated product against exact sums at sampled elements; returns
   the worst error / bound, or -1 when the call failed or did not choose
   as it should: forced (automatic false) `moduli` always, unless
   `want_native`; AUTO (automatic: options.moduli = 0) the fewest moduli
   from `moduli` (the default) up to its most whose bits every line needs
   (most_need), else the native kernels. */
template <typename T>
static double emulated_case(int M, int N, int K, int dist, int moduli, bool want_native, bool automatic = false)
{
    std::vector<double> A64((size_t)M * K), B64((size_t)K * N);
    if (dist < 0) { /* A's rows and B's columns are the lines */
        skewed(A64, M, K, K, 1, dist == DIST_SKEW_SMALL ? SKEW_SMALL_REST : SKEW_WIDE_REST);
        skewed(B64, N, K, 1, N, dist == DIST_SKEW_SMALL ? SKEW_SMALL_REST : SKEW_WIDE_REST);
    } else {
        for (auto &v : A64) v = dist == 0 ? uniform() : spread(dist);
        for (auto &v : B64) v = dist == 0 ? uniform() : spread(dist);
    }
    std::vector<T> A(A64.begin(), A64.end()), B(B64.begin(), B64.end()), C((size_t)M * N, T(0));
    for (size_t z = 0; z < A.size(); z++) A64[z] = (double)A[z]; /* fp32: the rounded inputs are the problem */
    for (size_t z = 0; z < B.size(); z++) B64[z] = (double)B[z];
    T *dA = dev_copy(A), *dB = dev_copy(B), *dC = dev_copy(C);
    gemm_cuda_options o = {};
    o.math = sizeof(T) == 8 ? GEMM_CUDA_MATH_FP64_EMULATED : GEMM_CUDA_MATH_FP32_ACCURATE;
    o.moduli = automatic ? 0 : moduli;
    gemm_status s = sizeof(T) == 8
        ? gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, (const double *)dA, K,
                          (const double *)dB, N, 0.0, (double *)dC, N, &o)
        : gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, (const float *)dA, K,
                          (const float *)dB, N, 0.0f, (float *)dC, N, &o);
    int used = gemm_cuda_last_moduli();
    std::vector<T> got = host_copy(dC, C.size());
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    double worst = 0.0;
    int target = gemm__cuda_ozaki_target<T>();
    int ba = 0, bb = 0, want_moduli = 0, need_a = most_need(A64, M, K, K, 1, target), need_b = most_need(B64, N, K, 1, N, target);
    int most = automatic ? gemm__cuda_ozaki_max_moduli<T>() : moduli;
    /* a row-major call is the column-major problem C^T = B^T A^T: the
       library's op(A) is B^T, whose rows (B's columns) get the first bits;
       the loop stops with ba and bb the bits of the count it found */
    for (int c = moduli; c <= most && !want_native && !want_moduli; c++) {
        gemm__ozaki_moduli mc = gemm__ozaki_moduli_of(c);
        if (gemm__ozaki_bits(&mc, K, &bb, &ba) &&
            (!automatic || (need_a <= ba * GEMM__OZAKI_NEED_UNIT && need_b <= bb * GEMM__OZAKI_NEED_UNIT)))
            want_moduli = c;
    }
    if (want_moduli) moduli = want_moduli; /* the bound's */
    if (s != GEMM_OK || used != want_moduli) {
        printf("     status %d, moduli used %d (want %d)\n", (int)s, used, want_moduli);
        return -1.0;
    }
    int bits_a = ba, bits_b = bb;
    for (int t = 0; t < 400; t++) {
        int i = (int)(rnd() % M), j = (int)(rnd() % N);
        double hi, lo;
        exact_dot(K, &A64[(size_t)i * K], 1, &B64[j], N, &hi, &lo);
        double err = fabs(((double)got[(size_t)i * N + j] - hi) - lo), bound;
        if (used) bound = ozaki_bound(K, &A64[(size_t)i * K], B64.data(), N, j, bits_a, bits_b, moduli, hi,
                                      sizeof(T) == 4 ? 0x1.0p-24 : 0.0);
        else { /* the native kernels: K units in the last place of |A||B| */
            double ab = 0.0;
            for (int q = 0; q < K; q++) ab += fabs(A64[(size_t)i * K + q] * B64[(size_t)q * N + j]);
            bound = (K + 2) * (sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53) * ab + 1e-300;
        }
        if (!(err <= bound)) worst = fmax(worst, err / bound + (err != err ? 1e9 : 0.0));
        else worst = fmax(worst, err / bound);
    }
    return worst;
}

template <typename T> static void emulated_checks(void)
{
    const char *name = sizeof(T) == 8 ? "fp64 emulated" : "fp32 accurate (int8)";
    char line[240];
    int sizes[][3] = {{257, 131, 300}, {1000, 600, 1024}, {130, 270, 70000}};
    bool small = getenv("GEMM_CUDA_TEST_SMALL") != NULL; /* compute-sanitizer: the first shape */
    for (auto &sz : sizes) {
        if (small && sz[0] != 257) continue;
        for (int dist : {0, 10, 30})
            for (int moduli : sizeof(T) == 8 ? std::vector<int>{10, 14, 18} : std::vector<int>{5, 7, 9}) {
                double r = emulated_case<T>(sz[0], sz[1], sz[2], dist, moduli, false);
                snprintf(line, sizeof line, "%s %dx%dx%d, %s, %d moduli forced: emulated, within the bound (worst "
                         "error / bound %.3g)", name, sz[0], sz[1], sz[2],
                         dist == 30 ? "entries spread over 2^+-30" : dist ? "entries spread over 2^+-10" : "uniform",
                         moduli, r);
                check(r >= 0.0 && r <= 1.0 && gemm_cuda_last_moduli() == moduli, line);
            }
    }
    /* AUTO at 16384 x 8192 x 8192 and at 8192^3, the smallest size it
       emulates: uniform inputs keep the default moduli; lines dominated by
       one entry (rest below SKEW_SMALL_REST) take one more fp32 modulus and
       are beyond fp64's 16; with the rest below SKEW_WIDE_REST fp64 takes
       one more */
    if (!small) {
        int def = gemm__cuda_ozaki_default_moduli<T>();
        int sizes_auto[][3] = {{16384, 8192, 8192}, {8192, 8192, 8192}};
        bool fp64 = sizeof(T) == 8;
        for (auto &sz : sizes_auto) {
            double kept = emulated_case<T>(sz[0], sz[1], sz[2], 0, def, false, true);
            snprintf(line, sizeof line, "%s %d x %d x %d, AUTO, uniform: the default %d moduli (%d; worst error / "
                     "bound %.3g)", name, sz[0], sz[1], sz[2], def, gemm_cuda_last_moduli(), kept);
            check(kept >= 0.0 && kept <= 1.0 && gemm_cuda_last_moduli() == def, line);
            double added = emulated_case<T>(sz[0], sz[1], sz[2], fp64 ? DIST_SKEW_WIDE : DIST_SKEW_SMALL, def, false, true);
            snprintf(line, sizeof line, "%s %d x %d x %d, AUTO, lines dominated by one entry (the rest below %g): %d "
                     "moduli, one over the default (worst error / bound %.3g)", name, sz[0], sz[1], sz[2],
                     fp64 ? SKEW_WIDE_REST : SKEW_SMALL_REST, gemm_cuda_last_moduli(), added);
            check(added >= 0.0 && added <= 1.0 && gemm_cuda_last_moduli() == def + 1, line);
        }
        if (fp64) {
            double beyond = emulated_case<T>(16384, 8192, 8192, DIST_SKEW_SMALL, def, true, true);
            snprintf(line, sizeof line, "%s 16384 x 8192 x 8192, AUTO, lines dominated by one entry (the rest below "
                     "%g): beyond 16 moduli, native kernels (%.3g)", name, SKEW_SMALL_REST, beyond);
            check(beyond >= 0.0 && beyond <= 1.0 && gemm_cuda_last_moduli() == 0, line);
        }
    }
    /* fallbacks: the native kernels, and they say so */
    double r = emulated_case<T>(100, 100, 4096, 0, 2, true);
    snprintf(line, sizeof line, "%s: 2 moduli leave no bits for K = 4096: native kernels (%.3g)", name, r);
    check(r >= 0.0 && r <= 1.0, line);
    {
        int M = 64, N = 64, K = 64;
        std::vector<T> A((size_t)M * K, T(1)), B((size_t)K * N, T(1)), C((size_t)M * N, T(0));
        A[5] = (T)INFINITY;
        B[7] = (T)NAN;
        T *dA = dev_copy(A), *dB = dev_copy(B), *dC = dev_copy(C);
        gemm_cuda_options o = {};
        o.math = sizeof(T) == 8 ? GEMM_CUDA_MATH_FP64_EMULATED : GEMM_CUDA_MATH_FP32_ACCURATE;
        o.moduli = 14;
        gemm_status s = sizeof(T) == 8
            ? gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, (const double *)dA, K,
                              (const double *)dB, N, 0.0, (double *)dC, N, &o)
            : gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, (const float *)dA, K,
                              (const float *)dB, N, 0.0f, (float *)dC, N, &o);
        int used = gemm_cuda_last_moduli();
        std::vector<T> got = host_copy(dC, C.size());
        /* row 0 of A holds the Inf, column 7 of B the NaN */
        bool ok = s == GEMM_OK && used == 0 && isinf((double)got[1]) && isnan((double)got[(size_t)3 * N + 7]) &&
                  got[(size_t)3 * N + 1] == (T)K;
        snprintf(line, sizeof line, "%s: an Inf and a NaN: native kernels, IEEE results", name);
        check(ok, line);
        cudaFree(dA); cudaFree(dB); cudaFree(dC);
    }
}

/* A strided batch in the emulated modes runs member by member through the
   single call: each member bit for bit the single call's result. */
template <typename T> static void emulated_batch(void)
{
    const int M = 150, N = 120, K = 200, count = 3;
    std::vector<T> A((size_t)count * M * K), B((size_t)count * K * N), C((size_t)count * M * N, T(0));
    for (auto &v : A) v = (T)uniform();
    for (auto &v : B) v = (T)uniform();
    T *dA = dev_copy(A), *dB = dev_copy(B), *dC = dev_copy(C), *dS = dev_copy(std::vector<T>((size_t)M * N));
    gemm_cuda_options o = {};
    o.math = sizeof(T) == 8 ? GEMM_CUDA_MATH_FP64_EMULATED : GEMM_CUDA_MATH_FP32_ACCURATE;
    o.moduli = sizeof(T) == 8 ? 14 : 8;
    gemm_status s = sizeof(T) == 8
        ? gemm_cuda_dgemm_strided_batched(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, (const double *)dA, K,
                                          (int64_t)M * K, (const double *)dB, N, (int64_t)K * N, 0.0, (double *)dC, N,
                                          (int64_t)M * N, count, &o)
        : gemm_cuda_sgemm_strided_batched(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, (const float *)dA, K,
                                          (int64_t)M * K, (const float *)dB, N, (int64_t)K * N, 0.0f, (float *)dC, N,
                                          (int64_t)M * N, count, &o);
    bool ok = s == GEMM_OK && gemm_cuda_last_moduli() == o.moduli;
    std::vector<T> got = host_copy(dC, C.size());
    for (int i = 0; i < count && ok; i++) {
        gemm_status t = sizeof(T) == 8
            ? gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, (const double *)dA + (size_t)i * M * K, K,
                              (const double *)dB + (size_t)i * K * N, N, 0.0, (double *)dS, N, &o)
            : gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, (const float *)dA + (size_t)i * M * K, K,
                              (const float *)dB + (size_t)i * K * N, N, 0.0f, (float *)dS, N, &o);
        std::vector<T> one = host_copy(dS, (size_t)M * N);
        ok = t == GEMM_OK && memcmp(one.data(), got.data() + (size_t)i * M * N, one.size() * sizeof(T)) == 0;
    }
    check(ok, sizeof(T) == 8 ? "fp64 emulated strided batch: each member the single call's bits, moduli reported"
                             : "fp32 accurate (int8) strided batch: each member the single call's bits, moduli reported");
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dS);
}

static gemm_status run_emulated_s(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                  int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                                  float beta, float *C, int64_t ldc);
static gemm_status run_emulated_d(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                  int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                                  double beta, double *C, int64_t ldc);

static size_t extent_of(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (ld < 1) ld = 1;
    return battery_extent(layout == GEMM_COL_MAJOR ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR, rows, cols, ld);
}

template <typename T>
static gemm_status run_emulated(gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C,
                                int64_t ldc)
{
    bool nt_a = ta == GEMM_NO_TRANS, nt_b = tb == GEMM_NO_TRANS;
    size_t na = extent_of(layout, nt_a ? m : k, nt_a ? k : m, lda), nb = extent_of(layout, nt_b ? k : n, nt_b ? n : k, ldb),
           nc = extent_of(layout, m, n, ldc);
    T *dA = NULL, *dB = NULL, *dC = NULL;
    if (A) dA = dev_copy(std::vector<T>(A, A + na));
    if (B) dB = dev_copy(std::vector<T>(B, B + nb));
    if (C) dC = dev_copy(std::vector<T>(C, C + nc));
    gemm_cuda_options o = {};
    o.math = sizeof(T) == 8 ? GEMM_CUDA_MATH_FP64_EMULATED : GEMM_CUDA_MATH_FP32_ACCURATE;
    o.moduli = sizeof(T) == 8 ? 14 : 7;
    gemm_status s = sizeof(T) == 8
        ? gemm_cuda_dgemm(0, layout, ta, tb, m, n, k, (double)alpha, (const double *)dA, lda, (const double *)dB, ldb,
                          (double)beta, (double *)dC, ldc, &o)
        : gemm_cuda_sgemm(0, layout, ta, tb, m, n, k, (float)alpha, (const float *)dA, lda, (const float *)dB, ldb,
                          (float)beta, (float *)dC, ldc, &o);
    if (C && nc) {
        std::vector<T> h = host_copy(dC, nc);
        memcpy(C, h.data(), nc * sizeof(T));
    }
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return s;
}
static gemm_status run_emulated_s(void *, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                  int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                                  float beta, float *C, int64_t ldc)
{
    return run_emulated<float>(l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
static gemm_status run_emulated_d(void *, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                  int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                                  double beta, double *C, int64_t ldc)
{
    return run_emulated<double>(l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static void refusals(void)
{
    double *d = NULL;
    cudaMalloc((void **)&d, 64 * sizeof(double));
    gemm_cuda_options o = {};
    o.math = GEMM_CUDA_MATH_FP64_EMULATED;
    o.moduli = 1;
    check(gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0, d, 4, d + 16, 4, 0.0, d + 32, 4, &o) ==
              GEMM_ERR_INVALID_ARG, "refused: options.moduli = 1");
    o.moduli = 21;
    check(gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0, d, 4, d + 16, 4, 0.0, d + 32, 4, &o) ==
              GEMM_ERR_INVALID_ARG, "refused: options.moduli = 21");
    o.moduli = 14;
    o.math = GEMM_CUDA_MATH_EXACT;
    check(gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0, d, 4, d + 16, 4, 0.0, d + 32, 4, &o) ==
              GEMM_ERR_INVALID_ARG, "refused: options.moduli with math EXACT");
    o.math = GEMM_CUDA_MATH_FP64_EMULATED;
    o.moduli = 0;
    check(gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, (float *)d, 4, (float *)d + 16, 4,
                          0.0f, (float *)d + 32, 4, &o) == GEMM_ERR_INVALID_ARG, "refused: FP64_EMULATED for sgemm");
    const double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    check(gemm_cuda_zgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, one, d, 2, d + 16, 2, zero, d + 32, 2, &o) ==
              GEMM_ERR_INVALID_ARG, "refused: FP64_EMULATED for a complex call (not offered)");
    std::vector<double> h(64, 1.0);
    check(gemm_cuda_dgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0, h.data(), 4, h.data() + 16, 4, 0.0,
                               h.data() + 32, 4, &o) == GEMM_ERR_INVALID_ARG, "refused: FP64_EMULATED for a _host call (not offered)");
    gemm_cuda_options k = {};
    k.moduli = 3;
    check(gemm_cuda_s8gemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, (int8_t *)d, 4, (int8_t *)d + 16, 4, 0,
                           (int32_t *)(d + 32), 4, &k) == GEMM_ERR_INVALID_ARG, "refused: s8gemm with options.moduli");
    check(gemm_cuda_s8gemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, (int8_t *)d, 3, (int8_t *)d + 16, 4, 0,
                           (int32_t *)(d + 32), 4, NULL) == GEMM_ERR_INVALID_ARG, "refused: s8gemm with lda < k");
    cudaFree(d);
}

/* AUTO's rule for a line's bits (gemm__ozaki_need), on lines whose need
   is known: one entry (t bits), a uniform-like line of 8192 entries of
   mean 1/2 (t + 1 - 6.5), a sum that overflowed (counted as max: t +
   log2(nnz)/2), no nonzero entry (0). */
static void need_rule(void)
{
    const int u = GEMM__OZAKI_NEED_UNIT;
    check(gemm__ozaki_need(1.0, 1.0, 1, 23) == 23 * u, "AUTO's rule: a line of one entry needs t bits");
    check(gemm__ozaki_need(1.0, 4096.0, 8192, 52) == (52 - 6) * u + u / 2, "AUTO's rule: 8192 entries of mean 1/2 need "
                                                                          "t - 5.5 bits");
    check(gemm__ozaki_need(0x1p1000, INFINITY, 16, 52) == 54 * u, "AUTO's rule: an overflowed sum counts as max");
    check(gemm__ozaki_need(0.0, 0.0, 0, 52) == 0, "AUTO's rule: a line of zeros needs nothing");
    check(gemm__ozaki_need(1.0, 91.0, 8192, 52) > 51 * u && gemm__ozaki_need(1.0, 91.0, 8192, 52) <= 52 * u,
          "AUTO's rule: one entry of 1 and a rest summing to 90 over 8192 entries needs t - 0.01 bits");
}

/* AUTO's choice by size alone (options.moduli = 0): the emulation from
   k >= 4096 and m n k >= 2^39 (8192^3) in both precisions, native below;
   options.moduli > 0 always emulates. */
static void auto_sizes(void)
{
    static const struct { int64_t m, n, k; bool want; } cs[] = {
        {8192, 8192, 8192, true},  {16384, 16384, 16384, true}, {4096, 4096, 65536, true},
        {4096, 4096, 4096, false}, {8192, 8192, 1024, false},   {16384, 16384, 2048, false},
        {8191, 8192, 8192, false},
    };
    gemm_cuda_options auto_opt = {}, forced = {};
    forced.moduli = 5;
    for (const auto &c : cs) {
        gemm__problem p;
        char what[160];
        bool ok = gemm__prepare("auto", GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, c.m, c.n, c.k, 0, 1, c.m, 1, c.k, 0, 1,
                                c.m, &p) == GEMM_OK;
        ok = ok && gemm__cuda_ozaki_wanted<double>(&p, &auto_opt) == c.want &&
             gemm__cuda_ozaki_wanted<float>(&p, &auto_opt) == c.want && gemm__cuda_ozaki_wanted<double>(&p, &forced);
        snprintf(what, sizeof what, "AUTO by size: %lld x %lld x %lld %s; moduli = 5 emulates", (long long)c.m,
                 (long long)c.n, (long long)c.k, c.want ? "emulates" : "stays native");
        check(ok, what);
    }
}

int main(int argc, char **argv)
{
    int count = 0;
    if (argc > 1 && strcmp(argv[1], "--model") == 0) {
        model();
        auto_sizes();
        need_rule();
        printf("%d passed, %d failed\n", passed, failed);
        return failed != 0;
    }
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIPPED test_cuda_ozaki: no CUDA device\n0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    model();
    auto_sizes();
    need_rule();
    refusals();
    for (gemm_layout layout : {GEMM_ROW_MAJOR, GEMM_COL_MAJOR})
        for (gemm_transpose ta : {GEMM_NO_TRANS, GEMM_TRANS})
            for (gemm_transpose tb : {GEMM_NO_TRANS, GEMM_TRANS}) {
                s8_case(layout, ta, tb, 300, 200, 170, 0, 1, 0, GEMM_CUDA_KERNEL_AUTO);
                s8_case(layout, ta, tb, 77, 129, 45, 3, -3, 2, GEMM_CUDA_KERNEL_AUTO);
            }
    if (!getenv("GEMM_CUDA_TEST_SMALL")) s8_case(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 513, 1000, 4096, 0, 1, 0, GEMM_CUDA_KERNEL_AUTO);
    s8_case(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 100, 64, 300, 16, 2, 1, GEMM_CUDA_KERNEL_AUTO);
    s8_case(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 5, 3, 1, 0, 1, 1, GEMM_CUDA_KERNEL_AUTO);
    s8_case(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 60, 50, 40, 2, 7, -1, GEMM_CUDA_KERNEL_NAIVE);
    s8_case(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 60, 50, 0, 2, 7, -1, GEMM_CUDA_KERNEL_AUTO);
    emulated_checks<double>();
    emulated_checks<float>();
    emulated_batch<double>();
    emulated_batch<float>();
    battery_backend be;
    memset(&be, 0, sizeof be);
    be.name = "cuda/ozaki";
    be.sgemm = run_emulated_s;
    be.dgemm = run_emulated_d;
    be.cases = getenv("GEMM_CUDA_TEST_SMALL") ? 6 : 40;
    be.max_dim = getenv("GEMM_CUDA_TEST_SMALL") ? 70 : 200;
    battery_run(&be);
    int p = passed + battery_passed, f = failed + battery_failed;
    printf("%d passed, %d failed\n", p, f);
    return f != 0;
}
