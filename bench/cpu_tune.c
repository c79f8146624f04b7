/* bench/cpu_tune.c - where a 1-thread CPU call spends its time, and which
   block sizes suit this CPU: research for issue 20, not part of `make bench`.

   build/cpu_tune parts [--sizes 1024,2048] [--prec f32,f64]
       for each size: the whole call (gemm and OpenBLAS, interleaved), the
       micro-kernel alone on packed panels already in cache (the ceiling a
       blocking could reach), and the packing of A and of B alone, each as
       seconds of the thread's CPU time and as a share of the call.
   build/cpu_tune sweep [--sizes 2048] [--prec f64] [--mc 96,192,...]
                        [--kc 128,256,...] [--nc 1024,...]
       GFLOP/s of the whole call for every (mc, kc, nc) given (forced
       through the test hooks), beside OpenBLAS, best first; the sizes the
       caches give are marked "*".
   build/cpu_tune caches
       what gemm reads from the CPU (cpuid / sysfs / sysconf) and the block
       sizes it derives for each kernel and precision.

   One thread (gemm_cpu_set_threads(1), OpenBLAS 1 thread), timed in the
   thread's CPU time (CLOCK_THREAD_CPUTIME_ID: on a shared machine the
   other processes' time is not ours); each figure is the median of 5 runs
   (3 when a run takes over half a second), min and max beside it. */
#define _POSIX_C_SOURCE 200809L
#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"

#include <time.h>
#include <unistd.h>

#ifdef BENCH_HAVE_OPENBLAS
void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc);
void cblas_dgemm(int layout, int ta, int tb, int m, int n, int k, double alpha, const double *A, int lda,
                 const double *B, int ldb, double beta, double *C, int ldc);
char *openblas_get_corename(void);
void openblas_set_num_threads(int n);
#endif

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct tune_mats {
    gemm_precision prec;
    int64_t m, n, k;
    battery_buf A, B, C;
} tune_mats;

static tune_mats mats_new(gemm_precision prec, int64_t m, int64_t n, int64_t k)
{
    tune_mats t;
    uint64_t state = 42;
    t.prec = prec;
    t.m = m;
    t.n = n;
    t.k = k;
    t.A = battery_buf_new(prec, (size_t)(m * k));
    t.B = battery_buf_new(prec, (size_t)(k * n));
    t.C = battery_buf_new(prec, (size_t)(m * n));
    battery_fill(&t.A, &state);
    battery_fill(&t.B, &state);
    battery_fill(&t.C, &state);
    return t;
}

static void mats_free(tune_mats *t)
{
    battery_buf_free(&t->A);
    battery_buf_free(&t->B);
    battery_buf_free(&t->C);
}

/* One row-major NN call, C = A*B; who 0 = gemm, 1 = OpenBLAS. */
static void call(int who, tune_mats *t)
{
    int m = (int)t->m, n = (int)t->n, k = (int)t->k;
    if (who == 0) {
        if (t->prec == GEMM_F32)
            gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0f, (const float *)t->A.data, k,
                       (const float *)t->B.data, n, 0.0f, (float *)t->C.data, n);
        else
            gemm_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0, (const double *)t->A.data, k,
                       (const double *)t->B.data, n, 0.0, (double *)t->C.data, n);
    }
#ifdef BENCH_HAVE_OPENBLAS
    else if (t->prec == GEMM_F32)
        cblas_sgemm(101, 111, 111, m, n, k, 1.0f, (const float *)t->A.data, k, (const float *)t->B.data, n, 0.0f,
                    (float *)t->C.data, n);
    else
        cblas_dgemm(101, 111, 111, m, n, k, 1.0, (const double *)t->A.data, k, (const double *)t->B.data, n, 0.0,
                    (double *)t->C.data, n);
#endif
}

static int have_peer(void)
{
#ifdef BENCH_HAVE_OPENBLAS
    return 1;
#else
    return 0;
#endif
}

