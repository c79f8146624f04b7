/* Where a launch finds its members. Every kernel that multiplies, scales or
   copies operands takes one of these: a single call is a batch of one,
   so a batch runs the same kernels, its members along blockIdx.z. */
#pragma once
#include <stdint.h>

/* The members of one launch: blockIdx.z = (member - first) * split + the
   K part. Each operand is either strided (member i's at the base pointer
   plus i * stride elements) or listed (member i's at the base pointer
   plus list[i] bytes, a device array; the base is NULL for a caller's
   pointer array, so list[i] is the address), independently: a batch's
   copies into scratch are strided even when the caller's operands came
   as a list. Listing byte offsets, not pointers, keeps every member's
   operand an offset from the kernel's pointer parameter, which the
   compiler knows to be global memory: a pointer loaded from memory is
   generic, and the fp32 kernel built around one ran 5% slower even for
   single calls. count and the chunking into launches of at most 65535
   z-slices are the host's business. */
struct gemm__cuda_batch {
    int64_t stride_a, stride_b, stride_c;
    const int64_t *a, *b, *c; /* NULL: strided */
    int64_t first, count;
    int split; /* K parts per member (1: K is not split) */
};

/* A single call: one member, K in `split` parts. */
static inline gemm__cuda_batch gemm__cuda_single(int split)
{
    gemm__cuda_batch bt = {};
    bt.count = 1;
    bt.split = split < 1 ? 1 : split;
    return bt;
}

/* This block's member: moves A, B and C to it and returns its K part. */
template <typename T, typename TC>
__device__ __forceinline__ int gemm__cuda_member(const gemm__cuda_batch &bt, const T *&A, const T *&B, TC *&C)
{
    int z = (int)blockIdx.z, part = z % bt.split;
    int64_t i = bt.first + z / bt.split;
    A = (const T *)((const char *)A + (bt.a ? bt.a[i] : i * bt.stride_a * (int64_t)sizeof(T)));
    B = (const T *)((const char *)B + (bt.b ? bt.b[i] : i * bt.stride_b * (int64_t)sizeof(T)));
    C = (TC *)((char *)C + (bt.c ? bt.c[i] : i * bt.stride_c * (int64_t)sizeof(TC)));
    return part;
}

/* Moves A, B and C to member i (kernels that find their member
   themselves: several members per block). */
template <typename T, typename TC>
__device__ __forceinline__ void gemm__cuda_member_at(const gemm__cuda_batch &bt, int64_t i, const T *&A, const T *&B,
                                                     TC *&C)
{
    A = (const T *)((const char *)A + (bt.a ? bt.a[i] : i * bt.stride_a * (int64_t)sizeof(T)));
    B = (const T *)((const char *)B + (bt.b ? bt.b[i] : i * bt.stride_b * (int64_t)sizeof(T)));
    C = (TC *)((char *)C + (bt.c ? bt.c[i] : i * bt.stride_c * (int64_t)sizeof(TC)));
}

/* The same for a launch whose K is not split (bt.split == 1): blockIdx.z
   is the member, no division. */
template <typename T, typename TC>
__device__ __forceinline__ void gemm__cuda_member_whole_k(const gemm__cuda_batch &bt, const T *&A, const T *&B, TC *&C)
{
    gemm__cuda_member_at(bt, bt.first + (int64_t)blockIdx.z, A, B, C);
}

/* This block's C alone (kernels that only scale C). */
template <typename TC> __device__ __forceinline__ TC *gemm__cuda_member_c(const gemm__cuda_batch &bt, TC *C)
{
    int64_t i = bt.first + (int)blockIdx.z / bt.split;
    return (TC *)((char *)C + (bt.c ? bt.c[i] : i * bt.stride_c * (int64_t)sizeof(TC)));
}

/* The members of an operand copy: blockIdx.z = member - first; member i
   reads the source plus list[i] bytes (or plus i * stride elements) and
   writes the destination plus i * out_stride. */
struct gemm__cuda_batch_copy {
    const int64_t *list;
    int64_t stride, out_stride, first;
};

static inline gemm__cuda_batch_copy gemm__cuda_single_copy(void)
{
    gemm__cuda_batch_copy bc = {};
    return bc;
}

template <typename T>
__device__ __forceinline__ const T *gemm__cuda_copy_member(const gemm__cuda_batch_copy &bc, const T *X, T *&out)
{
    int64_t i = bc.first + (int)blockIdx.z;
    out += i * bc.out_stride;
    return (const T *)((const char *)X + (bc.list ? bc.list[i] : i * bc.stride * (int64_t)sizeof(T)));
}
