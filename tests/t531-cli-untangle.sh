#!/usr/bin/env bash
# t531: untangling on the command line. A box (6 x 4 x 4 on [0,1.5] x [0,1]^2, order 2) with
# two interior vertex nodes pushed 1.3 edge lengths along x, across the faces of their
# neighbours (inverted elements), and the same box mirrored (x -> -x: every element inverted,
# which no motion with the boundary in place unfolds):
#   convert without --untangle: one line saying how many elements are inverted and which flag
#   untangles them, non-zero exit, no output; convert --untangle writes it untangled;
#   optimize (automatic) and optimize --untangle, on 1 and 2 MPI ranks: the counts before and
#   after, the result proven valid (hexpack quality --validity); --no-untangle refuses it;
#   the mirrored box: non-zero exit, one line saying how many are still inverted, no output,
#   and with --force the best mesh written (the exit status still non-zero).
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
"$HEXPACK" box --n 6,4,4 --hi 1.5,1,1 --order 2 -o k.vtu > /dev/null || { echo "FAIL: box"; exit 1; }
/usr/bin/python3 - <<'PYEOF' || { echo "FAIL: python"; exit 1; }
import vtk
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName("k.vtu"); r.Update()
g = r.GetOutput(); p = g.GetPoints()
for i in range(p.GetNumberOfPoints()):
    x, y, z = p.GetPoint(i)
    if any(abs(x - a) < 1e-9 and abs(y - 0.5) < 1e-9 and abs(z - 0.5) < 1e-9 for a in (0.5, 1.0)):
        p.SetPoint(i, x + 1.3 * 0.25, y, z)
w = vtk.vtkXMLUnstructuredGridWriter(); w.SetFileName("inv.vtu"); w.SetInputData(g); w.Write()
r.Update(); g = r.GetOutput(); p = g.GetPoints()
for i in range(p.GetNumberOfPoints()):
    x, y, z = p.GetPoint(i); p.SetPoint(i, -x, y, z)
w = vtk.vtkXMLUnstructuredGridWriter(); w.SetFileName("mir.vtu"); w.SetInputData(g); w.Write()
PYEOF
# convert: the one line, no output
rm -f out.*
"$HEXPACK" convert inv.vtu out.vtu > /dev/null 2> err.txt; rc=$?
echo "convert inv.vtu: exit $rc: $(cat err.txt)"
check "convert: non-zero exit" "[ $rc -ne 0 ]"
check "convert: one line naming the count and --untangle" "[ \$(wc -l < err.txt) -eq 1 ] && grep -q 'inv.vtu: [0-9]* of 96 element(s) are inverted' err.txt && grep -q -- '--untangle untangles them' err.txt"
check "convert: no output" "! ls out.* > /dev/null 2>&1"
"$HEXPACK" convert inv.vtu out.vtu --untangle > log.txt 2>&1; rc=$?
cat log.txt
check "convert --untangle: exit 0, written, proven" "[ $rc -eq 0 ] && [ -s out.vtu ] && grep -q 'untangled mesh: proven' log.txt"
# optimize: automatic, --untangle, 1 and 2 ranks
for run in "" "--untangle" "mpi"; do
  rm -f out.vtu
  if [ "$run" = mpi ]; then
    mpirun --oversubscribe -np 2 "$HEXPACK" optimize inv.vtu -o out.vtu --quiet --newton-iters 10 > log.txt 2>&1; rc=$?
  else
    "$HEXPACK" optimize inv.vtu -o out.vtu --quiet --newton-iters 10 $run > log.txt 2>&1; rc=$?
  fi
  grep untangle: log.txt
  check "optimize ${run:-(automatic)}: exit 0, untangled, written" "[ $rc -eq 0 ] && grep -q 'untangle: [0-9]* -> 0 inverted' log.txt && [ -s out.vtu ]"
  "$HEXPACK" quality out.vtu --validity > q.txt 2>&1
  check "optimize ${run:-(automatic)}: quality proves it valid" "grep -q 'valid: proven' q.txt"
done
rm -f out.*
"$HEXPACK" optimize inv.vtu -o out.vtu --no-untangle > /dev/null 2> err.txt; rc=$?
check "optimize --no-untangle: refused, no output" "[ $rc -ne 0 ] && grep -q 'untangling is off' err.txt && ! ls out.* > /dev/null 2>&1"
# the mirrored box cannot be untangled
"$HEXPACK" optimize mir.vtu -o out.vtu --quiet --untangle-iters 40 > /dev/null 2> err.txt; rc=$?
echo "optimize mir.vtu: exit $rc: $(cat err.txt)"
check "mirrored: non-zero exit, one line with the count still inverted, no output" "[ $rc -ne 0 ] && [ \$(wc -l < err.txt) -eq 1 ] && grep -q 'mir.vtu: untangling left 96 of 96 inverted element(s) inverted' err.txt && ! ls out.* > /dev/null 2>&1"
"$HEXPACK" optimize mir.vtu -o out.vtu --quiet --untangle-iters 40 --force > log.txt 2> err.txt; rc=$?
check "mirrored --force: non-zero exit, the best mesh written" "[ $rc -ne 0 ] && [ -s out.vtu ] && grep -q 'untangling left' err.txt"
exit $fail
