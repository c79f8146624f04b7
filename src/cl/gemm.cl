/* gemm_cl kernels: pack, direct, small (batches), tiled, the complex
   products' operands, and the verified products' sums. The host prepends
   a parameter set as #defines; each #ifndef below is the value used when
   one is left out, so this file also compiles on its own (tests/test_cl.sh
   checks it with clang).
   Helper functions carry INLINE: they must be inlined before the compiler
   unrolls their loops and keeps the sums in registers (PoCL inlines only
   later, and ran them at half speed). Not C99's `inline`, whose rules for
   functions that are not static differ between OpenCL drivers. */
#ifndef PRECISION
#define PRECISION 32 /* 32 or 64 */
#endif
#ifndef MWG
#define MWG 8 /* rows of C per work-group */
#endif
#ifndef NWG
#define NWG 8 /* columns of C per work-group */
#endif
#ifndef KWG
#define KWG 1 /* k-depth of one step (of one local-memory tile) */
#endif
#ifndef MDIMC
#define MDIMC 8 /* work-items along M */
#endif
#ifndef NDIMC
#define NDIMC 8 /* work-items along N */
#endif
#ifndef VWM
#define VWM 1 /* vector width of loads along M */
#endif
#ifndef VWN
#define VWN 1 /* vector width of loads and stores along N */
#endif
#ifndef SA
#define SA 0 /* 1: stage the A tile in local memory */
#endif
#ifndef SB
#define SB 0 /* 1: stage the B tile in local memory */
#endif
#ifndef DB
#define DB 0 /* 1: two local-memory tiles, so one barrier per k-step */
#endif
#ifndef PACK
#define PACK 0 /* packed operands: 0 = k-major rows, 1 = one contiguous panel per tile */
#endif
#ifndef WARPM
#define WARPM 0 /* >0: each 32 consecutive work-items (a warp) are WARPM along M x 32/WARPM along N */
#endif

#ifndef INLINE
#define INLINE __attribute__((always_inline))
#endif

#define MWI (MWG / MDIMC) /* rows of C per work-item */
#define NWI (NWG / NDIMC) /* columns of C per work-item */
#define WGS (MDIMC * NDIMC) /* work-items per work-group */
/* vectors of the A and B tiles each work-item moves to local memory */
#define LA ((KWG * MWG / VWM + WGS - 1) / WGS)
#define LB ((KWG * NWG / VWN + WGS - 1) / WGS)

#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#ifndef GEMM_CL_REAL
#define GEMM_CL_REAL double
#endif
#else
#ifndef GEMM_CL_REAL
#define GEMM_CL_REAL float
#endif
#endif
typedef GEMM_CL_REAL real;

#define GLUE_(a, b) a##b
#define GLUE(a, b) GLUE_(a, b)
/* Element e of a vector of width 1..16 by component selects, not through
   its address: a vector whose address is taken may live in slow private
   memory on GPUs. With e known after unrolling the selects fold away. */
#define GET1(v, e) (v)
#define GET2(v, e) ((e) == 0 ? (v).s0 : (v).s1)
#define GET4(v, e) ((e) < 2 ? GET2((v).lo, (e)) : GET2((v).hi, (e) - 2))
#define GET8(v, e) ((e) < 4 ? GET4((v).lo, (e)) : GET4((v).hi, (e) - 4))
#define GET16(v, e) ((e) < 8 ? GET8((v).lo, (e)) : GET8((v).hi, (e) - 8))
#define ELEMM(v, e) GLUE(GET, VWM)(v, e)
#define ELEMN(v, e) GLUE(GET, VWN)(v, e)
#if VWM == 1
typedef real realM;
#else
typedef GLUE(GEMM_CL_REAL, VWM) realM;
#endif
#if VWN == 1
typedef real realN;
#else
typedef GLUE(GEMM_CL_REAL, VWN) realN;
#endif
/* Vectors of the packed operands and the local tiles: aligned to their
   size (the pack kernel lays every tile row out on a multiple of VWM, VWN
   elements, and buffers start aligned), so one wide load or store each: a
   vloadN may only assume its element's alignment and is split into
   scalar loads by some compilers. C, the caller's, takes vload / vstore. */
