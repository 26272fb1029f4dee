#!/usr/bin/env bash
# t680: hexpack pebble / pack on the command line. Bad input (issues 5 and 33): a malformed
# line (file:line in the message), NaN, a duplicate, an overlap beyond the
# tolerance, a sphere outside the container (cylinder, box, planes), fewer than two spheres,
# a bed too sparse (a cell unbounded, a plane inside one cell) or too dense (a contact's bridge
# without room in its facet) for the mesher's cells, bad flags (the contact model's too): the
# spheres named by file, index and position with what was expected,
# one line on stderr, non-zero exit, no output file (input errors are raised before
# any output is opened; output formats are checked before any work). Then good runs: pack writes a
# bed that pebble meshes (JSON summary, no inverted element), and pb67 meshes.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
SRC=${HX_SOURCE_DIR:-.}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
expect_fail() {
  local want=$1; shift
  rm -f out.* err.txt
  "$HEXPACK" "$@" > /dev/null 2> err.txt
  local rc=$?
  local lines; lines=$(wc -l < err.txt)
  if [ "$rc" -eq 0 ]; then echo "FAIL (exit 0): hexpack $*"; fail=1; return; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL ($lines lines on stderr): hexpack $*"; cat err.txt; fail=1; return; fi
  if ! grep -qF -- "$want" err.txt; then echo "FAIL (message): hexpack $*"; echo "  got:  $(cat err.txt)"; echo "  want: $want"; fail=1; return; fi
  if ls out.* > /dev/null 2>&1; then echo "FAIL (output left): hexpack $*"; fail=1; return; fi
  echo "ok   exit $rc  hexpack $*  ->  $(cat err.txt)"
}
printf '# two spheres\n0 0 0 1\n0 0 2.5 1\n1 2\n' > short.txt
printf '0 0 0 1\n0 0 2.5 nan\n' > nan.txt
printf '0 0 0 1\n3 0 0 1\n0 0 0 1\n' > dup.txt
printf '0 0 0 1\n1.7 0 0 1\n' > overlap.txt
printf '0 0 0 1\n2.5 0 0 1\n' > outside.txt
printf '# only one\n0 0 0 1\n' > one.txt
printf '0 0 0 1\n2.5 0 0 1\n0 0 x 1\n' > word.txt
printf '0 0 0\n2.5 0 0\n' > norad.txt
printf '0 0 0 1\n3 0 0 1\n6 0\0 0 1\n' > nul.txt
printf '0 0 0 1\n2.5 0 0 1\n0 2.5 0 1\n1 1 2.2 1\n' > far.txt
printf -- '-1.1 0.3 1 1\n1.0 -0.4 1 1\n0.1 0.1 2.75 1\n' > few.txt
expect_fail "short.txt:4: a sphere line needs 'x y z' or 'x y z r', found 2 value(s)" pebble --fast short.txt
expect_fail "nan.txt:2: value 4 is not a finite number" pebble --fast nan.txt
expect_fail "dup.txt: spheres 1 (0, 0, 0; line 1) and 3 (0, 0, 0; line 3) have the same centre: expected distinct spheres" pebble --fast dup.txt
expect_fail "overlap.txt: spheres 1 (0, 0, 0; line 1) and 2 (1.7, 0, 0; line 2) overlap by 15% of the diameter: expected at most 10% (--overlap-tol" pebble --fast overlap.txt -o out.re2
expect_fail "overlap.txt: spheres 1 (0, 0, 0; line 1) and 2 (1.7, 0, 0; line 2) overlap by 15% of the diameter: expected at most 10% (--overlap-tol" pebble --fast overlap.txt --contact gap -o out.re2
expect_fail "outside.txt: sphere 2 (2.5, 0, 0; line 2) radius 1 crosses the container cylinder: it reaches radius 3.5, expected at most 3" pebble --fast outside.txt --container cyl:3 -o out.re2
expect_fail "outside.txt: sphere 1 (0, 0, 0; line 1) radius 1 crosses the container box: it spans y in [-1, 1], expected within [-0.5, 1]" pebble --fast outside.txt --container box:-1,3,-0.5,1 -o out.re2
expect_fail "outside.txt: sphere 1 (0, 0, 0; line 1) radius 1 crosses the bottom/top plane: it spans z in [-1, 1], expected within [-0.5, 1.2]" pebble --fast outside.txt --bottom -0.5 -o out.re2
# too dense: a pair overlapping by 9 % of d crowded by four spheres about its contact, each
# overlapping it by 9.7 %: the bridge (0.23 d, above the overlap circle) has no room in its facet
printf -- '-0.455 0 0 0.5\n0.455 0 0 0.5\n0 0.78 0 0.5\n0 -0.78 0 0.5\n0 0 0.78 0.5\n0 0 -0.78 0.5\n' > dense.txt
expect_fail "dense.txt: sphere 1 (-0.455, 0, 0) and sphere 2 (0.455, 0, 0) (gap -0.09 d): their bridge (radius 0.228) does not fit their facet (room 0.257): expected room of 1.2 x the bridge radius (too dense a bed" pebble --fast dense.txt --container box -o out.re2
expect_fail "one.txt: a bed needs at least two spheres, found 1" pebble --fast one.txt
expect_fail "word.txt:3: expected a number, found 'x'" pebble --fast word.txt
expect_fail "norad.txt:1: the line has no radius and no --radius was given" pebble --fast norad.txt
expect_fail "nul.txt:3: a NUL byte in the line" pebble --fast nul.txt -o out.re2
expect_fail "far.txt: sphere 1 (0, 0, 0): its power cell is unbounded: no container wall within 3 diameters beyond the bed there" pebble --fast far.txt --container box:-10,10,-10,10 -o out.re2
# no facet on the bottom plane (once an empty mesh was written); thin columns topped by one sphere
# whose cell covers the whole top plane give the same message
expect_fail "few.txt: sphere 2 (1, -0.4, 1): no facet meets the bottom plane z = -0.2 inside the container: the sphere's power cell covers it whole" pebble --fast few.txt --container cyl:2.5 -o out.re2
expect_fail "cannot open centres file 'missing.txt'" pebble --fast missing.txt
expect_fail "pebble: no centres file given" pebble --fast -o out.vtu
expect_fail "flag --container: expected cyl:R[,CX,CY] or box:X0,X1,Y0,Y1" pebble --fast outside.txt --container sphere:3
expect_fail "flag --layers" pebble --fast outside.txt --layers 0
expect_fail "flag --contact: expected 'bridge' or 'gap', got 'chamfer'" pebble --fast outside.txt --contact chamfer
expect_fail "flag --bridge-gap: a bridge model's parameter, but --contact gap makes no bridge" pebble --fast outside.txt --contact gap --bridge-gap 0.1
expect_fail "flag --contact-gap: a gap model's parameter; add --contact gap" pebble --fast outside.txt --contact-gap 0.02
expect_fail "flag --contact-gap" pebble --fast outside.txt --contact gap --contact-gap 0.5
expect_fail "flag --grade-expand" pebble --fast outside.txt --grade-expand -0.5
expect_fail "unknown flag '--bogus' for 'hexpack pebble'" pebble --fast outside.txt --bogus
expect_fail "unknown mesh format '.xyz'" pebble --fast outside.txt -o out.xyz
expect_fail "pack: flag --n N (>= 2) is required" pack -o out.txt
expect_fail "the container radius 0.5 must exceed the largest sphere radius 1" pack --n 4 --container cyl:0.5 -o out.txt
# good runs
"$HEXPACK" pack --n 12 --container cyl:3 -o bed.txt > pack.log || { echo "FAIL: pack"; fail=1; }
grep -c '^[-0-9]' bed.txt | grep -qx 12 || { echo "FAIL: pack wrote $(grep -c '^[-0-9]' bed.txt) spheres"; fail=1; }
out=$("$HEXPACK" pebble --fast bed.txt --container box --order 3 --json) || { echo "FAIL: pebble on the packed bed"; fail=1; }
echo "$out"
echo "$out" | grep -q '"bad_elements": 0' || { echo "FAIL: inverted elements"; fail=1; }
echo "$out" | grep -q '"spheres": 12' || { echo "FAIL: sphere count"; fail=1; }
# the gap model on the same bed: no bridge, the spheres shrunk, the mesh's volume that of the
# model (container less the shrunk spheres) to the order-3 geometry's accuracy
out=$("$HEXPACK" pebble --fast bed.txt --container box --order 3 --contact gap --json) || { echo "FAIL: pebble --contact gap"; fail=1; }
echo "$out"
echo "$out" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
ok = (j["contact"] == "gap" and j["bridges"] == 0 and j["wall_bridges"] == 0 and j["bad_elements"] == 0
      and j["shrunk_spheres"] > 0 and j["volume_shrink"] > 0 and j["volume_bridges"] == 0
      and abs(j["volume_fluid_model"] - (j["volume_fluid_ideal"] + j["volume_shrink"])) < 1e-9 * j["volume_container"]
      and abs(j["volume_mesh_rel"]) < 3e-3)
