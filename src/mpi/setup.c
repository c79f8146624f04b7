/* ---- setup: the GPU, the path, the caps, the allocations ------------------------ */

/* With the CUDA multiply each rank takes GPU (node-local rank mod GPU
   count), makes it current and makes its streams and events. The path
   blocks take between GPUs (options.path AUTO): CUDA-aware when
   MPIX_Query_cuda_support() says so on every rank (the minimum over the
   ranks, so that every rank takes the same path), else CUDA IPC when all
   ranks share a node, else staged through pinned host buffers. Before an
   allocation the ranks vote that the memory fits every rank's caps and
   size_t (so a call over a cap fails everywhere before any block is
   allocated); after it, that it succeeded everywhere. */
#pragma once

#include "../core/config.h" /* GEMM_MALLOC */
#include "buffers.c"
#include "memory.c" /* gemm__mpi_need, gemm__mpi_stage_bytes, gemm__mpi_pool_blocks */
#include "transfer.c" /* gemm__mpi_pieces */
#include "root_devices.c"
#include "vote.c"

/* CUDA multiply: takes GPU (node-local rank mod GPU count), makes its
   streams and events. Returns whether all ranks share one node. */
static int gemm__mpi_cuda_init(const gemm__mpi_team *tm, gemm__mpi_device *dv, gemm__mpi_err *e)
{
    int one_node = 0;
#ifdef GEMM_MPI_CUDA
    int ndev = 0, local = 0;
    MPI_Comm node;
    if (GEMM__MPI_DO(e, MPI_Comm_split_type(tm->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node))) {
        int size = 0;
        GEMM__MPI_DO(e, MPI_Comm_rank(node, &local));
        GEMM__MPI_DO(e, MPI_Comm_size(node, &size));
        one_node = size == tm->P;
        GEMM__MPI_DO(e, MPI_Comm_free(&node));
    }
    if (GEMM__MPI_CU(e, cudaGetDeviceCount(&ndev)) && ndev > 0 && GEMM__MPI_CU(e, cudaSetDevice(local % ndev))) {
        GEMM__MPI_CU(e, cudaStreamCreateWithFlags(&dv->stream, cudaStreamNonBlocking));
        GEMM__MPI_CU(e, cudaStreamCreateWithFlags(&dv->copy_stream, cudaStreamNonBlocking));
        GEMM__MPI_CU(e, cudaEventCreate(&dv->ev0));
        GEMM__MPI_CU(e, cudaEventCreate(&dv->ev1));
        dv->ready = 1;
    } else if (e->st == GEMM_OK)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: no CUDA device", e->func));
#else
    (void)tm;
    (void)dv;
    (void)e;
#endif
    return one_node;
}

/* CUDA multiply: how blocks move between GPUs. CUDA-aware only if every
   rank is, so that all ranks pick the same path. */
static void gemm__mpi_choose_path(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                  gemm__mpi_err *e)
{
    int cuda_aware = 0, one_node = gemm__mpi_cuda_init(tm, dv, e);
#if defined(GEMM_MPI_CUDA) && defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    cuda_aware = MPIX_Query_cuda_support();
#endif
    GEMM__MPI_DO(e, MPI_Allreduce(MPI_IN_PLACE, &cuda_aware, 1, MPI_INT, MPI_MIN, tm->comm));
    dv->path = sh->o.path == GEMM_MPI_PATH_AUTO
                   ? (cuda_aware ? GEMM_MPI_PATH_CUDA_AWARE : one_node ? GEMM_MPI_PATH_CUDA_IPC : GEMM_MPI_PATH_STAGED)
                   : sh->o.path;
    if (dv->path == GEMM_MPI_PATH_CUDA_IPC && !one_node && e->st == GEMM_OK)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: path CUDA_IPC asked for, but the ranks are on "
                                     "several nodes", e->func));
    if (dv->path == GEMM_MPI_PATH_CUDA_AWARE && !cuda_aware && e->st == GEMM_OK)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: path CUDA_AWARE asked for, but this MPI "
                                     "does not accept device buffers (MPIX_Query_cuda_support)", e->func));
    gemm__mpi_root_devices_setup(sh, tm, dv, e, one_node);
    if (dv->path == GEMM_MPI_PATH_ROOT_DEVICES) /* the distributed form's blocks still move: as AUTO would */
        dv->path = cuda_aware ? GEMM_MPI_PATH_CUDA_AWARE : GEMM_MPI_PATH_CUDA_IPC;
}

