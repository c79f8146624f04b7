/* The autotuner, in two stages after Matsumoto, Nakasato and Sedukhin's:
   every structure of the space at two sizes, then the other knobs one at a
   time around the best few (tune_space.c); then the best few of all over a
   range of sizes, and the direct kernel's crossover. Every candidate is
   checked. */
#pragma once

#include <math.h> /* fabs */
#include <stdio.h>
#include <stdlib.h> /* qsort */
#include <string.h>

#include "internal.h" /* gemm__prepare */
#include "choice.c" /* gemm__cl_try, gemm__cl_select, gemm__cl_install */
#include "context.c" /* gemm__cl_program_free */
#include "lookup.c" /* reading tuning files */
#include "platform.c" /* gemm__cl_now, gemm__cl_pid */
#include "run.c" /* gemm__cl_enqueue */
#include "tune_space.c"

typedef struct gemm__cl_tuner {
    gemm_cl_context *ctx;
    gemm_precision prec;
    gemm_cl_tune_options o;
    gemm_cl_tune_result res;
    gemm__cl_cand *cands;
    int ncand, nref, maxn;
    double *hA, *hB;  /* the inputs in double, for the host's check */
    void *conv;       /* the same in the device's precision */
    cl_mem A, B, C;   /* n x n row-major, for every n up to maxn */
    double start;
} gemm__cl_tuner;

/* Seconds per call on n x n x n: the best of 3 after a warm-up (other
   processes only ever slow a run down, so the minimum is the least noisy); < 0 on failure. */
static double gemm__cl_time(gemm__cl_tuner *t, const gemm__cl_program *g, gemm__cl_path path, int64_t n)
{
    gemm__cl_lane *lane = &t->ctx->lane[1];
    gemm__cl_operands o;
    gemm__problem p;
    double best = -1;
    int r;
    if (gemm__prepare("gemm_cl_tune", GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 0, 1, n, 1, n, 0, 1, n,
                      &p) != GEMM_OK)
        return -1;
    gemm__cl_operands_set(&o, &p, t->A, 0, t->B, 0, t->C, 0);
    for (r = -1; r < 3; r++) {
        double t0 = gemm__cl_now();
        if (gemm__cl_enqueue(t->ctx, lane, g, &p, &o, 1.0, 0.0, path, 0, NULL, NULL) != GEMM_OK ||
            clFinish(lane->queue) != CL_SUCCESS)
            return -1;
        t0 = gemm__cl_now() - t0;
        if (r >= 0 && (best < 0 || t0 < best)) best = t0;
    }
    return best;
}

/* Checks 16 sampled elements of the last C = A B (row-major, n x n) on the host. */
static int gemm__cl_sample_ok(gemm__cl_tuner *t, int64_t n)
{
    size_t elem = gemm_precision_size(t->prec);
    double eps = t->prec == GEMM_F64 ? 2.220446049250313e-16 : 1.1920929e-7;
    uint64_t x = 12345;
    int s;
    for (s = 0; s < 16; s++) {
        int64_t i, j, q;
        double sum = 0, got = 0;
        float f = 0;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        i = (int64_t)(x % (uint64_t)n);
        j = (int64_t)((x >> 20) % (uint64_t)n);
        for (q = 0; q < n; q++) sum += t->hA[i * n + q] * t->hB[q * n + j];
        if (clEnqueueReadBuffer(t->ctx->lane[1].queue, t->C, CL_TRUE, (size_t)(i * n + j) * elem, elem,
                                t->prec == GEMM_F64 ? (void *)&got : (void *)&f, 0, NULL, NULL) != CL_SUCCESS)
            return 0;
        if (t->prec != GEMM_F64) got = f;
        if (!(fabs(got - sum) <= 4 * eps * (double)n * 0.25)) return 0;
    }
    return 1;
}

/* Is line a tuning line of exactly this precision and device? */
static int gemm__cl_same_entry(const char *line, const char *prefix, const char *device)
{
    const char *dev = strstr(line, "device=");
    return dev && strncmp(line, prefix, 4) == 0 && strcmp(dev + 7, device) == 0;
}

/* Appends newline to a tuning file, dropping the earlier lines of this
   (precision, device) and keeping every other line (within the bounded
   read of gemm__cl_read_line: a file past 1 MiB is no tuning file). */
