/* Small problems: up to m*n*k = 128^3 (measured on AVX-512) packing costs
   more than it saves, so B is read in place, and A too when its columns
   are contiguous (the kernel then reads them with as = acs). Only a tail
   narrower than a micro-panel is still packed: the kernel reads whole
   micro-panels, which would run past the user's matrix. */
#define GEMM__CPU_SMALL (128.0 * 128.0 * 128.0)

static void gemm__cpu_plan_in_place(gemm__cpu_job *jb)
{
    double flops = 2.0 * (double)jb->p->m * (double)jb->p->n * (double)jb->p->k;
    jb->direct_b = flops <= 2.0 * GEMM__CPU_SMALL;
    jb->direct_a = jb->direct_b && jb->p->ars == 1;
}

/* Of a block of mc rows of op(a), the first ones the kernel reads in place. */
static int64_t gemm__cpu_a_rows_in_place(const gemm__cpu_job *jb, int64_t mc)
{
    return jb->direct_a ? mc / jb->uk->mr * jb->uk->mr : 0;
}

/* Of a block of nc columns of op(b), the first ones the kernel reads in place. */
static int64_t gemm__cpu_b_cols_in_place(const gemm__cpu_job *jb, int64_t nc)
{
    return jb->direct_b ? nc / jb->uk->nr * jb->uk->nr : 0;
}
