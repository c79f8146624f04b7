/* The public face of gemm.h: the version, the enums and status codes every
   backend shares, gemm_timing, and the calls declared here (the front door
   gemm_?gemm and its batches, run by the CPU backend; the reference). */
#pragma once

#include <stddef.h> /* size_t */
#include <stdint.h> /* int64_t */

/* The version of these headers; every header of one release carries the same. */
#define GEMM_VERSION_MAJOR 0
#define GEMM_VERSION_MINOR 5
#define GEMM_VERSION_PATCH 0
#define GEMM_VERSION_STRING "0.5.0"

#if defined(__GNUC__) || defined(__clang__)
#define GEMM__UNUSED __attribute__((unused))
#else
#define GEMM__UNUSED
#endif

/* Linkage of every function, public (gemm_*) and shared-internal (gemm__*). */
#ifdef GEMM_STATIC
#define GEMM_DEF static GEMM__UNUSED
#else
#define GEMM_DEF extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemm_layout {
    GEMM_ROW_MAJOR = 101,
    GEMM_COL_MAJOR = 102
} gemm_layout;

typedef enum gemm_transpose {
    GEMM_NO_TRANS = 111,
    GEMM_TRANS = 112,
    GEMM_CONJ_TRANS = 113 /* op(X) = X^H, the conjugate transpose; for real types the same as GEMM_TRANS */
} gemm_transpose;

/* Element types, one list for every backend. Zero is no type, so a
   zero-initialised field is never mistaken for one. */
typedef enum gemm_precision {
    GEMM_F32 = 1,  /* float */
    GEMM_F64 = 2,  /* double */
    GEMM_F16 = 3,  /* IEEE binary16 (CUDA's __half) */
    GEMM_BF16 = 4  /* bfloat16 (CUDA's __nv_bfloat16) */
} gemm_precision;

/* One list makes both the enum and the sentences of gemm_strerror(). */
#define GEMM_STATUS_LIST(X)                                                    \
    X(GEMM_OK, 0, "success")                                                   \
    X(GEMM_ERR_INVALID_ARG, 1, "an argument is invalid")                       \
    X(GEMM_ERR_OUT_OF_MEMORY, 2, "out of memory")                              \
    X(GEMM_ERR_UNAVAILABLE, 3, "backend not compiled in, or no device found")  \
    X(GEMM_ERR_DEVICE, 4, "the device runtime reported an error")              \
    X(GEMM_ERR_BUILD, 5, "a kernel failed to compile")                         \
    X(GEMM_ERR_MPI, 6, "an MPI call failed")                                   \
    X(GEMM_ERR_INTERNAL, 7, "internal error (a bug in gemm)")                  \
    X(GEMM_ERR_VERIFY, 8, "the computed product failed its checksum verification")

#define GEMM__STATUS_ENUM(name, value, text) name = value,
typedef enum gemm_status { GEMM_STATUS_LIST(GEMM__STATUS_ENUM) GEMM__STATUS_END } gemm_status;
#undef GEMM__STATUS_ENUM

/* Where one call's time went, in seconds: the one timing shape of every
   backend that offers timing (a gemm_timing pointer in its options). A
   backend fills the fields that apply to it and leaves the others 0. */
typedef struct gemm_timing {
    double total_s;       /* the whole call, wall clock */
    double setup_s;       /* allocations, program builds, plans, before the work */
    double to_device_s;   /* host -> device copies not hidden behind compute */
    double compute_s;     /* the multiplies: kernels or local products */
    double from_device_s; /* device -> host copies not hidden behind compute */
    double distribute_s;  /* MPI: root -> ranks, or the initial skew */
    double shift_s;       /* MPI: shifts and broadcasts not hidden behind compute */
    double gather_s;      /* MPI: ranks -> root */
} gemm_timing;

/* A sentence for a status; never NULL. */
GEMM_DEF const char *gemm_strerror(gemm_status status);

/* This thread's detail of its last failure ("" when none). */
GEMM_DEF const char *gemm_last_error_detail(void);

/* Bytes of one element (4, 8, 2, 2), and a short name ("f32", "f64",
   "f16", "bf16"); 0 and "?" for a value that is no precision. */
GEMM_DEF size_t gemm_precision_size(gemm_precision precision);
GEMM_DEF const char *gemm_precision_name(gemm_precision precision);

/* One line on this build and machine: the version, the backends compiled
   in, the CPU kernel and why, the default thread count and its source
   (invalid GEMM_NUM_THREADS / OMP_NUM_THREADS values named as ignored), the
   CPU's cache blocks (MC, KC, NC) and caches. Per-thread text, valid until
   this thread's next call. */
