#!/usr/bin/env bash
# t609: hexpack --version. Its first line is "hexpack <the project's version in CMakeLists.txt>";
# the commit line holds the source tree's git HEAD (or "unknown" outside git); each feature line
# says yes exactly where the build's hx_config.h has HX_HAVE_<FEATURE> 1; --version --json is one
# JSON object with the same facts and the schema_version of every --json document; --version with another flag is one error line. Then the
# capture script itself (cmake/hx_buildinfo.cmake): a directory outside git gives "unknown", a
# fresh git repository its HEAD, and a change to a tracked file the dirty flag.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
SRC=${HX_SOURCE_DIR:-.}
BUILD=${HX_BUILD_DIR:-./build}
PY=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
"$HEXPACK" --version > "$dir/v.txt" 2> "$dir/err.txt" || { echo "FAIL: --version exited non-zero: $(cat "$dir/err.txt")"; exit 1; }
"$HEXPACK" --version --json > "$dir/v.json" 2> "$dir/err.txt" || { echo "FAIL: --version --json exited non-zero"; exit 1; }
cat "$dir/v.txt"
want_commit=unknown
if command -v git > /dev/null && top=$(git -C "$SRC" rev-parse --show-toplevel 2> /dev/null) &&
   [ "$(realpath "$top")" = "$(realpath "$SRC")" ]; then
  want_commit=$(git -C "$SRC" rev-parse --short=12 HEAD)
fi
"$HEXPACK" box --n 2 --dry-run --json > "$dir/box.json" 2> /dev/null || { echo "FAIL: box --dry-run --json"; exit 1; }
"$PY" - "$dir/v.txt" "$dir/v.json" "$SRC/CMakeLists.txt" "$BUILD/include/hx_config.h" "$want_commit" "$dir/box.json" <<'EOF' ||
  fail=1
import json, re, sys
text, js, cml, cfg, want_commit, box = sys.argv[1:]
schema = json.load(open(box))["schema_version"]
lines = open(text).read().splitlines()
version = re.search(r"project\(hexpack VERSION ([0-9.]+)", open(cml).read()).group(1)
have = {m.group(1).lower(): m.group(2) == "1" for m in re.finditer(r"#define HX_HAVE_(\w+) (\d)", open(cfg).read())}
have["vtk"] = True  # the VTK formats are built in
bad = []
if lines[0] != "hexpack " + version:
    bad.append("first line %r, expected 'hexpack %s'" % (lines[0], version))
kv = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
commit = kv.get("commit", "").split()[0] if kv.get("commit") else ""
if commit != want_commit:
    bad.append("commit %r, expected %r (git HEAD of the source tree)" % (commit, want_commit))
for f, on in have.items():
    got = re.match(r"(yes|no)\b", kv.get(f, ""))
    got = got.group(1) if got else kv.get(f)
    if got != ("yes" if on else "no"):
        bad.append("feature %s: %r, expected %s (hx_config.h)" % (f, got, "yes" if on else "no"))
doc = json.load(open(js))
if doc.get("schema_version") != schema:
    bad.append("JSON schema_version %r, expected %r (that of every --json document)" % (doc.get("schema_version"), schema))
if doc.get("version") != version or doc.get("commit") != want_commit:
    bad.append("JSON version/commit %r/%r" % (doc.get("version"), doc.get("commit")))
if doc.get("features") != have:
    bad.append("JSON features %r, expected %r" % (doc.get("features"), have))
if not isinstance(doc.get("dirty"), bool) or doc["dirty"] != ("with local changes" in kv.get("commit", "")):
    bad.append("JSON dirty %r disagrees with the text" % doc.get("dirty"))
for b in bad:
    print("FAIL: " + b)
print("version %s, commit %s, %d features checked against hx_config.h" % (version, commit, len(have)))
sys.exit(1 if bad else 0)
EOF
"$HEXPACK" --version --bogus > /dev/null 2> "$dir/err.txt" && { echo "FAIL: --version --bogus exited 0"; fail=1; }
[ "$(wc -l < "$dir/err.txt")" -eq 1 ] && grep -qF "flag --version: takes only --json, got '--bogus'" "$dir/err.txt" ||
  { echo "FAIL: --version --bogus: $(cat "$dir/err.txt")"; fail=1; }

# the capture script: outside git, a fresh repository, a change to a tracked file
script="$SRC/cmake/hx_buildinfo.cmake"
mkdir -p "$dir/plain" "$dir/repo"
capture() { cmake -DSRC="$1" -DOUT="$dir/out.c" -DGIT="$(command -v git)" -DBUILD_TYPE=Release -DCOMPILER="GNU 1" -P "$script"; }
capture "$dir/plain"
grep -q 'hx_build_commit_text\[\] = "unknown"' "$dir/out.c" || { echo "FAIL: outside git: $(cat "$dir/out.c")"; fail=1; }
if command -v git > /dev/null; then
  (cd "$dir/repo" && git init -q && echo a > f && git add f &&
   git -c user.name=t -c user.email=t@t commit -qm one) || { echo "FAIL: git init"; fail=1; }
  capture "$dir/repo"
  head=$(git -C "$dir/repo" rev-parse --short=12 HEAD)
  grep -q "hx_build_commit_text\[\] = \"$head\"" "$dir/out.c" && grep -q 'hx_build_dirty_flag = 0' "$dir/out.c" ||
    { echo "FAIL: clean repository $head: $(cat "$dir/out.c")"; fail=1; }
  echo b > "$dir/repo/f"
  capture "$dir/repo"
  grep -q 'hx_build_dirty_flag = 1' "$dir/out.c" || { echo "FAIL: changed repository not dirty"; fail=1; }
  # a directory inside a repository but not its top: not that repository's commit
  mkdir -p "$dir/repo/sub"
  capture "$dir/repo/sub"
  grep -q 'hx_build_commit_text\[\] = "unknown"' "$dir/out.c" || { echo "FAIL: subdirectory of a repository"; fail=1; }
fi
[ $fail -eq 0 ] && echo "t609: ok"
exit $fail
