/* The tuner's search space, in two stages after Matsumoto, Nakasato and
   Sedukhin's OpenCL GEMM tuner: first the structure (work-group shape,
   work-item tile, warp layout) with the other knobs at values that suit the
   kind of device, a space small enough to measure whole within the budget;
   then, around the best few, every other knob changed one at a time. */
#pragma once

#include <string.h>

#include "internal.h"
#include "context.c" /* the device's type and limits */
#include "params.c"

typedef struct gemm__cl_cand {
    gemm_cl_params p;
    double score; /* GFLOP/s at the coarse sizes; < 0: failed, or not measured */
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

static int gemm__cl_is_gpu(const gemm_cl_context *ctx)
{
    return (ctx->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
}

/* Adds p to out[0..*cnt) when the device can run it and it is not there yet
   (DIRECT aside). */
static void gemm__cl_space_add(const gemm_cl_context *ctx, size_t elem, const gemm_cl_params *p, gemm__cl_cand *out,
                               int max, int *cnt)
{
    int i;
    if (*cnt >= max || gemm__cl_params_invalid(p, ctx->max_wg, ctx->local_mem, elem)) return;
    for (i = 0; i < *cnt; i++)
        if (gemm__cl_same_program(&out[i].p, p)) return;
    out[*cnt].p = *p;
    out[*cnt].score = -1;
    ++*cnt;
}

/* GPUs, stage 1: 64-256 work-items, 4x4 to 8x8 elements each (fp64: 2x4 to
   8x4), 16-byte vectors (fp64: 2 elements), with and without warp-level
   tiling and a register cap; both tiles through local memory,
   double-buffered, packed panels, KWG = 16. */
static int gemm__cl_space_gpu(const gemm_cl_context *ctx, size_t elem, gemm__cl_cand *out, int max)
{
    /* first, the sets an earlier template measured best on an H200 (fp32, fp64) */
    static const char *const known[] = {
        "MWG=128 NWG=64 KWG=16 MDIMC=16 NDIMC=8 VWM=1 VWN=4 SA=1 SB=1 PACK=0 DIRECT=128 DB=0",
        "MWG=64 NWG=64 KWG=8 MDIMC=16 NDIMC=8 VWM=2 VWN=1 SA=1 SB=1 PACK=1 DIRECT=128 DB=1",
    };
    static const int dims[][2] = {{16, 16}, {8, 16}, {16, 8}, {8, 32}, {32, 8}, {8, 8}};
    static const int tiles32[][2] = {{8, 8}, {4, 8}, {8, 4}, {4, 4}};
    static const int tiles64[][2] = {{4, 8}, {8, 4}, {4, 4}, {2, 4}};
    static const int warps[] = {0, 8, 4};
    const int (*tiles)[2] = elem == 8 ? tiles64 : tiles32, vw = elem == 8 ? 2 : 4;
    gemm_cl_params p;
    int cnt = 0, d, t, w, r;
    memset(&p, 0, sizeof p);
    gemm__cl_params_parse(known[elem == 8], &p);
    gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
    memset(&p, 0, sizeof p);
    p.kwg = 16;
    p.sa = p.sb = p.pack = p.db = 1;
    p.direct = 128;
    for (d = 0; d < 6; d++)
        for (t = 0; t < 4; t++)
            for (w = 0; w < 3; w++) {
                p.mdimc = dims[d][0];
                p.ndimc = dims[d][1];
                p.mwg = p.mdimc * tiles[t][0];
                p.nwg = p.ndimc * tiles[t][1];
                p.vwm = tiles[t][0] < vw ? tiles[t][0] : vw;
                p.vwn = tiles[t][1] < vw ? tiles[t][1] : vw;
                p.warpm = warps[w];
                /* 256 work-items: also capped at 128 registers, so two groups share an SM */
                for (r = 0; r < (p.mdimc * p.ndimc == 256 ? 2 : 1); r++) {
                    p.regs = r ? 128 : 0;
                    gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
                }
            }
    return cnt;
}

/* CPUs, stage 1: register tiles of C per work-item (one work-item per
   group), vectors along N, no local memory (PoCL emulates it in global
   memory), packed panels. */
static int gemm__cl_space_cpu(const gemm_cl_context *ctx, size_t elem, gemm__cl_cand *out, int max)
{
    static const int rows[] = {4, 6, 8, 10, 12, 14, 16}, cols[] = {16, 32, 48, 64};
    const int vwn = elem == 8 ? 8 : 16, regs = 32; /* AVX-512: 32 vector registers */
    gemm_cl_params p;
    int cnt = 0, a, b;
    memset(&p, 0, sizeof p);
    p.mdimc = p.ndimc = p.vwm = 1;
    p.kwg = 8;
    p.pack = 1;
    for (a = 0; a < 7; a++)
        for (b = 0; b < 4; b++) {
            p.mwg = rows[a];
            p.nwg = cols[b] / (elem == 8 ? 2 : 1);
            p.vwn = vwn;
            /* the sums and one row of B in registers, one left for A */
            if (p.nwg % p.vwn || p.mwg * (p.nwg / p.vwn) + p.nwg / p.vwn + 1 > regs) continue;
            gemm__cl_space_add(ctx, elem, &p, out, max, &cnt);
        }
    return cnt;
}

/* Stage 1 for this device; the tests' tiny space instead when asked. */
static int gemm__cl_space(const gemm_cl_context *ctx, gemm_precision prec, int tiny, gemm__cl_cand *out, int max)
{
    size_t elem = gemm_precision_size(prec);
    if (tiny) return gemm__cl_space_tiny(out, max);
    if (gemm__cl_is_gpu(ctx)) return gemm__cl_space_gpu(ctx, elem, out, max);
    return gemm__cl_space_cpu(ctx, elem, out, max);
}

/* One knob of stage 2: a field and the values it tries. MDIMC keeps the
   work-item tile (MWG changes with it). */
typedef struct gemm__cl_knob {
    const char *name;
    int values[4], count;
} gemm__cl_knob;

static const gemm__cl_knob gemm__cl_knobs_gpu[] = {
    {"KWG", {8, 16, 32, 0}, 3},   {"DB", {0, 1, 0, 0}, 2},    {"PACK", {0, 1, 0, 0}, 2},
    {"VWM", {1, 2, 4, 0}, 3},     {"VWN", {1, 2, 4, 0}, 3},   {"WARPM", {0, 4, 8, 0}, 3},
    {"REGS", {0, 128, 0, 0}, 2},
};
static const gemm__cl_knob gemm__cl_knobs_cpu[] = {
    {"KWG", {4, 8, 16, 32}, 4}, {"PACK", {0, 1, 0, 0}, 2}, {"VWN", {4, 8, 16, 0}, 3}, {"MDIMC", {1, 2, 4, 8}, 4},
};

/* Appends to out[*cnt..] every set that differs from base in one knob. */
static void gemm__cl_neighbours(const gemm_cl_context *ctx, size_t elem, const gemm_cl_params *base,
                                gemm__cl_cand *out, int max, int *cnt)
{
    int gpu = gemm__cl_is_gpu(ctx), nk, k, v;
    const gemm__cl_knob *knobs = gpu ? gemm__cl_knobs_gpu : gemm__cl_knobs_cpu;
    size_t f;
    nk = gpu ? (int)(sizeof gemm__cl_knobs_gpu / sizeof *knobs) : (int)(sizeof gemm__cl_knobs_cpu / sizeof *knobs);
    for (k = 0; k < nk; k++)
        for (f = 0; f < GEMM__CL_NFIELDS; f++) {
            if (strcmp(gemm__cl_fields[f].name, knobs[k].name) != 0) continue;
            for (v = 0; v < knobs[k].count; v++) {
                gemm_cl_params p = *base;
                gemm__cl_field_set(&p, f, knobs[k].values[v]);
                if (!strcmp(knobs[k].name, "MDIMC")) p.mwg = base->mwg / base->mdimc * p.mdimc;
                gemm__cl_space_add(ctx, elem, &p, out, max, cnt);
            }
        }
}

static int gemm__cl_by_score(const void *x, const void *y)
{
    double a = ((const gemm__cl_cand *)x)->score, b = ((const gemm__cl_cand *)y)->score;
    return a > b ? -1 : a < b;
}
