/* tests/test_cl.c - the OpenCL backend (gemm_cl.h) on the first OpenCL device
   (PoCL in CI; GEMM_CL_DEVICE picks another). The battery runs through the
   direct kernel, the pack + tiled path with the device's own parameter set,
   the cl_mem API with offsets, and parameter sets chosen to stress the
   generator; then errors, fallback, caches, events, threads and a tiny tuner
   run. tests/test_cl.sh adds the header's build checks. Last line:
   N passed, N failed[, N skipped]. */
#define GEMM_IMPLEMENTATION
#define GEMM__TEST_HOOKS
#include "../gemm_cl.h"
#include "battery.h"
#include "verify_faults.h"
#include "battery_complex.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

/* ---- adapters: the host-pointer API, and the cl_mem API with offsets ---- */

typedef struct cl_adapter {
    gemm_cl_context *cl;
    int buffers; /* 1: copy into cl_mem buffers at an offset, call the async API, wait on its event */
    int verify;  /* options.verify */
    int batch;   /* buffers: 0 a single call; 1 a strided, 2 a listed batch of 4 whose member 2 is the call */
} cl_adapter;

/* options.verify of the adapters battery_with makes */
static int test_cl_verify;

/* A batch of 4 in C's buffer, each member a copy of C (at off + x*nc),
   the same A and B for all: every member is the same product, and the
   caller's is member 2 (verify_fault_skip = 2 puts the fault there). A
   GEMM_ERR_VERIFY must name member 2 and leave member 3 as it was. */
static gemm_status via_batch(cl_adapter *a, gemm_precision prec, gemm_layout layout, gemm_transpose ta,
                             gemm_transpose tb, int64_t m, int64_t n, int64_t k, double alpha, cl_mem A, size_t off,
                             int64_t lda, cl_mem B, int64_t ldb, double beta, void *C, size_t nc, int64_t ldc,
                             gemm_cl_options *opts)
{
    size_t elem = prec == GEMM_F64 ? 8 : 4, offs[3][4], x;
    unsigned char *all = (unsigned char *)malloc(4 * nc * elem + 1), *back = (unsigned char *)malloc(4 * nc * elem + 1);
    cl_context context = NULL;
    cl_command_queue q = NULL;
    cl_mem Cs = NULL;
    cl_event ev = NULL;
    cl_int e = CL_SUCCESS;
    gemm_status s;
    gemm_cl_handles(a->cl, &context, &q, NULL);
    for (x = 0; x < 4; x++) {
        if (C) memcpy(all + x * nc * elem, C, nc * elem);
        offs[0][x] = offs[1][x] = off;
        offs[2][x] = off + x * nc;
    }
    if (C) Cs = clCreateBuffer(context, CL_MEM_READ_WRITE, (4 * nc + off) * elem, NULL, &e); /* NULL stays NULL */
    if (C && e == CL_SUCCESS && nc)
        e = clEnqueueWriteBuffer(q, Cs, CL_TRUE, off * elem, 4 * nc * elem, all, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
        s = GEMM_ERR_DEVICE;
        goto out;
    }
    opts->event = &ev;
    if (a->batch == 1 && prec == GEMM_F64)
        s = gemm_cl_dgemm_strided_batched(a->cl, layout, ta, tb, m, n, k, alpha, A, off, lda, 0, B, off, ldb, 0, beta,
                                          Cs, off, ldc, (int64_t)nc, 4, opts);
    else if (a->batch == 1)
        s = gemm_cl_sgemm_strided_batched(a->cl, layout, ta, tb, m, n, k, (float)alpha, A, off, lda, 0, B, off, ldb, 0,
                                          (float)beta, Cs, off, ldc, (int64_t)nc, 4, opts);
    else if (prec == GEMM_F64)
        s = gemm_cl_dgemm_batched(a->cl, layout, ta, tb, m, n, k, alpha, A, offs[0], lda, B, offs[1], ldb, beta, Cs,
                                  offs[2], ldc, 4, opts);
    else
        s = gemm_cl_sgemm_batched(a->cl, layout, ta, tb, m, n, k, (float)alpha, A, offs[0], lda, B, offs[1], ldb,
                                  (float)beta, Cs, offs[2], ldc, 4, opts);
    if (ev) {
        battery_check(s == GEMM_OK, "a verified batch hands back an event only when it succeeds (%d)", (int)s);
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
    }
    if (!C || !nc) goto out;
    if (clEnqueueReadBuffer(q, Cs, CL_TRUE, off * elem, 4 * nc * elem, back, 0, NULL, NULL) != CL_SUCCESS) {
        s = GEMM_ERR_DEVICE;
        goto out;
    }
    memcpy(C, back + 2 * nc * elem, nc * elem);
    if (s == GEMM_ERR_VERIFY)
        battery_check(strstr(gemm_last_error_detail(), "member 2 of 4 failed") != NULL &&
                          memcmp(back + 3 * nc * elem, all + 3 * nc * elem, nc * elem) == 0,
                      "a verified OpenCL %s batch names its failing member 2 and leaves member 3 untouched: %s",
                      a->batch == 1 ? "strided" : "listed", gemm_last_error_detail());
out:
    if (Cs) clReleaseMemObject(Cs);
    free(all);
    free(back);
    return s;
}

