/* Programs: one per (precision, parameter set), built from the kernel source
   with the set's #defines, kept in the context and, when a cache directory
   is set, as a binary on disk so the next process starts without compiling.

   The disk cache buys the compiler in the first call of each precision in a
   new process; context creation, the self-check and the copies remain. On
   PoCL the binary is native code: measured, a first call of 1.24 s became
   0.025 s (PoCL's own kernel cache, on by default, buys most of that too).
   On NVIDIA it is PTX, compiled again to machine code when loaded, and the
   context takes about 2 s to create: ours saves little there, the driver's
   own cache (~/.nv/ComputeCache) most of the rest (see bench/RESULTS.md).
   Files are written under a private name and renamed, so processes may
   share a directory. */
#pragma once

#include <stdio.h> /* the cache files */
#include <string.h>

#include "internal.h"
#include "context.c"
#include "errors.c"
#include "memory.c"
#include "params.c" /* gemm__cl_params_defines, gemm__cl_params_invalid */
#include "lookup.c" /* gemm__cl_safe */
#include "platform.c" /* gemm__cl_pid */
#include "source.h" /* gemm__cl_source */

#define GEMM__CL_NSOURCE (sizeof gemm__cl_source / sizeof gemm__cl_source[0])

static uint64_t gemm__cl_hash(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

static uint64_t gemm__cl_hash_bytes(const unsigned char *b, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < len; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* The #define block that specialises the source; under the test hook
   cl_break_kernel every set but the fallback computes a wrong result. */
static void gemm__cl_defines(const gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p, char *out,
                             size_t size)
{
    gemm_cl_params safe;
    size_t used;
    gemm__cl_params_parse(gemm__cl_safe, &safe);
    gemm__cl_params_defines(prec, p, out, size);
    used = strlen(out);
    if (ctx->break_kernel && !gemm__cl_same_program(p, &safe))
        snprintf(out + used, size - used, "#undef fma\n#define fma(a, b, c) ((a) * (b) - (c))\n");
}

/* The source of (prec, p): its #define block (written to defines), then the
   kernels; returns how many strings src holds. */
static size_t gemm__cl_sources(const gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                               char defines[1024], const char *src[1 + GEMM__CL_NSOURCE])
{
    size_t i, nsrc = 0;
    gemm__cl_defines(ctx, prec, p, defines, 1024);
    src[nsrc++] = defines;
    for (i = 0; i < GEMM__CL_NSOURCE; i++) src[nsrc++] = gemm__cl_source[i];
    return nsrc;
}

/* A cache entry is a header, then the driver's binary:
       bytes  0-7   magic "gemmclb\n"     16-31  the key (two 64-bit hashes)
             8-11  format version        32-39  length of the binary
            12-15  header length (48)    40-47  FNV-1a hash of the binary
   all little-endian. Everything is checked before the binary reaches the
   driver: some drivers (PoCL) abort the process on a damaged binary. The
   checks catch damage (a file cut short, overwritten, or renamed), not an
   attacker: whoever can write the cache directory chooses the code it runs. */
#define GEMM__CL_CACHE_VERSION 1u
#define GEMM__CL_CACHE_HEADER 48
#define GEMM__CL_CACHE_MAX_BINARY ((uint64_t)1 << 30)
static const char gemm__cl_cache_magic[8] = {'g', 'e', 'm', 'm', 'c', 'l', 'b', '\n'};

typedef struct gemm__cl_cache_key {
    uint64_t h[2];
} gemm__cl_cache_key;

static void gemm__cl_put_le(unsigned char *at, uint64_t v, int bytes)
{
    int i;
    for (i = 0; i < bytes; i++) at[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t gemm__cl_get_le(const unsigned char *at, int bytes)
{
    uint64_t v = 0;
    int i;
    for (i = bytes - 1; i >= 0; i--) v = v << 8 | at[i];
    return v;
}

/* The key of a program: two hashes of the device, the driver, the options
   and the source; the first names the file. */
static gemm__cl_cache_key gemm__cl_cache_key_of(const gemm_cl_context *ctx, const char *const *src, size_t nsrc,
                                                const char *opts)
{
    gemm__cl_cache_key k;
    size_t i;
    int j;
    k.h[0] = 0xcbf29ce484222325ull;
    k.h[1] = 0x84222325cbf29ce4ull;
    for (j = 0; j < 2; j++) {
        k.h[j] = gemm__cl_hash(k.h[j], ctx->platform_name);
        k.h[j] = gemm__cl_hash(k.h[j], ctx->device_name);
        k.h[j] = gemm__cl_hash(k.h[j], ctx->driver);
        k.h[j] = gemm__cl_hash(k.h[j], opts);
        for (i = 0; i < nsrc; i++) k.h[j] = gemm__cl_hash(k.h[j], src[i]);
    }
    return k;
}

static void gemm__cl_cache_path(const gemm_cl_context *ctx, const gemm__cl_cache_key *key, char *out, size_t size)
{
    snprintf(out, size, "%s/gemm_cl_%016llx.bin", ctx->cache_dir, (unsigned long long)key->h[0]);
}

static void gemm__cl_cache_header(unsigned char hdr[GEMM__CL_CACHE_HEADER], const gemm__cl_cache_key *key,
                                  const unsigned char *bin, size_t len)
{
    memcpy(hdr, gemm__cl_cache_magic, 8);
    gemm__cl_put_le(hdr + 8, GEMM__CL_CACHE_VERSION, 4);
    gemm__cl_put_le(hdr + 12, GEMM__CL_CACHE_HEADER, 4);
    gemm__cl_put_le(hdr + 16, key->h[0], 8);
    gemm__cl_put_le(hdr + 24, key->h[1], 8);
    gemm__cl_put_le(hdr + 32, (uint64_t)len, 8);
    gemm__cl_put_le(hdr + 40, gemm__cl_hash_bytes(bin, len), 8);
}

/* Writes the entry for key at path: to a name no other process or context
   writes, then renamed, so a reader sees the old file or the whole new one. */
static int gemm__cl_cache_write(const gemm_cl_context *ctx, const char *path, const gemm__cl_cache_key *key,
                                const unsigned char *bin, size_t len)
{
    unsigned char hdr[GEMM__CL_CACHE_HEADER];
    char tmp[600];
    FILE *f;
    int ok;
    snprintf(tmp, sizeof tmp, "%.540s.%ld.%p.tmp", path, gemm__cl_pid(), (const void *)ctx);
    if (!(f = fopen(tmp, "wb"))) return 0;
    gemm__cl_cache_header(hdr, key, bin, len);
    ok = fwrite(hdr, 1, sizeof hdr, f) == sizeof hdr && fwrite(bin, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0) return 1;
    remove(tmp);
    return 0;
}

/* The binary of the entry at path, if the whole entry is sound and belongs
   to key (free it with GEMM_FREE); NULL otherwise. *bad: the file exists but
   is not a sound entry for key. */
static unsigned char *gemm__cl_cache_read(const char *path, const gemm__cl_cache_key *key, size_t *len, int *bad)
{
    unsigned char hdr[GEMM__CL_CACHE_HEADER], *bin = NULL;
    uint64_t size;
    FILE *f = fopen(path, "rb");
    *bad = 0;
    if (!f) return NULL;
    *bad = fread(hdr, 1, sizeof hdr, f) != sizeof hdr || memcmp(hdr, gemm__cl_cache_magic, 8) != 0 ||
           gemm__cl_get_le(hdr + 8, 4) != GEMM__CL_CACHE_VERSION || gemm__cl_get_le(hdr + 12, 4) != sizeof hdr ||
           gemm__cl_get_le(hdr + 16, 8) != key->h[0] || gemm__cl_get_le(hdr + 24, 8) != key->h[1] ||
           (size = gemm__cl_get_le(hdr + 32, 8)) == 0 || size > GEMM__CL_CACHE_MAX_BINARY;
    if (!*bad && (bin = (unsigned char *)gemm__cl_malloc((size_t)size)) != NULL) {
        /* exactly `size` bytes follow: not one fewer, not one more */
        *bad = fread(bin, 1, (size_t)size, f) != (size_t)size || getc(f) != EOF ||
               gemm__cl_hash_bytes(bin, (size_t)size) != gemm__cl_get_le(hdr + 40, 8);
        *len = (size_t)size;
    }
    fclose(f);
    if (*bad && bin) {
        GEMM_FREE(bin);
        bin = NULL;
    }
    return bin;
}

/* The program in the cache entry at path, built; NULL when there is none.
   An entry that is damaged, belongs to another key or that the driver
   refuses is removed (and rebuilt from source by the caller). */
static cl_program gemm__cl_from_cache(gemm_cl_context *ctx, const char *path, const gemm__cl_cache_key *key,
                                      const char *opts)
{
    size_t len = 0;
    int bad = 0;
    unsigned char *bin = gemm__cl_cache_read(path, key, &len, &bad);
    cl_int e = CL_SUCCESS, status = CL_SUCCESS;
    cl_program prog = NULL;
    if (bin) {
        const unsigned char *b = bin;
        prog = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &len, &b, &status, &e);
        if (prog && (e != CL_SUCCESS || status != CL_SUCCESS ||
                     clBuildProgram(prog, 1, &ctx->device, opts, NULL, NULL) != CL_SUCCESS)) {
            clReleaseProgram(prog);
            prog = NULL;
        }
        bad = prog == NULL;
        GEMM_FREE(bin);
    }
    if (bad) remove(path);
    return prog;
}

static void gemm__cl_to_cache(const gemm_cl_context *ctx, cl_program prog, const char *path,
                              const gemm__cl_cache_key *key)
{
    size_t size = 0;
    unsigned char *bin;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || size == 0) return;
    if (!(bin = (unsigned char *)gemm__cl_malloc(size))) return; /* no entry this time; nothing else changes */
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
        gemm__cl_cache_write(ctx, path, key, bin, size);
    GEMM_FREE(bin);
}

/* The start of a program's build log (asked for in full: a buffer too small
   gets nothing at all from some drivers). */
static void gemm__cl_build_log(cl_program prog, cl_device_id device, char *log, size_t size)
{
    size_t len = 0;
    char *full;
    log[0] = '\0';
    if (prog && clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS && len > 0 &&
        (full = (char *)gemm__cl_malloc(len + 1)) != NULL) {
        if (clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, len, full, NULL) == CL_SUCCESS) {
            full[len] = '\0';
            snprintf(log, size, "%s", full);
        }
        GEMM_FREE(full);
    }
}

/* Compiles the source; on failure the status carries the build log. */
static gemm_status gemm__cl_compile(gemm_cl_context *ctx, gemm_precision prec, const char **src, size_t nsrc,
                                    const char *opts, const char *pstr, cl_program *out)
{
    cl_int e = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx->context, (cl_uint)nsrc, src, NULL, &e);
    char log[850];
    if (e == CL_SUCCESS) e = clBuildProgram(prog, 1, &ctx->device, opts, NULL, NULL);
    if (e == CL_SUCCESS) {
        *out = prog;
        return GEMM_OK;
    }
    gemm__cl_build_log(prog, ctx->device, log, sizeof log);
    if (prog) clReleaseProgram(prog);
    if (e == CL_BUILD_PROGRAM_FAILURE || e == CL_INVALID_BUILD_OPTIONS)
        return gemm__fail(GEMM_ERR_BUILD, "gemm_cl: %s kernels with %s failed to build (%s). Log: %s",
                          gemm_precision_name(prec), pstr, gemm__cl_errname(e), log);
    return gemm__cl_fail(e, "clBuildProgram");
}

