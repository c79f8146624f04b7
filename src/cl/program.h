/* Programs: one per (precision, parameter set), built from the kernel source
   with the set's #defines, kept in the context and, when a cache directory
   is set, as a binary on disk so the next process starts without compiling. */

#define GEMM__CL_NSOURCE (sizeof gemm__cl_source / sizeof gemm__cl_source[0])

static uint64_t gemm__cl_hash(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a */
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

/* The cache file of a program: a hash of the device, the driver, the options and the source. */
static void gemm__cl_cache_path(const gemm_cl_context *ctx, const char *const *src, size_t nsrc, const char *opts,
                                char *out, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    h = gemm__cl_hash(h, ctx->platform_name);
    h = gemm__cl_hash(h, ctx->device_name);
    h = gemm__cl_hash(h, ctx->driver);
    h = gemm__cl_hash(h, opts);
    for (i = 0; i < nsrc; i++) h = gemm__cl_hash(h, src[i]);
    snprintf(out, size, "%s/gemm_cl_%016llx.bin", ctx->cache_dir, (unsigned long long)h);
}

static cl_program gemm__cl_from_cache(gemm_cl_context *ctx, const char *path, const char *opts)
{
    FILE *f = fopen(path, "rb");
    unsigned char *bin;
    long size;
    cl_int e, status;
    cl_program prog = NULL;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    bin = size > 0 ? (unsigned char *)GEMM_MALLOC((size_t)size) : NULL;
    if (bin && fread(bin, 1, (size_t)size, f) == (size_t)size) {
        size_t len = (size_t)size;
        const unsigned char *b = bin;
        prog = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &len, &b, &status, &e);
        if (prog && (e != CL_SUCCESS || status != CL_SUCCESS ||
                     clBuildProgram(prog, 1, &ctx->device, opts, NULL, NULL) != CL_SUCCESS)) {
            clReleaseProgram(prog); /* stale or foreign: build from source instead */
            prog = NULL;
        }
    }
    if (bin) GEMM_FREE(bin);
    fclose(f);
    return prog;
}

static void gemm__cl_to_cache(const gemm_cl_context *ctx, cl_program prog, const char *path)
{
    size_t size = 0;
    unsigned char *bin;
    char tmp[600];
    FILE *f;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || size == 0) return;
    bin = (unsigned char *)GEMM_MALLOC(size);
    if (!bin) return;
    /* a name no other process or context writes at the same time */
    snprintf(tmp, sizeof tmp, "%.540s.%ld.%p.tmp", path, gemm__cl_pid(), (const void *)ctx);
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS && (f = fopen(tmp, "wb"))) {
        int ok = fwrite(bin, 1, size, f) == size;
        ok = fclose(f) == 0 && ok;
        /* rename: a reader sees the old file or the whole new one, never half */
        if (!ok || rename(tmp, path) != 0) remove(tmp);
    }
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
        (full = (char *)GEMM_MALLOC(len + 1)) != NULL) {
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

/* The program of (prec, p): from the cache directory, or compiled (and stored there). */
static gemm_status gemm__cl_build(gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                                  const char *pstr, cl_program *out)
{
    const char *src[1 + GEMM__CL_NSOURCE];
    char defines[1024], path[700];
    /* no -cl-mad-enable: reduced precision is opt-in only (DESIGN.md); the kernels call fma */
    const char *opts = ctx->build_options;
    size_t i, nsrc = 0;
    gemm_status s;
    gemm__cl_defines(ctx, prec, p, defines, sizeof defines);
    src[nsrc++] = defines;
    for (i = 0; i < GEMM__CL_NSOURCE; i++) src[nsrc++] = gemm__cl_source[i];
    *out = NULL;
    if (ctx->cache_dir[0]) {
        gemm__cl_cache_path(ctx, src, nsrc, opts, path, sizeof path);
        if ((*out = gemm__cl_from_cache(ctx, path, opts)) != NULL) return GEMM_OK;
    }
    if ((s = gemm__cl_compile(ctx, prec, src, nsrc, opts, pstr, out)) != GEMM_OK) return s;
    if (ctx->cache_dir[0]) gemm__cl_to_cache(ctx, *out, path);
    return GEMM_OK;
}

/* Builds (or finds) the program of one parameter set; lock held. */
static gemm_status gemm__cl_program_get(gemm_cl_context *ctx, gemm_precision prec, const gemm_cl_params *p,
                                        gemm__cl_program **out)
{
    char pstr[256];
    const char *why;
    gemm__cl_program *g;
    cl_int e = CL_SUCCESS;
    gemm_status s;
    for (g = ctx->programs; g; g = g->next)
        if (g->prec == prec && gemm__cl_same_program(&g->params, p)) { *out = g; return GEMM_OK; }
    gemm_cl_params_str(p, pstr, sizeof pstr);
    if ((why = gemm__cl_params_invalid(p, ctx->max_wg, ctx->local_mem, gemm_precision_size(prec))) != NULL)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl: parameter set %s: %s", pstr, why);
    g = (gemm__cl_program *)GEMM_MALLOC(sizeof *g);
    if (!g) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: out of host memory");
    memset(g, 0, sizeof *g);
    g->prec = prec;
    g->params = *p;
    if ((s = gemm__cl_build(ctx, prec, p, pstr, &g->program)) != GEMM_OK) {
        GEMM_FREE(g);
        return s;
    }
    g->pack = clCreateKernel(g->program, "gemm_cl_pack", &e);
    if (e == CL_SUCCESS) g->direct = clCreateKernel(g->program, "gemm_cl_direct", &e);
    if (e == CL_SUCCESS) g->tiled = clCreateKernel(g->program, "gemm_cl_tiled", &e);
    if (e != CL_SUCCESS) {
        gemm__cl_program_free(g);
        return gemm__cl_fail(e, "clCreateKernel");
    }
    g->next = ctx->programs;
    ctx->programs = g;
    *out = g;
    return GEMM_OK;
}