/* Median, min, max seconds of `runs` interleaved runs of each contender. */
static void time_calls(tune_mats *t, double med[2], double lo[2], double hi[2])
{
    double s[2][9], t0;
    int r, who, runs, npeer = 1 + have_peer();
    t0 = cpu_now();
    call(0, t);
    t0 = cpu_now() - t0;
    if (have_peer()) call(1, t);
    runs = t0 > 0.5 ? 3 : t0 > 0.05 ? 5 : 9;
    for (r = 0; r < runs; r++)
        for (who = 0; who < npeer; who++) {
            double a = cpu_now();
            call(who, t);
            s[who][r] = cpu_now() - a;
        }
    for (who = 0; who < 2; who++) {
        med[who] = lo[who] = hi[who] = 0;
        if (who >= npeer) continue;
        battery_sort(s[who], runs);
        med[who] = s[who][runs / 2];
        lo[who] = s[who][0];
        hi[who] = s[who][runs - 1];
    }
}

/* The micro-kernel alone: an mc x kc packed A block against kc x NR
   packed B micro-panels, the loops of one item with nothing packed, as in
   the call; returns GFLOP/s (median of 5). */
static double kernel_alone(gemm_precision prec, int64_t mc, int64_t kc, int64_t nc, int strided)
{
    const gemm__cpu_microkernel *uk = prec == GEMM_F32 ? &gemm__cpu_best_isa()->f32 : &gemm__cpu_best_isa()->f64;
    int64_t es = prec == GEMM_F32 ? 4 : 8, ir, jr, ldc = mc;
    char *pa = (char *)calloc((size_t)(mc * kc), (size_t)es), *pb = (char *)calloc((size_t)(kc * nc), (size_t)es);
    char *c = (char *)calloc((size_t)(mc * nc), (size_t)es);
    double s[5];
    int r;
    for (r = 0; r < 5; r++) {
        double t0 = cpu_now();
        for (jr = 0; jr < nc; jr += uk->nr)
            for (ir = 0; ir < mc; ir += uk->mr) {
                if (strided)
                    uk->strided_b(kc, pa + ir * kc * es, uk->mr, pb + jr * kc * es, 1, kc, 1.0, 1.0,
                                  c + (ir + jr * ldc) * es, ldc);
                else
                    uk->packed_b(kc, pa + ir * kc * es, uk->mr, pb + jr * kc * es, uk->nr, 1, 1.0, 1.0,
                                 c + (ir + jr * ldc) * es, ldc);
            }
        s[r] = cpu_now() - t0;
    }
    battery_sort(s, 5);
    free(pa);
    free(pb);
    free(c);
    return 2.0 * (double)mc * (double)nc * (double)kc / s[2] * 1e-9;
}

/* Seconds to pack all of A (m x k) and all of B (k x n) of a row-major NN
   call in the call's blocks, as its loops do (median of 5). */
static void packing_alone(tune_mats *t, double *sa, double *sb)
{
    gemm__problem p;
    const gemm__cpu_microkernel *uk = t->prec == GEMM_F32 ? &gemm__cpu_best_isa()->f32 : &gemm__cpu_best_isa()->f64;
    int64_t es = t->prec == GEMM_F32 ? 4 : 8, mc, kc, nc, ic, pc, jc;
    double a[5], b[5];
    char *buf;
    int r;
    gemm__prepare("tune", GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, t->m, t->n, t->k, 0, 1, t->k, 1, t->n, 0, 1,
                  t->n, &p);
    gemm__cpu_blocking(uk->mr, uk->nr, (int)es, &mc, &kc, &nc);
    buf = (char *)malloc((size_t)((mc + nc + 64) * kc * es));
    for (r = 0; r < 5; r++) {
        const char *A = (const char *)(p.swapped ? t->B.data : t->A.data), *B = (const char *)(p.swapped ? t->A.data : t->B.data);
        double t0 = cpu_now();
        for (pc = 0; pc < p.k; pc += kc)
            for (ic = 0; ic < p.m; ic += mc)
                gemm__cpu_pack(buf, A + (ic * p.ars + pc * p.acs) * es, p.ars, p.acs, gemm__cpu_min(mc, p.m - ic),
                               gemm__cpu_min(kc, p.k - pc), uk->mr, 0, p.ars == 1 ? uk->pack_a : NULL, uk->copy_rows, es);
        a[r] = cpu_now() - t0;
        t0 = cpu_now();
        for (jc = 0; jc < p.n; jc += nc)
            for (pc = 0; pc < p.k; pc += kc)
                gemm__cpu_pack(buf, B + (pc * p.brs + jc * p.bcs) * es, p.bcs, p.brs, gemm__cpu_min(nc, p.n - jc),
                               gemm__cpu_min(kc, p.k - pc), uk->nr, p.bcs != 1, NULL, NULL, es);
        b[r] = cpu_now() - t0;
    }
    battery_sort(a, 5);
    battery_sort(b, 5);
    *sa = a[2];
    *sb = b[2];
    free(buf);
}

