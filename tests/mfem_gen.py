"""Makes MFEM .mesh files of a known curved shape for the MFEM reader tests (t173, t174).

The shape: the unit cube cut into 2x2x2 elements, every element listed in a different rotation of
its local frame (so edges and faces are seen in every orientation), vertex indices shuffled,
then mapped by F1 (trilinear: exact at order 1) or F2 (degree 2 in each variable: exact at
order >= 2). Volumes and boundary areas are computed here from the analytic maps by Gauss rules,
independently of any mesh.
"""
import itertools

import numpy as np

STD = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
# MFEM's cube faces (outward) as standard corners
FACEV = [(3, 2, 1, 0), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7), (4, 5, 6, 7)]
H = 0.5
NEL = 2


def F1(p):
    x, y, z = p
    return np.array([x * (1 + 0.5 * y), y, z * (1 + 0.25 * x * y)])


def dF1(p):
    x, y, z = p
    return np.array([[1 + 0.5 * y, 0.5 * x, 0], [0, 1, 0], [0.25 * y * z, 0.25 * x * z, 1 + 0.25 * x * y]])


def F2(p):
    x, y, z = p
    return np.array([x * (1 + 0.5 * y) + 0.1 * z * z, y + 0.1 * x * x, z * (1 + 0.25 * x * y)])


def dF2(p):
    x, y, z = p
    return np.array([[1 + 0.5 * y, 0.5 * x, 0.2 * z], [0.2 * x, 1, 0], [0.25 * y * z, 0.25 * x * z, 1 + 0.25 * x * y]])


def rotations():
    """the 24 proper rotations of the cube as signed permutation matrices"""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product([1, -1], repeat=3):
            R = np.zeros((3, 3), dtype=int)
            for r in range(3):
                R[r, perm[r]] = signs[r]
            if round(np.linalg.det(R)) == 1:
                out.append(R)
    return out


def gll(n):
    """n GLL points on [0,1]"""
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


def points(btype, n):
    """MFEM BasisType points on [0,1] (0 GL, 1 GLL, 3 open uniform, 4 closed uniform, 5 open half-uniform)"""
    if btype == 0:
        return 0.5 * (np.polynomial.legendre.leggauss(n)[0] + 1)
    if btype in (1, 2):
        return gll(n)
    if btype == 3:
        return (np.arange(n) + 1.0) / (n + 1)
    if btype == 4:
        return np.arange(n) / (n - 1.0)
    if btype == 5:
        return (np.arange(n) + 0.5) / n
    raise ValueError(btype)


class Box:
    """the 2x2x2 elements: vertex index of grid point (i,j,k), per element its base and rotation"""

    def __init__(self, seed=7):
        rng = np.random.default_rng(seed)
        nv = (NEL + 1) ** 3
        perm = rng.permutation(nv)
        self.vid = {}
        for k in range(NEL + 1):
            for j in range(NEL + 1):
                for i in range(NEL + 1):
                    self.vid[(i, j, k)] = int(perm[i + (NEL + 1) * (j + (NEL + 1) * k)])
        self.nv = nv
        rots = rotations()
        self.elems = []  # (base (i,j,k), R)
        for e, base in enumerate(itertools.product(range(NEL), repeat=3)):
            base = base[::-1]  # i fastest
            self.elems.append((base, rots[(5 * e + 3) % 24]))

    def local_to_grid(self, e, xi):
        """reference point xi in element e's own frame -> unit-cube point"""
        base, R = self.elems[e]
        return (np.array(base) + R @ (np.asarray(xi, dtype=float) - 0.5) + 0.5) * H

    def elem_vertices(self, e):
        base, R = self.elems[e]
        out = []
        for s in STD:
            g = np.array(base) + R @ (np.array(s) - 0.5) + 0.5
            out.append(self.vid[tuple(int(round(c)) for c in g)])
        return out

    def vertex_pos(self):
        pos = np.zeros((self.nv, 3))
        for g, v in self.vid.items():
            pos[v] = np.array(g) * H
        return pos

    def boundary(self):
        """(attribute, 4 vertices) of every boundary face: x- 1, x+ 2, y- 3, y+ 4, z- 5, z+ 6"""
        out = []
        for e in range(len(self.elems)):
            vs = self.elem_vertices(e)
            for f in FACEV:
                pts = [self.local_to_grid(e, STD[c]) for c in f]
                for d in range(3):
                    for side in (0, 1):
                        if all(abs(p[d] - side) < 1e-12 for p in pts):
                            out.append((1 + 2 * d + side, [vs[c] for c in f]))
        return out

    def elem_volume(self, e, dF, n=8):
        """volume of F(element e) by an n-point Gauss rule per direction (exact for our polynomial maps)"""
        base = np.array(self.elems[e][0]) * H
        t, w = np.polynomial.legendre.leggauss(n)
        t, w = 0.5 * (t + 1) * H, 0.5 * w * H
        v = 0.0
        for a in range(n):
            for b in range(n):
                for c in range(n):
                    v += w[a] * w[b] * w[c] * np.linalg.det(dF(base + np.array([t[a], t[b], t[c]])))
        return v

    def side_area(self, dF, d, side, n=24):
        """area of F(cube side: coordinate d = side)"""
        t, w = np.polynomial.legendre.leggauss(n)
        t, w = 0.5 * (t + 1), 0.5 * w
        u, v = (d + 1) % 3, (d + 2) % 3
        area = 0.0
        for a in range(n):
            for b in range(n):
                p = np.zeros(3)
                p[d], p[u], p[v] = side, t[a], t[b]
                J = dF(p)
                area += w[a] * w[b] * np.linalg.norm(np.cross(J[:, u], J[:, v]))
        return area