static gemm_status via_buffers(cl_adapter *a, gemm_precision prec, gemm_layout layout, gemm_transpose ta,
                               gemm_transpose tb, int64_t m, int64_t n, int64_t k, double alpha, const void *A,
                               int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc)
{
    size_t elem = prec == GEMM_F64 ? 8 : 4, off = 3;
    size_t na = battery_extent(layout, ta == GEMM_NO_TRANS ? m : k, ta == GEMM_NO_TRANS ? k : m, lda);
    size_t nb = battery_extent(layout, tb == GEMM_NO_TRANS ? k : n, tb == GEMM_NO_TRANS ? n : k, ldb);
    size_t nc = battery_extent(layout, m, n, ldc);
    cl_context context = NULL;
    cl_command_queue q = NULL;
    cl_mem bufs[3] = {NULL, NULL, NULL};
    const void *src[3];
    size_t cnt[3];
    cl_event ev = NULL;
    gemm_cl_options opts;
    gemm_status s;
    int i;
    if (m < 0 || n < 0 || k < 0 || lda < 1 || ldb < 1 || ldc < 1) na = nb = nc = 0; /* invalid: let the library say so */
    src[0] = A; src[1] = B; src[2] = C;
    cnt[0] = na; cnt[1] = nb; cnt[2] = nc;
    gemm_cl_handles(a->cl, &context, &q, NULL);
    for (i = 0; i < 3; i++)
        if (src[i]) { /* NULL stays NULL: the library must not need it */
            cl_int e;
            bufs[i] = clCreateBuffer(context, CL_MEM_READ_WRITE, (cnt[i] + off) * elem, NULL, &e);
            if (e == CL_SUCCESS && cnt[i])
                e = clEnqueueWriteBuffer(q, bufs[i], CL_TRUE, off * elem, cnt[i] * elem, src[i], 0, NULL, NULL);
            if (e != CL_SUCCESS) { s = GEMM_ERR_DEVICE; goto out; }
        }
    memset(&opts, 0, sizeof opts);
    opts.event = &ev;
    opts.verify = a->verify;
    if (a->batch) {
        s = via_batch(a, prec, layout, ta, tb, m, n, k, alpha, bufs[0], off, lda, bufs[1], ldb, beta, C, nc, ldc, &opts);
        goto out;
    }
    if (prec == GEMM_F64)
        s = gemm_cl_dgemm(a->cl, layout, ta, tb, m, n, k, alpha, bufs[0], off, lda, bufs[1], off, ldb, beta, bufs[2], off,
                          ldc, &opts);
    else
        s = gemm_cl_sgemm(a->cl, layout, ta, tb, m, n, k, (float)alpha, bufs[0], off, lda, bufs[1], off, ldb,
                          (float)beta, bufs[2], off, ldc, &opts);
    if (s == GEMM_OK && ev) {
        if (clWaitForEvents(1, &ev) != CL_SUCCESS) s = GEMM_ERR_DEVICE;
        clReleaseEvent(ev);
    }
    if (s == GEMM_OK && C && nc &&
        clEnqueueReadBuffer(q, bufs[2], CL_TRUE, off * elem, nc * elem, C, 0, NULL, NULL) != CL_SUCCESS)
        s = GEMM_ERR_DEVICE;
out:
    for (i = 0; i < 3; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    return s;
}

static gemm_status cl_s(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                        int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                        float *C, int64_t ldc)
{
    cl_adapter *a = (cl_adapter *)ctx;
    gemm_cl_options o;
    memset(&o, 0, sizeof o);
    o.verify = a->verify;
    if (a->buffers) return via_buffers(a, GEMM_F32, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return gemm_cl_sgemm_host(a->cl, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, &o);
}

static gemm_status cl_d(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                        int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                        double beta, double *C, int64_t ldc)
{
    cl_adapter *a = (cl_adapter *)ctx;
    gemm_cl_options o;
    memset(&o, 0, sizeof o);
    o.verify = a->verify;
    if (a->buffers) return via_buffers(a, GEMM_F64, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return gemm_cl_dgemm_host(a->cl, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, &o);
}

static gemm_status cl_c(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                        int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                        const void *be, void *C, int64_t ldc)
{
    return gemm_cl_cgemm_host((gemm_cl_context *)ctx, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, NULL);
}
static gemm_status cl_z(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                        int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                        const void *be, void *C, int64_t ldc)
{
    return gemm_cl_zgemm_host((gemm_cl_context *)ctx, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, NULL);
}

/* The complex calls on cl_mem buffers: A, B, C copied into buffers at an
   offset of 5 complex elements, the call behind a marker's event (its wait
   list), then waited on through the event it hands back. */
static gemm_status cl_cbuf(gemm_cl_context *cl, gemm_precision prec, gemm_layout l, gemm_transpose ta,
                           gemm_transpose tb, int64_t m, int64_t n, int64_t k, const void *al, const void *A,
                           int64_t lda, const void *B, int64_t ldb, const void *be, void *C, int64_t ldc)
{
    size_t elem = prec == GEMM_F64 ? 16 : 8, off = 5;
    size_t cnt[3];
    const void *src[3];
    cl_mem bufs[3] = {NULL, NULL, NULL};
    cl_context context = NULL;
    cl_command_queue q = NULL;
    cl_event before = NULL, ev = NULL;
    gemm_cl_options opts;
    gemm_status s;
    int i;
    cnt[0] = battery_extent(l, ta == GEMM_NO_TRANS ? m : k, ta == GEMM_NO_TRANS ? k : m, lda);
    cnt[1] = battery_extent(l, tb == GEMM_NO_TRANS ? k : n, tb == GEMM_NO_TRANS ? n : k, ldb);
    cnt[2] = battery_extent(l, m, n, ldc);
    if (m < 0 || n < 0 || k < 0 || lda < 1 || ldb < 1 || ldc < 1) cnt[0] = cnt[1] = cnt[2] = 0;
    src[0] = A; src[1] = B; src[2] = C;
    gemm_cl_handles(cl, &context, &q, NULL);
    for (i = 0; i < 3; i++)
        if (src[i]) { /* NULL stays NULL: the library must not need it */
            cl_int e;
            bufs[i] = clCreateBuffer(context, CL_MEM_READ_WRITE, (cnt[i] + off) * elem, NULL, &e);
            if (e == CL_SUCCESS && cnt[i])
                e = clEnqueueWriteBuffer(q, bufs[i], CL_TRUE, off * elem, cnt[i] * elem, src[i], 0, NULL, NULL);
            if (e != CL_SUCCESS) { s = GEMM_ERR_DEVICE; goto out; }
        }
    if (clEnqueueMarkerWithWaitList(q, 0, NULL, &before) != CL_SUCCESS) { s = GEMM_ERR_DEVICE; goto out; }
    memset(&opts, 0, sizeof opts);
    opts.num_wait = 1;
    opts.wait = &before;
    opts.event = &ev;
    s = (prec == GEMM_F64 ? gemm_cl_zgemm : gemm_cl_cgemm)(cl, l, ta, tb, m, n, k, al, bufs[0], off, lda, bufs[1],
                                                         off, ldb, be, bufs[2], off, ldc, &opts);
    if (s == GEMM_OK && ev) {
        if (clWaitForEvents(1, &ev) != CL_SUCCESS) s = GEMM_ERR_DEVICE;
        clReleaseEvent(ev);
    } else if (s == GEMM_OK) {
        s = GEMM_ERR_DEVICE; /* a call that succeeds must hand back the event asked for */
    } else if (ev) {
        s = GEMM_ERR_DEVICE; /* nor one that fails */
    }
    if (s == GEMM_OK && C && cnt[2] &&
        clEnqueueReadBuffer(q, bufs[2], CL_TRUE, off * elem, cnt[2] * elem, C, 0, NULL, NULL) != CL_SUCCESS)
        s = GEMM_ERR_DEVICE;
out:
    if (before) clReleaseEvent(before);
    for (i = 0; i < 3; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    return s;
}
static gemm_status cl_cb(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                         int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                         const void *be, void *C, int64_t ldc)
{
    return cl_cbuf((gemm_cl_context *)ctx, GEMM_F32, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
static gemm_status cl_zb(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                         int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                         const void *be, void *C, int64_t ldc)
{
    return cl_cbuf((gemm_cl_context *)ctx, GEMM_F64, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}

static int has_fp64(gemm_cl_context *cl)
{
    gemm_cl_kernel_info info;
    return gemm_cl_kernel_info_get(cl, GEMM_F64, &info) == GEMM_OK;
}

/* Runs the battery with one parameter set (NULL: keep the set in use, i.e. the last one set). */
static void battery_with(gemm_cl_context *cl, const char *name, const char *params, int buffers, int cases, int max_dim)
{
    cl_adapter a;
    battery_backend be;
    gemm_cl_params p;
    int prec;
    a.cl = cl;
    a.buffers = buffers;
    a.verify = test_cl_verify;
    a.batch = 0;
    memset(&be, 0, sizeof be);
    be.name = name;
    be.sgemm = cl_s;
    be.dgemm = has_fp64(cl) ? cl_d : NULL;
    be.ctx = &a;
    be.cases = cases;
    be.max_dim = max_dim;
    if (params) {
        memset(&p, 0, sizeof p);
        for (prec = 0; prec < (be.dgemm ? 2 : 1); prec++) {
            gemm_status s;
            battery_check(gemm__cl_params_parse(params, &p), "%s: parameter text parses", name);
            s = gemm_cl_set_params(cl, prec ? GEMM_F64 : GEMM_F32, &p);
            if (prec == 1 && s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "exceed the device's local memory")) {
                /* a set made for fp32 may need twice the local memory in fp64 (NVIDIA's 48 KB): refused, as it must be */
                printf("   (%s: fp64 refuses the set: it does not fit this device's local memory; fp32 only)\n", name);
                be.dgemm = NULL;
                break;
            }
            battery_check(s == GEMM_OK, "%s: %s set_params: %s %s", name, prec ? "f64" : "f32", gemm_strerror(s),
                          gemm_last_error_detail());
            if (s != GEMM_OK) return;
        }
    }
    {
        double t0 = gemm__cl_now();
        battery_run(&be);
        printf("   (%.1f s)\n", gemm__cl_now() - t0);
    }
}

/* ---- verified products (options.verify) ---- */

/* Faults injected after the product (tests/verify_faults.h) through the
   cl_mem calls (sums on the device) and the host calls (sums on the
   host), each caught; the battery with verify on through both, no false
   alarm; batches verify every member and name the one that fails. */
static void test_verify(gemm_cl_context *cl)
{
    cl_adapter a;
    battery_backend be;
    float X[4] = {1, 2, 3, 4};
    gemm_cl_options o;
    cl_context context = NULL;
    cl_command_queue q = NULL;
    cl_mem buf;
    cl_int e;
    gemm_status s;
    int way;
    static const char *const names[3] = {"cl-buffers verified (sums by the kernels)",
                                         "cl-buffers verified (CPU device: mapped, host sums)", "cl-host verified"};
    for (way = 0; way < 3; way++) { /* the kernels forced on a CPU device too (the test hook) */
        gemm__test_hooks()->cl_verify_kernels = way == 0;
        a.cl = cl;
        a.buffers = way < 2;
        a.verify = 1;
        a.batch = 0;
        memset(&be, 0, sizeof be);
        be.name = names[way];
        be.sgemm = cl_s;
        be.dgemm = has_fp64(cl) ? cl_d : NULL;
        be.ctx = &a;
        verify_faults(&be, 37, 29, 31, 0, 0xF);
        verify_faults(&be, 3, 2, 4, 0, 0xF);
    }
    test_cl_verify = 1;
    gemm__test_hooks()->cl_verify_kernels = 1;
    battery_with(cl, names[0], NULL, 1, 40, 0);
    gemm__test_hooks()->cl_verify_kernels = 0;
    battery_with(cl, names[1], NULL, 1, 40, 0);
    battery_with(cl, "cl-host verified (sums on the host)", NULL, 0, 40, 0);
    test_cl_verify = 0;
    /* batches, each member verified: a fault in member 2 of 4 caught and
       named, member 3 untouched; the battery through both forms, no false
       alarm (the device's kernels and the mapped host sums) */
    for (way = 0; way < 4; way++) {
        static const char *const bnames[4] = {"cl strided batch verified (kernels)", "cl listed batch verified (kernels)",
                                              "cl strided batch verified (mapped)", "cl listed batch verified (mapped)"};
        gemm__test_hooks()->cl_verify_kernels = way < 2;
        a.cl = cl;
        a.buffers = 1;
        a.verify = 1;
        a.batch = way % 2 + 1;
        memset(&be, 0, sizeof be);
        be.name = bnames[way];
        be.sgemm = cl_s;
        be.dgemm = has_fp64(cl) ? cl_d : NULL;
        be.ctx = &a;
        verify_faults(&be, 21, 17, 19, 2, 0xF);
        be.cases = 12;
        be.max_dim = 60;
        battery_run(&be);
    }
    gemm__test_hooks()->cl_verify_kernels = 0;
    /* a member past its buffer is refused before anything runs, verified or not */
    gemm_cl_handles(cl, &context, &q, NULL);
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof X, X, &e);
    memset(&o, 0, sizeof o);
    o.verify = 1;
    s = gemm_cl_sgemm_strided_batched(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0f, buf, 0, 1, 0,
                                      buf, 1, 1, 0, 0.0f, buf, 2, 1, 1, 3, &o);
    battery_check(e == CL_SUCCESS && s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "member 2") &&
                      gemm_cl_sgemm_strided_batched(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0f,
                                                    buf, 0, 1, 0, buf, 1, 1, 0, 0.0f, buf, 2, 1, 1, 2, &o) == GEMM_OK,
                  "a verified OpenCL batch checks its members as any batch does (%d: %s)", (int)s,
                  gemm_last_error_detail());
    if (e == CL_SUCCESS) {
        float Y[4] = {0, 0, 0, 0};
        clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof Y, Y, 0, NULL, NULL);
        battery_check(Y[2] == 1 * 2 && Y[3] == 1 * 2, "a verified batch of 2 computes both members: %g %g", Y[2], Y[3]);
        clReleaseMemObject(buf);
    }
}

/* ---- the rest of the contract ---- */

static float rnd(uint64_t *st) { return (float)battery_uniform(st); }

static int matches_ref(gemm_cl_context *cl, int n)
{
    uint64_t st = 5;
    float *A = (float *)malloc(sizeof(float) * (size_t)(4 * n * n)), *B = A + n * n, *C = B + n * n, *R = C + n * n;
    int i, ok;
    for (i = 0; i < 3 * n * n; i++) A[i] = rnd(&st);
    memcpy(R, C, sizeof(float) * (size_t)(n * n));
    ok = gemm_cl_sgemm_host(cl, GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, n, n, n, 0.5f, A, n, B, n, 2.0f, C, n,
                            NULL) == GEMM_OK;
    gemm_ref_sgemm(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, n, n, n, 0.5f, A, n, B, n, 2.0f, R, n);
    for (i = 0; ok && i < n * n; i++) ok = fabsf(C[i] - R[i]) <= 4 * FLT_EPSILON * (float)n;
    free(A);
    return ok;
}

static int count_programs(gemm_cl_context *cl) { return gemm__cl_program_count(cl, GEMM_F32, NULL); }

static void test_errors(void)
{
    gemm_cl_create_options o;
    gemm_cl_context *cl = NULL;
    gemm_cl_params p;
    gemm_status s;
    float A[16] = {0}, B[16] = {0}, C[16], C0[16];
    int i;
    memset(&o, 0, sizeof o);
    o.device_name = "no such device, surely";
    s = gemm_cl_create(&o, &cl);
    battery_check(s == GEMM_ERR_UNAVAILABLE && cl == NULL && strstr(gemm_last_error_detail(), "no such device"),
                  "a device name that matches nothing: GEMM_ERR_UNAVAILABLE (%s)", gemm_last_error_detail());
    battery_check(gemm_cl_create(NULL, NULL) == GEMM_ERR_INVALID_ARG, "gemm_cl_create(NULL, NULL) is rejected");
    battery_check(gemm_cl_destroy(NULL) == GEMM_OK, "gemm_cl_destroy(NULL) is a no-op");

    /* A kernel that does not compile: GEMM_ERR_BUILD, the build log readable, C untouched. */
    memset(&o, 0, sizeof o);
    o.build_options = "-DGEMM_CL_REAL=no_such_type";
    battery_check(gemm_cl_create(&o, &cl) == GEMM_OK, "create with broken build options");
    for (i = 0; i < 16; i++) C[i] = C0[i] = (float)i;
    s = gemm_cl_sgemm_host(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, A, 4, B, 4, 0, C, 4, NULL);
    battery_check(s == GEMM_ERR_BUILD && strstr(gemm_last_error_detail(), "Log:") &&
                      strstr(gemm_last_error_detail(), "no_such_type") && !memcmp(C, C0, sizeof C),
                  "a kernel that fails to build: GEMM_ERR_BUILD with the log, C untouched (status %d: %.200s)", (int)s,
                  gemm_last_error_detail());
    gemm_cl_destroy(cl);

    battery_check(gemm_cl_create(NULL, &cl) == GEMM_OK, "create the default device");
    memset(&p, 0, sizeof p);
    gemm__cl_params_parse("MWG=12 NWG=8 KWG=4 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=0", &p);
    s = gemm_cl_set_params(cl, GEMM_F32, &p);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "multiple"),
                  "an impossible parameter set is refused (%s)", gemm_last_error_detail());
    p.mwg = 64; /* a valid tiling, only too many work-items (64 x 128) for any device */
    p.mdimc = 64;
    p.ndimc = 128;
    p.nwg = 128;
    s = gemm_cl_set_params(cl, GEMM_F32, &p);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "work-group size"),
                  "too many work-items for the device: refused (%s)", gemm_last_error_detail());
    gemm__cl_params_parse("MWG=64 NWG=64 KWG=8 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=1 SB=1 PACK=1 DIRECT=0 WARPM=16", &p);
    s = gemm_cl_set_params(cl, GEMM_F32, &p);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "WARPM"),
                  "WARPM that does not divide MDIMC: refused (%s)", gemm_last_error_detail());
    /* MDIMC*VWM overflows an int: refused, no division by zero */
    gemm__cl_params_parse("MWG=64 NWG=8 KWG=4 MDIMC=268435456 NDIMC=8 VWM=16 VWN=1 SA=0 SB=0 PACK=0 DIRECT=0", &p);
    s = gemm_cl_set_params(cl, GEMM_F32, &p);
    battery_check(s == GEMM_ERR_INVALID_ARG, "MDIMC=268435456 VWM=16: GEMM_ERR_INVALID_ARG (%s)", gemm_last_error_detail());
    {   /* DIRECT is the host's crossover, not part of the program: one build for both */
        gemm_cl_kernel_info info;
        int before = count_programs(cl);
        gemm__cl_params_parse("MWG=16 NWG=16 KWG=4 MDIMC=4 NDIMC=4 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=8", &p);
        s = gemm_cl_set_params(cl, GEMM_F32, &p);
        p.direct = 100000;
        if (s == GEMM_OK) s = gemm_cl_set_params(cl, GEMM_F32, &p);
        if (s == GEMM_OK) s = gemm_cl_kernel_info_get(cl, GEMM_F32, &info);
        battery_check(s == GEMM_OK && count_programs(cl) == before + 1 && info.params.direct == 100000 &&
                          matches_ref(cl, 20),
                      "two sets differing only in DIRECT share one program, each keeps its DIRECT (%d -> %d programs)",
                      before, count_programs(cl));
    }
    {   /* a cl_mem smaller than offset + extent */
        cl_context context = NULL;
        cl_mem small;
        cl_int e;
        gemm_cl_handles(cl, &context, NULL, NULL);
        small = clCreateBuffer(context, CL_MEM_READ_WRITE, 16 * sizeof(float), NULL, &e);
        s = gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, small, 1, 4, small, 0, 4, 0,
                          small, 0, 4, NULL);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "A holds"),
                      "a buffer too small for offset + extent: GEMM_ERR_INVALID_ARG (%s)", gemm_last_error_detail());
        clReleaseMemObject(small);
    }
    gemm_cl_destroy(cl);

    /* Device memory exhausted: a clear status, C untouched. Only where a buffer
       larger than the device allows fits in this machine's address space
       unwritten (PoCL: 2 GiB); the host arrays are never touched. */
    battery_check(gemm_cl_create(NULL, &cl) == GEMM_OK, "create the default device");
    {
        cl_device_id dev = NULL;
        cl_ulong max_alloc = 0;
        gemm_cl_handles(cl, NULL, NULL, &dev);
        clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
        if (max_alloc > 0 && max_alloc <= ((cl_ulong)4 << 30) && sizeof(size_t) == 8) {
            int64_t big = (int64_t)sqrt((double)max_alloc / sizeof(float)) + 1024;
            float *hA = (float *)malloc((size_t)(big * big) * sizeof(float));
            float *hC = (float *)malloc((size_t)(big * big) * sizeof(float));
            if (hA && hC) {
                s = gemm_cl_sgemm_host(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, big, big, big, 1, hA, big, hA,
                                       big, 0, hC, big, NULL);
                battery_check(s == GEMM_ERR_OUT_OF_MEMORY && strstr(gemm_last_error_detail(), "CL_"),
                              "%lld^2 matrices beyond the device's %llu-byte allocations: GEMM_ERR_OUT_OF_MEMORY (%s)",
                              (long long)big, (unsigned long long)max_alloc, gemm_last_error_detail());
            }
            free(hA);
            free(hC);
        } else {
            printf("note: device allocations up to %llu bytes: the out-of-memory check runs only on smaller devices\n",
                   (unsigned long long)max_alloc);
        }
    }
    gemm_cl_destroy(cl);
}

