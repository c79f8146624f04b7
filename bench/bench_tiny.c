/* bench/bench_tiny.c - the cost of one small call: gemm beside a plain
   triple loop, OpenBLAS and libxsmm, one thread, in one process.

   make bench-tiny                 n = 1, 2, 4, 8, 16, 32, 64; fp32 and fp64;
                                   the 8 layouts (row/col x NN, NT, TN, TT)
   build/bench_tiny [--sizes 1,2,4] [--prec f32,f64] [--layouts cNN,rNT,...]
                    [--csv FILE] [--quick]

   Every cell is nanoseconds per call of C = alpha*op(A)*op(B) + beta*C
   (alpha = 1, beta = 1: C += op(A) op(B), the update small-matrix codes make and
   the one libxsmm 1.17 compiles a kernel for), m = n = k, the matrices
   contiguous (lda = ldb = ldc = n). Each contender runs a batch of calls
   sized to take about 2 ms; the batches are interleaved (loop, gemm,
   OpenBLAS, libxsmm, loop, gemm, ...) and each cell is the best of 7
   batches (best, not median: a per-call cost is what the code costs when
   nothing interrupts it; the x column is median / best). Batches are timed
   in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): every call runs on
   the calling thread, and on a shared machine wall time mostly measures
   the other processes. The same inputs serve every call (in L1).

   The contenders:
     loop      a plain triple loop compiled with the program's flags (-O2):
               the cost a caller pays without a library
     gemm      gemm_sgemm / gemm_dgemm, the front door (checks included)
     OpenBLAS  cblas_sgemm / cblas_dgemm (OPENBLAS_CORETYPE as bench_cpu)
     libxsmm   libxsmm_sgemm / libxsmm_dgemm (Debian's libxsmm-dev 1.17,
               linked statically): column-major only, so a row-major call
               is made as the column-major product C^T = op(B)^T op(A)^T,
               which is what a row-major caller of libxsmm writes
   Bars (issue 20): gemm / loop <= 3 at n <= 4 and <= 1 at n = 8;
   OpenBLAS / gemm >= 1 (gemm ahead) and libxsmm / gemm >= 0.8 at n >= 8.
   A `!` marks a cell that misses its bar. */
#define _POSIX_C_SOURCE 200809L
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"
#include "openblas_coretype.h"

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
#ifdef BENCH_HAVE_LIBXSMM
void libxsmm_dgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
                   const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
                   const int *ldc);
void libxsmm_sgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
                   const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
                   const int *ldc);
void libxsmm_init(void);
#endif

enum { LOOP, GEMM, OPENBLAS, LIBXSMM, NWHO };

typedef struct tiny_case {
    gemm_precision prec;
    gemm_layout layout;
    gemm_transpose ta, tb;
    int n;
    const void *A, *B;
    void *C;
} tiny_case;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The plain loop: C = alpha*op(A)*op(B) + beta*C through element strides,
   the way anyone writes it; noinline, so each call is a real call. */
#define TINY_LOOP(NAME, T)                                                                               \
    static __attribute__((noinline)) void NAME(gemm_layout lay, gemm_transpose ta, gemm_transpose tb,   \
                                               int n, T alpha, const T *A, const T *B, T beta, T *C)    \
    {                                                                                                    \
        int row = lay == GEMM_ROW_MAJOR, i, j, p;                                                        \
        int ars = row != (ta == GEMM_TRANS) ? n : 1, acs = ars == 1 ? n : 1;                             \
        int brs = row != (tb == GEMM_TRANS) ? n : 1, bcs = brs == 1 ? n : 1;                             \
        int crs = row ? n : 1, ccs = row ? 1 : n;                                                        \
        for (i = 0; i < n; i++)                                                                          \
            for (j = 0; j < n; j++) {                                                                    \
                T s = 0;                                                                                 \
                for (p = 0; p < n; p++) s += A[i * ars + p * acs] * B[p * brs + j * bcs];                \
                C[i * crs + j * ccs] = alpha * s + beta * C[i * crs + j * ccs];                          \
            }                                                                                            \
    }
