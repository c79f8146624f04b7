/* Running one multiplication, or a batch of them, on a queue: the direct
   kernel for small problems (and for C = beta*C), else pack + pad both
   operands and run the tiled kernel. A batch is each of these launches
   once, its members along the third NDRange dimension; a single call is a
   batch of one.

   The kernels see a row-major C: gemm.h's column-major form of the call, an
   m x n C, is a row-major n x m C with A and B swapped (gemm__cl_call_of).
   The tiled kernel reads only packed, zero-padded operands; the pack kernel
   copies op(A) and op(B) into that form from any layout, transpose, leading
   dimension and offset, so the eight cases run on one tuned kernel. Small
   problems (m*n*k <= DIRECT^3) skip the copies and run the direct kernel, a
   work-item per element of C; the tuner measures that crossover. On GPUs,
   batch members that would fill at most half of the tiled kernel's tiles
   run the small-tile kernel instead: 32 x 32 or 64 x 64 tiles read in place
   through local memory, no copies, each element summed as the direct kernel
   sums it (gemm__cl_small_tile; SMALL = 0 by this rule, 1 never, 32 or 64
   that tile for every call past the crossover). */
#pragma once

#include <string.h>

#include "internal.h" /* gemm__problem */
#include "context.c" /* the context, its lanes and programs */
#include "errors.c"
#include "memory.c"
#include "params.c" /* gemm__cl_small_fits */

/* The three matrices on the device in gemm__problem's names: a and b are the
   operands of its column-major view (the caller's B and A for a row-major call). */
typedef struct gemm__cl_operands {
    cl_mem a, b, c;
    size_t offa, offb, offc;
} gemm__cl_operands;

static void gemm__cl_operands_set(gemm__cl_operands *o, const gemm__problem *p, cl_mem A, size_t offa, cl_mem B,
                                  size_t offb, cl_mem C, size_t offc)
{
    o->a = p->swapped ? B : A;
    o->offa = p->swapped ? offb : offa;
    o->b = p->swapped ? A : B;
    o->offb = p->swapped ? offa : offb;
    o->c = C;
    o->offc = offc;
}

/* Where each member of a batch finds its operands, in gemm__problem's names
   (a, b, c): member i of x at offset + i*stride[x] elements, or at offset +
   list[x][i] when list[x] (a buffer of cl_long) is given. A stride of 0
   without a list: every member reads the same operand (packed once). */
typedef struct gemm__cl_members {
    int64_t count;
    int64_t stride[3];
    cl_mem list[3];
} gemm__cl_members;

/* The problem as the kernels see it: a row-major M x N C at C[i*ldc + j].
   gemm__problem's column-major m x n C is exactly that with M = n, N = m,
   and C^T = op(b)^T op(a)^T: the kernels' first operand is b, their second a. */
typedef struct gemm__cl_call {
    int64_t m, n, k;
    cl_mem A, B, C;
    size_t offa, offb, offc;
    int64_t ars, acs, brs, bcs, ldc; /* op(A)(i, q) at A[offa + i*ars + q*acs]; op(B)(q, j) likewise */
    int64_t count, as, bs, cs;       /* members, and the distance from one's A (B, C) to the next's... */
    cl_mem al, bl, cl;               /* ...or the lists of their offsets */
} gemm__cl_call;

static void gemm__cl_call_of(const gemm__problem *p, const gemm__cl_operands *o, const gemm__cl_members *mb,
                             gemm__cl_call *c)
{
    c->m = p->n;
    c->n = p->m;
    c->k = p->k;
    c->A = o->b; /* (j, q) of op(b)^T is op(b)(q, j) */
    c->offa = o->offb;
    c->ars = p->bcs;
    c->acs = p->brs;
    c->B = o->a; /* (q, i) of op(a)^T is op(a)(i, q) */
    c->offb = o->offa;
    c->brs = p->acs;
    c->bcs = p->ars;
    c->C = o->c;
    c->offc = o->offc;
    c->ldc = p->ldc;
    c->count = mb->count;
    c->as = mb->stride[1];
    c->al = mb->list[1];
    c->bs = mb->stride[0];
    c->bl = mb->list[0];
    c->cs = mb->stride[2];
    c->cl = mb->list[2];
}

