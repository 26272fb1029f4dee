#!/usr/bin/env bash
# t687: beds whose diagram clean-up leaves a facet that no tessellation variant sweeps without
# folding, kept from the beds where they were found (docs/pebble.md, "Local repair"):
#   pebble-near-contact-offplane  a vertex collapsed 0.07 d off a near contact's plane (18 linear
#                                 elements inverted before the repair);
#   pebble-poly-seed23            a warped triangle facet at the wall (3 inverted before);
#   pebble-sliver-triangle        a needle triangle, collapsed by the clean-up itself (no repair).
# Each must mesh at order 1: exit 0, no inverted element, its file written, nothing on stderr
# (but the log and, under load, a plain progress line),
# and the JSON must say how many facets the repair took up (>= 1 for the first two, so that the
# test sees the repair at work; 0 for the third). The repaired bed also meshes at order 3
# (det J > 0 at every GLL node, else hexpack refuses it) and, with "mpi", gives the same .re2 on
# 2 and 4 ranks as on 1 (the repair decided from every rank's facets alike), and on 3 threads as on 1.
. "$(dirname "$0")/lib.sh"
for bed in pebble-near-contact-offplane pebble-poly-seed23 pebble-sliver-triangle; do
  f="$SRC/tests/data/$bed.txt"
  "$HEXPACK" pebble --fast "$f" --order 1 --json -o "$dir/a.re2" > "$dir/out.json" 2> "$dir/err.txt"
  rc=$?
  rep=$(grep -o '"repaired_facets": [0-9]*' "$dir/out.json" | grep -o '[0-9]*$')
  echo "     $bed: exit $rc, repaired facets ${rep:-?}"
  check "$bed: meshes (exit 0, no inverted element, file, nothing on stderr but the note on sphere faces left flat for Nek)" \
    "[ $rc -eq 0 ] && grep -q '\"bad_elements\": 0' '$dir/out.json' && [ -s '$dir/a.re2' ] && [ -z \"\$(grep -v -e 'Nek5000.s geometry from the corners' -e '^pebble: ' -e '^  ' -e '^wrote ' -e '^progress: ' '$dir/err.txt')\" ]"
  if [ $bed = pebble-sliver-triangle ]; then
    check "$bed: no repair needed" "[ '${rep:-x}' = 0 ]"
  else
    check "$bed: the repair took up its folded facet(s)" "[ '${rep:-0}' -ge 1 ]"
  fi
  rm -f "$dir"/a.*
done
f="$SRC/tests/data/pebble-near-contact-offplane.txt"
"$HEXPACK" pebble --fast "$f" --order 3 --json -o "$dir/o3.re2" > "$dir/o3.json" 2> "$dir/o3.err"
check "repaired bed at order 3: det J > 0 at every GLL node" \
  "[ \$? -eq 0 ] && grep -q '\"bad_elements\": 0' '$dir/o3.json' && [ -s '$dir/o3.re2' ]"
# the variant scoring runs on the OpenMP threads (private copies, then one forced build):
# the same files on 1 and 3 threads, through a repair round
s23="$SRC/tests/data/pebble-poly-seed23.txt"
OMP_NUM_THREADS=1 "$HEXPACK" pebble --fast "$s23" --order 1 -o "$dir/t1.re2" > /dev/null 2>&1
OMP_NUM_THREADS=3 "$HEXPACK" pebble --fast "$s23" --order 1 -o "$dir/t3.re2" > /dev/null 2>&1
check "repaired bed: the same .re2 on 1 and 3 threads" "[ -s '$dir/t1.re2' ] && cmp -s '$dir/t1.re2' '$dir/t3.re2'"
# a wide wall facet (the bottom sphere of a thin column, its facet reaching 170 degrees round the
# wall) whose quads spanned 40-60 degrees of arc: their chords cut into the 0.17 d gap and 15
# linear elements folded (--aspect 18 --ratio 1, the --goals tessellation). Its cylinder edges
# are cut to at most 20 degrees a segment and the bed tessellated again.
w="$SRC/tests/data/pebble-wide-wall-facet.txt"
"$HEXPACK" pebble --fast "$w" --container cyl:2.6 --aspect 18 --ratio 1 --order 1 --json -o "$dir/w.re2" > "$dir/w.json" 2> "$dir/w.err"
rc=$?
arc=$(grep -o '"arc_cut_edges": [0-9]*' "$dir/w.json" | grep -o '[0-9]*$')
check "wide wall facet: meshes with its wall arcs cut (exit $rc, arc_cut_edges ${arc:-?})" \
  "[ $rc -eq 0 ] && grep -q '\"bad_elements\": 0' '$dir/w.json' && [ -s '$dir/w.re2' ] && [ '${arc:-0}' -ge 1 ] && grep -q '^  wall arcs: ' '$dir/w.err'"
OMP_NUM_THREADS=1 "$HEXPACK" pebble --fast "$w" --container cyl:2.6 --aspect 18 --ratio 1 --order 1 -o "$dir/w1.re2" > /dev/null 2>&1
check "wide wall facet: the same .re2 on 1 thread" "cmp -s '$dir/w.re2' '$dir/w1.re2'"
if [ "${1:-}" = mpi ]; then
  OMP_NUM_THREADS=1 "$MPIEXEC" -n 2 "$HEXPACK" pebble --fast "$w" --container cyl:2.6 --aspect 18 --ratio 1 --order 1 -o "$dir/w2.re2" > /dev/null 2>&1
  check "wide wall facet: the same .re2 on 2 ranks as on 1" "cmp -s '$dir/w.re2' '$dir/w2.re2'"
  "$HEXPACK" pebble --fast "$f" --order 1 -o "$dir/r1.re2" > /dev/null 2>&1
  for np in 2 4; do
    OMP_NUM_THREADS=1 "$MPIEXEC" -n $np "$HEXPACK" pebble --fast "$f" --order 1 -o "$dir/r$np.re2" > /dev/null 2>&1
    check "repaired bed: the same .re2 on $np ranks as on 1" "[ -s '$dir/r1.re2' ] && cmp -s '$dir/r1.re2' '$dir/r$np.re2'"
  done
fi
exit $fail
