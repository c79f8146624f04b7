/* tests/cpu_edge_tests.h - part of tests/test_cpu.c (included once, after
   its helpers): the CPU backend's edges that the battery does not reach,
   each a defect once (issue 20):
     - the error detail names the function the user called
     - with no setting, the thread count is the CPUs this process may run
       on (taskset, mpirun --bind-to), not the machine's
     - alpha = +-Inf or NaN with a deep k: alpha multiplies the whole sum
       once, as in the reference (k blocks of opposite signs once gave
       Inf - Inf = NaN)
     - leading dimensions up to INT64_MAX on legal calls: results right, and
       under UBSan no pointer is formed outside a matrix
     - exit() while another thread is inside a threaded call returns at
       once (idle workers once spun through 40000 sched_yield calls before
       looking at the exit flag: 6 to 60 s under load)
     - the direct path's copy of op(a)'s rows whose leading dimension
       aliases in L1 (made on Intel's cores only, so forced here on any
       CPU): the same bits as reading them in place, and exact
     - a C that shares elements with A or B is refused (it was computed
       over its own operand); adjacent or interleaved matrices run */

/* ---- error details ---- */

static void test_error_names(void)
{
    float f = 0;
    double d = 0;
    static const char *const names[4] = {"gemm_sgemm:", "gemm_cpu_sgemm:", "gemm_dgemm:", "gemm_cpu_dgemm:"};
    gemm_status s[4];
    int i, ok = 1;
    /* lda = 0 is too small for every layout */
    s[0] = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0f, &f, 0, &f, 1, 0.0f, &f, 1);
    ok = ok && s[0] == GEMM_ERR_INVALID_ARG && strncmp(gemm_last_error_detail(), names[0], strlen(names[0])) == 0;
    s[1] = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0f, &f, 0, &f, 1, 0.0f, &f, 1, NULL);
    ok = ok && s[1] == GEMM_ERR_INVALID_ARG && strncmp(gemm_last_error_detail(), names[1], strlen(names[1])) == 0;
    s[2] = gemm_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0, &d, 0, &d, 1, 0.0, &d, 1);
    ok = ok && s[2] == GEMM_ERR_INVALID_ARG && strncmp(gemm_last_error_detail(), names[2], strlen(names[2])) == 0;
    s[3] = gemm_cpu_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0, &d, 0, &d, 1, 0.0, &d, 1, NULL);
    ok = ok && s[3] == GEMM_ERR_INVALID_ARG && strncmp(gemm_last_error_detail(), names[3], strlen(names[3])) == 0;
    for (i = 0; i < 4; i++) ok = ok && s[i] == GEMM_ERR_INVALID_ARG;
    battery_check(ok, "the error detail names the function called (gemm_sgemm, gemm_cpu_sgemm, gemm_dgemm, "
                      "gemm_cpu_dgemm; last: \"%s\")", gemm_last_error_detail());
}

/* ---- the thread count follows the affinity mask ---- */

#if defined(TEST_HAVE_PTHREADS) && defined(__linux__)
static void test_affinity(void)
{
    cpu_set_t all, one;
    int first = -1, i, n1, n_all;
    if (sched_getaffinity(0, sizeof all, &all) != 0) {
        battery_check(0, "sched_getaffinity works");
        return;
    }
    for (i = 0; i < CPU_SETSIZE && first < 0; i++)
        if (CPU_ISSET(i, &all)) first = i;
    unsetenv("GEMM_NUM_THREADS");
    gemm_cpu_set_threads(0);
    n_all = gemm_cpu_get_threads();
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        battery_check(0, "sched_setaffinity to CPU %d works", first);
        return;
    }
    n1 = gemm_cpu_get_threads();
    sched_setaffinity(0, sizeof all, &all);
    battery_check(n1 == 1 && n_all == (CPU_COUNT(&all) < 64 ? CPU_COUNT(&all) : 64),
                  "automatic thread count = the affinity mask: %d on CPU %d alone (want 1), %d on all %d allowed",
                  n1, first, n_all, CPU_COUNT(&all));
}
#endif

/* ---- alpha = Inf or NaN with a deep k ---- */

/* Whether got has the IEEE class of want, and its value where finite. */
static int same_class(double got, double want, double tol)
{
    if (want != want) return got != got;
    if (want - want != 0) return got == want; /* +-Inf */
    return fabs(got - want) <= tol;
}

