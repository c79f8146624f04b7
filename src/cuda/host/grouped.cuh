/* Grouped batches (gemm_cuda_?gemm_grouped_batched): groups of
   pointer-array batches, each group with its own transposes, sizes,
   alpha, beta and leading dimensions, in cblas_?gemm_batch's argument
   order (and cublasGemmGroupedBatchedEx's). Every group is checked -- its
   arguments, then the lists, then its members (overlaps within the group,
   each member's memory) -- before anything is queued, so a refused call
   writes nothing; then, when every member of the call is small and the
   groups are apart, all groups in one launch of the tiny kernel's code
   through a table of the groups (kernels/tiny_grouped.cuh); else the
   groups in order on the stream, each as one pointer-array batch (the
   chooser's plan for its shape, one launch for its members; all groups'
   lists reach the device in one copy), a group of one member as the
   single call. */
#pragma once
#include <stdint.h>
#include <stdio.h> /* snprintf */
#include <string.h> /* memset */
#include "../../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
#include "../../core/internal.h" /* gemm__prepare, gemm__prepare_batched */
#include "../../core/lists.c" /* gemm__pointer_list_addr, gemm__list_range */
#include "../../core/overlap.c" /* gemm__check_batch_overlap_sized */
#include "batch_run.cuh" /* gemm__cuda_read_lists, _batch_memory, _launch */
#include "choose.cuh" /* gemm__cuda_is_tc, gemm__cuda_check_exact, _check_tc */
#include "entry.cuh" /* gemm__cuda_call */
#include "../kernels/tiny_grouped.cuh"

/* The per-group arrays of one call (T: fp32 or fp64). */
template <typename T> struct gemm__cuda_groups {
    gemm_layout layout;
    const gemm_transpose *ta, *tb;
    const int64_t *m, *n, *k, *lda, *ldb, *ldc, *size;
    const T *alpha, *beta;
    int64_t count;
};

/* A check of group i, run as check(fn); on a refusal, run again as
   check("fn, group i") so that the message names the group. The name is
   formatted only for a refusal: a call of many groups formats none. The
   checks read what the caller passed and nothing they change, so the
   second run refuses as the first did. */
template <typename F> static gemm_status gemm__cuda_group_checked(const char *fn, int64_t i, F check)
{
    char name[160];
    gemm_status s = check(fn);
    if (s == GEMM_OK) return s;
    snprintf(name, sizeof name, "%s, group %lld", fn, (long long)i);
    return check(name);
}

/* The arguments that need no memory but the caller's arrays: group_count,
   the arrays' presence, every group_size and each group's single-call
   checks (p[g]); *total is the members of all groups, *work the most work
   any group with members does. */
template <typename T>
static gemm_status gemm__cuda_groups_check(const char *fn, const gemm__cuda_groups<T> &g, gemm__problem *p,
                                           int64_t *total, gemm__work *work)
{
    const void *arrays[] = {g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.lda, g.ldb, g.beta, g.ldc, g.size};
    static const char *const names[] = {"transa_array", "transb_array", "m_array", "n_array", "k_array",
                                        "alpha_array", "lda_array", "ldb_array", "beta_array", "ldc_array",
                                        "group_size"};
    *total = 0;
    *work = GEMM__WORK_NONE;
    for (int i = 0; i < (int)(sizeof arrays / sizeof arrays[0]); i++)
        if (!arrays[i])
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is NULL (it holds one entry per group, %lld groups)", fn,
                              names[i], (long long)g.count);
    for (int64_t i = 0; i < g.count; i++) {
        if (g.size[i] < 0)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: group_size[%lld] = %lld is negative", fn, (long long)i,
                              (long long)g.size[i]);
        if (g.size[i] > INT64_MAX / (int64_t)(3 * sizeof(void *)) - *total)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the groups' sizes add up past what one call can list", fn);
        *total += g.size[i];
    }
    for (int64_t i = 0; i < g.count; i++) {
        gemm_status s = gemm__cuda_group_checked(fn, i, [&](const char *name) {
            return gemm__prepare(name, g.layout, g.ta[i], g.tb[i], g.m[i], g.n[i], g.k[i], g.alpha[i] == T(0), 1,
                                 g.lda[i], 1, g.ldb[i], g.beta[i] == T(1), 1, g.ldc[i], &p[i]);
        });
        if (s != GEMM_OK) return s;
        if (g.size[i] > 0 && p[i].work > *work) *work = p[i].work;
    }
    return GEMM_OK;
}

