"""t171: the output size estimate (printed with -v before any writer starts) against the
real size of the files, every format with a writer, on a curved Kershaw box (17-digit
coordinates, .re2 curve records) and a plain box (short coordinates), orders 1..4.
The estimate is meant to be rather low than high (a refusal must not be a false alarm):
within [0.7, 1.1] of the real size, and at most the real size for zlib .vtu. """
import glob
import os
import re
import subprocess
import sys
import tempfile

HEXPACK = os.path.abspath(os.environ.get("HEXPACK", "build/hexpack"))
fail = 0
groups = [(["a.re2", "a.msh", "a.vtu", "a.mesh", "a.exo"], []), (["b.msh", "b.vtu"], ["--ascii"]),
          (["c.vtu"], ["--compress"])]
with tempfile.TemporaryDirectory() as d:
    for geom in (["--n", "6", "--kershaw", "0.3,0.3"], ["--n", "5"]):
        for order in (1, 2, 4):
            for names, extra in groups:
                names = [n for n in names if not (n.endswith(".exo") and order > 2)]
                args = [HEXPACK, "box"] + geom + ["--order", str(order), "-v"] + extra
                for n in names:
                    args += ["-o", n]
                r = subprocess.run(args, capture_output=True, text=True, cwd=d)
                if r.returncode != 0:
                    print("FAIL", " ".join(args[1:]), r.returncode, r.stderr.strip()[-300:])
                    fail = 1
                    continue
                for name in names:
                    mm = re.search(re.escape(name) + r": estimated (\d+) bytes", r.stderr)
                    if not mm:
                        print("FAIL no estimate line for", name, r.stderr.strip()[-300:])
                        fail = 1
                        continue
                    est = int(mm.group(1))
                    files = [os.path.join(d, name)]
                    if name.endswith(".re2") and order >= 2:
                        files.append(os.path.join(d, "a0.f00000"))
                    real = sum(os.path.getsize(f) for f in files)
                    ratio = est / real
                    ok = ratio <= 1.0 if "--compress" in extra else 0.7 <= ratio <= 1.1
                    print("ok  " if ok else "FAIL", f"{' '.join(geom):28s} order {order} {name:7s} {' '.join(extra):10s}"
                          f" estimate {est:9d} real {real:9d} ratio {ratio:.3f}")
                    fail |= not ok
                for f in glob.glob(os.path.join(d, "*")):
                    os.remove(f)
sys.exit(fail)
