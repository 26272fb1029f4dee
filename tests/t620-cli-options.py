# t620: the option tables (hexpack --options) against the command line, for every command:
# every flag parses (all of them given at once, with a value of its type other than the
# default), shows in --help with the table's default (no line of any --help longer than 100
# columns: a row's help wrapped under the help column), and comes back in the --json echo with
# the value given; a run with no flag echoes every table default; a number out of range names
# the flag, the value and the range in one line; an unknown flag names the closest one; the man
# page and the bash completion are generated from the same tables.
import json
import os
import re
import subprocess
import sys

HEXPACK = os.environ["HEXPACK"]
fail = 0
checks = 0


def check(ok, what):
    global fail, checks
    checks += 1
    if not ok:
        fail = 1
        print("FAIL:", what)


def run(args):
    p = subprocess.run([HEXPACK] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def number(t):
    return float(t) if re.fullmatch(r"[-+0-9.eE]+", t) else None


# sample values of the flags that take free text (a file, a spec): a flag of type string that
# is not listed here fails the test, so that a new one gets a value that parses
PRESET = None
REGISTRY = {"--metric": "302"}  # numbers a registry checks
SAMPLES = {"--slice": "z=0.5", "--adapt-quad": "12", "--plot-slice": "s.svg", "--output": "x.vtu", "--timestep": "first", "--limit-dist": "elem", "--plot": "p.svg", "--debug": "mem", "--inlet": "1,2", "--outlet": "1,2", "--map": "1",
           "--container": {"pebble": "box", "demo": "box", "pack": "cyl:2"}}


def sample(cmd, o):
    """a value of o's type that is not its default, as text"""
    t, d = o["type"], o["default"]
    if o["name"] in REGISTRY:
        return REGISTRY[o["name"]]
    if t == "choice":
        return next(c for c in o["choices"] if c != d)
    if t == "string":
        if o["name"] == "--preset":
            return PRESET
        v = SAMPLES.get(o["name"])
        check(v is not None, "%s %s: no sample value for a string flag" % (cmd, o["name"]))
        return (v.get(cmd) if isinstance(v, dict) else v) or "x"
    lo, hi = o["min"], o["max"]
    dv = number(d) if d else None
    integer = t in ("int", "int-list")
    cands = [lo, hi, 1, 2, 0.5, (lo + hi) / 2, lo + 1]
    for c in cands:
        if integer and c != int(c):
            continue
        if lo <= c <= hi and abs(c) < 1e15 and c != dv:
            v = "%d" % c if integer else repr(float(c))
            break
    if t in ("int-list", "double-list"):
        return ",".join([v] * max(o["count_min"], 1))
    return v


def expect_echo(o, given, echoed):
    t = o["type"]
    if t == "flag":
        return echoed == (1 if o["repeat"] else True)
    if o["repeat"]:
        return echoed == [given]
    if t in ("int", "double"):
        return isinstance(echoed, (int, float)) and echoed == float(given)
    if t in ("int-list", "double-list"):
        return echoed == [float(x) for x in given.split(",")]
    return echoed == given


def default_echo(o, echoed):
    d, t = o["default"], o["type"]
    if t == "flag":
        return echoed in (False, 0)
    if o["repeat"]:
        return echoed == ([d] if d else [])
    if d is None:
        return echoed is None
    if t in ("int", "double") and number(d) is not None:
        return echoed == float(d)
    if t in ("int-list", "double-list") and all(number(x) is not None for x in d.split(",")):
        return echoed == [float(x) for x in d.split(",")]
    return echoed == d


# the help of hexpack itself and of bench (no table of its own): no line longer than 100 columns
for words in ([], ["bench"]):
    rc, helptext, err = run(words + ["--help"])
    long = [l for l in helptext.splitlines() if len(l) > 100]
    check(rc == 0 and not long, "hexpack %s--help: exit %d, %d line(s) longer than 100 columns: %r"
          % ("".join(w + " " for w in words), rc, len(long), long[:1]))

rc, out, err = run(["--options"])
check(rc == 0, "hexpack --options: exit %d %s" % (rc, err))
tables = json.loads(out)
commands = {c["command"]: c["options"] for c in tables["commands"]}
check(set(commands) == {"box", "quality", "convert", "demo", "optimize", "pebble", "pack", "rods", "bench tmop",
                        "bench kernels"}, "the commands with tables: %s" % sorted(commands))
for o in commands["rods"]:
    if o["name"] == "--preset":
        PRESET = o["help"].split("bundle: ")[1].split(",")[0].split(" ")[0]

for cmd, opts in commands.items():
    words = cmd.split()
    # --help: every flag on a line of its own, with the table's default
    rc, helptext, err = run(words + ["--help"])
    check(rc == 0, "%s --help: exit %d" % (cmd, rc))
    lines = helptext.splitlines()
    check("expert options:" in lines, "%s --help: no 'expert options:' heading" % cmd)
    long = [l for l in lines if len(l) > 100]
    check(not long, "%s --help: %d line(s) longer than 100 columns, the first: %r" % (cmd, len(long), long[:1]))
    # a flag's row continues on the lines indented under the help column (29 spaces)
    rows = []
    for l in lines:
        if rows and l.startswith(" " * 29) and not l[29:].startswith(" "):
            rows[-1] += " " + l[29:]
        else:
            rows.append(l)
    lines = rows
    for o in opts:
        line = [l for l in lines if re.match(r"\s+(-\w, )?%s( |$)" % re.escape(o["name"]), l)]
        check(len(line) == 1, "%s --help: %d line(s) for %s" % (cmd, len(line), o["name"]))
        if line and o["default"] is not None:
            check(line[0].endswith("(default: %s)" % o["default"]), "%s --help: %s does not show default %s: %s"
                  % (cmd, o["name"], o["default"], line[0]))
        expert = lines.index("expert options:")
        if line:
            check((lines.index(line[0]) > expert) == (o["group"] == "expert"), "%s --help: %s in the wrong group" % (cmd, o["name"]))
    # no flag: the echo holds every table default
    rc, out, err = run(words + ["--dry-run", "--json"])
    doc = json.loads(out)
    check(rc == 0 and doc["status"] == "ok" and doc["schema_version"] == 1, "%s --dry-run --json: %s %s" % (cmd, rc, err))
    for o in opts:
        if o["name"] in ("--help", "--json", "--dry-run"):
            continue
        check(default_echo(o, doc["options"].get(o["name"], "missing")),
              "%s: default of %s echoed as %r, table %r" % (cmd, o["name"], doc["options"].get(o["name"], "missing"), o["default"]))
    # every flag at once, each with a value other than its default
    args, given = [], {}
    for o in opts:
        if o["name"] in ("--help", "--json", "--dry-run"):
            continue
        args.append(o["name"])
        if o["type"] != "flag":
            given[o["name"]] = sample(cmd, o)
            args.append(given[o["name"]])
    rc, out, err = run(words + args + ["--dry-run", "--json"])
    check(rc == 0 and len(out.splitlines()) == 1, "%s with every flag: exit %d, %d stdout lines, %s" % (cmd, rc, len(out.splitlines()), err.strip()))
    if rc == 0:
        echo = json.loads(out)["options"]
        for o in opts:
            if o["name"] in ("--help", "--json", "--dry-run"):
                continue
            check(expect_echo(o, given.get(o["name"]), echo.get(o["name"], "missing")),
                  "%s: %s %s echoed as %r" % (cmd, o["name"], given.get(o["name"], ""), echo.get(o["name"], "missing")))
    # a number out of range: one line naming the flag, the value and the range
    num = [o for o in opts if o["type"] in ("int", "double") and -1e300 < o["min"] and o["max"] < 1e300]
    if num:
        o = num[0]
        bad = "%d" % (o["max"] + 1) if o["type"] == "int" else repr(o["max"] * 2 + 1)
        rc, out, err = run(words + [o["name"], bad])
        rng = "%d..%d" % (o["min"], o["max"]) if o["type"] == "int" else ""
        check(rc != 0 and len(err.splitlines()) == 1 and o["name"] in err and bad in err and rng in err and out == "",
              "%s %s %s: exit %d, stderr %r" % (cmd, o["name"], bad, rc, err))
    # an unknown flag: the closest known one
    o = max(opts, key=lambda o: len(o["name"]))
    typo = o["name"][:-1]
    rc, out, err = run(words + [typo])
    check(rc != 0 and len(err.splitlines()) == 1 and ("unknown flag '%s'" % typo) in err and ("the closest is %s" % o["name"]) in err,
          "%s %s: exit %d, stderr %r" % (cmd, typo, rc, err))
    # with --json the error is also the one document on stdout
    rc, out, err = run(words + [typo, "--json"])
    doc = json.loads(out) if out.strip() else {}
    check(rc != 0 and doc.get("status") == "error" and typo in doc.get("error", ""), "%s %s --json: %r" % (cmd, typo, out))

# the man page and the completion come from the same tables
rc, man, err = run(["--man"])
check(rc == 0 and man.startswith(".TH HEXPACK 1"), "--man: exit %d" % rc)
for cmd, opts in commands.items():
    check('.SS "hexpack %s"' % cmd in man, "--man: no section for %s" % cmd)
    for o in opts:
        check(o["name"].replace("-", "\\-") in man, "--man: %s %s missing" % (cmd, o["name"]))
rc, comp, err = run(["--completion", "bash"])
check(rc == 0 and "complete -o filenames -F _hexpack hexpack" in comp, "--completion bash: exit %d" % rc)
for cmd, opts in commands.items():
    arm = comp.split('"%s")' % cmd)[1].split("esac ;;")[0] if ('"%s")' % cmd) in comp else ""
    for o in opts:
        check(o["name"] in arm, "--completion: %s %s missing" % (cmd, o["name"]))
    for o in opts:
        if o["type"] == "choice":
            check(" ".join(o["choices"]) in arm, "--completion: %s %s choices missing" % (cmd, o["name"]))
p = subprocess.run(["bash", "-n"], input=comp, capture_output=True, text=True)
check(p.returncode == 0, "--completion: bash -n: %s" % p.stderr)

print("t620: %d checks, %s" % (checks, "FAILED" if fail else "all passed"))
sys.exit(fail)
