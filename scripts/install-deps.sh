#!/usr/bin/env bash
# Install hexpack's build and test dependencies from Debian packages (Debian 12).
# Idempotent and quiet; run as root (uses sudo when not root).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential cmake pkg-config zlib1g-dev time
      libqhull-dev libopenmpi-dev openmpi-bin libgmsh-dev libcairo2-dev
      libexodusii-dev libmetis-dev
      python3 python3-numpy python3-vtk9 python3-meshio python3-gmsh python3-netcdf4)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "hexpack dependencies: installed"
