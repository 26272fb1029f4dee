"""t175: legacy VTK .vtk files written by VTK itself (python3-vtk9, vtkUnstructuredGridWriter) are
read back: hexahedra of type 12 (order 1), 25 (20-node serendipity, raised to order 2), 29
(triquadratic) and 72 (Lagrange, order 3); ASCII and binary; file versions 4.2 (count-prefixed
CELLS) and 5.1 (OFFSETS/CONNECTIVITY); points shared between cells or repeated per cell; a
'material' cell array as the element attributes. The cells are the 2x2x2 elements of the unit
cube in rotated frames (mfem_gen.py) mapped by F1 (trilinear) or F2 (degree 2 per variable: in the
serendipity space too); each read must give the analytic volume per element and in total, the
area of the mapped cube's surface as boundary id 1 (24 faces) and the attributes. The point
positions inside each cell come from VTK's own cell classes (GetParametricCoords,
PointIndexFromIJK), not from our tables. Broken files: one line with the file and byte offset. A
METADATA block (INFORMATION records up to a blank line) is skipped whole."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import vtk

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mfem_gen as G  # noqa: E402

tool = os.path.join(os.environ.get("HX_BUILD_DIR", "build"), "tests", "hx_iotool")
HEXPACK = os.environ.get("HEXPACK", "build/hexpack")
fail = 0


def check(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what)
    fail |= not ok


def param_coords(ctype, order):
    """VTK's parametric coordinates of the cell's points, in VTK's point order"""
    if ctype == 72:
        n = (order + 1) ** 3
        pc = [None] * n
        for k in range(order + 1):
            for j in range(order + 1):
                for i in range(order + 1):
                    pc[vtk.vtkLagrangeHexahedron.PointIndexFromIJK(i, j, k, [order] * 3)] = (i / order, j / order, k / order)
        return pc
    cell = {12: vtk.vtkHexahedron, 25: vtk.vtkQuadraticHexahedron, 29: vtk.vtkTriQuadraticHexahedron}[ctype]()
    p = cell.GetParametricCoords()
    return [tuple(p[3 * a:3 * a + 3]) for a in range(cell.GetNumberOfPoints())]


def make_grid(box, F, ctype, order, shared):
    pc = param_coords(ctype, order)
    pts, index, cells = [], {}, []
    for e in range(len(box.elems)):
        ids = []
        for xi in pc:
            g = box.local_to_grid(e, xi)
            key = tuple(int(round(c * order / G.H)) for c in g) if shared else (e, len(ids))
            if key not in index:
                index[key] = len(pts)
                pts.append(F(g))
            ids.append(index[key])
        cells.append(ids)
    ug = vtk.vtkUnstructuredGrid()
    P = vtk.vtkPoints()
    P.SetDataTypeToDouble()
    for p in pts:
        P.InsertNextPoint(*p)
    ug.SetPoints(P)
    for ids in cells:
        idl = vtk.vtkIdList()
        for i in ids:
            idl.InsertNextId(i)
        ug.InsertNextCell(ctype, idl)
    mat = vtk.vtkIntArray()
    mat.SetName("material")
    for e in range(len(cells)):
        mat.InsertNextValue(1 + e % 3)
    ug.GetCellData().AddArray(mat)
    return ug, len(pts)


def write(ug, path, binary, version):
    w = vtk.vtkUnstructuredGridWriter()
    w.SetFileName(path)
    w.SetInputData(ug)
    if binary:
        w.SetFileTypeToBinary()
    else:
        w.SetFileTypeToASCII()
    if version == 42:
        w.SetFileVersion(42)
    w.Write()


box = G.Box()
ref = {}
for name, dF in (("F1", G.dF1), ("F2", G.dF2)):
    ev = np.array([box.elem_volume(e, dF) for e in range(len(box.elems))])
    ref[name] = (ev, sum(box.side_area(dF, d, s) for d in range(3) for s in (0, 1)))

