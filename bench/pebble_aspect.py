"""Where a pebble mesh's aspect ratio comes from, and what aspect <= A costs at a contact.

Usage: /usr/bin/python3 bench/pebble_aspect.py MESH.vtu [--limit A]
       /usr/bin/python3 bench/pebble_aspect.py --bound [--limit A] [--layers L] [--ratio G]
       /usr/bin/python3 bench/pebble_aspect.py --bound --terminate [--limit A] [--layers L] [--ratio G]
       (without --ratio: even layers, the default path's --ratio 1, and --fast's growth 1.5)

MESH.vtu: a `hexpack pebble ... -o MESH.vtu` (any order: the corners are the first 8 points of
each cell). The aspect ratio is the quality report's: longest / shortest of an element's 12
corner edges. In a swept pebble element the edges 0-4, 1-5, 2-6, 3-7 (VTK order) are its column
(radial) edges, the others lie along the facet. For the bulk elements above A it prints which
kind of edge is the shortest and the longest, and their sizes.

--bound: an estimate, not a proof, of the fewest facet quads per contact side that a tessellation
of concentric rings (m quads each, the bridge circle the innermost loop) needs for aspect <= A,
when the gap between two touching spheres of radius 1 at distance rho from their axis is
h(rho) = 1 - sqrt(1 - rho^2) and the column there has L layers of growth G: an element's edges
must stay below A x (first layer of the column at its inner side), along the circle and along
each ring's outer loop, and across each ring; rings out to rho = 0.5 (a facet's inner radius in
a dense bed).

--terminate: the same estimate, in elements per contact side, for a topology whose columns near
the contact have one layer and whose layers end on the sphere in a ring of transition elements
(in the section through the contact axis, 4 quads join a column of one layer to a column of L
layers; swept about the circle, 4 hexes per quad of that ring), against the swept columns of L
layers everywhere.
"""
import math
import sys


