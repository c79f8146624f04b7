/* Host and device allocations go through these two functions, so the tests
   can make any one of them fail (gemm__hooks.cl_fail_alloc); and byte counts
   are multiplied only where the product is known to fit. */
#pragma once

#include "internal.h" /* GEMM_MALLOC, the test hooks */

/* Test hook: is this the allocation that must fail? */
static int gemm__cl_injected_failure(void)
{
#ifdef GEMM__TEST_HOOKS
    gemm__hooks *h = gemm__test_hooks();
    if (h->cl_fail_alloc > 0 && --h->cl_fail_alloc == 0) return 1;
#endif
    return 0;
}

static void *gemm__cl_malloc(size_t size) { return gemm__cl_injected_failure() ? NULL : GEMM_MALLOC(size); }

static cl_mem gemm__cl_buffer(cl_context context, cl_mem_flags flags, size_t size, void *host, cl_int *err)
{
    if (gemm__cl_injected_failure()) {
        *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    return clCreateBuffer(context, flags, size, host, err);
}

/* *bytes = rows * cols * elem; 0 when that does not fit in size_t (rows, cols >= 0). */
static int gemm__cl_bytes(int64_t rows, int64_t cols, size_t elem, size_t *bytes)
{
    const size_t max = (size_t)-1;
    if (rows < 0 || cols < 0) return 0;
    if (rows == 0 || cols == 0) {
        *bytes = 0;
        return 1;
    }
    if ((uint64_t)rows > max / elem || (uint64_t)cols > max / elem / (size_t)rows) return 0;
    *bytes = (size_t)rows * (size_t)cols * elem;
    return 1;
}