static void test_fallback(void)
{
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    gemm_status s;
    gemm__test_hooks()->cl_break_kernel = 1; /* every tuned kernel of the next context computes a wrong result */
    s = gemm_cl_create(NULL, &cl);
    gemm__test_hooks()->cl_break_kernel = 0;
    if (s != GEMM_OK) { battery_check(0, "create (fallback test)"); return; }
    battery_check(gemm_cl_kernel_info_get(cl, GEMM_F32, &info) == GEMM_OK && !strcmp(info.origin, "safe default") &&
                      strstr(info.fallback_reason, "self-check"),
                  "a miscompiled kernel is caught by the self-check and replaced (origin '%s', reason '%.160s')",
                  info.origin, info.fallback_reason);
    battery_check(matches_ref(cl, 67), "the safe default kernel then gives right results");
    gemm_cl_destroy(cl);
}

static int count_files(const char *dir)
{
    char cmd[600], buf[64];
    FILE *f;
    int n = -1;
    snprintf(cmd, sizeof cmd, "ls %s | grep -c '^gemm_cl_.*\\.bin$'", dir);
    if ((f = popen(cmd, "r"))) {
        if (fgets(buf, sizeof buf, f)) n = atoi(buf);
        pclose(f);
    }
    return n;
}

static void test_caches_and_tuning(void)
{
    char dir[] = "/tmp/gemm_cl_test_XXXXXX", path[600], line[512];
    gemm_cl_create_options o;
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    gemm_cl_tune_options to;
    gemm_cl_tune_result tr;
    gemm_status s;
    FILE *f;
    double t0, t_cold, t_warm;
    if (!mkdtemp(dir)) { battery_check(0, "mkdtemp"); return; }

    /* The on-disk cache: the first context writes the binary, the second reads it. */
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    t0 = gemm__cl_now();
    s = gemm_cl_create(&o, &cl);
    s = s == GEMM_OK ? gemm_cl_kernel_info_get(cl, GEMM_F32, &info) : s;
    t_cold = gemm__cl_now() - t0;
    battery_check(s == GEMM_OK && count_files(dir) == 1, "the disk cache holds one program after the first build (%d)",
                  count_files(dir));
    gemm_cl_destroy(cl);
    t0 = gemm__cl_now();
    s = gemm_cl_create(&o, &cl);
    s = s == GEMM_OK ? gemm_cl_kernel_info_get(cl, GEMM_F32, &info) : s;
    t_warm = gemm__cl_now() - t0;
    battery_check(s == GEMM_OK && count_files(dir) == 1 && matches_ref(cl, 100),
                  "a second context loads it and computes right (build %.2f s, from the cache %.2f s)", t_cold, t_warm);
    gemm_cl_destroy(cl);

    /* A tuning file line for this device is picked up. */
    snprintf(path, sizeof path, "%s/tuning.txt", dir);
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) return;
    f = fopen(path, "w");
    fprintf(f, "# test\nf32 MWG=16 NWG=16 KWG=4 MDIMC=2 NDIMC=4 VWM=2 VWN=4 SA=1 SB=0 PACK=1 DIRECT=8 device=%s\n",
            info.device_name);
    fclose(f);
    gemm_cl_destroy(cl);
    memset(&o, 0, sizeof o);
    o.tuning_file = path;
    gemm_cl_create(&o, &cl);
    s = gemm_cl_kernel_info_get(cl, GEMM_F32, &info);
    battery_check(s == GEMM_OK && !strncmp(info.origin, "tuning file", 11) && info.params.mwg == 16 &&
                      info.params.mdimc == 2 && info.params.sa == 1 && info.params.direct == 8 && matches_ref(cl, 50),
                  "the tuning file's line is used (origin '%s')", info.origin);

    /* A tiny tuner run: every candidate checked, the impossible one skipped, the file updated. */
    memset(&to, 0, sizeof to);
    to.tiny = 1;
    to.budget_s = 60;
    to.output = path;
    s = gemm_cl_tune(cl, GEMM_F32, &to, &tr);
    battery_check(s == GEMM_OK && tr.tried == 5 && tr.failed == 1 && tr.built == 4 && tr.best_gflops > 0,
                  "tiny tuner run: %d tried, %d built, %d skipped, best %.2f GFLOP/s (%s)", tr.tried, tr.built, tr.failed,
                  tr.best_gflops, s == GEMM_OK ? tr.line : gemm_last_error_detail());
    f = fopen(path, "r");
    {
        int lines = 0, ours = 0;
        while (f && fgets(line, sizeof line, f)) {
            lines++;
            ours += strncmp(line, tr.line, strlen(tr.line)) == 0;
        }
        if (f) fclose(f);
        battery_check(lines == 2 && ours == 1, "the tuning file now holds the header and the tuned line (%d lines)", lines);
    }
    {
        int first_in_use = 0, n = gemm__cl_program_count(cl, GEMM_F32, &first_in_use);
        battery_check(n == 1 && first_in_use, "after tuning only the program in use is kept (%d programs)", n);
    }
    battery_check(gemm_cl_kernel_info_get(cl, GEMM_F32, &info) == GEMM_OK && !strcmp(info.origin, "tuned") &&
                      matches_ref(cl, 70),
                  "after tuning the context uses the winner and computes right");
    gemm_cl_destroy(cl);
    snprintf(line, sizeof line, "rm -rf %s", dir);
    if (system(line) != 0) battery_check(0, "rm -rf %s", dir);
}

