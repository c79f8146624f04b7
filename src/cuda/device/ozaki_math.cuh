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
        the symmetric range with C' = u_l mod p_l for every l. By the
        Chinese remainder theorem S = sum_l u_l w_l (w_l = (M/p_l) times
        its inverse mod p_l: 1 mod p_l, 0 mod the others) is C' mod M; it
        is summed exactly in fp64, in parts of 38 bits (w_l's parts times
        u_l < 2^8, twenty of them, stay below 2^51: one fma a part a
        modulus, no carries), S/M is within 1/4 of the integer q =
        round(S/M) (fp64 finds it from the parts), and C' = S - qM part
        by part, exactly; then the parts' carries, and C' in fp64 from the
        top part down (exact below 2^53, else a rounding a part) and C =
        C' 2^-(ea_i + eb_j). A modulus costs a few fma where Garner's
        mixed radix cost a reduction and one step for each modulus before
        it, and the fp64 parts where 32-bit limbs cost 64-bit integer
        products and carries (on an H200 at 8192^2 with 15 moduli: 0.85
        ms against 0.95).
   The moduli are the largest pairwise coprime numbers up to 256, in
   descending order: the first N are taken. */
#pragma once
#include <float.h> /* DBL_MAX */
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

/* Limbs of 32 bits that hold M for CAP moduli (each at most 2^8, so M <
   2^(8 CAP)), and for the most moduli. */
#define GEMM__OZAKI_LIMBS(CAP) (((CAP) + 3) / 4)
#define GEMM__OZAKI_MAX_LIMBS GEMM__OZAKI_LIMBS(GEMM__OZAKI_MAX_MODULI)
/* The reconstruction's fp64 parts of 38 bits that hold M for CAP moduli. */
#define GEMM__OZAKI_PART_BITS 38
#define GEMM__OZAKI_PARTS(CAP) ((8 * (CAP) + GEMM__OZAKI_PART_BITS - 1) / GEMM__OZAKI_PART_BITS)
#define GEMM__OZAKI_MAX_PARTS GEMM__OZAKI_PARTS(GEMM__OZAKI_MAX_MODULI)

/* The moduli and the reconstruction's constants for the first `count` of
   them; big integers as 32-bit limbs, the least significant first. */
typedef struct gemm__ozaki_moduli {
    int count;
    int p[GEMM__OZAKI_MAX_MODULI];
    double p64[GEMM__OZAKI_MAX_MODULI];   /* p_l in fp64 (no conversion in the kernels' loops) */
    double rcp64[GEMM__OZAKI_MAX_MODULI]; /* 1 / p_l */
    unsigned w[GEMM__OZAKI_MAX_MODULI][GEMM__OZAKI_MAX_LIMBS]; /* w_l = (M/p_l) ((M/p_l)^-1 mod p_l) < M; zero past
                                                                   the count */
    unsigned mod[GEMM__OZAKI_MAX_LIMBS]; /* M */
    double rcp_m;                        /* 1 / M */
    double log2_m;                       /* log2 of M */
    /* the same in fp64 parts of 38 bits (part j: bits 38j..38j+37), and 2^(38j) / M */
    double w_part[GEMM__OZAKI_MAX_MODULI][GEMM__OZAKI_MAX_PARTS];
    double mod_part[GEMM__OZAKI_MAX_PARTS];
    double rcp_part[GEMM__OZAKI_MAX_PARTS];
} gemm__ozaki_moduli;

/* Reduction modulo p of what an int8 product's part of K gives (|sum| <=
   2^16 * 128 * 128 = 2^30) with an earlier part's residue (< 2^8) added,
   in integer arithmetic (the int8 kernel's epilogue, where conversions to
   and from fp64 ran at a fraction of the integer rate): x + bias (a
   multiple of p of at least 2^30 + 2^9) is a 32-bit unsigned u, and the
   quotient u * ceil(2^32/p) / 2^32 overshoots u/p by less than u / 2^32 <
   1, so it is exact or one too many, and one step corrects it. */
#define GEMM__OZAKI_MOD_RANGE ((1 << 30) + (1 << 9)) /* |x| up to this */
typedef struct gemm__ozaki_divisor {
    int p;
    unsigned magic; /* ceil(2^32 / p) */
    unsigned bias;  /* the least multiple of p >= GEMM__OZAKI_MOD_RANGE */
} gemm__ozaki_divisor;

