/* examples/mpi_cannon.c - multiply two matrices across MPI ranks.

   Build and run (any number of ranks; `make mpi-demo` runs 4):
       mpicc -std=c99 -O2 examples/mpi_cannon.c -o mpi_cannon -lm
       mpirun -np 4 ./mpi_cannon [n] [cuda]
   With a GPU per rank (nvcc, gemm_cuda.cuh beside gemm_mpi.h):
       nvcc -x cu -O2 -arch=sm_90 $(mpicc --showme:compile) examples/mpi_cannon.c \
            -o mpi_cannon $(mpicc --showme:link)
       mpirun -np 2 ./mpi_cannon 8192 cuda

   Part 1, root-held: rank 0 has A, B and C; one call spreads, multiplies,
   gathers. Part 2, distributed: every rank makes only its own pieces (where
   gemm_mpi_blocks_of says) and keeps its piece of C. */
#define GEMM_IMPLEMENTATION
#include "../gemm_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A(i, j) and B(i, j) as formulas, so each rank can make any piece itself. */
static float a_at(int64_t i, int64_t j) { return (float)((i * 7 + j * 3) % 11) / 11.0f - 0.5f; }
static float b_at(int64_t i, int64_t j) { return (float)((i * 5 + j * 2) % 13) / 13.0f - 0.5f; }

int main(int argc, char **argv)
{
    int rank, nranks;
    int64_t n = argc > 1 ? atoll(argv[1]) : 512, i, j;
    gemm_mpi_options opts;
    gemm_timing t;                 /* the slowest rank's seconds, phase by phase */
    gemm_mpi_blocks g;
    gemm_status s;
    float *A = NULL, *B = NULL, *C = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    memset(&opts, 0, sizeof opts); /* zero = defaults: Cannon, CPU multiply, root 0 */
    opts.overlap = 1;              /* shift the next blocks while these multiply */
    opts.timing_max = &t;
    if (argc > 2 && strcmp(argv[2], "cuda") == 0) opts.local = GEMM_MPI_LOCAL_CUDA;

    /* ---- 1. root-held: C = A * B, all three on rank 0, row-major ---- */
    if (rank == 0) {
        A = (float *)malloc(sizeof(float) * (size_t)(n * n));
        B = (float *)malloc(sizeof(float) * (size_t)(n * n));
        C = (float *)malloc(sizeof(float) * (size_t)(n * n));
        if (!A || !B || !C) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) {
                A[i * n + j] = a_at(i, j);
                B[i * n + j] = b_at(i, j);
            }
    }
    /* every rank calls with the same sizes; only rank 0's pointers are read */
    s = gemm_mpi_sgemm(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A, n, B, n, 0.0f, C,
                       n, &opts);
    if (s != GEMM_OK) {
        if (rank == 0) fprintf(stderr, "gemm_mpi_sgemm: %s: %s\n", gemm_strerror(s), gemm_last_error_detail());
        MPI_Finalize();
        return 1;
    }
    gemm_mpi_blocks_of(nranks, rank, n, n, n, &g); /* the grid, and where this rank's pieces are */
    if (rank == 0) {
        /* spot-check one element against a dot product in double */
        double want = 0;
        int64_t p, r = n / 3, c = n / 2;
        for (p = 0; p < n; p++) want += (double)a_at(r, p) * (double)b_at(p, c);
        printf("root-held: %lld ranks, %dx%d grid, n = %lld: %.3f s, %.1f GFLOP/s, C[%lld][%lld] = %.4f (want %.4f)\n",
               (long long)nranks, g.grid_rows, g.grid_cols, (long long)n, t.total_s,
               2e-9 * (double)n * (double)n * (double)n / t.total_s, (long long)r, (long long)c, C[r * n + c], want);
        printf("  slowest rank per phase, s: distribute %.3f  h2d %.3f  compute %.3f  d2h %.3f  shift %.3f  gather %.3f\n",
               t.distribute_s, t.to_device_s, t.compute_s, t.from_device_s, t.shift_s, t.gather_s);
    }

    /* ---- 2. distributed: each rank makes and keeps only its pieces ---- */
    {
        float *a = (float *)malloc(sizeof(float) * (size_t)(g.a.rows * g.a.cols + 1));
        float *b = (float *)malloc(sizeof(float) * (size_t)(g.b.rows * g.b.cols + 1));
        float *c = (float *)malloc(sizeof(float) * (size_t)(g.c.rows * g.c.cols + 1));
        int64_t lda = g.a.cols > 1 ? g.a.cols : 1, ldb = g.b.cols > 1 ? g.b.cols : 1, ldc = g.c.cols > 1 ? g.c.cols : 1;
        double err = 0, all = 0;
        for (i = 0; i < g.a.rows; i++)
            for (j = 0; j < g.a.cols; j++) a[i * lda + j] = a_at(g.a.row0 + i, g.a.col0 + j);
        for (i = 0; i < g.b.rows; i++)
            for (j = 0; j < g.b.cols; j++) b[i * ldb + j] = b_at(g.b.row0 + i, g.b.col0 + j);
        opts.local = GEMM_MPI_LOCAL_CPU; /* host pieces here; with CUDA they would be device pointers */
        s = gemm_mpi_sgemm_dist(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, a, lda, b,
                                ldb, 0.0f, c, ldc, &opts);
        /* compare one row of my piece with the root-held result's formula */
        for (j = 0; s == GEMM_OK && g.c.rows > 0 && j < g.c.cols; j++) {
            double want = 0;
            int64_t p;
            for (p = 0; p < n; p++) want += (double)a_at(g.c.row0, p) * (double)b_at(p, g.c.col0 + j);
            err = fabs(want - c[j]) > err ? fabs(want - c[j]) : err;
        }
        MPI_Reduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("distributed: %s, largest error in the checked rows %.2g, %.3f s\n",
                   s == GEMM_OK ? "ok" : gemm_last_error_detail(), all, t.total_s);
        free(a);
        free(b);
        free(c);
    }
    free(A);
    free(B);
    free(C);
    MPI_Finalize();
    return s == GEMM_OK ? 0 : 1;
}