/* The wait list is honoured and the returned event completes with the result. */
static void test_events(void)
{
    gemm_cl_context *cl;
    cl_context context = NULL;
    cl_command_queue q = NULL;
    cl_mem buf;
    cl_event user, done = NULL;
    cl_int e, st = CL_QUEUED;
    float h[3 * 64 * 64], R[64 * 64];
    uint64_t seed = 9;
    gemm_cl_options opts;
    int i, ok;
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) return;
    gemm_cl_handles(cl, &context, &q, NULL);
    for (i = 0; i < 3 * 64 * 64; i++) h[i] = rnd(&seed);
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof h, h, &e);
    user = clCreateUserEvent(context, &e);
    memset(&opts, 0, sizeof opts);
    opts.num_wait = 1;
    opts.wait = &user;
    opts.event = &done;
    ok = gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 64, 64, 64, 1, buf, 0, 64, buf, 4096, 64, 0.5f,
                       buf, 8192, 64, &opts) == GEMM_OK && done;
    usleep(20000);
    if (ok) clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    battery_check(ok && st != CL_COMPLETE, "the call waits for its wait list (status %d)", (int)st);
    clSetUserEventStatus(user, CL_COMPLETE);
    ok = ok && clWaitForEvents(1, &done) == CL_SUCCESS;
    memcpy(R, h + 8192, sizeof R);
    gemm_ref_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 64, 64, 64, 1, h, 64, h + 4096, 64, 0.5f, R, 64);
    ok = ok && clEnqueueReadBuffer(q, buf, CL_TRUE, 8192 * sizeof(float), sizeof R, h + 8192, 0, NULL, NULL) == CL_SUCCESS;
    for (i = 0; ok && i < 64 * 64; i++) ok = fabsf(h[8192 + i] - R[i]) <= 64 * 4 * FLT_EPSILON;
    battery_check(ok, "after the event completes, C (at an offset in a shared buffer) is right");
    if (done) clReleaseEvent(done);
    clReleaseEvent(user);
    clReleaseMemObject(buf);
    gemm_cl_destroy(cl);
}