/* clBuildProgram's options for p: the caller's, and REGS where the driver
   takes it. No -cl-mad-enable: reduced precision is opt-in only (the
   caller's build_options may ask for it); the kernels call fma. */
static void gemm__cl_options(const gemm_cl_context *ctx, const gemm_cl_params *p, char *out, size_t size)
{
    if (p->regs > 0 && ctx->has_nv_options)
        snprintf(out, size, "%.511s -cl-nv-maxrregcount=%d", ctx->build_options, p->regs);
    else
        snprintf(out, size, "%.511s", ctx->build_options);
}

/* The program of (prec, p): from the cache directory (unless from_source),
   or compiled (and stored there). *cached: it came from the cache. */
static gemm_status gemm__cl_build(gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                                  const char *pstr, int from_source, cl_program *out, int *cached)
{
    const char *src[1 + GEMM__CL_NSOURCE];
    char defines[1024], path[700], opts[700];
    size_t nsrc = gemm__cl_sources(ctx, prec, p, defines, src);
    gemm__cl_cache_key key;
    gemm_status s;
    gemm__cl_options(ctx, p, opts, sizeof opts);
    key = gemm__cl_cache_key_of(ctx, src, nsrc, opts);
    *out = NULL;
    *cached = 0;
    if (ctx->cache_dir[0]) {
        gemm__cl_cache_path(ctx, &key, path, sizeof path);
        if (!from_source && (*out = gemm__cl_from_cache(ctx, path, &key, opts)) != NULL) {
            *cached = 1;
            return GEMM_OK;
        }
    }
    if ((s = gemm__cl_compile(ctx, prec, src, nsrc, opts, pstr, out)) != GEMM_OK) return s;
    if (ctx->cache_dir[0]) gemm__cl_to_cache(ctx, *out, path, &key);
    return GEMM_OK;
}

