/* tests/test_mpi_init.c - gemm_mpi.h before MPI_Init and after MPI_Finalize
   (tests/test_mpi.sh runs it under mpirun at P = 1 and 2). Every call
   returns GEMM_ERR_MPI, saying why, instead of calling MPI (which aborts
   the job there); a plan made in between is destroyed after MPI_Finalize
   without a crash. The last line: "N passed, N failed". */
#define GEMM_IMPLEMENTATION
#include "../gemm_mpi.h"

#include <stdio.h>
#include <string.h>

static int passed, failed;

static void check(int ok, const char *what, gemm_status s)
{
    if (ok) passed++;
    else failed++;
    printf("%s %s -> %d \"%s\"\n", ok ? "ok  " : "FAIL", what, (int)s, gemm_last_error_detail());
}

/* The four kinds of call, each refused with `why` in the detail. */
static void refused_everywhere(const char *when, const char *why, gemm_mpi_plan **plan)
{
    double a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0, 0, 0, 0};
    gemm_timing t;
    gemm_mpi_options o;
    gemm_status s;
    char what[160];
    memset(&o, 0, sizeof o);
    memset(&t, 0xff, sizeof t);
    o.timing = &t;
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, &o,
                             plan);
    snprintf(what, sizeof what, "%s: gemm_mpi_plan_create", when);
    check(s == GEMM_ERR_MPI && strstr(gemm_last_error_detail(), why) && *plan == NULL && t.total_s == 0, what, s);
    s = gemm_mpi_dgemm(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c,
                       2, &o);
    snprintf(what, sizeof what, "%s: gemm_mpi_dgemm", when);
    check(s == GEMM_ERR_MPI && strstr(gemm_last_error_detail(), why) && c[0] == 0, what, s);
    s = gemm_mpi_sgemm_dist(MPI_COMM_WORLD, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0f, NULL, 2, NULL,
                            2, 0.0f, NULL, 2, NULL);
    snprintf(what, sizeof what, "%s: gemm_mpi_sgemm_dist", when);
    check(s == GEMM_ERR_MPI && strstr(gemm_last_error_detail(), why), what, s);
}

int main(int argc, char **argv)
{
    gemm_mpi_plan *plan = NULL, *none = NULL;
    double a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0, 0, 0, 0};
    size_t host = 0, dev = 0;
    gemm_status s;
    refused_everywhere("before MPI_Init", "not initialised", &none);
    s = gemm_mpi_memory(4, 100, 100, 100, GEMM_F64, 0, NULL, &host, &dev);
    check(s == GEMM_OK && host > 0, "before MPI_Init: gemm_mpi_memory needs no MPI", s);

    MPI_Init(&argc, &argv);
    s = gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F64, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, NULL,
                             &plan);
    check(s == GEMM_OK && plan, "between: a plan is made", s);
    s = gemm_mpi_dgemm_plan(plan, 1.0, a, 2, b, 2, 0.0, c, 2, NULL);
    check(s == GEMM_OK, "between: and executed", s);
    MPI_Finalize();

    refused_everywhere("after MPI_Finalize", "finalised", &none);
    s = gemm_mpi_dgemm_plan(plan, 1.0, a, 2, b, 2, 0.0, c, 2, NULL);
    check(s == GEMM_ERR_MPI && strstr(gemm_last_error_detail(), "finalised"), "after MPI_Finalize: an execute", s);
    s = gemm_mpi_plan_destroy(&plan);
    check(s == GEMM_ERR_MPI && strstr(gemm_last_error_detail(), "finalised") && plan == NULL,
          "after MPI_Finalize: destroy frees without the ranks' agreement, and says so", s);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
