/* bench/bench_mpi.c - strong scaling of gemm_mpi.h, beside ScaLAPACK (run
   under mpirun; see bench/bench_mpi.sh, `make bench-mpi`).

   mpirun -np P build/bench_mpi [--local cpu|cuda] [--sizes 8192,16384]
          [--prec f32,f64] [--what single,busy,resident,e2e] [--reps 3]
          [--overlap 0|1] [--algo cannon|fox] [--path auto|staged|aware|ipc|root]
          [--warmup 0|1] [--peer none|scalapack] [--nb 256] [--slabs 4]

   What is timed (row-major, NN, alpha = 1, beta = 0, square n):
     single    rank 0 alone runs our local multiply on the whole problem on
               its one device (gemm_cuda_?gemm on device memory, CUDA
               events; or gemm_cpu_?gemm with GEMM_NUM_THREADS threads, one
               by default): T1, the baseline of the efficiency.
     busy      where a CPU rank's speed goes: the local multiplies of one
               Cannon call (q rounds of the rank's block products, no
               communication), first on rank 0 alone while the others sleep
               ("alone"), then on every rank at once ("busy", the slowest).
               T1 / (P x alone) is the blocking's share of the efficiency
               (smaller products), alone / busy the machine's (memory
               bandwidth, clock with every core busy), busy / resident the
               communication's.
     resident  a plan (gemm_mpi_plan_create once), then executes of its
               distributed form, every rank's pieces already in place (on
               its GPU with --local cuda): the seconds of the slowest rank.
               The create's seconds and the first execute's set-up are
               printed beside it; later executes allocate nothing.
               With --peer scalapack, PDGEMM/PSGEMM on the same ranks (the
               same process grid), the same values, 2D block-cyclic blocks
               of --nb, interleaved call by call with ours.
     e2e       executes of the plan's root-held form: A, B on rank 0's host
               memory, C back there (--slabs: A and B stream in k-slabs);
               the root's physical limit beside it: the bytes it must move
               (A and B out, C in) over its measured one-core copy bandwidth.
   Each: a warm-up call, then the median of --reps calls (min and max
   beside it), with the slowest rank's phase breakdown of the median run.
   Inputs are a hash of (matrix, row, column) in [-0.5, 0.5), made where
   they live (on the GPU by a kernel), so every rank can check any element:
   each rank checks 4 elements of its C against a dot product in double.

   Output: one CSV line per measurement on rank 0's stdout, prefixed "csv,":
   csv,what,local,prec,n,P,grid,q,overlap,algo,path,median_s,min_s,max_s,
       tflops,distribute,h2d,compute,d2h,shift,gather,max_err,ok,threads,
       setup_s,create_s,first_setup_s,peer,peer_median_s,peer_min_s,
       peer_max_s,peer_err,limit_s,slabs */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm_mpi.h"
#include "../tests/battery.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __CUDACC__
#define BENCH_HD __host__ __device__
#else
#define BENCH_HD
#endif

/* Element (i, j) of matrix `which` (0 = A, 1 = B): uniform in [-0.5, 0.5),
   exact in float. */
static BENCH_HD double bench_value(int which, int64_t i, int64_t j)
{
    uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)j + 0x632BE59BD9B4E019ull * (uint64_t)(which + 1));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 40) / 16777216.0 - 0.5;
}

static int me, nranks;

/* A rank's piece of op(X): rows x cols at (row0, col0), row-major with ld,
   or (col_major) ScaLAPACK's block-cyclic local array. */
typedef struct piece {
    int64_t row0, col0, rows, cols, ld;
    int cyclic, nb, prow, pcol, nprow, npcol; /* block-cyclic: local (li, lj) -> global */
    void *p;
} piece;

/* The global row (or column) of local index l in a block-cyclic layout. */
static int64_t cyclic_global(int64_t l, int nb, int me_, int np)
{
    return ((l / nb) * np + me_) * nb + l % nb;
}

static void piece_global(const piece *pc, int64_t li, int64_t lj, int64_t *i, int64_t *j)
{
    *i = pc->cyclic ? cyclic_global(li, pc->nb, pc->prow, pc->nprow) : pc->row0 + li;
    *j = pc->cyclic ? cyclic_global(lj, pc->nb, pc->pcol, pc->npcol) : pc->col0 + lj;
}

