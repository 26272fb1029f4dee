#!/usr/bin/env bash
# t541: the limiting term on the command line. A Kershaw box (6 x 4 x 4, eps 0.3, order 2) optimized
# with every boundary node fixed, without and with --limit: the largest node move from the input
# (read back with VTK's reader, independent of hexpack) is much smaller with --limit 1e6 than
# without, and smaller with --limit-dist elem than with the default distance 1 (elements of size
# 1/4: a distance 4 times smaller weighs 16 times more); --limit 0 writes bitwise the file of the
# run without it; bench tmop takes the flag. Bad values (--limit -1, --limit nan, --limit-dist 0,
# --limit-dist foo, --limit without a value): one line naming the flag, non-zero exit, no output.
. "$(dirname "$0")/lib.sh"
cd "$dir"
"$HEXPACK" box --n 6,4,4 --hi 1.5,1,1 --order 2 --kershaw 0.3,0.3 -o k.vtu > /dev/null || { echo "FAIL: box"; exit 1; }
run() { "$HEXPACK" optimize k.vtu -o "$1" --quiet --boundary fixed --newton-iters 6 --coarse-start off "${@:2}" > "$1.log" 2>&1; }
run free.vtu
check "optimize without the term" "[ -s free.vtu ]"
run zero.vtu --limit 0
check "--limit 0: the same file" "cmp -s free.vtu zero.vtu"
run lim.vtu --limit 1e6
check "--limit 1e6: written" "[ -s lim.vtu ]"
run one.vtu --limit 10
run elem.vtu --limit 10 --limit-dist elem
check "--limit 10 (distance 1 and elem): written" "[ -s one.vtu ] && [ -s elem.vtu ]"
/usr/bin/python3 - > moves.txt <<'PYEOF' || { echo "FAIL: python"; exit 1; }
import vtk
def pts(f):
    r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName(f); r.Update()
    p = r.GetOutput().GetPoints()
    return [p.GetPoint(i) for i in range(p.GetNumberOfPoints())]
x0 = pts("k.vtu")
for f in ("free.vtu", "lim.vtu", "one.vtu", "elem.vtu"):
    x = pts(f)
    assert len(x) == len(x0)
    print(f[:-4], max(max(abs(a - b) for a, b in zip(p, q)) for p, q in zip(x, x0)))
PYEOF
cat moves.txt
move() { awk -v k="$1" '$1 == k { print $2 }' moves.txt; }
check "the term holds the nodes: move(1e6) < move(free) / 100" "awk 'BEGIN { exit !($(move lim) < $(move free) / 100 && $(move free) > 0.05) }'"
check "delta elem (1/4) holds them more than delta 1" "awk 'BEGIN { exit !($(move elem) < $(move one) && $(move one) <= $(move free)) }'"
"$HEXPACK" bench tmop --n 6 --orders 1 --reps 1 --newton-iters 5 --limit 1 > bench.txt 2>&1; rc=$?
check "bench tmop --limit 1: runs" "[ $rc -eq 0 ]"
for bad in "--limit -1" "--limit nan" "--limit-dist 0" "--limit-dist foo" "--limit"; do
  rm -f bad.vtu
  # shellcheck disable=SC2086
  "$HEXPACK" optimize k.vtu -o bad.vtu --quiet $bad > out.txt 2> err.txt; rc=$?
  flag=${bad%% *}
  echo "$bad: exit $rc: $(head -2 err.txt)"
  check "$bad: one line naming $flag, non-zero exit, no output" \
    "[ $rc -ne 0 ] && [ \$(wc -l < err.txt) -eq 1 ] && grep -q -- '$flag' err.txt && ! [ -e bad.vtu ]"
done
exit $fail
