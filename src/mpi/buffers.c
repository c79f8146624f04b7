/* ---- memory of blocks: host or device --------------------------------------- */

/* Blocks live where the device piece says: GPU memory, or host memory
   (pinned when a GPU copies it). Every allocation is counted. */
#pragma once

#include "../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
#include "status.c"

/* `bytes` of device memory (`device`), or of host memory: pinned when the
   blocks live on a GPU (fast copies), else GEMM_MALLOC's. Counted. */
static void *gemm__mpi_alloc(gemm__mpi_device *dv, gemm__mpi_err *e, size_t bytes, int device)
{
    void *p = NULL;
    if (!bytes) bytes = 1;
    dv->allocations++;
#ifdef GEMM_MPI_CUDA
    if (device) {
        if (cudaMalloc(&p, bytes) != cudaSuccess) p = NULL;
    } else if (dv->cuda) {
        if (cudaMallocHost(&p, bytes) != cudaSuccess) p = NULL; /* pinned: fast copies */
    } else
#endif
    {
        (void)device;
        p = GEMM_MALLOC(bytes);
    }
    if (!p) gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of %s", e->func,
                                         bytes, device ? "device blocks" : "host blocks"));
    return p;
}

static void gemm__mpi_release(const gemm__mpi_device *dv, void *p, int device)
{
    if (!p) return;
#ifdef GEMM_MPI_CUDA
    if (device) { cudaFree(p); return; }
    if (dv->cuda) { cudaFreeHost(p); return; }
#endif
    (void)dv;
    (void)device;
    GEMM_FREE(p);
}

/* An array of n block pointers, each block `bytes` long, where the blocks
   live. NULL (nothing allocated) after an earlier failure. */
static void **gemm__mpi_blocks_new(gemm__mpi_device *dv, gemm__mpi_err *e, int n, size_t bytes)
{
    void **v;
    int i;
    if (n <= 0 || e->st != GEMM_OK) return NULL;
    v = (void **)GEMM_MALLOC(sizeof(void *) * (size_t)n);
    if (!v) { gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", e->func)); return NULL; }
    for (i = 0; i < n; i++) v[i] = NULL;
    for (i = 0; i < n && e->st == GEMM_OK; i++) v[i] = gemm__mpi_alloc(dv, e, bytes, dv->cuda);
    return v;
}

static void gemm__mpi_blocks_free(const gemm__mpi_device *dv, void **v, int n)
{
    int i;
    if (!v) return;
    for (i = 0; i < n; i++) gemm__mpi_release(dv, v[i], dv->cuda);
    GEMM_FREE(v);
}
