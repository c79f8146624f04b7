/* bench/bench_cpu.c - gemm's CPU backend beside OpenBLAS, in one process.

   make bench                      the default table: fp32 and fp64, 1 and 2
                                   threads, square n = 64..4096 and the
                                   non-square shapes of issue 3
   build/bench_cpu [--threads 1,2] [--sizes 256,512] [--shapes m:n:k,...]
                   [--prec f32,f64] [--csv FILE] [--quick]
   (--sizes or --shapes alone replace the default list: only those run)

   Peak: before the table, the FMA peak of the vector unit gemm's kernel
   uses (AVX-512 or AVX2) is measured with 24 independent FMA chains per
   thread (best of 5 runs), for each thread count; every cell shows ours as
   a fraction of it.

   Protocol (docs/DESIGN.md, "Measuring"): random inputs in [-0.5, 0.5), a warm-up
   call, then ours and the peer's calls interleaved (A B A B), the median of
   the repeats (at least 5, or as many as fit in about a second; 3 when one
   call takes over half a second), min and max beside it. Every result is
   checked once against the fp64 reference on a sample of its elements.

   OpenBLAS (Debian's 0.3.21) does not know newer Xeons and falls back to
   its SSE3 "Prescott" kernels; its best kernel is chosen before it loads by
   setting OPENBLAS_CORETYPE (SkylakeX with AVX-512, Haswell with AVX2) and
   re-executing this program. The kernel it ran is printed in the header.
   OPENBLAS_THREAD_TIMEOUT=4 is set the same way: after a call, OpenBLAS's
   idle threads otherwise spin for a long while, and in an interleaved run
   that spinning takes a core from the next (our) 2-thread call (measured:
   gemm 2048^3 fp32 on 2 threads 197 GFLOP/s beside spinning OpenBLAS
   threads, 286 with them asleep; OpenBLAS's own median was 290 and 304).
   gemm's pool spins for only ~50 us before it yields. */
#define _POSIX_C_SOURCE 200809L
#define GEMM__TEST_HOOKS /* gemm__cpu_kernel(): which kernel runs */
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "../tests/battery.h"
#include "openblas_coretype.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#ifdef BENCH_HAVE_OPENBLAS
/* The few CBLAS entry points the benchmark needs (no header required). */
void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc);
void cblas_dgemm(int layout, int ta, int tb, int m, int n, int k, double alpha, const double *A, int lda,
                 const double *B, int ldb, double beta, double *C, int ldc);
char *openblas_get_corename(void);
void openblas_set_num_threads(int n);
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


/* Runs ours (who = 0) or the peer (who = 1) once; returns seconds. */
static double run_once(int who, gemm_precision prec, battery_shape s, const battery_buf *A, const battery_buf *B,
                       battery_buf *C)
{
    double t = now();
    if (who == 0) {
        gemm_status st = prec == GEMM_F32
            ? gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, 1.0f, (const float *)A->data,
                         s.k, (const float *)B->data, s.n, 0.0f, (float *)C->data, s.n)
            : gemm_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, s.m, s.n, s.k, 1.0, (const double *)A->data,
                         s.k, (const double *)B->data, s.n, 0.0, (double *)C->data, s.n);
        if (st != GEMM_OK) {
            fprintf(stderr, "bench: %s (%s)\n", gemm_strerror(st), gemm_last_error_detail());
            exit(1);
        }
    }
#ifdef BENCH_HAVE_OPENBLAS
    else if (prec == GEMM_F32)
        cblas_sgemm(101, 111, 111, (int)s.m, (int)s.n, (int)s.k, 1.0f, (const float *)A->data, (int)s.k,
                    (const float *)B->data, (int)s.n, 0.0f, (float *)C->data, (int)s.n);
    else
        cblas_dgemm(101, 111, 111, (int)s.m, (int)s.n, (int)s.k, 1.0, (const double *)A->data, (int)s.k,
                    (const double *)B->data, (int)s.n, 0.0, (double *)C->data, (int)s.n);
#endif
    return now() - t;
}

/* ---- the FMA peak: 24 independent FMA chains per thread ---- */

typedef double (*peak_fn)(long iters);

