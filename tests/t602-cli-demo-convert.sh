#!/usr/bin/env bash
# t602: hexpack demo (the 67-pebble bed, order-3 cells, none inverted) writes its
# .vtu and a histogram PNG and prints the quality table, which meets the quality goals (every
# element's Nek5000 scaled Jacobian >= 0.3, aspect ratio <= 20) by default and not with --fast
# (the quick path: fewer elements, the mesher's own flags); hexpack convert rewrites the
# Kershaw box 24^3 (hexpack box, order 4) at order 2 (curving by interpolation: the
# Kershaw map with s = 1 is trilinear per element, so the order-2 file has the same min
# det J 6.5104e-06) and to two outputs at once; hexpack quality --plot draws an SVG.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
PY=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
out=$("$HEXPACK" demo -o d.vtu --plot d.png); rc=$?
check "demo exit 0" "[ $rc -eq 0 ]"
check "demo wrote d.vtu" "[ -s d.vtu ]"
check "demo prints no inverted element" "echo \"\$out\" | grep -q 'elements with det J <= 0: 0'"
check "demo meshes the 67-pebble bed" "echo \"\$out\" | grep -q 'demo: 67-pebble bed'"
check "demo png" "[ \"\$(head -c 4 d.png | tail -c 3)\" = PNG ]"
cells=$($PY -c 'import vtk; r=vtk.vtkXMLUnstructuredGridReader(); r.SetFileName("d.vtu"); r.Update(); g=r.GetOutput(); print(g.GetNumberOfCells(), g.GetCellType(0))' 2>/dev/null)
ndemo=$(echo "$out" | sed -n 's/^demo: 67-pebble bed.*), \([0-9]*\) elements.*/\1/p')
check "VTK reads demo: the $ndemo cells it printed, type 72 ($cells)" "[ -n \"$ndemo\" ] && [ \"$ndemo\" -gt 20000 ] && [ \"$cells\" = \"$ndemo 72\" ]"
# the quality table's rows: measure, min, mean, max
row() { echo "$1" | awk -v m="$2" 'index($0, m) == 3 {print $(NF - 2), $NF}'; }
read -r sjmin _ <<< "$(row "$out" 'scaled Jacobian (Nek)')"
read -r _ asmax <<< "$(row "$out" 'aspect ratio')"
echo "demo: $ndemo elements, Nek scaled Jacobian min $sjmin, aspect ratio max $asmax"
check "demo meets the quality goals: optimized, scaled Jacobian >= 0.3, aspect <= 20" \
  "echo \"\$out\" | grep -q '^demo: .*, optimized$' && awk 'BEGIN {exit !($sjmin >= 0.3 && $asmax <= 20)}'"
fast=$("$HEXPACK" demo --fast -o f.vtu); rc=$?
nfast=$(echo "$fast" | sed -n 's/^demo: 67-pebble bed.*), \([0-9]*\) elements.*/\1/p')
read -r fsjmin _ <<< "$(row "$fast" 'scaled Jacobian (Nek)')"
echo "demo --fast: $nfast elements, Nek scaled Jacobian min $fsjmin"
check "demo --fast: exit 0, fewer elements, not optimized, below the goals" \
  "[ $rc -eq 0 ] && [ -s f.vtu ] && [ \"$nfast\" -lt \"$ndemo\" ] && ! echo \"\$fast\" | grep -q optimized && awk 'BEGIN {exit !($fsjmin < 0.3)}'"
"$HEXPACK" box --n 24 --kershaw 0.3,0.3 --order 4 -o d.vtu > /dev/null
out=$("$HEXPACK" convert d.vtu e2.vtu --order 2); rc=$?
check "convert --order 2 exit 0" "[ $rc -eq 0 ] && [ -s e2.vtu ]"
q=$("$HEXPACK" quality e2.vtu --json | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["order"], "%.4e" % d["summary"]["detj_min"]["min"])')
check "order-2 copy: order 2, min det J 6.5104e-06 ($q)" "[ \"$q\" = '2 6.5104e-06' ]"
"$HEXPACK" convert d.vtu f1.vtu -o f2.vtu > /dev/null
check "convert to two outputs" "[ -s f1.vtu ] && [ -s f2.vtu ]"
"$HEXPACK" quality f1.vtu --plot h.svg --quad-type gauss --quad-order 6 > qg.txt
check "quality --plot svg" "grep -q '<svg' h.svg"
check "gauss quadrature 4 points (MFEM -qo 6)" "grep -q 'quadrature 4 Gauss points' qg.txt"
exit $fail
