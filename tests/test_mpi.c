/* tests/test_mpi.c - the MPI backend under mpirun (tests/test_mpi.sh runs it
   at P = 1, 2, 3, 4, 6, 8, 9).

   Every rank builds the same random matrices (the battery is deterministic),
   so every rank can check the result against the reference:
     - root-held calls: the root's C is broadcast to the others afterwards;
     - distributed calls: each rank cuts its pieces out of the full matrices
       (gemm_mpi_blocks_of), calls, and the pieces of C are broadcast back
       into the full C on every rank.
   Both run the whole differential battery (Cannon blocking and overlapped,
   Fox), then the tests of rank-inconsistent input, memory caps, timing and
   the descriptor, and the plans (tests/mpi_plan_checks.h: reuse with fresh
   data, refusals, agreed failures, the defects of 0.3), and C overlapping
   A or B (tests/mpi_overlap_checks.h). Compiled with nvcc (-x cu) and GEMM_MPI_CUDA it also runs
   the battery with the CUDA local multiply.

   Rank 0 prints; the others print only when GEMM_TEST_ALL_RANKS is set.
   The last line is rank 0's: "P=<n>: N passed, N failed", summed over ranks. */
#include <stdlib.h>
/* GEMM_MALLOC with a fault switch: while test_malloc_countdown > 0 each
   allocation counts it down, and the one that brings it to 0 fails. */
static long test_malloc_countdown;
static void *test_malloc(size_t bytes)
{
    if (__atomic_load_n(&test_malloc_countdown, __ATOMIC_RELAXED) > 0 &&
        __atomic_sub_fetch(&test_malloc_countdown, 1, __ATOMIC_RELAXED) == 0)
        return NULL;
    return malloc(bytes);
}
#define GEMM_MALLOC(bytes) test_malloc(bytes)
#define GEMM_FREE(ptr) free(ptr)
#define GEMM__TEST_HOOKS /* staging chunk size, parallel copies; gemm__mpi_status */
#define GEMM_IMPLEMENTATION
#include "../gemm_mpi.h"
#include "battery.h"

static int me, nranks;

typedef struct mpi_ctx {
    int dist;
    gemm_mpi_options opts;
    gemm_mpi_plan *plan; /* set: executes of this plan (the shape arguments are the plan's) */
} mpi_ctx;

/* The three outputs of gemm_mpi_options, as the tests read them. */
typedef struct mpi_timing {
    gemm_timing rank, max;
    gemm_mpi_path path;
} mpi_timing;

static void want_timing(gemm_mpi_options *o, mpi_timing *t)
{
    o->timing = &t->rank;
    o->timing_max = &t->max;
    o->path_used = &t->path;
}

static size_t esize(int dbl) { return dbl ? sizeof(double) : sizeof(float); }

/* One call of the backend on element size es; pointers as the caller gave. */
static gemm_status call_mpi(const mpi_ctx *c, int dbl, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m,
                            int64_t n, int64_t k, double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                            double beta, void *C, int64_t ldc)
{
    if (c->plan && dbl)
        return (c->dist ? gemm_mpi_dgemm_plan_dist : gemm_mpi_dgemm_plan)(c->plan, alpha, (const double *)A, lda,
                                                                          (const double *)B, ldb, beta, (double *)C,
                                                                          ldc, &c->opts);
    if (c->plan)
        return (c->dist ? gemm_mpi_sgemm_plan_dist : gemm_mpi_sgemm_plan)(c->plan, (float)alpha, (const float *)A, lda,
                                                                          (const float *)B, ldb, (float)beta,
                                                                          (float *)C, ldc, &c->opts);
    if (dbl)
        return (c->dist ? gemm_mpi_dgemm_dist : gemm_mpi_dgemm)(MPI_COMM_WORLD, lay, ta, tb, m, n, k, alpha,
                                                                (const double *)A, lda, (const double *)B, ldb, beta,
                                                                (double *)C, ldc, &c->opts);
    return (c->dist ? gemm_mpi_sgemm_dist : gemm_mpi_sgemm)(MPI_COMM_WORLD, lay, ta, tb, m, n, k, (float)alpha,
                                                            (const float *)A, lda, (const float *)B, ldb, (float)beta,
                                                            (float *)C, ldc, &c->opts);
}

/* Stored extent of an op() tile: (outer, inner) counts and offset in X. */
static void tile_geometry(gemm_layout lay, gemm_transpose t, const gemm_mpi_tile *tile, int64_t *outer, int64_t *inner,
                          int64_t *outer0, int64_t *inner0)
{
    int64_t sr = t == GEMM_TRANS ? tile->cols : tile->rows, sc = t == GEMM_TRANS ? tile->rows : tile->cols;
    int64_t sr0 = t == GEMM_TRANS ? tile->col0 : tile->row0, sc0 = t == GEMM_TRANS ? tile->row0 : tile->col0;
    *outer = lay == GEMM_ROW_MAJOR ? sr : sc;
    *inner = lay == GEMM_ROW_MAJOR ? sc : sr;
    *outer0 = lay == GEMM_ROW_MAJOR ? sr0 : sc0;
    *inner0 = lay == GEMM_ROW_MAJOR ? sc0 : sr0;
}