/* Members per launch: the NDRange's third dimension reaches 65535 groups
   on some GPUs (CUDA's grid.z), and a batch's packed operands (per_member
   bytes each) stay within the device's largest buffer and 256 MiB, so a
   big batch takes a few launches of each kernel rather than a huge copy. */
static int64_t gemm__cl_chunk(const gemm_cl_context *ctx, int64_t count, size_t per_member)
{
    uint64_t cap = ctx->max_alloc && ctx->max_alloc < ((uint64_t)1 << 28) ? ctx->max_alloc : (uint64_t)1 << 28;
    int64_t n = count < 65535 ? count : 65535;
    if (per_member > 0 && (uint64_t)n > cap / per_member) n = (int64_t)(cap / per_member);
    return n > 0 ? n : 1;
}

static int64_t gemm__cl_roundup(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/* A kernel's arguments, set in order; the first failure is kept. */
typedef struct gemm__cl_args {
    cl_kernel kernel;
    cl_uint next;
    cl_int err;
} gemm__cl_args;

static gemm__cl_args gemm__cl_args_of(cl_kernel kernel)
{
    gemm__cl_args a;
    a.kernel = kernel;
    a.next = 0;
    a.err = CL_SUCCESS;
    return a;
}

static void gemm__cl_arg(gemm__cl_args *a, size_t size, const void *value)
{
    if (a->err == CL_SUCCESS) a->err = clSetKernelArg(a->kernel, a->next, size, value);
    a->next++;
}

static void gemm__cl_arg_int(gemm__cl_args *a, int64_t v)
{
    cl_int x = (cl_int)v;
    gemm__cl_arg(a, sizeof x, &x);
}

static void gemm__cl_arg_long(gemm__cl_args *a, int64_t v)
{
    cl_long x = (cl_long)v;
    gemm__cl_arg(a, sizeof x, &x);
}

static void gemm__cl_arg_mem(gemm__cl_args *a, cl_mem m) { gemm__cl_arg(a, sizeof m, &m); }

static void gemm__cl_arg_real(gemm__cl_args *a, gemm_precision prec, double v)
{
    cl_float f = (cl_float)v;
    cl_double d = v;
    if (prec == GEMM_F64) gemm__cl_arg(a, sizeof d, &d);
    else gemm__cl_arg(a, sizeof f, &f);
}

/* Grows one of the lane's packing buffers to at least `bytes`. */
static gemm_status gemm__cl_scratch(gemm_cl_context *ctx, gemm__cl_lane *lane, int which, size_t bytes)
{
    cl_int e;
    if (bytes <= lane->scratch_size[which]) return GEMM_OK;
    if (lane->scratch[which]) clReleaseMemObject(lane->scratch[which]); /* freed once queued users finish */
    lane->scratch_size[which] = 0;
    lane->scratch[which] = gemm__cl_buffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS) {
        lane->scratch[which] = NULL;
        return gemm__cl_fail(e, "clCreateBuffer (packed operands)");
    }
    lane->scratch_size[which] = bytes;
    return GEMM_OK;
}

/* The direct kernel (tile 0) on members [first, first + n): one work-item
   per element of C, `scale`: C = beta*C, A and B unread; or the small
   kernel with tile x tile tiles (32, 64) of (tile/4)^2 work-items: the
   same arguments. */
