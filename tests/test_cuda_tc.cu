/* tests/test_cuda_tc.cu - the CUDA backend's tensor-core modes against an fp64
   reference on the host. Needs a GPU. Last line: N passed, N failed.

   Modes: TF32 (gemm_cuda_sgemm with options.math = GEMM_CUDA_MATH_TF32,
   and gemm_cuda_sgemm_host), and gemm_cuda_sgemm_mixed (and _mixed_host)
   with f16->f32, f16->f16, bf16->f32, bf16->bf16; and "tf32-exact", TF32 on inputs whose
   low 13 mantissa bits are zero, so that the TF32 kernels also face the
   tight tolerance of the exact-input modes (TF32's own, 0.13*|alpha| at
   k = 300, can miss a small lost product). Each mode runs on every kernel
   that can run it (auto, mma, wgmma, naive); a kernel this device or build
   lacks is counted as skipped with a SKIPPED line, and WGMMA runs
   several ways (tc_ways): K split as it chooses, never (options.split_k =
   1), and in 3 parts; with the test hooks' epilogues, grids and sums; and
   with each block tile forced (options.variant 1:
   256 x 128, 2: 128 x 128, 3: 128 x 64; automatic picks the smaller ones
   where M fits one tile or larger tiles would leave most SMs idle, so
   most random cases run 128 x 64, with the ring of one block an SM).
   Per mode:
     - random cases, all 8 layout x transA x transB combinations: m, n, k in
       1..300, half of them from 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 255,
       256, 257; leading dimensions minimal, padded by 1..17 (often odd) or
       padded to 16-byte rows; any pointer sometimes one element past a
       16-byte boundary; alpha, beta from {0, 1, -1, random}. beta == 0 runs
       with C all NaN (0xff bytes);
     - edges: beta = 0 over NaN, alpha = 0 and k = 0 with NaN in A and B,
       m = 0, n = 0, alpha = 0 with beta = 1 (C byte for byte), NULL where
       nothing is referenced;
     - larger shapes (1000^3, 300x520x1111, 2049x63x517, 64x64x4099) on mma
       and wgmma: several block tiles and many K tiles (split-K for the
       small grids), padded and misaligned operands; each runs twice and
       must give the same bytes;
     - refusals, C byte for byte unchanged: the CBLAS checks, host pointers,
       kernels that are not tensor-core kernels, type triples sgemm_mixed does
       not do; then the refusals of no single mode (mma/wgmma for exact fp32
       and fp64, TF32 for fp64). gemm_cuda_release_scratch() before the
       first call and after each mode (the next mode takes memory again).
   Inputs are exactly representable in the input type (F16/BF16: random
   floats in [-1, 1) converted on the host; TF32: random floats, cut by the
   tensor cores), and the reference sums the values the GPU got, in fp64.
   The whole C buffer comes back (with 8 guard elements past its end): every
   element outside the m x n window must be unchanged byte for byte.

   Tolerance of element (i, j) inside the window, ref its fp64 value:
       4*(u_in*sqrt(k) + 2^-23*k) * |alpha|*max|A|*max|B|  (inputs, fp32 sums)
     + 2^-22 * |beta|*max|C0|                             (beta*C in fp32)
     + u_out * (|ref| + |beta|*max|C0|)                   (rounding C once)
     + tiny_out                                           (C's smallest subnormal)
   u_in = 2^-9 for TF32 (10 of fp32's 23 mantissa bits are kept: each
   product is off by up to 2^-9 relative, errors of random sign: sqrt(k)),
   0 for F16/BF16 and tf32-exact (the inputs are exact and their products
   are exact in fp32); u_out = 2^-24 (fp32 C), 2^-11 (f16), 2^-8 (bf16);
   tiny_out = 2^-149, 2^-24, 2^-133 (near zero an f16 result rounds to a
   multiple of 2^-24, which no relative term covers). max|C0| = 0 when
   beta == 0. NaN never passes. (On an H200 the largest err/tol seen was
   0.99 with an f16/bf16 C, the rounding of C itself, and 0.26 elsewhere.)

   GEMM_CUDA_TEST_SMALL=1: a few cases per mode and kernel (for
   compute-sanitizer), with one shape past a 256x128 block tile and several
   64-wide K tiles (300x260x200). GEMM_TEST_SEED=<n> changes the seed. */
#define GEMM_IMPLEMENTATION
#define GEMM__TEST_HOOKS /* the WGMMA schedule's overrides: small grids, other raster orders */
#include "../gemm_cuda.cuh"
#include "battery.h"

#include <thread>

/* ---- what is called ---- */

typedef enum tc_api { API_SGEMM, API_SGEMM_HOST, API_DGEMM, API_DGEMM_HOST, API_MIXED, API_MIXED_HOST } tc_api;

typedef struct tc_mode {
    const char *name;
    tc_api api;            /* API_SGEMM (TF32) or API_MIXED */
    gemm_cuda_math math;
    gemm_precision in, out; /* A's and B's type, C's */
    int tf32_inputs;       /* A and B cut to TF32 on the host: exact on the tensor cores */
    double u_in, u_out, tiny_out; /* the tolerance above */
} tc_mode;

static const tc_mode tc_modes[] = {
    {"tf32", API_SGEMM, GEMM_CUDA_MATH_TF32, GEMM_F32, GEMM_F32, 0, 0x1p-9, 0x1p-24, 0x1p-149},
    {"tf32-exact", API_SGEMM, GEMM_CUDA_MATH_TF32, GEMM_F32, GEMM_F32, 1, 0, 0x1p-24, 0x1p-149},
    {"fp32-accurate", API_SGEMM, GEMM_CUDA_MATH_FP32_ACCURATE, GEMM_F32, GEMM_F32, 0, 0x1p-21, 0x1p-24, 0x1p-149},
    {"f16->f32", API_MIXED, GEMM_CUDA_MATH_EXACT, GEMM_F16, GEMM_F32, 0, 0, 0x1p-24, 0x1p-149},
    {"f16->f16", API_MIXED, GEMM_CUDA_MATH_EXACT, GEMM_F16, GEMM_F16, 0, 0, 0x1p-11, 0x1p-24},
    {"bf16->f32", API_MIXED, GEMM_CUDA_MATH_EXACT, GEMM_BF16, GEMM_F32, 0, 0, 0x1p-24, 0x1p-149},
    {"bf16->bf16", API_MIXED, GEMM_CUDA_MATH_EXACT, GEMM_BF16, GEMM_BF16, 0, 0, 0x1p-8, 0x1p-133},
};

/* The ways a mode is run: a kernel on device pointers (WGMMA also with K
   never split and split in 3), or the host-pointer call, its
   copy mode cycling over the cases. */
enum { WAY_AUTO, WAY_MMA, WAY_WGMMA, WAY_WGMMA_NOSPLIT, WAY_WGMMA_SPLIT3, WAY_WGMMA_256, WAY_WGMMA_128,
       WAY_WGMMA_128x64, WAY_WGMMA_STAGED, WAY_WGMMA_GRID3, WAY_WGMMA_UNITS, WAY_NAIVE, WAY_HOST, WAYS };
static const struct {
    const char *name;
    gemm_cuda_kernel kernel;
    int split_k, variant;
    int group, grid, epilogue, reduce; /* the test hooks cuda_wgmma_group, _grid, _epilogue, _reduce (0: none) */
} tc_ways[WAYS] = {{"auto", GEMM_CUDA_KERNEL_AUTO, 0, 0, 0, 0, 0, 0},
                   {"mma", GEMM_CUDA_KERNEL_MMA, 0, 0, 0, 0, 0, 0},
                   {"wgmma", GEMM_CUDA_KERNEL_WGMMA, 0, 0, 0, 0, 0, 0},
                   {"wgmma split_k=1", GEMM_CUDA_KERNEL_WGMMA, 1, 0, 0, 0, 0, 0},
                   {"wgmma split_k=3", GEMM_CUDA_KERNEL_WGMMA, 3, 0, 0, 0, 0, 0},
                   {"wgmma variant=1 (256-row tiles)", GEMM_CUDA_KERNEL_WGMMA, 0, 1, 0, 0, 0, 0},
                   {"wgmma variant=2 (128-row tiles)", GEMM_CUDA_KERNEL_WGMMA, 0, 2, 0, 0, 0, 0},
                   {"wgmma variant=3 (128x64 tiles)", GEMM_CUDA_KERNEL_WGMMA, 0, 3, 0, 0, 0, 0},
                   {"wgmma 256-row tiles, K whole, staged epilogue", GEMM_CUDA_KERNEL_WGMMA, 1, 1, 0, 0, 1, 0},
                   {"wgmma 3 blocks, split_k=2, N-raster 2, direct epilogue, last part sums", GEMM_CUDA_KERNEL_WGMMA,
                    2, 0, -2, 3, 2, 2},
                   {"wgmma a block per unit, M-raster 3, variant=2, split_k=5", GEMM_CUDA_KERNEL_WGMMA, 5, 2, 3, -1, 0,
                    0},
                   {"naive", GEMM_CUDA_KERNEL_NAIVE, 0, 0, 0, 0, 0, 0},
                   {"host", GEMM_CUDA_KERNEL_AUTO, 0, 0, 0, 0, 0, 0}};
