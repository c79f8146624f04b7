/* Batches on the device: the host copy of a pointer-array batch's lists
   (in host, device or managed memory), the checks of every member's
   memory, the device copy of the lists, and the launches, the members in
   the grid (device/batch.cuh), of the plan the chooser (choose.cuh) makes
   for the members. Nothing of a batch goes through scratch but the
   operand copies of the tensor-core modes and the pointer lists. */
#pragma once
#include <atomic>
#include <cuda.h> /* CUdeviceptr, CUresult */
#include <stdint.h> /* SIZE_MAX */
#include <stdio.h> /* snprintf */
#include <string.h>
#include <type_traits>
#if defined(__linux__)
#include <errno.h>
#include <sys/uio.h> /* process_vm_readv */
#include <unistd.h>  /* getpid */
#endif
#include "../../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
#include "../../core/lists.c" /* gemm__pointer_list_addr, gemm__list_range */
#include "choose.cuh" /* gemm__cuda_choose_exact, _tc, gemm__cuda_members */
#include "exact_run.cuh"
#include "ozaki.cuh" /* gemm__cuda_ozaki: members of the emulated modes */
#include "tc.cuh"
#include "uploads.cuh" /* gemm__cuda_upload_begin, _send, _done */

/* cuMemGetAddressRange from the driver, through the runtime (no -lcuda). */
typedef CUresult (*gemm__cuda_range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);

/* The allocation that holds device address p (device or managed memory,
   or the device alias of mapped host memory); false when the driver knows
   none (pageable host memory, a stale pointer, memory mapped without an
   allocation). */
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

/* The range [*base, *end) in host addresses of a host allocation whose
   device alias (what cudaPointerGetAttributes calls its devicePointer)
   lies in the device range [dbase, dbase + dsize), for the host address a
   that the alias dp stands for: the same offsets in both. False when dp
   is not in that range or the range does not fit below 2^64. */
static bool gemm__cuda_alias_span(uint64_t a, uint64_t dp, uint64_t dbase, uint64_t dsize, uint64_t *base,
                                  uint64_t *end)
{
    uint64_t off = dp - dbase;
    if (dp < dbase || off >= dsize || a < off || dsize > UINT64_MAX - (a - off)) return false;
    *base = a - off;
    *end = *base + dsize;
    return true;
}

/* Allocations a batch's checks have met (a batch's members usually live
   in a few), so that each member costs a comparison, not a driver call. */
typedef struct gemm__cuda_spans {
    uint64_t base[8], end[8];
    int n, next;
} gemm__cuda_spans;

/* What gemm__cuda_check_span checks, named in a refusal only (a batch of
   10,000 members formats no name on its way through): member >= 0 is
   "member 17: A[17]", else the strided "A's 10000 members". */
typedef struct gemm__cuda_span_name {
    const char *operand;
    int64_t member, count;
} gemm__cuda_span_name;

static void gemm__cuda_span_named(char *out, size_t size, gemm__cuda_span_name n)
{
    if (n.member >= 0) snprintf(out, size, "member %lld: %s[%lld]", (long long)n.member, n.operand, (long long)n.member);
    else snprintf(out, size, "%s's %lld members", n.operand, (long long)n.count);
}

/* Where p lies, for the checks below: GEMM__CUDA_SPAN_FOUND with *end, the
   end of its allocation (device and managed memory: the allocation's
   range; host memory mapped for the device (cudaHostAlloc,
   cudaHostRegister): the range its device alias lies in, taken back to
   host addresses), remembered in k; _UNRANGED: memory the GPU can read
   but the driver gives no range for (not checked further); _UNKNOWN: an
   address the runtime does not know; _HOST: host memory the GPU cannot
   read; _FAILED: the query failed (*e). */
enum { GEMM__CUDA_SPAN_FOUND, GEMM__CUDA_SPAN_UNRANGED, GEMM__CUDA_SPAN_UNKNOWN, GEMM__CUDA_SPAN_HOST,
       GEMM__CUDA_SPAN_FAILED };

