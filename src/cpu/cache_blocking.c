/* Arithmetic on sizes, used by every part below. */
static int64_t gemm__cpu_round_up(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }
static int64_t gemm__cpu_min(int64_t a, int64_t b) { return a < b ? a : b; }

/* Bytes of one core's L1d (level 1) or L2 (level 2); 0 when unknown. */
static long gemm__cpu_cache_bytes(int level)
{
    static long cached[2] = {-1, -1};
    long v = GEMM__CPU_LOAD(cached[level - 1]);
    if (v >= 0) return v;
    v = 0;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    v = sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);
    if (v < 0) v = 0;
#endif
    GEMM__CPU_STORE(cached[level - 1], v);
    return v;
}

/* Block sizes for a kernel of mr x nr elements of `size` bytes; a test may
   force them (gemm__hooks.cpu_mc, cpu_kc, cpu_nc; mc and nc rounded up to
   whole micro-panels). */
static void gemm__cpu_blocking(int mr, int nr, int size, int64_t *mc, int64_t *kc, int64_t *nc)
{
    long l1 = gemm__cpu_cache_bytes(1), l2 = gemm__cpu_cache_bytes(2);
    int64_t o;
    if (l1 < 16384 || l1 > 1048576) l1 = 32768;
    if (l2 < 131072 || l2 > 67108864) l2 = 1048576;
    /* B micro-panel (kc x nr) in half of L1, next to the A and C streams. */
    *kc = (int64_t)(l1 / 2) / (nr * size) / 8 * 8;
    if (*kc < 64) *kc = 64;
    if (*kc > 1024) *kc = 1024;
    /* packed A block (mc x kc) in half of L2. */
    *mc = (int64_t)(l2 / 2) / (*kc * size) / mr * mr;
    if (*mc < mr) *mc = mr;
    /* packed B panel (kc x nc) of about 4 MiB. */
    *nc = (int64_t)4194304 / (*kc * size) / nr * nr;
    if (*nc < nr) *nc = nr;
    if ((o = GEMM__HOOK(cpu_mc, 0)) > 0) *mc = gemm__cpu_round_up(o, mr);
    if ((o = GEMM__HOOK(cpu_kc, 0)) > 0) *kc = o;
    if ((o = GEMM__HOOK(cpu_nc, 0)) > 0) *nc = gemm__cpu_round_up(o, nr);
}
