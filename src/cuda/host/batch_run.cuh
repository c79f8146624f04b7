/* Batches on the device: the checks of every member's memory, the device
   copy of a pointer-array batch's lists, and the launches, the members in
   the grid (batch.cuh). Exact fp32 runs the warp-tiled kernel when every
   member is 16-byte aligned and larger than 64 x 64 (and K is whole),
   else a 64 x 64 SIMT configuration; fp64 runs the TMA DMMA kernel on a
   strided batch on Hopper (members as the tensor maps' third dimension),
   else DMMA's cp.async configurations (64 x 64 for members of at most 64
   rows, 128 x 64 else); the tensor-core modes run WGMMA on a strided batch
   on Hopper, else MMA, after one batched copy of the operands the kernel
   cannot read in place. The
   fp32-accurate mode runs its members one after another (its split of the
   operands is not batched). Nothing of a batch goes through scratch but
   these copies and the pointer lists. */
#pragma once
#include <atomic>
#include <cuda.h> /* CUdeviceptr, CUresult */
#include <stdio.h> /* snprintf */
#include <string.h>
#include <type_traits>
#include "../../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
#include "exact_run.cuh"
#include "tc.cuh"

/* cuMemGetAddressRange from the driver, through the runtime (no -lcuda). */
typedef CUresult (*gemm__cuda_range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);

/* The allocation that holds address p; false when the driver knows none
   (host memory, a stale pointer, memory mapped without an allocation). */
static bool gemm__cuda_allocation(const void *p, uint64_t *base, uint64_t *size)
{
    static std::atomic<gemm__cuda_range_fn> range{NULL};
    CUdeviceptr b;
    size_t n;
    if (!range.load()) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !f)
            return false;
        range.store((gemm__cuda_range_fn)f);
    }
    if (range.load()((CUdeviceptr *)&b, &n, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS) return false;
    *base = (uint64_t)b;
    *size = (uint64_t)n;
    return true;
}

/* Allocations a batch's checks have met (a batch's members usually live
   in a few), so that each member costs a comparison, not a driver call. */
typedef struct gemm__cuda_spans {
    uint64_t base[8], end[8];
    int n, next;
} gemm__cuda_spans;

/* The device can read `bytes` from p, all in one allocation when the
   driver knows p's. `what` names the operand ("A[17]", "C's members"). */
static gemm_status gemm__cuda_check_span(const char *fn, gemm__cuda_spans *k, const char *what, const void *p,
                                         uint64_t bytes)
{
    uint64_t a = (uint64_t)(uintptr_t)p, base, size, end = 0;
    int i;
    for (i = 0; i < k->n && !end; i++)
        if (a >= k->base[i] && a < k->end[i]) end = k->end[i];
    if (!end) {
        cudaPointerAttributes at;
        cudaError_t e = cudaPointerGetAttributes(&at, p);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaPointerGetAttributes", e);
        if (at.type == cudaMemoryTypeUnregistered)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is a host pointer the GPU cannot read; pass device memory",
                              fn, what);
        /* host memory mapped for the device has no allocation range to check */
        if (at.type == cudaMemoryTypeHost || !gemm__cuda_allocation(p, &base, &size)) return GEMM_OK;
        end = base + size;
        i = k->n < 8 ? k->n++ : k->next++ % 8;
        k->base[i] = base;
        k->end[i] = end;
    }
    if (bytes > end - a)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s runs past the end of its allocation (%llu bytes from its start "
                          "are read or written, %llu are there)", fn, what, (unsigned long long)bytes,
                          (unsigned long long)(end - a));
    return GEMM_OK;
}

/* Bytes from a strided operand's first element to one past the last
   member's last (extent: one member's elements). */
static uint64_t gemm__cuda_strided_bytes(int64_t count, int64_t stride, int64_t extent, size_t elem)
{
    return extent > 0 ? ((uint64_t)(count - 1) * (uint64_t)stride + (uint64_t)extent) * elem : 0;
}

/* Every member's A, B (when read) and C (when written): device memory,
   each within its allocation. */
