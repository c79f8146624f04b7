/* tests/cpu_sbgemm_tests.h - gemm_cpu_sbgemm (bf16 A and B, fp32 C), part
   of tests/test_cpu.c: the battery's fp32 cases through it (A and B
   rounded to bf16, so its bound is bf16's); where the CPU has AVX512-BF16,
   the native kernel against a long double reference within the fp32 sum
   bound (every layout and transpose, odd k, edge tiles, padded leading
   dimensions, alpha and beta, NaN in C with beta = 0, tiny blocks, 1 and 2
   threads, bitwise the same on both), the small path bitwise the packed
   one, alpha = Inf over several k blocks, and its denormal behaviour; the bits
   of gemm_cpu_sgemm on the widened matrices on the widening path, forced
   for every fp32 kernel; and its own refusals (C's bytes over A's,
   negative threads, no memory). */

/* f rounded to the nearest bf16 (ties to even); NaN stays NaN. */
static uint16_t sb_round(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static float sb_widen(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* x's stored matrix in bf16 when the call's sizes make it one the call
   may read (NULL stays NULL; otherwise x itself, which the call refuses
   before reading). *own: the copy to free. */
static const uint16_t *sb_operand(const float *x, gemm_layout layout, int64_t rows, int64_t cols, int64_t ld,
                                  uint16_t **own)
{
    int64_t need = layout == GEMM_ROW_MAJOR ? cols : rows;
    size_t i, count;
    *own = NULL;
    if (!x) return NULL;
    if (rows < 0 || cols < 0 || rows > 100000 || cols > 100000 || ld < (need > 1 ? need : 1) || ld > 100000)
        return (const uint16_t *)(const void *)x;
    count = battery_extent(layout, rows, cols, ld);
    *own = (uint16_t *)malloc(sizeof(uint16_t) * (count ? count : 1));
    for (i = 0; i < count; i++) (*own)[i] = sb_round(x[i]);
    return *own;
}

static gemm_status sb_adapter(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                              int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                              float beta, float *C, int64_t ldc)
{
    uint16_t *oa, *ob;
    const uint16_t *a = sb_operand(A, layout, ta == GEMM_NO_TRANS ? m : k, ta == GEMM_NO_TRANS ? k : m, lda, &oa);
    const uint16_t *b = sb_operand(B, layout, tb == GEMM_NO_TRANS ? k : n, tb == GEMM_NO_TRANS ? n : k, ldb, &ob);
    gemm_status s = gemm_cpu_sbgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, C, ldc, NULL);
    (void)ctx;
    free(oa);
    free(ob);
    return s;
}

/* Where one case's matrices lie: op(A) m x k, op(B) k x n and C m x n
   stored in layout lay (A as ar x ac, B as br x bc), each leading
   dimension padded by pad, and their extents in elements. */
typedef struct sb_geometry {
    int64_t ar, ac, br, bc, lda, ldb, ldc;
    size_t na, nb, nc;
} sb_geometry;

static sb_geometry sb_geometry_of(gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                  int64_t k, int64_t pad)
{
    sb_geometry g;
    g.ar = ta == GEMM_NO_TRANS ? m : k, g.ac = ta == GEMM_NO_TRANS ? k : m;
    g.br = tb == GEMM_NO_TRANS ? k : n, g.bc = tb == GEMM_NO_TRANS ? n : k;
    g.lda = (lay == GEMM_ROW_MAJOR ? g.ac : g.ar) + pad, g.ldb = (lay == GEMM_ROW_MAJOR ? g.bc : g.br) + pad;
    g.ldc = (lay == GEMM_ROW_MAJOR ? n : m) + pad;
    g.na = battery_extent(lay, g.ar, g.ac, g.lda), g.nb = battery_extent(lay, g.br, g.bc, g.ldb);
    g.nc = battery_extent(lay, m, n, g.ldc);
    return g;
}

/* The widening path (forced on `kernel`, an fp32 kernel) is bitwise
   gemm_cpu_sgemm on the widened matrices: inputs exact in bf16,
   every layout, shapes on each path (tiny, one tile, direct, packed), padded
   leading dimensions, alpha and beta in turn. */
static void sb_bits(const char *kernel)
{
    static const int64_t shapes[][3] = {{1, 1, 1}, {2, 1, 2}, {3, 5, 2}, {7, 8, 9}, {17, 33, 16}, {64, 64, 64},
                                        {130, 67, 129}, {130, 131, 129}}; /* the last one packed (> 128^3) */
    size_t si;
    int li, ai, bi, bad = 0, cases = 0;
    uint64_t state = 4242;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (li = 0; li < 2; li++)
            for (ai = 0; ai < 2; ai++)
                for (bi = 0; bi < 2; bi++) {
                    gemm_layout lay = li ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR;
                    gemm_transpose ta = ai ? GEMM_TRANS : GEMM_NO_TRANS, tb = bi ? GEMM_TRANS : GEMM_NO_TRANS;
                    int64_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2], pad = (si + li) % 3;
                    sb_geometry g = sb_geometry_of(lay, ta, tb, m, n, k, pad);
                    size_t i;
                    uint16_t *a = (uint16_t *)malloc(g.na * 2), *b = (uint16_t *)malloc(g.nb * 2);
                    float *fa = (float *)malloc(g.na * 4), *fb = (float *)malloc(g.nb * 4);
                    float *c1 = (float *)malloc(g.nc * 4), *c2 = (float *)malloc(g.nc * 4);
                    float alpha = cases % 3 == 0 ? 1.0f : -0.75f, beta = cases % 4 == 0 ? 0.0f : 0.5f;
                    gemm_status s1, s2;
                    for (i = 0; i < g.na; i++) fa[i] = sb_widen(a[i] = sb_round((float)battery_uniform(&state)));
                    for (i = 0; i < g.nb; i++) fb[i] = sb_widen(b[i] = sb_round((float)battery_uniform(&state)));
                    for (i = 0; i < g.nc; i++) c1[i] = c2[i] = (float)battery_uniform(&state);
                    s1 = gemm_cpu_sbgemm(lay, ta, tb, m, n, k, alpha, a, g.lda, b, g.ldb, beta, c1, g.ldc, NULL);
                    s2 = gemm_cpu_sgemm(lay, ta, tb, m, n, k, alpha, fa, g.lda, fb, g.ldb, beta, c2, g.ldc, NULL);
                    cases++;
                    if (s1 != GEMM_OK || s2 != GEMM_OK || memcmp(c1, c2, g.nc * 4) != 0) {
                        if (bad++ < 3)
                            printf("FAIL sbgemm/%s %lldx%lldx%lld %c%c%c: status %d, not sgemm's bits\n", kernel,
                                   (long long)m, (long long)n, (long long)k, li ? 'c' : 'r', ai ? 'T' : 'N',
                                   bi ? 'T' : 'N', (int)s1);
                    }
                    free(a); free(b); free(fa); free(fb); free(c1); free(c2);
                }
    battery_check(bad == 0, "sbgemm/%s: %d cases bitwise gemm_cpu_sgemm on the widened matrices (%d differ)", kernel,
                  cases, bad);
}

