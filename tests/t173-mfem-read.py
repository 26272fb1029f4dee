"""t173: the MFEM .mesh reader on files made here, one per form: order-1 vertices (v1.0, v1.2 with
mfem_mesh_end), H1_3D_P1, L2 nodes in every basis type MFEM writes (GLL, Gauss-Legendre, open and
closed uniform, open half-uniform, Bernstein) and both orderings, v1.3 attribute sets naming the
boundaries. The shape is a cube of 2x2x2 elements listed in rotated local frames and mapped by a
polynomial map (mfem_gen.py); each read must give the analytic volume per element and in total,
and per boundary id the faces and the area of the mapped cube side. Then broken files: one line
naming the file and line, non-zero exit."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mfem_gen as G  # noqa: E402

tool = os.path.join(os.environ.get("HX_BUILD_DIR", "build"), "tests", "hx_iotool")
HEXPACK = os.environ.get("HEXPACK", "build/hexpack")
fail = 0


def check(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what)
    fail |= not ok


box = G.Box()
ref = {}
for name, dF in (("F1", G.dF1), ("F2", G.dF2)):
    ev = [box.elem_volume(e, dF) for e in range(len(box.elems))]
    areas = {1 + 2 * d + s: box.side_area(dF, d, s) for d in range(3) for s in (0, 1)}
    ref[name] = (ev, areas)
print("analytic volumes: F1 %.15g (4/3), F2 %.15g" % (sum(ref["F1"][0]), sum(ref["F2"][0])))


def check_read(path, what, F, order, names=None):
    got = results[path]
    if isinstance(got, str):
        check(False, f"{what}: read: {got}")
        return
    s, bids, ev, _ = got
    rev, rareas = ref[F]
    check(s["elements"] == 8 and s["order"] == order, f"{what}: 8 elements of order {order} (got {s['elements']:.0f}, {s['order']:.0f})")
    err = max(abs(a - b) for a, b in zip(ev, rev))
    check(err < 1e-12, f"{what}: element volumes = analytic (max error {err:.2e})")
    check(abs(s["volume"] - sum(rev)) < 1e-12, f"{what}: volume {s['volume']:.15g} = {sum(rev):.15g}")
    ok = sorted(bids) == list(range(1, 7)) and all(bids[b][0] == 4 for b in bids)
    aerr = max(abs(bids[b][1] - rareas[b]) for b in bids) if ok else 1
    check(ok and aerr < 1e-9, f"{what}: boundary ids 1..6, 4 faces each, areas of the mapped sides (max error {aerr:.1e})")
    if names:
        got = {b: bids[b][2] for b in bids}
        check(all(got[b] == n for b, n in names.items()), f"{what}: boundary names {names} (got {got})")
    nodes_expected = (2 * order + 1) ** 3
    if "H1" in what or "vertices" in what:
        check(s["nodes"] == nodes_expected, f"{what}: {nodes_expected} distinct nodes (got {s['nodes']:.0f})")


with tempfile.TemporaryDirectory() as tmp:

    def put(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    cases = []  # (path, what, map, order, names): read all in one process
    cases.append((put("vert.mesh", G.vertices_mesh(box, G.F1)), "v1.0 vertices", "F1", 1, None))
    cases.append((put("vert12.mesh", G.vertices_mesh(box, G.F1, "1.2")), "v1.2 vertices", "F1", 1, None))
    sets = (
        'attribute_sets\n2\n"odd"\n1\n1\nall\n2\n1 2\n\n',
        'bdr_attribute_sets\n3\n"inlet x"\n1\n1\noutlet\n1\n2\n"walls"\n4\n3 4 5 6\n\n',
    )
    cases.append((put("v13.mesh", G.vertices_mesh(box, G.F1, "1.3", sets)), "v1.3 named boundaries", "F1", 1,
                  {1: "inlet x", 2: "outlet", 3: "-", 6: "-"}))
    # H1_3D_P1: the vertex dofs are the vertices
    h1 = G.vertices_mesh(box, G.F1).split("vertices\n")[0]
    pos = box.vertex_pos()
    h1 += f"vertices\n{box.nv}\n\nnodes\nFiniteElementSpace\nFiniteElementCollection: H1_3D_P1\nVDim: 3\nOrdering: 0\n\n"
    h1 += "".join("%.17g\n" % G.F1(p)[c] for c in range(3) for p in pos)
    cases.append((put("h1p1.mesh", h1), "H1_3D_P1 nodes", "F1", 1, None))
    for order, bt, ordering in ((1, 1, 1), (3, 1, 0), (2, 0, 1), (2, 4, 0), (3, 3, 1), (2, 5, 1), (3, 2, 1)):
        F = "F1" if order == 1 else "F2"
        p = put(f"l2_{bt}_{order}.mesh", G.l2_mesh(box, getattr(G, F), order, bt, ordering))
        cases.append((p, f"L2_T{bt}_3D_P{order} nodes (Ordering {ordering})", F, order, None))
    cases.append((put("l2gl.mesh", G.l2_mesh(box, G.F2, 2, 0, 1, "L2_3D_P2")), "L2_3D_P2 (Gauss-Legendre) nodes", "F2", 2, None))
    results = G.read_all(tool, [c[0] for c in cases])
    for c in cases:
        check_read(*c)

    # broken files: each refused in one line naming the file and the line (all through the reader
    # in one process; two through hexpack quality for its exit status and its one line)
    good = G.vertices_mesh(box, G.F1)
    first_elem = good.split("elements\n8\n")[1].split("\n")[0]
    bad = {
        "tet": (good.replace(first_elem, "1 4 0 1 2 3", 1), ":10: element 0 is a tetrahedron (geometry 4)"),
        "prism": (good.replace(first_elem, "1 6 0 1 2 3 4 5", 1), ":10: element 0 is a prism"),
        "collection": (h1.replace("H1_3D_P1", "ND_3D_P1"), "nodes collection 'ND_3D_P1' is not read"),
        "vertexcount": (good.replace("vertices\n27\n", "vertices\n20\n"), "uses vertex"),
        "nosection": (good.replace("boundary\n", "bounds\n"), "expected 'boundary', found 'bounds'"),
        "nan": (good.replace("vertices\n27\n3\n", "vertices\n27\n3\nnan ", 1), "vertex coordinate 'nan' is not a finite number"),
        "short": (h1[: h1.rindex("\n", 0, len(h1) - 20)], "the nodes end after"),
        "nc": ("MFEM NC mesh v1.0\n" + good[15:], ":1: 'MFEM NC mesh v1.0' is a non-conforming mesh"),
        "dim2": (good.replace("dimension\n3", "dimension\n2"), "the mesh is 2D"),
        "v13nosets": (good.replace("MFEM mesh v1.0", "MFEM mesh v1.3"), "expected 'attribute_sets', found 'boundary'"),
    }
    paths = {name: put(f"bad_{name}.mesh", text) for name, (text, msg) in bad.items()}
    results = G.read_all(tool, list(paths.values()))
    for name, (text, msg) in bad.items():
        err = results[paths[name]]
        check(isinstance(err, str) and msg in err and paths[name] in err, f"bad {name}: refused with '{msg}': {err}")
    for name in ("tet", "nan"):
        r = subprocess.run([HEXPACK, "quality", paths[name]], capture_output=True, text=True)
        err = r.stderr.strip()
        check(r.returncode != 0 and bad[name][1] in err and len(err.split("\n")) == 1,
              f"hexpack quality {name}: exit {r.returncode}, one line: {err}")

sys.exit(1 if fail else 0)
