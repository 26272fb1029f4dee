#!/usr/bin/env bash
# Install hexpack's build and test dependencies from Debian packages (Debian 12).
# Idempotent and quiet; run as root (uses sudo when not root).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential cmake pkg-config zlib1g-dev time git
      libqhull-dev libopenmpi-dev openmpi-bin libgmsh-dev libcairo2-dev
      libexodusii-dev libmetis-dev
      gfortran python3 python3-venv python3-numpy python3-vtk9 python3-meshio python3-gmsh python3-netcdf4)
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
# Nek5000's own mesh tools gencon and genmap (for t107: they read our .re2 and must find our
# connectivity), built with gfortran from a local copy of Nek5000's source archive at the commit
# below, HX_NEK5000_TARBALL (e.g. `git archive --prefix=nek/ -o nek.tar.gz COMMIT` in a Nek5000
# clone), never downloaded: Nek5000 is in no package registry. Optional like PyMFEM: without it,
# t107 skips with a message.
NEK=${HX_NEK5000_DIR:-/opt/hexpack-nek5000}
NEK_COMMIT=41d17942b3f4ef4e045665d30adc81a167611122
if [ -n "${HX_NEK5000_TARBALL:-}" ] &&
   { [ ! -x "$NEK/bin/gencon" ] || [ ! -x "$NEK/bin/genmap" ] || [ "$(cat "$NEK/commit" 2>/dev/null)" != "$NEK_COMMIT" ]; }; then
  tmp=$(mktemp -d)
  tar -xzf "$HX_NEK5000_TARBALL" -C "$tmp" --wildcards '*/tools/gencon/*' '*/tools/genmap/*' '*/tools/maketools*' \
    '*/core/byte.c' '*/core/name.h' 2>/dev/null || true
  mkdir -p "$tmp/bin"
  if (cd "$tmp"/*/tools 2>/dev/null && MAXNEL=300000 bin_nek_tools="$tmp/bin" ./maketools gencon genmap >/dev/null 2>&1) &&
     [ -x "$tmp/bin/gencon" ] && [ -x "$tmp/bin/genmap" ]; then
    $SUDO mkdir -p "$NEK/bin"
    $SUDO cp "$tmp/bin/gencon" "$tmp/bin/genmap" "$NEK/bin/"
    echo "$NEK_COMMIT" | $SUDO tee "$NEK/commit" >/dev/null
    echo "Nek5000 tools: gencon, genmap built in $NEK/bin"
  else
    echo "Nek5000 tools: not built from $HX_NEK5000_TARBALL; t107 will skip"
  fi
  rm -rf "$tmp"
elif [ ! -x "$NEK/bin/gencon" ]; then
  echo "Nek5000 tools: no local Nek5000 archive given (HX_NEK5000_TARBALL); t107 will skip"
fi
echo "hexpack dependencies: installed"
