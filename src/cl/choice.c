/* Which program each precision uses: looked up on first use (lookup.c, which
   also names where the set came from: "tuning file F, line N", "built-in:
   KEY", "default"), built once per context (program.c), checked against the
   reference on small problems with ragged edges, every kernel of it
   (drivers do miscompile GEMM kernels), and replaced by the safe default
   kernel when it fails to build or to check: the call succeeds, and
   gemm_cl_kernel_info_get (and that call's gemm_last_error_detail) says
   why. A transient failure (out of host or device memory) is returned as
   such and replaces nothing: the next call tries again. The checks and the
   tuner run on the context's private queue (lane 1), never behind the
   caller's commands. */
#pragma once

#include <math.h> /* fabs */
#include <stdio.h>
#include <string.h>

#include "internal.h" /* gemm__prepare, gemm_ref_dgemm */
#include "context.c"
#include "host.c" /* gemm__cl_host, for the self-check */
#include "lookup.c"
#include "params.c"
#include "program.c" /* gemm__cl_program_get */
#include "run.c" /* gemm__cl_path */

/* ctx is usable for prec: not NULL, a precision OpenCL runs, fp64 on the device. */
static gemm_status gemm__cl_usable(gemm_cl_context *ctx, gemm_precision prec, const char *func)
{
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    if (prec != GEMM_F32 && prec != GEMM_F64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: precision %d is not GEMM_F32 or GEMM_F64", func, (int)prec);
    if (prec == GEMM_F64 && !ctx->has_fp64)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the device (%s) has no cl_khr_fp64", func, ctx->device_name);
    return GEMM_OK;
}

/* One small problem through one kernel of g (path), against the reference:
   for the tiled kernel several tiles and ragged edges in every dimension;
   for the small kernel (path SMALL) 2 x 2 tiles of 64 with ragged edges
   and a partial k-step when `big`, else 5 x 7 x 9 (a 32 tile).
   GEMM_ERR_DEVICE for a wrong result; any other failure (memory, the
   device) is the status of that failure. */
static gemm_status gemm__cl_check_path(gemm_cl_context *ctx, gemm__cl_program *g, gemm__cl_path path, int big)
{
    const gemm_cl_params *p = &g->params;
    int tiled = path == GEMM__CL_TILED, f64 = g->prec == GEMM_F64;
    int64_t m = tiled ? 2 * p->mwg + 3 : big ? 67 : 5, n = tiled ? 2 * p->nwg + 5 : big ? 69 : 7;
    int64_t k = tiled ? 2 * p->kwg + 7 : big ? 39 : 9;
    int64_t i, cnt = m * n + m * k + k * n;
    gemm_layout lay = tiled ? GEMM_ROW_MAJOR : GEMM_COL_MAJOR;
    gemm_transpose ta = tiled ? GEMM_NO_TRANS : GEMM_TRANS, tb = tiled ? GEMM_TRANS : GEMM_NO_TRANS;
    int64_t lda = (lay == GEMM_ROW_MAJOR) == (ta == GEMM_NO_TRANS) ? k : m;
    int64_t ldb = (lay == GEMM_ROW_MAJOR) == (tb == GEMM_NO_TRANS) ? n : k;
    int64_t ldc = lay == GEMM_ROW_MAJOR ? n : m;
    double *buf = (double *)gemm__cl_malloc(sizeof(double) * (size_t)(cnt + m * n));
    float *fbuf = (float *)gemm__cl_malloc(sizeof(float) * (size_t)(cnt + m * n));
    double eps = f64 ? 2.220446049250313e-16 : 1.1920929e-7, bound = 4 * eps * (double)k * 0.375;
    uint64_t x = 88172645463325252ull;
    gemm__problem pr;
    char pstr[256];
    gemm_status s = buf && fbuf ? GEMM_OK : gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl self-check: out of host memory");
    for (i = 0; s == GEMM_OK && i < cnt + m * n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = (double)(x >> 40) / 16777216.0 - 0.5; /* exact in float */
        fbuf[i] = (float)buf[i];
    }
    gemm_cl_params_str(p, pstr, sizeof pstr);
    if (s == GEMM_OK) s = gemm__prepare("gemm_cl self-check", lay, ta, tb, m, n, k, 0, 1, lda, 1, ldb, 0, 1, ldc, &pr);
    if (s == GEMM_OK) {
        double *A = buf, *B = buf + m * k, *C = B + k * n, *R = C + m * n;
        float *fA = fbuf, *fB = fbuf + m * k, *fC = fB + k * n;
        const void *a = f64 ? (const void *)A : (const void *)fA, *b = f64 ? (const void *)B : (const void *)fB;
        memcpy(R, C, sizeof(double) * (size_t)(m * n));
        gemm_ref_dgemm(lay, ta, tb, m, n, k, 1.5, A, lda, B, ldb, -0.5, R, ldc);
        s = gemm__cl_host(ctx, &ctx->lane[1], g->prec, g, NULL, path, &pr, 1.5, pr.swapped ? b : a, pr.swapped ? a : b,
                          -0.5, f64 ? (void *)C : (void *)fC, NULL);
        for (i = 0; s == GEMM_OK && i < m * n; i++)
            if (!(fabs((f64 ? C[i] : (double)fC[i]) - R[i]) <= bound))
                s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl: the %s kernels with %s gave a wrong result in the self-check "
                               "on %s", gemm_precision_name(g->prec), pstr, ctx->device_name);
    }
    if (buf) GEMM_FREE(buf);
    if (fbuf) GEMM_FREE(fbuf);
    return s;
}