static size_t piece_offset(const piece *pc, int64_t li, int64_t lj)
{
    return (size_t)(pc->cyclic ? li + lj * pc->ld : li * pc->ld + lj);
}

#ifdef GEMM_MPI_CUDA
template <typename T>
__global__ void bench_fill(T *x, int which, int64_t row0, int64_t col0, int64_t rows, int64_t cols, int64_t ld)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (int64_t)gridDim.x * blockDim.x;
    for (; e < rows * cols; e += stride) {
        int64_t i = e / cols, j = e % cols;
        x[i * ld + j] = (T)bench_value(which, row0 + i, col0 + j);
    }
}
#endif

/* Fills a piece where it lives. */
static void fill_piece(const piece *pc, int which, int dbl, int device)
{
    int64_t li, lj, i, j;
#ifdef GEMM_MPI_CUDA
    if (device) {
        if (pc->rows * pc->cols == 0) return;
        if (dbl) bench_fill<double><<<1024, 256>>>((double *)pc->p, which, pc->row0, pc->col0, pc->rows, pc->cols, pc->ld);
        else bench_fill<float><<<1024, 256>>>((float *)pc->p, which, pc->row0, pc->col0, pc->rows, pc->cols, pc->ld);
        cudaDeviceSynchronize();
        return;
    }
#endif
    (void)device;
    for (li = 0; li < pc->rows; li++)
        for (lj = 0; lj < pc->cols; lj++) {
            double v;
            piece_global(pc, li, lj, &i, &j);
            v = which < 0 ? 0.0 : bench_value(which, i, j);
            if (dbl) ((double *)pc->p)[piece_offset(pc, li, lj)] = v;
            else ((float *)pc->p)[piece_offset(pc, li, lj)] = (float)v;
        }
}

static void *alloc_bytes(size_t bytes, int device)
{
    void *p = NULL;
#ifdef GEMM_MPI_CUDA
    if (device) {
        if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) p = NULL;
    } else
