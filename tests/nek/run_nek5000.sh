#!/usr/bin/env bash
# Nek5000 itself on our pebble .re2 (not in CI: it needs Nek5000's and gslib's sources, a Fortran
# MPI compiler and a few GB of memory). For each case: build Nek5000 for it (makenek), write the
# mesh with hexpack, make the .ma2 with Nek5000's genmap, run Nek5000 for 0 steps and check that
#   - its mesh check passes ("Mesh check complete ... OK": Nek aborts on det J <= 0 at a GLL point
#     of the geometry it builds from the .re2's corners and curves, before it reads any restart);
#   - with the X restart (case pb67-n3), its geometry equals ours bitwise (its first output file
#     against our <base>0.f00000) and its mesh metrics are printed next to ours.
# Usage: tests/nek/run_nek5000.sh NEK5000_SRC GSLIB_TARBALL [WORKDIR]
#   NEK5000_SRC: a Nek5000 source tree (tested: commit 41d17942); GSLIB_TARBALL: gslib v1.0.9's
#   source archive (Nek5000 would download it). Environment: HEXPACK (build/hexpack), NP (2).
set -euo pipefail
SRC=$(cd "$1" && pwd); GSLIB=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
W=${3:-$(mktemp -d)}; mkdir -p "$W"; W=$(cd "$W" && pwd)
HERE=$(cd "$(dirname "$0")/../.." && pwd)
HEXPACK=$(cd "$(dirname "${HEXPACK:-$HERE/build/hexpack}")" && pwd)/$(basename "${HEXPACK:-hexpack}")
NP=${NP:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cp "$GSLIB" "$SRC/3rd_party/gslib/v1.0.9.tar.gz" 2>/dev/null || true
genmap=$W/bin/genmap
if [ ! -x "$genmap" ]; then
  mkdir -p "$W/bin"
  (cd "$SRC/tools" && MAXNEL=300000 bin_nek_tools="$W/bin" ./maketools genmap > "$W/tools.log" 2>&1)
fi
fail=0
# case NAME ORDER LX1 LELG RESTART(0|1) -- hexpack pebble arguments
case_run() {
  local name=$1 order=$2 lx1=$3 lelg=$4 restart=$5; shift 6
  local d=$W/$name; mkdir -p "$d"; cd "$d"
  "$HEXPACK" pebble "$@" --order "$order" -o pb.re2 > hexpack.log 2>&1
  printf 'pb\n0.2\n' | "$genmap" > genmap.log 2>&1
  sed -e "s/parameter (lx1=8) /parameter (lx1=$lx1) /" -e "s/parameter (lxd=12)/parameter (lxd=$((lx1 * 3 / 2)))/" \
      -e "s/parameter (lelg=1000) /parameter (lelg=$lelg)/" -e "s/parameter (lpmin=1) /parameter (lpmin=$NP) /" \
      "$SRC/core/SIZE.template" > SIZE
  sed -e 's/^      uz   = 0.0$/      uz   = 1.0/' "$SRC/core/zero.usr" > pb.usr
  { echo "[GENERAL]"; echo "polynomialOrder = $((lx1 - 1))"
    [ "$restart" = 1 ] && echo "startFrom = pb0.f00000 X"
    echo "stopAt = numSteps"; echo "numSteps = 0"; echo "dt = 1e-3"; echo "writeControl = timeStep"
    echo "writeInterval = 1"; echo "writeDoublePrecision = yes"; echo "[PROBLEMTYPE]"; echo "equation = incompNS"
    echo "[PRESSURE]"; echo "residualTol = 1e-5"; echo "[VELOCITY]"; echo "residualTol = 1e-7"
    echo "density = 1"; echo "viscosity = -100"; } > pb.par
  sed -e "s|^#NEK_SOURCE_ROOT=.*|NEK_SOURCE_ROOT=\"$SRC\"|" -e 's|^#FFLAGS=""|FFLAGS="-mcmodel=medium"|' \
      -e 's|^#CFLAGS=""|CFLAGS="-mcmodel=medium"|' "$SRC/bin/makenek" > makenek
  bash makenek pb > makenek.log 2>&1 || { echo "FAIL $name: makenek (see $d/makenek.log)"; fail=1; return; }
  printf 'pb\n%s/\n' "$d" > SESSION.NAME
  /usr/bin/time -f "%e s, %M KB" mpirun --oversubscribe -np "$NP" ./nek5000 > nek.log 2>&1 || true
  grep -E "Neg-Jacobian|Mesh check|scaled Jacobian|aspect ratio|GLL grid spacing| s, .*KB" nek.log | sed "s/^/  $name: /"
  if grep -q "Mesh check complete for" nek.log && ! grep -q "Mesh check failed" nek.log; then
    echo "ok   $name: Nek5000's mesh check passes"
  else
    echo "FAIL $name: Nek5000's mesh check"; fail=1
  fi
  if [ "$restart" = 1 ]; then
    /usr/bin/python3 - pb0.f00001 pb0.f00000 <<'PY' || fail=1
import sys, numpy as np
def rd(p):
    b = open(p, "rb").read(); h = b[:132].decode().split()
    ws, nx, nel = int(h[1]), int(h[2]), int(h[5]); npt = nx ** 3
    ids = np.frombuffer(b[136:136 + 4 * nel], "<i4")
    X = np.frombuffer(b[136 + 4 * nel:136 + 4 * nel + ws * 3 * npt * nel], "<f8" if ws == 8 else "<f4")
    out = np.empty((nel, 3 * npt)); out[ids - 1] = X.reshape(nel, 3 * npt); return out
d = np.abs(rd(sys.argv[1]) - rd(sys.argv[2])).max()
print(("ok   " if d == 0 else "FAIL ") + f"Nek5000's geometry after the X restart = ours (max difference {d})")
sys.exit(0 if d == 0 else 1)
PY
    "$HEXPACK" quality pb.re2 2>&1 | grep -E "scaled Jacobian \(Nek\)|aspect ratio|min GLL spacing" | sed "s/^/  ours: /"
  fi
}
PB67=("$HERE/inputs/pb67.txt" --radius 1.5 --container cyl:6.6 --inlet 3 --outlet 3)
case_run pb67-n3 3 4 32000 1 -- "${PB67[@]}"
"$HEXPACK" pack --n 20 --container cyl:2.5 --trials 20 --seed 2 -o "$W/b20.txt" > /dev/null
case_run bed20-o1-n7 1 8 8000 0 -- "$W/b20.txt" --inlet 1 --outlet 1
exit $fail
