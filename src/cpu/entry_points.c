/* The public calls: gemm__prepare's checks and canonical problem, then the
   one driver. */

GEMM_DEF gemm_status gemm_cpu_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb,
                                    float beta, float *C, int64_t ldc, const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare("gemm_cpu_sgemm", layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb,
                      beta == 1, C != NULL, ldc, &p);
    if (s != GEMM_OK) return s;
    return gemm__cpu_gemm("gemm_cpu_sgemm", &p, GEMM_F32, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C,
                          options);
}

GEMM_DEF gemm_status gemm_cpu_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb,
                                    double beta, double *C, int64_t ldc, const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare("gemm_cpu_dgemm", layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb,
                      beta == 1, C != NULL, ldc, &p);
    if (s != GEMM_OK) return s;
    return gemm__cpu_gemm("gemm_cpu_dgemm", &p, GEMM_F64, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C,
                          options);
}

/* The front door, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                float alpha, const float *A, int64_t lda,
                                const float *B, int64_t ldb,
                                float beta, float *C, int64_t ldc)
{
    return gemm_cpu_sgemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}

GEMM_DEF gemm_status gemm_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                double alpha, const double *A, int64_t lda,
                                const double *B, int64_t ldb,
                                double beta, double *C, int64_t ldc)
{
    return gemm_cpu_dgemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}