static gemm_status gemm__cuda_check_members(const char *fn, const gemm__problem *p, const gemm__batch *hb,
                                            const void *a, const void *b, const void *c, size_t elem_ab,
                                            size_t elem_c)
{
    gemm__cuda_spans k = {};
    bool reads = p->work == GEMM__WORK_FULL;
    const char *na = p->swapped ? "B" : "A", *nb = p->swapped ? "A" : "B";
    uint64_t ba = (uint64_t)p->a_extent * elem_ab, bb = (uint64_t)p->b_extent * elem_ab,
             bc = (uint64_t)p->c_extent * elem_c;
    char what[64];
    gemm_status s;
    if (!hb->c_list) {
        snprintf(what, sizeof what, "%s's %lld members", na, (long long)hb->count);
        if (reads && (s = gemm__cuda_check_span(fn, &k, what, a, gemm__cuda_strided_bytes(hb->count, hb->stride_a,
                                                                                          p->a_extent, elem_ab))) != GEMM_OK)
            return s;
        snprintf(what, sizeof what, "%s's %lld members", nb, (long long)hb->count);
        if (reads && (s = gemm__cuda_check_span(fn, &k, what, b, gemm__cuda_strided_bytes(hb->count, hb->stride_b,
                                                                                          p->b_extent, elem_ab))) != GEMM_OK)
            return s;
        snprintf(what, sizeof what, "C's %lld members", (long long)hb->count);
        return gemm__cuda_check_span(fn, &k, what, c, gemm__cuda_strided_bytes(hb->count, hb->stride_c, p->c_extent,
                                                                              elem_c));
    }
    for (int64_t i = 0; i < hb->count; i++) {
        const void *mc = (const void *)(uintptr_t)hb->addr_c(hb->c_list, i);
        if (reads) {
            const void *ma = (const void *)(uintptr_t)hb->addr_ab(hb->a_list, i),
                       *mb = (const void *)(uintptr_t)hb->addr_ab(hb->b_list, i);
            snprintf(what, sizeof what, "member %lld: %s[%lld]", (long long)i, na, (long long)i);
            if ((s = gemm__cuda_check_span(fn, &k, what, ma, ba)) != GEMM_OK) return s;
            snprintf(what, sizeof what, "member %lld: %s[%lld]", (long long)i, nb, (long long)i);
            if ((s = gemm__cuda_check_span(fn, &k, what, mb, bb)) != GEMM_OK) return s;
        }
        snprintf(what, sizeof what, "member %lld: C[%lld]", (long long)i, (long long)i);
        if ((s = gemm__cuda_check_span(fn, &k, what, mc, bc)) != GEMM_OK) return s;
    }
    return GEMM_OK;
}

/* Whether every member's operand is 16-byte aligned for `elem`-byte
   elements: strided (base, ld, stride) or listed (each pointer, ld). */
static bool gemm__cuda_members_aligned(const gemm__batch *hb, const void *list, const void *base, int64_t ld,
                                       int64_t stride, size_t elem)
{
    if ((ld * (int64_t)elem) % 16 != 0) return false;
    if (!list) return (uintptr_t)base % 16 == 0 && (stride * (int64_t)elem) % 16 == 0;
    for (int64_t i = 0; i < hb->count; i++)
        if (hb->addr_ab(list, i) % 16 != 0) return false;
    return true;
}

/* The device's copy of a pointer-array batch's lists (a and b of the
   canonical problem, then C; each address as a byte offset from a NULL
   base, batch.cuh) in `scratch`, a buffer of the pool the caller gives
   back in stream order; bt then reads them. The host's copy is consumed
   before this returns, so the caller's lists may change after the call. */
static gemm_status gemm__cuda_upload_lists(const char *fn, const gemm__batch *hb, int dev, cudaStream_t stream,
                                           void **scratch, gemm__cuda_batch *bt)
{
    size_t bytes = 3 * (size_t)hb->count * sizeof(int64_t);
    int64_t *host = (int64_t *)GEMM_MALLOC(bytes), *d;
    cudaMemPool_t pool;
    cudaError_t e;
    gemm_status s;
    if (!host) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for %lld members' pointers", fn,
                                 (long long)hb->count);
    for (int64_t i = 0; i < hb->count; i++) { /* A and B may be NULL lists where they are not read */
        host[i] = hb->a_list ? (int64_t)hb->addr_ab(hb->a_list, i) : 0;
        host[hb->count + i] = hb->b_list ? (int64_t)hb->addr_ab(hb->b_list, i) : 0;
        host[2 * hb->count + i] = (int64_t)hb->addr_c(hb->c_list, i);
    }
    s = gemm__cuda_scratch_pool(fn, dev, true, &pool);
    e = s == GEMM_OK ? cudaMallocFromPoolAsync(scratch, bytes, pool, stream) : cudaSuccess;
    if (s == GEMM_OK && e != cudaSuccess) s = gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (member pointers)", e);
    if (s == GEMM_OK && (e = cudaMemcpyAsync(*scratch, host, bytes, cudaMemcpyHostToDevice, stream)) != cudaSuccess)
        s = gemm__cuda_fail(fn, "cudaMemcpyAsync (member pointers)", e);
    GEMM_FREE(host);
    if (s != GEMM_OK) return s;
    d = (int64_t *)*scratch;
    bt->a = d;
    bt->b = d + hb->count;
    bt->c = d + 2 * hb->count;
    return GEMM_OK;
}