static const char *way_missing[WAYS]; /* why a way cannot run here; NULL: it runs */
static int way_runs[WAYS], way_failures[WAYS]; /* of the current mode */
#define ALL_WAYS ((1 << WAYS) - 1)
#define TC_WAYS                                                                                                \
    ((1 << WAY_MMA) | (1 << WAY_WGMMA) | (1 << WAY_WGMMA_NOSPLIT) | (1 << WAY_WGMMA_SPLIT3) | (1 << WAY_WGMMA_256) | \
     (1 << WAY_WGMMA_128) | (1 << WAY_WGMMA_128x64) | (1 << WAY_WGMMA_STAGED) | (1 << WAY_WGMMA_GRID3) | (1 << WAY_WGMMA_UNITS))

static cudaStream_t stream; /* the device calls run on a stream of their own */

/* Reports a CUDA failure of the test itself or of a call (a fault poisons
   the context, so nothing after it can be trusted) and stops. */
static void cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    battery_check(0, "CUDA error at %s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    exit(battery_summary());
}

/* in, in_b, out: A's, B's and C's types (the mixed calls only). */
static gemm_status tc_call(tc_api api, gemm_precision in, gemm_precision in_b, gemm_precision out,
                           const gemm_cuda_options *opt, const battery_call *c, const void *A, const void *B, void *C)
{
    switch (api) {
    case API_SGEMM:
        return gemm_cuda_sgemm(stream, c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, (const float *)A,
                               c->lda, (const float *)B, c->ldb, (float)c->beta, (float *)C, c->ldc, opt);
    case API_SGEMM_HOST:
        return gemm_cuda_sgemm_host(c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, (const float *)A,
                                    c->lda, (const float *)B, c->ldb, (float)c->beta, (float *)C, c->ldc, opt);
    case API_DGEMM:
        return gemm_cuda_dgemm(stream, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, (const double *)A, c->lda,
                               (const double *)B, c->ldb, c->beta, (double *)C, c->ldc, opt);
    case API_DGEMM_HOST:
        return gemm_cuda_dgemm_host(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, (const double *)A, c->lda,
                                    (const double *)B, c->ldb, c->beta, (double *)C, c->ldc, opt);
    case API_MIXED_HOST:
        return gemm_cuda_sgemm_mixed_host(c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, A, in, c->lda, B,
                                          in_b, c->ldb, (float)c->beta, C, out, c->ldc, opt);
    default:
        return gemm_cuda_sgemm_mixed(stream, c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, A, in, c->lda,
                                     B, in_b, c->ldb, (float)c->beta, C, out, c->ldc, opt);
    }
}

/* ---- elements ---- */

static size_t type_size(gemm_precision t) { return t == GEMM_F32 ? sizeof(float) : sizeof(__half); }

/* Stores v rounded to type t as element i; returns the value stored. */
static double type_put(gemm_precision t, void *p, size_t i, double v)
{
    if (t == GEMM_F16) {
        __half h = __float2half_rn((float)v);
        ((__half *)p)[i] = h;
        return __half2float(h);
    }
    if (t == GEMM_BF16) {
        __nv_bfloat16 h = __float2bfloat16_rn((float)v);
        ((__nv_bfloat16 *)p)[i] = h;
        return __bfloat162float(h);
    }
    ((float *)p)[i] = (float)v;
    return (float)v;
}

static double type_get(gemm_precision t, const void *p, size_t i)
{
    if (t == GEMM_F16) return __half2float(((const __half *)p)[i]);
    if (t == GEMM_BF16) return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    return ((const float *)p)[i];
}

/* ---- one matrix of a case ---- */

enum { GUARD = 8 }; /* elements past the end of C, which must not change */

/* `offset` elements before the pointer the call gets (1: not 16-byte
   aligned), `count` it covers, then the guard: the host bytes, their values
   (NaN where poisoned), and a device copy of all of it. */
typedef struct tc_mat {
    gemm_precision type;
    size_t offset, count, total;
    unsigned char *host;
    double *val;
    unsigned char *dev;
} tc_mat;

static tc_mat mat_new(gemm_precision type, size_t count, size_t offset, size_t guard)
{
    tc_mat x;
    x.type = type;
    x.offset = offset;
    x.count = count;
    x.total = offset + count + guard;
    x.host = (unsigned char *)malloc((x.total ? x.total : 1) * type_size(type));
    x.val = (double *)malloc((x.total ? x.total : 1) * sizeof(double));
    x.dev = NULL;
    if (!x.host || !x.val) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
    return x;
}

/* Values in [-1, 1) of the type; tf32: of fp32 with only TF32's 10 mantissa bits. */
static void mat_fill(tc_mat *x, uint64_t *state, int tf32)
{
    size_t i;
    for (i = 0; i < x->total; i++) {
        float f = (float)(2 * battery_uniform(state));
        if (tf32) {
            uint32_t bits;
            memcpy(&bits, &f, 4);
            bits &= 0xffffe000u;
            memcpy(&f, &bits, 4);
        }
        x->val[i] = type_put(x->type, x->host, i, f);
    }
}

static void mat_poison(tc_mat *x) /* all NaN: 0xff bytes are NaN in fp32, fp16 and bf16 */
{
    size_t i;
    memset(x->host, 0xff, x->total * type_size(x->type));
    for (i = 0; i < x->total; i++) x->val[i] = NAN;
}

