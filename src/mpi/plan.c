/* ---- a plan: set up once ------------------------------------------------------ */

/* A plan's create checks the shape and options and votes on them, then
   sets up what every product of that shape needs (gemm__mpi_setup): the
   neighbours, the blocks and spares, the exchange lists and, with the CUDA
   multiply, the GPU's streams and the CUDA IPC mappings of the peers'
   blocks. The first execute of each form adds that form's own buffers
   (gemm__mpi_form: the root's staging, or the distributed skew's blocks);
   later executes allocate and map nothing. */
#pragma once

#include <string.h>
#include "buffers.c"    /* gemm__mpi_blocks_free, gemm__mpi_release */
#include "check.c"
#include "comm.c"       /* gemm__mpi_open */
#include "distribute.c" /* gemm__mpi_queue_skew */
#include "memory.c"     /* gemm__mpi_block_bytes */
#include "setup.c"
#include "transfer.c"   /* gemm__mpi_map_queued */
#include "vote.c"

/* A plan with nothing in it yet: the shape and options (the outputs left
   out: they are each call's), no communicator, no blocks, the CPU path; and
   e, the outcome of the call that makes it. */
static void gemm__mpi_init(gemm_mpi_plan *pl, gemm__mpi_err *e, const char *func, gemm_precision precision,
                           gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                           int64_t k, const gemm_mpi_options *options)
{
    gemm__mpi_shape *sh = &pl->shape;
    memset(pl, 0, sizeof *pl);
    sh->precision = precision;
    sh->es = gemm_precision_size(precision);
    sh->layout = layout;
    sh->transa = transa;
    sh->transb = transb;
    sh->m = m;
    sh->n = n;
    sh->k = k;
    if (options) sh->o = *options;
    sh->o.timing = sh->o.timing_max = NULL;
    sh->o.path_used = NULL;
    pl->dev.cuda = sh->o.local == GEMM_MPI_LOCAL_CUDA;
    pl->dev.path = GEMM_MPI_PATH_HOST; /* until the setup picks another */
    pl->team.comm = pl->team.row_comm = MPI_COMM_NULL;
    pl->stage.req[0] = pl->stage.req[1] = MPI_REQUEST_NULL;
    gemm__mpi_err_init(e, func);
}

/* The values every rank must pass alike, and their names for the vote. */
#define GEMM__MPI_SHAPE_VALUES 16
static const char *const gemm__mpi_shape_names[] = {
    "precision", "layout", "transa", "transb", "m", "n", "k", "options.local", "options.algorithm",
    "options.overlap", "options.path", "options.root", "options.max_host_bytes", "options.max_device_bytes",
    "options.threads", "options.slabs", "alpha", "beta", "forms (a root-held and a distributed execute)",
    "options.verify"};

/* The shape's values; the root only where the form has one (`form` as for
   gemm__mpi_check_options). */
static void gemm__mpi_shape_values(const gemm__mpi_shape *sh, int form, int64_t *v)
{
    v[0] = sh->precision; v[1] = sh->layout; v[2] = sh->transa; v[3] = sh->transb;
    v[4] = sh->m; v[5] = sh->n; v[6] = sh->k;
    v[7] = sh->o.local; v[8] = sh->o.algorithm; v[9] = sh->o.overlap != 0; v[10] = sh->o.path;
    v[11] = form == 1 ? 0 : sh->o.root;
    v[12] = (int64_t)sh->o.max_host_bytes; v[13] = (int64_t)sh->o.max_device_bytes;
    v[14] = sh->o.threads;
    v[15] = sh->o.slabs;
}

/* The plan's communicator (into tm), the grid and this rank's checks of
   the shape and options (kept in e); with `vote`, every rank learns that
   all are valid and alike (the one-shot calls vote once, with alpha and
   beta, later). `form` as for gemm__mpi_check_options. */
