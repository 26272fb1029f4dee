#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the linear solver's preconditioners side by side on the
# Kershaw benchmark. Builds (Release, CUDA on, tests on), runs the CUDA tests (--all: every one;
# else those of the optimizer's backends, t45x), then `hexpack bench tmop --n 24 --backend cuda`:
# the default (two-level from order 2) at orders 1..4 and Jacobi at 2..4, alternating, twice; the
# two-level preconditioner at each Chebyshev degree of DEGREES, without adaptive quadrature, with
# the node rule; the curved map (--smooth 3) at orders 3 and 4 (Jacobi, two-level, with the coarse
# start); both with --sync-timers (where the time goes); and the CPU backend at 12^3 (16
# threads) beside the cuda one, both preconditioners. Logs go to $OUT (or ./gpu-out).
#   usage: bash tests/gpu/precond.sh [--no-build] [--all] [--no-bench] [DEGREES]   (DEGREES default "1 3 5")
# shellcheck source=tests/gpu/cuda_build.sh
source "$(dirname "$0")/cuda_build.sh"
DEGREES=${1:-"1 3 5"}
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
