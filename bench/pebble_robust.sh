#!/usr/bin/env bash
# Robustness sweep of the pebble mesher (issue 5): packs one bed per seed and kind with
# `hexpack pack` and meshes it on the fast path at order 1 with --fast --force --json, printing
# per bed the elements with det J <= 0, the facets the local repair took up, the element count
# and the wall time; with BASE (another hexpack, one that takes --fast) the same beds are meshed
# by it too, on the same line.
# Kinds: mono-cyl (radius 1 in a cylinder), poly-cyl (radii 1 +- 0.3), mono-box (square prism
# of half-width A = 1.3 (N/3)^(1/3)); the cylinder radius is RC = 0.5 N^(1/3) + 1; thin-cyl and
# thin-poly: a thin column whatever N, the cylinder of radius 3 (1.5 d), --trials 20, radii
# 1 (+- 0.2 for thin-poly), e.g. N = 30.
# Usage: bench/pebble_robust.sh [BUILD_DIR] [N] [seeds] [kinds]
#   e.g. BASE=/tmp/old/hexpack bench/pebble_robust.sh build 10000 "101 102 103" "mono-cyl poly-cyl mono-box"
# Environment: BASE, DIR (work dir, default /tmp/pebble_robust), ORDER (1), FLAGS (more pebble
# flags after --fast's, e.g. "--ratio 1 --score nek --aspect 20").
#   e.g. ORDER=3 bench/pebble_robust.sh build 30 "$(seq -s ' ' 1 20)" "thin-cyl thin-poly"
set -uo pipefail
B=${1:-build}; N=${2:-10000}; SEEDS=${3:-"101 102 103"}; KINDS=${4:-"mono-cyl poly-cyl mono-box"}
DIR=${DIR:-/tmp/pebble_robust}; BASE=${BASE:-}; ORDER=${ORDER:-1}; FLAGS=${FLAGS:-}
H=$(cd "$B" && pwd)/hexpack
mkdir -p "$DIR"
echo "# $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); N = $N; order $ORDER; flags: ${FLAGS:-none}; base: ${BASE:-none}"
printf "%-9s %-5s %-9s %-9s %-10s %-8s %s\n" kind seed bad repaired elements wall_s "base: bad elements wall_s"
one() { # BIN BED CONTAINER -> "bad repaired elements wall"
  local t0 t1 j
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  j=$("$1" pebble --fast "$2" --container "$3" --order "$ORDER" $FLAGS --force --json -o "$DIR/m.re2" 2> "$DIR/err.txt") ||
    { echo "failed: $(head -1 "$DIR/err.txt")"; return; }
  t1=$(date +%s.%N)
  rm -f "$DIR"/m.re2 "$DIR"/m0.f*
  get() { echo "$j" | sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p"; }
  local rep; rep=$(get repaired_facets)
  printf "%-9s %-9s %-10s %-8.1f" "$(get bad_elements)" "${rep:--}" "$(get elements)" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')"
}
tot=0; totb=0
for kind in $KINDS; do
  for s in $SEEDS; do
    RC=$(awk -v n="$N" 'BEGIN {printf "%.1f", 0.5 * n ^ (1 / 3) + 1}')
    A=$(awk -v n="$N" 'BEGIN {printf "%.2f", 1.3 * (n / 3) ^ (1 / 3)}')
    case $kind in
      mono-cyl) pk="--container cyl:$RC"; cont="cyl:$RC" ;;
      poly-cyl) pk="--poly 0.3 --container cyl:$RC"; cont="cyl:$RC" ;;
      mono-box) pk="--container box:$A"; cont="box:-$A,$A,-$A,$A" ;;
      thin-cyl) pk="--container cyl:3 --trials 20"; cont="cyl:3" ;;
      thin-poly) pk="--poly 0.2 --container cyl:3 --trials 20"; cont="cyl:3" ;;
      *) echo "unknown kind $kind"; exit 2 ;;
    esac
    bed="$DIR/$kind-$N-$s.txt"
    # shellcheck disable=SC2086
    [ -s "$bed" ] || "$H" pack --n "$N" $pk --seed "$s" -o "$bed" > /dev/null
    line=$(one "$H" "$bed" "$cont")
    case $line in failed*) ;; *) tot=$((tot + ${line%% *})) ;; esac
    if [ -n "$BASE" ]; then
      lb=$(one "$BASE" "$bed" "$cont")
      case $lb in failed*) ;; *) totb=$((totb + ${lb%% *})) ;; esac
      lb=$(echo "$lb" | awk '{print $1, $3, $4}')
    fi
    printf "%-9s %-5s %s %s\n" "$kind" "$s" "$line" "${lb:-}"
  done
done
echo "# total elements with det J <= 0: $tot${BASE:+ (base: $totb)}"
