#!/usr/bin/env bash
# t682: hexpack pebble --optimize (issue 5): TMOP (metric 303, target ideal-given, 3 Newton
# steps) on a 4-sphere bed at order 2 with every boundary node sliding on its sphere, bridge
# cylinder, container plane. The TMOP energy must drop, min det J stay positive, and the
# command's hx_mesh_check after optimizing (boundary-face nodes on their analytic surfaces to
# 1e-12 relative, det J > 0 at every GLL node) must pass, so the .vtu is written. --optimize
# with --stream is refused before any work.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
PY=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
"$HEXPACK" pack --n 4 --container cyl:2 -o bed.txt > /dev/null
out=$("$HEXPACK" pebble bed.txt --container box --order 2 --optimize --target 3 --newton-iters 3 --json -o o.vtu 2> err.txt)
rc=$?
echo "$out"
check "exit 0" "[ $rc -eq 0 ]"
check "wrote o.vtu" "[ -s o.vtu ]"
check "no inverted element" "echo \"\$out\" | grep -q '\"bad_elements\": 0'"
r=$(echo "$out" | grep '"command": "optimize"' | $PY -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(int(d["energy"] < d["energy0"]), int(d["min_detj"] > 0), int(d["newton_iters"] >= 1))')
check "energy drops, min det J > 0, Newton steps taken ($r)" "[ \"$r\" = '1 1 1' ]"
"$HEXPACK" pebble bed.txt --container box --order 2 --optimize --stream -o s.vtu > /dev/null 2> err2.txt
rc=$?
check "--optimize --stream refused" "[ $rc -ne 0 ] && grep -q 'flag --optimize: needs the whole order-N mesh' err2.txt && [ ! -e s.vtu ]"
exit $fail