#define TILEM(space, p) (*(space realM *)(p))
#define TILEN(space, p) (*(space realN *)(p))
#if VWN == 1
#define LOADC(p) (*(p))
#define STOREC(x, p) (*(p) = (x))
#else
#define LOADC(p) GLUE(vload, VWN)(0, p)
#define STOREC(x, p) GLUE(vstore, VWN)(x, 0, p)
#endif

/* The distance between two k rows of a packed operand: the tile width in a
   panel (PACK 1), the padded width otherwise, where KWG * Mp can pass 2^31. */
#if PACK
typedef int stride;
#else
typedef long stride;
#endif
/* Where the tiled kernel reads its tiles: local memory or the packed operands. */
#if SA
#define A_SPACE __local
#else
#define A_SPACE __global
#endif
#if SB
#define B_SPACE __local
#else
#define B_SPACE __global
#endif

/* Batches: the third NDRange dimension runs over the members (a single
   call is a batch of one), z = get_global_id(2), member first + z. Member b
   of an operand starts at off + b*stride elements, or at off + list[b] when
   the host passes a list of offsets (pointer-array batches). */
INLINE long member_at(const long off, const long stride, const __global long *list, const long b)
{
    return off + (list ? list[b] : b * stride);
}

/* Copies op(X), R x K with element (r, p) at X[r*rs + p*ps] (X: member
   first + z), into the packed, zero-padded Rp x Kp form the tiled kernel
   reads (member z of P, Rp*Kp apart): element (r, p) at P[p*Rp + r] (PACK 0)
   or, panel by panel of `tile` rows, P[(r/tile)*Kp*tile + p*tile + r%tile]
   (PACK 1). One kernel serves A and B, every layout and transpose: they are
   only strides. */
__kernel void gemm_cl_pack(const int R, const int K, const int Rp, const int Kp, const int tile,
                           const __global real *X, const long offx, const long xs, const __global long *xl,
                           const long first, const long rs, const long ps, __global real *P)
{
    const int r = (int)get_global_id(0), p = (int)get_global_id(1);
    const long z = (long)get_global_id(2);
    if (r >= Rp || p >= Kp) return;
    X += member_at(offx, xs, xl, first + z);
    P += z * Rp * Kp;
    const real v = r < R && p < K ? X[r * rs + p * ps] : (real)0;
#if PACK
    P[(long)(r / tile) * Kp * tile + (long)p * tile + r % tile] = v;
#else
    (void)tile;
    P[(long)p * Rp + r] = v;
#endif
}

/* The same copy for CPUs, where one element per work-item (with a division
   each) ran at a gigabyte per second: a work-item moves a block of `tile`
   rows by KWG k rows of the packed form, loops a compiler vectorises. */
__kernel void gemm_cl_pack_rows(const int R, const int K, const int Rp, const int Kp, const int tile,
                                const __global real *X, const long offx, const long xs, const __global long *xl,
                                const long first, const long rs, const long ps, __global real *P)
{
    const int g = (int)get_global_id(0), p0 = (int)get_global_id(1) * KWG;
    const long z = (long)get_global_id(2);
    if (g * tile >= Rp || p0 >= Kp) return;
    const int rows = min(tile, R - g * tile);
    const __global real *src = X + member_at(offx, xs, xl, first + z) + (long)g * tile * rs;
    P += z * Rp * Kp;
    for (int p = p0; p < p0 + KWG; p++) {
#if PACK
        __global real *dst = P + (long)g * Kp * tile + (long)p * tile;
#else
        __global real *dst = P + (long)p * Rp + g * tile;
#endif
        if (p < K) {
            for (int e = 0; e < rows; e++) dst[e] = src[e * rs + p * ps];
            for (int e = max(rows, 0); e < tile; e++) dst[e] = (real)0;
        } else {
            for (int e = 0; e < tile; e++) dst[e] = (real)0;
        }
    }
}

