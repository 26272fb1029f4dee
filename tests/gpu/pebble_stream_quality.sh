#!/usr/bin/env bash
# The default (quality) path at order N (default 7) on cuda with its order-N mesh whole
# (--no-stream) and streamed (the default: the order-3 copy solved whole, the transfer and the
# order-N repair a block of elements at a time): c300 with the quality listing of every element (the two must agree),
# then c1000 without the listing, sampling the resident memory (the wall time and the peak RSS
# of each). Builds hexpack once (pebble_paths.sh); tables in $OUT/pebble_paths.txt, the logs
# with their --json (c1000) kept.
#   usage: bash tests/gpu/pebble_stream_quality.sh [N]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
export OUT KEEP=1
N=${1:-7}
BEDS="c300" PATHS="--no-stream;default" bash tests/gpu/pebble_paths.sh "$N" || exit 1
H=$PWD/${HX_GPU_BUILD:-build-gpu}/hexpack LIST=0 SAMPLE=1 BEDS="c1000" PATHS="default;--no-stream" \
  bash tests/gpu/pebble_paths.sh "$N" --json
