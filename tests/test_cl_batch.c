/* tests/test_cl_batch.c - the OpenCL batches (gemm_cl_?gemm_strided_batched,
   gemm_cl_?gemm_batched) on the first OpenCL device (PoCL in CI;
   GEMM_CL_DEVICE picks another). Run by tests/test_cl.sh (make test-cl).

   The battery member by member through both forms (tests/battery_batch.h),
   the host data copied into one buffer per operand: strided at an offset,
   pointer arrays at irregular offsets (members in reverse order, uneven
   gaps: the kernels' list of offsets), a NULL member as an offset past the
   buffer's end (refused, naming the member). C is read back after refusals
   too, so a refused batch that wrote anything fails the battery's checks.
   Kernels: the device's own set with the crossover at 0 (pack + tiled for
   every batch) and a direct-only set, so every member is bitwise the single
   call's; a local-memory set, briefly; the small kernel (both tiles) for
   every call, its batches bitwise the direct kernel's single calls, and
   the rule that picks it. Then the batch's own refusals (each
   names the member or argument at fault; the device's C is unchanged),
   count 0, shared operands, the wait list and event, and more members than
   one launch takes. --quick: smaller batteries (sanitizers).
   Last line: N passed, N failed[, N skipped]. */
#define GEMM_IMPLEMENTATION
#define GEMM__TEST_HOOKS
#include "../gemm_cl.h"
#include "battery_batch.h"

static gemm_cl_context *cl;
static cl_context context;
static cl_command_queue queue;

/* ---- adapters: host data into buffers, the batch calls, C back ---- */

static size_t es_of(gemm_precision prec) { return prec == GEMM_F64 ? sizeof(double) : sizeof(float); }

/* Elements of one member's operand (0 where the arguments are invalid:
   the library says so before it reads anything). */
static size_t member_extent(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows < 0 || cols < 0 || ld < 1 || (layout != GEMM_ROW_MAJOR && layout != GEMM_COL_MAJOR)) return 0;
    if (rows > 4096 || cols > 4096 || ld > 4096) return 0;
    return battery_extent(layout, rows, cols, ld);
}

static void shapes_of(gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                      int64_t lda, int64_t ldb, int64_t ldc, size_t ext[3])
{
    int nt_a = ta == GEMM_NO_TRANS, nt_b = tb == GEMM_NO_TRANS;
    if (m < 0 || n < 0 || k < 0) { ext[0] = ext[1] = ext[2] = 0; return; }
    ext[0] = member_extent(layout, nt_a ? m : k, nt_a ? k : m, lda);
    ext[1] = member_extent(layout, nt_b ? k : n, nt_b ? n : k, ldb);
    ext[2] = member_extent(layout, m, n, ldc);
}

/* A buffer of `total` elements (at least one) with `count` host elements at `at`. */
static cl_mem buffer_with(gemm_precision prec, size_t total, const void *host, size_t at, size_t count)
{
    size_t es = es_of(prec);
    cl_int e;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, (total ? total : 1) * es, NULL, &e);
    if (e == CL_SUCCESS && host && count)
        e = clEnqueueWriteBuffer(queue, m, CL_TRUE, at * es, count * es, host, 0, NULL, NULL);
    if (e != CL_SUCCESS) { fprintf(stderr, "test_cl_batch: a buffer failed (%d)\n", (int)e); exit(1); }
    return m;
}

static void read_back(gemm_precision prec, cl_mem m, size_t at, size_t count, void *host)
{
    size_t es = es_of(prec);
    if (count && clEnqueueReadBuffer(queue, m, CL_TRUE, at * es, count * es, host, 0, NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "test_cl_batch: a read failed\n");
        exit(1);
    }
}

/* Waits for the batch's event (a successful call with an event must give one). */
static gemm_status finish(gemm_status s, cl_event ev)
{
    if (s == GEMM_OK && !ev) s = GEMM_ERR_DEVICE;
    if (ev) {
        if (clWaitForEvents(1, &ev) != CL_SUCCESS) s = GEMM_ERR_DEVICE;
        clReleaseEvent(ev);
    }
    if (clFinish(queue) != CL_SUCCESS) s = GEMM_ERR_DEVICE;
    return s;
}

