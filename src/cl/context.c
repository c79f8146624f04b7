/* The context: the device, its queues, the programs built for it and the
   parameter set each precision uses. */
#pragma once

#include <stdio.h>
#include <stdlib.h> /* getenv */
#include <string.h>

#include "internal.h"
#include "platform.c" /* the lock */
#include "errors.c"
#include "memory.c"

typedef struct gemm__cl_program {
    struct gemm__cl_program *next;
    gemm_precision prec;
    gemm_cl_params params; /* DIRECT: whichever set built it first; see gemm__cl_choice */
    cl_program program;
    cl_kernel pack, pack_rows, direct, tiled;
    cl_kernel small[2]; /* 32 x 32 and 64 x 64 tiles */
    cl_kernel cx_expand, cx_copy; /* the complex products' operands */
    cl_kernel verify, verify_group; /* the verified products' line sums; NULL on a device without fp64 */
    int checked; /* 0 not yet, 1 passed, -1 failed */
    int small_bad; /* the small kernel failed its self-check: batches keep the packed path */
    int cached;  /* loaded from the disk cache, not compiled */
} gemm__cl_program;

/* A queue with its packing buffers. lane[0] is the caller's queue (calls);
   lane[1] a private in-order queue for the self-check and the tuner, which
   block on it with the lock held: they never wait on the caller's commands. */
typedef struct gemm__cl_lane {
    cl_command_queue queue;
    cl_mem scratch[2]; /* packed A and B, grown on demand */
    size_t scratch_size[2];
} gemm__cl_lane;

typedef struct gemm__cl_choice {
    gemm__cl_program *prog; /* NULL until the first call picks one */
    gemm_cl_params params;  /* the set in use: prog's, with its own DIRECT */
    char origin[128], reason[512];
} gemm__cl_choice;

struct gemm_cl_context {
    cl_context context;
    cl_command_queue queue;
    cl_device_id device;
    cl_device_type type;
    char device_name[256], platform_name[128], driver[128];
    int has_fp64, has_nv_options, no_self_check, break_kernel;
    size_t max_wg;
    cl_ulong max_alloc; /* the largest buffer the device allocates */
    cl_ulong local_mem;
    char tuning_file[512], cache_dir[512], build_options[512];
    gemm__cl_lock lock;
    gemm__cl_program *programs;
    gemm__cl_choice choice[2]; /* f32, f64: see gemm__cl_choice_of */
    gemm__cl_lane lane[2];
    int adopted; /* context and queue are the caller's */
};

static gemm__cl_choice *gemm__cl_choice_of(gemm_cl_context *ctx, gemm_precision prec)
{
    return &ctx->choice[prec == GEMM_F64];
}

static void gemm__cl_program_free(gemm__cl_program *g)
{
    if (g->pack) clReleaseKernel(g->pack);
    if (g->pack_rows) clReleaseKernel(g->pack_rows);
    if (g->direct) clReleaseKernel(g->direct);
    if (g->tiled) clReleaseKernel(g->tiled);
    if (g->small[0]) clReleaseKernel(g->small[0]);
    if (g->small[1]) clReleaseKernel(g->small[1]);
    if (g->cx_expand) clReleaseKernel(g->cx_expand);
    if (g->cx_copy) clReleaseKernel(g->cx_copy);
    if (g->verify) clReleaseKernel(g->verify);
    if (g->verify_group) clReleaseKernel(g->verify_group);
    if (g->program) clReleaseProgram(g->program);
    GEMM_FREE(g);
}

/* Frees everything a context holds; keeps the error detail. */
static void gemm__cl_free(gemm_cl_context *ctx)
{
    gemm__cl_program *p, *next;
    int i, j;
    /* OpenCL defers every release until the commands using the object finish:
       no clFinish on the caller's queue, which may wait on the caller's events */
    if (ctx->queue && !ctx->adopted) clFinish(ctx->queue);
    for (p = ctx->programs; p; p = next) {
        next = p->next;
        gemm__cl_program_free(p);
    }
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            if (ctx->lane[i].scratch[j]) clReleaseMemObject(ctx->lane[i].scratch[j]);
    if (ctx->lane[1].queue) clReleaseCommandQueue(ctx->lane[1].queue);
    if (ctx->queue) clReleaseCommandQueue(ctx->queue);
    if (ctx->context) clReleaseContext(ctx->context);
    gemm__cl_lock_free(&ctx->lock);
    GEMM_FREE(ctx);
}

GEMM_DEF gemm_status gemm_cl_destroy(gemm_cl_context *ctx)
{
    gemm__clear_error();
    if (ctx) gemm__cl_free(ctx);
    return GEMM_OK;
}

/* "platform name: device name" of one device. */
static void gemm__cl_full_name(cl_platform_id plat, cl_device_id dev, char *out, size_t size)
{
    char pname[128], dname[256];
    pname[0] = dname[0] = '\0';
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    snprintf(out, size, "%s: %s", pname, dname);
}

