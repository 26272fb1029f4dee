#!/usr/bin/env bash
# bench/pebble_scale.sh on the lent GPU machine's host (16 cores, 128 GB; no GPU used). That
# host has no Qhull package: carry Debian's headers and libqhull_r as deps/include/libqhull_r/
# and deps/lib/libqhull_r.so* (found through CMAKE_PREFIX_PATH and LD_LIBRARY_PATH). Beds packed
# beforehand may be carried as deps/beds/sN.txt (bench/pebble_scale.sh reuses $DIR/sN.txt).
#   usage: bash tests/gpu/pebble_scale.sh "N1 N2 ..." "P1 P2 ..."   (EXTRA as in bench/pebble_scale.sh)
set -u -o pipefail
cd "$(dirname "$0")/../.."
B=${HX_SCALE_BUILD:-build-scale}
DEPS=$PWD/deps
[ -d "$DEPS/lib" ] && export LD_LIBRARY_PATH=$DEPS/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=OFF -DHX_ENABLE_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$DEPS" > "$B.configure.log" 2>&1 || { tail -30 "$B.configure.log"; exit 1; }
grep -i "qhull" "$B.configure.log" | head -3
cmake --build "$B" -j"$(nproc)" > "$B.build.log" 2>&1 || { grep -B2 -A10 -i "error" "$B.build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
export DIR=${DIR:-/tmp/pebble_scale}
mkdir -p "$DIR"
[ -d "$DEPS/beds" ] && cp -n "$DEPS"/beds/s*.txt "$DIR"/ 2>/dev/null
bash bench/pebble_scale.sh "$B" "${1:-10000 100000}" "${2:-1 16}" 1