GEMM_DEF const char *gemm_config(void);

/* The front door: exactly cblas_?gemm's arguments, on the CPU backend
   (gemm_cpu.h) with default options. */
GEMM_DEF gemm_status gemm_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                float alpha, const float *A, int64_t lda,
                                const float *B, int64_t ldb,
                                float beta, float *C, int64_t ldc);
GEMM_DEF gemm_status gemm_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                double alpha, const double *A, int64_t lda,
                                const double *B, int64_t ldb,
                                double beta, double *C, int64_t ldc);

/* The front door's complex calls: cblas_cgemm / cblas_zgemm's arguments,
   on the CPU backend with default options. Matrices are interleaved
   complex (C99 float _Complex / double _Complex, std::complex<float> /
   <double>, cuComplex / cuDoubleComplex all lay it out so: Re then Im),
   counted in complex elements (sizes, leading dimensions); alpha and beta
   point to one such element; op() is X, X^T or X^H (GEMM_CONJ_TRANS).
   alpha == 0 or k == 0: A and B are not read; beta == 0: C is not read.
   gemm_cpu.h has the version with options (gemm_cpu_cgemm / zgemm). */
GEMM_DEF gemm_status gemm_cgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                const void *alpha, const void *A, int64_t lda,
                                const void *B, int64_t ldb,
                                const void *beta, void *C, int64_t ldc);
GEMM_DEF gemm_status gemm_zgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                const void *alpha, const void *A, int64_t lda,
                                const void *B, int64_t ldb,
                                const void *beta, void *C, int64_t ldc);

/* The front door's complex batches, strided and pointer-array (gemm_cpu.h:
   with options). */
GEMM_DEF gemm_status gemm_cgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                const void *B, int64_t ldb, int64_t stride_b,
                                                const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count);
GEMM_DEF gemm_status gemm_zgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                const void *B, int64_t ldb, int64_t stride_b,
                                                const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count);
GEMM_DEF gemm_status gemm_cgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        const void *alpha, const void *const A[], int64_t lda,
                                        const void *const B[], int64_t ldb,
                                        const void *beta, void *const C[], int64_t ldc, int64_t batch_count);
GEMM_DEF gemm_status gemm_zgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        const void *alpha, const void *const A[], int64_t lda,
                                        const void *const B[], int64_t ldb,
                                        const void *beta, void *const C[], int64_t ldc, int64_t batch_count);

/* The front door's batches, on the CPU backend with default options:
   batch_count products that share every argument but where the matrices
   are. Strided: member i's A, B, C start stride_a*i, stride_b*i,
   stride_c*i elements after A, B, C (a stride may be 0 for a shared A or
   B). Pointer arrays: member i's are A[i], B[i], C[i]. Each member has the
   single call's semantics; no two members may write one element of C; a
   refused batch writes nothing, and the detail names the member at fault.
   gemm_cpu.h has the full story (gemm_cpu_?gemm_strided_batched,
   gemm_cpu_?gemm_batched, with options). */
GEMM_DEF gemm_status gemm_sgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                const float *B, int64_t ldb, int64_t stride_b,
                                                float beta, float *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count);
GEMM_DEF gemm_status gemm_dgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                const double *B, int64_t ldb, int64_t stride_b,
                                                double beta, double *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count);
GEMM_DEF gemm_status gemm_sgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        float alpha, const float *const A[], int64_t lda,
                                        const float *const B[], int64_t ldb,
                                        float beta, float *const C[], int64_t ldc, int64_t batch_count);
GEMM_DEF gemm_status gemm_dgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        double alpha, const double *const A[], int64_t lda,
                                        const double *const B[], int64_t ldb,
                                        double beta, double *const C[], int64_t ldc, int64_t batch_count);

/* The reference: plain loops, fp64 accumulation, the same contract. Slow on
   purpose; it is the oracle of the tests. */
GEMM_DEF gemm_status gemm_ref_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb,
                                    float beta, float *C, int64_t ldc);
GEMM_DEF gemm_status gemm_ref_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb,
                                    double beta, double *C, int64_t ldc);

/* The complex reference: the same loops over interleaved complex
   matrices (float or double pairs: C99 float _Complex / double _Complex,
   std::complex), alpha and beta by pointer to one such element as
   cblas_cgemm / cblas_zgemm take them, op() in {GEMM_NO_TRANS, GEMM_TRANS,
   GEMM_CONJ_TRANS}; each sum in long double. A NULL alpha or beta is
   refused (arguments 7 and 12). */
GEMM_DEF gemm_status gemm_ref_cgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc);
GEMM_DEF gemm_status gemm_ref_zgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc);

#ifdef __cplusplus
}
#endif