/* Strided: each operand's members at 5 elements into its buffer. */
static gemm_status via_strided(gemm_precision prec, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                               int64_t m, int64_t n, int64_t k, double alpha, const void *A, int64_t lda, int64_t sa,
                               const void *B, int64_t ldb, int64_t sb, double beta, void *C, int64_t ldc, int64_t sc,
                               int64_t count)
{
    const size_t at = 5;
    const void *host[3];
    int64_t stride[3];
    size_t ext[3], span[3];
    cl_mem buf[3] = {NULL, NULL, NULL};
    cl_event ev = NULL;
    gemm_cl_options o;
    gemm_status s;
    int x;
    host[0] = A; host[1] = B; host[2] = C;
    stride[0] = sa; stride[1] = sb; stride[2] = sc;
    shapes_of(layout, ta, tb, m, n, k, lda, ldb, ldc, ext);
    for (x = 0; x < 3; x++) {
        span[x] = count > 0 && stride[x] >= 0 && stride[x] < (1 << 24) && count < (1 << 20)
                      ? (size_t)(stride[x] * (count - 1)) + ext[x] : ext[x];
        if (host[x]) buf[x] = buffer_with(prec, at + span[x], host[x], at, span[x]);
    }
    memset(&o, 0, sizeof o);
    o.event = &ev;
    if (prec == GEMM_F32)
        s = gemm_cl_sgemm_strided_batched(cl, layout, ta, tb, m, n, k, (float)alpha, buf[0], at, lda, sa, buf[1], at,
                                          ldb, sb, (float)beta, buf[2], at, ldc, sc, count, &o);
    else
        s = gemm_cl_dgemm_strided_batched(cl, layout, ta, tb, m, n, k, alpha, buf[0], at, lda, sa, buf[1], at, ldb,
                                          sb, beta, buf[2], at, ldc, sc, count, &o);
    s = finish(s, ev);
    if (C) read_back(prec, buf[2], at, span[2], C); /* refused or not: what the device holds */
    for (x = 0; x < 3; x++)
        if (buf[x]) clReleaseMemObject(buf[x]);
    return s;
}

/* Pointer arrays: each operand's members in one buffer, in reverse order
   with gaps of 0, 1, 2 elements; a NULL member at an offset past the end. */
static gemm_status via_lists(gemm_precision prec, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                             int64_t n, int64_t k, double alpha, const void *const A[], int64_t lda,
                             const void *const B[], int64_t ldb, double beta, void *const C[], int64_t ldc,
                             int64_t count)
{
    const void *const *host[3];
    size_t ext[3], offs[3][8], end[3];
    cl_mem buf[3];
    cl_event ev = NULL;
    gemm_cl_options o;
    gemm_status s;
    int x, i, nm = count > 0 && count <= 8 ? (int)count : 0;
    host[0] = A; host[1] = B; host[2] = (const void *const *)C;
    shapes_of(layout, ta, tb, m, n, k, lda, ldb, ldc, ext);
    for (x = 0; x < 3; x++) {
        end[x] = 3;
        for (i = nm - 1; i >= 0; i--) {
            offs[x][i] = end[x];
            end[x] += ext[x] + (size_t)(i % 3);
        }
        buf[x] = buffer_with(prec, end[x], NULL, 0, 0);
        for (i = 0; i < nm; i++) {
            if (host[x] && host[x][i]) {
                cl_int e = ext[x] ? clEnqueueWriteBuffer(queue, buf[x], CL_TRUE, offs[x][i] * es_of(prec),
                                                         ext[x] * es_of(prec), host[x][i], 0, NULL, NULL) : CL_SUCCESS;
                if (e != CL_SUCCESS) exit(1);
            } else {
                offs[x][i] = end[x] + 7; /* no such member: past the end */
            }
        }
    }
    memset(&o, 0, sizeof o);
    o.event = &ev;
    if (prec == GEMM_F32)
        s = gemm_cl_sgemm_batched(cl, layout, ta, tb, m, n, k, (float)alpha, buf[0], A ? offs[0] : NULL, lda, buf[1],
                                  B ? offs[1] : NULL, ldb, (float)beta, buf[2], C ? offs[2] : NULL, ldc, count, &o);
    else
        s = gemm_cl_dgemm_batched(cl, layout, ta, tb, m, n, k, alpha, buf[0], A ? offs[0] : NULL, lda, buf[1],
                                  B ? offs[1] : NULL, ldb, beta, buf[2], C ? offs[2] : NULL, ldc, count, &o);
    s = finish(s, ev);
    for (i = 0; C && i < nm; i++)
        if (C[i]) read_back(prec, buf[2], offs[2][i], ext[2], C[i]);
    for (x = 0; x < 3; x++) clReleaseMemObject(buf[x]);
    return s;
}

static gemm_status cl_sstrided(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                               int64_t n, int64_t k, float alpha, const float *A, int64_t lda, int64_t sa,
                               const float *B, int64_t ldb, int64_t sb, float beta, float *C, int64_t ldc, int64_t sc,
                               int64_t count)
{
    (void)ctx;
    return via_strided(GEMM_F32, layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count);
}

static gemm_status cl_dstrided(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                               int64_t n, int64_t k, double alpha, const double *A, int64_t lda, int64_t sa,
                               const double *B, int64_t ldb, int64_t sb, double beta, double *C, int64_t ldc,
                               int64_t sc, int64_t count)
{
    (void)ctx;
    return via_strided(GEMM_F64, layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count);
}

