/* The host-pointer path (the _host calls): device buffers, or page-locked
   staging buffers, or mapped ones the kernels read over the bus; the copies
   in, the device path on a stream of its own, the copies out; synchronous,
   timed in seconds. */

static double gemm__cuda_now(void)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* Copies the m x n window of a C (outer x inner with stride ld) between two
   host buffers, leaving the padding of the destination alone. */
static void gemm__cuda_copy_window(void *dst, const void *src, int64_t outer, int64_t inner, int64_t ld, size_t elem)
{
    int64_t o;
    for (o = 0; o < outer; o++)
        memcpy((char *)dst + (size_t)(o * ld) * elem, (const char *)src + (size_t)(o * ld) * elem, (size_t)inner * elem);
}

/* One host-pointer call, its matrices named as in the canonical problem (a
   and b after the row-major swap; C's window is p->n stripes of p->m
   elements, ldc apart): the device buffers (in MAPPED mode the device's
   view of the staging buffers), the page-locked staging buffers (PINNED
   and MAPPED), the stream and events, and the CUDA call that failed with
   its error. */
template <typename T, typename TC> struct gemm__cuda_host_call {
    const gemm__problem *p;
    gemm_cuda_mode mode;
    bool full, read_c; /* A and B are read; C is read (beta != 0) */
    T *da, *db, *ha, *hb;
    TC *dc, *hc;
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    cudaError_t err;
    const char *what;
};

/* Returns the error of a failed CUDA call from a step of the host path, with
   the call's text in h->what. */
#define GEMM__CUDA_STEP(h, call) do { if (((h)->err = (call)) != cudaSuccess) { (h)->what = #call; return (h)->err; } } while (0)

template <typename T, typename TC> static cudaError_t gemm__cuda_host_alloc(gemm__cuda_host_call<T, TC> *h)
{
    size_t na = (size_t)h->p->a_extent * sizeof(T), nb = (size_t)h->p->b_extent * sizeof(T),
           nc = (size_t)h->p->c_extent * sizeof(TC);
    unsigned flags = h->mode == GEMM_CUDA_MAPPED ? cudaHostAllocMapped : cudaHostAllocDefault;
    GEMM__CUDA_STEP(h, cudaStreamCreateWithFlags(&h->stream, cudaStreamNonBlocking));
    GEMM__CUDA_STEP(h, cudaEventCreate(&h->ev0));
    GEMM__CUDA_STEP(h, cudaEventCreate(&h->ev1));
    if (h->mode != GEMM_CUDA_PAGEABLE) {
        if (h->full) {
            GEMM__CUDA_STEP(h, cudaHostAlloc((void **)&h->ha, na, flags));
            GEMM__CUDA_STEP(h, cudaHostAlloc((void **)&h->hb, nb, flags));
        }
        GEMM__CUDA_STEP(h, cudaHostAlloc((void **)&h->hc, nc, flags));
    }
    if (h->mode == GEMM_CUDA_MAPPED) {
        if (h->full) {
            GEMM__CUDA_STEP(h, cudaHostGetDevicePointer((void **)&h->da, h->ha, 0));
            GEMM__CUDA_STEP(h, cudaHostGetDevicePointer((void **)&h->db, h->hb, 0));
        }
        GEMM__CUDA_STEP(h, cudaHostGetDevicePointer((void **)&h->dc, h->hc, 0));
    } else {
        if (h->full) {
            GEMM__CUDA_STEP(h, cudaMalloc((void **)&h->da, na));
            GEMM__CUDA_STEP(h, cudaMalloc((void **)&h->db, nb));
        }
        GEMM__CUDA_STEP(h, cudaMalloc((void **)&h->dc, nc));
    }
    return cudaSuccess;
}

/* In: a and b whole, of C only the window and only when it is read. */
template <typename T, typename TC>
static cudaError_t gemm__cuda_host_in(gemm__cuda_host_call<T, TC> *h, const T *a, const T *b, const TC *c)
{
    const gemm__problem *p = h->p;
    size_t na = (size_t)p->a_extent * sizeof(T), nb = (size_t)p->b_extent * sizeof(T);
    size_t pitch = (size_t)p->ldc * sizeof(TC);
    bool staged = h->mode != GEMM_CUDA_PAGEABLE;
    if (staged) {
        if (h->full) {
            memcpy(h->ha, a, na);
            memcpy(h->hb, b, nb);
        }
        if (h->read_c) gemm__cuda_copy_window(h->hc, c, p->n, p->m, p->ldc, sizeof(TC));
    }
    if (h->mode == GEMM_CUDA_MAPPED) return cudaSuccess;
    if (h->full) {
        GEMM__CUDA_STEP(h, cudaMemcpyAsync(h->da, staged ? h->ha : a, na, cudaMemcpyHostToDevice, h->stream));
        GEMM__CUDA_STEP(h, cudaMemcpyAsync(h->db, staged ? h->hb : b, nb, cudaMemcpyHostToDevice, h->stream));
    }
    if (h->read_c)
        GEMM__CUDA_STEP(h, cudaMemcpy2DAsync(h->dc, pitch, staged ? h->hc : c, pitch, (size_t)p->m * sizeof(TC),
                                             (size_t)p->n, cudaMemcpyHostToDevice, h->stream));
    GEMM__CUDA_STEP(h, cudaStreamSynchronize(h->stream));
    return cudaSuccess;
}