#define BENCH_R24(X, F) X(0, F) X(1, F) X(2, F) X(3, F) X(4, F) X(5, F) X(6, F) X(7, F) X(8, F) X(9, F) \
    X(10, F) X(11, F) X(12, F) X(13, F) X(14, F) X(15, F) X(16, F) X(17, F) X(18, F) X(19, F) X(20, F)  \
    X(21, F) X(22, F) X(23, F)
#define BENCH_STEP(j, F) x##j = F(x##j, m, a);
#define BENCH_ADD(j, F) sum = F(sum, x##j);
/* Returns a sum of the results, so the loop cannot be optimised away. */
#define BENCH_PEAK_FN(NAME, ATTR, T, V, SET1, FMA, ADD, STORE)                                     \
    static ATTR double NAME(long iters)                                                             \
    {                                                                                               \
        T out[16];                                                                                  \
        double r = 0;                                                                               \
        long i;                                                                                     \
        int e;                                                                                      \
        V m = SET1((T)0.999999), a = SET1((T)1e-7), sum = SET1((T)0);                               \
        /* distinct starts, or the compiler merges identical chains */                            \
        V x0 = SET1((T)1.00), x1 = SET1((T)1.01), x2 = SET1((T)1.02), x3 = SET1((T)1.03);           \
        V x4 = SET1((T)1.04), x5 = SET1((T)1.05), x6 = SET1((T)1.06), x7 = SET1((T)1.07);           \
        V x8 = SET1((T)1.08), x9 = SET1((T)1.09), x10 = SET1((T)1.10), x11 = SET1((T)1.11);         \
        V x12 = SET1((T)1.12), x13 = SET1((T)1.13), x14 = SET1((T)1.14), x15 = SET1((T)1.15);       \
        V x16 = SET1((T)1.16), x17 = SET1((T)1.17), x18 = SET1((T)1.18), x19 = SET1((T)1.19);       \
        V x20 = SET1((T)1.20), x21 = SET1((T)1.21), x22 = SET1((T)1.22), x23 = SET1((T)1.23);       \
        for (i = 0; i < iters; i++) { BENCH_R24(BENCH_STEP, FMA) }                                  \
        BENCH_R24(BENCH_ADD, ADD)                                                                   \
        STORE(out, sum);                                                                            \
        for (e = 0; e < (int)(sizeof(V) / sizeof(T)); e++) r += out[e];                             \
        return r;                                                                                   \
    }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
BENCH_PEAK_FN(peak_z_s, __attribute__((target("avx512f"))), float, __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_storeu_ps)
BENCH_PEAK_FN(peak_z_d, __attribute__((target("avx512f"))), double, __m512d, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_add_pd, _mm512_storeu_pd)
BENCH_PEAK_FN(peak_y_s, __attribute__((target("avx2,fma"))), float, __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_storeu_ps)
BENCH_PEAK_FN(peak_y_d, __attribute__((target("avx2,fma"))), double, __m256d, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_add_pd, _mm256_storeu_pd)
#endif

typedef struct peak_job { peak_fn fn; long iters; double sink; } peak_job;
static void *peak_thread(void *p) { peak_job *j = (peak_job *)p; j->sink = j->fn(j->iters); return NULL; }

/* GFLOP/s of `threads` threads running the peak loop of gemm's kernel at
   once (the best of 5 runs of ~100 ms: a peak is what the unit can do);
   0 when that kernel has no measured peak (scalar). */
static double measure_peak(gemm_precision prec, int threads)
{
    const char *k = gemm__cpu_kernel();
    peak_fn fn = NULL;
    int lanes = 0, r, t;
    long iters = 25000000;
    double best = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (!strcmp(k, "avx512")) { fn = prec == GEMM_F32 ? peak_z_s : peak_z_d; lanes = prec == GEMM_F32 ? 16 : 8; }
    if (!strcmp(k, "avx2")) { fn = prec == GEMM_F32 ? peak_y_s : peak_y_d; lanes = prec == GEMM_F32 ? 8 : 4; }
#endif
    if (!fn || threads < 1 || threads > 64) return 0;
    for (r = 0; r < 5; r++) {
        pthread_t th[64];
        peak_job job[64];
        double t0 = now();
        for (t = 0; t < threads; t++) {
            job[t].fn = fn; job[t].iters = iters;
            if (t > 0 && pthread_create(&th[t], NULL, peak_thread, &job[t]) != 0) return 0;
        }
        peak_thread(&job[0]);
        for (t = 1; t < threads; t++) pthread_join(th[t], NULL);
        t0 = 24.0 * 2.0 * lanes * (double)iters * threads / (now() - t0) * 1e-9;
        if (t0 > best) best = t0;
    }
    return best;
}

