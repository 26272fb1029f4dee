#!/usr/bin/env bash
# t607: geometry the tool cannot mesh or solve is refused with one line that says what is wrong
# and where, a non-zero exit and no output: a sphere outside the bed (named as the user counts it,
# 1 = the file's first sphere, with its centre and line), box corners whose det J would overflow
# (refused at the flag), and a mesh file with such coordinates (optimize refuses it before the
# solve, quality instead of printing inf).
. "${HX_SOURCE_DIR:-.}/tests/lib.sh"
HEXPACK=$(realpath "$HEXPACK")
cd "$dir"
expect_fail() {
  local code=$1 want=$2
  shift 2
  "$HEXPACK" "$@" > out.txt 2> err.txt
  local rc=$? left
  left=$(ls -A | grep -v -x -e out.txt -e err.txt -e bed.txt -e huge.mesh -e b.mesh)
  if [ $rc -eq "$code" ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -qF -- "$want" err.txt && [ -z "$left" ]; then
    echo "ok   exit $rc  hexpack $*  ->  $(cat err.txt)"
  else
    echo "FAIL hexpack $* (exit $rc, want $code): $(cat err.txt); left: $left"
    fail=1
  fi
}
"$HEXPACK" pack --n 10 -o bed.txt > /dev/null
echo "8 0 20 1" >> bed.txt # sphere 11, on line 13 (two comment lines first)
expect_fail 2 "bed.txt: sphere 11 (8, 0, 20; line 13) lies outside the bed: the nearest other sphere, " \
  pebble --fast bed.txt --order 1 -o out.re2
# the same sphere in the container the bed was packed in
expect_fail 2 "bed.txt: sphere 11 (8, 0, 20; line 13) radius 1 crosses the container cylinder" \
  pebble --fast bed.txt --container cyl:4 --order 1 -o out.re2
expect_fail 2 "flag --hi: coordinate 1e+200 is too large for double-precision geometry" box --hi 1e200,1,1 -o b.vtu
expect_fail 2 "flag --lo: coordinate -1e+31 is too large" box --lo -1e31,0,0 -o b.vtu
expect_fail 2 "flags --lo/--hi: the box extent in x, 9.99997e+08, is too small for double-precision geometry" \
  box --lo 1e20,0,0 --hi 1.00000000001e20,1,1 -o b.vtu
# a mesh file whose coordinates reach 1e200 (an order-1 box, scaled)
"$HEXPACK" box --n 2 -o b.mesh > /dev/null
awk 'f && NF == 3 { printf "%.17g %.17g %.17g\n", $1 * 1e200, $2 * 1e200, $3 * 1e200; next }
     /^Ordering:/ { f = 1 } { print }' b.mesh > huge.mesh
expect_fail 2 "optimize: the mesh has coordinates up to 5e+199: beyond 1e+30 its det J and energy overflow" \
  optimize huge.mesh --backend cpu -o o.vtu
expect_fail 9 "quality: detj_min is not finite (min inf, max inf)" quality huge.mesh
exit $fail
