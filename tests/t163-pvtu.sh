#!/usr/bin/env bash
# t163: .pvtu (VTK's parallel unstructured grid): every rank writes its elements as one .vtu
# piece, rank 0 the index. On 1, 2 and 4 ranks, for a Kershaw box at order 3 and a packed
# pebble bed streamed at order 3 (--stream: the sweep map a block at a time), VTK's own
# parallel reader (python3-vtk9) must read the index and give the same cells as the serial
# .vtu (count, and the sorted cell data min_detj / scaled_jacobian / region) and the same
# point set (the pieces repeat the nodes on their partition boundary: every point of one
# within 1e-12 of one of the other). Our reader joins the pieces back into the serial mesh;
# broken indexes are refused with one line. A failure
# on any rank leaves no index and no piece.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
cd "$dir"
run() { # np args...
  local np=$1
  shift
  if [ "$np" -eq 1 ]; then "$HEXPACK" "$@"; else "$MPIEXEC" -n "$np" --oversubscribe "$HEXPACK" "$@"; fi
}
cat > same.py <<'EOF'
import sys
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy as v2n
def read(path, parallel):
    r = vtk.vtkXMLPUnstructuredGridReader() if parallel else vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()
a, b = read(sys.argv[1], False), read(sys.argv[2], True)
bad = []
if a.GetNumberOfCells() != b.GetNumberOfCells() or a.GetNumberOfCells() == 0:
    bad.append(f"cells {a.GetNumberOfCells()} != {b.GetNumberOfCells()}")
for name in ("min_detj", "scaled_jacobian", "region"):
    x, y = (np.sort(v2n(g.GetCellData().GetArray(name))) for g in (a, b))
    if x.shape != y.shape or not np.array_equal(x, y):
        bad.append(f"cell data {name} differs")
types = set(v2n(b.GetCellTypesArray()).tolist()) if hasattr(b, "GetCellTypesArray") else {72}
if types != {72}:
    bad.append(f"cell types {types}")
# the same point set: every point of either within 1e-12 of the bounding box of one of the
# other (copies of a node computed by different elements may differ in the last bits)
pa, pb = (v2n(g.GetPoints().GetData()) for g in (a, b))
tol = 1e-12 * float(np.linalg.norm(pa.max(axis=0) - pa.min(axis=0)))
def far(p, g):
    loc = vtk.vtkStaticPointLocator()
    loc.SetDataSet(g)
    loc.BuildLocator()
    n = 0
    for q in p:
        k = loc.FindClosestPoint(q)
        n += float(np.linalg.norm(np.array(g.GetPoint(k)) - q)) > tol
    return n
fa, fb = far(pb, a), far(pa, b)
if fa or fb:
    bad.append(f"points: {fa} of the pieces' points are not in the .vtu, {fb} of the .vtu's are not in the pieces")
print(f"{b.GetNumberOfCells()} cells, {b.GetNumberOfPoints()} points in the pieces, {a.GetNumberOfPoints()} in the .vtu")
for m in bad:
    print("  " + m)
sys.exit(1 if bad else 0)
EOF
"$HEXPACK" pack --n 40 --container cyl:2.6 --trials 10 --seed 5 -o s40.txt > /dev/null
"$HEXPACK" box --n 6,4,4 --kershaw 0.3,0.3 --order 3 -o k.vtu > /dev/null
"$HEXPACK" pebble --fast s40.txt --container cyl:2.6 --inlet 2 --outlet 2 --order 3 -o p.vtu > /dev/null
for np in 1 2 4; do
  mkdir -p np$np
  run $np box --n 6,4,4 --kershaw 0.3,0.3 --order 3 -o np$np/k.pvtu > np$np/k.log 2>&1
  check "box np $np: exit 0, index and $np piece(s)" "[ $? -eq 0 ] && [ -s np$np/k.pvtu ] && [ \$(ls np$np/k_*.vtu | wc -l) -eq $np ]"
  check "box np $np: VTK's parallel reader = the serial .vtu" "$PY same.py k.vtu np$np/k.pvtu"
  run $np pebble --fast s40.txt --container cyl:2.6 --inlet 2 --outlet 2 --order 3 --stream -o np$np/p.pvtu > np$np/p.log 2>&1
  check "pebble --stream np $np: exit 0" "[ $? -eq 0 ] && [ -s np$np/p.pvtu ]"
  check "pebble --stream np $np: VTK's parallel reader = the serial .vtu" "$PY same.py p.vtu np$np/p.pvtu"
done
# our reader: the pieces joined (partition-boundary nodes merged) = the serial .vtu's mesh
T="$HX_BUILD_DIR/tests/hx_iotool"
for np in 1 2 4; do
  check "our .pvtu reader, np $np: the serial mesh (coordinates 1e-12, node partition, faces)" "\"\$T\" cmp p.vtu np$np/p.pvtu 1e-12 > cmp$np.txt 2>&1"
done
check "our .pvtu reader, box np 4" "\"\$T\" cmp k.vtu np4/k.pvtu 1e-12 > /dev/null 2>&1"
"$HEXPACK" convert np4/p.pvtu back.re2 > /dev/null 2>&1
# (past the 80-byte header, whose link holds the field files' checksums: their coordinates agree
# to 1e-12, not bitwise)
check "convert .pvtu -> .re2 = the serial .vtu -> .re2" "\"\$HEXPACK\" convert p.vtu ref.re2 > /dev/null 2>&1 && cmp -s -i 80 ref.re2 back.re2"
# bad indexes: one clear line naming the file, non-zero exit
printf '<?xml version="1.0"?>\n<VTKFile type="PUnstructuredGrid"><PUnstructuredGrid></PUnstructuredGrid></VTKFile>\n' > none.pvtu
sed 's/p_3.vtu/p_9.vtu/' np4/p.pvtu > np4/missing.pvtu
"$HEXPACK" box --n 2 --order 2 -o np4/o2_0.vtu > /dev/null 2>&1
sed 's/p_3.vtu/o2_0.vtu/' np4/p.pvtu > np4/mixed.pvtu
for bad in none.pvtu np4/missing.pvtu np4/mixed.pvtu; do
  "$HEXPACK" quality $bad > bad.out 2> bad.err
  rc=$?
  cat bad.err
  check "bad index $bad: exit non-zero, one line naming the file" "[ $rc -ne 0 ] && [ \$(wc -l < bad.err) -eq 1 ] && grep -q \"\$(basename $bad .pvtu)\\|p_9\" bad.err"
done
check "the index names its pieces by relative name" "grep -q 'Source=\"p_3.vtu\"' np4/p.pvtu"
# failure: an unwritable piece directory (every rank fails)
run 2 box --n 4 -o nodir/k.pvtu > bad1.log 2>&1
check "unwritable: exit non-zero, one error line" "[ $? -ne 0 ] && [ \$(grep -c error bad1.log) -eq 1 ]"
check "unwritable: nothing written" "[ -z \"\$(ls nodir 2> /dev/null)\" ]"
"$HEXPACK" box --n 4 --order 1 -o c1.vtu > /dev/null 2>&1
"$HEXPACK" convert c1.vtu c3.vtu --order 3 > /dev/null 2>&1
run 2 convert c1.vtu c3.pvtu --order 3 > conv.log 2>&1
check "convert under mpiexec to .pvtu at order 3 = the serial .vtu" "[ -s c3_1.vtu ] && $PY same.py c3.vtu c3.pvtu"
exit $fail
