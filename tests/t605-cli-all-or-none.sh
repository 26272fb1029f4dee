#!/usr/bin/env bash
# t605: the outputs of a run are all written or none is. Every output is checked (format, the
# format's orders, directory, no output twice) before any work; a failure while writing (a file
# size limit here) leaves no final name and no temporary, and an existing file under a final name
# untouched; a .re2 names its field file (checksum in its header) and the reader refuses a set
# whose field file is missing, truncated or from another run.
. "${HX_SOURCE_DIR:-.}/tests/lib.sh"
HEXPACK=$(realpath "$HEXPACK")
cd "$dir"
# run a command that must fail: its exit code, one line on stderr containing the text, no file left
expect_fail() {
  local code=$1 want=$2
  shift 2
  mkdir -p run && (cd run && "$HEXPACK" "$@" > out.txt 2> err.txt)
  local rc=$? lines
  lines=$(wc -l < run/err.txt)
  local left
  left=$(ls -A run | grep -v -x -e out.txt -e err.txt -e bed.txt -e c0.f00000)
  if [ $rc -eq "$code" ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" run/err.txt && [ -z "$left" ]; then
    echo "ok   exit $rc  hexpack $*  ->  $(cat run/err.txt)"
  else
    echo "FAIL hexpack $* (exit $rc, want $code): $(cat run/err.txt); left: $left"
    fail=1
  fi
  rm -f run/out.txt run/err.txt
}
# refused before any work, nothing written: a format's order limit after another output
expect_fail 2 "'a.msh': Gmsh has Lagrange hexahedra of order 1..9 only, not 12" box --n 2 --order 12 -o a.re2 -o a.msh
# (an Exodus II build refuses order 3; one without the library refuses the format)
expect_fail 2 "'a.exo': Exodus II" box --n 2 --order 3 -o a.vtu -o a.exo
expect_fail 2 "output 'a.vtu' is given twice" box --n 2 -o a.vtu -o b.msh -o a.vtu
expect_fail 2 "outputs 'p.pvtu' and 'p_0.vtu' would both write 'p_0.vtu'" box --n 2 -o p.pvtu -o p_0.vtu
expect_fail 7 "cannot write 'nodir/b.vtu': no such directory 'nodir'" box --n 2 -o a.vtu -o nodir/b.vtu
mkdir run/c0.f00000
expect_fail 2 "output 'c.re2': 'c0.f00000' is a directory" box --n 2 --order 2 -o c.vtu -o c.re2
rmdir run/c0.f00000
"$HEXPACK" pack --n 10 -o run/bed.txt > /dev/null
echo "8 0 20 1" >> run/bed.txt # a sphere outside the bed: the bed's own check would refuse it
# pebble: the outputs are refused first, before the bed is read and checked (and meshed)
expect_fail 2 "'p.msh': Gmsh has Lagrange hexahedra of order 1..9 only, not 12" pebble --fast bed.txt --order 12 -o p.vtu -o p.msh
expect_fail 2 "bed.txt: sphere 11 (8, 0, 20; line 13) lies outside the bed" pebble --fast bed.txt --order 9 -o p.vtu -o p.msh
rm -f run/bed.txt

# failures while writing: a file size limit (SIGXFSZ ignored: the write fails with EFBIG) stops
# a.msh after a.vtu is complete (an older a.msh is in place), and b.re2's field file after the
# .re2 itself is complete
mkdir w && cd w
echo "older" > a.msh
(
  trap '' XFSZ
  ulimit -f 4096
  "$HEXPACK" box --n 16 --order 3 --compress -o a.vtu -o a.msh -o a.re2 > out.txt 2> err.txt
  echo $? > rc.txt
  "$HEXPACK" box --n 16 --order 3 -o b.re2 > out.txt 2> err2.txt
  echo $? > rc2.txt
)
check "size limit in a.msh: exit 7, $(cat err.txt)" \
  "[ \$(cat rc.txt) -eq 7 ] && [ \$(wc -l < err.txt) -eq 1 ] && grep -qF \"writing 'a.msh' failed\" err.txt"
check "size limit in b0.f00000: exit 7, $(cat err2.txt)" \
  "[ \$(cat rc2.txt) -eq 7 ] && [ \$(wc -l < err2.txt) -eq 1 ] && grep -qF \"writing 'b0.f00000' failed\" err2.txt"
left=$(ls -A | grep -v -x -e out.txt -e err.txt -e err2.txt -e rc.txt -e rc2.txt | tr '\n' ' ')
check "size limit: no final name created, none replaced, no temporary ($left)" "[ '$left' = 'a.msh ' ] && [ \"\$(cat a.msh)\" = older ]"
cd ..

# the .re2 and its field file: a linked set
mkdir s && cd s
"$HEXPACK" box --n 2 --order 3 -o s.re2 > /dev/null 2>&1
"$HEXPACK" box --n 2 --order 3 --hi 1,1,2 -o t.re2 > /dev/null 2>&1
check "the .re2 header names its field file's checksum" "head -c 80 s.re2 | grep -Eq ' hdr fld [0-9a-f]{16} *\$'"
check "the linked set reads (order 3)" "'$HEXPACK' quality s.re2 --json 2> /dev/null | grep -q '\"order\": 3'"
cp s0.f00000 keep.f
expect_set() { # the text the reader's one line must contain
  "$HEXPACK" quality s.re2 > /dev/null 2> err.txt
  local rc=$?
  check "$1: exit $rc: $(cat err.txt)" "[ $rc -ne 0 ] && [ \$(wc -l < err.txt) -eq 1 ] && grep -qF -- '$2' err.txt"
}
rm s0.f00000
expect_set "field file missing" "s.re2: its field file s0.f00000 is missing"
head -c 5000 keep.f > s0.f00000
expect_set "field file truncated" "s.re2: its field file is broken: s0.f00000: truncated"
cp t0.f00000 s0.f00000
expect_set "field file of another run" "s.re2: its field file s0.f00000 is not the one written with it"
cp keep.f s0.f00000
printf '\x01' | dd of=s0.f00000 bs=1 seek=2000 conv=notrunc 2> /dev/null
expect_set "field file changed" "is not the one written with it (other coordinates"
# an order-1 .re2 has no field file: a stale one beside it is not used
cp keep.f s0.f00000
"$HEXPACK" box --n 2 --order 1 -o s.re2 > /dev/null 2>&1
check "order-1 .re2: header says 'fld none'" "head -c 80 s.re2 | grep -q ' hdr fld none'"
out=$("$HEXPACK" quality s.re2 --json 2> err.txt)
check "order-1 .re2 with a stale field file: read at order 1, with a warning" \
  "echo '$out' | grep -q '\"order\": 1' && grep -q 'ignoring s0.f00000' err.txt"
cd ..
exit $fail
