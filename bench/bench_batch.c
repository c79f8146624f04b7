/* bench/bench_batch.c - the CPU's batches beside a loop of OpenBLAS calls,
   in one process.

   make bench-batch                 the default table: fp32 and fp64, batches
                                    of 10,000 products of 8^3, 16^3, 32^3 and
                                    of 1,000 of 128^3, on 2 threads
   build/bench_batch [--threads 2,16] [--prec f32,f64] [--shapes 8:10000,128:1000]
                     [--openblas PATH] [--seconds S] [--csv FILE]

   Columns, each the median time of one whole batch (min and max beside it):
     ours strided    gemm_cpu_?gemm_strided_batched on `threads` threads
     ours pointers   gemm_cpu_?gemm_batched, the same members
     ours loop       a loop of gemm_cpu_?gemm single calls (threads allowed)
     OpenBLAS loop   a loop of cblas_?gemm calls, OpenBLAS on `threads`
                     threads: the peer of the speed goal
     OpenBLAS omp    the members split over `threads` OpenMP threads, each
                     calling cblas_?gemm with OpenBLAS on 1 thread (built
                     with OpenMP only)
     libxsmm omp     libxsmm 1.17's JIT kernel for the shape, the members split
                     over `threads` OpenMP threads (built with libxsmm only)
   The ratio is OpenBLAS loop / ours strided (> 1: ours is faster).

   Protocol (docs/DESIGN.md, "Measuring"): random inputs in [-0.5, 0.5), a warm-up
   of every column, then the columns interleaved (A B C ... A B C ...), as
   many rounds as fit in --seconds per row (at least 7). Members are
   row-major NN, dense, one after the other; alpha = 1, beta = 0 (what
   libxsmm's kernels take). Every column's result is checked once on a
   sample of members and elements against fp64 sums.

   OpenBLAS is loaded with dlopen (--openblas, else libopenblas.so.0) after
   OPENBLAS_CORETYPE is set to its best kernel for this CPU (Debian's
   0.3.21 mistakes newer Xeons for Prescott) and OPENBLAS_THREAD_TIMEOUT=4
   (its idle threads otherwise spin into our next column); the kernel it
   runs is printed. Without it the table has our columns only.

   The OpenMP columns (built with libxsmm) run with GOMP_SPINCOUNT=4000
   (the bench re-executes itself with it unless OMP_WAIT_POLICY or
   GOMP_SPINCOUNT is set): libgomp's idle threads otherwise spin for
   milliseconds after each column, on every core, and the column after
   them (ours strided) ran on the one core they left it: 8^3 fp32 on 2
   threads here, 0.39 ms with them spinning, 0.22 ms without; on the
   16-core host it ran at the OpenBLAS loop's one-thread time. 4000 is what
   gemm's own pool spins before it yields. */
#define _POSIX_C_SOURCE 200809L
#define GEMM__TEST_HOOKS /* gemm__cpu_kernel(): which kernel runs */
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"
#include "openblas_coretype.h"

#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef BENCH_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