static void mat_upload(tc_mat *x)
{
    size_t bytes = x->total * type_size(x->type);
    if (!x->dev) cuda_ok(cudaMalloc((void **)&x->dev, bytes ? bytes : 16), "cudaMalloc");
    cuda_ok(cudaMemcpy(x->dev, x->host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

static double mat_max_abs(const tc_mat *x) /* NaN is skipped: it stands for "not read" */
{
    double mx = 0;
    size_t i;
    for (i = 0; i < x->total; i++)
        if (fabs(x->val[i]) > mx) mx = fabs(x->val[i]);
    return mx;
}

static void mat_free(tc_mat *x)
{
    free(x->host);
    free(x->val);
    if (x->dev) cudaFree(x->dev);
}

/* ---- the reference ---- */

/* Storage index of element (r, q) of op(X). */
static size_t op_index(gemm_layout layout, gemm_transpose t, int64_t r, int64_t q, int64_t ld)
{
    int64_t row = t == GEMM_NO_TRANS ? r : q, col = t == GEMM_NO_TRANS ? q : r;
    return (size_t)(layout == GEMM_ROW_MAJOR ? row * ld + col : row + col * ld);
}

typedef struct ref_job {
    const battery_call *c;
    const double *a, *b; /* op(A) as m rows of k, op(B)^T as n rows of k; NULL when not read */
    const double *C0;
    double *R;
} ref_job;

static void ref_rows(const ref_job *job, int64_t i0, int64_t i1)
{
    const battery_call *c = job->c;
    int64_t i, j, p;
    for (i = i0; i < i1; i++)
        for (j = 0; j < c->n; j++) {
            size_t at = op_index(c->layout, GEMM_NO_TRANS, i, j, c->ldc);
            double s[4] = {0, 0, 0, 0}, ab = 0;
            if (job->a) {
                const double *a = job->a + i * c->k, *b = job->b + j * c->k;
                for (p = 0; p + 4 <= c->k; p += 4) /* four sums: the loop is not bound by one add's latency */
                    for (int q = 0; q < 4; q++) s[q] += a[p + q] * b[p + q];
                for (; p < c->k; p++) s[0] += a[p] * b[p];
                ab = c->alpha * ((s[0] + s[1]) + (s[2] + s[3]));
            }
            job->R[at] = c->beta == 0 ? ab : ab + c->beta * job->C0[at];
        }
}

/* R = the expected contents of C's storage (C0 outside the window); the
   rows of C are spread over the host's cores for the larger shapes. */
static void reference(const battery_call *c, const double *A, const double *B, const double *C0, double *R,
                      size_t count)
{
    ref_job job = {c, NULL, NULL, C0, R};
    double *a = NULL, *b = NULL;
    unsigned threads = std::thread::hardware_concurrency(), t;
    int64_t i, p;
    memcpy(R, C0, count * sizeof(double));
    if (c->m == 0 || c->n == 0) return;
    if (c->alpha != 0 && c->k > 0) {
        a = (double *)malloc(sizeof(double) * (size_t)(c->m * c->k));
        b = (double *)malloc(sizeof(double) * (size_t)(c->n * c->k));
        if (!a || !b) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
        for (i = 0; i < c->m; i++)
            for (p = 0; p < c->k; p++) a[i * c->k + p] = A[op_index(c->layout, c->ta, i, p, c->lda)];
        for (i = 0; i < c->n; i++)
            for (p = 0; p < c->k; p++) b[i * c->k + p] = B[op_index(c->layout, c->tb, p, i, c->ldb)];
        job.a = a;
        job.b = b;
    }
    if (threads < 1 || (double)c->m * (double)c->n * (double)c->k < 4e6) threads = 1;
    if (threads > 64) threads = 64;
    if (threads > (unsigned)c->m) threads = (unsigned)c->m;
    if (threads == 1) ref_rows(&job, 0, c->m);
    else {
        std::thread pool[64];
        for (t = 0; t < threads; t++) pool[t] = std::thread(ref_rows, &job, c->m * t / threads, c->m * (t + 1) / threads);
        for (t = 0; t < threads; t++) pool[t].join();
    }
    free(a);
    free(b);
}

/* ---- one case: data, reference, and its runs ---- */

enum { NULL_A = 1, NULL_B = 2, NULL_C = 4 };

typedef struct tc_case {
    battery_call c;
    uint64_t seed;
    tc_mat A, B, C; /* C.host and C.val: C before the call */
    double *ref;    /* the expected C storage (C.count elements from C.offset) */
    double maxA, maxB, maxC0;
    int nulls;      /* NULL_*: pointers passed as NULL */
    int untouched;  /* C must come back byte for byte */
} tc_case;

/* Sets up a case for `call`: A and B random (or all NaN: `poison_ab`), C
   random (all NaN when beta == 0); offsets in elements. */
static void case_new(tc_case *t, const tc_mode *md, const battery_call *call, uint64_t seed, int off_a, int off_b,
                     int off_c, int poison_ab)
{
    const battery_call *c = &t->c;
    uint64_t state = seed;
    memset(t, 0, sizeof *t);
    t->c = *call;
    t->seed = seed;
    t->A = mat_new(md->in, battery_extent(c->layout, c->ta == GEMM_NO_TRANS ? c->m : c->k,
                                          c->ta == GEMM_NO_TRANS ? c->k : c->m, c->lda), (size_t)off_a, 0);
    t->B = mat_new(md->in, battery_extent(c->layout, c->tb == GEMM_NO_TRANS ? c->k : c->n,
                                          c->tb == GEMM_NO_TRANS ? c->n : c->k, c->ldb), (size_t)off_b, 0);
    t->C = mat_new(md->out, battery_extent(c->layout, c->m, c->n, c->ldc), (size_t)off_c, GUARD);
    if (poison_ab) { mat_poison(&t->A); mat_poison(&t->B); }
    else { mat_fill(&t->A, &state, md->tf32_inputs); mat_fill(&t->B, &state, md->tf32_inputs); }
    if (c->beta == 0) mat_poison(&t->C);
    else mat_fill(&t->C, &state, 0);
    t->maxA = mat_max_abs(&t->A);
    t->maxB = mat_max_abs(&t->B);
    t->maxC0 = c->beta == 0 ? 0 : mat_max_abs(&t->C);
    t->ref = (double *)malloc((t->C.count ? t->C.count : 1) * sizeof(double));
    if (!t->ref) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
    reference(c, t->A.val + t->A.offset, t->B.val + t->B.offset, t->C.val + t->C.offset, t->ref, t->C.count);
    mat_upload(&t->A);
    mat_upload(&t->B);
}

static void case_free(tc_case *t)
{
    mat_free(&t->A);
    mat_free(&t->B);
    mat_free(&t->C);
    free(t->ref);
}

static double case_tol(const tc_mode *md, const tc_case *t, double ref)
{
    double ab = fabs(t->c.alpha) * t->maxA * t->maxB, bc = fabs(t->c.beta) * t->maxC0, k = (double)t->c.k;
    return 4 * (md->u_in * sqrt(k) + 0x1p-23 * k) * ab + 0x1p-22 * bc + md->u_out * (fabs(ref) + bc) + md->tiny_out;
}

/* Checks C as it came back (all of C.total): inside the window within the
   tolerance, everything else (and everything, when t->untouched) byte for
   byte as before. Returns 1 when it passed; `why` describes the worst element. */
static int case_compare(const tc_mode *md, const tc_case *t, const unsigned char *got, char *why, size_t size)
{
    const battery_call *c = &t->c;
    size_t e, elem = type_size(md->out);
    double worst = 0; /* err / tol */
    snprintf(why, size, "max err/tol 0");
    for (e = 0; e < t->C.total; e++) {
        size_t idx = e - t->C.offset;
        int64_t outer = (int64_t)idx / c->ldc, inner = (int64_t)idx % c->ldc, i, j;
        int inside = e >= t->C.offset && idx < t->C.count &&
                     (c->layout == GEMM_ROW_MAJOR ? outer < c->m && inner < c->n : outer < c->n && inner < c->m);
        if (!inside || t->untouched) {
            if (memcmp(got + e * elem, t->C.host + e * elem, elem) != 0) {
                snprintf(why, size, "element %zu of the buffer (%s) changed: %g, was %g", e,
                         inside ? "C must stay untouched" : "outside the window", type_get(md->out, got, e),
                         t->C.val[e]);
                return 0;
            }
            continue;
        }
        {
            double g = type_get(md->out, got, e), w = t->ref[idx], tol = case_tol(md, t, w), d = fabs(g - w);
            i = c->layout == GEMM_ROW_MAJOR ? outer : inner;
            j = c->layout == GEMM_ROW_MAJOR ? inner : outer;
            if (!(d <= tol)) {
                snprintf(why, size, "C(%lld,%lld) = %.9g, want %.9g: err %.3g > tol %.3g", (long long)i, (long long)j,
                         g, w, d, tol);
                return 0;
            }
            if (d / tol > worst) {
                worst = d / tol;
                snprintf(why, size, "max err/tol %.3f at C(%lld,%lld)", worst, (long long)i, (long long)j);
            }
        }
    }
    return 1;
}

/* One call of the case on the device (C as before, the call, a full
   synchronisation) or through the host-pointer call; all of C comes back
   in `got`. */
static gemm_status case_call(const tc_mode *md, const gemm_cuda_options *opt, int host, tc_case *t, unsigned char *got)
{
    size_t bytes = t->C.total * type_size(md->out);
    const void *A, *B;
    void *C;
    gemm_status s;
    memcpy(got, t->C.host, bytes);
    if (host) {
        A = t->A.host + t->A.offset * type_size(md->in);
        B = t->B.host + t->B.offset * type_size(md->in);
        C = got + t->C.offset * type_size(md->out);
    } else {
        mat_upload(&t->C); /* C as before, whatever the last call left there */
        cuda_ok(cudaDeviceSynchronize(), "the copies before the call");
        A = t->A.dev + t->A.offset * type_size(md->in);
        B = t->B.dev + t->B.offset * type_size(md->in);
        C = t->C.dev + t->C.offset * type_size(md->out);
    }
    s = tc_call(host ? (md->api == API_SGEMM ? API_SGEMM_HOST : API_MIXED_HOST) : md->api, md->in, md->in, md->out,
                opt, &t->c, t->nulls & NULL_A ? NULL : A, t->nulls & NULL_B ? NULL : B, t->nulls & NULL_C ? NULL : C);
    cuda_ok(cudaDeviceSynchronize(), "the synchronisation after the call");
    if (!host) cuda_ok(cudaMemcpy(got, t->C.dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy of C back");
    return s;
}

/* Runs the case one way and checks C; `repeat`: a second run must give the
   same bytes (split-K adds its parts in a fixed order). */
static void case_run(const tc_mode *md, int way, tc_case *t, const char *label, int repeat)
{
    static const char *mode_names[3] = {" pageable", " pinned", " mapped"};
    size_t bytes = t->C.total * type_size(md->out);
    unsigned char *got = (unsigned char *)malloc(bytes ? bytes : 1), *again = (unsigned char *)malloc(bytes ? bytes : 1);
    gemm_cuda_options opt;
    int host = way == WAY_HOST, ok;
    gemm_status s;
    char desc[256], why[256], name[128];
    if (!got || !again) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
    memset(&opt, 0, sizeof opt);
    opt.kernel = tc_ways[way].kernel;
    opt.split_k = tc_ways[way].split_k;
    opt.variant = tc_ways[way].variant;
    opt.math = md->math;
    gemm__test_hooks()->cuda_wgmma_group = tc_ways[way].group;
    gemm__test_hooks()->cuda_wgmma_grid = tc_ways[way].grid;
    gemm__test_hooks()->cuda_wgmma_epilogue = tc_ways[way].epilogue;
    gemm__test_hooks()->cuda_wgmma_reduce = tc_ways[way].reduce;
    if (host) opt.mode = (gemm_cuda_mode)(t->seed % 3);
    snprintf(name, sizeof name, "tc %s %s%s%s", md->name, tc_ways[way].name, host ? mode_names[opt.mode] : "", label);
    battery_call_str(&t->c, desc, sizeof desc);
    s = case_call(md, &opt, host, t, got);
    ok = s == GEMM_OK && case_compare(md, t, got, why, sizeof why);
    battery_check(ok, "%s %s offsets A%d B%d C%d seed=%llu: status %d: %s", name, desc, (int)t->A.offset,
                  (int)t->B.offset, (int)t->C.offset, (unsigned long long)t->seed, (int)s,
                  s == GEMM_OK ? why : gemm_last_error_detail());
    if (ok && repeat) {
        s = case_call(md, &opt, host, t, again);
        ok = s == GEMM_OK && memcmp(got, again, bytes) == 0;
        battery_check(ok, "%s %s seed=%llu: a second run gives the same bytes (status %d)", name, desc,
                      (unsigned long long)t->seed, (int)s);
    }
    gemm__test_hooks()->cuda_wgmma_group = gemm__test_hooks()->cuda_wgmma_grid = 0;
    gemm__test_hooks()->cuda_wgmma_epilogue = gemm__test_hooks()->cuda_wgmma_reduce = 0;
    way_runs[way]++;
    if (!ok) way_failures[way]++;
    free(got);
    free(again);
}

/* Runs a case every way in `ways` that can run it here. */
static void case_run_ways(const tc_mode *md, tc_case *t, int ways, const char *label, int repeat)
{
    int w;
    for (w = 0; w < WAYS; w++)
        if ((ways >> w & 1) && !way_missing[w])
            case_run(md, w, t, label, repeat);
}

/* ---- the case lists ---- */

static int small_run; /* GEMM_CUDA_TEST_SMALL */

/* Layout and transposes of combination 0..7: row NN, row NT, ..., col TT. */
static void set_combo(battery_call *c, int combo)
{
    c->layout = battery_layouts[combo >> 2];
    c->ta = battery_transposes[combo >> 1 & 1];
    c->tb = battery_transposes[combo & 1];
}

static uint64_t mode_seed(const tc_mode *md) { return battery_base_seed() * 1000003ull + (uint64_t)(md - tc_modes) * 7919ull; }

static int64_t random_dim(uint64_t *state, int64_t max)
{
    static const int64_t edges[] = {1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 255, 256, 257};
    int64_t d;
    do d = battery_below(state, 2) ? 1 + battery_below(state, max)
                                   : edges[battery_below(state, (int64_t)(sizeof edges / sizeof edges[0]))];
    while (d > max);
    return d;
}

static int64_t random_ld(uint64_t *state, int64_t ld)
{
    switch (battery_below(state, 4)) {
    case 0: return ld + 1 + battery_below(state, 17); /* often odd: the operand copy */
    case 1: return (ld + 7) / 8 * 8 + 8;               /* padded, rows still 16-byte aligned */
    default: return ld;
    }
}

static void tc_random(const tc_mode *md)
{
    int64_t max = small_run ? 80 : 300;
    int cases = small_run ? 1 : 24, combo, i;
    for (combo = 0; combo < 8; combo++)
        for (i = 0; i < cases; i++) {
            uint64_t seed = mode_seed(md) + (uint64_t)(combo * cases + i), state = seed * 31 + 1;
            int shape = (int)battery_below(&state, 8);
            battery_call c;
            tc_case t;
            set_combo(&c, combo);
            c.m = random_dim(&state, max);
            c.n = random_dim(&state, max);
            c.k = random_dim(&state, max);
            if (shape == 0) { c.m = max; c.n = 1 + battery_below(&state, 4); }      /* tall-skinny */
            else if (shape == 1) { c.n = max; c.m = 1 + battery_below(&state, 4); } /* short-wide */
            c.alpha = (float)battery_random_scalar(&state); /* the call takes floats */
            c.beta = (float)battery_random_scalar(&state);
            battery_min_lds(&c);
            c.lda = random_ld(&state, c.lda);
            c.ldb = random_ld(&state, c.ldb);
            c.ldc = random_ld(&state, c.ldc);
            case_new(&t, md, &c, seed, battery_below(&state, 4) == 0, battery_below(&state, 4) == 0,
                     battery_below(&state, 4) == 0, 0);
            case_run_ways(md, &t, ALL_WAYS, "", 0);
            case_free(&t);
        }
}

static void tc_edges(const tc_mode *md)
{
    int combo, v;
    for (combo = 0; combo < 8; combo += small_run ? 7 : 1) /* small: row NN and col TT */
        for (v = 0; v < 10; v++) {
            static const char *labels[10] = {" beta=0 over NaN", " alpha=0, A B NaN", " k=0, A B NaN",
                                             " m=0: untouched", " n=0: untouched", " alpha=0 beta=1: untouched",
                                             " NULL A B C, alpha=0 beta=1", " NULL A B, alpha=0",
                                             " NULL A B, k=0", " NULL A B C, m=0"};
            battery_call c;
            tc_case t;
            int poison = v == 1 || v == 2, nulls = 0, untouched = 0;
            set_combo(&c, combo);
            c.m = 37; c.n = 29; c.k = 19;
            c.alpha = 1.5; c.beta = 0;
            switch (v) {
            case 1: c.alpha = 0; c.beta = -0.75; break;
            case 2: c.k = 0; c.alpha = 2; c.beta = 0.5; break;
            case 3: c.m = 0; c.beta = 0.5; untouched = 1; break;
            case 4: c.n = 0; c.beta = 0.5; untouched = 1; break;
            case 5: c.alpha = 0; c.beta = 1; untouched = 1; break;
            case 6: c.alpha = 0; c.beta = 1; nulls = NULL_A | NULL_B | NULL_C; untouched = 1; break;
            case 7: c.alpha = 0; c.beta = 2; nulls = NULL_A | NULL_B; break;
            case 8: c.k = 0; c.beta = -1; nulls = NULL_A | NULL_B; break;
            case 9: c.m = 0; nulls = NULL_A | NULL_B | NULL_C; untouched = 1; break;
            }
            battery_min_lds(&c);
            case_new(&t, md, &c, mode_seed(md) + 100000u + (uint64_t)(combo * 10 + v), 0, 0, combo & 1, poison);
            t.nulls = nulls;
            t.untouched = untouched;
            if (v == 5 && t.C.count) { /* NaN must survive: C is not touched at all */
                t.C.val[t.C.offset] = type_put(md->out, t.C.host, t.C.offset, NAN);
            }
            case_run_ways(md, &t, ALL_WAYS, labels[v], 0);
            case_free(&t);
        }
}

/* Shapes past the random ones: several block tiles, many K tiles. */
static void tc_larger(const tc_mode *md)
{
    static const int64_t big[][3] = {{1000, 1000, 1000}, {300, 520, 1111}, {2049, 63, 517}, {64, 64, 4099}};
    static const int64_t small_shape[][3] = {{300, 260, 200}}; /* past 256x128 either way round; 4 K tiles of 64 */
    const int64_t(*shapes)[3] = small_run ? small_shape : big;
    int si, combo, count = small_run ? 1 : 4;
    for (si = 0; si < count; si++)
        for (combo = 0; combo < 8; combo++) {
            battery_call c;
            tc_case t;
            /* small: row NN (B is copied k-major) and col TN (both read in place) */
            if (small_run && combo != 0 && combo != 6) continue;
            set_combo(&c, combo);
            c.m = shapes[si][0]; c.n = shapes[si][1]; c.k = shapes[si][2];
            c.alpha = 0.75; c.beta = (si + combo) % 2 ? -0.5 : 0.0;
            battery_min_lds(&c);
            if (combo & 1) { c.lda += 3; c.ldb += 1; c.ldc += 5; } /* odd: the operand copy */
            case_new(&t, md, &c, mode_seed(md) + 200000u + (uint64_t)(si * 8 + combo), combo >> 1 & 1, 0, combo >> 1 & 1, 0);
            case_run_ways(md, &t, TC_WAYS, " larger", 1);
            case_free(&t);
        }
}

/* A K split in 3 on WGMMA, summed by the part that finishes last, gives
   the bytes of the separate sum kernel (both add the parts in part order),
   with every epilogue, with and without beta, both block heights. */
static void tc_reductions(const tc_mode *md)
{
    int before = battery_failed, runs = 0;
    if (way_missing[WAY_WGMMA]) return; /* counted as skipped with the mode's WGMMA ways */
    for (int v = 0; v < 4; v++) {
        battery_call c;
        tc_case t;
        unsigned char *got[2];
        gemm_status st[2];
        gemm_cuda_options opt;
        size_t bytes;
        char why[256] = "not compared";
        set_combo(&c, v == 3 ? 5 : 0);
        c.m = small_run ? 300 : 520; c.n = 260; c.k = small_run ? 200 : 1111;
        c.alpha = 0.75; c.beta = v % 2 ? -0.5 : 0.0;
        battery_min_lds(&c);
        case_new(&t, md, &c, mode_seed(md) + 300000u + (uint64_t)v, 0, 0, 0, 0);
        bytes = t.C.total * type_size(md->out);
        memset(&opt, 0, sizeof opt);
        opt.kernel = GEMM_CUDA_KERNEL_WGMMA;
        opt.math = md->math;
        opt.split_k = 3;
        opt.variant = v == 2 ? 2 : 0;
        for (int r = 0; r < 2; r++) {
            got[r] = (unsigned char *)malloc(bytes ? bytes : 1);
            if (!got[r]) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
            gemm__test_hooks()->cuda_wgmma_reduce = r == 0 ? 1 : 2;
            /* the sum kernel's parts written by the copy engine (where M allows) or staged; the last part's
               sum after the direct or the staged epilogue */
            gemm__test_hooks()->cuda_wgmma_epilogue = v == 1 ? 1 : r == 0 ? 3 : 2;
            st[r] = case_call(md, &opt, 0, &t, got[r]);
        }
        gemm__test_hooks()->cuda_wgmma_reduce = gemm__test_hooks()->cuda_wgmma_epilogue = 0;
        battery_check(st[0] == GEMM_OK && st[1] == GEMM_OK && case_compare(md, &t, got[1], why, sizeof why) &&
                          memcmp(got[0], got[1], bytes) == 0,
                      "tc %s wgmma split_k=3: the last part's sum is right (%s) and gives the sum kernel's bytes "
                      "(%lldx%lldx%lld, beta %g, variant %d, epilogue %s; status %d %d)", md->name, why,
                      (long long)c.m, (long long)c.n, (long long)c.k, c.beta, opt.variant,
                      v == 1 ? "staged" : "copy engine / direct", (int)st[0], (int)st[1]);
        runs++;
        free(got[0]); free(got[1]);
        case_free(&t);
    }
    printf("== tc %s wgmma split-K sums (%d cases): %s\n", md->name, runs,
           battery_failed == before ? "the same bytes both ways" : "FAILURES above");
}

/* The copy engine's epilogue (the default where beta == 0 on 256-row
   tiles with K whole and C's columns 16-byte aligned) gives the staged
   epilogue's bytes: tiles cut at C's edges in both directions, C's columns
   padded, both layouts; rows that end inside a 16-byte unit (131, 261:
   the copy engine writes up to the last whole one, the kernel the rest;
   nothing past C's window is written). */
static void tc_epilogues(const tc_mode *md)
{
    static const int64_t shapes[][4] = {{264, 136, 200, 0}, {520, 260, 1111, 8}, {64, 16, 24, 0},
                                        {776, 40, 72, 24},  {261, 131, 72, 5},   {261, 131, 300, 11}};
    int before = battery_failed, runs = 0;
    if (way_missing[WAY_WGMMA]) return; /* counted as skipped with the mode's WGMMA ways */
    for (int v = 0; v < 12; v++) {
        battery_call c;
        tc_case t;
        unsigned char *got[2];
        gemm_status st[2];
        gemm_cuda_options opt;
        size_t bytes;
        char why[256] = "not compared";
        set_combo(&c, v % 2 ? 5 : 0);
        c.m = shapes[v / 2][0]; c.n = shapes[v / 2][1]; c.k = shapes[v / 2][2];
        c.alpha = 0.75; c.beta = 0.0;
        battery_min_lds(&c);
        if (c.layout == GEMM_COL_MAJOR) c.ldc = c.m + shapes[v / 2][3];
        else c.ldc = c.n + shapes[v / 2][3];
        case_new(&t, md, &c, mode_seed(md) + 310000u + (uint64_t)v, 0, 0, 0, 0);
        bytes = t.C.total * type_size(md->out);
        memset(&opt, 0, sizeof opt);
        opt.kernel = GEMM_CUDA_KERNEL_WGMMA;
        opt.math = md->math;
        opt.split_k = 1;
        opt.variant = 1;
        for (int r = 0; r < 2; r++) {
            got[r] = (unsigned char *)malloc(bytes ? bytes : 1);
            if (!got[r]) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
            gemm__test_hooks()->cuda_wgmma_epilogue = r == 0 ? 1 : 3;
            st[r] = case_call(md, &opt, 0, &t, got[r]);
        }
        gemm__test_hooks()->cuda_wgmma_epilogue = 0;
        battery_check(st[0] == GEMM_OK && st[1] == GEMM_OK && case_compare(md, &t, got[1], why, sizeof why) &&
                          memcmp(got[0], got[1], bytes) == 0,
                      "tc %s wgmma: the copy engine's epilogue is right (%s) and gives the staged one's bytes "
                      "(%lldx%lldx%lld, ldc %lld, %s; status %d %d)", md->name, why, (long long)c.m, (long long)c.n,
                      (long long)c.k, (long long)c.ldc, c.layout == GEMM_COL_MAJOR ? "column-major" : "row-major",
                      (int)st[0], (int)st[1]);
        runs++;
        free(got[0]); free(got[1]);
        case_free(&t);
    }
    printf("== tc %s wgmma epilogues (%d cases): %s\n", md->name, runs,
           battery_failed == before ? "the same bytes both ways" : "FAILURES above");
}

/* ---- refusals ---- */

/* One call that must return `want` (with a detail when it is an error) and
   leave C byte for byte as it was. The buffers are 64x64 fp64 elements, so
   any type fits; `host_ptrs` (NULL_* bits) passes host memory to a device
   call, `nulls` passes NULL; in, in_b, out: A's, B's, C's types. */
static void refused(const char *mode, const char *what, tc_api api, gemm_precision in, gemm_precision in_b,
                    gemm_precision out, const gemm_cuda_options *opt, const battery_call *c, int nulls, int host_ptrs, gemm_status want)
{
    enum { BYTES = 64 * 64 * 8 };
    int host_api = api == API_SGEMM_HOST || api == API_DGEMM_HOST || api == API_MIXED_HOST, i, ok;
    unsigned char *h[3], *d[3] = {NULL, NULL, NULL}, before[BYTES], after[BYTES];
    const void *p[3];
    uint64_t state = 99;
    gemm_status s;
    char desc[256];
    for (i = 0; i < 3; i++) {
        size_t b;
        h[i] = (unsigned char *)malloc(BYTES);
        if (!h[i]) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
        for (b = 0; b < BYTES; b += 4) { /* floats in [-0.5, 0.5): finite in every type */
            float f = (float)battery_uniform(&state);
            memcpy(h[i] + b, &f, 4);
        }
        if (!host_api) {
            cuda_ok(cudaMalloc((void **)&d[i], BYTES), "cudaMalloc");
            cuda_ok(cudaMemcpy(d[i], h[i], BYTES, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
        }
        p[i] = nulls >> i & 1 ? NULL : host_api || (host_ptrs >> i & 1) ? (const void *)h[i] : (const void *)d[i];
    }
    memcpy(before, h[2], BYTES);
    s = tc_call(api, in, in_b, out, opt, c, p[0], p[1], (void *)p[2]);
    cuda_ok(cudaDeviceSynchronize(), "the synchronisation after the call");
    if (host_api || (host_ptrs & NULL_C)) memcpy(after, h[2], BYTES);
    else cuda_ok(cudaMemcpy(after, d[2], BYTES, cudaMemcpyDeviceToHost), "cudaMemcpy of C back");
    ok = s == want && memcmp(before, after, BYTES) == 0 && (want == GEMM_OK || gemm_last_error_detail()[0] != '\0');
    battery_check(ok, "tc %s refuses %s with %s, C unchanged: %s -> status %d \"%s\"", mode, what,
                  gemm_strerror(want), battery_call_str(c, desc, sizeof desc), (int)s, gemm_last_error_detail());
    for (i = 0; i < 3; i++) {
        free(h[i]);
        if (d[i]) cudaFree(d[i]);
    }
}

static battery_call valid_call(int combo)
{
    battery_call c;
    set_combo(&c, combo);
    c.m = 7; c.n = 5; c.k = 3; /* all different, so every ld check is distinct */
    c.alpha = 1; c.beta = 0.5;
    battery_min_lds(&c);
    return c;
}

/* The CBLAS checks, host pointers and kernel choices, for one mode. */
static void tc_invalid(const tc_mode *md)
{
    static const gemm_cuda_kernel not_tc[] = {GEMM_CUDA_KERNEL_TILED16, GEMM_CUDA_KERNEL_SIMT, GEMM_CUDA_KERNEL_DMMA,
                                              (gemm_cuda_kernel)99};
    gemm_cuda_options opt;
    battery_call c = valid_call(0), v;
    int combo, i, before = battery_failed;
    memset(&opt, 0, sizeof opt);
    opt.math = md->math;
#define REFUSED(what, call, nulls, host_ptrs, want) \
    refused(md->name, what, md->api, md->in, md->in, md->out, &opt, call, nulls, host_ptrs, want)
    for (combo = 0; combo < 8; combo++) {
        c = valid_call(combo);
        v = c; v.m = -1; REFUSED("m < 0", &v, 0, 0, GEMM_ERR_INVALID_ARG);
        v = c; v.n = -1; REFUSED("n < 0", &v, 0, 0, GEMM_ERR_INVALID_ARG);
        v = c; v.k = -1; REFUSED("k < 0", &v, 0, 0, GEMM_ERR_INVALID_ARG);
        v = c; v.lda -= 1; REFUSED("lda too small", &v, 0, 0, GEMM_ERR_INVALID_ARG);
        v = c; v.ldb -= 1; REFUSED("ldb too small", &v, 0, 0, GEMM_ERR_INVALID_ARG);
        v = c; v.ldc -= 1; REFUSED("ldc too small", &v, 0, 0, GEMM_ERR_INVALID_ARG);
        v = c; v.m = 0; v.lda = 0; REFUSED("lda = 0 with m = 0", &v, 0, 0, GEMM_ERR_INVALID_ARG);
        REFUSED("NULL A", &c, NULL_A, 0, GEMM_ERR_INVALID_ARG);
        REFUSED("NULL B", &c, NULL_B, 0, GEMM_ERR_INVALID_ARG);
        REFUSED("NULL C", &c, NULL_C, 0, GEMM_ERR_INVALID_ARG);
        v = c; v.alpha = 0; REFUSED("NULL C with alpha = 0, beta != 1", &v, NULL_C, 0, GEMM_ERR_INVALID_ARG);
    }
    c = valid_call(0);
    v = c; v.layout = (gemm_layout)0; REFUSED("layout 0", &v, 0, 0, GEMM_ERR_INVALID_ARG);
    v = c; v.layout = (gemm_layout)103; REFUSED("layout 103", &v, 0, 0, GEMM_ERR_INVALID_ARG);
    v = c; v.ta = (gemm_transpose)0; REFUSED("transa 0", &v, 0, 0, GEMM_ERR_INVALID_ARG);
    v = c; v.tb = (gemm_transpose)114; REFUSED("transb 114", &v, 0, 0, GEMM_ERR_INVALID_ARG); /* 113 is CONJ_TRANS */
    REFUSED("a host pointer for A", &c, 0, NULL_A, GEMM_ERR_INVALID_ARG);
    REFUSED("a host pointer for B", &c, 0, NULL_B, GEMM_ERR_INVALID_ARG);
    REFUSED("a host pointer for C", &c, 0, NULL_C, GEMM_ERR_INVALID_ARG);
    opt.variant = 4; REFUSED("options.variant = 4", &c, 0, 0, GEMM_ERR_INVALID_ARG);
    opt.variant = 0;
    for (i = 0; i < 4; i++) {
        char what[64];
        opt.kernel = not_tc[i];
        snprintf(what, sizeof what, "options.kernel = %s (%d)", gemm_cuda_kernel_name(not_tc[i]), (int)not_tc[i]);
        REFUSED(what, &c, 0, 0, GEMM_ERR_INVALID_ARG);
    }
    /* A kernel this device or build lacks is refused by name, not run. */
    for (i = WAY_MMA; i <= WAY_WGMMA; i++)
        if (way_missing[i]) {
            opt.kernel = tc_ways[i].kernel;
            REFUSED(i == WAY_MMA ? "options.kernel = mma, missing here" : "options.kernel = wgmma, missing here", &c, 0,
                    0, GEMM_ERR_UNAVAILABLE);
        }
#undef REFUSED
    printf("== tc %s refusals: %s\n", md->name, battery_failed == before ? "all passed" : "FAILURES above");
}

/* Refusals that belong to no single mode. */
static void tc_api_checks(void)
{
    /* A's, B's and C's types; (gemm_precision)5: one past the last precision */
    static const gemm_precision triples[][3] = {
        {GEMM_F32, GEMM_F32, GEMM_F32}, {GEMM_F32, GEMM_F32, GEMM_F16}, {GEMM_F16, GEMM_F16, GEMM_BF16},
        {GEMM_BF16, GEMM_BF16, GEMM_F16}, {GEMM_F16, GEMM_F16, (gemm_precision)5},
        {(gemm_precision)-1, (gemm_precision)-1, GEMM_F32}, {(gemm_precision)7, (gemm_precision)7, GEMM_F16},
        {GEMM_F16, GEMM_BF16, GEMM_F32}, {GEMM_F64, GEMM_F64, GEMM_F64}};
    static const gemm_cuda_kernel tc_kernels[2] = {GEMM_CUDA_KERNEL_MMA, GEMM_CUDA_KERNEL_WGMMA};
    battery_call c = valid_call(0);
    gemm_cuda_options opt;
    int i, before = battery_failed;
    char what[96];
    memset(&opt, 0, sizeof opt);
    for (i = 0; i < (int)(sizeof triples / sizeof triples[0]); i++) {
        const gemm_precision *t = triples[i];
        snprintf(what, sizeof what, "A, B, C types %d, %d, %d", (int)t[0], (int)t[1], (int)t[2]);
        refused("sgemm_mixed", what, API_MIXED, t[0], t[1], t[2], &opt, &c, 0, 0, GEMM_ERR_INVALID_ARG);
        refused("sgemm_mixed_host", what, API_MIXED_HOST, t[0], t[1], t[2], &opt, &c, 0, 0, GEMM_ERR_INVALID_ARG);
    }
    for (i = 0; i < 2; i++) {
        opt.kernel = tc_kernels[i];
        snprintf(what, sizeof what, "options.kernel = %s", gemm_cuda_kernel_name(tc_kernels[i]));
        refused("sgemm exact", what, API_SGEMM, GEMM_F32, GEMM_F32, GEMM_F32, &opt, &c, 0, 0, GEMM_ERR_INVALID_ARG);
        refused("sgemm_host exact", what, API_SGEMM_HOST, GEMM_F32, GEMM_F32, GEMM_F32, &opt, &c, 0, 0,
                GEMM_ERR_INVALID_ARG);
        refused("dgemm", what, API_DGEMM, GEMM_F64, GEMM_F64, GEMM_F64, &opt, &c, 0, 0, GEMM_ERR_INVALID_ARG);
    }
    memset(&opt, 0, sizeof opt);
    opt.math = GEMM_CUDA_MATH_TF32;
    refused("dgemm", "options.math = TF32", API_DGEMM, GEMM_F64, GEMM_F64, GEMM_F64, &opt, &c, 0, 0,
            GEMM_ERR_INVALID_ARG);
    refused("dgemm_host", "options.math = TF32", API_DGEMM_HOST, GEMM_F64, GEMM_F64, GEMM_F64, &opt, &c, 0, 0,
            GEMM_ERR_INVALID_ARG);
    opt.math = GEMM_CUDA_MATH_FP32_ACCURATE;
    refused("dgemm", "options.math = FP32_ACCURATE", API_DGEMM, GEMM_F64, GEMM_F64, GEMM_F64, &opt, &c, 0, 0,
            GEMM_ERR_INVALID_ARG);
    refused("dgemm_host", "options.math = FP32_ACCURATE", API_DGEMM_HOST, GEMM_F64, GEMM_F64, GEMM_F64, &opt, &c, 0,
            0, GEMM_ERR_INVALID_ARG);
    opt.math = (gemm_cuda_math)3;
    refused("sgemm", "options.math = 3", API_SGEMM, GEMM_F32, GEMM_F32, GEMM_F32, &opt, &c, 0, 0,
            GEMM_ERR_INVALID_ARG);
    battery_check(!strcmp(gemm_cuda_kernel_name(GEMM_CUDA_KERNEL_MMA), "mma") &&
                      !strcmp(gemm_cuda_kernel_name(GEMM_CUDA_KERNEL_WGMMA), "wgmma"),
                  "tc: kernel names mma and wgmma");
    printf("== tc api refusals: %s\n", battery_failed == before ? "all passed" : "FAILURES above");
}

/* ---- the fp32-accurate mode's promise ---- */

/* C = A*B, row-major NN (ta: A stored transposed, k x m), on the device
   with `math` and `kernel`; returns the status, C in `out`. */
static gemm_status acc_run(gemm_cuda_math math, int way, int ta, int64_t m, int64_t n, int64_t k, const float *dA,
                           const float *dB, float *dC, float *out)
{
    gemm_cuda_options opt;
    gemm_status s;
    memset(&opt, 0, sizeof opt);
    opt.math = math;
    opt.kernel = tc_ways[way].kernel;
    /* the exact kernel: a plain fp32 product, one sum along all of K */
    opt.split_k = math == GEMM_CUDA_MATH_EXACT ? 1 : tc_ways[way].split_k;
    cuda_ok(cudaMemset(dC, 0xff, (size_t)(m * n) * sizeof(float)), "cudaMemset of C");
    s = gemm_cuda_sgemm(stream, GEMM_ROW_MAJOR, ta ? GEMM_TRANS : GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0f, dA,
                        ta ? m : k, dB, n, 0.0f, dC, n, &opt);
    cuda_ok(cudaDeviceSynchronize(), "the synchronisation after the call");
    cuda_ok(cudaMemcpy(out, dC, (size_t)(m * n) * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy of C back");
    return s;
}

/* op(A) (m x k) and B (k x n) of fp32 values -> the fp64 product, and the
   sum of |a||b| per element (the scale of its rounding errors). */
static void acc_reference(int ta, int64_t m, int64_t n, int64_t k, const float *A, const float *B, double *R,
                          double *scale)
{
    battery_call c;
    double *a = (double *)malloc(sizeof(double) * (size_t)(m * k)), *b = (double *)malloc(sizeof(double) * (size_t)(k * n));
    double *c0 = (double *)calloc((size_t)(m * n), sizeof(double));
    int pass;
    if (!a || !b || !c0) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
    memset(&c, 0, sizeof c);
    c.layout = GEMM_ROW_MAJOR; c.ta = ta ? GEMM_TRANS : GEMM_NO_TRANS; c.tb = GEMM_NO_TRANS;
    c.m = m; c.n = n; c.k = k; c.alpha = 1; c.beta = 0; c.lda = ta ? m : k; c.ldb = n; c.ldc = n;
    for (pass = 0; pass < 2; pass++) { /* the values, then their magnitudes */
        for (int64_t i = 0; i < m * k; i++) a[i] = pass ? fabs((double)A[i]) : A[i];
        for (int64_t i = 0; i < k * n; i++) b[i] = pass ? fabs((double)B[i]) : B[i];
        reference(&c, a, b, c0, pass ? scale : R, (size_t)(m * n));
    }
    free(a); free(b); free(c0);
}

/* max |got - ref| / max |ref| over the finite references. */
static double acc_error(const float *got, const double *ref, size_t count)
{
    double err = 0, top = 0;
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(ref[i])) continue;
        if (fabs(ref[i]) > top) top = fabs(ref[i]);
        if (!(fabs(got[i] - ref[i]) <= err)) err = isnan(got[i]) ? INFINITY : fabs(got[i] - ref[i]);
    }
    return top > 0 ? err / top : err;
}

/* A value of distribution `dist`: 0 uniform in [-1, 1], 1 a random sign
   times 2^e with e uniform in [-20, 20] and a random 24-bit significand. */
static float acc_value(int dist, uint64_t *state)
{
    if (dist == 0) return (float)(2 * battery_uniform(state));
    double e = -20 + (double)battery_below(state, 41), f = 1 + (double)battery_below(state, 1 << 23) / 0x1p23;
    return (float)((battery_below(state, 2) ? -1 : 1) * f * pow(2.0, e));
}

/* The promise: on both distributions the accurate mode's max relative
   error is no larger than that of the exact fp32 kernel (SIMT) on the same
   inputs, and far below TF32's. Every tensor-core kernel here that runs
   the mode (AUTO, MMA, WGMMA, and WGMMA with K never split: one sum along
   all of K, 16384 long in the third shape, where the tensor cores'
   truncating sums would lose most). */
static void tc_accuracy(void)
{
    static const int64_t full_shapes[][3] = {{512, 384, 4096}, {999, 1001, 997}, {256, 192, 16384}},
                         small_shapes[][3] = {{130, 96, 700}};
    static const int ways[] = {WAY_AUTO, WAY_MMA, WAY_WGMMA, WAY_WGMMA_NOSPLIT};
    const int64_t(*shapes)[3] = small_run ? small_shapes : full_shapes;
    int count = small_run ? 1 : 3, before = battery_failed;
    for (int si = 0; si < count; si++)
        for (int dist = 0; dist < 2; dist++) {
            int64_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
            int ta = si % 2; /* the second shape reads A transposed: the split's other kernel */
            uint64_t state = battery_base_seed() * 77 + (uint64_t)(si * 2 + dist);
            float *A = (float *)malloc(sizeof(float) * (size_t)(m * k)), *B = (float *)malloc(sizeof(float) * (size_t)(k * n));
            float *got = (float *)malloc(sizeof(float) * (size_t)(m * n)), *dA, *dB, *dC;
            double *ref = (double *)malloc(sizeof(double) * (size_t)(m * n)), *scale = (double *)malloc(sizeof(double) * (size_t)(m * n));
            double exact, tf32;
            if (!A || !B || !got || !ref || !scale) { fprintf(stderr, "test_cuda_tc: out of memory\n"); exit(2); }
            for (int64_t i = 0; i < m * k; i++) A[i] = acc_value(dist, &state);
            for (int64_t i = 0; i < k * n; i++) B[i] = acc_value(dist, &state);
            acc_reference(ta, m, n, k, A, B, ref, scale);
            cuda_ok(cudaMalloc((void **)&dA, sizeof(float) * (size_t)(m * k)), "cudaMalloc");
            cuda_ok(cudaMalloc((void **)&dB, sizeof(float) * (size_t)(k * n)), "cudaMalloc");
            cuda_ok(cudaMalloc((void **)&dC, sizeof(float) * (size_t)(m * n)), "cudaMalloc");
            cuda_ok(cudaMemcpy(dA, A, sizeof(float) * (size_t)(m * k), cudaMemcpyHostToDevice), "cudaMemcpy");
            cuda_ok(cudaMemcpy(dB, B, sizeof(float) * (size_t)(k * n), cudaMemcpyHostToDevice), "cudaMemcpy");
            battery_check(acc_run(GEMM_CUDA_MATH_EXACT, WAY_AUTO, ta, m, n, k, dA, dB, dC, got) == GEMM_OK,
                          "accuracy: the exact kernel runs (%s)", gemm_last_error_detail());
            exact = acc_error(got, ref, (size_t)(m * n));
            battery_check(acc_run(GEMM_CUDA_MATH_TF32, WAY_AUTO, ta, m, n, k, dA, dB, dC, got) == GEMM_OK,
                          "accuracy: TF32 runs (%s)", gemm_last_error_detail());
            tf32 = acc_error(got, ref, (size_t)(m * n));
            for (int wi = 0; wi < (int)(sizeof ways / sizeof ways[0]); wi++) {
                int w = ways[wi];
                double acc;
                gemm_status st;
                if (way_missing[w]) continue;
                st = acc_run(GEMM_CUDA_MATH_FP32_ACCURATE, w, ta, m, n, k, dA, dB, dC, got);
                acc = acc_error(got, ref, (size_t)(m * n));
                printf("accuracy %lldx%lldx%lld%s %s, %s: max|err|/max|ref| fp32-accurate %.3g, exact fp32 %.3g, "
                       "tf32 %.3g\n", (long long)m, (long long)n, (long long)k, ta ? " (A transposed)" : "",
                       dist ? "2^-20..2^20" : "[-1, 1]", tc_ways[w].name, acc, exact, tf32);
                battery_check(st == GEMM_OK && acc <= exact && acc * 16 < tf32,
                              "accuracy %lldx%lldx%lld dist %d %s: fp32-accurate %.3g <= exact %.3g, < tf32/16 %.3g "
                              "(status %d %s)", (long long)m, (long long)n, (long long)k, dist, tc_ways[w].name, acc,
                              exact, tf32 / 16, (int)st, gemm_last_error_detail());
            }
            cudaFree(dA); cudaFree(dB); cudaFree(dC);
            free(A); free(B); free(got); free(ref); free(scale);
        }
    printf("== tc fp32-accurate accuracy: %s\n", battery_failed == before ? "all passed" : "FAILURES above");
}

/* Inf, NaN, values near FLT_MAX and subnormals: every element Inf or NaN
   exactly where fp32 arithmetic (the fp64 reference of the same values)
   gives one, the finite ones within 2^-20 of the sum of |a||b|. The Inf in
   A meets a row of B exact in TF32 (lo = 0) and a 0 there; FLT_MAX rounds
   up past the fp32 range in TF32. */
static void tc_special(void)
{
    const int64_t m = 40, n = 48, k = 96;
    int before = battery_failed;
    for (int ta = 0; ta < 2; ta++) {
        float A[40 * 96], B[96 * 48], got[40 * 48], *dA, *dB, *dC;
        double ref[40 * 48], scale[40 * 48];
        uint64_t state = 1234 + (uint64_t)ta;
        for (int64_t i = 0; i < m * k; i++) A[i] = (float)(2 * battery_uniform(&state));
        for (int64_t i = 0; i < k * n; i++) B[i] = (float)(2 * battery_uniform(&state));
#define AT(i, p) A[ta ? (p) * m + (i) : (i) * k + (p)]
        AT(3, 5) = INFINITY;
        for (int64_t j = 0; j < n; j++) B[5 * n + j] = (float)((j % 7) - 3) * 0.25f; /* exact in TF32; 0 at j % 7 == 3 */
        AT(7, 9) = NAN;
        B[11 * n + 13] = -INFINITY;
        AT(20, 30) = FLT_MAX;
        AT(21, 31) = 3.4e38f; /* rounds up to 2^128 in TF32 */
        AT(22, 32) = -FLT_MAX;
        for (int64_t j = 0; j < n; j++) B[30 * n + j] = B[31 * n + j] = B[32 * n + j] = 0.5f * B[30 * n + j];
        AT(25, 40) = 1e-40f; /* subnormal */
        AT(26, 41) = 3e-39f;
#undef AT
        acc_reference(ta, m, n, k, A, B, ref, scale);
        cuda_ok(cudaMalloc((void **)&dA, sizeof A), "cudaMalloc");
        cuda_ok(cudaMalloc((void **)&dB, sizeof B), "cudaMalloc");
        cuda_ok(cudaMalloc((void **)&dC, sizeof got), "cudaMalloc");
        cuda_ok(cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice), "cudaMemcpy");
        cuda_ok(cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice), "cudaMemcpy");
        for (int w = WAY_AUTO; w <= WAY_WGMMA; w++) {
            gemm_status st;
            int bad = -1;
            if (way_missing[w]) continue;
            st = acc_run(GEMM_CUDA_MATH_FP32_ACCURATE, w, ta, m, n, k, dA, dB, dC, got);
            for (int64_t i = 0; i < m * n && bad < 0; i++) {
                double r = ref[i], e = (double)(float)r; /* fp32 overflows where the fp64 sum passes FLT_MAX */
                int ok = isnan(r) ? isnan(got[i]) : isinf(e) ? got[i] == e : fabs(got[i] - r) <= 0x1p-20 * scale[i] + 0x1p-149;
                if (!ok) bad = (int)i;
            }
            battery_check(st == GEMM_OK && bad < 0, "fp32-accurate special values%s, %s: status %d; first wrong C(%d,%d) = "
                          "%.9g, want %.9g", ta ? " (A transposed)" : "", tc_ways[w].name, (int)st, bad < 0 ? 0 : bad / (int)n,
                          bad < 0 ? 0 : bad % (int)n, bad < 0 ? 0.0 : got[bad], bad < 0 ? 0.0 : ref[bad]);
        }
        cudaFree(dA); cudaFree(dB); cudaFree(dC);
    }
    printf("== tc fp32-accurate special values: %s\n", battery_failed == before ? "all passed" : "FAILURES above");
}

/* ---- main ---- */

static void tc_mode_run(const tc_mode *md)
{
    int w;
    memset(way_runs, 0, sizeof way_runs);
    memset(way_failures, 0, sizeof way_failures);
    printf("== tc %s: seed %llu\n", md->name, (unsigned long long)battery_base_seed());
    fflush(stdout);
    tc_random(md);
    tc_edges(md);
    tc_larger(md);
    tc_reductions(md);
    tc_epilogues(md);
    if (!md->tf32_inputs) tc_invalid(md); /* tf32-exact: the same calls as tf32 */
    battery_check(gemm_cuda_release_scratch() == GEMM_OK, "tc %s: gemm_cuda_release_scratch() after the mode: %s",
                  md->name, gemm_last_error_detail());
    for (w = 0; w < WAYS; w++) {
        char name[64];
        snprintf(name, sizeof name, "tc %s %s", md->name, tc_ways[w].name);
        if (way_missing[w]) battery_skip(name, way_missing[w]);
        else if (way_failures[w]) printf("== %s: FAILURES above (%d of %d cases)\n", name, way_failures[w], way_runs[w]);
        else printf("== %s: all passed (%d cases)\n", name, way_runs[w]);
    }
    fflush(stdout);
}

int main(void)
{
    struct cudaDeviceProp prop;
    int count = 0, m;
    gemm_cuda_kernel auto_kernel;
    small_run = getenv("GEMM_CUDA_TEST_SMALL") != NULL;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIPPED test_cuda_tc: no CUDA device here\n0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    auto_kernel = gemm_cuda_auto_kernel(GEMM_F16, GEMM_CUDA_MATH_EXACT, 1024, 1024, 1024);
    printf("device: %s (compute capability %d.%d, %d SMs); AUTO runs %s for the tensor-core modes%s\n", prop.name,
           prop.major, prop.minor, prop.multiProcessorCount, gemm_cuda_kernel_name(auto_kernel),
           small_run ? "; small run" : "");
    if (prop.major < 8) way_missing[WAY_MMA] = "mma needs compute capability 8.0+";
    if (auto_kernel != GEMM_CUDA_KERNEL_WGMMA)
        way_missing[WAY_WGMMA] = way_missing[WAY_WGMMA_NOSPLIT] = way_missing[WAY_WGMMA_SPLIT3] =
            way_missing[WAY_WGMMA_256] = way_missing[WAY_WGMMA_128] = way_missing[WAY_WGMMA_128x64] =
            way_missing[WAY_WGMMA_STAGED] =
            way_missing[WAY_WGMMA_GRID3] =
            way_missing[WAY_WGMMA_UNITS] =
            "AUTO does not pick wgmma here (it needs compute capability 9.0 and an sm_90a build)";
    fflush(stdout);
    battery_check(gemm_cuda_release_scratch() == GEMM_OK, "tc: gemm_cuda_release_scratch() before any call: %s",
                  gemm_last_error_detail());
    tc_api_checks();
    for (m = 0; m < (int)(sizeof tc_modes / sizeof tc_modes[0]); m++) tc_mode_run(&tc_modes[m]);
    tc_accuracy();
    tc_special();
    cudaStreamDestroy(stream);
    return battery_summary();
}