/* The widening on the pool's threads (operands of at least 2^20
   elements): 2 threads, a transposed op(A), still bitwise gemm_cpu_sgemm
   on the widened matrices. */
static void sb_bits_threaded(const char *kernel)
{
    const int64_t m = 1030, n = 1050, k = 1040; /* op(A) is k x m stored: 1.07 M elements */
    size_t na = (size_t)(k * m), nb = (size_t)(k * n), nc = (size_t)(m * n), i;
    uint16_t *a = (uint16_t *)malloc(na * 2), *b = (uint16_t *)malloc(nb * 2);
    float *fa = (float *)malloc(na * 4), *fb = (float *)malloc(nb * 4);
    float *c1 = (float *)malloc(nc * 4), *c2 = (float *)malloc(nc * 4);
    uint64_t state = 777;
    gemm_cpu_options o;
    gemm_status s1, s2;
    memset(&o, 0, sizeof o);
    o.threads = 2;
    for (i = 0; i < na; i++) fa[i] = sb_widen(a[i] = sb_round((float)battery_uniform(&state)));
    for (i = 0; i < nb; i++) fb[i] = sb_widen(b[i] = sb_round((float)battery_uniform(&state)));
    for (i = 0; i < nc; i++) c1[i] = c2[i] = (float)battery_uniform(&state);
    s1 = gemm_cpu_sbgemm(GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, m, n, k, 0.5f, a, m, b, n, 0.25f, c1, n, &o);
    s2 = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, m, n, k, 0.5f, fa, m, fb, n, 0.25f, c2, n, &o);
    battery_check(s1 == GEMM_OK && s2 == GEMM_OK && memcmp(c1, c2, nc * 4) == 0,
                  "sbgemm/%s: 1030 x 1050 x 1040 TN on 2 threads (the widening shared by the pool's threads) bitwise "
                  "gemm_cpu_sgemm on the widened matrices (status %d)", kernel, (int)s1);
    free(a); free(b); free(fa); free(fb); free(c1); free(c2);
}