/* Does device di of platform pi match what the options ask for? */
static int gemm__cl_device_matches(cl_platform_id plat, cl_device_id dev, const char *name, int by_name, int want_p,
                                   int want_d, cl_uint pi, cl_uint di)
{
    char full[400];
    if (!by_name) return (int)pi == want_p && (int)di == want_d;
    gemm__cl_full_name(plat, dev, full, sizeof full);
    return strstr(full, name) != NULL;
}

/* Appends "P:D name" of every device to list, for the error of a choice
   that matches none of them. */
static void gemm__cl_list_devices(const cl_platform_id *plats, cl_uint np, char *list, size_t size)
{
    cl_device_id devs[64];
    cl_uint nd, pi, di;
    char full[400];
    size_t used = 0;
    list[0] = '\0';
    for (pi = 0; pi < np; pi++) {
        if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) nd = 0;
        for (di = 0; di < nd && di < 64 && used < size; di++) {
            gemm__cl_full_name(plats[pi], devs[di], full, sizeof full);
            used += (size_t)snprintf(list + used, size - used, "%s%u:%u \"%s\"", used ? ", " : "", pi, di, full);
        }
    }
    if (!list[0]) snprintf(list, size, "none");
}

/* Finds the device: by name substring, by "P:D" indices, or by indices. */
static gemm_status gemm__cl_pick(const gemm_cl_create_options *o, cl_platform_id *platform, cl_device_id *device)
{
    cl_platform_id plats[16];
    cl_device_id devs[64];
    cl_uint np = 0, nd, pi, di;
    const char *name = o->device_name && o->device_name[0] ? o->device_name : getenv("GEMM_CL_DEVICE");
    int want_p = o->platform, want_d = o->device, by_name = name && name[0];
    char list[640];
    cl_int e = clGetPlatformIDs(16, plats, &np);
    if (np > 16) np = 16; /* np and nd count them all, not the ones written */
    if (e == -1001 || (e == CL_SUCCESS && np == 0))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: no OpenCL platform is installed");
    if (e != CL_SUCCESS) return gemm__cl_fail(e, "clGetPlatformIDs");
    if (by_name && sscanf(name, "%d:%d", &want_p, &want_d) == 2) by_name = 0;
    for (pi = 0; pi < np; pi++) {
        if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) nd = 0;
        if (nd > 64) nd = 64;
        for (di = 0; di < nd; di++)
            if (gemm__cl_device_matches(plats[pi], devs[di], name, by_name, want_p, want_d, pi, di)) {
                *platform = plats[pi];
                *device = devs[di];
                return GEMM_OK;
            }
    }
    gemm__cl_list_devices(plats, np, list, sizeof list);
    if (by_name)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: no OpenCL device matches \"%.200s\"; the devices: %s",
                          name, list);
    return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm_cl_create: there is no device %d on platform %d; the devices: %s",
                      want_d, want_p, list);
}