#endif
        p = malloc(bytes ? bytes : 1);
    (void)device;
    if (!p) {
        fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", me, bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void free_bytes(void *p, int device)
{
#ifdef GEMM_MPI_CUDA
    if (device) { cudaFree(p); return; }
#endif
    (void)device;
    free(p);
}

/* Element (li, lj) of C as computed, from a piece (host or device). */
static double read_c(const piece *c, int64_t li, int64_t lj, int dbl, int device)
{
    size_t off = piece_offset(c, li, lj) * (dbl ? 8 : 4);
    double d = 0;
    float f = 0;
#ifdef GEMM_MPI_CUDA
    if (device) {
        cudaMemcpy(dbl ? (void *)&d : (void *)&f, (char *)c->p + off, dbl ? 8 : 4, cudaMemcpyDeviceToHost);
        return dbl ? d : f;
    }
#endif
    (void)device;
    if (dbl) memcpy(&d, (char *)c->p + off, 8);
    else memcpy(&f, (char *)c->p + off, 4);
    return dbl ? d : f;
}

/* Largest error over 4 elements of this rank's piece of C, relative to the
   tolerance 2 * eps * n * max|A| * max|B|: <= 1 passes. Max over ranks. */
static double check_piece(const piece *c, int64_t n, int dbl, int device)
{
    double worst = 0, all = 0, tol = 2.0 * (dbl ? 2.220446e-16 : 1.192093e-7) * (double)n * 0.25;
    int t;
    for (t = 0; t < 4 && c->rows > 0 && c->cols > 0; t++) {
        int64_t li = (c->rows - 1) * t / 3, lj = (c->cols - 1) * (3 - t) / 3, p, i, j;
        double want = 0, got = read_c(c, li, lj, dbl, device), e;
        piece_global(c, li, lj, &i, &j);
        for (p = 0; p < n; p++) {
            double a = bench_value(0, i, p), b = bench_value(1, p, j);
            if (!dbl) { a = (float)a; b = (float)b; }
            want += a * b;
        }
        e = fabs(got - want) / tol;
        if (!(e <= worst)) worst = e; /* NaN sticks */
    }
    MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

typedef struct config {
    gemm_mpi_options o;
    int reps, warmup, threads, nb, scalapack;
    const char *local, *algo, *path;
} config;

/* What one measurement reports beyond its times. */
typedef struct result {
    gemm_timing max;             /* the slowest rank's phases, median run */
    gemm_mpi_path path;
    double create_s, first_setup_s, limit_s;
    const double *peer;          /* the peer's times, or NULL */
    double peer_err;
} result;

static double median_of(const double *times, int reps, double *lo, double *hi)
{
    double sorted[64];
    int i;
    for (i = 0; i < reps; i++) sorted[i] = times[i];
    battery_sort(sorted, reps);
    *lo = sorted[0];
    *hi = sorted[reps - 1];
    return sorted[reps / 2];
}

static void report(const char *what, const config *cf, int dbl, int64_t n, const double *times, int reps,
                   const result *r, double err, int ok)
{
    double lo, hi, med = median_of(times, reps, &lo, &hi), plo = 0, phi = 0, pmed = 0;
    gemm_mpi_blocks g;
    const char *path = !r ? "-" : r->path == GEMM_MPI_PATH_HOST ? "host" : r->path == GEMM_MPI_PATH_CUDA_AWARE ?
                      "cuda-aware" : r->path == GEMM_MPI_PATH_CUDA_IPC ? "cuda-ipc" :
                      r->path == GEMM_MPI_PATH_ROOT_DEVICES ? "root-devices" : "staged";
    if (r && r->peer) pmed = median_of(r->peer, reps, &plo, &phi);
    if (me != 0) return;
    gemm_mpi_blocks_of(r ? nranks : 1, 0, n, n, n, &g); /* the grid the call ran on */
    printf("csv,%s,%s,%s,%lld,%d,%dx%d,%d,%d,%s,%s,%.6f,%.6f,%.6f,%.3f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3g,%s,"
           "%d,%.6f,%.6f,%.6f,%s,%.6f,%.6f,%.6f,%.3g,%.6f,%d\n",
           what, cf->local, dbl ? "f64" : "f32", (long long)n, nranks, g.grid_rows, g.grid_cols, g.q, cf->o.overlap,
           cf->algo, path, med, lo, hi, 2e-12 * (double)n * (double)n * (double)n / med, r ? r->max.distribute_s : 0,
           r ? r->max.to_device_s : 0, r ? r->max.compute_s : 0, r ? r->max.from_device_s : 0,
           r ? r->max.shift_s : 0, r ? r->max.gather_s : 0, err, ok ? "ok" : "FAIL", cf->threads,
           r ? r->max.setup_s : 0, r ? r->create_s : 0, r ? r->first_setup_s : 0,
           r && r->peer ? "scalapack" : "-", pmed, plo, phi, r && r->peer ? r->peer_err : 0, r ? r->limit_s : 0,
           cf->o.slabs > 1 ? cf->o.slabs : 1);
    fflush(stdout);
}

/* One local product (column-major NN) on this rank's device. */
static gemm_status local_gemm(const config *cf, int dbl, int cuda, int64_t m, int64_t n, int64_t k, const void *a,
                              const void *b, void *c)
{
    gemm_cpu_options co;
#ifdef GEMM_MPI_CUDA
    if (cuda)
        return dbl ? gemm_cuda_dgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0,
                                     (const double *)a, m, (const double *)b, k, 0.0, (double *)c, m, NULL)
                   : gemm_cuda_sgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0f,
                                     (const float *)a, m, (const float *)b, k, 0.0f, (float *)c, m, NULL);
#endif
    (void)cuda;
    memset(&co, 0, sizeof co);
    co.threads = cf->o.threads;
    return dbl ? gemm_cpu_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0, (const double *)a,
                                m > 1 ? m : 1, (const double *)b, k > 1 ? k : 1, 0.0, (double *)c, m > 1 ? m : 1, &co)
               : gemm_cpu_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0f, (const float *)a,
                                m > 1 ? m : 1, (const float *)b, k > 1 ? k : 1, 0.0f, (float *)c, m > 1 ? m : 1, &co);
}

static double seconds_since(double t0) { return MPI_Wtime() - t0; }

/* T1: rank 0 multiplies the whole problem on its one device (row-major
   NN is the column-major product B A: the same work). */
