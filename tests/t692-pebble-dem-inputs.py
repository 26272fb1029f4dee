#!/usr/bin/env python3
"""t692: packings from DEM codes. One poured bed is written by this test in every form that
`hexpack pebble` reads, each in its tool's documented layout, and every form must give the same
mesh as the plain 'x y z r' table, byte for byte (.re2 and its field file of the order-2 GLL
geometry):

- LAMMPS / LIGGGHTS dump files (LAMMPS "dump" page: ITEM: TIMESTEP, NUMBER OF ATOMS, BOX BOUNDS,
  ATOMS with any column order; rows in any order, put in atom-id order): several snapshots (the
  last by default, --timestep N and first), UNITS and TIME items, unscaled x y z, unwrapped xu yu
  zu, scaled xs ys zs in an orthogonal box, xsu ysu zsu in a restricted triclinic box (bounds
  enclosing the tilted cell, tilt factors xy xz yz) and a general triclinic box (abc origin),
  radius or diameter columns, LIGGGHTS' usual column set (with blanks at the ends of the item lines);
- CSV with a header line: commas, CRLF line ends, semicolons with decimal commas, ParaView's quoted
  "Points:0" export, a diameter column with a unit suffix, a table without radii (--radius);
- particle files written by VTK itself (python3-vtk9): .vtu (ascii, binary, appended zlib),
  .vtp, legacy .vtk ASCII and BINARY, the radius as the active scalars or as a field array,
  a diameter array; and a hand-written legacy file as LIGGGHTS' dump custom/vtk writes it (VTK
  writes legacy ASCII with 11 digits: those files are compared with the table of what VTK's own
  reader reads from them);
- --scale: the bed in millimetres with --scale 0.001 gives the metre bed's mesh.

Coordinates and radii are multiples of 2^-20, so that the scaled and triclinic forms map back to
the same doubles exactly (every product and sum below is exact in binary)."""
import concurrent.futures
import os
import random
import subprocess
import sys
import tempfile

import vtk
from vtk.util.numpy_support import numpy_to_vtk
import numpy as np

HEXPACK = os.environ.get("HEXPACK", "./build/hexpack")
Q = 2.0**-20