static gemm_status cl_sbatched(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                               int64_t n, int64_t k, float alpha, const float *const A[], int64_t lda,
                               const float *const B[], int64_t ldb, float beta, float *const C[], int64_t ldc,
                               int64_t count)
{
    (void)ctx;
    return via_lists(GEMM_F32, layout, ta, tb, m, n, k, alpha, (const void *const *)A, lda, (const void *const *)B,
                     ldb, beta, (void *const *)C, ldc, count);
}

static gemm_status cl_dbatched(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                               int64_t n, int64_t k, double alpha, const double *const A[], int64_t lda,
                               const double *const B[], int64_t ldb, double beta, double *const C[], int64_t ldc,
                               int64_t count)
{
    (void)ctx;
    return via_lists(GEMM_F64, layout, ta, tb, m, n, k, alpha, (const void *const *)A, lda, (const void *const *)B,
                     ldb, beta, (void *const *)C, ldc, count);
}

/* The single call (host pointers): the oracle of the other members. */
static gemm_status cl_sgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                            int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                            float beta, float *C, int64_t ldc)
{
    (void)ctx;
    return gemm_cl_sgemm_host(cl, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}

static gemm_status cl_dgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                            int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                            double beta, double *C, int64_t ldc)
{
    (void)ctx;
    return gemm_cl_dgemm_host(cl, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}

static int has_fp64;

/* Both forms through the battery with parameter set `params`; NULL: each
   precision's own set with the crossover at 0 (pack + tiled for every
   batch and every single call, so the members are bitwise the single's). */
static void battery_both_forms(const char *tag, const char *params, int cases, int max_dim)
{
    static battery_backend single = {"cl", cl_sgemm, cl_dgemm, NULL, 0, 0, 0, 0};
    battery_batch bb;
    battery_backend be;
    gemm_cl_params p;
    char name[400];
    int form, prec;
    memset(&p, 0, sizeof p);
    if (params) battery_check(gemm__cl_params_parse(params, &p), "%s: the parameter text parses", tag);
    for (prec = 0; prec < (has_fp64 ? 2 : 1); prec++) {
        gemm_precision pr = prec ? GEMM_F64 : GEMM_F32;
        gemm_cl_kernel_info info;
        char set[300];
        if (!params) {
            gemm_cl_kernel_info_get(cl, pr, &info);
            p = info.params;
            p.direct = 0;
            p.small = 1; /* single calls and batches alike through pack + tiled */
        }
        gemm_cl_params_str(&p, set, sizeof set);
        battery_check(gemm_cl_set_params(cl, pr, &p) == GEMM_OK, "%s: %s set_params %s (%s)", tag,
                      prec ? "f64" : "f32", set, gemm_last_error_detail());
        printf("   (%s %s: %s)\n", tag, prec ? "f64" : "f32", set);
    }
    memset(&bb, 0, sizeof bb);
    bb.sstrided = cl_sstrided; bb.dstrided = cl_dstrided; bb.sbatched = cl_sbatched; bb.dbatched = cl_dbatched;
    bb.single = &single;
    for (form = 0; form < 2; form++) {
        double t0 = gemm__cl_now();
        snprintf(name, sizeof name, "cl/%s %s", form ? "pointers" : "strided", tag);
        be = battery_batch_backend(&bb, form ? BATTERY_BATCH_POINTERS : BATTERY_BATCH_STRIDED, name);
        if (!has_fp64) be.dgemm = NULL;
        be.cases = cases;
        be.max_dim = max_dim;
        battery_run(&be);
        printf("   (%.1f s)\n", gemm__cl_now() - t0);
    }
}

/* ---- the batch's own checks ---- */

/* A device buffer of n random floats (seeded), and its host copy. */
typedef struct dev_buf {
    cl_mem m;
    size_t n;
    float *host;
} dev_buf;

static dev_buf dev_new(size_t n, uint64_t seed)
{
    dev_buf d;
    size_t i;
    uint64_t st = seed;
    d.n = n;
    d.host = (float *)malloc(n * sizeof(float));
    for (i = 0; i < n; i++) d.host[i] = (float)battery_uniform(&st);
    d.m = buffer_with(GEMM_F32, n, d.host, 0, n);
    return d;
}

static void dev_free(dev_buf *d)
{
    clReleaseMemObject(d->m);
    free(d->host);
}

/* Whether the device's copy still equals the host copy. */
static int dev_unchanged(const dev_buf *d)
{
    float *now = (float *)malloc(d->n * sizeof(float));
    int same;
    read_back(GEMM_F32, d->m, 0, d->n, now);
    same = memcmp(now, d->host, d->n * sizeof(float)) == 0;
    free(now);
    return same;
}

/* The refusal checks: status, detail, nothing written. */
static void refused(gemm_status s, const char *detail, const dev_buf *C, const char *what)
{
    clFinish(queue);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), detail) && dev_unchanged(C),
                  "%s refused, naming \"%s\", nothing written: status %d \"%s\"", what, detail, (int)s,
                  gemm_last_error_detail());
}

