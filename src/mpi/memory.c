/* ---- memory: what one rank allocates ------------------------------------ */

/* gemm__mpi_need counts what one rank allocates for a plan and for each
   form; gemm_mpi_memory, the caps and the allocations all count with it,
   in byte counts that saturate instead of wrapping. */
#pragma once

#include <string.h>
#include "grid.c"
#include "slabs.c" /* gemm__mpi_slab_count */

/* The root-held calls stage blocks in chunks of whole runs (rows of a
   row-major block), about this size: large enough for full-speed copies and
   messages, small enough that the first chunks reach the ranks early. The
   tests make it small (the hook) so that blocks travel in many chunks. */
#define GEMM__MPI_STAGE_BYTES ((size_t)64 << 20)

/* Byte counts that saturate instead of wrapping: a problem whose memory
   does not fit in size_t is refused, never allocated short. */
typedef struct gemm__mpi_bytes {
    size_t v;
    int over;
} gemm__mpi_bytes;

static size_t gemm__mpi_mul(gemm__mpi_bytes *b, size_t x, size_t y)
{
    if (x && y > (size_t)-1 / x) { b->over = 1; return (size_t)-1; }
    return x * y;
}

static void gemm__mpi_add(gemm__mpi_bytes *b, size_t x)
{
    if (x > (size_t)-1 - b->v) { b->over = 1; b->v = (size_t)-1; }
    else b->v += x;
}

/* Bytes of one a, b and c block of the virtual grid, and the largest. */
static size_t gemm__mpi_block_bytes(const gemm__mpi_grid *g, size_t es, size_t *a, size_t *b, size_t *c,
                                    int *over)
{
    gemm__mpi_bytes t = {0, 0};
    size_t big;
    *a = gemm__mpi_mul(&t, gemm__mpi_mul(&t, (size_t)g->mb, (size_t)g->kb), es);
    *b = gemm__mpi_mul(&t, gemm__mpi_mul(&t, (size_t)g->kb, (size_t)g->nb), es);
    *c = gemm__mpi_mul(&t, gemm__mpi_mul(&t, (size_t)g->mb, (size_t)g->nb), es);
    if (over) *over = t.over;
    big = *a > *b ? *a : *b;
    return *c > big ? *c : big;
}

/* One staging buffer: at least one run of the widest block, at most a block
   (and at most 1 GiB, unless one run is longer: the setup refuses runs over
   INT_MAX bytes, since each chunk goes as one MPI message). */
static size_t gemm__mpi_stage_bytes(const gemm__mpi_grid *g, size_t es)
{
    int64_t w = g->mb > g->nb ? g->mb : g->nb;
    size_t a, b, c, big = gemm__mpi_block_bytes(g, es, &a, &b, &c, NULL), run;
    size_t st = GEMM__HOOK(mpi_stage_bytes, GEMM__MPI_STAGE_BYTES);
    gemm__mpi_bytes t = {0, 0};
    if (g->kb > w) w = g->kb;
    run = gemm__mpi_mul(&t, (size_t)w, es);
    if (st > ((size_t)1 << 30)) st = (size_t)1 << 30; /* one MPI message: an int count */
    if (st < run) st = run;
    return st < big ? st : (big ? big : 1);
}

/* The form-independent host staging of whole blocks (CUDA multiply only):
   Fox's broadcast, and every block of an exchange (a shift, or the
   distributed skew) on the staged path. */
static size_t gemm__mpi_pool_blocks(const gemm__mpi_grid *g, const gemm_mpi_options *o, gemm_mpi_path path)
{
    size_t slots = (size_t)g->br * (size_t)g->bc, pool = 0, n;
    int direct = path != GEMM_MPI_PATH_STAGED && path != GEMM_MPI_PATH_CUDA_IPC;
    int fox = o->algorithm == GEMM_MPI_FOX;
    if (o->local != GEMM_MPI_LOCAL_CUDA) return 0;
    if (fox && !direct) pool = 1;
    if (path == GEMM_MPI_PATH_STAGED) {
        n = 2 * ((size_t)g->br + (size_t)g->bc);
        if (!fox && 2 * slots > n) n = 2 * slots;
        if (n > pool) pool = n;
    }
    return pool;
}

/* What one rank allocates: *host and *device bytes, for the plan's shared
   part (form < 0) or with one form's own buffers added (0 root-held, 1
   distributed). The query, the caps and the allocation all use it;
   `root_devices` as for gemm__mpi_slab_count (the query: 0, the most).
   Returns nonzero when the bytes overflow size_t. */
