/* The host path's staging: the host threads that copy between the caller's
   pageable memory and page-locked staging chunks while the copy engines
   move the chunks, and the per-device context a host call runs in (its
   streams, events, chunks and threads), kept between calls. */
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <new> /* std::nothrow */
#include <string.h>
#include <system_error>
#include <thread>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h> /* _mm_stream_si128 */
#endif
#include "stream_ops.cuh" /* gemm__cuda_real */

static double gemm__cuda_now(void)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* Bytes of one staging chunk: large enough that a copy engine runs at full
   speed on it, small enough that a few threads fill several at once. */
#define GEMM__CUDA_CHUNK ((size_t)8 << 20)

/* One host copy of a staged piece: `rows` runs of `width` bytes, after
   waiting (when `wait` is set) for the copy engine to be done with the
   chunk. *done becomes 1, or 2 when that wait failed. */
typedef struct gemm__cuda_job {
    char *dst;
    const char *src;
    size_t dpitch, spitch, width, rows;
    cudaError_t (*wait)(void *event);
    void *event;
    std::atomic<int> *done;
} gemm__cuda_job;

/* Runs at least this long go through non-temporal stores. */
#define GEMM__CUDA_STREAM_COPY_MIN 4096

/* memcpy for the staging copies, with non-temporal stores where the CPU
   has them: the bytes written are read next by a copy engine (a chunk) or
   not soon at all (the caller's C), so they need not pass through the
   caches, and the stores skip the read a cached store makes first. The
   copy threads of several GPUs share the host's memory bandwidth, which is
   what bounds a call on several GPUs: on a 32-core host of two H200s, 24
   threads filled chunks at 49 GB/s with memcpy and 55 with these stores,
   and emptied them into pageable memory at 43 and 48 (while the engines
   moved them: 40 / 45 and 43 / 48). */
static void gemm__cuda_stream_copy(char *dst, const char *src, size_t n)
{
#if defined(__SSE2__)
    if (n >= GEMM__CUDA_STREAM_COPY_MIN) {
        size_t head = (16 - ((size_t)dst & 15)) & 15, i;
        memcpy(dst, src, head);
        dst += head, src += head, n -= head;
        for (i = 0; i + 64 <= n; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
            __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
            _mm_stream_si128((__m128i *)(dst + i), a);
            _mm_stream_si128((__m128i *)(dst + i + 16), b);
            _mm_stream_si128((__m128i *)(dst + i + 32), c);
            _mm_stream_si128((__m128i *)(dst + i + 48), d);
        }
        memcpy(dst + i, src + i, n - i);
        return;
    }
#endif
    memcpy(dst, src, n);
}

static void gemm__cuda_job_run(const gemm__cuda_job *j)
{
    size_t r;
    if (j->wait && j->wait(j->event) != cudaSuccess) {
        j->done->store(2);
        return;
    }
    for (r = 0; r < j->rows; r++) gemm__cuda_stream_copy(j->dst + r * j->dpitch, j->src + r * j->spitch, j->width);
#if defined(__SSE2__)
    _mm_sfence(); /* the stores are seen before `done` says so */
#endif
    j->done->store(1);
}

/* The library's own copy threads: a FIFO of jobs; `completions` counts
   finished jobs so a waiter can sleep until the next one. One more thread
   takes the jobs that must first wait for the copy engine (the emptying of
   store chunks, in the order the engine finishes them) and passes each to
   the front of the FIFO once its copy is done, so no copy thread waits for
   a multiply. With no threads a job runs in the caller. */
typedef struct gemm__cuda_workers {
    std::mutex mu;
    std::condition_variable more, more_waiting, finished;
    std::deque<gemm__cuda_job> queue, waiting;
    std::vector<std::thread> threads;
    unsigned long long completions;
    bool stop;
} gemm__cuda_workers;

static void gemm__cuda_workers_count(gemm__cuda_workers *w)
{
    {
        std::lock_guard<std::mutex> lk(w->mu);
        w->completions++;
    }
    w->finished.notify_all();
}

template <class Dev> static void gemm__cuda_worker_main(gemm__cuda_workers *w, int dev)
{
    Dev::set_device(dev); /* the events they wait on belong to this device */
    for (;;) {
        gemm__cuda_job j;
        {
            std::unique_lock<std::mutex> lk(w->mu);
            w->more.wait(lk, [w] { return w->stop || !w->queue.empty(); });
            if (w->queue.empty()) return;
            j = w->queue.front();
            w->queue.pop_front();
        }
        gemm__cuda_job_run(&j);
        gemm__cuda_workers_count(w);
    }
}

