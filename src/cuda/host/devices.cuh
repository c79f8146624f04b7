/* Several GPUs for one host-pointer call (options.device_count).

   C is cut into one piece per device, and each device runs the one-device
   host path (host_path.cuh) on its piece from a thread of its own: its own
   staging chunks, copy threads, streams and scratch, and its own budget of
   device memory (options.max_device_bytes holds per device, so a product
   larger than the GPUs together runs out of core on each). A piece reads
   the rows of op(A) and the columns of op(B) it needs straight from the
   caller's memory: each panel crosses once to each GPU that needs it.

   The pieces form a grid of gr x gc (gr * gc devices) chosen to move the
   fewest bytes: piece (i, j) reads band i of op(A) and band j of op(B), so
   the grid moves gc*m*k + gr*k*n elements of A and B (C once, or twice when
   beta != 0, whatever the grid). Equal devices get equal bands; devices
   that differ (their SM counts) get bands in proportion along the longer
   side of C (1 x d or d x 1: a weighted 2-D cut would leave devices
   waiting on each other's bands). Band edges fall on multiples of 128, so
   every piece but the last keeps the kernels' tiles whole. A product too
   small to pay for another device (GEMM__CUDA_DEVICE_FLOPS per device) uses
   fewer.

   Every device plans and allocates before any starts (the gate): a device
   that cannot take its piece stops them all, and C is untouched. A failure
   after that names the device; other devices' pieces may then be written. */
#pragma once
#include <stdio.h>
#include <thread>
#include <vector>
#include "../../core/internal.h" /* gemm__problem, gemm__fail, GEMM__HOOK */
#include "../api.h"
#include "call.cuh"      /* gemm__cuda_operands */
#include "errors.cuh"    /* gemm__cuda_fail */
#include "gate.cuh"
#include "host_path.cuh" /* gemm__cuda_host_run: one device's pipeline */
#include "staging.cuh"   /* gemm__cuda_now */

#define GEMM__CUDA_MAX_DEVICES 64
/* Flops below which one more device costs more (threads, contexts, a
   second pipeline's start) than it saves: about 0.2 ms of one H100. */
#define GEMM__CUDA_DEVICE_FLOPS 8e9
#define GEMM__CUDA_PIECE_ALIGN 128
/* Copy threads per device when several share a call and
   options.host_threads is 0: the host's cores shared among the devices, at
   most 12. Pageable copies are what bounds a call on several GPUs (each
   reads its own bands of A and B through its staging); on two H200s of a
   32-core host, fp64 n = 32768 took 1.11 / 0.86 / 0.74 / 0.73 s with 4 / 8
   / 12 / 16 threads per GPU, fp32 n = 16384 0.176 / 0.128 / 0.123 / 0.133 s. */
#define GEMM__CUDA_DEVICE_THREADS 12

/* The piece of C one device computes: rows [row, row + rows) and columns
   [col, col + cols) of the column-major view. */
typedef struct gemm__cuda_piece {
    int64_t row, rows, col, cols;
} gemm__cuda_piece;

/* [0, total) in `parts` consecutive ranges sized in proportion to w[],
   each inner edge on a multiple of align; the last range takes the rest. */
static void gemm__cuda_split_range(int64_t total, int parts, const double *w, int64_t align, int64_t *start,
                                   int64_t *len)
{
    double sum = 0, acc = 0;
    int64_t prev = 0;
    for (int i = 0; i < parts; i++) sum += w[i];
    for (int i = 0; i < parts; i++) {
        int64_t end = total;
        acc += w[i];
        if (i < parts - 1) {
            end = (int64_t)((double)total * (acc / sum) / (double)align + 0.5) * align;
            end = end < prev ? prev : end > total ? total : end;
        }
        start[i] = prev;
        len[i] = end - prev;
        prev = end;
    }
}

/* The grid of pieces for d equal devices that moves the fewest bytes
   (gc*m + gr*n, times k), among those whose bands hold at least `align`
   rows and columns; false when none does. */
static bool gemm__cuda_devices_grid(int64_t m, int64_t n, int d, int64_t align, int *gr, int *gc)
{
    double best = -1;
    for (int r = 1; r <= d; r++) {
        int c = d / r;
        double cost = (double)c * (double)m + (double)r * (double)n;
        if (d % r || (r > 1 && m / r < align) || (c > 1 && n / c < align)) continue;
        if (best < 0 || cost < best) best = cost, *gr = r, *gc = c;
    }
    return best >= 0;
}

/* The pieces of an m x n x k product for the devices weighted w[0..d-1]:
   returns how many of them take a piece (the first ones), piece[i] being
   device i's. */