/* op(A) = all ones (m x k); op(B) column j sums to > 0, 0 or < 0 by j % 3,
   with its first half +1 and the rest -1, so the partial sums of k blocks
   have opposite signs. Every element of alpha*op(A)*op(B) is then +-Inf or
   NaN for alpha = +-Inf, as in the reference. */
static int alpha_case(gemm_precision prec, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m,
                      int64_t n, int64_t k, double alpha, double beta)
{
    battery_call c;
    battery_buf A = battery_buf_new(prec, (size_t)(m * k)), B = battery_buf_new(prec, (size_t)(k * n));
    battery_buf C = battery_buf_new(prec, (size_t)(m * n)), R;
    int64_t i, j, p, rs, cs;
    int ok;
    c.layout = lay; c.ta = ta; c.tb = tb; c.m = m; c.n = n; c.k = k; c.alpha = alpha; c.beta = beta;
    battery_min_lds(&c);
    battery_fill_value(&A, 1.0);
    battery_fill_value(&C, 0.25);
    op_strides(lay, tb, c.ldb, &rs, &cs);
    for (j = 0; j < n; j++) {
        int64_t plus = k / 2 + (j % 3 == 0 ? 1 + j : j % 3 == 1 ? 0 : -1 - j % 7);
        for (p = 0; p < k; p++) battery_set(&B, (size_t)(p * rs + j * cs), p < plus ? 1.0 : -1.0);
    }
    R = battery_buf_copy(&C);
    ok = battery_invoke(&cpu_backend, prec, &c, A.data, B.data, C.data) == GEMM_OK &&
         battery_invoke(NULL, prec, &c, A.data, B.data, R.data) == GEMM_OK;
    for (i = 0; i < m * n && ok; i++) ok = same_class(battery_get(&C, (size_t)i), battery_get(&R, (size_t)i), 1e-9);
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C);
    battery_buf_free(&R);
    return ok;
}

static void test_alpha_not_finite(int quick)
{
    static const double alphas[3] = {INFINITY, -INFINITY, NAN};
    int p, li, ai, bi, a, ok;
    for (p = 0; p < 2; p++) {
        gemm_precision prec = p ? GEMM_F64 : GEMM_F32;
        for (a = 0; a < 3; a++) {
            ok = 1;
            for (li = 0; li < 2; li++)
                for (ai = 0; ai < 2; ai++)
                    for (bi = 0; bi < 2; bi++)
                        ok = ok && alpha_case(prec, battery_layouts[li], battery_transposes[ai], battery_transposes[bi],
                                              7, 9, 3001, alphas[a], a == 2 ? 0.0 : 0.5);
            battery_check(ok, "%s alpha = %g, 7x9x3001, every layout: +-Inf / NaN as the reference (alpha applied to "
                              "the whole sum)", p ? "f64" : "f32", alphas[a]);
        }
        /* large enough for the packed path were alpha finite; a transposed
           op(a) is copied into a heap panel (k too deep for the stack one) */
        ok = alpha_case(prec, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, quick ? 40 : 100, 100, 3001, INFINITY, 1.0) &&
             alpha_case(prec, GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, quick ? 40 : 100, 100, 3001, -INFINITY, 0.0);
        battery_check(ok, "%s alpha = +-Inf, %dx100x3001, threads and a transposed A: as the reference",
                      p ? "f64" : "f32", quick ? 40 : 100);
    }
}

/* ---- the direct path's copy of aliasing rows of op(a) ---- */

/* Column-major NN (op(a) = A read in place, columns lda apart), small
   integers (every sum exact): C with the rows copied (hook 1) and read in
   place (hook 2), on 1 and 3 threads, each equal to the reference. Each
   case's lda must alias for the kernel in use, or the copy would not run. */