/* Copies a tile between the full matrix X (ld) and a piece P (ldp). */
static void tile_copy(size_t es, gemm_layout lay, gemm_transpose t, const gemm_mpi_tile *tile, char *X, int64_t ld,
                      char *P, int64_t ldp, int to_piece)
{
    int64_t outer, inner, o0, i0, o;
    tile_geometry(lay, t, tile, &outer, &inner, &o0, &i0);
    if (inner <= 0) return;
    for (o = 0; o < outer; o++) {
        char *x = X + (size_t)((o0 + o) * ld + i0) * es, *p = P + (size_t)(o * ldp) * es;
        if (to_piece) memcpy(p, x, (size_t)inner * es);
        else memcpy(x, p, (size_t)inner * es);
    }
}

/* The local leading dimension that mirrors the caller's: as much padding (or
   as little, for the invalid-argument table) as the global one has. */
static int64_t local_ld(gemm_layout lay, gemm_transpose t, const gemm_mpi_tile *tile, int64_t grows, int64_t gcols,
                        int64_t ld)
{
    int64_t outer, inner, o0, i0, gneed, lneed;
    tile_geometry(lay, t, tile, &outer, &inner, &o0, &i0);
    gneed = (lay == GEMM_ROW_MAJOR) == (t == GEMM_NO_TRANS) ? gcols : grows;
    if (gneed < 1) gneed = 1;
    lneed = inner > 1 ? inner : 1;
    if (ld < INT64_MIN / 2) return ld; /* INT64_MIN in the invalid-argument table: stays invalid, no overflow */
    return lneed + (ld - gneed);
}

#ifdef GEMM_MPI_CUDA
/* Pieces live on the GPU for the distributed call with the CUDA multiply. */
static void *piece_to_device(const void *host, size_t bytes)
{
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess) { fprintf(stderr, "cudaMalloc failed\n"); exit(2); }
    cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice);
    return d;
}
#endif

/* The distributed call, from full matrices on every rank. */
static gemm_status call_dist(const mpi_ctx *c, int dbl, gemm_layout lay, gemm_transpose ta, gemm_transpose tb,
                             int64_t m, int64_t n, int64_t k, double alpha, const void *A, int64_t lda, const void *B,
                             int64_t ldb, double beta, void *C, int64_t ldc)
{
    size_t es = esize(dbl);
    gemm_mpi_blocks g;
    int64_t la, lb, lc, o, in, o0, i0;
    char *pa = NULL, *pb = NULL, *pc = NULL;
    void *ua, *ub, *uc;
    size_t sa, sb, sc;
    gemm_status s;
    int r, cuda = c->opts.local == GEMM_MPI_LOCAL_CUDA;
    if (gemm_mpi_blocks_of(nranks, me, m < 0 ? 0 : m, n < 0 ? 0 : n, k < 0 ? 0 : k, &g) != GEMM_OK) return GEMM_ERR_INTERNAL;
    la = local_ld(lay, ta, &g.a, m, k, lda);
    lb = local_ld(lay, tb, &g.b, k, n, ldb);
    lc = local_ld(lay, GEMM_NO_TRANS, &g.c, m, n, ldc);
    tile_geometry(lay, ta, &g.a, &o, &in, &o0, &i0);
    sa = (size_t)(o * (la > 0 ? la : 1)) * es;
    tile_geometry(lay, tb, &g.b, &o, &in, &o0, &i0);
    sb = (size_t)(o * (lb > 0 ? lb : 1)) * es;
    tile_geometry(lay, GEMM_NO_TRANS, &g.c, &o, &in, &o0, &i0);
    sc = (size_t)(o * (lc > 0 ? lc : 1)) * es;
    pa = (char *)calloc(1, sa + 1);
    pb = (char *)calloc(1, sb + 1);
    pc = (char *)calloc(1, sc + 1);
    /* pieces of valid calls only: an invalid ld says nothing about memory */
    if (m >= 0 && n >= 0 && k >= 0) {
        tile_geometry(lay, ta, &g.a, &o, &in, &o0, &i0);
        if (A && la >= in) tile_copy(es, lay, ta, &g.a, (char *)A, lda, pa, la, 1);
        tile_geometry(lay, tb, &g.b, &o, &in, &o0, &i0);
        if (B && lb >= in) tile_copy(es, lay, tb, &g.b, (char *)B, ldb, pb, lb, 1);
        tile_geometry(lay, GEMM_NO_TRANS, &g.c, &o, &in, &o0, &i0);
        if (C && lc >= in) tile_copy(es, lay, GEMM_NO_TRANS, &g.c, (char *)C, ldc, pc, lc, 1);
    }
    ua = A ? pa : NULL;
    ub = B ? pb : NULL;
    uc = C ? pc : NULL;
#ifdef GEMM_MPI_CUDA
    if (cuda) {
        ua = A ? piece_to_device(pa, sa) : NULL;
        ub = B ? piece_to_device(pb, sb) : NULL;
        uc = C ? piece_to_device(pc, sc) : NULL;
    }
#else
    (void)cuda;
#endif
    s = call_mpi(c, dbl, lay, ta, tb, m, n, k, alpha, ua, la, ub, lb, beta, uc, lc);
#ifdef GEMM_MPI_CUDA
    if (cuda) {
        if (uc) cudaMemcpy(pc, uc, sc, cudaMemcpyDeviceToHost);
        cudaFree(ua);
        cudaFree(ub);
        cudaFree(uc);
    }
#endif
    if (s == GEMM_OK && C && m > 0 && n > 0) {
        /* every rank's piece of C, broadcast into every rank's full C */
        for (r = 0; r < nranks; r++) {
            gemm_mpi_blocks gr;
            char *buf;
            size_t bytes;
            gemm_mpi_blocks_of(nranks, r, m, n, k, &gr);
            bytes = (size_t)(gr.c.rows * gr.c.cols) * es;
            buf = (char *)malloc(bytes + 1);
            tile_geometry(lay, GEMM_NO_TRANS, &gr.c, &o, &in, &o0, &i0);
            if (r == me) { /* my piece, densely */
                int64_t q;
                for (q = 0; q < o && in > 0; q++)
                    memcpy(buf + (size_t)(q * in) * es, pc + (size_t)(q * lc) * es, (size_t)in * es);
            }
            if (bytes) MPI_Bcast(buf, (int)bytes, MPI_BYTE, r, MPI_COMM_WORLD);
            tile_copy(es, lay, GEMM_NO_TRANS, &gr.c, (char *)C, ldc, buf, in > 1 ? in : 1, 0);
            free(buf);
        }
    }
    free(pa);
    free(pb);
    free(pc);
    return s;
}

