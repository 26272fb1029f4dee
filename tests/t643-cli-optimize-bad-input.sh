#!/usr/bin/env bash
# t643: bad input to the optimizer in every readable format. For each of .vtu,
# .msh, .mesh, .re2: a file that does not parse (garbage, and a good file cut in
# half), a missing file, and an inverted mesh (x -> -x, written with convert
# --force) given to a barrier metric (every barrier metric on .vtu; the message
# names the file and the metric); plus bad optimizer flag values on
# optimize and on box --optimize. Each gets one line on stderr naming the file or
# flag, a non-zero exit status and no output file. The same inverted file given
# to the non-barrier size metric 315 may run (no untangling step is accepted: the
# line search never takes det J <= 0) but must not write a mesh with det J <= 0
# either. The good files optimize cleanly, so the failures come from the defects.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
# expect_fail "substring of the message" args...
expect_fail() {
  local want=$1; shift
  rm -f out.* err.txt
  "$HEXPACK" "$@" > /dev/null 2> err.txt
  local rc=$?
  local lines; lines=$(wc -l < err.txt)
  if [ "$rc" -eq 0 ]; then echo "FAIL (exit 0): hexpack $*"; fail=1; return; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL ($lines lines on stderr): hexpack $*"; cat err.txt; fail=1; return; fi
  if ! grep -qF -- "$want" err.txt; then echo "FAIL (message): hexpack $*"; echo "  got:  $(cat err.txt)"; echo "  want: $want"; fail=1; return; fi
  if ls out.* > /dev/null 2>&1; then echo "FAIL (output left): hexpack $*"; ls out.*; fail=1; return; fi
  echo "ok   exit $rc  hexpack $*  ->  $(cat err.txt)"
}

"$HEXPACK" box --n 6,4,4 --hi 1.5,1,1 --kershaw 0.3,0.3 --order 2 -o k.vtu > /dev/null || { echo "FAIL: box"; exit 1; }
/usr/bin/python3 - <<'PYEOF' || { echo "FAIL: python inversion"; exit 1; }
import vtk
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName("k.vtu"); r.Update()
g = r.GetOutput(); p = g.GetPoints()
for i in range(p.GetNumberOfPoints()):
    x, y, z = p.GetPoint(i); p.SetPoint(i, -x, y, z)
w = vtk.vtkXMLUnstructuredGridWriter(); w.SetFileName("inv.vtu"); w.SetInputData(g); w.Write()
PYEOF
for ext in msh mesh re2; do
  "$HEXPACK" convert k.vtu k.$ext > /dev/null || { echo "FAIL: convert k.vtu k.$ext"; fail=1; }
  "$HEXPACK" convert inv.vtu inv.$ext --force > /dev/null 2>&1 || { echo "FAIL: convert inv.vtu inv.$ext --force"; fail=1; }
done
for ext in vtu msh mesh re2; do
  # the good file optimizes and is written
  rm -f good.$ext
  "$HEXPACK" optimize k.$ext -o good.$ext --quiet --threads 1 --newton-iters 3 > /dev/null 2> err.txt && [ -s good.$ext ] \
    || { echo "FAIL: optimize k.$ext"; cat err.txt; fail=1; }
  # garbage, truncated, missing
  printf 'this is not a mesh file\n' > garbage.$ext
  expect_fail "garbage.$ext" optimize garbage.$ext -o out.vtu
  size=$(stat -c %s k.$ext)
  head -c $((size / 2)) k.$ext > half.$ext
  expect_fail "half.$ext" optimize half.$ext -o out.vtu
  expect_fail "missing.$ext" optimize missing.$ext -o out.vtu
  # the message says why (the same for every format)
  expect_fail "cannot read 'missing.$ext': No such file or directory" quality missing.$ext
  # inverted: every barrier metric refuses it before any work
  metrics="303"
  [ $ext = vtu ] && metrics="302 303 318 321 332 338"
  for metric in $metrics; do
    expect_fail "inv.$ext: the mesh has det J" optimize inv.$ext --metric $metric --no-untangle -o out.$ext
    grep -qF "metric $metric is a barrier metric" err.txt || { echo "FAIL: metric $metric not named: $(cat err.txt)"; fail=1; }
  done
  # the non-barrier size metric: no error from the optimizer, but no inverted output
  rm -f out.*
  "$HEXPACK" optimize inv.$ext --metric 315 --target ideal-equal --newton-iters 5 --no-untangle --quiet -o out.$ext > /dev/null 2> err.txt
  rc=$?
  if [ "$rc" -eq 0 ] || [ "$(wc -l < err.txt)" -ne 1 ] || ! grep -q "det J" err.txt || ls out.* > /dev/null 2>&1; then
    echo "FAIL: metric 315 on inv.$ext (rc $rc): $(cat err.txt)"; fail=1
  else
    echo "ok   exit $rc  hexpack optimize inv.$ext --metric 315 ... -> $(cat err.txt)"
  fi
done

# bad optimizer flag values, on optimize and on box --optimize
expect_fail "flag --metric expects an integer" optimize k.vtu --metric abc -o out.vtu
expect_fail "flag --metric must be in 1..999" optimize k.vtu --metric 0 -o out.vtu
expect_fail "unknown metric '301'" optimize k.vtu --metric 301 -o out.vtu
expect_fail "flag --quad-type expects gll or gauss" optimize k.vtu --quad-type newton -o out.vtu
expect_fail "flag --hessian expects onthefly or stored" optimize k.vtu --hessian full -o out.vtu
expect_fail "flag --quad-order" optimize k.vtu --quad-order 0 -o out.vtu
expect_fail "flag --newton-iters" optimize k.vtu --newton-iters -1 -o out.vtu
expect_fail "flag --newton-rtol" optimize k.vtu --newton-rtol 2 -o out.vtu
expect_fail "flag --linear-iters" optimize k.vtu --linear-iters 0 -o out.vtu
expect_fail "flag --precond expects auto, jacobi or two-level" optimize k.vtu --precond amg -o out.vtu
expect_fail "flag --precond-degree: expected an odd integer, got 4" optimize k.vtu --precond-degree 4 -o out.vtu
expect_fail "flag --precond-degree" optimize k.vtu --precond-degree 0 -o out.vtu
expect_fail "flag --threads" optimize k.vtu --threads 0 -o out.vtu
expect_fail "flag --metric needs a value" optimize k.vtu -o out.vtu --metric
expect_fail "optimize takes one input mesh" optimize k.vtu k.msh -o out.vtu
expect_fail "optimize needs an input mesh" optimize -o out.vtu
expect_fail "unknown mesh format '.xyz'" optimize k.vtu -o out.xyz
expect_fail "unknown target 'wobbly'" box --n 6,4,4 --kershaw 0.3,0.3 --optimize --target wobbly -o out.vtu
expect_fail "flag --boundary expects fixed or slide" box --n 6,4,4 --kershaw 0.3,0.3 --optimize --boundary wavy -o out.vtu
expect_fail "flag --linear-solver expects minres or cg" box --n 6,4,4 --optimize --linear-solver gmres -o out.vtu
exit $fail
