#!/usr/bin/env bash
# t601: hexpack box --n 24,24,24 --kershaw 0.3,0.3 --order p -o X.vtu, then
# hexpack quality X.vtu reports min det J = 6.5104e-06 at the GLL nodes for p = 1..4
# (the Kershaw map: 0.09 / 24^3), in the table and in the JSON (parsed by Python's
# json module), with no inverted element.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
PY=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
for p in 1 2 3 4; do
  "$HEXPACK" box --n 24,24,24 --kershaw 0.3,0.3 --order $p -o k$p.vtu > /dev/null || { echo "FAIL: box p=$p"; fail=1; continue; }
  table=$("$HEXPACK" quality k$p.vtu) || { echo "FAIL: quality p=$p"; fail=1; continue; }
  line=$(echo "$table" | grep "det J min (GLL)")
  min=$(echo "$line" | awk '{print $5}')
  json=$("$HEXPACK" quality k$p.vtu --json --worst 3)
  jmin=$(echo "$json" | $PY -c 'import json,sys; d=json.load(sys.stdin); print("%.4e %d %d %d" % (d["summary"]["detj_min"]["min"], d["num_inverted"], d["num_elem"], len(d["worst"])))')
  echo "p $p  table min det J $min  json: min inverted elements worst = $jmin"
  [ "$min" = "6.5104e-06" ] || { echo "FAIL: p=$p table min det J $min"; fail=1; }
  [ "$jmin" = "6.5104e-06 0 13824 3" ] || { echo "FAIL: p=$p json '$jmin'"; fail=1; }
done
exit $fail
