/* Batches on buffers: the checks every backend shares (gemm__prepare_strided,
   gemm__prepare_batched in core/batch.c), then OpenCL's own (the device,
   the sizes, every member inside its buffer), all before anything is
   enqueued; then one launch of each kernel for the whole batch
   (gemm__cl_launch, entry.c). */
#pragma once

#include <string.h>

#include "internal.h" /* gemm__prepare_strided, gemm__prepare_batched */
#include "entry.c" /* gemm__cl_capacity, gemm__cl_device_checks, gemm__cl_launch */
#include "memory.c"
#include "run.c"

/* Member i of a strided operand at off + i*stride, `extent` elements long,
   inside buffer X (`name`), for i < count: else the first that is not,
   named in the detail (*bad: its index). */
static gemm_status gemm__cl_strided_fit(const gemm_cl_context *ctx, cl_mem X, size_t off, int64_t stride,
                                        int64_t extent, int64_t count, size_t elem, const char *func,
                                        const char *name, int64_t *bad)
{
    size_t cap = 0;
    uint64_t room;
    int64_t i;
    gemm_status s = gemm__cl_capacity(ctx, X, elem, func, name, &cap);
    if (s != GEMM_OK || extent == 0) return s;
    if (off > cap || (uint64_t)extent > (uint64_t)(cap - off)) {
        i = 0;
    } else {
        room = (uint64_t)(cap - off) - (uint64_t)extent; /* how far the last member may start past the first */
        if (stride == 0 || (uint64_t)(count - 1) <= room / (uint64_t)stride) return GEMM_OK;
        i = (int64_t)(room / (uint64_t)stride) + 1;
    }
    *bad = i;
    /* off + i*stride fits: off <= cap here (or i == 0), and i*stride < 2^60 (gemm__prepare_strided) */
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: member %lld: %s holds %llu elements; offset %llu + extent %lld do "
                      "not fit", func, (long long)i, name, (unsigned long long)cap,
                      (unsigned long long)(off + (uint64_t)(i * stride)), (long long)extent);
}

/* Member i of a listed operand at offs[i], `extent` elements long, inside
   buffer X for every i < count: else the first that is not. */
static gemm_status gemm__cl_listed_fit(const gemm_cl_context *ctx, cl_mem X, const size_t *offs, int64_t extent,
                                       int64_t count, size_t elem, const char *func, const char *name, int64_t *bad)
{
    size_t cap = 0;
    int64_t i;
    gemm_status s = gemm__cl_capacity(ctx, X, elem, func, name, &cap);
    if (s != GEMM_OK || extent == 0) return s;
    for (i = 0; i < count; i++)
        if (offs[i] > cap || (uint64_t)extent > (uint64_t)(cap - offs[i])) {
            *bad = i;
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: member %lld: %s holds %llu elements; off%c[%lld] = %llu + "
                              "extent %lld do not fit", func, (long long)i, name, (unsigned long long)cap,
                              name[0] + 'a' - 'A', (long long)i, (unsigned long long)offs[i], (long long)extent);
        }
    return GEMM_OK;
}

/* The caller's operands (A, B, C in the caller's order), present and large
   enough for every member; `fit` checks one of them. The extents of the
   caller's A and B are the problem's a and b swapped back. */
typedef struct gemm__cl_batch_args {
    cl_mem X[3];
    size_t off[3];          /* strided form: member 0's offsets */
    int64_t stride[3];      /* strided form */
    const size_t *offs[3];  /* pointer-array form: the lists (NULL in the strided form) */
} gemm__cl_batch_args;

static gemm_status gemm__cl_batch_fit(const gemm_cl_context *ctx, const gemm__problem *p, const gemm__cl_batch_args *a,
                                      int64_t count, size_t elem, const char *func, gemm__batch *bt)
{
    static const char *const names[3] = {"A", "B", "C"};
    int64_t extent[3];
    gemm_status s = GEMM_OK;
    int x;
    extent[0] = p->swapped ? p->b_extent : p->a_extent;
    extent[1] = p->swapped ? p->a_extent : p->b_extent;
    extent[2] = p->c_extent;
    for (x = p->work == GEMM__WORK_FULL ? 0 : 2; x < 3 && s == GEMM_OK; x++) {
        if (!a->X[x]) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is NULL", func, names[x]);
        s = a->offs[x] ? gemm__cl_listed_fit(ctx, a->X[x], a->offs[x], extent[x], count, elem, func, names[x],
                                             &bt->bad_member)
                       : gemm__cl_strided_fit(ctx, a->X[x], a->off[x], a->stride[x], extent[x], count, elem, func,
                                              names[x], &bt->bad_member);
    }
    return s;
}