static void on_alarm(int sig)
{
    static const char msg[] = "FAIL the first call on a fresh context hung behind a command waiting on a user event\n";
    (void)sig;
    if (write(1, msg, sizeof msg - 1) < 0) _exit(1);
    _exit(1);
}

/* The first call picks, builds and self-checks a kernel, blocking with the
   lock held. It must not wait on the context's queue: there, a command the
   caller enqueued may wait on an event only the caller will set. */
static void test_first_call_does_not_wait(void)
{
    gemm_cl_context *cl;
    cl_context context = NULL;
    cl_command_queue q = NULL;
    cl_mem buf;
    cl_event user, done = NULL;
    cl_int e, st;
    float h[3 * 32 * 32], R[32 * 32];
    uint64_t seed = 11;
    gemm_cl_options opts;
    gemm_status s;
    int i, ok;
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) return;
    gemm_cl_handles(cl, &context, &q, NULL);
    for (i = 0; i < 3 * 32 * 32; i++) h[i] = rnd(&seed);
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof h, NULL, &e);
    user = clCreateUserEvent(context, &e);
    st = clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, sizeof h, h, 1, &user, NULL); /* blocked until we say so */
    signal(SIGALRM, on_alarm);
    alarm(120);
    memset(&opts, 0, sizeof opts);
    opts.event = &done;
    s = gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 32, 32, 32, 1, buf, 0, 32, buf, 1024, 32, 0.5f,
                      buf, 2048, 32, &opts);
    alarm(0);
    battery_check(st == CL_SUCCESS && s == GEMM_OK && done,
                  "the first call on a fresh context returns while its queue waits on a user event (%s)",
                  gemm_last_error_detail());
    clSetUserEventStatus(user, CL_COMPLETE);
    ok = s == GEMM_OK && done && clWaitForEvents(1, &done) == CL_SUCCESS;
    memcpy(R, h + 2048, sizeof R);
    gemm_ref_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 32, 32, 32, 1, h, 32, h + 1024, 32, 0.5f, R, 32);
    ok = ok && clEnqueueReadBuffer(q, buf, CL_TRUE, 2048 * sizeof(float), sizeof R, h + 2048, 0, NULL, NULL) == CL_SUCCESS;
    for (i = 0; ok && i < 32 * 32; i++) ok = fabsf(h[2048 + i] - R[i]) <= 32 * 4 * FLT_EPSILON;
    battery_check(ok, "then, once the event is set, it runs after the write and is right");
    if (done) clReleaseEvent(done);
    clReleaseEvent(user);
    clReleaseMemObject(buf);
    gemm_cl_destroy(cl);
}

