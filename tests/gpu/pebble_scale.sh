#!/usr/bin/env bash
# bench/pebble_scale.sh on the lent GPU machine's host (16 cores, 128 GB; no GPU used), built by
# tests/gpu/host_build.sh (Debian's libqhull_r carried in deps/). Beds packed
# beforehand may be carried as deps/beds/sN.txt (bench/pebble_scale.sh reuses $DIR/sN.txt).
#   usage: bash tests/gpu/pebble_scale.sh "N1 N2 ..." "P1 P2 ..."   (EXTRA as in bench/pebble_scale.sh)
set -u -o pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/host_build.sh
export DIR=${DIR:-/tmp/pebble_scale}
mkdir -p "$DIR"
[ -d "$DEPS/beds" ] && cp -n "$DEPS"/beds/s*.txt "$DIR"/ 2>/dev/null
bash bench/pebble_scale.sh "$B" "${1:-10000 100000}" "${2:-1 16}" 1
