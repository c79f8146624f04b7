/* tests/test_cuda_complex.cu - the complex CUDA calls (gemm_cuda_cgemm,
   _zgemm, their _host forms, strided and pointer-array batches). Needs a
   GPU. Last line: N passed, N failed.

   Every result is checked against a complex reference summed in long
   double, element by element within (2k + 8) * eps of the element's
   magnitude (|alpha| sum |a||b| + |beta||c|); the elements of C's buffer
   outside the product (ld padding, the gaps between members) must keep
   their bits, and beta = 0 runs with C full of NaN (never read). Cases:
   both layouts, every op pair of N, T, C (GEMM_CONJ_TRANS), sizes 1 to a
   few hundred with padded leading dimensions, alpha and beta real,
   complex, zero and one, m, n or k of 0, through all four forms; the
   real kernels' paths (DMMA TMA and cp.async, SIMT configurations, TF32
   for cgemm); batches with shared operands, device lists and more members
   than one grid's 65535; and the refusals, each leaving C as it was.
   GEMM_CUDA_TEST_SMALL=1: fewer and smaller cases (compute-sanitizer).
   build/test_cuda_complex --model: no GPU; the plans, the host's copies of
   the operands and a plain real product in place of the GPU's, every
   layout, op pair and scalar kind, and the refusals made before any CUDA
   call (test-cuda-build runs it). */
#define GEMM_IMPLEMENTATION
#define GEMM__TEST_HOOKS /* test_paths forces each way a call can run */
#include "../gemm_cuda.cuh"
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static int passed, failed, small_run;

