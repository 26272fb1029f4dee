#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: configure + build (Release, CUDA on, MPI when
# found), run the CUDA tests (CPU vs CUDA kernels, Newton histories), then the
# benchmarks: kernel throughput vs problem size (hx_bench_kernels, with the
# measured device-to-device copy roofline) and `hexpack bench tmop --backend cuda`
# (Kershaw 24^3, orders 1..4). Logs go to $OUT (or ./gpu-out); a short table last.
#   usage: bash tests/gpu/run.sh [--quick] [--no-bench] [--no-tmop]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
QUICK=0 BENCH=1 TMOP=1
for a in "$@"; do
  case $a in
  --quick) QUICK=1 ;;
  --no-bench) BENCH=0 ;;
  --no-tmop) TMOP=0 ;;
  *) echo "run.sh: unknown flag $a" >&2; exit 2 ;;
  esac
done
B=${HX_GPU_BUILD:-build-gpu}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=ON > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build "$B" -j"$(nproc)" > "$OUT/build.log" 2>&1 || { grep -B2 -A10 -i "error" "$OUT/build.log" | head -80; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
# registers / spills of the kernels (nvcc -Xptxas -v) for the report
grep -A2 "Compiling entry function.*k_\(hess_apply\|grad\|diag\|hess_store\|scalar\)" "$OUT/build.log" \
  | grep -v "^--" > "$OUT/ptxas.txt" || true
cd "$B"
ctest -L cuda --output-on-failure 2>&1 | tee "$OUT/ctest_cuda.log" | tail -8
ctest_rc=$?
for t in t450-cuda-pa t451-cuda-newton; do ./tests/$t > "$OUT/$t.out" 2> "$OUT/$t.err" || true; done
cd ..
if [ $BENCH = 1 ]; then
  maxm=400; [ $QUICK = 1 ] && maxm=20
  ./$B/kernels/cuda/hx_bench_kernels --orders 1,2,3,4 --max-mdofs $maxm 2>&1 | tee "$OUT/bench_kernels.txt"
  ./$B/kernels/cuda/hx_bench_kernels --orders 1,2,3,4 --max-mdofs $maxm --gl 2>&1 | tee "$OUT/bench_kernels_gl.txt"
fi
if [ $TMOP = 1 ]; then
  n=24; [ $QUICK = 1 ] && n=12
  timeout 300 ./$B/src/cli/hexpack bench tmop --n $n --orders 1,2,3,4 --backend cuda 2>&1 | tee "$OUT/bench_tmop_cuda.txt"
fi
echo
echo "== summary ($(head -2 "$OUT/gpu.txt" | tail -1))"
grep -h "ok\|BAD\|skipped" "$OUT"/t45*.out 2>/dev/null | sort | uniq -c | awk '{print "  tests: " $0}' | head -20
[ -f "$OUT/bench_kernels.txt" ] && grep "^#" "$OUT/bench_kernels.txt"
[ -f "$OUT/bench_kernels.txt" ] && awk '!/^#/ && NF > 5 {last[$1] = $0} END {for (p in last) print "  largest: " last[p]}' "$OUT/bench_kernels.txt" | sort
[ -f "$OUT/bench_tmop_cuda.txt" ] && cat "$OUT/bench_tmop_cuda.txt"
exit $ctest_rc