/* Out: only the window of C, so its padding stays untouched. */
template <typename T, typename TC> static cudaError_t gemm__cuda_host_out(gemm__cuda_host_call<T, TC> *h, TC *c)
{
    const gemm__problem *p = h->p;
    size_t pitch = (size_t)p->ldc * sizeof(TC);
    if (h->mode != GEMM_CUDA_MAPPED) {
        GEMM__CUDA_STEP(h, cudaMemcpy2DAsync(h->mode == GEMM_CUDA_PINNED ? h->hc : c, pitch, h->dc, pitch,
                                             (size_t)p->m * sizeof(TC), (size_t)p->n, cudaMemcpyDeviceToHost, h->stream));
        GEMM__CUDA_STEP(h, cudaStreamSynchronize(h->stream));
    }
    if (h->mode != GEMM_CUDA_PAGEABLE) gemm__cuda_copy_window(c, h->hc, p->n, p->m, p->ldc, sizeof(TC));
    return cudaSuccess;
}
#undef GEMM__CUDA_STEP

/* Cleanup failures must not hide the first error: nothing here is checked. */
template <typename T, typename TC> static void gemm__cuda_host_free(gemm__cuda_host_call<T, TC> *h)
{
    if (h->mode != GEMM_CUDA_MAPPED) {
        cudaFree(h->da);
        cudaFree(h->db);
        cudaFree(h->dc);
    }
    cudaFreeHost(h->ha);
    cudaFreeHost(h->hb);
    cudaFreeHost(h->hc);
    if (h->ev0) cudaEventDestroy(h->ev0);
    if (h->ev1) cudaEventDestroy(h->ev1);
    if (h->stream) cudaStreamDestroy(h->stream);
}

/* The device path on the call's stream, timed by CUDA events. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host_compute(const char *fn, gemm__cuda_host_call<T, TC> *h, S alpha, S beta,
                                           const gemm_cuda_options *opt, double *seconds)
{
    gemm__cuda_operands<T, TC, S> x = {h->da, h->db, h->dc, alpha, beta};
    float ms = 0;
    gemm_status s;
    GEMM__CUDA_TRY(fn, cudaEventRecord(h->ev0, h->stream));
    if ((s = gemm__cuda_run(fn, h->p, x, opt, h->stream)) != GEMM_OK) return s;
    GEMM__CUDA_TRY(fn, cudaEventRecord(h->ev1, h->stream));
    GEMM__CUDA_TRY(fn, cudaEventSynchronize(h->ev1));
    GEMM__CUDA_TRY(fn, cudaEventElapsedTime(&ms, h->ev0, h->ev1));
    *seconds = ms * 1e-3;
    return GEMM_OK;
}

/* Makes options.device current; *old is the device to restore after. */
static gemm_status gemm__cuda_host_device(const char *fn, int device, int *old)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: no CUDA device (%s)", fn,
                          e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    if (device >= count)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.device = %d, but there are %d devices", fn, device, count);
    GEMM__CUDA_TRY(fn, cudaGetDevice(old));
    GEMM__CUDA_TRY(fn, cudaSetDevice(device));
    return GEMM_OK;
}

/* A host-pointer call with work to do. The timing is written only when
   the call succeeds (the entry point zeroed it). */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                   const gemm_cuda_options *opt)
{
    gemm__cuda_host_call<T, TC> h = {};
    gemm_timing t = {};
    double t0 = gemm__cuda_now(), t1;
    int old = -1;
    cudaError_t e;
    gemm_status s = gemm__cuda_host_device(fn, opt->device, &old);
    if (s != GEMM_OK) return s;
    h.p = p;
    h.mode = opt->mode;
    h.full = p->work == GEMM__WORK_FULL;
    h.read_c = x.beta != S(0);
    h.what = "";
    if ((e = gemm__cuda_host_alloc(&h)) == cudaSuccess) {
        t1 = gemm__cuda_now();
        t.setup_s = t1 - t0;
        e = gemm__cuda_host_in(&h, x.a, x.b, x.c);
        t.to_device_s = gemm__cuda_now() - t1;
    }
    if (e == cudaSuccess) s = gemm__cuda_host_compute(fn, &h, x.alpha, x.beta, opt, &t.compute_s);
    if (e == cudaSuccess && s == GEMM_OK) {
        t1 = gemm__cuda_now();
        e = gemm__cuda_host_out(&h, x.c);
        t.from_device_s = gemm__cuda_now() - t1;
    }
    if (e != cudaSuccess) s = gemm__cuda_fail(fn, h.what, e);
    gemm__cuda_host_free(&h);
    cudaSetDevice(old);
    t.total_s = gemm__cuda_now() - t0;
    if (s == GEMM_OK && opt->timing) *opt->timing = t;
    return s;
}