static gemm_status gemm__mpi_begin(const gemm__mpi_shape *sh, MPI_Comm comm, int form, int vote, gemm__mpi_team *tm,
                                   gemm__mpi_err *e)
{
    int64_t v[GEMM__MPI_SHAPE_VALUES];
    gemm_status s = gemm__mpi_open(e->func, comm, tm);
    if (s != GEMM_OK) return s;
    s = sh->pairs ? gemm__mpi_blocks_paired(tm->P, tm->rank, sh->layout == GEMM_COL_MAJOR, sh->m, sh->n, sh->k,
                                            &tm->u)
                  : gemm_mpi_blocks_of(tm->P, tm->rank, sh->m < 0 ? 0 : sh->m, sh->n < 0 ? 0 : sh->n,
                                       sh->k < 0 ? 0 : sh->k, &tm->u);
    if (s == GEMM_OK) s = gemm__mpi_check_shape(e->func, sh, form, tm);
    gemm__mpi_keep(e, s);
    if (!vote) return GEMM_OK;
    gemm__mpi_shape_values(sh, form, v);
    s = gemm__mpi_vote(tm, e, v, GEMM__MPI_SHAPE_VALUES, gemm__mpi_shape_names);
    if (s != GEMM_OK) gemm__mpi_agreed(e, s);
    return s;
}

#ifdef GEMM_MPI_CUDA
/* IPC path: blocks v[0..n) will go to `to`, as many come from `from`:
   their handles travel now and the receivers map them. */
static void gemm__mpi_map_list(const gemm__mpi_team *tm, gemm__mpi_device *dv, gemm__mpi_xchg *xc, gemm__mpi_err *e,
                               void **v, int n, int to, int from, size_t bytes)
{
    int i;
    if (!v || to == tm->rank || e->st != GEMM_OK) return;
    for (i = 0; i < n; i++) {
        gemm__mpi_post(xc->sends, &xc->nsend, v[i], to, i, bytes);
        gemm__mpi_post(xc->recvs, &xc->nrecv, NULL, from, i, bytes);
    }
    gemm__mpi_map_queued(xc, tm, dv, e);
}
#endif

/* IPC path: maps every peer block this rank will copy from: every a block
   (slots and spares) of the right neighbour, every b block of the one
   below (form < 0: the shared blocks), and for the distributed skew the
   natural blocks sent here (form 1). */
static void gemm__mpi_map_blocks(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                 const gemm__mpi_bufs *bf, gemm__mpi_xchg *xc, gemm__mpi_err *e, int form)
{
#ifdef GEMM_MPI_CUDA
    int slots = tm->g.br * tm->g.bc, which;
    if (dv->path != GEMM_MPI_PATH_CUDA_IPC || e->st != GEMM_OK) return;
    if (form != 1) {
        if (sh->o.algorithm == GEMM_MPI_CANNON) {
            gemm__mpi_map_list(tm, dv, xc, e, bf->a, slots, tm->left, tm->right, bf->abytes);
            gemm__mpi_map_list(tm, dv, xc, e, bf->aspare, tm->g.br, tm->left, tm->right, bf->abytes);
        }
        gemm__mpi_map_list(tm, dv, xc, e, bf->b, slots, tm->up, tm->down, bf->bbytes);
        gemm__mpi_map_list(tm, dv, xc, e, bf->bspare, tm->g.bc, tm->up, tm->down, bf->bbytes);
    }
    for (which = 0; form == 1 && bf->temps && which < 2 && e->st == GEMM_OK; which++) {
        gemm__mpi_queue_skew(xc, tm, bf, which);
        gemm__mpi_map_queued(xc, tm, dv, e);
    }
#else
    (void)sh;
    (void)tm;
    (void)dv;
    (void)bf;
    (void)xc;
    (void)e;
    (void)form;
#endif
}

