#!/bin/bash
# Build the libFuzzer harnesses of our readers (clang, ASan+UBSan on our code) and
# fuzz each reader for a while, one after the other.
#
#   tests/fuzz/run.sh [SECONDS] [READER...]     readers: re2 vtu mfem pebble nekfld vtk msh dem (default: all)
#
# Each reader starts from tests/fuzz/corpus/<reader>/ (the minimized corpus kept in
# git) and grows a working corpus in build-fuzz/work/<reader>/; crashes, leaks, hangs
# (> 10 s) and allocations over 256 MB are written to build-fuzz/work/<reader>-crash-*.
# HX_FUZZ_MERGE=1 afterwards minimizes the working corpus back into
# tests/fuzz/corpus/<reader>/ (libFuzzer -merge=1). HX_FUZZ_JOBS (default 1) runs
# that many fuzzing processes per reader.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
shift || true
readers=${*:-"re2 vtu mfem pebble nekfld vtk msh dem"}
bdir=${HX_FUZZ_BUILD:-$src/build-fuzz}
command -v clang >/dev/null || { echo "run.sh: needs clang" >&2; exit 1; }
if [ ! -f "$bdir/CMakeCache.txt" ]; then
  CC=clang cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHX_ENABLE_CUDA=OFF -DHX_ENABLE_MPI=OFF \
    -DHX_ENABLE_TESTS=OFF -DHX_ENABLE_FUZZ=ON >/dev/null
fi
targets=""
for r in $readers; do targets="$targets fuzz_$r"; done
cmake --build "$bdir" -j"${HX_FUZZ_BUILD_JOBS:-2}" --target $targets >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for r in $readers; do
  work=$bdir/work/$r
  mkdir -p "$work"
  echo "== $r: $secs s"
  jobs=""
  [ "${HX_FUZZ_JOBS:-1}" -gt 1 ] && jobs="-jobs=$HX_FUZZ_JOBS -workers=$HX_FUZZ_JOBS"
  # full log in build-fuzz/work/<reader>.log; the summary here
  (cd "$bdir/work" && "$bdir/tests/fuzz/fuzz_$r" "$work" "$src/tests/fuzz/corpus/$r" -max_total_time="$secs" \
    -timeout=10 -malloc_limit_mb=256 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$bdir/work/$r-" \
    -print_final_stats=1 -close_fd_mask=2 $jobs > "$bdir/work/$r.log" 2>&1) || true
  grep -E "INITED|ERROR|SUMMARY|Test unit written|number_of_executed_units|average_exec|DONE" "$bdir/work/$r.log" | tail -8
  if [ "${HX_FUZZ_MERGE:-0}" = 1 ]; then
    tmp=$(mktemp -d)
    "$bdir/tests/fuzz/fuzz_$r" -merge=1 -max_len=65536 -close_fd_mask=2 "$tmp" "$src/tests/fuzz/corpus/$r" "$work" >/dev/null 2>&1
    rm -f "$src/tests/fuzz/corpus/$r"/*
    cp "$tmp"/* "$src/tests/fuzz/corpus/$r"/
    rm -rf "$tmp"
    echo "   merged: $(ls "$src/tests/fuzz/corpus/$r" | wc -l) files, $(du -sk "$src/tests/fuzz/corpus/$r" | cut -f1) KB"
  fi
done
