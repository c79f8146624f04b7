/* Tiny members of a batch (up to GEMM__CPU_TINY flops): no packing, no
   edge tiles. A kernel computes mw <= VL rows (one vector, masked) by nw
   <= 8 columns of C in place: A's columns read with masked loads, B's
   elements broadcast through its strides, C's columns loaded and stored
   with masks. Per element it does what the micro-kernels do (sums in k
   order from zero with FMAs, one per KC block, then alpha*sum, then
   + C or beta*C + ... in the same instructions), so a member's bits are the
   single call's. Only x86 has the masks: elsewhere tiny members take the
   packed path. */
/* Measured on AVX-512 (1 thread, members of n^3): n = 8..28 take 0.3 to
   0.65 of the packed path's time; at n = 32 the packed path, which then
   has no edge tiles and reads A and B in place, is faster. */
#define GEMM__CPU_TINY (2.0 * 28.0 * 28.0 * 28.0)

/* C[0:mw, 0:nw] = alpha*A*B + beta*C; A is mw x k, column p at a + p*as;
   B's element (p, j) at b[p*bp + j*bj]; C column-major with ldc. */
typedef void (*gemm__cpu_tiny_fn)(int64_t k, const void *a, int64_t as, const void *b, int64_t bp, int64_t bj,
                                  double alpha, double beta, void *c, int64_t ldc, int mw);

#define GEMM__CPU_TREP1(X, P) X(0, P)
#define GEMM__CPU_TREP2(X, P) GEMM__CPU_TREP1(X, P) X(1, P)
#define GEMM__CPU_TREP3(X, P) GEMM__CPU_TREP2(X, P) X(2, P)
#define GEMM__CPU_TREP4(X, P) GEMM__CPU_TREP3(X, P) X(3, P)
#define GEMM__CPU_TREP5(X, P) GEMM__CPU_TREP4(X, P) X(4, P)
#define GEMM__CPU_TREP6(X, P) GEMM__CPU_TREP5(X, P) X(5, P)
#define GEMM__CPU_TREP7(X, P) GEMM__CPU_TREP6(X, P) X(6, P)
#define GEMM__CPU_TREP8(X, P) GEMM__CPU_TREP7(X, P) X(7, P)

#define GEMM__CPU_TK_DECL(j, P) P##_V c_##j = P##_ZERO();
#define GEMM__CPU_TK_STEP(j, P) c_##j = P##_FMA(av, P##_SET1(bk[(j) * bj]), c_##j);
/* The micro-kernels' epilogue: alpha*sum, plus beta*C by one FMA unless
   beta == 0. */
#define GEMM__CPU_TK_PUT0(j, P) P##_MSTORE(c + (j) * ldc, mask, P##_MUL(c_##j, va));
#define GEMM__CPU_TK_PUTB(j, P)                                                                    \
    P##_MSTORE(c + (j) * ldc, mask, P##_FMA(vb, P##_MLOAD(c + (j) * ldc, mask), P##_MUL(c_##j, va)));

/* One kernel for nw = N columns; P is a vector table of ukernel_x86.h
   with P##_MASK(mw), P##_MLOAD(p, mask), P##_MSTORE(p, mask, v) added. */
