/* The arithmetic of the emulated fp64 and fp32 products (the Ozaki scheme
   II: Ozaki, Uchino and Imamura, 2025), shared by the kernels and the host
   (where a model of the whole scheme checks it without a GPU):

     1. Scale: row i of op(A) by 2^ea_i and column j of op(B) by 2^eb_j,
        so that the largest entry of each is below 2^bits_a (2^bits_b),
        and round to integers A', B' (exact in fp64: bits <= 53).
     2. Residues: for each modulus p_l (pairwise coprime, at most 256),
        A' mod p_l and B' mod p_l in the symmetric range, which int8 holds.
     3. Products: W_l = (A' mod p_l) (B' mod p_l) on the int8 tensor cores,
        exact in int32 (K is cut into parts of at most 2^16), kept as
        u_l = W_l mod p_l in [0, p_l).
     4. Reconstruction: since |A'B'| <= K 2^(bits_a + bits_b) <= M/4 (M the
        product of the moduli), the integer C' = A'B' is the one value of
        the symmetric range with C' = u_l mod p_l for every l. Garner's
        mixed-radix digits (symmetric, so small values stay exact) give
        C' = v_0 + p_0 (v_1 + p_1 (v_2 + ...)), evaluated in fp64 from the
        top (one rounding per step once past 2^53; no cancellation, since
        each step's value dominates its digit), then
        C = C' 2^-(ea_i + eb_j).
   The moduli are the largest pairwise coprime numbers up to 256, in
   descending order: the first N are taken. */
#pragma once
#include <math.h>
#include <stdint.h>
#include <string.h> /* memcpy */

#define GEMM__OZAKI_MAX_MODULI 20
/* Full unrolling on the device (registers for the digits); the host's
   compiler does not know the pragma. */
#ifdef __CUDA_ARCH__
#define GEMM__OZAKI_UNROLL _Pragma("unroll")
#else
#define GEMM__OZAKI_UNROLL
#endif
#define GEMM__OZAKI_K_PART 65536 /* |sum| <= 2^16 * 128 * 128 = 2^30 < 2^31 */

/* The moduli and Garner's constants for the first `count` of them. */
typedef struct gemm__ozaki_moduli {
    int count;
    int p[GEMM__OZAKI_MAX_MODULI];
    int inv[GEMM__OZAKI_MAX_MODULI];  /* (p_0 ... p_(l-1))^-1 mod p_l */
    double p64[GEMM__OZAKI_MAX_MODULI];     /* p_l in fp64 (no conversion in the kernels' loops) */
    double rcp64[GEMM__OZAKI_MAX_MODULI];   /* 1 / p_l */
    unsigned magic[GEMM__OZAKI_MAX_MODULI]; /* ceil(2^32 / p_l): gemm__ozaki_mod32 */
    int bias[GEMM__OZAKI_MAX_MODULI];       /* a multiple of p_l of at least 2^20 */
    int pre[GEMM__OZAKI_MAX_MODULI][GEMM__OZAKI_MAX_MODULI]; /* pre[l][j] = (p_0 ... p_(l-1)) mod p_j (an int:
                                                                 the multiply reads it as an operand) */
    double log2_m;                    /* log2 of their product */
} gemm__ozaki_moduli;

/* x mod p in [0, p) for |x| < 2^31, rcp = 1/p in fp64 (fp64 holds x
   exactly and the quotient's error is far below one, so one step corrects
   it). */
__host__ __device__ static inline int gemm__ozaki_mod(int x, int p, double rcp)
{
    int q = (int)floor((double)x * rcp), r = x - q * p;
    return r + (r < 0 ? p : r >= p ? -p : 0);
}

/* x mod p for any 32-bit unsigned x in integer arithmetic: the quotient
   x * ceil(2^32/p) / 2^32 overshoots x/p by less than x / 2^32 < 1, so it
   is exact or one too many, and one step corrects it (the difference
   taken in unsigned arithmetic, where it wraps to its small value). */
__host__ __device__ static inline int gemm__ozaki_mod32(unsigned x, int p, unsigned magic)
{
#ifdef __CUDA_ARCH__
    unsigned q = __umulhi(x, magic);
#else
    unsigned q = (unsigned)(((uint64_t)x * magic) >> 32);
#endif
    int r = (int)(x - q * (unsigned)p); /* in [-p, p) */
    return r + (r < 0 ? p : 0);
}

/* x * 2^e, as ldexp: one exact product where 2^e is a normal number. */
__host__ __device__ static inline double gemm__ozaki_ldexp(double x, int e)
{
    if (e < -1022 || e > 1023) return ldexp(x, e);
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double pow2;
    memcpy(&pow2, &bits, sizeof pow2);
    return x * pow2;
}

