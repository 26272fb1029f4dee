#!/usr/bin/env bash
# The pebble mesh optimized on the GPU (issue 5 with issue 7's CUDA backend): builds a
# Release hexpack with CUDA and Debian's libqhull_r carried in deps/ (see host_build.sh),
# runs the CUDA tests of TMOP, then pb67 (inputs/pb67.txt, R = 1.5, cylinder 6.6, inlet and
# outlet 3) with `--optimize` (the pebble defaults: metric 318, target 4, equal weights,
# --keep-sj 0.1, 80 Newton steps) at order 3 on the cpu and the cuda backend with 10 Newton
# steps (the same quality to rounding expected), and at order ORDERS (default 7) on cuda with
# the defaults (solved at order 3, the moves carried to order N: --optimize-order), on cpu with
# the same defaults (the host's 16 cores), on cuda solved at order N itself (--optimize-order N,
# an earlier default), and the mesh of --score nek too (600 elements per
# pebble), each with the
# quality listing of every element before and after: Nek5000 scaled Jacobian min / mean /
# below 0.1 / below 0.3, aspect max, and the wall times. Logs and tables go to $OUT.
# The runs above are the fast path's (--fast) mesher, with --optimize where they optimize.
# SETS="flags;flags;...": instead (words NAME=VALUE of a set go to its runs' environment;
# SKIP_MESHED=1 runs the optimized meshes only), flag sets added to the default (quality) path's
# (the word default: the default itself; --fast in a set: the fast path's) at the last order, each meshed and optimized on
# cuda (pb67, and the poured cylinder with PACKED=1, with the polydisperse cylinder and the square prism
# too with PACKED=all): a sweep of the mesher's knobs under --optimize.
# BED67="--radius 1.5" (say): pb67's own flags instead of the cylinder 6.6 with inlet and outlet 3;
# PB67D=1 in SETS mode: pb67 in its default container (the bed's bounding cylinder) as well;
# BEDS="pb67 pb67d c300 p300 b300" (any of them): those beds instead (the 10^3 and 10^4 beds:
# pebble_paths.sh). PB_QUIET= (empty): the SETS
# runs without --quiet, so that their tables show each repair pass (bad elements, Newton steps, time).
#   usage: [PACKED=1] [SKIP_PB67=1] [SETS=...] bash tests/gpu/pebble_optimize.sh [ORDERS (comma list, default 7)] [more flags]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
ORDERS=${1:-7}
shift || true
DEPS=$PWD/deps
[ -d "$DEPS/lib" ] && export LD_LIBRARY_PATH=$DEPS/lib:${LD_LIBRARY_PATH:-}
B=${HX_GPU_BUILD:-build-gpu}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -1
t0=$(date +%s)
# TESTS=OFF: hexpack alone, no tests built or run
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=ON -DHX_ENABLE_TESTS="${TESTS:-ON}" -DCMAKE_PREFIX_PATH="$DEPS" > "$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 1; }
grep -i "qhull" "$OUT/configure.log" | head -2
cmake --build "$B" -j"$(nproc)" > "$OUT/build.log" 2>&1 || { grep -B2 -A10 -i "error" "$OUT/build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
# CTEST="-R t453" (say): those tests instead of the CUDA label's
[ "${TESTS:-ON}" = OFF ] || (cd "$B" && read -r -a ct <<< "${CTEST:--L cuda}" && ctest "${ct[@]}" 2>&1 | grep -E "tests passed|Failed|FAIL|Passed")
H=$PWD/$B/hexpack
BED=(pebble inputs/pb67.txt --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3)
[ -n "${BED67:-}" ] && read -r -a BED <<< "pebble inputs/pb67.txt $BED67" # BED67="flags": pb67 in another container
BED0=("${BED[@]}")
MODE=(--fast) # the tables below: the fast path's mesher, --optimize added; SETS: the default (quality) path's
stats() { # listing file -> n per-pebble min mean <0.1 <0.3 aspect_max aspect>20
  awk '/^pebble:/ {per = $9} $1 ~ /^[0-9]+$/ && NF >= 6 {n++; if ($2 < 0.1) a++; if ($2 < 0.3) b++; if (n == 1 || $2 < mn) mn = $2; s += $2; if ($5 > mx) mx = $5; if ($5 > 20) c++}
       END {printf "%d %s %.4g %.4f %d %d %.1f %d", n, per, mn, s / n, a, b, mx, c}' "$1"
}
printf "%-30s %8s %7s %9s %7s %6s %6s %7s %6s %8s\n" run elements per_peb sj_min sj_mean "<0.1" "<0.3" asp_max "asp>20" wall_s | tee "$OUT/pebble_optimize.txt"
one() { # label order flags...
  local lab=$1 p=$2; shift 2
  local ts te
  ts=$(date +%s.%N)
  "$H" "${BED[@]}" "${MODE[@]}" --order "$p" --quality --worst 100000000 "$@" > "$OUT/$lab.txt" 2>&1
  local rc=$?
  te=$(date +%s.%N)
  printf "%-30s %s %8.1f%s\n" "$lab" "$(stats "$OUT/$lab.txt")" "$(awk -v a="$ts" -v b="$te" 'BEGIN {print b - a}')" "$([ $rc -ne 0 ] && echo " rc $rc")" | tee -a "$OUT/pebble_optimize.txt"
  grep "^optimize:\|optimized at order\|--repair\|^repair pass\|^transfer to order\|^  order [0-9]*:" "$OUT/$lab.txt" | sed 's/^ *//; s/^/    /' | tee -a "$OUT/pebble_optimize.txt"
}
if [ -n "${SETS:-}" ]; then
  MODE=()
  p=${ORDERS##*,}
  beds=()
  [ "${SKIP_PB67:-0}" = 1 ] || beds=(pb67)
  [ "${PB67D:-0}" = 1 ] && beds+=(pb67d) # PB67D=1: pb67 in its default container too
  if [ "${PACKED:-0}" != 0 ]; then # 1: c300; all: the polydisperse p300 and the square b300 too
    "$H" pack --n 300 --container cyl:5 --seed 3 --trials 20 -o "$OUT/c300.txt" > /dev/null
    beds+=(c300)
    if [ "$PACKED" = all ]; then
      "$H" pack --n 300 --container cyl:5 --poly 0.2 --seed 5 --trials 20 -o "$OUT/p300.txt" > /dev/null
      "$H" pack --n 300 --container box:4.3 --seed 2 --trials 20 -o "$OUT/b300.txt" > /dev/null
      beds+=(p300 b300)
    fi
  fi
  if [ -n "${BEDS:-}" ]; then # BEDS="p300 b300" (say): these beds alone
    read -r -a beds <<< "$BEDS"
    for b in "${beds[@]}"; do
      case $b in
        c300) "$H" pack --n 300 --container cyl:5 --seed 3 --trials 20 -o "$OUT/c300.txt" > /dev/null ;;
        p300) "$H" pack --n 300 --container cyl:5 --poly 0.2 --seed 5 --trials 20 -o "$OUT/p300.txt" > /dev/null ;;
        b300) "$H" pack --n 300 --container box:4.3 --seed 2 --trials 20 -o "$OUT/b300.txt" > /dev/null ;;
      esac
    done
  fi
  IFS=';' read -r -a sets <<< "$SETS"
  for bed in "${beds[@]}"; do
    case $bed in
      pb67) BED=("${BED0[@]}") ;;
      pb67d) BED=(pebble inputs/pb67.txt --radius 1.5) ;;
      c300 | p300) BED=(pebble "$OUT/$bed.txt" --container cyl:5) ;;
      b300) BED=(pebble "$OUT/$bed.txt" --container box:-4.3,4.3,-4.3,4.3) ;;
    esac
    for i in "${!sets[@]}"; do
      echo "set $i: ${sets[$i]:-(defaults)}" | tee -a "$OUT/pebble_optimize.txt"
      ( # words NAME=VALUE of a set are put in the environment of its runs
        fl=()
        for w in ${sets[$i]}; do
          case $w in [A-Z]*=*) export "${w?}" ;; default) ;; *) fl+=("$w") ;; esac
        done
        [ "${SKIP_MESHED:-0}" = 1 ] || one $bed-s$i-meshed "$p" "${fl[@]}" --no-optimize
        one $bed-s$i-cuda "$p" "${fl[@]}" --optimize --backend cuda ${PB_QUIET---quiet} "$@"
      )
      # keep the elements that miss a goal (Nek scaled Jacobian below 0.3, aspect above 20)
      awk '$1 ~ /^[0-9]+$/ && NF >= 6 && ($2 < 0.3 || $5 > 20)' "$OUT/$bed-s$i-cuda.txt" > "$OUT/$bed-s$i-bad.txt" 2>/dev/null
      # and the solve's own lines (with --debug tmop in a set: the hold-back's rounds by reason)
      grep -E "keep-sj round|--repair|^optimize" "$OUT/$bed-s$i-cuda.txt" > "$OUT/$bed-s$i-log.txt" 2>/dev/null
      rm -f "$OUT/$bed-s$i-meshed.txt" "$OUT/$bed-s$i-cuda.txt"
    done
  done
  exit 0
