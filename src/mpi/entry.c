/* ---- one call, start to end, and the entry points ------------------------------ */

static void gemm__mpi_init(gemm__mpi *x, const char *func, gemm_precision precision, int distributed,
                           const gemm_mpi_options *options)
{
    memset(x, 0, sizeof *x);
    x->func = func;
    x->distributed = distributed;
    x->es = gemm_precision_size(precision);
    if (options) x->o = *options;
    x->cuda = x->o.local == GEMM_MPI_LOCAL_CUDA;
    x->comm = x->row_comm = MPI_COMM_NULL;
    x->stage_req[0] = x->stage_req[1] = MPI_REQUEST_NULL;
    x->st = GEMM_OK;
    x->path = GEMM_MPI_PATH_HOST; /* until the setup picks another */
}

/* The call's own copy of the communicator, which returns MPI's errors
   instead of aborting; its size and this rank. */
static gemm_status gemm__mpi_open(gemm__mpi *x, MPI_Comm comm)
{
    gemm_status s;
    if (comm == MPI_COMM_NULL) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: comm is MPI_COMM_NULL", x->func);
    s = gemm__mpi_status(MPI_Comm_dup(comm, &x->comm), "MPI_Comm_dup");
    if (s == GEMM_OK)
        s = gemm__mpi_status(MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    if (s == GEMM_OK) s = gemm__mpi_status(MPI_Comm_size(x->comm, &x->P), "MPI_Comm_size");
    if (s == GEMM_OK) s = gemm__mpi_status(MPI_Comm_rank(x->comm, &x->rank), "MPI_Comm_rank");
    if (s != GEMM_OK && x->comm != MPI_COMM_NULL) MPI_Comm_free(&x->comm);
    return s;
}

/* The first vote: every rank's arguments are valid, and every rank passed
   the same scalars and options. Returns what the call has to do. */
static gemm__work gemm__mpi_agree(gemm__mpi *x, const gemm__mpi_args *in)
{
    static const char *const names[] = {"layout", "transa", "transb", "m", "n", "k", "alpha", "beta",
                                        "options.local", "options.algorithm", "options.overlap", "options.path",
                                        "options.root", "options.max_host_bytes", "options.max_device_bytes"};
    int64_t v[15];
    gemm_mpi_blocks u;
    gemm_status s = gemm_mpi_blocks_of(x->P, x->rank, in->m < 0 ? 0 : in->m, in->n < 0 ? 0 : in->n,
                                       in->k < 0 ? 0 : in->k, &u);
    if (s == GEMM_OK) s = gemm__mpi_prepare(x, in, &u);
    gemm__mpi_keep(x, s);
    v[0] = in->layout; v[1] = in->transa; v[2] = in->transb; v[3] = in->m; v[4] = in->n; v[5] = in->k;
    memcpy(&v[6], &in->alpha, 8);
    memcpy(&v[7], &in->beta, 8);
    v[8] = x->o.local; v[9] = x->o.algorithm; v[10] = x->o.overlap != 0; v[11] = x->o.path;
    v[12] = x->distributed ? 0 : x->o.root;
    v[13] = (int64_t)x->o.max_host_bytes; v[14] = (int64_t)x->o.max_device_bytes;
    s = gemm__mpi_vote(x, x->comm, v, 15, names);
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    return s == GEMM_OK ? x->p.work : GEMM__WORK_NONE;
}

/* C = beta*C needs no communication: the rank holding C does it (on the
   root's host, or on each rank's GPU for distributed pieces). */
static void gemm__mpi_scale_only(gemm__mpi *x, double t_start)
{
    if (x->distributed) {
        if (x->cuda) gemm__mpi_cuda_init(x);
        gemm__mpi_scale(x, x->cuda, x->g.c.rows, x->g.c.cols, x->C, x->p.ldc);
        gemm__mpi_teardown(x);
    } else if (x->rank == x->o.root)
        gemm__mpi_scale(x, 0, x->p.m, x->p.n, x->C, x->p.ldc);
    x->t.compute_s = gemm__mpi_now() - t_start;
}

/* The product: grid, memory (every rank agrees it is there), the blocks in
   place, the rounds, then C, written only when every rank's blocks are right. */
static void gemm__mpi_product(gemm__mpi *x)
{
    gemm_status s;
    gemm__mpi_setup(x);
    if (x->st == GEMM_OK) {
        if (x->distributed) gemm__mpi_local_blocks(x);
        else gemm__mpi_distribute(x);
        if (x->o.algorithm == GEMM_MPI_FOX) gemm__mpi_fox(x);
        else gemm__mpi_cannon(x);
        s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
        if (s != GEMM_OK) gemm__mpi_agreed(x, s);
        else if (x->distributed) gemm__mpi_store_c(x);
        else gemm__mpi_gather(x);
    }
    gemm__mpi_teardown(x);
}

/* Fills the options' outputs, when given, on every return. */
static void gemm__mpi_outputs(const gemm__mpi *x, const gemm_timing *max)
{
    if (x->o.timing) *x->o.timing = x->t;
    if (x->o.timing_max) *x->o.timing_max = *max;
    if (x->o.path_used) *x->o.path_used = x->path;
}

/* The times' maximum (every rank reduces, timing or not, so that ranks
   asking on some ranks only call the same collectives), then the last
   vote: every rank returns the same status. gemm_timing is all doubles. */
static gemm_status gemm__mpi_close(gemm__mpi *x, double t_start)
{
    gemm_timing max;
    gemm_status s;
    x->t.total_s = gemm__mpi_now() - t_start;
    max = x->t;
    GEMM__MPI_DO(x, MPI_Allreduce(&x->t, &max, (int)(sizeof x->t / sizeof(double)), MPI_DOUBLE, MPI_MAX, x->comm));
    s = x->agreed ? gemm__fail(x->st, "%s", x->detail) : gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
    gemm__mpi_outputs(x, &max);
    MPI_Comm_free(&x->comm);
    return s;
}

/* The one internal function behind the four entry points. */
static gemm_status gemm__mpi_call(MPI_Comm comm, const char *func, gemm_precision precision, int distributed,
                                  const gemm__mpi_args *in, const gemm_mpi_options *options)
{
    gemm__mpi x;
    double t_start = gemm__mpi_now();
    gemm__work work;
    gemm_status s;
    gemm__clear_error();
    gemm__mpi_init(&x, func, precision, distributed, options);
    s = gemm__mpi_open(&x, comm);
    if (s != GEMM_OK) {
        x.t.total_s = gemm__mpi_now() - t_start;
        gemm__mpi_outputs(&x, &x.t);
        return s;
    }
    work = gemm__mpi_agree(&x, in);
    if (work == GEMM__WORK_SCALE) gemm__mpi_scale_only(&x, t_start);
    else if (work == GEMM__WORK_FULL) gemm__mpi_product(&x);
    return gemm__mpi_close(&x, t_start);
}

GEMM_DEF gemm_status gemm_mpi_sgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_sgemm", GEMM_F32, 0, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_dgemm", GEMM_F64, 0, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_sgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                         const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                         float *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_sgemm_dist", GEMM_F32, 1, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                         const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                         double *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_dgemm_dist", GEMM_F64, 1, &in, options);
}
