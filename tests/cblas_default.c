/* tests/cblas_default.c - gemm_cblas.h's own cblas_xerbla: a bad argument
   prints netlib's line and gemm's detail to stderr, and the call returns
   (the program goes on) with C unchanged; for a row-major call the line
   names the argument's own position, as netlib's cblas_xerbla prints it.
   Built a second time with -DTEST_OWN_XERBLA: GEMM_CBLAS_NO_XERBLA, and the
   program's cblas_xerbla in this same file, which gets the number netlib's
   cblas_dgemm hands over. Last line: N passed, N failed. */
#define _POSIX_C_SOURCE 200809L
#ifdef TEST_OWN_XERBLA
#define GEMM_CBLAS_NO_XERBLA
#endif
#define GEMM_IMPLEMENTATION
#include "../gemm_cblas.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

static void check(int ok, const char *what)
{
    if (ok) passed++;
    else failed++;
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

#ifdef TEST_OWN_XERBLA
static int own_calls, own_p;
void cblas_xerbla(CBLAS_INT p, const char *rout, const char *form, ...)
{
    (void)rout;
    (void)form;
    own_calls++;
    own_p = (int)p;
}
#endif

int main(void)
{
    double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4] = {7, 7, 7, 7};
#ifdef TEST_OWN_XERBLA
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 1);
    check(own_calls == 1 && own_p == 14 && C[0] == 7, "GEMM_CBLAS_NO_XERBLA: the program's cblas_xerbla in the same file gets ldc = 14");
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 1, B, 2, 0.0, C, 2);
    check(own_calls == 2 && own_p == 11 && C[0] == 7,
          "... and 11 for a row-major lda, as netlib's cblas_dgemm hands it (its Fortran call's LDB, plus one)");
#else
    char text[512] = "";
    FILE *log = tmpfile();
    int saved = dup(2);
    size_t got;
    fflush(stderr);
    dup2(fileno(log), 2);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 1);
    fflush(stderr);
    dup2(saved, 2);
    rewind(log);
    got = fread(text, 1, sizeof text - 1, log);
    text[got] = '\0';
    check(strstr(text, "Parameter 14 to routine cblas_dgemm was incorrect") != NULL && strstr(text, "ldc = 1") != NULL,
          "the default cblas_xerbla prints netlib's line and gemm's detail to stderr");
    printf("     (it printed: %s)\n", strtok(text, "\n") ? text : "nothing");
    check(C[0] == 7 && C[1] == 7 && C[2] == 7 && C[3] == 7, "... returns to the program, C unchanged");
    fclose(log);
    log = tmpfile();
    fflush(stderr);
    dup2(fileno(log), 2);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 1, B, 2, 0.0, C, 2);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 2);
    fflush(stderr);
    dup2(saved, 2);
    rewind(log);
    got = fread(text, 1, sizeof text - 1, log);
    text[got] = '\0';
    check(strstr(text, "Parameter 9 to routine cblas_dgemm was incorrect") != NULL &&
              strstr(text, "Parameter 4 to routine cblas_dgemm was incorrect") != NULL,
          "row-major: the default cblas_xerbla prints the argument's own position (lda 9, M 4), as netlib's does");
    fclose(log);
#endif
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 2);
    check(C[0] == 1 && C[1] == 2 && C[2] == 3 && C[3] == 4, "the next, valid call runs");
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
