#!/usr/bin/python3
"""t105: the Exodus II writer, read back by netCDF4 (the file's raw variables) and meshio.
A curved order-2 Kershaw box (non-affine elements) is written as .exo (HEX27) and as MFEM
.mesh (GLL nodes, lexicographic per element: at order 2 exactly the points {0,1/2,1}^3).
Checked: counts and element type; every HEX27 node equals the MFEM node at the position the
Exodus II HEX27 table (SEACAS element conventions) gives it; sideset ids and names; every
(element, side) pair: its 9 side nodes (SEACAS side node lists) lie on that boundary's plane
and its 4 corners form exactly the MFEM boundary faces of that id. Order 1 gives HEX8 with
the corners; `hexpack convert` writes .e; order 3 and an inverted mesh are refused with one
clear line and no file (the inverted one is written with --force)."""
import glob, os, subprocess, sys
import numpy as np
import netCDF4

hexpack = os.environ.get("HEXPACK", "hexpack")
os.makedirs("t105", exist_ok=True)
os.chdir("t105")
for f in glob.glob("*"):
    os.remove(f)
fails = 0


def check(cond, msg):
    global fails
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        fails += 1


def run(*args):
    r = subprocess.run([hexpack] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


# Exodus HEX27 node -> (a,b,c) on the 3x3x3 grid, written from the SEACAS figure/table:
# corners, bottom edges, vertical edges, top edges, centre, faces z-, z+, x-, x+, y-, y+
P27 = [(0,0,0),(2,0,0),(2,2,0),(0,2,0),(0,0,2),(2,0,2),(2,2,2),(0,2,2),
       (1,0,0),(2,1,0),(1,2,0),(0,1,0),(0,0,1),(2,0,1),(2,2,1),(0,2,1),
       (1,0,2),(2,1,2),(1,2,2),(0,1,2),(1,1,1),(1,1,0),(1,1,2),(0,1,1),(2,1,1),(1,0,1),(1,2,1)]
# SEACAS side node lists (1-based), HEX27: 4 corners, 4 edge nodes, face node
SIDE27 = {1: [1,2,6,5,9,14,17,13,26], 2: [2,3,7,6,10,15,18,14,25], 3: [3,4,8,7,11,16,19,15,27],
          4: [1,5,8,4,13,20,16,12,24], 5: [1,4,3,2,12,11,10,9,22], 6: [5,6,7,8,17,18,19,20,23]}
NAMES = {1: "xmin", 2: "xmax", 3: "ymin", 4: "ymax", 5: "zmin", 6: "zmax"}
PLANE = {1: (0, 0.0), 2: (0, 1.0), 3: (1, 0.0), 4: (1, 1.0), 5: (2, 0.0), 6: (2, 1.0)}


def read_mfem(path):
    toks = open(path).read().split("\n")
    lines = [l for l in toks if not l.startswith("#")]
    i = lines.index("elements")
    ne = int(lines[i + 1])
    ev = [list(map(int, lines[i + 2 + e].split()))[2:] for e in range(ne)]
    j = lines.index("boundary")
    nb = int(lines[j + 1])
    bf = [list(map(int, lines[j + 2 + q].split())) for q in range(nb)]
    k = lines.index("Ordering: 1")
    vals = np.array(" ".join(lines[k + 1:]).split(), dtype=float).reshape(ne, -1, 3)
    return ne, ev, bf, vals


def read_exo(path):
    d = netCDF4.Dataset(path)
    d.set_auto_mask(False)
    x = np.stack([d.variables["coordx"][:], d.variables["coordy"][:], d.variables["coordz"][:]], 1)
    conn = d.variables["connect1"][:]
    etype = d.variables["connect1"].getncattr("elem_type")
    ss = {}
    if "num_side_sets" in d.dimensions:
        ids = d.variables["ss_prop1"][:]
        names = [netCDF4.chartostring(r).item() if hasattr(netCDF4.chartostring(r), "item") else str(netCDF4.chartostring(r))
                 for r in d.variables["ss_names"][:]]
        for n, (sid, nm) in enumerate(zip(ids, names)):
            ss[int(sid)] = (nm, d.variables["elem_ss%d" % (n + 1)][:], d.variables["side_ss%d" % (n + 1)][:])
    nn, ne = d.dimensions["num_nodes"].size, d.dimensions["num_elem"].size
    word = d.variables["coordx"].dtype
    d.close()
    return nn, ne, x, conn, etype, ss, word


n = 6
rc, out = run("box", "--n", str(n), "--kershaw", "0.3,0.3,3", "--order", "2", "--separate-ids", "-o", "k.exo", "-o", "k.mesh")
check(rc == 0 and os.path.exists("k.exo") and os.path.exists("k.mesh"), "box --kershaw --order 2 -o k.exo -o k.mesh: " + out.strip()[-200:])
nn, ne, x, conn, etype, ss, word = read_exo("k.exo")
mne, ev, bf, mx = read_mfem("k.mesh")
check(etype == "HEX27" and conn.shape == (n ** 3, 27) and ne == n ** 3, "HEX27, %d elements (%s %s)" % (n ** 3, etype, conn.shape))
check(nn == (2 * n + 1) ** 3, "unique nodes %d == (2n+1)^3 = %d" % (nn, (2 * n + 1) ** 3))
check(word == np.float64, "coordinates in double (%s)" % word)
lex = [a + 3 * b + 9 * c for (a, b, c) in P27]
err = max(np.abs(x[conn[e] - 1] - mx[e][lex]).max() for e in range(ne))
check(err < 1e-14, "every HEX27 node at its table position in the curved element (max diff %.2e)" % err)
# the element really is non-affine: its centre differs from the mean of its corners
bend = max(np.abs(mx[e][13] - mx[e][[0, 2, 6, 8, 18, 20, 24, 26]].mean(0)).max() for e in range(ne))
check(bend > 1e-3, "the test mesh is curved (centre off the corner mean by %.3f)" % bend)
check(sorted(ss) == [1, 2, 3, 4, 5, 6] and all(ss[i][0] == NAMES[i] for i in ss),
      "sidesets 1..6 named xmin..zmax (%s)" % {i: ss[i][0] for i in ss})
# MFEM boundary faces per id as sets of corner coordinates (MFEM vertex -> coordinate via its element corners)
vcoord = {}
corner_lex = [0, 2, 8, 6, 18, 20, 26, 24]  # standard corner s -> lex on the 3^3 grid
for e in range(mne):
    for s, v in enumerate(ev[e]):
        vcoord[v] = tuple(np.round(mx[e][corner_lex[s]], 12))
mf = {}
for b in bf:
    mf.setdefault(b[0], set()).add(frozenset(vcoord[v] for v in b[2:6]))
for sid, (nm, el, sd) in sorted(ss.items()):
    ax, val = PLANE[sid]
    pts = np.array([[x[conn[e - 1][p - 1] - 1] for p in SIDE27[s]] for e, s in zip(el, sd)])
    off = np.abs(pts[:, :, ax] - val).max()
    cen = np.abs(x[conn[el - 1][:, 20] - 1][:, ax] - val).min()
    faces = set(frozenset(tuple(np.round(x[conn[e - 1][p - 1] - 1], 12)) for p in SIDE27[s][:4]) for e, s in zip(el, sd))
    check(len(el) == n * n and off < 1e-14 and cen > 1e-3 and faces == mf.get(sid),
          "sideset %d '%s': %d sides, the 9 nodes of each on the plane (off %.1e), centre not (%.2e), corners == our boundary faces"
          % (sid, nm, len(el), off, cen))

import meshio
m = meshio.read("k.exo")
check(len(m.points) == nn and m.cells[0].type == "hexahedron27" and len(m.cells[0].data) == ne,
      "meshio reads %d points, %s x %d" % (len(m.points), m.cells[0].type, len(m.cells[0].data)))

# order 1: HEX8 corners; convert to .e
rc, out = run("convert", "k.mesh", "k1.e", "--order", "1")
check(rc == 0 and os.path.exists("k1.e"), "convert k.mesh k1.e --order 1: " + out.strip()[-200:])
nn1, ne1, x1, conn1, et1, ss1, _ = read_exo("k1.e")
err = max(np.abs(x1[conn1[e] - 1] - mx[e][corner_lex]).max() for e in range(ne1))
check(et1 == "HEX8" and nn1 == (n + 1) ** 3 and err < 1e-14 and sorted(ss1) == [1, 2, 3, 4, 5, 6],
      "HEX8: %d nodes, corners equal (%.1e), 6 sidesets" % (nn1, err))

# refusals
rc, out = run("box", "--n", "2", "--order", "3", "-o", "o3.exo")
check(rc != 0 and "order 3" in out and "HEX27" in out and not glob.glob("o3.exo*"),
      "order 3 refused, no file: " + out.strip().splitlines()[-1] if out.strip() else "(no message)")
txt = open("k.mesh").read().split("\n")
i = txt.index("elements")
txt = "\n".join(txt)
j = txt.index("Ordering: 1\n\n") + len("Ordering: 1\n\n")
rows = txt[j:].split("\n")
a, b, c = rows[13].split()  # element 0's interior node moved far in z: det J < 0, its faces unchanged
rows[13] = "%s %s %.17g" % (a, b, float(c) + 5)
open("bad.mesh", "w").write(txt[:j] + "\n".join(rows))
rc, out = run("convert", "bad.mesh", "bad.exo")
check(rc != 0 and "det J" in out and not glob.glob("bad.exo*"), "inverted mesh refused, no file: " + out.strip()[-160:])
rc, out = run("convert", "bad.mesh", "bad.exo", "--force")
check(rc == 0 and os.path.exists("bad.exo"), "--force writes it: " + out.strip()[-160:])
print("t105:", "FAIL" if fails else "pass")
sys.exit(1 if fails else 0)