/* The root-held call, then the root's C to every rank. */
static gemm_status adapter(void *ctx, int dbl, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m,
                           int64_t n, int64_t k, double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                           double beta, void *C, int64_t ldc)
{
    const mpi_ctx *c = (const mpi_ctx *)ctx;
    gemm_status s;
    if (c->dist) return call_dist(c, dbl, lay, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    s = call_mpi(c, dbl, lay, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    if (s == GEMM_OK && C && m > 0 && n > 0) {
        size_t count = battery_extent(lay, m, n, ldc);
        MPI_Bcast(C, (int)count, dbl ? MPI_DOUBLE : MPI_FLOAT, c->opts.root, MPI_COMM_WORLD);
    }
    return s;
}

static gemm_status mpi_sgemm(void *ctx, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                             float beta, float *C, int64_t ldc)
{
    return adapter(ctx, 0, lay, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static gemm_status mpi_dgemm(void *ctx, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                             double beta, double *C, int64_t ldc)
{
    return adapter(ctx, 1, lay, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static int env_int(const char *name, int def)
{
    const char *v = getenv(name);
    return v && atoi(v) > 0 ? atoi(v) : def;
}

/* options.slabs of the next batteries (the root-held stream) */
static int battery_slabs;

static void run_battery(const char *name, int dist, gemm_mpi_algorithm algo, int overlap, gemm_mpi_local local, int root,
                        gemm_mpi_path path)
{
    battery_backend be;
    mpi_ctx c;
    memset(&be, 0, sizeof be);
    memset(&c, 0, sizeof c);
    c.dist = dist;
    c.opts.algorithm = algo;
    c.opts.overlap = overlap;
    c.opts.local = local;
    c.opts.root = root;
    c.opts.path = path;
    c.opts.slabs = battery_slabs;
    be.name = name;
    be.sgemm = mpi_sgemm;
    be.dgemm = mpi_dgemm;
    be.ctx = &c;
    /* Small, so that 9 ranks on 2 cores finish in seconds; sizes still
       straddle every grid (padding) and 0/1/prime shapes come from the battery. */
    be.max_dim = env_int("GEMM_MPI_TEST_MAX_DIM", 40);
    be.cases = env_int("GEMM_MPI_TEST_CASES", 3);
    battery_run(&be);
}

/* ---- beyond the battery ---- */

static void fill(double *x, size_t n, uint64_t seed)
{
    size_t i;
    for (i = 0; i < n; i++) x[i] = battery_uniform(&seed);
}

static double max_err(const double *a, const double *b, size_t n)
{
    double e = 0;
    size_t i;
    for (i = 0; i < n; i++) e = fabs(a[i] - b[i]) > e ? fabs(a[i] - b[i]) : e;
    return e;
}

/* The descriptor: C tiles partition m x n, A's rows are C's, B's columns
   are C's; A's k-columns and B's k-rows each partition k along the grid. */
static void test_descriptor(void)
{
    static const int64_t sizes[][3] = {{1, 1, 1}, {7, 5, 3}, {64, 64, 64}, {100, 37, 200}, {3, 300, 2}};
    int si, p;
    for (si = 0; si < 5; si++)
        for (p = 1; p <= 12; p++) {
            int64_t m = sizes[si][0], n = sizes[si][1], k = sizes[si][2], area = 0, arow = 0, bcol = 0;
            int r, ok = 1;
            for (r = 0; r < p; r++) {
                gemm_mpi_blocks g;
                memset(&g, 0, sizeof g);
                ok = ok && gemm_mpi_blocks_of(p, r, m, n, k, &g) == GEMM_OK;
                ok = ok && g.grid_rows * g.grid_cols == p && g.grid_rows <= g.grid_cols && g.row * g.grid_cols + g.col == r;
                ok = ok && g.a.row0 == g.c.row0 && g.a.rows == g.c.rows && g.b.col0 == g.c.col0 && g.b.cols == g.c.cols;
                ok = ok && g.c.row0 + g.c.rows <= m && g.c.col0 + g.c.cols <= n && g.c.rows >= 0 && g.c.cols >= 0;
                area += g.c.rows * g.c.cols;
                if (g.row == 0) bcol += g.a.cols; /* A's k-pieces along process row 0 */
                if (g.col == 0) arow += g.b.rows; /* B's k-pieces down process column 0 */
            }
            battery_check(ok && area == m * n && arow == k && bcol == k,
                          "descriptor partitions %lldx%lldx%lld over %d ranks", (long long)m, (long long)n, (long long)k, p);
        }
    {
        gemm_mpi_blocks g;
        battery_check(gemm_mpi_blocks_of(0, 0, 1, 1, 1, &g) == GEMM_ERR_INVALID_ARG &&
                          gemm_mpi_blocks_of(2, 2, 1, 1, 1, &g) == GEMM_ERR_INVALID_ARG &&
                          gemm_mpi_blocks_of(2, 0, -1, 1, 1, &g) == GEMM_ERR_INVALID_ARG &&
                          gemm_mpi_blocks_of(2, 0, 1, 1, 1, NULL) == GEMM_ERR_INVALID_ARG,
                      "descriptor rejects bad ranks, sizes, NULL");
    }
}

/* A call whose scalars differ on one rank: every rank gets INVALID_ARG,
   the detail names the argument, the root's C is untouched. */
static void test_inconsistent(void)
{
    enum { M = 23, N = 19, K = 17 };
    double A[M * K], B[K * N], C[M * N], C0[M * N];
    mpi_ctx c;
    gemm_status s;
    int odd = me == nranks - 1 && nranks > 1;
    memset(&c, 0, sizeof c);
    fill(A, M * K, 1);
    fill(B, K * N, 2);
    fill(C0, M * N, 3);
    memcpy(C, C0, sizeof C);

    if (nranks > 1) {
        s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, odd ? M - 1 : M, N, K, 1.0, A, K, B, N, 0.0, C, N);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "different m") &&
                          memcmp(C, C0, sizeof C) == 0,
                      "rank %d: m differs on the last rank -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
        s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, odd ? 2.0 : 1.0, A, K, B, N, 0.0, C, N);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "alpha") && memcmp(C, C0, sizeof C) == 0,
                      "rank %d: alpha differs -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
        c.opts.algorithm = odd ? GEMM_MPI_FOX : GEMM_MPI_CANNON;
        s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C, N);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "algorithm"),
                      "rank %d: options.algorithm differs -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
        c.opts.algorithm = GEMM_MPI_CANNON;
        /* an invalid argument on one rank only (the distributed call checks
           each rank's own pieces) */
        c.dist = 1;
        s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C,
                     odd ? 0 : N);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "ldc") && memcmp(C, C0, sizeof C) == 0,
                      "rank %d: ldc = 0 on the last rank only -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
        c.dist = 0;
    }
    /* root-held: only the root's pointers and leading dimensions count */
    s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, me == 0 ? K - 1 : K, B, N, 0.0, C, N);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "rank 0") &&
                      strstr(gemm_last_error_detail(), "lda") && memcmp(C, C0, sizeof C) == 0,
                  "rank %d: root's lda too small -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
    {
        double R[M * N];
        memcpy(R, C0, sizeof R);
        gemm_ref_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.5, R, N);
        s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, me ? NULL : A, me ? 0 : K,
                     me ? NULL : B, me ? -5 : N, 0.5, me ? NULL : C, me ? 0 : N);
        battery_check(s == GEMM_OK && (me != 0 || max_err(C, R, M * N) < 1e-12),
                      "rank %d: non-root ranks may pass NULL and any ld -> %d, err %.3g", me, (int)s,
                      me ? 0.0 : max_err(C, R, M * N));
        memcpy(C, C0, sizeof C);
    }
    c.opts.root = nranks; /* the same bad root everywhere */
    s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C, N);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "root"),
                  "rank %d: options.root out of range -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
    c.opts.root = 0;
    c.opts.local = (gemm_mpi_local)7;
    s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C, N);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "local"),
                  "rank %d: options.local invalid -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
    s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, -1, N, K, 1.0, A, K, B, N, 0.0, C, N);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "m = -1") &&
                      !strstr(gemm_last_error_detail(), "local"),
                  "rank %d: m = -1 and options.local invalid: the arguments are checked first -> \"%s\"", me,
                  gemm_last_error_detail());
    c.opts.local = GEMM_MPI_LOCAL_CPU;
    s = gemm_mpi_dgemm(MPI_COMM_NULL, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C, N, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "MPI_COMM_NULL"),
                  "rank %d: MPI_COMM_NULL -> %d", me, (int)s);