/* Whether a batch's a and b can be 3-D tensor maps (the TMA kernels):
   strided, each stride 0 (a shared operand) or at least one member's
   whole span, so the copy engine sees the members as a third dimension
   (16-byte alignment is checked apart). */
static bool gemm__cuda_tma_members(const gemm__problem *p, const gemm__cuda_batch &bt)
{
    int64_t span_a = p->lda * (p->a_trans ? p->m : p->k), span_b = p->ldb * (p->b_trans ? p->k : p->n);
    if (bt.a || bt.b || bt.c || bt.count > INT32_MAX) return false;
    return (bt.stride_a == 0 || bt.stride_a >= span_a) && (bt.stride_b == 0 || bt.stride_b >= span_b);
}

/* Exact fp32 and fp64 over the members of bt (`aligned`: every member's A
   and B 16-byte aligned). K is split only when options.split_k asks: a
   member's sums then do not depend on the batch around it (the same bits
   in a batch of one as in a batch of 10,000). */
template <typename T>
static gemm_status gemm__cuda_exact_members(const char *fn, const gemm__problem *p,
                                            const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_batch &bt,
                                            bool aligned, const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                            cudaStream_t stream)
{
    gemm_precision precision = sizeof(T) == 8 ? GEMM_F64 : GEMM_F32;
    gemm_cuda_kernel kernel = opt->kernel ? opt->kernel : gemm__cuda_choose(precision, gpu->major, gpu->minor);
    bool small = p->m <= 64 || (sizeof(T) == 4 && p->n <= 64);
    int split = opt->split_k > 0 ? opt->split_k : 1;
    if ((kernel == GEMM_CUDA_KERNEL_DMMA || kernel == GEMM_CUDA_KERNEL_SIMT) && gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the %s kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, gemm_cuda_kernel_name(kernel), gpu->major, gpu->minor);
    if (kernel == GEMM_CUDA_KERNEL_NAIVE || kernel == GEMM_CUDA_KERNEL_TILED16)
        return gemm__cuda_launch_ladder(fn, kernel, p, x, bt, stream);
    if constexpr (sizeof(T) == 8) {
        if (kernel == GEMM_CUDA_KERNEL_SIMT)
            return gemm__cuda_launch_config<T, gemm__cuda_simt_f64>(fn, p, x, bt, aligned, gpu->sms, split, stream);
        if (opt->variant > 1)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: batches run DMMA's cp.async configuration (variant 1), not "
                              "the TMA configuration %d", fn, opt->variant);
        if (small)
            return gemm__cuda_launch_config<T, gemm__cuda_dmma_f64_small>(fn, p, x, bt, aligned, gpu->sms,
                                                                          split, stream);
        if (opt->variant == 0 && aligned && gemm__cuda_exact_tma_built(gpu->dev, gpu->major, gpu->minor) &&
            gemm__cuda_tma_members(p, bt)) {
            gemm__cuda_exact_plan t = {};
            t.kernel = GEMM_CUDA_KERNEL_DMMA;
            t.ak = p->a_trans;
            t.bk = !p->b_trans;
            t.lda = p->lda;
            t.ldb = p->ldb;
            t.variant = GEMM__CUDA_DMMA_TMA;
            return gemm__cuda_exact_launch<T>(fn, p, &t, x.a, x.b, x, bt, gpu->sms, split, stream);
        }
        return gemm__cuda_launch_config<T, gemm__cuda_dmma_f64>(fn, p, x, bt, aligned, gpu->sms, split, stream);
    } else {
        gemm__cuda_exact_dev dev;
        gemm__cuda_exact_plan t = {};
        if (!aligned || (small && opt->variant == 0) || split > 1) /* the warp-tiled batch instance keeps K whole */
            return gemm__cuda_launch_config<T, gemm__cuda_simt_f32_batch>(fn, p, x, bt, aligned, gpu->sms,
                                                                          split, stream);
        dev.sms = gpu->sms;
        dev.tma = false;
        GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&dev.smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu->dev));
        t.kernel = GEMM_CUDA_KERNEL_SIMT;
        t.ak = p->a_trans;
        t.bk = !p->b_trans;
        t.lda = p->lda;
        t.ldb = p->ldb;
        t.variant = opt->variant ? opt->variant : gemm__cuda_sw_choose(t.ak, t.bk, p->m, p->n, &dev);
        if (gemm__cuda_sw_smem(t.variant, t.ak, t.bk) > (size_t)dev.smem_block)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: SIMT configuration %d needs %zu bytes of shared memory per "
                              "block for this layout, this GPU gives %d", fn, t.variant,
                              gemm__cuda_sw_smem(t.variant, t.ak, t.bk), dev.smem_block);
        return gemm__cuda_exact_launch<T>(fn, p, &t, x.a, x.b, x, bt, gpu->sms, split, stream);
    }
}

