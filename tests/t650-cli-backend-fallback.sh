#!/usr/bin/env bash
# t650: --backend on a machine or build without CUDA. `--backend cuda` (box
# --optimize, optimize, bench tmop) prints one line on stderr naming the backend
# and why (not in this build / no device), exits non-zero and leaves no output
# file; `--backend auto` falls back to cpu: the same Newton log as --backend cpu.
# Where a CUDA device is present and the build has the backend, --backend cuda
# must instead succeed (checked on the GPU machine by tests/gpu/run.sh).
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
"$HEXPACK" box --n 6,4,4 --hi 1.5,1,1 --kershaw 0.3,0.3 --order 2 -o k.vtu > /dev/null || { echo "FAIL: box"; exit 1; }
rm -f out.vtu
"$HEXPACK" optimize k.vtu -o out.vtu --backend cuda --threads 1 > cuda.txt 2> err.txt
rc=$?
if [ $rc -eq 0 ]; then
  # only acceptable where a GPU is present
  if nvidia-smi -L 2> /dev/null | grep -q "^GPU"; then
    echo "ok   --backend cuda ran on this machine's GPU ($(nvidia-smi -L | head -1))"
    grep -q "^newton   1  energy" cuda.txt err.txt || { echo "FAIL: no per-iteration log from the cuda run"; fail=1; }
  else
    echo "FAIL: --backend cuda succeeded on a machine without an NVIDIA GPU"; fail=1
  fi
else
  want1="backend 'cuda': no CUDA device is present on this machine"
  want2="backend 'cuda' is not in this build"
  lines=$(wc -l < err.txt)
  [ "$lines" -eq 1 ] || { echo "FAIL ($lines lines on stderr): optimize --backend cuda"; cat err.txt; fail=1; }
  grep -qF -e "$want1" -e "$want2" err.txt || { echo "FAIL (message): $(cat err.txt)"; fail=1; }
  ls out.vtu* > /dev/null 2>&1 && { echo "FAIL (output left)"; fail=1; }
  echo "ok   exit $rc  optimize --backend cuda  ->  $(cat err.txt)"
  for cmd in "box --n 6 --order 1 --kershaw 0.3,0.3 --optimize --backend cuda -o out.vtu" \
             "bench tmop --n 6 --orders 1 --backend cuda"; do
    rm -f out.vtu
    # shellcheck disable=SC2086
    "$HEXPACK" $cmd > /dev/null 2> err.txt
    rc=$?
    lines=$(wc -l < err.txt)
    if [ $rc -eq 0 ] || [ "$lines" -ne 1 ] || ! grep -qF -e "$want1" -e "$want2" err.txt || ls out.vtu* > /dev/null 2>&1; then
      echo "FAIL: hexpack $cmd: exit $rc, $lines lines: $(cat err.txt)"; fail=1
    else
      echo "ok   exit $rc  hexpack $cmd  ->  $(cat err.txt)"
    fi
  done
  # auto falls back to cpu: the same run as --backend cpu
  "$HEXPACK" optimize k.vtu -o a.vtu --backend auto --threads 1 > auto.txt 2>&1 || { echo "FAIL: --backend auto"; cat auto.txt; fail=1; }
  "$HEXPACK" optimize k.vtu -o c.vtu --backend cpu --threads 1 > cpu.txt 2>&1 || { echo "FAIL: --backend cpu"; cat cpu.txt; fail=1; }
  grep "^newton" auto.txt > auto.log
  grep "^newton" cpu.txt > cpu.log
  if [ -s cpu.log ] && cmp -s auto.log cpu.log; then
    echo "ok   --backend auto fell back to cpu: the same $(wc -l < cpu.log) Newton lines"
  else
    echo "FAIL: --backend auto differs from --backend cpu"; diff auto.log cpu.log | head; fail=1
  fi
fi
exit $fail