def header(version, comments=""):
    return f"MFEM mesh v{version}\n\n# {comments}\n\ndimension\n3\n\n"


def elements_text(box, attr=lambda e: 1 + e % 2):
    s = f"elements\n{len(box.elems)}\n"
    for e in range(len(box.elems)):
        s += f"{attr(e)} 5 " + " ".join(str(v) for v in box.elem_vertices(e)) + "\n"
    return s + "\n"


def boundary_text(box):
    bd = box.boundary()
    return f"boundary\n{len(bd)}\n" + "".join(f"{a} 3 " + " ".join(map(str, vs)) + "\n" for a, vs in bd) + "\n"


def vertices_mesh(box, F, version="1.0", sets=""):
    """order-1 mesh: plain vertices section (sets: text placed after elements and boundary, v1.3)"""
    pos = box.vertex_pos()
    s = header(version, "vertices form") + elements_text(box)
    if sets:
        s += sets[0]
    s += boundary_text(box)
    if sets:
        s += sets[1]
    s += f"vertices\n{box.nv}\n3\n" + "".join("%.17g %.17g %.17g\n" % tuple(F(p)) for p in pos)
    if version != "1.0":
        s += "\nmfem_mesh_end\n"
    return s


def l2_mesh(box, F, order, btype, ordering=1, name=None):
    """element-by-element nodes in basis type btype at order (lexicographic per element)"""
    n = order + 1
    t = points(btype, n)
    vals = []
    for e in range(len(box.elems)):
        X = np.zeros((n, n, n, 3))
        for k in range(n):
            for j in range(n):
                for i in range(n):
                    X[k, j, i] = F(box.local_to_grid(e, (t[i], t[j], t[k])))
        if btype == 2:  # Bernstein control points: solve the 1D interpolation along each axis
            B = np.array([[bern(order, a, x) for a in range(n)] for x in t])
            Bi = np.linalg.inv(B)
            X = np.einsum("ai,kjic->kjac", Bi, X)
            X = np.einsum("bj,kjac->kbac", Bi, X)
            X = np.einsum("ck,kbad->cbad", Bi, X)
        vals.append(X.reshape(-1, 3))
    vals = np.concatenate(vals)
    coll = name or (f"L2_T{btype}_3D_P{order}")
    s = header("1.0", "L2 nodes") + elements_text(box) + boundary_text(box)
    s += f"vertices\n{box.nv}\n\nnodes\nFiniteElementSpace\nFiniteElementCollection: {coll}\nVDim: 3\nOrdering: {ordering}\n\n"
    if ordering == 1:
        s += "".join("%.17g %.17g %.17g\n" % tuple(v) for v in vals)
    else:
        s += "".join("%.17g\n" % v for c in range(3) for v in vals[:, c])
    return s


def bern(N, a, x):
    from math import comb

    return comb(N, a) * x**a * (1 - x) ** (N - a)


def read_all(tool, paths):
    """hx_iotool vol on every path in one process: {path: (summary, bids, volumes, attributes)}
    or {path: "error: MESSAGE"}; summary = {elements, order, nodes, faces, volume},
    bids = {id: (faces, area, name)}"""
    import subprocess

    r = subprocess.run([tool, "vol"] + list(paths), capture_output=True, text=True)
    out, cur = {}, None
    for ln in r.stdout.split("\n"):
        w = ln.split()
        if ln.startswith("file "):
            cur = ln[5:]
            out[cur] = [None, {}, None, None]
        elif cur is None or not w:
            continue
        elif ln.startswith("error: "):
            out[cur] = ln
        elif w[0] == "elements":
            out[cur][0] = {w[i]: float(w[i + 1]) for i in range(0, len(w), 2)}
            rows = [x.split() for x in open(cur + ".vol")]
            out[cur][2] = np.array([float(x[1]) for x in rows])
            out[cur][3] = [int(x[2]) for x in rows]
        elif w[0] == "bid":
            out[cur][1][int(w[1])] = (int(w[3]), float(w[5]), " ".join(w[7:]))
    for p in paths:
        out.setdefault(p, f"error: no answer for {p} (exit {r.returncode}: {r.stderr.strip()})")
    return out