/* One case of the native kernel: m x n x k in layout lay, op pair
   (ta, tb), leading dimensions padded by pad, bf16 inputs in [-1, 1)
   (exact products), C random (NaN when beta == 0: it must not be read).
   Checks |C - ref| <= 2 (k + 3) 2^-24 (|alpha| sum_p |a||b| + |beta||c|)
   per element against long double sums (the fp32 sum bound, doubled),
   and that 1 and 2 threads give the same bits. Returns 1 when it holds. */
static int sb_native_case(gemm_layout lay, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                          int64_t pad, float alpha, float beta, uint64_t *state, double *worst)
{
    sb_geometry g = sb_geometry_of(lay, ta, tb, m, n, k, pad);
    int64_t i, j, q;
    size_t x;
    uint16_t *a = (uint16_t *)malloc(g.na * 2 + 2), *b = (uint16_t *)malloc(g.nb * 2 + 2);
    float *c0 = (float *)malloc(g.nc * 4 + 4), *c1 = (float *)malloc(g.nc * 4 + 4), *c2 = (float *)malloc(g.nc * 4 + 4);
    gemm_cpu_options one = {1, 0}, two = {2, 0};
    gemm_status s1, s2;
    int ok = 1;
    for (x = 0; x < g.na; x++) a[x] = sb_round((float)(2 * battery_uniform(state)));
    for (x = 0; x < g.nb; x++) b[x] = sb_round((float)(2 * battery_uniform(state)));
    for (x = 0; x < g.nc; x++) c0[x] = c1[x] = c2[x] = beta == 0 ? NAN : (float)battery_uniform(state);
    s1 = gemm_cpu_sbgemm(lay, ta, tb, m, n, k, alpha, a, g.lda, b, g.ldb, beta, c1, g.ldc, &one);
    s2 = gemm_cpu_sbgemm(lay, ta, tb, m, n, k, alpha, a, g.lda, b, g.ldb, beta, c2, g.ldc, &two);
    if (s1 != GEMM_OK || s2 != GEMM_OK || memcmp(c1, c2, g.nc * 4) != 0) ok = 0;
    for (i = 0; i < m && ok; i++)
        for (j = 0; j < n && ok; j++) {
            long double sum = 0, mag = 0, ref, cij;
            /* element (r, c) of a stored matrix: r*ld + c row-major, r + c*ld column-major */
            for (q = 0; q < k; q++) {
                int64_t ai = ta == GEMM_NO_TRANS ? i : q, aj = ta == GEMM_NO_TRANS ? q : i;
                int64_t bi = tb == GEMM_NO_TRANS ? q : j, bj = tb == GEMM_NO_TRANS ? j : q;
                long double pa = sb_widen(a[lay == GEMM_ROW_MAJOR ? ai * g.lda + aj : ai + aj * g.lda]);
                long double pb = sb_widen(b[lay == GEMM_ROW_MAJOR ? bi * g.ldb + bj : bi + bj * g.ldb]);
                sum += pa * pb;
                mag += fabsl(pa * pb);
            }
            x = (size_t)(lay == GEMM_ROW_MAJOR ? i * g.ldc + j : i + j * g.ldc);
            cij = beta == 0 ? 0 : c0[x];
            ref = (long double)alpha * sum + (long double)beta * cij;
            mag = fabsl((long double)alpha) * mag + fabsl((long double)beta * cij);
            if (!(fabsl((long double)c1[x] - ref) <= 2.0L * (long double)(k + 3) * ldexpl(1.0L, -24) * mag)) ok = 0;
            else if (mag > 0 && (double)(fabsl((long double)c1[x] - ref) / mag) > *worst)
                *worst = (double)(fabsl((long double)c1[x] - ref) / mag);
        }
    /* padding between columns (rows) of C is never written */
    for (x = 0; x < g.nc && ok; x++) {
        int64_t r = (int64_t)x / g.ldc, col = (int64_t)x % g.ldc;
        if (col >= (lay == GEMM_ROW_MAJOR ? n : m) && !(isnan(c0[x]) ? isnan(c1[x]) : c1[x] == c0[x])) ok = 0;
        (void)r;
    }
    free(a); free(b); free(c0); free(c1); free(c2);
    return ok;
}

