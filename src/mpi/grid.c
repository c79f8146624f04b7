/* ---- the grid and its blocks -------------------------------------------- */

/* P ranks form the squarest grid_rows x grid_cols process grid P allows
   (gemm_mpi_blocks_of). A grid that is not square runs Cannon's algorithm
   on a virtual q x q grid, q = lcm(grid_rows, grid_cols): each rank holds
   br x bc = (q / grid_rows) x (q / grid_cols) blocks, mb x kb of a, kb x nb
   of b and mb x nb of c, sizes rounded up so that q blocks cover m, n and
   k. The padding is zeros inside the blocks, never in the caller's data.
   Messages are tagged with block numbers below q*q, so q is at most 181
   (q*q <= 32767, the smallest MPI_TAG_UB MPI allows).

   Inside, every call is column-major (gemm.h's canonical form): a row-major
   call is the transposed problem C^T = op(B)^T op(A)^T on the transposed
   grid, so there A and B, and process rows and columns, change places
   (gemm__mpi_grid_view). For Cannon that is the same traffic; Fox
   broadcasts B^T down the process columns instead of A along the rows. */
#pragma once

#include "api.h"
#include "../core/internal.h" /* gemm__fail, gemm__clear_error */

static int gemm__mpi_gcd(int a, int b) { return b ? gemm__mpi_gcd(b, a % b) : a; }

static int64_t gemm__mpi_ceil(int64_t a, int64_t b) { return b ? (a + b - 1) / b : 0; }

/* Rows [lo, lo+count) of `total` that `nblocks` blocks of size bs starting
   at block `first` cover. */
static void gemm__mpi_range(int64_t total, int64_t bs, int first, int nblocks, int64_t *lo, int64_t *count)
{
    int64_t a = bs * first, b = bs * (first + nblocks);
    if (a > total) a = total;
    if (b > total) b = total;
    *lo = a;
    *count = b - a;
}

GEMM_DEF gemm_status gemm_mpi_blocks_of(int nranks, int rank, int64_t m, int64_t n, int64_t k,
                                        gemm_mpi_blocks *out)
{
    int pr, br, bc;
    gemm__clear_error();
    if (!out) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_blocks_of: out is NULL");
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_blocks_of: rank %d of %d ranks", rank, nranks);
    if (m < 0 || n < 0 || k < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_blocks_of: m, n, k = %lld, %lld, %lld: negative",
                          (long long)m, (long long)n, (long long)k);
    /* The squarest grid: most rows that still divide P, no more rows than columns. */
    for (pr = 1; (pr + 1) * (pr + 1) <= nranks; pr++) {}
    while (nranks % pr) pr--;
    out->grid_rows = pr;
    out->grid_cols = nranks / pr;
    out->q = pr / gemm__mpi_gcd(pr, out->grid_cols) * out->grid_cols;
    if (out->q > 181) /* message tags are block numbers below q*q <= 32767, the smallest MPI_TAG_UB */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_blocks_of: %d ranks make a %d x %d grid: too large",
                          nranks, out->q, out->q);
    out->row = rank / out->grid_cols;
    out->col = rank % out->grid_cols;
    br = out->q / out->grid_rows;
    bc = out->q / out->grid_cols;
    out->mb = gemm__mpi_ceil(m, out->q);
    out->nb = gemm__mpi_ceil(n, out->q);
    out->kb = gemm__mpi_ceil(k, out->q);
    gemm__mpi_range(m, out->mb, out->row * br, br, &out->c.row0, &out->c.rows);
    gemm__mpi_range(n, out->nb, out->col * bc, bc, &out->c.col0, &out->c.cols);
    out->a.row0 = out->c.row0;
    out->a.rows = out->c.rows;
    gemm__mpi_range(k, out->kb, out->col * bc, bc, &out->a.col0, &out->a.cols);
    gemm__mpi_range(k, out->kb, out->row * br, br, &out->b.row0, &out->b.rows);
    out->b.col0 = out->c.col0;
    out->b.cols = out->c.cols;
    return GEMM_OK;
}

