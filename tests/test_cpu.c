/* tests/test_cpu.c - the CPU backend (the front door gemm_sgemm/gemm_dgemm)
   and the reference itself. Last line: N passed, N failed. */
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "battery.h"

static gemm_status cpu_sgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                             int64_t n, int64_t k, float alpha, const float *A, int64_t lda, const float *B,
                             int64_t ldb, float beta, float *C, int64_t ldc)
{
    (void)ctx;
    return gemm_sgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static gemm_status cpu_dgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                             int64_t n, int64_t k, double alpha, const double *A, int64_t lda, const double *B,
                             int64_t ldb, double beta, double *C, int64_t ldc)
{
    (void)ctx;
    return gemm_dgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* The oracle must itself be right: a product worked out by hand, read
   through every layout and transpose. */
static void test_reference_by_hand(void)
{
    /* op(A) = [1 2 3; 4 5 6] (2x3), op(B) = [1 0; 0 1; 1 1] (3x2),
       op(A) op(B) = [4 5; 10 11]; with alpha = 2, beta = -1, C0 = [1 1; 1 1]. */
    static const double opA[2][3] = {{1, 2, 3}, {4, 5, 6}}, opB[3][2] = {{1, 0}, {0, 1}, {1, 1}};
    static const double want[2][2] = {{7, 9}, {19, 21}};
    int li, ai, bi, i, j;
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 2; ai++)
            for (bi = 0; bi < 2; bi++) {
                gemm_layout lay = battery_layouts[li];
                gemm_transpose ta = battery_transposes[ai], tb = battery_transposes[bi];
                double A[6], B[6], C[4] = {1, 1, 1, 1};
                int64_t rs, cs, lda, ldb;
                int ok = 1;
                /* Store op(A) so that reading it back through (lay, ta) gives opA. */
                lda = (lay == GEMM_ROW_MAJOR) == (ta == GEMM_NO_TRANS) ? 3 : 2;
                ldb = (lay == GEMM_ROW_MAJOR) == (tb == GEMM_NO_TRANS) ? 2 : 3;
                gemm__op_strides(lay, ta, lda, &rs, &cs);
                for (i = 0; i < 2; i++)
                    for (j = 0; j < 3; j++) A[i * rs + j * cs] = opA[i][j];
                gemm__op_strides(lay, tb, ldb, &rs, &cs);
                for (i = 0; i < 3; i++)
                    for (j = 0; j < 2; j++) B[i * rs + j * cs] = opB[i][j];
                ok = gemm_ref_dgemm(lay, ta, tb, 2, 2, 3, 2.0, A, lda, B, ldb, -1.0, C, 2) == GEMM_OK;
                gemm__op_strides(lay, GEMM_NO_TRANS, 2, &rs, &cs);
                for (i = 0; i < 2; i++)
                    for (j = 0; j < 2; j++) ok = ok && C[i * rs + j * cs] == want[i][j];
                battery_check(ok, "reference by hand: %s %c%c", li == 0 ? "row" : "col", ai ? 'T' : 'N', bi ? 'T' : 'N');
            }
}

static void test_status_strings(void)
{
    int s, ok = 1;
    for (s = GEMM_OK; s < GEMM__STATUS_END; s++)
        ok = ok && gemm_strerror((gemm_status)s) && strcmp(gemm_strerror((gemm_status)s), "unknown gemm_status") != 0;
    battery_check(ok && strcmp(gemm_strerror((gemm_status)999), "unknown gemm_status") == 0,
                  "gemm_strerror has a sentence for every status");
    battery_check(gemm_cpu_set_threads(-1) == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "threads"),
                  "gemm_cpu_set_threads(-1) is rejected with a detail");
    battery_check(gemm_cpu_set_threads(0) == GEMM_OK && gemm_last_error_detail()[0] == '\0' && gemm_cpu_get_threads() >= 1,
                  "gemm_cpu_set_threads(0) = automatic, detail cleared");
}

int main(void)
{
    battery_backend cpu;
    memset(&cpu, 0, sizeof cpu);
    test_reference_by_hand();
    test_status_strings();
    cpu.name = "cpu";
    cpu.sgemm = cpu_sgemm;
    cpu.dgemm = cpu_dgemm;
    battery_run(&cpu);
    return battery_summary();
}