/* One form's buffers go (a failed allocation, or the plan's end). */
static void gemm__mpi_free_form(const gemm__mpi_team *tm, const gemm__mpi_device *dv, gemm__mpi_bufs *bf,
                                gemm__mpi_stage *sg, int form)
{
    int k, nslots = tm->g.br * tm->g.bc;
    if (form == 1) {
        gemm__mpi_blocks_free(dv, bf->temps, nslots);
        bf->temps = NULL;
        return;
    }
    gemm__mpi_blocks_free(dv, bf->land_a, nslots);
    gemm__mpi_blocks_free(dv, bf->land_b, nslots);
    bf->land_a = bf->land_b = NULL;
    for (k = 0; k < 2; k++) {
        gemm__mpi_release(dv, sg->buf[k], 0);
        sg->buf[k] = NULL;
#ifdef GEMM_MPI_CUDA
        if (sg->ev[k]) cudaEventDestroy(sg->ev[k]);
        sg->ev[k] = NULL;
#endif
    }
}

/* The plan's shared blocks (and, form >= 0, that form's buffers): path,
   caps, allocation, each agreed by every rank; then the IPC mappings. */
static void gemm__mpi_setup(const gemm__mpi_shape *sh, gemm__mpi_team *tm, gemm__mpi_device *dv, gemm__mpi_bufs *bf,
                            gemm__mpi_xchg *xc, gemm__mpi_stage *sg, gemm__mpi_err *e, gemm_timing *t, int form)
{
    gemm_status s;
    double t0 = gemm__mpi_now();
    bf->big = gemm__mpi_block_bytes(&tm->g, sh->es, &bf->abytes, &bf->bbytes, &bf->cbytes, NULL);
    dv->path = GEMM_MPI_PATH_HOST;
    if (dv->cuda) gemm__mpi_choose_path(sh, tm, dv, e);
    s = gemm__mpi_fits(sh, tm, dv, e, form);
    if (s == GEMM_OK) {
        gemm__mpi_neighbours(sh, tm, e);
        gemm__mpi_alloc_blocks(sh, tm, dv, bf, e);
        gemm__mpi_alloc_xchg(sh, tm, dv, bf->big, xc, e);
        if (form >= 0) gemm__mpi_alloc_form(sh, tm, dv, bf, sg, e, form);
        s = gemm__mpi_vote(tm, e, NULL, 0, NULL);
    }
    if (s != GEMM_OK) gemm__mpi_agreed(e, s);
    else {
        bf->setup_done = 1;
        if (form >= 0) bf->form_ready[form] = 1;
        gemm__mpi_map_blocks(sh, tm, dv, bf, xc, e, -1);
        if (form == 1) gemm__mpi_map_blocks(sh, tm, dv, bf, xc, e, 1);
    }
    t->setup_s += gemm__mpi_now() - t0;
}

/* Before an execute's product: the plan's blocks and this form's buffers,
   allocated now if this is the first time (later executes skip it all). */
static void gemm__mpi_form(const gemm__mpi_shape *sh, gemm__mpi_team *tm, gemm__mpi_device *dv, gemm__mpi_bufs *bf,
                           gemm__mpi_xchg *xc, gemm__mpi_stage *sg, gemm__mpi_err *e, gemm_timing *t, int form)
{
    gemm_status s;
    double t0;
    if (!bf->setup_done) { gemm__mpi_setup(sh, tm, dv, bf, xc, sg, e, t, form); return; }
    if (bf->form_ready[form]) return;
    t0 = gemm__mpi_now();
    s = gemm__mpi_fits(sh, tm, dv, e, form);
    if (s == GEMM_OK) {
        gemm__mpi_alloc_form(sh, tm, dv, bf, sg, e, form);
        s = gemm__mpi_vote(tm, e, NULL, 0, NULL);
        if (s != GEMM_OK) gemm__mpi_free_form(tm, dv, bf, sg, form);
    }
    if (s != GEMM_OK) gemm__mpi_agreed(e, s);
    else {
        bf->form_ready[form] = 1;
        gemm__mpi_map_blocks(sh, tm, dv, bf, xc, e, form);
    }
    t->setup_s += gemm__mpi_now() - t0;
}
