/* tests/mpi_overlap_checks.h - C overlapping A or B under MPI (included by
   tests/test_mpi.c after tests/mpi_plan_checks.h, whose check_everywhere
   it uses): the root-held call and its plan refuse, on every rank, a root
   whose C shares elements with its A or B, with C untouched; the
   distributed call refuses pieces of one rank whose C shares elements
   with that rank's A; matrices side by side in one array (a blocked LU's
   A22 -= A21 * A12 on the root) are computed. */

static void test_mpi_overlaps(void)
{
    enum { S = 24, L = 2 * S }; /* S x S x S products; L: the side of one array holding blocks */
    double X[L * L], keep[L * L], B[S * S], R[L * L];
    gemm_mpi_plan *plan = NULL;
    gemm_mpi_blocks g;
    gemm_status s;
    int r, bad_rank = -1;
    fill(X, L * L, 31);
    fill(B, S * S, 32);
    memcpy(keep, X, sizeof X);

    /* root-held: C == A, and row-major C inside B, on the root (rank 0) */
    s = gemm_mpi_dgemm(MPI_COMM_WORLD, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0, X, S, B, S, 0.0, X,
                       S, NULL);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "C overlaps A", "root-held, C == A on the root");
    battery_check(memcmp(X, keep, sizeof X) == 0, "rank %d: root-held C == A: C untouched", me);
    s = gemm_mpi_dgemm(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, 1.0, B, S, X, L, 1.0, X + 3,
                       L, NULL);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "C overlaps B", "root-held, row-major, C inside B on the root");
    battery_check(memcmp(X, keep, sizeof X) == 0, "rank %d: root-held C inside B: C untouched", me);
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, NULL,
                             &plan);
    battery_check(s == GEMM_OK, "rank %d: a plan for the overlap checks -> %d", me, (int)s);
    if (s == GEMM_OK) {
        s = gemm_mpi_dgemm_plan(plan, 1.0, B, S, X, S, 2.0, X, S, NULL);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "C overlaps B", "root-held plan, C == B on the root");
        battery_check(memcmp(X, keep, sizeof X) == 0, "rank %d: root-held plan C == B: C untouched", me);
        gemm_mpi_plan_destroy(&plan);
    }
    /* C == A where A is not read (alpha = 0): C = beta*C, no refusal */
    s = gemm_mpi_dgemm(MPI_COMM_WORLD, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 0.0, X, L, B, S, 1.0, X,
                       L, NULL);
    check_everywhere(s, GEMM_OK, NULL, "root-held, C == A with alpha = 0 (A not read)");
    /* a blocked LU's trailing update in one array on the root: A21, A12 and
       A22 share columns or rows, but no element */
    memcpy(R, X, sizeof X);
    gemm_ref_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, -1.0, X + S, L, X + S * L, L, 1.0,
                   R + S + S * L, L);
    s = gemm_mpi_dgemm(MPI_COMM_WORLD, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, -1.0, X + S, L,
                       X + S * L, L, 1.0, X + S + S * L, L, NULL);
    check_everywhere(s, GEMM_OK, NULL, "root-held, A22 -= A21 * A12 in one array on the root");
    battery_check(me != 0 || max_err(X, R, L * L) < 1e-12, "rank %d: the blocked LU update is right (error %.3g)", me,
                  me == 0 ? max_err(X, R, L * L) : 0.0);

    /* distributed: the last rank whose pieces of A and C are both non-empty
       passes one array as both; every rank refuses, every C untouched */
    for (r = 0; r < nranks; r++) {
        gemm_mpi_blocks_of(nranks, r, S, S, S, &g);
        if (g.a.rows > 0 && g.a.cols > 0 && g.c.rows > 0 && g.c.cols > 0) bad_rank = r;
    }
    gemm_mpi_blocks_of(nranks, me, S, S, S, &g);
    {
        int64_t ld = g.a.rows > g.c.rows ? g.a.rows : g.c.rows;
        double *pa = X, *pb = B, *pc = me == bad_rank ? X : X + L * L / 2;
        if (ld < 1) ld = 1;
        memcpy(X, keep, sizeof X);
        s = gemm_mpi_dgemm_dist(MPI_COMM_WORLD, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0, pa, ld, pb,
                                g.b.rows > 1 ? g.b.rows : 1, 0.0, pc, ld, NULL);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "C overlaps A", "distributed, one rank's C piece == its A piece");
        battery_check(bad_rank >= 0 && memcmp(X, keep, sizeof X) == 0, "rank %d: distributed overlap (rank %d's "
                      "pieces): C untouched", me, bad_rank);
    }
}
