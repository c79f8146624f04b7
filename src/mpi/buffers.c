/* ---- memory of blocks: host or device --------------------------------------- */

#pragma once

#include "../core/config.c" /* GEMM_MALLOC, GEMM_FREE */
#include "status.c"

static void *gemm__mpi_alloc(gemm__mpi *x, size_t bytes, int device)
{
    void *p = NULL;
    if (!bytes) bytes = 1;
    x->allocations++;
#ifdef GEMM_MPI_CUDA
    if (device) {
        if (cudaMalloc(&p, bytes) != cudaSuccess) p = NULL;
    } else if (x->cuda) {
        if (cudaMallocHost(&p, bytes) != cudaSuccess) p = NULL; /* pinned: fast copies */
    } else
#endif
    {
        (void)device;
        p = GEMM_MALLOC(bytes);
    }
    if (!p) gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of %s", x->func,
                                         bytes, device ? "device blocks" : "host blocks"));
    return p;
}

static void gemm__mpi_release(gemm__mpi *x, void *p, int device)
{
    if (!p) return;
#ifdef GEMM_MPI_CUDA
    if (device) { cudaFree(p); return; }
    if (x->cuda) { cudaFreeHost(p); return; }
#endif
    (void)x;
    (void)device;
    GEMM_FREE(p);
}

/* An array of n block pointers, each block `bytes` long. */
static void **gemm__mpi_blocks_new(gemm__mpi *x, int n, size_t bytes)
{
    void **v;
    int i;
    if (n <= 0 || x->st != GEMM_OK) return NULL;
    v = (void **)GEMM_MALLOC(sizeof(void *) * (size_t)n);
    if (!v) { gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func)); return NULL; }
    for (i = 0; i < n; i++) v[i] = NULL;
    for (i = 0; i < n && x->st == GEMM_OK; i++) v[i] = gemm__mpi_alloc(x, bytes, x->cuda);
    return v;
}

static void gemm__mpi_blocks_free(gemm__mpi *x, void **v, int n)
{
    int i;
    if (!v) return;
    for (i = 0; i < n; i++) gemm__mpi_release(x, v[i], x->cuda);
    GEMM_FREE(v);
}