static gemm_status gemm__cl_run_direct(gemm__cl_lane *lane, const gemm__cl_program *g, const gemm__cl_call *c,
                                       int tile, int scale, double alpha, double beta, int64_t first, int64_t n,
                                       cl_uint nw, const cl_event *wait, cl_event *event)
{
    cl_kernel kernel = tile == 64 ? g->small[1] : tile == 32 ? g->small[0] : g->direct;
    size_t side = tile ? (size_t)tile / 4 : 8, local[3], global[3];
    gemm__cl_args a = gemm__cl_args_of(kernel);
    cl_int e;
    gemm__cl_arg_int(&a, c->m);
    gemm__cl_arg_int(&a, c->n);
    gemm__cl_arg_int(&a, scale ? 0 : c->k);
    gemm__cl_arg_real(&a, g->prec, scale ? 0.0 : alpha);
    gemm__cl_arg_real(&a, g->prec, beta);
    gemm__cl_arg_mem(&a, scale ? c->C : c->A); /* unread when scaling */
    gemm__cl_arg_long(&a, (int64_t)c->offa);
    gemm__cl_arg_long(&a, c->as);
    gemm__cl_arg_mem(&a, scale ? NULL : c->al);
    gemm__cl_arg_long(&a, c->ars);
    gemm__cl_arg_long(&a, c->acs);
    gemm__cl_arg_mem(&a, scale ? c->C : c->B);
    gemm__cl_arg_long(&a, (int64_t)c->offb);
    gemm__cl_arg_long(&a, c->bs);
    gemm__cl_arg_mem(&a, scale ? NULL : c->bl);
    gemm__cl_arg_long(&a, c->brs);
    gemm__cl_arg_long(&a, c->bcs);
    gemm__cl_arg_mem(&a, c->C);
    gemm__cl_arg_long(&a, (int64_t)c->offc);
    gemm__cl_arg_long(&a, c->cs);
    gemm__cl_arg_mem(&a, c->cl);
    gemm__cl_arg_long(&a, c->ldc);
    gemm__cl_arg_long(&a, first);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, tile ? "clSetKernelArg (small)" : "clSetKernelArg (direct)");
    /* a work-item per element, or per 4 x 4 block of a tile */
    local[0] = local[1] = side;
    local[2] = 1;
    global[0] = (size_t)(tile ? gemm__cl_roundup(c->n, tile) / 4 : gemm__cl_roundup(c->n, 8));
    global[1] = (size_t)(tile ? gemm__cl_roundup(c->m, tile) / 4 : gemm__cl_roundup(c->m, 8));
    global[2] = (size_t)n;
    e = clEnqueueNDRangeKernel(lane->queue, kernel, 3, NULL, global, local, nw, nw ? wait : NULL, event);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, tile ? "clEnqueueNDRangeKernel (small)"
                                                             : "clEnqueueNDRangeKernel (direct)");
}

/* Every member through the direct kernel (tile 0) or the small one, 65535
   to a launch. */
static gemm_status gemm__cl_run_direct_all(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                           const gemm__cl_call *c, int tile, int scale, double alpha, double beta,
                                           cl_uint nw, const cl_event *wait, cl_event *event)
{
    int64_t first, n, chunk = gemm__cl_chunk(ctx, c->count, 0);
    gemm_status s = GEMM_OK;
    for (first = 0; first < c->count && s == GEMM_OK; first += n) {
        n = c->count - first < chunk ? c->count - first : chunk;
        s = gemm__cl_run_direct(lane, g, c, tile, scale, alpha, beta, first, n, first ? 0 : nw, wait,
                                first + n == c->count ? event : NULL);
    }
    return s;
}

/* One operand of the tiled path: op(X) is R x K, element (r, q) of member i
   at X[member's offset + r*rs + q*ps], packed as Rp x Kp into the lane's
   buffer `side` (0: A, 1: B). */
typedef struct gemm__cl_pack_job {
    int side;
    int64_t R, K, Rp, Kp;
    cl_mem X, list;
    size_t off;
    int64_t stride, rs, ps;
} gemm__cl_pack_job;

/* Copies members [first, first + n) of op(X) into the lane's packing buffer
   `side`, zero-padded, one after the other, in the layout PACK asks for: on
   GPUs an element per work-item (coalesced), on CPUs a block of a tile's
   rows by KWG per work-item. */
