/* The thread pool: persistent workers that run a task beside the caller.
   gemm__cpu_pool_acquire takes the pool for one call (or says to run
   alone), gemm__cpu_pool_run runs task(arg, tid) on the caller (tid 0) and
   on every worker that wakes in time, gemm__cpu_pool_release gives it back.

   The pool starts at the first call that wants more than one thread and
   is stopped and joined at exit (atexit: calls made from then on run
   alone, and idle workers notice at once); a child made by fork() starts
   with a fresh, empty pool (pthread_atfork). One call at a time owns it: a
   call made while another user thread's call holds it runs alone, so k
   concurrent callers use at most threads + k - 1 threads. Idle workers
   spin for a few tens of microseconds after a call, then poll for a few
   milliseconds with sched_yield() (which gives the core to any other
   runnable thread), then sleep on a condition variable: back-to-back calls
   find them awake and on their own cores. */
#pragma once

#include <stdint.h>         /* intptr_t */
#include <stdlib.h>         /* atexit */
#include "../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
#include "platform.h"       /* GEMM__CPU_THREADS, <pthread.h>, <sched.h> */
#include "threads.c"        /* GEMM__CPU_MAX_THREADS */

typedef void (*gemm__cpu_task_fn)(void *arg, int tid);

#if defined(GEMM__CPU_THREADS)
#if defined(__x86_64__) || defined(__i386__)
#define GEMM__CPU_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define GEMM__CPU_PAUSE() __asm__ __volatile__("yield")
#else
#define GEMM__CPU_PAUSE() ((void)0)
#endif
#define GEMM__CPU_SPINS 4000   /* pauses: a few tens of microseconds */
#define GEMM__CPU_YIELDS 40000 /* sched_yield() calls: a few milliseconds, then sleep */

static pthread_mutex_t gemm__cpu_pool_owner = PTHREAD_MUTEX_INITIALIZER; /* held by the call using the pool */
static pthread_mutex_t gemm__cpu_pool_lock = PTHREAD_MUTEX_INITIALIZER;  /* guards the sleeps below */
static pthread_cond_t gemm__cpu_pool_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t gemm__cpu_pool_done = PTHREAD_COND_INITIALIZER;
static pthread_t gemm__cpu_pool_threads[GEMM__CPU_MAX_THREADS];
static unsigned gemm__cpu_pool_seen0[GEMM__CPU_MAX_THREADS]; /* job generation when each worker started */
static int gemm__cpu_pool_started;  /* workers running (ids 1..started) */
static int gemm__cpu_pool_exiting;  /* set once at exit; the pool never restarts */
static unsigned gemm__cpu_pool_gen; /* bumped for every job */
static int gemm__cpu_pool_state;    /* GEMM__CPU_CLOSED | workers inside the job */
#define GEMM__CPU_CLOSED 0x40000000
static gemm__cpu_task_fn gemm__cpu_pool_task;
static void *gemm__cpu_pool_arg;
static char *gemm__cpu_pool_ws;      /* the workspace of the call that holds the pool, kept */
static size_t gemm__cpu_pool_ws_bytes;

/* Whether the process is exiting (gemm__cpu_pool_stop runs): every wait
   loop of a worker looks, so exit() never waits for a spin or yield phase
   to run out (under load each sched_yield can give away a whole time slice). */
static int gemm__cpu_pool_leaving(void) { return GEMM__CPU_LOAD(gemm__cpu_pool_exiting); }

