/* The five loops around the micro-kernel, outermost last: jc (NC columns
   of C), pc (KC of k; pack B), ic (MC rows; pack A), jr (NR), ir (MR). */

#define GEMM__CPU_TILE_MAX (32 * 8) /* elements: the largest MR*NR of any kernel (avx512 fp32) */

/* An mw x nw tile at the edge of C: the same kernel on a local full tile,
   copied in (unless beta == 0: C is not read) and back, so edge results
   have the arithmetic of full tiles and C is never written past its end. */
static void gemm__cpu_edge_tile(const gemm__cpu_job *jb, gemm__cpu_blocks *bl, const gemm__cpu_bpanel *b,
                                const char *ap, int64_t as, char *c, int64_t mw)
{
    int64_t j, mr = jb->uk->mr, es = jb->es, ldc = jb->p->ldc;
    if (!bl->tile_clean) {
        memset(bl->tile, 0, sizeof(double) * GEMM__CPU_TILE_MAX);
        bl->tile_clean = 1;
    }
    if (bl->beta != 0)
        for (j = 0; j < b->nw; j++) memcpy(bl->tile + j * mr * es, c + j * ldc * es, (size_t)(mw * es));
    b->kern(bl->kc, ap, as, b->ptr, b->bp, b->bj, jb->alpha, bl->beta, bl->tile, mr);
    for (j = 0; j < b->nw; j++) memcpy(c + j * ldc * es, bl->tile + j * mr * es, (size_t)(mw * es));
}

/* ir: one B micro-panel against each MR-row micro-panel of the A block
   (packed, or in place); c is C[ic, jc + jr]. */
static void gemm__cpu_loop_ir(const gemm__cpu_job *jb, gemm__cpu_blocks *bl, const gemm__cpu_bpanel *b, char *c)
{
    const gemm__problem *p = jb->p;
    int64_t ir, j, mr = jb->uk->mr, nr = jb->uk->nr, es = jb->es, ldc = p->ldc;
    for (ir = 0; ir < bl->mc; ir += mr, c += mr * es) {
        int64_t mw = gemm__cpu_min(mr, bl->mc - ir);
        int in_place = ir < bl->a_inplace;
        const char *ap = in_place ? bl->a0 + ir * p->ars * es : bl->pa + (ir - bl->a_inplace) * bl->kc * es;
        int64_t as = in_place ? p->acs : mr;
        if (mw < mr || b->nw < nr) {
            gemm__cpu_edge_tile(jb, bl, b, ap, as, c, mw);
            continue;
        }
        for (j = 0; j < nr; j++) { /* here, not in the kernel: its registers are full */
            GEMM__CPU_PREFETCH(c + j * ldc * es);
            GEMM__CPU_PREFETCH(c + (j * ldc + mr - 1) * es);
        }
        b->kern(bl->kc, ap, as, b->ptr, b->bp, b->bj, jb->alpha, bl->beta, c, ldc);
    }
}

/* jr: each NR-wide micro-panel of the B panel, with the kernel variant
   that reads it where it is: in place (small problems) or packed column
   by column (strided variant), or packed row by row (packed variant). */
static void gemm__cpu_loop_jr(const gemm__cpu_job *jb, gemm__cpu_blocks *bl)
{
    const gemm__problem *p = jb->p;
    int64_t jr, nr = jb->uk->nr, es = jb->es;
    char *c = jb->c + (bl->ic + bl->jc * p->ldc) * es;
    for (jr = 0; jr < bl->nc; jr += nr) {
        gemm__cpu_bpanel b;
        int direct = jr < bl->b_inplace;
        b.ptr = direct ? bl->b0 + jr * p->bcs * es : bl->pb + (jr - bl->b_inplace) * bl->kc * es;
        b.kern = direct || bl->b_xmajor ? jb->uk->strided_b : jb->uk->packed_b;
        b.bp = direct ? p->brs : bl->b_xmajor ? 1 : nr;
        b.bj = direct ? p->bcs : bl->b_xmajor ? bl->kc : 1;
        b.nw = gemm__cpu_min(nr, bl->nc - jr);
        gemm__cpu_loop_ir(jb, bl, &b, c + jr * p->ldc * es);
    }
}

/* ic: rows m0..m1 of C in MC blocks; each block of op(a) is packed into
   MR-row micro-panels (it stays in L2), unless read in place. */
static void gemm__cpu_loop_ic(const gemm__cpu_job *jb, gemm__cpu_blocks *bl, int64_t m0, int64_t m1)
{
    const gemm__problem *p = jb->p;
    int64_t es = jb->es;
    for (bl->ic = m0; bl->ic < m1; bl->ic += jb->mc) {
        bl->mc = gemm__cpu_min(jb->mc, m1 - bl->ic);
        bl->a0 = jb->a + (bl->ic * p->ars + bl->pc * p->acs) * es;
        bl->a_inplace = gemm__cpu_a_rows_in_place(jb, bl->mc);
        if (bl->a_inplace < bl->mc)
            gemm__cpu_pack(bl->pa, bl->a0 + bl->a_inplace * p->ars * es, p->ars, p->acs, bl->mc - bl->a_inplace,
                           bl->kc, jb->uk->mr, 0, jb->uk->pack_a, es);
        gemm__cpu_loop_jr(jb, bl);
    }
}

/* pc: k in KC steps, in order and never split across threads (the same
   sums in the same order for any thread count); each step packs its B
   panel once for every row block, and only the first applies beta. */
static void gemm__cpu_loop_pc(const gemm__cpu_job *jb, gemm__cpu_blocks *bl, int64_t m0, int64_t m1)
{
    const gemm__problem *p = jb->p;
    int64_t es = jb->es;
    for (bl->pc = 0; bl->pc < p->k; bl->pc += jb->kc) {
        bl->kc = gemm__cpu_min(jb->kc, p->k - bl->pc);
        bl->beta = bl->pc == 0 ? jb->beta : 1.0;
        bl->b0 = jb->b + (bl->pc * p->brs + bl->jc * p->bcs) * es;
        if (bl->b_inplace < bl->nc)
            gemm__cpu_pack(bl->pb, bl->b0 + bl->b_inplace * p->bcs * es, p->bcs, p->brs, bl->nc - bl->b_inplace,
                           bl->kc, jb->uk->nr, bl->b_xmajor, NULL, es);
        gemm__cpu_loop_ic(jb, bl, m0, m1);
    }
}

/* jc: C[m0:m1, n0:n1], one thread's rectangle, in NC-column steps, with
   that thread's packing buffers pa and pb. */
static void gemm__cpu_loop_jc(const gemm__cpu_job *jb, int64_t m0, int64_t m1, int64_t n0, int64_t n1, char *pa,
                              char *pb)
{
    double tile[GEMM__CPU_TILE_MAX];
    gemm__cpu_blocks bl;
    memset(&bl, 0, sizeof bl);
    bl.pa = pa;
    bl.pb = pb;
    bl.tile = (char *)tile;
    bl.b_xmajor = jb->p->bcs != 1; /* B's columns are contiguous: copy them whole */
    for (bl.jc = n0; bl.jc < n1; bl.jc += jb->nc) {
        bl.nc = gemm__cpu_min(jb->nc, n1 - bl.jc);
        bl.b_inplace = gemm__cpu_b_cols_in_place(jb, bl.nc);
        gemm__cpu_loop_pc(jb, &bl, m0, m1);
    }
}