typedef void (*peer_sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                              float *, int);
typedef void (*peer_dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                              double *, int);
static peer_sgemm_fn peer_sgemm;
static peer_dgemm_fn peer_dgemm;
static void (*peer_set_threads)(int);
static char *(*peer_corename)(void);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Loads OpenBLAS with its best kernel for this CPU; 0 when it is not there. */
static int peer_load(const char *path)
{
    void *h;
    openblas_coretype_set();
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
    if (!(h = dlopen(path ? path : "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "bench_batch: no OpenBLAS (%s): our columns only\n", dlerror());
        return 0;
    }
    *(void **)&peer_sgemm = dlsym(h, "cblas_sgemm");
    *(void **)&peer_dgemm = dlsym(h, "cblas_dgemm");
    *(void **)&peer_set_threads = dlsym(h, "openblas_set_num_threads");
    *(void **)&peer_corename = dlsym(h, "openblas_get_corename");
    return peer_sgemm && peer_dgemm && peer_set_threads && peer_corename;
}

/* One batch: count members of n x n x n, one after the other. */
typedef struct batch {
    gemm_precision prec;
    int64_t n, count, size; /* size: elements of one member's matrix */
    battery_buf A, B, C;
    const void **a, **b;    /* pointer arrays of the same members */
    void **c;
} batch;

static void *at(const battery_buf *x, int64_t member, int64_t size)
{
    return (char *)x->data + (size_t)(member * size) * (x->prec == GEMM_F32 ? sizeof(float) : sizeof(double));
}

static batch batch_new(gemm_precision prec, int64_t n, int64_t count)
{
    batch t;
    uint64_t state = 42;
    int64_t i;
    t.prec = prec; t.n = n; t.count = count; t.size = n * n;
    t.A = battery_buf_new(prec, (size_t)(t.size * count));
    t.B = battery_buf_new(prec, (size_t)(t.size * count));
    t.C = battery_buf_new(prec, (size_t)(t.size * count));
    battery_fill(&t.A, &state);
    battery_fill(&t.B, &state);
    t.a = (const void **)malloc(sizeof(void *) * (size_t)count);
    t.b = (const void **)malloc(sizeof(void *) * (size_t)count);
    t.c = (void **)malloc(sizeof(void *) * (size_t)count);
    for (i = 0; i < count; i++) t.a[i] = at(&t.A, i, t.size), t.b[i] = at(&t.B, i, t.size), t.c[i] = at(&t.C, i, t.size);
    return t;
}

static void batch_free(batch *t)
{
    battery_buf_free(&t->A); battery_buf_free(&t->B); battery_buf_free(&t->C);
    free(t->a); free(t->b); free(t->c);
}

/* The columns. */
enum { OURS_STRIDED, OURS_POINTERS, OURS_LOOP, PEER_LOOP, PEER_OMP, XSMM_OMP, COLUMNS };
static const char *const column_names[COLUMNS] = {"ours strided", "ours pointers", "ours loop", "OpenBLAS loop",
                                                  "OpenBLAS omp", "libxsmm omp"};

static int column_available(int col)
{
    if (col == PEER_LOOP) return peer_sgemm != NULL;
#ifdef _OPENMP
    if (col == PEER_OMP) return peer_sgemm != NULL;
#else
    if (col == PEER_OMP) return 0;
#endif
#if !defined(BENCH_HAVE_LIBXSMM) || !defined(_OPENMP)
    if (col == XSMM_OMP) return 0;
#endif
    return 1;
}

/* One member through the peer: cblas_?gemm row-major NN. */
static void peer_member(const batch *t, int64_t i)
{
    int n = (int)t->n;
    if (t->prec == GEMM_F32)
        peer_sgemm(101, 111, 111, n, n, n, 1.0f, (const float *)t->a[i], n, (const float *)t->b[i], n, 0.0f,
                   (float *)t->c[i], n);
    else
        peer_dgemm(101, 111, 111, n, n, n, 1.0, (const double *)t->a[i], n, (const double *)t->b[i], n, 0.0,
                   (double *)t->c[i], n);
}

#if defined(BENCH_HAVE_LIBXSMM) && defined(_OPENMP)
/* libxsmm is column-major: the row-major C = A B is the column-major C^T = B^T A^T. */
static void xsmm_batch(const batch *t, int threads)
{
    libxsmm_blasint n = (libxsmm_blasint)t->n;
    int64_t i;
    if (t->prec == GEMM_F32) {
        float one = 1, zero = 0;
        libxsmm_smmfunction f = libxsmm_smmdispatch(n, n, n, &n, &n, &n, &one, &zero, NULL, NULL);
#pragma omp parallel for num_threads(threads) schedule(static)
        for (i = 0; i < t->count; i++) f((const float *)t->b[i], (const float *)t->a[i], (float *)t->c[i]);
    } else {
        double one = 1, zero = 0;
        libxsmm_dmmfunction f = libxsmm_dmmdispatch(n, n, n, &n, &n, &n, &one, &zero, NULL, NULL);
#pragma omp parallel for num_threads(threads) schedule(static)
        for (i = 0; i < t->count; i++) f((const double *)t->b[i], (const double *)t->a[i], (double *)t->c[i]);
    }
}
#endif

/* Runs one column once; returns its seconds. */
static double run_column(int col, const batch *t, int threads)
{
    gemm_cpu_options o = {0, 0};
    int64_t i, n = t->n, s = t->size;
    double t0 = now();
    gemm_status st = GEMM_OK;
    o.threads = threads;
    if (col == OURS_STRIDED && t->prec == GEMM_F32)
        st = gemm_cpu_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f,
                                            (const float *)t->A.data, n, s, (const float *)t->B.data, n, s, 0.0f,
                                            (float *)t->C.data, n, s, t->count, &o);
    else if (col == OURS_STRIDED)
        st = gemm_cpu_dgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0,
                                            (const double *)t->A.data, n, s, (const double *)t->B.data, n, s, 0.0,
                                            (double *)t->C.data, n, s, t->count, &o);
    else if (col == OURS_POINTERS && t->prec == GEMM_F32)
        st = gemm_cpu_sgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f,
                                    (const float *const *)t->a, n, (const float *const *)t->b, n, 0.0f,
                                    (float *const *)t->c, n, t->count, &o);
    else if (col == OURS_POINTERS)
        st = gemm_cpu_dgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0,
                                    (const double *const *)t->a, n, (const double *const *)t->b, n, 0.0,
                                    (double *const *)t->c, n, t->count, &o);
    else if (col == OURS_LOOP)
        for (i = 0; i < t->count && st == GEMM_OK; i++)
            st = t->prec == GEMM_F32
                ? gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, (const float *)t->a[i],
                                 n, (const float *)t->b[i], n, 0.0f, (float *)t->c[i], n, &o)
                : gemm_cpu_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0, (const double *)t->a[i],
                                 n, (const double *)t->b[i], n, 0.0, (double *)t->c[i], n, &o);
    else if (col == PEER_LOOP)
        for (i = 0; i < t->count; i++) peer_member(t, i);
