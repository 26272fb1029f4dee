#!/usr/bin/python3
"""t153: mutation test of the readers and the read checks. Small files hexpack writes (a 2x2x2
box of order 2: .re2 with its field file, .vtu, .mesh, .msh binary and ASCII) get seeded
mutations (bit flips, byte changes, deleted lines or byte runs, changed numbers), N per format;
each mutated file is read the way `hexpack quality` reads it (hx_mutate_eval: hx_import_ex, the
read checks, the quality report; one forked process per file, 10 s each).

Each mutation has a kind, by the bytes it touches:
  coordinate    node coordinates (.msh $Nodes, .vtu Points, .mesh vertices and nodes, .re2
                vertex and curve records, the field file)
  connectivity  element-node and element-face references (.msh $Elements, .vtu connectivity,
                offsets and types, .mesh elements and boundary, .re2 boundary records)
  other         headers, names, attributes, counts elsewhere

Outcomes: refused (a clean error), crash (a signal), hang (no answer in 10 s), or accepted with
quality's verdict valid, inverted or broken (broken appears only with --force, not used here).
A silent accept is a mutated file accepted with the verdict 'valid' whose mesh differs from the
original (element-node lists for the connectivity kind, coordinates for the coordinate kind)
and is NOT a valid conforming mesh of the original box, as decided by hx_mutate_eval's own
oracle, which shares no code with the read checks: det J > 0 at every GLL node, every element
face matched by exactly one other element face with the same node ids and coordinates (pairwise
comparison) or lying on one side of the box, and the volume equal to the box's. A mutation that
yields another valid conforming mesh of the box (a renumbering, an interior node moved within
its elements) cannot be told from an intended file and is not counted.

The test fails when any file crashes or hangs, or when any connectivity mutation is silently
accepted; coordinate and other silent accepts are reported (a coordinate changed within the
tolerances is a valid file)."""
import os, random, re, struct, subprocess, sys, time

hexpack = os.environ.get("HEXPACK", "hexpack")
build = os.environ.get("HX_BUILD_DIR", ".")
evaluator = os.path.join(build, "tests", "hx_mutate_eval")
N = int(os.environ.get("HX_MUTATIONS", "100"))
rng = random.Random(35)
t0 = time.time()

os.makedirs("t153", exist_ok=True)
os.chdir("t153")
for f in os.listdir("."):
    os.remove(f)
r = subprocess.run([hexpack, "box", "--n", "2", "--order", "2", "-o", "o.re2", "-o", "o.vtu", "-o", "o.mesh", "-o", "o.msh"],
                   capture_output=True, text=True)
assert r.returncode == 0, r.stderr
r = subprocess.run([hexpack, "box", "--n", "2", "--order", "2", "--ascii", "-o", "a.msh"], capture_output=True, text=True)
assert r.returncode == 0, r.stderr


def text_kinds(data, sections):
    """kind of each byte of a text file: sections = [(start line regex, end line regex, kind)]"""
    kinds = bytearray(b"o" * len(data))
    pos, cur = 0, None
    for line in data.split(b"\n"):
        s = line.decode("latin-1").strip()
        if cur is None:
            for a, b, k in sections:
                if re.fullmatch(a, s):
                    cur = (b, k)
                    break
            n = len(line) + 1
        else:
            if re.fullmatch(cur[0], s):
                cur = None
            else:
                kinds[pos:pos + len(line)] = cur[1].encode() * len(line)
        pos += len(line) + 1
    return bytes(kinds)


def msh_bin_kinds(data):
    kinds = bytearray(b"o" * len(data))
    for a, b, k in ((b"$Nodes\n", b"$EndNodes", "x"), (b"$Elements\n", b"$EndElements", "c")):
        i = data.index(a) + len(a)
        j = data.index(b, i)
        kinds[i:j] = k.encode() * (j - i)
    return bytes(kinds)


def vtu_kinds(data):
    kinds = bytearray(b"o" * len(data))
    base = data.index(b"_", data.index(b"<AppendedData")) + 1
    arrays = sorted((int(m.group(2)), m.group(1).decode()) for m in
                    re.finditer(rb'<DataArray[^>]*Name="([^"]+)"[^>]*offset="(\d+)"', data))
    end = data.index(b"</AppendedData>")
    for n, (off, name) in enumerate(arrays):
        stop = base + arrays[n + 1][0] if n + 1 < len(arrays) else end
        k = "x" if name == "Points" else "c" if name in ("connectivity", "offsets", "types") else "o"
        kinds[base + off:stop] = k.encode() * (stop - base - off)
    return bytes(kinds)


def re2_kinds(data):
    kinds = bytearray(b"o" * len(data))
    nelt = int(data[5:21])
    e0, e1 = 84, 84 + 200 * nelt
    kinds[e0:e1] = b"x" * (e1 - e0)
    ncurve = int(struct.unpack_from("<d", data, e1)[0])
    c1 = e1 + 8 + 64 * ncurve
    kinds[e1 + 8:c1] = b"x" * (c1 - e1 - 8)
    kinds[c1 + 8:] = b"c" * (len(data) - c1 - 8)  # boundary records
    return bytes(kinds)