#ifndef GEMM_MPI_CUDA
    c.opts.local = GEMM_MPI_LOCAL_CUDA;
    s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C, N);
    battery_check(s == GEMM_ERR_UNAVAILABLE && memcmp(C, C0, sizeof C) == 0,
                  "rank %d: CUDA multiply not compiled in -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
#endif
}

/* One rank's GEMM_MALLOC fails, at each allocation of the call in turn
   (setup, the local multiplies, Fox's slots): every rank returns the same
   status and the root's C is byte for byte what it was. */
static void test_malloc_failure(void)
{
    enum { M = 37, N = 29, K = 31 };
    double A[M * K], B[K * N], C[M * N], C0[M * N], R[M * N];
    mpi_ctx c;
    int algo, victim = nranks - 1;
    fill(A, M * K, 21);
    fill(B, K * N, 22);
    fill(C0, M * N, 23);
    memcpy(R, C0, sizeof R);
    /* beta = -0.0: its bits are INT64_MIN in the vote (UBSan watches) */
    gemm_ref_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, -0.0, R, M);
    for (algo = 0; algo < 3; algo++) {
        long nth;
        int failures = 0, same = 1, kept = 1, ok = 0;
        memset(&c, 0, sizeof c);
        c.opts.algorithm = algo == 1 ? GEMM_MPI_FOX : GEMM_MPI_CANNON;
        c.opts.overlap = algo == 2;
        for (nth = 1; nth <= 200 && !ok; nth++) {
            int st[2], lo_hi[2];
            gemm_status s;
            memcpy(C, C0, sizeof C);
            test_malloc_countdown = me == victim ? nth : 0;
            s = call_mpi(&c, 1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, -0.0, C, M);
            test_malloc_countdown = 0;
            st[0] = (int)s;
            st[1] = -(int)s;
            MPI_Allreduce(st, lo_hi, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            same = same && lo_hi[0] == -lo_hi[1];
            if (lo_hi[0] == GEMM_OK && lo_hi[1] == GEMM_OK) ok = 1;
            else {
                failures++;
                same = same && s == GEMM_ERR_OUT_OF_MEMORY;
                kept = kept && (me != 0 || memcmp(C, C0, sizeof C) == 0);
            }
        }
        battery_check(ok && failures > 0 && same && kept && (me != 0 || max_err(C, R, M * N) < 1e-12),
                      "rank %d: %s, GEMM_MALLOC failing on rank %d at each of %d allocations: same status everywhere "
                      "%d, C untouched %d, then right", me, algo == 1 ? "Fox" : algo ? "Cannon overlap" : "Cannon",
                      victim, failures, same, kept);
    }
}