static void bench_single(const config *cf, int dbl, int64_t n)
{
    int cuda = cf->o.local == GEMM_MPI_LOCAL_CUDA, r, ok = 1;
    double times[64], err = 0;
    size_t es = dbl ? 8 : 4, bytes = (size_t)(n * n) * es;
    piece a, b, c;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        a.rows = a.cols = b.rows = b.cols = c.rows = c.cols = n;
        a.ld = b.ld = c.ld = n;
        a.p = alloc_bytes(bytes, cuda);
        b.p = alloc_bytes(bytes, cuda);
        c.p = alloc_bytes(bytes, cuda);
        fill_piece(&a, 0, dbl, cuda);
        fill_piece(&b, 1, dbl, cuda);
        for (r = cf->warmup ? -1 : 0; r < cf->reps; r++) {
            gemm_status s;
            double t0 = MPI_Wtime();
#ifdef GEMM_MPI_CUDA
            if (cuda) cudaDeviceSynchronize();
            t0 = MPI_Wtime();
#endif
            s = local_gemm(cf, dbl, cuda, n, n, n, b.p, a.p, c.p);
#ifdef GEMM_MPI_CUDA
            if (cuda) cudaDeviceSynchronize();
#endif
            if (r >= 0) times[r] = seconds_since(t0);
            ok = ok && s == GEMM_OK;
        }
    }
    err = check_piece(&c, n, dbl, cuda);
    if (me == 0) {
        free_bytes(a.p, cuda);
        free_bytes(b.p, cuda);
        free_bytes(c.p, cuda);
    }
    MPI_Bcast(times, cf->reps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    report("single", cf, dbl, n, times, cf->reps, NULL, err, ok && err <= 1);
}

/* Waits for rank 0 without spinning on a core (MPI_Barrier polls). */
static void wait_for_rank0(void)
{
    MPI_Request req;
    int done = 0, token = 0;
    struct timespec ms = {0, 1000000};
    if (me == 0) {
        int r;
        for (r = 1; r < nranks; r++) MPI_Send(&token, 1, MPI_INT, r, 99, MPI_COMM_WORLD);
        return;
    }
    MPI_Irecv(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &req);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&ms, NULL);
    }
}

static void fill_block(void *x, int64_t count, int which, int dbl)
{
    int64_t e;
    for (e = 0; e < count; e++) {
        if (dbl) ((double *)x)[e] = bench_value(which, e, 1);
        else ((float *)x)[e] = (float)bench_value(which, e, 1);
    }
}

/* The local multiplies of one Cannon call (q rounds of the rank's slots),
   on rank 0 alone and then on every rank at once. CPU ranks. */
static void bench_busy(const config *cf, int dbl, int64_t n)
{
    gemm_mpi_blocks g;
    size_t es = dbl ? 8 : 4;
    double alone[64], busy[64], t;
    void *a, *b, *c;
    int r, s, ok = 1, slots;
    result res;
    gemm_mpi_blocks_of(nranks, me, n, n, n, &g);
    slots = (g.q / g.grid_rows) * (g.q / g.grid_cols);
    a = alloc_bytes((size_t)(g.mb * g.kb) * es, 0);
    b = alloc_bytes((size_t)(g.kb * g.nb) * es, 0);
    c = alloc_bytes((size_t)(g.mb * g.nb) * es, 0);
    fill_block(a, g.mb * g.kb, 0, dbl);
    fill_block(b, g.kb * g.nb, 1, dbl);
    for (r = cf->warmup ? -1 : 0; r < cf->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        if (me == 0)
            for (s = 0; s < g.q * slots; s++) ok = ok && local_gemm(cf, dbl, 0, g.mb, g.nb, g.kb, a, b, c) == GEMM_OK;
        t = seconds_since(t);
        wait_for_rank0();
        if (r >= 0) alone[r] = t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (s = 0; s < g.q * slots; s++) ok = ok && local_gemm(cf, dbl, 0, g.mb, g.nb, g.kb, a, b, c) == GEMM_OK;
        t = seconds_since(t);
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= 0) busy[r] = t;
    }
    MPI_Bcast(alone, cf->reps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    free(a);
    free(b);
    free(c);
    memset(&res, 0, sizeof res);
    res.path = GEMM_MPI_PATH_HOST;
    report("alone", cf, dbl, n, alone, cf->reps, &res, 0, ok);
    report("busy", cf, dbl, n, busy, cf->reps, &res, 0, ok);
}

