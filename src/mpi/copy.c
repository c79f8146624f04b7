/* ---- where a block sits, and copies of blocks -------------------------------- */

/* A block's part of the caller's matrix (or piece) as runs of contiguous
   elements, and the copies between blocks and matrices: host copies of big
   blocks on several threads, device copies on the rank's stream. */
#pragma once

#include <string.h>
#include "platform.h" /* pthreads, gemm_cpu_get_threads */
#include "status.c"

/* The span of the block whose op() corner is (r0, c0), RB x CB in the
   buffer, of which at most rlim x clim lie in the matrix (whose op() view
   is rows x cols), relative to a piece that starts at op() element (row0,
   col0). Column-major storage: `rows_run` when the op() view is the stored
   matrix (C, an untransposed operand), so its columns are the runs; else
   the stored matrix is the transpose and the op() rows are the runs. */
static gemm__mpi_span gemm__mpi_span_at(int rows_run, int64_t rows, int64_t cols, int64_t RB, int64_t CB, int64_t r0,
                                        int64_t c0, int64_t rlim, int64_t clim, int64_t row0, int64_t col0)
{
    gemm__mpi_span s;
    int64_t rn = rows - r0, cn = cols - c0;
    if (rn > rlim) rn = rlim;
    if (cn > clim) cn = clim;
    if (rn < 0) rn = 0;
    if (cn < 0) cn = 0;
    r0 -= row0;
    c0 -= col0;
    if (rows_run) { s.outer0 = c0; s.outer_n = cn; s.OUTER = CB; s.inner0 = r0; s.inner_n = rn; s.INNER = RB; }
    else          { s.outer0 = r0; s.outer_n = rn; s.OUTER = RB; s.inner0 = c0; s.inner_n = cn; s.INNER = CB; }
    return s;
}

/* Leading dimension of a block buffer (op() view RB x CB): its run length. */
static int64_t gemm__mpi_block_ld(int rows_run, int64_t RB, int64_t CB)
{
    int64_t ld = rows_run ? RB : CB;
    return ld > 1 ? ld : 1;
}

/* The span of block (bi, bj) of a (which = 0), b (1) or c (2) inside the
   call's matrix (root-held) or this rank's piece (distributed). An a or b
   block may be a k-slab of the grid's: kb columns (of a; rows of b) from
   `kofs` into its virtual k-block of g->kb. */
static gemm__mpi_span gemm__mpi_span_slab(const gemm__mpi_call *c, const gemm__mpi_grid *g, int which, int bi, int bj,
                                          int64_t kb, int64_t kofs)
{
    const gemm__problem *p = &c->p;
    int dist = c->form == 1;
    int64_t k0 = g->kb * (which == 0 ? bj : bi) + kofs, klim = g->kb - kofs;
    if (klim > kb) klim = kb;
    if (which == 0)
        return gemm__mpi_span_at(!p->a_trans, p->m, p->k, g->mb, kb, bi * g->mb, k0, g->mb, klim,
                                 dist ? g->a.row0 : 0, dist ? g->a.col0 : 0);
    if (which == 1)
        return gemm__mpi_span_at(!p->b_trans, p->k, p->n, kb, g->nb, k0, bj * g->nb, klim, g->nb,
                                 dist ? g->b.row0 : 0, dist ? g->b.col0 : 0);
    return gemm__mpi_span_at(1, p->m, p->n, g->mb, g->nb, bi * g->mb, bj * g->nb, g->mb, g->nb,
                             dist ? g->c.row0 : 0, dist ? g->c.col0 : 0);
}

/* The span of a whole block of the grid. */
static gemm__mpi_span gemm__mpi_span_in(const gemm__mpi_call *c, const gemm__mpi_grid *g, int which, int bi, int bj)
{
    return gemm__mpi_span_slab(c, g, which, bi, bj, g->kb, 0);
}

/* Host copies of big blocks run on several threads: one core's memcpy is
   what limits the root's packing and unpacking (measured: see
   bench/RESULTS.md, the root-held call on 2 GPUs). */
#define GEMM__MPI_COPY_PARALLEL_BYTES ((size_t)32 << 20)
#define GEMM__MPI_COPY_THREADS 8

/* Runs [o0, o1) of a block's runs between block and caller's memory. */
typedef struct gemm__mpi_job {
    char *blk, *usr;             /* blk holds run `first` onwards */
    int64_t ld, o0, o1, outer_n, first;
    size_t es, run, width;
    int to_block;
} gemm__mpi_job;

static void *gemm__mpi_runs(void *arg)
{
    const gemm__mpi_job *j = (const gemm__mpi_job *)arg;
    int64_t o;
    for (o = j->o0; o < j->o1; o++) {
        char *b = j->blk + (size_t)(o - j->first) * j->run;
        if (o >= j->outer_n) {
            if (j->to_block) memset(b, 0, j->run);
            continue;
        }
        if (j->to_block) {
            memcpy(b, j->usr + (size_t)(o * j->ld) * j->es, j->width);
            memset(b + j->width, 0, j->run - j->width);
        } else
            memcpy(j->usr + (size_t)(o * j->ld) * j->es, b, j->width);
    }
    return NULL;
}

/* How many threads copy `bytes`: 1 below the threshold, else as many as
   the local multiply uses (options.threads, `threads`), at most
   GEMM__MPI_COPY_THREADS and one per run. */
static int gemm__mpi_copy_threads(int threads, size_t bytes, int64_t runs)
{
    int nt = 1;
#ifdef GEMM__MPI_PTHREADS
    if (bytes >= GEMM__HOOK(mpi_copy_parallel_bytes, GEMM__MPI_COPY_PARALLEL_BYTES)) {
        nt = threads > 0 ? threads : gemm_cpu_get_threads();
        if (nt > GEMM__MPI_COPY_THREADS) nt = GEMM__MPI_COPY_THREADS;
        if (nt > runs) nt = (int)runs;
        if (nt < 1) nt = 1;
    }
#else
    (void)threads;
    (void)bytes;
    (void)runs;
#endif
    return nt;
}

