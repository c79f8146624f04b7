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

GEMM_DEF int gemm_cpu_get_threads(void)
{
#if !defined(GEMM__CPU_THREADS)
    return 1;
#else
    const char *env;
    long n = GEMM__CPU_LOAD(gemm__cpu_threads_requested);
    if (n <= 0 && (env = getenv("GEMM_NUM_THREADS")) != NULL) n = atol(env);
    if (n <= 0) n = gemm__cpu_usable_cpus();
    return n > GEMM__CPU_MAX_THREADS ? GEMM__CPU_MAX_THREADS : (int)n;
#endif
}

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
