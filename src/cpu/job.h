/* How the threads of one call share its work (the packed path).

   The columns of C are cut into groups; a group walks its steps in order,
   step s being one NC-wide block of its columns (jc) times one KC-deep
   block of k (pc). In each step the B panel (kc x nc) is packed once, by
   whichever threads are in the group, each taking NR-wide micro-panels
   from a counter; then the threads take the step's row blocks ("items",
   MC rows each) from another counter, each packing its own A block and
   running the micro-kernel over the shared panel. A thread that has no
   work left in its group helps the next one. Nothing waits for a given
   thread, only for work already taken, so a thread the OS runs late costs
   little, and no phase runs on one thread while the others wait.
   Two B buffers alternate between steps, so packing step s+1 overlaps the
   computing of step s; step s+2 may overwrite a buffer once every item of
   step s is done. A row block's items run in step order (its progress
   counter), so each tile of C sees its k blocks in order: the same sums
   in the same order for any thread count. */
#pragma once

#include "../core/internal.h" /* gemm__problem */
#include "ukernel_template.h" /* gemm__cpu_microkernel */

typedef struct gemm__cpu_step {
    int pack_next, pack_done;  /* B micro-panels taken / packed */
    int item_next, items_done; /* row blocks taken / done */
} gemm__cpu_step;

typedef struct gemm__cpu_group {
    int64_t n0, n1;        /* its columns of C */
    int64_t kblocks;       /* pc blocks per jc block */
    int64_t steps;         /* jc blocks x kblocks */
    gemm__cpu_step *step;  /* [steps] */
    int *progress;         /* [items]: steps done on each row block */
    char *pb[2];           /* the B panels of even and odd steps */
} gemm__cpu_group;

/* Lines of a later product to bring into cache while this one runs
   (direct.c; a batch's next member), NULL for a single call. */
typedef struct gemm__cpu_ahead gemm__cpu_ahead;

typedef struct gemm__cpu_job gemm__cpu_job;

/* Packs nx rows of op(a) from row x0 (or nx columns of op(b) from column
   x0), k units p0..p0+kc of the kernel's k, into the w-wide panels the
   kernel reads (w = MR for A, NR for B; the last panel zero-padded), at d:
   a kernel whose operands are not its packed elements brings its own (the
   bf16 kernel packs k in pairs, packing_bf16.c). */
typedef void (*gemm__cpu_pack_block_fn)(const gemm__cpu_job *jb, char *d, int64_t x0, int64_t p0, int64_t nx,
                                        int64_t kc, int w);

/* One call's work, shared by its threads: the canonical problem, the
   operands as bytes, the precision's kernels, the block sizes, and how the
   work is cut over the threads. Read-only while the threads run, except
   the counters. */
struct gemm__cpu_job {
    const gemm__problem *p;          /* m, n, k, strides, ldc (column-major view) */
    const char *a, *b;               /* op(a), op(b): the caller's A and B, swapped when row-major */
    char *c;
    int64_t es;                      /* bytes of one element: 4 or 8 */
    double alpha, beta;
    const gemm__cpu_microkernel *uk; /* the precision's micro-kernels, mr, nr */
    int64_t mc, kc, nc;              /* rows of an item; block sizes */
    int threads;                     /* threads with a workspace */
    int b_xmajor;                    /* B's columns are contiguous: its panel is packed column by column */
    char *ws;                        /* per-thread buffers (packed A block, or A panel copy), 64-byte aligned */
    size_t ws_a;                     /* bytes of one */
    char *lent;                      /* a call alone: a workspace lent to it (a batch thread's), used */
    size_t lent_bytes;               /*   instead of allocating when large enough; NULL: none */
    /* the direct path: rectangles of C (tm x tn of them) taken from `next` */
    int tm, tn, next;
    gemm__cpu_ahead *ahead;          /* lines to prefetch, a few per tile (NULL: none) */
    /* the packed path */
    int groups;
    int64_t items;                   /* row blocks of mc rows */
    gemm__cpu_group *group;          /* [groups] */
    /* the kernel's own packing (NULL: gemm__cpu_pack of es-byte elements,
       packing.c); p->k then counts the kernel's k units, k_elems the
       operands' elements along k (bf16: p->k pairs of k_elems); pack_ctx,
       what a packer reads besides the job (complex.c: the complex problem
       whose real expansion it packs) */
    gemm__cpu_pack_block_fn pack_a_block, pack_b_block;
    int64_t k_elems;
    const void *pack_ctx;
    int l1_parts, l2_parts, l3_parts; /* the caches' shares of its blocks (cache_blocking.c; 0: the fp32 ones) */
};

/* One item of one step, as the inner loops see it. */
typedef struct gemm__cpu_block {
    const char *pa, *pb;  /* packed A block (mc x kc), packed B panel (kc x nc) */
    int64_t mc, nc, kc;
    double beta;          /* the call's beta in the first k block, then 1 */
    char *c;              /* C[ic, jc] */
    char *tile;           /* a local MR x NR tile for the edges of C */
    int tile_clean;       /* the tile was zeroed (its padding is read, never used) */
} gemm__cpu_block;
