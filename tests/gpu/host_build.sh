# Sourced by the tests/gpu/pebble_*.sh scripts (run from the repository root): builds the
# CPU-only Release hexpack on the lent machine's host, which has no Qhull package: Debian's
# headers and libqhull_r are carried as deps/include/libqhull_r/ and deps/lib/libqhull_r.so*
# (found through CMAKE_PREFIX_PATH and LD_LIBRARY_PATH). Sets H (the binary) and B (its build
# directory, HX_SCALE_BUILD or build-scale) from the sources in HX_BUILD_SRC (default .); exits
# on a failed configure or build.
B=${HX_SCALE_BUILD:-build-scale}
DEPS=$PWD/deps
[ -d "$DEPS/lib" ] && export LD_LIBRARY_PATH=$DEPS/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
hx_t0=$(date +%s)
cmake -S "${HX_BUILD_SRC:-.}" -B "$B" -DCMAKE_BUILD_TYPE=Release -DHX_ENABLE_CUDA=OFF -DHX_ENABLE_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$DEPS" > "$B.configure.log" 2>&1 || { tail -30 "$B.configure.log"; exit 1; }
grep -i "qhull" "$B.configure.log" | head -3
cmake --build "$B" -j"$(nproc)" > "$B.build.log" 2>&1 || { grep -B2 -A10 -i "error" "$B.build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - hx_t0 )) s"
case $B in /*) H=$B/hexpack ;; *) H=$PWD/$B/hexpack ;; esac
