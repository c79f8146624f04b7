/* The tensor-core modes (TF32, FP16, BF16 inputs; fp32 sums): the kernel,
   the operand copies and split-K sums in scratch, the launch. */

/* options.kernel, or AUTO's choice, when this device and build can run it. */
static gemm_status gemm__cuda_tc_kernel(const char *fn, const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                        gemm_cuda_kernel *kernel)
{
    *kernel = opt->kernel ? opt->kernel : gemm__cuda_choose_tc(gpu->dev, gpu->major, gpu->minor);
    if (*kernel == GEMM_CUDA_KERNEL_MMA && gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the mma kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, gpu->major, gpu->minor);
    if (*kernel == GEMM_CUDA_KERNEL_WGMMA && !gemm__cuda_wgmma_available(gpu->dev, gpu->major, gpu->minor))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the wgmma kernel needs compute capability 9.0 (this GPU is %d.%d) "
                          "and a build for sm_90a (-gencode arch=compute_90a,code=sm_90a)", fn, gpu->major, gpu->minor);
    return GEMM_OK;
}

/* Runs a plan: the copies it names and its split-K sums go through one
   scratch buffer taken from the device's pool and given back in stream
   order, so nothing waits for the device. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc_run(const char *fn, const gemm__cuda_tc_plan *t, const gemm__problem *p,
                                     const gemm__cuda_operands<T, TC, float> &x, int dev, cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    T *scratch = NULL;
    float *partial = NULL;
    gemm__cuda_kmajor<T> a = {x.a, p->lda}, b = {x.b, p->ldb};
    if (t->packed + t->partial_bytes > 0) {
        cudaMemPool_t pool;
        cudaError_t e;
        if ((s = gemm__cuda_scratch_pool(fn, dev, true, &pool)) != GEMM_OK) return s;
        e = cudaMallocFromPoolAsync((void **)&scratch, t->packed + t->partial_bytes, pool, stream);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (operand copies, split-K sums)", e);
        if (t->partial_bytes) partial = (float *)((char *)scratch + t->packed);
        if (t->copy_a) {
            a.X = scratch; a.ld = t->ldo;
            s = gemm__cuda_pack(fn, x.a, p->lda, p->a_trans, (int)p->m, (int)p->k, scratch, t->ldo, stream);
        }
        if (s == GEMM_OK && t->copy_b) {
            b.X = scratch + t->a_elems; b.ld = t->ldo;
            s = gemm__cuda_pack(fn, x.b, p->ldb, !p->b_trans, (int)p->n, (int)p->k, scratch + t->a_elems, t->ldo, stream);
        }
    }
    if (s == GEMM_OK && t->kernel == GEMM_CUDA_KERNEL_WGMMA)
        s = t->wg_bm == 128 ? gemm__cuda_launch_wgmma<T, TC, 128>(fn, p, t, a, b, x, partial, stream)
                            : gemm__cuda_launch_wgmma<T, TC, 256>(fn, p, t, a, b, x, partial, stream);
    else if (s == GEMM_OK)
        s = gemm__cuda_launch_mma<T, TC>(fn, p, a, b, x, stream);
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

/* A tensor-core call: T is A's and B's type (float for TF32), TC is C's. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, float> &x,
                                 const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    gemm__cuda_tc_plan t;
    gemm_cuda_kernel kernel;
    gemm_status s = gemm__cuda_tc_kernel(fn, opt, gpu, &kernel);
    if (s != GEMM_OK) return s;
    if (kernel == GEMM_CUDA_KERNEL_NAIVE) return gemm__cuda_launch_ladder(fn, kernel, p, x, stream);
    t = gemm__cuda_tc_plan_of<T>(kernel, p, x.a, x.b, opt, gpu->sms);
    return gemm__cuda_tc_run<T, TC>(fn, &t, p, x, gpu->dev, stream);
}
