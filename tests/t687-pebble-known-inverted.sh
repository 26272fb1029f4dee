#!/usr/bin/env bash
# t687: two cut-outs of a seeded 10^5 cylinder bed whose linear meshes had elements with
# det J <= 0 (docs/benchmarks.md, "3.5 x 10^5 spheres on one 16-core node"): a vertex moved off a
# near contact's plane by the clean-up (still refused), and a sliver triangle facet (meshes since
# needle triangles may be collapsed; the second check below holds it to that). What must hold
# either way: a bed that does not mesh cleanly is refused with one
# "error" line naming det J, a non-zero exit and no file; one that does mesh reports
# no inverted element and writes its file; with --force the file is written and --json
# reports the same count of inverted elements as the refusal (0 when it meshes).
. "$(dirname "$0")/lib.sh"
for bed in pebble-near-contact-offplane pebble-sliver-triangle; do
  f="$SRC/tests/data/$bed.txt"
  "$HEXPACK" pebble "$f" --order 1 --json -o "$dir/a.re2" > "$dir/out.json" 2> "$dir/err.txt"
  rc=$?
  "$HEXPACK" pebble "$f" --order 1 --json --force -o "$dir/f.re2" > "$dir/force.json" 2> /dev/null
  rcf=$?
  nbad=$(grep -o '"bad_elements": [0-9]*' "$dir/force.json" | grep -o '[0-9]*$')
  check "$bed: --force writes the mesh (exit 0)" "[ $rcf -eq 0 ] && [ -s '$dir/f.re2' ] && [ -n '$nbad' ]"
  [ $bed = pebble-sliver-triangle ] && check "$bed: meshes (needle collapsed)" "[ $rc -eq 0 ]"
  if [ $rc -eq 0 ]; then
    echo "     $bed meshes cleanly now"
    check "$bed: no inverted element, file written, nothing on stderr" \
      "grep -q '\"bad_elements\": 0' '$dir/out.json' && [ -s '$dir/a.re2' ] && [ ! -s '$dir/err.txt' ] && [ '$nbad' = 0 ]"
  else
    echo "     $bed refused: $(cat "$dir/err.txt")"
    check "$bed: one error line naming det J, with the --force count ($nbad)" \
      "[ \$(wc -l < '$dir/err.txt') -eq 1 ] && grep -q \"error: $nbad element(s) have det J <= 0\" '$dir/err.txt'"
    check "$bed: no file, no temporary" "[ -z \"\$(ls '$dir' | grep '^a\.')\" ]"
  fi
  rm -f "$dir"/a.* "$dir"/f.*
done
exit $fail