/* Checks g once, every kernel: 1 when right, -1 when wrong (or when the
   device cannot run it), 0 when a transient failure (memory) left the
   question open: then *status says why and the next call asks again. The
   small kernel (both tiles, where the device runs them) is an option of
   batches: when it alone fails, g stays usable without it (small_bad). */
static int gemm__cl_check(gemm_cl_context *ctx, gemm__cl_program *g, gemm_status *status)
{
    size_t elem = gemm_precision_size(g->prec);
    gemm_status s = gemm__cl_check_path(ctx, g, GEMM__CL_DIRECT, 0), t = GEMM_OK;
    if (s == GEMM_OK) s = gemm__cl_check_path(ctx, g, GEMM__CL_TILED, 0);
    if (s == GEMM_OK && gemm__cl_small_fits(32, ctx->max_wg, ctx->local_mem, elem))
        t = gemm__cl_check_path(ctx, g, GEMM__CL_SMALL, 0);
    if (s == GEMM_OK && t == GEMM_OK && gemm__cl_small_fits(64, ctx->max_wg, ctx->local_mem, elem))
        t = gemm__cl_check_path(ctx, g, GEMM__CL_SMALL, 1);
    g->small_bad = t != GEMM_OK && t != GEMM_ERR_OUT_OF_MEMORY;
    if (t == GEMM_ERR_OUT_OF_MEMORY) s = t;
    *status = s;
    return s == GEMM_OK ? 1 : s == GEMM_ERR_OUT_OF_MEMORY ? 0 : -1;
}

/* Builds and checks one set; lock held. A program that fails its check
   leaves no cache entry behind; one that came from the disk cache is built
   again from source and checked again, as the binary may be what was
   wrong. *bad (may be NULL): the failure is the set's own (it does not
   build, does not fit the device, computes wrong), not a transient one
   (memory) that the next call may not meet. */
static gemm_status gemm__cl_try(gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                                gemm__cl_program **out, int *bad)
{
    gemm_status s = gemm__cl_program_get(ctx, prec, p, 0, out);
    int verdict; /* 1 right, -1 the set's own failure, 0 transient */
    if (s != GEMM_OK) {
        verdict = s == GEMM_ERR_OUT_OF_MEMORY ? 0 : -1;
    } else if (ctx->no_self_check || (*out)->checked != 0) {
        verdict = ctx->no_self_check ? 1 : (*out)->checked;
        if (verdict < 0)
            s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl: this %s parameter set failed its self-check on %s before",
                           gemm_precision_name(prec), ctx->device_name);
    } else {
        verdict = gemm__cl_check(ctx, *out, &s);
        if (verdict < 0 && (*out)->cached) {
            gemm__cl_uncache(ctx, *out);
            gemm__cl_program_drop(ctx, *out);
            *out = NULL;
            s = gemm__cl_program_get(ctx, prec, p, 1, out);
            verdict = s != GEMM_OK ? (s == GEMM_ERR_OUT_OF_MEMORY ? 0 : -1) : gemm__cl_check(ctx, *out, &s);
        }
        if (*out && verdict != 0) (*out)->checked = verdict;
        if (*out && verdict < 0 && ctx->cache_dir[0]) gemm__cl_uncache(ctx, *out);
    }
    if (s == GEMM_OK && *out && p->small > 1 && (*out)->small_bad) { /* the set asks for the kernel that failed */
        s = gemm__fail(GEMM_ERR_DEVICE, "gemm_cl: SMALL=%d: the %s small kernel failed its self-check on %s", p->small,
                       gemm_precision_name(prec), ctx->device_name);
        verdict = -1;
    }
    if (bad) *bad = verdict < 0;
    return s;
}

