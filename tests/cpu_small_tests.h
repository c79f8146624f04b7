/* tests/cpu_small_tests.h - part of tests/test_cpu.c (included once, after
   its helpers): the small path (src/cpu/small_kernels.c), whole products of
   at most 64 x 64 x 64 in one kernel, which a batch's members take (here a
   strided batch of one member), across its size classes' edges.

   Every size 1..70 of m, of n and of k (the other two from the edges of
   the row blocks and column tiles: 1, 8, 9, 15, 16, 17, 24, 31, 32, 33,
   48, 49, 63, 64, 65), every layout and transpose, fp32 and fp64:
     - small integers (every sum exact): C equal to the reference, with
       beta = 0 on a C of NaN (C not read), beta = 1 and beta = -1.5,
       alpha = 1 and 2; C's padding (ldc 3 past each line, a vector's
       length past the last) never written
     - random data: the same bits as the single call (the direct path, or
       the plain loops of a tiny product), which a batch member promises

   The same cases as single calls (test_single_small): with both operands
   transposed they read both in place as C^T = op(b)^T op(a)^T, the tile
   transposed in registers on its way to C (direct.c), which the batch
   member does not (it copies op(a)); alpha = 0 too. */

/* Ours: a strided batch of one member, which takes the small path (a
   single call takes the direct one). */
static gemm_status small_ours(gemm_precision prec, const battery_call *c, const void *A, const void *B, void *C)
{
    gemm_cpu_options one = {1, 0};
    if (prec == GEMM_F32)
        return gemm_cpu_sgemm_strided_batched(c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha,
                                              (const float *)A, c->lda, 0, (const float *)B, c->ldb, 0,
                                              (float)c->beta, (float *)C, c->ldc, 0, 1, &one);
    return gemm_cpu_dgemm_strided_batched(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, (const double *)A,
                                          c->lda, 0, (const double *)B, c->ldb, 0, c->beta, (double *)C, c->ldc, 0,
                                          1, &one);
}

/* Fills with small integers -2..2 (or NaN where nan). */
static void small_fill(battery_buf *b, uint64_t *state, int nan)
{
    size_t i;
    for (i = 0; i < b->count; i++) battery_set(b, i, nan ? NAN : (double)battery_below(state, 5) - 2);
}

/* One case: 1 when ours equals the reference on small integers, leaves
   C's padding alone, and has the single call's bits on random data (single:
   ours is the single call, and the batch member's bits are the other's). */
static int small_case(gemm_precision prec, battery_call *c, uint64_t seed, int single)
{
    uint64_t state = seed;
    int row = c->layout == GEMM_ROW_MAJOR, ok = 1;
    int64_t crows = row ? c->m : c->n, clen = row ? c->n : c->m; /* C's stored lines and their used length */
    battery_buf A, B, C0, R, C, D;
    size_t i;
    c->ldc = clen + 3; /* 3 elements of padding after each stored line */
    A = battery_buf_new(prec, battery_extent(c->layout, c->ta == GEMM_NO_TRANS ? c->m : c->k,
                                             c->ta == GEMM_NO_TRANS ? c->k : c->m, c->lda));
    B = battery_buf_new(prec, battery_extent(c->layout, c->tb == GEMM_NO_TRANS ? c->k : c->n,
                                             c->tb == GEMM_NO_TRANS ? c->n : c->k, c->ldb));
    C0 = battery_buf_new(prec, (size_t)(crows * c->ldc) + 16); /* and a vector's length past the end */
    small_fill(&A, &state, 0);
    small_fill(&B, &state, 0);
    small_fill(&C0, &state, c->beta == 0);
    for (i = 0; i < C0.count; i++) /* the padding: a value no product writes */
        if ((int64_t)(i % (size_t)c->ldc) >= clen || i >= (size_t)(crows * c->ldc)) battery_set(&C0, i, 1000.0 + (double)i);
    R = battery_buf_copy(&C0);
    C = battery_buf_copy(&C0);
    ok = battery_invoke(NULL, prec, c, A.data, B.data, R.data) == GEMM_OK &&
         (single ? battery_invoke(&cpu_backend, prec, c, A.data, B.data, C.data)
                 : small_ours(prec, c, A.data, B.data, C.data)) == GEMM_OK;
    for (i = 0; ok && i < C.count; i++)
        ok = (int64_t)(i % (size_t)c->ldc) < clen && i < (size_t)(crows * c->ldc)
                 ? battery_get(&C, i) == battery_get(&R, i)
                 : battery_get(&C, i) == battery_get(&C0, i);
    /* random data: the batch member's bits are the single call's */
    battery_fill(&A, &state);
    battery_fill(&B, &state);
    battery_fill(&C0, &state);
    battery_buf_free(&C);
    C = battery_buf_copy(&C0);
    D = battery_buf_copy(&C0);
    ok = ok && small_ours(prec, c, A.data, B.data, C.data) == GEMM_OK;
    ok = ok && battery_invoke(&cpu_backend, prec, c, A.data, B.data, D.data) == GEMM_OK; /* the single call */
    (void)single; /* the same comparison either way */
    ok = ok && memcmp(C.data, D.data, battery_buf_bytes(&C)) == 0;
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C0);
    battery_buf_free(&R);
    battery_buf_free(&C);
    battery_buf_free(&D);
    return ok;
}