static gemm_status gemm__cl_run_pack(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                     const gemm__cl_pack_job *j, int64_t first, int64_t n, cl_uint nw,
                                     const cl_event *wait)
{
    int rows = (ctx->type & CL_DEVICE_TYPE_CPU) != 0;
    int tile = j->side ? g->params.nwg : g->params.mwg;
    size_t local[3], global[3];
    gemm__cl_args a = gemm__cl_args_of(rows ? g->pack_rows : g->pack);
    cl_int e;
    gemm__cl_arg_int(&a, j->R);
    gemm__cl_arg_int(&a, j->K);
    gemm__cl_arg_int(&a, j->Rp);
    gemm__cl_arg_int(&a, j->Kp);
    gemm__cl_arg_int(&a, tile);
    gemm__cl_arg_mem(&a, j->X);
    gemm__cl_arg_long(&a, (int64_t)j->off);
    gemm__cl_arg_long(&a, j->stride);
    gemm__cl_arg_mem(&a, j->list);
    gemm__cl_arg_long(&a, first);
    gemm__cl_arg_long(&a, j->rs);
    gemm__cl_arg_long(&a, j->ps);
    gemm__cl_arg_mem(&a, lane->scratch[j->side]);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, "clSetKernelArg (pack)");
    /* A fixed work-group shape: PoCL compiles a kernel anew for each one it meets. */
    local[0] = rows ? 1 : ctx->max_wg >= 256 ? 32 : 1;
    local[1] = rows ? 16 : ctx->max_wg >= 256 ? 8 : 1;
    local[2] = 1;
    global[0] = (size_t)gemm__cl_roundup(rows ? j->Rp / tile : j->Rp, (int64_t)local[0]);
    global[1] = (size_t)gemm__cl_roundup(rows ? j->Kp / g->params.kwg : j->Kp, (int64_t)local[1]);
    global[2] = (size_t)n;
    e = clEnqueueNDRangeKernel(lane->queue, rows ? g->pack_rows : g->pack, 3, NULL, global, local, nw, nw ? wait : NULL,
                               NULL);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueNDRangeKernel (pack)");
}

/* The tiled kernel on members [first, first + n), whose packed operands
   are the lane's buffers (member z at z*pas, z*pbs elements). */
static gemm_status gemm__cl_run_tiles(gemm__cl_lane *lane, const gemm__cl_program *g, const gemm__cl_call *c,
                                      int64_t Mp, int64_t Np, int64_t Kp, int64_t pas, int64_t pbs, double alpha,
                                      double beta, int64_t first, int64_t n, cl_uint nw, const cl_event *wait,
                                      cl_event *event)
{
    const gemm_cl_params *p = &g->params;
    size_t global[3], local[3];
    gemm__cl_args a = gemm__cl_args_of(g->tiled);
    cl_int e;
    gemm__cl_arg_int(&a, c->m);
    gemm__cl_arg_int(&a, c->n);
    gemm__cl_arg_int(&a, Kp);
    gemm__cl_arg_int(&a, Mp);
    gemm__cl_arg_int(&a, Np);
    gemm__cl_arg_real(&a, g->prec, alpha);
    gemm__cl_arg_real(&a, g->prec, beta);
    gemm__cl_arg_mem(&a, lane->scratch[0]);
    gemm__cl_arg_long(&a, pas);
    gemm__cl_arg_mem(&a, lane->scratch[1]);
    gemm__cl_arg_long(&a, pbs);
    gemm__cl_arg_mem(&a, c->C);
    gemm__cl_arg_long(&a, (int64_t)c->offc);
    gemm__cl_arg_long(&a, c->cs);
    gemm__cl_arg_mem(&a, c->cl);
    gemm__cl_arg_long(&a, c->ldc);
    gemm__cl_arg_long(&a, first);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, "clSetKernelArg (tiled)");
    local[0] = (size_t)p->ndimc;
    local[1] = (size_t)p->mdimc;
    local[2] = 1;
    global[0] = (size_t)(Np / p->nwg) * local[0];
    global[1] = (size_t)(Mp / p->mwg) * local[1];
    global[2] = (size_t)n;
    e = clEnqueueNDRangeKernel(lane->queue, g->tiled, 3, NULL, global, local, nw, nw ? wait : NULL, event);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueNDRangeKernel (tiled)");
}

