#!/bin/sh
# tests/test_readme_numbers.sh - README.md says no more than bench/RESULTS.md
# measured: every performance figure of README.md is in RESULTS.md, written
# the same way (tools/readme_numbers.py states the rule; each figure is one
# check, and each missing one is named). Then the rule's own cases (an
# invented figure fails, a version or a size is no figure, a value does not
# match inside a range), and README's references: every relative link points
# into the repository, and no line names a file outside it, an issue, a seed
# paper or a round. Last line: N passed, N failed.
cd "$(dirname "$0")/.." || exit 2
out=build/readme_numbers
rm -rf "$out" && mkdir -p "$out"
. tests/checks.sh

# 1. the figures, one check each
python3 tools/readme_numbers.py >"$out/figures.txt" 2>&1
grep -v '^ok ' "$out/figures.txt" | sed '$d'
line=$(tail -n 1 "$out/figures.txt")
p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$p" ]; then
    failed=$((failed + 1)); echo "FAIL tools/readme_numbers.py ran: $line"
else
    passed=$((passed + p)) failed=$((failed + f))
    echo "ok   $p figures of README.md found in bench/RESULTS.md ($f missing)"
fi

# 2. the rule's own cases
cat >"$out/results.md" <<'EOF'
| shape | ratio |
|---|---|
| 4096^3 | 0.91-0.93 |
| 2048^3 | 1.47 |
gemm 212 GFLOP/s; 45-49% of the peak; about 20 ns; 2.5x faster
EOF
case_readme() { printf '%s\n' "$1" >"$out/readme.md"; }
numbers() { python3 tools/readme_numbers.py --readme "$out/readme.md" --results "$out/results.md"; }
case_readme 'fp32 0.91-0.93 of the peer, 1.47x, 212 GFLOP/s, 45-49%, 20 ns, 2.5x'
check "rule: figures present verbatim pass" numbers
case_readme 'fp32 0.92 of the peer'
check_fails "rule: an invented figure fails" numbers
case_readme 'fp32 0.93 of the peer'
check_fails "rule: a value does not match inside a range (0.93 in 0.91-0.93)" numbers
case_readme 'fp32 1.4x the peer'
check_fails "rule: a ratio does not match a longer number (1.4 in 1.47)" numbers
case_readme 'gemm 213 GFLOP/s'
check_fails "rule: an integer with a speed unit is a figure" numbers
case_readme '| what | GFLOP/s |
|---|---|
| gemm | 214 |'
check_fails "rule: a number alone in a table cell is a figure" numbers
case_readme 'OpenBLAS 0.3.21, OpenCL 1.2, cuBLAS 13.1, n = 1024..4096, 64x64 tiles, 3xTF32, `--budget 1.5`
```
x = 0.77;
```'
check "rule: versions, sizes, shapes, names and code are not figures" numbers

# 3. README refers to nothing outside the repository
check "README: every relative link points to a file or folder of the repository" python3 - <<'EOF'
import os, re, sys
bad = []
for no, line in enumerate(open("README.md", encoding="utf-8"), 1):
    for target in re.findall(r"\]\(([^)\s]+)\)", line):
        if re.match(r"[a-z]+:|#", target):
            continue
        path = os.path.normpath(target.split("#")[0])
        if path.startswith("..") or os.path.isabs(path) or not os.path.exists(path):
            bad.append("README.md:%d: %s" % (no, target))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
check_fails "README: no path outside the repository (../, /work, /tmp)" \
    grep -nE '(^|[ `(])(\.\./|/work/|/tmp/)' README.md
check_fails "README: no issue, seed paper or round is named" \
    grep -niE 'issue ?#?[0-9]|seed[- ]?(paper|[0-9])|rounds? [0-9]' README.md
check_fails "bench/RESULTS.md: no file outside the repository" \
    grep -nE '\.\./shared|/work/' bench/RESULTS.md
summary
