#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the linear solver's preconditioners side by side on the
# Kershaw benchmark. Builds (Release, CUDA on, tests on), runs the CUDA tests (--all: every one;
# else those of the optimizer's backends, t45x), then `hexpack bench tmop --n 24 --backend cuda`
# at orders 2..4 with Jacobi and with the two-level preconditioner at each Chebyshev degree of
# DEGREES, alternating, twice; the curved map (--smooth 3) at orders 3 and 4; the default
# two-level run with --sync-timers (where the time goes); and the CPU backend at 12^3 (16
# threads) beside the cuda one, both preconditioners. Logs go to $OUT (or ./gpu-out).
#   usage: bash tests/gpu/precond.sh [--no-build] [--all] [--no-bench] [DEGREES]   (DEGREES default "1 3 5")
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
B=${HX_GPU_BUILD:-build-gpu}
BUILD=1 ALL=0 BENCH=1
while [ $# -gt 0 ]; do
  case $1 in
  --no-build) BUILD=0; shift ;;
  --all) ALL=1; shift ;;
  --no-bench) BENCH=0; shift ;;
  *) break ;;
  esac
done
DEGREES=${1:-"1 3 5"}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/info.txt" 2>&1
cat "$OUT/info.txt"
if [ $BUILD = 1 ]; then
  t0=$(date +%s)
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=ON -DHX_ENABLE_TESTS=ON \
    > "$B.configure.log" 2>&1 || { tail -30 "$B.configure.log"; exit 1; }
  cmake --build "$B" -j"$(nproc)" > "$B.build.log" 2>&1 || { grep -B2 -A10 -i "error" "$B.build.log" | head -80; exit 1; }
  echo "build: $(( $(date +%s) - t0 )) s"
fi
if [ $ALL = 1 ]; then
  (cd "$B" && ctest -L cuda -V 2>&1) > "$OUT/ctest_cuda.log"
else
  (cd "$B" && ctest -R "t45" -V 2>&1) > "$OUT/ctest_cuda.log"
fi
grep -i " ok$\|BAD\|skip\|tests passed\|failed\|identical\|differ" "$OUT/ctest_cuda.log" | tail -60
[ $BENCH = 1 ] || exit 0
T=$OUT/precond_tmop.txt
run() { # label, then the bench arguments
  local label=$1
  shift
  echo "== $label: $*" | tee -a "$T"
  timeout 120 ./$B/hexpack bench tmop --reps 1 "$@" 2>&1 | grep -v "^newton" | tee -a "$T"
}
for r in 1 2; do
  run "default: two-level, degree 3 (run $r)" --n 24 --orders 1,2,3,4 --backend cuda
  run "jacobi (run $r)" --n 24 --orders 2,3,4 --backend cuda --precond jacobi
done
for k in $DEGREES; do
  run "two-level degree $k" --n 24 --orders 2,3,4 --backend cuda --precond-degree "$k"
done
run "two-level, no adaptive quadrature" --n 24 --orders 4 --backend cuda --adapt-quad off
run "two-level, node rule" --n 24 --orders 3,4 --backend cuda --detj-check nodes
run "curved, jacobi" --n 24 --orders 3,4 --backend cuda --smooth 3 --precond jacobi
run "curved, two-level" --n 24 --orders 3,4 --backend cuda --smooth 3
run "curved, two-level, coarse start" --n 24 --orders 3,4 --backend cuda --smooth 3 --coarse-start on
run "sync-timers, two-level" --n 24 --orders 2,3,4 --backend cuda --sync-timers
run "sync-timers, jacobi" --n 24 --orders 4 --backend cuda --sync-timers --precond jacobi
for pc in jacobi two-level; do
  run "12^3 cuda, $pc" --n 12 --orders 2,3,4 --backend cuda --precond "$pc"
  OMP_NUM_THREADS=16 run "12^3 cpu 16 threads, $pc" --n 12 --orders 2,3,4 --backend cpu --threads 16 --precond "$pc"
done