static void gemm__cl_pack_jobs(const gemm__cl_call *c, int64_t Mp, int64_t Np, int64_t Kp, gemm__cl_pack_job j[2])
{
    j[0].side = 0; j[0].R = c->m; j[0].K = c->k; j[0].Rp = Mp; j[0].Kp = Kp;
    j[0].X = c->A; j[0].list = c->al; j[0].off = c->offa; j[0].stride = c->as; j[0].rs = c->ars; j[0].ps = c->acs;
    j[1].side = 1; j[1].R = c->n; j[1].K = c->k; j[1].Rp = Np; j[1].Kp = Kp;
    j[1].X = c->B; j[1].list = c->bl; j[1].off = c->offb; j[1].stride = c->bs; j[1].rs = c->bcs; j[1].ps = c->brs;
}

/* Packs op(A) as Mp x Kp and op(B) as Np x Kp, then runs the tiled kernel on
   them: chunk members at a time, an operand every member shares packed once. */
static gemm_status gemm__cl_run_tiled(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                      const gemm__cl_call *c, double alpha, double beta, cl_uint nw,
                                      const cl_event *wait, cl_event *event)
{
    const gemm_cl_params *p = &g->params;
    int64_t Mp = gemm__cl_roundup(c->m, p->mwg), Np = gemm__cl_roundup(c->n, p->nwg), Kp = gemm__cl_roundup(c->k, p->kwg);
    int64_t first, n, chunk;
    size_t elem = gemm_precision_size(g->prec), bytes[2];
    gemm__cl_pack_job job[2];
    int shared[2], x;
    gemm_status s = GEMM_OK;
    gemm__cl_pack_jobs(c, Mp, Np, Kp, job);
    if (!gemm__cl_bytes(Mp, Kp, elem, &bytes[0]) || !gemm__cl_bytes(Np, Kp, elem, &bytes[1]))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: the packed operands (%lld x %lld and %lld x %lld) exceed "
                          "the address space", (long long)Mp, (long long)Kp, (long long)Np, (long long)Kp);
    for (x = 0; x < 2; x++) shared[x] = c->count == 1 || (!job[x].list && job[x].stride == 0);
    chunk = gemm__cl_chunk(ctx, c->count, (shared[0] ? 0 : bytes[0]) + (shared[1] ? 0 : bytes[1]));
    for (x = 0; x < 2 && s == GEMM_OK; x++) {
        s = gemm__cl_scratch(ctx, lane, x, bytes[x] * (size_t)(shared[x] ? 1 : chunk));
        if (s == GEMM_OK && shared[x] && c->count > 1) { /* one copy serves every member */
            s = gemm__cl_run_pack(ctx, lane, g, &job[x], 0, 1, nw, wait);
            nw = 0;
        }
    }
    for (first = 0; first < c->count && s == GEMM_OK; first += n) {
        n = c->count - first < chunk ? c->count - first : chunk;
        for (x = 0; x < 2 && s == GEMM_OK; x++)
            if (!shared[x] || c->count == 1) {
                s = gemm__cl_run_pack(ctx, lane, g, &job[x], first, n, nw, wait);
                nw = 0;
            }
        if (s == GEMM_OK)
            s = gemm__cl_run_tiles(lane, g, c, Mp, Np, Kp, shared[0] ? 0 : Mp * Kp, shared[1] ? 0 : Np * Kp, alpha,
                                   beta, first, n, 0, NULL, first + n == c->count ? event : NULL);
    }
    return s;
}

/* Which kernel runs a call: by size against the choice's crossover, or forced. */
typedef enum gemm__cl_path {
    GEMM__CL_BY_SIZE = 0, GEMM__CL_DIRECT = 1, GEMM__CL_TILED = 2, GEMM__CL_SMALL = 3
} gemm__cl_path;

