/* ---- a plan: set up once, freed once ------------------------------------------ */

#pragma once

#include <string.h>
#include "check.c"
#include "comm.c"
#include "distribute.c" /* gemm__mpi_queue_skew */
#include "setup.c"
#include "transfer.c"
#include "vote.c"

struct gemm_mpi_plan {
    gemm__mpi x;
};

static void gemm__mpi_init(gemm__mpi *x, const char *func, gemm_precision precision, int form, gemm_layout layout,
                           gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                           const gemm_mpi_options *options)
{
    memset(x, 0, sizeof *x);
    x->func = func;
    x->distributed = form; /* -1: a plan, which serves both forms */
    x->precision = precision;
    x->es = gemm_precision_size(precision);
    x->layout = layout;
    x->transa = transa;
    x->transb = transb;
    x->m = m;
    x->n = n;
    x->k = k;
    if (options) x->o = *options;
    x->cuda = x->o.local == GEMM_MPI_LOCAL_CUDA;
    x->comm = x->row_comm = MPI_COMM_NULL;
    x->stage_req[0] = x->stage_req[1] = MPI_REQUEST_NULL;
    x->st = GEMM_OK;
    x->path = GEMM_MPI_PATH_HOST; /* until the setup picks another */
}

/* The values every rank must pass alike, and their names for the vote. */
#define GEMM__MPI_SHAPE_VALUES 16
static const char *const gemm__mpi_shape_names[] = {
    "precision", "layout", "transa", "transb", "m", "n", "k", "options.local", "options.algorithm",
    "options.overlap", "options.path", "options.root", "options.max_host_bytes", "options.max_device_bytes",
    "options.threads", "options.slabs", "alpha", "beta", "forms (a root-held and a distributed execute)"};

static void gemm__mpi_shape_values(const gemm__mpi *x, int64_t *v)
{
    v[0] = x->precision; v[1] = x->layout; v[2] = x->transa; v[3] = x->transb;
    v[4] = x->m; v[5] = x->n; v[6] = x->k;
    v[7] = x->o.local; v[8] = x->o.algorithm; v[9] = x->o.overlap != 0; v[10] = x->o.path;
    v[11] = x->distributed == 1 ? 0 : x->o.root;
    v[12] = (int64_t)x->o.max_host_bytes; v[13] = (int64_t)x->o.max_device_bytes;
    v[14] = x->o.threads;
    v[15] = x->o.slabs > 1 ? x->o.slabs : 1;
}

/* The plan's communicator, the grid and this rank's checks of the shape
   and options; with `vote`, every rank learns that all are valid and
   alike (the one-shot calls vote once, with alpha and beta, later). */
static gemm_status gemm__mpi_begin(gemm__mpi *x, MPI_Comm comm, int vote)
{
    int64_t v[GEMM__MPI_SHAPE_VALUES];
    gemm_status s = gemm__mpi_open(x, comm);
    if (s != GEMM_OK) return s;
    s = gemm_mpi_blocks_of(x->P, x->rank, x->m < 0 ? 0 : x->m, x->n < 0 ? 0 : x->n, x->k < 0 ? 0 : x->k, &x->u);
    if (s == GEMM_OK) s = gemm__mpi_check_shape(x, &x->u);
    gemm__mpi_keep(x, s);
    if (!vote) return GEMM_OK;
    gemm__mpi_shape_values(x, v);
    s = gemm__mpi_vote(x, x->comm, v, GEMM__MPI_SHAPE_VALUES, gemm__mpi_shape_names);
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    return s;
}

#ifdef GEMM_MPI_CUDA
/* IPC path: blocks v[0..n) will go to `to`, as many come from `from`:
   their handles travel now and the receivers map them. */
static void gemm__mpi_map_list(gemm__mpi *x, void **v, int n, int to, int from, size_t bytes)
{
    int i;
    if (!v || to == x->rank || x->st != GEMM_OK) return;
    for (i = 0; i < n; i++) {
        gemm__mpi_post(x->sends, &x->nsend, v[i], to, i, bytes);
        gemm__mpi_post(x->recvs, &x->nrecv, NULL, from, i, bytes);
    }
    gemm__mpi_map_queued(x);
}
#endif

