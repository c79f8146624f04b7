/* tests/mpi_plan_checks.h - the plan tests of tests/test_mpi.c (included
   there, after its helpers): create / execute many times with fresh data /
   destroy, on both forms and both algorithms; the second and later executes
   allocate nothing and map nothing (gemm__mpi_plan_counts) and spend no
   set-up time; plans that differ across ranks are refused on every rank;
   failures (an allocation on one rank) are agreed; and the defects of 0.3:
   gemm_mpi_memory's wrap, the intercommunicator. (MPI_Init and
   MPI_Finalize are tests/test_mpi_init.c's.) */

static void fill_es(void *x, size_t n, uint64_t seed, int dbl)
{
    size_t i;
    for (i = 0; i < n; i++) {
        double v = battery_uniform(&seed);
        if (dbl) ((double *)x)[i] = v;
        else ((float *)x)[i] = (float)v;
    }
}

static void poison_es(void *x, size_t n, int dbl)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (dbl) ((double *)x)[i] = NAN;
        else ((float *)x)[i] = NAN;
    }
}

/* Largest |a - b|; NaN anywhere counts as infinite. */
static double diff_es(const void *a, const void *b, size_t n, int dbl)
{
    double e = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double x = dbl ? ((const double *)a)[i] : ((const float *)a)[i];
        double y = dbl ? ((const double *)b)[i] : ((const float *)b)[i];
        double d = fabs(x - y);
        if (!(d <= e)) e = d != d ? INFINITY : d;
    }
    return e;
}

static gemm_status ref_es(int dbl, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                          int64_t k, double alpha, const void *A, int64_t lda, const void *B, int64_t ldb, double beta,
                          void *C, int64_t ldc)
{
    if (dbl)
        return gemm_ref_dgemm(lay, ta, tb, m, n, k, alpha, (const double *)A, lda, (const double *)B, ldb, beta,
                              (double *)C, ldc);
    return gemm_ref_sgemm(lay, ta, tb, m, n, k, (float)alpha, (const float *)A, lda, (const float *)B, ldb,
                          (float)beta, (float *)C, ldc);
}

/* The stored rows x cols of op(X) = rows x cols read with transpose t. */
static int64_t stored_ld(gemm_layout lay, gemm_transpose t, int64_t rows, int64_t cols, int pad)
{
    int64_t srows = t == GEMM_TRANS ? cols : rows, scols = t == GEMM_TRANS ? rows : cols;
    int64_t need = lay == GEMM_ROW_MAJOR ? scols : srows;
    return (need > 1 ? need : 1) + pad;
}

static size_t stored_count(gemm_layout lay, gemm_transpose t, int64_t rows, int64_t cols, int64_t ld)
{
    return battery_extent(lay, t == GEMM_TRANS ? cols : rows, t == GEMM_TRANS ? rows : cols, ld) + 1;
}

typedef struct plan_case {
    int dbl;
    gemm_layout lay;
    gemm_transpose ta, tb;
    int64_t m, n, k;
    gemm_mpi_algorithm algo;
    int overlap;
    int form; /* 0 root-held, 1 distributed, 2 both in turn */
    int slabs;
} plan_case;

/* Execute `rep` of a plan: fresh data (new seeds, new padding, new alpha and
   beta: an alpha = 0 round is scale-only, a beta = 0 round has NaN in C);
   checked against the reference on every rank. Returns the max error over
   the tolerance (<= 1 passes) and the call's status in *st. */