/* The moduli table. count must be 2..GEMM__OZAKI_MAX_MODULI. */
static inline gemm__ozaki_moduli gemm__ozaki_moduli_of(int count)
{
    static const int all[GEMM__OZAKI_MAX_MODULI] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                                    223, 211, 199, 197, 193, 191, 181, 179, 173, 167};
    gemm__ozaki_moduli m;
    m.count = count;
    m.log2_m = 0.0;
    for (int l = 0; l < count; l++) {
        int prod = 1; /* p_0 ... p_(l-1) mod p_l */
        m.p[l] = all[l];
        m.p64[l] = (double)all[l];
        m.rcp64[l] = 1.0 / (double)all[l];
        m.magic[l] = (unsigned)((((uint64_t)1 << 32) + (uint64_t)all[l] - 1) / (uint64_t)all[l]);
        m.bias[l] = ((1 << 20) + all[l] - 1) / all[l] * all[l];
        m.log2_m += log2((double)all[l]);
        for (int j = 0; j < l; j++) prod = prod * all[j] % all[l];
        m.inv[l] = 1;
        for (int y = 1; y < all[l]; y++)
            if (prod * y % all[l] == 1) m.inv[l] = y;
        for (int j = 0; j < GEMM__OZAKI_MAX_MODULI; j++) {
            int r = 1;
            if (j < count)
                for (int i = 0; i < l; i++) r = r * all[i] % all[j];
            m.pre[l][j] = j < count ? r : 0;
        }
    }
    return m;
}

/* The bits of A's rows and B's columns for K terms: the largest with
   K 2^(bits_a + bits_b) <= M/4, each at most 53 (fp64's integers), split
   evenly. Returns false when fewer than 2 bits are left. */
static inline bool gemm__ozaki_bits(const gemm__ozaki_moduli *m, int64_t K, int *bits_a, int *bits_b)
{
    int total = (int)floor(m->log2_m - 2.0 - log2((double)(K > 0 ? K : 1)));
    if (total < 2) return false;
    *bits_a = total - total / 2 < 53 ? total - total / 2 : 53;
    *bits_b = total - *bits_a < 53 ? total - *bits_a : 53;
    return true;
}

/* The scale exponent of a row (column) whose largest magnitude has binary
   exponent e (ilogb; the row all zeros: any e, nothing to scale). */
__host__ __device__ static inline int gemm__ozaki_scale(int e, int bits)
{
    return bits - 1 - e;
}

/* x * 2^scale rounded to an integer, held in fp64 (exact: the row's scale
   keeps it within 2^53). */
__host__ __device__ static inline double gemm__ozaki_integral(double x, int scale)
{
    return rint(gemm__ozaki_ldexp(x, scale));
}

/* The low 32 bits of x's representation: for x = 1.5 * 2^52 + r with a
   small integer r, r itself (two's complement). */
__host__ __device__ static inline int gemm__ozaki_low_word(double x)
{
#ifdef __CUDA_ARCH__
    return __double2loint(x);
#else
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (int)(uint32_t)bits;
#endif
}

/* The symmetric residue of an integer v, |v| <= 2^53, held in fp64 (as
   gemm__ozaki_integral gives it), modulo moduli l: in [-p/2, p/2), which
   int8 holds. In fp64 without conversions: adding 1.5 * 2^52 rounds to an
   integer (the quotient, exact or one off), fma makes v - q p exact, and the same constant turns it into the low word;
   one step corrects the quotient's error. */
__host__ __device__ static inline int gemm__ozaki_residue(double v, const gemm__ozaki_moduli &m, int l)
{
    const double round = 6755399441055744.0; /* 1.5 * 2^52 */
    double q = (v * m.rcp64[l] + round) - round;
    int p = m.p[l], r = gemm__ozaki_low_word(fma(-q, m.p64[l], v) + round);
    return r + (r >= (p + 1) / 2 ? -p : r < -(p / 2) ? p : 0);
}

/* C' from its residues u[l] in [0, p_l) (Garner, symmetric digits; the
   running remainders r[j] stay below 2^20 in magnitude unreduced, and the
   bias keeps what is reduced positive), as fp64. CAP >= m.count: the
   loops run to CAP with every index known to the compiler, so that the
   digits and remainders live in registers. */
template <int CAP>
__host__ __device__ static inline double gemm__ozaki_reconstruct(const gemm__ozaki_moduli &m, const int *u)
{
    int r[CAP], v[CAP];
    double c = 0.0;
    GEMM__OZAKI_UNROLL
    for (int l = 0; l < CAP; l++) r[l] = v[l] = 0;
    GEMM__OZAKI_UNROLL
    for (int l = 0; l < CAP; l++) {
        if (l < m.count) {
            int p = m.p[l];
            /* (u - r + bias) inv < 2^21 2^8: one reduction */
            int d = gemm__ozaki_mod32((unsigned)(u[l] - r[l] + m.bias[l]) * (unsigned)m.inv[l], p, m.magic[l]);
            d -= 2 * d > p ? p : 0; /* symmetric: (-p/2, p/2] */
            v[l] = d;
            GEMM__OZAKI_UNROLL
            for (int j = l + 1; j < CAP; j++) r[j] += d * m.pre[l][j]; /* pre[l][j] = 0 past the count */
        }
    }
    GEMM__OZAKI_UNROLL
    for (int l = CAP - 1; l >= 0; l--)
        if (l < m.count) c = fma(c, m.p64[l], (double)v[l]); /* c = v_top first: c starts at 0 */
    return c;
}