static void *thread_main(void *arg)
{
    int i, *ok = (int *)arg;
    for (i = 0; i < 5 && *ok; i++) *ok = matches_ref(*(gemm_cl_context **)(ok + 2), 40 + 17 * i);
    return NULL;
}

static void test_threads(void)
{
    gemm_cl_context *cl;
    pthread_t t[2];
    struct { int ok, pad; gemm_cl_context *cl; } arg[2];
    int i;
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) return;
    for (i = 0; i < 2; i++) {
        arg[i].ok = 1;
        arg[i].cl = cl;
        pthread_create(&t[i], NULL, thread_main, &arg[i]);
    }
    for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
    battery_check(arg[0].ok && arg[1].ok, "two threads share one context, both right");
    gemm_cl_destroy(cl);
}

/* Adopting the caller's context and queue, and giving every OpenCL object back:
   buffers, programs and kernels each hold a reference to their context (and
   commands to their queue), so both counts returning to what they were before
   gemm_cl_create means none leaked. (PoCL drops a finished command's references
   from a worker thread, a moment after clFinish: the check waits up to a second.) */
static void test_adopt_and_release(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_context context;
    cl_command_queue q;
    cl_uint ctx_refs = 0, q_refs = 0, ctx_base = 0, q_base = 0;
    cl_int e;
    gemm_cl_create_options o;
    gemm_cl_context *cl;
    gemm_cl_tune_options to;
    gemm_cl_tune_result tr;
    float h[3 * 48 * 48] = {0};
    int ok;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS || clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        return;
    context = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    q = clCreateCommandQueue(context, dev, 0, &e);
    clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof ctx_base, &ctx_base, NULL);
    clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof q_base, &q_base, NULL);
    memset(&o, 0, sizeof o);
    o.context = context;
    o.queue = q;
    ok = gemm_cl_create(&o, &cl) == GEMM_OK;
    battery_check(ok, "adopt the caller's context and queue");
    if (!ok) return;
    {   /* a queue of another context is refused */
        gemm_cl_context *bad = NULL;
        cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
        gemm_status s;
        o.context = other;
        s = gemm_cl_create(&o, &bad);
        battery_check(s == GEMM_ERR_INVALID_ARG && !bad && strstr(gemm_last_error_detail(), "belong"),
                      "a queue that is not the context's: GEMM_ERR_INVALID_ARG (%s)", gemm_last_error_detail());
        o.context = context;
        clReleaseContext(other);
    }
    ok = matches_ref(cl, 33) && matches_ref(cl, 130); /* direct and tiled, with packing buffers */
    ok = ok && gemm_cl_sgemm_host(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 48, 48, 48, 0.0f, NULL, 48, NULL, 48,
                                  2.0f, h, 48, NULL) == GEMM_OK; /* the scaling path */
    memset(&to, 0, sizeof to);
    to.tiny = 1;
    ok = ok && gemm_cl_tune(cl, GEMM_F32, &to, &tr) == GEMM_OK; /* many programs, its own buffers */
    battery_check(ok, "calls on the adopted queue are right");
    gemm_cl_destroy(cl);
    for (e = 0; e < 100; e++) {
        clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof ctx_refs, &ctx_refs, NULL);
        clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof q_refs, &q_refs, NULL);
        if (ctx_refs == ctx_base && q_refs == q_base) break;
        usleep(10000);
    }
    battery_check(ctx_refs == ctx_base && q_refs == q_base,
                  "after gemm_cl_destroy every buffer, program and kernel is released (context refs %u, was %u; "
                  "queue refs %u, was %u)", ctx_refs, ctx_base, q_refs, q_base);
    clReleaseCommandQueue(q);
    clReleaseContext(context);
}

