/* Small uploads: bytes the host prepares for a launch (a batch's member
   lists, a grouped call's table of groups), copied to the device in the
   stream's order and kept there until the launches that read them are
   done.

   Through the scratch pool an upload is an allocation, a copy from
   pageable memory (which the driver stages through a buffer of its own
   before it returns) and a free in stream order: about 10 us of the
   host's time on the GPU machines' Xeon hosts, a third of a grouped call
   of 1,000 small members. So each device keeps a few slots, each a
   page-locked host buffer, a device buffer of GEMM__CUDA_SLOT_BYTES and an
   event: a call takes a free slot, fills its host buffer, queues the copy
   to its device buffer (a DMA, no staging), and after its launches
   records the slot's event, which frees the slot once the copy and every
   kernel reading the bytes are done. An upload too large for a slot, one
   made while the stream is capturing a graph (the graph would read the
   slot at every replay, long after the call gave it back), and one that
   finds every slot in use go through the pool as before.

   A device's slots belong to its context: cudaDeviceReset frees them, so
   the slots remember the context they were made in (cuCtxGetId) and are
   made again in a new one. */
#pragma once
#include <atomic>
#include <cuda.h> /* CUcontext, CUresult */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
#include "errors.cuh"          /* gemm__cuda_fail */
#include "scratch.cuh"         /* gemm__cuda_scratch_pool */

/* Bytes of one slot: the lists of 2,600 members with their table. */
#define GEMM__CUDA_SLOT_BYTES ((size_t)64 << 10)
#define GEMM__CUDA_SLOTS 4

typedef struct gemm__cuda_upload_slot {
    char *host;
    void *device;
    cudaEvent_t done; /* recorded after the launches that read the slot */
    std::atomic<int> taken;
} gemm__cuda_upload_slot;

/* A device's slots. state: 0 none (yet), 1 being made or given back,
   2 ready, 3 none to be had (an allocation failed); context: the id of
   the context they were made in. */
typedef struct gemm__cuda_upload_slots {
    std::atomic<int> state;
    std::atomic<unsigned long long> context;
    gemm__cuda_upload_slot slot[GEMM__CUDA_SLOTS];
} gemm__cuda_upload_slots;

/* One upload: where the launches read it (device), and the slot it went
   through (-1: a buffer of the pool, freed in stream order). */
typedef struct gemm__cuda_upload {
    void *device;
    int dev, slot;
} gemm__cuda_upload;

#ifdef GEMM__TEST_HOOKS
static int gemm__cuda_upload_last_slot = -2; /* the last upload's slot (-1: through the pool); for the tests */
#endif

static gemm__cuda_upload_slots *gemm__cuda_device_slots(int dev)
{
    static gemm__cuda_upload_slots table[64];
    return dev >= 0 && dev < 64 ? &table[dev] : NULL;
}

/* The id of the current context, 0 where the driver does not say. */
static unsigned long long gemm__cuda_context_id(void)
{
    typedef CUresult (*current_fn)(CUcontext *);
    typedef CUresult (*id_fn)(CUcontext, unsigned long long *);
    static std::atomic<current_fn> current{NULL};
    static std::atomic<id_fn> id{NULL};
    CUcontext c = NULL;
    unsigned long long n = 0;
    if (!current.load() || !id.load()) {
        void *f = NULL, *g = NULL;
        cudaDriverEntryPointQueryResult q, r;
        if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !f ||
            cudaGetDriverEntryPointByVersion("cuCtxGetId", &g, 12000, cudaEnableDefault, &r) != cudaSuccess ||
            r != cudaDriverEntryPointSuccess || !g)
            return 0;
        current.store((current_fn)f);
        id.store((id_fn)g);
    }
    if (current.load()(&c) != CUDA_SUCCESS || !c || id.load()(c, &n) != CUDA_SUCCESS) return 0;
    return n;
}

