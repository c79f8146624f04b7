/* The device-pointer path of every call, after the checks: the first steps
   (sizes, pointers, C = beta*C), the device, then the exact or the
   tensor-core path. The host-pointer path ends here too, with its device
   copies. */
#pragma once
#include <type_traits>
#include "choose.cuh" /* gemm__cuda_is_tc */
#include "call.cuh"
#include "exact_run.cuh" /* gemm__cuda_exact */
#include "ozaki.cuh" /* gemm__cuda_ozaki: the emulated fp64 and fp32-accurate products */
#include "tc.cuh" /* gemm__cuda_tc */

template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_run(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                  const gemm_cuda_options *opt, cudaStream_t stream)
{
    gemm__cuda_gpu gpu;
    bool finished;
    gemm_status s = gemm__cuda_begin(fn, p, x, stream, &finished);
    if (s != GEMM_OK || finished) return s;
    if ((s = gemm__cuda_query(fn, &gpu)) != GEMM_OK) return s;
    if constexpr (std::is_same<T, double>::value) {
        if (opt->math == GEMM_CUDA_MATH_FP64_EMULATED) {
            bool declined;
            if ((s = gemm__cuda_ozaki<T>(fn, p, x, opt, &gpu, stream, &declined)) != GEMM_OK || !declined) return s;
        }
        return gemm__cuda_exact<T>(fn, p, x, opt, &gpu, stream);
    } else if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value) {
        if (opt->math == GEMM_CUDA_MATH_FP32_ACCURATE) {
            bool declined;
            if ((s = gemm__cuda_ozaki<T>(fn, p, x, opt, &gpu, stream, &declined)) != GEMM_OK || !declined) return s;
        }
        if (gemm__cuda_is_tc<T>(opt)) return gemm__cuda_tc<T, TC>(fn, p, x, opt, &gpu, stream);
        return gemm__cuda_exact<T>(fn, p, x, opt, &gpu, stream);
    } else {
        return gemm__cuda_tc<T, TC>(fn, p, x, opt, &gpu, stream);
    }
}
