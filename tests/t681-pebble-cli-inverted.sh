#!/usr/bin/env bash
# t681: regression for inverted elements in packed beds (issue 5). The seeded 1000-sphere
# packing below (hexpack pack, square prism of half-width 9.01) used to give 12 linear
# elements with det J <= 0 in one triangular facet next to the wall: a facet tried several
# fan/ring tessellations and a ring-less variant kept the previous variant's ring nodes
# (whose ids had been reused) as its outer loop. It must now mesh without --force, write
# its .re2, and report no inverted element; the same bed with --accept-sj 0 (the first
# variant whose columns are not inverted) must too.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
"$HEXPACK" pack --n 1000 --container box:9.01 --trials 20 --seed 1 -o s1000.txt > /dev/null
check "pack wrote 1000 spheres" "[ \$(grep -c '^[-0-9]' s1000.txt) -eq 1000 ]"
for acc in 0.3 0; do
  out=$("$HEXPACK" pebble --fast s1000.txt --container box:-9.01,9.01,-9.01,9.01 --order 1 --accept-sj $acc --json -o s.re2 2> err.txt)
  rc=$?
  echo "$out" | head -c 400; echo
  check "accept $acc: exit 0 without --force" "[ $rc -eq 0 ]"
  check "accept $acc: no inverted element" "echo \"\$out\" | grep -q '\"bad_elements\": 0'"
  check "accept $acc: 1000 spheres" "echo \"\$out\" | grep -q '\"spheres\": 1000'"
  check "accept $acc: wrote the .re2" "[ -s s.re2 ]"
  # (with --json the human summary goes to stderr too: its lines are left out)
  check "accept $acc: nothing on stderr but the note on sphere faces left flat for Nek" "[ -z \"\$(grep -v -e \"Nek5000.s geometry from the corners\" -e '^pebble: ' -e '^  ' -e '^wrote ' -e '^progress: ' err.txt)\" ]"
  rm -f s.re2
done
exit $fail
