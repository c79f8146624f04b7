/* What the CPU backend takes from the platform: the C library, the SIMD
   intrinsics (x86-64, aarch64) and pthreads where the compiler and system
   have them, atomics, and restrict. Emitted before any extern "C" block. */
#pragma once

#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

/* SIMD needs GCC-style target attributes and builtins (gcc, clang, and
   nvcc's host pass, which uses gcc); nvcc's device pass never sees it. */
#if !defined(GEMM_NO_SIMD) && !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__x86_64__)
#define GEMM__CPU_X86 1
#include <cpuid.h>
#include <immintrin.h>
#elif defined(__aarch64__)
#define GEMM__CPU_NEON 1
#include <arm_neon.h>
#endif
#endif

#if !defined(GEMM_NO_THREADS) && (defined(__unix__) || defined(__APPLE__)) && (defined(__GNUC__) || defined(__clang__))
#define GEMM__CPU_THREADS 1
#include <pthread.h>
#include <sched.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GEMM__CPU_LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define GEMM__CPU_TAKE(x) __atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)
#define GEMM__CPU_DONE(x) __atomic_fetch_add(&(x), 1, __ATOMIC_RELEASE)
#define GEMM__CPU_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define GEMM__CPU_PREFETCH(p) __builtin_prefetch(p, 1)
#else
#define GEMM__CPU_LOAD(x) (x)
#define GEMM__CPU_TAKE(x) ((x)++)
#define GEMM__CPU_DONE(x) ((x)++)
#define GEMM__CPU_STORE(x, v) ((x) = (v))
#define GEMM__CPU_PREFETCH(p) ((void)0)
#endif

/* A function whose large stack frame must not land in its callers' (a
   16 KiB panel in the frame of every small call cost 13 ns at 8^3 fp64). */
#if defined(__GNUC__) || defined(__clang__)
#define GEMM__CPU_NOINLINE __attribute__((noinline))
#else
#define GEMM__CPU_NOINLINE
#endif

#if defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER)
#define GEMM__RESTRICT __restrict
#else
#define GEMM__RESTRICT
#endif