/* The WGMMA plan of a strided batch: K not split, the members' units
   side by side (member outermost), a 16-bit operand read M- or N-major in
   place when aligned, every other operand not k-major and aligned copied. */
template <typename T>
static gemm__cuda_tc_plan gemm__cuda_wgmma_members_plan(const gemm__problem *p, const gemm__cuda_batch &bt,
                                                        bool aligned_a, bool aligned_b, int variant, int sms)
{
    gemm__cuda_tc_plan t;
    int elem = (int)sizeof(T), slots;
    memset(&t, 0, sizeof t);
    t.kernel = GEMM_CUDA_KERNEL_WGMMA;
    t.ldo = (p->k + 7) / 8 * 8;
    t.regions = 1;
    t.a_mn = elem == 2 && !p->a_trans && aligned_a;
    t.b_mn = elem == 2 && p->b_trans && aligned_b;
    t.copy_a = !t.a_mn && !(p->a_trans && aligned_a);
    t.copy_b = !t.b_mn && !(!p->b_trans && aligned_b);
    t.wg_bm = gemm__cuda_wgmma_bm((int)p->m, variant, false);
    gemm__cuda_wgmma_schedule(&t, (int)p->m, (int)p->n, p->k, elem, sms, 1);
    t.work.units *= (int)bt.count;
    t.work.members = (int)bt.count;
    t.work.stride_c = bt.stride_c;
    slots = sms * (t.wg_bm == 256 ? 1 : 2);
    t.grid = slots < t.work.units ? slots : t.work.units;
    t.a_elems = t.copy_a ? (size_t)(p->m * t.ldo) : 0;
    t.b_elems = t.copy_b ? (size_t)(p->n * t.ldo) : 0;
    return t;
}

