/* The error side of every call: gemm_strerror, this thread's detail
   (gemm_last_error_detail, set through gemm__fail), the precisions' sizes
   and names, and the test hooks' storage. */
#pragma once

#include "config.h"   /* GEMM__THREAD_LOCAL, vsnprintf */
#include "internal.h" /* gemm__fail, gemm__hooks */

static GEMM__THREAD_LOCAL char gemm__detail[1024];

GEMM_DEF const char *gemm_strerror(gemm_status status)
{
#define GEMM__STATUS_CASE(name, value, text) case name: return text;
    switch (status) {
        GEMM_STATUS_LIST(GEMM__STATUS_CASE)
    default: return "unknown gemm_status";
    }
#undef GEMM__STATUS_CASE
}

GEMM_DEF const char *gemm_last_error_detail(void) { return gemm__detail; }

GEMM_DEF void gemm__clear_error(void) { gemm__detail[0] = '\0'; }

GEMM_DEF gemm_status gemm__fail(gemm_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gemm__detail, sizeof gemm__detail, fmt, ap);
    va_end(ap);
#ifdef GEMM_VERBOSE
    fprintf(stderr, "gemm: %s: %s\n", gemm_strerror(status), gemm__detail);
#endif
    return status;
}

GEMM_DEF size_t gemm_precision_size(gemm_precision precision)
{
    switch (precision) {
    case GEMM_F32: return 4;
    case GEMM_F64: return 8;
    case GEMM_F16:
    case GEMM_BF16: return 2;
    default: return 0;
    }
}

GEMM_DEF const char *gemm_precision_name(gemm_precision precision)
{
    switch (precision) {
    case GEMM_F32: return "f32";
    case GEMM_F64: return "f64";
    case GEMM_F16: return "f16";
    case GEMM_BF16: return "bf16";
    default: return "?";
    }
}

#ifdef GEMM__TEST_HOOKS
GEMM_DEF gemm__hooks *gemm__test_hooks(void)
{
    static gemm__hooks hooks;
    return &hooks;
}
#endif