#ifdef BENCH_HAVE_SCALAPACK
/* ScaLAPACK's C-callable BLACS and its Fortran routines (libscalapack-openmpi). */
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca, const double *b, const int *ib,
             const int *jb, const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);
void psgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
             const float *a, const int *ia, const int *ja, const int *desca, const float *b, const int *ib,
             const int *jb, const int *descb, const float *beta, float *c, const int *ic, const int *jc,
             const int *descc);

/* The peer's data: A, B, C block-cyclic (nb x nb blocks) on the same
   process grid as ours, column-major locally. */
typedef struct peer {
    int ctxt, desc[9];
    piece a, b, c;
} peer;

static void peer_setup(peer *pe, const config *cf, int dbl, int64_t n)
{
    gemm_mpi_blocks g;
    int nn = (int)n, nb = cf->nb, zero = 0, info = 0, rows, cols, lld, w;
    size_t es = dbl ? 8 : 4;
    piece *ps[3];
    gemm_mpi_blocks_of(nranks, me, n, n, n, &g);
    Cblacs_get(-1, 0, &pe->ctxt);
    Cblacs_gridinit(&pe->ctxt, "Row", g.grid_rows, g.grid_cols);
    ps[0] = &pe->a; ps[1] = &pe->b; ps[2] = &pe->c;
    rows = numroc_(&nn, &nb, &g.row, &zero, &g.grid_rows);
    cols = numroc_(&nn, &nb, &g.col, &zero, &g.grid_cols);
    lld = rows > 1 ? rows : 1;
    descinit_(pe->desc, &nn, &nn, &nb, &nb, &zero, &zero, &pe->ctxt, &lld, &info);
    if (info != 0 && me == 0) fprintf(stderr, "descinit_: info %d\n", info);
    for (w = 0; w < 3; w++) {
        piece *p = ps[w];
        memset(p, 0, sizeof *p);
        p->cyclic = 1;
        p->nb = nb; p->prow = g.row; p->pcol = g.col; p->nprow = g.grid_rows; p->npcol = g.grid_cols;
        p->rows = rows; p->cols = cols; p->ld = lld;
        p->p = alloc_bytes((size_t)lld * (size_t)(cols > 0 ? cols : 1) * es, 0);
        fill_piece(p, w == 2 ? -1 : w, dbl, 0);
    }
}

/* One PDGEMM/PSGEMM, C = A B (column-major: the values of our row-major
   call), timed as the slowest rank's seconds. */
