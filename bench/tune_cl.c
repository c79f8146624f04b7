/* bench/tune_cl.c - the command-line tuner: searches gemm_cl's parameter
   space on one OpenCL device (a coarse pass at two sizes, then the best few
   over a range of sizes, every candidate checked) and appends the winner per
   precision to a tuning file that GEMM_CL_TUNING_FILE points the library to
   (the last line for a device wins). It writes only where --output says:
   `make tune-cl` says build/gemm_cl_tuning.txt (TUNE_OUT=...), never the
   tracked tuning/gemm_cl.txt, whose lines are gemm_cl.h's built-in table.
   It shows a bar per phase of the search (--verbose: every candidate too).

   make tune-cl [TUNE_ARGS="--budget 300 --prec f32"] [TUNE_OUT=FILE]
   build/tune_cl [--device NAME] [--prec f32,f64] [--budget SECONDS per precision]
                 [--output FILE] [--tiny] [--verbose] [--info (the device's properties, then exit)] */
#define GEMM_IMPLEMENTATION
#include "../gemm_cl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h> /* clock_gettime */

/* One bar per phase of the tuner ("stage 1", "stage 2", "refine": the text
   before the ':' of each progress line), redrawn after each candidate: done
   of total, the phase's best GFLOP/s (the refine bar's best is the
   summary's), the time the phase has run, and an estimate of the time left:
   its pace so far, cut where the budget ends the phase (gemm_cl_tune_options:
   at half of it, 80%, all of it). */
typedef struct bar {
    int verbose, open; /* open: a bar is on screen without its newline */
    char phase[32];
    double budget, start, phase_start, last, best;
} bar;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void bar_close(bar *b)
{
    if (b->open) putchar('\n');
    b->open = 0;
}

static void progress(void *user, int done, int total, const char *line)
{
    bar *b = (bar *)user;
    const char *colon = strchr(line, ':');
    size_t len = colon ? (size_t)(colon - line) : 0;
    int i, width = 24, fill = total > 0 ? done * width / total : width;
    double t = now_s(), g, left, end;
    if (len >= sizeof b->phase) len = sizeof b->phase - 1;
    if (strncmp(b->phase, line, len) != 0 || b->phase[len] != '\0') { /* a new phase: a new bar */
        bar_close(b);
        memcpy(b->phase, line, len);
        b->phase[len] = '\0';
        b->phase_start = b->last; /* it began when the previous one ended */
        b->best = 0;
    }
    b->last = t;
    g = colon ? atof(colon + 1) : 0; /* 0 for "skip ..." */
    if (g > b->best) b->best = g;
    end = b->start + b->budget * (!strcmp(b->phase, "stage 1") ? 0.5 : !strcmp(b->phase, "stage 2") ? 0.8 : 1.0);
    left = (t - b->phase_start) / done * (total - done);
    if (left > end - t) left = end - t > 0 ? end - t : 0;
    if (b->verbose) printf("%s  %s\n", b->open ? "\n" : "", line);
    printf("\r  %-8s [", b->phase);
    for (i = 0; i < width; i++) putchar(i < fill ? '#' : '.');
    printf("] %4d/%-4d best %8.1f GFLOP/s  %4.0f s, ~%.0f s left ", done, total, b->best, t - b->phase_start, left);
    b->open = 1;
    if (done == total) bar_close(b);
    fflush(stdout);
}

/* What the tuner's space depends on: the device's limits and extensions. */
static void print_info(gemm_cl_context *cl)
{
    cl_device_id dev = NULL;
    char name[256] = "", driver[128] = "", ext[8192] = "";
    size_t max_wg = 0;
    cl_ulong local_mem = 0;
    cl_uint units = 0;
    gemm_cl_handles(cl, NULL, NULL, &dev);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    printf("device %s, driver %s: %u compute units, work-groups up to %zu, %llu bytes of local memory; "
           "cl_khr_fp64 %s, cl_nv_compiler_options (REGS) %s\n", name, driver, units, max_wg,
           (unsigned long long)local_mem, strstr(ext, "cl_khr_fp64") ? "yes" : "no",
           strstr(ext, "cl_nv_compiler_options") ? "yes" : "no");
}

int main(int argc, char **argv)
{
    gemm_cl_create_options o;
    gemm_cl_tune_options to;
    gemm_cl_context *cl;
    const char *precs = "f32,f64";
    int i, rc = 0, info_only = 0;
    bar b;
    memset(&o, 0, sizeof o);
    memset(&to, 0, sizeof to);
    memset(&b, 0, sizeof b);
    to.budget_s = 120;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) o.device_name = argv[++i];
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) precs = argv[++i];
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc) to.budget_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--output") && i + 1 < argc) to.output = argv[++i];
        else if (!strcmp(argv[i], "--tiny")) to.tiny = 1;
        else if (!strcmp(argv[i], "--verbose")) b.verbose = 1;
        else if (!strcmp(argv[i], "--info")) info_only = 1;
        else {
            fprintf(stderr, "usage: %s [--device NAME] [--prec f32,f64] [--budget S] [--output FILE] [--tiny] [--verbose] "
                            "[--info]\n", argv[0]);
            return 2;
        }
    }
    if (gemm_cl_create(&o, &cl) != GEMM_OK) {
        fprintf(stderr, "tune_cl: %s\n", gemm_last_error_detail());
        return 1;
    }
    print_info(cl);
    if (info_only) {
        gemm_cl_destroy(cl);
        return 0;
    }
    to.progress = progress;
    to.user = &b;
    for (i = 0; i < 2; i++) {
        gemm_precision prec = i ? GEMM_F64 : GEMM_F32;
        gemm_cl_kernel_info info;
        gemm_cl_tune_result r;
        gemm_status s;
        if (!strstr(precs, i ? "f64" : "f32")) continue;
        if (gemm_cl_kernel_info_get(cl, prec, &info) != GEMM_OK) {
            printf("%s: skipped: %s\n", i ? "f64" : "f32", gemm_last_error_detail());
            continue;
        }
        printf("tuning %s on %s (budget %.0f s)\n", i ? "f64" : "f32", info.device_name, to.budget_s);
        b.phase[0] = '\0';
        b.budget = to.budget_s;
        b.start = b.last = now_s();
        s = gemm_cl_tune(cl, prec, &to, &r);
        bar_close(&b); /* a phase the budget cut short */
        if (s != GEMM_OK) {
            printf("\n%s: %s: %s\n", i ? "f64" : "f32", gemm_strerror(s), gemm_last_error_detail());
            rc = 1;
            continue;
        }
        printf("  %d tried, %d built and checked, %d skipped in %.0f s; best %.1f GFLOP/s (the refine bar's: the "
               "mean over the refine sizes)\n  %s\n", r.tried, r.built, r.failed, now_s() - b.start, r.best_gflops,
               r.line);
    }
    if (to.output && !rc)
        printf("wrote %s\n  use it:  GEMM_CL_TUNING_FILE=%s\n  ship it: paste its lines at the end of "
               "tuning/gemm_cl.txt, then make headers\n", to.output, to.output);
    else if (!to.output)
        printf("no --output: nothing written\n");
    gemm_cl_destroy(cl);
    return rc;
}
