/* gemm_config(): what this build and this machine make of gemm, in one
   line, for logs and bug reports: the version, the backends compiled into
   the implementation unit, the CPU kernel the calls run and why it was
   chosen, the default thread count and where it comes from (invalid
   GEMM_NUM_THREADS / OMP_NUM_THREADS values named as ignored), the cache
   blocks of both precisions and the caches they were sized from:

     gemm 0.5.0; backends: cpu, opencl; kernel: avx512 (cpuid: avx512f);
     threads: 4 from GEMM_NUM_THREADS; blocks: f32 MC=... KC=... NC=...,
     f64 MC=... KC=... NC=...; caches: L1d 32 KiB, L2 1024 KiB, L3 32768 KiB

   A backend counts as compiled in when its header was included in the
   implementation unit before gemm.h emitted the CPU backend's bodies (the
   backend headers include gemm.h first), or gemm.h was asked for it
   (GEMM_ENABLE_OPENCL, GEMM_ENABLE_MPI, GEMM_ENABLE_CUDA under nvcc,
   GEMM_CBLAS). Read afresh at every call (the environment may change); the
   text lives in a per-thread buffer until this thread's next call. */
#pragma once
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* getenv */
#include <string.h>

#include "../core/api.h"    /* GEMM_VERSION_STRING, GEMM_DEF */
#include "../core/config.h" /* GEMM__THREAD_LOCAL */
#include "platform.h"       /* GEMM__CPU_X86, GEMM__CPU_THREADS */
#include "kernel_select.c"  /* gemm__cpu_best_isa */
#include "threads.c"        /* gemm__cpu_default_threads */
#include "cache_info.c"     /* gemm__cpu_cache_sizes */
#include "cache_blocking.c" /* gemm__cpu_blocking */

/* Why the kernels called `name` are the best this CPU runs. */
static const char *gemm__cpu_isa_reason(const char *name)
{
    if (strcmp(name, "avx512") == 0) return "cpuid: avx512f";
    if (strcmp(name, "avx2") == 0) return "cpuid: avx2 and fma, no avx512f";
    if (strcmp(name, "neon") == 0) return "aarch64: Advanced SIMD";
#if defined(GEMM_NO_SIMD)
    return "GEMM_NO_SIMD";
#elif defined(GEMM__CPU_X86)
    return "cpuid: no avx2 with fma";
#else
    return "no SIMD kernels for this CPU or compiler";
#endif
}

/* ", VAR=value ignored" for an environment variable gemm read and ignored
   (not a whole number from 1 to GEMM__CPU_MAX_THREADS). */
static void gemm__cpu_report_ignored(char *out, size_t size, const char *name)
{
    const char *v = getenv(name);
    size_t used = strlen(out);
    if (used < size)
        snprintf(out + used, size - used, ", %s=%.24s%s ignored", name, v ? v : "", v && strlen(v) > 24 ? "..." : "");
}

static void gemm__cpu_report_cache(char *out, size_t size, const char *name, long bytes)
{
    size_t used = strlen(out);
    if (used >= size) return;
    if (bytes > 0) snprintf(out + used, size - used, "%s%s %ld KiB", used ? ", " : "", name, bytes / 1024);
    else snprintf(out + used, size - used, "%s%s unknown", used ? ", " : "", name);
}

/* The backends compiled into this implementation unit. */
#if defined(GEMM_CUDA_CUH_INCLUDED) || (defined(GEMM_ENABLE_CUDA) && defined(__CUDACC__))
#define GEMM__CPU_REPORT_CUDA ", cuda"
#else
#define GEMM__CPU_REPORT_CUDA ""
#endif
#if defined(GEMM_CL_H_INCLUDED) || defined(GEMM_ENABLE_OPENCL)
#define GEMM__CPU_REPORT_OPENCL ", opencl"
#else
#define GEMM__CPU_REPORT_OPENCL ""
#endif
#if defined(GEMM_MPI_H_INCLUDED) || defined(GEMM_ENABLE_MPI)
#define GEMM__CPU_REPORT_MPI ", mpi"
#else
#define GEMM__CPU_REPORT_MPI ""
#endif
#if defined(GEMM_CBLAS_H_INCLUDED) || defined(GEMM_CBLAS)
#define GEMM__CPU_REPORT_CBLAS ", cblas"
#else
#define GEMM__CPU_REPORT_CBLAS ""
#endif
static const char gemm__cpu_report_backends[] =
    "cpu" GEMM__CPU_REPORT_CUDA GEMM__CPU_REPORT_OPENCL GEMM__CPU_REPORT_MPI GEMM__CPU_REPORT_CBLAS;

GEMM_DEF const char *gemm_config(void)
{
    static GEMM__THREAD_LOCAL char line[1024];
    char ignored[192] = "", caches[96] = "";
    const gemm__cpu_isa *isa = gemm__cpu_best_isa();
    const char *source;
    int skipped, threads = gemm__cpu_default_threads(&source, &skipped);
    int64_t smc, skc, snc, dmc, dkc, dnc;
    gemm__cpu_caches c = gemm__cpu_cache_sizes();
    gemm__cpu_blocking(isa->f32.mr, isa->f32.nr, 4, &smc, &skc, &snc);
    gemm__cpu_blocking(isa->f64.mr, isa->f64.nr, 8, &dmc, &dkc, &dnc);
    if (skipped & 1) gemm__cpu_report_ignored(ignored, sizeof ignored, "GEMM_NUM_THREADS");
    if (skipped & 2) gemm__cpu_report_ignored(ignored, sizeof ignored, "OMP_NUM_THREADS");
    gemm__cpu_report_cache(caches, sizeof caches, "L1d", c.l1d);
    gemm__cpu_report_cache(caches, sizeof caches, "L2", c.l2);
    gemm__cpu_report_cache(caches, sizeof caches, "L3", c.l3);
    snprintf(line, sizeof line,
             "gemm %s; backends: %s; kernel: %s (%s); threads: %d from %s%s; "
             "blocks: f32 MC=%lld KC=%lld NC=%lld, f64 MC=%lld KC=%lld NC=%lld; caches: %s",
             GEMM_VERSION_STRING, gemm__cpu_report_backends, isa->name, gemm__cpu_isa_reason(isa->name), threads,
             source, ignored, (long long)smc, (long long)skc,
             (long long)snc, (long long)dmc, (long long)dkc, (long long)dnc, caches);
    return line;
}