#ifdef _OPENMP
    else if (col == PEER_OMP) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (i = 0; i < t->count; i++) peer_member(t, i);
    }
#endif
#if defined(BENCH_HAVE_LIBXSMM) && defined(_OPENMP)
    else if (col == XSMM_OMP)
        xsmm_batch(t, threads);
#endif
    if (st != GEMM_OK) {
        fprintf(stderr, "bench_batch: %s: %s (%s)\n", column_names[col], gemm_strerror(st), gemm_last_error_detail());
        exit(1);
    }
    return now() - t0;
}

/* 16 elements of 16 members against fp64 sums, within 2*eps*n*0.25. */
static int batch_ok(const batch *t)
{
    uint64_t state = 9;
    double eps = t->prec == GEMM_F32 ? FLT_EPSILON : DBL_EPSILON;
    int e;
    for (e = 0; e < 256; e++) {
        int64_t i = battery_below(&state, t->count), r = battery_below(&state, t->n), c = battery_below(&state, t->n), p;
        double sum = 0, got;
        for (p = 0; p < t->n; p++)
            sum += battery_get(&t->A, (size_t)(i * t->size + r * t->n + p)) *
                   battery_get(&t->B, (size_t)(i * t->size + p * t->n + c));
        got = battery_get(&t->C, (size_t)(i * t->size + r * t->n + c));
        if (!(fabs(got - sum) <= 2 * eps * (double)t->n * 0.25)) return 0;
    }
    return 1;
}

/* Runs column col once, with OpenBLAS set to the threads it should use. */
static double timed(int col, const batch *t, int threads)
{
    if (col == PEER_LOOP) peer_set_threads(threads);
    if (col == PEER_OMP) peer_set_threads(1);
    return run_column(col, t, threads);
}

/* One row: every column warmed up and checked, then interleaved rounds
   for about `seconds`; writes the sorted times of each column. */
static int measure_row(const batch *t, int threads, double seconds, double times[COLUMNS][64], int *rounds)
{
    int col, r, ok = 1;
    double start;
    for (col = 0; col < COLUMNS; col++) {
        if (!column_available(col)) continue;
        memset(t->C.data, 0xff, battery_buf_bytes(&t->C)); /* NaN: an unwritten element fails */
        timed(col, t, threads);
        if (!batch_ok(t)) {
            fprintf(stderr, "bench_batch: %s gave a wrong result\n", column_names[col]);
            ok = 0;
        }
    }
    start = now();
    for (r = 0; r < 64 && (r < 7 || now() - start < seconds); r++)
        for (col = 0; col < COLUMNS; col++)
            if (column_available(col)) times[col][r] = timed(col, t, threads);
    *rounds = r;
    for (col = 0; col < COLUMNS; col++) battery_sort(times[col], r);
    return ok;
}