/* The vote before an allocation: every rank takes the same path, and the
   memory (the plan's shared part, form < 0, or with one form's buffers)
   fits every rank's caps and size_t. */
static gemm_status gemm__mpi_fits(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                  gemm__mpi_err *e, int form)
{
    static const char *const names[] = {"transfer paths (some MPI ranks are not CUDA-aware)"};
    int64_t v[1];
    size_t host, device, cap, stage = gemm__mpi_stage_bytes(&tm->g, sh->es);
    int over = gemm__mpi_need(&tm->g, sh->es, form, tm->rank == sh->o.root, &sh->o, dv->path, dv->root_devices,
                              &host, &device);
    if (e->st == GEMM_OK && over)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: %lld x %lld x %lld needs more than %zu bytes on "
                                     "this rank", e->func, (long long)sh->m, (long long)sh->n, (long long)sh->k,
                                     (size_t)-1));
    if (e->st == GEMM_OK && form == 0 && stage > (size_t)2147483647)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_INVALID_ARG, "%s: one row of a block is %zu bytes, over MPI's int "
                                     "count: the root-held call stages whole rows (use the distributed call)",
                                     e->func, stage));
    cap = sh->o.max_host_bytes;
    if (e->st == GEMM_OK && cap && host > cap)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: needs %zu bytes of host memory, the cap is %zu",
                                     e->func, host, cap));
    cap = sh->o.max_device_bytes;
    if (e->st == GEMM_OK && cap && device > cap)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: needs %zu bytes of device memory, the cap is %zu",
                                     e->func, device, cap));
    v[0] = (int64_t)dv->path;
    return gemm__mpi_vote(tm, e, v, 1, names);
}

/* The neighbours on the periodic grid of the view, and Fox's process rows
   (ordered by column, so a rank's column is its rank there). */
static void gemm__mpi_neighbours(const gemm__mpi_shape *sh, gemm__mpi_team *tm, gemm__mpi_err *e)
{
    const gemm__mpi_grid *g = &tm->g;
    tm->left = gemm__mpi_rank_at(g, g->row, (g->col + g->cols - 1) % g->cols);
    tm->right = gemm__mpi_rank_at(g, g->row, (g->col + 1) % g->cols);
    tm->up = gemm__mpi_rank_at(g, (g->row + g->rows - 1) % g->rows, g->col);
    tm->down = gemm__mpi_rank_at(g, (g->row + 1) % g->rows, g->col);
    if (sh->o.algorithm == GEMM_MPI_FOX) GEMM__MPI_DO(e, MPI_Comm_split(tm->comm, g->row, g->col, &tm->row_comm));
}

/* The plan's blocks and spares (gemm__mpi_need's shared list). */
static void gemm__mpi_alloc_blocks(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                   gemm__mpi_bufs *bf, gemm__mpi_err *e)
{
    int nslots = tm->g.br * tm->g.bc;
    bf->a = gemm__mpi_blocks_new(dv, e, nslots, bf->abytes);
    bf->b = gemm__mpi_blocks_new(dv, e, nslots, bf->bbytes);
    bf->c = gemm__mpi_blocks_new(dv, e, nslots, bf->cbytes);
    if (sh->o.overlap || dv->cuda) {
        bf->aspare = gemm__mpi_blocks_new(dv, e, tm->g.br, bf->abytes);
        bf->bspare = gemm__mpi_blocks_new(dv, e, tm->g.bc, bf->bbytes);
    }
    if (sh->o.algorithm == GEMM_MPI_FOX) {
        bf->fox = gemm__mpi_blocks_new(dv, e, tm->g.br, bf->abytes);
        if (e->st == GEMM_OK && !(bf->use = (void **)GEMM_MALLOC(sizeof(void *) * (size_t)nslots)))
            gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", e->func));
    }
}