static int gemm__mpi_need(const gemm__mpi_grid *g, size_t es, int form, int is_root, const gemm_mpi_options *o,
                          gemm_mpi_path path, int root_devices, size_t *host, size_t *device)
{
    size_t br = (size_t)g->br, bc = (size_t)g->bc, slots = br * bc, a, b, c, big;
    int cuda = o->local == GEMM_MPI_LOCAL_CUDA, fox = o->algorithm == GEMM_MPI_FOX, over = 0;
    gemm__mpi_bytes blk = {0, 0}, hst = {0, 0};
    big = gemm__mpi_block_bytes(g, es, &a, &b, &c, &over);
    blk.over = over;
    gemm__mpi_add(&blk, gemm__mpi_mul(&blk, slots, a));
    gemm__mpi_add(&blk, gemm__mpi_mul(&blk, slots, b));
    gemm__mpi_add(&blk, gemm__mpi_mul(&blk, slots, c));
    /* Spare blocks receive shifts (overlapped, or always on a GPU); Fox
       also needs one broadcast a block per block row. */
    if (o->overlap || cuda) {
        gemm__mpi_add(&blk, gemm__mpi_mul(&blk, br, a));
        gemm__mpi_add(&blk, gemm__mpi_mul(&blk, bc, b));
    }
    if (fox) gemm__mpi_add(&blk, gemm__mpi_mul(&blk, br, a));
    /* The distributed Cannon call packs its natural blocks before the skew. */
    if (form == 1 && !fox) gemm__mpi_add(&blk, gemm__mpi_mul(&blk, slots, big));
    if (!cuda) gemm__mpi_add(&hst, blk.v);
    gemm__mpi_add(&hst, gemm__mpi_mul(&hst, gemm__mpi_pool_blocks(g, o, path), big));
    /* Root-held calls move blocks between the caller's matrices and the
       ranks in chunks through two staging buffers (the root's, and a GPU
       rank's); streamed in k-slabs, each rank's next slab lands beside its
       blocks. */
    if (form == 0 && (cuda || is_root)) gemm__mpi_add(&hst, gemm__mpi_mul(&hst, 2, gemm__mpi_stage_bytes(g, es)));
    int slabs = form == 0 ? gemm__mpi_slab_count(o, g, cuda, root_devices) : 1;
    if (slabs > 1) {
        size_t kbs = (size_t)((g->kb + slabs - 1) / slabs), land;
        land = gemm__mpi_mul(&blk, gemm__mpi_mul(&blk, slots, (size_t)g->mb + (size_t)g->nb), kbs);
        land = gemm__mpi_mul(&blk, land, es);
        if (cuda) gemm__mpi_add(&blk, land);
        else gemm__mpi_add(&hst, land);
    }
    *host = hst.v;
    *device = cuda ? blk.v : 0;
    return blk.over || hst.over;
}

/* The most over every rank and both views: the layout, which this query
   does not take, decides the view (Fox's broadcast blocks are a blocks of
   the view, the caller's A or B). The staged path needs the most, and AUTO
   may end up there. */
GEMM_DEF gemm_status gemm_mpi_memory(int nranks, int64_t m, int64_t n, int64_t k, gemm_precision precision,
                                     int distributed, const gemm_mpi_options *options,
                                     size_t *host_bytes, size_t *device_bytes)
{
    gemm_mpi_options o;
    gemm_mpi_path path;
    gemm_mpi_blocks u;
    gemm__mpi_grid g;
    size_t h, d;
    int swapped, root, over = 0;
    gemm_status s = gemm_mpi_blocks_of(nranks, 0, m, n, k, &u);
    if (s != GEMM_OK) return s;
    if (precision != GEMM_F32 && precision != GEMM_F64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_memory: precision = %d, not GEMM_F32 or GEMM_F64",
                          (int)precision);
    if (!host_bytes || !device_bytes)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_memory: host_bytes or device_bytes is NULL");
    if (options) o = *options;
    else memset(&o, 0, sizeof o);
    path = o.path == GEMM_MPI_PATH_AUTO || o.path == GEMM_MPI_PATH_ROOT_DEVICES ? GEMM_MPI_PATH_STAGED : o.path;
    *host_bytes = *device_bytes = 0;
    for (swapped = 0; swapped < 2; swapped++)
        for (root = 0; root < 2; root++) {
            gemm__mpi_grid_view(&u, swapped, &g);
            over |= gemm__mpi_need(&g, gemm_precision_size(precision), distributed != 0, root, &o, path, 0, &h, &d);
            if (h > *host_bytes) *host_bytes = h;
            if (d > *device_bytes) *device_bytes = d;
        }
    if (over)
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_mpi_memory: %lld x %lld x %lld on %d ranks needs more than "
                          "%zu bytes per rank", (long long)m, (long long)n, (long long)k, nranks, (size_t)-1);
    return GEMM_OK;
}
