"""t174: meshes that MFEM itself (PyMFEM) curves and writes are read by hexpack with the analytic
volumes, and what hexpack writes with --mfem-nodes h1 MFEM reads back with the same volumes.
  - the base: 2x2x2 elements of the unit cube listed in rotated local frames with shuffled
    vertices (mfem_gen.py), so MFEM numbers edges and faces in every orientation;
  - MFEM loads it, SetCurvature(P) for P = 1..4 in H1 (continuous, its global numbering) and in
    L2 (discontinuous), the nodes are moved by a polynomial map that the space holds exactly, and
    MFEM prints the mesh (H1_3D_P<P> / L2_T1_3D_P<P>);
  - the same in MFEM's legacy collections Quadratic and Cubic (SetNodalFESpace);
  - hexpack reads it: element volumes and boundary areas equal the analytic ones;
  - hexpack converts it (at order P for P = 1, 3, at P + 1 for P = 2, 4) with --mfem-nodes h1; MFEM's volumes of that file
    (its own Jacobian, a rule exact for det J) equal the analytic ones.
Skips (exit 77) when PyMFEM is absent (looked for as in t172)."""
import os
import subprocess
import sys
import tempfile

VENVS = [os.environ.get("HX_PYMFEM_PYTHON", ""), "/opt/hexpack-pymfem/bin/python"]
try:
    import mfem.ser as mfem
except Exception as exc:  # re-run under a Python that has PyMFEM
    if os.environ.get("HX_T174_CHILD"):
        print(f"skip: PyMFEM import failed in {sys.executable}: {exc}")
        sys.exit(77)
    for py in VENVS:
        if py and os.path.exists(py):
            env = dict(os.environ, HX_T174_CHILD="1")
            sys.exit(subprocess.run([py, os.path.abspath(__file__)], env=env).returncode)
    print(f"skip: PyMFEM not installed (import mfem.ser: {exc})")
    sys.exit(77)
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mfem_gen as G  # noqa: E402

tool = os.path.abspath(os.path.join(os.environ.get("HX_BUILD_DIR", "build"), "tests", "hx_iotool"))
HEXPACK = os.path.abspath(os.environ.get("HEXPACK", "build/hexpack"))
fail = 0


def check(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what)
    fail |= not ok


def mfem_volumes(path):
    m = mfem.Mesh(path, 1, 1)
    order = m.GetNodalFESpace().GetOrder(0)
    ir = mfem.IntRules.Get(m.GetElementBaseGeometry(0), 3 * order + 1)
    pts = [ir.IntPoint(i) for i in range(ir.GetNPoints())]
    vol = np.zeros(m.GetNE())
    for e in range(m.GetNE()):
        T = m.GetElementTransformation(e)
        for ip in pts:
            T.SetIntPoint(ip)
            vol[e] += T.Weight() * ip.weight
    return vol, order, m.GetNodalFESpace().FEColl().Name()


box = G.Box()
ref = {}
for name, dF in (("F1", G.dF1), ("F2", G.dF2)):
    ref[name] = (np.array([box.elem_volume(e, dF) for e in range(len(box.elems))]),
                 {1 + 2 * d + s: box.side_area(dF, d, s) for d in range(3) for s in (0, 1)})

with tempfile.TemporaryDirectory() as tmp:
    base = os.path.join(tmp, "base.mesh")
    with open(base, "w") as f:
        f.write(G.vertices_mesh(box, lambda p: np.asarray(p)))
    made = []  # (path, collection, map name, P, disc)
    for P in (1, 2, 3, 4):
        F, Fn = (G.F1, "F1") if P == 1 else (G.F2, "F2")
        for disc in (False, True):
            m = mfem.Mesh(base, 1, 1)
            m.SetCurvature(P, disc, 3, mfem.Ordering.byVDIM)
            nodes = m.GetNodes()
            coll = nodes.FESpace().FEColl().Name()
            a = nodes.GetDataArray().reshape(-1, 3)
            a[:] = np.array([F(p) for p in a])
            path = os.path.join(tmp, f"mfem_{coll}.mesh")
            m.Print(path, 17)
            made.append((path, coll, Fn, P, disc))
    # MFEM's legacy collections (fichera-q3.mesh of MFEM's data has 'Cubic' nodes)
    for P, fec in ((2, mfem.QuadraticFECollection()), (3, mfem.CubicFECollection())):
        m = mfem.Mesh(base, 1, 1)
        fes = mfem.FiniteElementSpace(m, fec, 3, mfem.Ordering.byVDIM)
        m.SetNodalFESpace(fes)
        nodes = m.GetNodes()
        coll = nodes.FESpace().FEColl().Name()
        a = nodes.GetDataArray().reshape(-1, 3)
        a[:] = np.array([G.F2(p) for p in a])
        path = os.path.join(tmp, f"mfem_{coll}.mesh")
        m.Print(path, 17)
        made.append((path, coll, "F2", P, True))
    results = G.read_all(tool, [x[0] for x in made])
    for path, coll, Fn, P, disc in made:
        rv, rareas = ref[Fn]
        got = results[path]
        if isinstance(got, str):
            check(False, f"{coll}: hexpack reads MFEM's file: {got}")
            continue
        s, bids, ev, _ = got
        err = np.max(np.abs(ev - rv))
        check(len(ev) == 8 and err < 1e-12 and s["nodes"] == (2 * P + 1) ** 3,
              f"{coll} (MFEM-written): hexpack's element volumes = analytic (max error {err:.1e}), {s['nodes']:.0f} nodes")
        aerr = max(abs(bids[b][1] - rareas[b]) for b in rareas) if sorted(bids) == list(range(1, 7)) else 1
        check(aerr < 1e-9, f"{coll} (MFEM-written): boundary ids 1..6 with the mapped sides' areas (max error {aerr:.1e})")
        if disc:
            continue
        # our H1 writer: at the same order for P = 1, 3, one order up for P = 2, 4
        order = P if P % 2 else P + 1
        out = os.path.join(tmp, f"ours_{P}_{order}.mesh")
        r = subprocess.run([HEXPACK, "convert", path, "-o", out, "--order", str(order), "--mfem-nodes", "h1"],
                           capture_output=True, text=True)
        if r.returncode:
            check(False, f"hexpack convert {coll} --order {order} --mfem-nodes h1: {r.stderr.strip()}")
            continue
        vm, mo, mc = mfem_volumes(out)
        err = np.max(np.abs(vm - rv))
        check(mo == order and mc == f"H1_3D_P{order}" and err < 1e-11,
              f"{coll} -> hexpack H1_3D_P{order} -> MFEM ({mc}): element volumes = analytic (max error {err:.1e})")
sys.exit(1 if fail else 0)
