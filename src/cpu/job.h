/* One call's work, shared by its threads: the canonical problem, the
   operands as bytes, the precision's kernels, the block sizes, and how the
   work is cut over the threads. Read-only while the threads run, except
   `next`, the counter they take chunks from. */
typedef struct gemm__cpu_job {
    const gemm__problem *p;          /* m, n, k, strides, ldc (column-major view) */
    const char *a, *b;               /* op(a), op(b): the caller's A and B, swapped when row-major */
    char *c;
    int64_t es;                      /* bytes of one element: 4 or 8 */
    double alpha, beta;
    const gemm__cpu_microkernel *uk; /* the precision's micro-kernel, mr, nr */
    int64_t mc, kc, nc;              /* block sizes */
    int direct_a, direct_b;          /* small problem: read a (contiguous columns) and b in place */
    int tm, tn;                      /* the grid of chunks over (m, n) */
    int threads;                     /* threads with a workspace */
    int next;                        /* the next chunk to take */
    char *ws;                        /* the workspaces, 64-byte aligned */
    size_t ws_a, ws_stride;          /* bytes: packed A, then packed B, per thread */
} gemm__cpu_job;

/* Where one thread's loops are: the current blocks, and its buffers. Each
   loop fills its fields and hands the struct inward. */
typedef struct gemm__cpu_blocks {
    char *pa, *pb;        /* this thread's packed A block and B panel */
    char *tile;           /* a local MR x NR tile for the edges of C */
    int tile_clean;       /* the tile was zeroed (its padding is read, never used) */
    int b_xmajor;         /* B's columns are contiguous: its panel is packed column by column */
    int64_t jc, nc;       /* jc loop: columns jc..jc+nc of C */
    int64_t b_inplace;    /* ... of which the first b_inplace are read in place */
    int64_t pc, kc;       /* pc loop: k from pc to pc+kc */
    double beta;          /* the call's beta at the first pc block, then 1 */
    const char *b0;       /* op(b)[pc, jc] */
    int64_t ic, mc;       /* ic loop: rows ic..ic+mc of C */
    int64_t a_inplace;    /* ... of which the first a_inplace are read in place */
    const char *a0;       /* op(a)[ic, pc] */
} gemm__cpu_blocks;

/* One NR-wide micro-panel of op(b) where the kernel reads it. */
typedef struct gemm__cpu_bpanel {
    const char *ptr;
    int64_t bp, bj;            /* element strides along k and along n */
    gemm__cpu_ukernel_fn kern; /* the kernel variant that reads it so */
    int64_t nw;                /* its columns inside C: nr, fewer at the edge */
} gemm__cpu_bpanel;
