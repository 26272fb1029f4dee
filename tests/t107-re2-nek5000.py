"""t107: Nek5000's own mesh tools read our .re2 and find our connectivity.

gencon (Nek5000/tools/gencon) reads a .re2, merges the element corners that lie within its
tolerance (0.2 x the shortest edge at the corner, Nek5000's default) into global vertices,
checks every face for a missing connection (three shared corners but not four) and writes a
.co2; genmap does the same merge and a recursive bisection into a .ma2. For each mesh below,
the .co2 we write (--co2) and the one gencon writes from our .re2 must name the same vertex
partition: every element, corner by corner, maps one to one between the two numberings, so
that Nek5000 run with our .co2 or without it (computing its own) sees the same mesh. genmap's
.ma2 gives the same partition for the pebble bed.
Meshes: the bundled 67-pebble bed (inlet, outlet, 147 bridges), a polydisperse 40-sphere bed
in a cylinder, the PWR 17x17 rod bundle, a Kershaw box.
Controls (the check can fail): a .co2 with one corner renumbered differs from ours; a .re2
with one corner moved by 0.6 x its element's shortest edge along each axis is refused by
gencon (a face with three shared corners) or gives another partition. A move of a third of
the edge along x alone is still merged: gencon's sort-based merge chains through neighbours.
Skips (exit 77) with a message when the tools are absent: $HX_NEK5000_TOOLS, else
/opt/hexpack-nek5000/bin (scripts/install-deps.sh builds them there when it can fetch
Nek5000)."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

TOOLS = [os.environ.get("HX_NEK5000_TOOLS", ""), "/opt/hexpack-nek5000/bin"]
tools = next((t for t in TOOLS if t and os.access(os.path.join(t, "gencon"), os.X_OK)), None)
if tools is None:
    print(f"skip: Nek5000's gencon not found (looked in {[t for t in TOOLS if t]})")
    sys.exit(77)
HEXPACK = os.path.abspath(os.environ.get("HEXPACK", "build/hexpack"))
SRC = os.environ.get("HX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), ".."))
fail = 0


def check(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    fail |= not ok


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print(r.stdout[-2000:], r.stderr[-2000:])
        raise SystemExit(f"FAIL: {' '.join(args)} exited {r.returncode}")
    return r.stdout


def read_cells(path, nv_pos):
    """element corner ids of a .co2 (nv_pos = 3: '#v001 nel nelv nv') or .ma2 (records
    pid + 8 ids), as an (nel, 8) array"""
    b = open(path, "rb").read()
    hdr = b[:132].decode("ascii", "replace").split()
    nel = int(hdr[1])
    marker = np.frombuffer(b[132:136], "<f4")[0]
    dt = "<i4" if abs(marker - 6.54321) < 1e-5 else ">i4"
    rec = np.frombuffer(b[136:136 + 4 * nel * 9], dt).reshape(nel, 9)
    if nv_pos == 3:
        if int(hdr[3]) != 8:
            raise SystemExit(f"FAIL: {path}: {hdr[3]} vertices per element")
        if not (rec[:, 0] == np.arange(1, nel + 1)).all():
            raise SystemExit(f"FAIL: {path}: element ids not 1..{nel}")
    return rec[:, 1:]


def same_partition(a, b):
    """the two corner numberings name the same vertices: the map between them is one to one"""
    if a.shape != b.shape:
        return False, f"shapes {a.shape} and {b.shape}"
    pairs = np.unique(np.stack([a.ravel(), b.ravel()], axis=1), axis=0)
    na, nb = len(np.unique(a)), len(np.unique(b))
    return (len(pairs) == na == nb), f"{na} and {nb} vertices, {len(pairs)} pairs"


def gencon(work, base, tol="0.2"):
    """gencon on base.re2 (base.co2 removed first); its .co2's cells"""
    co2 = os.path.join(work, base + ".co2")
    if os.path.exists(co2):
        os.remove(co2)
    r = subprocess.run([os.path.join(tools, "gencon")], input=f"{base}\n{tol}\n", cwd=work,
                       capture_output=True, text=True)
    out = r.stdout + r.stderr
    if r.returncode != 0 or not os.path.exists(co2) or "MISSING FACE" in out or "ABORT" in out:
        return None, out[-600:]
    return read_cells(co2, 3), out