/* Whether the call runs as one launch of the grouped tiny kernel
   (kernels/tiny_grouped.cuh): every group with work multiplies (alpha !=
   0, k > 0) members of m, n and k at most 64 in an exact mode, with the
   options that keep the tiny kernel (kernel AUTO, K whole) on sm_80+;
   *tile: 16 when every member fits 16 x 16, else 32 (a member of 64 x 64
   is four tiles). The groups must also be apart (gemm__cuda_groups_apart):
   one launch runs them side by side, where the call promises them in
   order. */
template <typename T>
static bool gemm__cuda_grouped_all_tiny(const gemm__cuda_groups<T> &g, const gemm__problem *p,
                                        const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, int *tile)
{
    int64_t listed = 0;
    *tile = 16;
    if (gemm__cuda_is_tc<T>(opt) || g.count > INT32_MAX || opt->kernel != GEMM_CUDA_KERNEL_AUTO ||
        opt->split_k > 1 || gpu->major < 8)
        return false;
    for (int64_t i = 0; i < g.count; i++) {
        if (g.size[i] == 0 || p[i].work == GEMM__WORK_NONE) continue;
        if (p[i].work != GEMM__WORK_FULL || p[i].m > 64 || p[i].n > 64 || p[i].k > 64) return false;
        if (p[i].m > 16 || p[i].n > 16) *tile = 32;
        listed++;
    }
    return listed > 0;
}

/* The span [lo, hi) of the bytes a group's members of one operand cover
   (list: their addresses, each `bytes` long). */
static void gemm__cuda_group_span(const gemm__batch *b, const void *list, gemm__batch_addr_fn addr, uint64_t bytes,
                                  uint64_t *lo, uint64_t *hi)
{
    gemm__list_range(list, addr, b->count, lo, hi);
    *hi += bytes;
}

/* Whether no group's C meets another group's A, B or C: then running the
   groups side by side gives what running them in order does. Each group's
   members of an operand are taken as one span (its lowest address to its
   highest member's end), so groups that interleave in one buffer count as
   meeting and run in order; at most 64 groups are compared pairwise. */
template <typename T>
static bool gemm__cuda_groups_apart(const gemm__cuda_groups<T> &g, const gemm__problem *p, const gemm__batch *hb)
{
    uint64_t lo[64][3], hi[64][3];
    int used = 0;
    for (int64_t i = 0; i < g.count; i++) {
        const gemm__batch *b = &hb[i];
        if (g.size[i] == 0 || p[i].work == GEMM__WORK_NONE) continue;
        if (used == 64) return false;
        gemm__cuda_group_span(b, b->a_list, b->addr_ab, (uint64_t)p[i].a_extent * sizeof(T), &lo[used][0], &hi[used][0]);
        gemm__cuda_group_span(b, b->b_list, b->addr_ab, (uint64_t)p[i].b_extent * sizeof(T), &lo[used][1], &hi[used][1]);
        gemm__cuda_group_span(b, b->c_list, b->addr_c, (uint64_t)p[i].c_extent * sizeof(T), &lo[used][2], &hi[used][2]);
        used++;
    }
    for (int x = 0; x < used; x++)
        for (int y = 0; y < used; y++)
            for (int o = 0; o < 3 && x != y; o++)
                if (lo[x][2] < hi[y][o] && lo[y][o] < hi[x][2]) return false;
    return true;
}

