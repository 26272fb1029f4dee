#!/usr/bin/env bash
# t162: failures while writing under mpiexec end every rank the same way: one
# "hexpack: error" line (from rank 0) naming the file, a non-zero exit on EVERY rank
# (each rank's own exit status is recorded), no output or temporary file, no hang
# (each run has a 60 s limit).
# - an unwritable path, for each format (rank 0 cannot open the file while the
#   other ranks wait to send their blocks);
# - a mesh with det J < 0 in an element that lives on the LAST rank: the check
#   before writing is collective, so rank 0 refuses too and names that element by
#   its global index;
# - the .re2's field file (written by all ranks) failing: no .re2 is left either.
set -u
HEXPACK=${HEXPACK:?}
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
fail=0
pass=0
check() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=1; fi; }
# run NP ARGS...: every rank writes its exit status to rc.<rank>
run() {
  local np=$1; shift
  rm -f rc.*
  timeout 60 "$MPIEXEC" -n $np --oversubscribe bash -c \
    '"$0" "$@"; echo $? > rc.${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}' "$HEXPACK" "$@" > out.txt 2> err.txt
  echo $? > rc.mpiexec
}
all_failed() { # NP
  local n=0
  for r in $(seq 0 $(($1 - 1))); do [ -f rc.$r ] && [ "$(cat rc.$r)" -ne 0 ] && n=$((n + 1)); done
  [ $n -eq $1 ] && [ "$(cat rc.mpiexec)" -ne 124 ]
}
mkdir ro
exts="vtu msh re2 mesh"
"$HEXPACK" --help | grep -q '\.exo' && exts="$exts exo"
for ext in $exts vtu4; do
  np=2
  [ $ext = vtu4 ] && ext=vtu && np=4
  for _ in 1; do
    run $np box --n 6,4,2 --order 2 -o nodir/x.$ext
    check "$ext np $np: every rank exits non-zero, no hang" "all_failed $np || { cat rc.*; false; }"
    check "$ext np $np: one error line naming the file" "[ \$(grep -c '^hexpack: error' err.txt) -eq 1 ] && grep '^hexpack: error' err.txt | grep -q 'nodir/x.$ext'"
  done
done
check "no file or temporary file left" "[ ! -e nodir ] && [ -z \"\$(ls | grep -E 'x\\.|tmp')\" ]"
grep '^hexpack: error' err.txt
# det J < 0 in the last element: its interior node (the 14th of the last 27 lines of the MFEM nodes
# section, lexicographic) moved far in x; its faces stay those of its neighbours (a conforming mesh)
"$HEXPACK" box --n 6,4,2 --order 2 -o k.mesh > /dev/null || { echo "FAIL box"; exit 1; }
n=$(wc -l < k.mesh)
awk -v n=$n 'NR == n - 13 { $1 = $1 + 5 } { print }' k.mesh > bad.mesh
for run_case in 2:vtu 4:re2; do
  np=${run_case%%:*} ext=${run_case##*:}
  for _ in 1; do
    run $np convert bad.mesh out.$ext
    check "det J np $np .$ext: every rank exits non-zero, no hang" "all_failed $np || { cat rc.*; false; }"
    check "det J np $np .$ext: one line naming the file and element 47" "[ \$(grep -c '^hexpack: error' err.txt) -eq 1 ] && grep -q \"bad.mesh: 1 of 48 element(s) are inverted .*element 47.*--untangle\" err.txt || { cat err.txt; false; }"
    check "det J np $np .$ext: no file" "[ ! -e out.$ext ] && ! ls | grep -q tmp"
  done
done
grep '^hexpack: error' err.txt
# --force writes it anyway, the same file as on one rank
"$HEXPACK" convert bad.mesh f1.vtu --force > /dev/null 2>&1
run 2 convert bad.mesh f2.vtu --force
check "--force np 2 = np 1" "[ \"\$(cat rc.0)\" -eq 0 ] && cmp -s f1.vtu f2.vtu"
# the .re2 field file (written by every rank at its own offsets) cannot be committed: its
# name is taken by a directory; every rank fails, and the .re2 and .co2 written before it
# are removed (no mesh without its order-N geometry)
for np in 1 2 4; do
  rm -rf g*; mkdir g0.f00000
  run $np box --n 6,4,2 --order 3 -o g.re2 --co2
  check "field file blocked np $np: every rank exits non-zero" "all_failed $np || { cat rc.*; false; }"
  check "field file blocked np $np: one error line naming it" "[ \$(grep -c '^hexpack: error' err.txt) -eq 1 ] && grep -q 'g0.f00000' err.txt || { cat err.txt; false; }"
  check "field file blocked np $np: no .re2, .co2 or temporary file" "[ ! -e g.re2 ] && [ ! -e g.co2 ] && ! ls | grep -q tmp"
done
echo "t162: $pass passed, $fail failed"
exit $fail