static void result(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (ok) {
        passed++;
        printf("ok   ");
    } else {
        failed++;
        printf("FAIL ");
    }
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static void stop_on(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    printf("FAIL CUDA error (%s): %s\n", what, cudaGetErrorString(e));
    printf("%d passed, %d failed\n", passed, failed + 1);
    exit(1);
}

template <typename T> struct cx {
    T re, im;
};

enum form { DEVICE, HOST, STRIDED, LISTS };
static const char *form_name[] = {"device", "host", "strided", "lists"};

static const char *op_name(gemm_transpose t) { return t == GEMM_NO_TRANS ? "N" : t == GEMM_TRANS ? "T" : "C"; }

/* Index of (r, c) in a stored matrix, in complex elements. */
static int64_t at(gemm_layout l, int64_t r, int64_t c, int64_t ld) { return l == GEMM_COL_MAJOR ? r + c * ld : r * ld + c; }

static int64_t min_ld(gemm_layout l, int64_t rows, int64_t cols)
{
    int64_t v = l == GEMM_COL_MAJOR ? rows : cols;
    return v > 1 ? v : 1;
}

static int64_t extent(gemm_layout l, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    return l == GEMM_COL_MAJOR ? (cols - 1) * ld + rows : (rows - 1) * ld + cols;
}

static unsigned rng = 12345;
static double uniform(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (double)(rng >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

template <typename T> static void fill(std::vector<T> &v)
{
    for (auto &x : v) x = (T)uniform();
}

/* ---- the calls, by precision and form ---- */

template <typename T>
static gemm_status call(form f, const gemm_cuda_options *o, gemm_layout l, gemm_transpose ta, gemm_transpose tb,
                        int64_t m, int64_t n, int64_t k, const cx<T> *alpha, const T *A, int64_t lda, int64_t sa,
                        const T *B, int64_t ldb, int64_t sb, const cx<T> *beta, T *C, int64_t ldc, int64_t sc,
                        const void *const *la, const void *const *lb, void *const *lc, int64_t count)
{
    bool z = sizeof(T) == 8;
    switch (f) {
    case DEVICE:
        return z ? gemm_cuda_zgemm(0, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, o)
                 : gemm_cuda_cgemm(0, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, o);
    case HOST:
        return z ? gemm_cuda_zgemm_host(l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, o)
                 : gemm_cuda_cgemm_host(l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, o);
    case STRIDED:
        return z ? gemm_cuda_zgemm_strided_batched(0, l, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc,
                                                   sc, count, o)
                 : gemm_cuda_cgemm_strided_batched(0, l, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc,
                                                   sc, count, o);
    default:
        return z ? gemm_cuda_zgemm_batched(0, l, ta, tb, m, n, k, alpha, la, lda, lb, ldb, beta, lc, ldc, count, o)
                 : gemm_cuda_cgemm_batched(0, l, ta, tb, m, n, k, alpha, la, lda, lb, ldb, beta, lc, ldc, count, o);
    }
}

/* One case: sizes, op pair, scalars, padding of the leading dimensions,
   members (count) with strides (shared A or B: stride 0); shift: the
   device matrices start one scalar into their allocation, so a complex
   element is only as aligned as its scalars (a float _Complex array in a
   packed structure). */
struct ccase {
    gemm_layout l;
    gemm_transpose ta, tb;
    int64_t m, n, k, pad, count;
    bool share_a, share_b;
    int shift;
};

/* Checks member `mi` of C (complex elements from c0) against the reference
   from the inputs; elements of the buffer outside the product are checked
   by the caller. Returns the worst error in units of the bound. */
template <typename T>
static double check_member(const ccase &c, cx<T> alpha, cx<T> beta, const T *A, int64_t lda, const T *B, int64_t ldb,
                           const T *C0, const T *C, int64_t ldc, double tol)
{
    typedef long double L;
    double worst = 0;
    bool beta0 = beta.re == 0 && beta.im == 0;
    for (int64_t i = 0; i < c.m; i++)
        for (int64_t j = 0; j < c.n; j++) {
            L sr = 0, si = 0, mag = 0;
            for (int64_t p = 0; p < c.k; p++) {
                int64_t ia = c.ta == GEMM_NO_TRANS ? at(c.l, i, p, lda) : at(c.l, p, i, lda);
                int64_t ib = c.tb == GEMM_NO_TRANS ? at(c.l, p, j, ldb) : at(c.l, j, p, ldb);
                L ar = A[2 * ia], ai = c.ta == GEMM_CONJ_TRANS ? -(L)A[2 * ia + 1] : (L)A[2 * ia + 1];
                L br = B[2 * ib], bi = c.tb == GEMM_CONJ_TRANS ? -(L)B[2 * ib + 1] : (L)B[2 * ib + 1];
                sr += ar * br - ai * bi;
                si += ar * bi + ai * br;
                mag += (fabsl(ar) + fabsl(ai)) * (fabsl(br) + fabsl(bi));
            }
            int64_t ic = at(c.l, i, j, ldc);
            L rr = (L)alpha.re * sr - (L)alpha.im * si, ri = (L)alpha.re * si + (L)alpha.im * sr;
            L bound = (fabsl((L)alpha.re) + fabsl((L)alpha.im)) * mag;
            if (!beta0) {
                L cr = C0[2 * ic], ci = C0[2 * ic + 1];
                rr += (L)beta.re * cr - (L)beta.im * ci;
                ri += (L)beta.re * ci + (L)beta.im * cr;
                bound += (fabsl((L)beta.re) + fabsl((L)beta.im)) * (fabsl(cr) + fabsl(ci));
            }
            bound = bound * tol + 1e-30L;
            L er = fabsl((L)C[2 * ic] - rr), ei = fabsl((L)C[2 * ic + 1] - ri);
            double e = (double)((er > ei ? er : ei) / bound);
            if (!(e <= worst)) worst = e; /* NaN too */
        }
    return worst;
}

/* Runs one case through form f with options o and checks it: every member
   against the reference, everything else in C's buffer unchanged. */
template <typename T>
static void run_case(form f, const ccase &c, cx<T> alpha, cx<T> beta, const gemm_cuda_options *o, double tol_eps,
                     const char *tag)
{
    bool na = c.ta == GEMM_NO_TRANS, nb = c.tb == GEMM_NO_TRANS;
    int64_t ar = na ? c.m : c.k, ac = na ? c.k : c.m, br = nb ? c.k : c.n, bc = nb ? c.n : c.k;
    int64_t lda = min_ld(c.l, ar, ac) + c.pad, ldb = min_ld(c.l, br, bc) + c.pad, ldc = min_ld(c.l, c.m, c.n) + c.pad;
    int64_t ea = extent(c.l, ar, ac, lda), eb = extent(c.l, br, bc, ldb), ec = extent(c.l, c.m, c.n, ldc);
    int64_t count = f == STRIDED || f == LISTS ? c.count : 1;
    int64_t sa = c.share_a ? 0 : ea + 3, sb = c.share_b ? 0 : eb + 1, sc = ec + 5;
    size_t na_ = (size_t)(sa * (count - 1) + ea + 1), nb_ = (size_t)(sb * (count - 1) + eb + 1),
           nc_ = (size_t)(sc * (count - 1) + ec + 1);
    std::vector<T> hA(2 * na_), hB(2 * nb_), hC(2 * nc_), out(2 * nc_);
    bool beta0 = beta.re == 0 && beta.im == 0;
    double tol = (2.0 * (double)c.k + 8) * tol_eps, worst = 0;
    T *dA = NULL, *dB = NULL, *dC = NULL;
    gemm_status s;
    fill(hA);
    fill(hB);
    fill(hC);
    if (beta0) /* beta = 0 must not read C: NaN inside the product's elements */
        for (int64_t mi = 0; mi < count; mi++)
            for (int64_t i = 0; i < c.m; i++)
                for (int64_t j = 0; j < c.n; j++) {
                    int64_t ic = mi * sc + at(c.l, i, j, ldc);
                    hC[2 * ic] = hC[2 * ic + 1] = (T)NAN;
                }
    if (f == HOST) {
        out = hC;
        s = call<T>(f, o, c.l, c.ta, c.tb, c.m, c.n, c.k, &alpha, hA.data(), lda, 0, hB.data(), ldb, 0, &beta,
                    out.data(), ldc, 0, NULL, NULL, NULL, 1);
    } else {
        std::vector<const void *> la(count), lb(count);
        std::vector<void *> lc(count);
        T *mA, *mB, *mC; /* the allocations; dA, dB, dC: the matrices, c.shift scalars in */
        stop_on(cudaMalloc((void **)&mA, (hA.size() + 1) * sizeof(T)), "cudaMalloc");
        stop_on(cudaMalloc((void **)&mB, (hB.size() + 1) * sizeof(T)), "cudaMalloc");
        stop_on(cudaMalloc((void **)&mC, (hC.size() + 1) * sizeof(T)), "cudaMalloc");
        dA = mA + c.shift;
        dB = mB + c.shift;
        dC = mC + c.shift;
        stop_on(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(T), cudaMemcpyHostToDevice), "to device");
        stop_on(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(T), cudaMemcpyHostToDevice), "to device");
        stop_on(cudaMemcpy(dC, hC.data(), hC.size() * sizeof(T), cudaMemcpyHostToDevice), "to device");
        for (int64_t i = 0; i < count; i++) {
            la[i] = dA + 2 * i * sa;
            lb[i] = dB + 2 * i * sb;
            lc[i] = dC + 2 * i * sc;
        }
        s = call<T>(f, o, c.l, c.ta, c.tb, c.m, c.n, c.k, &alpha, dA, lda, sa, dB, ldb, sb, &beta, dC, ldc, sc,
                    la.data(), lb.data(), lc.data(), count);
        stop_on(cudaDeviceSynchronize(), "after the call");
        stop_on(cudaMemcpy(out.data(), dC, out.size() * sizeof(T), cudaMemcpyDeviceToHost), "to host");
        cudaFree(mA);
        cudaFree(mB);
        cudaFree(mC);
    }
    if (s != GEMM_OK) {
        result(false, "%s %s %s %s%s m=%lld n=%lld k=%lld: status %d (%s)", sizeof(T) == 8 ? "zgemm" : "cgemm",
               form_name[f], tag, op_name(c.ta), op_name(c.tb), (long long)c.m, (long long)c.n, (long long)c.k, (int)s,
               gemm_last_error_detail());
        return;
    }
    {
        std::vector<char> inside(nc_, 0);
        int64_t changed = 0;
        for (int64_t mi = 0; mi < count; mi++) {
            double w = check_member<T>(c, alpha, beta, hA.data() + 2 * mi * sa, lda, hB.data() + 2 * mi * sb, ldb,
                                       hC.data() + 2 * mi * sc, out.data() + 2 * mi * sc, ldc, tol);
            if (!(w <= worst)) worst = w;
            for (int64_t i = 0; i < c.m; i++)
                for (int64_t j = 0; j < c.n; j++) inside[mi * sc + at(c.l, i, j, ldc)] = 1;
        }
        for (size_t e = 0; e < nc_; e++)
            if (!inside[e] && memcmp(&hC[2 * e], &out[2 * e], 2 * sizeof(T)) != 0) changed++;
        result(worst <= 1 && changed == 0,
               "%s %s %s %s %s%s m=%lld n=%lld k=%lld pad=%lld%s x%lld alpha=(%g,%g) beta=(%g,%g): error %.3g of the "
               "bound, %lld elements outside changed",
               sizeof(T) == 8 ? "zgemm" : "cgemm", form_name[f], tag, c.l == GEMM_ROW_MAJOR ? "row" : "col",
               op_name(c.ta), op_name(c.tb), (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.pad,
               c.shift ? " shifted" : "", (long long)count, (double)alpha.re, (double)alpha.im, (double)beta.re, (double)beta.im, worst,
               (long long)changed);
    }
}

static const gemm_transpose ops[3] = {GEMM_NO_TRANS, GEMM_TRANS, GEMM_CONJ_TRANS};
static const gemm_layout layouts[2] = {GEMM_COL_MAJOR, GEMM_ROW_MAJOR};

/* Every layout and op pair on small shapes through every form, the
   scalars rotating through real, complex, zero and one. */
template <typename T> static void test_ops(double eps)
{
    static const double al[4][2] = {{1, 0}, {0.5, -1.25}, {-2, 0.75}, {0, 1}};
    static const double be[4][2] = {{0, 0}, {1, 0}, {-0.75, 0}, {0.5, 0.25}};
    static const int64_t shapes[3][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 40}};
    int turn = 0;
    for (gemm_layout l : layouts)
        for (gemm_transpose ta : ops)
            for (gemm_transpose tb : ops)
                for (int sh = 0; sh < 3; sh++)
                    for (int f = DEVICE; f <= LISTS; f++) {
                        if (f != DEVICE && sh != 2) continue;
                        ccase c = {l, ta, tb, shapes[sh][0], shapes[sh][1], shapes[sh][2], (int64_t)(turn % 3), 3,
                                   false, false, 0};
                        cx<T> alpha = {(T)al[turn % 4][0], (T)al[turn % 4][1]};
                        cx<T> beta = {(T)be[(turn / 4) % 4][0], (T)be[(turn / 4) % 4][1]};
                        turn++;
                        run_case<T>((form)f, c, alpha, beta, NULL, eps, "ops");
                    }
}

/* m, n or k of 0, alpha = 0 (C = beta*C alone), beta = 0 and 1, in every form. */
template <typename T> static void test_edges(double eps)
{
    static const int64_t shapes[4][3] = {{0, 5, 4}, {6, 0, 4}, {6, 5, 0}, {6, 5, 4}};
    static const double be[3][2] = {{0, 0}, {1, 0}, {0.25, -2}};
    for (int f = DEVICE; f <= LISTS; f++)
        for (int sh = 0; sh < 4; sh++)
            for (int b = 0; b < 3; b++)
                for (int a0 = 0; a0 < 2; a0++) {
                    ccase c = {sh % 2 ? GEMM_ROW_MAJOR : GEMM_COL_MAJOR, GEMM_CONJ_TRANS, GEMM_NO_TRANS,
                               shapes[sh][0], shapes[sh][1], shapes[sh][2], 2, 2, false, false, 0};
                    cx<T> alpha = {a0 ? (T)0 : (T)1.5, a0 ? (T)0 : (T)-0.5};
                    cx<T> beta = {(T)be[b][0], (T)be[b][1]};
                    run_case<T>((form)f, c, alpha, beta, NULL, eps, "edge");
                }
}

/* Sizes that reach the real kernels' fast paths, every op pair, options. */
template <typename T> static void test_kernels(double eps)
{
    int64_t m = small_run ? 40 : 200, n = small_run ? 36 : 136, k = small_run ? 24 : 264;
    cx<T> alpha = {(T)0.75, (T)-0.5}, beta = {(T)-1, (T)0}, cbeta = {(T)0.5, (T)0.5};
    int turn = 0;
    for (gemm_layout l : layouts)
        for (gemm_transpose ta : ops)
            for (gemm_transpose tb : ops) {
                ccase c = {l, ta, tb, m, n, k, (int64_t)(turn++ % 2), 2, false, false, 0};
                run_case<T>(DEVICE, c, alpha, turn % 3 ? beta : cbeta, NULL, eps, "auto");
            }
    {
        ccase c = {GEMM_ROW_MAJOR, GEMM_CONJ_TRANS, GEMM_TRANS, m, n, k, 1, 3, false, false, 0};
        gemm_cuda_options o = {};
        if (sizeof(T) == 8) {
            for (int v = 1; v <= 3; v++) {
                o.kernel = GEMM_CUDA_KERNEL_DMMA;
                o.variant = v;
                run_case<T>(DEVICE, c, alpha, cbeta, &o, eps, v == 1 ? "dmma-1" : v == 2 ? "dmma-2" : "dmma-3");
            }
        } else {
            for (int v = 1; v <= 4; v++) {
                o.kernel = GEMM_CUDA_KERNEL_SIMT;
                o.variant = v;
                run_case<T>(DEVICE, c, alpha, cbeta, &o, eps, v == 1 ? "simt-1" : v == 2 ? "simt-2" : v == 3 ? "simt-3" : "simt-4");
            }
            o = gemm_cuda_options{};
            o.math = GEMM_CUDA_MATH_TF32;
            run_case<T>(DEVICE, c, alpha, cbeta, &o, 1.0 / 256, "tf32"); /* 10-bit mantissas */
            run_case<T>(STRIDED, c, alpha, beta, &o, 1.0 / 256, "tf32");
            o.math = GEMM_CUDA_MATH_FP32_ACCURATE;
            run_case<T>(DEVICE, c, alpha, cbeta, &o, eps, "fp32-accurate");
        }
        o = gemm_cuda_options{};
        o.split_k = 4;
        run_case<T>(DEVICE, c, alpha, cbeta, &o, eps, "split-k 4");
        o = gemm_cuda_options{};
        o.kernel = GEMM_CUDA_KERNEL_TILED16;
        run_case<T>(DEVICE, c, alpha, beta, &o, eps, "tiled16");
        c.ta = GEMM_NO_TRANS;
        run_case<T>(HOST, c, alpha, cbeta, NULL, eps, "host");
    }
}

/* Each way a device call can run (the test hook cuda_complex: 1 = the
   real product on the expansion, 2-5 = the native kernels'
   configurations, host/complex_native.cuh) on every layout and op pair,
   sizes that cut its tiles and k-slices at their edges, single calls and
   batches, complex and real beta, and matrices one scalar off their
   pairs' alignment. */
template <typename T> static void test_paths(double eps)
{
    static const char *name[6] = {"", "path 1m", "native 32x32", "native 64x64", "native 128x128", "DMMA 64x64"};
    cx<T> alpha = {(T)-0.5, (T)1.25}, beta = {(T)0.75, (T)0}, cbeta = {(T)0.5, (T)-0.25}, zero = {(T)0, (T)0};
    int64_t big = small_run ? 70 : 150;
    for (int path = 1; path <= (sizeof(T) == 8 ? 5 : 4); path++) {
        if (sizeof(T) == 8 && path == 4) continue; /* fp32 only */
        int turn = 0;
        gemm__test_hooks()->cuda_complex = path;
        for (gemm_layout l : layouts)
            for (gemm_transpose ta : ops)
                for (gemm_transpose tb : ops) {
                    ccase c = {l, ta, tb, big, big - 7, 2 * big + 3, (int64_t)(turn % 2), 1, false, false, turn % 5 == 4};
                    run_case<T>(DEVICE, c, alpha, turn % 3 == 0 ? cbeta : turn % 3 == 1 ? beta : zero, NULL, eps,
                                name[path]);
                    turn++;
                }
        {
            ccase c = {GEMM_ROW_MAJOR, GEMM_CONJ_TRANS, GEMM_TRANS, 37, 66, 9, 1, 5, false, true, 1};
            run_case<T>(STRIDED, c, alpha, cbeta, NULL, eps, name[path]);
            run_case<T>(LISTS, c, alpha, zero, NULL, eps, name[path]);
            c.shift = 0;
            c.share_b = false;
            c.share_a = true;
            run_case<T>(STRIDED, c, alpha, beta, NULL, eps, name[path]);
        }
    }
    gemm__test_hooks()->cuda_complex = 0;
}

/* Batches: shared operands (stride 0), more members than a grid's 65535. */
template <typename T> static void test_batches(double eps)
{
    cx<T> alpha = {(T)1, (T)0.5}, beta = {(T)0, (T)0}, cbeta = {(T)-0.5, (T)1};
    for (gemm_layout l : layouts) {
        ccase c = {l, GEMM_TRANS, GEMM_CONJ_TRANS, 19, 23, 29, 1, 4, true, false, 0};
        run_case<T>(STRIDED, c, alpha, cbeta, NULL, eps, "shared A");
        c.share_a = false;
        c.share_b = true;
        run_case<T>(STRIDED, c, alpha, beta, NULL, eps, "shared B");
        c.share_a = true;
        run_case<T>(STRIDED, c, alpha, cbeta, NULL, eps, "shared A and B");
    }
    {   /* large enough to run in runs whose operands are prepared on a second
           stream while the run before multiplies (host/complex.cuh,
           gemm__cuda_cruns: one run a 2^28 real flops): 2 and 4 runs, on the
           real product (these members would run on the native kernel) */
        gemm__test_hooks()->cuda_complex = 1;
        ccase c = {GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 64, 64, 64, 0, 260, false, false, 0};
        run_case<T>(STRIDED, c, alpha, cbeta, NULL, eps, "2 runs");
        if (!small_run) {
            c.share_a = true;
            run_case<T>(STRIDED, c, alpha, beta, NULL, eps, "2 runs, shared A");
            ccase d = {GEMM_ROW_MAJOR, GEMM_CONJ_TRANS, GEMM_NO_TRANS, 48, 80, 64, 1, 600, true, false, 0};
            run_case<T>(STRIDED, d, alpha, cbeta, NULL, eps, "4 runs, shared A");
        }
        gemm__test_hooks()->cuda_complex = 0;
        run_case<T>(STRIDED, c, alpha, cbeta, NULL, eps, "64^3 x 260, native");
    }
    if (!small_run) {
        ccase c = {GEMM_COL_MAJOR, GEMM_CONJ_TRANS, GEMM_TRANS, 2, 3, 2, 0, 70000, false, false, 0};
        run_case<T>(STRIDED, c, alpha, cbeta, NULL, eps, "70000 members");
        run_case<T>(LISTS, c, alpha, beta, NULL, eps, "70000 members");
    }
}

/* Lists in device memory (cuBLAS's convention). */
template <typename T> static void test_device_lists(double eps)
{
    int64_t m = 9, n = 11, k = 13, count = 3, ea = m * k, eb = k * n, ec = m * n;
    std::vector<T> hA(2 * ea * count), hB(2 * eb * count), hC(2 * ec * count), out(2 * ec * count);
    cx<T> alpha = {(T)0.5, (T)2}, beta = {(T)1, (T)-1};
    T *dA, *dB, *dC;
    void **dl;
    std::vector<void *> lists(3 * count);
    double worst = 0;
    fill(hA);
    fill(hB);
    fill(hC);
    stop_on(cudaMalloc((void **)&dA, hA.size() * sizeof(T)), "cudaMalloc");
    stop_on(cudaMalloc((void **)&dB, hB.size() * sizeof(T)), "cudaMalloc");
    stop_on(cudaMalloc((void **)&dC, hC.size() * sizeof(T)), "cudaMalloc");
    stop_on(cudaMalloc((void **)&dl, lists.size() * sizeof(void *)), "cudaMalloc");
    cudaMemcpy(dA, hA.data(), hA.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), hB.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC.data(), hC.size() * sizeof(T), cudaMemcpyHostToDevice);
    for (int64_t i = 0; i < count; i++) {
        lists[i] = dA + 2 * ea * i;
        lists[count + i] = dB + 2 * eb * i;
        lists[2 * count + i] = dC + 2 * ec * i;
    }
    cudaMemcpy(dl, lists.data(), lists.size() * sizeof(void *), cudaMemcpyHostToDevice);
    gemm_status s = call<T>(LISTS, NULL, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, m, n, k, &alpha, NULL, m, 0,
                            NULL, n, 0, &beta, NULL, m, 0, (const void *const *)dl, (const void *const *)(dl + count),
                            dl + 2 * count, count);
    stop_on(cudaDeviceSynchronize(), "after the call");
    cudaMemcpy(out.data(), dC, out.size() * sizeof(T), cudaMemcpyDeviceToHost);
    ccase c = {GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, m, n, k, 0, count, false, false, 0};
    for (int64_t i = 0; i < count && s == GEMM_OK; i++) {
        double w = check_member<T>(c, alpha, beta, hA.data() + 2 * ea * i, m, hB.data() + 2 * eb * i, n,
                                   hC.data() + 2 * ec * i, out.data() + 2 * ec * i, m, (2.0 * k + 8) * eps);
        if (!(w <= worst)) worst = w;
    }
    result(s == GEMM_OK && worst <= 1, "%s lists in device memory: status %d, error %.3g of the bound",
           sizeof(T) == 8 ? "zgemm" : "cgemm", (int)s, worst);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dl);
}

