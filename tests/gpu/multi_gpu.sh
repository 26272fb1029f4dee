#!/usr/bin/env bash
# The default (quality) path on every GPU of one host, one rank a GPU, against one rank on one
# GPU: builds hexpack and the tests as cuda_build.sh does, runs the CUDA tests of the exchange
# between ranks and of the Hessian's chunks (t450, t452), then each bed of BEDS (default c300)
# on one rank and on G ranks (G the host's GPUs, its cores shared out), without the quality
# listing, the wall time, peak RSS and the busiest GPU's memory sampled (pebble_paths.sh, LIST=0
# SAMPLE=1); BIG beds (e.g. c10000) on G ranks only. Logs stay in $OUT (KEEP=1).
#   usage: [BEDS="c300"] [BIG="c10000"] bash tests/gpu/multi_gpu.sh [--no-build] [N]
. "$(dirname "$0")/cuda_build.sh"
N=${1:-7}
G=$(nvidia-smi -L | wc -l)
T=$(($(nproc) / G))
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OUT KEEP=1
if [ "$BUILD" = 1 ]; then
  (cd "$B" && ctest -R "t450|t452" -V > "$OUT/ctest.log" 2>&1)
  grep -E "ok$|BAD|skip|tests passed|tests failed" "$OUT/ctest.log" | sort | uniq -c | sort -rn | head -20
fi
H=$PWD/$B/hexpack
export H
L="mpirun --oversubscribe -np $G --bind-to none -x OMP_NUM_THREADS=$T -x LD_LIBRARY_PATH"
for bed in ${BEDS-c300}; do
  LIST=0 SAMPLE=1 BEDS=$bed PATHS=default bash tests/gpu/pebble_paths.sh "$N"
  echo "--- $G ranks, $T threads each"
  LAUNCH="$L" LIST=0 SAMPLE=1 BEDS=$bed PATHS=default bash tests/gpu/pebble_paths.sh "$N"
done
for bed in ${BIG:-}; do
  echo "--- $bed: $G ranks, $T threads each"
  LAUNCH="$L" LIST=0 SAMPLE=1 BEDS=$bed PATHS=default bash tests/gpu/pebble_paths.sh "$N"
done
