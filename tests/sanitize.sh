#!/usr/bin/env bash
# The sanitizer job: hexpack and its tests built with AddressSanitizer and UndefinedBehaviorSanitizer
# (-DHX_SANITIZE=ON, gcc, Debug at -O1, no CUDA) into build-asan/, then the fast tests and the fuzz
# corpus of every reader run there. Any sanitizer report fails the test that triggered it
# (UB is not recovered from; ASan aborts), so a green run is a clean run.
#
#   tests/sanitize.sh [CTEST_REGEX]
#
# The default selection is the fast tests: the unit tests of core, io, kernels and the optimizer,
# the fuzz corpus (t151-*), the mutation test (t153), the readers' bad-input tests and the quick CLI
# and mesher tests (about 3 minutes on 2 cores with the build). MPI runs are left out here (Open MPI's own allocations
# are not ours to check); leaks are checked.
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=${HX_ASAN_BUILD:-build-asan}
cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Debug -DHX_SANITIZE=ON -DHX_ENABLE_CUDA=OFF -DHX_ENABLE_MPI=OFF \
  > "$bdir.log" 2>&1 || { cat "$bdir.log"; exit 1; }
cmake --build "$bdir" -j "$(nproc)" >> "$bdir.log" 2>&1 || { grep -E "error|Error" "$bdir.log" | head -40; exit 1; }
sel=${1:-'^(t0(0[0-9]|1[02-9]|22)|t10[13568]|t118|t151|t153|t17[3-7]|t2(01|2[02-4]|50|51)|t30|t40[12]|t50[468]|t510|t540|t60[03478]|t641|t650|t693)'}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_WAIT_POLICY=passive
echo "sanitizer job: ASan + UBSan, tests matching $sel"
ctest --test-dir "$bdir" -j "$(nproc)" -R "$sel" --output-on-failure --timeout 600
