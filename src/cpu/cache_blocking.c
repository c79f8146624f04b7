/* Block sizes from the caches, and the size arithmetic every part uses.

   The caches are read once (cache_info.c: cpuid, else Linux's sysfs, else
   sysconf, else 32 KiB L1d and 1 MiB L2). KC: a B micro-panel (KC x NR)
   fills half of L1d; MC: the packed A block (MC x KC) half of L2 (the bf16
   kernel takes less of each cache, ukernel_bf16.c); NC: the
   packed B panel a quarter of L3, 2 to 8 MiB (4 MiB when L3 is unknown).
   Only KC changes the arithmetic (the k order of a sum), and it depends on
   the CPU alone. */
#pragma once

#include <stdint.h>
#include "../core/internal.h" /* GEMM__HOOK */
#include "cache_info.c"       /* gemm__cpu_cache_sizes */

/* Arithmetic on sizes, used by every part below. */
static int64_t gemm__cpu_round_up(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }
static int64_t gemm__cpu_min(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t gemm__cpu_max(int64_t a, int64_t b) { return a > b ? a : b; }

/* Block sizes for a kernel of mr x nr elements of `size` bytes, from the
   caches the CPU reports (defaults 32 KiB L1d, 1 MiB L2, no L3 known):
   a B micro-panel (kc x nr) in 1/l1_parts of L1d, a packed A block
   (mc x kc) in 1/l2_parts of L2, the packed B panel (kc x nc) in
   1/l3_parts of L3 (2 to 8 MiB; 4 MiB when L3 is unknown); a test may force them (gemm__hooks.cpu_mc,
   cpu_kc, cpu_nc; mc and nc rounded up to whole micro-panels). kc alone
   changes the arithmetic (the k order of each sum); it depends on the CPU
   and the kernel, never on the problem or the thread count. */
static void gemm__cpu_blocking_parts(int mr, int nr, int size, int l1_parts, int l2_parts, int l3_parts, int64_t *mc,
                                     int64_t *kc, int64_t *nc)
{
    gemm__cpu_caches c = gemm__cpu_cache_sizes();
    long l1 = c.l1d, l2 = c.l2, panel;
    int64_t o;
    if (l1 < 16384 || l1 > 1048576) l1 = 32768;
    if (l2 < 131072 || l2 > 67108864) l2 = 1048576;
    /* B micro-panel (kc x nr), reused by every A micro-panel of a block,
       in its share of L1, next to the A and C streams. */
    *kc = (int64_t)(l1 / l1_parts) / (nr * size) / 8 * 8;
    *kc = gemm__cpu_max(64, gemm__cpu_min(*kc, 1024));
    /* packed A block (mc x kc) in its share of L2. */
    *mc = gemm__cpu_max(mr, (int64_t)(l2 / l2_parts) / (*kc * size) / mr * mr);
    /* packed B panel (kc x nc), read by every row block of a step, in a
       share of L3 (2 to 8 MiB), or 4 MiB when L3 is unknown. */
    panel = c.l3 >= 4194304 ? c.l3 / l3_parts : 4194304;
    panel = panel < 2097152 ? 2097152 : panel > 8388608 ? 8388608 : panel;
    *nc = gemm__cpu_max(nr, (int64_t)panel / (*kc * size) / nr * nr);
    if ((o = GEMM__HOOK(cpu_mc, 0)) > 0) *mc = gemm__cpu_round_up(o, mr);
    if ((o = GEMM__HOOK(cpu_kc, 0)) > 0) *kc = o;
    if ((o = GEMM__HOOK(cpu_nc, 0)) > 0) *nc = gemm__cpu_round_up(o, nr);
}

/* The fp32 and fp64 kernels' blocks: a B micro-panel in half of L1d, an A
   block in half of L2, a B panel in a quarter of L3. */
static void gemm__cpu_blocking(int mr, int nr, int size, int64_t *mc, int64_t *kc, int64_t *nc)
{
    gemm__cpu_blocking_parts(mr, nr, size, 2, 2, 4, mc, kc, nc);
}