/* Runs the jobs, job[0] on this thread; a job without a thread runs here too. */
static void gemm__mpi_run_jobs(gemm__mpi_job *job, int nt)
{
#ifdef GEMM__MPI_PTHREADS
    pthread_t th[GEMM__MPI_COPY_THREADS];
    int started[GEMM__MPI_COPY_THREADS], t;
    for (t = 1; t < nt; t++) started[t] = pthread_create(&th[t], NULL, gemm__mpi_runs, &job[t]) == 0;
    gemm__mpi_runs(&job[0]);
    for (t = 1; t < nt; t++) {
        if (started[t]) pthread_join(th[t], NULL);
        else gemm__mpi_runs(&job[t]);
    }
#else
    (void)nt;
    gemm__mpi_runs(&job[0]);
#endif
}

/* Copies runs [first, end) between a block (`block` holds run `first`
   onwards) and the caller's matrix; to_block zeroes the padding. Host
   memory on both sides. */
static void gemm__mpi_copy_part(const gemm__mpi_shape *sh, void *block, void *user, int64_t ld,
                                const gemm__mpi_span *s, int64_t first, int64_t end, int to_block)
{
    size_t es = sh->es, run = (size_t)s->INNER * es, width = (size_t)(s->inner_n > 0 ? s->inner_n : 0) * es;
    int empty = s->outer_n <= 0 || s->inner_n <= 0, nt, t;
    char *usr = empty ? NULL : (char *)user + (size_t)(s->outer0 * ld + s->inner0) * es;
    gemm__mpi_job job[GEMM__MPI_COPY_THREADS];
    if (empty && !to_block) return;
    nt = gemm__mpi_copy_threads(sh->o.threads, run * (size_t)(end - first), end - first);
    for (t = 0; t < nt; t++) {
        job[t].blk = (char *)block;
        job[t].usr = usr;
        job[t].ld = ld;
        job[t].first = first;
        job[t].o0 = first + (end - first) * t / nt;
        job[t].o1 = first + (end - first) * (t + 1) / nt;
        job[t].outer_n = empty ? 0 : s->outer_n;
        job[t].es = es;
        job[t].run = run;
        job[t].width = width;
        job[t].to_block = to_block;
    }
    gemm__mpi_run_jobs(job, nt);
}

/* Copies a whole block from or to the caller's matrix. `user_dev`: the
   caller's memory is on the device (then so is the block). */
static void gemm__mpi_copy_runs(const gemm__mpi_shape *sh, const gemm__mpi_device *dv, gemm__mpi_err *e, void *block,
                                void *user, int64_t ld, const gemm__mpi_span *s, int to_block, int user_dev)
{
#ifdef GEMM_MPI_CUDA
    size_t es = sh->es, run = (size_t)s->INNER * es, width = (size_t)(s->inner_n > 0 ? s->inner_n : 0) * es;
    int empty = s->outer_n <= 0 || s->inner_n <= 0;
    char *blk = (char *)block, *usr = empty ? NULL : (char *)user + (size_t)(s->outer0 * ld + s->inner0) * es;
    if (user_dev) {
        if (empty && !to_block) return;
        if (to_block && (s->inner_n < s->INNER || s->outer_n < s->OUTER))
            GEMM__MPI_CU(e, cudaMemsetAsync(blk, 0, run * (size_t)s->OUTER, dv->stream));
        if (empty) return;
        if (to_block)
            GEMM__MPI_CU(e, cudaMemcpy2DAsync(blk, run, usr, (size_t)ld * es, width, (size_t)s->outer_n,
                                              cudaMemcpyDeviceToDevice, dv->stream));
        else
            GEMM__MPI_CU(e, cudaMemcpy2DAsync(usr, (size_t)ld * es, blk, run, width, (size_t)s->outer_n,
                                              cudaMemcpyDeviceToDevice, dv->stream));
        return;
    }
#else
    (void)dv;
    (void)e;
#endif
    (void)user_dev;
    gemm__mpi_copy_part(sh, block, user, ld, s, 0, s->OUTER, to_block);
}

/* Whole-block copy; `dst_dev`/`src_dev` say where each side lives. */
static void gemm__mpi_copy(const gemm__mpi_device *dv, gemm__mpi_err *e, void *dst, int dst_dev, const void *src,
                           int src_dev, size_t bytes)
{
#ifdef GEMM_MPI_CUDA
    if (dst_dev || src_dev) {
        GEMM__MPI_CU(e, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, dv->stream));
        if (!(dst_dev && src_dev)) GEMM__MPI_CU(e, cudaStreamSynchronize(dv->stream));
        return;
    }
#endif
    (void)dv;
    (void)e;
    (void)dst_dev;
    (void)src_dev;
    memcpy(dst, src, bytes);
}

/* Waits for the GPU's stream (a no-op for host blocks). */
static void gemm__mpi_sync(const gemm__mpi_device *dv, gemm__mpi_err *e)
{
#ifdef GEMM_MPI_CUDA
    if (dv->cuda) GEMM__MPI_CU(e, cudaStreamSynchronize(dv->stream));
#endif
    (void)dv;
    (void)e;
}

/* Whether MPI takes this rank's block buffers as they are (host blocks, or
   device blocks with a CUDA-aware MPI); else they go through the pool. */
static int gemm__mpi_direct(const gemm__mpi_device *dv)
{
    return !dv->cuda || dv->path == GEMM_MPI_PATH_CUDA_AWARE;
}