/* single: the calls are single calls (test_single_small), else strided
   batches of one member (test_small_path); alpha 1, 2 (and 0 for single).
   smoke (test_cpu --smoke, which valgrind runs): the size that varies takes
   the edges' values only, not 1..70 (every path, a fifth of the cases). */
static void small_sizes(int single, int smoke)
{
    static const int64_t edges[] = {1, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 49, 63, 64, 65};
    static const double betas[] = {0.0, 1.0, -1.5};
    const int ne = (int)(sizeof edges / sizeof edges[0]);
    const gemm__cpu_isa *isa = gemm__cpu_isa_for_call();
    int p, li, ai, bi, dim, bad;
    int64_t s, si;
    for (p = 0; p < 2; p++) {
        gemm_precision prec = p ? GEMM_F64 : GEMM_F32;
        for (li = 0; li < 2; li++)
            for (ai = 0; ai < 2; ai++)
                for (bi = 0; bi < 2; bi++) {
                    char first_bad[160] = "";
                    bad = 0;
                    for (si = 1; si <= (smoke ? ne : 70); si++)
                        for (dim = 0; dim < 3; dim++) {
                            battery_call c;
                            int r;
                            s = smoke ? edges[si - 1] : si;
                            r = (int)s * 3 + dim + li * 5 + ai * 3 + bi;
                            int64_t e1 = edges[r % ne], e2 = edges[(r * 7 + 3) % ne];
                            c.layout = battery_layouts[li];
                            c.ta = battery_transposes[ai];
                            c.tb = battery_transposes[bi];
                            c.m = dim == 0 ? s : e1;
                            c.n = dim == 1 ? s : dim == 0 ? e1 : e2;
                            c.k = dim == 2 ? s : e2;
                            c.alpha = single && r % 5 == 2 ? 0.0 : r % 2 ? 2.0 : 1.0;
                            c.beta = betas[r % 3];
                            battery_min_lds(&c);
                            if (r % 4 == 1) { /* leading dimensions past the minimum */
                                c.lda += 1 + r % 5;
                                c.ldb += 2;
                            }
                            if (!small_case(prec, &c, 4242u + (uint64_t)r * 31u + (uint64_t)s, single) && !bad++)
                                battery_call_str(&c, first_bad, sizeof first_bad);
                        }
                    if (single)
                        battery_check(bad == 0, "single small call (%s kernels%s) %s %s %c%c: m, n, k each %s "
                                      "against the edges, alpha 0 / 1 / 2, beta 0 (C of NaN) / 1 / -1.5: exact, "
                                      "padding kept, a batch member's bits (%d bad%s%s)", isa->name,
                                      (p ? isa->f64.direct_t : isa->f32.direct_t) ? ", TT in place" : "",
                                      p ? "f64" : "f32", li ? "col" : "row", ai ? 'T' : 'N', bi ? 'T' : 'N',
                                      smoke ? "an edge" : "1..70", bad, bad ? "; first: " : "", first_bad);
                    else
                        battery_check(bad == 0, "small path (%s kernels%s) %s %s %c%c: m, n, k each %s against "
                                      "the edges, beta 0 (C of NaN) / 1 / -1.5: exact, padding kept, the single "
                                      "call's bits (%d bad%s%s)", isa->name,
                                      (p ? isa->f64.small : isa->f32.small) ? "" : ", none here", p ? "f64" : "f32",
                                      li ? "col" : "row", ai ? 'T' : 'N', bi ? 'T' : 'N', smoke ? "an edge" : "1..70",
                                      bad, bad ? "; first: " : "", first_bad);
                }
    }
}

static void test_small_path(int smoke) { small_sizes(0, smoke); }
static void test_single_small(int smoke) { small_sizes(1, smoke); }