static double plan_execute(mpi_ctx *c, const plan_case *pc, int rep, gemm_status *st)
{
    static const double alphas[] = {1.5, 1.25, 0.0, -1.0, 0.75, 2.0};
    static const double betas[] = {-0.5, 0.0, 2.0, 1.0, 0.0, 0.5};
    double alpha = alphas[rep % 6], beta = betas[rep % 6], tol, err;
    int64_t lda = stored_ld(pc->lay, pc->ta, pc->m, pc->k, rep % 3);
    int64_t ldb = stored_ld(pc->lay, pc->tb, pc->k, pc->n, (rep + 1) % 3);
    int64_t ldc = stored_ld(pc->lay, GEMM_NO_TRANS, pc->m, pc->n, (rep + 2) % 3);
    size_t na = stored_count(pc->lay, pc->ta, pc->m, pc->k, lda), nb = stored_count(pc->lay, pc->tb, pc->k, pc->n, ldb);
    size_t nc = stored_count(pc->lay, GEMM_NO_TRANS, pc->m, pc->n, ldc), es = esize(pc->dbl);
    void *A = malloc(na * es), *B = malloc(nb * es), *C = malloc(nc * es), *R = malloc(nc * es);
    fill_es(A, na, 100 + (uint64_t)rep, pc->dbl);
    fill_es(B, nb, 200 + (uint64_t)rep, pc->dbl);
    if (beta == 0) poison_es(C, nc, pc->dbl);
    else fill_es(C, nc, 300 + (uint64_t)rep, pc->dbl);
    memcpy(R, C, nc * es);
    ref_es(pc->dbl, pc->lay, pc->ta, pc->tb, pc->m, pc->n, pc->k, alpha, A, lda, B, ldb, beta, R, ldc);
    c->dist = pc->form == 2 ? rep % 2 : pc->form;
    *st = adapter(c, pc->dbl, pc->lay, pc->ta, pc->tb, pc->m, pc->n, pc->k, alpha, A, lda, B, ldb, beta, C, ldc);
    tol = (pc->dbl ? 1e-13 : 2e-5) * (double)(pc->k + 4) * 4.0;
    err = diff_es(C, R, nc - 1, pc->dbl) / tol;
    free(A);
    free(B);
    free(C);
    free(R);
    return err;
}

/* One plan: created once, executed 6 times with fresh data, destroyed. */
static void plan_reuse(gemm_mpi_local local, const plan_case *pc)
{
    mpi_ctx c;
    mpi_timing t;
    gemm_status s;
    long allocs = 0, maps = 0, a = 0, mp = 0;
    int rep, used[2] = {0, 0};
    memset(&c, 0, sizeof c);
    c.opts.local = local;
    c.opts.algorithm = pc->algo;
    c.opts.overlap = pc->overlap;
    c.opts.slabs = pc->slabs;
    c.opts.root = nranks - 1;
    want_timing(&c.opts, &t);
    memset(&t, 0xff, sizeof t);
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, pc->dbl ? GEMM_F64 : GEMM_F32, pc->lay, pc->ta, pc->tb, pc->m, pc->n,
                             pc->k, &c.opts, &c.plan);
    battery_check(s == GEMM_OK && c.plan && t.rank.setup_s > 0 && t.rank.total_s >= t.rank.setup_s &&
                      t.max.setup_s >= t.rank.setup_s,
                  "rank %d: plan %lldx%lldx%lld created -> %d \"%s\", setup %.3g s", me, (long long)pc->m,
                  (long long)pc->n, (long long)pc->k, (int)s, s ? gemm_last_error_detail() : "", t.rank.setup_s);
    if (!c.plan) return;
    gemm__mpi_plan_counts(c.plan, &allocs, &maps);
    for (rep = 0; rep < 6; rep++) {
        int form = pc->form == 2 ? rep % 2 : pc->form, again = used[form];
        double err;
        memset(&t, 0xff, sizeof t);
        err = plan_execute(&c, pc, rep, &s);
        gemm__mpi_plan_counts(c.plan, &a, &mp);
        battery_check(s == GEMM_OK && err <= 1 && (!again || (t.rank.setup_s == 0 && a == allocs && mp == maps)) &&
                          t.rank.total_s > 0 && t.max.total_s >= t.rank.total_s,
                      "rank %d: %s %s %s %c%c %lldx%lldx%lld %s%s, execute %d (%s): status %d, err/tol %.3g, "
                      "setup %.3g s, allocations %ld -> %ld, mappings %ld -> %ld", me, local ? "cuda" : "cpu",
                      pc->dbl ? "f64" : "f32", pc->lay == GEMM_ROW_MAJOR ? "row" : "col",
                      pc->ta == GEMM_TRANS ? 'T' : 'N', pc->tb == GEMM_TRANS ? 'T' : 'N', (long long)pc->m,
                      (long long)pc->n, (long long)pc->k, pc->algo == GEMM_MPI_FOX ? "fox" : "cannon",
                      pc->overlap ? " overlap" : "", rep, form ? "distributed" : "root-held", (int)s, err,
                      t.rank.setup_s, allocs, a, maps, mp);
        used[form] = 1;
        allocs = a;
        maps = mp;
    }
    s = gemm_mpi_plan_destroy(&c.plan);
    battery_check(s == GEMM_OK && c.plan == NULL, "rank %d: plan destroyed -> %d", me, (int)s);
}