static void test_direct_strip_copy(void)
{
    static const int64_t cases[][4] = {/* m, n, k, lda */ {128, 128, 128, 128}, {37, 64, 64, 256},
                                       {16, 9, 100, 512}, {128, 17, 128, 256}};
    const gemm__cpu_isa *isa = gemm__cpu_isa_for_call();
    size_t ci;
    int p, hook, threads;
    for (p = 0; p < 2; p++) {
        gemm_precision prec = p ? GEMM_F64 : GEMM_F32;
        int64_t es = p ? 8 : 4, mr = p ? isa->f64.mr : isa->f32.mr;
        for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            battery_call c;
            battery_buf A, B, C0, R, C;
            uint64_t state = 99 + ci;
            size_t i;
            int ok = 1;
            c.layout = GEMM_COL_MAJOR; c.ta = GEMM_NO_TRANS; c.tb = GEMM_NO_TRANS;
            c.m = cases[ci][0]; c.n = cases[ci][1]; c.k = cases[ci][2]; c.alpha = 1.0; c.beta = 2.0;
            battery_min_lds(&c);
            c.lda = cases[ci][3];
            A = battery_buf_new(prec, (size_t)(c.lda * c.k));
            B = battery_buf_new(prec, (size_t)(c.ldb * c.n));
            C0 = battery_buf_new(prec, (size_t)(c.ldc * c.n));
            for (i = 0; i < A.count; i++) battery_set(&A, i, (double)battery_below(&state, 5) - 2);
            for (i = 0; i < B.count; i++) battery_set(&B, i, (double)battery_below(&state, 5) - 2);
            for (i = 0; i < C0.count; i++) battery_set(&C0, i, (double)battery_below(&state, 5) - 2);
            R = battery_buf_copy(&C0);
            ok = battery_invoke(NULL, prec, &c, A.data, B.data, R.data) == GEMM_OK &&
                 gemm__cpu_direct_aliases(c.lda, es, c.k, mr * es) && mr * c.k * es <= GEMM__CPU_PANEL_BYTES;
            gemm__test_hooks()->cpu_path = 2;
            for (hook = 1; hook <= 2; hook++)
                for (threads = 1; threads <= 3; threads += 2) {
                    gemm__test_hooks()->cpu_strip_copy = hook;
                    gemm_cpu_set_threads(threads);
                    C = battery_buf_copy(&C0);
                    ok = ok && battery_invoke(&cpu_backend, prec, &c, A.data, B.data, C.data) == GEMM_OK &&
                         memcmp(C.data, R.data, battery_buf_bytes(&C)) == 0;
                    battery_buf_free(&C);
                }
            gemm__test_hooks()->cpu_strip_copy = 0;
            gemm__test_hooks()->cpu_path = 0;
            gemm_cpu_set_threads(0);
            battery_check(ok, "%s %s col NN %lldx%lldx%lld lda=%lld: rows aliasing in L1, copied and in place, "
                          "1 and 3 threads: exact", isa->name, p ? "f64" : "f32", (long long)c.m, (long long)c.n,
                          (long long)c.k, (long long)c.lda);
            battery_buf_free(&A);
            battery_buf_free(&B);
            battery_buf_free(&C0);
            battery_buf_free(&R);
        }
    }
}

/* ---- leading dimensions up to INT64_MAX ---- */

/* One call with the given leading dimension wherever it is legal (a stored
   matrix of one row or column may have any ld): the reference decides which
   calls are legal, and ours must accept them and agree exactly (small
   integers: every sum is exact). Returns 0 on a mismatch. */
static int huge_ld_case(gemm_precision prec, gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m,
                        int64_t n, int64_t k, int which)
{
    battery_call c;
    battery_buf A = battery_buf_new(prec, (size_t)(m * k)), B = battery_buf_new(prec, (size_t)(k * n));
    battery_buf C = battery_buf_new(prec, (size_t)(m * n)), R;
    uint64_t state = (uint64_t)(m * 31 + n * 7 + k + which);
    size_t i;
    int ok = 1;
    gemm_status want;
    c.layout = lay; c.ta = ta; c.tb = tb; c.m = m; c.n = n; c.k = k; c.alpha = 1.0; c.beta = 2.0;
    battery_min_lds(&c);
    if (which & 1) c.lda = INT64_MAX;
    if (which & 2) c.ldb = INT64_MAX;
    if (which & 4) c.ldc = INT64_MAX;
    for (i = 0; i < A.count; i++) battery_set(&A, i, (double)battery_below(&state, 5) - 2);
    for (i = 0; i < B.count; i++) battery_set(&B, i, (double)battery_below(&state, 5) - 2);
    for (i = 0; i < C.count; i++) battery_set(&C, i, (double)battery_below(&state, 5) - 2);
    R = battery_buf_copy(&C);
    want = battery_invoke(NULL, prec, &c, A.data, B.data, R.data);
    if (want == GEMM_OK)
        ok = battery_invoke(&cpu_backend, prec, &c, A.data, B.data, C.data) == GEMM_OK &&
             memcmp(C.data, R.data, battery_buf_bytes(&C)) == 0;
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C);
    battery_buf_free(&R);
    return ok;
}

