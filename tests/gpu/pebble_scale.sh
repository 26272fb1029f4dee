#!/usr/bin/env bash
# Pebble-bed scale runs on a big host (the lent GPU machine's 16 cores / 128 GB; no GPU
# needed). That host has no Qhull package: carry Debian's headers and libqhull_r in
# deps/ (include/libqhull_r/*.h, lib/libqhull_r.so*), found through CMAKE_PREFIX_PATH.
# For each N: `hexpack pack` a square-prism bed (box:A, A = 1.3 (N/3)^(1/3), radius 1),
# then `hexpack pebble` to an order-1 .re2 (corners + sphere curves), with the wall time
# and peak RSS of /usr/bin/time -v; NP > 1 runs the mesher under mpirun.
# Beds packed beforehand may be carried as deps/beds/sN.txt (packing 3.5e5 spheres takes minutes).
# HX_SCALE_NOWRITE=1: mesh only, no .re2.
#   usage: bash tests/gpu/pebble_scale.sh "N1 N2 ..." [NP] [extra pebble flags...]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
NS=${1:-"10000 100000"}; NP=${2:-1}; shift 2 2>/dev/null || shift $#
B=${HX_SCALE_BUILD:-build-scale}
DEPS=$PWD/deps
[ -d "$DEPS" ] && export LD_LIBRARY_PATH=$DEPS/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=OFF -DHX_ENABLE_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$DEPS" > "$B.configure.log" 2>&1 || { tail -30 "$B.configure.log"; exit 1; }
grep -i "qhull" "$B.configure.log" | head -3
cmake --build "$B" -j"$(nproc)" > "$B.build.log" 2>&1 || { grep -B2 -A10 -i "error" "$B.build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s; $(nproc) cores; $(free -g | awk '/Mem/ {print $2}') GB"
HP=$PWD/$B/hexpack
W=${HX_SCALE_TMP:-/tmp/hx-scale}; mkdir -p "$W"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for n in $NS; do
  a=$(awk -v n=$n 'BEGIN {printf "%.4f", 1.3 * (n / 3) ^ (1 / 3)}')
  if [ -f "deps/beds/s$n.txt" ]; then  # packed beforehand (the same command), carried in deps/
    cp "deps/beds/s$n.txt" "$W/s$n.txt"
  elif [ "${HX_SCALE_TILE:-0}" = 1 ] && [ $((n % 4)) = 0 ]; then
    # packing time grows faster than N: pack N/4 spheres in box:A/2 (the same bed height) and
    # tile it 2 x 2 in x, y (spheres keep >= r from the box walls, so copies cannot overlap)
    q=$((n / 4)); h=$(awk -v a=$a 'BEGIN {printf "%.4f", a / 2}')
    /usr/bin/time -f "pack $q %e s %M KB" "$HP" pack --n "$q" --container box:"$h" --trials 20 -o "$W/q$n.txt" 2>&1 | tail -1
    awk -v h=$h '/^#/ {next} {for (i = -1; i <= 1; i += 2) for (j = -1; j <= 1; j += 2)
      printf "%.17g %.17g %.17g %s\n", $1 + i * h, $2 + j * h, $3, $4}' "$W/q$n.txt" > "$W/s$n.txt"
    echo "tiled 2 x 2: $(wc -l < "$W/s$n.txt") spheres"
  else
    /usr/bin/time -f "pack %e s %M KB" "$HP" pack --n "$n" --container box:"$a" --trials 20 -o "$W/s$n.txt" 2>&1 | tail -1
  fi
  outs=(-o "$W/s$n.re2"); [ "${HX_SCALE_NOWRITE:-0}" = 1 ] && outs=()
  run=("$HP"); [ "$NP" -gt 1 ] && run=(mpirun --oversubscribe --bind-to none -np "$NP" "$HP")
  /usr/bin/time -v "${run[@]}" pebble "$W/s$n.txt" --container box:-$a,$a,-$a,$a --order 1 --json "$@" \
    "${outs[@]}" > "$OUT/pebble_$n.json" 2> "$OUT/pebble_$n.time"
  rc=$?
  el=$(grep -o '"elements": *[0-9]*' "$OUT/pebble_$n.json" | head -1 | grep -o '[0-9]*$')
  wall=$(grep "Elapsed (wall" "$OUT/pebble_$n.time" | awk '{print $NF}')
  rss=$(grep "Maximum resident" "$OUT/pebble_$n.time" | awk '{printf "%.2f GB", $NF / 1048576}')  # of the largest process
  size=$(du -h "$W/s$n.re2" 2>/dev/null | cut -f1)
  echo "spheres $n np $NP rc $rc elements $el wall $wall peak_rss $rss re2 $size"
  [ $rc = 0 ] || tail -5 "$OUT/pebble_$n.time"
  rm -f "$W/s$n.re2"
done
