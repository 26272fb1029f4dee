#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: configure + build (Release, CUDA on, MPI when
# found), run the CUDA tests (CPU vs CUDA kernels, Newton histories), then the
# benchmarks: kernel throughput vs problem size (`hexpack bench kernels`, with the
# measured device-to-device copy roofline) and `hexpack bench tmop --backend cuda`
# (Kershaw 24^3, orders 1..4). Logs go to $OUT (or ./gpu-out); a short table last.
# --profile adds a second `bench tmop` with --sync-timers (operator timers
# wait for the GPU: where the solve's time goes, kernels incl. E<->L vs the rest).
# --no-gl skips the Gauss-Legendre (Q = p + 2) kernel sweep; --cpu adds the cpu backend
# (all cores) on the same Kershaw bench. --curved adds the Kershaw map of smoothness 3 (curved
# elements) at orders 3 and 4, with and without the coarse start (--coarse-start on|off).
# --nodes adds orders 3 and 4 with the GLL-node rule in the line search (--detj-check nodes; the
# default on cuda is the Bernstein bound), the baseline of the bound's cost.
# --adapt adds orders 3 and 4 with adaptive quadrature off (the default's baseline), -qo 12 everywhere, the curved map
# (smoothness 3) with it on and off, and p = 4 with --sync-timers (where the time goes).
# --no-ctest builds without the tests and skips them (benchmarks only).
#   usage: bash tests/gpu/run.sh [--quick] [--no-ctest] [--no-bench] [--no-tmop] [--profile] [--cpu] [--no-gl] [--curved] [--nodes] [--adapt]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
CTEST=1 QUICK=0 BENCH=1 TMOP=1 PROFILE=0 CPU=0 GL=1 CURVED=0 BOUND=0 ADAPT=0
for a in "$@"; do
  case $a in
  --quick) QUICK=1 ;;
  --no-ctest) CTEST=0 ;;
  --no-bench) BENCH=0 ;;
  --no-tmop) TMOP=0 ;;
  --profile) PROFILE=1 ;;
  --cpu) CPU=1 ;;
  --no-gl) GL=0 ;;
  --curved) CURVED=1 ;;
  --nodes) BOUND=1 ;;
  --adapt) ADAPT=1 ;;
  *) echo "run.sh: unknown flag $a" >&2; exit 2 ;;
  esac