/* Writes alpha*ab + beta*c into *c; beta == 0 never reads C. */
INLINE void store_one(__global real *c, const real ab, const real alpha, const real beta)
{
    *c = beta != (real)0 ? alpha * ab + beta * *c : alpha * ab;
}

/* Small problems: one work-item per element of C, reading A and B where they
   are, no copies. Row-major C (the host hands over the transposed problem of
   its column-major form). K == 0 with alpha == 0 is how the host scales C by
   beta. Member first + z of a batch, as the pack kernels. */
__kernel void gemm_cl_direct(const int M, const int N, const int K, const real alpha, const real beta,
                             const __global real *A, const long offa, const long as, const __global long *al,
                             const long ars, const long acs,
                             const __global real *B, const long offb, const long bs, const __global long *bl,
                             const long brs, const long bcs,
                             __global real *C, const long offc, const long cs, const __global long *cl,
                             const long ldc, const long first)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    const long member = first + (long)get_global_id(2);
    if (i >= M || j >= N) return;
    const __global real *a = A + member_at(offa, as, al, member) + i * ars;
    const __global real *b = B + member_at(offb, bs, bl, member) + j * bcs;
    real sum = (real)0;
    for (int p = 0; p < K; p++) sum = fma(a[p * acs], b[p * brs], sum);
    store_one(C + member_at(offc, cs, cl, member) + i * ldc + j, sum, alpha, beta);
}

/* Small members of a batch (a 64^3 member fills a quarter of a 128 x 128
   tile of the tiled kernel, and its packs are a second pass over A and B):
   tiles of T x T of C (T = 32 or 64) read in place from A and B through
   local memory, no packing, the next k-step's loads in flight while this
   one is multiplied; DIM x DIM work-items (8 x 8 or 16 x 16), each
   with a SMALL_W x SMALL_W block of C: rows tm*W.., columns tn*W.., read
   from the local tiles as W-vectors (the work-items of a warp read
   consecutive B vectors and a few broadcast A vectors: no bank conflicts).
   Every element is summed in the direct kernel's order, one fma per k, and
   stored as it does: the members are bitwise the direct kernel's. */
#define SMALL_KT 16 /* k-depth of one local-memory step */
#define SMALL_W 4   /* rows and columns of C per work-item */
typedef GLUE(GEMM_CL_REAL, 4) realW;

/* Element l of this work-item's share of a T x SMALL_KT block of op(X)
   (element (r, q) at X[r*rs + q*ps]): consecutive work-items take
   consecutive addresses, along q where ps == 1 (then 16 of them share a
   row), along r otherwise. */
#define SMALL_R(x) (ps == 1 ? (x) / SMALL_KT : (x) % T)
#define SMALL_Q(x) (ps == 1 ? (x) % SMALL_KT : (x) / T)
#define SMALL_MAXL 8 /* elements of a block per work-item: T * SMALL_KT / WG, 4 or 8 */

/* This work-item's share of the block at rows r0.., ks q0.., into
   registers (zeros outside R x K): the next block's loads are issued
   before this one is multiplied. */
static INLINE void small_fetch(real v[SMALL_MAXL], const __global real *X, const long rs, const long ps,
                               const int R, const int K, const int r0, const int q0, const int T, const int WG,
                               const int tid)
{
#pragma unroll
    for (int l = 0; l < T * SMALL_KT / WG; l++) {
        const int gr = r0 + SMALL_R(tid + l * WG), gq = q0 + SMALL_Q(tid + l * WG);
        v[l] = gr < R && gq < K ? X[gr * rs + gq * ps] : (real)0;
    }
}

/* ...and from the registers into the local tile, element (r, q) at
   t[q*(T + SMALL_W) + r]: rows padded by a vector, which keeps them aligned
   for the vector reads. */
static INLINE void small_stash(__local real *t, const real v[SMALL_MAXL], const long ps, const int T, const int WG,
                               const int tid)
{
#pragma unroll
    for (int l = 0; l < T * SMALL_KT / WG; l++)
        t[SMALL_Q(tid + l * WG) * (T + SMALL_W) + SMALL_R(tid + l * WG)] = v[l];
}

