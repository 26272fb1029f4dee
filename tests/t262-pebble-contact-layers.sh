#!/usr/bin/env bash
# t262: --contact-layers one (the columns of the ring about a contact one layer, joined to the
# swept layers by a ring of transition columns). On pb67 in its cylinder with inlet and outlet
# at order 3, and on a poured bed:
#   - the mesh is valid (det J > 0 at its GLL nodes: the writers' refusal) at orders 1 and 3,
#     with fewer elements than the swept layers on the same tessellation flags, and the log and
#     --json report the contacts meshed so;
#   - the whole order-N mesh, the streamed one (--stream: evaluated a block at a time) and, with
#     MPI, two ranks give byte-identical .msh, .re2 and field files (the shared numbering of the
#     transition's nodes, edges and faces, and its map, are functions of the entities alone);
#   - the .re2 read back without its field file (Nek5000's own geometry rule) at orders 3 and 7
#     has no element with det J <= 0;
#   - bad input: --layers 4 or --split 2 with it is one line naming the flags, a non-zero exit
#     and no file.
# Conformity (every interior face shared by two elements with the same node ids), the surfaces
# and the fluid volume are checked by t263 (t250-pebble-mesh ... one).
. "$(dirname "$0")/lib.sh"
cd "$dir"
pb="$SRC/inputs/pb67.txt --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3"
"$HEXPACK" pebble --fast $pb --order 3 --json -o s.msh > s.json 2> s.err
check "swept: exit 0" "[ $? -eq 0 ]"
"$HEXPACK" pebble --fast $pb --order 3 --contact-layers one --json -o w.msh -o w.re2 > w.json 2> w.err
check "one: exit 0" "[ $? -eq 0 ]"
el() { grep -o '"elements": [0-9]*' "$1" | head -1 | grep -o '[0-9]*$'; }
echo "elements: swept $(el s.json), one $(el w.json)"
check "one: fewer elements than swept" "[ -n \"\$(el w.json)\" ] && [ \$(el w.json) -lt \$(el s.json) ]"
check "one: --json says so" "grep -q '\"contact_layers\": \"one\"' w.json && grep -q '\"transition_facets\": [1-9]' w.json"
check "swept: --json says so" "grep -q '\"contact_layers\": \"swept\"' s.json && grep -q '\"transition_facets\": 0' s.json"
check "one: the log line" "grep -q 'contact layers: [1-9][0-9]* contact facet' w.err"
check "one: no element with det J <= 0" "grep -q '\"bad_elements\": 0' w.json"
"$HEXPACK" pebble --fast $pb --order 3 --contact-layers one --stream -o t.msh -o t.re2 > /dev/null 2>&1
check "stream .msh = whole" "[ -s w.msh ] && cmp -s w.msh t.msh"
check "stream .re2 = whole" "[ -s w.re2 ] && cmp -s w.re2 t.re2"
check "stream field file = whole" "[ -s w0.f00000 ] && cmp -s w0.f00000 t0.f00000"
if [ "${1:-}" = mpi ]; then
  $MPIEXEC -np 2 "$HEXPACK" pebble --fast $pb --order 3 --contact-layers one -o m.msh -o m.re2 > /dev/null 2>&1
  check "2 ranks .msh = 1 rank" "[ -s m.msh ] && cmp -s w.msh m.msh"
  check "2 ranks .re2 = 1 rank" "[ -s m.re2 ] && cmp -s w.re2 m.re2"
fi
for r in 3 7; do
  "$HEXPACK" convert w.re2 q$r.vtu --order $r > c$r.log 2>&1
  check "the .re2 by Nek5000's rule at order $r: read back, no det J <= 0" "[ -s q$r.vtu ]"
done
"$HEXPACK" pebble --fast $pb --order 1 --contact-layers one -o o1.re2 > /dev/null 2>&1
check "order 1: written (no linear element folded)" "[ -s o1.re2 ]"
# a poured bed with aspect sizing (bridged and near contacts), order 2
"$HEXPACK" pack --n 60 --container cyl:3 --trials 20 --seed 4 -o b.txt > /dev/null
"$HEXPACK" pebble --fast b.txt --ratio 1 --score nek --aspect 18 --contact-layers one --order 2 --json -o b.vtu > b.json 2> b.err
check "poured bed, --aspect 18: exit 0, valid" "[ -s b.vtu ] && grep -q '\"bad_elements\": 0' b.json"
# bad input
for bad in "--layers 4" "--split 2"; do
  rm -f x.re2
  "$HEXPACK" pebble --fast $pb --contact-layers one $bad -o x.re2 > /dev/null 2> x.err
  rc=$?
  cat x.err
  check "$bad: refused" "[ $rc -ne 0 ] && [ \$(wc -l < x.err) -eq 1 ] && grep -q 'contact-layers one' x.err"
  check "$bad: no file" "[ ! -e x.re2 ]"
done
exit $fail