/* The memory query matches what the cap enforces. */
static void test_memory(void)
{
    enum { M = 40, N = 33, K = 27 };
    double A[M * K], B[K * N], C[M * N];
    mpi_ctx c;
    size_t host = 0, dev = 0;
    gemm_status s;
    int dist;
    memset(&c, 0, sizeof c);
    fill(A, M * K, 4);
    fill(B, K * N, 5);
    for (dist = 0; dist < 3; dist++) { /* 2: root-held, streamed in 3 slabs (their landing blocks counted) */
        c.dist = dist == 1;
        c.opts.overlap = dist;
        c.opts.slabs = dist == 2 ? 3 : 0;
        battery_check(gemm_mpi_memory(nranks, M, N, K, GEMM_F64, c.dist, &c.opts, &host, &dev) == GEMM_OK && host > 0 &&
                          dev == 0,
                      "memory query (%s): %zu host bytes, %zu device", dist == 1 ? "dist" : dist ? "root-held, 3 slabs"
                      : "root-held", host, dev);
        c.opts.max_host_bytes = host - 1;
        s = c.dist ? call_dist(&c, 1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, 0.0, C, M)
                 : call_mpi(&c, 1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, 0.0, C, M);
        battery_check(s == GEMM_ERR_OUT_OF_MEMORY && strstr(gemm_last_error_detail(), "cap"),
                      "rank %d: cap one byte short -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
        c.opts.max_host_bytes = host;
        s = c.dist ? call_dist(&c, 1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, 0.0, C, M)
                 : call_mpi(&c, 1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, 0.0, C, M);
        battery_check(s == GEMM_OK, "rank %d: cap exactly the query -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
        c.opts.max_host_bytes = 0;
    }
    battery_check(gemm_mpi_memory(nranks, M, N, K, GEMM_F16, 0, NULL, &host, &dev) == GEMM_ERR_INVALID_ARG,
                  "memory query rejects GEMM_F16");
    {   /* a block row over INT_MAX bytes cannot be one staged message: refused before anything is read (C
           below A, so that the 16 GB A claims past its address cannot cover C: no overlap to refuse first) */
        static double c_below[1];
        int64_t kbig = (int64_t)1 << 31;
        memset(&c, 0, sizeof c);
        s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, kbig, 1.0, A, kbig, B, 1, 0.0, c_below,
                     1);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "int"),
                      "rank %d: root-held, k = 2^31: a block row over MPI's int count is refused -> %d \"%s\"", me,
                      (int)s, gemm_last_error_detail());
    }
}

