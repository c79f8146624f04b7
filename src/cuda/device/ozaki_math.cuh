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
    float rcp[GEMM__OZAKI_MAX_MODULI];      /* 1 / p_l */
    double rcp64[GEMM__OZAKI_MAX_MODULI];   /* 1 / p_l */
    unsigned char pre[GEMM__OZAKI_MAX_MODULI][GEMM__OZAKI_MAX_MODULI]; /* pre[l][j] = (p_0 ... p_(l-1)) mod p_j */
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

/* The same for |x| < 2^22, in fp32 (rcp = 1/p): x is exact and the
   quotient's error below one. */
__host__ __device__ static inline int gemm__ozaki_mod_small(int x, int p, float rcp)
{
    int q = (int)floorf((float)x * rcp), r = x - q * p;
    return r + (r < 0 ? p : r >= p ? -p : 0);
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
        m.rcp[l] = 1.0f / (float)all[l];
        m.rcp64[l] = 1.0 / (double)all[l];
        m.log2_m += log2((double)all[l]);
        for (int j = 0; j < l; j++) prod = prod * all[j] % all[l];
        m.inv[l] = 1;
        for (int y = 1; y < all[l]; y++)
            if (prod * y % all[l] == 1) m.inv[l] = y;
        for (int j = 0; j < GEMM__OZAKI_MAX_MODULI; j++) {
            int r = 1;
            if (j < count)
                for (int i = 0; i < l; i++) r = r * all[i] % all[j];
            m.pre[l][j] = (unsigned char)(j < count ? r : 0);
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

/* x * 2^scale rounded to an integer (exact in fp64 when the row's scale
   keeps it below 2^53). */
__host__ __device__ static inline double gemm__ozaki_integer(double x, int scale)
{
    return rint(ldexp(x, scale));
}

/* The symmetric residue of an integer-valued |v| <= 2^53 modulo p <= 256
   (rcp = 1/p in fp64): in [-p/2, p/2), which int8 holds. fma makes
   v - q p exact. */
__host__ __device__ static inline int gemm__ozaki_residue(double v, int p, double rcp)
{
    double q = rint(v * rcp);
    int r = (int)fma(-q, (double)p, v);
    r += r >= (p + 1) / 2 ? -p : r < -(p / 2) ? p : 0;
    return r;
}

/* C' from its residues u[l] in [0, p_l) (Garner, symmetric digits; the
   running remainders r[j] stay below 2^20 unreduced), as fp64. The loops
   run to the largest count with every index known to the compiler, so
   that the digits and remainders live in registers. */
__host__ __device__ static inline double gemm__ozaki_reconstruct(const gemm__ozaki_moduli &m, const int *u)
{
    constexpr int MAX = GEMM__OZAKI_MAX_MODULI;
    int r[MAX], v[MAX];
    double c = 0.0;
GEMM__OZAKI_UNROLL
    for (int l = 0; l < MAX; l++) r[l] = v[l] = 0;
GEMM__OZAKI_UNROLL
    for (int l = 0; l < MAX; l++) {
        if (l < m.count) {
            int p = m.p[l], d = gemm__ozaki_mod_small(gemm__ozaki_mod_small(u[l] - r[l], p, m.rcp[l]) * m.inv[l], p, m.rcp[l]);
            d -= 2 * d > p ? p : 0; /* symmetric: (-p/2, p/2] */
            v[l] = d;
GEMM__OZAKI_UNROLL
            for (int j = l + 1; j < MAX; j++) r[j] += d * (int)m.pre[l][j]; /* pre[l][j] = 0 past the count */
        }
    }
GEMM__OZAKI_UNROLL
    for (int l = MAX - 1; l >= 0; l--)
        if (l < m.count) c = fma(c, (double)m.p[l], (double)v[l]); /* c = v_top first: c starts at 0 */
    return c;
}
