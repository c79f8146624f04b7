/* ---- setup and teardown -------------------------------------------------------- */

#pragma once

#include "../core/config.c" /* GEMM_MALLOC */
#include "buffers.c"
#include "memory.c" /* gemm__mpi_need, gemm__mpi_stage_bytes, gemm__mpi_pool_blocks */
#include "transfer.c" /* gemm__mpi_pieces */
#include "vote.c"

/* CUDA multiply: takes GPU (node-local rank mod GPU count), makes its
   streams and events. Returns whether all ranks share one node. */
static int gemm__mpi_cuda_init(gemm__mpi *x)
{
    int one_node = 0;
#ifdef GEMM_MPI_CUDA
    int ndev = 0, local = 0;
    MPI_Comm node;
    if (GEMM__MPI_DO(x, MPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node))) {
        int size = 0;
        GEMM__MPI_DO(x, MPI_Comm_rank(node, &local));
        GEMM__MPI_DO(x, MPI_Comm_size(node, &size));
        one_node = size == x->P;
        GEMM__MPI_DO(x, MPI_Comm_free(&node));
    }
    if (GEMM__MPI_CU(x, cudaGetDeviceCount(&ndev)) && ndev > 0 && GEMM__MPI_CU(x, cudaSetDevice(local % ndev))) {
        GEMM__MPI_CU(x, cudaStreamCreateWithFlags(&x->stream, cudaStreamNonBlocking));
        GEMM__MPI_CU(x, cudaStreamCreateWithFlags(&x->copy_stream, cudaStreamNonBlocking));
        GEMM__MPI_CU(x, cudaEventCreate(&x->ev0));
        GEMM__MPI_CU(x, cudaEventCreate(&x->ev1));
        x->cuda_ready = 1;
    } else if (x->st == GEMM_OK)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: no CUDA device", x->func));
#else
    (void)x;
#endif
    return one_node;
}

/* CUDA multiply: how blocks move between GPUs. CUDA-aware only if every
   rank is, so that all ranks pick the same path. */
static void gemm__mpi_choose_path(gemm__mpi *x)
{
    int cuda_aware = 0, one_node = gemm__mpi_cuda_init(x);
#if defined(GEMM_MPI_CUDA) && defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    cuda_aware = MPIX_Query_cuda_support();
#endif
    GEMM__MPI_DO(x, MPI_Allreduce(MPI_IN_PLACE, &cuda_aware, 1, MPI_INT, MPI_MIN, x->comm));
    x->path = x->o.path == GEMM_MPI_PATH_AUTO
                  ? (cuda_aware ? GEMM_MPI_PATH_CUDA_AWARE : one_node ? GEMM_MPI_PATH_CUDA_IPC : GEMM_MPI_PATH_STAGED)
                  : x->o.path;
    if (x->path == GEMM_MPI_PATH_CUDA_IPC && !one_node && x->st == GEMM_OK)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: path CUDA_IPC asked for, but the ranks are on "
                                     "several nodes", x->func));
    if (x->path == GEMM_MPI_PATH_CUDA_AWARE && !cuda_aware && x->st == GEMM_OK)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: path CUDA_AWARE asked for, but this MPI "
                                     "does not accept device buffers (MPIX_Query_cuda_support)", x->func));
}

/* The vote before an allocation: every rank takes the same path, and the
   memory (the plan's shared part, form < 0, or with one form's buffers)
   fits every rank's caps and size_t. */
static gemm_status gemm__mpi_fits(gemm__mpi *x, int form)
{
    static const char *const names[] = {"transfer paths (some MPI ranks are not CUDA-aware)"};
    int64_t v[1];
    size_t host, device, cap, stage = gemm__mpi_stage_bytes(&x->g, x->es);
    int over = gemm__mpi_need(&x->g, x->es, form, x->rank == x->o.root, &x->o, x->path, &host, &device);
    if (x->st == GEMM_OK && over)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: %lld x %lld x %lld needs more than %zu bytes on "
                                     "this rank", x->func, (long long)x->m, (long long)x->n, (long long)x->k,
                                     (size_t)-1));
    if (x->st == GEMM_OK && form == 0 && stage > (size_t)2147483647)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_INVALID_ARG, "%s: one row of a block is %zu bytes, over MPI's int "
                                     "count: the root-held call stages whole rows (use the distributed call)",
                                     x->func, stage));
    cap = x->o.max_host_bytes;
    if (x->st == GEMM_OK && cap && host > cap)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: needs %zu bytes of host memory, the cap is %zu",
                                     x->func, host, cap));
    cap = x->o.max_device_bytes;
    if (x->st == GEMM_OK && cap && device > cap)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: needs %zu bytes of device memory, the cap is %zu",
                                     x->func, device, cap));
    v[0] = (int64_t)x->path;
    return gemm__mpi_vote(x, x->comm, v, 1, names);
}

/* The neighbours on the periodic grid of the view, and Fox's process rows
   (ordered by column, so a rank's column is its rank there). */
