/* The micro-kernels: one signature for every ISA and both precisions, so
   the driver that calls them is written once.

   void kernel(k, a, as, b, bp, bj, alpha, beta, c, ldc):
       C[0:MR, 0:NR] = alpha * A * B + beta * C   (beta == 0: C is not read)
   A is MR x k, column p at a + p*as (as = MR when packed, the column stride
   when read in place); element (p, j) of B is at b[p*bp + j*bj]: the packed
   variant ignores bp, bj and reads (NR, 1), the strided variant reads them
   (a panel stored column by column, or B in place); C is column-major with
   leading dimension ldc. The tile is always full. Strides count elements of
   the kernel's precision; alpha and beta come as double (exact for a
   float) and are turned back into the kernel's type before any arithmetic.

   void pack_a(kc, s, ps, nx, d): packs the nx rows (a multiple of MR) of a
   block of A whose columns are contiguous (column p at s + p*ps) into
   MR x kc panels with vector moves, walking each source column once (long
   runs for the hardware prefetcher: such a block often streams from memory). */
typedef void (*gemm__cpu_ukernel_fn)(int64_t k, const void *a, int64_t as, const void *b, int64_t bp, int64_t bj,
                                     double alpha, double beta, void *c, int64_t ldc);
typedef void (*gemm__cpu_pack_a_fn)(int64_t kc, const void *s, int64_t ps, int64_t nx, void *d);

/* One template, instantiated per ISA and precision from a table P of
   vector operations (P##_T element, P##_V vector of P##_VL elements, LOAD,
   STORE, SET1, FMA(a, b, c) = a*b + c, MUL, ADD, ZERO): MR = 2 vectors,
   NR = the count of the REP macro. The accumulators are named variables,
   not an array, so they stay in registers at any optimisation level. */

#define GEMM__CPU_REP6(X, P) X(0, P) X(1, P) X(2, P) X(3, P) X(4, P) X(5, P)
#define GEMM__CPU_REP8(X, P) GEMM__CPU_REP6(X, P) X(6, P) X(7, P)
#define GEMM__CPU_REP12(X, P) GEMM__CPU_REP8(X, P) X(8, P) X(9, P) X(10, P) X(11, P)

#define GEMM__CPU_UK_DECL(j, P) P##_V c0_##j = P##_ZERO(), c1_##j = P##_ZERO();
#define GEMM__CPU_UK_STEP(j, P)                                                                    \
    {                                                                                              \
        P##_V bv = P##_SET1(b[(j) * bjs]);                                                         \
        c0_##j = P##_FMA(a0, bv, c0_##j);                                                          \
        c1_##j = P##_FMA(a1, bv, c1_##j);                                                          \
    }
#define GEMM__CPU_UK_PUT0(j, P)                                                                    \
    P##_STORE(c + (j) * ldc, P##_MUL(c0_##j, va));                                                 \
    P##_STORE(c + (j) * ldc + P##_VL, P##_MUL(c1_##j, va));
/* beta*C + alpha*sum with one FMA, beta == 1 included (1*c + x rounds
   once, as c + x does): the product alpha*sum only ever feeds an FMA, so
   no compiler contracts it into one (g++ and -std=gnu* would contract an
   add, by heuristics), and the bits do not depend on the language mode. */
#define GEMM__CPU_UK_PUTB(j, P)                                                                    \
    P##_STORE(c + (j) * ldc, P##_FMA(vb, P##_LOAD(c + (j) * ldc), P##_MUL(c0_##j, va)));           \
    P##_STORE(c + (j) * ldc + P##_VL, P##_FMA(vb, P##_LOAD(c + (j) * ldc + P##_VL), P##_MUL(c1_##j, va)));

/* BP, BJ: the B strides the body uses; constants (NR, 1) for the packed
   variant, the arguments bp, bj for the strided one. */
#define GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, BP, BJ)                                              \
    static ATTR void NAME(int64_t k, const void *a_in, int64_t as, const void *b_in, int64_t bp,    \
                          int64_t bj, double alpha_in, double beta_in, void *c_in, int64_t ldc)     \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT a = (const P##_T *)a_in;                                       \
        const P##_T *GEMM__RESTRICT b = (const P##_T *)b_in;                                       \
        P##_T *GEMM__RESTRICT c = (P##_T *)c_in;                                                   \
        const P##_T alpha = (P##_T)alpha_in, beta = (P##_T)beta_in;                                \
        int64_t p;                                                                                 \
        const int64_t bjs = BJ; /* read by GEMM__CPU_UK_STEP */                                    \
        REP(GEMM__CPU_UK_DECL, P)                                                                  \
        (void)bp;                                                                                  \
        (void)bj;                                                                                  \
        for (p = 0; p < k; p++) {                                                                  \
            P##_V a0 = P##_LOAD(a), a1 = P##_LOAD(a + P##_VL);                                     \
            REP(GEMM__CPU_UK_STEP, P)                                                              \
            a += as;                                                                               \
            b += BP;                                                                               \
        }                                                                                          \
        {                                                                                          \
            P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                       \
            if (beta == 0) { REP(GEMM__CPU_UK_PUT0, P) }                                           \
            else { REP(GEMM__CPU_UK_PUTB, P) }                                                     \
        }                                                                                          \
    }

/* Both variants of one kernel (NAME reads packed B, NAME_strided reads B
   through strides) and its A packer NAME_pack. */
#define GEMM__CPU_UKERNELS(NAME, ATTR, P, REP, NR)                                                 \
    GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, NR, 1)                                                   \
    GEMM__CPU_UKERNEL(NAME##_strided, ATTR, P, REP, bp, bj)                                        \
    static ATTR void NAME##_pack(int64_t kc, const void *s_in, int64_t ps, int64_t nx, void *d_in) \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT s = (const P##_T *)s_in;                                       \
        P##_T *GEMM__RESTRICT d = (P##_T *)d_in;                                                   \
        int64_t p, x0;                                                                             \
        for (p = 0; p < kc; p++, s += ps, d += 2 * P##_VL)                                         \
            for (x0 = 0; x0 < nx; x0 += 2 * P##_VL) {                                              \
                P##_STORE(d + x0 * kc, P##_LOAD(s + x0));                                          \
                P##_STORE(d + x0 * kc + P##_VL, P##_LOAD(s + x0 + P##_VL));                        \
            }                                                                                      \
    }
