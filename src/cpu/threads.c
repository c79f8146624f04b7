/* How many threads a call may use: gemm_cpu_set_threads, GEMM_NUM_THREADS,
   else the CPUs this process may run on (its affinity mask). */
#pragma once

#include <stdlib.h>           /* getenv, atol */
#include <string.h>           /* memset */
#include "../core/internal.h" /* gemm__fail, gemm__clear_error */
#include "api.h"              /* gemm_cpu_options, gemm_cpu_set_threads */
#include "platform.h"         /* GEMM__CPU_THREADS, sysconf */

#define GEMM__CPU_MAX_THREADS 64 /* the pool's size limit */

static int gemm__cpu_threads_requested; /* by gemm_cpu_set_threads; 0 = automatic */

GEMM_DEF gemm_status gemm_cpu_set_threads(int threads)
{
    gemm__clear_error();
    if (threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cpu_set_threads: threads = %d is negative", threads);
    GEMM__CPU_STORE(gemm__cpu_threads_requested, threads);
    return GEMM_OK;
}

#if defined(GEMM__CPU_THREADS) && defined(__linux__)
/* libc's sched_getaffinity under a name of our own: its declaration and
   cpu_set_t exist only with _GNU_SOURCE, which the program including this
   header may not define (glibc and musl both have the function). */
extern int gemm__cpu_sched_getaffinity(int pid, size_t bytes, unsigned long *mask) __asm__("sched_getaffinity");
#endif

#if defined(GEMM__CPU_THREADS)
/* The CPUs this process may run on: its affinity mask (what taskset,
   numactl, mpirun --bind-to and cgroup cpusets leave it), else the online
   count. A system call (~0.2 us), made only by calls that may use threads. */
static long gemm__cpu_usable_cpus(void)
{
    long n = 0;
#if defined(__linux__)
    unsigned long mask[128]; /* 8192 CPUs: the kernel refuses a mask shorter than its own */
    int i;
    memset(mask, 0, sizeof mask);
    if (gemm__cpu_sched_getaffinity(0, sizeof mask, mask) == 0)
        for (i = 0; i < (int)(sizeof mask / sizeof mask[0]); i++) n += __builtin_popcountl(mask[i]);
#endif
#if defined(_SC_NPROCESSORS_ONLN)
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    return n > 0 ? n : 1;
}
#endif

#if defined(GEMM__CPU_THREADS)
/* A thread count from the environment variable `name`: a whole number from
   1 to GEMM__CPU_MAX_THREADS, blanks around it allowed (OMP_NUM_THREADS may
   be a list, "4,2", whose first entry is the outer level's). 0 when it is
   unset or empty; -1 when it holds anything else, which is ignored
   (gemm_config() says so). */
static int gemm__cpu_env_threads(const char *name)
{
    const char *s = getenv(name);
    long n = 0;
    while (s && (*s == ' ' || *s == '\t')) s++;
    if (!s || !*s) return 0;
    if (*s < '0' || *s > '9') return -1;
    for (; *s >= '0' && *s <= '9'; s++)
        if ((n = n * 10 + (*s - '0')) > GEMM__CPU_MAX_THREADS) return -1;
    while (*s == ' ' || *s == '\t') s++;
    return n >= 1 && (*s == '\0' || (*s == ',' && strcmp(name, "OMP_NUM_THREADS") == 0)) ? (int)n : -1;
}
#endif

/* The threads a call with default options may use: gemm_cpu_set_threads(),
   else GEMM_NUM_THREADS, else OMP_NUM_THREADS, else the CPUs of the
   affinity mask (at most GEMM__CPU_MAX_THREADS), and where the count comes
   from (*source: "gemm_cpu_set_threads()", "GEMM_NUM_THREADS",
   "OMP_NUM_THREADS", "the affinity mask", or why there is one thread).
   *ignored gets 1 when GEMM_NUM_THREADS was read and ignored, 2 when
   OMP_NUM_THREADS was (3: both). Either may be NULL. */
static int gemm__cpu_default_threads(const char **source, int *ignored)
{
    const char *from;
    int n, skipped = 0;
#if !defined(GEMM__CPU_THREADS)
#if defined(GEMM_NO_THREADS)
    from = "GEMM_NO_THREADS", n = 1;
#else
    from = "no threads in this build", n = 1;
#endif
#else
    if ((n = GEMM__CPU_LOAD(gemm__cpu_threads_requested)) > 0) {
        from = "gemm_cpu_set_threads()";
        if (n > GEMM__CPU_MAX_THREADS) n = GEMM__CPU_MAX_THREADS;
    } else {
        int g = gemm__cpu_env_threads("GEMM_NUM_THREADS"), o = g > 0 ? 0 : gemm__cpu_env_threads("OMP_NUM_THREADS");
        skipped = (g < 0 ? 1 : 0) | (o < 0 ? 2 : 0);
        if (g > 0) n = g, from = "GEMM_NUM_THREADS";
        else if (o > 0) n = o, from = "OMP_NUM_THREADS";
        else {
            long cpus = gemm__cpu_usable_cpus();
            n = cpus > GEMM__CPU_MAX_THREADS ? GEMM__CPU_MAX_THREADS : (int)cpus;
            from = "the affinity mask";
        }
    }
#endif
    if (source) *source = from;
    if (ignored) *ignored = skipped;
    return n;
}

GEMM_DEF int gemm_cpu_get_threads(void) { return gemm__cpu_default_threads(NULL, NULL); }

/* The threads a call with these options may use, before the size of the
   problem has its say; options->threads is not negative here. */
static int gemm__cpu_threads_for_call(const gemm_cpu_options *options)
{
#if !defined(GEMM__CPU_THREADS)
    (void)options;
    return 1;
#else
    int n = options ? options->threads : 0;
    if (n == 0) return gemm_cpu_get_threads();
    return n > GEMM__CPU_MAX_THREADS ? GEMM__CPU_MAX_THREADS : n;
#endif
}