/* The small kernel's tile for a call past the direct crossover, or 0 for
   the tiled kernel. SMALL forces it (32, 64: that tile; 1: never); by size
   (SMALL = 0) it takes the members of a batch, on GPUs, whose tiles of the
   tiled kernel would be at most half full (M x N inside Mp x Np, rounded up
   to MWG x NWG): there most of its work is padding, and its packs, a second
   pass over A and B, cost as much as the product (64^3 members in 128 x 128
   tiles ran at a third of CLBlast's direct kernel on an H200). The tile is
   64 x 64 unless the member is at most 32 wide in M or N (a 64 tile would
   then be half empty too). CPUs keep the packed path: PoCL's tiled sets run
   contiguous rows per work-item, where packing pays even for small members.
   A program whose small kernel failed its self-check keeps it too. */
static int gemm__cl_small_tile(const gemm_cl_context *ctx, const gemm__cl_program *g, const gemm__cl_call *c,
                               const gemm_cl_params *set, gemm__cl_path path)
{
    size_t elem = gemm_precision_size(g->prec);
    double Mp = (double)gemm__cl_roundup(c->m, g->params.mwg), Np = (double)gemm__cl_roundup(c->n, g->params.nwg);
    /* fp64 keeps the 32x32 tile up to 64 rows and columns: on the H100, 64^3 x 10000 ran at 7.5 TFLOP/s with
       it and 6.2 with 64x64 (fp32: 12.5 and 16.5, so fp32 takes 64 from 33 on) */
    int most32 = elem == 8 ? 64 : 32;
    int tile = c->m > most32 && c->n > most32 && gemm__cl_small_fits(64, ctx->max_wg, ctx->local_mem, elem) ? 64 : 32;
    if (path == GEMM__CL_SMALL) return tile;
    if (path != GEMM__CL_BY_SIZE) return 0;
    if (set->small > 1) return set->small;
    if (set->small == 1 || g->small_bad || c->count < 2 || (ctx->type & CL_DEVICE_TYPE_CPU) ||
        !gemm__cl_small_fits(32, ctx->max_wg, ctx->local_mem, elem))
        return 0;
    return 2.0 * (double)c->m * (double)c->n <= Mp * Np ? tile : 0;
}

/* Enqueues a batch (p->work is SCALE or FULL) with program g on lane's
   queue; lock held. By size, the direct kernel takes it when the batch's
   whole volume is below the crossover: the tiled kernel's work-groups and
   copies pay off once a product is large, or members are many; past the
   crossover, small members take the small kernel (gemm__cl_small_tile). */
static gemm_status gemm__cl_enqueue_batch(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                          const gemm__problem *p, const gemm__cl_operands *o,
                                          const gemm__cl_members *mb, double alpha, double beta, gemm__cl_path path,
                                          cl_uint nw, const cl_event *wait, cl_event *event)
{
    const gemm_cl_params *set = &gemm__cl_choice_of(ctx, g->prec)->params;
    double d = path == GEMM__CL_BY_SIZE ? (double)set->direct : 0;
    double volume = (double)p->m * (double)p->n * (double)p->k * (double)mb->count;
    int scale = p->work == GEMM__WORK_SCALE, tile;
    gemm__cl_call c;
    gemm__cl_call_of(p, o, mb, &c);
    if (scale || path == GEMM__CL_DIRECT || (path == GEMM__CL_BY_SIZE && volume <= d * d * d))
        return gemm__cl_run_direct_all(ctx, lane, g, &c, 0, scale, alpha, beta, nw, wait, event);
    if ((tile = gemm__cl_small_tile(ctx, g, &c, set, path)) > 0)
        return gemm__cl_run_direct_all(ctx, lane, g, &c, tile, 0, alpha, beta, nw, wait, event);
    return gemm__cl_run_tiled(ctx, lane, g, &c, alpha, beta, nw, wait, event);
}

/* Enqueues one call: a batch of one. */
static gemm_status gemm__cl_enqueue(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                    const gemm__problem *p, const gemm__cl_operands *o, double alpha, double beta,
                                    gemm__cl_path path, cl_uint nw, const cl_event *wait, cl_event *event)
{
    gemm__cl_members one;
    memset(&one, 0, sizeof one);
    one.count = 1;
    return gemm__cl_enqueue_batch(ctx, lane, g, p, o, &one, alpha, beta, path, nw, wait, event);
}
