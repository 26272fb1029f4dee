#!/usr/bin/env bash
# Write/read MB/s of the mesh formats against the disk's own sequential write speed
# (dd with fdatasync), measured in the same run. Usage: bench/io.sh BUILD_DIR DIR [N1 N7 [FORMATS]]
#   N1: box N1^3 at order 1 (default 100 = 10^6 elements); N7: box N7^3 at order 7 (default 46 ~ 10^5)
#   FORMATS: comma list for hx_iobench (default: all). The order-7 run holds ~4 GB (mesh + reread).
set -euo pipefail
B=${1:-build}; D=${2:-/tmp}; N1=${3:-100}; N7=${4:-46}; FMT=${5:-vtu,vtu-zlib,re2,msh,msh-ascii,mfem,exo}
echo "# $(date -u '+%F %T UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# disk: dd 1 GiB, fdatasync (before)"
dd if=/dev/zero of="$D/iobench.dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1
rm -f "$D/iobench.dd"
"$B/bench/hx_iobench" "$N1" 1 "$D" "$FMT"
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
"$B/bench/hx_iobench" "$N7" 7 "$D" "$FMT" | tail -n +2
echo "# disk: dd 1 GiB, fdatasync (after); load $(cut -d' ' -f1-3 /proc/loadavg)"
dd if=/dev/zero of="$D/iobench.dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1
rm -f "$D/iobench.dd"