fi
if [ "${SKIP_PB67:-0}" != 1 ]; then
one o3-meshed 3
one o3-cpu 3 --optimize --backend cpu --newton-iters 10 --quiet "$@"
one o3-cuda 3 --optimize --backend cuda --newton-iters 10 --quiet "$@"
for p in ${ORDERS//,/ }; do
  one o$p-meshed "$p"
  one o$p-cuda "$p" --optimize --backend cuda --quiet "$@"
  one o$p-cpu "$p" --optimize --backend cpu --quiet "$@"
  one o$p-cuda-direct "$p" --optimize --optimize-order "$p" --backend cuda --quiet "$@"
  one o$p-nek-meshed "$p" --score nek
  one o$p-nek-cuda "$p" --score nek --optimize --backend cuda --quiet "$@"
done
fi
# PACKED=1: three poured beds of 300 spheres (hexpack pack: a cylinder, a polydisperse cylinder,
# a square prism) at the last order, meshed and optimized with the defaults and with --score nek
if [ "${PACKED:-0}" = 1 ]; then
  p=${ORDERS##*,}
  "$H" pack --n 300 --container cyl:5 --seed 3 --trials 20 -o "$OUT/c300.txt" > /dev/null
  "$H" pack --n 300 --container cyl:5 --poly 0.2 --seed 5 --trials 20 -o "$OUT/p300.txt" > /dev/null
  "$H" pack --n 300 --container box:4.3 --seed 2 --trials 20 -o "$OUT/b300.txt" > /dev/null
  for bed in c300 p300 b300; do
    case $bed in b300) C=(--container box:-4.3,4.3,-4.3,4.3) ;; *) C=(--container cyl:5) ;; esac
    BED=(pebble "$OUT/$bed.txt" "${C[@]}")
    one $bed-o$p-meshed "$p"
    one $bed-o$p-cuda "$p" --optimize --backend cuda --quiet "$@"
    one $bed-o$p-nek-meshed "$p" --score nek
    one $bed-o$p-nek-cuda "$p" --score nek --optimize --backend cuda --quiet "$@"
  done
fi
