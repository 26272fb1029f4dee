"""t170: the free-space check that runs before any writer starts.

1. --assume-free-bytes (the expert flag that replaces what statvfs says) below the estimate:
   one line naming the file(s), the estimate and the free space, exit 7 (HX_ERR_IO), no
   file and no temporary left; .re2 at order 7 names its X field file too; two outputs
   that fit one by one but not together are both refused;
2. with enough room the same command writes the files;
3. without the hook the free space printed with -v is the directory's own statvfs
   f_bavail * f_frsize (checked against Python's os.statvfs, within what other
   processes may write meanwhile). """
import os
import re
import subprocess
import sys
import tempfile

HEXPACK = os.path.abspath(os.environ.get("HEXPACK", "build/hexpack"))
fail = 0


def check(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fail = 1


def run(args, free=None, cwd=None):
    if free is not None:
        args = args + ["--assume-free-bytes", str(free)]
    return subprocess.run([HEXPACK] + args, capture_output=True, text=True, cwd=cwd)


def estimates(args, cwd):
    """{path: estimated bytes} from the -v lines"""
    r = run(args + ["-v"], cwd=cwd)
    assert r.returncode == 0, r.stderr
    est, free = {}, {}
    for line in r.stderr.splitlines():
        mm = re.match(r"(\S+): estimated (\d+) bytes .* (\d+) bytes free$", line)
        if mm:
            est[mm.group(1)] = int(mm.group(2))
            free[mm.group(1)] = int(mm.group(3))
    return est, free


with tempfile.TemporaryDirectory() as d:
    # 1. refused: one line, exit code, nothing left
    r = run(["box", "--n", "4", "--order", "7", "-o", "pwr.re2"], free=100000, cwd=d)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 7 and len(lines) == 1, f"refused with exit {r.returncode}, {len(lines)} line(s): {r.stderr.strip()}")
    check(bool(re.search(r"refusing to write 'pwr.re2' \+ 'pwr0.f00000': about [\d.]+ kB estimated, only 100.0 kB free in '.'",
                         r.stderr)), "the line names the .re2, its field file, the estimate and the free space")
    check(os.listdir(d) == [], f"no file left: {os.listdir(d)}")

    # the estimate of each file alone, then two outputs that fit alone but not together
    est, _ = estimates(["box", "--n", "6", "-o", "a.msh"], d)
    one = est["a.msh"]
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    r = run(["box", "--n", "6", "-o", "a.msh", "-o", "b.msh"], free=int(1.5 * one), cwd=d)
    check(r.returncode == 7 and "'a.msh' + 'b.msh'" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          f"two outputs refused together: {r.stderr.strip()}")
    check(os.listdir(d) == [], f"no file left: {os.listdir(d)}")
    r = run(["box", "--n", "6", "-o", "a.msh"], free=int(1.5 * one), cwd=d)
    check(r.returncode == 0 and os.path.exists(os.path.join(d, "a.msh")), "one output that fits is written")
    os.remove(os.path.join(d, "a.msh"))

    # the library entry (convert -> hx_export) refuses too, and a directory in the path is named
    run(["box", "--n", "4", "-o", "in.vtu"], cwd=d)
    os.mkdir(os.path.join(d, "sub"))
    r = run(["convert", "in.vtu", "sub/out.vtu"], free=10, cwd=d)
    check(r.returncode == 7 and "'sub/out.vtu'" in r.stderr and "free in 'sub'" in r.stderr,
          f"convert refused: {r.stderr.strip()}")
    check(os.listdir(os.path.join(d, "sub")) == [], "nothing in sub/")

    # 2/3. real statvfs: -v reports the directory's free bytes
    est, free = estimates(["box", "--n", "4", "-o", "sub/c.vtu"], d)
    st = os.statvfs(os.path.join(d, "sub"))
    py = st.f_bavail * st.f_frsize
    check(abs(free["sub/c.vtu"] - py) < 0.01 * py + 64e6, f"statvfs free {free['sub/c.vtu']} vs Python {py}")
    check(os.path.getsize(os.path.join(d, "sub", "c.vtu")) > 0, "written with the real free space")
sys.exit(fail)
