/* bench/bench_mpi.c - strong scaling of gemm_mpi.h (run under mpirun; see
   bench/bench_mpi.sh, `make bench-mpi`).

   mpirun -np P build/bench_mpi [--local cpu|cuda] [--sizes 8192,16384]
          [--prec f32,f64] [--what single,resident,e2e] [--reps 3]
          [--overlap 0|1] [--algo cannon|fox] [--path auto|staged|aware|ipc]
          [--warmup 0|1]

   What is timed (row-major, NN, alpha = 1, beta = 0, square n):
     single    rank 0 alone runs our local multiply on the whole problem on
               its one device (gemm_cuda_?gemm on device memory, CUDA
               events; or gemm_?gemm with the threads gemm_cpu_set_threads
               allows, one by default): T1, the baseline of the efficiency.
     resident  the distributed call, every rank's pieces already in place
               (on its GPU with --local cuda): the seconds of the slowest rank.
     e2e       the root-held call: A, B on rank 0's host memory, C back there.
   Each: one warm-up call, then the median of --reps calls (min and max
   beside it), with the slowest rank's phase breakdown of the median run.
   Inputs are a hash of (matrix, row, column) in [-0.5, 0.5), made where
   they live (on the GPU by a kernel), so every rank can check any element:
   each rank checks 4 elements of its C against a dot product in double.

   Output: one CSV line per measurement on rank 0's stdout, prefixed "csv,":
   csv,what,local,prec,n,P,grid,q,overlap,algo,path,median_s,min_s,max_s,
       tflops,distribute,h2d,compute,d2h,shift,gather,max_err,ok */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm_mpi.h"
#include "../tests/battery.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct piece { /* a rank's row-major piece of op(X): rows x cols at (row0, col0) */
    int64_t row0, col0, rows, cols, ld;
    void *p;
} piece;

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
    int64_t i, j;
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
    for (i = 0; i < pc->rows; i++)
        for (j = 0; j < pc->cols; j++) {
            double v = bench_value(which, pc->row0 + i, pc->col0 + j);
            if (dbl) ((double *)pc->p)[i * pc->ld + j] = v;
            else ((float *)pc->p)[i * pc->ld + j] = (float)v;
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

/* Element (i, j) of C as computed, from a piece (host or device). */
static double read_c(const piece *c, int64_t i, int64_t j, int dbl, int device)
{
    size_t off = (size_t)(i * c->ld + j) * (dbl ? 8 : 4);
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
        int64_t i = (c->rows - 1) * t / 3, j = (c->cols - 1) * (3 - t) / 3, p;
        double want = 0, got = read_c(c, i, j, dbl, device), e;
        for (p = 0; p < n; p++) {
            double a = bench_value(0, c->row0 + i, p), b = bench_value(1, p, c->col0 + j);
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
    int reps, warmup;
    const char *local, *algo, *path;
} config;

/* What one call reports: the slowest rank's phases, and the path. */
typedef struct call_timing {
    gemm_timing max;
    gemm_mpi_path path;
} call_timing;

static void report(const char *what, const config *cf, int dbl, int64_t n, const double *times, int reps,
                   const call_timing *t, double err, int ok)
{
    double sorted[64], med;
    gemm_mpi_blocks g;
    int i;
    for (i = 0; i < reps; i++) sorted[i] = times[i];
    battery_sort(sorted, (int)reps);
    med = sorted[reps / 2];
    if (me != 0) return;
    gemm_mpi_blocks_of(t ? nranks : 1, 0, n, n, n, &g); /* the grid the call ran on */
    printf("csv,%s,%s,%s,%lld,%d,%dx%d,%d,%d,%s,%s,%.6f,%.6f,%.6f,%.3f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3g,%s\n", what,
           cf->local, dbl ? "f64" : "f32", (long long)n, nranks, g.grid_rows, g.grid_cols, g.q, cf->o.overlap,
           cf->algo,
           t ? (t->path == GEMM_MPI_PATH_HOST ? "host" : t->path == GEMM_MPI_PATH_CUDA_AWARE ? "cuda-aware"
                : t->path == GEMM_MPI_PATH_CUDA_IPC ? "cuda-ipc" : "staged")
             : "-",
           med, sorted[0], sorted[reps - 1], 2e-12 * (double)n * (double)n * (double)n / med,
           t ? t->max.distribute_s : 0, t ? t->max.to_device_s : 0, t ? t->max.compute_s : 0,
           t ? t->max.from_device_s : 0, t ? t->max.shift_s : 0, t ? t->max.gather_s : 0, err, ok ? "ok" : "FAIL");
    fflush(stdout);
}

/* T1: rank 0 multiplies the whole problem on its one device. */
static void bench_single(const config *cf, int dbl, int64_t n)
{
    int cuda = cf->o.local == GEMM_MPI_LOCAL_CUDA, r, ok = 1;
    double times[64], err = 0;
    size_t es = dbl ? 8 : 4, bytes = (size_t)(n * n) * es;
    piece a, b, c;
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        a.row0 = a.col0 = b.row0 = b.col0 = c.row0 = c.col0 = 0;
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
            cudaEvent_t e0, e1;
            float ms = 0;
            if (cuda) {
                cudaEventCreate(&e0);
                cudaEventCreate(&e1);
                cudaEventRecord(e0, 0);
                s = dbl ? gemm_cuda_dgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0,
                                          (double *)a.p, n, (double *)b.p, n, 0.0, (double *)c.p, n, NULL)
                        : gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f,
                                          (float *)a.p, n, (float *)b.p, n, 0.0f, (float *)c.p, n, NULL);
                cudaEventRecord(e1, 0);
                cudaEventSynchronize(e1);
                cudaEventElapsedTime(&ms, e0, e1);
                cudaEventDestroy(e0);
                cudaEventDestroy(e1);
                if (r >= 0) times[r] = 1e-3 * ms;
                ok = ok && s == GEMM_OK && cudaGetLastError() == cudaSuccess;
                continue;
            }
#endif
            s = dbl ? gemm_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, (double *)a.p, n,
                                 (double *)b.p, n, 0.0, (double *)c.p, n)
                    : gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, (float *)a.p, n,
                                 (float *)b.p, n, 0.0f, (float *)c.p, n);
            if (r >= 0) times[r] = MPI_Wtime() - t0;
            ok = ok && s == GEMM_OK;
        }
    } else
        c.rows = c.cols = 0;
    err = check_piece(&c, n, dbl, cuda);
    if (me == 0) {
        free_bytes(a.p, cuda);
        free_bytes(b.p, cuda);
        free_bytes(c.p, cuda);
    }
    MPI_Bcast(times, cf->reps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    report("single", cf, dbl, n, times, cf->reps, NULL, err, ok && err <= 1);
}