/* 4 members of 3x5x7, row-major NN, dense, at element 2 of buffers made
   for exactly that; one argument changed per case. */
static void test_strided_refusals(void)
{
    enum { M = 3, N = 5, K = 7, MEMBERS = 4, AT = 2 };
    typedef struct { const char *what, *detail; size_t offa, offc; int64_t sa, sc, count; int null_c; } scase;
    static const scase cases[] = {
        {"batch_count < 0", "batch_count", AT, AT, M * K, M * N, -1, 0},
        {"stride_a < 0", "stride_a", AT, AT, -1, M * N, MEMBERS, 0},
        {"stride_c = 0 with 4 members", "stride_c = 0", AT, AT, M * K, 0, MEMBERS, 0},
        {"stride_c = 14 (< 15 elements of C)", "members 0 and 1", AT, AT, M * K, M * N - 1, MEMBERS, 0},
        {"C one element too small for the last member", "member 3: C", AT, AT + 1, M * K, M * N, MEMBERS, 0},
        {"A too small for the last member (stride_a + 1)", "member 3: A", AT, AT, M * K + 1, M * N, MEMBERS, 0},
        {"offa past the end of A", "member 0: A", AT + MEMBERS * M * K + 1, AT, M * K, M * N, MEMBERS, 0},
        {"a huge stride_a", "2^60", AT, AT, (int64_t)1 << 60, M * N, MEMBERS, 0},
        {"NULL C", "C is NULL", AT, AT, M * K, M * N, MEMBERS, 1},
    };
    dev_buf A = dev_new(AT + MEMBERS * M * K, 1), B = dev_new(AT + MEMBERS * K * N, 2), C = dev_new(AT + MEMBERS * M * N, 3);
    size_t ci;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const scase *c = &cases[ci];
        gemm_status s = gemm_cl_sgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f,
                                                      A.m, c->offa, K, c->sa, B.m, AT, N, K * N, 0.5f,
                                                      c->null_c ? NULL : C.m, c->offc, N, c->sc, c->count, NULL);
        char what[160];
        snprintf(what, sizeof what, "strided: %s", c->what);
        refused(s, c->detail, &C, what);
    }
    battery_check(gemm_cl_sgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, A.m,
                                                AT, K, M * K, B.m, AT, N, K * N, 0.5f, C.m, AT, N, M * N, MEMBERS,
                                                NULL) == GEMM_OK && clFinish(queue) == CL_SUCCESS && !dev_unchanged(&C),
                  "strided: the same batch, as made, runs and writes C (\"%s\")", gemm_last_error_detail());
    dev_free(&A);
    dev_free(&B);
    dev_free(&C);
}

/* 6 members of 4x4x4, column-major NT, their Cs in reverse order in one
   buffer; then one thing broken. */
static void test_pointer_refusals(void)
{
    enum { S = 4, MEMBERS = 6 };
    dev_buf A = dev_new(S * S * MEMBERS, 4), B = dev_new(S * S * MEMBERS, 5), C = dev_new(S * S * MEMBERS + 8, 6);
    size_t oa[MEMBERS], ob[MEMBERS], oc[MEMBERS];
    int cs, i;
    for (cs = 0; cs < 9; cs++) {
        const char *what = "", *detail = "";
        const size_t *la = oa, *lb = ob, *lc = oc;
        cl_mem bufa = A.m;
        int64_t count = MEMBERS;
        gemm_status s;
        for (i = 0; i < MEMBERS; i++) oa[i] = (size_t)(S * S * i), ob[i] = (size_t)(S * S * ((i * 5) % MEMBERS)),
                                      oc[i] = (size_t)(S * S * (MEMBERS - 1 - i) + 3);
        switch (cs) {
        case 0: what = "offa[3] past the end"; detail = "member 3: A"; oa[3] = S * S * MEMBERS; break;
        case 1: what = "offb[0] one element short"; detail = "member 0: B"; ob[0] = S * S * (MEMBERS - 1) + 1; break;
        case 2: what = "offc[5] far past the end"; detail = "member 5: C"; oc[5] = (size_t)1 << 40; break;
        case 3: what = "offc[4] == offc[1]"; detail = "members 1 and 4"; oc[4] = oc[1]; break;
        case 4: what = "offc[2] one element into C[0]"; detail = "members 0 and 2"; oc[2] = oc[0] + 1; break;
        case 5: what = "a NULL list of C offsets"; detail = "C (the list"; lc = NULL; break;
        case 6: what = "batch_count < 0"; detail = "batch_count"; count = -2; break;
        case 7: what = "a NULL A buffer"; detail = "A is NULL"; bufa = NULL; break;
        case 8: what = "offa[1] = SIZE_MAX"; detail = "member 1: A"; oa[1] = (size_t)-1; break;
        }
        s = gemm_cl_sgemm_batched(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, 1.0f, bufa, la, S, B.m, lb,
                                  S, 2.0f, C.m, lc, S, count, NULL);
        {
            char w[160];
            snprintf(w, sizeof w, "pointer arrays: %s", what);
            refused(s, detail, &C, w);
        }
    }
    dev_free(&A);
    dev_free(&B);
    dev_free(&C);
}