/* The breakdown is filled, the maximum is the maximum, and MPI errors map. */
static void test_timing_and_errors(void)
{
    enum { M = 64, N = 48, K = 80 };
    double A[M * K], B[K * N], C[M * N], R[M * N];
    mpi_timing t;
    gemm_mpi_blocks g;
    mpi_ctx c;
    gemm_status s;
    int algo;
    for (algo = 0; algo < 2; algo++) {
        memset(&c, 0, sizeof c);
        memset(&t, 0xff, sizeof t);
        want_timing(&c.opts, &t);
        c.opts.algorithm = (gemm_mpi_algorithm)algo;
        fill(A, M * K, 6);
        fill(B, K * N, 7);
        fill(C, M * N, 8);
        memcpy(R, C, sizeof R);
        gemm_ref_dgemm(GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, M, N, K, -1.5, A, M, B, N, 2.0, R, N);
        s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, M, N, K, -1.5, A, M, B, N, 2.0, C, N);
        gemm_mpi_blocks_of(nranks, me, M, N, K, &g);
        battery_check(s == GEMM_OK && (me != 0 || max_err(C, R, M * N) < 1e-12) && t.rank.total_s > 0 &&
                          t.max.total_s >= t.rank.total_s && t.max.compute_s >= t.rank.compute_s &&
                          t.rank.compute_s > 0 && t.rank.distribute_s >= 0 && t.rank.gather_s >= 0 &&
                          t.rank.shift_s >= 0 && t.rank.to_device_s == 0 && t.path == GEMM_MPI_PATH_HOST,
                      "rank %d: %s timing: total %.3g (max %.3g) compute %.3g, grid %dx%d q=%d", me,
                      algo ? "Fox" : "Cannon", t.rank.total_s, t.max.total_s, t.rank.compute_s, g.grid_rows,
                      g.grid_cols, g.q);
    }
    /* timing on rank 0 only: every rank still calls the same collectives */
    memset(&c, 0, sizeof c);
    memset(&t, 0xff, sizeof t);
    if (me == 0) want_timing(&c.opts, &t);
    fill(C, M * N, 8);
    memcpy(R, C, sizeof R);
    gemm_ref_dgemm(GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, M, N, K, -1.5, A, M, B, N, 2.0, R, N);
    s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, M, N, K, -1.5, A, M, B, N, 2.0, C, N);
    battery_check(s == GEMM_OK && (me != 0 || (max_err(C, R, M * N) < 1e-12 && t.max.total_s >= t.rank.total_s &&
                                               t.rank.total_s > 0 && t.path == GEMM_MPI_PATH_HOST)),
                  "rank %d: timing on rank 0 only -> %d \"%s\"", me, (int)s, s ? gemm_last_error_detail() : "");
    /* early returns and the scale-only path fill timing too */
    memset(&c, 0, sizeof c);
    want_timing(&c.opts, &t);
    {
        static const int64_t mnk[3][3] = {{0, N, K}, {M, N, 0}, {M, N, K}};
        static const char *const what[3] = {"m = 0", "k = 0 (scale only)", "a failed first vote"};
        int w;
        for (w = 0; w < 3; w++) {
            memset(&t, 0xff, sizeof t);
            s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, mnk[w][0], mnk[w][1], mnk[w][2], -1.5, A, M,
                         B, N, w == 2 ? 2.5 + me : 2.0, C, N);
            battery_check((w == 2 ? s == (nranks > 1 ? GEMM_ERR_INVALID_ARG : GEMM_OK) : s == GEMM_OK) &&
                              t.rank.total_s >= 0 && t.max.total_s >= t.rank.total_s && t.rank.to_device_s == 0 &&
                              t.max.gather_s >= 0 && t.path == GEMM_MPI_PATH_HOST,
                          "rank %d: timing filled on %s -> %d, total %.3g path %d", me, what[w], (int)s,
                          t.rank.total_s, (int)t.path);
        }
    }
    s = gemm__mpi_status(MPI_ERR_COMM, "MPI_Send");
    {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(MPI_ERR_COMM, text, &len);
        text[len] = '\0';
        battery_check(s == GEMM_ERR_MPI && strstr(gemm_last_error_detail(), "MPI_Send") &&
                          strstr(gemm_last_error_detail(), text),
                      "an MPI error is GEMM_ERR_MPI with MPI's text: \"%s\"", gemm_last_error_detail());
    }
    battery_check(gemm__mpi_status(MPI_SUCCESS, "x") == GEMM_OK, "MPI_SUCCESS is GEMM_OK");
}

/* options.slabs = 0 chooses the root-held stream's depth from the sizes:
   with the CUDA multiply and blocks travelling by MPI, slabs about 4096
   deep (at most 8); otherwise one; a fixed count is kept (at most kb). */