def case(work, base, args):
    run([HEXPACK] + args + ["-o", os.path.join(work, base + ".re2"), "--co2"])
    ours = os.path.join(work, base + "_ours.co2")
    shutil.move(os.path.join(work, base + ".co2"), ours)
    mine = read_cells(ours, 3)
    theirs, log = gencon(work, base)
    if theirs is None:
        check(False, f"{base}: gencon (tolerance 0.2) failed: {log}")
        return mine
    ok, why = same_partition(mine, theirs)
    check(ok, f"{base}: {len(mine)} elements, gencon's .co2 = ours ({why})")
    return mine


with tempfile.TemporaryDirectory() as work:
    pb = os.path.join(SRC, "inputs", "pb67.txt")
    mine = case(work, "pb67", ["pebble", "--fast", pb, "--radius", "1.5", "--container", "cyl:6.6", "--inlet", "3",
                               "--outlet", "3", "--order", "2"])
    # genmap: the same merge, then the partition file
    r = subprocess.run([os.path.join(tools, "genmap")], input="pb67\n0.2\n", cwd=work, capture_output=True, text=True)
    ma2 = os.path.join(work, "pb67.ma2")
    if r.returncode == 0 and os.path.exists(ma2):
        hdr = open(ma2, "rb").read(132).decode("ascii", "replace").split()
        ok, why = same_partition(mine, read_cells(ma2, 0))
        check(ok and int(hdr[2]) == len(np.unique(mine)),
              f"pb67: genmap's .ma2 ({hdr[1]} elements, {hdr[2]} vertices) = our .co2 ({why})")
    else:
        check(False, f"pb67: genmap failed: {(r.stdout + r.stderr)[-600:]}")

    # controls: one corner renumbered; one corner moved off its neighbours
    bad = mine.copy()
    bad[5, 3] = bad.max() + 1
    check(not same_partition(mine, bad)[0], "control: a .co2 with one corner renumbered differs")
    re2 = os.path.join(work, "pb67.re2")
    b = bytearray(open(re2, "rb").read())
    xyz = np.frombuffer(bytes(b[84:84 + 200]), "<f8")[1:].reshape(3, 8)  # element 1: x[8] y[8] z[8]
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
    h = min(np.linalg.norm(xyz[:, i] - xyz[:, j]) for i, j in edges)
    for k in range(3):  # x, y, z of corner 1
        struct.pack_into("<d", b, 84 + 8 + 64 * k, xyz[k, 0] + 0.6 * h)
    open(os.path.join(work, "moved.re2"), "wb").write(b)
    theirs, log = gencon(work, "moved")
    check(theirs is None or not same_partition(mine, theirs)[0],
          "control: a .re2 with one corner moved by 0.6 x its shortest edge in x, y and z differs"
          + (" (gencon refused it)" if theirs is None else ""))

    # more meshes: a polydisperse bed in a cylinder, the rod bundle, a Kershaw box
    beds = os.path.join(work, "poly.txt")
    run([HEXPACK, "pack", "--n", "40", "--container", "cyl:3", "--poly", "0.2", "--trials", "20", "-o", beds])
    case(work, "poly", ["pebble", "--fast", beds, "--inlet", "1", "--outlet", "1", "--order", "1"])
    case(work, "pwr", ["rods", "--preset", "pwr17x17", "--z", "0,10", "--nz", "3"])
    case(work, "kershaw", ["box", "--n", "6", "--kershaw", "0.3,0.3"])
sys.exit(1 if fail else 0)
