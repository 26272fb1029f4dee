#!/bin/bash
# t660: hexpack rods on the command line. Bad input (unknown preset, overlapping rods,
# a rod crossing the duct, boundary layers that do not fit a gap, counts that must be
# multiples of 4 or 6, a short rod map) gives one clear line, a non-zero exit and no
# output file; a good run writes .re2 and .vtu that our reader and VTK open, with
# the summary's numbers (JSON) checked.
set -u
H=${HEXPACK:?}
PY=/usr/bin/python3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail=0
bad() { # expected-message args...
  local want="$1"; shift
  local out rc
  out=$("$H" rods "$@" -o "$d/bad.re2" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then echo "FAIL (exit 0): $*"; fail=1; fi
  if ! grep -qF -- "$want" <<<"$out"; then echo "FAIL (message): $* -> $out"; fail=1; fi
  if ls "$d" | grep -q .; then echo "FAIL (output left): $*: $(ls "$d")"; fail=1; rm -f "$d"/*; fi
  echo "ok: $want"
}
bad "unknown preset 'pwr15x15'; known: pwr17x17, hex7" --preset pwr15x15
bad "rods overlap: the rod at site (row 0, col 0) (radius 0.5) and the rod at site (row 0, col 1)" --rods 3 --pitch 0.9 --rod-radius 0.5
bad "rod crosses the duct: the rod at site (row 0, col 0)" --rods 3 --pitch 1.2 --rod-radius 0.5 --duct-size 3.2
bad "boundary layers do not fit in the gap between the rod at site (row 1, col 5) and the rod at site (row 2, col 5)" --preset pwr17x17 --bl-layers 3 --bl-first 0.02
bad "short by 0.0264974" --preset pwr17x17 --bl-layers 3 --bl-first 0.02
bad "flag --sectors 27: a square lattice needs a multiple of 4" --preset pwr17x17 --sectors 27
bad "flag --sectors 28: a hex lattice needs a multiple of 6" --preset hex37 --sectors 28
bad "flag --map: 8 entries for a lattice of 9 sites" --rods 3 --map "111/1-1/11"
bad "flag --lattice: unknown lattice 'tri'; known: square, hex" --lattice tri
bad "is too thin for the rod at site (row 0, col 0)" --preset pwr17x17 --bl-first 0.001
bad "unknown flag '--pins'" --pins 3

# a good run: 3x3 with an empty centre, 2 zones, periodic, order 3; .re2 and .vtu written
"$H" rods --rods 3 --pitch 1.2 --rod-radius 0.4 --map "111/1-1/111" --z 0,1,3 --nz 1,2 --grading 1,2 \
   --periodic --order 3 --json -o "$d/r.re2" -o "$d/r.vtu" > "$d/sum.json" || { echo "FAIL: good run"; fail=1; }
$PY - "$d" <<'PY' || fail=1
import json, sys, os
d = sys.argv[1]
# the .re2 writer prints its own note on stdout; the summary is the JSON line
s = json.loads([l for l in open(os.path.join(d, "sum.json")) if l.startswith("{")][0])
ok = (s["elements_per_layer"] > 0 and s["layers"] == 3 and s["elements"] == 3 * s["elements_per_layer"]
      and s["rods"] == 8 and s["sites"] == 9 and s["min_detj"] > 0 and s["scaled_jacobian_min"] >= 0.5)
import vtk
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName(os.path.join(d, "r.vtu")); r.Update()
n = r.GetOutput().GetNumberOfCells()
print("json ok", ok, "vtk cells match", n == s["elements"], "re2 exists", os.path.getsize(os.path.join(d, "r.re2")) > 0)
sys.exit(0 if ok and n == s["elements"] else 1)
PY
exit $fail
