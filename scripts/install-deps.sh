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
      python3 python3-venv python3-numpy python3-vtk9 python3-meshio python3-gmsh python3-netcdf4)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# PyMFEM (MFEM's Python wheel, for t172: MFEM loads our .mesh) in its own venv, so that its
# numpy 2.x does not replace Debian's numpy under python3-vtk9; optional: a failed or slow
# pip (no network, no wheel) does not fail the install, t172 then skips with a message.
PYMFEM=${HX_PYMFEM_VENV:-/opt/hexpack-pymfem}
if [ ! -x "$PYMFEM/bin/python" ] || ! "$PYMFEM/bin/python" -c "import mfem.ser" 2>/dev/null; then
  if $SUDO /usr/bin/python3 -m venv "$PYMFEM" 2>/dev/null &&
     $SUDO timeout 300 "$PYMFEM/bin/pip" install -q --disable-pip-version-check mfem >/dev/null 2>&1 &&
     "$PYMFEM/bin/python" -c "import mfem.ser" 2>/dev/null; then
    echo "PyMFEM: installed in $PYMFEM"
  else
    echo "PyMFEM: not installed (pip install mfem failed or timed out); t172 will skip"
  fi
fi
echo "hexpack dependencies: installed"