template <class Dev> static void gemm__cuda_waiter_main(gemm__cuda_workers *w, int dev)
{
    Dev::set_device(dev);
    for (;;) {
        gemm__cuda_job j;
        {
            std::unique_lock<std::mutex> lk(w->mu);
            w->more_waiting.wait(lk, [w] { return w->stop || !w->waiting.empty(); });
            if (w->waiting.empty()) return;
            j = w->waiting.front();
            w->waiting.pop_front();
        }
        if (j.wait(j.event) != cudaSuccess) {
            j.done->store(2);
            gemm__cuda_workers_count(w);
            continue;
        }
        j.wait = NULL;
        {
            std::lock_guard<std::mutex> lk(w->mu);
            w->queue.push_front(j);
        }
        w->more.notify_one();
    }
}

static void gemm__cuda_workers_stop(gemm__cuda_workers *w)
{
    {
        std::lock_guard<std::mutex> lk(w->mu);
        w->stop = true;
    }
    w->more.notify_all();
    w->more_waiting.notify_all();
    for (size_t i = 0; i < w->threads.size(); i++) w->threads[i].join();
    w->threads.clear();
    w->stop = false;
}

/* `count` copy threads and the waiting one (0: copies run in the calling
   thread). Throws std::system_error when a thread cannot start (the
   caller catches it). */
template <class Dev> static void gemm__cuda_workers_resize(gemm__cuda_workers *w, int count, int dev)
{
    if ((int)w->threads.size() == count + 1) return;
    gemm__cuda_workers_stop(w);
    if (count == 0) return;
    w->threads.push_back(std::thread(gemm__cuda_waiter_main<Dev>, w, dev));
    while ((int)w->threads.size() < count + 1) w->threads.push_back(std::thread(gemm__cuda_worker_main<Dev>, w, dev));
}

/* A job for the copy threads (`in_caller`, or no threads: run here). With
   `after_engine` it goes through the waiting thread first. */
static void gemm__cuda_workers_submit(gemm__cuda_workers *w, const gemm__cuda_job *j, bool in_caller, bool after_engine)
{
    if (in_caller || w->threads.empty()) {
        gemm__cuda_job_run(j);
        gemm__cuda_workers_count(w);
        return;
    }
    try {
        std::lock_guard<std::mutex> lk(w->mu);
        if (after_engine) w->waiting.push_back(*j);
        else w->queue.push_back(*j);
    } catch (const std::exception &) { /* no room in the queue: the caller copies, so no flag is left unset */
        gemm__cuda_job_run(j);
        gemm__cuda_workers_count(w);
        return;
    }
    if (after_engine) w->more_waiting.notify_one();
    else w->more.notify_one();
}

static unsigned long long gemm__cuda_workers_seen(gemm__cuda_workers *w)
{
    std::lock_guard<std::mutex> lk(w->mu);
    return w->completions;
}

/* Sleeps until some job finishes after `seen` was read. A job sets its done
   flag before it counts, so a flag read after `seen` cannot be missed. */
static void gemm__cuda_workers_wait(gemm__cuda_workers *w, unsigned long long seen)
{
    std::unique_lock<std::mutex> lk(w->mu);
    w->finished.wait(lk, [w, seen] { return w->completions != seen; });
}

/* How many copy threads a call uses: options.host_threads, else half the
   host's cores (memory bandwidth, not cores, limits these copies), at
   most 8. */
static int gemm__cuda_copy_threads(const gemm_cuda_options *opt)
{
    unsigned cores = std::thread::hardware_concurrency();
    int n = opt->host_threads > 0 ? opt->host_threads : (int)(cores / 2);
    if (opt->host_threads <= 0 && n > 8) n = 8;
    return n < 1 ? 1 : n > 64 ? 64 : n;
}

/* What a host call runs in: two compute streams (a multiply's last wave
   overlaps the next one's first), one stream per copy direction, events,
   page-locked chunks (mapped, so the zero-copy path can use them too) and
   the copy threads. One context serves one call at a time; a device keeps
   its idle ones for the next calls. */
template <class Dev> struct gemm__cuda_context {
    int dev;
    typename Dev::stream compute[2], h2d, d2h;
    std::vector<typename Dev::event> events;
    std::vector<void *> chunks;
    gemm__cuda_workers workers;
    gemm__cuda_context *next;
};

