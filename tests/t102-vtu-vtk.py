#!/usr/bin/python3
"""t102: VTK itself (python3-vtk9) reads every .vtu we write: cell count, cell type 72,
the cell's points are our map at VTK's own parametric node positions, and VTK's
Lagrange interpolation at parametric points (centre and pseudo-random ones) equals
our map; the ordering is proven on a deliberately non-affine order-3 element (a
cubic map, so the equispaced re-interpolation is exact). Then VTK re-writes the file
in its other encodings (ascii, inline base64, appended base64, zlib, UInt32 headers)
and our reader must read each back to the same mesh. meshio reads it too and agrees
on the counts."""
import os, subprocess, sys
import numpy as np
import vtk

tool = os.path.join(os.environ.get("HX_BUILD_DIR", "."), "tests", "hx_iotool")
fails = 0

def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", msg)

def samples(path):
    s = {}
    for line in open(path):
        v = line.split()
        s.setdefault(int(v[0]), []).append((tuple(map(float, v[1:4])), np.array(list(map(float, v[4:7])))))
    return s

def read(path):
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()

def check_file(kind, order, path, smp):
    g = read(path)
    s = samples(smp)
    check(g.GetNumberOfCells() == len(s), f"{path}: {g.GetNumberOfCells()} cells, expected {len(s)}")
    nd = order + 1
    worst = 0.0
    scale = 1.0
    for c in range(g.GetNumberOfCells()):
        check(g.GetCellType(c) == 72, f"{path}: cell {c} has type {g.GetCellType(c)}")
        cell = g.GetCell(c)
        npts = cell.GetNumberOfPoints()
        check(npts == nd ** 3, f"{path}: cell {c} has {npts} points")
        # VTK's parametric coordinates of its own nodes -> our map there
        pc = cell.GetParametricCoords()
        ours = {tuple(round(x, 12) for x in t): X for t, X in s[c][: nd ** 3]}
        for p in range(npts):
            t = tuple(round(pc[3 * p + d], 12) for d in range(3))
            X = np.array(g.GetPoint(cell.GetPointId(p)))
            check(t in ours, f"{path}: VTK node {p} at parametric {t} is not an equispaced node")
            if t in ours:
                worst = max(worst, np.abs(X - ours[t]).max())
        # Lagrange interpolation by VTK at the centre and random points
        sub = vtk.mutable(0)
        w = [0.0] * npts
        for t, X in s[c][nd ** 3:]:
            x = [0.0, 0.0, 0.0]
            cell.EvaluateLocation(sub, list(t), x, w)
            worst = max(worst, np.abs(np.array(x) - X).max())
        scale = max(scale, np.abs(np.array([g.GetPoint(i) for i in range(g.GetNumberOfPoints())])).max())
    check(worst < 1e-12 * scale, f"{path}: VTK and hexpack maps differ by {worst:.3e}")
    print(f"{kind} order {order}: {g.GetNumberOfCells()} cells, VTK map vs ours {worst:.2e}")
    return g

def run(*args):
    r = subprocess.run([tool] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr

for kind, orders in (("cubic", [3]), ("kershaw", (1, 2, 5, 8)), ("sphere", [4, 7])):
    for order in orders:
        path = f"t102-{kind}-{order}.vtu"
        rc, out = run("gen", kind, str(order), path, path + ".txt")
        check(rc == 0, f"gen {path}: {out}")
        check_file(kind, order, path, path + ".txt")

# our compressed and ASCII variants
for env, tag in (("HX_COMPRESS", "zlib"), ("HX_ASCII", "ascii")):
    path = f"t102-kershaw-5-{tag}.vtu"
    r = subprocess.run([tool, "gen", "kershaw", "5", path, path + ".txt"], capture_output=True, text=True,
                       env=dict(os.environ, **{env: "1"}))
    check(r.returncode == 0, f"gen {path}: {r.stderr}")
    check(tag != "zlib" or b"vtkZLibDataCompressor" in open(path, "rb").read(400), f"{path} is not compressed")
    check_file("kershaw-" + tag, 5, path, path + ".txt")

# the ordering is not vacuous: a swapped pair of points breaks the cubic element
g = read("t102-cubic-3.vtu")
cell = g.GetCell(0)
ids = [cell.GetPointId(p) for p in range(64)]
ids[9], ids[10] = ids[10], ids[9]
bad = vtk.vtkUnstructuredGrid()
bad.SetPoints(g.GetPoints())
bad.InsertNextCell(72, 64, ids)
sub = vtk.mutable(0); x = [0.0] * 3; w = [0.0] * 64
bad.GetCell(0).EvaluateLocation(sub, [0.37, 0.21, 0.55], x, w)
good = [0.0] * 3
g.GetCell(0).EvaluateLocation(sub, [0.37, 0.21, 0.55], good, w)
check(np.abs(np.array(x) - np.array(good)).max() > 1e-6, "swapping two edge nodes did not change VTK's map")

# VTK writes the same grid in its other encodings; our reader must agree
for kind, order in (("sphere", 4),):
    src = f"t102-{kind}-{order}.vtu"
    g = read(src)
    variants = {"ascii": (0, False, 64), "inline": (1, False, 64), "appb64": (2, False, 64),
                "zlibraw": (2, True, 64), "zlib32": (2, True, 32), "zlibinline": (1, True, 64),
                "raw32": (2, False, 32), "zlibb64": (2, True, 64)}
    for name, (mode, comp, hdr) in variants.items():
        w = vtk.vtkXMLUnstructuredGridWriter()
        w.SetInputData(g)
        out = f"t102-{kind}-{order}-{name}.vtu"
        w.SetFileName(out)
        w.SetDataMode(mode)
        w.SetEncodeAppendedData(name in ("appb64", "zlibb64"))
        w.SetHeaderTypeToUInt64() if hdr == 64 else w.SetHeaderTypeToUInt32()
        if comp:
            w.SetCompressorTypeToZLib()
        else:
            w.SetCompressorTypeToNone()
        w.Write()
        rc, msg = run("cmp", src, out, "1e-13")
        check(rc == 0, f"{out} ({name}) read back differently: {msg.strip()}")
        print(f"VTK-written {name}: {msg.strip()}")

# meshio: Debian's meshio 5.0 accepts only VTU versions 0.1 and 1.0, so it reads a
# copy whose version attribute says 1.0 (the layout is otherwise the same)
import meshio
for kind, order in (("kershaw", 2), ("sphere", 4)):
    src = f"t102-{kind}-{order}.vtu"
    data = open(src, "rb").read().replace(b'version="2.2"', b'version="1.0"', 1)
    cp = f"t102-{kind}-{order}-meshio.vtu"
    open(cp, "wb").write(data)
    m = meshio.read(cp)
    g = read(src)
    ncells = sum(len(c.data) for c in m.cells)
    check(len(m.points) == g.GetNumberOfPoints() and ncells == g.GetNumberOfCells(),
          f"meshio: {len(m.points)} points {ncells} cells vs VTK {g.GetNumberOfPoints()} {g.GetNumberOfCells()}")
    check(m.cells[0].data.shape[1] == (order + 1) ** 3, "meshio: wrong points per cell")
    print(f"meshio {kind} order {order}: {len(m.points)} points, {ncells} cells")

print("failures:", fails)
sys.exit(1 if fails else 0)
