#!/usr/bin/env bash
# t691: the aspect ratio's tail under --aspect 18 --grade-expand 0.75 (--ratio 1 --score nek, order
# 3, as meshed: no --optimize), on two beds that kept elements above 20 before
# the wider bridge variants:
# - pb67 in its default container (the bed's bounding cylinder): 14 above 20 (largest 22.98), 10 of
#   them about one DEM overlap (spheres 49 and 62) whose bridge circle's columns are 0.03 high. The
#   bridge variants now include a bridge 1.2 and 1.4 times as wide (its facet's room allowing),
#   tried where no other variant meets the aspect estimate: the columns on the circle grow like
#   rb^2. Now none above 20, and the log and --json say how many bridges were widened;
# - the polydisperse 300-sphere cylinder (hexpack pack --poly 0.2 --seed 5): 14 above 20 (largest
#   24.1), near contacts whose rings, each at least 1.2 times the last, ran out (9) short of the
#   polygon and left a wide band outside. Such rings are now also tried spread geometrically out to
#   the polygon. Now none above 20, and the spread facets are counted.
# - a triangle between two spheres 1 d apart (the top of a 10^3 cylinder bed, tests/data): its fan
#   swept to needles of columns, 4 elements above 20 (largest 26.1). Such a triangle's shortest
#   edge is now collapsed (above 0.5 A estimated): none above 20, the log's count of negligible
#   facets collapsed says 2.
# The default (quality) path's mesher flags (--ratio 1 --score nek --aspect 18 --grade-expand 0.75,
# --keep-aspect 20 for the optimizer) give the same .re2 as those flags added to --fast, and a flag
# given wins.
# With 'mpi': the same .re2 on 2 ranks as on 1 (the kept variant, spread or not, is what the ranks
# exchange).
. "$(dirname "$0")/lib.sh"
A=(--ratio 1 --score nek --aspect 18 --grade-expand 0.75 --order 3)
# elements, aspect above 20, largest aspect (rows of the worst list)
stats() { awk '$1 ~ /^[0-9]+$/ && NF >= 6 {n++; if ($5 > 20) a++; if ($5 > mx) mx = $5} END {printf "%d %d %.6g\n", n, a, mx}' "$1"; }
jv() { sed -n "s/.*\"$2\": \([-0-9.e]*\).*/\1/p" "$1"; }
# listed NAME LOG ARGS...: hexpack ARGS with the listing of every element into LOG, checked for
# exit 0 and no element with det J <= 0; its stats into EL (elements), AB (above 20), MX (largest)
listed() {
  local name=$1 log=$2
  shift 2
  "$HEXPACK" "$@" --quality --worst 1000000 > "$log" 2>&1
  check "$name: exit 0 (no element with det J <= 0)" "[ $? -eq 0 ] && grep -q 'elements with det J <= 0: 0' '$log'"
  read -r EL AB MX <<< "$(stats "$log")"
}
listed "pb67, default container" "$dir/q1.txt" pebble --fast "$SRC/inputs/pb67.txt" --radius 1.5 "${A[@]}"
e1=$EL a1=$AB m1=$MX
w1=$(sed -n "s/.*; \([0-9]*\) bridge(s) widened.*/\1/p" "$dir/q1.txt")
echo "pb67 default container: $e1 elements, above aspect 20: $a1, largest $m1, bridges widened: $w1"
check "pb67, default container: none above aspect 20 (was 14), fewer elements than the published 122284" \
  "[ -n '$e1' ] && [ '${a1:-1}' -eq 0 ] && [ ${e1:-999999} -lt 122284 ]"