/* The tensor-core modes over the members of bt: members of at most 64 x
   64 on MMA's 64 x 64 tiles, a block per member (a WGMMA tile of 128 rows
   would be three quarters empty: 64^3 x 10,000 ran at 0.52-0.65 of
   cuBLAS's speed on WGMMA, 0.96-0.99 on these tiles, H100); others WGMMA
   for a strided batch where it runs (Hopper, sm_90a code), else MMA.
   MMA reads an aligned op(A) in place, k-major or M-major; WGMMA reads
   TF32 only k-major, so with an M-major op(A) (the NN case) and members
   of at most 256 columns TF32 takes MMA too: WGMMA's copy of op(A) costs
   more than its faster sums (H100, TF32 128^3 x 4000: 0.60 of cuBLAS on
   WGMMA, 0.99 on MMA; 256^3 x 1000: 0.66-0.71 and 0.89-0.92; but
   1024^3 x 16: 0.87 and 0.50). Operands a kernel cannot read in place
   are first copied, every member in one launch, into k-major rows in
   scratch. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc_members(const char *fn, const gemm__problem *p,
                                         const gemm__cuda_operands<T, TC, float> &x, gemm__cuda_batch bt,
                                         bool aligned_a, bool aligned_b, const gemm_cuda_options *opt,
                                         const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    size_t elem = sizeof(T);
    int64_t ldo = (p->k + 7) / 8 * 8; /* 16-byte rows */
    bool small = p->m <= 64 && p->n <= 64 && opt->kernel != GEMM_CUDA_KERNEL_WGMMA;
    bool tf32_mn = elem == 4 && !p->a_trans && aligned_a && p->n <= 256 && opt->kernel == GEMM_CUDA_KERNEL_AUTO;
    bool wgmma = !small && !tf32_mn &&
                 (opt->kernel == GEMM_CUDA_KERNEL_AUTO || opt->kernel == GEMM_CUDA_KERNEL_WGMMA) &&
                 gemm__cuda_wgmma_available(gpu->dev, gpu->major, gpu->minor) && gemm__cuda_tma_members(p, bt);
    gemm__cuda_tc_plan t = gemm__cuda_wgmma_members_plan<T>(p, bt, aligned_a, aligned_b, opt->variant, gpu->sms);
    bool copy_a = wgmma ? t.copy_a : !aligned_a;
    bool copy_b = wgmma ? t.copy_b : !(!p->b_trans && aligned_b);
    bool a_mn = !copy_a && !p->a_trans && !wgmma;
    size_t a_elems = copy_a ? (size_t)(p->m * ldo) : 0, b_elems = copy_b ? (size_t)(p->n * ldo) : 0;
    size_t a_bytes = (a_elems * bt.count * elem + 255) / 256 * 256, bytes = a_bytes + b_elems * bt.count * elem;
    gemm__cuda_kmajor<T> a = {x.a, p->lda}, b = {x.b, p->ldb};
    T *scratch = NULL;
    gemm_status s = GEMM_OK;
    gemm_cuda_kernel kernel = opt->kernel ? opt->kernel : GEMM_CUDA_KERNEL_MMA;
    if (kernel == GEMM_CUDA_KERNEL_NAIVE) return gemm__cuda_launch_ladder(fn, kernel, p, x, bt, stream);
    if (kernel == GEMM_CUDA_KERNEL_WGMMA && !wgmma)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the wgmma kernel runs strided batches on Hopper (compute "
                          "capability 9.0, a build for sm_90a), each stride 0 or at least a member's span; this is %s "
                          "on a %d.%d GPU: use the mma kernel", fn, bt.c ? "a pointer-array batch" : "another batch",
                          gpu->major, gpu->minor);
    if (gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: batches on the tensor cores need compute capability 8.0+; this "
                          "GPU is %d.%d", fn, gpu->major, gpu->minor);
    if (bytes > 0) {
        cudaMemPool_t pool;
        cudaError_t e;
        gemm__cuda_batch_copy ca = {bt.a, bt.stride_a, (int64_t)a_elems, 0},
                              cb = {bt.b, bt.stride_b, (int64_t)b_elems, 0};
        if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
        if ((e = cudaMallocFromPoolAsync((void **)&scratch, bytes, pool, stream)) != cudaSuccess)
            return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (the members' operand copies)", e);
        if (copy_a) {
            s = gemm__cuda_pack(fn, x.a, p->lda, p->a_trans, aligned_a, (int)p->m, (int)p->k, scratch, ldo, ca,
                                bt.count, stream);
            a.X = scratch; a.ld = ldo;
            bt.a = NULL; bt.stride_a = (int64_t)a_elems; /* the copies are strided */
        }
        if (s == GEMM_OK && copy_b) {
            T *out = (T *)((char *)scratch + a_bytes);
            s = gemm__cuda_pack(fn, x.b, p->ldb, !p->b_trans, aligned_b, (int)p->n, (int)p->k, out, ldo, cb, bt.count,
                                stream);
            b.X = out; b.ld = ldo;
            bt.b = NULL; bt.stride_b = (int64_t)b_elems;
        }
    }
    if (s == GEMM_OK && wgmma) {
        t.work.a3 = bt.stride_a != 0 && bt.count > 1;
        t.work.b3 = bt.stride_b != 0 && bt.count > 1;
        s = t.wg_bm == 128 ? gemm__cuda_launch_wgmma<T, TC, 128>(fn, p, &t, a, b, x, NULL, NULL, NULL, bt.stride_a,
                                                                 bt.stride_b, stream)
                           : gemm__cuda_launch_wgmma<T, TC, 256>(fn, p, &t, a, b, x, NULL, NULL, NULL, bt.stride_a,
                                                                 bt.stride_b, stream);
    } else if (s == GEMM_OK && small) {
        s = a_mn ? gemm__cuda_launch_mma<T, TC, 64, false>(fn, p, a, b, x, false, bt, stream)
                 : gemm__cuda_launch_mma<T, TC, 64, true>(fn, p, a, b, x, false, bt, stream);
    } else if (s == GEMM_OK) {
        s = a_mn ? gemm__cuda_launch_mma<T, TC, 128, false>(fn, p, a, b, x, false, bt, stream)
                 : gemm__cuda_launch_mma<T, TC>(fn, p, a, b, x, false, bt, stream);
    }
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

/* The fp32-accurate mode: member after member through the single call's
   path (its operand split runs per member). */
template <typename T, typename TC>
static gemm_status gemm__cuda_members_one_by_one(const char *fn, const gemm__problem *p,
                                                 const gemm__cuda_operands<T, TC, float> &x, const gemm__batch *hb,
                                                 const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                                 cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    for (int64_t i = 0; i < hb->count && s == GEMM_OK; i++) {
        gemm__cuda_operands<T, TC, float> y = x;
        if (hb->c_list) {
            y.a = (const T *)(uintptr_t)hb->addr_ab(hb->a_list, i);
            y.b = (const T *)(uintptr_t)hb->addr_ab(hb->b_list, i);
            y.c = (TC *)(uintptr_t)hb->addr_c(hb->c_list, i);
        } else {
            y.a = x.a + i * hb->stride_a;
            y.b = x.b + i * hb->stride_b;
            y.c = x.c + i * hb->stride_c;
        }
        s = gemm__cuda_tc<T, TC>(fn, p, y, opt, gpu, stream);
    }
    return s;
}

/* A checked batch (gemm__prepare_strided or _batched filled p and hb; x
   holds the strided bases, or NULLs for lists, and the scalars): the
   members' memory, then the launches. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batch_run(const char *fn, const gemm__problem *p, const gemm__batch *hb,
                                        const gemm__cuda_operands<T, TC, S> &x, const gemm_cuda_options *opt,
                                        cudaStream_t stream)
{
    gemm__cuda_gpu gpu;
    gemm__cuda_batch bt = gemm__cuda_single(1);
    void *lists = NULL;
    bool aligned_a, aligned_b;
    gemm_status s;
    if (hb->count == 0 || p->work == GEMM__WORK_NONE) return GEMM_OK;
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_members(fn, p, hb, x.a, x.b, x.c, sizeof(T), sizeof(TC))) != GEMM_OK) return s;
    if ((s = gemm__cuda_query(fn, &gpu)) != GEMM_OK) return s;
    bt.count = hb->count;
    bt.stride_a = hb->stride_a;
    bt.stride_b = hb->stride_b;
    bt.stride_c = hb->stride_c;
    aligned_a = p->work == GEMM__WORK_FULL &&
                gemm__cuda_members_aligned(hb, hb->a_list, x.a, p->lda, hb->stride_a, sizeof(T));
    aligned_b = p->work == GEMM__WORK_FULL &&
                gemm__cuda_members_aligned(hb, hb->b_list, x.b, p->ldb, hb->stride_b, sizeof(T));
    if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value)
        if (opt->math == GEMM_CUDA_MATH_FP32_ACCURATE && p->work == GEMM__WORK_FULL)
            return gemm__cuda_members_one_by_one<T, TC>(fn, p, x, hb, opt, &gpu, stream);
    if (hb->c_list && (s = gemm__cuda_upload_lists(fn, hb, gpu.dev, stream, &lists, &bt)) != GEMM_OK) return s;
    if (p->work == GEMM__WORK_SCALE) {
        s = gemm__cuda_scale_members(fn, (int)p->m, (int)p->n, x.beta, x.c, p->ldc, bt, stream);
    } else if constexpr (std::is_same<T, double>::value) {
        s = gemm__cuda_exact_members<T>(fn, p, x, bt, aligned_a && aligned_b, opt, &gpu, stream);
    } else if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value) {
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_tc_members<T, TC>(fn, p, x, bt, aligned_a, aligned_b, opt, &gpu, stream)
                                     : gemm__cuda_exact_members<T>(fn, p, x, bt, aligned_a && aligned_b, opt, &gpu, stream);
    } else {
        s = gemm__cuda_tc_members<T, TC>(fn, p, x, bt, aligned_a, aligned_b, opt, &gpu, stream);
    }
    if (lists) {
        cudaError_t e = cudaFreeAsync(lists, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}