/* Makes dev's slots (dev current, its context `context`); on a failure
   (no memory, or another thread capturing a graph in the global mode,
   which forbids cudaMalloc) the device gets none in this process (state
   3: the pool serves it), and what was made is freed. */
static void gemm__cuda_slots_make(gemm__cuda_upload_slots *t, unsigned long long context)
{
    char *host = NULL;
    void *device = NULL;
    int made = 0;
    bool ok = cudaHostAlloc((void **)&host, GEMM__CUDA_SLOTS * GEMM__CUDA_SLOT_BYTES, cudaHostAllocDefault) ==
                  cudaSuccess &&
              cudaMalloc(&device, GEMM__CUDA_SLOTS * GEMM__CUDA_SLOT_BYTES) == cudaSuccess;
    while (ok && made < GEMM__CUDA_SLOTS)
        if ((ok = cudaEventCreateWithFlags(&t->slot[made].done, cudaEventDisableTiming) == cudaSuccess)) made++;
    if (!ok) {
        while (made-- > 0) cudaEventDestroy(t->slot[made].done);
        if (device) cudaFree(device);
        if (host) cudaFreeHost(host);
        (void)cudaGetLastError(); /* the pool path serves this device; not the caller's error */
        t->state.store(3);
        return;
    }
    for (int i = 0; i < GEMM__CUDA_SLOTS; i++) {
        t->slot[i].host = host + i * GEMM__CUDA_SLOT_BYTES;
        t->slot[i].device = (char *)device + i * GEMM__CUDA_SLOT_BYTES;
        t->slot[i].taken.store(0);
    }
    t->context.store(context);
    t->state.store(2);
}

/* Gives dev's slots back (gemm_cuda_release_scratch): each one's last
   copy and launches waited for, then its buffers and events freed; the
   next upload makes them again. Where another thread holds a slot now,
   they all stay. */
static void gemm__cuda_upload_slots_release(int dev)
{
    gemm__cuda_upload_slots *t = gemm__cuda_device_slots(dev);
    int ready = 2, held = 0;
    if (!t || !t->state.compare_exchange_strong(ready, 1)) return; /* none, or being made or given back */
    for (; held < GEMM__CUDA_SLOTS; held++) {
        int free_ = 0;
        if (!t->slot[held].taken.compare_exchange_strong(free_, 1)) break;
    }
    if (held < GEMM__CUDA_SLOTS) { /* in use: keep them */
        while (held-- > 0) t->slot[held].taken.store(0);
        t->state.store(2);
        return;
    }
    if (t->context.load() == gemm__cuda_context_id()) { /* else a reset freed them already */
        for (int i = 0; i < GEMM__CUDA_SLOTS; i++) {
            cudaEventSynchronize(t->slot[i].done);
            cudaEventDestroy(t->slot[i].done);
        }
        cudaFree(t->slot[0].device);
        cudaFreeHost(t->slot[0].host);
        (void)cudaGetLastError(); /* nothing the caller can act on */
    }
    t->state.store(0);
}

/* A free slot of dev for `bytes` queued on `stream`, taken (its previous
   copy and launches are done), or -1 where the upload goes through the
   pool. */
static int gemm__cuda_slot_take(int dev, size_t bytes, cudaStream_t stream)
{
    gemm__cuda_upload_slots *t = gemm__cuda_device_slots(dev);
    cudaStreamCaptureStatus capture;
    unsigned long long context;
    int state;
    if (!t || bytes > GEMM__CUDA_SLOT_BYTES) return -1;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
        (void)cudaGetLastError(); /* the pool path's calls say what is wrong */
        return -1;
    }
    if (capture != cudaStreamCaptureStatusNone || (context = gemm__cuda_context_id()) == 0) return -1;
    state = t->state.load();
    if (state == 2 && t->context.load() != context) { /* made in a context since reset: make them again */
        int ready = 2;
        if (t->state.compare_exchange_strong(ready, 0)) state = 0;
        else return -1;
    }
    if (state == 0) {
        int none = 0;
        if (!t->state.compare_exchange_strong(none, 1)) return -1; /* another thread makes them */
        gemm__cuda_slots_make(t, context);
        state = t->state.load();
    }
    if (state != 2) return -1;
    for (int i = 0; i < GEMM__CUDA_SLOTS; i++) {
        gemm__cuda_upload_slot *s = &t->slot[i];
        int free_ = 0;
        cudaError_t e;
        if (!s->taken.compare_exchange_strong(free_, 1)) continue;
        if ((e = cudaEventQuery(s->done)) == cudaSuccess) return i; /* never recorded counts as done */
        if (e != cudaErrorNotReady) (void)cudaGetLastError();
        s->taken.store(0);
    }
    return -1;
}

