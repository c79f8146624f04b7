#!/usr/bin/env python3
"""tools/amalgamate.py - writes the shipped headers from the small files in src/.

Maintainers edit src/; users copy the generated headers and never see the split
(nlohmann/json's `make amalgamate`, sqlite's amalgamation). Each header has a
template, src/<header>.in: plain text copied through, except lines that are one
directive:

    @include cuda/host/plan.cuh   that part, after the parts it includes, between
                               /* >>cuda/host plan: src/cuda/host/plan.cuh */ and
                               /* <<cuda/host plan */
    @opencl cl/gemm.cl         that OpenCL C file as string literals, one array
                               element per group of whole top-level blocks, each
                               element under C99's 4095-character limit
    @tuning tuning/gemm_cl.txt the tuning file's parameter lines as string
                               literals ('#' lines become comments); the path is
                               from the repository root

A part includes what it uses (`#include "../core/internal.h"`, guarded by
`#pragma once`), so that it compiles on its own and every tool sees its
neighbours. The generator follows those includes: each part is emitted once,
after the parts it includes, and its `#include "..."` and `#pragma once` lines
are dropped; a part of another folder belongs to another header (core/ ->
gemm.h, cpu/ -> gemm_cpu.h, ...), which the generated header includes, so it
is not followed. An include cycle is an error.

    python3 tools/amalgamate.py               write the headers (make headers)
    python3 tools/amalgamate.py --check       compare them with fresh output, and
                                              find parts no header reaches
                                              (make test-headers)
    python3 tools/amalgamate.py --lines DIR   write development copies into DIR
                                              with #line directives pointing at
                                              src/ (make headers LINES=1)
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


# The folder a part lives in names the header that ships it: a part that
# includes a part of another folder relies on that header, which the
# generated header includes itself, so such an include is dropped, not followed.
OWNER = {"core": "gemm.h", "cpu": "gemm_cpu.h", "cuda": "gemm_cuda.cuh",
         "cl": "gemm_cl.h", "mpi": "gemm_mpi.h", "cblas": "gemm_cblas.h"}
LOCAL_INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')
PRAGMA_ONCE = re.compile(r"\s*#\s*pragma\s+once\s*$")


def local_target(rel, line):
    """The src/-relative path a part's `#include "..."` line names, or None
    when the line is no include of another part (a system or user header)."""
    m = LOCAL_INCLUDE.match(line)
    if not m:
        return None
    target = os.path.normpath(os.path.join(os.path.dirname(rel), m.group(1)))
    if not os.path.isfile(os.path.join(SRC, target)):
        # a quoted include in a part names another part: one that is not
        # there (a renamed file) would be copied into the header as it is
        sys.exit("amalgamate: src/%s includes \"%s\", which is no file under src/" % (rel, m.group(1)))
    return target.replace(os.sep, "/")


class Amalgamation:
    """One generated header: each part once, after the parts it includes."""

    def __init__(self, header, lines):
        self.header, self.lines = header, lines
        self.done, self.active = set(), []
        self.parts = []  # every part emitted, in order

    def line_directive(self, number, path):
        return '#line %d "%s"\n' % (number, path) if self.lines else ""

    def include(self, rel):
        if rel in self.done:
            return ""
        if rel in self.active:
            sys.exit("amalgamate: include cycle: %s" % " -> ".join(self.active[self.active.index(rel):] + [rel]))
        self.active.append(rel)
        body, deps, resume = [], [], True
        for number, line in enumerate(read(os.path.join(SRC, rel)).splitlines(keepends=True), 1):
            target = local_target(rel, line)
            if target is not None or PRAGMA_ONCE.match(line):
                if target is not None and OWNER.get(target.split("/")[0]) == self.header:
                    deps.append(self.include(target))
                resume = True
                continue
            if resume:
                body.append(self.line_directive(number, "src/" + rel))
                resume = False
            body.append(line)
        self.active.pop()
        self.done.add(rel)
        self.parts.append(rel)
        name = marker_name(rel)
        return "".join(deps) + "/* >>%s: src/%s */\n%s/* <<%s */\n" % (name, rel, "".join(body), name)

    def generate(self):
        template = header_template(self.header)
        out = [GENERATED_LINE % (self.header, self.header)]
        resume = True
        for number, line in enumerate(read(os.path.join(SRC, template)).splitlines(keepends=True), 1):
            m = re.match(r"@(include|opencl|tuning)\s+(\S+)\s*$", line)
            if not m:
                if resume:
                    out.append(self.line_directive(number, "src/" + template))
                    resume = False
                out.append(line)
                continue
            if m.group(1) == "include":
                out.append(self.include(m.group(2)))
            else:
                out.append({"opencl": opencl, "tuning": tuning}[m.group(1)](m.group(2)))
            resume = True
        return "".join(out)


GENERATED_LINE = ("/* %s: GENERATED by tools/amalgamate.py from src/%s.in and the src/ parts it "
                  "includes; edit those, then run `make headers`. */\n")


def header_template(header):
    return header + ".in"


def generate(header, lines=False):
    return Amalgamation(header, lines).generate()


def orphans():
    """Parts under src/ that no header reaches (a file left behind by a move)."""
    reached = set()
    for h in HEADERS:
        a = Amalgamation(h, False)
        a.generate()
        reached.update(a.parts)
    found = []
    for folder in OWNER:
        for dirpath, _, files in os.walk(os.path.join(SRC, folder)):
            for f in files:
                rel = os.path.relpath(os.path.join(dirpath, f), SRC).replace(os.sep, "/")
                if rel.endswith((".h", ".c", ".cuh")) and rel not in reached:
                    found.append(rel)
    return sorted(found)


def git(*args):
    import subprocess
    try:
        r = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True)
    except OSError:
        return None
    return r.stdout if r.returncode == 0 else None


def committed_check(passed, failed):
    """When src/ is as committed, each committed header must be its fresh
    generation too: `make` regenerates headers in the working tree before
    building, so comparing the working tree alone could hide a stale commit."""
    if git("rev-parse", "--verify", "HEAD") is None:
        return passed, failed
    changed = git("status", "--porcelain", "--", "src", "tuning", "tools/amalgamate.py")
    if changed is None or changed.strip():
        print("ok src/ has uncommitted changes: the committed headers are compared at the next commit")
        return passed + 1, failed
    stale = [h for h in HEADERS if git("show", "HEAD:" + h) != generate(h)]
    if stale:
        print("FAIL committed %s differ from what the committed src/ generates: run `make headers` and commit them"
              % ", ".join(stale))
        return passed, failed + 1
    print("ok the committed headers are what the committed src/ generates")
    return passed + 1, failed


# What a user who copied a header cannot follow: files outside the
# repository, the team's issue numbers, papers by their number in a folder.
OUTSIDE = re.compile(r"DESIGN\.md|\.\./shared|[Ss]eed paper|seed-\d|[Ii]ssue \d|[Ii]ssue-\d")


def outside_references(passed, failed):
    found = []
    for h in HEADERS:
        for number, line in enumerate(generate(h).splitlines(), 1):
            if OUTSIDE.search(line):
                found.append("%s:%d: %s" % (h, number, line.strip()[:80]))
    if found:
        print("FAIL the shipped headers refer to what their users do not have:\n  " + "\n  ".join(found[:10]))
        return passed, failed + 1
    print("ok no shipped header refers to a file outside the repository, an issue or a seed paper")
    return passed + 1, failed


def main():
    args = sys.argv[1:]
    check = "--check" in args
    lines_dir = args[args.index("--lines") + 1] if "--lines" in args else None
    if lines_dir:
        # Development copies: the same text with #line directives, so that
        # compiler errors, gdb, sanitizers and compute-sanitizer name src/ lines.
        os.makedirs(lines_dir, exist_ok=True)
        for h in HEADERS:
            with open(os.path.join(lines_dir, h), "w", encoding="utf-8") as f:
                f.write(generate(h, lines=True))
        print("wrote %s with #line directives into %s" % (", ".join(HEADERS), lines_dir))
        return
    passed = failed = 0
    for h in HEADERS:
        fresh = generate(h)
        path = os.path.join(ROOT, h)
        if not check:
            old = read(path) if os.path.exists(path) else None
            if old != fresh:
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
        passed, failed = committed_check(passed, failed)
        passed, failed = outside_references(passed, failed)
        left = orphans()
        if left:
            failed += 1
            print("FAIL parts no header includes: %s" % ", ".join(left))
        else:
            passed += 1
            print("ok every part under src/ is in a header")
        print("%d passed, %d failed" % (passed, failed))
        sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
