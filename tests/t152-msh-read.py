#!/usr/bin/python3
"""t152: our .msh reader on broken and unusual files, and the read checks every reader goes
through, by `hexpack quality`: each broken
file gives one line naming the file and the line (ASCII) or byte offset (binary) and what
was expected, a non-zero exit and no crash (exit code 2, not a signal):
  - a node tag of -5 in the first hexahedron (ASCII, order 2) and a physical group of
    dimension -1 (binary): a reader that trusted those values would index out of bounds;
  - a hexahedron referring to a node the file does not define; no $Elements section;
    a binary hexahedron block of another element type (at the byte offset computed here);
  - a directory given as the mesh: "<path>: is a directory, expected a mesh file";
  - a node tag of 10^15 among 27 nodes: read, with the same report as the file it was
    renamed from, and a peak memory within 64 MB of that file's (storage grows with the
    node count, not with the largest tag);
  - the read checks: a .vtu cell given another's points (a duplicate), a vertex of
    one .re2 element moved off its neighbours' (a hole: a face of one element without a boundary
    condition) are refused naming the element; --force reports them with the first line
    'broken: ...'; a mesh with an inverted element gives the first line 'inverted: ...' and exit
    0; a good one 'valid ...'; on 2 MPI ranks the broken file is refused with one line and the
    good one gives the report of one rank."""
import os, re, shutil, struct, subprocess, sys

hexpack = os.environ.get("HEXPACK", "hexpack")
fails = 0


def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", msg)


