#!/usr/bin/env bash
# Streamed order-N outputs of a 10^4-sphere bed on the lent machine's host (16 cores; no GPU
# used): `hexpack pebble --stream --order ORDER` written as one .vtu (gathered to rank 0) and
# as a .pvtu (one piece per rank, written by that rank), on 1 and P ranks (unbound, cores / ranks
# OpenMP threads each), with wall time,
# the largest rank's peak RSS and the bytes written; the disk's own speed (dd, fdatasync) in
# the same run. Built by tests/gpu/host_build.sh (Debian's libqhull_r carried in deps/).
#   usage: [RUNS="1 vtu,16 pvtu"] bash tests/gpu/pebble_stream.sh [N] [ORDER] [P]   (defaults 10000 5 16)
set -u -o pipefail
cd "$(dirname "$0")/../.."
N=${1:-10000}; ORDER=${2:-5}; P=${3:-16}
. tests/gpu/host_build.sh
D=${DIR:-/tmp/pebble_stream}
mkdir -p "$D"
echo "# $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo), $(df -h "$D" | tail -1 | awk '{print $4}') free in $D, load $(cut -d' ' -f1-3 /proc/loadavg)"
dd if=/dev/zero of="$D/dd.bin" bs=1M count=4096 conv=fdatasync 2>&1 | tail -1
rm -f "$D/dd.bin"
A=$(awk -v n="$N" 'BEGIN {printf "%.2f", 1.3 * (n / 3) ^ (1 / 3)}')
"$H" pack --n "$N" --container "box:$A" --trials 20 --seed 1 -o "$D/s.txt" > /dev/null
printf "%-5s %-6s %-10s %-9s %-9s %-22s %s\n" ranks out elements wall_s check_s "peak RSS per rank (MB)" "GB written"
IFS=, read -r -a runs <<< "${RUNS:-1 vtu,$P vtu,$P pvtu}" # RUNS: "ranks ext,..." instead
for run in "${runs[@]}"; do
  # shellcheck disable=SC2086
  set -- $run
  np=$1 ext=$2
  rm -rf "$D/o" "$D"/rss.*
  mkdir -p "$D/o"
  ts=$(date +%s.%N)
  # no binding (Open MPI binds 1-2 ranks to one core each), cores / ranks OpenMP threads a rank
  mpiexec -n "$np" --bind-to none -x OMP_NUM_THREADS=$(( $(nproc) / np )) sh -c 'exec /usr/bin/time -f "%M" -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"' "$D/rss" \
    "$H" pebble --fast "$D/s.txt" --container "box:-$A,$A,-$A,$A" --order "$ORDER" --stream --json -o "$D/o/s.$ext" \
    > "$D/out.json" 2> "$D/err.txt" || { echo "np $np .$ext failed:"; head -3 "$D/err.txt"; continue; }
  sync
  te=$(date +%s.%N)
  j=$(cat "$D/out.json")
  get() { echo "$j" | sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p"; }
  rss=$(for f in "$D"/rss.*; do tail -1 "$f"; done | sort -n | tail -1)
  printf "%-5s %-6s %-10s %-9.1f %-9s %-22s %.2f\n" "$np" "$ext" "$(get elements)" \
    "$(awk -v a="$ts" -v b="$te" 'BEGIN {print b - a}')" "$(get time_curve)" "$((rss / 1024)) (largest)" \
    "$(du -sb "$D/o" | awk '{print $1 / 1e9}')"
done
rm -rf "$D/o"