static void test_huge_leading_dims(void)
{
    static const int64_t dims[2] = {1, 40};
    int p, li, ai, bi, mi, ni, ki, which, ok;
    for (p = 0; p < 2; p++) {
        gemm_precision prec = p ? GEMM_F64 : GEMM_F32;
        ok = 1;
        for (li = 0; li < 2; li++)
            for (ai = 0; ai < 2; ai++)
                for (bi = 0; bi < 2; bi++)
                    for (mi = 0; mi < 2; mi++)
                        for (ni = 0; ni < 2; ni++)
                            for (ki = 0; ki < 2; ki++)
                                for (which = 1; which < 8; which++)
                                    ok = ok && huge_ld_case(prec, battery_layouts[li], battery_transposes[ai],
                                                            battery_transposes[bi], dims[mi], dims[ni], dims[ki], which);
        battery_check(ok, "%s: leading dimensions of INT64_MAX where legal (m, n, k in {1, 40}, every layout): "
                          "accepted, exact", p ? "f64" : "f32");
        /* the packed path (m*n*k past the direct one) reading A with a huge stride */
        ok = huge_ld_case(prec, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1500, 1500, 1, 1) &&
             huge_ld_case(prec, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1500, 1500, 1, 2);
        battery_check(ok, "%s: 1500x1500x1 with lda (col-major) or ldb (row-major) = INT64_MAX: exact",
                      p ? "f64" : "f32");
    }
}

/* ---- exit() while another thread is inside a threaded call ---- */

#ifdef TEST_HAVE_PTHREADS
static volatile int exit_test_stop;

static void *exit_test_caller(void *arg)
{
    float *m = (float *)arg; /* 3 matrices of 100 x 100: threaded calls back to back */
    for (;;) gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 100, 100, 100, 1.0f, m, 100, m + 10000, 100,
                        0.0f, m + 20000, 100);
    return NULL;
}

static void *exit_test_spinner(void *arg)
{
    (void)arg;
    while (!exit_test_stop) {} /* keeps every core busy, as a loaded machine does */
    return NULL;
}

/* A child with a pool of 3 workers, a thread making threaded calls without
   pause and 2 threads spinning calls exit(); the parent gives it 20 s. */