static int gemm__cuda_span_find(gemm__cuda_spans *k, const void *p, uint64_t *end, cudaError_t *e)
{
    uint64_t a = (uint64_t)(uintptr_t)p, base, size;
    cudaPointerAttributes at;
    int i;
    for (i = 0; i < k->n; i++)
        if (a >= k->base[i] && a < k->end[i]) {
            *end = k->end[i];
            return GEMM__CUDA_SPAN_FOUND;
        }
    *e = cudaPointerGetAttributes(&at, p);
    if (*e == cudaErrorInvalidValue) {
        (void)cudaGetLastError(); /* not sticky: leave the caller's error state as it was */
        return GEMM__CUDA_SPAN_UNKNOWN;
    }
    if (*e != cudaSuccess) return GEMM__CUDA_SPAN_FAILED;
    if (at.type == cudaMemoryTypeUnregistered) return GEMM__CUDA_SPAN_HOST;
    if (at.type == cudaMemoryTypeHost) {
        if (!at.devicePointer || !gemm__cuda_allocation(at.devicePointer, &base, &size) ||
            !gemm__cuda_alias_span(a, (uint64_t)(uintptr_t)at.devicePointer, base, size, &base, end))
            return GEMM__CUDA_SPAN_UNRANGED;
    } else {
        if (!gemm__cuda_allocation(p, &base, &size)) return GEMM__CUDA_SPAN_UNRANGED;
        *end = base + size;
    }
    i = k->n < 8 ? k->n++ : k->next++ % 8;
    k->base[i] = base;
    k->end[i] = *end;
    return GEMM__CUDA_SPAN_FOUND;
}

/* The device can read `bytes` from p, all in one allocation when the
   driver knows p's (gemm__cuda_span_find); `name` names the operand in a
   refusal. */
static gemm_status gemm__cuda_check_span(const char *fn, gemm__cuda_spans *k, gemm__cuda_span_name name,
                                         const void *p, uint64_t bytes)
{
    uint64_t end = 0, a = (uint64_t)(uintptr_t)p;
    cudaError_t e = cudaSuccess;
    char what[64];
    switch (gemm__cuda_span_find(k, p, &end, &e)) {
    case GEMM__CUDA_SPAN_FOUND:
        if (bytes <= end - a) return GEMM_OK;
        gemm__cuda_span_named(what, sizeof what, name);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s runs past the end of its allocation (%llu bytes from its start "
                          "are read or written, %llu are there)", fn, what, (unsigned long long)bytes,
                          (unsigned long long)(end - a));
    case GEMM__CUDA_SPAN_UNRANGED: return GEMM_OK;
    case GEMM__CUDA_SPAN_UNKNOWN:
        gemm__cuda_span_named(what, sizeof what, name);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is not memory the GPU can read (the CUDA runtime "
                          "knows no such address)", fn, what);
    case GEMM__CUDA_SPAN_HOST:
        gemm__cuda_span_named(what, sizeof what, name);
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is a host pointer the GPU cannot read; pass device memory",
                          fn, what);
    default: return gemm__cuda_fail(fn, "cudaPointerGetAttributes", e);
    }
}

/* Whether one allocation holds every listed member's `bytes` from the
   lowest member address to the highest member's end: then each member
   is inside it, and the members need no check one by one. */
static bool gemm__cuda_members_inside(gemm__cuda_spans *k, const gemm__batch *hb, const void *list,
                                      gemm__batch_addr_fn addr, uint64_t bytes)
{
    uint64_t lo, hi, end = 0;
    cudaError_t e = cudaSuccess;
    gemm__list_range(list, addr, hb->count, &lo, &hi);
    if (hb->count == 0 || hi > UINT64_MAX - bytes) return false;
    return gemm__cuda_span_find(k, (const void *)(uintptr_t)lo, &end, &e) == GEMM__CUDA_SPAN_FOUND &&
           hi + bytes <= end;
}

/* Copies `bytes` from the host address src to dst and returns true, or
   returns false where the host cannot read src, without faulting. The
   runtime calls every address it does not know unregistered host memory,
   a freed device allocation's and a stray pointer's too; on Linux the
   copy goes through process_vm_readv on this process, which answers
   EFAULT there. Elsewhere, or where that system call is not allowed
   (ENOSYS, EPERM under seccomp), src is read directly, as any host
   pointer a caller passes. */