static void test_plans(gemm_mpi_local local)
{
    static const plan_case cases[] = {
        {1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 37, 29, 31, GEMM_MPI_CANNON, 0, 0, 0},
        {1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 37, 29, 31, GEMM_MPI_CANNON, 1, 1, 0},
        {1, GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 40, 33, 27, GEMM_MPI_CANNON, 1, 2, 0},
        {1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 40, 33, 27, GEMM_MPI_FOX, 0, 2, 0},
        {0, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_TRANS, 23, 41, 19, GEMM_MPI_FOX, 0, 0, 0},
        {0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 64, 48, 80, GEMM_MPI_CANNON, 1, 1, 0},
        {1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 1, 7, 3, GEMM_MPI_CANNON, 0, 2, 0},
        {1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 12, 9, 0, GEMM_MPI_CANNON, 1, 2, 0},
        {1, GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 45, 38, 52, GEMM_MPI_CANNON, 1, 0, 2},
        {0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 30, 26, 41, GEMM_MPI_CANNON, 0, 2, 3},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) plan_reuse(local, &cases[i]);
}

/* Every rank got `want`, and its detail holds `what`. */
static void check_everywhere(gemm_status s, gemm_status want, const char *what, const char *label)
{
    int st[2], lo_hi[2];
    st[0] = (int)s;
    st[1] = -(int)s;
    MPI_Allreduce(st, lo_hi, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    battery_check(s == want && lo_hi[0] == -lo_hi[1] && (!what || strstr(gemm_last_error_detail(), what)),
                  "rank %d: %s -> %d \"%s\" (want %d, \"%s\", on every rank)", me, label, (int)s,
                  gemm_last_error_detail(), (int)want, what ? what : "");
}

static gemm_status create_d(gemm_layout lay, int64_t m, const gemm_mpi_options *o, gemm_mpi_plan **plan)
{
    return gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, lay, GEMM_NO_TRANS, GEMM_NO_TRANS, m, 19, 17, o, plan);
}