check "pb67, default container: some bridges widened, said in the log" "[ ${w1:-0} -gt 0 ]"
"$HEXPACK" pebble --fast "$SRC/inputs/pb67.txt" --radius 1.5 "${A[@]}" --order 1 --json > "$dir/j1.json" 2>&1
check "pb67, default container: --json's wide_bridges is the log's count" "[ -n '$w1' ] && [ '$(jv "$dir/j1.json" wide_bridges)' = '$w1' ]"
# the default is those flags (and --keep-aspect 20 for the optimizer); a flag given as well wins
"$HEXPACK" pebble "$SRC/inputs/pb67.txt" --radius 1.5 --no-optimize --order 1 -o "$dir/g1.re2" > /dev/null 2>&1
"$HEXPACK" pebble --fast "$SRC/inputs/pb67.txt" --radius 1.5 "${A[@]}" --order 1 -o "$dir/g2.re2" > /dev/null 2>&1
"$HEXPACK" pebble --fast "$SRC/inputs/pb67.txt" --radius 1.5 --order 1 -o "$dir/g3.re2" > /dev/null 2>&1
check "the default: the same .re2 as its flags given one by one to --fast, not --fast's own" \
  "[ -s '$dir/g1.re2' ] && cmp -s '$dir/g1.re2' '$dir/g2.re2' && ! cmp -s '$dir/g1.re2' '$dir/g3.re2'"
"$HEXPACK" pebble "$SRC/inputs/pb67.txt" --radius 1.5 --aspect 20 --no-optimize --order 1 --json > "$dir/j2.json" 2>&1
"$HEXPACK" pack --n 4 --container cyl:2 -o "$dir/b4.txt" > /dev/null 2>&1
"$HEXPACK" pebble "$dir/b4.txt" --container box --order 2 --newton-iters 1 --quiet --json -o "$dir/b4.re2" > "$dir/j3.json" 2>&1
echo "--aspect 20: aspect $(jv "$dir/j2.json" aspect); the default's optimizer: keep_aspect $(jv "$dir/j3.json" keep_aspect), repair_sj $(jv "$dir/j3.json" repair_sj), repair_rings $(jv "$dir/j3.json" repair_rings)"
check "the default: --aspect given wins; its optimizer keeps aspect 20, repairs below 0.4 in 3 rings" \
  "[ '$(jv "$dir/j2.json" aspect)' = 20 ] && [ '$(jv "$dir/j3.json" keep_aspect)' = 20 ] && [ '$(jv "$dir/j3.json" repair_sj)' = 0.4 ] && [ '$(jv "$dir/j3.json" repair_rings)' = 3 ]"
"$HEXPACK" pack --n 300 --container cyl:5 --poly 0.2 --seed 5 --trials 20 -o "$dir/p300.txt" > /dev/null 2>&1
p300=(pebble --fast "$dir/p300.txt" --container cyl:5 "${A[@]}")
listed p300 "$dir/q2.txt" "${p300[@]}"
e2=$EL a2=$AB m2=$MX
s2=$(sed -n "s/.*, \([0-9]*\) near contact(s)' rings spread.*/\1/p" "$dir/q2.txt")
echo "p300: $e2 elements, above aspect 20: $a2, largest $m2, near contacts spread: $s2"
check "p300: none above aspect 20 (was 14, largest 24.1)" "[ -n '$e2' ] && [ '${a2:-1}' -eq 0 ]"
check "p300: some near contacts' rings spread, said in the log" "[ ${s2:-0} -gt 0 ]"
listed "far triangle" "$dir/q3.txt" pebble "$SRC/tests/data/pebble-far-triangle-slab.txt" --container cyl:7 --no-optimize \
  --order 3
e3=$EL a3=$AB m3=$MX
n3=$(sed -n 's/.*short edges collapsed (\([0-9]*\) of negligible facets).*/\1/p' "$dir/q3.txt")
echo "far triangle: $e3 elements, above aspect 20: $a3, largest $m3, negligible facets collapsed: $n3"
check "far triangle: none above aspect 20 (was 4, largest 26.1), its triangles collapsed" \
  "[ -n '$e3' ] && [ '${a3:-1}' -eq 0 ] && [ '${n3:-0}' -ge 2 ]"
if [ "${1:-}" = mpi ]; then
  "$HEXPACK" "${p300[@]}" --order 1 -o "$dir/r1.re2" > /dev/null 2>&1
  OMP_NUM_THREADS=1 "$MPIEXEC" -n 2 "$HEXPACK" "${p300[@]}" --order 1 -o "$dir/r2.re2" > /dev/null 2>&1
  check "p300: the same .re2 on 2 ranks as on 1" "[ -s '$dir/r1.re2' ] && cmp -s '$dir/r1.re2' '$dir/r2.re2'"
fi
exit $fail