/* Refusals: a clear status and detail, C's bits unchanged. */
template <typename T> static void test_refusals(void)
{
    const char *name = sizeof(T) == 8 ? "zgemm" : "cgemm";
    int64_t n = 8, e = 2 * n * n;
    std::vector<T> h(e), back(e);
    cx<T> one = {(T)1, (T)0}, cbeta = {(T)0.5, (T)0.5};
    T *dA, *dB, *dC, *host = (T *)malloc(e * sizeof(T));
    gemm_cuda_options tf = {}, dm = {};
    fill(h);
    memcpy(host, h.data(), e * sizeof(T));
    stop_on(cudaMalloc((void **)&dA, e * sizeof(T)), "cudaMalloc");
    stop_on(cudaMalloc((void **)&dB, e * sizeof(T)), "cudaMalloc");
    stop_on(cudaMalloc((void **)&dC, e * sizeof(T)), "cudaMalloc");
    cudaMemcpy(dA, h.data(), e * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, h.data(), e * sizeof(T), cudaMemcpyHostToDevice);
    tf.math = GEMM_CUDA_MATH_TF32;
    dm.kernel = GEMM_CUDA_KERNEL_DMMA;
    struct refusal {
        const char *what, *needle;
        gemm_status s;
    };
    const void *lA[2] = {dA, NULL}, *lB[2] = {dB, dB};
    void *lC[2] = {dC, dC + 2 * n * n / 2};
    const void *oA[2] = {dA, dA}, *oB[2] = {dB, dB};
    void *oC[2] = {dC, dA}; /* member 1 writes over the A that both read */
    for (int r = 0; r < 16; r++) {
        refusal x = {"", "", GEMM_OK};
        gemm_cuda_options *o = NULL;
        cudaMemcpy(dC, h.data(), e * sizeof(T), cudaMemcpyHostToDevice);
        switch (r) {
        case 0: x = {"transa 114", "transa", call<T>(DEVICE, o, GEMM_COL_MAJOR, (gemm_transpose)114, GEMM_NO_TRANS, n, n, n, &one, dA, n, 0, dB, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)}; break;
        case 1: x = {"layout 100", "layout", call<T>(DEVICE, o, (gemm_layout)100, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, &one, dA, n, 0, dB, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)}; break;
        case 2: x = {"m = -1", "m = -1", call<T>(DEVICE, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, -1, n, n, &one, dA, n, 0, dB, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)}; break;
        case 3: x = {"lda too small", "lda", call<T>(DEVICE, o, GEMM_COL_MAJOR, GEMM_CONJ_TRANS, GEMM_NO_TRANS, n, n, n + 1, &one, dA, n, 0, dB, n + 1, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)}; break;
        case 4: x = {"alpha NULL", "alpha", call<T>(DEVICE, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, NULL, dA, n, 0, dB, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)}; break;
        case 5: x = {"A a host pointer", "host pointer", call<T>(DEVICE, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, n, n, n, &one, host, n, 0, dB, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)}; break;
        case 6:
            o = sizeof(T) == 8 ? &tf : &dm;
            x = {sizeof(T) == 8 ? "math TF32" : "kernel DMMA", sizeof(T) == 8 ? "math" : "DMMA", call<T>(DEVICE, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, &one, dA, n, 0, dB, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)};
            break;
        case 7: x = {"B NULL", "B is NULL", call<T>(DEVICE, o, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, &one, dA, n, 0, NULL, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)}; break;
        case 8: x = {"strided: members writing one C", "", call<T>(STRIDED, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, &one, dA, n, 0, dB, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 2)}; break;
        case 9: x = {"strided: a stride past the allocation", "past the end", call<T>(STRIDED, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n / 2, n / 2, n / 2, &one, dA, n / 2, n * n, dB, n / 2, 0, &cbeta, dC, n / 2, n * n / 4, NULL, NULL, NULL, 2)}; break;
        case 10: x = {"lists: a NULL member", "", call<T>(LISTS, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, n / 2, n / 2, n / 2, &cbeta, NULL, n / 2, 0, NULL, n / 2, 0, &cbeta, NULL, n / 2, 0, lA, lB, lC, 2)}; break;
        case 11: x = {"host: device memory", "device memory", call<T>(HOST, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, &one, dA, n, 0, h.data(), n, 0, &cbeta, host, n, 0, NULL, NULL, NULL, 1)}; break; /* B apart from C: not an overlap */
        case 13: x = {"C over A", "overlaps", call<T>(DEVICE, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n / 2, n / 2, n / 2, &one, dC + 2, n, 0, dB, n, 0, &cbeta, dC, n, 0, NULL, NULL, NULL, 1)}; break;
        case 14: x = {"strided: member 1's C over the shared A", "overlaps", call<T>(STRIDED, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n / 2, n / 2, n / 2, &one, dC + n * n, n / 2, 0, dB, n / 2, 0, &cbeta, dC, n / 2, n * n / 2, NULL, NULL, NULL, 2)}; break;
        case 15: x = {"lists: member 1's C over the A both read", "overlaps", call<T>(LISTS, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, n / 2, n / 2, n / 2, &one, NULL, n / 2, 0, NULL, n / 2, 0, &cbeta, NULL, n / 2, 0, oA, oB, oC, 2)}; break;
        default: x = {"transb 0 in a batch", "transb", call<T>(STRIDED, o, GEMM_ROW_MAJOR, GEMM_NO_TRANS, (gemm_transpose)0, 2, 2, 2, &one, dA, 2, 4, dB, 2, 4, &cbeta, dC, 2, 4, NULL, NULL, NULL, 2)}; break;
        }
        stop_on(cudaDeviceSynchronize(), "after a refused call");
        cudaMemcpy(back.data(), dC, e * sizeof(T), cudaMemcpyDeviceToHost);
        bool same = memcmp(back.data(), h.data(), e * sizeof(T)) == 0 && memcmp(host, h.data(), e * sizeof(T)) == 0;
        const char *d = gemm_last_error_detail();
        result(x.s == GEMM_ERR_INVALID_ARG && same && strstr(d, x.needle) && strstr(d, "gemm_cuda_"),
               "%s refuses %s: status %d, C %s (%s)", name, x.what, (int)x.s, same ? "unchanged" : "CHANGED", d);
    }
    free(host);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
}

