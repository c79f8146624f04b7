/* Packing: copies of blocks of op(A) and op(B) into the panels the
   micro-kernels read, and the plain strided copy under them.

   Packing absorbs layouts and transposes. A panel of op(A) is stored
   column by column (MR contiguous elements per k, vector copies when
   op(A)'s columns are contiguous, a scalar transpose otherwise). A panel
   of op(B) is stored row by row (NR elements per k) when op(B)'s rows are
   contiguous, else column by column with plain copies, which the kernel's
   strided variant reads: neither case transposes element by element.
   Panels are zero-padded, so the micro-kernel always computes a full
   MR x NR tile; a tile that sticks out of C is computed into a small local
   tile and copied back (loops.c), so the user's matrices are never padded
   or copied whole. */
#pragma once

#include <string.h>           /* memcpy, memset */
#include "cache_blocking.c"   /* gemm__cpu_min */
#include "platform.h"         /* GEMM__RESTRICT */
#include "ukernel_template.h" /* gemm__cpu_pack_a_fn */

/* d[i*dstep] = s[i*sstep] for i < n, elements of es bytes. A copy moves
   bits; typed loads and stores just keep the strided loops short. */
static void gemm__cpu_copy(char *GEMM__RESTRICT d, int64_t dstep, const char *GEMM__RESTRICT s, int64_t sstep,
                           int64_t n, int64_t es)
{
    int64_t i;
    if (dstep == 1 && sstep == 1) {
        memcpy(d, s, (size_t)(n * es));
    } else if (es == (int64_t)sizeof(float)) {
        float *df = (float *)d;
        const float *sf = (const float *)s;
        for (i = 0; i < n; i++) df[i * dstep] = sf[i * sstep];
    } else {
        double *dd = (double *)d;
        const double *sd = (const double *)s;
        for (i = 0; i < n; i++) dd[i * dstep] = sd[i * sstep];
    }
}

/* d[q*w + i] = s[i*rs + q] for i < rows, q < k: rows of op(a) that are
   contiguous (a transposed op(a)) into a panel of w-long columns (the
   direct kernel's, the packed kernel's). Four rows at a time, so that each
   k writes four neighbours (the compiler pairs them into vector moves): at
   16^3 fp32 the copy was half of a call's time, one element per cycle, row
   by row. The kernels whose ISA has better (AVX-512) bring their own. */
#define GEMM__CPU_COPY_ROWS(T)                                                                       \
    {                                                                                                \
        T *GEMM__RESTRICT dd = (T *)d;                                                               \
        const T *GEMM__RESTRICT ss = (const T *)s;                                                   \
        for (i = 0; i + 4 <= rows; i += 4) {                                                         \
            const T *r0 = ss + i * rs, *r1 = r0 + rs, *r2 = r1 + rs, *r3 = r2 + rs;                  \
            for (q = 0; q < k; q++) {                                                                \
                T *o = dd + q * w + i;                                                               \
                o[0] = r0[q];                                                                        \
                o[1] = r1[q];                                                                        \
                o[2] = r2[q];                                                                        \
                o[3] = r3[q];                                                                        \
            }                                                                                        \
        }                                                                                            \
        for (; i < rows; i++)                                                                        \
            for (q = 0; q < k; q++) dd[q * w + i] = ss[i * rs + q];                                  \
    }
static void gemm__cpu_copy_rows(char *d, int64_t w, const char *s, int64_t rs, int64_t rows, int64_t k, int64_t es)
{
    int64_t i, q;
    if (es == (int64_t)sizeof(float)) GEMM__CPU_COPY_ROWS(float)
    else GEMM__CPU_COPY_ROWS(double)
}
#undef GEMM__CPU_COPY_ROWS

/* Packs nx rows of A (or columns of B) of length kc into w-wide panels;
   element (x, p) of the source is at s[x*xs + p*ps] (elements of es bytes).
   A panel is p-major (d[p*w + x], what the packed kernel reads) or, when
   xmajor, x-major (d[x*kc + p], read by the strided kernel with bp = 1,
   bj = kc); the last one is zero-padded to w. Copies follow the source's
   contiguous dimension: only a p-major pack of a source contiguous along p
   (A of a transposed-A call) is a scalar transpose. vpack, when given, is
   the kernel's vector packer for the whole panels of a source with xs == 1;
   rows, when given, its copy of a source contiguous along p (ps == 1). */
static void gemm__cpu_pack(char *d, const char *s, int64_t xs, int64_t ps, int64_t nx, int64_t kc, int w,
                           int xmajor, gemm__cpu_pack_a_fn vpack, gemm__cpu_copy_rows_fn rows, int64_t es)
{
    int64_t x0, x, p, full = nx / w * w, tail = nx - full;
    if (xmajor) {
        for (x = 0; x < nx; x++) gemm__cpu_copy(d + x * kc * es, 1, s + x * xs * es, ps, kc, es);
        if (tail) memset(d + nx * kc * es, 0, (size_t)((w - tail) * kc * es));
        return;
    }
    if (xs == 1) {
        if (vpack && full > 0) vpack(kc, s, ps, full, d);
        for (p = 0; p < kc; p++) {
            const char *sp = s + p * ps * es;
            char *dt = d + (full * kc + p * w) * es; /* this k's row of the tail panel */
            for (x0 = 0; x0 < full && !vpack; x0 += w)
                memcpy(d + (x0 * kc + p * w) * es, sp + x0 * es, (size_t)(w * es));
            if (tail) {
                memcpy(dt, sp + full * es, (size_t)(tail * es));
                memset(dt + tail * es, 0, (size_t)((w - tail) * es));
            }
        }
        return;
    }
    for (x0 = 0; x0 < nx; x0 += w) {
        int64_t xw = gemm__cpu_min(w, nx - x0);
        char *dp = d + x0 * kc * es;
        if (xw < w) memset(dp, 0, (size_t)(w * kc * es));
        if (ps == 1) (rows ? rows : gemm__cpu_copy_rows)(dp, w, s + x0 * xs * es, xs, xw, kc, es);
        else for (x = 0; x < xw; x++) gemm__cpu_copy(dp + x * es, w, s + (x0 + x) * xs * es, ps, kc, es);
    }
}