/* Member i's C of a strided batch against the single call on that member. */
static int members_match_singles(const dev_buf *A, int64_t sa, const dev_buf *B, int64_t sb, const float *Cbefore,
                                 const dev_buf *C, int64_t sc, int64_t m, int64_t n, int64_t k, int64_t count)
{
    dev_buf single;
    float *got = (float *)malloc(C->n * sizeof(float)), *want = (float *)malloc(C->n * sizeof(float));
    int64_t i;
    int ok = 1;
    single.n = C->n;
    single.host = NULL;
    single.m = buffer_with(GEMM_F32, C->n, Cbefore, 0, C->n);
    for (i = 0; i < count && ok; i++)
        ok = gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, m, n, k, 1.25f, A->m, (size_t)(i * sa), k,
                           B->m, (size_t)(i * sb), k, -0.5f, single.m, (size_t)(i * sc), n, NULL) == GEMM_OK;
    read_back(GEMM_F32, single.m, 0, C->n, want);
    read_back(GEMM_F32, C->m, 0, C->n, got);
    ok = ok && memcmp(got, want, C->n * sizeof(float)) == 0;
    clReleaseMemObject(single.m);
    free(got);
    free(want);
    return ok;
}

/* One B for every member: stride 0, and a list of equal offsets. */
static void test_shared_and_empty(void)
{
    enum { M = 9, N = 13, K = 11, MEMBERS = 7 };
    dev_buf A = dev_new(M * K * MEMBERS, 7), B = dev_new(K * N, 8), C = dev_new(M * N * MEMBERS, 9);
    size_t oa[MEMBERS], ob[MEMBERS], oc[MEMBERS];
    cl_event ev = NULL;
    gemm_cl_options o;
    gemm_status s;
    int i, ok;
    s = gemm_cl_sgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, M, N, K, 1.25f, A.m, 0, K, M * K,
                                      B.m, 0, K, 0, -0.5f, C.m, 0, N, M * N, MEMBERS, NULL);
    battery_check(s == GEMM_OK && members_match_singles(&A, M * K, &B, 0, C.host, &C, M * N, M, N, K, MEMBERS),
                  "strided, one B for all (stride_b = 0): every member bitwise the single call's (%s)",
                  gemm_last_error_detail());
    read_back(GEMM_F32, C.m, 0, C.n, C.host); /* the next batch starts from here */
    for (i = 0; i < MEMBERS; i++) oa[MEMBERS - 1 - i] = (size_t)(M * K * i), ob[i] = 0, oc[MEMBERS - 1 - i] = (size_t)(M * N * i);
    s = gemm_cl_sgemm_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, M, N, K, 1.25f, A.m, oa, K, B.m, ob, K,
                              -0.5f, C.m, oc, N, MEMBERS, NULL);
    battery_check(s == GEMM_OK && members_match_singles(&A, M * K, &B, 0, C.host, &C, M * N, M, N, K, MEMBERS),
                  "pointer arrays, one B for all (equal offsets), members in reverse order: bitwise the single "
                  "calls' (%s)", gemm_last_error_detail());
    read_back(GEMM_F32, C.m, 0, C.n, C.host);
    memset(&o, 0, sizeof o);
    o.event = &ev;
    ok = gemm_cl_sgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, NULL, 0, K, 0,
                                       NULL, 0, N, 0, 0.0f, NULL, 0, N, 0, 0, &o) == GEMM_OK &&
         ev && clWaitForEvents(1, &ev) == CL_SUCCESS;
    if (ev) clReleaseEvent(ev);
    ev = NULL;
    ok = ok && gemm_cl_sgemm_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, NULL, NULL, K,
                                     NULL, NULL, N, 0.0f, NULL, NULL, N, 0, &o) == GEMM_OK &&
         ev && clWaitForEvents(1, &ev) == CL_SUCCESS;
    if (ev) clReleaseEvent(ev);
    battery_check(ok && dev_unchanged(&C), "batch_count = 0 with NULL everywhere: a no-op, and its event completes");
    dev_free(&A);
    dev_free(&B);
    dev_free(&C);
}