/* Builds (or finds) the program of one parameter set; lock held. */
static gemm_status gemm__cl_program_get(gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                                        int from_source, gemm__cl_program **out)
{
    char pstr[256];
    const char *why;
    gemm__cl_program *g;
    cl_int e = CL_SUCCESS;
    gemm_status s;
    /* checked first: the host's fields (DIRECT, SMALL) differ between sets sharing a program */
    gemm_cl_params_str(p, pstr, sizeof pstr);
    if ((why = gemm__cl_params_invalid(p, ctx->max_wg, ctx->local_mem, gemm_precision_size(prec))) != NULL)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl: parameter set %s: %s", pstr, why);
    for (g = ctx->programs; g; g = g->next)
        if (g->prec == prec && gemm__cl_same_program(&g->params, p)) { *out = g; return GEMM_OK; }
    g = (gemm__cl_program *)gemm__cl_malloc(sizeof *g);
    if (!g) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: out of host memory");
    memset(g, 0, sizeof *g);
    g->prec = prec;
    g->params = *p;
    if ((s = gemm__cl_build(ctx, prec, p, pstr, from_source, &g->program, &g->cached)) != GEMM_OK) {
        GEMM_FREE(g);
        return s;
    }
    g->pack = clCreateKernel(g->program, "gemm_cl_pack", &e);
    if (e == CL_SUCCESS) g->pack_rows = clCreateKernel(g->program, "gemm_cl_pack_rows", &e);
    if (e == CL_SUCCESS) g->direct = clCreateKernel(g->program, "gemm_cl_direct", &e);
    if (e == CL_SUCCESS) g->tiled = clCreateKernel(g->program, "gemm_cl_tiled", &e);
    if (e == CL_SUCCESS) g->small[0] = clCreateKernel(g->program, "gemm_cl_small32", &e);
    if (e == CL_SUCCESS) g->small[1] = clCreateKernel(g->program, "gemm_cl_small64", &e);
    if (e == CL_SUCCESS) g->cx_expand = clCreateKernel(g->program, "gemm_cl_cx_expand", &e);
    if (e == CL_SUCCESS) g->cx_copy = clCreateKernel(g->program, "gemm_cl_cx_copy", &e);
    if (e != CL_SUCCESS) {
        gemm__cl_program_free(g);
        return gemm__cl_fail(e, "clCreateKernel");
    }
    g->verify = clCreateKernel(g->program, "gemm_cl_verify_lines", &e); /* absent without fp64: NULL */
    if (e != CL_SUCCESS) g->verify = NULL;
    g->verify_group = g->verify ? clCreateKernel(g->program, "gemm_cl_verify_group", &e) : NULL;
    if (e != CL_SUCCESS) g->verify_group = NULL;
    g->next = ctx->programs;
    ctx->programs = g;
    *out = g;
    return GEMM_OK;
}

/* Removes g from the context's programs and frees it (OpenCL keeps it
   alive for commands still queued); lock held. */
static void gemm__cl_program_drop(gemm_cl_context *ctx, gemm__cl_program *g)
{
    gemm__cl_program **at = &ctx->programs;
    while (*at && *at != g) at = &(*at)->next;
    if (*at) *at = g->next;
    gemm__cl_program_free(g);
}

/* The cache entry g came from is removed: its binary loaded but computed
   wrong, so the next process must not load it again. */
static void gemm__cl_uncache(gemm_cl_context *ctx, const gemm__cl_program *g)
{
    const char *src[1 + GEMM__CL_NSOURCE];
    char defines[1024], path[700], opts[700];
    size_t nsrc = gemm__cl_sources(ctx, g->prec, &g->params, defines, src);
    gemm__cl_cache_key key;
    gemm__cl_options(ctx, &g->params, opts, sizeof opts);
    key = gemm__cl_cache_key_of(ctx, src, nsrc, opts);
    gemm__cl_cache_path(ctx, &key, path, sizeof path);
    remove(path);
}
