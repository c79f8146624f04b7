#!/usr/bin/env python3
"""tools/readme_numbers.py - every performance figure README.md states must be
one that bench/RESULTS.md measured, written there the same way.

    python3 tools/readme_numbers.py            check; one line per missing figure,
                                               then "N passed, N failed"
    python3 tools/readme_numbers.py --list     also print every figure found
    ... --readme FILE --results FILE           check other files (the tests' own cases)

The rule. README.md is read outside its fenced code blocks, with `code spans`
blanked out (what is there is code: sizes, options, commands). In what
remains, a figure is
  1. a number with a decimal point, alone or as a range: 0.92, 1.47-1.79,
     49.55 (whatever follows it: x, a unit, a word);
  2. an integer or integer range with an x right after it: 2x, 10-26x (an x
     followed by a letter or digit is a name or a shape: 3xTF32, 64x64);
  3. an integer or integer range followed by a unit of speed, time or share:
     43 TFLOP/s, 212 GFLOP/s, 3 TB/s, 20 ns, 45-49% (a line break may sit
     between the number and the unit);
  4. a table cell that holds nothing but a number (bold or not), in any row
     of a table but its header row: the cells of a GFLOP/s table.
Not figures: other integers (sizes such as 1024, counts, dates, thread
counts, header cells such as n=256 | 512); version numbers: a number with
two or more dots (0.3.21), or a single decimal number right after the name
of a program, library, standard or release (OpenCL 1.2, cuBLAS 13.1,
Debian 12.2); numbers in scientific notation (1e-3).

A figure passes when RESULTS.md contains it verbatim as a whole number: its
digits, dots and hyphen as written, not glued to more digits or to a range
(0.93 does not match inside 0.91-0.93 or 10.93). The x of a decimal figure is
not compared (RESULTS.md's tables write ratios without it); an integer figure
is looked for with its x or unit (2x, 20 ns, 45-49%), except in a table cell,
where the number alone is looked for.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NUM = r"\d+(?:\.\d+)*"  # dots allowed here so that versions are seen whole
UNITS = r"GFLOP/s|TFLOP/s|GB/s|TB/s|ns|us|ms|%"
FIGURE = re.compile(
    r"(?<![\w.\-])"                                   # not the tail of a word, number or range
    r"(?P<num>" + NUM + r"(?:-" + NUM + r")?)"
    r"(?P<x>x(?!\w))?"                                # a ratio's x, not 3xTF32 or 64x64
    r"(?:(?P<space>[ \t]*\n?[ \t]*)(?P<unit>" + UNITS + r")(?!\w))?"
    r"(?!\w)(?!\.\d)"                                 # not followed by more of a word or number
)
CELL = re.compile(r"\s*(\*\*)?(?P<num>\d+(?:\.\d+)?)(\*\*)?\s*")
# names after which a single decimal number is a version, not a measurement
VERSION_WORDS = {
    "opencl", "cuda", "pocl", "clblast", "openblas", "cublas", "scalapack", "libxsmm",
    "mpi", "gcc", "nvcc", "clang", "cmake", "debian", "c", "c++", "driver", "version",
    "release", "v", "gemm", "capability", "ubuntu",
}


def prose(path):
    """README with fenced code and code spans blanked, offsets kept."""
    out, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            fence = line.lstrip().startswith("```")
            if fence or inside:
                out.append(" " * (len(line) - 1) + "\n")
                if fence:
                    inside = not inside
                continue
            out.append(re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), line))
    return "".join(out)


def figures(doc):
    """{offset: (figure as written, needle, is_cell)} of the whole document."""
    found = {}
    for m in FIGURE.finditer(doc):
        num, x, unit = m.group("num"), m.group("x"), m.group("unit")
        parts = num.split("-")
        if any(p.count(".") >= 2 for p in parts):
            continue                                   # 0.3.21: a version
        decimal = any("." in p for p in parts)
        if decimal and len(parts) == 1 and not x and not unit:
            before = re.findall(r"[\w+]+", doc[max(0, m.start() - 40):m.start()])
            if before and before[-1].lower() in VERSION_WORDS:
                continue                               # OpenCL 1.2, cuBLAS 13.1
        shown = " ".join(m.group(0).split())
        if decimal:
            found[m.start()] = (shown, num, False)
        elif x:
            found[m.start()] = (shown, num + "x", False)
        elif unit:
            found[m.start()] = (shown, num + ("" if unit == "%" else " ") + unit, False)
    # table cells that are only a number, below each table's header row
    pos, header = 0, True
    for line in doc.split("\n"):
        if line.startswith("|"):
            if not header and not re.match(r"\|\s*:?-", line):
                start = pos
                for cell in line.split("|")[1:-1]:
                    start += 1
                    c = CELL.fullmatch(cell)
                    if c:
                        off = start + c.start("num")
                        found.setdefault(off, (c.group("num"), c.group("num"), True))
                    start += len(cell)
            header = False
        else:
            header = True
        pos += len(line) + 1
    return found


def present(needle, haystack):
    """needle as a whole figure in haystack (see the rule above)."""
    m = re.fullmatch(r"([\d.\-]+)(x|%| .+)?", needle)
    core, tail = m.group(1), m.group(2) or ""
    if tail.startswith(" "):                        # a unit: any white space before it
        pat = re.escape(core) + r"\s*" + re.escape(tail.strip())
    else:                                           # x or %: right after the number
        pat = re.escape(core) + re.escape(tail)
    return re.search(r"(?<![\d.])(?<!\d-)" + pat + r"(?!\d)(?!\.\d)(?!-\d)", haystack) is not None


def main(argv):
    readme = os.path.join(ROOT, "README.md")
    results = os.path.join(ROOT, "bench", "RESULTS.md")
    for i, a in enumerate(argv[:-1]):
        if a == "--readme":
            readme = argv[i + 1]
        elif a == "--results":
            results = argv[i + 1]
    rname, sname = os.path.relpath(readme, ROOT), os.path.relpath(results, ROOT)
    with open(results, encoding="utf-8") as f:
        haystack = f.read()
    doc = prose(readme)
    passed = failed = 0
    for off, (shown, needle, _) in sorted(figures(doc).items()):
        line = doc.count("\n", 0, off) + 1
        if present(needle, haystack):
            passed += 1
            if "--list" in argv:
                print("ok   %s:%d: %s" % (rname, line, shown))
        else:
            failed += 1
            print("FAIL %s:%d: %s is not in %s (looked for %r)" % (rname, line, shown, sname, needle))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
