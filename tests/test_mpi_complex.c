/* tests/test_mpi_complex.c - gemm_mpi_cgemm / gemm_mpi_zgemm under mpirun
   (tests/test_mpi.sh runs it at P = 1, 2, 4).

   Every rank runs the same deterministic complex battery
   (battery_complex.h) through the root-held calls; after each call the
   root's C is broadcast, so every rank checks it against the reference.
   Then: Cannon overlapped, Fox and another root; a rank whose alpha or m
   differs from the root's makes every rank refuse, C unchanged; a call
   refused on the root only (NULL A there) is refused on every rank.
   Then the complex plans and distributed calls: each rank cuts its pieces
   of op(A), op(B), C (gemm_mpi_blocks_of) out of the same full matrices,
   every layout, op pair and precision, sizes the grid does not divide;
   gemm_mpi_?gemm_dist, a plan's distributed executes with new scalars, and
   the same plan's root-held execute, each checked against the reference
   piece by piece; and the refusals (a rank's ldc too small, a real
   execute of a complex plan, a complex execute of a real one).
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

/* Sub-block (r0, c0) of rows x cols of a stored complex matrix (leading
   dimension ld) into out (leading dimension ldo), in layout lay. */
static void cut(gemm_layout lay, size_t es, const void *full, int64_t ld, int64_t r0, int64_t c0, int64_t rows,
                int64_t cols, void *out, int64_t ldo)
{
    int64_t i, j;
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++) {
            int64_t from = lay == GEMM_COL_MAJOR ? (r0 + i) + (c0 + j) * ld : (r0 + i) * ld + (c0 + j);
            int64_t to = lay == GEMM_COL_MAJOR ? i + j * ldo : i * ldo + j;
            memcpy((char *)out + 2 * to * es, (const char *)full + 2 * from * es, 2 * es);
        }
}

/* This rank's stored piece of X (an operand: op(X) = X or X^T), its tile t of op(X) */
static int64_t piece(gemm_layout lay, gemm_transpose tr, size_t es, const void *full, int64_t ld, gemm_mpi_tile t,
                     void *out)
{
    int64_t rows = tr == GEMM_NO_TRANS ? t.rows : t.cols, cols = tr == GEMM_NO_TRANS ? t.cols : t.rows;
    int64_t r0 = tr == GEMM_NO_TRANS ? t.row0 : t.col0, c0 = tr == GEMM_NO_TRANS ? t.col0 : t.row0;
    int64_t ldo = lay == GEMM_COL_MAJOR ? rows : cols;
    if (ldo < 1) ldo = 1;
    cut(lay, es, full, ld, r0, c0, rows, cols, out, ldo);
    return ldo;
}

/* The largest difference between this rank's C piece and the reference's. */
static double piece_err(gemm_layout lay, gemm_precision prec, const void *ref, int64_t ld, gemm_mpi_tile t,
                        const void *got, int64_t ldg)
{
    int64_t i, j, c;
    double err = 0;
    for (i = 0; i < t.rows; i++)
        for (j = 0; j < t.cols; j++)
            for (c = 0; c < 2; c++) {
                int64_t a = lay == GEMM_COL_MAJOR ? (t.row0 + i) + (t.col0 + j) * ld : (t.row0 + i) * ld + t.col0 + j;
                int64_t b = lay == GEMM_COL_MAJOR ? i + j * ldg : i * ldg + j;
                double x = prec == GEMM_F32 ? ((const float *)ref)[2 * a + c] : ((const double *)ref)[2 * a + c];
                double y = prec == GEMM_F32 ? ((const float *)got)[2 * b + c] : ((const double *)got)[2 * b + c];
                double d = fabs(x - y);
                if (!(d <= err)) err = d != d ? INFINITY : d;
            }
    return err;
}

static void set_scalar(gemm_precision prec, double re, double im, double z[2])
{
    if (prec == GEMM_F32) { ((float *)z)[0] = (float)re; ((float *)z)[1] = (float)im; }
    else { z[0] = re; z[1] = im; }
}