/* The native kernel over shapes through every part of it: one element,
   one tile, odd k, edge tiles (m, n not multiples of 32 and 8), the
   packed path with several blocks; every layout and op pair, padded
   leading dimensions, alpha and beta in turn (beta = 0 with NaN in C).
   `label` names the block sizes in force. */
static void sb_native_bound(const char *label, int quick)
{
    static const int64_t shapes[][3] = {{1, 1, 1}, {1, 1, 2}, {2, 3, 1}, {32, 8, 5}, {32, 8, 16}, {33, 9, 7},
                                        {31, 7, 2}, {67, 13, 31}, {8, 40, 3}, {130, 67, 129}, {64, 64, 64},
                                        {257, 70, 300}, {100, 300, 1001}};
    static const float ab[][2] = {{1, 0}, {-0.75f, 0.5f}, {2, 1}, {0.5f, -1}};
    size_t si, nshapes = sizeof shapes / sizeof shapes[0] - (quick ? 2 : 0);
    int li, ai, bi, bad = 0, cases = 0;
    double worst = 0;
    uint64_t state = 777;
    for (si = 0; si < nshapes; si++)
        for (li = 0; li < 2; li++)
            for (ai = 0; ai < 2; ai++)
                for (bi = 0; bi < 2; bi++) {
                    gemm_layout lay = li ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR;
                    gemm_transpose ta = ai ? GEMM_TRANS : GEMM_NO_TRANS, tb = bi ? GEMM_TRANS : GEMM_NO_TRANS;
                    const float *s = ab[cases % 4];
                    int64_t pad = (int64_t)((si + (size_t)li + (size_t)ai) % 3);
                    cases++;
                    if (!sb_native_case(lay, ta, tb, shapes[si][0], shapes[si][1], shapes[si][2], pad, s[0], s[1],
                                        &state, &worst) &&
                        bad++ < 3)
                        printf("FAIL sbgemm/avx512bf16%s %lldx%lldx%lld %c%c%c alpha %g beta %g: outside the bound or "
                               "1 and 2 threads differ\n", label, (long long)shapes[si][0], (long long)shapes[si][1],
                               (long long)shapes[si][2], li ? 'c' : 'r', ai ? 'T' : 'N', bi ? 'T' : 'N',
                               (double)s[0], (double)s[1]);
                }
    battery_check(bad == 0, "sbgemm/avx512bf16%s: %d cases within 2 (k + 3) 2^-24 sum|alpha a b| + |beta c| of long "
                  "double sums, 1 and 2 threads bitwise equal (%d not; worst error / sum %.3g)", label, cases, bad,
                  worst);
}

/* The denormals the native kernel flushes (its contract, as vdpbf16ps
   computes): a bf16 denormal in A is read as zero (2^-133 * 2^100 would
   be 2^-33), and a denormal fp32 sum is flushed to zero (2^-70 * 2^-70 =
   2^-140); the widening path (sgemm) keeps both. */
