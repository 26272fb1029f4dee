"""t172: MFEM itself (PyMFEM, mfem.ser) loads our MFEM .mesh (L2_T1_3D_P<N> nodes, orders
1..4; and H1_3D_P<N> nodes, --mfem-nodes h1, at orders 2 and 3, with the same element volumes) and its element volumes (MFEM's ElementTransformation Jacobian, integrated exactly) match
  - per element: an independent numpy integration of det J (Gauss rule exact for the
    degree-3N det J) over the nodes read from the file as GLL lexicographic per element,
    which is the ordering we claim; a wrong ordering in MFEM's reading (or ours) changes
    the volumes or makes them negative;
  - in total: the analytic volume (Kershaw box: 1 at every order; a 3x3 rod bundle:
    duct area minus rod areas, curved rods converge with the order).
Skips (exit 77) with a message when PyMFEM is absent: it is looked for in this Python,
then in $HX_PYMFEM_PYTHON, then in the venv scripts/install-deps.sh makes
(/opt/hexpack-pymfem/bin/python). """
import json
import math
import os
import subprocess
import sys
import tempfile

VENVS = [os.environ.get("HX_PYMFEM_PYTHON", ""), "/opt/hexpack-pymfem/bin/python"]
try:
    import mfem.ser as mfem  # noqa: F401
except Exception as exc:  # re-run under a Python that has PyMFEM
    if os.environ.get("HX_T172_CHILD"):
        print(f"skip: PyMFEM import failed in {sys.executable}: {exc}")
        sys.exit(77)
    for py in VENVS:
        if py and os.path.exists(py):
            env = dict(os.environ, HX_T172_CHILD="1")
            sys.exit(subprocess.run([py, os.path.abspath(__file__)], env=env).returncode)
    print(f"skip: PyMFEM not installed (import mfem.ser: {exc}; no venv in {[v for v in VENVS if v]})")
    sys.exit(77)
import numpy as np

HEXPACK = os.path.abspath(os.environ.get("HEXPACK", "build/hexpack"))
fail = 0


def check(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what)
    fail |= not ok


def gll(n):
    """n GLL points on [0,1] (Newton on the Legendre-Lobatto polynomial)"""
    if n == 2:
        return np.array([0.0, 1.0])
    N = n - 1
    x = -np.cos(np.pi * np.arange(n) / N)
    for _ in range(100):
        P = np.zeros((n, n))
        P[:, 0], P[:, 1] = 1, x
        for k in range(1, N):
            P[:, k + 1] = ((2 * k + 1) * x * P[:, k] - k * P[:, k - 1]) / (k + 1)
        dx = (x * P[:, N] - P[:, N - 1]) / (n * P[:, N])
        x -= dx
        if np.max(np.abs(dx)) < 1e-16:
            break
    return 0.5 * (x + 1)


def lagrange(nodes, t):
    """values and derivatives of the Lagrange basis on nodes at points t: (len(t), n)"""
    n = len(nodes)
    L = np.ones((len(t), n))
    D = np.zeros((len(t), n))
    for a in range(n):
        for b in range(n):
            if b != a:
                L[:, a] *= (t - nodes[b]) / (nodes[a] - nodes[b])
        for c in range(n):
            if c == a:
                continue
            term = np.ones(len(t)) / (nodes[a] - nodes[c])
            for b in range(n):
                if b != a and b != c:
                    term *= (t - nodes[b]) / (nodes[a] - nodes[b])
            D[:, a] += term
    return L, D


def our_volumes(path):
    """element volumes from the file's nodes, read as GLL lexicographic per element"""
    lines = open(path).read().split("\n")
    order = int([ln for ln in lines if ln.startswith("FiniteElementCollection")][0].split("_P")[-1])
    ne = int(lines[lines.index("elements") + 1])
    start = lines.index("Ordering: 1") + 2
    nd = order + 1
    X = np.loadtxt(lines[start:start + ne * nd ** 3]).reshape(ne, nd, nd, nd, 3)  # [e][k][j][i][d]
    q = (3 * order + 2) // 2 + 1
    g, w = np.polynomial.legendre.leggauss(q)
    g, w = 0.5 * (g + 1), 0.5 * w
    L, D = lagrange(gll(nd), g)
    # d/dr, d/ds, d/dt at the Gauss points (r along i, s along j, t along k)
    dr = np.einsum("ai,bj,ck,ekjid->ecbad", D, L, L, X)
    ds = np.einsum("ai,bj,ck,ekjid->ecbad", L, D, L, X)
    dt = np.einsum("ai,bj,ck,ekjid->ecbad", L, L, D, X)
    J = np.stack([dr, ds, dt], axis=-1)
    det = np.linalg.det(J)
    W = np.einsum("a,b,c->cba", w, w, w)
    return order, np.einsum("ecba,cba->e", det, W)


