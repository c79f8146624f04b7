#!/usr/bin/env python3
"""bench/research/exact/sass_summary.py - the instruction mix of the research
kernels' main loops, from `cuobjdump -sass` output.

    cuobjdump -sass build/rx/cands_f64.o | python3 sass_summary.py
    cuobjdump -sass build/sweep_exact   | python3 sass_summary.py [filter]

Per kernel: the hottest loop (the backward branch whose body holds the most
DMMA or FFMA instructions), its length and its counts of DMMA (by shape),
FFMA, shared loads by width, shared stores, register moves, global copies
(LDGSTS, UTMALDG), local memory (LDL/STL = spills) and barriers; and the
local-memory instructions in the whole kernel."""
import re
import subprocess
import sys

flt = sys.argv[1] if len(sys.argv) > 1 else ""
text = sys.stdin.read()
parts = re.split(r"\n\s*Function : ", text)
for part in parts[1:]:
    name = part.split("\n", 1)[0].strip()
    try:
        dem = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
    except OSError:
        dem = name
    if "_kernel<" not in dem or flt not in dem:
        continue
    short = re.sub(r"\(.*", "", dem).replace("rx::", "").replace("void ", "")
    short = short.replace("true", "T").replace("false", "F")
    lines = [l for l in part.split("\n") if re.match(r"\s+/\*[0-9a-f]{4,}\*/", l)]
    addr = [int(re.match(r"\s+/\*([0-9a-f]+)\*/", l).group(1), 16) for l in lines]
    ins = [re.sub(r"/\*.*?\*/", "", l).strip().rstrip(";").strip() for l in lines]
    pos = {a: i for i, a in enumerate(addr)}

    def is_math(s):
        return "DMMA" in s or re.search(r"\bFFMA\b", s)

    best = None
    for i, s in enumerate(ins):
        m = re.search(r"\bBRA\b.*0x([0-9a-f]+)", s)
        if not m:
            continue
        tgt = int(m.group(1), 16)
        if tgt >= addr[i] or tgt not in pos:
            continue
        j = pos[tgt]
        n = sum(1 for b in ins[j:i + 1] if is_math(b))
        if n and (best is None or n > best[0]):
            best = (n, j, i)
    whole_local = sum(1 for b in ins if re.search(r"\b(LDL|STL)\b", b))
    if not best:
        print(f"{short:60s} (no loop found) local {whole_local}")
        continue
    _, j, i = best
    body = ins[j:i + 1]

    def cnt(p):
        return sum(1 for b in body if re.search(p, b))

    dmma = {}
    for b in body:
        m = re.search(r"DMMA\.(\S+)", b)
        if m:
            dmma[m.group(1)] = dmma.get(m.group(1), 0) + 1
    pats = [("FFMA", r"\bFFMA\b"), ("LDS.128", r"LDS\.128"), ("LDS.64", r"LDS\.64"),
            ("LDS.32", r"\bLDS(\.U32|\.S32)? "), ("STS", r"\bSTS"), ("MOV", r"\b(IMAD\.)?MOV"),
            ("LDGSTS", r"LDGSTS"), ("UTMALDG", r"UTMALDG"), ("LDL", r"\bLDL"), ("STL", r"\bSTL"), ("BAR", r"\bBAR\.")]
    fields = ["loop %4d" % len(body)]
    if dmma:
        fields.append("DMMA " + ",".join("%sx%d" % (k, v) for k, v in sorted(dmma.items())))
    for label, p in pats:
        n = cnt(p)
        if n or label in ("LDS.128", "LDL", "STL"):
            fields.append("%s %d" % (label, n))
    fields.append("(kernel LDL+STL %d)" % whole_local)
    print(f"{short:60s} " + "  ".join(fields))