/* acc[u] (row u of this work-item's block) += its A rows times its B
   columns for k row kk of the local tiles. */
#define SMALL_FMA(kk)                                                                                                \
    do {                                                                                                             \
        const realW a_ = *(const __local realW *)(at + (kk) * (T + SMALL_W) + tm * SMALL_W);                          \
        const realW b_ = *(const __local realW *)(bt + (kk) * (T + SMALL_W) + tn * SMALL_W);                          \
        acc[0] = fma((realW)a_.s0, b_, acc[0]);                                                                      \
        acc[1] = fma((realW)a_.s1, b_, acc[1]);                                                                      \
        acc[2] = fma((realW)a_.s2, b_, acc[2]);                                                                      \
        acc[3] = fma((realW)a_.s3, b_, acc[3]);                                                                      \
    } while (0)

/* One k-step, unrolled. */
static INLINE void small_step(realW acc[SMALL_W], const __local real *at, const __local real *bt, const int T,
                              const int tm, const int tn)
{
#pragma unroll
    for (int kk = 0; kk < SMALL_KT; kk++) SMALL_FMA(kk);
}

/* One T x T tile of C of member first + get_group_id(2), with the direct
   kernel's arguments; at, bt: the kernel's local tiles. The zeros of a
   partial last k-step add nothing: fma(0, 0, s) is s for every s but -0,
   and a sum that starts at +0 never becomes -0. */
static INLINE void small_tile(__local real *at, __local real *bt, const int T, const int DIM, const int M,
                              const int N, const int K, const real alpha, const real beta,
                              const __global real *A, const long offa, const long as, const __global long *al,
                              const long ars, const long acs,
                              const __global real *B, const long offb, const long bs, const __global long *bl,
                              const long brs, const long bcs,
                              __global real *C, const long offc, const long cs, const __global long *cl,
                              const long ldc, const long first)
{
    const int tn = (int)get_local_id(0), tm = (int)get_local_id(1), tid = tm * DIM + tn;
    const int row0 = (int)get_group_id(1) * T, col0 = (int)get_group_id(0) * T;
    const long member = first + (long)get_group_id(2);
    A += member_at(offa, as, al, member);
    B += member_at(offb, bs, bl, member);
    C += member_at(offc, cs, cl, member);
    const int WG = DIM * DIM;
    real va[SMALL_MAXL], vb[SMALL_MAXL];
    realW acc[SMALL_W];
#pragma unroll
    for (int u = 0; u < SMALL_W; u++) acc[u] = (realW)0;
    small_fetch(va, A, ars, acs, M, K, row0, 0, T, WG, tid);
    small_fetch(vb, B, bcs, brs, N, K, col0, 0, T, WG, tid);
    for (int k0 = 0; k0 < K; k0 += SMALL_KT) {
        small_stash(at, va, acs, T, WG, tid);
        small_stash(bt, vb, brs, T, WG, tid);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 + SMALL_KT < K) {
            small_fetch(va, A, ars, acs, M, K, row0, k0 + SMALL_KT, T, WG, tid);
            small_fetch(vb, B, bcs, brs, N, K, col0, k0 + SMALL_KT, T, WG, tid);
        }
        small_step(acc, at, bt, T, tm, tn);
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone is done with the tiles before the next stash */
    }
#pragma unroll
    for (int u = 0; u < SMALL_W; u++) {
        const int i = row0 + tm * SMALL_W + u;
        if (i >= M) continue;
#pragma unroll
        for (int v = 0; v < SMALL_W; v++) {
            const int j = col0 + tn * SMALL_W + v;
            if (j < N) store_one(C + (long)i * ldc + j, GET4(acc[u], v), alpha, beta);
        }
    }
}

#define SMALL_ARGS                                                                                                   \
    const int M, const int N, const int K, const real alpha, const real beta, const __global real *A,                \
        const long offa, const long as, const __global long *al, const long ars, const long acs,                     \
        const __global real *B, const long offb, const long bs, const __global long *bl, const long brs,             \
        const long bcs, __global real *C, const long offc, const long cs, const __global long *cl, const long ldc,   \
        const long first
