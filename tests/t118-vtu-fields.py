#!/usr/bin/python3
"""t118: the data arrays a .vtu carries for ParaView, read back with VTK (python3-vtk9):
- FieldData arrays "boundary:NAME" holding the id give every id its name (box --separate-ids:
  1..6 = xmin..zmax; box: 1..3 = x_faces..z_faces), in raw, ASCII and zlib files; meshio reads
  them as field_data;
- cell data boundary_id (the smallest of a cell's 6 face ids) and boundary_faces (bit f: face f
  on a boundary) agree with boundary_ids, and against the geometry: the cells with a boundary
  face are exactly those whose points touch the box's sides, and the set bits count the
  2 (nx ny + ny nz + nz nx) boundary faces;
- min_detj = hx hy hz and scaled_jacobian = 1 on an affine box (the reference cube is [0,1]^3);
- our reader keeps the names: convert .vtu -> .vtu gives the same FieldData, also for names
  with XML's special characters (& < > "), after VTK re-wrote the file in its own binary form,
  and from a file of the older form (names in XML comments, no FieldData);
- a name array without a number is refused in one line naming the file, with no output."""
import os, re, shutil, subprocess, sys, tempfile
import numpy as np
import meshio
import vtk
from vtk.util.numpy_support import vtk_to_numpy

HEXPACK = os.environ.get("HEXPACK", "./build/hexpack")
fails = 0


def check(cond, msg):
    global fails
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        fails += 1


def run(*args):
    return subprocess.run([HEXPACK, *args], capture_output=True, text=True)


def read(path):
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()


def names_of(g):
    """{id: name} from the FieldData arrays "boundary:NAME" (None when there are none)."""
    fd = g.GetFieldData()
    out = {}
    for k in range(fd.GetNumberOfArrays()):
        a = fd.GetAbstractArray(k)
        if a.GetName().startswith("boundary:"):
            out[int(a.GetTuple1(0))] = a.GetName()[len("boundary:"):]
    return out or None


def cell(g, name):
    a = g.GetCellData().GetArray(name)
    return None if a is None else vtk_to_numpy(a)


d = tempfile.mkdtemp()
n = (3, 2, 5)
hi = (1.5, 1.0, 2.0)
h = [hi[i] / n[i] for i in range(3)]
sides = {1: "xmin", 2: "xmax", 3: "ymin", 4: "ymax", 5: "zmin", 6: "zmax"}
for form in ["", "--ascii", "--compress"]:
    path = os.path.join(d, "b%s.vtu" % form.strip("-"))
    args = ["box", "--n", "%d,%d,%d" % n, "--hi", "%g,%g,%g" % hi, "--order", "2", "--separate-ids", "-o", path]
    r = run(*args + ([form] if form else []))
    check(r.returncode == 0, "box %s %s" % (form or "(raw)", r.stderr.strip()))
    g = read(path)
    tag = os.path.basename(path)
    check(names_of(g) == sides, "%s: FieldData names %s" % (tag, names_of(g)))
    bids, bid, bfaces = cell(g, "boundary_ids"), cell(g, "boundary_id"), cell(g, "boundary_faces")
    check(bids is not None and bid is not None and bfaces is not None, "%s: boundary_ids, boundary_id, boundary_faces" % tag)
    if bids is None or bid is None or bfaces is None:
        continue
    bids = bids.reshape(-1, 6)
    mins = np.array([min([b for b in row if b > 0], default=0) for row in bids])
    masks = np.array([sum(1 << f for f in range(6) if row[f] > 0) for row in bids])
    check(np.array_equal(bid, mins), "%s: boundary_id = the smallest face id" % tag)
    check(np.array_equal(bfaces, masks), "%s: boundary_faces = the faces with an id" % tag)
    # against the geometry: cells touching the box's sides, and the number of boundary faces
    touch = []
    for c in range(g.GetNumberOfCells()):
        b = g.GetCell(c).GetBounds()
        touch.append(b[0] < 1e-12 or b[1] > hi[0] - 1e-12 or b[2] < 1e-12 or b[3] > hi[1] - 1e-12 or b[4] < 1e-12
                     or b[5] > hi[2] - 1e-12)
    check(np.array_equal(np.array(touch), bfaces > 0), "%s: cells with boundary faces = cells on the sides" % tag)
    nbits = sum(bin(int(m)).count("1") for m in bfaces)
    check(nbits == 2 * (n[0] * n[1] + n[1] * n[2] + n[2] * n[0]), "%s: %d boundary faces" % (tag, nbits))
    mj, sj = cell(g, "min_detj"), cell(g, "scaled_jacobian")
    check(np.allclose(mj, h[0] * h[1] * h[2], rtol=1e-12) and np.allclose(sj, 1, rtol=1e-12),
          "%s: min_detj = hx hy hz = %g, scaled_jacobian = 1" % (tag, h[0] * h[1] * h[2]))