static double peer_call(peer *pe, int dbl, int64_t n)
{
    int nn = (int)n, one = 1;
    double t, alpha = 1.0, beta = 0.0;
    float salpha = 1.0f, sbeta = 0.0f;
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    if (dbl)
        pdgemm_("N", "N", &nn, &nn, &nn, &alpha, (double *)pe->a.p, &one, &one, pe->desc, (double *)pe->b.p, &one,
                &one, pe->desc, &beta, (double *)pe->c.p, &one, &one, pe->desc);
    else
        psgemm_("N", "N", &nn, &nn, &nn, &salpha, (float *)pe->a.p, &one, &one, pe->desc, (float *)pe->b.p, &one,
                &one, pe->desc, &sbeta, (float *)pe->c.p, &one, &one, pe->desc);
    t = seconds_since(t);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

static void peer_free(peer *pe)
{
    free(pe->a.p);
    free(pe->b.p);
    free(pe->c.p);
    Cblacs_gridexit(pe->ctxt);
}
#endif

typedef struct call_data {
    int dist;
    const piece *a, *b, *c;
} call_data;

static gemm_status execute(gemm_mpi_plan *plan, int dbl, const call_data *d, const gemm_mpi_options *o)
{
    if (d->dist)
        return dbl ? gemm_mpi_dgemm_plan_dist(plan, 1.0, (double *)d->a->p, d->a->ld, (double *)d->b->p, d->b->ld, 0.0,
                                              (double *)d->c->p, d->c->ld, o)
                   : gemm_mpi_sgemm_plan_dist(plan, 1.0f, (float *)d->a->p, d->a->ld, (float *)d->b->p, d->b->ld,
                                              0.0f, (float *)d->c->p, d->c->ld, o);
    return dbl ? gemm_mpi_dgemm_plan(plan, 1.0, (double *)d->a->p, d->a->ld, (double *)d->b->p, d->b->ld, 0.0,
                                     (double *)d->c->p, d->c->ld, o)
               : gemm_mpi_sgemm_plan(plan, 1.0f, (float *)d->a->p, d->a->ld, (float *)d->b->p, d->b->ld, 0.0f,
                                     (float *)d->c->p, d->c->ld, o);
}

/* A plan, a warm-up execute, then cf->reps executes (each the slowest
   rank's seconds), each followed by the peer's call when given. */
static int timed_calls(const config *cf, int dbl, int64_t n, const call_data *d, double *times, result *res,
                       void *peer_data, double *peer_times)
{
    gemm_mpi_plan *plan = NULL;
    gemm_timing t, tc;
    gemm_mpi_options o = cf->o;
    gemm_status s;
    int r, ok = 1;
    o.timing_max = &tc;
    o.path_used = &res->path;
    MPI_Barrier(MPI_COMM_WORLD); /* the create's time is its own, not a wait for a rank still filling */
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, dbl ? GEMM_F64 : GEMM_F32, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS,
                             n, n, n, &o, &plan);
    res->create_s = tc.total_s;
    if (s != GEMM_OK) {
        if (me == 0) fprintf(stderr, "plan: %s: %s\n", gemm_strerror(s), gemm_last_error_detail());
        return 0;
    }
    o.timing_max = &t;
    for (r = cf->warmup ? -1 : 0; r < cf->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        s = execute(plan, dbl, d, &o);
        if (s != GEMM_OK && me == 0)
            fprintf(stderr, "%s: %s: %s\n", d->dist ? "resident" : "e2e", gemm_strerror(s), gemm_last_error_detail());
        ok = ok && s == GEMM_OK;
        if (r == (cf->warmup ? -1 : 0)) res->first_setup_s = t.setup_s;
        if (r >= 0) times[r] = t.total_s;
        if (r == cf->reps / 2 || r <= 0) res->max = t;
#ifdef BENCH_HAVE_SCALAPACK
        if (peer_data) {
            double pt = peer_call((peer *)peer_data, dbl, n);
            if (r >= 0) peer_times[r] = pt;
        }
#else
        (void)peer_data;
        (void)peer_times;
#endif
    }
    gemm_mpi_plan_destroy(&plan);
    return ok;
}

/* The distributed form on resident pieces (and the peer on its own). */
static void bench_resident(const config *cf, int dbl, int64_t n)
{
    int cuda = cf->o.local == GEMM_MPI_LOCAL_CUDA, ok;
    size_t es = dbl ? 8 : 4;
    double times[64], peer_times[64], err;
    gemm_mpi_blocks g;
    result res;
    piece a, b, c;
    call_data d;
    void *pd = NULL;
#ifdef BENCH_HAVE_SCALAPACK
    peer pe;
    if (cf->scalapack && !cuda) {
        peer_setup(&pe, cf, dbl, n);
        pd = &pe;
    }
#endif
    memset(&res, 0, sizeof res);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    gemm_mpi_blocks_of(nranks, me, n, n, n, &g);
    a.row0 = g.a.row0; a.col0 = g.a.col0; a.rows = g.a.rows; a.cols = g.a.cols; a.ld = a.cols > 1 ? a.cols : 1;
    b.row0 = g.b.row0; b.col0 = g.b.col0; b.rows = g.b.rows; b.cols = g.b.cols; b.ld = b.cols > 1 ? b.cols : 1;
    c.row0 = g.c.row0; c.col0 = g.c.col0; c.rows = g.c.rows; c.cols = g.c.cols; c.ld = c.cols > 1 ? c.cols : 1;
    a.p = alloc_bytes((size_t)(a.rows * a.ld) * es, cuda);
    b.p = alloc_bytes((size_t)(b.rows * b.ld) * es, cuda);
    c.p = alloc_bytes((size_t)(c.rows * c.ld) * es, cuda);
    fill_piece(&a, 0, dbl, cuda);
    fill_piece(&b, 1, dbl, cuda);
    d.dist = 1;
    d.a = &a;
    d.b = &b;
    d.c = &c;
    ok = timed_calls(cf, dbl, n, &d, times, &res, pd, peer_times);
    err = check_piece(&c, n, dbl, cuda);
#ifdef BENCH_HAVE_SCALAPACK
    if (pd) {
        res.peer = peer_times;
        res.peer_err = check_piece(&pe.c, n, dbl, 0);
        ok = ok && res.peer_err <= 1;
        peer_free(&pe);
    }
#endif
    free_bytes(a.p, cuda);
    free_bytes(b.p, cuda);
    free_bytes(c.p, cuda);
    report("resident", cf, dbl, n, times, cf->reps, &res, err, ok && err <= 1);
}