static void report_parts(gemm_precision prec, int64_t n)
{
    tune_mats t = mats_new(prec, n, n, n);
    const gemm__cpu_microkernel *uk = prec == GEMM_F32 ? &gemm__cpu_best_isa()->f32 : &gemm__cpu_best_isa()->f64;
    double med[2], lo[2], hi[2], sa, sb, flops = 2.0 * (double)n * (double)n * (double)n, kp, ks;
    int64_t mc, kc, nc, es = prec == GEMM_F32 ? 4 : 8;
    gemm__cpu_blocking(uk->mr, uk->nr, (int)es, &mc, &kc, &nc);
    time_calls(&t, med, lo, hi);
    packing_alone(&t, &sa, &sb);
    kp = kernel_alone(prec, mc, kc, gemm__cpu_min(nc, 4 * uk->nr * 8), 0);
    ks = kernel_alone(prec, mc, kc, gemm__cpu_min(nc, 4 * uk->nr * 8), 1);
    printf("%s n=%-5lld mc %lld kc %lld nc %lld | gemm %7.1f GF/s [%.1f-%.1f] | OpenBLAS %7.1f | ratio %.3f | "
           "kernel alone %6.1f (strided B %6.1f) | pack A %4.1f%% B %4.1f%% of the call\n",
           prec == GEMM_F32 ? "f32" : "f64", (long long)n, (long long)mc, (long long)kc, (long long)nc,
           flops / med[0] * 1e-9, flops / hi[0] * 1e-9, flops / lo[0] * 1e-9, med[1] > 0 ? flops / med[1] * 1e-9 : 0,
           med[1] > 0 ? med[1] / med[0] : 0, kp, ks, 100 * sa / med[0], 100 * sb / med[0]);
    fflush(stdout);
    mats_free(&t);
}

typedef struct sweep_row { int64_t mc, kc, nc; double gf; } sweep_row;

static int by_speed(const void *x, const void *y)
{
    double a = ((const sweep_row *)x)->gf, b = ((const sweep_row *)y)->gf;
    return a < b ? 1 : a > b ? -1 : 0;
}

static void sweep(gemm_precision prec, int64_t n, const int64_t *mcs, int nmc, const int64_t *kcs, int nkc,
                  const int64_t *ncs, int nnc)
{
    tune_mats t = mats_new(prec, n, n, n);
    const gemm__cpu_microkernel *uk = prec == GEMM_F32 ? &gemm__cpu_best_isa()->f32 : &gemm__cpu_best_isa()->f64;
    int64_t mc0, kc0, nc0;
    double med[2], lo[2], hi[2], flops = 2.0 * (double)n * (double)n * (double)n, peer = 0;
    sweep_row rows[512];
    int i, j, l, nrows = 0;
    gemm__cpu_blocking(uk->mr, uk->nr, prec == GEMM_F32 ? 4 : 8, &mc0, &kc0, &nc0);
    for (i = 0; i < nmc; i++)
        for (j = 0; j < nkc; j++)
            for (l = 0; l < nnc && nrows < 512; l++) {
                gemm__test_hooks()->cpu_mc = (int)mcs[i];
                gemm__test_hooks()->cpu_kc = (int)kcs[j];
                gemm__test_hooks()->cpu_nc = (int)ncs[l];
                time_calls(&t, med, lo, hi);
                rows[nrows].mc = gemm__cpu_round_up(mcs[i], uk->mr);
                rows[nrows].kc = kcs[j];
                rows[nrows].nc = gemm__cpu_round_up(ncs[l], uk->nr);
                rows[nrows].gf = flops / med[0] * 1e-9;
                if (med[1] > peer) peer = med[1];
                nrows++;
            }
    gemm__test_hooks()->cpu_mc = gemm__test_hooks()->cpu_kc = gemm__test_hooks()->cpu_nc = 0;
    qsort(rows, (size_t)nrows, sizeof rows[0], by_speed);
    printf("%s n=%lld, 1 thread: OpenBLAS %.1f GF/s (slowest median of the runs); the caches give mc %lld kc %lld nc %lld\n",
           prec == GEMM_F32 ? "f32" : "f64", (long long)n, peer > 0 ? flops / peer * 1e-9 : 0, (long long)mc0,
           (long long)kc0, (long long)nc0);
    for (i = 0; i < nrows; i++)
        printf("  mc %4lld kc %4lld nc %5lld  %7.1f GF/s%s\n", (long long)rows[i].mc, (long long)rows[i].kc,
               (long long)rows[i].nc, rows[i].gf,
               rows[i].mc == mc0 && rows[i].kc == kc0 && rows[i].nc == nc0 ? "  *" : "");
    fflush(stdout);
    mats_free(&t);
}