static void test_auto_slabs(void)
{
    static const struct { int slabs, algo, cuda, root_devices; int64_t kb; int want; } c[] = {
        {0, GEMM_MPI_CANNON, 1, 0, 16384, 4}, {0, GEMM_MPI_CANNON, 1, 0, 8192, 2}, {0, GEMM_MPI_CANNON, 1, 0, 8191, 1},
        {0, GEMM_MPI_CANNON, 1, 0, 60000, 8}, {0, GEMM_MPI_CANNON, 1, 0, 100, 1}, {0, GEMM_MPI_CANNON, 0, 0, 16384, 1},
        {0, GEMM_MPI_CANNON, 1, 1, 16384, 1}, {0, GEMM_MPI_FOX, 1, 0, 16384, 1}, {3, GEMM_MPI_CANNON, 0, 0, 16384, 3},
        {1, GEMM_MPI_CANNON, 1, 0, 16384, 1}, {9, GEMM_MPI_CANNON, 1, 0, 5, 5}, {3, GEMM_MPI_FOX, 0, 0, 16384, 1}};
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        gemm_mpi_options o;
        gemm__mpi_grid g;
        int got;
        memset(&o, 0, sizeof o);
        memset(&g, 0, sizeof g);
        o.slabs = c[i].slabs;
        o.algorithm = (gemm_mpi_algorithm)c[i].algo;
        g.kb = c[i].kb;
        got = gemm__mpi_slab_count(&o, &g, c[i].cuda, c[i].root_devices);
        battery_check(got == c[i].want, "slabs %d, %s, %s%s, kb %lld: %d slabs (want %d)", c[i].slabs,
                      c[i].algo == GEMM_MPI_FOX ? "Fox" : "Cannon", c[i].cuda ? "CUDA" : "CPU",
                      c[i].root_devices ? ", root's host call" : "", (long long)c[i].kb, got, c[i].want);
    }
}

#include "mpi_plan_checks.h"
#include "mpi_overlap_checks.h"

#ifdef GEMM_MPI_CUDA
/* With the CUDA multiply: the breakdown names the path that ran, host-device
   copies are counted, and a forced CUDA_AWARE path is refused cleanly when
   MPI is not CUDA-aware. */
static void test_cuda_paths(void)
{
    enum { M = 96, N = 80, K = 72 };
    static double A[M * K], B[K * N], C[M * N], R[M * N];
    mpi_timing t;
    mpi_ctx c;
    gemm_status s;
    int p;
    memset(&c, 0, sizeof c);
    c.opts.local = GEMM_MPI_LOCAL_CUDA;
    want_timing(&c.opts, &t);
    fill(A, M * K, 11);
    fill(B, K * N, 12);
    for (p = GEMM_MPI_PATH_AUTO; p <= GEMM_MPI_PATH_ROOT_DEVICES; p++) {
        if (p == GEMM_MPI_PATH_HOST) continue;
        c.opts.path = (gemm_mpi_path)p;
        fill(C, M * N, 13);
        memcpy(R, C, sizeof R);
        gemm_ref_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, M, N, K, 0.5, A, M, B, N, 1.5, R, M);
        memset(&t, 0, sizeof t);
        s = call_mpi(&c, 1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, M, N, K, 0.5, A, M, B, N, 1.5, C, M);
        if (s == GEMM_ERR_UNAVAILABLE && p == GEMM_MPI_PATH_CUDA_AWARE) {
            battery_check(strstr(gemm_last_error_detail(), "CUDA") != NULL,
                          "rank %d: path CUDA_AWARE refused: this MPI is not CUDA-aware: \"%s\"", me,
                          gemm_last_error_detail());
            continue;
        }
        /* on one node AUTO lets the root drive every rank's GPU (ROOT_DEVICES): the
           other ranks then multiply nothing themselves */
        battery_check(s == GEMM_OK && (me != 0 || max_err(C, R, M * N) < 1e-12) &&
                          (p == GEMM_MPI_PATH_AUTO ? t.path == GEMM_MPI_PATH_ROOT_DEVICES : t.path == p) &&
                          (t.rank.compute_s > 0 || (t.path == GEMM_MPI_PATH_ROOT_DEVICES && me != 0)) &&
                          (me != 0 || t.rank.to_device_s > 0),
                      "rank %d: cuda, path asked %d, ran %d: status %d \"%s\", compute %.3g s, h2d %.3g s", me, p,
                      (int)t.path, (int)s, s == GEMM_OK ? "" : gemm_last_error_detail(), t.rank.compute_s,
                      t.rank.to_device_s);
        if (me == 0 && p == GEMM_MPI_PATH_AUTO)
            printf("cuda: the automatic path is %s\n", t.path == GEMM_MPI_PATH_CUDA_AWARE ? "CUDA-aware MPI"
                                                        : t.path == GEMM_MPI_PATH_CUDA_IPC ? "CUDA IPC"
                                                        : t.path == GEMM_MPI_PATH_ROOT_DEVICES ? "the root's host call on every GPU"
                                                                                               : "staged");
    }
}
#endif

