# Sourced by tests/gpu/hv_kernels.sh and tests/gpu/precond.sh with their arguments: makes the
# repository root the working folder, takes the flags --no-build, --all and --no-bench off the
# arguments (BUILD, ALL, BENCH), sets OUT (default ./gpu-out), lists the GPU in $OUT/info.txt and,
# unless --no-build, builds hexpack and the tests (Release, CUDA on; with Debian's Qhull where
# deps/ carries it, as pebble_optimize.sh) in B (HX_GPU_BUILD or build-gpu), the log in
# $B.build.log; exits on a failed configure or build.
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
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
[ -d deps/lib ] && export LD_LIBRARY_PATH=$PWD/deps/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > "$OUT/info.txt" 2>&1
cat "$OUT/info.txt"
if [ $BUILD = 1 ]; then
  hx_t0=$(date +%s)
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=ON -DHX_ENABLE_TESTS=ON -DCMAKE_PREFIX_PATH="$PWD/deps" \
    > "$B.configure.log" 2>&1 || { tail -30 "$B.configure.log"; exit 1; }
  cmake --build "$B" -j"$(nproc)" > "$B.build.log" 2>&1 || { grep -B2 -A10 -i "error" "$B.build.log" | head -80; exit 1; }
  echo "build: $(( $(date +%s) - hx_t0 )) s"
fi