static int gemm__cuda_devices_plan(int64_t m, int64_t n, int64_t k, int d, const double *w, gemm__cuda_piece *piece)
{
    int64_t rs[GEMM__CUDA_MAX_DEVICES], rl[GEMM__CUDA_MAX_DEVICES], cs[GEMM__CUDA_MAX_DEVICES], cl[GEMM__CUDA_MAX_DEVICES];
    double ones[GEMM__CUDA_MAX_DEVICES], flops = 2.0 * (double)m * (double)n * (double)k;
    bool equal = true;
    int gr = 1, gc = 1, used;
    if (d > GEMM__CUDA_MAX_DEVICES) d = GEMM__CUDA_MAX_DEVICES;
    double per_device = GEMM__HOOK(cuda_device_flops, GEMM__CUDA_DEVICE_FLOPS);
    if ((double)d * per_device > flops) d = (int)(flops / per_device);
    if (d < 1) d = 1;
    for (int i = 0; i < d; i++) ones[i] = 1, equal = equal && w[i] == w[0];
    for (used = d; used > 1; used--) {
        if (!equal) {
            int64_t side = m >= n ? m : n;
            if (side / used < GEMM__CUDA_PIECE_ALIGN) continue;
            gr = m >= n ? used : 1;
            gc = m >= n ? 1 : used;
            break;
        }
        if (gemm__cuda_devices_grid(m, n, used, GEMM__CUDA_PIECE_ALIGN, &gr, &gc)) break;
    }
    if (used == 1) gr = gc = 1;
    /* weighted bands only along the one side that is cut */
    gemm__cuda_split_range(m, gr, gr > 1 && !equal ? w : ones, GEMM__CUDA_PIECE_ALIGN, rs, rl);
    gemm__cuda_split_range(n, gc, gc > 1 && !equal ? w : ones, GEMM__CUDA_PIECE_ALIGN, cs, cl);
    for (int i = 0; i < used; i++) {
        piece[i].row = rs[i / gc];
        piece[i].rows = rl[i / gc];
        piece[i].col = cs[i % gc];
        piece[i].cols = cl[i % gc];
    }
    return used;
}

/* The canonical problem and operands of one piece: the same leading
   dimensions, the operands moved to the piece's first row and column. */
template <typename T, typename TC, typename S>
static void gemm__cuda_piece_problem(const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                     const gemm__cuda_piece *pc, gemm__problem *q, gemm__cuda_operands<T, TC, S> *y)
{
    *q = *p;
    q->m = pc->rows;
    q->n = pc->cols;
    *y = x;
    if (p->work == GEMM__WORK_FULL) {
        y->a = x.a + pc->row * p->ars;
        y->b = x.b + pc->col * p->bcs;
        q->a_extent = ((q->a_trans ? q->m : q->k) - 1) * q->lda + (q->a_trans ? q->k : q->m);
        q->b_extent = ((q->b_trans ? q->k : q->n) - 1) * q->ldb + (q->b_trans ? q->n : q->k);
    }
    y->c = x.c + pc->row + pc->col * p->ldc;
    q->c_extent = (q->n - 1) * q->ldc + q->m;
}

/* The devices a host call runs on, from options.device, device_count and
   devices; every index checked against the devices there are. */
static gemm_status gemm__cuda_host_device_list(const char *fn, const gemm_cuda_options *opt, int *devs, int *d)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: no CUDA device (%s)", fn,
                          e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    if (opt->device_count == GEMM_CUDA_ALL_DEVICES) {
        *d = count < GEMM__CUDA_MAX_DEVICES ? count : GEMM__CUDA_MAX_DEVICES;
        for (int i = 0; i < *d; i++) devs[i] = i;
        return GEMM_OK;
    }
    *d = opt->device_count > 1 ? opt->device_count : 1;
    if (*d > GEMM__CUDA_MAX_DEVICES)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device_count = %d: at most %d devices are served", fn, *d,
                          GEMM__CUDA_MAX_DEVICES);
    for (int i = 0; i < *d; i++) {
        devs[i] = *d > 1 && opt->devices ? opt->devices[i] : opt->device + i;
        if (devs[i] < 0 || devs[i] >= count)
            return *d > 1 && opt->devices
                       ? gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.devices[%d] = %d, but there are %d devices", fn,
                                    i, devs[i], count)
                       : gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device = %d%s, but there are %d devices", fn,
                                    opt->device, *d > 1 ? " with options.device_count" : "", count);
        for (int j = 0; j < i; j++)
            if (devs[j] == devs[i])
                return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.devices[%d] and [%d] are both device %d", fn, j,
                                  i, devs[i]);
    }
    return GEMM_OK;
}

/* One device's share of a multi-device call, as its thread left it (the
   detail copied out of that thread's error slot). */
struct gemm__cuda_device_run {
    int dev;
    gemm__problem q;
    gemm_timing t;
    gemm_status status;
    gemm__cuda_gate_ticket ticket;
    char detail[1024]; /* gemm_last_error_detail()'s size */
};

template <typename T, typename TC, typename S>
static void gemm__cuda_device_main(const char *fn, gemm__cuda_device_run *r, gemm__cuda_operands<T, TC, S> y,
                                   const gemm_cuda_options *opt)
{
    cudaError_t e = cudaSetDevice(r->dev);
    if (e != cudaSuccess) {
        r->status = gemm__cuda_fail(fn, "cudaSetDevice", e);
        gemm__cuda_gate_leave(&r->ticket);
    } else {
        r->status = gemm__cuda_host_run(fn, &r->q, y, opt, &r->t, &r->ticket);
    }
    if (r->status != GEMM_OK) snprintf(r->detail, sizeof r->detail, "%s", gemm_last_error_detail());
}

