#!/usr/bin/env python3
"""tools/amalgamate.py - writes the shipped headers from the small files in src/.

Maintainers edit src/; users copy the generated headers and never see the split
(nlohmann/json's `make amalgamate`, sqlite's amalgamation). Each header has a
template, src/<header>.in: plain text copied through, except lines that are one
directive:

    @include cuda/simt.cuh     the file src/cuda/simt.cuh, between the markers
                               /* >>cuda simt: src/cuda/simt.cuh */ and /* <<cuda simt */
    @opencl cl/gemm.cl         that OpenCL C file as string literals, one array
                               element per group of whole top-level blocks, each
                               element under C99's 4095-character limit
    @tuning tuning/gemm_cl.txt the tuning file's parameter lines as string
                               literals ('#' lines become comments); the path is
                               from the repository root

    python3 tools/amalgamate.py           write the headers (make headers)
    python3 tools/amalgamate.py --check   compare them with fresh output (make test-headers)
"""
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
HEADERS = ["gemm.h", "gemm_cpu.h", "gemm_cuda.cuh", "gemm_cl.h", "gemm_mpi.h", "gemm_cblas.h"]
LITERAL_LIMIT = 4000  # characters per array element; C99 guarantees 4095


def read(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return text if text.endswith("\n") else text + "\n"


def marker_name(rel):
    folder, name = os.path.split(rel)
    return "%s %s" % (folder, os.path.splitext(name)[0])


def c_literal(line):
    return '"' + line.replace("\\", "\\\\").replace('"', '\\"') + '\\n"'


def strip_comments(line, in_comment):
    """The code of one line without its comments, and whether a /* comment
    is still open at its end (a brace in a comment must not count)."""
    code = ""
    while line:
        if in_comment:
            end = line.find("*/")
            if end < 0:
                return code, True
            line, in_comment = line[end + 2:], False
        else:
            m = re.search(r"//|/\*", line)
            if not m:
                return code + line, False
            code += line[:m.start()]
            if m.group() == "//":
                return code, False
            line, in_comment = line[m.end():], True
    return code, in_comment


def opencl_units(text, rel):
    """Top-level pieces of an OpenCL C file: a piece ends at a blank line with
    no brace open, so a function is never cut."""
    units, cur, depth = [], [], 0
    in_comment = False
    for line in text.splitlines():
        code, in_comment = strip_comments(line, in_comment)
        depth += code.count("{") - code.count("}")
        cur.append(line)
        if depth == 0 and not line.strip() and len(cur) > 1:
            units.append(cur)
            cur = []
    if cur:
        units.append(cur)
    for u in units:
        size = sum(len(l) + 1 for l in u)
        if size > LITERAL_LIMIT:
            sys.exit("amalgamate: %s: a top-level block of %d characters (from '%s') exceeds %d; split it"
                     % (rel, size, u[0][:40], LITERAL_LIMIT))
    return units


def opencl(rel):
    units = opencl_units(read(os.path.join(SRC, rel)), rel)
    chunks, cur, size = [], [], 0
    for u in units:
        usize = sum(len(l) + 1 for l in u)
        if cur and size + usize > LITERAL_LIMIT:
            chunks.append(cur)
            cur, size = [], 0
        cur += u
        size += usize
    if cur:
        chunks.append(cur)
    out = ["/* >>%s: src/%s (%d literals) */\n" % (marker_name(rel), rel, len(chunks))]
    for c in chunks:
        out += ["    " + c_literal(l) + "\n" for l in c]
        out[-1] = out[-1].rstrip("\n") + ",\n"
    out.append("/* <<%s */\n" % marker_name(rel))
    return "".join(out)


def tuning(rel):
    out = ["/* >>tuning: %s */\n" % rel]
    for line in read(os.path.join(ROOT, rel)).splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            comment = line.lstrip("# ").replace("*/", "* /")
            if comment:  # a bare '#' separates paragraphs in the file; nothing to carry over
                out.append("    /* %s */\n" % comment)
        else:
            out.append("    %s\",\n" % c_literal(line)[:-3])  # the line without its newline
    out.append("/* <<tuning */\n")
    return "".join(out)


def include(rel):
    body = read(os.path.join(SRC, rel))
    name = marker_name(rel)
    return "/* >>%s: src/%s */\n%s/* <<%s */\n" % (name, rel, body, name)


def generate(header):
    out = []
    for line in read(os.path.join(SRC, header + ".in")).splitlines(keepends=True):
        m = re.match(r"@(include|opencl|tuning)\s+(\S+)\s*$", line)
        if not m:
            out.append(line)
        else:
            out.append({"include": include, "opencl": opencl, "tuning": tuning}[m.group(1)](m.group(2)))
    return "".join(out)


def main():
    check = "--check" in sys.argv[1:]
    passed = failed = 0
    for h in HEADERS:
        fresh = generate(h)
        path = os.path.join(ROOT, h)
        if not check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(fresh)
            continue
        old = read(path) if os.path.exists(path) else ""
        if old == fresh:
            print("ok %s is what src/ generates" % h)
            passed += 1
        else:
            failed += 1
            diff = list(difflib.unified_diff(old.splitlines(), fresh.splitlines(), h, h + " (from src/)", lineterm="", n=1))
            print("FAIL %s is stale: edit src/ and run `make headers` (%d diff lines; first ones:)" % (h, len(diff)))
            print("\n".join(diff[:20]))
    if check:
        print("%d passed, %d failed" % (passed, failed))
        sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