/* The complex plans and distributed calls against the reference. */
static void test_dist_and_plans(void)
{
    enum { M = 13, N = 9, K = 11, LD = 15 };
    static double A[2 * LD * LD], B[2 * LD * LD], C0[2 * LD * LD], R[2 * LD * LD], W[2 * LD * LD];
    static double pa[2 * LD * LD], pb[2 * LD * LD], pc[2 * LD * LD];
    gemm_mpi_blocks u;
    int pi, li, ai, bi, bad = 0, cases = 0;
    double worst = 0;
    uint64_t st = 17;
    gemm_status s;
    if (gemm_mpi_blocks_of(nranks, me, M, N, K, &u) != GEMM_OK) { battery_check(0, "gemm_mpi_blocks_of"); return; }
    for (pi = 0; pi < 2; pi++)
        for (li = 0; li < 2; li++)
            for (ai = 0; ai < 3; ai++)
                for (bi = 0; bi < 3; bi++) {
                    gemm_precision prec = pi ? GEMM_F64 : GEMM_F32;
                    gemm_layout lay = battery_layouts[li];
                    gemm_transpose ta = cbattery_ops[ai], tb = cbattery_ops[bi];
                    size_t es = pi ? sizeof(double) : sizeof(float);
                    double eps = pi ? DBL_EPSILON : FLT_EPSILON, bound = 4 * eps * K * 2 * 2.5, al[2], be[2], e;
                    double al2[2], be2[2];
                    int64_t lda, ldb, ldc, i;
                    gemm_mpi_plan *plan = NULL;
                    int round;
                    for (i = 0; i < 2 * LD * LD; i++) { /* the same values on every rank */
                        double a = battery_uniform(&st), b = battery_uniform(&st), c = battery_uniform(&st);
                        if (pi) A[i] = a, B[i] = b, C0[i] = c;
                        else ((float *)A)[i] = (float)a, ((float *)B)[i] = (float)b, ((float *)C0)[i] = (float)c;
                    }
                    set_scalar(prec, 0.75, -0.5, al);
                    set_scalar(prec, (ai + bi) % 2 ? 0.5 : -0.25, (ai + bi) % 2 ? 0.0 : 1.25, be); /* real, complex */
                    set_scalar(prec, -1.0, 0.25, al2);
                    set_scalar(prec, 0.0, 0.0, be2);
                    s = gemm_mpi_plan_create_complex(MPI_COMM_WORLD, prec, lay, ta, tb, M, N, K, NULL, &plan);
                    if (s != GEMM_OK) {
                        bad++;
                        battery_check(0, "rank %d: gemm_mpi_plan_create_complex: %s", me, gemm_last_error_detail());
                        continue;
                    }
                    for (round = 0; round < 3; round++) {
                        /* 0: the fresh plan's root-held execute (no buffer yet on the other ranks); 1: the
                           one-shot _dist; 2: the plan's _dist with other scalars (beta = 0, C NaN where it is
                           not read) */
                        const double *alpha = round == 2 ? al2 : al, *beta = round == 2 ? be2 : be;
                        memcpy(R, C0, sizeof R);
                        if (round == 2) { /* beta = 0: C is not read, so NaN there must not come out */
                            for (i = 0; i < 2 * LD * LD; i++) {
                                if (pi) R[i] = NAN;
                                else ((float *)R)[i] = NAN;
                            }
                        }
                        memcpy(W, R, sizeof W);
                        (pi ? gemm_ref_zgemm : gemm_ref_cgemm)(lay, ta, tb, M, N, K, alpha, A, LD, B, LD, beta, W, LD);
                        if (round > 0) {
                            lda = piece(lay, ta, es, A, LD, u.a, pa);
                            ldb = piece(lay, tb, es, B, LD, u.b, pb);
                            ldc = piece(lay, GEMM_NO_TRANS, es, R, LD, u.c, pc);
                            s = round == 1
                                    ? (pi ? gemm_mpi_zgemm_dist : gemm_mpi_cgemm_dist)(MPI_COMM_WORLD, lay, ta, tb, M,
                                                                                       N, K, alpha, pa, lda, pb, ldb,
                                                                                       beta, pc, ldc, NULL)
                                    : (pi ? gemm_mpi_zgemm_plan_dist : gemm_mpi_cgemm_plan_dist)(
                                          plan, alpha, pa, lda, pb, ldb, beta, pc, ldc, NULL);
                            e = s == GEMM_OK ? piece_err(lay, prec, W, LD, u.c, pc, ldc) : INFINITY;
                        } else {
                            gemm_mpi_tile whole;
                            whole.row0 = whole.col0 = 0;
                            whole.rows = M;
                            whole.cols = N;
                            s = (pi ? gemm_mpi_zgemm_plan : gemm_mpi_cgemm_plan)(plan, alpha, me == 0 ? A : NULL, LD,
                                                                                 me == 0 ? B : NULL, LD, beta,
                                                                                 me == 0 ? R : NULL, LD, NULL);
                            e = s != GEMM_OK ? INFINITY : me == 0 ? piece_err(lay, prec, W, LD, whole, R, LD) : 0;
                        }
                        if (!(e <= bound)) {
                            bad++;
                            battery_check(0, "rank %d: %c %s %c%c %s: status %d (%s) err %.3g bound %.3g", me,
                                          pi ? 'z' : 'c', li ? "col" : "row", "NTC"[ai], "NTC"[bi],
                                          round == 1 ? "_dist" : round == 2 ? "plan_dist" : "plan (root-held)",
                                          (int)s, s == GEMM_OK ? "ok" : gemm_last_error_detail(), e, bound);
                        }
                        if (e > worst && e <= bound) worst = e;
                        cases++;
                    }
                    gemm_mpi_plan_destroy(&plan);
                }
    battery_check(bad == 0, "rank %d: complex _dist, plan _dist and plan root-held: %d cases (c and z, both layouts, "
                  "every op pair), every piece within the bound of the reference (largest error %.3g)", me, cases,
                  worst);
    {
        /* refusals: a complex plan's real execute, a real plan's complex execute, a rank's ldc too small */
        gemm_mpi_plan *cp = NULL, *rp = NULL;
        double one[2] = {1, 0};
        int64_t lda, ldb, ldc;
        gemm_status s1, s2;
        s = gemm_mpi_plan_create_complex(MPI_COMM_WORLD, GEMM_F64, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, M,
                                         N, K, NULL, &cp);
        s1 = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K,
                                  NULL, &rp);
        battery_check(s == GEMM_OK && s1 == GEMM_OK, "rank %d: a complex and a real plan made", me);
        if (s == GEMM_OK && s1 == GEMM_OK) {
            s1 = gemm_mpi_dgemm_plan(cp, 1.0, A, LD, B, LD, 0.0, R, LD, NULL);
            battery_check(s1 == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "complex"),
                          "rank %d: a complex plan's real execute refused: \"%s\"", me, gemm_last_error_detail());
            s1 = gemm_mpi_zgemm_plan(rp, one, A, LD, B, LD, one, R, LD, NULL);
            battery_check(s1 == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "real"),
                          "rank %d: a real plan's complex execute refused: \"%s\"", me, gemm_last_error_detail());
            s1 = gemm_mpi_cgemm_plan(cp, one, A, LD, B, LD, one, R, LD, NULL);
            battery_check(s1 == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "precision"),
                          "rank %d: a zgemm plan's cgemm execute refused: \"%s\"", me, gemm_last_error_detail());
            lda = piece(GEMM_COL_MAJOR, GEMM_NO_TRANS, 8, A, LD, u.a, pa);
            ldb = piece(GEMM_COL_MAJOR, GEMM_CONJ_TRANS, 8, B, LD, u.b, pb);
            ldc = piece(GEMM_COL_MAJOR, GEMM_NO_TRANS, 8, C0, LD, u.c, pc);
            memcpy(R, pc, sizeof R);
            s2 = gemm_mpi_zgemm_plan_dist(cp, one, pa, lda, pb, ldb, one, pc,
                                          me == nranks - 1 && u.c.rows > 1 ? u.c.rows - 1 : ldc, NULL);
            battery_check(s2 == GEMM_ERR_INVALID_ARG && memcmp(R, pc, sizeof R) == 0 &&
                              strstr(gemm_last_error_detail(), "ldc"),
                          "rank %d: the last rank's ldc too small: refused on every rank, C unchanged: \"%s\"", me,
                          gemm_last_error_detail());
        }
        gemm_mpi_plan_destroy(&cp);
        gemm_mpi_plan_destroy(&rp);
    }
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
    test_dist_and_plans();
    sums[0] = battery_passed;
    sums[1] = battery_failed;
    MPI_Reduce(sums, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("P=%d: %d passed, %d failed\n", nranks, total[0], total[1]);
    MPI_Finalize();
    return battery_failed ? 1 : 0;
}
