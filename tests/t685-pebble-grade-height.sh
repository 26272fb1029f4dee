#!/usr/bin/env bash
# t685: --grade-height H (radial layers graded by the column's height: a column shorter than
# H d gets the growth ratio 1 + (ratio - 1) h / (H d), even layers at a contact; taller ones
# --ratio) on the 67-pebble DEM bed (R = 1.5, cylinder 6.6). The layer thicknesses of every
# column line are measured in the order-1 .vtu by tests/pebble_layers.py (VTK's reader) and
# checked against the rule, the defaults against --ratio 1.5 everywhere; then the order-4 mesh
# (no inverted element, the same elements, fewer with aspect ratio above 20: at order 7
# 9 135 -> 7 963), the same files on 1 and 2 ranks, and the bad values.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
pb=(pebble --fast "$SRC/inputs/pb67.txt" --radius 1.5 --container cyl:6.6)
"$HEXPACK" "${pb[@]}" --order 1 -o "$dir/g0.vtu" > /dev/null 2>&1
check "defaults, order 1: exit 0" "[ $? -eq 0 ]"
"$HEXPACK" "${pb[@]}" --order 1 --grade-height 0.1 -o "$dir/g1.vtu" > /dev/null 2>&1
check "--grade-height 0.1, order 1: exit 0" "[ $? -eq 0 ]"
if $PY -c "import vtk, numpy" 2> /dev/null; then
  read -r n0 s0 d0 <<< "$($PY "$SRC/tests/pebble_layers.py" "$dir/g0.vtu" "$SRC/inputs/pb67.txt" 1.5 0 1.5)"
  read -r n1 s1 d1 <<< "$($PY "$SRC/tests/pebble_layers.py" "$dir/g1.vtu" "$SRC/inputs/pb67.txt" 1.5 0.1 1.5)"
  read -r n2 s2 d2 <<< "$($PY "$SRC/tests/pebble_layers.py" "$dir/g1.vtu" "$SRC/inputs/pb67.txt" 1.5 0 1.5)"
  echo "column lines: defaults $n0 (ratio off by $d0), --grade-height 0.1 $n1 ($s1 shorter than 0.1 d, off by $d1; against 1.5 everywhere $d2)"
  check "defaults: every column line (> 10000) graded by 1.5 to 1e-9" \
    "[ ${n0:-0} -gt 10000 ] && awk -v d='$d0' 'BEGIN {exit !(d < 1e-9)}'"
  check "--grade-height 0.1: the same column lines, more than 1000 of them shorter than 0.1 d, each graded by the rule to 1e-9" \
    "[ ${n1:-0} -eq ${n0:-1} ] && [ ${s1:-0} -gt 1000 ] && awk -v d='$d1' 'BEGIN {exit !(d < 1e-9)}'"
  check "--grade-height 0.1: not graded by 1.5 everywhere (the check can fail)" "awk -v d='$d2' 'BEGIN {exit !(d > 0.1)}'"
else
  echo "skip: no VTK Python module for /usr/bin/python3"
fi
# order 4: no inverted element, the same elements, fewer with aspect above 20
stats() { awk '$1 ~ /^[0-9]+$/ && NF >= 6 {n++; if ($5 > 20) c++; if ($5 > mx) mx = $5} END {printf "%d %d %.6g\n", n, c, mx}' "$1"; }
"$HEXPACK" "${pb[@]}" --order 4 --quality --worst 1000000 > "$dir/q0.txt" 2>&1
check "defaults, order 4: exit 0" "[ $? -eq 0 ]"
"$HEXPACK" "${pb[@]}" --order 4 --quality --worst 1000000 --grade-height 0.1 > "$dir/q1.txt" 2>&1
check "--grade-height 0.1, order 4: exit 0 (no element with det J <= 0)" "[ $? -eq 0 ]"
read -r e0 a0 m0 <<< "$(stats "$dir/q0.txt")"
read -r e1 a1 m1 <<< "$(stats "$dir/q1.txt")"
echo "order 4: defaults $e0 elements, aspect > 20: $a0, max $m0; --grade-height 0.1: $e1, $a1, max $m1"
check "--grade-height 0.1: the same elements (> 25000)" "[ $e1 -eq $e0 ] && [ $e0 -gt 25000 ]"
check "--grade-height 0.1: aspect above 20 <= 0.9 x the defaults', largest aspect lower" \
  "[ $((10 * a1)) -le $((9 * a0)) ] && awk -v a='$m1' -v b='$m0' 'BEGIN {exit !(a < b)}'"
if [ "${1:-}" = mpi ]; then
  "$HEXPACK" "${pb[@]}" --order 3 --grade-height 0.1 -o "$dir/r1.re2" > /dev/null 2>&1
  OMP_NUM_THREADS=1 "$MPIEXEC" -n 2 "$HEXPACK" "${pb[@]}" --order 3 --grade-height 0.1 -o "$dir/r2.re2" > /dev/null 2>&1
  check "--grade-height: the same .re2 and field file on 2 ranks as on 1" \
    "[ -s '$dir/r1.re2' ] && cmp -s '$dir/r1.re2' '$dir/r2.re2' && cmp -s '$dir/r10.f00000' '$dir/r20.f00000'"
fi
for v in -0.1 3 x; do
  "$HEXPACK" "${pb[@]}" --order 1 --grade-height "$v" -o "$dir/bad.re2" > "$dir/bad.txt" 2>&1
  rc=$?
  check "--grade-height $v: refused in one line naming the flag, no file" \
    "[ $rc -ne 0 ] && [ \$(wc -l < '$dir/bad.txt') -eq 1 ] && grep -q -- '--grade-height' '$dir/bad.txt' && [ ! -e '$dir/bad.re2' ]"
done
exit $fail