static void *gemm__cpu_worker(void *param)
{
    int id = (int)(intptr_t)param, spins, state;
    unsigned seen = gemm__cpu_pool_seen0[id], gen;
    for (;;) {
        for (spins = 0; (gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && spins < GEMM__CPU_SPINS &&
                        !gemm__cpu_pool_leaving();
             spins++)
            GEMM__CPU_PAUSE();
        /* Then poll while yielding: a sleeping worker woken by the next call
           is often placed on the caller's own core when another process's
           thread holds the other one (measured: 2 threads at 1-thread speed
           next to OpenBLAS's spinning workers); a polling one is already on
           its core, and gives it up to anything else runnable. */
        for (spins = 0; (gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && spins < GEMM__CPU_YIELDS &&
                        !gemm__cpu_pool_leaving();
             spins++)
            sched_yield();
        if (gen == seen) {
            pthread_mutex_lock(&gemm__cpu_pool_lock);
            while ((gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && !gemm__cpu_pool_leaving())
                pthread_cond_wait(&gemm__cpu_pool_wake, &gemm__cpu_pool_lock);
            pthread_mutex_unlock(&gemm__cpu_pool_lock);
        }
        if (gen == seen) return NULL; /* exiting */
        seen = gen;
        /* Check in, unless the caller has closed the job: it took every
           chunk itself and must not wait for a worker that woke up late. */
        state = GEMM__CPU_LOAD(gemm__cpu_pool_state);
        while (!(state & GEMM__CPU_CLOSED) &&
               !__atomic_compare_exchange_n(&gemm__cpu_pool_state, &state, state + 1, 1, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {}
        if (state & GEMM__CPU_CLOSED) continue;
        gemm__cpu_pool_task(gemm__cpu_pool_arg, id);
        if (__atomic_sub_fetch(&gemm__cpu_pool_state, 1, __ATOMIC_ACQ_REL) == GEMM__CPU_CLOSED) {
            pthread_mutex_lock(&gemm__cpu_pool_lock);
            pthread_cond_signal(&gemm__cpu_pool_done);
            pthread_mutex_unlock(&gemm__cpu_pool_lock);
        }
    }
}

/* At exit: from now on calls run alone; a call still running finishes;
   then the workers are woken and joined. */
static void gemm__cpu_pool_stop(void)
{
    int i;
    GEMM__CPU_STORE(gemm__cpu_pool_exiting, 1);
    pthread_mutex_lock(&gemm__cpu_pool_owner);
    pthread_mutex_lock(&gemm__cpu_pool_lock);
    pthread_cond_broadcast(&gemm__cpu_pool_wake);
    pthread_mutex_unlock(&gemm__cpu_pool_lock);
    for (i = 1; i <= gemm__cpu_pool_started; i++) pthread_join(gemm__cpu_pool_threads[i], NULL);
    gemm__cpu_pool_started = 0;
    GEMM_FREE(gemm__cpu_pool_ws);
    gemm__cpu_pool_ws = NULL;
    gemm__cpu_pool_ws_bytes = 0;
    pthread_mutex_unlock(&gemm__cpu_pool_owner);
}

/* A workspace of `bytes` for the call that holds the pool (NULL: no
   memory). It is kept for the next threaded call: a fresh one of tens of
   MiB (16 threads' packed blocks and panels) takes a page fault per 4 KiB
   at every call, milliseconds where the product takes a few. Only a
   larger need replaces it; exit frees it. */
static char *gemm__cpu_pool_workspace(size_t bytes)
{
    if (gemm__cpu_pool_ws_bytes >= bytes) return gemm__cpu_pool_ws;
    GEMM_FREE(gemm__cpu_pool_ws);
    gemm__cpu_pool_ws_bytes = (gemm__cpu_pool_ws = (char *)GEMM_MALLOC(bytes)) ? bytes : 0;
    return gemm__cpu_pool_ws;
}

/* A forked child has none of the workers (and maybe a lock some other
   thread of the parent held): it starts with a fresh, empty pool. */
static void gemm__cpu_pool_forked(void)
{
    pthread_mutex_init(&gemm__cpu_pool_owner, NULL);
    pthread_mutex_init(&gemm__cpu_pool_lock, NULL);
    pthread_cond_init(&gemm__cpu_pool_wake, NULL);
    pthread_cond_init(&gemm__cpu_pool_done, NULL);
    gemm__cpu_pool_started = 0;
}

/* Takes the pool for a call that wants `want` threads; returns how many it
   may use (1 = run alone: the pool is busy, stopped, or wants == 1). */
static int gemm__cpu_pool_acquire(int want)
{
    static int registered; /* 1: exit and fork handlers in place; -1: they could not be, so no pool */
    if (want <= 1 || gemm__cpu_pool_leaving() || pthread_mutex_trylock(&gemm__cpu_pool_owner) != 0) return 1;
    if (!registered && !gemm__cpu_pool_leaving())
        registered = atexit(gemm__cpu_pool_stop) == 0 && pthread_atfork(NULL, NULL, gemm__cpu_pool_forked) == 0 ? 1 : -1;
    if (registered != 1 || gemm__cpu_pool_leaving()) { pthread_mutex_unlock(&gemm__cpu_pool_owner); return 1; }
    while (gemm__cpu_pool_started < want - 1) {
        int id = gemm__cpu_pool_started + 1;
        gemm__cpu_pool_seen0[id] = gemm__cpu_pool_gen;
        if (pthread_create(&gemm__cpu_pool_threads[id], NULL, gemm__cpu_worker, (void *)(intptr_t)id) != 0) break;
        gemm__cpu_pool_started = id;
    }
    if (gemm__cpu_pool_started == 0) { pthread_mutex_unlock(&gemm__cpu_pool_owner); return 1; }
    return gemm__cpu_pool_started + 1 < want ? gemm__cpu_pool_started + 1 : want;
}

static void gemm__cpu_pool_release(void) { pthread_mutex_unlock(&gemm__cpu_pool_owner); }

/* Runs task(arg, tid) here (tid 0) and on the workers (tid 1..started)
   that wake up before the caller's own task returns; the task takes its
   chunks of work from a shared counter, so whoever is awake does them. */
static void gemm__cpu_pool_run(gemm__cpu_task_fn task, void *arg)
{
    int spins;
    gemm__cpu_pool_task = task;
    gemm__cpu_pool_arg = arg;
    GEMM__CPU_STORE(gemm__cpu_pool_state, 0);
    pthread_mutex_lock(&gemm__cpu_pool_lock);
    GEMM__CPU_STORE(gemm__cpu_pool_gen, gemm__cpu_pool_gen + 1);
    pthread_cond_broadcast(&gemm__cpu_pool_wake);
    pthread_mutex_unlock(&gemm__cpu_pool_lock);
    task(arg, 0);
    /* every chunk is taken: close the job, wait for the workers inside it */
    if (__atomic_fetch_or(&gemm__cpu_pool_state, GEMM__CPU_CLOSED, __ATOMIC_ACQ_REL) == 0) return;
    for (spins = 0; GEMM__CPU_LOAD(gemm__cpu_pool_state) != GEMM__CPU_CLOSED && spins < GEMM__CPU_SPINS; spins++)
        GEMM__CPU_PAUSE();
    pthread_mutex_lock(&gemm__cpu_pool_lock);
    while (GEMM__CPU_LOAD(gemm__cpu_pool_state) != GEMM__CPU_CLOSED)
        pthread_cond_wait(&gemm__cpu_pool_done, &gemm__cpu_pool_lock);
    pthread_mutex_unlock(&gemm__cpu_pool_lock);
}

/* Waits until *x >= v, while other threads of the call finish work they
   have taken (a packed micro-panel, a row block: microseconds): spins a
   little, then yields the core, which costs a system call when nothing
   else wants the core and hands it over when the thread we wait for is
   waiting for one (more threads than cores, or valgrind's one at a time). */
#define GEMM__CPU_WAIT_SPINS 200
static void gemm__cpu_wait_for(const int *x, int v)
{
    int spins;
    for (spins = 0; GEMM__CPU_LOAD(*x) < v; spins++) {
        if (spins < GEMM__CPU_WAIT_SPINS) GEMM__CPU_PAUSE();
        else sched_yield();
    }
}
#else
/* One thread does all the work in order: nothing is ever outstanding. */
static char *gemm__cpu_pool_workspace(size_t bytes) { (void)bytes; return NULL; }
static void gemm__cpu_wait_for(const int *x, int v) { (void)x; (void)v; }
static int gemm__cpu_pool_acquire(int want) { (void)want; return 1; }
static void gemm__cpu_pool_release(void) {}
static void gemm__cpu_pool_run(gemm__cpu_task_fn task, void *arg) { task(arg, 0); }
#endif