sys.exit(0 if ok else 1)' || { echo "FAIL: --contact gap summary"; fail=1; }
# a tall narrow column (1500 spheres, ~1 per layer): the rest height used to give up after
# 64 lifts and left spheres inside each other (99.9 % of d); no pair may overlap
"$HEXPACK" pack --n 1500 --container cyl:2.2 --seed 1 -o tall.txt > pack.log || { echo "FAIL: pack tall"; fail=1; }
ov=$(sort -g -k3 tall.txt | awk '!/^#/ {n++; x[n] = $1; y[n] = $2; z[n] = $3; r[n] = $4}
  END {for (i = 1; i <= n; i++) for (j = i + 1; j <= n && z[j] - z[i] < 3; j++) {
         d = sqrt((x[i] - x[j]) ^ 2 + (y[i] - y[j]) ^ 2 + (z[i] - z[j]) ^ 2); o = 1 - d / (r[i] + r[j]); if (o > mx) mx = o}
       printf "%d %.3g\n", n, mx + 0}')
echo "tall column: spheres, largest overlap (fraction of d): $ov"
echo "$ov" | awk '{exit !($1 == 1500 && $2 < 1e-9)}' || { echo "FAIL: overlapping spheres in the tall column"; fail=1; }
out=$("$HEXPACK" pebble --fast "$SRC/inputs/pb67.txt" --radius 1.5 --container cyl:6.6 --order 2 --json) || { echo "FAIL: pebble pb67"; fail=1; }
echo "$out"
echo "$out" | grep -q '"bad_elements": 0' || { echo "FAIL: pb67 inverted elements"; fail=1; }
# no container given, a bed far from the z axis (a packed bed shifted by (100, -40)): the
# default cylinder is about the bed's x-y centre (was about the origin: "is unbounded")
"$HEXPACK" pack --n 60 --container cyl:3 --seed 7 -o c60.txt > /dev/null
awk '/^#/ {print; next} {printf "%.17g %.17g %.17g %.17g\n", $1 + 100, $2 - 40, $3, $4}' c60.txt > c60s.txt
out=$("$HEXPACK" pebble --fast c60s.txt --order 1 --json -o c60s.re2) || { echo "FAIL: a shifted bed in the default cylinder"; fail=1; }
echo "$out" | grep -q '"bad_elements": 0' && [ -s c60s.re2 ] || { echo "FAIL: shifted bed: inverted elements or no file"; fail=1; }
exit $fail
