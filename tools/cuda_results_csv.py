#!/usr/bin/env python3
"""tools/cuda_results_csv.py - bench/results_cuda_gpus.csv from bench/RESULTS.md's
current CUDA tables, for `make plot`'s GPU figure.

    python3 tools/cuda_results_csv.py            write bench/results_cuda_gpus.csv
    python3 tools/cuda_results_csv.py --check    fail when the CSV differs from what
                                                 RESULTS.md's tables give

Two tables of RESULTS.md's "CUDA" section are read, every row:
  - "fp32 (SIMT) and fp64 (DMMA) single calls": TFLOP/s of gemm and cuBLAS and
    their ratio, per GPU (H100, H200) and precision (f32, f64);
  - "Tensor cores: TF32, FP16, BF16": the ratio to cublasGemmEx only (that table
    gives no TFLOP/s, so the CSV leaves them empty).
Each row carries its table's date and the commit measured on that GPU, as the
table's header paragraph states them. Nothing is computed: every number is a
cell of RESULTS.md as written there (bold marks dropped).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "RESULTS.md")
CSV = os.path.join(ROOT, "bench", "results_cuda_gpus.csv")
HEADER = "gpu,precision,m,n,k,trans,ours_tflops,cublas_tflops,ratio,date,commit"


def section(text, title):
    """The text of the ### section called `title`, up to the next heading (#### too)."""
    start = text.index("### " + title)
    end = re.search(r"^#{2,4} ", text[start + 4:], re.M)
    return text[start:start + 4 + end.start()] if end else text[start:]


def table(sec):
    """The first markdown table of a section (its contiguous "|" lines): header cells, then rows of cells."""
    lines = sec.splitlines()
    first = next(i for i, l in enumerate(lines) if l.startswith("|"))
    rows = []
    for l in lines[first:]:
        if not l.startswith("|"):
            break
        rows.append(l)
    cells = [[c.strip().replace("**", "") for c in r.strip("|").split("|")] for r in rows]
    return cells[0], [c for c in cells[2:]]


def shape(text):
    """'1024^3 NN' or '256x4096x4096' or '4096x4096x4096 TN' -> (m, n, k, trans)."""
    parts = text.split()
    trans = parts[1] if len(parts) > 1 else "NN"
    if "^3" in parts[0]:
        n = parts[0].replace("^3", "")
        return n, n, n, trans
    m, n, k = parts[0].split("x")
    return m, n, k, trans


def meta(sec, gpu):
    """The GPU's date ("**Date**: H100 2026-11-24 ..., H200 ...", else the one date) and commit."""
    line = re.search(r"\*\*Date\*\*: (.*?)\. \*\*", sec, re.S).group(1)
    own = re.search(gpu + r" (\d{4}-\d\d-\d\d)", line)
    date = own.group(1) if own else re.search(r"\d{4}-\d\d-\d\d", line).group(0)
    commits = re.search(r"\*\*Commits?\*\*: (.*?)\.", sec, re.S).group(1)
    m = re.search(r"(\w{7,})\s+\(" + gpu, commits)
    return date, (m.group(1) if m else re.match(r"\w{7,}", commits).group(0))


def rows():
    text = open(RESULTS, encoding="utf-8").read()
    text = text[text.index("## CUDA"):]
    out = []
    sec = section(text, "fp32 (SIMT) and fp64 (DMMA) single calls")
    head, body = table(sec)
    for r in body:
        m, n, k, trans = shape(r[0])
        for i in range(1, len(head), 2):  # "H100 fp32 ours / cuBLAS", "ratio"
            gpu, prec = head[i].split()[:2]
            if r[i] in ("—", "-", ""):
                continue
            ours, cublas = [x.strip() for x in r[i].split("/")]
            date, commit = meta(sec, gpu)
            out.append([gpu, prec.replace("fp", "f"), m, n, k, trans, ours, cublas, r[i + 1], date, commit])
    sec = section(text, "Tensor cores: TF32, FP16, BF16")
    head, body = table(sec)
    for r in body:
        m, n, k, trans = shape(r[0])
        for i in range(1, len(head)):  # "H100 TF32"
            gpu, prec = head[i].split()
            date, commit = meta(sec, gpu)
            out.append([gpu, prec.lower().replace("fp", "f"), m, n, k, trans, "", "", r[i], date, commit])
    return out


def render():
    return "\n".join([HEADER] + [",".join(r) for r in rows()]) + "\n"


if __name__ == "__main__":
    fresh = render()
    if "--check" in sys.argv:
        old = open(CSV, encoding="utf-8").read() if os.path.exists(CSV) else ""
        if old != fresh:
            print("bench/results_cuda_gpus.csv differs from bench/RESULTS.md's CUDA tables "
                  "(python3 tools/cuda_results_csv.py rewrites it)")
            sys.exit(1)
        print("bench/results_cuda_gpus.csv: %d rows, as bench/RESULTS.md's CUDA tables" % (fresh.count("\n") - 1))
    else:
        open(CSV, "w", encoding="utf-8").write(fresh)
        print("wrote bench/results_cuda_gpus.csv (%d rows)" % (fresh.count("\n") - 1))