static bool gemm__cuda_read_host(void *dst, const void *src, size_t bytes)
{
    size_t done = 0;
#if defined(__linux__) && defined(_GNU_SOURCE)
    while (done < bytes) {
        struct iovec to = {(char *)dst + done, bytes - done}, from = {(char *)(uintptr_t)src + done, bytes - done};
        ssize_t got = process_vm_readv(getpid(), &to, 1, &from, 1, 0);
        if (got > 0) done += (size_t)got;
        else if (got == 0 || errno == EFAULT) return false;
        else if (errno != EINTR) break; /* not allowed here: read it directly */
    }
#endif
    if (done < bytes) memcpy((char *)dst + done, (const char *)src + done, bytes - done);
    return true;
}

/* Where a pointer-array batch's list lives, from cudaPointerGetAttributes'
   answer (e, *at): on the HOST (pageable memory, which the runtime calls
   unregistered, or page-locked), read there; on the DEVICE (device or
   managed memory, cuBLAS's convention), copied to the host first; UNKNOWN,
   an address the runtime refuses (some drivers say so of freed memory);
   FAILED, the runtime failed (e says how). */
enum { GEMM__CUDA_LIST_HOST, GEMM__CUDA_LIST_DEVICE, GEMM__CUDA_LIST_UNKNOWN, GEMM__CUDA_LIST_FAILED };

static int gemm__cuda_list_home(cudaError_t e, const cudaPointerAttributes *at)
{
    if (e == cudaErrorInvalidValue) return GEMM__CUDA_LIST_UNKNOWN;
    if (e != cudaSuccess) return GEMM__CUDA_LIST_FAILED;
    switch (at->type) {
    case cudaMemoryTypeUnregistered:
    case cudaMemoryTypeHost: return GEMM__CUDA_LIST_HOST;
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged: return GEMM__CUDA_LIST_DEVICE;
    default: return GEMM__CUDA_LIST_UNKNOWN;
    }
}

/* Where the host reads a list that gemm__cuda_list_home puts on the HOST:
   page-locked memory through the host address the runtime gives for it. */
static const void *gemm__cuda_list_on_host(const void *list, const cudaPointerAttributes *at)
{
    return at->type == cudaMemoryTypeHost && at->hostPointer ? at->hostPointer : list;
}

/* `count` pointers of the list `list` (named `what`: "A"; e and *at: what
   cudaPointerGetAttributes said of it) copied into out. A list on the device must lie inside an allocation the driver
   knows (one it has no range for, freed memory for one, is refused, not
   read); it is copied in `stream`'s order, so after the work queued there
   before the call (which may have written it), and the host waits for
   that copy: the checks need the addresses now. `stream` must not be
   capturing a graph then (the copy would only be recorded). */
static gemm_status gemm__cuda_read_list(const char *fn, const char *what, const void *list, cudaError_t e,
                                        const cudaPointerAttributes *at, int64_t count, cudaStream_t stream, void **out)
{
    size_t bytes = (size_t)count * sizeof(void *);
    uint64_t a = (uint64_t)(uintptr_t)list, base, size;
    cudaStreamCaptureStatus capture;
    switch (gemm__cuda_list_home(e, at)) {
    case GEMM__CUDA_LIST_FAILED: return gemm__cuda_fail(fn, "cudaPointerGetAttributes (a list of member pointers)", e);
    case GEMM__CUDA_LIST_HOST:
        if (gemm__cuda_read_host(out, gemm__cuda_list_on_host(list, at), bytes)) return GEMM_OK;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s (the list of member pointers, at %p) is not memory the host "
                          "can read (freed, or not a list?); the list may be in host, device or managed memory", fn,
                          what, list);
    case GEMM__CUDA_LIST_DEVICE: break;
    default:
        if (e != cudaSuccess) (void)cudaGetLastError(); /* not sticky: leave the caller's error state as it was */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s (the list of member pointers, at %p) is not memory the CUDA "
                          "runtime knows (freed, or not a list?); the list may be in host, device or managed memory",
                          fn, what, list);
    }
    if (!gemm__cuda_allocation(list, &base, &size))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s (the list of member pointers, at %p) is in no allocation the "
                          "CUDA driver knows (freed?)", fn, what, list);
    if (a < base || a - base > size || (uint64_t)bytes > size - (a - base))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s (a device list of %lld member pointers) runs past the end of "
                          "its allocation (%llu bytes from its start are read, %llu are there)", fn, what,
                          (long long)count, (unsigned long long)bytes,
                          (unsigned long long)(a >= base && a - base <= size ? size - (a - base) : 0));
    if ((e = cudaStreamIsCapturing(stream, &capture)) != cudaSuccess) return gemm__cuda_fail(fn, "cudaStreamIsCapturing", e);
    if (capture != cudaStreamCaptureStatusNone)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is a list in device memory, which the call reads on the host "
                          "before it queues anything: not while the stream is being captured (pass a host list)", fn,
                          what);
    if ((e = cudaMemcpyAsync(out, list, bytes, cudaMemcpyDefault, stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(stream)) != cudaSuccess)
        return gemm__cuda_fail(fn, "reading a device list of member pointers", e);
    return GEMM_OK;
}

