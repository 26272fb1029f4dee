#!/usr/bin/env bash
# t603: an unwritable output path (missing directory, or a directory in the way)
# gives one line naming the path, a non-zero exit, and no file or temporary left.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
expect_fail() {
  local want=$1; shift
  "$HEXPACK" "$@" > /dev/null 2> err.txt
  local rc=$? lines; lines=$(wc -l < err.txt)
  if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" err.txt; then
    echo "ok   exit $rc  hexpack $*  ->  $(cat err.txt)"
  else
    echo "FAIL hexpack $* (exit $rc): $(cat err.txt)"; fail=1
  fi
  rm -f err.txt
}
expect_fail "/nonexistent-dir/x.vtu" box --n 6 -o /nonexistent-dir/x.vtu
mkdir taken.vtu
expect_fail "taken.vtu" box --n 6 -o taken.vtu
"$HEXPACK" box --n 6 -o ok.vtu > /dev/null
expect_fail "/nonexistent-dir/y.vtu" convert ok.vtu /nonexistent-dir/y.vtu
expect_fail "/nonexistent-dir/h.png" quality ok.vtu --plot /nonexistent-dir/h.png
expect_fail "/nonexistent-dir/d.vtu" demo -o /nonexistent-dir/d.vtu
expect_fail "missing.vtu" quality missing.vtu
left=$(ls -A | grep -v -x -e taken.vtu -e ok.vtu)
[ -z "$left" ] || { echo "FAIL: left behind: $left"; fail=1; }
[ -z "$(ls -A taken.vtu)" ] || { echo "FAIL: files inside taken.vtu"; fail=1; }
exit $fail