/* Takes the caller's context and in-order queue (retained). */
static gemm_status gemm__cl_adopt(gemm_cl_context *ctx, const gemm_cl_create_options *o, cl_platform_id *platform)
{
    cl_command_queue_properties props = 0;
    cl_context qctx = NULL;
    cl_int e = clGetCommandQueueInfo(o->queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device, NULL);
    if (e == CL_SUCCESS) e = clGetCommandQueueInfo(o->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (e != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue is not valid (%s)", gemm__cl_errname(e));
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue must be in-order");
    e = clGetCommandQueueInfo(o->queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (e != CL_SUCCESS || qctx != o->context)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue does not belong to the context");
    if ((e = clRetainContext(o->context)) != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the context is not valid (%s)", gemm__cl_errname(e));
    ctx->context = o->context;
    if ((e = clRetainCommandQueue(o->queue)) != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: the queue is not valid (%s)", gemm__cl_errname(e));
    ctx->queue = o->queue;
    ctx->adopted = 1;
    clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof *platform, platform, NULL);
    return GEMM_OK;
}

/* Picks a device and makes a context and an in-order queue for it. */
static gemm_status gemm__cl_open(gemm_cl_context *ctx, const gemm_cl_create_options *o, cl_platform_id *platform)
{
    cl_int e = CL_SUCCESS;
    gemm_status s = gemm__cl_pick(o, platform, &ctx->device);
    if (s != GEMM_OK) return s;
    ctx->context = clCreateContext(NULL, 1, &ctx->device, NULL, NULL, &e);
    if (e == CL_SUCCESS) ctx->queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &e);
    if (e != CL_SUCCESS) return gemm__cl_fail(e, ctx->context ? "clCreateCommandQueue" : "clCreateContext");
    return GEMM_OK;
}

/* What the kernels and the parameter checks need to know about the device. */
static gemm_status gemm__cl_query(gemm_cl_context *ctx, cl_platform_id platform)
{
    char *ext = NULL;
    size_t ext_len = 0;
    cl_int e;
    clGetDeviceInfo(ctx->device, CL_DEVICE_NAME, sizeof ctx->device_name, ctx->device_name, NULL);
    clGetDeviceInfo(ctx->device, CL_DRIVER_VERSION, sizeof ctx->driver, ctx->driver, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof ctx->type, &ctx->type, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof ctx->max_wg, &ctx->max_wg, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ctx->local_mem, &ctx->local_mem, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ctx->max_alloc, &ctx->max_alloc, NULL);
    if (platform) clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof ctx->platform_name, ctx->platform_name, NULL);
    /* asked for in full: a long extension list must not hide cl_khr_fp64 */
    e = clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len);
    if (e != CL_SUCCESS) return gemm__cl_fail(e, "clGetDeviceInfo (CL_DEVICE_EXTENSIONS)");
    /* a failure here must not pass for a device without fp64 */
    if (!(ext = (char *)gemm__cl_malloc(ext_len + 1)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl_create: out of host memory");
    e = clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL);
    ext[e == CL_SUCCESS ? ext_len : 0] = '\0';
    ctx->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    ctx->has_nv_options = strstr(ext, "cl_nv_compiler_options") != NULL;
    GEMM_FREE(ext);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clGetDeviceInfo (CL_DEVICE_EXTENSIONS)");
}

static void gemm__cl_copy_opt(char *dst, size_t size, const char *opt, const char *env)
{
    const char *v = opt && opt[0] ? opt : env ? getenv(env) : NULL;
    snprintf(dst, size, "%s", v ? v : "");
}

/* Everything after the allocation: the queues, the device, the settings. */
static gemm_status gemm__cl_setup(gemm_cl_context *ctx, const gemm_cl_create_options *o)
{
    cl_platform_id platform = NULL;
    cl_int e = CL_SUCCESS;
    gemm_status s = o->queue ? gemm__cl_adopt(ctx, o, &platform) : gemm__cl_open(ctx, o, &platform);
    if (s != GEMM_OK) return s;
    ctx->lane[0].queue = ctx->queue;
    ctx->lane[1].queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &e);
    if (e != CL_SUCCESS) {
        ctx->lane[1].queue = NULL;
        return gemm__cl_fail(e, "clCreateCommandQueue (private queue)");
    }
    if ((s = gemm__cl_query(ctx, platform)) != GEMM_OK) return s;
    gemm__cl_copy_opt(ctx->tuning_file, sizeof ctx->tuning_file, o->tuning_file, "GEMM_CL_TUNING_FILE");
    gemm__cl_copy_opt(ctx->cache_dir, sizeof ctx->cache_dir, o->cache_dir, "GEMM_CL_CACHE_DIR");
    gemm__cl_copy_opt(ctx->build_options, sizeof ctx->build_options, o->build_options, NULL);
    ctx->no_self_check = o->no_self_check;
    ctx->break_kernel = GEMM__HOOK(cl_break_kernel, 0);
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_create(const gemm_cl_create_options *options, gemm_cl_context **out)
{
    gemm_cl_create_options none;
    gemm_cl_context *ctx;
    gemm_status s;
    gemm__clear_error();
    if (!out) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: out is NULL");
    *out = NULL;
    memset(&none, 0, sizeof none);
    if (!options) options = &none;
    if (!options->context != !options->queue)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_create: give both context and queue, or neither");
    ctx = (gemm_cl_context *)gemm__cl_malloc(sizeof *ctx);
    if (!ctx) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl_create: out of host memory");
    memset(ctx, 0, sizeof *ctx);
    gemm__cl_lock_init(&ctx->lock);
    if ((s = gemm__cl_setup(ctx, options)) != GEMM_OK) {
        gemm__cl_free(ctx);
        return s;
    }
    *out = ctx;
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_cl_handles(gemm_cl_context *ctx, cl_context *context, cl_command_queue *queue,
                                     cl_device_id *device)
{
    gemm__clear_error();
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_handles: ctx is NULL");
    if (context) *context = ctx->context;
    if (queue) *queue = ctx->queue;
    if (device) *device = ctx->device;
    return GEMM_OK;
}

#ifdef GEMM__TEST_HOOKS
GEMM_DEF int gemm__cl_program_count(gemm_cl_context *ctx, gemm_precision precision, int *first_in_use)
{
    const gemm__cl_program *g;
    int n = 0;
    gemm__cl_lock_take(&ctx->lock);
    for (g = ctx->programs; g; g = g->next) n++;
    if (first_in_use) *first_in_use = ctx->programs && ctx->programs == gemm__cl_choice_of(ctx, precision)->prog;
    gemm__cl_lock_give(&ctx->lock);
    return n;
}
#endif