static gemm_status gemm__cl_write_tuning(const gemm_cl_context *ctx, const char *path, const char *newline,
                                         const char *prefix, const char *device)
{
    char tmp[600], line[GEMM__CL_LINE_MAX];
    size_t budget = GEMM__CL_TUNING_MAX_BYTES;
    FILE *in = fopen(path, "r"), *out;
    int r;
    snprintf(tmp, sizeof tmp, "%.540s.%ld.%p.tmp", path, gemm__cl_pid(), (const void *)ctx); /* unique per writer */
    if (!(out = fopen(tmp, "w"))) {
        if (in) fclose(in);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_tune: cannot write %s", tmp);
    }
    while (in && (r = gemm__cl_read_line(in, line, &budget)) != 0) {
        if (r > 0 && !gemm__cl_same_entry(line, prefix, device)) fprintf(out, "%s\n", line);
    }
    if (in) fclose(in);
    else fputs("# gemm_cl tuning file (gemm_cl_tune / make tune-cl): precision, parameters, device name; "
                       "the last line for a device wins\n", out);
    fprintf(out, "%s\n", newline);
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_tune: cannot write %s", path);
    }
    return GEMM_OK;
}

/* Frees the programs no precision's choice uses (the tuner's losers); lock held. */
static void gemm__cl_prune(gemm_cl_context *ctx)
{
    gemm__cl_program **at = &ctx->programs, *g;
    while ((g = *at) != NULL) {
        if (g == ctx->choice[0].prog || g == ctx->choice[1].prog) {
            at = &g->next;
        } else {
            *at = g->next;
            gemm__cl_program_free(g); /* OpenCL keeps it alive for commands still queued */
        }
    }
}

/* The options with their defaults, which depend on the kind of device:
   GPUs are measured where the speed goals are (n >= 2048), CPUs where their
   caches stop holding the operands (n ~ 1024). */
static void gemm__cl_tune_defaults(gemm__cl_tuner *t, const gemm_cl_tune_options *options)
{
    gemm_cl_tune_options *o = &t->o;
    int gpu = gemm__cl_is_gpu(t->ctx), i;
    memset(o, 0, sizeof *o);
    if (options) *o = *options;
    if (o->budget_s <= 0) o->budget_s = 120;
    if (o->refine_top <= 0) o->refine_top = 4;
    if (o->coarse_sizes[0] <= 0) {
        o->coarse_sizes[0] = o->tiny ? 48 : gpu ? 2048 : 512;
        o->coarse_sizes[1] = o->tiny ? 72 : gpu ? 4096 : 1024;
    }
    if (o->coarse_sizes[1] <= 0) o->coarse_sizes[1] = o->coarse_sizes[0];
    if (o->refine_sizes[0] <= 0) {
        o->refine_sizes[0] = o->tiny ? 64 : gpu ? 2048 : 512;
        o->refine_sizes[1] = o->tiny ? 96 : gpu ? 4096 : 1024;
        o->refine_sizes[2] = o->tiny ? 0 : gpu ? 8192 : 2048;
    }
    for (i = 0; i < 4 && o->refine_sizes[i] > 0; i++) t->nref++;
    for (i = 0; i < 2; i++) t->maxn = o->coarse_sizes[i] > t->maxn ? o->coarse_sizes[i] : t->maxn;
    for (i = 0; i < t->nref; i++) t->maxn = o->refine_sizes[i] > t->maxn ? o->refine_sizes[i] : t->maxn;
    if (t->maxn < 512) t->maxn = 512; /* the crossover search goes to 512 */
}

/* Random inputs on the host (double, and the device's precision) and on the device. */
static gemm_status gemm__cl_tune_data(gemm__cl_tuner *t, int max_cand)
{
    size_t elem = gemm_precision_size(t->prec), nn = (size_t)t->maxn * (size_t)t->maxn, i;
    uint64_t x = 2463534242ull;
    cl_int e = CL_SUCCESS;
    t->cands = (gemm__cl_cand *)gemm__cl_malloc(sizeof *t->cands * (size_t)max_cand);
    t->hA = (double *)gemm__cl_malloc(sizeof(double) * nn * 2);
    t->conv = gemm__cl_malloc(elem * nn * 2);
    if (!t->cands || !t->hA || !t->conv) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl_tune: out of host memory");
    t->hB = t->hA + nn;
    for (i = 0; i < nn * 2; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        t->hA[i] = (double)(x >> 40) / 16777216.0 - 0.5;
        if (t->prec == GEMM_F64) ((double *)t->conv)[i] = t->hA[i];
        else ((float *)t->conv)[i] = (float)t->hA[i];
    }
    t->A = gemm__cl_buffer(t->ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elem * nn, t->conv, &e);
    if (e == CL_SUCCESS)
        t->B = gemm__cl_buffer(t->ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elem * nn,
                              (char *)t->conv + elem * nn, &e);
    if (e == CL_SUCCESS) t->C = gemm__cl_buffer(t->ctx->context, CL_MEM_READ_WRITE, elem * nn, NULL, &e);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "gemm_cl_tune: clCreateBuffer");
}

