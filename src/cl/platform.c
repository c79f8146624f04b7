/* Small portable pieces: a lock, a wall clock, the process id (for file
   names no other process writes at the same time). */
#pragma once

#ifdef _WIN32
#include <windows.h>
#include <process.h>
#else
#include <pthread.h>
#include <sys/time.h>
#include <unistd.h>
#endif

#ifdef _WIN32
typedef CRITICAL_SECTION gemm__cl_lock;
static void gemm__cl_lock_init(gemm__cl_lock *l) { InitializeCriticalSection(l); }
static void gemm__cl_lock_free(gemm__cl_lock *l) { DeleteCriticalSection(l); }
static void gemm__cl_lock_take(gemm__cl_lock *l) { EnterCriticalSection(l); }
static void gemm__cl_lock_give(gemm__cl_lock *l) { LeaveCriticalSection(l); }
static long gemm__cl_pid(void) { return (long)_getpid(); }
static double gemm__cl_now(void)
{
    LARGE_INTEGER f, t;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart / (double)f.QuadPart;
}
#else
typedef pthread_mutex_t gemm__cl_lock;
static void gemm__cl_lock_init(gemm__cl_lock *l) { pthread_mutex_init(l, NULL); }
static void gemm__cl_lock_free(gemm__cl_lock *l) { pthread_mutex_destroy(l); }
static void gemm__cl_lock_take(gemm__cl_lock *l) { pthread_mutex_lock(l); }
static void gemm__cl_lock_give(gemm__cl_lock *l) { pthread_mutex_unlock(l); }
static long gemm__cl_pid(void) { return (long)getpid(); }
static double gemm__cl_now(void)
{
    struct timeval t;
    gettimeofday(&t, NULL);
    return (double)t.tv_sec + 1e-6 * (double)t.tv_usec;
}
#endif