#define GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, N)                                                    \
    static ATTR void NAME##_##N(int64_t k, const void *a_in, int64_t as, const void *b_in, int64_t bp, \
                                int64_t bj, double alpha_in, double beta_in, void *c_in, int64_t ldc, int mw) \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT a = (const P##_T *)a_in;                                       \
        const P##_T *GEMM__RESTRICT bk = (const P##_T *)b_in;                                      \
        P##_T *GEMM__RESTRICT c = (P##_T *)c_in;                                                   \
        const P##_T alpha = (P##_T)alpha_in, beta = (P##_T)beta_in;                                \
        P##_MASK_T mask = P##_MASK(mw);                                                            \
        int64_t p;                                                                                 \
        GEMM__CPU_TREP##N(GEMM__CPU_TK_DECL, P)                                                    \
        for (p = 0; p < k; p++, a += as, bk += bp) {                                               \
            P##_V av = P##_MLOAD(a, mask);                                                         \
            GEMM__CPU_TREP##N(GEMM__CPU_TK_STEP, P)                                                \
        }                                                                                          \
        {                                                                                          \
            P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                       \
            if (beta == 0) { GEMM__CPU_TREP##N(GEMM__CPU_TK_PUT0, P) }                             \
            else { GEMM__CPU_TREP##N(GEMM__CPU_TK_PUTB, P) }                                       \
        }                                                                                          \
    }

/* The kernels for nw = 1..8 and their table NAME[nw - 1]. */
#define GEMM__CPU_TINY_KERNELS(NAME, ATTR, P)                                                      \
    GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 1) GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 2)                \
    GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 3) GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 4)                \
    GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 5) GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 6)                \
    GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 7) GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 8)                \
    static const gemm__cpu_tiny_fn NAME[8] = {NAME##_1, NAME##_2, NAME##_3, NAME##_4,              \
                                              NAME##_5, NAME##_6, NAME##_7, NAME##_8};

/* One instruction set's tiny kernels: the rows a kernel takes (VL), per precision. */
typedef struct gemm__cpu_tiny_set {
    const char *isa; /* the name in gemm__cpu_isas */
    int vl_s, vl_d;
    const gemm__cpu_tiny_fn *s, *d;
} gemm__cpu_tiny_set;

#if defined(GEMM__CPU_X86)
#define GEMM__CPU_Z_S_MASK_T __mmask16
#define GEMM__CPU_Z_S_MASK(mw) ((__mmask16)((1u << (mw)) - 1u))
#define GEMM__CPU_Z_S_MLOAD(p, mask) _mm512_maskz_loadu_ps(mask, p)
#define GEMM__CPU_Z_S_MSTORE(p, mask, v) _mm512_mask_storeu_ps(p, mask, v)
#define GEMM__CPU_Z_D_MASK_T __mmask8
#define GEMM__CPU_Z_D_MASK(mw) ((__mmask8)((1u << (mw)) - 1u))
#define GEMM__CPU_Z_D_MLOAD(p, mask) _mm512_maskz_loadu_pd(mask, p)
#define GEMM__CPU_Z_D_MSTORE(p, mask, v) _mm512_mask_storeu_pd(p, mask, v)
#define GEMM__CPU_Y_S_MASK_T __m256i
#define GEMM__CPU_Y_S_MASK(mw) _mm256_cmpgt_epi32(_mm256_set1_epi32(mw), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define GEMM__CPU_Y_S_MLOAD(p, mask) _mm256_maskload_ps(p, mask)
#define GEMM__CPU_Y_S_MSTORE(p, mask, v) _mm256_maskstore_ps(p, mask, v)
#define GEMM__CPU_Y_D_MASK_T __m256i
#define GEMM__CPU_Y_D_MASK(mw) _mm256_cmpgt_epi64(_mm256_set1_epi64x(mw), _mm256_setr_epi64x(0, 1, 2, 3))
#define GEMM__CPU_Y_D_MLOAD(p, mask) _mm256_maskload_pd(p, mask)
#define GEMM__CPU_Y_D_MSTORE(p, mask, v) _mm256_maskstore_pd(p, mask, v)
GEMM__CPU_TINY_KERNELS(gemm__cpu_tiny_avx512_s, GEMM__CPU_AVX512, GEMM__CPU_Z_S)
GEMM__CPU_TINY_KERNELS(gemm__cpu_tiny_avx512_d, GEMM__CPU_AVX512, GEMM__CPU_Z_D)
GEMM__CPU_TINY_KERNELS(gemm__cpu_tiny_avx2_s, GEMM__CPU_AVX2, GEMM__CPU_Y_S)
GEMM__CPU_TINY_KERNELS(gemm__cpu_tiny_avx2_d, GEMM__CPU_AVX2, GEMM__CPU_Y_D)
static const gemm__cpu_tiny_set gemm__cpu_tiny_sets[] = {
    {"avx512", 16, 8, gemm__cpu_tiny_avx512_s, gemm__cpu_tiny_avx512_d},
    {"avx2", 8, 4, gemm__cpu_tiny_avx2_s, gemm__cpu_tiny_avx2_d},
};
#define GEMM__CPU_NTINY 2
#else
static const gemm__cpu_tiny_set gemm__cpu_tiny_sets[1] = {{"", 0, 0, NULL, NULL}};
#define GEMM__CPU_NTINY 0
#endif
