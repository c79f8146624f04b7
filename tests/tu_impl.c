/* tests/tu_impl.c - build check: the one translation unit with the bodies. */
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
