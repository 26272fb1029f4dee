"""t689: the pebble bed's .re2 is valid by Nek5000's own geometry rule.

Nek5000 builds every element's geometry from the .re2 alone (corners, 'm' midpoints as a
27-node element, 's' sphere faces ramped into the element, 'C' arcs: core/genxyz.f) and
aborts when det J <= 0 at one of its GLL points, before it reads the 'X' restart with our
order-N geometry. pb67 as written before this check (an 's' face taking the slot of a curved
edge's 'm', midpoints at the edge's mid parameter) made Nek5000 abort with "Neg-Jacobian
check failed for 1399 elements" at N = 3 (docs/benchmarks.md, "Nek5000 itself runs our
pebble .re2"). Here our reader, without the field file, applies the same rule (t103 checks it
against Nek's sphere rule; Nek5000's own mesh metrics agreed with ours to 3 digits) and the
refusal of the order-N writer (det J <= 0 at a GLL node) is the check:
  - pb67 written at order 3 and 7 reads back at its order (and at 3 and 7) with no element
    det J <= 0;
  - the writer's note names the elements whose sphere faces went to midpoints;
  - an order-1 bed: the elements that keep 's' are those the rule passes at N = 3 and 7, the
    note says how many were left straight;
  - control: one 'm' midpoint moved onto the opposite corner of its element is refused.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HEXPACK = os.path.abspath(os.environ.get("HEXPACK", "build/hexpack"))
SRC = os.path.abspath(os.environ.get("HX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..")))
fail = 0


def check(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    fail |= not ok


def run(args, cwd):
    r = subprocess.run([HEXPACK] + args, cwd=cwd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def curves(path):
    """(offset, element, side, type) of every curve record of a #v004 .re2"""
    b = open(path, "rb").read()
    nel = int(b[5:21])
    at = 84 + 200 * nel
    nc = int(struct.unpack_from("<d", b, at)[0])
    out = []
    for q in range(nc):
        o = at + 8 + 64 * q
        e, side = struct.unpack_from("<2d", b, o)
        out.append((o, int(e), int(side), b[o + 56:o + 57].decode()))
    return b, out


def unlink_field(path):
    """the .re2 header's field-file link ('hdr fld <checksum>') set to 'fld none'"""
    b = bytearray(open(path, "rb").read())
    hdr = b[:80].decode()
    at = hdr.index(" hdr fld ") + 9
    b[at:80] = b"none".ljust(80 - at)
    open(path, "wb").write(b)

PB = ["pebble", "--fast", os.path.join(SRC, "inputs", "pb67.txt"), "--radius", "1.5", "--container", "cyl:6.6", "--inlet", "3",
      "--outlet", "3"]
with tempfile.TemporaryDirectory() as w:
    for order in (3, 7):
        rc, log = run(PB + ["--order", str(order), "-o", "pb.re2"], w)
        check(rc == 0, f"pb67 order {order}: written")
        os.remove(os.path.join(w, "pb0.f00000"))  # read back by Nek's rule alone: the header's link
        unlink_field(os.path.join(w, "pb.re2"))     # to the field file says there is none
        for read in sorted({order, 3, 7}):
            rc, out = run(["convert", "pb.re2", "q.vtu", "--order", str(read)], w)
            check(rc == 0, f"pb67 order {order}, read by Nek's rule at order {read}: no element det J <= 0"
                  + ("" if rc == 0 else ": " + out.strip().splitlines()[-1]))
        b, cv = curves(os.path.join(w, "pb.re2"))
        kinds = {t: sum(1 for c in cv if c[3] == t) for t in "smC"}
        check(kinds["m"] > 0, f"pb67 order {order}: {len(cv)} curves {kinds}")

    # control: one midpoint onto the far corner of its element
    b, cv = curves(os.path.join(w, "pb.re2"))
    o, e, side, _ = next(c for c in cv if c[3] == "m")
    rec = 84 + 200 * (e - 1)
    far = struct.unpack_from("<24d", b, rec + 8)  # x[8], y[8], z[8] of element e
    bb = bytearray(b)
    struct.pack_into("<3d", bb, o + 16, far[6], far[14], far[22])  # corner 7 (preprocessor)
    open(os.path.join(w, "bad.re2"), "wb").write(bb)
    rc, out = run(["convert", "bad.re2", "q.vtu", "--order", "7"], w)
    check(rc != 0 and "det J" in out, f"control: a midpoint moved onto a far corner is refused ({out.strip()[:90]})")

    # an order-1 bed: 's' kept where the rule passes, the rest straight, and said so
    rc, out = run(["pack", "--n", "60", "--container", "cyl:3", "--trials", "20", "--seed", "4", "-o", "b.txt"], w)
    rc, log = run(["pebble", "--fast", "b.txt", "--order", "1", "-o", "b.re2"], w)
    b, cv = curves(os.path.join(w, "b.re2"))
    ns = sum(1 for c in cv if c[3] == "s")
    note = [l for l in log.splitlines() if "Nek5000's geometry from the corners" in l]
    check(rc == 0 and ns > 0 and len(note) == 1 and "left straight" in note[0],
          f"order-1 bed: {ns} 's' faces kept; note: {note[0][-150:] if note else 'none'}")
sys.exit(1 if fail else 0)