static void sb_denormals(void)
{
    uint16_t a[2] = {0x0001, 0}, b[2] = {0x7180, 0}, tiny = 0x1c80; /* 2^-133, 2^100, 2^-70 */
    float c = -1, w = -1;
    gemm_status s1, s2, s3, s4;
    use_kernel("avx512bf16");
    s1 = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 2, 1.0f, a, 1, b, 2, 0.0f, &c, 1, NULL);
    use_kernel(NULL);
    gemm__test_hooks()->cpu_kernel = gemm__cpu_kernel(); /* the best fp32 kernel: the widening */
    s2 = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 2, 1.0f, a, 1, b, 2, 0.0f, &w, 1, NULL);
    battery_check(s1 == GEMM_OK && c == 0 && s2 == GEMM_OK && w == ldexpf(1.0f, -33),
                  "sbgemm: a bf16 denormal in A is read as zero natively (%g), kept by the widening (%g = 2^-33)",
                  (double)c, (double)w);
    c = w = -1;
    a[0] = b[0] = tiny;
    use_kernel("avx512bf16");
    s3 = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 2, 1.0f, a, 1, b, 2, 0.0f, &c, 1, NULL);
    use_kernel(NULL);
    gemm__test_hooks()->cpu_kernel = gemm__cpu_kernel();
    s4 = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 2, 1.0f, a, 1, b, 2, 0.0f, &w, 1, NULL);
    use_kernel(NULL);
    battery_check(s3 == GEMM_OK && c == 0 && s4 == GEMM_OK && w == ldexpf(1.0f, -140),
                  "sbgemm: a denormal fp32 sum (2^-70 * 2^-70) is flushed to zero natively (%g), kept by the "
                  "widening (%g = 2^-140)", (double)c, (double)w);
}

/* The small path (up to 64 x 64 x 64, sbgemm_small.c) against the packed
   path forced on the same products (gemm__hooks.cpu_path = 1): the same
   bits, every layout and op pair, edge tiles, odd k, padded leading
   dimensions, alpha and beta (beta = 0 over NaN). */
static void sb_small_bits(void)
{
    static const int64_t shapes[][3] = {{1, 1, 1}, {2, 3, 1}, {5, 7, 3}, {31, 9, 64}, {33, 8, 63},
                                        {64, 64, 64}, {17, 50, 33}, {32, 8, 2}};
    size_t si;
    int li, ai, bi, bad = 0, cases = 0;
    uint64_t state = 31337;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (li = 0; li < 2; li++)
            for (ai = 0; ai < 2; ai++)
                for (bi = 0; bi < 2; bi++) {
                    gemm_layout lay = li ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR;
                    gemm_transpose ta = ai ? GEMM_TRANS : GEMM_NO_TRANS, tb = bi ? GEMM_TRANS : GEMM_NO_TRANS;
                    int64_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2], pad = (int64_t)(si % 3);
                    sb_geometry g = sb_geometry_of(lay, ta, tb, m, n, k, pad);
                    size_t x;
                    uint16_t *a = (uint16_t *)malloc(g.na * 2), *b = (uint16_t *)malloc(g.nb * 2);
                    float *c1 = (float *)malloc(g.nc * 4), *c2 = (float *)malloc(g.nc * 4);
                    float alpha = cases % 3 == 0 ? 1.0f : -0.75f, beta = cases % 4 == 0 ? 0.0f : 0.5f;
                    gemm_status s1, s2;
                    for (x = 0; x < g.na; x++) a[x] = sb_round((float)(2 * battery_uniform(&state)));
                    for (x = 0; x < g.nb; x++) b[x] = sb_round((float)(2 * battery_uniform(&state)));
                    for (x = 0; x < g.nc; x++) c1[x] = c2[x] = beta == 0 ? NAN : (float)battery_uniform(&state);
                    s1 = gemm_cpu_sbgemm(lay, ta, tb, m, n, k, alpha, a, g.lda, b, g.ldb, beta, c1, g.ldc, NULL);
                    gemm__test_hooks()->cpu_path = 1;
                    s2 = gemm_cpu_sbgemm(lay, ta, tb, m, n, k, alpha, a, g.lda, b, g.ldb, beta, c2, g.ldc, NULL);
                    gemm__test_hooks()->cpu_path = 0;
                    cases++;
                    if ((s1 != GEMM_OK || s2 != GEMM_OK || memcmp(c1, c2, g.nc * 4) != 0) && bad++ < 3)
                        printf("FAIL sbgemm/avx512bf16 small %lldx%lldx%lld %c%c%c: status %d %d, not the packed "
                               "path's bits\n", (long long)m, (long long)n, (long long)k, li ? 'c' : 'r',
                               ai ? 'T' : 'N', bi ? 'T' : 'N', (int)s1, (int)s2);
                    free(a); free(b); free(c1); free(c2);
                }
    battery_check(bad == 0, "sbgemm/avx512bf16: %d small products bitwise the packed path's (%d differ)", cases, bad);
}