/* Plans that differ across ranks, and executes that do not fit their plan. */
static void test_plan_refusals(void)
{
    enum { M = 23, N = 19, K = 17 };
    double A[M * K], B[K * N], C[M * N], C0[M * N];
    int odd = me == nranks - 1 && nranks > 1;
    gemm_mpi_plan *plan = (gemm_mpi_plan *)&plan; /* not NULL: a refused create must clear it */
    gemm_mpi_options o;
    mpi_ctx c;
    gemm_status s;
    memset(&o, 0, sizeof o);
    fill(A, M * K, 31);
    fill(B, K * N, 32);
    fill(C0, M * N, 33);
    memcpy(C, C0, sizeof C);
    if (nranks > 1) {
        s = create_d(GEMM_ROW_MAJOR, odd ? M + 1 : M, &o, &plan);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "different m", "create: m differs on the last rank");
        battery_check(plan == NULL, "rank %d: refused create leaves *plan NULL", me);
        o.threads = odd ? 2 : 1;
        s = create_d(GEMM_ROW_MAJOR, M, &o, &plan);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "options.threads", "create: options.threads differs");
        o.threads = 0;
        o.algorithm = odd ? GEMM_MPI_FOX : GEMM_MPI_CANNON;
        s = create_d(GEMM_ROW_MAJOR, M, &o, &plan);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "options.algorithm", "create: options.algorithm differs");
        o.algorithm = GEMM_MPI_CANNON;
        s = create_d(odd ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR, M, &o, &plan);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "layout", "create: layout differs");
        s = gemm_mpi_plan_create(MPI_COMM_WORLD, odd ? GEMM_F32 : GEMM_F64, GEMM_ROW_MAJOR, GEMM_NO_TRANS,
                                 GEMM_NO_TRANS, M, N, K, &o, &plan);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "precision", "create: precision differs");
        s = create_d(GEMM_ROW_MAJOR, odd ? -1 : M, &o, &plan);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "m = -1", "create: m = -1 on the last rank only");
    }
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F16, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, &o, &plan);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "precision", "create: GEMM_F16");
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_ROW_MAJOR, (gemm_transpose)3, GEMM_NO_TRANS, M, N, K, &o,
                             &plan);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "transa", "create: transa invalid");
    o.root = nranks;
    s = create_d(GEMM_ROW_MAJOR, M, &o, &plan);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "root", "create: options.root out of range");
    o.root = 0;
    s = create_d(GEMM_ROW_MAJOR, M, &o, NULL);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "plan is NULL", "create: plan pointer NULL");
    battery_check(gemm_mpi_dgemm_plan(NULL, 1.0, A, K, B, N, 0.0, C, N, NULL) == GEMM_ERR_INVALID_ARG &&
                      gemm_mpi_plan_destroy(NULL) == GEMM_ERR_INVALID_ARG,
                  "rank %d: NULL plan to execute and destroy -> INVALID_ARG", me);
    plan = NULL;
    battery_check(gemm_mpi_plan_destroy(&plan) == GEMM_OK && plan == NULL, "rank %d: destroying a NULL plan", me);

    /* executes that do not fit: refused everywhere, C untouched, plan still good */
    memset(&c, 0, sizeof c);
    s = create_d(GEMM_ROW_MAJOR, M, &c.opts, &c.plan);
    check_everywhere(s, GEMM_OK, NULL, "create the plan for the execute checks");
    if (!c.plan) return;
    s = gemm_mpi_sgemm_plan(c.plan, 1.0f, (const float *)A, K, (const float *)B, N, 0.0f, (float *)C, N, NULL);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "plan is for f64", "execute: sgemm on an f64 plan");
    c.opts.algorithm = GEMM_MPI_FOX;
    s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C, N);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "options.algorithm differs", "execute: options.algorithm not the plan's");
    c.opts.algorithm = GEMM_MPI_CANNON;
    if (nranks > 1) {
        s = call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, odd ? 2.0 : 1.0, A, K, B, N, 0.0, C, N);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "alpha", "execute: alpha differs");
        c.dist = odd;
        s = odd ? call_dist(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C, N)
                : call_mpi(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C, N);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "forms", "execute: root-held here, distributed on the last rank");
        c.dist = 1;
        s = call_dist(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.0, C,
                      odd ? 0 : N);
        check_everywhere(s, GEMM_ERR_INVALID_ARG, "ldc", "execute: ldc = 0 on the last rank's piece");
        c.dist = 0;
    }
    battery_check(memcmp(C, C0, sizeof C) == 0, "rank %d: refused executes left C as it was", me);
    {
        double R[M * N];
        memcpy(R, C0, sizeof R);
        gemm_ref_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.5, R, N);
        s = adapter(&c, 1, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, K, B, N, 0.5, C, N);
        battery_check(s == GEMM_OK && max_err(C, R, M * N) < 1e-12,
                      "rank %d: the plan still works after the refusals -> %d", me, (int)s);
    }
    s = gemm_mpi_plan_destroy(&c.plan);
    check_everywhere(s, GEMM_OK, NULL, "destroy after the refusals");
}

/* One rank's allocation fails at each allocation in turn: of the create,
   then of the first distributed execute (the form's buffers). Every rank
   returns the same status, a failed create leaves no plan anywhere, a
   failed execute leaves C as it was and the plan usable. */
static void test_plan_failures(void)
{
    enum { M = 37, N = 29, K = 31 };
    double A[M * K], B[K * N], C[M * N], C0[M * N], R[M * N];
    int victim = nranks - 1, phase;
    mpi_ctx c;
    fill(A, M * K, 41);
    fill(B, K * N, 42);
    fill(C0, M * N, 43);
    memcpy(R, C0, sizeof R);
    gemm_ref_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, 0.5, R, M);
    for (phase = 0; phase < 2; phase++) {
        long nth;
        int failures = 0, same = 1, kept = 1, ok = 0;
        memset(&c, 0, sizeof c);
        c.opts.overlap = 1;
        c.dist = 1;
        if (phase == 1 && gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS,
                                               M, N, K, &c.opts, &c.plan) != GEMM_OK)
            break;
        for (nth = 1; nth <= 200 && !ok; nth++) {
            int st[2], lo_hi[2];
            gemm_status s;
            memcpy(C, C0, sizeof C);
            test_malloc_countdown = me == victim ? nth : 0;
            if (phase == 0)
                s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N,
                                         K, &c.opts, &c.plan);
            else
                s = call_dist(&c, 1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, 0.5, C, M);
            test_malloc_countdown = 0;
            st[0] = (int)s;
            st[1] = -(int)s;
            MPI_Allreduce(st, lo_hi, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            same = same && lo_hi[0] == -lo_hi[1];
            if (lo_hi[0] == GEMM_OK && lo_hi[1] == GEMM_OK) ok = 1;
            else {
                failures++;
                same = same && s == GEMM_ERR_OUT_OF_MEMORY;
                kept = kept && (phase == 0 ? c.plan == NULL : memcmp(C, C0, sizeof C) == 0);
            }
        }
        if (phase == 0 && ok) { /* the plan that was made at last works */
            memcpy(C, C0, sizeof C);
            ok = call_dist(&c, 1, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0, A, M, B, K, 0.5, C, M) ==
                 GEMM_OK;
        }
        battery_check(ok && failures > 0 && same && kept && max_err(C, R, M * N) < 1e-12,
                      "rank %d: GEMM_MALLOC failing on rank %d at each allocation of the %s (%d failures): same "
                      "status everywhere %d, %s %d, then right", me, victim,
                      phase ? "first distributed execute" : "create", failures, same,
                      phase ? "C untouched" : "no plan", kept);
        gemm_mpi_plan_destroy(&c.plan);
    }
}