/* IPC path: maps every peer block this rank will copy from: every a block
   (slots and spares) of the right neighbour, every b block of the one
   below, and for the distributed skew the natural blocks sent here. */
static void gemm__mpi_map_blocks(gemm__mpi *x, int form)
{
#ifdef GEMM_MPI_CUDA
    int slots = x->g.br * x->g.bc, which;
    if (x->path != GEMM_MPI_PATH_CUDA_IPC || x->st != GEMM_OK) return;
    if (form != 1) {
        if (x->o.algorithm == GEMM_MPI_CANNON) {
            gemm__mpi_map_list(x, x->a, slots, x->left, x->right, x->abytes);
            gemm__mpi_map_list(x, x->aspare, x->g.br, x->left, x->right, x->abytes);
        }
        gemm__mpi_map_list(x, x->b, slots, x->up, x->down, x->bbytes);
        gemm__mpi_map_list(x, x->bspare, x->g.bc, x->up, x->down, x->bbytes);
    }
    for (which = 0; form == 1 && x->temps && which < 2 && x->st == GEMM_OK; which++) {
        gemm__mpi_queue_skew(x, which);
        gemm__mpi_map_queued(x);
    }
#else
    (void)x;
    (void)form;
#endif
}

/* One form's buffers go (a failed allocation, or the plan's end). */
static void gemm__mpi_free_form(gemm__mpi *x, int form)
{
    int k;
    if (form == 1) {
        gemm__mpi_blocks_free(x, x->temps, x->g.br * x->g.bc);
        x->temps = NULL;
        return;
    }
    gemm__mpi_blocks_free(x, x->land_a, x->g.br * x->g.bc);
    gemm__mpi_blocks_free(x, x->land_b, x->g.br * x->g.bc);
    x->land_a = x->land_b = NULL;
    for (k = 0; k < 2; k++) {
        gemm__mpi_release(x, x->stage[k], 0);
        x->stage[k] = NULL;
#ifdef GEMM_MPI_CUDA
        if (x->stage_ev[k]) cudaEventDestroy(x->stage_ev[k]);
        x->stage_ev[k] = NULL;
#endif
    }
}

/* The plan's shared blocks (and, form >= 0, that form's buffers): path,
   caps, allocation, each agreed by every rank; then the IPC mappings. */
static void gemm__mpi_setup(gemm__mpi *x, int form)
{
    gemm_status s;
    double t0 = gemm__mpi_now();
    x->big = gemm__mpi_block_bytes(&x->g, x->es, &x->abytes, &x->bbytes, &x->cbytes, NULL);
    x->path = GEMM_MPI_PATH_HOST;
    if (x->cuda) gemm__mpi_choose_path(x);
    s = gemm__mpi_fits(x, form);
    if (s == GEMM_OK) {
        gemm__mpi_neighbours(x);
        gemm__mpi_alloc_blocks(x);
        gemm__mpi_alloc_lists(x);
        if (form >= 0) gemm__mpi_alloc_form(x, form);
        s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
    }
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    else {
        x->setup_done = 1;
        if (form >= 0) x->form_ready[form] = 1;
        gemm__mpi_map_blocks(x, -1);
        if (form == 1) gemm__mpi_map_blocks(x, 1);
    }
    x->t.setup_s += gemm__mpi_now() - t0;
}

/* Before an execute's product: the plan's blocks and this form's buffers,
   allocated now if this is the first time (later executes skip it all). */
static void gemm__mpi_form(gemm__mpi *x, int form)
{
    gemm_status s;
    double t0;
    if (!x->setup_done) { gemm__mpi_setup(x, form); return; }
    if (x->form_ready[form]) return;
    t0 = gemm__mpi_now();
    s = gemm__mpi_fits(x, form);
    if (s == GEMM_OK) {
        gemm__mpi_alloc_form(x, form);
        s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
        if (s != GEMM_OK) gemm__mpi_free_form(x, form);
    }
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    else {
        x->form_ready[form] = 1;
        gemm__mpi_map_blocks(x, form);
    }
    x->t.setup_s += gemm__mpi_now() - t0;
}