/* alpha = Inf where k spans several k blocks whose partial sums differ in
   sign (+1024, -1024, +52): the call widens, so the sum is taken whole
   before alpha multiplies it, +Inf and gemm_cpu_sgemm's bits (the packed
   k blocks would give Inf - Inf = NaN). */
static void sb_alpha_inf(void)
{
    enum { K = 2100 };
    static uint16_t a[K], b[K];
    static float fa[K], fb[K];
    float c = 5, w = 5;
    gemm_status s1, s2;
    int q;
    for (q = 0; q < K; q++) {
        a[q] = 0x3f80; /* 1 */
        b[q] = q < 1024 || q >= 2048 ? 0x3f80 : 0xbf80;
        fa[q] = sb_widen(a[q]);
        fb[q] = sb_widen(b[q]);
    }
    s1 = gemm_cpu_sbgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, K, INFINITY, a, K, b, 1, 0.0f, &c, 1, NULL);
    s2 = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, K, INFINITY, fa, K, fb, 1, 0.0f, &w, 1, NULL);
    battery_check(s1 == GEMM_OK && s2 == GEMM_OK && c == INFINITY && memcmp(&c, &w, sizeof c) == 0,
                  "sbgemm: alpha = Inf over k = %d with partial sums of both signs gives +Inf as sgemm does (%g, %g)",
                  K, (double)c, (double)w);
}

/* Which path runs, as the hook forces it: "avx512bf16" the native one
   (refused with GEMM_ERR_UNAVAILABLE, C untouched, where the CPU lacks
   it), an fp32 kernel's name the widening on that kernel. */
static int sb_paths(int nkernels, const char **kernels)
{
    const char *native;
    float c = 7;
    uint16_t one = 0x3f80;
    gemm_status s;
    int i, have;
    use_kernel("avx512bf16");
    native = gemm__cpu_sbgemm_kernel();
    s = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0f, &one, 1, &one, 1, 0.0f, &c, 1, NULL);
    have = native != NULL;
    battery_check(have ? strcmp(native, "avx512bf16") == 0 && s == GEMM_OK && c == 1
                       : s == GEMM_ERR_UNAVAILABLE && c == 7,
                  "sbgemm: forcing avx512bf16 %s (status %d, C = %g)", have ? "runs the native kernel" :
                  "is refused on this CPU, C untouched", (int)s, (double)c);
    for (i = 0; i < nkernels; i++) {
        use_kernel(kernels[i]);
        native = gemm__cpu_sbgemm_kernel();
        battery_check(native && strcmp(native, kernels[i]) == 0, "sbgemm: forcing %s widens for that fp32 kernel (%s)",
                      kernels[i], native ? native : "NULL");
    }
    use_kernel(NULL);
    native = gemm__cpu_sbgemm_kernel();
    printf("(sbgemm here runs %s by itself%s)\n", native,
           have && gemm__cpu_bf16_native_pays() ? ", the native kernel" : ": the widening path");
    battery_check(strcmp(native, have && gemm__cpu_bf16_native_pays() ? "avx512bf16" : kernels[0]) == 0,
                  "sbgemm: by itself it runs the native kernel where the CPU has it and it pays (not on Intel's "
                  "cores), else widens (%s)", native);
    return have;
}

/* Its own refusals: C's bytes over A's, threads < 0, no memory for the
   widened copies or for the native path's workspace; each leaves C as it
   was. */
