# Sourced by shell tests: HEXPACK (the binary; ./build/hexpack by default), SRC (the sources:
# HX_SOURCE_DIR or .), dir (a temporary folder, removed at exit), fail (0 until a check fails)
# and check NAME CONDITION (prints "ok   NAME" or "FAIL NAME" and sets fail=1).
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
SRC=${HX_SOURCE_DIR:-.}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