/* Warm-up, then cf->reps calls of the distributed (dist) or root-held call;
   each call's time is the slowest rank's. *tmed: the breakdown of a middle run. */
static int timed_calls(const config *cf, int dbl, int64_t n, int dist, const piece *a, const piece *b, const piece *c,
                       double *times, call_timing *tmed)
{
    call_timing t;
    gemm_mpi_options o = cf->o;
    int r, ok = 1;
    o.timing_max = &t.max;
    o.path_used = &t.path;
    memset(tmed, 0, sizeof *tmed);
    for (r = cf->warmup ? -1 : 0; r < cf->reps; r++) {
        gemm_status s;
        MPI_Barrier(MPI_COMM_WORLD);
        if (dist)
            s = dbl ? gemm_mpi_dgemm_dist(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0,
                                          (double *)a->p, a->ld, (double *)b->p, b->ld, 0.0, (double *)c->p, c->ld, &o)
                    : gemm_mpi_sgemm_dist(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f,
                                          (float *)a->p, a->ld, (float *)b->p, b->ld, 0.0f, (float *)c->p, c->ld, &o);
        else
            s = dbl ? gemm_mpi_dgemm(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0,
                                     (double *)a->p, n, (double *)b->p, n, 0.0, (double *)c->p, n, &o)
                    : gemm_mpi_sgemm(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f,
                                     (float *)a->p, n, (float *)b->p, n, 0.0f, (float *)c->p, n, &o);
        if (s != GEMM_OK && me == 0)
            fprintf(stderr, "%s: %s: %s\n", dist ? "resident" : "e2e", gemm_strerror(s), gemm_last_error_detail());
        ok = ok && s == GEMM_OK;
        if (r >= 0) times[r] = t.max.total_s;
        if (r == cf->reps / 2 || r <= 0) *tmed = t;
    }
    return ok;
}

/* The distributed call on resident pieces. */
static void bench_resident(const config *cf, int dbl, int64_t n)
{
    int cuda = cf->o.local == GEMM_MPI_LOCAL_CUDA, ok;
    size_t es = dbl ? 8 : 4;
    double times[64], err;
    gemm_mpi_blocks g;
    call_timing tmed;
    piece a, b, c;
    gemm_mpi_blocks_of(nranks, me, n, n, n, &g);
    a.row0 = g.a.row0; a.col0 = g.a.col0; a.rows = g.a.rows; a.cols = g.a.cols; a.ld = a.cols > 1 ? a.cols : 1;
    b.row0 = g.b.row0; b.col0 = g.b.col0; b.rows = g.b.rows; b.cols = g.b.cols; b.ld = b.cols > 1 ? b.cols : 1;
    c.row0 = g.c.row0; c.col0 = g.c.col0; c.rows = g.c.rows; c.cols = g.c.cols; c.ld = c.cols > 1 ? c.cols : 1;
    a.p = alloc_bytes((size_t)(a.rows * a.ld) * es, cuda);
    b.p = alloc_bytes((size_t)(b.rows * b.ld) * es, cuda);
    c.p = alloc_bytes((size_t)(c.rows * c.ld) * es, cuda);
    fill_piece(&a, 0, dbl, cuda);
    fill_piece(&b, 1, dbl, cuda);
    ok = timed_calls(cf, dbl, n, 1, &a, &b, &c, times, &tmed);
    err = check_piece(&c, n, dbl, cuda);
    free_bytes(a.p, cuda);
    free_bytes(b.p, cuda);
    free_bytes(c.p, cuda);
    report("resident", cf, dbl, n, times, cf->reps, &tmed, err, ok && err <= 1);
}