/* The batch waits for the caller's event, and its own event marks its end. */
static void test_wait_list(void)
{
    enum { S = 16, MEMBERS = 3 };
    dev_buf A = dev_new(S * S * MEMBERS, 10), B = dev_new(S * S * MEMBERS, 11), C = dev_new(S * S * MEMBERS, 12);
    cl_int e;
    cl_event gate = clCreateUserEvent(context, &e), ev = NULL;
    gemm_cl_options o;
    gemm_status s;
    int ok;
    memset(&o, 0, sizeof o);
    o.num_wait = 1;
    o.wait = &gate;
    o.event = &ev;
    s = gemm_cl_sgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, 1.25f, A.m, 0, S, S * S,
                                      B.m, 0, S, S * S, -0.5f, C.m, 0, S, S * S, MEMBERS, &o);
    ok = s == GEMM_OK && ev != NULL;
    if (ok) {
        cl_int st = 0;
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
        ok = st != CL_COMPLETE; /* it cannot have run: the gate is closed */
    }
    clSetUserEventStatus(gate, CL_COMPLETE);
    ok = ok && clWaitForEvents(1, &ev) == CL_SUCCESS &&
         members_match_singles(&A, S * S, &B, S * S, C.host, &C, S * S, S, S, S, MEMBERS);
    battery_check(ok, "the batch waits for its wait list, its event marks its end, the members are right (%s)",
                  gemm_last_error_detail());
    if (ev) clReleaseEvent(ev);
    clReleaseEvent(gate);
    o.wait = NULL;
    o.event = NULL;
    s = gemm_cl_sgemm_strided_batched(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, 1.25f, A.m, 0, S, S * S,
                                      B.m, 0, S, S * S, -0.5f, C.m, 0, S, S * S, MEMBERS, &o);
    read_back(GEMM_F32, C.m, 0, C.n, C.host);
    refused(s, "wait is NULL", &C, "num_wait = 1 with a NULL wait list");
    dev_free(&A);
    dev_free(&B);
    dev_free(&C);
}

/* More members than one launch takes (65,535), with `params`; checked
   against sums in double on the host. */
static void test_many_members(const char *tag, const char *params)
{
    enum { M = 3, N = 2, K = 5 };
    const int64_t count = 70000;
    dev_buf A = dev_new((size_t)(M * K * count), 13), B = dev_new((size_t)(K * N * count), 14),
            C = dev_new((size_t)(M * N * count), 15);
    float *got = (float *)malloc(C.n * sizeof(float));
    gemm_cl_params p;
    double err = 0;
    int64_t i, r, c, q;
    gemm_status s;
    gemm__cl_params_parse(params, &p);
    s = gemm_cl_set_params(cl, GEMM_F32, &p);
    if (s == GEMM_OK)
        s = gemm_cl_sgemm_strided_batched(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.5f, A.m, 0, M,
                                          M * K, B.m, 0, K, K * N, 0.25f, C.m, 0, M, M * N, count, NULL);
    read_back(GEMM_F32, C.m, 0, C.n, got);
    for (i = 0; i < count && s == GEMM_OK; i++)
        for (r = 0; r < M; r++)
            for (c = 0; c < N; c++) {
                double sum = 0, want;
                for (q = 0; q < K; q++) sum += (double)A.host[i * M * K + r + q * M] * B.host[i * K * N + q + c * K];
                want = 1.5 * sum + 0.25 * C.host[i * M * N + r + c * M];
                if (fabs(want - got[i * M * N + r + c * M]) > err) err = fabs(want - got[i * M * N + r + c * M]);
            }
    battery_check(s == GEMM_OK && err < 1e-5, "%s: 70,000 members of 3x2x5 (two launches): max error %.3g (%s)", tag,
                  err, gemm_last_error_detail());
    free(got);
    dev_free(&A);
    dev_free(&B);
    dev_free(&C);
}

/* ---- the small kernel (small members of a batch on GPUs) ---- */

/* The direct set's program with host fields: DIRECT (the crossover) and
   SMALL (0 by size, 1 never, 32 or 64 the small kernel's tile, forced). */
#define DIRECT_SET "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0"

static gemm_status use_set(const char *params)
{
    gemm_cl_params p;
    gemm__cl_params_parse(params, &p);
    return gemm_cl_set_params(cl, GEMM_F32, &p);
}

/* A batch through the small kernel (tile 32 or 64) against the direct
   kernel's single calls on each member: the same sums in the same order,
   bit for bit; both transposes of both operands (its copies read along k
   or along the rows), edges in every dimension and a partial k-step. */
