/* ---- what the implementation builds on ---------------------------------------- */

/* The system headers of the implementation (emitted before its extern "C"
   block): Open MPI's extensions, where MPIX_Query_cuda_support lives
   (mpi/setup.c), and POSIX threads for the host copies of big blocks
   (mpi/copy.c). Then the declarations of the local multiplies: the CPU's
   (gemm_cpu.h) and, with GEMM_MPI_CUDA, the CUDA one (gemm_cuda.cuh); the
   generated header includes those headers itself. */
#pragma once

#include <stdlib.h>
#include <string.h>
#include "api.h" /* mpi.h (before mpi-ext.h), and gemm.h's types for the declarations below */
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#if !defined(GEMM_NO_THREADS) && (defined(__unix__) || defined(__APPLE__))
#define GEMM__MPI_PTHREADS
#include <pthread.h>
#endif

#include "../cpu/api.h" /* gemm_cpu_options, gemm_cpu_sgemm, gemm_cpu_dgemm, gemm_cpu_get_threads */
#ifdef GEMM_MPI_CUDA
#include "../cuda/api.h" /* gemm_cuda_sgemm, gemm_cuda_dgemm, cudaStream_t */
#endif
