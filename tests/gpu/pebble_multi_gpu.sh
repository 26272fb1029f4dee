#!/usr/bin/env bash
# The default (quality) path at order N (default 7) on every GPU of one host: mpirun with one rank
# a GPU (each takes the GPU of its place on the host, hx_cuda_select_device; the host's cores
# shared out), against one rank on one GPU. c300 both ways with the quality listing of every
# element (the meshes must agree: the solve's sums run in another order on several ranks), then
# c1000 on every GPU. nvidia-smi's processes, sampled every second, show which GPUs each run used.
# Builds hexpack as pebble_paths.sh does; the tables also into $OUT/one_rank.txt and
# $OUT/ranks_c300.txt.   usage: bash tests/gpu/pebble_multi_gpu.sh [N]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
export OUT
mkdir -p "$OUT"
N=${1:-7}
G=$(nvidia-smi -L | wc -l)
T=$(($(nproc) / G))
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
(while true; do nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader >> "$OUT/apps.txt" 2>&1; sleep 1; done) &
S=$!
BEDS="c300" PATHS=default bash tests/gpu/pebble_paths.sh "$N" || { kill $S; exit 1; }
cp "$OUT/pebble_paths.txt" "$OUT/one_rank.txt"
echo "--- $G ranks, $T threads each"
H=$PWD/${HX_GPU_BUILD:-build-gpu}/hexpack LAUNCH="mpirun --oversubscribe -np $G -x OMP_NUM_THREADS=$T -x LD_LIBRARY_PATH" \
  BEDS="c300" PATHS=default bash tests/gpu/pebble_paths.sh "$N"
cp "$OUT/pebble_paths.txt" "$OUT/ranks_c300.txt"
H=$PWD/${HX_GPU_BUILD:-build-gpu}/hexpack LAUNCH="mpirun --oversubscribe -np $G -x OMP_NUM_THREADS=$T -x LD_LIBRARY_PATH" \
  LIST=0 BEDS="c1000" PATHS=default bash tests/gpu/pebble_paths.sh "$N"
kill $S
echo "GPUs that hexpack's processes used (bus id: the most MiB seen, processes):"
awk -F', ' '{split($3, a, " "); if (a[1] + 0 > m[$2]) m[$2] = a[1] + 0; p[$2 " " $1] = 1}
  END {for (k in p) {split(k, b, " "); n[b[1]]++} for (g in m) print "  " g ": " m[g] " MiB, " n[g] " process(es)"}' "$OUT/apps.txt"