/* The root-held call from rank 0's host memory. */
static void bench_e2e(const config *cf, int dbl, int64_t n)
{
    int ok;
    size_t es = dbl ? 8 : 4, bytes = (size_t)(n * n) * es;
    double times[64], err;
    call_timing tmed;
    piece a, b, c;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    if (me == 0) {
        a.rows = a.cols = b.rows = b.cols = c.rows = c.cols = n;
        a.ld = b.ld = c.ld = n;
        a.p = alloc_bytes(bytes, 0);
        b.p = alloc_bytes(bytes, 0);
        c.p = alloc_bytes(bytes, 0);
#ifdef GEMM_MPI_CUDA
        if (cf->o.local == GEMM_MPI_LOCAL_CUDA) { /* fill on the GPU, then copy: much faster than the host */
            piece d = a;
            int w;
            d.p = alloc_bytes(bytes, 1);
            for (w = 0; w < 2; w++) {
                fill_piece(&d, w, dbl, 1);
                cudaMemcpy(w ? b.p : a.p, d.p, bytes, cudaMemcpyDeviceToHost);
            }
            free_bytes(d.p, 1);
        } else
#endif
        {
            fill_piece(&a, 0, dbl, 0);
            fill_piece(&b, 1, dbl, 0);
        }
    }
    ok = timed_calls(cf, dbl, n, 0, &a, &b, &c, times, &tmed);
    err = check_piece(&c, n, dbl, 0);
    free(a.p);
    free(b.p);
    free(c.p);
    report("e2e", cf, dbl, n, times, cf->reps, &tmed, err, ok && err <= 1);
}

static int has(const char *list, const char *word)
{
    const char *p = strstr(list, word);
    return p != NULL;
}

int main(int argc, char **argv)
{
    const char *sizes = "2048", *precs = "f32,f64", *what = "single,resident,e2e", *s;
    config cf;
    int i;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    memset(&cf, 0, sizeof cf);
    cf.reps = 3;
    cf.warmup = 1;
    cf.local = "cpu";
    cf.algo = "cannon";
    cf.path = "auto";
    cf.o.overlap = 1;
    for (i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--sizes")) sizes = v;
        else if (!strcmp(k, "--prec")) precs = v;
        else if (!strcmp(k, "--what")) what = v;
        else if (!strcmp(k, "--reps")) cf.reps = atoi(v) < 1 ? 1 : atoi(v) > 64 ? 64 : atoi(v);
        else if (!strcmp(k, "--overlap")) cf.o.overlap = atoi(v);
        else if (!strcmp(k, "--warmup")) cf.warmup = atoi(v);
        else if (!strcmp(k, "--local")) {
            cf.local = v;
            cf.o.local = !strcmp(v, "cuda") ? GEMM_MPI_LOCAL_CUDA : GEMM_MPI_LOCAL_CPU;
        } else if (!strcmp(k, "--algo")) {
            cf.algo = v;
            cf.o.algorithm = !strcmp(v, "fox") ? GEMM_MPI_FOX : GEMM_MPI_CANNON;
        } else if (!strcmp(k, "--path")) {
            cf.path = v;
            cf.o.path = !strcmp(v, "staged") ? GEMM_MPI_PATH_STAGED
                        : !strcmp(v, "aware") ? GEMM_MPI_PATH_CUDA_AWARE
                        : !strcmp(v, "ipc") ? GEMM_MPI_PATH_CUDA_IPC : GEMM_MPI_PATH_AUTO;
        } else if (me == 0) fprintf(stderr, "bench_mpi: unknown option %s\n", k);
    }
    /* CPU ranks: one thread each unless told; GPU ranks keep every core for packing */
    if (cf.o.local == GEMM_MPI_LOCAL_CPU) gemm_cpu_set_threads(getenv("GEMM_NUM_THREADS") ? 0 : 1);
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
        printf("# bench_mpi: %d ranks, local %s, overlap %d, algo %s, path %s, reps %d\n", nranks, cf.local,
               cf.o.overlap, cf.algo, cf.path, cf.reps);
    for (s = sizes; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
        int64_t n = atoll(s);
        int dbl;
        for (dbl = 0; dbl < 2; dbl++) {
            if (!has(precs, dbl ? "f64" : "f32")) continue;
            if (has(what, "single")) bench_single(&cf, dbl, n);
            if (has(what, "resident")) bench_resident(&cf, dbl, n);
            if (has(what, "e2e")) bench_e2e(&cf, dbl, n);
        }
    }
    MPI_Finalize();
    return 0;
}
