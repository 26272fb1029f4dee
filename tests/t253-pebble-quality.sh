#!/usr/bin/env bash
# t253: the pebble mesher's quality on the 67-pebble DEM bed (inputs/pb67.txt, R = 1.5,
# cylinder 6.6, no extrusions) at order 4, pinned so that it cannot silently regress
# (docs/benchmarks.md, "Pebble beds", quality tables). Every element's Nek5000 scaled
# Jacobian (min / max det J over its GLL points) and aspect ratio are read from the
# `--worst 100000` listing (every element) of the quality report. With the defaults
# (order-N points spaced by volume along the layers, the rings' edges and the fans'
# spokes): 30 843 elements (460.3 per pebble), min Nek SJ 2.45e-2, mean 0.507, 360 elements
# below 0.1, 71 below 0.05, max aspect 123.5 (points spaced evenly: min 8.82e-3, mean 0.196,
# 3 726 below 0.1, 385 below 0.05).
# The old tessellation rule (--ring-sj 0 --bridge-fit 0: one fixed ring, bridge 0.1 d), both
# with even spacing, gives 13 844 below 0.1 against 3 730 and max aspect 221: the current rule
# must stay at least 3 x better there.
. "$(dirname "$0")/lib.sh"
run() { # $1: output file, rest: extra flags
  local f=$1; shift
  "$HEXPACK" pebble --fast "$SRC/inputs/pb67.txt" --radius 1.5 --container cyl:6.6 --order 4 --quality --worst 1000000 "$@" > "$f" 2>&1
}
# listing rows: element scaled_jac corner_sj detj_min aspect (centroid)
stats() { awk '$1 ~ /^[0-9]+$/ && NF >= 6 {n++; if ($2 < 0.1) a++; if ($2 < 0.05) b++; if ($2 < mn || n == 1) mn = $2; s += $2; if ($5 > mx) mx = $5}
               END {printf "%d %d %d %.6g %.6g %.6g\n", n, a, b, mn, s / n, mx}' "$1"; }
run "$dir/new.txt"
rc=$?
check "defaults: exit 0 (no inverted element)" "[ $rc -eq 0 ]"
read -r n lo1 lo05 mn mean mx <<< "$(stats "$dir/new.txt")"
per=$(awk '/^pebble:/ {print $9}' "$dir/new.txt")
echo "defaults: $n elements ($per per pebble), Nek SJ min $mn mean $mean, below 0.1: $lo1, below 0.05: $lo05, aspect max $mx"
check "every element listed (more than 25000)" "[ $n -gt 25000 ] && grep -q \"^pebble: 67 spheres, $n elements\" '$dir/new.txt'"
check "elements per pebble <= 470" "awk -v p='$per' 'BEGIN {exit !(p > 0 && p <= 470)}'"
check "Nek SJ min >= 2e-2" "awk -v v='$mn' 'BEGIN {exit !(v >= 2e-2)}'"
check "Nek SJ mean >= 0.48" "awk -v v='$mean' 'BEGIN {exit !(v >= 0.48)}'"
check "<= 420 elements below Nek SJ 0.1" "[ $lo1 -le 420 ]"
check "<= 90 elements below Nek SJ 0.05" "[ $lo05 -le 90 ]"
check "aspect ratio max <= 130" "awk -v v='$mx' 'BEGIN {exit !(v <= 130)}'"
run "$dir/even.txt" --radial linear --ring-points linear
read -r ne loe lo05e mne meane mxe <<< "$(stats "$dir/even.txt")"
echo "even spacing: $ne elements, Nek SJ min $mne mean $meane, below 0.1: $loe, below 0.05: $lo05e, aspect max $mxe"
run "$dir/old.txt" --ring-sj 0 --bridge-fit 0 --radial linear --ring-points linear
read -r n0 lo10 lo050 mn0 mean0 mx0 <<< "$(stats "$dir/old.txt")"
echo "old rule (even spacing): $n0 elements, Nek SJ min $mn0 mean $mean0, below 0.1: $lo10, below 0.05: $lo050, aspect max $mx0"
check "old rule still selectable (more than 3 x as many below 0.1, both evenly spaced)" "[ $lo10 -gt $((3 * loe)) ]"
check "old rule: larger max aspect" "awk -v a='$mx0' -v b='$mx' 'BEGIN {exit !(a > b)}'"
# --score nek (variants also scored by the Nek scaled Jacobian of their linear columns) and
# --split 2 (every facet quad cut 2 x 2), measured with volume spacing: nek alone
# 40 203 elements (600.0 per pebble), min 7.75e-2, mean 0.551, 40 below 0.1, none below 0.05
# (even spacing: min 3.43e-2, mean 0.251, 1 699, 22); both 160 812 (2 400.2 per
# pebble), min 9.04e-2, mean 0.729, 6 below 0.1, aspect max 100.6 (even: 9.43e-2, 0.445, 3)
run "$dir/nek.txt" --score nek
check "--score nek: exit 0" "[ $? -eq 0 ]"
read -r n lo1 lo05 mn mean mx <<< "$(stats "$dir/nek.txt")"
nnek=$n
echo "--score nek: $n elements, Nek SJ min $mn mean $mean, below 0.1: $lo1, below 0.05: $lo05, aspect max $mx"
check "--score nek: min >= 7e-2, <= 60 below 0.1, none below 0.05, <= 41000 elements" \
  "awk -v v='$mn' 'BEGIN {exit !(v >= 7e-2)}' && [ $lo1 -le 60 ] && [ $lo05 -eq 0 ] && [ $n -le 41000 ]"
run "$dir/split.txt" --score nek --split 2
check "--split 2 --score nek: exit 0" "[ $? -eq 0 ]"
read -r n lo1 lo05 mn mean mx <<< "$(stats "$dir/split.txt")"
echo "--split 2 --score nek: $n elements, Nek SJ min $mn mean $mean, below 0.1: $lo1, below 0.05: $lo05, aspect max $mx"
check "--split 2 --score nek: 4 x the elements of --score nek" "[ $n -eq $((4 * nnek)) ]"
check "--split 2 --score nek: min >= 9e-2, <= 8 below 0.1, mean >= 0.7, aspect max <= 105" \
  "awk -v v='$mn' -v u='$mean' -v a='$mx' 'BEGIN {exit !(v >= 9e-2 && u >= 0.7 && a <= 105)}' && [ $lo1 -le 8 ]"
exit $fail