/* The blocks of the real form of a complex call (shape.pairs): the
   complex sizes' blocks (m or n, and k, halved: column-major C is a real
   2m x n matrix, row-major a real m x 2n one; k is 2k either way) with
   every size and offset along a doubled dimension doubled, so each rank's
   real pieces are exactly the reals of its complex pieces. */
static gemm_status gemm__mpi_blocks_paired(int nranks, int rank, int col_major, int64_t m, int64_t n, int64_t k,
                                           gemm_mpi_blocks *out)
{
    gemm_status s = gemm_mpi_blocks_of(nranks, rank, col_major ? m / 2 : m, col_major ? n : n / 2, k / 2, out);
    if (s != GEMM_OK) return s;
    out->kb *= 2;
    out->a.col0 *= 2;
    out->a.cols *= 2;
    out->b.row0 *= 2;
    out->b.rows *= 2;
    if (col_major) {
        out->mb *= 2;
        out->a.row0 *= 2;
        out->a.rows *= 2;
        out->c.row0 *= 2;
        out->c.rows *= 2;
    } else {
        out->nb *= 2;
        out->b.col0 *= 2;
        out->b.cols *= 2;
        out->c.col0 *= 2;
        out->c.cols *= 2;
    }
    return GEMM_OK;
}

/* The grid as the call works on it: in the column-major view of
   gemm__problem. A row-major call is the transposed problem C^T = op(B)^T
   op(A)^T, so there the caller's process grid is transposed too: the
   caller's process columns are the view's rows, and its A, B and C tiles
   are the view's b, a and c, each transposed. The traffic of Cannon's
   rounds is the same either way: only the names change. */
typedef struct gemm__mpi_grid {
    int rows, cols;          /* the process grid in the view */
    int row, col;            /* this rank's place in it */
    int q, br, bc;           /* the virtual q x q grid: br x bc blocks on each rank */
    int64_t mb, nb, kb;      /* its block sizes (padded) */
    gemm_mpi_tile a, b, c;   /* this rank's pieces of op(a) (m x k), op(b) (k x n), c (m x n) */
    int swapped;             /* a row-major call: the caller's grid transposed */
} gemm__mpi_grid;

static gemm_mpi_tile gemm__mpi_tile_t(gemm_mpi_tile t)
{
    gemm_mpi_tile u;
    u.row0 = t.col0;
    u.rows = t.cols;
    u.col0 = t.row0;
    u.cols = t.rows;
    return u;
}

/* The view of the caller's blocks `u` (gemm_mpi_blocks_of) for a call whose
   problem is `swapped` (gemm__problem.swapped). */
static void gemm__mpi_grid_view(const gemm_mpi_blocks *u, int swapped, gemm__mpi_grid *g)
{
    g->swapped = swapped;
    g->rows = swapped ? u->grid_cols : u->grid_rows;
    g->cols = swapped ? u->grid_rows : u->grid_cols;
    g->row = swapped ? u->col : u->row;
    g->col = swapped ? u->row : u->col;
    g->q = u->q;
    g->br = u->q / g->rows;
    g->bc = u->q / g->cols;
    g->mb = swapped ? u->nb : u->mb;
    g->nb = swapped ? u->mb : u->nb;
    g->kb = u->kb;
    g->a = swapped ? gemm__mpi_tile_t(u->b) : u->a;
    g->b = swapped ? gemm__mpi_tile_t(u->a) : u->b;
    g->c = swapped ? gemm__mpi_tile_t(u->c) : u->c;
}

/* The rank at place (row, col) of the view; the caller's grid numbers its
   ranks row by row. */
static int gemm__mpi_rank_at(const gemm__mpi_grid *g, int row, int col)
{
    return g->swapped ? col * g->rows + row : row * g->cols + col;
}

/* The place of `rank` in the view. */
static void gemm__mpi_place(const gemm__mpi_grid *g, int rank, int *row, int *col)
{
    int ucols = g->swapped ? g->rows : g->cols, urow = rank / ucols, ucol = rank % ucols;
    *row = g->swapped ? ucol : urow;
    *col = g->swapped ? urow : ucol;
}
