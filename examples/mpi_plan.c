/* examples/mpi_plan.c - one plan, many products: the set-up once, then
   executes on new data (an iterative solver, a training loop).

   Build and run (any number of ranks; `make mpi-demo` runs 4):
       mpicc -std=c99 -O2 examples/mpi_plan.c -o mpi_plan -lm
       mpirun -np 4 ./mpi_plan [n] [iterations]

   Every rank keeps only its own pieces (where gemm_mpi_blocks_of says) and
   runs C <- A * B + 0.5 * C several times with new values in A each time;
   the first execute prints its set-up time, the later ones none. */
#define GEMM_IMPLEMENTATION
#include "../gemm_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A(i, j) at iteration `it`, and B(i, j), as formulas: any rank can make any piece. */
static double a_at(int it, int64_t i, int64_t j) { return (double)((i * 7 + j * 3 + it) % 11) / 11.0 - 0.5; }
static double b_at(int64_t i, int64_t j) { return (double)((i * 5 + j * 2) % 13) / 13.0 - 0.5; }

int main(int argc, char **argv)
{
    int rank, nranks, it, iterations = argc > 2 ? atoi(argv[2]) : 5;
    int64_t n = argc > 1 ? atoll(argv[1]) : 600, i, j;
    gemm_mpi_options opts;
    gemm_mpi_blocks g;
    gemm_mpi_plan *plan = NULL;
    gemm_timing t;              /* the slowest rank's seconds, phase by phase */
    gemm_status s;
    double *A, *B, *C;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    memset(&opts, 0, sizeof opts); /* zero = defaults: Cannon, CPU multiply */
    opts.overlap = 1;              /* shift the next blocks while these multiply */
    opts.timing_max = &t;

    /* collective: every rank passes the same shape and options */
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, &opts,
                             &plan);
    if (s != GEMM_OK) {
        if (rank == 0) fprintf(stderr, "gemm_mpi_plan_create: %s: %s\n", gemm_strerror(s), gemm_last_error_detail());
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) printf("plan for %lld^3 on %d ranks: set up in %.4f s\n", (long long)n, nranks, t.setup_s);

    /* this rank's pieces: rows x cols of op(A), op(B), C, row-major */
    gemm_mpi_blocks_of(nranks, rank, n, n, n, &g);
    A = (double *)malloc(sizeof(double) * (size_t)(g.a.rows * g.a.cols + 1));
    B = (double *)malloc(sizeof(double) * (size_t)(g.b.rows * g.b.cols + 1));
    C = (double *)calloc((size_t)(g.c.rows * g.c.cols + 1), sizeof(double));
    if (!A || !B || !C) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    for (i = 0; i < g.b.rows; i++)
        for (j = 0; j < g.b.cols; j++) B[i * g.b.cols + j] = b_at(g.b.row0 + i, g.b.col0 + j);

    for (it = 0; it < iterations; it++) {
        for (i = 0; i < g.a.rows; i++) /* new data in A, same plan */
            for (j = 0; j < g.a.cols; j++) A[i * g.a.cols + j] = a_at(it, g.a.row0 + i, g.a.col0 + j);
        s = gemm_mpi_dgemm_plan_dist(plan, 1.0, A, g.a.cols > 1 ? g.a.cols : 1, B, g.b.cols > 1 ? g.b.cols : 1, 0.5, C,
                                     g.c.cols > 1 ? g.c.cols : 1, &opts);
        if (s != GEMM_OK) {
            if (rank == 0) fprintf(stderr, "execute: %s: %s\n", gemm_strerror(s), gemm_last_error_detail());
            break;
        }
        if (rank == 0)
            printf("execute %d: %.4f s (set-up %.4f s, compute %.4f s, shifts %.4f s)\n", it, t.total_s, t.setup_s,
                   t.compute_s, t.shift_s);
    }

    /* one element of C, checked by the rank that holds it: C = sum over
       iterations of 0.5^(iterations-1-it) * (A_it B)(i, j) */
    if (s == GEMM_OK && g.c.rows > 0 && g.c.cols > 0) {
        double want = 0, got = C[0];
        int64_t p;
        for (it = 0; it < iterations; it++) {
            double dot = 0;
            for (p = 0; p < n; p++) dot += a_at(it, g.c.row0, p) * b_at(p, g.c.col0);
            want = 0.5 * want + dot;
        }
        if (fabs(got - want) > 1e-9 * (double)n) {
            fprintf(stderr, "rank %d: C(%lld, %lld) = %g, want %g\n", rank, (long long)g.c.row0, (long long)g.c.col0,
                    got, want);
            s = GEMM_ERR_INTERNAL;
        }
    }
    gemm_mpi_plan_destroy(&plan); /* collective too */
    free(A);
    free(B);
    free(C);
    if (rank == 0 && s == GEMM_OK) printf("ok\n");
    MPI_Finalize();
    return s == GEMM_OK ? 0 : 1;
}