int main(void)
{
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    gemm_status s = gemm_cl_create(NULL, &cl);
    char name[400];
    if (s != GEMM_OK) {
        battery_skip("OpenCL", gemm_last_error_detail());
        return battery_summary();
    }
    s = gemm_cl_kernel_info_get(cl, GEMM_F32, &info);
    printf("device: %s; f32 kernel from %s\n", info.device_name, info.origin);
    battery_check(s == GEMM_OK && info.fallback_reason[0] == '\0', "the device's own f32 kernel passes its self-check (%s)",
                  info.fallback_reason);

    {   /* the complex host calls on the device's own kernels */
        cbattery_backend cb = {"cl-complex-host", cl_c, NULL, NULL, 50, 2, 1};
        double t0 = gemm__cl_now();
        cb.ctx = cl;
        cb.zgemm = has_fp64(cl) ? cl_z : NULL;
        cbattery_run(&cb);
        printf("   (%.1f s)\n", gemm__cl_now() - t0);
    }
    {   /* the complex calls on cl_mem buffers (offsets, a wait list, events) */
        cbattery_backend cb = {"cl-complex-buffers", cl_cb, NULL, NULL, 50, 2, 0};
        double t0 = gemm__cl_now();
        cb.ctx = cl;
        cb.zgemm = has_fp64(cl) ? cl_zb : NULL;
        cbattery_run(&cb);
        printf("   (%.1f s)\n", gemm__cl_now() - t0);
    }
    battery_with(cl, "cl-direct", "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=100000", 0, 60, 0);
    /* the device's own set with the crossover at 0: pack + tiled for every size */
    {
        char own[300];
        gemm_cl_params tiled = info.params;
        tiled.direct = 0;
        gemm_cl_params_str(&tiled, own, sizeof own);
        snprintf(name, sizeof name, "cl-tiled %s", own);
        battery_with(cl, name, own, 0, 0, 0);
        /* the cl_mem API with non-zero offsets through both kernels: this set (DIRECT=0, tiled)... */
        battery_with(cl, "cl-buffers tiled (cl_mem API, offsets, events)", NULL, 1, 40, 0);
    }
    /* ...and a direct-only one */
    battery_with(cl, "cl-buffers direct (cl_mem API, offsets, events)",
                 "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=100000", 1, 40, 0);
    battery_with(cl, "cl-ones", "MWG=1 NWG=1 KWG=1 MDIMC=1 NDIMC=1 VWM=1 VWN=1 SA=1 SB=1 PACK=1 DIRECT=0", 0, 15, 90);
    battery_with(cl, "cl-wide", "MWG=32 NWG=128 KWG=16 MDIMC=2 NDIMC=8 VWM=16 VWN=16 SA=0 SB=1 PACK=1 DIRECT=0 DB=1", 0, 15, 0);
    battery_with(cl, "cl-local", "MWG=48 NWG=24 KWG=5 MDIMC=8 NDIMC=4 VWM=2 VWN=2 SA=1 SB=1 PACK=0 DIRECT=0 DB=1", 0, 15, 0);
    /* warp-level tiling (2 warps of 8 x 4 work-items), a register cap the device may ignore */
    battery_with(cl, "cl-warp", "MWG=64 NWG=32 KWG=8 MDIMC=16 NDIMC=4 VWM=4 VWN=2 SA=1 SB=1 PACK=1 DIRECT=0 DB=1 WARPM=8 "
                 "REGS=64", 0, 15, 0);
    test_verify(cl);
    gemm_cl_destroy(cl);

    test_errors();
    test_fallback();
    test_events();
    test_first_call_does_not_wait();
    test_threads();
    test_adopt_and_release();
    test_caches_and_tuning();
    return battery_summary();
}
