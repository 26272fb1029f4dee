#!/usr/bin/env bash
# Build hexpack and run the whole test suite (ctest), including the MPI runs
# (-np 2 and 4) and the real-reader checks (VTK, Gmsh, meshio).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh "$@"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir build -j "$(nproc)" --output-on-failure --timeout 900
