/* The implementation's configuration: the allocator (GEMM_MALLOC and
   GEMM_FREE, both or neither), the assertion of internal invariants
   (GEMM_ASSERT), thread-local storage for the error detail, and the C
   library headers the implementation uses. */
#pragma once

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h> /* qsort (core/batch.c), getenv, atexit */
#include <string.h>

#if defined(GEMM_MALLOC) && !defined(GEMM_FREE)
#error "gemm.h: GEMM_MALLOC is defined but GEMM_FREE is not; define both or neither"
#endif
#if defined(GEMM_FREE) && !defined(GEMM_MALLOC)
#error "gemm.h: GEMM_FREE is defined but GEMM_MALLOC is not; define both or neither"
#endif
#ifndef GEMM_MALLOC
#include <stdlib.h>
#define GEMM_MALLOC(size) malloc(size)
#define GEMM_FREE(ptr) free(ptr)
#endif
#ifndef GEMM_ASSERT
#include <assert.h>
#define GEMM_ASSERT(x) assert(x)
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#define GEMM__THREAD_LOCAL thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GEMM__THREAD_LOCAL _Thread_local
#elif defined(_MSC_VER)
#define GEMM__THREAD_LOCAL __declspec(thread)
#else
#define GEMM__THREAD_LOCAL __thread
#endif
