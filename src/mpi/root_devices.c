/* The root-held form on one node's GPUs, driven by the root.

   When every rank runs on one node with the CUDA multiply and the root can
   reach every rank's GPU itself (the same PCI bus ids among its own
   devices), a root-held product needs no message: the root runs
   gemm_cuda.cuh's host call on all those GPUs at once (options.device_count
   and devices), which reads each GPU's bands of A and B straight from the
   root's host memory and brings each GPU's piece of C back, the copies
   overlapping the multiplies on every GPU. The other ranks wait for the
   outcome (the execute's last vote). The plan's create chooses it when
   options.path is AUTO or GEMM_MPI_PATH_ROOT_DEVICES; the distributed form
   keeps the plan's transfer path, and a path asked for by name (STAGED,
   CUDA_IPC, CUDA_AWARE) keeps the rounds. Ranks that share a GPU give the
   root that GPU once. */
#pragma once

#include <string.h>
#include "platform.h" /* gemm_cuda_?gemm_host under GEMM_MPI_CUDA */
#include "state.h"
#include "check.c"   /* gemm__mpi_args */
#include "status.c"  /* GEMM__MPI_DO, GEMM__MPI_CU, gemm__mpi_keep */

#define GEMM__MPI_BUS_ID 32 /* bytes of a PCI bus id string, with room to spare */

/* At the create, on every rank (collective): whether the root drives the
   ranks' GPUs for the root-held form, and which (dv->root_devices,
   dv->devs on the root). one_node is the same on every rank. */
static void gemm__mpi_root_devices_setup(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                         gemm__mpi_err *e, int one_node)
{
    int ok = 0;
    (void)tm; /* read only with the CUDA multiply */
    dv->root_devices = 0;
    dv->ndevs = 0;
    if (!one_node || (sh->o.path != GEMM_MPI_PATH_AUTO && sh->o.path != GEMM_MPI_PATH_ROOT_DEVICES)) {
        if (sh->o.path == GEMM_MPI_PATH_ROOT_DEVICES && e->st == GEMM_OK)
            gemm__mpi_keep(e, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: path ROOT_DEVICES asked for, but the ranks are "
                                         "on several nodes", e->func));
        return;
    }
#ifdef GEMM_MPI_CUDA
    {
        char id[GEMM__MPI_BUS_ID], *ids = NULL;
        int dev = -1, i, j;
        memset(id, 0, sizeof id);
        if (dv->ready && cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetPCIBusId(id, (int)sizeof id - 1, dev) != cudaSuccess) {
            cudaGetLastError();
            id[0] = 0;
        }
        int listed = 1; /* the root has room for every rank's id: all ranks gather, or none */
        if (tm->rank == sh->o.root) listed = (ids = (char *)calloc((size_t)tm->P, GEMM__MPI_BUS_ID)) != NULL;
        GEMM__MPI_DO(e, MPI_Bcast(&listed, 1, MPI_INT, sh->o.root, tm->comm));
        if (listed)
            GEMM__MPI_DO(e, MPI_Gather(id, GEMM__MPI_BUS_ID, MPI_CHAR, ids, GEMM__MPI_BUS_ID, MPI_CHAR, sh->o.root,
                                       tm->comm));
        if (tm->rank == sh->o.root && ids && e->st == GEMM_OK) {
            ok = 1;
            for (i = 0; i < tm->P && ok; i++) {
                int d = -1;
                char *rid = ids + (size_t)i * GEMM__MPI_BUS_ID;
                rid[GEMM__MPI_BUS_ID - 1] = 0;
                if (!rid[0] || cudaDeviceGetByPCIBusId(&d, rid) != cudaSuccess) {
                    cudaGetLastError();
                    ok = 0;
                    break;
                }
                for (j = 0; j < dv->ndevs && dv->devs[j] != d; j++) {}
                if (j == dv->ndevs && dv->ndevs < GEMM__MPI_MAX_DEVICES) dv->devs[dv->ndevs++] = d;
            }
        }
        free(ids);
        GEMM__MPI_DO(e, MPI_Bcast(&ok, 1, MPI_INT, sh->o.root, tm->comm));
    }
#endif
    dv->root_devices = ok && e->st == GEMM_OK;
    if (!dv->root_devices && sh->o.path == GEMM_MPI_PATH_ROOT_DEVICES && e->st == GEMM_OK)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: path ROOT_DEVICES asked for, but the root cannot "
                                     "reach every rank's GPU", e->func));
}

/* The product of a root-held execute on the root's host call over the
   ranks' GPUs; the other ranks have nothing to do until the last vote. */
static void gemm__mpi_root_devices_run(const gemm__mpi_shape *sh, const gemm__mpi_team *tm,
                                       const gemm__mpi_device *dv, const gemm__mpi_args *in, gemm__mpi_err *e,
                                       gemm_timing *t)
{
#ifdef GEMM_MPI_CUDA
    gemm_cuda_options o;
    gemm_timing ct;
    gemm_status s;
    if (tm->rank != sh->o.root || e->st != GEMM_OK) return;
    memset(&o, 0, sizeof o);
    memset(&ct, 0, sizeof ct);
    o.device_count = dv->ndevs;
    o.devices = dv->devs;
    o.device = dv->devs[0];
    o.max_device_bytes = sh->o.max_device_bytes;
    o.timing = &ct;
    s = sh->precision == GEMM_F32
            ? gemm_cuda_sgemm_host(in->layout, in->transa, in->transb, in->m, in->n, in->k, (float)in->alpha,
                                   (const float *)in->A, in->lda, (const float *)in->B, in->ldb, (float)in->beta,
                                   (float *)in->C, in->ldc, &o)
            : gemm_cuda_dgemm_host(in->layout, in->transa, in->transb, in->m, in->n, in->k, in->alpha,
                                   (const double *)in->A, in->lda, (const double *)in->B, in->ldb, in->beta,
                                   (double *)in->C, in->ldc, &o);
    if (s != GEMM_OK) gemm__mpi_keep(e, gemm__fail(s, "%s: the root's host call on %d GPUs: %s", e->func, dv->ndevs,
                                                    gemm_last_error_detail()));
    /* the host call plans every call (a plan's setup_s stays 0 after its
       first execute): its planning counts with its multiplies */
    t->to_device_s += ct.to_device_s;
    t->compute_s += ct.compute_s + ct.setup_s;
    t->from_device_s += ct.from_device_s;
#else
    (void)sh;
    (void)tm;
    (void)dv;
    (void)in;
    (void)e;
    (void)t;
#endif
}