/* Every group's members in one launch of the tiny grouped kernel: the
   table of the groups with work, uploaded with the lists in one copy
   (*lists, which the caller gives back after the launch). */
template <typename T>
static gemm_status gemm__cuda_grouped_tiny(const char *fn, const gemm__cuda_groups<T> &g, const gemm__problem *p,
                                           const gemm__batch *hb, int dev, int tile, cudaStream_t stream,
                                           gemm__cuda_upload *lists)
{
    const int G = gemm__cuda_tiny_shape<T, 32>::G; /* tiles a block, at either tile size */
    static_assert(gemm__cuda_tiny_shape<T, 16>::G == gemm__cuda_tiny_shape<T, 32>::G, "a group's blocks depend on the tile");
    gemm__cuda_tiny_group<T> *table;
    int64_t used = 0, at = 0, blocks = 0, members = 0;
    size_t bytes;
    gemm_status s;
    cudaError_t e;
    for (int64_t i = 0; i < g.count; i++) used += g.size[i] > 0 && p[i].work != GEMM__WORK_NONE;
    bytes = (size_t)used * sizeof(gemm__cuda_tiny_group<T>);
    if (!(table = (gemm__cuda_tiny_group<T> *)GEMM_MALLOC(bytes)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for the table of %lld groups", fn,
                          (long long)used);
    memset(table, 0, bytes);
    for (int64_t i = 0, j = 0; i < g.count; i++) {
        gemm__cuda_tiny_group<T> *t = &table[j];
        int64_t count = hb[i].c_list ? hb[i].count : 0;
        if (g.size[i] > 0 && p[i].work != GEMM__WORK_NONE) {
            t->a = at; /* gemm__cuda_upload_lists' order: a, b, then c, group after group */
            t->b = at + count;
            t->c = at + 2 * count;
            t->lda = p[i].lda;
            t->ldb = p[i].ldb;
            t->ldc = p[i].ldc;
            t->block0 = blocks;
            t->count = count;
            t->alpha = g.alpha[i];
            t->beta = g.beta[i];
            t->m = (int)p[i].m;
            t->n = (int)p[i].n;
            t->k = (int)p[i].k;
            t->ak = p[i].a_trans;
            t->bk = !p[i].b_trans;
            t->tiles_m = (t->m + tile - 1) / tile;
            t->tiles = t->tiles_m * ((t->n + tile - 1) / tile);
            blocks += (count * t->tiles + G - 1) / G;
            j++;
        }
        at += 3 * count;
        members += count;
    }
    if (blocks > INT32_MAX) {
        GEMM_FREE(table);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld blocks of tiles are more than one launch takes", fn,
                          (long long)blocks);
    }
    s = gemm__cuda_upload_lists(fn, hb, g.count, dev, stream, lists, table, bytes);
    GEMM_FREE(table);
    if (s != GEMM_OK || blocks == 0) return s;
    {
        const int64_t *d = (const int64_t *)lists->device;
        const gemm__cuda_tiny_group<T> *dt = (const gemm__cuda_tiny_group<T> *)(d + 3 * members);
        if (tile == 16)
            gemm__cuda_tiny_grouped_kernel<T, 16><<<(unsigned)blocks, 256, 0, stream>>>(dt, (int)used, d);
        else gemm__cuda_tiny_grouped_kernel<T, 32><<<(unsigned)blocks, 256, 0, stream>>>(dt, (int)used, d);
        if ((e = cudaGetLastError()) != cudaSuccess) return gemm__cuda_fail(fn, "kernel launch", e);
    }
#ifdef GEMM__TEST_HOOKS
    snprintf(gemm__cuda_exact_last_text, sizeof gemm__cuda_exact_last_text, "tiny grouped %dx%d groups %lld blocks %lld",
             tile, tile, (long long)used, (long long)blocks);
#endif
    return GEMM_OK;
}