#define SMALL_PASS \
    M, N, K, alpha, beta, A, offa, as, al, ars, acs, B, offb, bs, bl, brs, bcs, C, offc, cs, cl, ldc, first

/* 32 x 32 tiles, 8 x 8 work-items; and 64 x 64 tiles, 16 x 16 work-items. */
__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void gemm_cl_small32(SMALL_ARGS)
{
    __local real at[SMALL_KT * (32 + SMALL_W)] __attribute__((aligned(32)));
    __local real bt[SMALL_KT * (32 + SMALL_W)] __attribute__((aligned(32)));
    small_tile(at, bt, 32, 8, SMALL_PASS);
}

__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void gemm_cl_small64(SMALL_ARGS)
{
    __local real at[SMALL_KT * (64 + SMALL_W)] __attribute__((aligned(32)));
    __local real bt[SMALL_KT * (64 + SMALL_W)] __attribute__((aligned(32)));
    small_tile(at, bt, 64, 16, SMALL_PASS);
}

/* The distance between two k rows of a packed operand (Rp x Kp in tiles of
   `width` rows), and where work-group g's first k row starts. */
INLINE stride panel_rows(const int Rp, const int width)
{
#if PACK
    (void)Rp;
    return width;
#else
    (void)width;
    return Rp;
#endif
}

INLINE const __global real *panel(const __global real *P, const int g, const int Kp, const int width)
{
#if PACK
    return P + (long)g * Kp * width;
#else
    (void)Kp;
    return P + g * width;
#endif
}

#if SA
/* This work-item's share of the KWG x MWG tile of A at src, into registers:
   the global loads of the next tile overlap the arithmetic on this one.
   Unrolled, so ra[] stays in registers on GPUs, where local memory is used
   (PoCL ran these loops unrolled 20% slower, but its sets use no local memory). */
INLINE void fetch_a(realM ra[LA], const __global real *src, const stride as, const int tid)
{
#pragma unroll
    for (int l = 0; l < LA; l++) {
        const int x = tid + l * WGS;
        if (x < KWG * MWG / VWM) ra[l] = TILEM(const __global, src + x / (MWG / VWM) * as + x % (MWG / VWM) * VWM);
    }
}

/* ...and from the registers into the local tile (KWG rows of MWG). */
INLINE void stash_a(__local real *tile, const realM ra[LA], const int tid)
{
#pragma unroll
    for (int l = 0; l < LA; l++) {
        const int x = tid + l * WGS;
        if (x < KWG * MWG / VWM) TILEM(__local, tile + x * VWM) = ra[l];
    }
}
#endif

#if SB
/* The same for the KWG x NWG tile of B. */
INLINE void fetch_b(realN rb[LB], const __global real *src, const stride bs, const int tid)
{
#pragma unroll
    for (int l = 0; l < LB; l++) {
        const int x = tid + l * WGS;
        if (x < KWG * NWG / VWN) rb[l] = TILEN(const __global, src + x / (NWG / VWN) * bs + x % (NWG / VWN) * VWN);
    }
}

INLINE void stash_b(__local real *tile, const realN rb[LB], const int tid)
{
#pragma unroll
    for (int l = 0; l < LB; l++) {
        const int x = tid + l * WGS;
        if (x < KWG * NWG / VWN) TILEN(__local, tile + x * VWN) = rb[l];
    }
}
#endif

/* acc += this work-item's rows of the A tile times its columns of the B
   tile, over one step of KWG: tile row kk of A at at + kk*ats, of B at
   bt + kk*bts. A work-item's rows are VWM-vectors spaced MDIMC*VWM apart
   (its columns VWN-vectors spaced NDIMC*VWN apart), so neighbouring
   work-items touch neighbouring vectors. */