/* The lists a pointer-array batch reads (A and B when it multiplies, C
   when it writes, as `work` says), copied into one host buffer (*held,
   which the caller frees with GEMM_FREE) wherever they live: *la, *lb, *lc
   point into it, NULL for a list not read or passed as NULL (the batch's
   checks refuse what they must). Each list's home is asked once; where
   every list is on the host, one process_vm_readv reads them all (each
   system call costs a microsecond or two); else, or where that read
   falls short, they are read one by one, which says what is wrong. */
static gemm_status gemm__cuda_read_lists(const char *fn, gemm__work work, const void *A, const void *B, const void *C,
                                         int64_t count, cudaStream_t stream, void **held, const void **la,
                                         const void **lb, const void **lc)
{
    const void *in[3] = {work == GEMM__WORK_FULL ? A : NULL, work == GEMM__WORK_FULL ? B : NULL,
                         work != GEMM__WORK_NONE ? C : NULL};
    const void **out[3] = {la, lb, lc};
    static const char *const names[3] = {"A", "B", "C"};
    cudaPointerAttributes at[3];
    cudaError_t e[3] = {cudaSuccess, cudaSuccess, cudaSuccess};
    bool on_host = true;
    void **buf;
    gemm_status s;
    *held = NULL;
    *la = *lb = *lc = NULL;
    if (count <= 0 || (!in[0] && !in[1] && !in[2])) return GEMM_OK;
    if ((uint64_t)count > SIZE_MAX / (3 * sizeof(void *)) ||
        !(buf = (void **)GEMM_MALLOC(3 * (size_t)count * sizeof(void *))))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for %lld members' pointers", fn,
                          (long long)count);
    *held = buf;
    for (int i = 0; i < 3; i++)
        if (in[i]) {
            e[i] = cudaPointerGetAttributes(&at[i], in[i]);
            on_host = on_host && gemm__cuda_list_home(e[i], &at[i]) == GEMM__CUDA_LIST_HOST;
        }
#if defined(__linux__) && defined(_GNU_SOURCE)
    if (on_host) {
        struct iovec to[3], from[3];
        size_t bytes = (size_t)count * sizeof(void *);
        unsigned long n = 0;
        for (int i = 0; i < 3; i++)
            if (in[i]) {
                to[n].iov_base = buf + i * count;
                from[n].iov_base = (void *)(uintptr_t)gemm__cuda_list_on_host(in[i], &at[i]);
                to[n].iov_len = from[n].iov_len = bytes;
                n++;
            }
        if (process_vm_readv(getpid(), to, n, from, n, 0) == (ssize_t)(n * bytes)) {
            for (int i = 0; i < 3; i++) *out[i] = in[i] ? buf + i * count : NULL;
            return GEMM_OK;
        }
    }