static void test_exit_while_busy(void)
{
    struct timespec t0, t1;
    int status = -1;
    pid_t pid, done = 0;
    double waited = 0;
    fflush(stdout);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    if (pid == 0) {
        static float mats[30000];
        pthread_t th;
        int i;
        gemm_cpu_set_threads(4);
        gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 100, 100, 100, 1.0f, mats, 100, mats, 100, 0.0f,
                   mats + 20000, 100); /* the pool starts */
        if (pthread_create(&th, NULL, exit_test_caller, mats) != 0) _exit(3);
        for (i = 0; i < 2; i++)
            if (pthread_create(&th, NULL, exit_test_spinner, NULL) != 0) _exit(3);
        usleep(100000);
        exit(0); /* atexit: the pool stops; its workers must notice now */
    }
    while (pid > 0 && waited < 20 && (done = waitpid(pid, &status, WNOHANG)) == 0) {
        usleep(10000);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    }
    if (pid > 0 && done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* any exit status: under valgrind the child's still-running threads are
       reported as leaks (status 3), which is not what this test is about */
    battery_check(pid > 0 && done == pid && WIFEXITED(status),
                  "exit() while another thread makes threaded calls: the child exits at once (%.2f s, limit 20 s)",
                  (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
}
#endif

/* ---- C sharing memory with A or B ---- */

/* One call of the overlap tests: status, detail, and C afterwards. */
static void overlap_expect(const char *what, gemm_status s, const char *detail_has, const float *C, const float *want,
                           size_t n)
{
    const char *d = gemm_last_error_detail();
    int ok = detail_has ? s == GEMM_ERR_INVALID_ARG && strstr(d, detail_has) != NULL
                        : s == GEMM_OK && d[0] == '\0';
    ok = ok && memcmp(C, want, n * sizeof *C) == 0;
    battery_check(ok, "C and A/B: %s: status %d \"%s\"%s", what, (int)s, d,
                  detail_has ? " (refused, nothing written)" : " (runs, right)");
}

/* C == A in place, C inside B, and the same from the reference, the
   options form and row-major are refused with nothing written; C right
   after A, blocks of one matrix side by side (a blocked LU's trailing
   update A22 -= A21 * A12, whose A12 and A22 share columns), and a C that
   is A when A is not read (alpha = 0) run. */
static void test_c_overlaps(void)
{
    enum { S = 8, L = 16 };
    float M[L * L], keep[L * L], want[L * L], B[S * S], Ac[L * L];
    uint64_t state = 21;
    gemm_cpu_options one = {1, 0};
    int i, jb = 5, r = L - 5;
    for (i = 0; i < L * L; i++) M[i] = (float)(battery_uniform(&state));
    for (i = 0; i < S * S; i++) B[i] = (float)(battery_uniform(&state));
    memcpy(keep, M, sizeof M);

    /* C == A, in place: each entry point, and the tiny path's 2x2x2 */
    overlap_expect("C == A (gemm_sgemm)", gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0f, M, S,
                                                      B, S, 0.0f, M, S), "gemm_sgemm: C overlaps A", M, keep, L * L);
    overlap_expect("C == A, 2x2x2", gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0f, M, 2, B, 2,
                                                0.0f, M, 2), "C overlaps A", M, keep, L * L);
    overlap_expect("C == A (gemm_cpu_sgemm, 1 thread)", gemm_cpu_sgemm(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, S, S,
                   S, 1.0f, M, S, B, S, 0.5f, M, S, &one), "gemm_cpu_sgemm: C overlaps A", M, keep, L * L);
    overlap_expect("C == A (gemm_ref_sgemm)", gemm_ref_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0f,
                   M, S, B, S, 0.0f, M, S), "gemm_ref_sgemm: C overlaps A", M, keep, L * L);
    /* row-major: the caller's names (the canonical form swaps A and B) */
    overlap_expect("row-major C == B", gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0f, B, S, M,
                                                   S, 0.0f, M, S), "C overlaps B", M, keep, L * L);
    /* C inside B's span, sharing elements: B is M's first S columns (rows
       0..S-1, ld L), C its rows 2..5 of columns 1..4 */
    overlap_expect("C inside B", gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, S, 1.0f, B, S, M, L,
                                             1.0f, M + 2 + L, L), "C overlaps B", M, keep, L * L);

    /* alpha = 0: A is not read, so C may be A (C = beta*C) */
    memcpy(want, M, sizeof M);
    for (i = 0; i < S * S; i++) want[i] = 2 * want[i];
    overlap_expect("C == A with alpha = 0 (A not read)", gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S,
                   S, 0.0f, M, S, B, S, 2.0f, M, S), NULL, M, want, L * L);
    memcpy(M, keep, sizeof M);

    /* C right after A's last element: adjacent, apart */
    memcpy(want, M, sizeof M);
    gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0f, keep, S, B, S, 0.5f, want + S * S, S);
    overlap_expect("C right after A", gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0f, M, S, B,
                                                  S, 0.5f, M + S * S, S), NULL, M, want, L * L);
    memcpy(M, keep, sizeof M);

    /* the LU update on one L x L column-major matrix: A21 = rows jb.., cols
       0..jb-1; A12 = rows 0..jb-1, cols jb..; C = A22 = rows jb.., cols jb.. */
    memcpy(Ac, keep, sizeof keep); /* the operands from a copy, for the expected result */
    memcpy(want, keep, sizeof keep);
    gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, r, r, jb, -1.0f, Ac + jb, L, Ac + jb * L, L, 1.0f,
               want + jb + jb * L, L); /* the same call on separate operands: the same bits */
    overlap_expect("blocked LU's A22 -= A21 * A12 in one matrix (A12, A22 share columns)",
                   gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, r, r, jb, -1.0f, M + jb, L, M + jb * L, L,
                              1.0f, M + jb + jb * L, L), NULL, M, want, L * L);
}