def quality(path):
    """(exit code or -signal, output, peak RSS in kB) of hexpack quality PATH"""
    with open(path + ".out", "w") as out:
        p = subprocess.Popen([hexpack, "quality", "--no-validity", path], stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, open(path + ".out").read().strip(), ru.ru_maxrss


def expect_error(path, data, needle):
    open(path, "wb").write(data)
    rc, out, _ = quality(path)
    lines = out.splitlines()
    ok = rc == 2 and len(lines) == 1 and path in out and re.search(needle, out) is not None
    check(ok, f"{path}: exit {rc}, expected exit 2 and one line matching /{needle}/, got: {out}")
    print(f"{path}: exit {rc}: {out}")


def box(path, *args):
    r = subprocess.run([hexpack, "box", "--n", "2", *args, "-o", path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return open(path, "rb").read()


# ASCII, order 2: one node tag of the first hexahedron becomes -5
a = box("t152-a.msh", "--order", "2", "--ascii")
lines = a.split(b"\n")
e = lines.index(b"$Elements")
first = e + 3  # the header, the first block's header, then the first hexahedron
tok = lines[first].split(b" ")
tok[1] = b"-5"
lines[first] = b" ".join(tok)
expect_error("t152-neg-tag.msh", b"\n".join(lines), r"t152-neg-tag\.msh:%d: expected a node tag" % (first + 1))

# binary: the physical group of z_faces gets dimension -1
b = box("t152-b.msh")
expect_error("t152-neg-dim.msh", b.replace(b'2 3 "z_faces"', b'-1 3 "z_faces"', 1),
             r"t152-neg-dim\.msh:\d+: expected a physical group dimension \(an integer in 0\.\.3\), got '-1'")

# a hexahedron refers to a node that is not defined
tok = a.split(b"\n")[first].split(b" ")
bad = b"\n".join(a.split(b"\n")[:first] + [b" ".join(tok[:1] + [b"77777"] + tok[2:])] + a.split(b"\n")[first + 1:])
expect_error("t152-unknown-node.msh", bad,
             r"t152-unknown-node\.msh:%d: element 1 refers to node 77777, which is not in \$Nodes" % (first + 1))

# no $Elements section
i, j = a.index(b"$Elements"), a.index(b"$EndElements") + len(b"$EndElements\n")
expect_error("t152-no-elements.msh", a[:i] + a[j:], r"t152-no-elements\.msh:\d+: no \$Elements section")

# binary: the hexahedron block says type 4 (tetrahedra); the offset is the type's
at = b.index(b"$Elements\n") + len(b"$Elements\n") + 4 * 8 + 2 * 4
assert struct.unpack_from("<i", b, at)[0] == 5
expect_error("t152-type.msh", b[:at] + struct.pack("<i", 4) + b[at + 4:],
             r"t152-type\.msh: byte %d: volume 1 holds elements of type 4; expected complete Lagrange hexahedra" % at)

# a huge node tag among few nodes: the same mesh, small memory
o = box("t152-o.msh", "--ascii")
L = o.decode().split("\n")
n0 = L.index("$Nodes")
hdr = L[n0 + 1].split()
nn = int(hdr[1])
big = 10**15
L[n0 + 1] = f"{hdr[0]} {nn} 1 {big}"
for k in range(n0 + 2, L.index("$EndNodes")):
    if L[k] == str(nn):
        L[k] = str(big)
e0, e1 = L.index("$Elements"), L.index("$EndElements")
for k in range(e0 + 3, e1):
    t = L[k].split()
    if len(t) > 4:  # element lines (block headers have 4 fields, elements at least 5)
        L[k] = " ".join(t[:1] + [str(big) if v == str(nn) else v for v in t[1:]])
huge = "\n".join(L)
check(str(big) in huge[huge.index("$Elements"):], "the renamed node is used by the elements")
open("t152-huge.msh", "w").write(huge)
rc0, out0, rss0 = quality("t152-o.msh")
rc1, out1, rss1 = quality("t152-huge.msh")
check(rc0 == 0 and rc1 == 0, f"huge tag: exit {rc1}: {out1}")
check(out0.splitlines()[1:] == out1.splitlines()[1:], f"huge tag: a different report:\n{out0}\n---\n{out1}")
check(rss1 < rss0 + 64 * 1024, f"huge tag: peak memory {rss1} kB against {rss0} kB")
print(f"node tag 10^15 among {nn} nodes: the same report, peak memory {rss1 / 1024:.0f} MB ({rss0 / 1024:.0f} MB for tags 1..{nn})")

# a directory given as the mesh: one line, exit 2 (every reader goes through the same check)
for d in ("t152-dir.msh", "t152-dir.re2"):
    os.makedirs(d, exist_ok=True)
    r = subprocess.run([hexpack, "quality", d], capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip()
    check(r.returncode == 2 and out == f"hexpack: error: {d}: is a directory, expected a mesh file", f"{d}: exit {r.returncode}: {out}")
    print(f"{d}: exit {r.returncode}: {out}")

# ---- the read checks --------------------------------------------------------------
def first_line(*args):
    r = subprocess.run([hexpack, "quality", "--no-validity", *args], capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip().splitlines()[0]

v = box("t152-v.vtu", "--ascii").decode()
a = v.index(">", v.index('Name="connectivity"')) + 1
b = v.index("</DataArray>", a)
conn = v[a:b].split()
conn[8:16] = conn[0:8]  # cell 1 takes cell 0's points (order 1: 8 per cell)
open("t152-dup.vtu", "w").write(v[:a] + "\n" + " ".join(conn) + "\n" + v[b:])
expect_error("t152-dup.vtu", open("t152-dup.vtu", "rb").read(), r"t152-dup\.vtu: broken mesh: elements 0 and 1 have the same corners \(--force")
rc, line = first_line("t152-dup.vtu", "--force")
check(rc == 0 and line.startswith("broken: "), f"--force on a broken mesh: exit {rc}, first line {line}")
print(f"t152-dup.vtu --force: {line}")

re2 = bytearray(box("t152-r.re2"))
nelt = int(re2[5:21])
xyz = [struct.unpack_from("<24d", re2, 84 + 8)]  # element 1: x[8], y[8], z[8]
c = next(k for k in range(8) if (xyz[0][k], xyz[0][8 + k], xyz[0][16 + k]) == (0.5, 0.5, 0.5))
struct.pack_into("<d", re2, 84 + 8 + 8 * c, 0.55)
expect_error("t152-hole.re2", bytes(re2), r"t152-hole\.re2: broken mesh: face \d of element \d+ has no neighbour and no boundary condition")

k = box("t152-k.mesh", "--order", "2").decode().split("\n")
last = len(k) - 1 if k[-1] == "" else len(k)
x = k[last - 14].split()
k[last - 14] = " ".join([str(float(x[0]) + 5)] + x[1:])
open("t152-inv.mesh", "w").write("\n".join(k))
rc, line = first_line("t152-inv.mesh")
check(rc == 0 and line.startswith("inverted: 1 element(s) with det J <= 0"), f"inverted: exit {rc}, first line {line}")
print(f"t152-inv.mesh: {line}")
rc, line = first_line("t152-k.mesh")
check(rc == 0 and line.startswith("valid"), f"valid: exit {rc}, first line {line}")
print(f"t152-k.mesh: {line}")

# under MPI every rank reads and checks the whole file: one refusal line, or one report of the
# mesh counted once
mpi = shutil.which(os.environ.get("MPIEXEC", "mpiexec"))
if mpi:
    r = subprocess.run(["timeout", "60", mpi, "-n", "2", "--oversubscribe", hexpack, "quality", "t152-dup.vtu"],
                       capture_output=True, text=True)
    errs = [l for l in r.stderr.splitlines() if l.startswith("hexpack: error")]
    check(r.returncode != 0 and len(errs) == 1 and "broken mesh: elements 0 and 1" in errs[0], f"np 2, broken: {r.returncode} {errs}")
    r = subprocess.run(["timeout", "60", mpi, "-n", "2", "--oversubscribe", hexpack, "quality", "--no-validity", "t152-k.mesh"],
                       capture_output=True, text=True)
    _, serial = quality("t152-k.mesh")[:2]
    check(r.returncode == 0 and r.stdout.strip() == serial, f"np 2: a different report:\n{r.stdout}\n---\n{serial}")
    print(f"np 2: broken refused once ({errs[0] if errs else '-'}); the report of t152-k.mesh as on one rank")
else:
    print("no mpiexec: the MPI part is left out")

print("failures:", fails)
sys.exit(1 if fails else 0)
