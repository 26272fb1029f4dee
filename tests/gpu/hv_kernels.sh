#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the on-the-fly Hessian action's CUDA kernels side by side.
# Builds (Release, CUDA on, tests on) and runs the CUDA tests (t450 checks CUDA against the CPU,
# and every column kernel against the kernel with a thread per point; --all: every CUDA test),
# then `hexpack bench kernels` (its H.v(pt) column is the kernel with a thread per point, timed in
# the same run): the default on orders 1..4 up to 80 MDOF at -qo 8 and up to 10 MDOF with Gauss
# points (--gl), and each column kernel of KERNELS (--hv-kernel: 10 x elements per block + blocks
# per SM, 100 + the same for the split column kernel) on orders 2..4 up to 10 MDOF; then `hexpack bench tmop` (Kershaw 24^3, cuda) with the
# default and with the point kernel, alternating, twice: orders 1..4, and orders 3, 4 with
# --sync-timers (the Hessian actions' share of the solve). Logs go to $OUT (or ./gpu-out).
# --no-bench: the build and the tests only.
#   usage: bash tests/gpu/hv_kernels.sh [--no-build] [--all] [--no-bench] [KERNELS]   (KERNELS default "124 23 82")
# shellcheck source=tests/gpu/cuda_build.sh
source "$(dirname "$0")/cuda_build.sh"
KERNELS=${1:-"124 23 82"}
[ $BUILD = 1 ] && { grep -A3 "Compiling entry function.*k_hess_apply" "$B.build.log" | grep -v "^--\|Compile time" \
  | sed 's/_ZN[0-9]*_GLOBAL__N__[0-9a-f_]*pa_cuda_cu_[0-9a-f]*//' > "$OUT/ptxas_hess_apply.txt" || true; }
if [ $ALL = 1 ]; then
  (cd "$B" && ctest -L cuda -V 2>&1) > "$OUT/ctest_cuda.log"
  grep -i " ok$\|BAD\|skip\|tests passed\|failed" "$OUT/ctest_cuda.log" | tail -80
else
  (cd "$B" && ctest -R t450 -V 2>&1) > "$OUT/t450.log"
  grep -i "ok\|BAD\|skip\|error" "$OUT/t450.log" | grep -v "^test\|Test command" | tail -60
fi
[ $BENCH = 1 ] || exit 0
echo "== bench kernels (default)" | tee -a "$OUT/hv_kernels.txt"
timeout 150 ./$B/hexpack bench kernels --orders 1,2,3,4 --max-mdofs 80 2>&1 | tee -a "$OUT/hv_kernels.txt"
echo "== bench kernels --gl (default)" | tee -a "$OUT/hv_kernels.txt"
timeout 100 ./$B/hexpack bench kernels --orders 1,2,3,4 --max-mdofs 10 --gl 2>&1 | tee -a "$OUT/hv_kernels.txt"
for r in 1 2; do
  for k in 0 1; do
    echo "== bench tmop --hv-kernel $k (run $r)" | tee -a "$OUT/hv_tmop.txt"
    timeout 100 ./$B/hexpack bench tmop --n 24 --orders 1,2,3,4 --reps 1 --backend cuda --hv-kernel "$k" 2>&1 \
      | grep -v "^newton" | tee -a "$OUT/hv_tmop.txt"
  done
done
for k in 0 1; do
  echo "== bench tmop --sync-timers --hv-kernel $k" | tee -a "$OUT/hv_tmop.txt"
  timeout 100 ./$B/hexpack bench tmop --n 24 --orders 3,4 --reps 1 --backend cuda --sync-timers --hv-kernel "$k" 2>&1 \
    | grep -v "^newton" | tee -a "$OUT/hv_tmop.txt"
done
for k in $KERNELS; do
  echo "== bench kernels --hv-kernel $k" | tee -a "$OUT/hv_kernels.txt"
  timeout 60 ./$B/hexpack bench kernels --orders 2,3,4 --max-mdofs 10 --hv-kernel "$k" 2>&1 | tee -a "$OUT/hv_kernels.txt"
done
