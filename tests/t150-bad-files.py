#!/usr/bin/python3
"""t150: broken input files give one clear error (naming the file and the byte
offset or line where it can) and a non-zero exit, never a crash; writers leave no
file behind when they fail. Each case: (format, how to break a good file, text the
message must contain)."""
import os, re, struct, subprocess, sys

build = os.environ.get("HX_BUILD_DIR", ".")
tool = os.path.join(build, "tests", "hx_iotool")
hexpack = os.environ.get("HEXPACK", os.path.join(build, "hexpack"))
fails = 0

def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", msg)

def gen(kind, order, path, env=None):
    r = subprocess.run([tool, "gen", kind, str(order), path], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    assert r.returncode == 0, r.stderr
    return open(path, "rb").read()

def expect_error(path, data, needle):
    open(path, "wb").write(data)
    r = subprocess.run([tool, "info", path], capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip()
    ok = r.returncode > 0 and path in out and re.search(needle, out) is not None
    check(ok, f"{path}: rc {r.returncode}, expected /{needle}/, got: {out}")
    print(f"{path}: {out}")

def sub(data, a, b):
    assert a in data, a
    return data.replace(a, b, 1)

# ---- .vtu -------------------------------------------------------------------
good = gen("kershaw", 3, "t150-good.vtu")
expect_error("t150-trunc.vtu", good[: len(good) // 2], r"truncated|ends after|beyond the end")
expect_error("t150-trunc-xml.vtu", good[:300], r"no <Piece>|unterminated|needs")
expect_error("t150-magic.vtu", sub(good, b"<VTKFile", b"<VTKFilz"), r"not a VTK XML file")
expect_error("t150-empty.vtu", b"", r"not a VTK XML file")
expect_error("t150-endian.vtu", sub(good, b'byte_order="LittleEndian"', b'byte_order="MiddleEndian"'),
             r"byte_order 'MiddleEndian'")
expect_error("t150-swapped.vtu", sub(good, b'byte_order="LittleEndian"', b'byte_order="BigEndian"   '),
             r"holds \d+ bytes|announces|byte \d+")
expect_error("t150-count.vtu", sub(good, b'NumberOfCells="24"', b'NumberOfCells="99999"'),
             r"byte \d+|exceed")
expect_error("t150-points.vtu", sub(good, b'NumberOfPoints="931"', b'NumberOfPoints="932"'),
             r"byte \d+.*holds|holds \d+ bytes")
expect_error("t150-offset.vtu", re.sub(rb'(Name="connectivity"[^>]*offset=")\d+"', rb'\g<1>9999999"', good, count=1),
             r"offset 9999999 lies beyond")
expect_error("t150-type.vtu", sub(good, b'type="UnstructuredGrid"', b'type="PolyData"'), r"PolyData")
asc = gen("kershaw", 2, "t150-ascii-good.vtu", {"HX_ASCII": "1"})
i = asc.index(b'Name="Points"')
j = asc.index(b">", i) + 1
expect_error("t150-nan.vtu", asc[:j] + b"\nnan " + asc[j:].lstrip(), r"non-finite")
expect_error("t150-badnum.vtu", asc[:j] + b"\nabc " + asc[j:].lstrip(), r"bad number at byte \d+")
k = asc.index(b'Name="connectivity"')
k = asc.index(b">", k) + 1
expect_error("t150-conn.vtu", asc[:k] + b"\n77777 " + asc[k:].lstrip(), r"outside 0\.\.")
z = gen("kershaw", 2, "t150-zlib-good.vtu", {"HX_COMPRESS": "1"})
p = z.index(b"_", z.index(b"<AppendedData")) + 1
zz = bytearray(z)
for q in range(p + 40, p + 90):
    zz[q] ^= 0x5A
expect_error("t150-zlib.vtu", bytes(zz), r"corrupt|exceed|larger|past the end|byte")

# ---- .re2 ---------------------------------------------------------------------
good = gen("sphere", 1, "t150-good.re2")
expect_error("t150-trunc.re2", good[:700], r"truncated|exceed")
expect_error("t150-trunc-bc.re2", good[:-10], r"byte \d+")
expect_error("t150-short.re2", good[:50], r"too short")
expect_error("t150-magic.re2", b"#x004" + good[5:], r"byte 0: header starts with")
expect_error("t150-endian.re2", good[:80] + b"\x01\x02\x03\x04" + good[84:], r"byte 80: endianness marker")
expect_error("t150-count.re2", good[:5] + b"%16d" % 999999 + good[21:], r"byte 84: 999999 elements")
nan = bytearray(good)
nan[84 + 8 * 3:84 + 8 * 4] = struct.pack("<d", float("nan"))
expect_error("t150-nan.re2", bytes(nan), r"byte 108: element 1 has a non-finite coordinate")
bad_e = bytearray(good)
at = 84 + 6 * 200 + 8  # first curve record: element number
bad_e[at:at + 8] = struct.pack("<d", 77.0)
expect_error("t150-curve.re2", bytes(bad_e), r"byte %d: curve record 1 names element 77" % at)

# ---- .msh ------------------------------------------------------------------------
good = gen("kershaw", 2, "t150-good.msh")
expect_error("t150-trunc.msh", good[:3000], r"msh: byte \d+: expected the number of nodes \(bounded by the file's size\)")
expect_error("t150-magic.msh", b"$MeshFormax" + good[11:], r"byte 0: expected '\$MeshFormat'")
asc = gen("kershaw", 2, "t150-ascii-good.msh", {"HX_ASCII": "1"})
i = asc.index(b"$Nodes")
lines = asc[i:].split(b"\n")
k = next(n for n, l in enumerate(lines) if l.count(b" ") == 2 and b"." in l)
lines[k] = b"nan 0 0"
expect_error("t150-nan.msh", asc[:i] + b"\n".join(lines), r"msh:\d+: a node coordinate is not finite")
hexes = asc.replace(b"3 1 12 24", b"3 1 17 24")
expect_error("t150-type.msh", hexes, r"msh:\d+: volume 1 holds elements of type 17; expected complete Lagrange hexahedra")

# ---- .mesh (MFEM) -----------------------------------------------------------------
good = gen("box", 2, "t150-good.mesh")
expect_error("t150-magic.mesh", b"MFEM mesh v9.9" + good[14:], r"t150-magic.mesh:1: expected 'MFEM mesh v1.0'")
expect_error("t150-nd.mesh", good.replace(b"L2_T1_3D_P2", b"ND_3D_P2"), r"mesh:\d+: nodes collection 'ND_3D_P2' is not read")
# L2 values declared as H1 nodes: the H1 space has fewer dofs, and the values left over are refused
expect_error("t150-h1.mesh", good.replace(b"L2_T1_3D_P2", b"H1_3D_P2"), r"mesh:\d+: the file goes on after the 175 node dofs")
expect_error("t150-trunc.mesh", good[:-200], r"mesh:\d+: the nodes end after")
expect_error("t150-nan.mesh", good[:-60] + b"nan" + good[-57:], r"mesh:\d+: node value")
expect_error("t150-count.mesh", good.replace(b"elements\n12\n", b"elements\n99\n"), r"mesh:\d+: ")

# ---- writers leave nothing behind ------------------------------------------------
os.makedirs("t150-out", exist_ok=True)
for f in os.listdir("t150-out"):
    os.remove(os.path.join("t150-out", f))
r = subprocess.run([hexpack, "box", "--n", "2", "-o", "t150-out/missing/x.vtu"], capture_output=True, text=True)
check(r.returncode != 0 and "x.vtu" in r.stderr, f"unwritable path: rc {r.returncode} {r.stderr}")
r = subprocess.run([hexpack, "box", "--n", "2", "-o", "t150-out/ok.vtu", "-o", "t150-out/bad.xyz"],
                   capture_output=True, text=True)
check(r.returncode != 0 and "unknown mesh format" in r.stderr, f"unknown format: {r.stderr}")
left = os.listdir("t150-out")
check(left == [], f"files left behind: {left}")
print("failures:", fails)
sys.exit(1 if fails else 0)
