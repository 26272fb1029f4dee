#!/usr/bin/env bash
# Configure and build hexpack into build/ (Release). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j "$(nproc)" >>build.log 2>&1 || { grep -E "error|Error" build.log | head -40; exit 1; }
echo "hexpack built: build/hexpack"
