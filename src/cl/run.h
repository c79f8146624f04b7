/* Running one multiplication on a queue: the direct kernel for small
   problems (and for C = beta*C), else pack + pad both operands and run the
   tiled kernel. */

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

/* The problem as the kernels see it: a row-major M x N C at C[i*ldc + j].
   gemm__problem's column-major m x n C is exactly that with M = n, N = m,
   and C^T = op(b)^T op(a)^T: the kernels' first operand is b, their second a. */
typedef struct gemm__cl_call {
    int64_t m, n, k;
    cl_mem A, B, C;
    size_t offa, offb, offc;
    int64_t ars, acs, brs, bcs, ldc; /* op(A)(i, q) at A[offa + i*ars + q*acs]; op(B)(q, j) likewise */
} gemm__cl_call;

static void gemm__cl_call_of(const gemm__problem *p, const gemm__cl_operands *o, gemm__cl_call *c)
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

/* One work-item per element of C; `scale`: C = beta*C, A and B unread. */
static gemm_status gemm__cl_run_direct(gemm__cl_lane *lane, const gemm__cl_program *g, const gemm__cl_call *c,
                                       int scale, double alpha, double beta, cl_uint nw, const cl_event *wait,
                                       cl_event *event)
{
    size_t local[2] = {8, 8}, global[2];
    gemm__cl_args a = gemm__cl_args_of(g->direct);
    cl_int e;
    gemm__cl_arg_int(&a, c->m);
    gemm__cl_arg_int(&a, c->n);
    gemm__cl_arg_int(&a, scale ? 0 : c->k);
    gemm__cl_arg_real(&a, g->prec, scale ? 0.0 : alpha);
    gemm__cl_arg_real(&a, g->prec, beta);
    gemm__cl_arg_mem(&a, scale ? c->C : c->A); /* unread when scaling */
    gemm__cl_arg_long(&a, (int64_t)c->offa);
    gemm__cl_arg_long(&a, c->ars);
    gemm__cl_arg_long(&a, c->acs);
    gemm__cl_arg_mem(&a, scale ? c->C : c->B);
    gemm__cl_arg_long(&a, (int64_t)c->offb);
    gemm__cl_arg_long(&a, c->brs);
    gemm__cl_arg_long(&a, c->bcs);
    gemm__cl_arg_mem(&a, c->C);
    gemm__cl_arg_long(&a, (int64_t)c->offc);
    gemm__cl_arg_long(&a, c->ldc);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, "clSetKernelArg (direct)");
    global[0] = (size_t)gemm__cl_roundup(c->n, 8);
    global[1] = (size_t)gemm__cl_roundup(c->m, 8);
    e = clEnqueueNDRangeKernel(lane->queue, g->direct, 2, NULL, global, local, nw, wait, event);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueNDRangeKernel (direct)");
}

/* Copies op(X) (R x K, element (r, q) at X[offx + r*rs + q*ps]) into the lane's
   packing buffer `side`, zero-padded to Rp x Kp, in the layout PACK asks for:
   on GPUs an element per work-item (coalesced), on CPUs a block of a tile's
   rows by KWG per work-item. */
static gemm_status gemm__cl_run_pack(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g, int side,
                                     int64_t R, int64_t K, int64_t Rp, int64_t Kp, cl_mem X, size_t offx, int64_t rs,
                                     int64_t ps, cl_uint nw, const cl_event *wait)
{
    int rows = (ctx->type & CL_DEVICE_TYPE_CPU) != 0;
    int tile = side ? g->params.nwg : g->params.mwg;
    size_t local[2], global[2];
    gemm__cl_args a = gemm__cl_args_of(rows ? g->pack_rows : g->pack);
    cl_int e;
    gemm__cl_arg_int(&a, R);
    gemm__cl_arg_int(&a, K);
    gemm__cl_arg_int(&a, Rp);
    gemm__cl_arg_int(&a, Kp);
    gemm__cl_arg_int(&a, tile);
    gemm__cl_arg_mem(&a, X);
    gemm__cl_arg_long(&a, (int64_t)offx);
    gemm__cl_arg_long(&a, rs);
    gemm__cl_arg_long(&a, ps);
    gemm__cl_arg_mem(&a, lane->scratch[side]);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, "clSetKernelArg (pack)");
    /* A fixed work-group shape: PoCL compiles a kernel anew for each one it meets. */
    local[0] = rows ? 1 : ctx->max_wg >= 256 ? 32 : 1;
    local[1] = rows ? 16 : ctx->max_wg >= 256 ? 8 : 1;
    global[0] = (size_t)gemm__cl_roundup(rows ? Rp / tile : Rp, (int64_t)local[0]);
    global[1] = (size_t)gemm__cl_roundup(rows ? Kp / g->params.kwg : Kp, (int64_t)local[1]);
    e = clEnqueueNDRangeKernel(lane->queue, rows ? g->pack_rows : g->pack, 2, NULL, global, local, nw, wait, NULL);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueNDRangeKernel (pack)");
}