TINY_LOOP(loop_s, float)
TINY_LOOP(loop_d, double)

/* One call of contender `who`. */
static void call_once(int who, const tiny_case *t)
{
    int n = t->n, f32 = t->prec == GEMM_F32;
    switch (who) {
    case LOOP:
        if (f32) loop_s(t->layout, t->ta, t->tb, n, 1.0f, (const float *)t->A, (const float *)t->B, 1.0f, (float *)t->C);
        else loop_d(t->layout, t->ta, t->tb, n, 1.0, (const double *)t->A, (const double *)t->B, 1.0, (double *)t->C);
        break;
    case GEMM:
        if (f32)
            gemm_sgemm(t->layout, t->ta, t->tb, n, n, n, 1.0f, (const float *)t->A, n, (const float *)t->B, n, 1.0f,
                       (float *)t->C, n);
        else
            gemm_dgemm(t->layout, t->ta, t->tb, n, n, n, 1.0, (const double *)t->A, n, (const double *)t->B, n, 1.0,
                       (double *)t->C, n);
        break;
#ifdef BENCH_HAVE_OPENBLAS
    case OPENBLAS: {
        int lay = t->layout == GEMM_ROW_MAJOR ? 101 : 102, ta = t->ta == GEMM_TRANS ? 112 : 111;
        int tb = t->tb == GEMM_TRANS ? 112 : 111;
        if (f32)
            cblas_sgemm(lay, ta, tb, n, n, n, 1.0f, (const float *)t->A, n, (const float *)t->B, n, 1.0f,
                        (float *)t->C, n);
        else
            cblas_dgemm(lay, ta, tb, n, n, n, 1.0, (const double *)t->A, n, (const double *)t->B, n, 1.0,
                        (double *)t->C, n);
        break;
    }
#endif
#ifdef BENCH_HAVE_LIBXSMM
    case LIBXSMM: {
        /* column-major; row-major C = op(A) op(B) is C^T = op(B)^T op(A)^T */
        int row = t->layout == GEMM_ROW_MAJOR;
        const char *ta = (row ? t->tb : t->ta) == GEMM_TRANS ? "T" : "N";
        const char *tb = (row ? t->ta : t->tb) == GEMM_TRANS ? "T" : "N";
        const void *a = row ? t->B : t->A, *b = row ? t->A : t->B;
        if (f32) {
            float al = 1.0f, be = 1.0f;
            libxsmm_sgemm(ta, tb, &n, &n, &n, &al, (const float *)a, &n, (const float *)b, &n, &be, (float *)t->C, &n);
        } else {
            double al = 1.0, be = 1.0;
            libxsmm_dgemm(ta, tb, &n, &n, &n, &al, (const double *)a, &n, (const double *)b, &n, &be,
                          (double *)t->C, &n);
        }
        break;
    }
#endif
    default: break;
    }
}

static int have(int who)
{
#ifndef BENCH_HAVE_OPENBLAS
    if (who == OPENBLAS) return 0;
#endif
#ifndef BENCH_HAVE_LIBXSMM
    if (who == LIBXSMM) return 0;
#endif
    (void)who;
    return 1;
}

/* Seconds per call of a batch of `calls` calls. */
static double batch(int who, const tiny_case *t, long calls)
{
    long i;
    double t0 = now();
    for (i = 0; i < calls; i++) call_once(who, t);
    return (now() - t0) / (double)calls;
}

/* Whether contender `who` computes what the loop computes (C from the
   same start; fp32 to 1e-4, fp64 to 1e-12 relative). */
