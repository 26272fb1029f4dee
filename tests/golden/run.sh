#!/usr/bin/env bash
# Golden outputs: a fixed set of runs whose files must stay byte for byte the same while the
# code is reorganised (moves, splits, renames). Each run's outputs (.re2 and its field file,
# .vtu, .msh, .mesh, and the --json summary with its timings and memory figures removed) are
# hashed and compared with tests/golden/ref.sha256.
#
#   tests/golden/run.sh check  [--all]   compare (the default set, about 2 minutes on 2 cores; --all
#                                        adds pb67 optimized at order 3, about 6 minutes more)
#   tests/golden/run.sh record           write tests/golden/ref.sha256 anew (always the whole set)
#
# A change that is meant to change the output re-records the hashes in the same commit and
# says why. The hashes hold for one compiler and C library (floating point is deterministic
# for a given build, threads and MPI ranks included, but libm may differ between machines): where
# the check fails on another machine, record the hashes there with the commit before the change
# (git worktree) and check again.
set -u
mode=${1:-check}
all=0
[ "${2:-}" = "--all" ] && all=1
[ "$mode" = record ] && all=1
case $mode in check | record) ;; *) echo "usage: $0 check [--all] | record" >&2; exit 2 ;; esac
SRC=$(cd "$(dirname "$0")/../.." && pwd)
HEXPACK=${HEXPACK:-$SRC/build/hexpack}
case $HEXPACK in /*) ;; *) HEXPACK=$PWD/$HEXPACK ;; esac
REF=$SRC/tests/golden/ref.sha256
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
if ! "$HEXPACK" pebble --fast 2>&1 | grep -q "no centres file"; then
  echo "golden: SKIP: $HEXPACK cannot mesh pebble beds (built without Qhull)"
  exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0

# Strip what changes from run to run: timings, memory, thread counts, and the run's own temporary
# folder in the paths that --json echoes.
norm_json() {
  /usr/bin/python3 - "$1" "$dir" << 'EOF'
import json, re, sys
txt = open(sys.argv[1]).read().replace(sys.argv[2], 'DIR')
drop = re.compile(r'^(time|wall|peak_rss|rss|threads|seconds)|_(s|ms|time|seconds|mb|rss)$')
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if not drop.search(k)}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
dec = json.JSONDecoder()
out, i = [], 0
while i < len(txt):
    if txt[i].isspace():
        i += 1
        continue
    if txt[i] != '{':  # a human line on stdout: keep it only if it has no numbers that time things
        j = txt.find('\n', i)
        j = len(txt) if j < 0 else j
        line = txt[i:j]
        if not re.search(r'\d+(\.\d+)? ?(s|ms|MB|GB)\b', line):
            out.append(line)
        i = j
        continue
    obj, i = dec.raw_decode(txt, i)
    out.append(json.dumps(clean(obj), sort_keys=True))
sys.stdout.write('\n'.join(out) + '\n')
EOF
}

# run NAME ARGS...: hexpack ARGS in a folder of its own; every file it writes is hashed.
run() {
  local name=$1; shift
  mkdir -p "$dir/$name"
  (cd "$dir/$name" && "$HEXPACK" "$@" > stdout.txt 2> stderr.txt)
  local rc=$?
  echo "$rc" > "$dir/$name/exit"
  if [ "$rc" -ne 0 ]; then echo "golden: $name: exit $rc: hexpack $*"; sed 's/^/    /' "$dir/$name/stderr.txt" | tail -5; fi
}

slow() { [ "$all" -eq 1 ]; }

cp "$SRC/inputs/pb67.txt" "$dir/pb67.txt"
run box-kershaw box --n 6 --kershaw 0.3,0.3 --order 3 -o box.vtu -o box.re2 -o box.msh -o box.mesh --json
run box-kershaw-ascii box --n 6,6,6 --kershaw 0.3,0.3 --order 2 --ascii -o box.vtu -o box.msh
run kershaw-optimize optimize "$dir/box-kershaw/box.vtu" --backend cpu -o opt.vtu -o opt.re2 --json
run box-optimize box --n 6 --kershaw 0.3,0.3 --order 2 --optimize --backend cpu -o opt.vtu --json
run rods-pwr rods --preset pwr17x17 --nz 3 --order 2 -o rods.re2 -o rods.vtu --json
run rods-hex rods --preset hex37 --nz 2 --order 3 -o rods.re2 --json
run pb67-default pebble --fast "$dir/pb67.txt" --radius 1.5 --order 3 -o pb67.re2 -o pb67.vtu --json
run pb67-cyl pebble --fast "$dir/pb67.txt" --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3 --order 3 -o pb67.re2 --json
run pack-c300 pack --n 300 --container cyl:5 --seed 3 --trials 20 -o c300.txt
run pack-p300 pack --n 300 --container cyl:5 --poly 0.2 --seed 5 --trials 20 -o p300.txt
run pack-b300 pack --n 300 --container box:4.3 --seed 2 --trials 20 -o b300.txt
run c300 pebble --fast "$dir/pack-c300/c300.txt" --container cyl:5 --order 3 -o c300.re2 --json
run p300 pebble --fast "$dir/pack-p300/p300.txt" --container cyl:5 --order 3 -o p300.re2 --json
run b300 pebble --fast "$dir/pack-b300/b300.txt" --container box:-4.3,4.3,-4.3,4.3 --order 3 -o b300.re2 --json
run pb67-goals pebble "$dir/pb67.txt" --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3 --no-optimize --order 3 -o pb67.re2 --json
run pack-s40 pack --n 40 --container cyl:3 --seed 4 --trials 20 -o s40.txt
run s40-goals-opt pebble "$dir/pack-s40/s40.txt" --container cyl:3 --inlet 1 --outlet 1 --backend cpu \
  --newton-iters 2 --repair 0.4,1,10,1 --order 3 -o s40.re2 -o s40.vtu --json
# solved at order 3, the moves carried to order 4 (the transfer and the order-4 repair)
run s40-goals-o4 pebble "$dir/pack-s40/s40.txt" --container cyl:3 --inlet 1 --outlet 1 --backend cpu \
  --newton-iters 2 --repair 0.4,1,10,1 --order 4 -o s40.re2 --json
if slow; then
  run pb67-goals-opt pebble "$dir/pb67.txt" --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3 \
    --backend cpu --newton-iters 2 --repair 0.4,1,10,2 --order 3 -o pb67.re2 --json
  run pb67-opt pebble --fast "$dir/pb67.txt" --radius 1.5 --optimize --backend cpu --newton-iters 2 \
    --repair 0.3,1,10,2 --order 3 -o pb67.re2 --json
fi

# hash every output (json normalised) in a fixed order
: > "$dir/now.sha256"
for d in $(cd "$dir" && ls -d */ | sed 's|/$||' | sort); do
  for f in $(cd "$dir/$d" && ls | sort); do
    case $f in
      stderr.txt) continue ;;
      stdout.txt) h=$(norm_json "$dir/$d/$f" | sha256sum | cut -c1-64) ;;
      *) h=$(sha256sum < "$dir/$d/$f" | cut -c1-64) ;;
    esac
    echo "$h  $d/$f" >> "$dir/now.sha256"
  done
done

if [ "$mode" = record ]; then
  cp "$dir/now.sha256" "$REF"
  echo "golden: recorded $(wc -l < "$REF") outputs in $REF"
  exit 0
fi
n=0
while read -r h f; do
  want=$(awk -v f="$f" '$2 == f {print $1}' "$REF")
  if [ -z "$want" ]; then echo "golden: FAIL $f: not in $REF"; fail=1; continue; fi
  if [ "$h" != "$want" ]; then
    echo "golden: FAIL $f differs from the recorded output"
    fail=1
  fi
  n=$((n + 1))
done < "$dir/now.sha256"
if [ "$all" -eq 1 ]; then
  while read -r h f; do
    grep -q "  $f\$" "$dir/now.sha256" || { echo "golden: FAIL $f: recorded but not written now"; fail=1; }
  done < "$REF"
fi
if [ "$fail" -eq 0 ]; then echo "golden: $n outputs as recorded"; fi
exit $fail