/* The host buffer a slot's or the pool's upload of `bytes` is written
   into before gemm__cuda_upload_send; NULL (up->slot -1) where host
   memory ran out. */
static void *gemm__cuda_upload_begin(int dev, size_t bytes, cudaStream_t stream, gemm__cuda_upload *up)
{
    up->device = NULL;
    up->dev = dev;
    up->slot = gemm__cuda_slot_take(dev, bytes, stream);
#ifdef GEMM__TEST_HOOKS
    gemm__cuda_upload_last_slot = up->slot;
#endif
    if (up->slot >= 0) return gemm__cuda_device_slots(dev)->slot[up->slot].host;
    return GEMM_MALLOC(bytes);
}

/* Queues the copy of `bytes` of host (gemm__cuda_upload_begin's buffer) to
   the device: up->device holds them in stream order from here on. */
static gemm_status gemm__cuda_upload_send(const char *fn, gemm__cuda_upload *up, void *host, size_t bytes,
                                          cudaStream_t stream)
{
    cudaMemPool_t pool;
    cudaError_t e;
    gemm_status s;
    if (up->slot >= 0) {
        gemm__cuda_upload_slot *slot = &gemm__cuda_device_slots(up->dev)->slot[up->slot];
        if ((e = cudaMemcpyAsync(slot->device, host, bytes, cudaMemcpyHostToDevice, stream)) != cudaSuccess) {
            slot->taken.store(0); /* nothing was queued */
            up->slot = -1;
            return gemm__cuda_fail(fn, "cudaMemcpyAsync (an upload)", e);
        }
        up->device = slot->device;
        return GEMM_OK;
    }
    s = gemm__cuda_scratch_pool(fn, up->dev, true, &pool);
    e = s == GEMM_OK ? cudaMallocFromPoolAsync(&up->device, bytes, pool, stream) : cudaSuccess;
    if (s == GEMM_OK && e != cudaSuccess) {
        up->device = NULL;
        s = gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (an upload)", e);
    }
    if (s == GEMM_OK && (e = cudaMemcpyAsync(up->device, host, bytes, cudaMemcpyHostToDevice, stream)) != cudaSuccess)
        s = gemm__cuda_fail(fn, "cudaMemcpyAsync (an upload)", e);
    GEMM_FREE(host);
    return s;
}

/* After the launches that read an upload (queued or not): the slot is
   free once they are done; a pool buffer is freed in stream order. s is
   the call's status so far, returned unless this fails first. */
static gemm_status gemm__cuda_upload_done(const char *fn, gemm__cuda_upload *up, cudaStream_t stream, gemm_status s)
{
    cudaError_t e = cudaSuccess;
    if (up->slot >= 0) {
        gemm__cuda_upload_slot *slot = &gemm__cuda_device_slots(up->dev)->slot[up->slot];
        /* a slot whose event could not be recorded stays taken: nothing
           says when its copy is done */
        if ((e = cudaEventRecord(slot->done, stream)) == cudaSuccess) slot->taken.store(0);
    } else if (up->device)
        e = cudaFreeAsync(up->device, stream);
    up->device = NULL;
    up->slot = -1;
    if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "releasing an upload", e);
    return s;
}
