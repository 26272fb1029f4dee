#!/usr/bin/env bash
# t686: `hexpack pebble` under mpiexec (the mesher distributed over the ranks, issue 5)
# reports the same mesh as on one rank: for a packed bed with inlet/outlet extrusions
# at order 3 and for pb67 at order 2, the text report and the --quality table of 2 and
# 4 ranks equal the 1-rank ones (times excepted: the lines with "time" are dropped).
# Writing a distributed mesh needs the writers' parallel output; until then `-o` under
# mpiexec must be refused with a one-line message naming the file, and leave no file.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
MPIEXEC=${MPIEXEC:-mpiexec}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
"$HEXPACK" pack --n 40 --container box:3.2 --trials 10 --seed 3 -o s40.txt > /dev/null
cp "$HX_SOURCE_DIR/inputs/pb67.txt" pb67.txt
run() { # np name args...
  local np=$1 name=$2
  shift 2
  if [ "$np" -eq 1 ]; then "$HEXPACK" pebble "$@" > "$name.np$np" 2> "$name.err$np"
  else "$MPIEXEC" -n "$np" --oversubscribe "$HEXPACK" pebble "$@" > "$name.np$np" 2> "$name.err$np"; fi
  echo $?
}
for np in 1 2 4; do
  rc=$(run $np bed s40.txt --container box:-3.2,3.2,-3.2,3.2 --inlet 2 --outlet 2 --order 3 --quality)
  check "bed np $np: exit 0" "[ $rc -eq 0 ]"
  rc=$(run $np pb67 pb67.txt --radius 1.5 --container cyl:6.6 --order 2 --quality)
  check "pb67 np $np: exit 0" "[ $rc -eq 0 ]"
done
head -12 bed.np1
for name in bed pb67; do
  for np in 2 4; do
    check "$name: np $np report = np 1 report" "diff <(grep -v time $name.np1) <(grep -v time $name.np$np) > /dev/null"
  done
done
check "bed: the quality table is there" "grep -q 'scaled Jacobian (Nek)' bed.np1"
check "bed: inlet and outlet elements" "grep -q 'inlet [1-9]' bed.np1"
# writing under mpiexec: refused until the writers handle distributed meshes
if grep -q "distributed over" "$HX_SOURCE_DIR/src/io/ioutil.c"; then
  "$MPIEXEC" -n 2 --oversubscribe "$HEXPACK" pebble s40.txt --container box:-3.2,3.2,-3.2,3.2 --order 1 -o x.re2 > out.txt 2> err.txt
  rc=$?
  check "-o under mpiexec: non-zero exit" "[ $rc -ne 0 ]"
  check "-o under mpiexec: message names the file" "grep -q 'x.re2' err.txt"
  check "-o under mpiexec: no file left" "[ ! -e x.re2 ]"
  cat err.txt | head -2
fi
exit $fail