#endif
    for (int i = 0; i < 3; i++) { /* one by one: a device list, or a refusal to explain */
        if (!in[i]) continue;
        if ((s = gemm__cuda_read_list(fn, names[i], in[i], e[i], &at[i], count, stream, buf + i * count)) != GEMM_OK)
            return s;
        *out[i] = buf + i * count;
    }
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
                                            size_t elem_c, gemm__cuda_spans *met = NULL)
{
    gemm__cuda_spans own = {}, &k = met ? *met : own;
    bool reads = p->work == GEMM__WORK_FULL;
    const char *na = p->swapped ? "B" : "A", *nb = p->swapped ? "A" : "B";
    uint64_t ba = (uint64_t)p->a_extent * elem_ab, bb = (uint64_t)p->b_extent * elem_ab,
             bc = (uint64_t)p->c_extent * elem_c;
    gemm_status s;
    if (!hb->c_list) {
        gemm__cuda_span_name sa = {na, -1, hb->count}, sb = {nb, -1, hb->count}, sc = {"C", -1, hb->count};
        if (reads && (s = gemm__cuda_check_span(fn, &k, sa, a, gemm__cuda_strided_bytes(hb->count, hb->stride_a,
                                                                                        p->a_extent, elem_ab))) != GEMM_OK)
            return s;
        if (reads && (s = gemm__cuda_check_span(fn, &k, sb, b, gemm__cuda_strided_bytes(hb->count, hb->stride_b,
                                                                                        p->b_extent, elem_ab))) != GEMM_OK)
            return s;
        return gemm__cuda_check_span(fn, &k, sc, c, gemm__cuda_strided_bytes(hb->count, hb->stride_c, p->c_extent,
                                                                            elem_c));
    }
    /* the usual batch: each operand's members in one allocation, checked at once */
    if ((!reads || (gemm__cuda_members_inside(&k, hb, hb->a_list, hb->addr_ab, ba) &&
                    gemm__cuda_members_inside(&k, hb, hb->b_list, hb->addr_ab, bb))) &&
        gemm__cuda_members_inside(&k, hb, hb->c_list, hb->addr_c, bc))
        return GEMM_OK;
    for (int64_t i = 0; i < hb->count; i++) {
        const void *mc = (const void *)(uintptr_t)hb->addr_c(hb->c_list, i);
        gemm__cuda_span_name sa = {na, i, 0}, sb = {nb, i, 0}, sc = {"C", i, 0};
        if (reads) {
            const void *ma = (const void *)(uintptr_t)hb->addr_ab(hb->a_list, i),
                       *mb = (const void *)(uintptr_t)hb->addr_ab(hb->b_list, i);
            if ((s = gemm__cuda_check_span(fn, &k, sa, ma, ba)) != GEMM_OK) return s;
            if ((s = gemm__cuda_check_span(fn, &k, sb, mb, bb)) != GEMM_OK) return s;
        }
        if ((s = gemm__cuda_check_span(fn, &k, sc, mc, bc)) != GEMM_OK) return s;
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

/* The device's copy of the lists of `batches` pointer-array batches (each
   listed one's a and b of the canonical problem, then C, batch after
   batch; each address as a byte offset from a NULL base, batch.cuh) in
   up->device (uploads.cuh), which the caller gives back with
   gemm__cuda_upload_done after its launches: one copy for a grouped
   call's groups, with extra_bytes of `extra` (a table of the groups)
   after the lists. The lists read here are the
   host copies gemm__cuda_read_lists made, and the copy for the device is
   consumed before this returns, so the caller's lists may change after
   the call. */
static gemm_status gemm__cuda_upload_lists(const char *fn, const gemm__batch *hb, int64_t batches, int dev,
                                           cudaStream_t stream, gemm__cuda_upload *up, const void *extra = NULL,
                                           size_t extra_bytes = 0)
{
    size_t members = 0, bytes, lists, at = 0;
    int64_t *host;
    for (int64_t j = 0; j < batches; j++) members += hb[j].c_list ? (size_t)hb[j].count : 0;
    up->device = NULL;
    up->slot = -1;
    if (members == 0) return GEMM_OK;
    lists = 3 * members * sizeof(int64_t);
    if (extra_bytes > SIZE_MAX - lists)
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: the members' pointers and their table pass the address space", fn);
    bytes = lists + extra_bytes;
    if (!(host = (int64_t *)gemm__cuda_upload_begin(dev, bytes, stream, up)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for %llu members' pointers", fn,
                          (unsigned long long)members);
    for (int64_t j = 0; j < batches; j++) {
        const gemm__batch *b = &hb[j];
        if (!b->c_list) continue;
        if (b->addr_ab == gemm__pointer_list_addr && b->addr_c == gemm__pointer_list_addr && b->a_list && b->b_list) {
            size_t n = (size_t)b->count * sizeof(int64_t); /* lists of pointers: the addresses as they are */
            static_assert(sizeof(void *) == sizeof(int64_t), "a member's address is a 64-bit offset");
            memcpy(host + at, b->a_list, n);
            memcpy(host + at + b->count, b->b_list, n);
            memcpy(host + at + 2 * b->count, b->c_list, n);
        } else
            for (int64_t i = 0; i < b->count; i++) { /* A and B may be NULL lists where they are not read */
                host[at + i] = b->a_list ? (int64_t)b->addr_ab(b->a_list, i) : 0;
                host[at + b->count + i] = b->b_list ? (int64_t)b->addr_ab(b->b_list, i) : 0;
                host[at + 2 * b->count + i] = (int64_t)b->addr_c(b->c_list, i);
            }
        at += 3 * (size_t)b->count;
    }
    if (extra_bytes) memcpy((char *)host + lists, extra, extra_bytes);
    return gemm__cuda_upload_send(fn, up, host, bytes, stream);
}

/* Where bt finds a listed batch's members in a copy gemm__cuda_upload_lists
   made: its a, b and c lists one after another at d. */
static void gemm__cuda_listed_at(const int64_t *d, int64_t count, gemm__cuda_batch *bt)
{
    bt->a = d;
    bt->b = d + count;
    bt->c = d + 2 * count;
}

/* Exact fp32 and fp64 over the members of bt: the chooser's plan, then
   the ladder, a cp.async configuration or the warp-tiled SIMT or TMA DMMA
   launch, the operands read in place. K is split only when
   options.split_k asks: a member's sums then do not depend on the batch
   around it (the same bits in a batch of one as in a batch of 10,000). */
template <typename T>
static gemm_status gemm__cuda_exact_members(const char *fn, const gemm__problem *p,
                                            const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_members *batch,
                                            const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                            cudaStream_t stream)
{
    const gemm__cuda_batch &bt = *batch->bt;
    gemm__cuda_exact_plan t;
    gemm_status s = gemm__cuda_choose_exact<T>(fn, p, x, opt, gpu, batch, &t);
    if (s != GEMM_OK) return s;
    if (t.kernel == GEMM_CUDA_KERNEL_NAIVE || t.kernel == GEMM_CUDA_KERNEL_TILED16)
        return gemm__cuda_launch_ladder(fn, t.kernel, p, x, bt, stream);
    if (t.cp != GEMM__CUDA_CP_NONE) return gemm__cuda_launch_cp<T, true>(fn, &t, p, x, bt, gpu->sms, stream);
    return gemm__cuda_exact_launch<T>(fn, p, &t, x.a, x.b, x, bt, gpu->sms, t.split, stream);
}

/* The tensor-core modes over the members of bt: the chooser's plan, then
   the ladder, or one batched copy of the operands the plan's kernel cannot
   read in place (every member in one launch, into k-major rows in
   scratch) and the WGMMA or MMA launch. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc_members(const char *fn, const gemm__problem *p,
                                         const gemm__cuda_operands<T, TC, float> &x, const gemm__cuda_members *batch,
                                         const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    gemm__cuda_batch bt = *batch->bt;
    size_t elem = sizeof(T), a_bytes, bytes;
    gemm__cuda_kmajor<T> a = {x.a, p->lda}, b = {x.b, p->ldb};
    gemm__cuda_tc_plan t;
    T *scratch = NULL;
    gemm_status s = gemm__cuda_choose_tc<T>(fn, p, x.a, x.b, opt, gpu, batch, &t);
    if (s != GEMM_OK) return s;
    if (t.kernel == GEMM_CUDA_KERNEL_NAIVE) return gemm__cuda_launch_ladder(fn, t.kernel, p, x, bt, stream);
    a_bytes = (t.a_elems * bt.count * elem + 255) / 256 * 256;
    bytes = a_bytes + t.b_elems * bt.count * elem;
    if (bytes > 0) {
        cudaMemPool_t pool;
        cudaError_t e;
        gemm__cuda_batch_copy ca = {bt.a, bt.stride_a, (int64_t)t.a_elems, 0},
                              cb = {bt.b, bt.stride_b, (int64_t)t.b_elems, 0};
        if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
        if ((e = cudaMallocFromPoolAsync((void **)&scratch, bytes, pool, stream)) != cudaSuccess)
            return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (the members' operand copies)", e);
        if (t.copy_a) {
            s = gemm__cuda_pack(fn, x.a, p->lda, p->a_trans, batch->aligned_a, (int)p->m, (int)p->k, scratch, t.ldo,
                                ca, bt.count, stream);
            a.X = scratch; a.ld = t.ldo;
            bt.a = NULL; bt.stride_a = (int64_t)t.a_elems; /* the copies are strided */
        }
        if (s == GEMM_OK && t.copy_b) {
            T *out = (T *)((char *)scratch + a_bytes);
            s = gemm__cuda_pack(fn, x.b, p->ldb, !p->b_trans, batch->aligned_b, (int)p->n, (int)p->k, out, t.ldo, cb,
                                bt.count, stream);
            b.X = out; b.ld = t.ldo;
            bt.b = NULL; bt.stride_b = (int64_t)t.b_elems;
        }
    }
    if (s == GEMM_OK && t.kernel == GEMM_CUDA_KERNEL_WGMMA) {
        t.work.a3 = bt.stride_a != 0 && bt.count > 1;
        t.work.b3 = bt.stride_b != 0 && bt.count > 1;
        s = gemm__cuda_launch_wgmma<T, TC>(fn, p, &t, a, b, x, NULL, NULL, NULL, bt.stride_a, bt.stride_b, stream);
    } else if (s == GEMM_OK && t.mma_bm == 64) {
        s = t.a_mn ? gemm__cuda_launch_mma<T, TC, 64, false>(fn, p, a, b, x, false, bt, stream)
                   : gemm__cuda_launch_mma<T, TC, 64, true>(fn, p, a, b, x, false, bt, stream);
    } else if (s == GEMM_OK) {
        s = t.a_mn ? gemm__cuda_launch_mma<T, TC, 128, false>(fn, p, a, b, x, false, bt, stream)
                   : gemm__cuda_launch_mma<T, TC>(fn, p, a, b, x, false, bt, stream);
    }
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

/* The fp32-accurate mode and emulated fp64: member after member through
   the single call's path (the operand split, or the emulation's scaling
   pass and residues, run per member; each member chooses alone). */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_members_one_by_one(const char *fn, const gemm__problem *p,
                                                 const gemm__cuda_operands<T, TC, S> &x, const gemm__batch *hb,
                                                 const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                                 cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    for (int64_t i = 0; i < hb->count && s == GEMM_OK; i++) {
        gemm__cuda_operands<T, TC, S> y = x;
        bool declined = true;
        if (hb->c_list) {
            y.a = (const T *)(uintptr_t)hb->addr_ab(hb->a_list, i);
            y.b = (const T *)(uintptr_t)hb->addr_ab(hb->b_list, i);
            y.c = (TC *)(uintptr_t)hb->addr_c(hb->c_list, i);
        } else {
            y.a = x.a + i * hb->stride_a;
            y.b = x.b + i * hb->stride_b;
            y.c = x.c + i * hb->stride_c;
        }
        if constexpr (std::is_same<T, TC>::value && std::is_same<T, S>::value) {
            if ((s = gemm__cuda_ozaki<T>(fn, p, y, opt, gpu, stream, &declined)) != GEMM_OK) break;
            if (!declined) continue;
            if constexpr (std::is_same<T, double>::value) s = gemm__cuda_exact<T>(fn, p, y, opt, gpu, stream);
            else s = gemm__cuda_tc<T, TC>(fn, p, y, opt, gpu, stream);
        }
    }
    return s;
}

/* What a checked batch must pass before anything is queued: sizes the
   kernels index with 32 bits, and every member's memory (met: the
   allocations a grouped call's earlier groups met, NULL for none). */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batch_memory(const char *fn, const gemm__problem *p, const gemm__batch *hb,
                                           const gemm__cuda_operands<T, TC, S> &x, gemm__cuda_spans *met = NULL)
{
    if (hb->count == 0 || p->work == GEMM__WORK_NONE) return GEMM_OK;
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    return gemm__cuda_check_members(fn, p, hb, x.a, x.b, x.c, sizeof(T), sizeof(TC), met);
}

/* The launches of a batch whose memory gemm__cuda_batch_memory passed:
   the device, the pointer lists' upload (`listed`: where a grouped call
   uploaded this batch's already, NULL: here), the plan and its kernels. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batch_launch(const char *fn, const gemm__problem *p, const gemm__batch *hb,
                                           const gemm__cuda_operands<T, TC, S> &x, const gemm_cuda_options *opt,
                                           cudaStream_t stream, const int64_t *listed = NULL)
{
    gemm__cuda_gpu gpu;
    gemm__cuda_batch bt = gemm__cuda_single(1);
    gemm__cuda_members members;
    gemm__cuda_upload lists = {NULL, -1, -1};
    bool aligned_a, aligned_b;
    gemm_status s;
    if (hb->count == 0 || p->work == GEMM__WORK_NONE) return GEMM_OK;
    if ((s = gemm__cuda_query(fn, &gpu)) != GEMM_OK) return s;
    bt.count = hb->count;
    bt.stride_a = hb->stride_a;
    bt.stride_b = hb->stride_b;
    bt.stride_c = hb->stride_c;
    aligned_a = p->work == GEMM__WORK_FULL &&
                gemm__cuda_members_aligned(hb, hb->a_list, x.a, p->lda, hb->stride_a, sizeof(T));
    aligned_b = p->work == GEMM__WORK_FULL &&
                gemm__cuda_members_aligned(hb, hb->b_list, x.b, p->ldb, hb->stride_b, sizeof(T));
    if constexpr ((std::is_same<T, float>::value || std::is_same<T, double>::value) && std::is_same<T, TC>::value)
        if (gemm__cuda_members_apart(p, opt)) return gemm__cuda_members_one_by_one<T, TC, S>(fn, p, x, hb, opt, &gpu, stream);
    if (hb->c_list && listed) gemm__cuda_listed_at(listed, hb->count, &bt);
    else if (hb->c_list) {
        if ((s = gemm__cuda_upload_lists(fn, hb, 1, gpu.dev, stream, &lists)) != GEMM_OK) return s;
        gemm__cuda_listed_at((const int64_t *)lists.device, hb->count, &bt);
    }
    members.bt = &bt;
    members.aligned_a = aligned_a;
    members.aligned_b = aligned_b;
    if (p->work == GEMM__WORK_SCALE) {
        s = gemm__cuda_scale_members(fn, (int)p->m, (int)p->n, x.beta, x.c, p->ldc, bt, stream);
    } else if constexpr (std::is_same<T, double>::value) {
        s = gemm__cuda_exact_members<T>(fn, p, x, &members, opt, &gpu, stream);
    } else if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value) {
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_tc_members<T, TC>(fn, p, x, &members, opt, &gpu, stream)
                                     : gemm__cuda_exact_members<T>(fn, p, x, &members, opt, &gpu, stream);
    } else {
        s = gemm__cuda_tc_members<T, TC>(fn, p, x, &members, opt, &gpu, stream);
    }
    return gemm__cuda_upload_done(fn, &lists, stream, s);
}

/* A checked batch (gemm__prepare_strided or _batched filled p and hb; x
   holds the strided bases, or NULLs for lists, and the scalars): the
   members' memory, then the launches. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batch_run(const char *fn, const gemm__problem *p, const gemm__batch *hb,
                                        const gemm__cuda_operands<T, TC, S> &x, const gemm_cuda_options *opt,
                                        cudaStream_t stream)
{
    gemm_status s = gemm__cuda_batch_memory(fn, p, hb, x);
    return s == GEMM_OK ? gemm__cuda_batch_launch(fn, p, hb, x, opt, stream) : s;
}