static void test_small_is_direct(int tile)
{
    enum { M = 67, N = 45, K = 37, MEMBERS = 5 };
    static const gemm_transpose tr[2] = {GEMM_NO_TRANS, GEMM_TRANS};
    dev_buf A = dev_new(M * K * MEMBERS, 21), B = dev_new(K * N * MEMBERS, 22), C = dev_new(M * N * MEMBERS, 23);
    float *got = (float *)malloc(C.n * sizeof(float)), *want = (float *)malloc(C.n * sizeof(float));
    char set[200];
    int t, ok;
    gemm_status s;
    for (t = 0; t < 4; t++) {
        gemm_layout lay = t & 1 ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR;
        gemm_transpose ta = tr[t >> 1], tb = tr[(t + 1) & 1];
        int64_t lda = (lay == GEMM_ROW_MAJOR) == (ta == GEMM_NO_TRANS) ? K : M;
        int64_t ldb = (lay == GEMM_ROW_MAJOR) == (tb == GEMM_NO_TRANS) ? N : K;
        int64_t ldc = lay == GEMM_ROW_MAJOR ? N : M, i;
        cl_mem single = buffer_with(GEMM_F32, C.n, C.host, 0, C.n);
        snprintf(set, sizeof set, DIRECT_SET " DIRECT=0 SMALL=%d", tile);
        s = use_set(set);
        if (s == GEMM_OK)
            s = gemm_cl_sgemm_strided_batched(cl, lay, ta, tb, M, N, K, 1.25f, A.m, 0, lda, M * K, B.m, 0, ldb, K * N,
                                              -0.5f, C.m, 0, ldc, M * N, MEMBERS, NULL);
        ok = s == GEMM_OK && use_set(DIRECT_SET " DIRECT=100000 SMALL=1") == GEMM_OK;
        for (i = 0; i < MEMBERS && ok; i++)
            ok = gemm_cl_sgemm(cl, lay, ta, tb, M, N, K, 1.25f, A.m, (size_t)(i * M * K), lda, B.m,
                               (size_t)(i * K * N), ldb, -0.5f, single, (size_t)(i * M * N), ldc, NULL) == GEMM_OK;
        read_back(GEMM_F32, C.m, 0, C.n, got);
        read_back(GEMM_F32, single, 0, C.n, want);
        battery_check(ok && memcmp(got, want, C.n * sizeof(float)) == 0,
                      "small kernel, %dx%d tiles, %s %c%c, %d members of %dx%dx%d: bitwise the direct kernel's single "
                      "calls (%s)", tile, tile, lay == GEMM_ROW_MAJOR ? "row-major" : "col-major",
                      ta == GEMM_NO_TRANS ? 'N' : 'T', tb == GEMM_NO_TRANS ? 'N' : 'T', MEMBERS, M, N, K,
                      s == GEMM_OK ? "" : gemm_last_error_detail());
        read_back(GEMM_F32, C.m, 0, C.n, C.host); /* the next case starts from here */
        clReleaseMemObject(single);
    }
    free(got);
    free(want);
    dev_free(&A);
    dev_free(&B);
    dev_free(&C);
}

/* The rule that sends a batch to the small kernel (gemm__cl_small_tile),
   on a copy of the context posing as a GPU and as a CPU, with the H200's
   tiles: fp32 128 x 128, fp64 64 x 128. */
