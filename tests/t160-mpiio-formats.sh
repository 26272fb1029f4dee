#!/usr/bin/env bash
# t160: every writer on a mesh distributed over MPI ranks gives the file the same
# mesh gives on one rank, byte for byte: a Kershaw box at orders 1, 2, 3 and a
# pebble bed (sphere faces: .re2 's' curves) are meshed on 1, 2 and 4 ranks and
# written as .vtu (ASCII at order 1, raw at 2, zlib at 3), .msh (ASCII at 1, binary),
# .re2 + .co2 + the order-N field file, MFEM .mesh (L2 nodes, and H1 nodes at order 3) and
# Exodus (orders 1, 2); then
# `cmp` against 1 rank. The
# 4-rank files are also read back by our readers (hx_iotool cmp) against the 1-rank
# .vtu, so a file that is merely identical but empty would still fail.
set -u
HEXPACK=${HEXPACK:?}
IOTOOL=${HX_BUILD_DIR:?}/tests/hx_iotool
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
fail=0
pass=0
check() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=1; fi; }
"$HEXPACK" pack --n 20 --container box:2.6 --trials 10 --seed 5 -o bed.txt > /dev/null || { echo "FAIL pack"; exit 1; }
exo=0
"$HEXPACK" --help | grep -q '\.exo' && "$HEXPACK" box --n 6,2,2 -o probe.exo > /dev/null 2>&1 && exo=1
for np in 1 2 4; do
  mkdir np$np
  ( cd np$np
    run() { if [ $np -eq 1 ]; then "$HEXPACK" "$@"; else "$MPIEXEC" -n $np --oversubscribe "$HEXPACK" "$@"; fi; }
    # order 1 in the text forms (--ascii), order 2 binary, order 3 zlib-compressed .vtu
    for p in 1 2 3; do
      outs="-o k$p.vtu -o k$p.msh -o k$p.re2 -o k$p.mesh"
      [ $exo = 1 ] && [ $p -le 2 ] && outs="$outs -o k$p.exo"
      form=""; [ $p = 1 ] && form=--ascii; [ $p = 3 ] && form=--compress
      run box --n 6,4,2 --kershaw 0.3,0.3 --order $p --co2 $form $outs > log$p.txt 2>&1 || echo "FAIL np $np order $p: $(tail -1 log$p.txt)"
    done
    run box --n 6,4,2 --kershaw 0.3,0.3 --order 3 -o k3h.mesh --mfem-nodes h1 > logh.txt 2>&1 ||
      echo "FAIL np $np MFEM H1: $(tail -1 logh.txt)"
    run pebble --fast ../bed.txt --container box:-2.6,2.6,-2.6,2.6 --order 2 -o p.re2 -o p.msh -o p.vtu > logp.txt 2>&1 ||
      echo "FAIL np $np pebble: $(tail -1 logp.txt)" )
done
files="k1.vtu k1.msh k1.re2 k1.co2 k1.mesh k2.vtu k2.msh k2.re2 k2.co2 k20.f00000 k2.mesh k3.vtu k3.msh k3.re2 k3.co2
       k30.f00000 k3.mesh k3h.mesh p.re2 p0.f00000 p.msh p.vtu"
[ $exo = 1 ] && files="$files k1.exo k2.exo"
for f in $files; do
  check "np1/$f exists" "[ -s np1/$f ]"
  for np in 2 4; do check "np$np/$f = np1/$f" "cmp -s np1/$f np$np/$f"; done
done
check "order-3 .vtu is zlib-compressed" "grep -q vtkZLibDataCompressor np4/k3.vtu"
check "order-1 .vtu is ASCII" "grep -q 'format=\"ascii\"' np4/k1.vtu"
check "order-1 .msh is ASCII" "head -2 np4/k1.msh | grep -q '^4.1 0 8'"
check "pebble .re2 has midpoint curves (its sphere faces by edge midpoints: an 's' would take the slot of a curved edge)" "grep -qa 'm       ' np4/p.re2"
# the distributed writes read back as the mesh (coordinates, node-id partition, faces)
for f in k1.msh k1.vtu k2.msh k2.re2 k3.msh k3.re2 k3.mesh p.msh p.re2; do
  ref=np1/k2.vtu
  case $f in k1.*) ref=np1/k1.re2 ;; k3.*) ref=np1/k3.vtu ;; p.*) ref=np1/p.vtu ;; esac
  check "np4/$f reads back as $ref" "$IOTOOL cmp $ref np4/$f 1e-13 > cmp.txt 2>&1 || { cat cmp.txt; false; }"
done
for np in 1 2 4; do check "no temporary files np$np" "! ls np$np | grep -q tmp"; done
echo "t160: $pass passed, $fail failed"
exit $fail