static void gemm__cl_tune_free(gemm__cl_tuner *t)
{
    if (t->A) clReleaseMemObject(t->A);
    if (t->B) clReleaseMemObject(t->B);
    if (t->C) clReleaseMemObject(t->C);
    if (t->cands) GEMM_FREE(t->cands);
    if (t->hA) GEMM_FREE(t->hA);
    if (t->conv) GEMM_FREE(t->conv);
}

/* Stage 1's candidates: the set in use now first (the tuner never does
   worse than it), then the structures of the space. Lock held. */
static void gemm__cl_tune_candidates(gemm__cl_tuner *t, int max_cand)
{
    gemm__cl_program *g;
    gemm_cl_params cur;
    if (gemm__cl_select(t->ctx, t->prec, &g) == GEMM_OK) cur = gemm__cl_choice_of(t->ctx, t->prec)->params;
    else gemm__cl_params_parse(gemm__cl_safe, &cur);
    t->cands[0].p = cur;
    t->cands[0].score = -1;
    t->ncand = 1 + gemm__cl_space(t->ctx, t->prec, t->o.tiny, t->cands + 1, max_cand - 1);
    if (t->o.max_candidates > 0 && t->ncand > t->o.max_candidates) t->ncand = t->o.max_candidates;
}

/* One candidate at the two coarse sizes: its score, or -1 when it does
   not build, run or check; `line` says which. Lock held. */
static double gemm__cl_tune_one(gemm__cl_tuner *t, const gemm_cl_params *p, const char *stage, char *line, size_t size)
{
    const gemm_cl_tune_options *o = &t->o;
    double t0, t1, n0 = o->coarse_sizes[0], n1 = o->coarse_sizes[1];
    char pstr[256];
    gemm__cl_program *g;
    gemm_cl_params_str(p, pstr, sizeof pstr);
    t->res.tried++;
    if (gemm__cl_try(t->ctx, t->prec, p, &g, NULL) != GEMM_OK) {
        t->res.failed++;
        snprintf(line, size, "%s: skip %s: %.200s", stage, pstr, gemm_last_error_detail());
        return -1;
    }
    if ((t0 = gemm__cl_time(t, g, GEMM__CL_TILED, o->coarse_sizes[0])) < 0 || !gemm__cl_sample_ok(t, o->coarse_sizes[0]) ||
        (t1 = gemm__cl_time(t, g, GEMM__CL_TILED, o->coarse_sizes[1])) < 0) {
        t->res.failed++;
        snprintf(line, size, "%s: skip %s: failed to run or wrong result", stage, pstr);
        return -1;
    }
    t->res.built++;
    t0 = 0.5 * (2e-9 * n0 * n0 * n0 / t0 + 2e-9 * n1 * n1 * n1 / t1);
    snprintf(line, size, "%s: %8.1f GFLOP/s  %s", stage, t0, pstr);
    return t0;
}

/* Measures candidates [from, to) at the coarse sizes while the time spent
   is below `until` of the budget; returns the index after the last measured. */
static int gemm__cl_tune_coarse(gemm__cl_tuner *t, int from, int to, double until, const char *stage)
{
    char line[512];
    int i;
    for (i = from; i < to; i++) {
        if (gemm__cl_now() - t->start > until * t->o.budget_s) break;
        t->cands[i].score = gemm__cl_tune_one(t, &t->cands[i].p, stage, line, sizeof line);
        if (t->o.progress) t->o.progress(t->o.user, i - from + 1, to - from, line);
    }
    return i;
}

/* Stage 2: every one-knob change of the best refine_top of stage 1,
   appended to the candidates and measured; then all of them best first. */
static void gemm__cl_tune_stage2(gemm__cl_tuner *t, int max_cand)
{
    size_t elem = gemm_precision_size(t->prec);
    int i, n = t->ncand;
    qsort(t->cands, (size_t)t->ncand, sizeof *t->cands, gemm__cl_by_score);
    for (i = 0; !t->o.tiny && i < t->o.refine_top && i < t->ncand && t->cands[i].score > 0; i++)
        gemm__cl_neighbours(t->ctx, elem, &t->cands[i].p, t->cands, max_cand, &n);
    if (t->o.max_candidates > 0 && n > t->o.max_candidates) n = t->o.max_candidates;
    t->ncand = gemm__cl_tune_coarse(t, t->ncand, n, 0.8, "stage 2");
    qsort(t->cands, (size_t)t->ncand, sizeof *t->cands, gemm__cl_by_score);
}

