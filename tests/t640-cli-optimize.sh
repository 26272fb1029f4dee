#!/usr/bin/env bash
# t640: hexpack optimize and box --optimize end to end. A Kershaw box written to
# .vtu and read back slides back to the uniform mesh (every node within 1e-6 h of
# the lattice, checked with VTK's own reader); the per-iteration log and the summary
# are printed; bad input (unknown metric/target/solver/boundary, a file that does not
# parse, a mesh with det J <= 0 for a barrier metric) gives one line on stderr, a
# non-zero exit and no output file.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
PY=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
expect_fail() {
  local want=$1; shift
  rm -f out.vtu err.txt
  "$HEXPACK" "$@" > /dev/null 2> err.txt
  local rc=$?
  local lines; lines=$(wc -l < err.txt)
  if [ "$rc" -eq 0 ]; then echo "FAIL (exit 0): hexpack $*"; fail=1; return; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL ($lines lines on stderr): hexpack $*"; cat err.txt; fail=1; return; fi
  if ! grep -qF -- "$want" err.txt; then echo "FAIL (message): hexpack $*"; echo "  got:  $(cat err.txt)"; echo "  want: $want"; fail=1; return; fi
  if ls out.vtu* > /dev/null 2>&1; then echo "FAIL (output left): hexpack $*"; fail=1; return; fi
  echo "ok   exit $rc  hexpack $*  ->  $(cat err.txt)"
}

"$HEXPACK" box --n 6,4,4 --hi 1.5,1,1 --kershaw 0.3,0.3 --order 2 -o k.vtu > /dev/null || { echo "FAIL: box"; exit 1; }
"$HEXPACK" optimize k.vtu -o o.vtu --threads 1 > log.txt 2>&1 || { echo "FAIL: optimize"; cat log.txt; exit 1; }
grep -q "^newton   1  energy" log.txt || { echo "FAIL: no per-iteration log"; cat log.txt; fail=1; }
grep -q "^optimize: metric 303.*converged" log.txt || { echo "FAIL: no summary"; cat log.txt; fail=1; }
grep -q "^wrote o.vtu" log.txt || { echo "FAIL: not written"; fail=1; }
# VTK reads the result; the nodes (GLL = equispaced at p = 2) sit on the h/2 lattice
$PY - <<'PYEOF' || fail=1
import vtk, sys
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName("o.vtu"); r.Update()
g = r.GetOutput(); pts = g.GetPoints()
h = 0.25; worst = 0.0
for i in range(pts.GetNumberOfPoints()):
    for c in pts.GetPoint(i):
        worst = max(worst, abs(c / (h / 2) - round(c / (h / 2))) * (h / 2))
print("vtk: %d cells, %d points, max distance from the uniform lattice %.2e h" % (g.GetNumberOfCells(), pts.GetNumberOfPoints(), worst / h))
sys.exit(0 if g.GetNumberOfCells() == 96 and worst < 1e-6 * h else 1)
PYEOF
# fixed boundary: energy drops but the mesh stays Kershaw-like
"$HEXPACK" optimize k.vtu -o f.vtu --boundary fixed --quiet --threads 1 --newton-iters 3 > logf.txt 2>&1 || { echo "FAIL: fixed"; cat logf.txt; fail=1; }
grep -q "decrease" logf.txt && ! grep -q "^newton" logf.txt || { echo "FAIL: --quiet/fixed output"; cat logf.txt; fail=1; }
# box --optimize
"$HEXPACK" box --n 6,4,4 --hi 1.5,1,1 --kershaw 0.3,0.3 --order 1 --optimize --quiet --threads 1 -o b.vtu > logb.txt 2>&1 || { echo "FAIL: box --optimize"; cat logb.txt; fail=1; }
grep -q "^optimize: metric 303" logb.txt && grep -q "^wrote b.vtu" logb.txt || { echo "FAIL: box --optimize output"; cat logb.txt; fail=1; }
echo "ok   optimize k.vtu / box --optimize"

expect_fail "unknown metric '999'; known: 302, 303, 315, 318, 321, 332, 338" optimize k.vtu --metric 999 -o out.vtu
expect_fail "unknown target 'wobbly'" optimize k.vtu --target wobbly -o out.vtu
expect_fail "flag --linear-solver expects minres or cg" optimize k.vtu --linear-solver gmres -o out.vtu
expect_fail "flag --boundary expects fixed or slide" optimize k.vtu --boundary wavy -o out.vtu
expect_fail "unknown backend 'gpu'" optimize k.vtu --backend gpu -o out.vtu
for v in 2 0.3,0 0.3,2,0.5 0.3,2,10,0; do
  expect_fail "flag --repair: expected S[,R[,W[,K]]]" optimize k.vtu --repair $v -o out.vtu
done
expect_fail "flag --repair expects a finite number, got 'x'" optimize k.vtu --repair 0.3,x -o out.vtu
expect_fail "optimize needs at least one output" optimize k.vtu
expect_fail "unknown metric '7'" box --n 6 --optimize --metric 7 -o out.vtu
printf 'this is not a VTK file\n' > garbage.vtu
expect_fail "garbage.vtu" optimize garbage.vtu -o out.vtu
# an inverted copy (x -> -x flips every element)
$PY - <<'PYEOF'
import vtk
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName("k.vtu"); r.Update()
g = r.GetOutput(); p = g.GetPoints()
for i in range(p.GetNumberOfPoints()):
    x, y, z = p.GetPoint(i); p.SetPoint(i, -x, y, z)
w = vtk.vtkXMLUnstructuredGridWriter(); w.SetFileName("inverted.vtu"); w.SetInputData(g); w.Write()
PYEOF
expect_fail "det J" optimize inverted.vtu -o out.vtu
exit $fail