def arg(name, default):
    return float(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def first_layer(layers, ratio):
    return 1.0 / sum(ratio**k for k in range(int(layers)))


def bound(limit, layers, ratio):
    f = first_layer(layers, ratio)
    print(f"aspect <= {limit:g}, {layers:g} layers of growth {ratio:g} (first layer {f:.3f} of the column)")
    for rb in (0.15, 0.2, 0.25, 0.3):
        def edge(r):  # longest edge allowed next to a column of gap h(r)
            return limit * f * (1.0 - math.sqrt(1.0 - r * r))
        best = None
        for m in range(4, 200):
            if 2 * math.pi * rb / m > edge(rb):
                continue
            r, k = rb, 0
            while r < 0.5 and k < 100:
                r = min(r + edge(r), edge(r) * m / (2 * math.pi))
                k += 1
            if r >= 0.5 and (best is None or m * k < best[0]):
                best = (m * k, m, k)
        print(f"  bridge radius {rb:.2f} R ({rb / 2:.3f} d): " +
              (f"{best[0]} quads per contact side ({best[1]} about the circle, {best[2]} rings)"
               if best else "no ring tessellation within 100 rings"))


def rings_out(m, r, r_end, edge):
    """Rings of m quads from radius r until r_end (or a cap of 100): their count and the end radius."""
    k = 0
    while r < r_end and k < 100:
        r = min(r + edge(r), edge(r) * m / (2 * math.pi))
        k += 1
    return k, r


def bound_terminated(limit, layers, ratio):
    f = first_layer(layers, ratio)
    print(f"aspect <= {limit:g}: elements per contact side, {layers:g} layers of growth {ratio:g} swept "
          "everywhere against one layer near the contact and a ring of transition elements")
    for rb in (0.15, 0.2, 0.25, 0.3):
        def gap(r):
            return 1.0 - math.sqrt(1.0 - r * r)
        def edge_l(r):
            return limit * f * gap(r)
        def edge_1(r):
            return limit * gap(r)
        swept = terminated = None
        for m in range(4, 200):
            if 2 * math.pi * rb / m <= edge_l(rb):
                k, r = rings_out(m, rb, 0.5, edge_l)
                if r >= 0.5 and (swept is None or m * k * layers < swept[0]):
                    swept = (int(m * k * layers), m, k)
            if 2 * math.pi * rb / m > edge_1(rb) or m < 8:
                continue
            # one layer out to rt, then one transition ring (its outer side under the L-layer rule),
            # then L layers; the best rt for this m
            r = rb
            for k1 in range(0, 40):
                if k1 > 0:
                    if r >= 0.5:
                        break
                    r = min(r + edge_1(r), edge_1(r) * m / (2 * math.pi), 0.5)
                # the transition ring: width and arc below the L-layer rule at its outer side
                w = min(edge_l(r), 0.3)
                if 2 * math.pi * r / m > edge_l(r + w):
                    continue
                k2, r2 = rings_out(m, r + w, 0.5, edge_l)
                if r2 >= 0.5 or r + w >= 0.5:
                    n = int(m * (k1 + 4 + k2 * layers))
                    if terminated is None or n < terminated[0]:
                        terminated = (n, m, k1, k2)
        print(f"  bridge radius {rb:.2f} R ({rb / 2:.3f} d): swept {swept[0] if swept else '-'} "
              f"({swept[1]} about the circle, {swept[2]} rings)" if swept else "  swept: none", end="")
        print(f"; terminated {terminated[0]} ({terminated[1]} about the circle, {terminated[2]} rings of one "
              f"layer, 1 transition ring, {terminated[3]} rings of {layers:g})" if terminated else "; terminated: none")


def analyse(path, limit):
    import numpy as np
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy as v2n
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    g = r.GetOutput()
    if g.GetNumberOfCells() == 0:
        raise SystemExit(f"{path}: no cells read")
    P = v2n(g.GetPoints().GetData())
    cells = g.GetCells()
    off = v2n(cells.GetOffsetsArray())
    conn = v2n(cells.GetConnectivityArray())
    corners = np.stack([conn[off[:-1] + k] for k in range(8)], 1)
    region = v2n(g.GetCellData().GetArray("region"))
    X = P[corners]
    along = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4)]
    column = [(0, 4), (1, 5), (2, 6), (3, 7)]
    Q = np.stack([np.linalg.norm(X[:, b] - X[:, a], axis=1) for a, b in along], 1)
    V = np.stack([np.linalg.norm(X[:, b] - X[:, a], axis=1) for a, b in column], 1)
    asp = np.maximum(Q.max(1), V.max(1)) / np.minimum(Q.min(1), V.min(1))
    bulk = region == 1
    hi = bulk & (asp > limit)
    n = int(hi.sum())
    print(f"{path}: {len(asp)} elements, {int((asp > limit).sum())} with aspect > {limit:g}, "
          f"{n} of them in the bulk (of {int(bulk.sum())}); max {asp.max():.1f}")
    if n == 0:
        return
    q = lambda a: " / ".join(f"{v:.3g}" for v in np.percentile(a, [10, 50, 90]))
    print(f"  shortest edge a column edge: {int((V[hi].min(1) < Q[hi].min(1)).sum())}; "
          f"longest edge along the facet: {int((Q[hi].max(1) > V[hi].max(1)).sum())}")
    print(f"  10th / 50th / 90th percentiles: shortest column edge {q(V[hi].min(1))}, "
          f"longest facet edge {q(Q[hi].max(1))}, shortest facet edge / shortest column edge "
          f"{q(Q[hi].min(1) / V[hi].min(1))}, column taper (shortest / longest column edge) "
          f"{q(V[hi].min(1) / V[hi].max(1))}")


if __name__ == "__main__":
    limit = arg("--limit", 20.0)
    if "--bound" in sys.argv:
        for ratio in ([arg("--ratio", 1.0)] if "--ratio" in sys.argv else [1.0, 1.5]):
            if "--terminate" in sys.argv:
                bound_terminated(limit, arg("--layers", 3), ratio)
            else:
                bound(limit, arg("--layers", 3), ratio)
    elif len(sys.argv) > 1 and not sys.argv[1].startswith("--"):
        analyse(sys.argv[1], limit)
    else:
        raise SystemExit(__doc__)
