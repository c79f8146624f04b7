/* gemm__cl_source, the kernels (src/cl/gemm.cl as string literals, each
   under C99's 4,095 characters), and gemm__cl_builtin, the built-in
   parameter sets (the lines of tuning/gemm_cl.txt), are generated into
   gemm_cl.h by its template, which defines GEMM__CL_SOURCE_EMBEDDED after
   them. A part compiled on its own (tests/parts_checks.sh) sees these
   stand-ins instead. */
#pragma once

#ifndef GEMM__CL_SOURCE_EMBEDDED
static const char *const gemm__cl_source[] = {"kernel void gemm_cl_none(void) {}\n"};
static const char *const gemm__cl_builtin[] = {"f32 device=none"};
#endif