/* Packs op(A) as Mp x Kp and op(B) as Np x Kp, then runs the tiled kernel on them. */
static gemm_status gemm__cl_run_tiled(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                      const gemm__cl_call *c, double alpha, double beta, cl_uint nw,
                                      const cl_event *wait, cl_event *event)
{
    const gemm_cl_params *p = &g->params;
    int64_t Mp = gemm__cl_roundup(c->m, p->mwg), Np = gemm__cl_roundup(c->n, p->nwg), Kp = gemm__cl_roundup(c->k, p->kwg);
    size_t elem = gemm_precision_size(g->prec), global[2], local[2], abytes, bbytes;
    gemm__cl_args a = gemm__cl_args_of(g->tiled);
    gemm_status s;
    cl_int e;
    if (!gemm__cl_bytes(Mp, Kp, elem, &abytes) || !gemm__cl_bytes(Np, Kp, elem, &bbytes))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: the packed operands (%lld x %lld and %lld x %lld) exceed "
                          "the address space", (long long)Mp, (long long)Kp, (long long)Np, (long long)Kp);
    if ((s = gemm__cl_scratch(ctx, lane, 0, abytes)) != GEMM_OK ||
        (s = gemm__cl_scratch(ctx, lane, 1, bbytes)) != GEMM_OK ||
        (s = gemm__cl_run_pack(ctx, lane, g, 0, c->m, c->k, Mp, Kp, c->A, c->offa, c->ars, c->acs, nw, wait)) != GEMM_OK ||
        (s = gemm__cl_run_pack(ctx, lane, g, 1, c->n, c->k, Np, Kp, c->B, c->offb, c->bcs, c->brs, 0, NULL)) != GEMM_OK)
        return s;
    gemm__cl_arg_int(&a, c->m);
    gemm__cl_arg_int(&a, c->n);
    gemm__cl_arg_int(&a, Kp);
    gemm__cl_arg_int(&a, Mp);
    gemm__cl_arg_int(&a, Np);
    gemm__cl_arg_real(&a, g->prec, alpha);
    gemm__cl_arg_real(&a, g->prec, beta);
    gemm__cl_arg_mem(&a, lane->scratch[0]);
    gemm__cl_arg_mem(&a, lane->scratch[1]);
    gemm__cl_arg_mem(&a, c->C);
    gemm__cl_arg_long(&a, (int64_t)c->offc);
    gemm__cl_arg_long(&a, c->ldc);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, "clSetKernelArg (tiled)");
    local[0] = (size_t)p->ndimc;
    local[1] = (size_t)p->mdimc;
    global[0] = (size_t)(Np / p->nwg) * local[0];
    global[1] = (size_t)(Mp / p->mwg) * local[1];
    e = clEnqueueNDRangeKernel(lane->queue, g->tiled, 2, NULL, global, local, 0, NULL, event);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueNDRangeKernel (tiled)");
}

/* Which kernel runs a call: by size against the choice's crossover, or forced. */
typedef enum gemm__cl_path { GEMM__CL_BY_SIZE = 0, GEMM__CL_DIRECT = 1, GEMM__CL_TILED = 2 } gemm__cl_path;

/* Enqueues one call (p->work is SCALE or FULL) with program g on lane's queue. Lock held. */
static gemm_status gemm__cl_enqueue(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                    const gemm__problem *p, const gemm__cl_operands *o, double alpha, double beta,
                                    gemm__cl_path path, cl_uint nw, const cl_event *wait, cl_event *event)
{
    double d = path == GEMM__CL_BY_SIZE ? (double)gemm__cl_choice_of(ctx, g->prec)->params.direct : 0;
    double volume = (double)p->m * (double)p->n * (double)p->k;
    int scale = p->work == GEMM__WORK_SCALE;
    gemm__cl_call c;
    gemm__cl_call_of(p, o, &c);
    if (scale || path == GEMM__CL_DIRECT || (path == GEMM__CL_BY_SIZE && volume <= d * d * d))
        return gemm__cl_run_direct(lane, g, &c, scale, alpha, beta, nw, wait, event);
    return gemm__cl_run_tiled(ctx, lane, g, &c, alpha, beta, nw, wait, event);
}
