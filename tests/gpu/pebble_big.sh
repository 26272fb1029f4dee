#!/usr/bin/env bash
# One large bed on the lent machine's host (the pebble mesher's figure to beat: 3.5 x 10^5 pebbles
# on one 16-core node with MPI): a bed file (carried, gzip allowed) meshed at order 1 on P ranks
# (unbound, cores / P OpenMP threads each) and written as .re2 (order 1: corners and sphere
# curves), with the wall time, the mesher's stage times (its --json), every rank's peak RSS and
# the file's size; the file is deleted afterwards. Built by tests/gpu/host_build.sh.
#   usage: bash tests/gpu/pebble_big.sh BED CONTAINER P [more pebble flags]
#   e.g.   bash tests/gpu/pebble_big.sh deps/beds/p350k.txt.gz cyl:60 8
# OUT=none writes no file (e.g. with `--order 7 --stream`: the order-N check of every element,
# block by block, without a file too large for the disk).
# BASE_SRC=DIR also builds the sources in DIR (e.g. the previous main) and runs them first, in
# the same call, and prints both files' md5 (they must be equal).
# (the bed: `hexpack pack --n 350000 --container cyl:60 --seed 7`, 149 s on the dev VM)
set -u -o pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 3 ] || { echo "usage: $0 BED CONTAINER P [pebble flags]"; exit 2; }
BED=$1 CONT=$2 P=$3
shift 3
. tests/gpu/host_build.sh
D=${DIR:-/tmp/pebble_big}
mkdir -p "$D"
case $BED in
*.gz) gzip -dc "$BED" > "$D/bed.txt" ;;
*) cp "$BED" "$D/bed.txt" ;;
esac
echo "# $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo), $(df -h "$D" | tail -1 | awk '{print $4}') free in $D, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(grep -vc '^#' "$D/bed.txt") spheres, container $CONT, $P ranks x $(( $(nproc) / P )) threads, flags: $*"
run() { # label binary: one run, its --json and figures
  rm -f "$D"/rss.* "$D"/bed.re2
  local ts te rc out=(-o "$D/bed.re2")
  [ "${OUT:-re2}" = none ] && out=()
  ts=$(date +%s.%N)
  mpiexec -n "$P" --bind-to none -x OMP_NUM_THREADS=$(( $(nproc) / P )) sh -c 'exec /usr/bin/time -f "%M" -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"' "$D/rss" \
    "$2" pebble --fast "$D/bed.txt" --container "$CONT" --order 1 --json "${FLAGS[@]}" "${out[@]}" > "$D/out.json" 2> "$D/err.txt"
  rc=$?
  sync
  te=$(date +%s.%N)
  echo "## $1"
  cat "$D/out.json"
  head -5 "$D/err.txt"
  echo "exit $rc, wall $(awk -v a="$ts" -v b="$te" 'BEGIN {printf "%.1f", b - a}') s, peak RSS per rank (MB): $(for f in "$D"/rss.*; do tail -1 "$f"; done | awk '{printf("%s%.0f", (NR > 1) ? " " : "", $1 / 1024)}'), .re2: $(stat -c %s "$D/bed.re2" 2> /dev/null | awk '{printf "%.2f GB", $1 / 1e9}')"
  [ -z "${BASE_SRC:-}" ] || md5sum "$D/bed.re2" | cut -c1-32
  rm -f "$D/bed.re2"
  return $rc
}
FLAGS=("$@")
if [ -n "${BASE_SRC:-}" ]; then # a baseline tree (e.g. the previous main), built and run first
  HNEW=$H
  HX_SCALE_BUILD=build-base HX_BUILD_SRC=$BASE_SRC . tests/gpu/host_build.sh
  run "baseline ($BASE_SRC)" "$H"
  H=$HNEW
fi
run "this tree" "$H"