template <typename T>
static gemm_status gemm__cuda_grouped(const char *fn, cudaStream_t stream, const gemm__cuda_groups<T> &g,
                                      const T *const *A, const T *const *B, T *const *C, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__problem *p = NULL;
    gemm__batch *hb = NULL;
    const void *la = NULL, *lb = NULL, *lc = NULL;
    void *held = NULL;
    gemm__cuda_upload lists = {NULL, -1, -1};
    int64_t total = 0, off = 0, at = 0, i;
    gemm__work work = GEMM__WORK_NONE;
    gemm__cuda_spans met = {}; /* the allocations the groups' checks have met: each looked up once */
    char name[160];
    gemm_status s = GEMM_OK;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    if (g.count < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: group_count = %lld is negative", fn, (long long)g.count);
    if (g.count == 0) return GEMM_OK;
    if ((uint64_t)g.count > SIZE_MAX / (sizeof(gemm__problem) + sizeof(gemm__batch)) ||
        !(p = (gemm__problem *)GEMM_MALLOC((size_t)g.count * sizeof(gemm__problem))) ||
        !(hb = (gemm__batch *)GEMM_MALLOC((size_t)g.count * sizeof(gemm__batch)))) {
        if (p) GEMM_FREE(p);
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for %lld groups' checks", fn,
                          (long long)g.count);
    }
    memset(hb, 0, (size_t)g.count * sizeof(gemm__batch));
    s = gemm__cuda_groups_check<T>(fn, g, p, &total, &work);
    if (s == GEMM_OK) /* as the pointer-array batches: options.math may put fp32 on the tensor cores */
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_check_tc(fn, opt) : gemm__cuda_check_exact(fn, opt, (int)sizeof(T) * 8);
    if (s == GEMM_OK && opt->verify)
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.verify is offered for single CUDA calls, not for batches "
                       "(yet): nothing was written", fn);
    if (s == GEMM_OK && work != GEMM__WORK_NONE)
        s = gemm__cuda_read_lists(fn, work, A, B, C, total, stream, &held, &la, &lb, &lc);
    /* each group's members: the pointer-array batch's checks on its part of the lists */
    for (i = 0; i < g.count && s == GEMM_OK && work != GEMM__WORK_NONE; off += g.size[i], i++) {
        gemm__cuda_operands<T, T, T> x = {NULL, NULL, NULL, g.alpha[i], g.beta[i]};
        if (g.size[i] == 0 || p[i].work == GEMM__WORK_NONE) continue;
        s = gemm__cuda_group_checked(fn, i, [&](const char *name) {
            gemm_status r = gemm__prepare_batched(
                name, g.layout, g.ta[i], g.tb[i], g.m[i], g.n[i], g.k[i], g.alpha[i] == T(0),
                la ? (const void *)((const void *const *)la + off) : NULL, g.lda[i],
                lb ? (const void *)((const void *const *)lb + off) : NULL, g.ldb[i], g.beta[i] == T(1),
                (const void *)((const void *const *)lc + off), g.ldc[i], g.size[i], gemm__pointer_list_addr,
                gemm__pointer_list_addr, sizeof(T), &p[i], &hb[i]);
            if (r == GEMM_OK) r = gemm__check_batch_overlap_sized(name, &p[i], &hb[i], 0, 0, 0, sizeof(T), sizeof(T));
            return r == GEMM_OK ? gemm__cuda_batch_memory(name, &p[i], &hb[i], x, &met) : r;
        });
    }
    if (s == GEMM_OK && work != GEMM__WORK_NONE) { /* every group's lists in one copy */
        gemm__cuda_gpu gpu;
        int tile = 0;
        s = gemm__cuda_query(fn, &gpu);
        if (s == GEMM_OK && gemm__cuda_grouped_all_tiny<T>(g, p, opt, &gpu, &tile) &&
            gemm__cuda_groups_apart<T>(g, p, hb)) {
            s = gemm__cuda_grouped_tiny<T>(fn, g, p, hb, gpu.dev, tile, stream, &lists);
            work = GEMM__WORK_NONE; /* ran: nothing left for the loop below */
        } else if (s == GEMM_OK)
            s = gemm__cuda_upload_lists(fn, hb, g.count, gpu.dev, stream, &lists);
    }
    /* then the launches, group after group; a group of one member is the
       single call (whose chooser splits K and picks tiles for a lone
       product: a batch's plan keeps K whole, and a member of 128 rows
       alone would fill a quarter of the SMs) */
    for (i = 0, off = 0; i < g.count && s == GEMM_OK && work != GEMM__WORK_NONE; off += g.size[i], i++) {
        gemm__cuda_operands<T, T, T> x = {NULL, NULL, NULL, g.alpha[i], g.beta[i]};
        const int64_t *listed = (const int64_t *)lists.device + at;
        at += hb[i].c_list ? 3 * hb[i].count : 0; /* gemm__cuda_upload_lists' order */
        if (g.size[i] == 0 || p[i].work == GEMM__WORK_NONE) continue;
        snprintf(name, sizeof name, "%s, group %lld", fn, (long long)i);
        if (g.size[i] == 1)
            s = gemm__cuda_call<T, T, T>(name, stream, false, g.layout, g.ta[i], g.tb[i], g.m[i], g.n[i], g.k[i],
                                         g.alpha[i], la ? (const T *)((const void *const *)la)[off] : NULL, g.lda[i],
                                         lb ? (const T *)((const void *const *)lb)[off] : NULL, g.ldb[i], g.beta[i],
                                         (T *)((void *const *)lc)[off], g.ldc[i], opt);
        else s = gemm__cuda_batch_launch(name, &p[i], &hb[i], x, opt, stream, listed);
    }
    s = gemm__cuda_upload_done(fn, &lists, stream, s);
    if (held) GEMM_FREE(held);
    GEMM_FREE(p);
    GEMM_FREE(hb);
    return s;
}