/* The defects of 0.3, each a status now instead of a wrong answer or an
   abort. */
static void test_defects(void)
{
    int64_t huge = (int64_t)1 << 40, big = ((int64_t)1 << 30) - 1; /* each matrix just under 2^60 elements */
    size_t host = 1, dev = 1;
    gemm_mpi_options o;
    gemm_mpi_plan *plan = NULL;
    gemm_status s;
    double x = 0;
    s = gemm_mpi_memory(nranks, huge, huge, huge, GEMM_F64, 0, NULL, &host, &dev);
    battery_check(s == GEMM_ERR_OUT_OF_MEMORY && strstr(gemm_last_error_detail(), "bytes"),
                  "memory query, n = 2^40: refused, not wrapped -> %d \"%s\" (host %zu)", (int)s,
                  gemm_last_error_detail(), host);
    s = gemm_mpi_memory(nranks, 3000, 3000, 3000, GEMM_F64, 1, NULL, &host, &dev);
    battery_check(s == GEMM_OK && host >= (size_t)3 * 3000 * 3000 * 8 / (size_t)nranks,
                  "memory query, n = 3000: %zu bytes per rank", host);
    s = gemm_mpi_memory(nranks, big, big, big, GEMM_F64, 1, NULL, &host, &dev);
    battery_check(nranks == 1 ? s == GEMM_ERR_OUT_OF_MEMORY : s == GEMM_OK ? host > ((size_t)1 << 61)
                                                                          : s == GEMM_ERR_OUT_OF_MEMORY,
                  "memory query, n = 2^30 - 1 on %d ranks: counted or refused, never wrapped -> %d (host %zu)",
                  nranks, (int)s, host);
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, huge, huge, huge,
                             NULL, &plan);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "spans more than", "create, n = 2^40: too large a matrix");
    memset(&o, 0, sizeof o);
    o.max_host_bytes = (size_t)1 << 30;
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, big, big, big,
                             &o, &plan);
    check_everywhere(s, GEMM_ERR_OUT_OF_MEMORY, nranks == 1 ? "bytes" : NULL,
                     "create, n = 2^30 - 1: over 2^64 bytes (P = 1) or over the cap, before any allocation");
    battery_check(plan == NULL, "rank %d: no plan after the refusals", me);
    s = gemm_mpi_dgemm_dist(MPI_COMM_WORLD, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, big, big, big, 1.0, NULL,
                            big, NULL, big, 0.0, NULL, big, &o);
    check_everywhere(s, GEMM_ERR_INVALID_ARG, "NULL", "distributed call, n = 2^30 - 1, NULL pieces");
    if (nranks > 1) { /* the two halves of the world, joined as an intercommunicator */
        MPI_Comm half, inter;
        int color = me % 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, me, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? 0 : 1, 77, &inter);
        s = gemm_mpi_plan_create(inter, GEMM_F64, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, NULL, &plan);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "intercommunicator") && !plan,
                      "rank %d: create on an intercommunicator -> %d \"%s\"", me, (int)s, gemm_last_error_detail());
        s = gemm_mpi_dgemm_dist(inter, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0, &x, 4, &x, 4, 0.0,
                                &x, 4, NULL);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "intercommunicator"),
                      "rank %d: distributed call on an intercommunicator -> %d \"%s\"", me, (int)s,
                      gemm_last_error_detail());
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
}
