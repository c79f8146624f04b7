/* The tuner's search space: the seed paper's blocking factors, vector
   widths, local-memory use and packed layout, shaped by the kind of device. */

typedef struct gemm__cl_cand {
    gemm_cl_params p;
    double score;
} gemm__cl_cand;

/* A handful of sets at small sizes, for the tests; the last has more
   work-items than any device allows: it must be skipped, not fail the run. */
static int gemm__cl_space_tiny(gemm__cl_cand *out, int max)
{
    static const char *const small[] = {
        "MWG=4 NWG=8 KWG=2 MDIMC=1 NDIMC=1 VWM=1 VWN=4 SA=0 SB=0 PACK=1 DIRECT=0",
        "MWG=8 NWG=8 KWG=4 MDIMC=2 NDIMC=2 VWM=2 VWN=2 SA=1 SB=1 PACK=0 DIRECT=0",
        "MWG=16 NWG=16 KWG=3 MDIMC=4 NDIMC=4 VWM=1 VWN=2 SA=0 SB=1 PACK=1 DIRECT=0",
        "MWG=128 NWG=128 KWG=4 MDIMC=128 NDIMC=128 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=0",
    };
    int cnt = 0;
    for (; cnt < 4 && cnt < max; cnt++) gemm__cl_params_parse(small[cnt], &out[cnt].p);
    return cnt;
}

/* Adds p to the space when the device can run it. */
static void gemm__cl_space_add(const gemm_cl_context *ctx, size_t elem, const gemm_cl_params *p, gemm__cl_cand *out,
                               int max, int *cnt)
{
    if (*cnt < max && !gemm__cl_params_invalid(p, ctx->max_wg, ctx->local_mem, elem)) out[(*cnt)++].p = *p;
}

/* GPUs: the usual shapes first (*fixed of them), then 64-256 work-items with
   8+ elements each, every local-memory and packing choice. */
static int gemm__cl_space_gpu(const gemm_cl_context *ctx, size_t elem, gemm__cl_cand *out, int max, int *fixed)
{
    static const char *const seeds[] = {
        "MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=16 VWM=4 VWN=4 SA=1 SB=1 PACK=1 DIRECT=128",
        "MWG=128 NWG=128 KWG=8 MDIMC=16 NDIMC=16 VWM=2 VWN=4 SA=1 SB=1 PACK=1 DIRECT=128",
        "MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=16 VWM=4 VWN=4 SA=1 SB=1 PACK=1 DIRECT=128",
        "MWG=64 NWG=64 KWG=16 MDIMC=16 NDIMC=16 VWM=2 VWN=2 SA=1 SB=1 PACK=1 DIRECT=128",
    };
    static const int dims[] = {8, 16, 32}, wis[] = {1, 2, 4, 8}, kwgs[] = {8, 16, 32}, vws[] = {1, 2, 4};
    gemm_cl_params p;
    int cnt = 0, a, b, c, d, e, f, g, h;
    memset(&p, 0, sizeof p);
    for (a = 0; a < 4; a++)
        if (gemm__cl_params_parse(seeds[a], &p)) gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
    *fixed = cnt;
    memset(&p, 0, sizeof p);
    for (a = 0; a < 3; a++) for (b = 0; b < 3; b++) for (c = 0; c < 4; c++) for (d = 0; d < 4; d++)
    for (e = 0; e < 3; e++) for (f = 0; f < 3; f++) for (g = 0; g < 3; g++) for (h = 0; h < 3; h++) {
        p.mdimc = dims[a]; p.ndimc = dims[b];
        p.mwg = dims[a] * wis[c]; p.nwg = dims[b] * wis[d];
        p.kwg = kwgs[e]; p.vwm = vws[f]; p.vwn = vws[g];
        p.sa = p.sb = h != 2; p.pack = h != 0; p.direct = 128;
        if (p.mdimc * p.ndimc < 64 || p.mdimc * p.ndimc > 256 || wis[c] % p.vwm || wis[d] % p.vwn || wis[c] * wis[d] < 8)
            continue;
        gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
    }
    return cnt;
}

/* CPUs: one work-item per group, a register block of C, no local memory. */
static int gemm__cl_space_cpu(const gemm_cl_context *ctx, size_t elem, gemm__cl_cand *out, int max)
{
    static const int cpu_m[] = {4, 6, 8, 12, 16}, cpu_n[] = {8, 16, 32, 64}, cpu_v[] = {4, 8, 16}, cpu_k[] = {4, 8, 16};
    gemm_cl_params p;
    int cnt = 0, a, b, c, d, h;
    memset(&p, 0, sizeof p);
    for (a = 0; a < 5; a++) for (b = 0; b < 4; b++) for (c = 0; c < 3; c++) for (d = 0; d < 3; d++)
    for (h = 0; h < 2; h++) {
        p.mdimc = p.ndimc = 1; p.mwg = cpu_m[a]; p.nwg = cpu_n[b]; p.vwm = 1; p.vwn = cpu_v[c];
        p.kwg = cpu_k[d]; p.sa = p.sb = 0; p.pack = h; p.direct = 64;
        if (p.nwg % p.vwn || p.mwg * p.nwg > 512 || p.mwg * p.nwg / p.vwn > 32 * (int)(8 / elem)) continue;
        gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
    }
    return cnt;
}

/* The candidates for this device; the first *fixed go first, the rest may be shuffled. */
static int gemm__cl_space(const gemm_cl_context *ctx, gemm_precision prec, int tiny, gemm__cl_cand *out, int max,
                          int *fixed)
{
    size_t elem = gemm_precision_size(prec);
    if (tiny) return gemm__cl_space_tiny(out, max);
    *fixed = 0;
    if (ctx->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR))
        return gemm__cl_space_gpu(ctx, elem, out, max, fixed);
    return gemm__cl_space_cpu(ctx, elem, out, max);
}

/* Shuffles out[from..n): with a budget, the coarse pass samples the space evenly. */
static void gemm__cl_shuffle(gemm__cl_cand *out, int from, int n)
{
    uint64_t x = 99991;
    int i, j;
    for (i = n - 1; i > from; i--) {
        gemm__cl_cand t;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        j = from + (int)(x % (uint64_t)(i - from + 1));
        t = out[i]; out[i] = out[j]; out[j] = t;
    }
}

static int gemm__cl_by_score(const void *x, const void *y)
{
    double a = ((const gemm__cl_cand *)x)->score, b = ((const gemm__cl_cand *)y)->score;
    return a > b ? -1 : a < b;
}