# the default ids: one per axis
p = os.path.join(d, "axes.vtu")
run("box", "--n", "2", "-o", p)
check(names_of(read(p)) == {1: "x_faces", 2: "y_faces", 3: "z_faces"}, "box: names x_faces, y_faces, z_faces")

# Debian's meshio reads VTU versions 0.1 and 1.0 only: a copy that says 1.0 (as t102 does)
mp = os.path.join(d, "meshio.vtu")
open(mp, "wb").write(open(os.path.join(d, "b.vtu"), "rb").read().replace(b'version="2.2"', b'version="1.0"', 1))
m = meshio.read(mp)
check({int(v[0]): k[len("boundary:"):] for k, v in m.field_data.items() if k.startswith("boundary:")} == sides,
      "meshio: field_data %s" % sorted(m.field_data))

# our reader keeps the names
src, dst = os.path.join(d, "b.vtu"), os.path.join(d, "again.vtu")
r = run("convert", src, dst)
check(r.returncode == 0 and names_of(read(dst)) == sides, "convert .vtu -> .vtu keeps the names")
txt = open(src, "rb").read()
odd = {**sides, 2: 'in & "out" <2>'}
oddp, odd2 = os.path.join(d, "odd.vtu"), os.path.join(d, "odd2.vtu")
open(oddp, "wb").write(txt.replace(b'Name="boundary:xmax"', b'Name="boundary:in &amp; &quot;out&quot; &lt;2&gt;"', 1))
r = run("convert", oddp, odd2)
check(r.returncode == 0 and names_of(read(oddp)) == odd and names_of(read(odd2)) == odd,
      "a name with & < > \" kept through convert: %s" % (names_of(read(odd2)) or {}).get(2))
w = vtk.vtkXMLUnstructuredGridWriter()
vtkp, vtk2 = os.path.join(d, "vtkwritten.vtu"), os.path.join(d, "vtk2.vtu")
w.SetFileName(vtkp)
w.SetInputData(read(src))
w.Write()
r = run("convert", vtkp, vtk2)
check(r.returncode == 0 and re.search(rb'Name="boundary:xmin"[^>]*format="appended"', open(vtkp, "rb").read())
      and names_of(read(vtk2)) == sides, "names read back after VTK re-wrote the file (appended binary)")
fd = re.search(rb"    <FieldData>.*?</FieldData>\n", txt, re.S)
old = txt[: fd.start()] + txt[fd.end():]
comments = b"".join(b'  <!-- hexpack boundary %d "%s" -->\n' % (k, v.encode()) for k, v in sides.items())
old = old.replace(b"  <UnstructuredGrid>", comments + b"  <UnstructuredGrid>", 1)
oldp, old2 = os.path.join(d, "old.vtu"), os.path.join(d, "old2.vtu")
open(oldp, "wb").write(old)
check(names_of(read(oldp)) is None, "the older form has no FieldData")
r = run("convert", oldp, old2)
check(r.returncode == 0 and names_of(read(old2)) == sides, "names from the comments of the older form")

# a name array without a number: refused in one line naming the file, nothing written
bad = txt.replace(b'Name="boundary:ymin" NumberOfTuples="1" format="ascii">3<', b'Name="boundary:ymin" NumberOfTuples="1" format="ascii">x<', 1)
badp, badout = os.path.join(d, "badnames.vtu"), os.path.join(d, "badout.msh")
open(badp, "wb").write(bad)
r = run("convert", badp, badout)
msg = r.stderr.strip()
check(bad != txt and r.returncode != 0 and "badnames.vtu" in msg and "boundary:ymin" in msg and len(msg.splitlines()) == 1
      and not os.path.exists(badout), "a name array without a number refused: %s" % msg)
shutil.rmtree(d)
sys.exit(1 if fails else 0)
