/* ---- MPI's C header --------------------------------------------------------- */

/* Only MPI's C API is used: Open MPI's and MPICH's C++ bindings stay out of
   a C++ build. A system header, so this part comes before any extern "C"
   block (api.h includes it first). */
#pragma once

#if defined(__cplusplus) && !defined(OMPI_SKIP_MPICXX)
#define OMPI_SKIP_MPICXX 1
#endif
#if defined(__cplusplus) && !defined(MPICH_SKIP_MPICXX)
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