extern "C" {

GEMM_DEF gemm_status gemm_cuda_sgemm_grouped_batched(cudaStream_t stream, gemm_layout layout,
                                                     const gemm_transpose transa_array[],
                                                     const gemm_transpose transb_array[], const int64_t m_array[],
                                                     const int64_t n_array[], const int64_t k_array[],
                                                     const float alpha_array[], const float *const A_array[],
                                                     const int64_t lda_array[], const float *const B_array[],
                                                     const int64_t ldb_array[], const float beta_array[],
                                                     float *const C_array[], const int64_t ldc_array[],
                                                     int64_t group_count, const int64_t group_size[],
                                                     const gemm_cuda_options *options)
{
    gemm__cuda_groups<float> g = {layout, transa_array, transb_array, m_array, n_array, k_array, lda_array,
                                  ldb_array, ldc_array, group_size, alpha_array, beta_array, group_count};
    return gemm__cuda_grouped<float>("gemm_cuda_sgemm_grouped_batched", stream, g, A_array, B_array, C_array, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_grouped_batched(cudaStream_t stream, gemm_layout layout,
                                                     const gemm_transpose transa_array[],
                                                     const gemm_transpose transb_array[], const int64_t m_array[],
                                                     const int64_t n_array[], const int64_t k_array[],
                                                     const double alpha_array[], const double *const A_array[],
                                                     const int64_t lda_array[], const double *const B_array[],
                                                     const int64_t ldb_array[], const double beta_array[],
                                                     double *const C_array[], const int64_t ldc_array[],
                                                     int64_t group_count, const int64_t group_size[],
                                                     const gemm_cuda_options *options)
{
    gemm__cuda_groups<double> g = {layout, transa_array, transb_array, m_array, n_array, k_array, lda_array,
                                   ldb_array, ldc_array, group_size, alpha_array, beta_array, group_count};
    return gemm__cuda_grouped<double>("gemm_cuda_dgemm_grouped_batched", stream, g, A_array, B_array, C_array,
                                      options);
}

} /* extern "C" */
