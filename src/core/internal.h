#ifdef __cplusplus
extern "C" {
#endif

/* What a call has to do once its arguments are valid. */
typedef enum gemm__work {
    GEMM__WORK_NONE = 0,   /* m == 0, n == 0, or C = 1*C: return at once */
    GEMM__WORK_SCALE = 1,  /* alpha == 0 or k == 0: C = beta*C, A and B unread */
    GEMM__WORK_FULL = 2    /* the full product */
} gemm__work;

/* The one canonical form of a checked call, made by gemm__prepare and
   shared by every backend.

   C is column-major, m x n, element (i, j) at C[i + j*ldc]. A row-major
   call is the transposed problem C^T = op(B)^T op(A)^T on the same memory,
   so there the caller's A and B change places (swapped = 1) and so do m
   and n; "a" and "b" below name the operands after that swap. op(a) is
   m x k with element (i, p) at a[i*ars + p*acs]; op(b) is k x n with
   element (p, j) at b[p*brs + j*bcs]. a_trans and b_trans say whether the
   operand is read transposed in this column-major view: a_trans means
   op(a)'s K index is contiguous (acs == 1), !b_trans means op(b)'s is
   (brs == 1). Extents count the elements from the first to one past the
   last that the call may touch (0 for a matrix it does not touch); they
   were computed without overflow, so every offset below them fits. */
typedef struct gemm__problem {
    gemm__work work;
    int64_t m, n, k;
    int swapped;
    int a_trans, b_trans;
    int64_t lda, ldb, ldc;
    int64_t ars, acs, brs, bcs;
    int64_t a_extent, b_extent, c_extent;
} gemm__problem;

/* The checks of the contract, in argument order, then the canonical form.
   `func` names the caller in the error detail. Pointers are passed as
   "present" flags so one function serves every precision and memory space.
   On success returns GEMM_OK and fills *p; on failure sets the detail and
   leaves *p unspecified. */
GEMM_DEF gemm_status gemm__prepare(const char *func, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                   int alpha_is_zero, int have_A, int64_t lda, int have_B, int64_t ldb,
                                   int beta_is_one, int have_C, int64_t ldc, gemm__problem *p);

/* Elements a stored rows x cols column-major matrix with leading dimension
   ld spans: (cols-1)*ld + rows, 0 when it is empty; -1 when that does not
   fit in int64_t. */
GEMM_DEF int64_t gemm__extent(int64_t rows, int64_t cols, int64_t ld);

/* Records `status` with a printf-style detail for gemm_last_error_detail()
   and returns `status`, so `return gemm__fail(...)` reads naturally. */
GEMM_DEF gemm_status gemm__fail(gemm_status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clears this thread's detail; each public entry point calls it first. */
GEMM_DEF void gemm__clear_error(void);

/* Test hooks. The test suite defines GEMM__TEST_HOOKS before it includes
   the headers to reach paths that real inputs reach only on huge problems,
   broken devices or other CPUs; without the macro none of this exists and
   GEMM__HOOK(field, value) is just `value`. Each backend reads its own
   fields; zero (NULL) means "no override". Not thread-safe against running
   calls: tests set them between calls. */
#ifdef GEMM__TEST_HOOKS
typedef struct gemm__hooks {
    const char *cpu_kernel;   /* CPU: run this micro-kernel ("avx512", "avx2", "neon", "scalar") */
    int cpu_mc, cpu_kc, cpu_nc; /* CPU: block sizes (rounded up to the kernel's MR / NR) */
    int cl_break_kernel;      /* OpenCL: every tuned kernel computes a wrong result */
    size_t mpi_stage_bytes;   /* MPI: bytes per staged message chunk */
    size_t mpi_copy_parallel_bytes; /* MPI: host copies this large go to several threads */
    int cuda_host_tile;       /* CUDA host path: panels of this many rows and columns */
    size_t cuda_host_chunk_bytes; /* CUDA host path: bytes per staged copy */
} gemm__hooks;
GEMM_DEF gemm__hooks *gemm__test_hooks(void);
#define GEMM__HOOK(field, value) (gemm__test_hooks()->field ? gemm__test_hooks()->field : (value))
#else
#define GEMM__HOOK(field, value) (value)
#endif

#ifdef __cplusplus
}
#endif
