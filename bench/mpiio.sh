#!/usr/bin/env bash
# Writers on distributed meshes: the cost of rank 0 pulling the other ranks' blocks.
# For NP = 1, 2, 4: time `hexpack box` without output and with one output, best of
# REPS runs each; write time = difference. Usage: bench/mpiio.sh [N] [ORDER] [REPS]
# (HEXPACK, MPIEXEC, OUTDIR may be set). The mesh and the file are the same for
# every NP (t160 checks the bytes), so the ratio against NP 1 is the gather cost.
set -u
N=${1:-40}
P=${2:-2}
REPS=${3:-3}
HEXPACK=${HEXPACK:-./build/hexpack}
MPIEXEC=${MPIEXEC:-mpiexec}
OUTDIR=${OUTDIR:-$(mktemp -d)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
best() { # command...: best wall seconds of REPS runs
  local b=999999
  for _ in $(seq $REPS); do
    local t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    local t=$(echo "$(date +%s.%N) - $t0" | bc)
    b=$(echo "if ($t < $b) $t else $b" | bc)
  done
  echo $b
}
echo "box --n $N --order $P ($((N * N * N)) elements), best of $REPS; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-5s %-6s %10s %10s %10s %8s\n" np fmt total_s mesh_s write_s MB
for np in 1 2 4; do
  run=("$HEXPACK"); [ $np -gt 1 ] && run=("$MPIEXEC" -n $np --oversubscribe "$HEXPACK")
  base=$(best "${run[@]}" box --n $N --order $P)
  for fmt in vtu re2 msh; do
    f=$OUTDIR/b.$fmt
    tot=$(best "${run[@]}" box --n $N --order $P -o $f)
    mb=$(echo "scale=1; $(stat -c %s $f) / 1000000" | bc)
    printf "%-5s %-6s %10.2f %10.2f %10.2f %8s\n" $np $fmt $tot $base $(echo "$tot - $base" | bc) $mb
    rm -f $OUTDIR/b.*
  done
done
