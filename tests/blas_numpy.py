"""tests/blas_numpy.py - Debian's numpy on libgemm_blas.so (tests/test_blas.sh).

    python3 tests/blas_numpy.py save FILE.npz     without the preload: numpy on
                                                  the system BLAS; saves results
    python3 tests/blas_numpy.py compare FILE.npz  under LD_PRELOAD=libgemm_blas.so:
                                                  the same operations, compared

The operations, on float32, float64, complex64 and complex128 data of a few
shapes (m x k times k x n): A @ B, numpy.dot(A, B), A.T @ B on a transposed
view (numpy passes a transpose flag to CBLAS), and (real types) numpy.linalg.lstsq on a tall m x k system
(LAPACK's dgelsd, which calls dgemm_; numpy's linalg works in float64 for
float32 input too). The data come from a fixed seed, so both runs see the
same matrices.

compare checks each result against the saved one in the relative Frobenius
norm, |X - X_system| / |X_system| <= 1e-5 for float32 and 1e-12 for float64
(the two libraries sum in different orders; float32 sums of k = 300 terms
differ by about 1e-6), and reads gemm's counters through ctypes
(ctypes.CDLL(None): the preloaded library's gemm_blas_calls_of) to check
that gemm served every operation: A @ B and numpy.dot reach cblas_sgemm /
cblas_dgemm (cblas_cgemm / cblas_zgemm for complex data), lstsq reaches dgemm_ through LAPACK. save checks that the
counters are absent without the preload. Last line: N passed, N failed.
"""
import ctypes
import sys

import numpy as np

SHAPES = [(200, 300, 150), (33, 65, 17), (512, 384, 256)]  # m, k, n
TOL = {"float32": 1e-5, "float64": 1e-12, "complex64": 1e-5, "complex128": 1e-12}
NAMES = ["sgemm_", "dgemm_", "cblas_sgemm", "cblas_dgemm", "cgemm_", "zgemm_", "cblas_cgemm", "cblas_zgemm"]

passed = failed = 0


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + what + (": " + detail if detail else ""))
    else:
        failed += 1
        print("FAIL " + what + (": " + detail if detail else ""))


def operations():
    """(name, function) for every operation, in a fixed order."""
    ops = []
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        dt = np.dtype(dtype).name
        cplx = np.issubdtype(dtype, np.complexfloating)
        for m, k, n in SHAPES:
            rng = np.random.default_rng(m * 1000003 + k * 1009 + n)
            A = rng.standard_normal((m, k)).astype(dtype)
            B = rng.standard_normal((k, n)).astype(dtype)
            if cplx:
                A = A + 1j * rng.standard_normal((m, k)).astype(dtype)
                B = B + 1j * rng.standard_normal((k, n)).astype(dtype)
            At = np.ascontiguousarray(A.T)  # k x m; At.T is a transposed view of A
            tall = rng.standard_normal((max(m, k) + 50, min(m, k))).astype(dtype)
            rhs = rng.standard_normal(tall.shape[0]).astype(dtype)
            tag = "%s %dx%dx%d" % (dt, m, k, n)
            ops.append(("A @ B, " + tag, "cblas", lambda A=A, B=B: A @ B))
            ops.append(("numpy.dot(A, B), " + tag, "cblas", lambda A=A, B=B: np.dot(A, B)))
            ops.append(("A.T @ B on a transposed view, " + tag, "cblas", lambda At=At, B=B: At.T @ B))
            if not cplx:
                ops.append(("numpy.linalg.lstsq(%dx%d), %s" % (tall.shape + (dt,)), "fortran",
                            lambda T=tall, r=rhs: np.linalg.lstsq(T, r, rcond=None)[0]))
    return ops


def counters():
    """The preloaded library's counters, or None without it."""
    try:
        of = ctypes.CDLL(None).gemm_blas_calls_of
    except AttributeError:
        return None
    of.restype = ctypes.c_ulonglong
    of.argtypes = [ctypes.c_char_p]
    return lambda: {name: of(name.encode()) for name in NAMES}


def main():
    mode, path = sys.argv[1], sys.argv[2]
    count = counters()
    if mode == "save":
        check("without the preload, gemm_blas_calls_of is not in the process", count is None)
        results = {"r%d" % i: f() for i, (_, _, f) in enumerate(operations())}
        np.savez(path, **results)
        check("saved %d results of the system BLAS" % len(results), len(results) == (4 * 2 + 3 * 2) * len(SHAPES))
    else:
        saved = np.load(path)
        check("under the preload, gemm_blas_calls_of is in the process", count is not None)
        if count is None:
            print("%d passed, %d failed" % (passed, failed))
            return 1
        for i, (what, route, f) in enumerate(operations()):
            before = count()
            X = f()
            after = count()
            ref = saved["r%d" % i]
            tol = TOL[ref.dtype.name]
            rel = float(np.linalg.norm(X.astype(np.complex128) - ref) / np.linalg.norm(ref.astype(np.complex128)))
            served = {k: after[k] - before[k] for k in NAMES if after[k] != before[k]}
            want = ["cblas_sgemm", "cblas_dgemm", "cblas_cgemm", "cblas_zgemm"] if route == "cblas" else ["sgemm_", "dgemm_"]
            check(what, X.dtype == ref.dtype and rel <= tol and any(k in served for k in want),
                  "rel. difference %.2e (<= %g), gemm served %s" % (rel, tol, served or "nothing"))
        total = count()
        check("gemm served calls through both routes (%s)" % total,
              total["cblas_sgemm"] > 0 and total["cblas_dgemm"] > 0 and total["dgemm_"] > 0 and
              total["cblas_cgemm"] > 0 and total["cblas_zgemm"] > 0)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