static void caches(void)
{
    gemm__cpu_caches c = gemm__cpu_cache_sizes();
    const gemm__cpu_isa *isa = gemm__cpu_best_isa();
    int64_t mc, kc, nc;
    int p;
    printf("caches: L1d %ld KiB, L2 %ld KiB, L3 %ld KiB; kernel %s\n", c.l1d / 1024, c.l2 / 1024, c.l3 / 1024, isa->name);
    for (p = 0; p < 2; p++) {
        const gemm__cpu_microkernel *uk = p ? &isa->f64 : &isa->f32;
        gemm__cpu_blocking(uk->mr, uk->nr, p ? 8 : 4, &mc, &kc, &nc);
        printf("  %s: MR x NR %d x %d, mc %lld, kc %lld, nc %lld\n", p ? "f64" : "f32", uk->mr, uk->nr, (long long)mc,
               (long long)kc, (long long)nc);
    }
}

int main(int argc, char **argv)
{
    int64_t sizes[16] = {1024, 2048}, mcs[16] = {0}, kcs[16] = {0}, ncs[16] = {0};
    int nsizes = 2, nprec = 2, nmc = 0, nkc = 0, nnc = 0, i, si, pi;
    gemm_precision precs[2] = {GEMM_F32, GEMM_F64};
    const char *mode = argc > 1 ? argv[1] : "parts";
#ifdef BENCH_HAVE_OPENBLAS
    if (!getenv("OPENBLAS_THREAD_TIMEOUT")) { /* as bench_cpu */
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) setenv("OPENBLAS_CORETYPE", "SkylakeX", 0);
        else if (__builtin_cpu_supports("avx2")) setenv("OPENBLAS_CORETYPE", "Haswell", 0);
        setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
        execv("/proc/self/exe", argv);
    }
    openblas_set_num_threads(1);
#endif
    gemm_cpu_set_threads(1);
    for (i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 16);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) nprec = battery_parse_precs(argv[++i], precs);
        else if (!strcmp(argv[i], "--mc") && i + 1 < argc) nmc = battery_parse_list(argv[++i], mcs, 16);
        else if (!strcmp(argv[i], "--kc") && i + 1 < argc) nkc = battery_parse_list(argv[++i], kcs, 16);
        else if (!strcmp(argv[i], "--nc") && i + 1 < argc) nnc = battery_parse_list(argv[++i], ncs, 16);
        else { fprintf(stderr, "usage: %s parts|sweep|caches [--sizes ..] [--prec ..] [--mc ..] [--kc ..] [--nc ..]\n", argv[0]); return 2; }
    }
    if (!strcmp(mode, "caches")) { caches(); return 0; }
    for (pi = 0; pi < nprec; pi++)
        for (si = 0; si < nsizes; si++) {
            if (!strcmp(mode, "sweep")) {
                const gemm__cpu_microkernel *uk = precs[pi] == GEMM_F32 ? &gemm__cpu_best_isa()->f32 : &gemm__cpu_best_isa()->f64;
                int64_t mc0, kc0, nc0;
                gemm__cpu_blocking(uk->mr, uk->nr, precs[pi] == GEMM_F32 ? 4 : 8, &mc0, &kc0, &nc0);
                if (!nmc) { mcs[0] = mc0; nmc = 1; }
                if (!nkc) { kcs[0] = kc0; nkc = 1; }
                if (!nnc) { ncs[0] = nc0; nnc = 1; }
                sweep(precs[pi], sizes[si], mcs, nmc, kcs, nkc, ncs, nnc);
            } else {
                report_parts(precs[pi], sizes[si]);
            }
        }
    return 0;
}
