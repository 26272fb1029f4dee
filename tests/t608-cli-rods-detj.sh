#!/usr/bin/env bash
# t608: the min det J that hexpack rods prints is the written mesh's: the same value, at the
# written order, as hexpack quality reads from the written .re2 (with its field file) and .vtu,
# on a bundle of two axial zones with different and graded layer thicknesses (det J of a layer
# scales with its thickness: the thinnest layer holds the minimum).
. "${HX_SOURCE_DIR:-.}/tests/lib.sh"
HEXPACK=$(realpath "$HEXPACK")
cd "$dir"
"$HEXPACK" rods --rods 3 --pitch 1.2 --rod-radius 0.4 --map "111/1-1/111" --z 0,0.3,2 --nz 2,3 --grading 1,2 \
  --order 3 --json -o r.re2 -o r.vtu > sum.txt 2> err.txt || { echo "FAIL: rods: $(cat err.txt)"; exit 1; }
"$HEXPACK" quality r.re2 --no-validity --json > q-re2.json 2> err.txt || { echo "FAIL: quality r.re2: $(cat err.txt)"; exit 1; }
"$HEXPACK" quality r.vtu --no-validity --json > q-vtu.json 2> err.txt || { echo "FAIL: quality r.vtu: $(cat err.txt)"; exit 1; }
/usr/bin/python3 - << 'PY' || fail=1
import json
s = [json.loads(l) for l in open("sum.txt") if l.startswith("{")][0]
fails = 0
for f in ("q-re2.json", "q-vtu.json"):
    q = json.load(open(f))
    mine, theirs = s["min_detj"], q["summary"]["detj_min"]["min"]
    ok = q["order"] == s["order"] == 3 and q["num_elem"] == s["elements"] and abs(mine - theirs) <= 1e-6 * abs(theirs)
    print(("ok  " if ok else "FAIL"), f"rods min det J {mine:.6e} at order {s['order']}, {f[2:5]} read back: "
          f"{theirs:.10e} at order {q['order']} ({q['num_elem']} elements)")
    fails += not ok
raise SystemExit(fails)
PY
exit $fail
