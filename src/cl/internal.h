/* What every part of the OpenCL implementation builds on: its public
   declarations (api.h) and what it takes from the core (the canonical
   problem, gemm__prepare, gemm__fail, the test hooks in ../core/internal.h;
   GEMM_MALLOC and GEMM_FREE in ../core/config.h). In gemm_cl.h the core's
   parts come from gemm.h; here they are named once, so each part that
   includes this one compiles on its own. */
#pragma once

#include "api.h"
#include "../core/internal.h"
#include "../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
