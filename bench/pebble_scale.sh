#!/usr/bin/env bash
# Pebble mesher at scale (issue 5): packs N spheres with `hexpack pack` (radius 1, square
# prism of half-width A = 1.3 (N/3)^(1/3), seed 1) and meshes them at order 1 with
# `mpiexec -n P hexpack pebble --fast`, printing per run the wall time, the mesher's own stage
# times and each rank's peak RSS (/usr/bin/time). No output file is written (writing a
# distributed mesh needs the parallel writers); add -o through EXTRA when they exist.
# Usage: bench/pebble_scale.sh [BUILD_DIR] [N list] [P list] [runs]
#   e.g. bench/pebble_scale.sh build "10000 100000 350000" "1 4 16" 1
# Environment: EXTRA (more pebble flags, e.g. "--order 1 -o /tmp/x.re2"), DIR (work dir,
# default /tmp/pebble_scale), MPIEXEC (default mpiexec).
# Memory: about 0.33 KB per order-1 element over all ranks plus, on every rank, the
# process (~60 MB) and the replicated power diagram and tessellation (~10 KB per sphere;
# 10^4 spheres: 3.8M elements, 1.39 GB on 1 rank, 0.77 GB per rank on 2);
# 3.5 x 10^5 spheres ~ 1.4 x 10^8 elements ~ 45 GB in all + ~3.5 GB per rank.
set -euo pipefail
B=${1:-build}; NS=${2:-"1000 10000"}; PS=${3:-"1 2"}; RUNS=${4:-1}
DIR=${DIR:-/tmp/pebble_scale}; MPIEXEC=${MPIEXEC:-mpiexec}; EXTRA=${EXTRA:-}
H=$(cd "$B" && pwd)/hexpack
mkdir -p "$DIR"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
echo "# $(hostname), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-8s %-4s %-4s %-11s %-9s %-9s %-9s %-9s %s\n" spheres P run elements wall_s diagram_s mesh_s check_s "peak RSS per rank (MB)"
for N in $NS; do
  A=$(awk -v n="$N" 'BEGIN {printf "%.2f", 1.3 * (n / 3) ^ (1 / 3)}')
  bed="$DIR/s$N.txt"
  [ -s "$bed" ] || "$H" pack --n "$N" --container "box:$A" --trials 20 --seed 1 -o "$bed" > /dev/null
  for P in $PS; do
    for r in $(seq 1 "$RUNS"); do
      rm -f "$DIR"/rss.*
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      "$MPIEXEC" -n "$P" sh -c 'exec /usr/bin/time -f "%M" -o "$0.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" "$@"' "$DIR/rss" \
        "$H" pebble --fast "$bed" --container "box:-$A,$A,-$A,$A" --order 1 --json $EXTRA > "$DIR/out.json" 2> "$DIR/err.txt" ||
        { echo "N=$N P=$P failed:"; head -3 "$DIR/err.txt"; continue; }
      t1=$(date +%s.%N)
      rss=$(for f in "$DIR"/rss.*; do tail -1 "$f"; done | awk '{printf("%s%.0f", (NR > 1) ? " " : "", $1 / 1024)}')
      j=$(cat "$DIR/out.json")
      get() { echo "$j" | sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p"; }
      printf "%-8s %-4s %-4s %-11s %-9.2f %-9s %-9s %-9s %s\n" "$N" "$P" "$r" "$(get elements)" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$(get time_diagram)" "$(get time_mesh)" "$(get time_curve)" "$rss"
    done
  done
done
