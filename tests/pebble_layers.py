# The radial layers of an order-1 pebble mesh (.vtu), measured: every column line (its foot on
# a sphere, the layer nodes, the facet node: a chain of the hexes' xi3 edges, VTK points i and
# i + 4) has layer thicknesses t_k whose ratios t_{k+1} / t_k should be g = RATIO for a column
# at least H d tall (d = 2 R), else 1 + (RATIO - 1) h / (H d) (--grade-height H; H = 0: RATIO
# everywhere). Prints: column lines checked, how many are shorter than H d, the largest
# deviation of a ratio from g.
#   usage: /usr/bin/python3 pebble_layers.py MESH.vtu CENTRES R H RATIO
import sys, numpy as np, vtk
from vtk.util.numpy_support import vtk_to_numpy
f, centres, R, H, ratio = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName(f); r.Update(); g = r.GetOutput()
X = vtk_to_numpy(g.GetPoints().GetData()); C = vtk_to_numpy(g.GetCells().GetConnectivityArray()).reshape(-1, 8)
S = np.array([[float(v) for v in l.split()[:3]] for l in open(centres) if l.strip() and not l.startswith('#')])
up = {}
for c in C:
    for a in range(4):
        p, q = c[a], c[a + 4]
        up.setdefault(p, set()).add(q)
# feet: points on a sphere
d = np.min(np.linalg.norm(X[:, None, :] - S[None, :, :], axis=2), axis=1)
foot = np.where(np.abs(d - R) < 1e-9 * R)[0]
nchk = nshort = 0; worst = 0
for p in foot:
    line = [p]
    while line[-1] in up and len(up[line[-1]]) == 1 and len(line) < 10:
        line.append(next(iter(up[line[-1]])))
    if len(line) != 4: continue
    P = X[line]; t = np.linalg.norm(np.diff(P, axis=0), axis=1); h = np.linalg.norm(P[-1] - P[0])
    gexp = ratio if (H <= 0 or h >= H * 2 * R) else 1 + (ratio - 1) * h / (H * 2 * R)
    worst = max(worst, abs(t[1] / t[0] - gexp), abs(t[2] / t[1] - gexp))
    nchk += 1; nshort += H > 0 and h < H * 2 * R
print(nchk, nshort, worst)