static void gemm__mpi_neighbours(gemm__mpi *x)
{
    const gemm__mpi_grid *g = &x->g;
    x->left = gemm__mpi_rank_at(g, g->row, (g->col + g->cols - 1) % g->cols);
    x->right = gemm__mpi_rank_at(g, g->row, (g->col + 1) % g->cols);
    x->up = gemm__mpi_rank_at(g, (g->row + g->rows - 1) % g->rows, g->col);
    x->down = gemm__mpi_rank_at(g, (g->row + 1) % g->rows, g->col);
    if (x->o.algorithm == GEMM_MPI_FOX) GEMM__MPI_DO(x, MPI_Comm_split(x->comm, g->row, g->col, &x->row_comm));
}

/* The plan's blocks, spares and pool (gemm__mpi_need's shared list). */
static void gemm__mpi_alloc_blocks(gemm__mpi *x)
{
    int nslots = x->g.br * x->g.bc;
    x->a = gemm__mpi_blocks_new(x, nslots, x->abytes);
    x->b = gemm__mpi_blocks_new(x, nslots, x->bbytes);
    x->c = gemm__mpi_blocks_new(x, nslots, x->cbytes);
    if (x->o.overlap || x->cuda) {
        x->aspare = gemm__mpi_blocks_new(x, x->g.br, x->abytes);
        x->bspare = gemm__mpi_blocks_new(x, x->g.bc, x->bbytes);
    }
    if (x->o.algorithm == GEMM_MPI_FOX) {
        x->fox = gemm__mpi_blocks_new(x, x->g.br, x->abytes);
        if (x->st == GEMM_OK && !(x->use = (void **)GEMM_MALLOC(sizeof(void *) * (size_t)nslots)))
            gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func));
    }
    x->pool_blocks = gemm__mpi_pool_blocks(&x->g, &x->o, x->path);
    if (x->pool_blocks && x->st == GEMM_OK) x->pool = (char *)gemm__mpi_alloc(x, x->pool_blocks * x->big, 0);
    x->stage_bytes = gemm__mpi_stage_bytes(&x->g, x->es); /* every rank cuts blocks into the same chunks */
}

/* One form's own buffers: the root-held form's two staging buffers (on the
   root, and on every GPU rank) and, streamed, the slab landing blocks; or
   the distributed Cannon's natural blocks. */
static void gemm__mpi_alloc_form(gemm__mpi *x, int form)
{
    int k;
    if (form == 1) {
        if (x->o.algorithm == GEMM_MPI_CANNON) x->temps = gemm__mpi_blocks_new(x, x->g.br * x->g.bc, x->big);
        return;
    }
    if (x->o.slabs > 1 && x->o.algorithm == GEMM_MPI_CANNON) {
        int64_t kbs = (x->g.kb + x->o.slabs - 1) / x->o.slabs;
        x->land_a = gemm__mpi_blocks_new(x, x->g.br * x->g.bc, (size_t)(x->g.mb * kbs) * x->es);
        x->land_b = gemm__mpi_blocks_new(x, x->g.br * x->g.bc, (size_t)(kbs * x->g.nb) * x->es);
    }
    if (!(x->cuda || x->rank == x->o.root)) return;
    for (k = 0; k < 2 && x->st == GEMM_OK; k++) {
        x->stage[k] = (char *)gemm__mpi_alloc(x, x->stage_bytes, 0);
#ifdef GEMM_MPI_CUDA
        if (x->cuda) GEMM__MPI_CU(x, cudaEventCreateWithFlags(&x->stage_ev[k], cudaEventDisableTiming));
#endif
    }
}

/* The lists of one exchange: room for every block of a skew or a shift,
   each in int-sized pieces. */
static void gemm__mpi_alloc_lists(gemm__mpi *x)
{
    int r, nslots = x->g.br * x->g.bc, edge = x->g.br + x->g.bc;
    x->cap = 2 * (nslots > edge ? nslots : edge) * gemm__mpi_pieces(x->big);
    if (x->st != GEMM_OK) return;
    x->sends = (gemm__mpi_msg *)GEMM_MALLOC(sizeof(gemm__mpi_msg) * (size_t)x->cap);
    x->recvs = (gemm__mpi_msg *)GEMM_MALLOC(sizeof(gemm__mpi_msg) * (size_t)x->cap);
    x->reqs = (MPI_Request *)GEMM_MALLOC(sizeof(MPI_Request) * (size_t)x->cap);
    if (!x->sends || !x->recvs || !x->reqs)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func));
    for (r = 0; x->reqs && r < x->cap; r++) x->reqs[r] = MPI_REQUEST_NULL;
#ifdef GEMM_MPI_CUDA
    if (x->path == GEMM_MPI_PATH_CUDA_IPC && x->st == GEMM_OK) {
        x->ipc_out = (gemm__mpi_ipc_msg *)GEMM_MALLOC(sizeof(gemm__mpi_ipc_msg) * (size_t)x->cap);
        x->ipc_in = (gemm__mpi_ipc_msg *)GEMM_MALLOC(sizeof(gemm__mpi_ipc_msg) * (size_t)x->cap);
        x->acks = (char *)GEMM_MALLOC((size_t)x->cap);
        if (!x->ipc_out || !x->ipc_in || !x->acks)
            gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func));
    }
#endif
}