/* Refinement: the best few over the range of sizes, mean GFLOP/s. Returns
   1 when one ran, in res.best. */
static int gemm__cl_tune_refine(gemm__cl_tuner *t)
{
    const gemm_cl_tune_options *o = &t->o;
    char line[512], pstr[256];
    gemm__cl_program *g;
    int i, j, top = 0, found = 0;
    while (top < o->refine_top && top < t->ncand && t->cands[top].score > 0) top++;
    for (i = 0; i < top; i++) {
        const gemm_cl_params *q = &t->cands[i].p;
        double sum = 0;
        int ok = gemm__cl_try(t->ctx, t->prec, q, &g, NULL) == GEMM_OK;
        for (j = 0; ok && j < t->nref; j++) {
            double n = o->refine_sizes[j], s = gemm__cl_time(t, g, GEMM__CL_TILED, o->refine_sizes[j]);
            ok = s > 0;
            sum += ok ? 2e-9 * n * n * n / s : 0;
        }
        gemm_cl_params_str(q, pstr, sizeof pstr);
        if (ok) snprintf(line, sizeof line, "refine: %8.1f GFLOP/s  %s", sum / t->nref, pstr);
        else snprintf(line, sizeof line, "refine: skip %s: failed to build or run", pstr);
        if (o->progress) o->progress(o->user, i + 1, top, line);
        if (ok && sum / t->nref > t->res.best_gflops) {
            t->res.best_gflops = sum / t->nref;
            t->res.best = *q;
            found = 1;
        }
        if (gemm__cl_now() - t->start > o->budget_s) break;
    }
    return found;
}

/* The largest size (up to 512) where the direct kernel still wins, then the
   winner becomes the context's set. Lock held. */
static gemm_status gemm__cl_tune_crossover(gemm__cl_tuner *t)
{
    gemm__cl_program *g;
    gemm_status s;
    int n;
    t->res.best.direct = 0;
    if ((s = gemm__cl_try(t->ctx, t->prec, &t->res.best, &g, NULL)) != GEMM_OK) return s;
    for (n = 16; n <= 512; n = n < 64 ? n + 16 : n * 3 / 2) {
        double td = gemm__cl_time(t, g, GEMM__CL_DIRECT, n), tt = gemm__cl_time(t, g, GEMM__CL_TILED, n);
        if (td > 0 && tt > 0 && td < tt) t->res.best.direct = n;
        else break;
    }
    gemm__cl_install(t->ctx, t->prec, g, &t->res.best, "tuned");
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_tune(gemm_cl_context *ctx, gemm_precision precision, const gemm_cl_tune_options *options,
                                  gemm_cl_tune_result *result)
{
    const int max_cand = 16384;
    gemm__cl_tuner t;
    char pstr[256];
    gemm_status s;
    int found;
    gemm__clear_error();
    memset(&t, 0, sizeof t);
    if ((s = gemm__cl_usable(ctx, precision, "gemm_cl_tune")) != GEMM_OK) goto done;
    t.ctx = ctx;
    t.prec = precision;
    t.start = gemm__cl_now();
    gemm__cl_tune_defaults(&t, options);
    if ((s = gemm__cl_tune_data(&t, max_cand)) != GEMM_OK) goto done;
    gemm__cl_lock_take(&ctx->lock);
    gemm__cl_tune_candidates(&t, max_cand);
    t.ncand = gemm__cl_tune_coarse(&t, 0, t.ncand, 0.5, "stage 1");
    gemm__cl_tune_stage2(&t, max_cand);
    found = gemm__cl_tune_refine(&t);
    if (found) s = gemm__cl_tune_crossover(&t);
    else s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl_tune: no candidate built and ran correctly on %s", ctx->device_name);
    gemm__cl_prune(ctx);
    gemm__cl_lock_give(&ctx->lock);
    if (found) {
        gemm_cl_params_str(&t.res.best, pstr, sizeof pstr);
        snprintf(t.res.line, sizeof t.res.line, "%s %.200s device=%.255s", gemm_precision_name(precision), pstr,
                 ctx->device_name);
    }
    if (s == GEMM_OK && t.o.output && t.o.output[0])
        s = gemm__cl_write_tuning(ctx, t.o.output, t.res.line, gemm__cl_prec_prefix(precision), ctx->device_name);
done:
    gemm__cl_tune_free(&t);
    if (result) *result = t.res;
    return s;
}