/* A host call on several devices: plan the pieces, run one thread per
   device (the caller's thread takes the first), report the first failure
   with its device, time the slowest device. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host_devices(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                           const gemm_cuda_options *opt, const int *devs, int d, gemm_timing *t)
{
    double w[GEMM__CUDA_MAX_DEVICES];
    gemm__cuda_piece piece[GEMM__CUDA_MAX_DEVICES];
    gemm__cuda_device_run run[GEMM__CUDA_MAX_DEVICES];
    std::vector<std::thread> threads;
    gemm__cuda_gate gate;
    gemm_cuda_options own;
    int used, slowest = 0;
    for (int i = 0; i < d; i++) {
        int sms = 0;
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, devs[i]) != cudaSuccess) cudaGetLastError();
        w[i] = sms > 0 ? sms : 1;
    }
    used = gemm__cuda_devices_plan(p->m, p->n, p->k, d, w, piece);
    if (used == 1) return gemm__cuda_host_run(fn, p, x, opt, t, NULL); /* devs[0] is current */
    gate.total = used;
    if (opt->host_threads == 0) { /* copy threads per device: see GEMM__CUDA_DEVICE_THREADS */
        int cores = (int)std::thread::hardware_concurrency() / used;
        own = *opt;
        own.host_threads = cores < 1 ? 1 : cores > GEMM__CUDA_DEVICE_THREADS ? GEMM__CUDA_DEVICE_THREADS : cores;
        opt = &own;
    }
    gemm__cuda_operands<T, TC, S> y[GEMM__CUDA_MAX_DEVICES];
    for (int i = 0; i < used; i++) {
        run[i].dev = devs[i];
        run[i].t = gemm_timing{};
        run[i].status = GEMM_OK;
        run[i].ticket = gemm__cuda_gate_ticket{&gate, false, false};
        run[i].detail[0] = 0;
        gemm__cuda_piece_problem(p, x, &piece[i], &run[i].q, &y[i]);
    }
    try {
        for (int i = 1; i < used; i++)
            threads.emplace_back(gemm__cuda_device_main<T, TC, S>, fn, &run[i], y[i], opt);
    } catch (const std::exception &) {
        /* a thread that did not start: the others must not wait for it */
        for (int i = (int)threads.size() + 1; i < used; i++) {
            run[i].status = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no thread for device %d", fn, devs[i]);
            snprintf(run[i].detail, sizeof run[i].detail, "%s", gemm_last_error_detail());
            gemm__cuda_gate_leave(&run[i].ticket);
        }
    }
    gemm__cuda_device_main<T, TC, S>(fn, &run[0], y[0], opt);
    for (std::thread &th : threads) th.join();
    for (int i = 0; i < used; i++)
        if (run[i].status != GEMM_OK && !run[i].ticket.stopped)
            return gemm__fail(run[i].status, "device %d (%d of %d): %s", run[i].dev, i, used, run[i].detail);
    for (int i = 1; i < used; i++)
        if (run[i].t.to_device_s + run[i].t.compute_s + run[i].t.from_device_s >
            run[slowest].t.to_device_s + run[slowest].t.compute_s + run[slowest].t.from_device_s)
            slowest = i;
    if (t) *t = run[slowest].t;
    return GEMM_OK;
}

/* Makes options.device current; *old is the device to restore after. */
static gemm_status gemm__cuda_host_device(const char *fn, int device, int *old)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: no CUDA device (%s)", fn,
                          e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    if (device >= count)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device = %d, but there are %d devices", fn, device, count);
    GEMM__CUDA_TRY(fn, cudaGetDevice(old));
    GEMM__CUDA_TRY(fn, cudaSetDevice(device));
    return GEMM_OK;
}

/* A host-pointer call with work to do, on one device or several. The
   timing is written only when the call succeeds (the entry point zeroed
   it); its parts add up to total_s, setup_s being the rest. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                   const gemm_cuda_options *opt)
{
    gemm_timing t = {};
    double t0 = gemm__cuda_now(), rest;
    int devs[GEMM__CUDA_MAX_DEVICES], d = 1, old = -1;
    gemm_status s = opt->device_count == 0 || opt->device_count == 1 ? GEMM_OK
                                                                      : gemm__cuda_host_device_list(fn, opt, devs, &d);
    if (s == GEMM_OK) s = gemm__cuda_host_device(fn, d > 1 ? devs[0] : opt->device, &old);
    if (s != GEMM_OK) return s;
    s = d > 1 ? gemm__cuda_host_devices(fn, p, x, opt, devs, d, opt->timing ? &t : NULL)
              : gemm__cuda_host_run(fn, p, x, opt, opt->timing ? &t : NULL, NULL);
    cudaSetDevice(old);
    if (s == GEMM_OK && opt->timing) {
        t.total_s = gemm__cuda_now() - t0;
        rest = t.total_s - t.to_device_s - t.compute_s - t.from_device_s;
        t.setup_s = rest > 0 ? rest : 0;
        *opt->timing = t;
    }
    return s;
}
