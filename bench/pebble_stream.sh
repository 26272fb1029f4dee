#!/usr/bin/env bash
# Order-N outputs of packed beds (issue 5), on the fast path (--fast): the same bed at order N
# written as .vtu (or any -o) by the whole order-N mesh and by the streamed one (--stream: the
# sweep map evaluated a block of elements at a time), with wall time, peak RSS (/usr/bin/time)
# and file size.
# Beds: `hexpack pack --n N --container box:A --trials 20 --seed 1`, A = 1.3 (N/3)^(1/3)
# (the beds of bench/pebble_scale.sh). The whole mesh is skipped where it would not fit
# (more than half of this machine's memory at ~600 elements a sphere, 32 bytes a node).
# A baseline binary (BASE, e.g. the previous main's build; one that takes --fast) runs the same
# command without --assume-memory (whole or streamed, as it chooses).
# Usage: bench/pebble_stream.sh [BUILD_DIR] [N list] [order] [ext]
#   e.g. bench/pebble_stream.sh build "100 1000 10000" 7 vtu
# Environment: DIR (work dir, default /tmp/pebble_stream; the files are deleted after
# each run), BASE (a second hexpack to time the same way), KEEP=1 keeps the files.
set -euo pipefail
B=${1:-build}; NS=${2:-"100 1000"}; ORDER=${3:-7}; EXT=${4:-vtu}
DIR=${DIR:-/tmp/pebble_stream}; BASE=${BASE:-}
H=$(cd "$B" && pwd)/hexpack
mkdir -p "$DIR"
mem=$(awk '/MemTotal/ {print $2 * 1024}' /proc/meminfo)
echo "# $(hostname), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg), order $ORDER, .$EXT"
printf "%-8s %-10s %-11s %-9s %-9s %-13s %s\n" spheres mode elements wall_s check_s "peak RSS (MB)" "file (MB)"
run() { # label hexpack-binary env... -- args
  local label=$1 bin=$2
  shift 2
  rm -f "$DIR/out.$EXT" "$DIR"/out0.f* "$DIR/rss"
  local t0 t1
  t0=$(date +%s.%N)
  env "$@" /usr/bin/time -f "%M" -o "$DIR/rss" "$bin" pebble --fast "$bed" --container "box:-$A,$A,-$A,$A" --order "$ORDER" \
    --json $MODE -o "$DIR/out.$EXT" > "$DIR/out.json" 2> "$DIR/err.txt" || { echo "N=$N $label failed:"; head -3 "$DIR/err.txt"; return; }
  t1=$(date +%s.%N)
  local j
  j=$(cat "$DIR/out.json")
  get() { echo "$j" | sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p"; }
  printf "%-8s %-10s %-11s %-9.1f %-9s %-13.0f %.0f\n" "$N" "$label" "$(get elements)" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$(get time_curve)" "$(($(tail -1 "$DIR/rss") / 1024))" \
    "$(stat -c %s "$DIR/out.$EXT" | awk '{print $1 / 1048576}')"
  [ -n "${KEEP:-}" ] || rm -f "$DIR/out.$EXT" "$DIR"/out0.f*
}
for N in $NS; do
  A=$(awk -v n="$N" 'BEGIN {printf "%.2f", 1.3 * (n / 3) ^ (1 / 3)}')
  bed="$DIR/s$N.txt"
  [ -s "$bed" ] || "$H" pack --n "$N" --container "box:$A" --trials 20 --seed 1 -o "$bed" > /dev/null
  whole=$(awk -v n="$N" -v o="$ORDER" -v m="$mem" 'BEGIN {b = 600 * n * (o + 1) ^ 3 * 32; print (b < 0.5 * m) ? 1 : 0}')
  if [ -n "$BASE" ] && [ "$whole" = 1 ]; then MODE="" run baseline "$BASE" X=1; fi
  if [ "$whole" = 1 ]; then MODE="--assume-memory 1e18" run whole "$H" X=1; fi
  MODE="--stream" run stream "$H" X=1
done
