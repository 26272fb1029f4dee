#!/usr/bin/env bash
# t621: --json prints exactly one JSON document on stdout, on one line, for every command (box,
# quality, convert, optimize, pack, pebble with --optimize and --quality, rods, demo, bench tmop,
# bench kernels), read by Python's json module and by python3 -m json.tool, with schema_version
# 1, the command, status "ok", the command's own fields (docs/json.md) and the options echo;
# every human message ("wrote ...", the summaries) goes to stderr; a failed run prints one
# document with status "error" and the message, and exits non-zero.
. "$(dirname "$0")/lib.sh"
cd "$dir"
PY=/usr/bin/python3
# doc NAME KEYS... : NAME.json is one line, one document, with these top-level keys
doc() {
  local name=$1; shift
  check "$name: one line on stdout" "[ \$(wc -l < $name.json) -eq 1 ]"
  check "$name: python3 -m json.tool reads it" "$PY -m json.tool $name.json > /dev/null"
  check "$name: schema_version 1, status ok, options, keys $*" "$PY -c '
import json, sys
d = json.load(open(\"$name.json\"))
keys = sys.argv[1:]
sys.exit(0 if d[\"schema_version\"] == 1 and d[\"status\"] == \"ok\" and isinstance(d[\"options\"], dict) and all(k in d for k in keys) else 1)' $*"
}
"$HEXPACK" box --n 6,4,4 --kershaw 0.3,0.3 --order 2 --json -o k.vtu > box.json 2> box.err
doc box elements order min_detj_gll outputs
check "box: 'wrote k.vtu' on stderr, not stdout" "grep -q '^wrote k.vtu' box.err && ! grep -q wrote box.json"
"$HEXPACK" quality k.vtu --json > quality.json 2> quality.err
doc quality verdict num_elem summary
"$HEXPACK" convert k.vtu c.msh -o c.mesh --json > convert.json 2> convert.err
doc convert input elements order outputs
check "convert: the outputs listed" "$PY -c 'import json; d = json.load(open(\"convert.json\")); exit(d[\"outputs\"] != [\"c.msh\", \"c.mesh\"])'"
"$HEXPACK" optimize k.vtu -o o.vtu --newton-iters 2 --json > optimize.json 2> optimize.err
doc optimize metric energy0 energy newton_iters outputs
check "optimize: the per-iteration log on stderr" "grep -q '^newton   1' optimize.err"
"$HEXPACK" pack --n 4 --container cyl:2 --json -o s4.txt > pack.json 2> pack.err
doc pack spheres height output
"$HEXPACK" pebble --fast s4.txt --container box --order 2 --optimize --newton-iters 1 --quality --json -o p.vtu > pebble.json 2> pebble.err
doc pebble spheres elements bad_elements optimize quality outputs
check "pebble: the optimizer's and the quality report's fields nested" "$PY -c '
import json; d = json.load(open(\"pebble.json\"))
exit(not (d[\"optimize\"][\"newton_iters\"] >= 0 and d[\"quality\"][\"num_elem\"] == d[\"elements\"] and d[\"options\"][\"--newton-iters\"] == 1))'"
"$HEXPACK" rods --json -o r.vtu > rods.json 2> rods.err
doc rods elements rods min_detj scaled_jacobian_min
"$HEXPACK" demo --fast --order 1 --json -o d.vtu > demo.json 2> demo.err
doc demo elements quality outputs
"$HEXPACK" bench tmop --n 6 --orders 1 --reps 1 --no-solve --json > bench-tmop.json 2> bench-tmop.err
doc bench-tmop rows
check "bench tmop: one row for order 1" "$PY -c 'import json; r = json.load(open(\"bench-tmop.json\"))[\"rows\"]; exit(not (len(r) == 1 and r[0][\"p\"] == 1))'"
"$HEXPACK" bench kernels --backend cpu --orders 1 --max-mdofs 0.01 --min-time 0 --json > bench-kernels.json 2> bench-kernels.err
doc bench-kernels rows
# a failed run: one document with status error, the message also on stderr, non-zero exit
"$HEXPACK" quality missing.vtu --json > fail.json 2> fail.err
rc=$?
check "failed run: exit non-zero, one document, status error with the message" "[ $rc -ne 0 ] && [ \$(wc -l < fail.json) -eq 1 ] && $PY -c '
import json; d = json.load(open(\"fail.json\")); exit(not (d[\"status\"] == \"error\" and \"missing.vtu\" in d[\"error\"]))' && grep -q missing.vtu fail.err"
exit $fail
