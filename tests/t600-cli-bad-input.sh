#!/usr/bin/env bash
# t600: bad input on the command line gives one clear line on stderr naming the
# flag/value/command, a non-zero exit status, and no output file. Cases of issue 2:
# unknown flag, unknown subcommand, non-numeric value, order 0, n_x not divisible by
# 6 with --kershaw, eps outside (0, 1]; plus missing values and the quality/convert/
# demo flags.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
# expect_fail "substring of the message" args...
expect_fail() {
  local want=$1; shift
  rm -f out.vtu err.txt
  "$HEXPACK" "$@" > /dev/null 2> err.txt
  local rc=$?
  local lines; lines=$(wc -l < err.txt)
  if [ "$rc" -eq 0 ]; then echo "FAIL (exit 0): hexpack $*"; fail=1; return; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL ($lines lines on stderr): hexpack $*"; cat err.txt; fail=1; return; fi
  if ! grep -qF -- "$want" err.txt; then echo "FAIL (message): hexpack $*"; echo "  got:  $(cat err.txt)"; echo "  want: $want"; fail=1; return; fi
  if ls out.vtu* > /dev/null 2>&1; then echo "FAIL (output left): hexpack $*"; fail=1; return; fi
  echo "ok   exit $rc  hexpack $*  ->  $(cat err.txt)"
}
expect_fail "unknown flag '--bogus' for 'hexpack box'" box --n 6 --bogus -o out.vtu
expect_fail "unknown command 'boxx'; known: box" boxx --n 6 -o out.vtu
expect_fail "flag --n expects an integer" box --n six -o out.vtu
expect_fail "flag --n" box --n 6,x,4 -o out.vtu
expect_fail "flag --order" box --n 6 --order 0 -o out.vtu
expect_fail "flag --order" box --n 6 --order 1.5 -o out.vtu
expect_fail "flag --order" box --n 6 --order 99 -o out.vtu
expect_fail "--kershaw needs n_x divisible by 6" box --n 8,4,4 --kershaw 0.3,0.3 -o out.vtu
expect_fail "--kershaw needs n_y and n_z even" box --n 6,3,4 --kershaw 0.3,0.3 -o out.vtu
expect_fail "EPS_Y and EPS_Z must be in (0, 1]" box --n 6 --kershaw 0,0.3 -o out.vtu
expect_fail "EPS_Y and EPS_Z must be in (0, 1]" box --n 6 --kershaw 0.3,1.5 -o out.vtu
expect_fail "flag --kershaw" box --n 6 --kershaw 0.3,abc -o out.vtu
expect_fail "smoothness S must be 1, 2 or 3" box --n 6 --kershaw 0.3,0.3,4 -o out.vtu
expect_fail "flag --n needs a value" box --n
expect_fail "unknown mesh format '.xyz'" box --n 6 -o out.xyz
expect_fail "no command given" 
expect_fail "quality needs a mesh file" quality
expect_fail "unknown flag '--colour' for 'hexpack quality'" quality out.vtu --colour
expect_fail "flag --quad-type expects gll or gauss, got 'simpson'" quality out.vtu --quad-type simpson
expect_fail "flag --quad-order expects an integer" quality out.vtu --quad-order high
expect_fail "flag --plot expects a file ending in .png or .svg, got 'hist.jpg'" quality out.vtu --plot hist.jpg
expect_fail "quality takes one mesh file" quality a.vtu b.vtu
expect_fail "convert needs an input and an output" convert in.vtu
expect_fail "unknown flag '--fast' for 'hexpack convert'" convert in.vtu out.vtu --fast
expect_fail "unknown flag '--big' for 'hexpack demo'" demo --big
expect_fail "flag --order" demo --order 0
rm -f err.txt
[ -z "$(ls)" ] || { echo "FAIL: files left behind: $(ls)"; fail=1; }
exit $fail
