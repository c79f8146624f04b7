/* tests/test_config.c - gemm_config(), field by field (tests/test_config.sh
   builds it several ways and runs it in child processes).

       test_config            the checks below; last line N passed, N failed
       test_config print [N]  print gemm_config() (after gemm_cpu_set_threads(N))

   Checks, each against what the test finds out on its own:
   - version: "gemm " GEMM_VERSION_STRING;
   - backends: TEST_BACKENDS (the build says which, default "cpu");
   - kernel: the one the CPU's features call for (__builtin_cpu_supports on
     x86-64: avx512f, else avx2 and fma, else scalar; GEMM_NO_SIMD: scalar)
     with its reason;
   - threads: the count and its source for GEMM_NUM_THREADS and
     OMP_NUM_THREADS set (setenv) to valid values, invalid ones (non-numeric,
     0, negative, above 64, trailing junk: ignored and named), both, none
     (the affinity mask's CPUs, sched_getaffinity), gemm_cpu_set_threads()
     first; gemm_cpu_get_threads() says the same count; GEMM_NO_THREADS: 1;
   - blocks: f32 and f64 MC, KC, NC follow the rule gemm_cpu.h states from
     the caches the line reports (KC: a KC x NR panel in half of L1d, a
     multiple of 8 from 64 to 1024; MC: an MC x KC block in half of L2, a
     multiple of MR; NC: a KC x NC panel in a quarter of L3, 2 to 8 MiB, a
     multiple of NR), for the kernel's MR x NR. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT, setenv (g++ defines it) */
#endif
#define GEMM_IMPLEMENTATION
#if defined(TEST_INCLUDE_CL)
#include "../gemm_cl.h"
#elif defined(TEST_INCLUDE_MPI)
#include "../gemm_mpi.h"
#else
#include "../gemm.h"
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_BACKENDS
#define TEST_BACKENDS "cpu"
#endif

static int passed, failed;
static void check(int ok, const char *what, const char *line)
{
    if (ok) passed++;
    else failed++;
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok && line) printf("     %s\n", line);
}

/* The number after `key` in the line (0 when missing); *unknown when the
   text there is "unknown". */
static long field(const char *line, const char *key, int *unknown)
{
    const char *p = strstr(line, key);
    if (unknown) *unknown = p && strncmp(p + strlen(key), "unknown", 7) == 0;
    return p ? atol(p + strlen(key)) : 0;
}

static void kernel_expected(const char **name, const char **why, int *smr, int *snr, int *dmr, int *dnr)
{
#if defined(GEMM_NO_SIMD)
    *name = "scalar", *why = "GEMM_NO_SIMD";
#elif defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) *name = "avx512", *why = "cpuid: avx512f";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        *name = "avx2", *why = "cpuid: avx2 and fma, no avx512f";
    else *name = "scalar", *why = "cpuid: no avx2 with fma";
#elif defined(__aarch64__)
    *name = "neon", *why = "aarch64: Advanced SIMD";
#else
    *name = "scalar", *why = "no SIMD kernels for this CPU or compiler";
#endif
    if (strcmp(*name, "avx512") == 0) *smr = 32, *snr = 8, *dmr = 16, *dnr = 8;
    else if (strcmp(*name, "avx2") == 0) *smr = 16, *snr = 6, *dmr = 8, *dnr = 6;
    else if (strcmp(*name, "neon") == 0) *smr = 8, *snr = 12, *dmr = 4, *dnr = 12;
    else *smr = 2, *snr = 6, *dmr = 2, *dnr = 6;
}

/* gemm_cpu.h's block rule for one precision; returns 1 when the reported
   MC, KC, NC are it. */
static int blocks_follow_rule(const char *line, const char *prec, int mr, int nr, int size, char *why, size_t len)
{
    char key[32];
    int u1, u2, u3;
    long l1 = field(line, "L1d ", &u1) * 1024, l2 = field(line, "L2 ", &u2) * 1024, l3 = field(line, "L3 ", &u3) * 1024;
    long mc, kc, nc, panel, want_mc, want_kc, want_nc;
    snprintf(key, sizeof key, "%s MC=", prec), mc = field(line, key, NULL);
    kc = field(strstr(line, key) ? strstr(line, key) : line, "KC=", NULL);
    nc = field(strstr(line, key) ? strstr(line, key) : line, "NC=", NULL);
    if (l1 < 16384 || l1 > 1048576) l1 = 32768; /* the rule's defaults for caches it does not trust */
    if (l2 < 131072 || l2 > 67108864) l2 = 1048576;
    want_kc = l1 / 2 / (nr * size) / 8 * 8;
    want_kc = want_kc < 64 ? 64 : want_kc > 1024 ? 1024 : want_kc;
    want_mc = l2 / 2 / (want_kc * size) / mr * mr;
    if (want_mc < mr) want_mc = mr;
    panel = l3 >= 4194304 ? l3 / 4 : 4194304;
    panel = panel < 2097152 ? 2097152 : panel > 8388608 ? 8388608 : panel;
    want_nc = panel / (want_kc * size) / nr * nr;
    if (want_nc < nr) want_nc = nr;
    snprintf(why, len, "%s blocks MC=%ld KC=%ld NC=%ld follow the rule for %dx%d tiles (MC=%ld KC=%ld NC=%ld)", prec,
             mc, kc, nc, mr, nr, want_mc, want_kc, want_nc);
    (void)u1, (void)u2, (void)u3;
    return mc == want_mc && kc == want_kc && nc == want_nc;
}

