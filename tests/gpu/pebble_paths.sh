#!/usr/bin/env bash
# The pebble beds of the quality goals' table on both paths, at order N (default 7): --fast (the
# quick path, as meshed) and the default (quality) path on cuda, each with the quality listing of
# every element (elements per pebble in the bulk, inlet and outlet, Nek5000 scaled Jacobian min /
# mean, below 0.3, aspect max, above 20, min GLL spacing), the wall time and the peak RSS. Builds hexpack as
# pebble_optimize.sh does (Release, CUDA, Debian's libqhull_r carried in deps/) unless H is given.
#   usage: [BEDS="pb67 pb67d c300 p300 b300 c1000 c10000"] [PATHS="--fast;default"] [H=hexpack]
#          bash tests/gpu/pebble_paths.sh [N] [more flags for every run]
# PATHS: the runs per bed, ';'-separated flag sets (the word default: no flag). Tables go to
# $OUT/pebble_paths.txt, each run's log to $OUT/BED-K.txt (removed unless KEEP=1).
# LIST=0: no quality listing (the wall time of the command alone; the quality columns stay
# empty). SAMPLE=1: the resident memory every half second with the log's last line then, the
# peak's neighbourhood into $OUT/BED-K.mem.txt (where the peak RSS is reached), and the largest GPU
# memory in use (nvidia-smi, the busiest GPU). LAUNCH: a launcher
# before hexpack (e.g. "mpirun -np 2"; the peak RSS is then the launcher's, SAMPLE's RSS is 0).
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
N=${1:-7}
shift || true
DEPS=$PWD/deps
[ -d "$DEPS/lib" ] && export LD_LIBRARY_PATH=$DEPS/lib:${LD_LIBRARY_PATH:-}
if [ -z "${H:-}" ]; then
  B=${HX_GPU_BUILD:-build-gpu}
  t0=$(date +%s)
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=ON -DHX_ENABLE_TESTS=OFF -DCMAKE_PREFIX_PATH="$DEPS" \
    > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
  cmake --build "$B" -j"$(nproc)" > "$OUT/build.log" 2>&1 || { grep -B2 -A10 -i "error" "$OUT/build.log" | head -60; exit 1; }
  echo "build: $(($(date +%s) - t0)) s"
  H=$PWD/$B/hexpack
fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -1
# the listing (pebble's log line and the --worst rows) -> elements per_pebble inlet outlet
# sj_min sj_mean below_0.3 aspect_max above_20 spacing_min
stats() {
  awk '/^pebble:/ {per = $9; inl = $13; outl = $15; gsub(/[,)]/, "", inl); gsub(/[,)]/, "", outl)}
       /^  min GLL spacing/ {sp = $4}
       $1 ~ /^[0-9]+$/ && NF >= 6 {n++; if ($2 < 0.3) b++; if (n == 1 || $2 < mn) mn = $2; s += $2; if ($5 > mx) mx = $5; if ($5 > 20) c++}
       END {printf "%9d %8s %6s %6s %7.4f %7.4f %6d %7.2f %6d %10s", n, per, inl, outl, mn, n ? s / n : 0, b, mx, c, sp}' "$1"
}
bed_flags() { # bed -> its centres file (packed here) and container flags
  case $1 in
    pb67) echo "inputs/pb67.txt --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3" ;;
    pb67d) echo "inputs/pb67.txt --radius 1.5" ;;
    c300) "$H" pack --n 300 --container cyl:5 --seed 3 --trials 20 -o "$OUT/c300.txt" > /dev/null && echo "$OUT/c300.txt --container cyl:5" ;;
    p300) "$H" pack --n 300 --container cyl:5 --poly 0.2 --seed 5 --trials 20 -o "$OUT/p300.txt" > /dev/null &&
      echo "$OUT/p300.txt --container cyl:5" ;;
    b300) "$H" pack --n 300 --container box:4.3 --seed 2 --trials 20 -o "$OUT/b300.txt" > /dev/null &&
      echo "$OUT/b300.txt --container box:-4.3,4.3,-4.3,4.3" ;;
    c1000) "$H" pack --n 1000 --container cyl:7 --seed 3 --trials 20 -o "$OUT/c1000.txt" > /dev/null &&
      echo "$OUT/c1000.txt --container cyl:7" ;;
    c10000) "$H" pack --n 10000 --container cyl:14 --seed 3 -o "$OUT/c10000.txt" > /dev/null &&
      echo "$OUT/c10000.txt --container cyl:14" ;;
    *) echo "pebble_paths.sh: unknown bed '$1'" >&2; return 1 ;;
  esac
}
IFS=';' read -r -a paths <<< "${PATHS:---fast;default}"
printf "%-24s %9s %8s %6s %6s %7s %7s %6s %7s %6s %10s %8s %8s\n" run elements per_peb inlet outlet sj_min sj_mean "<0.3" \
  asp_max "asp>20" spacing wall_s rss_gb | tee "$OUT/pebble_paths.txt"
