#!/usr/bin/env bash
# t523: the Kershaw benchmark at p = 3 and 4 on the CPU at 12^3 (eps 0.3, metric 303, GLL -qo 8,
# sliding faces; `hexpack bench tmop`, whose default is adaptive quadrature from order 4): both
# converge to the Cartesian mesh (E1 <= 1e-8 E0, every node within 1e-6 h of the uniform mesh,
# the result proven valid by the Bernstein bound), p = 4 with elements refined. Without adaptive
# quadrature p = 4 with Jacobi alone does not converge (it returns an earlier iterate). The bench's JSON and the
# flag's bad values: one line naming the flag, non-zero exit.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
export OMP_WAIT_POLICY=passive
"$HEXPACK" bench tmop --n 12 --orders 3,4 --reps 1 --backend cpu --csv > auto.csv 2> auto.err || { cat auto.err; echo "FAIL: bench"; exit 1; }
cat auto.csv
"$HEXPACK" bench tmop --n 12 --orders 4 --reps 1 --backend cpu --csv --adapt-quad off --relaxed-max 5 --precond jacobi > off.csv 2> off.err ||
  { cat off.err; echo "FAIL: bench off"; exit 1; }
cat off.csv
col() { # col FILE P NAME: the value of column NAME in the row of order P
  awk -F, -v p="$2" -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } $1 == p { print $c }' "$1"
}
for p in 3 4; do
  e0=$(col auto.csv $p energy0) e1=$(col auto.csv $p energy) dev=$(col auto.csv $p max_dev_h)
  check "p $p: converged" "[ \"$(col auto.csv $p stop)\" = converged ]"
  check "p $p: E1 $e1 <= 1e-8 E0" "awk 'BEGIN { exit !($e1 <= 1e-8 * $e0) }'"
  check "p $p: every node within 1e-6 h ($dev)" "awk 'BEGIN { exit !($dev <= 1e-6) }'"
  check "p $p: proven valid" "[ \"$(col auto.csv $p validity)\" = proven ]"
done
check "p 4: elements refined ($(col auto.csv 4 adapt_refined))" "[ $(col auto.csv 4 adapt_refined) -gt 0 ]"
check "p 4 without adaptive quadrature: not converged ($(col off.csv 4 stop))" "[ \"$(col off.csv 4 stop)\" != converged ]"
check "p 4 without adaptive quadrature: nothing refined" "[ $(col off.csv 4 adapt_refined) -eq 0 ]"
# the JSON record has the counts
"$HEXPACK" bench tmop --n 6 --orders 3 --reps 1 --backend cpu --json > b.json 2> /dev/null
check "json: adapt_refined and adapt_events" "/usr/bin/python3 -c \"import json; r = json.load(open('b.json'))['rows'][0]; assert r['adapt_refined'] >= 0 and r['adapt_events'] >= 0\""
# bad values
for v in 1x 1 41 -2 "" 8; do
  "$HEXPACK" box --n 6 --order 3 --optimize --quad-order 8 --adapt-quad "$v" -o x.vtu > /dev/null 2> err.txt; rc=$?
  check "--adapt-quad '$v': one line naming the flag, non-zero exit, no output" \
    "[ $rc -ne 0 ] && [ \$(wc -l < err.txt) -eq 1 ] && grep -q -- '--adapt-quad' err.txt && [ ! -e x.vtu ]"
done
exit $fail