/* The root's one-core copy bandwidth, bytes per second (best of 3 copies
   of 256 MiB): what packing, unpacking and a shared-memory MPI message
   each run at. */
static double root_bandwidth(void)
{
    size_t bytes = (size_t)256 << 20;
    char *x = (char *)malloc(bytes), *y = (char *)malloc(bytes);
    double best = 0;
    int r;
    if (!x || !y) { free(x); free(y); return 0; }
    memset(x, 1, bytes);
    memset(y, 2, bytes);
    for (r = 0; r < 3; r++) {
        double t = MPI_Wtime(), bw;
        memcpy(r % 2 ? x : y, r % 2 ? y : x, bytes);
        bw = (double)bytes / seconds_since(t);
        if (bw > best) best = bw;
    }
    free(x);
    free(y);
    return best;
}

/* The root-held form from rank 0's host memory. */
static void bench_e2e(const config *cf, int dbl, int64_t n)
{
    int ok;
    size_t es = dbl ? 8 : 4, bytes = (size_t)(n * n) * es;
    double times[64], err, bw = 0;
    result res;
    piece a, b, c;
    call_data d;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    memset(&res, 0, sizeof res);
    if (me == 0) {
        a.rows = a.cols = b.rows = b.cols = c.rows = c.cols = n;
        a.ld = b.ld = c.ld = n;
        a.p = alloc_bytes(bytes, 0);
        b.p = alloc_bytes(bytes, 0);
        c.p = alloc_bytes(bytes, 0);
#ifdef GEMM_MPI_CUDA
        if (cf->o.local == GEMM_MPI_LOCAL_CUDA) { /* fill on the GPU, then copy: much faster than the host */
            piece dv = a;
            int w;
            dv.p = alloc_bytes(bytes, 1);
            for (w = 0; w < 2; w++) {
                fill_piece(&dv, w, dbl, 1);
                cudaMemcpy(w ? b.p : a.p, dv.p, bytes, cudaMemcpyDeviceToHost);
            }
            free_bytes(dv.p, 1);
        } else
#endif
        {
            fill_piece(&a, 0, dbl, 0);
            fill_piece(&b, 1, dbl, 0);
        }
    } else
        a.ld = b.ld = c.ld = 1;
    d.dist = 0;
    d.a = &a;
    d.b = &b;
    d.c = &c;
    ok = timed_calls(cf, dbl, n, &d, times, &res, NULL, NULL);
    if (me == 0) bw = root_bandwidth();
    /* A and B leave the root, C comes back: 3 n^2 elements through its memory */
    res.limit_s = bw > 0 ? 3.0 * (double)bytes / bw : 0;
    MPI_Bcast(&res.limit_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    err = check_piece(&c, n, dbl, 0);
    free(a.p);
    free(b.p);
    free(c.p);
    report("e2e", cf, dbl, n, times, cf->reps, &res, err, ok && err <= 1);
}

static int has(const char *list, const char *word) { return strstr(list, word) != NULL; }

static void parse(config *cf, int argc, char **argv, const char **sizes, const char **precs, const char **what)
{
    int i;
    for (i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--sizes")) *sizes = v;
        else if (!strcmp(k, "--prec")) *precs = v;
        else if (!strcmp(k, "--what")) *what = v;
        else if (!strcmp(k, "--reps")) cf->reps = atoi(v) < 1 ? 1 : atoi(v) > 64 ? 64 : atoi(v);
        else if (!strcmp(k, "--overlap")) cf->o.overlap = atoi(v);
        else if (!strcmp(k, "--warmup")) cf->warmup = atoi(v);
        else if (!strcmp(k, "--nb")) cf->nb = atoi(v) > 0 ? atoi(v) : 256;
        else if (!strcmp(k, "--slabs")) cf->o.slabs = atoi(v);
        else if (!strcmp(k, "--peer")) cf->scalapack = !strcmp(v, "scalapack");
        else if (!strcmp(k, "--local")) {
            cf->local = v;
            cf->o.local = !strcmp(v, "cuda") ? GEMM_MPI_LOCAL_CUDA : GEMM_MPI_LOCAL_CPU;
        } else if (!strcmp(k, "--algo")) {
            cf->algo = v;
            cf->o.algorithm = !strcmp(v, "fox") ? GEMM_MPI_FOX : GEMM_MPI_CANNON;
        } else if (!strcmp(k, "--path")) {
            cf->path = v;
            cf->o.path = !strcmp(v, "staged") ? GEMM_MPI_PATH_STAGED
                         : !strcmp(v, "aware") ? GEMM_MPI_PATH_CUDA_AWARE
                         : !strcmp(v, "ipc") ? GEMM_MPI_PATH_CUDA_IPC
                         : !strcmp(v, "root") ? GEMM_MPI_PATH_ROOT_DEVICES : GEMM_MPI_PATH_AUTO;
        } else if (me == 0) fprintf(stderr, "bench_mpi: unknown option %s\n", k);
    }
}

#ifdef BENCH_HAVE_SCALAPACK
char *openblas_get_corename(void) __attribute__((weak));
#endif

int main(int argc, char **argv)
{
    const char *sizes = "2048", *precs = "f32,f64", *what = "single,resident,e2e", *s;
    const char *blas = "-";
    config cf;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    memset(&cf, 0, sizeof cf);
    cf.reps = 3;
    cf.warmup = 1;
    cf.nb = 256;
    cf.local = "cpu";
    cf.algo = "cannon";
    cf.path = "auto";
    cf.o.overlap = 1;
    parse(&cf, argc, argv, &sizes, &precs, &what);
    /* CPU ranks: GEMM_NUM_THREADS threads each, else one (a rank per core);
       GPU ranks keep every core for packing */
    if (cf.o.local == GEMM_MPI_LOCAL_CPU) cf.o.threads = getenv("GEMM_NUM_THREADS") ? atoi(getenv("GEMM_NUM_THREADS")) : 1;
    cf.threads = cf.o.threads > 0 ? cf.o.threads : gemm_cpu_get_threads();
#ifdef BENCH_HAVE_SCALAPACK
    if (openblas_get_corename) blas = openblas_get_corename();
#else
    if (cf.scalapack && me == 0) fprintf(stderr, "bench_mpi: built without ScaLAPACK (-DBENCH_HAVE_SCALAPACK)\n");
    cf.scalapack = 0;
#endif
#ifdef GEMM_MPI_CUDA
    if (cf.o.local == GEMM_MPI_LOCAL_CUDA) { /* the device gemm_mpi picks, also for the fills */
        int ndev = 1, local = 0;
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
        cudaGetDeviceCount(&ndev);
        cudaSetDevice(local % (ndev > 0 ? ndev : 1));
    }
#endif
    if (me == 0)
        printf("# bench_mpi: %d ranks x %d threads, local %s, overlap %d, algo %s, path %s, slabs %d, reps %d, peer %s "
               "(nb %d, OpenBLAS core %s)\n", nranks, cf.threads, cf.local, cf.o.overlap, cf.algo, cf.path, cf.o.slabs,
               cf.reps, cf.scalapack ? "scalapack" : "none", cf.nb, blas);
    for (s = sizes; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
        int64_t n = atoll(s);
        int dbl;
        for (dbl = 0; dbl < 2; dbl++) {
            if (!has(precs, dbl ? "f64" : "f32")) continue;
            if (has(what, "single")) bench_single(&cf, dbl, n);
            if (has(what, "busy") && cf.o.local == GEMM_MPI_LOCAL_CPU) bench_busy(&cf, dbl, n);
            if (has(what, "resident")) bench_resident(&cf, dbl, n);
            if (has(what, "e2e")) bench_e2e(&cf, dbl, n);
        }
    }
    MPI_Finalize();
    return 0;
}