def mutate(data, kinds, textual):
    """one seeded mutation: (new bytes, kind)"""
    op = rng.choice(["bit", "byte", "delete", "number"])
    b = bytearray(data)
    if op == "number" and textual:
        nums = [m for m in re.finditer(rb"-?\d+(\.\d+)?(e[-+]?\d+)?", data)]
        m = rng.choice(nums)
        v = m.group(0)
        new = rng.choice([b"0", b"-1", b"1", b"7", v + b"1", b"-" + v, b"1e300", v[:-1] or b"2"])
        return bytes(b[:m.start()] + new + b[m.end():]), chr(kinds[m.start()])
    if op == "number":
        at = rng.randrange(0, len(b) - 8) & ~7
        v = struct.unpack_from("<Q", b, at)[0]
        struct.pack_into("<Q", b, at, rng.choice([v + 1, v - 1, -v, 0, v * 2]) % 2**64)
        return bytes(b), chr(kinds[at])
    if op == "delete" and textual:
        lines = data.split(b"\n")
        k = rng.randrange(len(lines))
        at = sum(len(l) + 1 for l in lines[:k])
        return b"\n".join(lines[:k] + lines[k + 1:]), chr(kinds[min(at, len(data) - 1)])
    if op == "delete":
        at = rng.randrange(len(b))
        n = rng.randint(1, 16)
        return bytes(b[:at] + b[at + n:]), chr(kinds[at])
    at = rng.randrange(len(b))
    if op == "bit":
        b[at] ^= 1 << rng.randrange(8)
    else:
        b[at] = rng.randrange(256)
    return bytes(b), chr(kinds[at])


fmt_files = {
    "re2": "o.re2",
    "vtu": "o.vtu",
    "mesh": "o.mesh",
    "msh": "o.msh",
    "msh-ascii": "a.msh",
}
mesh_sections = [(r"elements", r"boundary", "c"), (r"boundary", r"vertices", "c"), (r"vertices", r"nodes", "x"),
                 (r"Ordering: \d", r"__never__", "x")]
msh_text = [(r"\$Nodes", r"\$EndNodes", "x"), (r"\$Elements", r"\$EndElements", "c")]
names = {"x": "coordinate", "c": "connectivity", "o": "other"}
total = {"crash": 0, "hang": 0}
silent = {"coordinate": 0, "connectivity": 0, "other": 0}
fails = 0
for fmt, orig in fmt_files.items():
    data = open(orig, "rb").read()
    fld = open("o0.f00000", "rb").read() if fmt == "re2" else None
    if fmt == "re2":
        kinds = re2_kinds(data)
    elif fmt == "vtu":
        kinds = vtu_kinds(data)
    elif fmt == "mesh":
        kinds = text_kinds(data, mesh_sections)
    elif fmt == "msh":
        kinds = msh_bin_kinds(data)
    else:
        kinds = text_kinds(data, msh_text)
    textual = fmt in ("mesh", "msh-ascii")
    ext = os.path.splitext(orig)[1]
    files, kind_of = [], {}
    for i in range(N):
        name = f"{fmt}-{i}{ext}"
        if fmt == "re2" and rng.random() < 0.3:  # the field file: order-2 coordinates
            m, _ = mutate(fld, b"x" * len(fld), False)
            open(name, "wb").write(data)
            open(f"{fmt}-{i}0.f00000", "wb").write(m)
            kind = "x"
        else:
            m, kind = mutate(data, kinds, textual)
            open(name, "wb").write(m)
            if fld is not None:
                open(f"{fmt}-{i}0.f00000", "wb").write(fld)
        files.append(name)
        kind_of[name] = names[kind]
    nocheck = ["--no-check"] if os.environ.get("HX_MUTATE_NO_CHECK") else []  # the readers alone (for comparison)
    r = subprocess.run([evaluator] + nocheck + [orig] + files, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: {fmt}: hx_mutate_eval: {r.stderr.strip()}")
        fails += 1
        continue
    counts = {}
    for line in r.stdout.splitlines():
        if not line.startswith(fmt + "-"):
            continue
        path, status, verdict, conn, geom, conf = line.split()
        kind = kind_of[path]
        if status.startswith("crash") or status == "hang":
            key = "crash" if status.startswith("crash") else "hang"
            total[key] += 1
            print(f"FAIL: {path} ({kind} mutation): {status}")
            fails += 1
        outcome = status if status in ("refused", "hang") or status.startswith("crash") else verdict
        differs = (conn == "1") if kind == "connectivity" else (geom == "1") if kind == "coordinate" else (conn == "1" or geom == "1")
        if status == "ok" and verdict == "valid" and differs and conf == "0":
            outcome = "SILENT"
            silent[kind] += 1
            if kind == "connectivity":
                print(f"FAIL: {path}: a connectivity mutation accepted as valid, not a conforming mesh of the box")
                fails += 1
        elif status == "ok" and verdict == "valid" and not (conn == "1" or geom == "1"):
            outcome = "no effect"
        counts.setdefault(kind, {}).setdefault(outcome, 0)
        counts[kind][outcome] += 1
    for kind in sorted(counts):
        print(f"{fmt:10s} {kind:12s} " + ", ".join(f"{k} {v}" for k, v in sorted(counts[kind].items())))
print(f"{N} mutations per format: crashes {total['crash']}, hangs {total['hang']}, silent accepts: "
      + ", ".join(f"{k} {v}" for k, v in silent.items()) + f" ({time.time() - t0:.1f} s)")
print("failures:", fails)
sys.exit(1 if fails else 0)