int main(int argc, char **argv)
{
    int totals[2], sums[2], root = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (me != 0 && !getenv("GEMM_TEST_ALL_RANKS")) {
        if (!freopen("/dev/null", "w", stdout)) return 2;
    }
    if (nranks > 1) root = nranks - 1; /* a root other than 0 too */
    /* one thread per rank (ranks share 2 cores in CI) unless GEMM_NUM_THREADS says */
    gemm_cpu_set_threads(getenv("GEMM_NUM_THREADS") ? 0 : 1);
    /* the test hooks (tests/test_mpi.sh sets them): small staging chunks, so
       that blocks travel in many chunks; parallel copies of small blocks */
    gemm__test_hooks()->mpi_stage_bytes = (size_t)env_int("GEMM_MPI_TEST_STAGE_BYTES", 0);
    gemm__test_hooks()->mpi_copy_parallel_bytes = (size_t)env_int("GEMM_MPI_TEST_COPY_PARALLEL_BYTES", 0);
    gemm__test_hooks()->mpi_poll_cols = env_int("GEMM_MPI_TEST_POLL_COLS", 0);
    test_descriptor();
    test_inconsistent();
    test_memory();
    test_malloc_failure();
    test_timing_and_errors();
    test_auto_slabs();
    test_plans(GEMM_MPI_LOCAL_CPU);
    test_plan_refusals();
    test_plan_failures();
    test_defects();
    test_mpi_overlaps();
    run_battery("mpi root-held cannon", 0, GEMM_MPI_CANNON, 0, GEMM_MPI_LOCAL_CPU, 0, GEMM_MPI_PATH_AUTO);
    run_battery("mpi root-held cannon overlap (root = last rank)", 0, GEMM_MPI_CANNON, 1, GEMM_MPI_LOCAL_CPU, root, GEMM_MPI_PATH_AUTO);
    run_battery("mpi root-held fox", 0, GEMM_MPI_FOX, 0, GEMM_MPI_LOCAL_CPU, 0, GEMM_MPI_PATH_AUTO);
    battery_slabs = 2;
    run_battery("mpi root-held cannon overlap, 2 slabs (root = last rank)", 0, GEMM_MPI_CANNON, 1, GEMM_MPI_LOCAL_CPU,
                root, GEMM_MPI_PATH_AUTO);
    battery_slabs = 3;
    run_battery("mpi root-held cannon, 3 slabs", 0, GEMM_MPI_CANNON, 0, GEMM_MPI_LOCAL_CPU, 0, GEMM_MPI_PATH_AUTO);
    battery_slabs = 0;
    run_battery("mpi distributed cannon", 1, GEMM_MPI_CANNON, 0, GEMM_MPI_LOCAL_CPU, 0, GEMM_MPI_PATH_AUTO);
    run_battery("mpi distributed cannon overlap", 1, GEMM_MPI_CANNON, 1, GEMM_MPI_LOCAL_CPU, 0, GEMM_MPI_PATH_AUTO);
    run_battery("mpi distributed fox", 1, GEMM_MPI_FOX, 0, GEMM_MPI_LOCAL_CPU, 0, GEMM_MPI_PATH_AUTO);
#ifdef GEMM_MPI_CUDA
    run_battery("mpi root-held cannon, cuda", 0, GEMM_MPI_CANNON, 0, GEMM_MPI_LOCAL_CUDA, 0, GEMM_MPI_PATH_AUTO);
    run_battery("mpi root-held cannon overlap, cuda", 0, GEMM_MPI_CANNON, 1, GEMM_MPI_LOCAL_CUDA, 0, GEMM_MPI_PATH_AUTO);
    battery_slabs = 3;
    run_battery("mpi root-held cannon overlap, cuda, 3 slabs", 0, GEMM_MPI_CANNON, 1, GEMM_MPI_LOCAL_CUDA, 0,
                GEMM_MPI_PATH_AUTO);
    run_battery("mpi root-held cannon, cuda, staged, 3 slabs", 0, GEMM_MPI_CANNON, 0, GEMM_MPI_LOCAL_CUDA, 0,
                GEMM_MPI_PATH_STAGED);
    battery_slabs = 0;
    run_battery("mpi distributed cannon overlap, cuda", 1, GEMM_MPI_CANNON, 1, GEMM_MPI_LOCAL_CUDA, 0, GEMM_MPI_PATH_AUTO);
    run_battery("mpi distributed fox, cuda", 1, GEMM_MPI_FOX, 0, GEMM_MPI_LOCAL_CUDA, 0, GEMM_MPI_PATH_AUTO);
    run_battery("mpi root-held cannon, cuda, staged", 0, GEMM_MPI_CANNON, 0, GEMM_MPI_LOCAL_CUDA, 0, GEMM_MPI_PATH_STAGED);
    run_battery("mpi distributed cannon overlap, cuda, staged", 1, GEMM_MPI_CANNON, 1, GEMM_MPI_LOCAL_CUDA, 0,
                GEMM_MPI_PATH_STAGED);
    run_battery("mpi distributed fox, cuda, staged", 1, GEMM_MPI_FOX, 0, GEMM_MPI_LOCAL_CUDA, 0, GEMM_MPI_PATH_STAGED);
    run_battery("mpi root-held cannon overlap, cuda, ipc", 0, GEMM_MPI_CANNON, 1, GEMM_MPI_LOCAL_CUDA, 0,
                GEMM_MPI_PATH_CUDA_IPC);
    run_battery("mpi distributed cannon, cuda, ipc", 1, GEMM_MPI_CANNON, 0, GEMM_MPI_LOCAL_CUDA, 0, GEMM_MPI_PATH_CUDA_IPC);
    run_battery("mpi distributed fox, cuda, ipc", 1, GEMM_MPI_FOX, 0, GEMM_MPI_LOCAL_CUDA, 0, GEMM_MPI_PATH_CUDA_IPC);
    test_cuda_paths();
    test_plans(GEMM_MPI_LOCAL_CUDA);
#endif
    /* one closing line for all ranks */
    totals[0] = battery_passed;
    totals[1] = battery_failed;
    MPI_Reduce(totals, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("P=%d: %d passed, %d failed\n", nranks, sums[0], sums[1]);
    fflush(stdout);
    MPI_Finalize();
    return battery_failed ? 1 : 0;
}
