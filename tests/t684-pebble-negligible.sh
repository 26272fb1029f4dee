#!/usr/bin/env bash
# t684: negligible facets (issue 5). A seeded 10^5 box bed had 42 inverted linear elements;
# three of the culprits are small triangles between two spheres that the line of their centres
# misses (seen edge on from both spheres), next to other short edges. The cube of the bed in
# tests/data/pebble-negligible-facet.txt holds one: its 9 inverted elements went when the
# clean-up collapsed the triangle's shortest edge. It must mesh with no inverted element at
# orders 1 and 4 and report the collapse.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
SRC=${HX_SOURCE_DIR:-.}
fail=0
for order in 1 4; do
  out=$("$HEXPACK" pebble "$SRC/tests/data/pebble-negligible-facet.txt" --container box:-41.84,-30.9,-6.0,10.6 \
    --order "$order" --json) || { echo "FAIL: order $order: exit $?"; fail=1; continue; }
  echo "$out"
  echo "$out" | grep -q '"bad_elements": 0' || { echo "FAIL: order $order: inverted elements"; fail=1; }
  echo "$out" | grep -Eq '"negligible_facets": [1-9]' || { echo "FAIL: order $order: no negligible facet collapsed"; fail=1; }
done
exit $fail
