#!/usr/bin/env bash
# t610: hexpack quality --plot / --plot-slice / --slice draw what the mesh holds:
# - the box 4^3 (order 2) cut by z = 0.3: the SVG has exactly 16 element fills (one per element
#   the plane crosses: n^2), the PNG (read by VTK's PNG reader) is 800 pixels wide and its fills
#   are the colour of scaled Jacobian 1 over at least a fifth of the picture; the same under
#   mpirun -np 2 (the slice gathered on rank 0);
# - --plot draws the slice above the histograms: a PNG 920 pixels wide, taller than the 640 of
#   the histograms alone;
# - the curved Kershaw box 6^3 (order 3) cut by y = 0.45: 36 or more fills in 4 or more colours
#   (its scaled Jacobians differ; the box's are all 1, one colour);
# - a plane beside the mesh: a picture with no fills;
# - bad input (a bad --slice, --slice without a picture, a picture that is not .png/.svg) is
#   refused in one line naming the flag and the value, and nothing is written.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
cd "$dir"
fills() { grep -o 'fill-rule:evenodd' "$1" | wc -l; }
colours() { grep -o 'fill-rule:evenodd;fill:rgb([^)]*)' "$1" | sort -u | wc -l; }

"$HEXPACK" box --n 4 --order 2 -o b.vtu > /dev/null
out=$("$HEXPACK" quality b.vtu --plot-slice s.svg --slice z=0.3)
rc=$?
check "quality --plot-slice s.svg exits 0 and says so" '[ $rc -eq 0 ] && echo "$out" | grep -q "wrote s.svg"'
check "s.svg is an SVG document" 'head -c 200 s.svg | grep -q "<svg"'
check "s.svg: 16 element fills ($(fills s.svg)), all of one colour" '[ "$(fills s.svg)" = 16 ] && [ "$(colours s.svg)" = 1 ]'
"$HEXPACK" quality b.vtu --plot-slice s.png --slice z=0.3 > /dev/null
read_png() {
  $PY - "$1" << 'EOF'
import sys, vtk
from vtk.util.numpy_support import vtk_to_numpy
import numpy as np
r = vtk.vtkPNGReader(); r.SetFileName(sys.argv[1]); r.Update()
img = r.GetOutput(); w, h, _ = img.GetDimensions()
px = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(-1, img.GetNumberOfScalarComponents())[:, :3].astype(int)
sj1 = (np.abs(px - [253, 231, 37]) <= 3).all(axis=1).mean()   # the colour scale at 1
white = (px == 255).all(axis=1).mean()
print(w, h, "%.3f %.3f" % (sj1, white))
EOF
}
png=$(read_png s.png)
echo "s.png: width, height, fraction in the colour of 1, white fraction: $png"
check "s.png is a PNG" '[ "$(head -c 4 s.png | tail -c 3)" = PNG ]'
check "s.png: 800 pixels wide" '[ "$(echo $png | cut -d" " -f1)" = 800 ]'
check "s.png: a fifth or more of the pixels in the colour of scaled Jacobian 1" \
  '$PY -c "import sys; sys.exit(0 if float(\"$(echo $png | cut -d" " -f3)\") > 0.2 else 1)"'

"$MPIEXEC" -n 2 "$HEXPACK" quality b.vtu --plot-slice m.svg --slice z=0.3 > /dev/null
check "mpirun -np 2: 16 element fills ($(fills m.svg))" '[ "$(fills m.svg)" = 16 ]'

"$HEXPACK" quality b.vtu --plot q.png > /dev/null
qpng=$(read_png q.png)
check "--plot q.png: 920 wide, taller than the histograms alone ($qpng)" \
  '[ "$(echo $qpng | cut -d" " -f1)" = 920 ] && [ "$(echo $qpng | cut -d" " -f2)" -gt 640 ]'

"$HEXPACK" box --n 6 --kershaw 0.3,0.3 --order 3 -o k.vtu > /dev/null
"$HEXPACK" quality k.vtu --plot-slice k.svg --slice y=0.45 > /dev/null
check "Kershaw y=0.45: 36 or more fills ($(fills k.svg)) in 4 or more colours ($(colours k.svg))" \
  '[ "$(fills k.svg)" -ge 36 ] && [ "$(colours k.svg)" -ge 4 ]'

"$HEXPACK" quality b.vtu --plot-slice far.svg --slice x=7 > /dev/null
check "a plane beside the mesh: no fills" '[ -f far.svg ] && [ "$(fills far.svg)" = 0 ]'

bad() { # NAME EXPECTED-TEXT ARGS...
  local name=$1 want=$2
  shift 2
  rm -f bad.png bad.svg
  local msg
  msg=$("$HEXPACK" quality b.vtu "$@" 2>&1 > /dev/null)
  local rc=$?
  check "refused: $name ($msg)" '[ $rc -ne 0 ] && [ "$(echo "$msg" | wc -l)" = 1 ] && echo "$msg" | grep -q -- "$want" && [ ! -e bad.png ] && [ ! -e bad.svg ]'
}
bad "--slice w=1" "--slice.*w=1" --plot-slice bad.png --slice w=1
bad "--slice z=abc" "--slice.*z=abc" --plot-slice bad.png --slice z=abc
bad "--slice without a picture" "--slice" --slice z=0.3
bad "--plot-slice bad.jpg" "--plot-slice.*bad.jpg" --plot-slice bad.jpg
bad "--plot bad.pdf" "--plot.*bad.pdf" --plot bad.pdf
exit $fail
