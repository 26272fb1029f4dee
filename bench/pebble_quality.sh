#!/usr/bin/env bash
# Quality of the pebble mesher's order-N meshes against the flags that trade element count and
# point placement for it (issue 5's goals: Nek5000 scaled Jacobian >= 0.3 everywhere, none below
# 0.1, aspect <= 20, <= 300 elements per pebble). One bed on the fast path (--fast), every flag
# set added to it on its own line:
# elements per pebble (bulk), the Nek scaled Jacobian (min / max det J over an element's GLL
# points) min, mean and the counts below 0.1 and 0.3 over every element, the largest aspect
# ratio, the smallest GLL spacing, and the wall time of the whole command (mesh, check, report).
# Usage: bench/pebble_quality.sh [BUILD_DIR] [ORDER] [BED ARGS...]
#   default bed: inputs/pb67.txt --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3 (order 7)
# Environment: SETS (the flag sets added to --fast, ';'-separated), DIR (work dir).
set -uo pipefail
B=${1:-build}; N=${2:-7}; shift 2 2>/dev/null || shift $#
BED=("$@")
[ ${#BED[@]} -gt 0 ] || BED=(inputs/pb67.txt --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3)
DIR=${DIR:-/tmp/pebble_quality}
SETS=${SETS:-"--radial linear --ring-points linear;--ring-points linear;--radial linear;;--smooth 10;--score nek;--score nek --smooth 10;--score nek --split 2"}
H=$(cd "$B" && pwd)/hexpack
mkdir -p "$DIR"
echo "# $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); order $N; bed: ${BED[*]}"
printf "%-44s %9s %8s %9s %7s %7s %7s %7s %7s %9s %7s\n" flags elements per_peb sj_min sj_mean "<0.1" "<0.3" asp_max "asp>20" gll_min wall_s
IFS=';' read -r -a sets <<< "$SETS"
for fl in "${sets[@]}"; do
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$H" pebble --fast "${BED[@]}" --order "$N" --quality --worst 100000000 $fl > "$DIR/q.txt" 2>&1 ||
    { printf "%-44s failed: %s\n" "${fl:-(defaults)}" "$(grep -m1 error "$DIR/q.txt")"; continue; }
  t1=$(date +%s.%N)
  per=$(awk '/^pebble:/ {print $9}' "$DIR/q.txt")
  gll=$(awk '/min GLL spacing/ {print $4}' "$DIR/q.txt")
  awk -v f="${fl:-(defaults)}" -v per="$per" -v gll="$gll" -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" \
    '$1 ~ /^[0-9]+$/ && NF >= 6 {n++; if ($2 < 0.1) a++; if ($2 < 0.3) b++; if ($2 < mn || n == 1) mn = $2; s += $2; if ($5 > mx) mx = $5; if ($5 > 20) c++}
     END {printf "%-44s %9d %8s %9.3g %7.3f %7d %7d %7.1f %7d %9.3g %7.1f\n", f, n, per, mn, s / n, a, b, mx, c, gll, w}' "$DIR/q.txt"
done
