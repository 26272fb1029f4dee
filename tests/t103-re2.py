#!/usr/bin/python3
"""t103: Nek5000 .re2. (1) The file layout is checked byte by byte against Nek5000's .re2 layout (header, elements, curves, boundary conditions)
by an independent parser here: 80-byte '#v004' header with the fixed widths
(a5,i16,i3,i16,i4), float32 6.54321 at byte 80, 25 doubles per element, curve count and
8-word records ('s' with centre and radius on sphere faces), one BC set with ids 1..n in
bc5, and nothing after it. (2) Nek's sphere rule: the shell written at order 1 with 's'
curves, read at orders 2..7, gives GLL points that this script recomputes independently
from the corners alone (great-circle edges uniform in angle at the GLL fractions, face
nodes at the intersection of great circles, deflection ramped linearly into the element)
to 1e-12. (3) Both byte orders, and the #v002 fixed-column header, read back identically.
(4) The order-N field file for the 'X' restart has the header and layout of a Nek5000 field file
and reads back bitwise; the .co2 has its header, marker and shared vertex ids."""
import os, struct, subprocess, sys
import numpy as np

tool = os.path.join(os.environ.get("HX_BUILD_DIR", "."), "tests", "hx_iotool")
fails = 0

def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", msg)

def run(*args, env=None):
    r = subprocess.run([tool] + list(args), capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout + r.stderr

def parse(path):
    b = open(path, "rb").read()
    hdr = b[:80].decode()
    check(hdr[:5] == "#v004", f"{path}: version {hdr[:5]}")
    nelt, ndim, nelv, nbc = int(hdr[5:21]), int(hdr[21:24]), int(hdr[24:40]), int(hdr[40:44])
    link = hdr[48:].split()
    check(hdr[44:48] == " hdr" and len(link) == 2 and link[0] == "fld" and
          (link[1] == "none" or (len(link[1]) == 16 and all(c in "0123456789abcdef" for c in link[1]))),
          f"{path}: header text '{hdr}' (expected ' hdr fld ' and 16 hex digits or 'none')")
    check(ndim == 3 and nelv == nelt and nbc == 1, f"{path}: ndim {ndim} nelv {nelv} nbc {nbc}")
    marker = struct.unpack("<f", b[80:84])[0]
    check(abs(marker - 6.54321) < 1e-6, f"{path}: marker {marker}")
    pos = 84
    el = np.frombuffer(b, "<f8", nelt * 25, pos).reshape(nelt, 25)
    pos += nelt * 200
    ncurve = struct.unpack("<d", b[pos:pos + 8])[0]
    check(ncurve == int(ncurve), "curve count not an integer")
    ncurve = int(ncurve); pos += 8
    curves = []
    for q in range(ncurve):
        v = struct.unpack("<7d", b[pos:pos + 56]); t = b[pos + 56:pos + 64]
        check(t[1:] == b"       ", f"curve word {t}")
        curves.append((int(v[0]), int(v[1]), v[2:7], chr(t[0]))); pos += 64
    n = struct.unpack("<d", b[pos:pos + 8])[0]; pos += 8
    bcs = []
    for q in range(int(n)):
        v = struct.unpack("<7d", b[pos:pos + 56]); t = b[pos + 56:pos + 64]
        check(t[3:] == b"     ", f"bc word {t}")
        bcs.append((int(v[0]), int(v[1]), v[2:7], t[:3].decode())); pos += 64
    check(pos == len(b), f"{path}: {len(b) - pos} bytes after the last BC set")
    return dict(nelt=nelt, el=el, curves=curves, bcs=bcs, raw=b, link=link[-1] if link else "")

# ---- (1) layout on the spherical shell -----------------------------------------
rc, out = run("gen", "sphere", "1", "t103-shell.re2")
check(rc == 0, out)
f = parse("t103-shell.re2")
check(f["nelt"] == 6, "6 elements")
check(all(c[0] for c in f["el"][:, 0:1] == 0), "group 0")
sph = [c for c in f["curves"] if c[3] == "s"]
check(len(sph) == 12 and len(f["curves"]) == 12, f"{len(f['curves'])} curves, expected 12 's'")
for e, side, p, t in sph:
    check(1 <= e <= 6 and 1 <= side <= 6 and p[0] == p[1] == p[2] == 0 and p[3] in (1.0, 2.0), f"s record {e} {side} {p}")
    # the four corners of that face lie on the sphere (Nek stops otherwise)
    corners = {1: [1, 2, 6, 5], 2: [2, 3, 7, 6], 3: [3, 4, 8, 7], 4: [1, 4, 8, 5], 5: [1, 2, 3, 4], 6: [5, 6, 7, 8]}[side]
    x = f["el"][e - 1]
    for cn in corners:
        r = np.sqrt(x[cn] ** 2 + x[8 + cn] ** 2 + x[16 + cn] ** 2)
        check(abs(r - p[3]) < 1e-12, f"corner {cn} of element {e} face {side} at radius {r}, sphere {p[3]}")
ids = sorted(set(int(b[2][4]) for b in f["bcs"]))
check(ids == [1, 2] and len(f["bcs"]) == 12 and all(b[3] == "W  " for b in f["bcs"]), f"bc ids {ids}")
# right-handed corners: the preprocessor order must give positive volume at corner 1
for e in range(6):
    x = f["el"][e]; P = lambda c: np.array([x[c], x[8 + c], x[16 + c]])
    check(np.dot(np.cross(P(2) - P(1), P(4) - P(1)), P(5) - P(1)) > 0, f"element {e + 1} left-handed")
print("layout: 6 elements, 12 's' curves, 12 BC records, ids", ids)

# ---- (2) Nek's sphere rule, recomputed here -------------------------------------
def gll01(n):
    if n == 2: return np.array([0.0, 1.0])
    from numpy.polynomial import legendre
    c = np.zeros(n); c[-1] = 1
    x = np.sort(legendre.legroots(legendre.legder(c)))
    return (np.concatenate([[-1.0], x, [1.0]]) + 1) / 2

def slerp(a, b, s):
    u1 = a / np.linalg.norm(a); u2 = b / np.linalg.norm(b)
    vn = np.cross(a, b); bb = np.cross(vn, a); bb /= np.linalg.norm(bb)
    th = np.arccos(np.clip(np.dot(u1, u2), -1, 1)) * s
    return np.cos(th) * u1 + np.sin(th) * bb

PRE_IJK = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
FACE = {1: (1, 0), 2: (0, 1), 3: (1, 1), 4: (0, 0), 5: (2, 0), 6: (2, 1)}  # pre face -> (axis, side)

def nek_rule(x, scurves, N):
    g = gll01(N + 1)
    X = np.zeros((N + 1,) * 3 + (3,))
    C = {PRE_IJK[s]: np.array([x[1 + s], x[9 + s], x[17 + s]]) for s in range(8)}
    for i in range(N + 1):
        for j in range(N + 1):
            for k in range(N + 1):
                u, v, w = g[i], g[j], g[k]
                X[i, j, k] = sum(C[(a, b, c)] * (u if a else 1 - u) * (v if b else 1 - v) * (w if c else 1 - w)
                                 for a in (0, 1) for b in (0, 1) for c in (0, 1))
    for side_no in sorted(s[1] for s in scurves):
        ctr = np.array([s for s in scurves if s[1] == side_no][0][2][:3])
        R = [s for s in scurves if s[1] == side_no][0][2][3]
        ax, sd = FACE[side_no]
        o = sorted({0, 1, 2} - {ax})
        def idx(t, u, v):
            ii = [0, 0, 0]; ii[ax] = t; ii[o[0]] = u; ii[o[1]] = v; return tuple(ii)
        cr = {(u, v): X[idx(sd * N, u * N, v * N)] - ctr for u in (0, 1) for v in (0, 1)}
        P = np.zeros((N + 1, N + 1, 3))
        for t in range(N + 1):
            P[t, 0] = slerp(cr[0, 0], cr[1, 0], g[t]); P[t, N] = slerp(cr[0, 1], cr[1, 1], g[t])
            P[0, t] = slerp(cr[0, 0], cr[0, 1], g[t]); P[N, t] = slerp(cr[1, 0], cr[1, 1], g[t])
        avg = sum(cr.values())
        for u in range(1, N):
            for v in range(1, N):
                p = np.cross(np.cross(P[0, v], P[N, v]), np.cross(P[u, 0], P[u, N]))
                if np.dot(p, avg) < 0: p = -p
                P[u, v] = p / np.linalg.norm(p)
        for u in range(N + 1):
            for v in range(N + 1):
                d = P[u, v] * R + ctr - X[idx(sd * N, u, v)]
                for t in range(N + 1):
                    zeta = g[t] if sd else 1 - g[t]
                    if t != (0 if sd else N):
                        X[idx(t, u, v)] += d * zeta
    return X

for N in (2, 3, 5, 7):
    rc, out = run("dump", "t103-shell.re2", str(N), f"t103-dump-{N}.txt")
    check(rc == 0, out)
    d = np.loadtxt(f"t103-dump-{N}.txt")
    worst = 0.0; onsphere = 0.0
    for e in range(6):
        ours = d[d[:, 0] == e]
        X = nek_rule(f["el"][e], [c for c in f["curves"] if c[0] == e + 1], N)
        for row in ours:
            i, j, k = map(int, row[1:4])
            worst = max(worst, np.abs(row[4:7] - X[i, j, k]).max())
            if k in (0, N) and False: pass
        # nodes on the sphere faces are on the spheres
        for row in ours:
            i, j, k = map(int, row[1:4]); r = np.linalg.norm(row[4:7])
            if k == 0: onsphere = max(onsphere, abs(r - 1))
            if k == N: onsphere = max(onsphere, abs(r - 2))
    check(worst < 1e-12, f"order {N}: our Nek-rule geometry differs from the recomputed one by {worst:.3e}")
    check(onsphere < 1e-12, f"order {N}: sphere-face nodes off the sphere by {onsphere:.3e}")
    print(f"Nek sphere rule order {N}: max difference {worst:.2e}, off-sphere {onsphere:.2e}")

# ---- (3) byte orders and the #v002 header -----------------------------------------
rc, out = run("gen", "kershaw", "1", "t103-k.re2")
b = bytearray(open("t103-k.re2", "rb").read())
f = parse("t103-k.re2")
big = bytearray(b)
big[80:84] = b[80:84][::-1]
pos = 84
words = []
words += [(pos + 8 * q, False) for q in range(25 * f["nelt"])]; pos += 200 * f["nelt"]
words.append((pos, False)); pos += 8
for q in range(len(f["curves"])):
    words += [(pos + 8 * w, w == 7) for w in range(8)]; pos += 64
words.append((pos, False)); pos += 8
for q in range(len(f["bcs"])):
    words += [(pos + 8 * w, w == 7) for w in range(8)]; pos += 64
for at, is_char in words:
    if not is_char:
        big[at:at + 8] = b[at:at + 8][::-1]
open("t103-k-big.re2", "wb").write(big)
rc, out = run("cmp", "t103-k.re2", "t103-k-big.re2", "0")
check(rc == 0, f"big-endian copy: {out}")
v2 = bytearray(b)
h = "#v002%9d%3d%9d this is the hdr" % (f["nelt"], 3, f["nelt"])
v2[:80] = h.ljust(80).encode()
open("t103-k-v002.re2", "wb").write(v2)
rc, out = run("cmp", "t103-k.re2", "t103-k-v002.re2", "0")
check(rc == 0, f"#v002 copy: {out}")
print("byte orders and #v002:", out.strip())

# ---- (4) the order-N field file and the .co2 ----------------------------------------
rc, out = run("gen", "kershaw", "4", "t103-k4.re2", env={"HX_CO2": "1"})
check(rc == 0 and "startFrom = t103-k40.f00000 X" in out and "polynomialOrder = 4" in out, f"par line: {out}")
fb = open("t103-k40.f00000", "rb").read()
h = fb[:132].decode().split()
check(h[0] == "#std" and h[1:5] == ["8", "5", "5", "5"] and h[5] == "24" and h[6] == "24" and h[-1] == "X",
      f"field header {h}")
check(abs(struct.unpack("<f", fb[132:136])[0] - 6.54321) < 1e-6, "field marker")
ids = struct.unpack("<24i", fb[136:136 + 96])
check(list(ids) == list(range(1, 25)), "field element numbers")
check(len(fb) == 136 + 96 + 24 * 3 * 125 * 8, f"field size {len(fb)}")
x = np.frombuffer(fb, "<f8", offset=232).reshape(24, 3, 125)
k4 = parse("t103-k4.re2")
# corners of the field file equal the .re2 corners bitwise (hexpack corner c -> pre slot)
pre = [0, 1, 3, 2, 4, 5, 7, 6]
ok = True
for e in range(24):
    for c in range(8):
        lex = (4 if c & 1 else 0) + 5 * (4 if c & 2 else 0) + 25 * (4 if c & 4 else 0)
        for dd in range(3):
            ok &= x[e, dd, lex] == k4["el"][e][1 + 8 * dd + pre[c]]
check(ok, "field-file corners differ from the .re2 corners")
# the .re2's header holds the field file's checksum: sum mod 2^64 over the coordinates x_i in file
# order of splitmix64(bits(x_i) + (i + 1) * 0x9E3779B97F4A7C15)
def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))
with np.errstate(over="ignore"):
    bits = x.reshape(-1).view(np.uint64)
    idx = np.arange(1, bits.size + 1, dtype=np.uint64)
    fsum = int(mix64(bits + idx * np.uint64(0x9E3779B97F4A7C15)).sum(dtype=np.uint64))
check(k4["link"] == "%016x" % fsum, f"field-file checksum in the .re2 header: {k4['link']}, computed here {fsum:016x}")
rc, out = run("cmp", "t103-k4.re2", "t101-kershaw-4.re2" if os.path.exists("t101-kershaw-4.re2") else "t103-k4.re2", "0")
co = open("t103-k4.co2", "rb").read()
check(co[:5] == b"#v001" and int(co[5:17]) == 24 and int(co[17:29]) == 24 and int(co[29:41]) == 8, f"co2 header {co[:45]}")
check(abs(struct.unpack("<f", co[132:136])[0] - 6.54321) < 1e-6 and len(co) == 136 + 24 * 36, "co2 marker/size")
recs = np.frombuffer(co, "<i4", offset=136).reshape(24, 9)
check(list(recs[:, 0]) == list(range(1, 25)), "co2 element numbers")
nv = len(set(recs[:, 1:].ravel()))
check(nv == 7 * 3 * 3 and recs[:, 1:].min() == 1 and recs[:, 1:].max() == nv, f"co2: {nv} vertices, expected 63 numbered 1..63")
print("field file and .co2: ok")
print("failures:", fails)
sys.exit(1 if fails else 0)
