/* The data caches of one core, as the CPU reports them: cpuid (leaf 4 on
   Intel, 0x8000001D on AMD: the deterministic cache parameters), else
   Linux's sysfs (every architecture), else sysconf (glibc), else nothing
   (the blocking then uses defaults). Read once; a virtual machine reports
   what its hypervisor passes through, which is what it runs on. */
#pragma once

#include <stdio.h>    /* fopen, snprintf */
#include <stdlib.h>   /* atol */
#include <string.h>   /* strchr, memset */
#include "platform.h" /* GEMM__CPU_X86 (<cpuid.h>), sysconf, GEMM__CPU_LOAD */

typedef struct gemm__cpu_caches {
    long l1d, l2, l3; /* bytes; 0 = unknown */
} gemm__cpu_caches;

#if defined(GEMM__CPU_X86)
/* One cpuid cache leaf (4 or 0x8000001D), subleaf by subleaf. */
static void gemm__cpu_caches_cpuid_leaf(unsigned leaf, gemm__cpu_caches *out)
{
    unsigned i, a, b, c, d;
    for (i = 0; i < 16; i++) {
        unsigned type, level;
        long bytes;
        __cpuid_count(leaf, i, a, b, c, d);
        type = a & 31; /* 0: no more caches, 1: data, 2: instruction, 3: unified */
        level = (a >> 5) & 7;
        if (type == 0) break;
        if (type == 2) continue;
        bytes = (long)((b >> 22) + 1) * (long)(((b >> 12) & 0x3ff) + 1) * (long)((b & 0xfff) + 1) * (long)(c + 1);
        if (level == 1) out->l1d = bytes;
        else if (level == 2) out->l2 = bytes;
        else if (level == 3) out->l3 = bytes;
    }
    (void)d;
}

/* Intel and Hygon describe their caches in leaf 4; AMD leaves it zero and
   uses 0x8000001D (same format) when it reports TOPOEXT. */
static void gemm__cpu_caches_cpuid(gemm__cpu_caches *out)
{
    unsigned a, b, c, d;
    if ((unsigned)__get_cpuid_max(0, NULL) >= 4) gemm__cpu_caches_cpuid_leaf(4, out);
    if (!out->l1d && (unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x8000001Du &&
        __get_cpuid(0x80000001u, &a, &b, &c, &d) && ((c >> 22) & 1))
        gemm__cpu_caches_cpuid_leaf(0x8000001Du, out);
}
#endif

#if defined(__linux__)
/* A number from a sysfs file of cpu0's cache `index` ("48K", "2048K", "3"),
   and its first letter in *first when asked ("Data", "Instruction",
   "Unified"). Returns -1 when the file is missing. */
static long gemm__cpu_sysfs_value(int index, const char *name, char *first)
{
    char path[96], text[64];
    FILE *f;
    long v = -1;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, name);
    if (!(f = fopen(path, "r"))) return -1;
    if (fgets(text, sizeof text, f)) {
        if (first) *first = text[0];
        v = atol(text);
        if (strchr(text, 'K')) v *= 1024;
        else if (strchr(text, 'M')) v *= 1048576;
    }
    fclose(f);
    return v;
}

static void gemm__cpu_caches_sysfs(gemm__cpu_caches *out)
{
    int i;
    for (i = 0; i < 16; i++) {
        char type = '?';
        long level = gemm__cpu_sysfs_value(i, "level", NULL), bytes = gemm__cpu_sysfs_value(i, "size", NULL);
        if (level < 0) break;
        gemm__cpu_sysfs_value(i, "type", &type);
        if (type == 'I' || bytes <= 0) continue; /* Instruction */
        if (level == 1 && !out->l1d) out->l1d = bytes;
        else if (level == 2 && !out->l2) out->l2 = bytes;
        else if (level == 3 && !out->l3) out->l3 = bytes;
    }
}
#endif

/* Fills what the sources before it left unknown. */
static void gemm__cpu_caches_sysconf(gemm__cpu_caches *out)
{
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    long v;
    if (!out->l1d && (v = sysconf(_SC_LEVEL1_DCACHE_SIZE)) > 0) out->l1d = v;
    if (!out->l2 && (v = sysconf(_SC_LEVEL2_CACHE_SIZE)) > 0) out->l2 = v;
    if (!out->l3 && (v = sysconf(_SC_LEVEL3_CACHE_SIZE)) > 0) out->l3 = v;
#else
    (void)out;
#endif
}

static long gemm__cpu_cache_bytes[3] = {-1, -1, -1}; /* L1d, L2, L3 once read; 0 = unknown */

/* The sizes, read at the first call (racing first calls read the same). */
static gemm__cpu_caches gemm__cpu_cache_sizes(void)
{
    gemm__cpu_caches c;
    if (GEMM__CPU_LOAD(gemm__cpu_cache_bytes[2]) >= 0) {
        c.l1d = GEMM__CPU_LOAD(gemm__cpu_cache_bytes[0]);
        c.l2 = GEMM__CPU_LOAD(gemm__cpu_cache_bytes[1]);
        c.l3 = GEMM__CPU_LOAD(gemm__cpu_cache_bytes[2]);
        return c;
    }
    memset(&c, 0, sizeof c);
#if defined(GEMM__CPU_X86)
    gemm__cpu_caches_cpuid(&c);
#endif
#if defined(__linux__)
    if (!c.l1d || !c.l2) gemm__cpu_caches_sysfs(&c);
#endif
    gemm__cpu_caches_sysconf(&c);
    GEMM__CPU_STORE(gemm__cpu_cache_bytes[0], c.l1d);
    GEMM__CPU_STORE(gemm__cpu_cache_bytes[1], c.l2);
    GEMM__CPU_STORE(gemm__cpu_cache_bytes[2], c.l3); /* last: the others are there when it is */
    return c;
}