def run(args, what):
    r = subprocess.run([HEXPACK] + args, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: {what}: hexpack {' '.join(args)} exited {r.returncode}: {r.stderr.strip()}")
        return False
    return True


def mesh_bytes(re2):
    """the .re2 and, at order 2, the field file of its GLL geometry beside it"""
    fld = re2[:-4] + "0.f00000"
    return open(re2, "rb").read() + (open(fld, "rb").read() if os.path.exists(fld) else b"")


def main():
    tmp = tempfile.mkdtemp()
    os.chdir(tmp)
    if not run(["pack", "--n", "14", "--container", "cyl:3", "--seed", "3", "-o", "packed.txt"], "pack"):
        return 1
    bed = []
    for line in open("packed.txt"):
        s = line.split("#")[0].split()
        if len(s) >= 4:
            bed.append([round(float(v) / Q) * Q for v in s[:4]])
    n = len(bed)
    xyz = np.array([b[:3] for b in bed])
    rad = np.array([b[3] for b in bed])
    with open("table.txt", "w") as f:
        f.write("# x y z r\n")
        for b in bed:
            f.write("%r %r %r %r\n" % tuple(b))
    common = ["--container", "cyl:3.3", "--order", "2"]
    if not run(["pebble", "--fast", "table.txt"] + common + ["-o", "ref.re2"], "the reference table"):
        return 1
    ref = mesh_bytes("ref.re2")
    files = []  # (file, extra flags, what): each gives ref
    own = []  # (file, its reference table, what)

    # ---- LAMMPS / LIGGGHTS dumps ----
    rng = random.Random(7)
    order = list(range(n))
    lo, L = -8.0, 16.0

    def snapshot(f, step, cols, values, box_lines, box_flags="pp pp ff", shift=0.0, tail=""):
        f.write("ITEM: TIMESTEP\n%d\nITEM: NUMBER OF ATOMS\n%d\nITEM: BOX BOUNDS %s\n" % (step, n, box_flags))
        for bl in box_lines:
            f.write(bl + "\n")
        f.write("ITEM: ATOMS " + " ".join(cols) + tail + "\n")
        rows = order[:]
        rng.shuffle(rows)
        for i in rows:
            f.write(" ".join(values(i, c, shift) for c in cols) + "\n")

    orth = ["%r %r" % (lo, lo + L)] * 3

    def plain(i, c, shift):
        x, y, z = xyz[i] + shift
        v = {"id": i + 1, "type": 1 + i % 2, "x": x, "y": y, "z": z, "xu": x, "yu": y, "zu": z,
             "radius": rad[i], "diameter": 2 * rad[i], "vx": 0.25, "vy": -1.5, "vz": 3.0, "ix": 0, "iy": 0, "iz": 0,
             "fx": 1e-3, "fy": 0.0, "fz": -9.81, "omegax": 0.0, "omegay": 0.0, "omegaz": 0.5,
             "xs": (x - lo) / L, "ys": (y - lo) / L, "zs": (z - lo) / L}[c]
        return "%r" % v if isinstance(v, float) else str(v)

    with open("dump-lammps.txt", "w") as f:
        f.write("ITEM: UNITS\nsi\n")
        for k, step in enumerate([0, 1000, 2000]):
            f.write("ITEM: TIME\n%r\n" % (step * 1e-5))
            snapshot(f, step, ["radius", "z", "id", "type", "vx", "y", "x"], plain, orth, shift=0.5 * (2 - k))
    files += [("dump-lammps.txt", [], "LAMMPS dump, last of 3 snapshots (shuffled rows, any column order)")]
    with open("dump-middle.txt", "w") as f:
        for k, step in enumerate([100, 200, 300]):
            snapshot(f, step, ["id", "type", "x", "y", "z", "radius"], plain, orth, shift=0.0 if step == 200 else 0.75)
    files += [("dump-middle.txt", ["--timestep", "200"], "LAMMPS dump, --timestep 200 of 100, 200, 300")]
    with open("dump-first.txt", "w") as f:
        for k, step in enumerate([5, 10]):
            snapshot(f, step, ["id", "x", "y", "z", "diameter"], plain, orth, shift=0.0 if k == 0 else 1.0)
    files += [("dump-first.txt", ["--timestep", "first"], "LAMMPS dump, --timestep first, diameter column")]
    with open("dump-liggghts.txt", "w") as f:
        cols = "id type x y z ix iy iz vx vy vz fx fy fz omegax omegay omegaz radius".split()
        snapshot(f, 25000, cols, plain, ["-0.004 0.004", "-0.004 0.004", "0 0.01"], "ff ff ff ", tail=" ")
    files += [("dump-liggghts.txt", [], "LIGGGHTS dump custom (id type x y z ix iy iz vx ... radius)")]
    with open("dump-unwrapped.txt", "w") as f:
        snapshot(f, 1, ["id", "type", "xu", "yu", "zu"], plain, orth)
    files += [("dump-unwrapped.txt", ["--radius", "%r" % rad[0]] if len(set(rad)) == 1 else None, "unwrapped, --radius")]
    with open("dump-scaled.txt", "w") as f:
        snapshot(f, 1, ["id", "type", "xs", "ys", "zs", "radius"], plain, orth)
    files += [("dump-scaled.txt", [], "LAMMPS dump atom style, scaled xs ys zs")]

    # restricted triclinic: the cell's edges a = (L, 0, 0), b = (xy, L, 0), c = (xz, yz, L) from lo
    xy, xz, yz = 0.5, 0.25, -0.5
    lo3 = np.array([lo, lo, lo])

    def frac(p):
        zs = (p[2] - lo3[2]) / L
        ys = (p[1] - lo3[1] - zs * yz) / L
        xs = (p[0] - lo3[0] - ys * xy - zs * xz) / L
        return xs, ys, zs

    def tric(i, c, shift):
        xs, ys, zs = frac(xyz[i])
        v = {"id": i + 1, "type": 1, "xsu": xs, "ysu": ys, "zsu": zs, "radius": rad[i]}[c]
        return "%r" % v if isinstance(v, float) else str(v)

    bounds = ["%r %r %r" % (lo + min(0, xy, xz, xy + xz), lo + L + max(0, xy, xz, xy + xz), xy),
              "%r %r %r" % (lo + min(0, yz), lo + L + max(0, yz), xz), "%r %r %r" % (lo, lo + L, yz)]
    with open("dump-triclinic.txt", "w") as f:
        snapshot(f, 1, ["id", "type", "xsu", "ysu", "zsu", "radius"], tric, bounds, "xy xz yz pp pp pp")
    files += [("dump-triclinic.txt", [], "restricted triclinic box, scaled unwrapped xsu ysu zsu")]
    general = ["%r %r %r %r" % (L, 0.0, 0.0, lo), "%r %r %r %r" % (xy, L, 0.0, lo), "%r %r %r %r" % (xz, yz, L, lo)]
    with open("dump-general.txt", "w") as f:
        snapshot(f, 1, ["id", "type", "xsu", "ysu", "zsu", "radius"], tric, general, "abc origin pp pp pp")
    files += [("dump-general.txt", [], "general triclinic box (abc origin), scaled coordinates")]

    # ---- CSV ----
    with open("bed.csv", "w") as f:
        f.write("x,y,z,r\n")
        for i in range(n):
            f.write("%r,%r,%r,%r\n" % (*xyz[i], rad[i]))
    with open("bed-crlf.csv", "w", newline="\r\n") as f:
        f.write("X, Y, Z, R\n")
        for i in range(n):
            f.write("%r, %r, %r, %r\n" % (*xyz[i], rad[i]))
    files += [("bed-crlf.csv", [], "CSV with CRLF line ends and blanks after the commas")]
    with open("bed-semicolon.csv", "w") as f:
        f.write("ID;X;Y;Z;Radius\n")
        for i in range(n):
            f.write(("%d;%r;%r;%r;%r\n" % (i + 1, *xyz[i], rad[i])).replace(".", ","))
    with open("bed-paraview.csv", "w") as f:
        f.write('"id","radius","Points:0","Points:1","Points:2"\n')
        for i in range(n):
            f.write("%d,%r,%r,%r,%r\n" % (i + 1, rad[i], *xyz[i]))
    with open("bed-diameter.csv", "w") as f:
        f.write("Particle, Diameter [m], PosX, PosY, PosZ\n")
        for i in range(n):
            f.write("p%d, %r, %r, %r, %r\n" % (i + 1, 2 * rad[i], *xyz[i]))
    files += [("bed.csv", [], "CSV x,y,z,r"), ("bed-semicolon.csv", [], "CSV with ';' and decimal commas"),
              ("bed-paraview.csv", [], "ParaView CSV export (quoted, Points:0..2)"),
              ("bed-diameter.csv", [], "CSV with a diameter column and a unit suffix")]
    if len(set(rad)) == 1:
        with open("bed-norad.csv", "w") as f:
            f.write("x\ty\tz\n")
            for i in range(n):
                f.write("%r\t%r\t%r\n" % tuple(xyz[i]))
        files += [("bed-norad.csv", ["--radius", "%r" % rad[0]], "tab-separated CSV without radii, --radius")]

    # ---- VTK, written by VTK ----
    pts = vtk.vtkPoints()
    pts.SetDataTypeToDouble()
    for i in range(n):
        pts.InsertNextPoint(*xyz[i])

    def dataset(kind, array="radius", values=rad, active=True):
        ds = vtk.vtkUnstructuredGrid() if kind == "ug" else vtk.vtkPolyData()
        ds.SetPoints(pts)
        verts = vtk.vtkCellArray()
        for i in range(n):
            verts.InsertNextCell(1)
            verts.InsertCellPoint(i)
        if kind == "ug":
            ds.SetCells(vtk.VTK_VERTEX, verts)
        else:
            ds.SetVerts(verts)
        a = numpy_to_vtk(np.ascontiguousarray(values, dtype=np.float64), deep=True)
        a.SetName(array)
        ids = numpy_to_vtk(np.arange(1, n + 1, dtype=np.int32), deep=True)
        ids.SetName("id")
        vel = numpy_to_vtk(np.tile([0.5, 0.0, -1.0], (n, 1)), deep=True)
        vel.SetName("v")
        ds.GetPointData().AddArray(ids)
        ds.GetPointData().AddArray(vel)
        ds.GetPointData().AddArray(a)
        if active:
            ds.GetPointData().SetActiveScalars(array)
        return ds

    def xml(name, ds, mode, compress):
        w = vtk.vtkXMLUnstructuredGridWriter() if name.endswith(".vtu") else vtk.vtkXMLPolyDataWriter()
        w.SetFileName(name)
        w.SetInputData(ds)
        {"ascii": w.SetDataModeToAscii, "binary": w.SetDataModeToBinary, "appended": w.SetDataModeToAppended}[mode]()
        if compress:
            w.SetCompressorTypeToZLib()
        else:
            w.SetCompressorTypeToNone()
        if not w.Write():
            raise RuntimeError("VTK could not write " + name)
        files.append((name, [], "VTK XML %s (%s%s)" % (name[-3:], mode, ", zlib" if compress else "")))

    xml("p-ascii.vtu", dataset("ug"), "ascii", False)
    xml("p-binary.vtu", dataset("ug"), "binary", False)
    xml("p-appended.vtu", dataset("ug", "Diameter", 2 * rad), "appended", True)
    xml("p-binary.vtp", dataset("pd", "Radius", rad, active=False), "binary", True)
    for name, kind, binary, active in [("p-ascii.vtk", "pd", False, True), ("p-binary.vtk", "pd", True, True),
                                       ("p-field.vtk", "ug", False, False), ("p-ugbin.vtk", "ug", True, False)]:
        w = vtk.vtkUnstructuredGridWriter() if kind == "ug" else vtk.vtkPolyDataWriter()
        w.SetFileName(name)
        w.SetInputData(dataset(kind, "radius", rad, active))
        if binary:
            w.SetFileTypeToBinary()
        else:
            w.SetFileTypeToASCII()
        w.Write()
        what = "legacy VTK by VTK (%s, radius %s)" % ("BINARY" if binary else "ASCII", "SCALARS" if active else "FIELD array")
        if binary:
            files.append((name, [], what))
            continue
        # VTK writes legacy ASCII with 11 digits: the reference is the table of what VTK's own reader reads
        r = vtk.vtkUnstructuredGridReader() if kind == "ug" else vtk.vtkPolyDataReader()
        r.SetFileName(name)
        r.ReadAllScalarsOn()
        r.ReadAllFieldsOn()
        r.Update()
        back = r.GetOutput()
        rr = back.GetPointData().GetArray("radius")
        with open(name + ".txt", "w") as f:
            for i in range(back.GetNumberOfPoints()):
                f.write("%r %r %r %r\n" % (*back.GetPoint(i), rr.GetValue(i)))
        own.append((name, name + ".txt", what + ", against VTK's reader"))
    with open("p-liggghts.vtk", "w") as f:
        f.write("# vtk DataFile Version 2.0\nGenerated by LIGGGHTS\nASCII\nDATASET POLYDATA\nPOINTS %d double\n" % n)
        for i in range(n):
            f.write("%r %r %r\n" % tuple(xyz[i]))
        f.write("VERTICES %d %d\n" % (n, 2 * n))
        for i in range(n):
            f.write("1 %d\n" % i)
        f.write("POINT_DATA %d\nVECTORS v double\n" % n)
        for i in range(n):
            f.write("0 0 -1\n")
        f.write("SCALARS type int 1\nLOOKUP_TABLE default\n" + "".join("1\n" for i in range(n)))
        f.write("SCALARS radius double 1\nLOOKUP_TABLE default\n" + "".join("%r\n" % rad[i] for i in range(n)))
    files.append(("p-liggghts.vtk", [], "legacy VTK as LIGGGHTS dump custom/vtk writes it"))

    # ---- --scale: the bed in millimetres ----
    with open("dump-mm.txt", "w") as f:
        def mm(i, c, shift):
            v = {"id": i + 1, "type": 1, "x": xyz[i][0] * 1000, "y": xyz[i][1] * 1000, "z": xyz[i][2] * 1000,
                 "radius": rad[i] * 1000}[c]
            return "%r" % v if isinstance(v, float) else str(v)
        snapshot(f, 0, ["id", "type", "x", "y", "z", "radius"], mm, ["-8000 8000"] * 3)
    with open("table-m.txt", "w") as f:
        for i in range(n):
            f.write("%r %r %r %r\n" % (xyz[i][0] * 1000 * 0.001, xyz[i][1] * 1000 * 0.001, xyz[i][2] * 1000 * 0.001,
                                       rad[i] * 1000 * 0.001))
    # every run at once (each is short; most of its time is start-up), then the comparisons
    jobs = [(["table-m.txt"], "ref-m.re2", "the metre table")]
    checks = [("mm.re2", "ref-m.re2", "LAMMPS dump in mm, --scale 0.001", "dump-mm.txt")]
    jobs.append((["dump-mm.txt", "--scale", "0.001"], "mm.re2", checks[0][2]))
    for k, (fname, table, what) in enumerate(own):
        jobs += [([table], "own%d-ref.re2" % k, what + " (reference)"), ([fname], "own%d.re2" % k, what)]
        checks.append(("own%d.re2" % k, "own%d-ref.re2" % k, what, fname))
    for fname, extra, what in files:
        if extra is None:
            continue
        out = fname.replace(".", "-") + ".re2"
        jobs.append(([fname] + extra, out, what))
        checks.append((out, "ref.re2", what, fname))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        ok = list(pool.map(lambda j: run(["pebble", "--fast"] + j[0] + common + ["-o", j[1]], j[2]), jobs))
    fail = not all(ok)
    done = {j[1] for j, o in zip(jobs, ok) if o} | {"ref.re2"}
    for out, want, what, fname in checks:
        if out in done and want in done:
            same = mesh_bytes(out) == mesh_bytes(want)
            print("%s  %-60s %s" % ("ok  " if same else "FAIL", what, fname))
            fail |= not same
    print("forms read: %d, bed of %d spheres" % (len(files) + len(own) + 1, n))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
