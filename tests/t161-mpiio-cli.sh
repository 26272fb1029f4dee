#!/usr/bin/env bash
# t161: the CLI writes under mpiexec.
# - `hexpack convert` (every rank reads the file, the ranks split it, rank 0 writes)
#   gives the 1-rank file byte for byte, also with --order (each rank raises the
#   whole mesh before the split);
# - `hexpack optimize ... -o` on 2 and 4 ranks writes the optimized mesh; TMOP's
#   result is the same on any rank count only to rounding (its sums run in another
#   order), so the files are compared by reading them back: coordinates within
#   1e-12 of the box size, the same node-id partition and boundary faces (hx_iotool
#   cmp), and the 2- and 4-rank .re2 against the 1-rank one the same way.
set -u
HEXPACK=${HEXPACK:?}
IOTOOL=${HX_BUILD_DIR:?}/tests/hx_iotool
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
fail=0
pass=0
check() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=1; fi; }
run() { local np=$1; shift; if [ $np -eq 1 ]; then "$HEXPACK" "$@"; else "$MPIEXEC" -n $np --oversubscribe "$HEXPACK" "$@"; fi; }
"$HEXPACK" box --n 6,4,2 --kershaw 0.3,0.3 --order 2 -o k.msh -o k.vtu > /dev/null || { echo "FAIL box"; exit 1; }
for np in 1 2; do
  run $np convert k.msh c$np.re2 -o c$np.vtu --co2 > conv$np.txt 2>&1
  check "convert np $np: exit 0" "[ $? -eq 0 ] || { cat conv$np.txt; false; }"
  run $np convert k.vtu r$np.msh --order 3 > raise$np.txt 2>&1
  check "convert --order 3 np $np: exit 0" "[ $? -eq 0 ] || { cat raise$np.txt; false; }"
done
for f in re2 co2 vtu; do check "convert np 2 = np 1 ($f)" "cmp -s c1.$f c2.$f"; done
check "convert --order 3 np 2 = np 1" "cmp -s r1.msh r2.msh"
check "convert np 2 reports the whole mesh" "grep -q '48 elements' conv2.txt"
check "converted mesh reads back" "$IOTOOL cmp k.vtu c2.vtu 0 > /dev/null"
for np in 1 2 4; do
  run $np optimize k.vtu -o o$np.vtu -o o$np.re2 --threads 1 --quiet > opt$np.txt 2>&1
  check "optimize np $np: exit 0" "[ $? -eq 0 ] || { cat opt$np.txt; false; }"
  check "optimize np $np: wrote" "grep -q 'wrote o$np.vtu' opt$np.txt"
done
grep '^optimize:' opt1.txt | head -1
for np in 2 4; do
  for f in vtu re2; do
    check "optimize np $np .$f = np 1 to 1e-12" "$IOTOOL cmp o1.$f o$np.$f 1e-12 > cmp.txt 2>&1 || { cat cmp.txt; false; }"
  done
done
check "the optimizer moved the nodes" "! $IOTOOL cmp k.vtu o1.vtu 1e-6 > /dev/null 2>&1"
echo "t161: $pass passed, $fail failed"
exit $fail