template <class Dev> static void gemm__cuda_context_destroy(gemm__cuda_context<Dev> *c)
{
    size_t i;
    if (!c) return;
    gemm__cuda_workers_stop(&c->workers);
    for (i = 0; i < c->chunks.size(); i++) Dev::host_free(c->chunks[i]);
    for (i = 0; i < c->events.size(); i++) Dev::event_destroy(c->events[i]);
    for (i = 0; i < 2; i++)
        if (c->compute[i]) Dev::stream_destroy(c->compute[i]);
    if (c->h2d) Dev::stream_destroy(c->h2d);
    if (c->d2h) Dev::stream_destroy(c->d2h);
    delete c;
}

/* A new context on the current device `dev` (NULL and *e set on failure). */
template <class Dev> static gemm__cuda_context<Dev> *gemm__cuda_context_create(int dev, cudaError_t *e)
{
    gemm__cuda_context<Dev> *c = new (std::nothrow) gemm__cuda_context<Dev>();
    if (!c) {
        *e = cudaErrorMemoryAllocation;
        return NULL;
    }
    c->dev = dev;
    c->workers.completions = 0;
    c->workers.stop = false;
    if ((*e = Dev::stream_create(&c->compute[0])) != cudaSuccess || (*e = Dev::stream_create(&c->compute[1])) != cudaSuccess ||
        (*e = Dev::stream_create(&c->h2d)) != cudaSuccess || (*e = Dev::stream_create(&c->d2h)) != cudaSuccess) {
        gemm__cuda_context_destroy(c);
        return NULL;
    }
    return c;
}

/* At least `count` events; returns the error of the first that failed. */
template <class Dev> static cudaError_t gemm__cuda_context_events(gemm__cuda_context<Dev> *c, size_t count)
{
    while (c->events.size() < count) {
        typename Dev::event e;
        cudaError_t r = Dev::event_create(&e);
        if (r != cudaSuccess) return r;
        c->events.push_back(e);
    }
    return cudaSuccess;
}

/* Up to `count` chunks; returns how many there are (page-locked memory may
   run out: a call then works with fewer). */
template <class Dev> static size_t gemm__cuda_context_chunks(gemm__cuda_context<Dev> *c, size_t count)
{
    while (c->chunks.size() < count) {
        void *p = NULL;
        if (Dev::host_alloc(&p, GEMM__CUDA_CHUNK) != cudaSuccess || !p) break;
        c->chunks.push_back(p);
    }
    return c->chunks.size() < count ? c->chunks.size() : count;
}

/* The idle contexts of each device (the real device only). */
struct gemm__cuda_real;
static std::mutex &gemm__cuda_contexts_lock(void)
{
    static std::mutex mu;
    return mu;
}
static gemm__cuda_context<gemm__cuda_real> **gemm__cuda_idle_contexts(int dev)
{
    static gemm__cuda_context<gemm__cuda_real> *idle[64];
    return &idle[dev];
}

/* An idle context of device `dev` (current), or a new one. */
static gemm__cuda_context<gemm__cuda_real> *gemm__cuda_context_take(int dev, cudaError_t *e)
{
    gemm__cuda_context<gemm__cuda_real> *c;
    {
        std::lock_guard<std::mutex> lk(gemm__cuda_contexts_lock());
        gemm__cuda_context<gemm__cuda_real> **head = gemm__cuda_idle_contexts(dev);
        if ((c = *head) != NULL) *head = c->next;
    }
    if (c) return c;
    return gemm__cuda_context_create<gemm__cuda_real>(dev, e);
}

static void gemm__cuda_context_give(gemm__cuda_context<gemm__cuda_real> *c)
{
    std::lock_guard<std::mutex> lk(gemm__cuda_contexts_lock());
    gemm__cuda_context<gemm__cuda_real> **head = gemm__cuda_idle_contexts(c->dev);
    c->next = *head;
    *head = c;
}

/* Destroys the idle contexts of device `dev` (their chunks, threads,
   streams); contexts in use by a running call stay with it. */
static void gemm__cuda_context_release_idle(int dev)
{
    gemm__cuda_context<gemm__cuda_real> *c, *next;
    {
        std::lock_guard<std::mutex> lk(gemm__cuda_contexts_lock());
        c = *gemm__cuda_idle_contexts(dev);
        *gemm__cuda_idle_contexts(dev) = NULL;
    }
    for (; c; c = next) {
        next = c->next;
        gemm__cuda_context_destroy(c);
    }
}
