#!/usr/bin/env bash
# t688: the order-N point spacing (--radial volume: a layer's GLL points spaced by the volume
# of the column's cone; --ring-points volume: the edges inside the rings about contacts and the
# fans' spokes spaced so that width x gap x step is constant; --edge-points volume: the facets'
# boundary edges spaced by the gap; all the defaults from order 3) and --smooth (max-min optimization of the nodes inside each facet) on the
# 67-pebble DEM bed at order 4 (R = 1.5, cylinder 6.6). Every element's Nek5000 scaled Jacobian
# (min / max det J over its GLL points) comes from the --worst listing. Measured: even
# spacing (--radial linear --ring-points linear --edge-points linear) 30 843 elements, mean
# 0.196, 27 261 below 0.3, 3 730 below 0.1, min 8.82e-3; the defaults mean 0.539, 3 258, 315,
# min 2.45e-2 (with --edge-points linear: mean 0.510, 4 689 below 0.3, 336 below 0.1);
# --smooth 10 min 4.46e-2, 194 below 0.1, aspect max 123.5 -> 91.0. Then: the same files on 1
# and 2 threads and on 1, 2 and 4 MPI ranks, and the bad flags.
. "$(dirname "$0")/lib.sh"
pb=(pebble --fast "$SRC/inputs/pb67.txt" --radius 1.5 --container cyl:6.6)
run() { # $1: output file, rest: extra flags
  local f=$1; shift
  "$HEXPACK" "${pb[@]}" --order 4 --quality --worst 1000000 "$@" > "$f" 2>&1
}
# listing rows: element scaled_jac corner_sj detj_min aspect (centroid)
stats() { awk '$1 ~ /^[0-9]+$/ && NF >= 6 {n++; if ($2 < 0.1) a++; if ($2 < mn || n == 1) mn = $2; s += $2; if ($5 > mx) mx = $5}
               END {printf "%d %d %.6g %.6g %.6g\n", n, a, mn, s / n, mx}' "$1"; }
run "$dir/lin.txt" --radial linear --ring-points linear --edge-points linear
check "even spacing: exit 0" "[ $? -eq 0 ]"
read -r n0 lo0 mn0 mean0 mx0 <<< "$(stats "$dir/lin.txt")"
b0=$(awk '$1 ~ /^[0-9]+$/ && NF >= 6 && $2 < 0.3 {b++} END {print b + 0}' "$dir/lin.txt")
echo "even spacing: $n0 elements, Nek SJ min $mn0 mean $mean0, below 0.3: $b0, below 0.1: $lo0, aspect max $mx0"
run "$dir/def.txt"
check "defaults: exit 0 (no inverted element)" "[ $? -eq 0 ]"
read -r n1 lo1 mn1 mean1 mx1 <<< "$(stats "$dir/def.txt")"
b1=$(awk '$1 ~ /^[0-9]+$/ && NF >= 6 && $2 < 0.3 {b++} END {print b + 0}' "$dir/def.txt")
echo "defaults (volume spacing): $n1 elements, Nek SJ min $mn1 mean $mean1, below 0.3: $b1, below 0.1: $lo1, aspect max $mx1"
check "volume spacing: the same elements (more than 25000)" "[ $n1 -eq $n0 ] && [ $n0 -gt 25000 ]"
check "volume spacing: mean Nek SJ >= 2 x even spacing's" "awk -v a='$mean1' -v b='$mean0' 'BEGIN {exit !(a >= 2 * b)}'"
check "volume spacing: below 0.3 <= 1/3 and below 0.1 <= 1/4 of even spacing's" \
  "[ $((3 * b1)) -le $b0 ] && [ $((4 * lo1)) -le $lo0 ]"
check "volume spacing: worst Nek SJ >= 2 x even spacing's" "awk -v a='$mn1' -v b='$mn0' 'BEGIN {exit !(a >= 2 * b)}'"
r=$("$HEXPACK" "${pb[@]}" --order 4 --radial linear --quality --worst 1000000 2>&1 | awk '$1 ~ /^[0-9]+$/ && NF >= 6 {s += $2; n++} END {print s / n}')
check "--radial volume alone lifts the mean (>= 1.05 x, against --radial linear)" \
  "awk -v a='$mean1' -v b='$r' 'BEGIN {exit !(a >= 1.05 * b)}'"
run "$dir/el.txt" --edge-points linear
read -r n3 lo3 mn3 mean3 mx3 <<< "$(stats "$dir/el.txt")"
b3=$(awk '$1 ~ /^[0-9]+$/ && NF >= 6 && $2 < 0.3 {b++} END {print b + 0}' "$dir/el.txt")
echo "--edge-points linear: Nek SJ min $mn3 mean $mean3, below 0.3: $b3, below 0.1: $lo3"
check "--edge-points volume: below 0.3 <= 0.8 x and mean >= 1.03 x the boundary edges' even spacing's" \
  "[ $((10 * b1)) -le $((8 * b3)) ] && awk -v a='$mean1' -v b='$mean3' 'BEGIN {exit !(a >= 1.03 * b)}'"
check "--edge-points volume: no more elements below 0.1, worst not lower" \
  "[ $lo1 -le $lo3 ] && awk -v a='$mn1' -v b='$mn3' 'BEGIN {exit !(a >= b)}'"
run "$dir/sm.txt" --smooth 10
check "--smooth 10: exit 0 (no inverted element)" "[ $? -eq 0 ]"
read -r n2 lo2 mn2 mean2 mx2 <<< "$(stats "$dir/sm.txt")"
echo "--smooth 10: $n2 elements, Nek SJ min $mn2 mean $mean2, below 0.1: $lo2, aspect max $mx2"
check "--smooth: the same element count" "[ $n2 -eq $n1 ]"
check "--smooth: worst Nek SJ >= 1.5 x the defaults'" "awk -v a='$mn2' -v b='$mn1' 'BEGIN {exit !(a >= 1.5 * b)}'"
check "--smooth: fewer elements below 0.1" "[ $lo2 -lt $lo1 ]"
check "--smooth: largest aspect ratio not larger" "awk -v a='$mx2' -v b='$mx1' 'BEGIN {exit !(a <= b)}'"
grep -q 'smoothed' "$dir/sm.txt"
check "--smooth: the summary counts the moves" "[ $? -eq 0 ]"
# the smoothing depends on each facet alone: the same nodes on any threads and ranks
f=(--order 3 --smooth 6)
OMP_NUM_THREADS=1 "$HEXPACK" "${pb[@]}" "${f[@]}" -o "$dir/t1.re2" > /dev/null 2>&1
OMP_NUM_THREADS=2 "$HEXPACK" "${pb[@]}" "${f[@]}" -o "$dir/t2.re2" > /dev/null 2>&1
check "the same .re2 and field file on 1 and 2 threads" \
  "[ -s '$dir/t1.re2' ] && cmp -s '$dir/t1.re2' '$dir/t2.re2' && cmp -s '$dir/t10.f00000' '$dir/t20.f00000'"
check "smoothed nodes differ from the defaults'" \
  "\"$HEXPACK\" \"\${pb[@]}\" --order 3 -o '$dir/d.re2' > /dev/null 2>&1 && ! cmp -s '$dir/d.re2' '$dir/t1.re2'"
if [ "${1:-}" = mpi ]; then
  for np in 2 4; do
    OMP_NUM_THREADS=1 "$MPIEXEC" -n $np "$HEXPACK" "${pb[@]}" "${f[@]}" -o "$dir/r$np.re2" > /dev/null 2>&1
    check "the same .re2 and field file on $np ranks as on 1" \
      "[ -s '$dir/r$np.re2' ] && cmp -s '$dir/t1.re2' '$dir/r$np.re2' && cmp -s '$dir/t10.f00000' '$dir/r${np}0.f00000'"
  done
fi
# bad flags: one line naming the flag, non-zero exit, no file
"$HEXPACK" "${pb[@]}" --order 1 --smooth 4 --split 2 -o "$dir/bad1.re2" > "$dir/bad1.txt" 2>&1
rc=$?
check "--smooth with --split: refused in one line, no file" \
  "[ $rc -ne 0 ] && [ \$(wc -l < '$dir/bad1.txt') -eq 1 ] && grep -q -- '--smooth' '$dir/bad1.txt' && [ ! -e '$dir/bad1.re2' ]"
for flag in --radial --ring-points --edge-points; do
  "$HEXPACK" "${pb[@]}" --order 1 $flag cone -o "$dir/bad2.re2" > "$dir/bad2.txt" 2>&1
  rc=$?
  check "$flag cone: refused in one line naming the flag, no file" \
    "[ $rc -ne 0 ] && [ \$(wc -l < '$dir/bad2.txt') -eq 1 ] && grep -q -- '$flag' '$dir/bad2.txt' && [ ! -e '$dir/bad2.re2' ]"
done
"$HEXPACK" "${pb[@]}" --order 1 --smooth -3 -o "$dir/bad3.re2" > "$dir/bad3.txt" 2>&1
rc=$?
check "--smooth -3: refused naming the flag, no file" \
  "[ $rc -ne 0 ] && grep -q -- '--smooth' '$dir/bad3.txt' && [ ! -e '$dir/bad3.re2' ]"
exit $fail