/* A list of offsets as the kernels take it. Offsets that step by a fixed
   distance (members side by side, in either order, or one operand every
   member shares) become a start and a stride; others go to a device buffer
   of cl_long made here (*list; the caller releases it). */
static gemm_status gemm__cl_list_of(gemm_cl_context *ctx, const size_t *offs, int64_t count, size_t *start,
                                    int64_t *stride, cl_mem *list)
{
    /* offsets fit in the buffer, so each difference fits in int64_t */
    int64_t i, d = count > 1 ? (int64_t)(offs[1] - offs[0]) : 0;
    size_t bytes;
    cl_long *host;
    cl_int e = CL_SUCCESS;
    *start = offs[0];
    *stride = d;
    *list = NULL;
    for (i = 2; i < count && (int64_t)(offs[i] - offs[i - 1]) == d; i++) continue;
    if (i >= count) return GEMM_OK;
    *start = 0;
    *stride = 0;
    if (!gemm__cl_bytes(count, 1, sizeof(cl_long), &bytes) || !(host = (cl_long *)gemm__cl_malloc(bytes)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: no host memory for %lld offsets", (long long)count);
    for (i = 0; i < count; i++) host[i] = (cl_long)offs[i];
    *list = gemm__cl_buffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host, &e);
    GEMM_FREE(host);
    if (e != CL_SUCCESS) {
        *list = NULL;
        return gemm__cl_fail(e, "clCreateBuffer (the members' offsets)");
    }
    return GEMM_OK;
}

/* The members of a checked batch in the problem's names (a, b swapped for
   row-major calls), the kernels' operands and their placing. */
static gemm_status gemm__cl_members_of(gemm_cl_context *ctx, const gemm__problem *p, const gemm__cl_batch_args *a,
                                       int64_t count, gemm__cl_operands *o, gemm__cl_members *mb)
{
    size_t off[3];
    int64_t stride[3];
    cl_mem list[3] = {NULL, NULL, NULL};
    gemm_status s = GEMM_OK;
    int x, from[3];
    from[0] = p->swapped ? 1 : 0; /* the caller's operand each of a, b, c is */
    from[1] = p->swapped ? 0 : 1;
    from[2] = 2;
    memset(mb, 0, sizeof *mb);
    mb->count = count;
    for (x = 0; x < 3; x++) {
        const int y = from[x];
        off[x] = a->off[y];
        stride[x] = a->stride[y];
        if (a->offs[y] && (x == 2 || p->work == GEMM__WORK_FULL) && s == GEMM_OK)
            s = gemm__cl_list_of(ctx, a->offs[y], count, &off[x], &stride[x], &list[x]);
        mb->stride[x] = stride[x];
        mb->list[x] = list[x];
    }
    o->a = a->X[from[0]]; o->offa = off[0];
    o->b = a->X[from[1]]; o->offb = off[1];
    o->c = a->X[2]; o->offc = off[2];
    return s;
}

static void gemm__cl_members_free(gemm__cl_members *mb)
{
    int x;
    for (x = 0; x < 3; x++)
        if (mb->list[x]) clReleaseMemObject(mb->list[x]);
}

/* A verified batch (options.verify, after every check): the members one
   after the other in order, each as a verified single call
   (gemm__cl_verified: its sums, its product, its comparison; each
   blocks), stopping at the first that fails. The status is that member's,
   the detail names it as the CPU's batches do ("member i of N failed:
   ..."), the members after it are untouched; *event (when asked) comes
   from the last member, NULL when one failed. */
static gemm_status gemm__cl_verified_members(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                             const gemm__problem *p, const gemm__cl_batch_args *a, int64_t count,
                                             double alpha, double beta, cl_uint nw, const cl_event *wait,
                                             cl_event *event)
{
    gemm__cl_program *g;
    gemm__cl_operands o;
    gemm_status s;
    char detail[400];
    int64_t i;
    int x, from[3];
    size_t len, off[3];
    from[0] = p->swapped ? 1 : 0; /* the caller's operand each of a, b, c is */
    from[1] = p->swapped ? 0 : 1;
    from[2] = 2;
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_select(ctx, prec, &g);
    for (i = 0; i < count && s == GEMM_OK; i++) {
        for (x = 0; x < 3; x++) {
            const int y = from[x];
            off[x] = a->offs[y] ? a->offs[y][i] : a->off[y] + (size_t)(i * a->stride[y]);
        }
        memset(&o, 0, sizeof o);
        o.a = a->X[from[0]], o.offa = off[0];
        o.b = a->X[from[1]], o.offb = off[1];
        o.c = a->X[2], o.offc = off[2];
        s = gemm__cl_verified(ctx, &ctx->lane[0], g, prec, func, p, &o, alpha, beta, i == 0 ? nw : 0,
                              i == 0 ? wait : NULL, i == count - 1 ? event : NULL);
    }
    gemm__cl_lock_give(&ctx->lock);
    if (s == GEMM_OK || i == 0) return s; /* i == 0: no member ran (no program for the precision) */
    if (event) *event = NULL;
    len = strlen(gemm_last_error_detail());
    if (len >= sizeof detail) len = sizeof detail - 1;
    memcpy(detail, gemm_last_error_detail(), len); /* gemm__fail writes the detail it reads */
    detail[len] = '\0';
    return gemm__fail(s, "%s: member %lld of %lld failed: %s; %s", func, (long long)(i - 1), (long long)count, detail,
                      s == GEMM_ERR_VERIFY ? "it and the members before it were written, those after it were not"
                                           : "members before it were written, those after it were not");
}

/* After the shared checks: the device's, the wait list, every member in
   its buffer; then the launch. */
static gemm_status gemm__cl_batch_run(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                      const gemm__problem *p, gemm__batch *bt, const gemm__cl_batch_args *a,
                                      int64_t count, double alpha, double beta, const gemm_cl_options *options)
{
    cl_uint nw = options ? options->num_wait : 0;
    const cl_event *wait = options ? options->wait : NULL;
    cl_event *event = options ? options->event : NULL;
    gemm__cl_operands o;
    gemm__cl_members mb;
    gemm_status s = gemm__cl_device_checks(ctx, prec, func, p->m, p->n, p->k);
    if (s != GEMM_OK) return s;
    if (nw > 0 && !wait) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: num_wait > 0 but wait is NULL", func);
    if (count == 0 || p->work == GEMM__WORK_NONE) count = 0; /* nothing read or written: a marker at most */
    if (count > 0 && (s = gemm__cl_batch_fit(ctx, p, a, count, gemm_precision_size(prec), func, bt)) != GEMM_OK)
        return s;
    if (count > 0 && options && options->verify)
        return gemm__cl_verified_members(ctx, prec, func, p, a, count, alpha, beta, nw, wait, event);
    memset(&o, 0, sizeof o);
    memset(&mb, 0, sizeof mb);
    if (count > 0) s = gemm__cl_members_of(ctx, p, a, count, &o, &mb);
    if (s == GEMM_OK) s = gemm__cl_launch(ctx, prec, p, &o, &mb, alpha, beta, nw, wait, event, NULL);
    gemm__cl_members_free(&mb); /* OpenCL keeps the lists until the kernels are done */
    return s;
}

static gemm_status gemm__cl_strided_call(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                         gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                         int64_t n, int64_t k, double alpha, cl_mem A, size_t offa, int64_t lda,
                                         int64_t sa, cl_mem B, size_t offb, int64_t ldb, int64_t sb, double beta,
                                         cl_mem C, size_t offc, int64_t ldc, int64_t sc, int64_t count,
                                         const gemm_cl_options *options)
{
    gemm__cl_batch_args a;
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    if (options && options->event) *options->event = NULL;
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    s = gemm__prepare_strided(func, layout, ta, tb, m, n, k, alpha == 0, A != NULL, lda, sa, B != NULL, ldb, sb,
                              beta == 1, C != NULL, ldc, sc, count, &p, &bt);
    if (s != GEMM_OK) return s;
    memset(&a, 0, sizeof a);
    a.X[0] = A; a.off[0] = offa; a.stride[0] = sa;
    a.X[1] = B; a.off[1] = offb; a.stride[1] = sb;
    a.X[2] = C; a.off[2] = offc; a.stride[2] = sc;
    return gemm__cl_batch_run(ctx, prec, func, &p, &bt, &a, count, alpha, beta, options);
}

/* The overlap check's address of member i: (offset + 1) * element size, as
   0 would mean a missing member; saturated where that overflows, an offset
   no buffer holds (refused all the same). */
static uint64_t gemm__cl_addr(const void *list, int64_t i, uint64_t es)
{
    uint64_t off = ((const size_t *)list)[i];
    return off >= UINT64_MAX / es - 1 ? UINT64_MAX : (off + 1) * es;
}

static uint64_t gemm__cl_addr_f32(const void *list, int64_t i) { return gemm__cl_addr(list, i, 4); }
static uint64_t gemm__cl_addr_f64(const void *list, int64_t i) { return gemm__cl_addr(list, i, 8); }

static gemm_status gemm__cl_listed_call(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                        gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                        int64_t n, int64_t k, double alpha, cl_mem A, const size_t *offa,
                                        int64_t lda, cl_mem B, const size_t *offb, int64_t ldb, double beta,
                                        cl_mem C, const size_t *offc, int64_t ldc, int64_t count,
                                        const gemm_cl_options *options)
{
    gemm__batch_addr_fn addr = prec == GEMM_F64 ? gemm__cl_addr_f64 : gemm__cl_addr_f32;
    gemm__cl_batch_args a;
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    if (options && options->event) *options->event = NULL;
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    s = gemm__prepare_batched(func, layout, ta, tb, m, n, k, alpha == 0, offa, lda, offb, ldb, beta == 1, offc, ldc,
                              count, addr, addr, gemm_precision_size(prec), &p, &bt);
    if (s != GEMM_OK) return s;
    memset(&a, 0, sizeof a);
    a.X[0] = A; a.offs[0] = offa;
    a.X[1] = B; a.offs[1] = offb;
    a.X[2] = C; a.offs[2] = offc;
    return gemm__cl_batch_run(ctx, prec, func, &p, &bt, &a, count, alpha, beta, options);
}

GEMM_DEF gemm_status gemm_cl_sgemm_strided_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                                   cl_mem A, size_t offa, int64_t lda, int64_t stride_a,
                                                   cl_mem B, size_t offb, int64_t ldb, int64_t stride_b, float beta,
                                                   cl_mem C, size_t offc, int64_t ldc, int64_t stride_c,
                                                   int64_t batch_count, const gemm_cl_options *options)
{
    return gemm__cl_strided_call(ctx, GEMM_F32, "gemm_cl_sgemm_strided_batched", layout, transa, transb, m, n, k,
                                 alpha, A, offa, lda, stride_a, B, offb, ldb, stride_b, beta, C, offc, ldc, stride_c,
                                 batch_count, options);
}

