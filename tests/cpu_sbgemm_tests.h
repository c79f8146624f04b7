/* tests/cpu_sbgemm_tests.h - gemm_cpu_sbgemm (bf16 A and B, fp32 C), part
   of tests/test_cpu.c: the battery's fp32 cases through it (A and B
   rounded to bf16, so its bound is bf16's), the bits of gemm_cpu_sgemm on
   the widened matrices for every kernel, path and layout, and its own
   refusals (C's bytes over A's, negative threads, no memory). */

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

/* Bitwise gemm_cpu_sgemm on the widened matrices: inputs exact in bf16,
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
                    int64_t ar = ta == GEMM_NO_TRANS ? m : k, ac = ta == GEMM_NO_TRANS ? k : m;
                    int64_t br = tb == GEMM_NO_TRANS ? k : n, bc = tb == GEMM_NO_TRANS ? n : k;
                    int64_t lda = (lay == GEMM_ROW_MAJOR ? ac : ar) + pad, ldb = (lay == GEMM_ROW_MAJOR ? bc : br) + pad;
                    int64_t ldc = (lay == GEMM_ROW_MAJOR ? n : m) + pad;
                    size_t na = battery_extent(lay, ar, ac, lda), nb = battery_extent(lay, br, bc, ldb);
                    size_t nc = battery_extent(lay, m, n, ldc), i;
                    uint16_t *a = (uint16_t *)malloc(na * 2), *b = (uint16_t *)malloc(nb * 2);
                    float *fa = (float *)malloc(na * 4), *fb = (float *)malloc(nb * 4);
                    float *c1 = (float *)malloc(nc * 4), *c2 = (float *)malloc(nc * 4);
                    float alpha = cases % 3 == 0 ? 1.0f : -0.75f, beta = cases % 4 == 0 ? 0.0f : 0.5f;
                    gemm_status s1, s2;
                    for (i = 0; i < na; i++) fa[i] = sb_widen(a[i] = sb_round((float)battery_uniform(&state)));
                    for (i = 0; i < nb; i++) fb[i] = sb_widen(b[i] = sb_round((float)battery_uniform(&state)));
                    for (i = 0; i < nc; i++) c1[i] = c2[i] = (float)battery_uniform(&state);
                    s1 = gemm_cpu_sbgemm(lay, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c1, ldc, NULL);
                    s2 = gemm_cpu_sgemm(lay, ta, tb, m, n, k, alpha, fa, lda, fb, ldb, beta, c2, ldc, NULL);
                    cases++;
                    if (s1 != GEMM_OK || s2 != GEMM_OK || memcmp(c1, c2, nc * 4) != 0) {
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

/* Its own refusals: C's bytes over A's, threads < 0, no memory for the
   widened copies; each leaves C as it was. */
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
    test_malloc_fail = 1;
    s = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, ab, 4, ab + 16, 4, 0.0f, c, 4,
                        NULL);
    test_malloc_fail = 0;
    battery_check(s == GEMM_ERR_OUT_OF_MEMORY && memcmp(c, keep, sizeof c) == 0,
                  "sbgemm: no memory for the widened copies: GEMM_ERR_OUT_OF_MEMORY, C unchanged (%d: %s)", (int)s,
                  gemm_last_error_detail());
    s = gemm_cpu_sbgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, ab, 3, ab + 16, 4, 0.0f, c, 4,
                        NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "gemm_cpu_sbgemm: lda = 3") != NULL,
                  "sbgemm: a bad lda is refused as gemm_cpu_sgemm refuses it, under its own name (%s)",
                  gemm_last_error_detail());
}

/* Everything above: the battery (fp32; bf16's rounding of the inputs in
   the bound) on the best kernel, the bits on each kernel. */
static void test_sbgemm(int nkernels, const char **kernels, int cases, int max_dim)
{
    battery_backend be;
    int i;
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
    for (i = 0; i < nkernels; i++) {
        use_kernel(kernels[i]);
        sb_bits(kernels[i]);
    }
    use_kernel(NULL);
}