with tempfile.TemporaryDirectory() as tmp:
    cases = [(12, 1, "F1", True, False, 51), (12, 1, "F1", True, True, 42), (12, 1, "F1", False, True, 51),
             (29, 2, "F2", True, True, 51), (29, 2, "F2", True, False, 42), (25, 2, "F2", True, True, 51),
             (25, 2, "F2", False, False, 42), (72, 3, "F2", True, True, 51), (72, 2, "F2", False, False, 51)]
    made = []
    for ctype, order, Fn, shared, binary, version in cases:
        what = f"type {ctype} order {order} {'binary' if binary else 'ASCII'} v{version / 10:.1f} " \
               f"{'shared' if shared else 'repeated'} points"
        ug, npts = make_grid(box, getattr(G, Fn), ctype, order, shared)
        path = os.path.join(tmp, f"c{ctype}_{order}_{int(shared)}{int(binary)}{version}.vtk")
        write(ug, path, binary, version)
        made.append((path, what, order, Fn))
    results = G.read_all(tool, [x[0] for x in made])
    for path, what, order, Fn in made:
        head = open(path, "rb").read(40).split(b"\n")[0].decode()
        got = results[path]
        if isinstance(got, str):
            check(False, f"{what}: read: {got}")
            continue
        s, bids, ev, attrs = got
        rv, rarea = ref[Fn]
        err = np.max(np.abs(ev - rv))
        nodes = (2 * order + 1) ** 3
        check(s["order"] == order and s["elements"] == 8 and s["nodes"] == nodes,
              f"{what} ({head}): 8 elements of order {order}, {nodes} distinct nodes (got {s['nodes']:.0f})")
        check(err < 1e-12, f"{what}: element volumes = analytic (max error {err:.1e})")
        check(list(bids) == [1] and bids[1][0] == 24 and abs(bids[1][1] - rarea) < 1e-9,
              f"{what}: boundary id 1 with 24 faces, area {bids.get(1, (0, 0))[1]:.12f} = {rarea:.12f}")
        check(attrs == [1 + e % 3 for e in range(8)], f"{what}: material -> attributes {attrs}")

    # broken files: one line naming the file and the byte offset
    ug, _ = make_grid(box, G.F1, 12, 1, True)
    good = os.path.join(tmp, "good.vtk")
    write(ug, good, False, 51)
    text = open(good).read()
    # the attributes as MFEM's PrintVTK writes them: SCALARS material int, LOOKUP_TABLE default
    sc = os.path.join(tmp, "scalars.vtk")
    with open(sc, "w") as f:
        f.write(text.replace("FIELD FieldData 1\nmaterial 1 8 int\n", "SCALARS material int 1\nLOOKUP_TABLE default\n"))
    got = G.read_all(tool, [sc])[sc]
    attrs = got[3] if not isinstance(got, str) else got
    check("SCALARS material" in open(sc).read() and attrs == [1 + e % 3 for e in range(8)],
          f"SCALARS material int (MFEM's PrintVTK form) -> attributes {attrs}")
    tet = vtk.vtkUnstructuredGrid()
    P = vtk.vtkPoints()
    for p in ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)):
        P.InsertNextPoint(*p)
    tet.SetPoints(P)
    idl = vtk.vtkIdList()
    for i in range(4):
        idl.InsertNextId(i)
    tet.InsertNextCell(10, idl)
    tpath = os.path.join(tmp, "tet.vtk")
    write(tet, tpath, False, 51)
    ci = text.index("CONNECTIVITY vtktypeint64\n") + len("CONNECTIVITY vtktypeint64\n")
    bad = {
        "tet": (open(tpath).read(), "cell 0 has VTK type 10; only hexahedra are read"),
        "nan": (text.replace("POINTS 27 double\n", "POINTS 27 double\nnan "), "'nan' is not a finite number"),
        "short": (text[: text.index("CONNECTIVITY") + 40], "CONNECTIVITY: 64 values cannot fit"),
        "types": (text.replace("CELL_TYPES 8", "CELL_TYPES 7"), "CELL_TYPES 7, but CELLS has 8 cells"),
        "nocells": (text[: text.index("CELLS")], "no CELLS section"),
        "index": (text[:ci] + "99" + text[text.index(" ", ci):], "= 99 is outside the 27 points"),
        "header": ("# vtk DataFile\n" + text[text.index("\n") + 1:], "byte 0: expected '# vtk DataFile Version X.Y'"),
        "polydata": (text.replace("UNSTRUCTURED_GRID", "POLYDATA"), "expected 'DATASET UNSTRUCTURED_GRID'"),
    }
    paths = {}
    for name, (t, msg) in bad.items():
        paths[name] = os.path.join(tmp, f"bad_{name}.vtk")
        with open(paths[name], "w") as f:
            f.write(t)
    results = G.read_all(tool, list(paths.values()))
    for name, (t, msg) in bad.items():
        err = results[paths[name]]
        check(isinstance(err, str) and msg in err and paths[name] in err, f"bad {name}: refused with '{msg}': {err}")
    for name in ("tet", "types"):
        r = subprocess.run([HEXPACK, "quality", paths[name]], capture_output=True, text=True)
        err = r.stderr.strip()
        check(r.returncode != 0 and bad[name][1] in err and len(err.split("\n")) == 1,
              f"hexpack quality {name}: exit {r.returncode}, one line: {err}")
    # a METADATA block (as VTK 9 writes after an array: INFORMATION records up to a blank line)
    # is skipped whole: the unit cube reads with volume 1
    md = os.path.join(tmp, "metadata.vtk")
    with open(md, "w") as f:
        f.write("# vtk DataFile Version 5.1\ncube\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 8 float\n"
                "0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1\nMETADATA\nINFORMATION 1\n"
                "NAME L2_NORM_RANGE LOCATION vtkDataArray\nDATA 2 0 1.73205\n\nCELLS 2 8\n"
                "OFFSETS vtktypeint64\n0 8\nCONNECTIVITY vtktypeint64\n0 1 3 2 4 5 7 6\nCELL_TYPES 1\n12\n")
    r = subprocess.run([HEXPACK, "quality", md, "--json"], capture_output=True, text=True)
    doc = json.loads(r.stdout) if r.stdout.strip() else {}
    check(r.returncode == 0 and doc.get("num_elem") == 1, f"METADATA block skipped: exit {r.returncode} {r.stderr.strip()}")
sys.exit(1 if fail else 0)