__host__ __device__ static inline gemm__ozaki_divisor gemm__ozaki_divisor_of(int p)
{
    gemm__ozaki_divisor d;
    d.p = p;
    d.magic = (unsigned)((((uint64_t)1 << 32) + (uint64_t)p - 1) / (uint64_t)p);
    d.bias = (unsigned)((GEMM__OZAKI_MOD_RANGE + p - 1) / p * p);
    return d;
}

/* x mod p in [0, p) for |x| <= GEMM__OZAKI_MOD_RANGE. */
__host__ __device__ static inline int gemm__ozaki_mod(int x, const gemm__ozaki_divisor &d)
{
    unsigned u = (unsigned)x + d.bias; /* in [0, 2^31 + 2^11): no wrap in the true value */
#ifdef __CUDA_ARCH__
    unsigned q = __umulhi(u, d.magic);
#else
    unsigned q = (unsigned)(((uint64_t)u * d.magic) >> 32);
#endif
    int r = (int)(u - q * (unsigned)d.p); /* in [-p, p) */
    return r + (r < 0 ? d.p : 0);
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

/* x = x * f for a big integer x of n limbs (no carry out of the top). */
static inline void gemm__ozaki_limbs_times(unsigned *x, int n, unsigned f)
{
    uint64_t carry = 0;
    for (int i = 0; i < n; i++) {
        uint64_t t = (uint64_t)x[i] * f + carry;
        x[i] = (unsigned)t;
        carry = t >> 32;
    }
}

/* Bits from..from+37 of a big integer of 32-bit limbs, as an fp64 (exact). */
static inline double gemm__ozaki_limbs_part(const unsigned *x, int n, int from)
{
    uint64_t v = 0;
    for (int b = GEMM__OZAKI_PART_BITS - 1; b >= 0; b--) {
        int bit = from + b;
        v = v << 1 | (bit / 32 < n ? (uint64_t)(x[bit / 32] >> (bit % 32) & 1u) : 0u);
    }
    return (double)v;
}

/* The moduli table. count must be 2..GEMM__OZAKI_MAX_MODULI. */
static inline gemm__ozaki_moduli gemm__ozaki_moduli_of(int count)
{
    static const int all[GEMM__OZAKI_MAX_MODULI] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                                    223, 211, 199, 197, 193, 191, 181, 179, 173, 167};
    gemm__ozaki_moduli m;
    double md = 0.0;
    memset(&m, 0, sizeof m);
    m.count = count;
    m.mod[0] = 1;
    for (int l = 0; l < count; l++) {
        m.p[l] = all[l];
        m.p64[l] = (double)all[l];
        m.rcp64[l] = 1.0 / (double)all[l];
        m.log2_m += log2((double)all[l]);
        gemm__ozaki_limbs_times(m.mod, GEMM__OZAKI_MAX_LIMBS, (unsigned)all[l]);
    }
    for (int l = 0; l < count; l++) {
        int rest = 1, inv = 1; /* M/p_l mod p_l, and its inverse */
        m.w[l][0] = 1;
        for (int j = 0; j < count; j++)
            if (j != l) {
                gemm__ozaki_limbs_times(m.w[l], GEMM__OZAKI_MAX_LIMBS, (unsigned)all[j]);
                rest = rest * all[j] % all[l];
            }
        for (int y = 1; y < all[l]; y++)
            if (rest * y % all[l] == 1) inv = y;
        gemm__ozaki_limbs_times(m.w[l], GEMM__OZAKI_MAX_LIMBS, (unsigned)inv); /* below (M/p_l) p_l = M */
    }
    for (int i = GEMM__OZAKI_MAX_LIMBS - 1; i >= 0; i--) md = md * 4294967296.0 + (double)m.mod[i];
    m.rcp_m = 1.0 / md;
    for (int j = 0; j < GEMM__OZAKI_MAX_PARTS; j++) {
        for (int l = 0; l < count; l++)
            m.w_part[l][j] = gemm__ozaki_limbs_part(m.w[l], GEMM__OZAKI_MAX_LIMBS, GEMM__OZAKI_PART_BITS * j);
        m.mod_part[j] = gemm__ozaki_limbs_part(m.mod, GEMM__OZAKI_MAX_LIMBS, GEMM__OZAKI_PART_BITS * j);
        m.rcp_part[j] = ldexp(m.rcp_m, GEMM__OZAKI_PART_BITS * j);
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

/* The bits a line (a row of op(A), a column of op(B)) needs for AUTO's
   accuracy, in 1/256 of a bit (GEMM__OZAKI_NEED_UNIT): each of its nnz
   nonzero entries rounds to the line's fixed point with an error of up
   to 2^-bits of its largest magnitude `max`; such errors add up like a
   random walk (sqrt(nnz) of them) against the line's magnitude sum `sum`
   (= sum |x|), and AUTO wants that ratio at most 2^-target:
       bits >= log2(max sqrt(nnz) / sum) + target.
   A sum that overflowed counts as max (max <= sum: the most it can need).
   Not a bound: the bound, which holds whatever the bits, is in
   gemm_cuda.cuh's doc block; this is the rule AUTO picks moduli by. */
#define GEMM__OZAKI_NEED_UNIT 256
__host__ __device__ static inline int gemm__ozaki_need(double max, double sum, int nnz, int target)
{
    if (nnz <= 0 || !(max > 0.0)) return 0;
    double ratio = sum <= DBL_MAX ? max / sum : 1.0;
    return (int)ceil((log2(ratio) + 0.5 * log2((double)nnz) + target) * GEMM__OZAKI_NEED_UNIT);
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

/* A small nonnegative int (below 2^31) as an fp64, on the device without
   a conversion instruction (those issue at a fraction of the fp64 rate):
   2^52 + u has u in its low word. */
__host__ __device__ static inline double gemm__ozaki_small_double(int u)
{
#ifdef __CUDA_ARCH__
    return __hiloint2double(0x43300000, u) - 4503599627370496.0;
#else
    return (double)u;
#endif
}

/* C' from its residues u[l] in [0, p_l) (u[l] = 0 past the count), as
   fp64, in parts of 38 bits (the doc block's step 4): S_j = sum u_l
   w_l,j, each exact (below 20 * 2^8 * 2^38 < 2^51); q = round(S/M) =
   round(sum S_j 2^(38j)/M) (their roundings move S/M < 2^13 by far less
   than the 1/4 that separates it from q); T_j = S_j - q M_j, exact by fma
   (|q M_j| < 2^13 2^38); the carries make T_j, j below the top, lie in
   [0, 2^38) (each floor and fma exact, the top part signed); then C' =
   sum T_j 2^(38j) from the top part down, one fma a part (exact while
   the partial value is below 2^53, as all of it is when |C'| is).
   CAP >= m.count: every index known to the compiler, so that the parts
   live in registers. */
template <int CAP>
__host__ __device__ static inline double gemm__ozaki_reconstruct(const gemm__ozaki_moduli &m, const int *u)
{
    constexpr int J = GEMM__OZAKI_PARTS(CAP);
    const double part = 274877906944.0, inv_part = 1.0 / 274877906944.0; /* 2^38, 2^-38 */
    double t[J], ud[CAP], qd = 0.0, c;
    GEMM__OZAKI_UNROLL
    for (int l = 0; l < CAP; l++) ud[l] = gemm__ozaki_small_double(u[l]);
    GEMM__OZAKI_UNROLL
    for (int j = 0; j < J; j++) {
        double sj = 0.0;
        GEMM__OZAKI_UNROLL
        for (int l = 0; l < CAP; l++) sj = fma(ud[l], m.w_part[l][j], sj);
        t[j] = sj;
        qd = fma(sj, m.rcp_part[j], qd);
    }
    double q = rint(qd);
    GEMM__OZAKI_UNROLL
    for (int j = 0; j < J; j++) t[j] = fma(-q, m.mod_part[j], t[j]);
    GEMM__OZAKI_UNROLL
    for (int j = 0; j + 1 < J; j++) {
        double carry = floor(t[j] * inv_part);
        t[j] = fma(-carry, part, t[j]);
        t[j + 1] += carry;
    }
    c = t[J - 1];
    GEMM__OZAKI_UNROLL
    for (int j = J - 2; j >= 0; j--) c = fma(c, part, t[j]);
    return c;
}