/* Makes (g, p) prec's choice; lock held. */
static void gemm__cl_install(gemm_cl_context *ctx, gemm_precision prec, gemm__cl_program *g,
                             const gemm_cl_params *p, const char *origin)
{
    gemm__cl_choice *ch = gemm__cl_choice_of(ctx, prec);
    ch->prog = g;
    ch->params = *p;
    snprintf(ch->origin, sizeof ch->origin, "%s", origin);
    ch->reason[0] = '\0';
}

/* prec's program, picked (and checked) on first use; callers check
   gemm__cl_usable first. Lock held. A set that is bad on this device is
   replaced by the safe default for good; after a transient failure nothing
   is chosen, so the next call tries the same set again. */
static gemm_status gemm__cl_select(gemm_cl_context *ctx, gemm_precision prec, gemm__cl_program **out)
{
    gemm__cl_choice *ch = gemm__cl_choice_of(ctx, prec);
    char origin[sizeof ch->origin], reason[sizeof ch->reason];
    gemm_cl_params p;
    gemm_status s;
    int bad = 0;
    if (ch->prog) { *out = ch->prog; return GEMM_OK; }
    gemm__cl_lookup(ctx->tuning_file, ctx->device_name, prec, &p, origin, sizeof origin);
    reason[0] = '\0';
    s = gemm__cl_try(ctx, prec, &p, out, &bad);
    if (s != GEMM_OK && !bad) return s;
    if (s != GEMM_OK) {
        snprintf(reason, sizeof reason, "%.380s [%.120s]", gemm_last_error_detail(), origin);
        snprintf(origin, sizeof origin, "safe default");
        gemm__cl_params_parse(gemm__cl_safe, &p);
        if ((s = gemm__cl_try(ctx, prec, &p, out, NULL)) != GEMM_OK) return s;
        /* the call succeeds; the detail still tells why the tuned set was dropped */
        gemm__fail(GEMM_OK, "gemm_cl: fell back to the safe default kernel: %s", reason);
    }
    ch->prog = *out;
    ch->params = p;
    memcpy(ch->origin, origin, sizeof origin);
    memcpy(ch->reason, reason, sizeof reason);
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_kernel_info_get(gemm_cl_context *ctx, gemm_precision precision,
                                             gemm_cl_kernel_info *info)
{
    const char *func = "gemm_cl_kernel_info_get";
    gemm__cl_choice *ch;
    gemm__cl_program *g;
    gemm_status s;
    gemm__clear_error();
    if (!info) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: info is NULL", func);
    memset(info, 0, sizeof *info);
    if ((s = gemm__cl_usable(ctx, precision, func)) != GEMM_OK) return s;
    snprintf(info->device_name, sizeof info->device_name, "%s", ctx->device_name);
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_select(ctx, precision, &g);
    if (s == GEMM_OK) {
        ch = gemm__cl_choice_of(ctx, precision);
        info->params = ch->params;
        snprintf(info->origin, sizeof info->origin, "%s", ch->origin);
        snprintf(info->fallback_reason, sizeof info->fallback_reason, "%s", ch->reason);
    }
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

GEMM_DEF gemm_status gemm_cl_set_params(gemm_cl_context *ctx, gemm_precision precision, const gemm_cl_params *params)
{
    gemm__cl_program *g;
    gemm_status s;
    gemm__clear_error();
    if (!params) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_set_params: params is NULL");
    if ((s = gemm__cl_usable(ctx, precision, "gemm_cl_set_params")) != GEMM_OK) return s;
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_try(ctx, precision, params, &g, NULL);
    if (s == GEMM_OK) gemm__cl_install(ctx, precision, g, params, "set by caller");
    gemm__cl_lock_give(&ctx->lock);
    return s;
}