/* The host form's timing: its parts add up to the total. */
static void test_host_timing(void)
{
    int64_t n = 64;
    std::vector<double> A(2 * n * n), B(2 * n * n), C(2 * n * n);
    cx<double> alpha = {1, 1}, beta = {0.5, -0.5};
    gemm_timing t = {};
    gemm_cuda_options o = {};
    fill(A);
    fill(B);
    fill(C);
    o.timing = &t;
    gemm_status s = gemm_cuda_zgemm_host(GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_CONJ_TRANS, n, n, n, &alpha, A.data(), n,
                                         B.data(), n, &beta, C.data(), n, &o);
    double sum = t.setup_s + t.to_device_s + t.compute_s + t.from_device_s;
    result(s == GEMM_OK && t.total_s > 0 && fabs(sum - t.total_s) <= 1e-6 + 1e-6 * t.total_s,
           "zgemm_host timing: total %.3g s, parts add up to %.3g s", t.total_s, sum);
}

/* ---- --model: the complex calls' host side on the CPU (no GPU) ---- */

/* The plan, the host's expansion, op(b) and C copies (which the device
   kernels mirror) and a plain real product in its place: the complex
   result from the real product of the plan, checked as on the GPU. */
template <typename T> static void model_case(const ccase &c, cx<T> alpha, cx<T> beta, double eps)
{
    bool na = c.ta == GEMM_NO_TRANS, nb = c.tb == GEMM_NO_TRANS;
    int64_t ar = na ? c.m : c.k, ac = na ? c.k : c.m, br = nb ? c.k : c.n, bc = nb ? c.n : c.k;
    int64_t lda = min_ld(c.l, ar, ac) + c.pad, ldb = min_ld(c.l, br, bc) + c.pad, ldc = min_ld(c.l, c.m, c.n) + c.pad;
    std::vector<T> hA(2 * (extent(c.l, ar, ac, lda) + 1)), hB(2 * (extent(c.l, br, bc, ldb) + 1)),
        hC(2 * (extent(c.l, c.m, c.n, ldc) + 1)), out;
    gemm__cuda_cplan<T> pl = {};
    gemm_cuda_options o = {};
    gemm_transpose rta = GEMM_NO_TRANS, rtb = GEMM_NO_TRANS;
    const char *fn = "model";
    fill(hA);
    fill(hB);
    fill(hC);
    out = hC;
    gemm_status s = gemm__cuda_cbegin<T>(fn, c.l, c.ta, c.tb, &alpha, &beta, &pl, &rta, &rtb);
    if (s == GEMM_OK)
        s = gemm__prepare(fn, c.l, rta, rtb, c.m, c.n, c.k, gemm__cuda_czero(pl.alpha), 1, lda, 1, ldb,
                          gemm__cuda_cone(pl.beta), 1, ldc, &pl.p);
    s = gemm__cuda_cfinish<T>(fn, s, true, c.ta, c.tb, &o, &pl);
    const gemm__problem &p = pl.p, &r = pl.r;
    if (s == GEMM_OK && p.work == GEMM__WORK_SCALE) {
        gemm__cuda_chost_scale(p.m, pl.beta, out.data(), p.ldc, out.data(), p.ldc, 0, p.n);
    } else if (s == GEMM_OK && p.work == GEMM__WORK_FULL) {
        const T *a = p.swapped ? hB.data() : hA.data(), *b = p.swapped ? hA.data() : hB.data();
        std::vector<T> Y(pl.y_elems), Bt(pl.bt_elems), Cs(pl.cs_elems);
        gemm__cuda_chost_expand(&pl, a, Y.data(), 0, p.k);
        if (pl.bt_elems) gemm__cuda_chost_transpose(&pl, b, Bt.data(), 0, p.n);
        if (pl.cs_elems) gemm__cuda_chost_scale(p.m, pl.beta, out.data(), p.ldc, Cs.data(), pl.ldcs, 0, p.n);
        const T *rb = pl.bt_elems ? Bt.data() : b;
        T *rc = pl.cs_elems ? Cs.data() : out.data(), rbeta = pl.complex_beta ? T(1) : pl.beta.re;
        for (int64_t j = 0; j < r.n; j++) /* the real product as the plan states it: column-major NN */
            for (int64_t i = 0; i < r.m; i++) {
                double sum = 0;
                for (int64_t q = 0; q < r.k; q++) sum += (double)Y[i + q * r.lda] * (double)rb[q + j * r.ldb];
                T *e = &rc[i + j * r.ldc];
                *e = (T)(rbeta == T(0) ? sum : sum + (double)rbeta * (double)*e);
            }
        if (pl.cs_elems) {
            gemm__cuda_cnum<T> one = {T(1), T(0)};
            gemm__cuda_chost_scale(p.m, one, Cs.data(), pl.ldcs, out.data(), p.ldc, 0, p.n);
        }
    }
    double w = s == GEMM_OK ? check_member<T>(c, alpha, beta, hA.data(), lda, hB.data(), ldb, hC.data(), out.data(),
                                              ldc, (2.0 * (double)c.k + 8) * eps)
                            : 1e9;
    result(w <= 1, "model %s %s %s%s m=%lld n=%lld k=%lld pad=%lld alpha=(%g,%g) beta=(%g,%g): status %d, error %.3g "
           "of the bound", sizeof(T) == 8 ? "zgemm" : "cgemm", c.l == GEMM_ROW_MAJOR ? "row" : "col", op_name(c.ta),
           op_name(c.tb), (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.pad, (double)alpha.re,
           (double)alpha.im, (double)beta.re, (double)beta.im, (int)s, w);
}

/* Refusals that come before anything reaches the GPU, with host memory. */
template <typename T> static void model_refusals(void)
{
    int64_t n = 4;
    std::vector<T> A(2 * n * n), C(2 * n * n), C0;
    cx<T> one = {(T)1, (T)0};
    gemm_cuda_options tf = {}, bad = {};
    fill(A);
    fill(C);
    C0 = C;
    tf.math = GEMM_CUDA_MATH_TF32;
    bad.kernel = (gemm_cuda_kernel)99;
    for (int r = 0; r < 10; r++) {
        const char *what = "", *needle = "";
        gemm_status s = GEMM_OK;
        const gemm_cuda_options *o = NULL;
        gemm_transpose ta = GEMM_CONJ_TRANS, tb = GEMM_NO_TRANS;
        gemm_layout l = GEMM_ROW_MAJOR;
        int64_t m = n, lda = n;
        const cx<T> *alpha = &one;
        switch (r) {
        case 0: what = "transa 114"; needle = "transa is 114"; ta = (gemm_transpose)114; break;
        case 1: what = "transb 110"; needle = "transb is 110"; tb = (gemm_transpose)110; break;
        case 2: what = "layout 103"; needle = "layout"; l = (gemm_layout)103; break;
        case 3: what = "m = -2"; needle = "m = -2"; m = -2; break;
        case 4: what = "lda too small"; needle = "lda"; l = GEMM_COL_MAJOR; lda = n - 1; break;
        case 5: what = "alpha NULL"; needle = "alpha is NULL"; alpha = NULL; break;
        case 6: what = sizeof(T) == 8 ? "math TF32" : "kernel 99"; needle = "options"; o = sizeof(T) == 8 ? &tf : &bad; break;
        case 7: what = "host form, kernel 99"; needle = "options"; o = &bad; break;
        case 8: what = "host form, C over A"; needle = "C overlaps A"; break;
        default: what = "strided, member 1's C over the A both read"; needle = "member 1: C overlaps A"; break;
        }
        if (r == 8) /* A's elements 1, 2, 5, 6 (complex), C's 0, 1, 4, 5 */
            s = call<T>(HOST, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, alpha, C.data() + 2, n, 0,
                        A.data(), n, 0, &one, C.data(), n, 0, NULL, NULL, NULL, 1);
        else if (r == 9) /* A (shared) is member 1's C */
            s = call<T>(STRIDED, o, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, alpha, C.data() + 8, 2, 0,
                        A.data(), 2, 0, &one, C.data(), 2, 4, NULL, NULL, NULL, 2);
        else
            s = call<T>(r == 7 ? HOST : DEVICE, o, l, ta, tb, m, n, n, alpha, A.data(), lda, 0, A.data(), n, 0, &one,
                        C.data(), n, 0, NULL, NULL, NULL, 1);
        const char *d = gemm_last_error_detail();
        result(s == GEMM_ERR_INVALID_ARG && C == C0 && strstr(d, needle) && strstr(d, "gemm_cuda_"),
               "model %s refuses %s before any CUDA call: status %d (%s)", sizeof(T) == 8 ? "zgemm" : "cgemm", what,
               (int)s, d);
    }
}

template <typename T> static void model(double eps)
{
    static const double al[3][2] = {{1, 0}, {0.5, -1.25}, {0, 0}};
    static const double be[4][2] = {{0, 0}, {1, 0}, {-0.75, 0}, {0.5, 0.25}};
    static const int64_t shapes[4][3] = {{1, 1, 1}, {5, 3, 4}, {9, 7, 6}, {4, 6, 0}};
    int turn = 0;
    for (gemm_layout l : layouts)
        for (gemm_transpose ta : ops)
            for (gemm_transpose tb : ops)
                for (int sh = 0; sh < 4; sh++)
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 4; b++) {
                            ccase c = {l, ta, tb, shapes[sh][0], shapes[sh][1], shapes[sh][2], (int64_t)(turn++ % 3),
                                       1, false, false, 0};
                            model_case<T>(c, cx<T>{(T)al[a][0], (T)al[a][1]}, cx<T>{(T)be[b][0], (T)be[b][1]}, eps);
                        }
    model_refusals<T>();
}

int main(int argc, char **argv)
{
    int count = 0;
    small_run = getenv("GEMM_CUDA_TEST_SMALL") != NULL;
    if (argc > 1 && !strcmp(argv[1], "--model")) {
        model<float>(FLT_EPSILON);
        model<double>(DBL_EPSILON);
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("FAIL no CUDA device\n0 passed, 1 failed\n");
        return 1;
    }
    test_ops<float>(FLT_EPSILON);
    test_ops<double>(DBL_EPSILON);
    test_edges<float>(FLT_EPSILON);
    test_edges<double>(DBL_EPSILON);
    test_kernels<float>(FLT_EPSILON);
    test_kernels<double>(DBL_EPSILON);
    test_paths<float>(FLT_EPSILON);
    test_paths<double>(DBL_EPSILON);
    test_batches<float>(FLT_EPSILON);
    test_batches<double>(DBL_EPSILON);
    test_device_lists<float>(FLT_EPSILON);
    test_device_lists<double>(DBL_EPSILON);
    test_refusals<float>();
    test_refusals<double>();
    test_host_timing();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