for bed in ${BEDS:-pb67 pb67d c300 p300 b300}; do
  read -r -a bf <<< "$(bed_flags "$bed")" || continue
  for k in "${!paths[@]}"; do
    fl=()
    for w in ${paths[$k]}; do [ "$w" = default ] || fl+=("$w"); done
    log=$OUT/$bed-$k.txt
    ts=$(date +%s.%N)
    lf=(--quality --worst 100000000)
    [ "${LIST:-1}" = 0 ] && lf=()
    /usr/bin/time -f "%M" -o "$log.rss" ${LAUNCH:-} "$H" pebble "${bf[@]}" --order "$N" --backend cuda --quiet "${lf[@]}" \
      "${fl[@]}" "$@" > "$log" 2>&1 &
    pid=$!
    if [ "${SAMPLE:-0}" = 1 ]; then
      : > "$log.samples"
      while kill -0 $pid 2> /dev/null; do
        c=$(pgrep -P $pid hexpack | head -1)
        g=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2> /dev/null | sort -g | tail -1)
        r=0
        [ -n "$c" ] && r=$(awk '/VmRSS/ {printf "%.2f", $2 / 1048576}' /proc/$c/status 2> /dev/null)
        echo "$(awk -v a="$ts" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') ${r:-0} GB ${g:-0} MiB | $(tail -1 "$log" | cut -c1-120)" >> "$log.samples"
        sleep 0.5
      done
      sort -t' ' -k2 -g -r "$log.samples" | head -5 > "$OUT/$bed-$k.mem.txt"
      echo "    peak: $(head -1 "$OUT/$bed-$k.mem.txt")" | tee -a "$OUT/pebble_paths.txt"
      echo "    peak GPU memory: $(sort -t' ' -k4 -g -r "$log.samples" | head -1 | cut -d' ' -f1,4,5) (s MiB)" | tee -a "$OUT/pebble_paths.txt"
      rm -f "$log.samples"
    fi
    wait $pid
    rc=$?
    te=$(date +%s.%N)
    printf "%-24s %s %8.1f %8.2f%s\n" "$bed ${paths[$k]}" "$(stats "$log")" "$(awk -v a="$ts" -v b="$te" 'BEGIN {print b - a}')" \
      "$(tail -1 "$log.rss" | awk '{print $1 / 1048576}')" \
      "$([ $rc -ne 0 ] && echo " rc $rc: $(grep -m1 'error' "$log")")" | tee -a "$OUT/pebble_paths.txt"
    grep "optimized at order\|^  order [0-9]*:" "$log" | sed 's/^ *//; s/^/    /' | tee -a "$OUT/pebble_paths.txt"
    [ "${KEEP:-0}" = 1 ] || rm -f "$log" "$log.rss"
  done
done