static int agrees(int who, tiny_case *t, const battery_buf *C0)
{
    size_t i, cnt = (size_t)t->n * (size_t)t->n, bytes = battery_buf_bytes(C0);
    battery_buf want = battery_buf_copy(C0), got = battery_buf_copy(C0);
    int ok = 1;
    void *c = t->C;
    t->C = want.data;
    call_once(LOOP, t);
    t->C = got.data;
    call_once(who, t);
    t->C = c;
    for (i = 0; i < cnt; i++) {
        double w = battery_get(&want, i), g = battery_get(&got, i);
        ok = ok && fabs(w - g) <= (t->prec == GEMM_F32 ? 1e-4 : 1e-12) * (1.0 + fabs(w)) * t->n;
    }
    battery_buf_free(&want);
    battery_buf_free(&got);
    memcpy(c, C0->data, bytes);
    return ok;
}

static const char *layout_name(const tiny_case *t, char *buf)
{
    buf[0] = t->layout == GEMM_ROW_MAJOR ? 'r' : 'c';
    buf[1] = t->ta == GEMM_TRANS ? 'T' : 'N';
    buf[2] = t->tb == GEMM_TRANS ? 'T' : 'N';
    buf[3] = '\0';
    return buf;
}

/* Measures one case: ns per call for each contender (0 when absent). */
static void measure(tiny_case *t, int quick, double ns[NWHO], double spread[NWHO])
{
    enum { BATCHES = 7 };
    double all[NWHO][BATCHES];
    long calls[NWHO];
    int who, r;
    for (who = 0; who < NWHO; who++) {
        double per;
        if (!have(who)) continue;
        batch(who, t, 100); /* warm-up (libxsmm compiles its kernel here) */
        per = batch(who, t, 1000);
        calls[who] = (long)((quick ? 0.5e-3 : 2e-3) / (per > 1e-10 ? per : 1e-10));
        if (calls[who] < 10) calls[who] = 10;
    }
    for (r = 0; r < BATCHES; r++)
        for (who = 0; who < NWHO; who++)
            if (have(who)) all[who][r] = batch(who, t, calls[who]);
    for (who = 0; who < NWHO; who++) {
        ns[who] = spread[who] = 0;
        if (!have(who)) continue;
        battery_sort(all[who], BATCHES);
        ns[who] = all[who][0] * 1e9;
        spread[who] = all[who][BATCHES / 2] / all[who][0];
    }
}