done
B=${HX_GPU_BUILD:-build-gpu}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/info.txt" 2>&1
cat "$OUT/info.txt"
t0=$(date +%s)
tests=ON
[ $CTEST = 0 ] && tests=OFF
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=ON -DHX_ENABLE_TESTS=$tests > "$B.configure.log" 2>&1 || { tail -30 "$B.configure.log"; exit 1; }
cmake --build "$B" -j"$(nproc)" > "$B.build.log" 2>&1 || { grep -B2 -A10 -i "error" "$B.build.log" | head -80; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
# registers / spills of the kernels (nvcc -Xptxas -v) for the report
{ echo "== nvcc -Xptxas -v (registers, spills) of the kernels"
  grep -A3 "Compiling entry function.*k_\(hess_apply\|grad\|diag\|hess_store\|scalar\)" "$B.build.log" \
    | grep -v "^--\|Compile time" | sed 's/_ZN[0-9]*_GLOBAL__N__[0-9a-f_]*pa_cuda_cu_[0-9a-f]*//'; } >> "$OUT/info.txt" || true
ctest_rc=0
if [ $CTEST = 1 ]; then
  cd "$B"
  ctest -L cuda -V 2>&1 | tee "$OUT/ctest_cuda.log" | grep -i "ok$\|BAD\|skip\|error\|tests passed\|failed"
  ctest_rc=$?
  cd ..
fi
if [ $BENCH = 1 ]; then
  maxm=400; [ $QUICK = 1 ] && maxm=20
  ./$B/hexpack bench kernels --orders 1,2,3,4 --max-mdofs $maxm 2>&1 | tee "$OUT/bench_kernels.txt"
  [ $GL = 1 ] && ./$B/hexpack bench kernels --orders 1,2,3,4 --max-mdofs $maxm --gl 2>&1 | tee -a "$OUT/bench_kernels.txt"
fi
if [ $TMOP = 1 ]; then
  n=24; [ $QUICK = 1 ] && n=12
  timeout 300 ./$B/hexpack bench tmop --n $n --orders 1,2,3,4 --backend cuda 2>&1 | tee "$OUT/bench_tmop_cuda.txt"
fi
if [ $ADAPT = 1 ]; then
  n=24; [ $QUICK = 1 ] && n=12
  for v in "--adapt-quad off" "--quad-order 12 --adapt-quad off" "--smooth 3" "--smooth 3 --adapt-quad off" \
    "--orders 4 --sync-timers"; do
    echo "== bench tmop $v" | tee -a "$OUT/bench_tmop_adapt.txt"
    # shellcheck disable=SC2086
    timeout 300 ./$B/hexpack bench tmop --n $n --orders 3,4 --reps 1 --backend cuda $v 2>&1 \
      | grep -v "^newton" | tee -a "$OUT/bench_tmop_adapt.txt"
  done
fi
if [ $BOUND = 1 ]; then
  n=24; [ $QUICK = 1 ] && n=12
  timeout 300 ./$B/hexpack bench tmop --n $n --orders 3,4 --reps 1 --backend cuda --detj-check nodes 2>&1 \
    | grep -v "^newton" | tee "$OUT/bench_tmop_bound.txt"
fi
if [ $CURVED = 1 ]; then
  n=24; [ $QUICK = 1 ] && n=12
  for cs in off on; do
    timeout 200 ./$B/hexpack bench tmop --n $n --orders 3,4 --reps 1 --backend cuda --smooth 3 --coarse-start $cs 2>&1 \
      | grep -v "^newton" | tee -a "$OUT/bench_tmop_curved.txt"
  done
fi
if [ $PROFILE = 1 ]; then
  n=24; [ $QUICK = 1 ] && n=12
  timeout 200 ./$B/hexpack bench tmop --n $n --orders 1,2,3,4 --reps 1 --backend cuda --sync-timers 2>&1 \
    | grep -v "^newton" | tee "$OUT/profile_tmop_cuda.txt"
fi
if [ $CPU = 1 ]; then
  n=24; [ $QUICK = 1 ] && n=12
  OMP_NUM_THREADS=$(nproc) timeout 400 ./$B/hexpack bench tmop --n $n --orders 1,2,3,4 --reps 1 --backend cpu 2>&1 \
    | grep -v "^newton" | tee "$OUT/bench_tmop_cpu.txt"
fi
echo
echo "== summary ($(head -2 "$OUT/info.txt" | tail -1))"
if [ -f "$OUT/ctest_cuda.log" ]; then
  grep -c "cuda-vs-cpu ok\|history cpu-vs-cuda ok" "$OUT/ctest_cuda.log" | sed 's/^/  checks ok: /'
  grep "BAD\|skipped\|error:" "$OUT/ctest_cuda.log" | head -10
fi
[ -f "$OUT/bench_kernels.txt" ] && grep "^#" "$OUT/bench_kernels.txt"
[ -f "$OUT/bench_kernels.txt" ] && awk '!/^#/ && !/^ *p / && NF > 5 {last[$1 " " $2] = $0} END {for (p in last) print "  largest: " last[p]}' "$OUT/bench_kernels.txt" | sort
[ -f "$OUT/bench_tmop_cuda.txt" ] && grep -v "^newton" "$OUT/bench_tmop_cuda.txt"
[ -f "$OUT/profile_tmop_cuda.txt" ] && grep "^# p" "$OUT/profile_tmop_cuda.txt" | sed 's/^/  synced: /'
[ -f "$OUT/bench_tmop_cpu.txt" ] && grep -v "^#" "$OUT/bench_tmop_cpu.txt" | sed 's/^/  cpu: /'
exit $ctest_rc