GEMM_DEF gemm_status gemm_cl_dgemm_strided_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                                   cl_mem A, size_t offa, int64_t lda, int64_t stride_a,
                                                   cl_mem B, size_t offb, int64_t ldb, int64_t stride_b, double beta,
                                                   cl_mem C, size_t offc, int64_t ldc, int64_t stride_c,
                                                   int64_t batch_count, const gemm_cl_options *options)
{
    return gemm__cl_strided_call(ctx, GEMM_F64, "gemm_cl_dgemm_strided_batched", layout, transa, transb, m, n, k,
                                 alpha, A, offa, lda, stride_a, B, offb, ldb, stride_b, beta, C, offc, ldc, stride_c,
                                 batch_count, options);
}

GEMM_DEF gemm_status gemm_cl_sgemm_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                           cl_mem A, const size_t offa[], int64_t lda, cl_mem B, const size_t offb[],
                                           int64_t ldb, float beta, cl_mem C, const size_t offc[], int64_t ldc,
                                           int64_t batch_count, const gemm_cl_options *options)
{
    return gemm__cl_listed_call(ctx, GEMM_F32, "gemm_cl_sgemm_batched", layout, transa, transb, m, n, k, alpha, A,
                                offa, lda, B, offb, ldb, beta, C, offc, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cl_dgemm_batched(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                           cl_mem A, const size_t offa[], int64_t lda, cl_mem B, const size_t offb[],
                                           int64_t ldb, double beta, cl_mem C, const size_t offc[], int64_t ldc,
                                           int64_t batch_count, const gemm_cl_options *options)
{
    return gemm__cl_listed_call(ctx, GEMM_F64, "gemm_cl_dgemm_batched", layout, transa, transb, m, n, k, alpha, A,
                                offa, lda, B, offb, ldb, beta, C, offc, ldc, batch_count, options);
}