int main(int argc, char **argv)
{
    int64_t sizes[16] = {1, 2, 4, 8, 16, 32, 64};
    int nsizes = 7, nprec = 2, quick = 0, i, si, pi, li, nlay = 8, who;
    gemm_precision precs[2] = {GEMM_F32, GEMM_F64};
    char lays[8][4] = {"cNN", "cNT", "cTN", "cTT", "rNN", "rNT", "rTN", "rTT"}, name[4];
    const char *csv_path = NULL, *peer = "n/a";
    FILE *csv = NULL;
    int misses = 0;
#ifdef BENCH_HAVE_OPENBLAS
    if (!getenv("OPENBLAS_THREAD_TIMEOUT")) { /* as bench_cpu: its best kernel, chosen before it loads */
        openblas_coretype_set();
        setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
        execv("/proc/self/exe", argv);
        perror("bench_tiny: re-exec failed; continuing");
    }
    peer = openblas_get_corename();
    openblas_set_num_threads(1);
#endif
#ifdef BENCH_HAVE_LIBXSMM
    libxsmm_init();
#endif
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = battery_parse_list(argv[++i], sizes, 16);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) nprec = battery_parse_precs(argv[++i], precs);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--layouts") && i + 1 < argc) {
            const char *p = argv[++i];
            for (nlay = 0; nlay < 8 && strlen(p) >= 3; nlay++) {
                memcpy(lays[nlay], p, 3);
                lays[nlay][3] = '\0';
                p += 3;
                if (*p == ',') p++;
            }
        } else {
            fprintf(stderr, "usage: %s [--sizes 1,2,4] [--prec f32,f64] [--layouts cNN,rNT,...] [--csv FILE] "
                            "[--quick]\n", argv[0]);
            return 2;
        }
    }
    gemm_cpu_set_threads(1);
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "precision,layout,n,loop_ns,gemm_ns,openblas_ns,libxsmm_ns\n");
    printf("Per-call time of small products, 1 thread, ns per call (best of 7 batches; x: median/best)\n");
    printf("OpenBLAS core: %s%s; ratios: gemm/loop (bar <= 3 at n <= 4, <= 1 at n = 8), OpenBLAS/gemm (>= 1), "
           "libxsmm/gemm (>= 0.8) at n >= 8\n", peer, openblas_coretype_note());
    for (pi = 0; pi < nprec; pi++)
        for (li = 0; li < nlay; li++) {
            printf("\n%s %s\n%4s | %-14s | %-14s | %-14s | %-14s | %8s | %8s | %8s\n",
                   precs[pi] == GEMM_F32 ? "fp32" : "fp64", lays[li], "n", "loop", "gemm", "OpenBLAS", "libxsmm",
                   "gemm/lp", "OB/gemm", "xs/gemm");
            for (si = 0; si < nsizes; si++) {
                int n = (int)sizes[si], ok = 1;
                uint64_t state = 7 + (uint64_t)n;
                battery_buf A = battery_buf_new(precs[pi], (size_t)(n * n)), B = battery_buf_new(precs[pi], (size_t)(n * n));
                battery_buf C0 = battery_buf_new(precs[pi], (size_t)(n * n)), C = battery_buf_new(precs[pi], (size_t)(n * n));
                tiny_case t;
                double ns[NWHO], sp[NWHO], r;
                battery_fill(&A, &state);
                battery_fill(&B, &state);
                battery_fill(&C0, &state);
                memcpy(C.data, C0.data, battery_buf_bytes(&C0));
                t.prec = precs[pi];
                t.layout = lays[li][0] == 'r' ? GEMM_ROW_MAJOR : GEMM_COL_MAJOR;
                t.ta = lays[li][1] == 'T' ? GEMM_TRANS : GEMM_NO_TRANS;
                t.tb = lays[li][2] == 'T' ? GEMM_TRANS : GEMM_NO_TRANS;
                t.n = n;
                t.A = A.data;
                t.B = B.data;
                t.C = C.data;
                for (who = GEMM; who < NWHO; who++) ok = ok && (!have(who) || agrees(who, &t, &C0));
                measure(&t, quick, ns, sp);
                printf("%4d |", n);
                for (who = 0; who < NWHO; who++)
                    if (ns[who] > 0) printf(" %8.1f x%4.2f |", ns[who], sp[who]);
                    else printf(" %-14s |", "n/a");
                r = ns[GEMM] / ns[LOOP];
                printf(" %7.2f%s |", r, (n <= 4 && r > 3) || (n == 8 && r > 1) ? "!" : " ");
                if (ns[OPENBLAS] > 0) {
                    r = ns[OPENBLAS] / ns[GEMM];
                    printf(" %7.2f%s |", r, n >= 8 && r < 1 ? "!" : " ");
                    misses += n >= 8 && r < 1;
                } else printf(" %8s |", "n/a");
                if (ns[LIBXSMM] > 0) {
                    r = ns[LIBXSMM] / ns[GEMM];
                    printf(" %7.2f%s", r, n >= 8 && r < 0.8 ? "!" : " ");
                    misses += n >= 8 && r < 0.8;
                } else printf(" %8s", "n/a");
                r = ns[GEMM] / ns[LOOP];
                misses += (n <= 4 && r > 3) || (n == 8 && r > 1);
                printf("%s\n", ok ? "" : "  WRONG RESULT");
                if (csv)
                    fprintf(csv, "%s,%s,%d,%.2f,%.2f,%.2f,%.2f\n", precs[pi] == GEMM_F32 ? "f32" : "f64",
                            layout_name(&t, name), n, ns[LOOP], ns[GEMM], ns[OPENBLAS], ns[LIBXSMM]);
                fflush(stdout);
                battery_buf_free(&A);
                battery_buf_free(&B);
                battery_buf_free(&C0);
                battery_buf_free(&C);
                if (!ok) return 1;
            }
        }
    printf("\n%d cell(s) miss a bar\n", misses);
    if (csv) fclose(csv);
    return 0;
}
