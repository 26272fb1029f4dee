#!/usr/bin/env bash
# Build hexpack and run the whole test suite (ctest), including the MPI runs
# (-np 2 and 4) and the real-reader checks (VTK, Gmsh, meshio).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh "$@"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ctest runs tests side by side, each with its OpenMP threads on the same cores: threads that
# spin at a barrier take the cores of the other test (a small pebble optimize: 14 s -> 5 s)
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ctest --test-dir build -j "$(nproc)" --output-on-failure --timeout 900