def mfem_volumes(path):
    """MFEM's element volumes: its own Jacobian (ElementTransformation on the nodes as MFEM
    reads them) integrated with a rule of order 3N+1, exact for det J (GetElementVolume
    uses the rule of order OrderJ(), which under-integrates a non-affine element)"""
    m = mfem.Mesh(path, 1, 1)
    order = m.GetNodalFESpace().GetOrder(0)
    ir = mfem.IntRules.Get(m.GetElementBaseGeometry(0), 3 * order + 1)
    pts = [ir.IntPoint(i) for i in range(ir.GetNPoints())]
    vol = np.zeros(m.GetNE())
    for e in range(m.GetNE()):
        T = m.GetElementTransformation(e)
        v = 0.0
        for ip in pts:
            T.SetIntPoint(ip)
            v += T.Weight() * ip.weight
        vol[e] = v
    return vol, order


with tempfile.TemporaryDirectory() as d:
    area = 3.78 ** 2 - 9 * math.pi * 0.475 ** 2
    cases = [(["box", "--n", "6", "--kershaw", "0.3,0.3"], 1.0, [1e-12] * 5),
             (["rods", "--rods", "3", "--pitch", "1.26", "--rod-radius", "0.475", "--sectors", "12", "--bl-first", "0.07"],
              area, [None, 5e-2, 3e-4, 3e-5, 3e-7])]
    for args, exact, tol in cases:
        for order in (1, 2, 3, 4):
            f = os.path.join(d, f"m{order}.mesh")
            r = subprocess.run([HEXPACK] + args + ["--order", str(order), "-o", f], capture_output=True, text=True)
            if r.returncode != 0:
                check(False, f"hexpack {' '.join(args)} --order {order}: {r.stderr.strip()}")
                continue
            vm, mo = mfem_volumes(f)
            o, vo = our_volumes(f)
            rel = np.max(np.abs(vm - vo) / np.abs(vo))
            check(mo == order and len(vm) == len(vo), f"{args[0]} order {order}: MFEM reads {len(vm)} elements, order {mo}")
            check(np.min(vm) > 0 and rel < 1e-9,
                  f"{args[0]} order {order}: MFEM element volumes vs numpy det J integral: max rel diff {rel:.2e}, min {np.min(vm):.3e}")
            # the same mesh with --mfem-nodes h1 (MFEM's continuous space, its global dof numbering;
            # orders 2 and 3, where edges and faces carry dofs; t174 covers 1..5)
            fh = os.path.join(d, f"m{order}_h1.mesh")
            r = None if order not in (2, 3) else subprocess.run([HEXPACK] + args + ["--order", str(order), "-o", fh, "--mfem-nodes", "h1"], capture_output=True,
                               text=True)
            if r is None:
                pass
            elif r.returncode != 0:
                check(False, f"hexpack {' '.join(args)} --order {order} --mfem-nodes h1: {r.stderr.strip()}")
            else:
                vh, ho = mfem_volumes(fh)
                relh = np.max(np.abs(vh - vo) / np.abs(vo)) if len(vh) == len(vo) else 1
                check(ho == order and relh < 1e-9, f"{args[0]} order {order} H1 nodes: MFEM element volumes vs the L2 file's: "
                      f"max rel diff {relh:.2e}")
            tot = float(np.sum(vm))
            if tol[order] is not None:
                check(abs(tot - exact) <= tol[order] * exact,
                      f"{args[0]} order {order}: MFEM total volume {tot:.12f} vs analytic {exact:.12f} "
                      f"(rel {abs(tot - exact) / exact:.1e}, tol {tol[order]:.0e})")
            else:
                print(f"     {args[0]} order {order}: total {tot:.6f} vs analytic {exact:.6f} (straight chords)")
sys.exit(fail)
