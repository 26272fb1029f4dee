#!/usr/bin/env bash
# The Kershaw benchmark on one CPU thread: MFEM's serial mesh-optimizer and hexpack optimize on the
# same MFEM-format mesh (Kershaw N^3, eps 0.3, s = 1, written by hexpack box with H1 nodes), one
# after the other on the same core, with the same settings: metric 303, ideal-unit target, GLL
# quadrature -qo 8, boundary sliding in its planes (-bnd), Newton-MINRES + Jacobi (-ls 3), at most
# 100 Newton / 40 MINRES iterations, Eisenstat-Walker type 1 (-art 1), Newton tolerance 1e-10,
# no coarse start; hexpack with its default preconditioner (Jacobi plus the two-level correction
# from order 2; HX_FLAGS="--precond jacobi" for MFEM's Jacobi alone). MFEM runs with partial
# assembly (-pa) and, for p <= PA_ONLY_ABOVE, also
# without it (its best of the two is the one to compare). Times are whole-process wall times
# (reading the mesh, the solve, writing the result); hexpack's solve time is shown beside.
# Not part of CI: it needs a serial MFEM build's mesh-optimizer.
#
#   bench/mfem_cpu_kershaw.sh MESH_OPTIMIZER [WORKDIR]
#
#   env: HEXPACK (default build/hexpack), N (12), ORDERS (1,2,3), CORE (the core both run on,
#        default 0; empty: no pinning), PA_ONLY_ABOVE (2: MFEM without -pa only up to this p),
#        NO_MFEM (1: hexpack's rows only, e.g. to compare two hexpack builds; MESH_OPTIMIZER unused),
#        HX_FLAGS (more flags of hexpack optimize)
set -u
mopt=$(readlink -f "${1:?usage: bench/mfem_cpu_kershaw.sh MESH_OPTIMIZER [WORKDIR]}")
NO_MFEM=${NO_MFEM:-0}
work=${2:-/tmp/hexpack-mfem-cpu-kershaw}
HEXPACK=$(readlink -f "${HEXPACK:-build/hexpack}")
N=${N:-12}
ORDERS=${ORDERS:-1,2,3}
CORE=${CORE-0}
PA_ONLY_ABOVE=${PA_ONLY_ABOVE:-2}
[ -x "$HEXPACK" ] || { echo "no hexpack at $HEXPACK (set HEXPACK)" >&2; exit 1; }
[ "$NO_MFEM" = 1 ] || [ -x "$mopt" ] || { echo "no mesh-optimizer at $mopt" >&2; exit 1; }
mkdir -p "$work" && cd "$work" || exit 1
export OMP_NUM_THREADS=1
pin=()
[ -n "$CORE" ] && command -v taskset > /dev/null && pin=(taskset -c "$CORE")
json() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
now() { date +%s.%N; }
table=$work/mfem_cpu_kershaw.md
{
  echo "| p | program | Newton | final energy | wall (s) | hexpack solve (s) |"
  echo "|---|---|---|---|---|---|"
} > "$table"
for p in ${ORDERS//,/ }; do
  mesh=k${N}p$p.mesh
  "$HEXPACK" box --n "$N" --kershaw 0.3,0.3 --order "$p" --mfem-nodes h1 -o "$mesh" > /dev/null || exit 1
  modes=(-pa)
  [ "$p" -le "$PA_ONLY_ABOVE" ] && modes+=(-no-pa)
  [ "$NO_MFEM" = 1 ] && modes=()
  for m in ${modes[@]+"${modes[@]}"}; do
    log=mfem_p$p$m.log
    t0=$(now)
    "${pin[@]}" "$mopt" -m "$mesh" -o "$p" -rs 0 -mid 303 -tid 1 -ni 100 -rtol 1e-10 -ls 3 -li 40 -art 1 -qt 1 -qo 8 \
      -bnd -no-vis -vl 1 "$m" > "$log" 2>&1
    rc=$?
    t1=$(now)
    its=$(grep -c "Newton iteration" "$log")
    e=$(sed -n 's/.*Final strain energy: *\([^ ]*\).*/\1/p' "$log" | tail -1)
    echo "| $p | MFEM $m | $((its > 0 ? its - 1 : 0)) | ${e:-rc $rc} | $(echo "$t1 - $t0" | bc -l | xargs printf %.2f) | |" >> "$table"
  done
  t0=$(now)
  # shellcheck disable=SC2086
  "${pin[@]}" "$HEXPACK" optimize "$mesh" -o "h$p.mesh" --backend cpu --threads 1 --coarse-start off --quiet --json \
    ${HX_FLAGS:-} > "h$p.json" 2> "h$p.log"
  t1=$(now)
  echo "| $p | hexpack | $(json "h$p.json" "d['newton_iters']") | $(json "h$p.json" "'%.3e (%s)' % (d['energy'], d['stop'])") |" \
    "$(echo "$t1 - $t0" | bc -l | xargs printf %.2f) | $(json "h$p.json" "d['seconds']") |" >> "$table"
done
cat "$table"