INLINE void multiply_step(realN acc[MWI][NWI / VWN], const A_SPACE real *at, const stride ats, const B_SPACE real *bt,
                   const stride bts, const int tm, const int tn)
{
#pragma unroll
    for (int kk = 0; kk < KWG; kk++) {
        const A_SPACE real *ak = at + kk * ats;
        const B_SPACE real *bk = bt + kk * bts;
        realN bv[NWI / VWN];
#pragma unroll
        for (int v = 0; v < NWI / VWN; v++) bv[v] = TILEN(const B_SPACE, bk + (v * NDIMC + tn) * VWN);
#pragma unroll
        for (int u = 0; u < MWI / VWM; u++) {
            realM av = TILEM(const A_SPACE, ak + (u * MDIMC + tm) * VWM);
#pragma unroll
            for (int e = 0; e < VWM; e++)
#pragma unroll
                for (int v = 0; v < NWI / VWN; v++)
                    acc[u * VWM + e][v] = fma((realN)ELEMM(av, e), bv[v], acc[u * VWM + e][v]);
        }
    }
}

/* C = alpha * acc + beta * C for this work-item's elements inside M x N;
   whole vectors where they fit, elements at the ragged edge. */
INLINE void store_tile(__global real *C, const long ldc, const int M, const int N, const int row0, const int col0,
                const int tm, const int tn, const real alpha, const real beta, realN acc[MWI][NWI / VWN])
{
#pragma unroll
    for (int u = 0; u < MWI / VWM; u++)
#pragma unroll
        for (int e = 0; e < VWM; e++) {
            const int i = row0 + (u * MDIMC + tm) * VWM + e;
            if (i >= M) continue;
            __global real *crow = C + (long)i * ldc;
#pragma unroll
            for (int v = 0; v < NWI / VWN; v++) {
                const int j = col0 + (v * NDIMC + tn) * VWN;
                const realN r = acc[u * VWM + e][v];
                if (j + VWN <= N) {
                    if (beta != (real)0) STOREC(alpha * r + beta * LOADC(crow + j), crow + j);
                    else STOREC(alpha * r, crow + j);
                } else {
                    for (int c = 0; c < VWN && j + c < N; c++) store_one(crow + j + c, ELEMN(r, c), alpha, beta);
                }
            }
        }
}

/* Where work-item tid computes in the grid of C's blocks (tm along M, tn
   along N). With WARPM, warp-level tiling: warp w covers WARPM x 32/WARPM
   work-items of the grid, so one vector read of the local A (B) tile by the
   warp touches WARPM (32/WARPM) consecutive vectors of one row: few
   distinct addresses, each a broadcast, and no bank conflicts. */
INLINE int place_m(const int tid)
{
#if WARPM
    return (tid / 32 % (MDIMC / WARPM)) * WARPM + tid % 32 % WARPM;
#else
    (void)tid;
    return (int)get_local_id(1);
#endif
}

INLINE int place_n(const int tid)
{
#if WARPM
    return (tid / 32 / (MDIMC / WARPM)) * (32 / WARPM) + tid % 32 / WARPM;
#else
    (void)tid;
    return (int)get_local_id(0);
#endif
}

/* The tuned kernel: C = alpha * A B + beta * C for packed A (Mp x Kp) and B
   (Np x Kp), row-major C. A work-group computes an MWG x NWG tile with
   MDIMC x NDIMC work-items; each holds an MWI x NWI block of sums in
   registers (coalesced on GPUs, conflict-free in local memory, and plain
   contiguous rows when MDIMC = NDIMC = 1 on CPUs). With SA/SB the tiles go
   through local memory: a tile is stored, one barrier, then the next is
   fetched into registers while this one is multiplied; without DB a second
   barrier keeps the stores of the next step off a tile still being read.
   Batches: group z of the third dimension is member first + z, its packed
   operands pas (pbs) elements after member z-1's (0: one shared by all). */