static void test_small_rule(void)
{
    struct { int64_t m, n, count; int mwg, nwg, small, gpu, path, want; } c[] = {
        {64, 64, 10000, 128, 128, 0, 1, GEMM__CL_BY_SIZE, 64},  /* a quarter of a tile */
        {64, 64, 10000, 64, 128, 0, 1, GEMM__CL_BY_SIZE, 64},   /* half: still small */
        {256, 256, 1000, 128, 128, 0, 1, GEMM__CL_BY_SIZE, 0},  /* full tiles */
        {100, 120, 1000, 128, 128, 0, 1, GEMM__CL_BY_SIZE, 0},  /* 73% full */
        {20, 300, 1000, 128, 128, 0, 1, GEMM__CL_BY_SIZE, 32},  /* 20 rows: a 32 tile */
        {300, 31, 1000, 128, 128, 0, 1, GEMM__CL_BY_SIZE, 32},
        {64, 64, 1, 128, 128, 0, 1, GEMM__CL_BY_SIZE, 0},       /* a single call keeps its kernel */
        {64, 64, 10000, 128, 128, 0, 0, GEMM__CL_BY_SIZE, 0},   /* CPUs keep the packed path */
        {64, 64, 10000, 128, 128, 1, 1, GEMM__CL_BY_SIZE, 0},   /* SMALL=1: never */
        {256, 256, 1, 128, 128, 32, 0, GEMM__CL_BY_SIZE, 32},   /* SMALL=32: forced, anywhere */
        {8, 8, 1, 128, 128, 64, 0, GEMM__CL_BY_SIZE, 64},
        {64, 64, 10000, 128, 128, 64, 1, GEMM__CL_TILED, 0},    /* a forced path wins */
        {40, 40, 1, 8, 8, 1, 0, GEMM__CL_SMALL, 64},
        {40, 32, 1, 8, 8, 1, 0, GEMM__CL_SMALL, 32},
    };
    gemm_cl_context fake = *cl;
    gemm__cl_program g;
    gemm__cl_call call;
    gemm_cl_params set;
    size_t i;
    fake.max_wg = 1024;
    fake.local_mem = 48 * 1024;
    memset(&g, 0, sizeof g);
    memset(&call, 0, sizeof call);
    g.prec = GEMM_F32;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        int got;
        fake.type = c[i].gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
        memset(&g.params, 0, sizeof g.params);
        g.params.mwg = c[i].mwg;
        g.params.nwg = c[i].nwg;
        set = g.params;
        set.small = c[i].small;
        call.m = c[i].m;
        call.n = c[i].n;
        call.count = c[i].count;
        got = gemm__cl_small_tile(&fake, &g, &call, &set, (gemm__cl_path)c[i].path);
        battery_check(got == c[i].want, "small-kernel rule: %lld x %lld x %lld members, tiles %dx%d, SMALL=%d, %s, "
                      "path %d: tile %d (want %d)", (long long)c[i].m, (long long)c[i].n, (long long)c[i].count,
                      c[i].mwg, c[i].nwg, c[i].small, c[i].gpu ? "GPU" : "CPU", c[i].path, got, c[i].want);
    }
    fake.max_wg = 128; /* no 16 x 16 groups: the 32 tile */
    g.params.mwg = g.params.nwg = 128;
    set = g.params;
    fake.type = CL_DEVICE_TYPE_GPU;
    call.m = call.n = 64;
    call.count = 100;
    battery_check(gemm__cl_small_tile(&fake, &g, &call, &set, GEMM__CL_BY_SIZE) == 32,
                  "small-kernel rule: a device without 256-work-item groups takes the 32 tile");
    fake.max_wg = 32;
    battery_check(gemm__cl_small_tile(&fake, &g, &call, &set, GEMM__CL_BY_SIZE) == 0,
                  "small-kernel rule: a device without 64-work-item groups keeps the packed path");
    battery_check(use_set(DIRECT_SET " DIRECT=0 SMALL=48") == GEMM_ERR_INVALID_ARG &&
                  strstr(gemm_last_error_detail(), "SMALL is 0, 1, 32 or 64"),
                  "SMALL=48 is refused, though the program exists (%s)", gemm_last_error_detail());
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    gemm_cl_kernel_info info;
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
        return 2;
    }
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) {
        battery_skip("OpenCL", gemm_last_error_detail());
        return battery_summary();
    }
    gemm_cl_handles(cl, &context, &queue, NULL);
    battery_check(gemm_cl_kernel_info_get(cl, GEMM_F32, &info) == GEMM_OK, "the device's f32 kernel (%s)",
                  gemm_last_error_detail());
    printf("device: %s\n", info.device_name);
    has_fp64 = gemm_cl_kernel_info_get(cl, GEMM_F64, &info) == GEMM_OK;
    battery_both_forms("own", NULL, quick ? 8 : 0, quick ? 80 : 0); /* 0: the battery's 200 cases up to 300 */
    battery_both_forms("direct", "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=100000",
                       quick ? 4 : 40, quick ? 60 : 160);
    battery_both_forms("local", "MWG=48 NWG=24 KWG=5 MDIMC=8 NDIMC=4 VWM=2 VWN=2 SA=1 SB=1 PACK=0 DIRECT=0 DB=1",
                       quick ? 2 : 15, 100);
    /* the small kernel for every call past the crossover (0: every call) */
    battery_both_forms("small 32", DIRECT_SET " DIRECT=0 SMALL=32", quick ? 4 : 40, quick ? 80 : 160);
    battery_both_forms("small 64", DIRECT_SET " DIRECT=0 SMALL=64", quick ? 4 : 40, quick ? 80 : 160);
    test_small_is_direct(32);
    test_small_is_direct(64);
    test_small_rule();
    test_strided_refusals();
    test_pointer_refusals();
    test_shared_and_empty();
    test_wait_list();
    test_many_members("tiled", "MWG=4 NWG=4 KWG=4 MDIMC=2 NDIMC=2 VWM=1 VWN=1 SA=0 SB=0 PACK=1 DIRECT=0");
    test_many_members("direct", "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=100000");
    /* a crossover between: single members direct, the batch (70,000 x 30) tiled */
    test_many_members("by size", "MWG=4 NWG=4 KWG=4 MDIMC=2 NDIMC=2 VWM=1 VWN=1 SA=0 SB=0 PACK=1 DIRECT=8");
    test_many_members("small 32", DIRECT_SET " DIRECT=0 SMALL=32");
    gemm_cl_destroy(cl);
    return battery_summary();
}
