/* tests/test_mpi_complex.c - gemm_mpi_cgemm / gemm_mpi_zgemm under mpirun
   (tests/test_mpi.sh runs it at P = 1, 2, 4).

   Every rank runs the same deterministic complex battery
   (battery_complex.h) through the root-held calls; after each call the
   root's C is broadcast, so every rank checks it against the reference.
   Then: Cannon overlapped, Fox and another root; a rank whose alpha or m
   differs from the root's makes every rank refuse, C unchanged; a call
   refused on the root only (NULL A there) is refused on every rank.
   Rank 0 prints; the last line is "P=<n>: N passed, N failed", summed
   over the ranks. */
#define GEMM_IMPLEMENTATION
#include "../gemm_mpi.h"
#include "battery_complex.h"

static int me, nranks;

static size_t c_reals(gemm_layout lay, int64_t m, int64_t n, int64_t ldc)
{
    return 2 * battery_extent(lay, m, n, ldc);
}

/* One root-held call; then the root's C on every rank. */
static gemm_status call(void *ctx, gemm_precision prec, gemm_layout lay, gemm_transpose ta, gemm_transpose tb,
                        int64_t m, int64_t n, int64_t k, const void *al, const void *A, int64_t lda, const void *B,
                        int64_t ldb, const void *be, void *C, int64_t ldc)
{
    const gemm_mpi_options *o = (const gemm_mpi_options *)ctx;
    int root = o ? o->root : 0;
    gemm_status s = (prec == GEMM_F32 ? gemm_mpi_cgemm : gemm_mpi_zgemm)(MPI_COMM_WORLD, lay, ta, tb, m, n, k, al, A,
                                                                         lda, B, ldb, be, C, ldc, o);
    size_t reals = m > 0 && n > 0 && ldc > 0 ? c_reals(lay, m, n, ldc) : 0;
    if (C && reals && reals < ((size_t)1 << 30))
        MPI_Bcast(C, (int)reals, prec == GEMM_F32 ? MPI_FLOAT : MPI_DOUBLE, root, MPI_COMM_WORLD);
    return s;
}

static gemm_status call_c(void *ctx, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                          int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                          const void *be, void *C, int64_t ldc)
{
    return call(ctx, GEMM_F32, lay, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
static gemm_status call_z(void *ctx, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                          int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                          const void *be, void *C, int64_t ldc)
{
    return call(ctx, GEMM_F64, lay, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}

/* Rank-inconsistent input: every rank refuses, C unchanged. */
static void test_agreement(void)
{
    enum { S = 24 };
    static double A[2 * S * S], B[2 * S * S], C[2 * S * S], before[2 * S * S];
    double alpha[2] = {1, 0.5}, beta[2] = {0, 0}, other[2] = {1, 0.75};
    uint64_t st = 5;
    gemm_status s;
    int i;
    for (i = 0; i < 2 * S * S; i++) A[i] = B[i] = C[i] = battery_uniform(&st);
    memcpy(before, C, sizeof C);
    s = gemm_mpi_zgemm(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, S, S, S,
                       me == nranks - 1 && nranks > 1 ? other : alpha, A, S, B, S, beta, C, S, NULL);
    battery_check(nranks == 1 ? s == GEMM_OK : s == GEMM_ERR_INVALID_ARG && memcmp(C, before, sizeof C) == 0,
                  "rank %d: alpha differing on the last rank: status %d \"%s\"", me, (int)s, gemm_last_error_detail());
    memcpy(C, before, sizeof C);
    s = gemm_mpi_zgemm(MPI_COMM_WORLD, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS,
                       me == nranks - 1 && nranks > 1 ? S - 1 : S, S, S, alpha, A, S, B, S, beta, C, S, NULL);
    battery_check(nranks == 1 ? s == GEMM_OK : s == GEMM_ERR_INVALID_ARG && memcmp(C, before, sizeof C) == 0,
                  "rank %d: m differing on the last rank: status %d \"%s\"", me, (int)s, gemm_last_error_detail());
    memcpy(C, before, sizeof C);
    s = gemm_mpi_cgemm(MPI_COMM_WORLD, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, alpha, me == 0 ? NULL : A,
                       8, B, 8, beta, C, 8, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && memcmp(C, before, sizeof C) == 0 &&
                      strstr(gemm_last_error_detail(), "A is NULL"),
                  "rank %d: NULL A on the root refused everywhere: status %d \"%s\"", me, (int)s,
                  gemm_last_error_detail());
}

int main(int argc, char **argv)
{
    gemm_mpi_options cannon, overlap, fox;
    int sums[2], total[2];
    (void)argc;
    (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (me != 0 && !getenv("GEMM_TEST_ALL_RANKS")) { /* only rank 0 prints */
        if (!freopen("/dev/null", "w", stdout)) return 2;
    }
    memset(&cannon, 0, sizeof cannon);
    overlap = fox = cannon;
    overlap.overlap = 1;
    overlap.root = nranks - 1;
    fox.algorithm = GEMM_MPI_FOX;
    {
        cbattery_backend a = {"mpi/cannon", call_c, call_z, &cannon, 60, 3, 1};
        cbattery_backend b = {"mpi/cannon-overlap-last-root", call_c, call_z, &overlap, 40, 1, 1};
        cbattery_backend c = {"mpi/fox", call_c, call_z, &fox, 40, 1, 1};
        cbattery_run(&a);
        cbattery_run(&b);
        cbattery_run(&c);
    }
    test_agreement();
    sums[0] = battery_passed;
    sums[1] = battery_failed;
    MPI_Reduce(sums, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("P=%d: %d passed, %d failed\n", nranks, total[0], total[1]);
    MPI_Finalize();
    return battery_failed ? 1 : 0;
}