__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))
void gemm_cl_tiled(const int M, const int N, const int Kp, const int Mp, const int Np,
                   const real alpha, const real beta,
                   const __global real *restrict Ap, const long pas, const __global real *restrict Bp, const long pbs,
                   __global real *C, const long offc, const long cs, const __global long *cl, const long ldc,
                   const long first)
{
    /* tid: the work-item's place in the group, for the cooperative copies
       (consecutive tids read consecutive vectors: coalesced); (tm, tn): its
       place in the grid of C's blocks */
    const int tid = (int)get_local_id(1) * NDIMC + (int)get_local_id(0);
    const int tm = place_m(tid), tn = place_n(tid);
    const int gn = (int)get_group_id(0), gm = (int)get_group_id(1);
    const long z = (long)get_group_id(2);
    Ap += z * pas;
    Bp += z * pbs;
    (void)tid; /* unused without local memory or WARPM */
    const stride as = panel_rows(Mp, MWG), bs = panel_rows(Np, NWG);
    const __global real *a = panel(Ap, gm, Kp, MWG), *b = panel(Bp, gn, Kp, NWG);
#if SA || SB
    int cur = 0; /* which of the DB tiles is current (not "half": a type in OpenCL C) */
#endif
#if SA
    __local real alm[(1 + DB) * KWG * MWG] __attribute__((aligned(128)));
    realM ra[LA];
    fetch_a(ra, a, as, tid);
#endif
#if SB
    __local real blm[(1 + DB) * KWG * NWG] __attribute__((aligned(128)));
    realN rb[LB];
    fetch_b(rb, b, bs, tid);
#endif
    realN acc[MWI][NWI / VWN];
#pragma unroll
    for (int i = 0; i < MWI; i++)
#pragma unroll
        for (int v = 0; v < NWI / VWN; v++) acc[i][v] = (realN)0;

    for (int k0 = 0; k0 < Kp; k0 += KWG) {
#if (SA || SB) && !DB
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone is done reading the last tile */
#endif
#if SA
        stash_a(alm + cur * KWG * MWG, ra, tid);
#endif
#if SB
        stash_b(blm + cur * KWG * NWG, rb, tid);
#endif
#if SA || SB
        /* The tile is complete. With DB the next stores go to the other one, and
           nobody can reach them before everyone has passed this barrier, i.e. has
           finished reading that tile one step ago: one barrier suffices. */
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 + KWG < Kp) {
#if SA
            fetch_a(ra, a + KWG * as, as, tid);
#endif
#if SB
            fetch_b(rb, b + KWG * bs, bs, tid);
#endif
        }
#endif
#if SA
        const __local real *at = alm + cur * KWG * MWG;
        const stride ats = MWG;
#else
        const __global real *at = a;
        const stride ats = as;
#endif
#if SB
        const __local real *bt = blm + cur * KWG * NWG;
        const stride bts = NWG;
#else
        const __global real *bt = b;
        const stride bts = bs;
#endif
        multiply_step(acc, at, ats, bt, bts, tm, tn);
        a += KWG * as;
        b += KWG * bs;
#if (SA || SB) && DB
        cur ^= 1;
#endif
    }
    store_tile(C + member_at(offc, cs, cl, first + z), ldc, M, N, gm * MWG, gn * NWG, tm, tn, alpha, beta, acc);
}

/* Complex products on buffers (the host's cl/complex.c): interleaved
   complex matrices are pairs of reals, and one real product of twice the
   sizes does the complex one. These two kernels prepare its operands.

   X, the real 2R x 2K expansion of alpha*op(a), column-major with leading
   dimension 2R: op(a)(i, l), the complex at A[2*(offa + i*rs + l*cs)]
   (conjugated when conj), times alpha is v; then X[2i][2l] = Re v,
   X[2i+1][2l] = Im v, X[2i][2l+1] = -Im v, X[2i+1][2l+1] = Re v, so column
   2l of X is v's column as interleaved complex and column 2l+1 is i times
   it. One work-item per element of op(a). */
__kernel void gemm_cl_cx_expand(const int R, const int K, const __global real *A, const long offa, const long rs,
                                const long cs, const int conj, const real ar, const real ai, __global real *X)
{
    const int i = (int)get_global_id(0), l = (int)get_global_id(1);
    if (i >= R || l >= K) return;
    const __global real *a = A + 2 * (offa + i * rs + l * cs);
    const real vr = a[0], vi = conj ? -a[1] : a[1];
    const real re = ar * vr - ai * vi, im = ar * vi + ai * vr;
    __global real *x = X + (long)(2 * l) * (2 * R) + 2 * i;
    x[0] = re;
    x[1] = im;
    x[2 * R] = -im;
    x[2 * R + 1] = re;
}