/* The exchange's pool (host staging of whole blocks of `big` bytes, which
   the CUDA multiply needs on some paths) and its lists: room for every
   block of a skew or a shift, each in int-sized pieces. */
static void gemm__mpi_alloc_xchg(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                 size_t big, gemm__mpi_xchg *xc, gemm__mpi_err *e)
{
    int r, nslots = tm->g.br * tm->g.bc, edge = tm->g.br + tm->g.bc;
    xc->slot = big;
    xc->pool_blocks = gemm__mpi_pool_blocks(&tm->g, &sh->o, dv->path);
    if (xc->pool_blocks && e->st == GEMM_OK) xc->pool = (char *)gemm__mpi_alloc(dv, e, xc->pool_blocks * big, 0);
    xc->cap = 2 * (nslots > edge ? nslots : edge) * gemm__mpi_pieces(big);
    if (e->st != GEMM_OK) return;
    xc->sends = (gemm__mpi_msg *)GEMM_MALLOC(sizeof(gemm__mpi_msg) * (size_t)xc->cap);
    xc->recvs = (gemm__mpi_msg *)GEMM_MALLOC(sizeof(gemm__mpi_msg) * (size_t)xc->cap);
    xc->reqs = (MPI_Request *)GEMM_MALLOC(sizeof(MPI_Request) * (size_t)xc->cap);
    if (!xc->sends || !xc->recvs || !xc->reqs)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", e->func));
    for (r = 0; xc->reqs && r < xc->cap; r++) xc->reqs[r] = MPI_REQUEST_NULL;
#ifdef GEMM_MPI_CUDA
    if (dv->path == GEMM_MPI_PATH_CUDA_IPC && e->st == GEMM_OK) {
        xc->ipc_out = (gemm__mpi_ipc_msg *)GEMM_MALLOC(sizeof(gemm__mpi_ipc_msg) * (size_t)xc->cap);
        xc->ipc_in = (gemm__mpi_ipc_msg *)GEMM_MALLOC(sizeof(gemm__mpi_ipc_msg) * (size_t)xc->cap);
        xc->acks = (char *)GEMM_MALLOC((size_t)xc->cap);
        if (!xc->ipc_out || !xc->ipc_in || !xc->acks)
            gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", e->func));
    }
#endif
}

/* One form's own buffers: the root-held form's two staging buffers (on the
   root, and on every GPU rank; every rank cuts blocks into chunks of the
   same size) and, streamed, the slab landing blocks; or the distributed
   Cannon's natural blocks. */
static void gemm__mpi_alloc_form(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                 gemm__mpi_bufs *bf, gemm__mpi_stage *sg, gemm__mpi_err *e, int form)
{
    const gemm__mpi_grid *g = &tm->g;
    int k;
    if (form == 1) {
        if (sh->o.algorithm == GEMM_MPI_CANNON) bf->temps = gemm__mpi_blocks_new(dv, e, g->br * g->bc, bf->big);
        return;
    }
    sg->bytes = gemm__mpi_stage_bytes(g, sh->es);
    int slabs = gemm__mpi_slab_count(&sh->o, g, dv->cuda, dv->root_devices);
    if (slabs > 1) {
        int64_t kbs = (g->kb + slabs - 1) / slabs;
        bf->land_a = gemm__mpi_blocks_new(dv, e, g->br * g->bc, (size_t)(g->mb * kbs) * sh->es);
        bf->land_b = gemm__mpi_blocks_new(dv, e, g->br * g->bc, (size_t)(kbs * g->nb) * sh->es);
    }
    if (!(dv->cuda || tm->rank == sh->o.root)) return;
    for (k = 0; k < 2 && e->st == GEMM_OK; k++) {
        sg->buf[k] = (char *)gemm__mpi_alloc(dv, e, sg->bytes, 0);
#ifdef GEMM_MPI_CUDA
        if (dv->cuda) GEMM__MPI_CU(e, cudaEventCreateWithFlags(&sg->ev[k], cudaEventDisableTiming));
#endif
    }
}