static void cpu_model(char *out, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(out, size, "unknown CPU");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(out, size, "%s", strchr(line, ':') + 2);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    if (f) fclose(f);
}

int main(int argc, char **argv)
{
    int64_t sizes[32] = {64, 128, 256, 512, 1024, 2048, 4096}, threads[8] = {1, 2}, prec_count = 2;
    battery_shape shapes[64];
    int nsizes = 7, nthreads = 2, nshapes = 0, i, ti, si, quick = 0;
    gemm_precision precs[2] = {GEMM_F32, GEMM_F64};
    const char *csv_path = NULL, *peer = "n/a";
    char model[256];
    double peak[8][2];
    int sizes_given = 0, shapes_given = 0;
    FILE *csv = NULL;

#ifdef BENCH_HAVE_OPENBLAS
    /* Both must be set before OpenBLAS loads, hence the re-exec (once: the
       second run finds OPENBLAS_THREAD_TIMEOUT set). */
    if (!getenv("OPENBLAS_THREAD_TIMEOUT")) {
        openblas_coretype_set();
        setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
        execv("/proc/self/exe", argv);
        perror("bench: re-exec with OPENBLAS_CORETYPE failed; continuing");
    }
    peer = openblas_get_corename();
#endif
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = battery_parse_list(argv[++i], threads, 8);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) { nsizes = battery_parse_list(argv[++i], sizes, 32); sizes_given = 1; }
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) prec_count = battery_parse_precs(argv[++i], precs);
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            const char *p = argv[++i];
            shapes_given = 1;
            nshapes = battery_parse_shapes(p, shapes, 64);
        } else {
            fprintf(stderr, "usage: %s [--threads 1,2] [--sizes n,...] [--shapes m:n:k,...] [--prec f32,f64] "
                            "[--csv FILE] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (nshapes == 0 || sizes_given)
        for (i = 0; i < nsizes; i++) {
            memmove(&shapes[1], &shapes[0], sizeof(battery_shape) * (size_t)(nshapes < 63 ? nshapes : 63));
            shapes[0].m = shapes[0].n = shapes[0].k = sizes[nsizes - 1 - i];
            if (nshapes < 64) nshapes++;
        }
    if (!sizes_given && !shapes_given) { /* the non-square shapes of issue 3 after the squares */
        static const battery_shape extra[4] = {{4096, 4096, 256}, {256, 4096, 4096}, {4096, 256, 4096}, {1000, 1000, 1000}};
        for (i = 0; i < 4 && nshapes < 64; i++) shapes[nshapes++] = extra[i];
    }
    if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
    if (csv) fprintf(csv, "backend,precision,threads,m,n,k,ours_gflops,peer,peer_gflops,ratio,peak_gflops,ours_of_peak\n");

    cpu_model(model, sizeof model);
    printf("gemm CPU vs OpenBLAS (core: %s%s), row-major NN, GFLOP/s median [min-max]\n", peer,
#ifdef BENCH_HAVE_OPENBLAS
           openblas_coretype_note()
#else
           ""
#endif
    );
    printf("CPU: %s, %ld online; gemm kernel: %s\n", model, sysconf(_SC_NPROCESSORS_ONLN), gemm__cpu_kernel());
    printf("FMA peak of that vector unit (24 chains/thread, best of 5), GFLOP/s:");
    for (ti = 0; ti < nthreads; ti++)
        for (i = 0; i < prec_count; i++) {
            peak[ti][precs[i] == GEMM_F64] = measure_peak(precs[i], (int)threads[ti]);
            printf(" %s %lld thr %.0f;", precs[i] == GEMM_F32 ? "fp32" : "fp64", (long long)threads[ti], peak[ti][precs[i] == GEMM_F64]);
        }
    printf("\n");
    for (ti = 0; ti < nthreads; ti++) {
        int th = (int)threads[ti], pi;
        gemm_cpu_set_threads(th);
#ifdef BENCH_HAVE_OPENBLAS
        openblas_set_num_threads(th);
#endif
        for (pi = 0; pi < prec_count; pi++) {
            gemm_precision prec = precs[pi];
            printf("\n%s, %d thread%s\n%6s %6s %6s | %-24s | %-24s | %-5s | %s\n", prec == GEMM_F32 ? "fp32" : "fp64",
                   th, th == 1 ? "" : "s", "m", "n", "k", "gemm", "OpenBLAS", "ratio", "gemm/peak");
            for (si = 0; si < nshapes; si++) {
                battery_shape s = shapes[si];
                uint64_t state = 42;
                battery_buf A = battery_buf_new(prec, (size_t)(s.m * s.k)), B = battery_buf_new(prec, (size_t)(s.k * s.n));
                battery_buf C = battery_buf_new(prec, (size_t)(s.m * s.n));
                double t[2][64], gf[2][3], flops = 2.0 * (double)s.m * (double)s.n * (double)s.k, first;
                int reps, r, who, have_peer = strcmp(peer, "n/a") != 0, ok[2] = {1, 1};
                battery_fill(&A, &state);
                battery_fill(&B, &state);
                first = run_once(0, prec, s, &A, &B, &C); /* warm-up */
                ok[0] = battery_sampled_ok(prec, GEMM_NO_TRANS, GEMM_NO_TRANS, s, &A, &B, battery_read_host, &C);
                if (have_peer) { run_once(1, prec, s, &A, &B, &C); ok[1] = battery_sampled_ok(prec, GEMM_NO_TRANS, GEMM_NO_TRANS, s, &A, &B, battery_read_host, &C); }
                reps = first > 0.5 ? 3 : (int)(1.0 / (first + 1e-9));
                if (reps < 5) reps = first > 0.5 ? 3 : 5;
                if (reps > 50) reps = 50;
                if (quick) reps = 3;
                for (r = 0; r < reps; r++)
                    for (who = 0; who < 1 + have_peer; who++) t[who][r] = run_once(who, prec, s, &A, &B, &C);
                for (who = 0; who < 1 + have_peer; who++) {
                    battery_sort(t[who], (int)reps);
                    gf[who][0] = flops / t[who][reps / 2] * 1e-9;
                    gf[who][1] = flops / t[who][reps - 1] * 1e-9;
                    gf[who][2] = flops / t[who][0] * 1e-9;
                }
                printf("%6lld %6lld %6lld | %7.1f [%6.1f-%6.1f]%s | ", (long long)s.m, (long long)s.n, (long long)s.k,
                       gf[0][0], gf[0][1], gf[0][2], ok[0] ? "  " : " !");
                if (have_peer)
                    printf("%7.1f [%6.1f-%6.1f]%s | %5.2f | ", gf[1][0], gf[1][1], gf[1][2], ok[1] ? "  " : " !",
                           gf[0][0] / gf[1][0]);
                else
                    printf("%-24s | %5s | ", "n/a", "n/a");
                if (peak[ti][prec == GEMM_F64] > 0) printf("%3.0f%%\n", 100.0 * gf[0][0] / peak[ti][prec == GEMM_F64]);
                else printf("n/a\n");
                if (csv) {
                    fprintf(csv, "cpu,%s,%d,%lld,%lld,%lld,%.2f,%s,", prec == GEMM_F32 ? "f32" : "f64", th,
                            (long long)s.m, (long long)s.n, (long long)s.k, gf[0][0], have_peer ? peer : "n/a");
                    if (have_peer) fprintf(csv, "%.2f,%.3f,", gf[1][0], gf[0][0] / gf[1][0]);
                    else fprintf(csv, "n/a,n/a,");
                    if (peak[ti][prec == GEMM_F64] > 0) fprintf(csv, "%.1f,%.3f\n", peak[ti][prec == GEMM_F64], gf[0][0] / peak[ti][prec == GEMM_F64]);
                    else fprintf(csv, "n/a,n/a\n");
                }
                fflush(stdout);
                if (!ok[0]) { fprintf(stderr, "bench: gemm's result is WRONG for %lldx%lldx%lld\n", (long long)s.m, (long long)s.n, (long long)s.k); return 1; }
                battery_buf_free(&A);
                battery_buf_free(&B);
                battery_buf_free(&C);
            }
        }
    }
    if (csv) { fclose(csv); printf("\nwrote %s\n", csv_path); }
    return 0;
}
