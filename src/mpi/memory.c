/* ---- memory: what one rank allocates ------------------------------------ */

/* The root-held calls stage blocks in chunks of whole runs (rows of a
   row-major block), about this size: small enough to allocate pinned on
   every call, large enough for full-speed copies and messages. The tests
   make it small (the hook) so that blocks travel in many chunks. */
#define GEMM__MPI_STAGE_BYTES ((size_t)64 << 20)

/* Bytes of one a, b and c block of the virtual grid, and the largest. */
static size_t gemm__mpi_block_bytes(const gemm__mpi_grid *g, size_t es, size_t *a, size_t *b, size_t *c)
{
    size_t big;
    *a = (size_t)g->mb * (size_t)g->kb * es;
    *b = (size_t)g->kb * (size_t)g->nb * es;
    *c = (size_t)g->mb * (size_t)g->nb * es;
    big = *a > *b ? *a : *b;
    return *c > big ? *c : big;
}

/* One staging buffer: at least one run of the widest block, at most a block
   (and at most 1 GiB, unless one run is longer: the setup refuses runs over
   INT_MAX bytes, since each chunk goes as one MPI message). */
static size_t gemm__mpi_stage_bytes(const gemm__mpi_grid *g, size_t es)
{
    int64_t w = g->mb > g->nb ? g->mb : g->nb;
    size_t a, b, c, big = gemm__mpi_block_bytes(g, es, &a, &b, &c), run;
    size_t st = GEMM__HOOK(mpi_stage_bytes, GEMM__MPI_STAGE_BYTES);
    if (g->kb > w) w = g->kb;
    run = (size_t)w * es;
    if (st > ((size_t)1 << 30)) st = (size_t)1 << 30; /* one MPI message: an int count */
    if (st < run) st = run;
    return st < big ? st : (big ? big : 1);
}

/* What one rank allocates: *host and *device bytes, and how many blocks of
   host staging (the pool). The query, the cap and the allocation all use it. */
static void gemm__mpi_need(const gemm__mpi_grid *g, size_t es, int distributed, int is_root,
                           const gemm_mpi_options *o, gemm_mpi_path path, size_t *pool_blocks, size_t *host,
                           size_t *device)
{
    int staged = path == GEMM_MPI_PATH_STAGED, direct = path != GEMM_MPI_PATH_STAGED && path != GEMM_MPI_PATH_CUDA_IPC;
    size_t br = (size_t)g->br, bc = (size_t)g->bc, slots = br * bc;
    size_t a, b, c, big = gemm__mpi_block_bytes(g, es, &a, &b, &c), blocks, spares, temps, pool = 0;
    int cuda = o->local == GEMM_MPI_LOCAL_CUDA, fox = o->algorithm == GEMM_MPI_FOX;
    blocks = slots * (a + b + c);
    /* Spare blocks receive shifts (overlapped, or always on a GPU); Fox
       also needs one broadcast a block per block row. */
    spares = (o->overlap || cuda ? br * a + bc * b : 0) + (fox ? br * a : 0);
    /* The distributed Cannon call packs its natural blocks before the skew. */
    temps = distributed && !fox ? slots * big : 0;
    /* Host staging of whole blocks: Fox's broadcast and every block of an
       exchange (a shift, or the distributed call's skew) on the staged path. */
    if (cuda && fox && !direct) pool = 1;
    if (cuda && staged) {
        size_t n = 2 * (br + bc);
        if (distributed && !fox && 2 * slots > n) n = 2 * slots;
        if (n > pool) pool = n;
    }
    *pool_blocks = pool;
    *host = (cuda ? 0 : blocks + spares + temps) + pool * big;
    /* Root-held calls move blocks between the caller's matrices and the
       ranks in chunks through two staging buffers (the root's, and a GPU
       rank's). */
    if (!distributed && (cuda || is_root)) *host += 2 * gemm__mpi_stage_bytes(g, es);
    *device = cuda ? blocks + spares + temps : 0;
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
    size_t h, d, pool;
    int swapped, root;
    gemm_status s = gemm_mpi_blocks_of(nranks, 0, m, n, k, &u);
    if (s != GEMM_OK) return s;
    if (precision != GEMM_F32 && precision != GEMM_F64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_memory: precision = %d, not GEMM_F32 or GEMM_F64",
                          (int)precision);
    if (!host_bytes || !device_bytes)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_memory: host_bytes or device_bytes is NULL");
    if (options) o = *options;
    else memset(&o, 0, sizeof o);
    path = o.path == GEMM_MPI_PATH_AUTO ? GEMM_MPI_PATH_STAGED : o.path;
    *host_bytes = *device_bytes = 0;
    for (swapped = 0; swapped < 2; swapped++)
        for (root = 0; root < 2; root++) {
            gemm__mpi_grid_view(&u, swapped, &g);
            gemm__mpi_need(&g, gemm_precision_size(precision), distributed, root, &o, path, &pool, &h, &d);
            if (h > *host_bytes) *host_bytes = h;
            if (d > *device_bytes) *device_bytes = d;
        }
    return GEMM_OK;
}
