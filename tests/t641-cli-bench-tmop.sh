#!/usr/bin/env bash
# t641: `hexpack bench tmop` on a small Kershaw box prints its CSV table; the
# optimized energy falls below 1e-8 of the initial one (the Cartesian mesh is the
# unique zero), min det J grows, and every kernel rate is a positive number.
set -u
HEXPACK=${HEXPACK:?}
out=$("$HEXPACK" bench tmop --n 6 --orders 1,2 --csv 2>&1) || { echo "bench failed: $out"; echo "t641: 0 passed, 1 failed"; exit 1; }
echo "$out" | /usr/bin/python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(l for l in sys.stdin if l[:2] in ("p,", "1,", "2,"))]
bad = 0 if len(rows) == 2 else 1
for r in rows:
    e0, e1 = float(r["energy0"]), float(r["energy"])
    j0, j1 = float(r["min_detj0"]), float(r["min_detj"])
    rates = [float(v) for k, v in r.items() if k.startswith("mdofs_")]
    print("p", r["p"], "E1/E0 < 1e-8:", e1 < 1e-8 * e0, "minJ grows:", j1 > j0 > 0, "rates positive:", all(x > 0 for x in rates), len(rates))
    if not (e1 < 1e-8 * e0 and j1 > j0 > 0 and len(rates) == 8 and all(x > 0 for x in rates)): bad = 1
print("t641: %d passed, %d failed" % (1 - bad, bad))
sys.exit(bad)
'