static void print_row(FILE *csv, const batch *t, int threads, double times[COLUMNS][64], int rounds, int ok)
{
    int col;
    double ours = times[OURS_STRIDED][rounds / 2], peer = times[PEER_LOOP][rounds / 2];
    printf("%-4s %4lld^3 x %-6lld %3d |", gemm_precision_name(t->prec), (long long)t->n, (long long)t->count, threads);
    for (col = 0; col < COLUMNS; col++) {
        if (!column_available(col)) continue;
        printf(" %9.3f [%7.3f-%7.3f] |", 1e3 * times[col][rounds / 2], 1e3 * times[col][0], 1e3 * times[col][rounds - 1]);
        if (csv)
            fprintf(csv, "%s,%lld,%lld,%d,%s,%.6e,%.6e,%.6e,%d\n", gemm_precision_name(t->prec), (long long)t->n,
                    (long long)t->count, threads, column_names[col], times[col][rounds / 2], times[col][0],
                    times[col][rounds - 1], rounds);
    }
    if (column_available(PEER_LOOP)) printf(" %5.2fx", peer / ours);
    printf("%s\n", ok ? "" : "  WRONG RESULT");
    fflush(stdout);
}

static void print_header(void)
{
    int col;
    printf("times in ms: median [min-max] of one whole batch; row-major NN, alpha 1, beta 0\n");
    printf("prec shape           thr |");
    for (col = 0; col < COLUMNS; col++)
        if (column_available(col)) printf(" %-27s |", column_names[col]);
    if (column_available(PEER_LOOP)) printf(" OpenBLAS loop / ours strided");
    printf("\n");
}

int main(int argc, char **argv)
{
    int64_t threads[8] = {2};
    battery_shape shapes[16] = {{8, 10000, 0}, {16, 10000, 0}, {32, 10000, 0}, {128, 1000, 0}};
    gemm_precision precs[2] = {GEMM_F32, GEMM_F64};
    int nthreads = 1, nshapes = 4, nprecs = 2, ti, si, pi, i, all_ok = 1;
    const char *openblas = NULL, *csv_path = NULL;
    double seconds = 1.0;
    FILE *csv = NULL;
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--threads") == 0) nthreads = battery_parse_list(argv[i + 1], threads, 8);
        else if (strcmp(argv[i], "--prec") == 0) nprecs = battery_parse_precs(argv[i + 1], precs);
        else if (strcmp(argv[i], "--shapes") == 0) {
            nshapes = battery_parse_shapes(argv[i + 1], shapes, 16); /* n:count read as m:n */
        } else if (strcmp(argv[i], "--openblas") == 0) openblas = argv[i + 1];
        else if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--csv") == 0) csv_path = argv[i + 1];
        else break;
    }
#ifdef _OPENMP
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT")) { /* libgomp reads it once, at load */
        setenv("GOMP_SPINCOUNT", "4000", 1);
        execv("/proc/self/exe", argv);
        execv(argv[0], argv);
        fprintf(stderr, "bench_batch: could not re-execute with GOMP_SPINCOUNT=4000: the OpenMP columns spin on\n");
    }
#endif
    if (i < argc) {
        fprintf(stderr, "usage: %s [--threads 2,16] [--prec f32,f64] [--shapes n:count,...] [--openblas PATH] "
                        "[--seconds S] [--csv FILE]\n", argv[0]);
        return 2;
    }
    if (peer_load(openblas)) printf("OpenBLAS: %s kernel%s\n", peer_corename(), openblas_coretype_note());
    printf("gemm: %s kernel; libxsmm: %s; OpenMP idle threads: %s\n", gemm__cpu_kernel(),
           column_available(XSMM_OMP) ? "1.17, JIT" : "not built in",
           getenv("GOMP_SPINCOUNT") ? getenv("GOMP_SPINCOUNT") : getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "-");
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "prec,n,count,threads,column,median_s,min_s,max_s,rounds\n");
    print_header();
    for (si = 0; si < nshapes; si++)
        for (pi = 0; pi < nprecs; pi++) {
            batch t = batch_new(precs[pi], shapes[si].m, shapes[si].n);
            for (ti = 0; ti < nthreads; ti++) {
                static double times[COLUMNS][64];
                int rounds, ok = measure_row(&t, (int)threads[ti], seconds, times, &rounds);
                all_ok = all_ok && ok;
                print_row(csv, &t, (int)threads[ti], times, rounds, ok);
            }
            batch_free(&t);
        }
    if (csv) fclose(csv);
    return all_ok ? 0 : 1;
}
