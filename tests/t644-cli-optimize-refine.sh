#!/usr/bin/env bash
# t644: hexpack optimize --refine K (mesh-optimizer's -rs) on an MFEM mesh with H1 nodes: the
# Kershaw box (6x2x2 elements, order 2) written as MFEM H1, refined once (192 elements) and raised
# to order 3, optimized and written back as MFEM H1: the output has 192 elements of order 3 and the
# volume of the box (1), read by our MFEM reader; a bad --refine value is one line on stderr;
# --fix-boundary IDS keeps those ids' nodes fixed.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
TOOL=${HX_BUILD_DIR:-./build}/tests/hx_iotool
TOOL=$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")
HEXPACK=$(cd "$(dirname "$HEXPACK")" && pwd)/$(basename "$HEXPACK")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
"$HEXPACK" box --n 6,2,2 --kershaw 0.3,0.3 --order 2 -o k.mesh --mfem-nodes h1 > /dev/null || { echo "FAIL: box"; exit 1; }
grep -q "FiniteElementCollection: H1_3D_P2" k.mesh || { echo "FAIL: k.mesh has no H1 nodes"; fail=1; }
"$HEXPACK" optimize k.mesh --refine 1 --order 3 -o o.mesh --mfem-nodes h1 --newton-iters 2 --coarse-start off --quiet > log.txt 2>&1 ||
  { echo "FAIL: optimize --refine 1"; cat log.txt; exit 1; }
out=$("$TOOL" vol o.mesh)
echo "$out" | head -2
echo "$out" | grep -q "^elements 192 order 3 nodes 6253 " || { echo "FAIL: expected 192 elements of order 3, 6253 nodes"; fail=1; }
vol=$(echo "$out" | awk '/^elements/ {print $10}')
awk -v v="$vol" 'BEGIN { exit !(v > 1 - 1e-9 && v < 1 + 1e-9) }' || { echo "FAIL: volume $vol, expected 1"; fail=1; }
grep -q "FiniteElementCollection: H1_3D_P3" o.mesh || { echo "FAIL: o.mesh has no H1_3D_P3 nodes"; fail=1; }
# --fix-boundary: every id fixed equals --boundary fixed bitwise; one id fixed differs from sliding
opt() { "$HEXPACK" optimize k.mesh --newton-iters 2 --coarse-start off --quiet "$@" > /dev/null 2>&1; }
opt --fix-boundary 1,2,3 -o fa.mesh && opt --boundary fixed -o fb.mesh && opt --fix-boundary 1 -o f1.mesh && opt -o fs.mesh ||
  { echo "FAIL: optimize --fix-boundary runs"; fail=1; }
"$TOOL" cmp fa.mesh fb.mesh 0 | grep -q "^same" && echo "ok   --fix-boundary 1,2,3 = --boundary fixed (bitwise)" ||
  { echo "FAIL: --fix-boundary 1,2,3 differs from --boundary fixed: $("$TOOL" cmp fa.mesh fb.mesh 0)"; fail=1; }
if "$TOOL" cmp f1.mesh fs.mesh 0 > /dev/null; then echo "FAIL: --fix-boundary 1 changed nothing"; fail=1;
else echo "ok   --fix-boundary 1 differs from sliding: $("$TOOL" cmp f1.mesh fs.mesh 0)"; fi
if "$TOOL" cmp f1.mesh fa.mesh 0 > /dev/null; then echo "FAIL: --fix-boundary 1 = all fixed"; fail=1; fi
"$HEXPACK" optimize k.mesh --refine 9 -o o2.mesh > /dev/null 2> err.txt
rc=$?
if [ "$rc" -eq 0 ] || [ "$(wc -l < err.txt)" -ne 1 ] || ! grep -qF -- "flag --refine must be in 0..6, got 9" err.txt || [ -e o2.mesh ]; then
  echo "FAIL: --refine 9: exit $rc: $(cat err.txt)"; fail=1
else
  echo "ok   --refine 9 -> $(cat err.txt)"
fi
[ "$fail" -eq 0 ] && echo PASSED
exit $fail