static void sb_refusals(void)
{
    uint16_t ab[64];
    float c[16], keep[16];
    gemm_cpu_options o;
    gemm_status s;
    int i;
    for (i = 0; i < 64; i++) ab[i] = sb_round(0.25f * (float)(i % 7));
    for (i = 0; i < 16; i++) c[i] = keep[i] = (float)i;
    /* C over A's bytes: A is 4x4 bf16 at ab, C 2x2 fp32 inside it */
    s = gemm_cpu_sbgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 4, 1.0f, ab, 4, ab + 32, 2, 0.0f,
                        (float *)(void *)(ab + 4), 2, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "C overlaps A") != NULL,
                  "sbgemm: C over A's bytes is refused (%d: %s)", (int)s, gemm_last_error_detail());
    o.threads = -1;
    s = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, ab, 4, ab + 16, 4, 0.0f, c, 4, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "options->threads = -1") != NULL &&
                      memcmp(c, keep, sizeof c) == 0,
                  "sbgemm: options->threads = -1 is refused, C unchanged (%d: %s)", (int)s, gemm_last_error_detail());
    use_kernel(NULL);
    gemm__test_hooks()->cpu_kernel = gemm__cpu_kernel(); /* the best fp32 kernel: the widening */
    test_malloc_fail = 1;
    s = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, ab, 4, ab + 16, 4, 0.0f, c, 4,
                        NULL);
    test_malloc_fail = 0;
    use_kernel(NULL);
    battery_check(s == GEMM_ERR_OUT_OF_MEMORY && memcmp(c, keep, sizeof c) == 0,
                  "sbgemm: no memory for the widened copies: GEMM_ERR_OUT_OF_MEMORY, C unchanged (%d: %s)", (int)s,
                  gemm_last_error_detail());
    { /* past the small path, the native path's workspace (or, elsewhere, the widened copies) */
        uint16_t *big = (uint16_t *)calloc(2 * 65 * 65, sizeof(uint16_t));
        float *cb = (float *)malloc(sizeof(float) * 65 * 65), *kb = (float *)malloc(sizeof(float) * 65 * 65);
        for (i = 0; i < 65 * 65; i++) cb[i] = kb[i] = (float)i;
        test_malloc_fail = 1;
        s = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 65, 65, 65, 1.0f, big, 65, big + 65 * 65, 65,
                            0.0f, cb, 65, NULL);
        test_malloc_fail = 0;
        battery_check(s == GEMM_ERR_OUT_OF_MEMORY && memcmp(cb, kb, sizeof(float) * 65 * 65) == 0,
                      "sbgemm: 65^3 with no memory (%s): GEMM_ERR_OUT_OF_MEMORY, C unchanged (%d: %s)",
                      gemm__cpu_sbgemm_kernel(), (int)s, gemm_last_error_detail());
        free(big); free(cb); free(kb);
    }
    s = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, ab, 3, ab + 16, 4, 0.0f, c, 4,
                        NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "gemm_cpu_sbgemm: lda = 3") != NULL,
                  "sbgemm: a bad lda is refused as gemm_cpu_sgemm refuses it, under its own name (%s)",
                  gemm_last_error_detail());
}

/* Everything above: the battery (fp32; bf16's rounding of the inputs in
   the bound) on the kernel picked by itself; the native kernel where the
   CPU has it, with its own blocks and with tiny ones (every MC, KC and NC
   edge crossed, KC an odd count of pairs); the bits on the widening path
   for each fp32 kernel. */
static void test_sbgemm(int nkernels, const char **kernels, int cases, int max_dim, int quick)
{
    battery_backend be;
    int i, have;
    memset(&be, 0, sizeof be);
    be.name = "cpu/sbgemm";
    be.sgemm = sb_adapter;
    be.eps32 = 1.0 / 128; /* inputs rounded to bf16 (2^-8 each), the reference on the unrounded ones */
    be.cases = cases / 8 > 0 ? cases / 8 : 1; /* the fp32 battery runs in full above: this is the widening */
    be.max_dim = max_dim < 200 ? max_dim : 200;
    printf("== %s\n", be.name);
    use_kernel(NULL);
    battery_random(&be, GEMM_F32);
    if (battery_small_dim > 0) battery_small(&be, GEMM_F32);
    battery_edges(&be, GEMM_F32);
    battery_invalid(&be, GEMM_F32);
    sb_refusals();
    have = sb_paths(nkernels, kernels);
    if (have) {
        use_kernel("avx512bf16");
        sb_native_bound("", quick);
        set_blocking(40, 7, 24); /* mc 64 (rounded up to MR), kc 7 pairs, nc 24 */
        sb_native_bound("/tiny-blocks", 1);
        set_blocking(0, 0, 0);
        use_kernel(NULL);
        sb_denormals();
        sb_alpha_inf();
        use_kernel("avx512bf16");
        sb_small_bits();
        use_kernel(NULL);
    } else {
        printf("(no AVX512-BF16 on this CPU: forcing the native kernel is refused, checked above; the widening "
               "path's checks below are the ones that apply)\n");
    }
    for (i = 0; i < nkernels; i++) {
        use_kernel(kernels[i]);
        sb_bits(kernels[i]);
        if (i == 0 && !quick) sb_bits_threaded(kernels[i]);
    }
    use_kernel(NULL);
}
