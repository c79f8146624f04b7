#!/usr/bin/env python3
"""bench/research/exact/ptxas_summary.py - one line per research kernel from
ptxas's -v report (build/rx/*.ptxas.txt): template arguments, registers,
spill bytes. Usage: python3 ptxas_summary.py build/rx/cands_*.ptxas.txt"""
import re
import subprocess
import sys

rows = []
for path in sys.argv[1:]:
    fn = None
    stack = spill = None
    for line in open(path):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            fn = m.group(1)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            stack, spill = int(m.group(1)), (int(m.group(2)), int(m.group(3)))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and fn:
            rows.append((fn, int(m.group(1)), stack, spill))
            fn = None
names = [r[0] for r in rows]
try:
    dem = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
except OSError:
    dem = names
for (fn, regs, stack, spill), d in zip(rows, dem):
    if "_kernel<" not in d or "rx::" not in d:
        continue
    d = re.sub(r"\(.*\)$", "", d).replace("rx::", "").replace("(bool)", "")
    d = d.replace("true", "T").replace("false", "F")
    print(f"{d:70s} regs {regs:3d}  stack {stack:3d}  spill st/ld {spill[0]}/{spill[1]}")