/* D = s*op(S) for an R x K complex matrix: op(S)(i, j), the complex at
   S[2*(offs + i*rs + j*cs)] (conjugated when conj), times s, into
   D[2*(offd + i + j*ldd)]. s = 0 reads nothing (C = 0*C never reads C);
   a real s only scales (Im s = 0 must not turn an Inf into a NaN). S and
   D may be the same matrix: each work-item reads its element, then writes
   it. */
__kernel void gemm_cl_cx_copy(const int R, const int K, const __global real *S, const long offs, const long rs,
                              const long cs, const int conj, const real sr, const real si, __global real *D,
                              const long offd, const long ldd)
{
    const int i = (int)get_global_id(0), j = (int)get_global_id(1);
    if (i >= R || j >= K) return;
    __global real *d = D + 2 * (offd + i + j * ldd);
    if (sr == (real)0 && si == (real)0) {
        d[0] = (real)0;
        d[1] = (real)0;
        return;
    }
    const __global real *x = S + 2 * (offs + i * rs + j * cs);
    const real vr = x[0], vi = conj ? -x[1] : x[1];
    d[0] = si == (real)0 ? sr * vr : sr * vr - si * vi;
    d[1] = si == (real)0 ? sr * vi : sr * vi + si * vr;
}

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Verified products (the host's cl/verify.c): the checksums' line sums in
   fp64, one work-item per line of a matrix x (element t of line l at
   x[off + l*line_stride + t*elem_stride]); ws holds every vector of the
   sums, at element offsets (-1: none). ws[out + l] += f * sum_t x*w[t],
   ws[outa + l] += |f| * sum_t |x|*wa[t], with a weight of 1 where w (wa)
   is -1. Only on devices with fp64. */
__kernel void gemm_cl_verify_lines(__global const real *x, const long off, const int lines, const int len,
                                   const long line_stride, const long elem_stride, __global double *ws,
                                   const long w, const long wa, const long out, const long outa, const double f)
{
    const int l = get_global_id(0);
    double s = 0, sa = 0;
    int t;
    if (l >= lines) return;
    for (t = 0; t < len; t++) {
        const double v = (double)x[off + l * line_stride + t * elem_stride];
        s += w >= 0 ? v * ws[w + t] : v;
        sa += wa >= 0 ? fabs(v) * ws[wa + t] : fabs(v);
    }
    if (out >= 0) ws[out + l] += f * s;
    if (outa >= 0) ws[outa + l] += fabs(f) * sa;
}

/* The same for lines whose elements are contiguous (elem_stride 1): a
   work-group of 64 per line, its work-items reading side by side (as
   PoCL vectorises them, and as a GPU coalesces them), summed in local
   memory. */
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void gemm_cl_verify_group(
    __global const real *x, const long off, const int lines, const int len, const long line_stride,
    const long elem_stride, __global double *ws, const long w, const long wa, const long out, const long outa,
    const double f)
{
    __local double ls[64], lsa[64];
    const int l = get_group_id(0), i = get_local_id(0);
    double s = 0, sa = 0;
    int t, h;
    for (t = i; t < len; t += 64) {
        const double v = (double)x[off + l * line_stride + t * elem_stride];
        s += w >= 0 ? v * ws[w + t] : v;
        sa += wa >= 0 ? fabs(v) * ws[wa + t] : fabs(v);
    }
    ls[i] = s;
    lsa[i] = sa;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (h = 32; h > 0; h >>= 1) {
        if (i < h) {
            ls[i] += ls[i + h];
            lsa[i] += lsa[i + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i == 0 && l < lines) {
        if (out >= 0) ws[out + l] += f * ls[0];
        if (outa >= 0) ws[outa + l] += fabs(f) * lsa[0];
    }
}
#endif