/* With GEMM_NUM_THREADS = g and OMP_NUM_THREADS = o (NULL: unset), the
   line says "threads: <want> from <source>" and names exactly the ignored
   variables. */
static void threads_case(const char *g, const char *o, int want, const char *source, int ignored_g, int ignored_o)
{
    char what[512], expect[160], ig[64];
    const char *line;
    int ok;
    if (g) setenv("GEMM_NUM_THREADS", g, 1);
    else unsetenv("GEMM_NUM_THREADS");
    if (o) setenv("OMP_NUM_THREADS", o, 1);
    else unsetenv("OMP_NUM_THREADS");
    line = gemm_config();
    snprintf(expect, sizeof expect, "threads: %d from %s", want, source);
    ok = strstr(line, expect) != NULL && gemm_cpu_get_threads() == want;
    snprintf(ig, sizeof ig, "GEMM_NUM_THREADS=%s ignored", g ? g : "");
    ok = ok && (strstr(line, ig) != NULL) == ignored_g;
    snprintf(ig, sizeof ig, "OMP_NUM_THREADS=%s ignored", o ? o : "");
    ok = ok && (strstr(line, ig) != NULL) == ignored_o;
    ok = ok && (ignored_g || ignored_o || !strstr(line, "ignored"));
    snprintf(what, sizeof what, "GEMM_NUM_THREADS=%s OMP_NUM_THREADS=%s: \"%s\"%s%s, gemm_cpu_get_threads() %d",
             g ? g : "(unset)", o ? o : "(unset)", expect, ignored_g ? ", GEMM_NUM_THREADS ignored" : "",
             ignored_o ? ", OMP_NUM_THREADS ignored" : "", gemm_cpu_get_threads());
    check(ok, what, line);
}

int main(int argc, char **argv)
{
    char what[256], expect[160];
    const char *line = gemm_config(), *kernel, *why;
    int smr, snr, dmr, dnr, mask = 1;
    if (argc > 1 && strcmp(argv[1], "print") == 0) {
        if (argc > 2) gemm_cpu_set_threads(atoi(argv[2]));
        printf("%s\n", gemm_config());
        return 0;
    }
    printf("%s\n", line);

    snprintf(expect, sizeof expect, "gemm %s; ", GEMM_VERSION_STRING);
    snprintf(what, sizeof what, "version: starts \"%s\"", expect);
    check(strncmp(line, expect, strlen(expect)) == 0, what, line);
    snprintf(expect, sizeof expect, "; backends: %s; ", TEST_BACKENDS);
    snprintf(what, sizeof what, "backends: \"%s\"", expect);
    check(strstr(line, expect) != NULL, what, line);
    kernel_expected(&kernel, &why, &smr, &snr, &dmr, &dnr);
    snprintf(expect, sizeof expect, "; kernel: %s (%s); ", kernel, why);
    snprintf(what, sizeof what, "kernel: \"%s\"", expect);
    check(strstr(line, expect) != NULL, what, line);
    check(blocks_follow_rule(line, "f32", smr, snr, 4, what, sizeof what), what, line);
    check(blocks_follow_rule(line, "f64", dmr, dnr, 8, what, sizeof what), what, line);
    check(gemm_config() == gemm_config(), "the text is one per-thread buffer", NULL);

#if defined(GEMM_NO_THREADS)
    threads_case("4", NULL, 1, "GEMM_NO_THREADS", 0, 0);
    gemm_cpu_set_threads(5);
    threads_case(NULL, "3", 1, "GEMM_NO_THREADS", 0, 0);
    (void)mask;
#else
    {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0) mask = CPU_COUNT(&set);
        if (mask > 64) mask = 64;
    }
    threads_case(NULL, NULL, mask, "the affinity mask", 0, 0);
    threads_case("4", NULL, 4, "GEMM_NUM_THREADS", 0, 0);
    threads_case(" 3 ", NULL, 3, "GEMM_NUM_THREADS", 0, 0);
    threads_case("64", NULL, 64, "GEMM_NUM_THREADS", 0, 0);
    threads_case("", NULL, mask, "the affinity mask", 0, 0);
    threads_case("abc", NULL, mask, "the affinity mask", 1, 0);
    threads_case("0", NULL, mask, "the affinity mask", 1, 0);
    threads_case("-2", NULL, mask, "the affinity mask", 1, 0);
    threads_case("65", NULL, mask, "the affinity mask", 1, 0);
    threads_case("99999999999999999999", NULL, mask, "the affinity mask", 1, 0);
    threads_case("4x", NULL, mask, "the affinity mask", 1, 0);
    threads_case("4,2", NULL, mask, "the affinity mask", 1, 0);
    threads_case(NULL, "3", 3, "OMP_NUM_THREADS", 0, 0);
    threads_case(NULL, "3,2", 3, "OMP_NUM_THREADS", 0, 0);
    threads_case(NULL, "many", mask, "the affinity mask", 0, 1);
    threads_case(NULL, "100", mask, "the affinity mask", 0, 1);
    threads_case("5", "3", 5, "GEMM_NUM_THREADS", 0, 0);
    threads_case("5", "junk", 5, "GEMM_NUM_THREADS", 0, 0); /* OMP_NUM_THREADS is not read */
    threads_case("abc", "3", 3, "OMP_NUM_THREADS", 1, 0);
    threads_case("abc", "0", mask, "the affinity mask", 1, 1);
    gemm_cpu_set_threads(7);
    threads_case("abc", "3", 7, "gemm_cpu_set_threads()", 0, 0);
    gemm_cpu_set_threads(0);
    threads_case("2", NULL, 2, "GEMM_NUM_THREADS", 0, 0);
#endif
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
