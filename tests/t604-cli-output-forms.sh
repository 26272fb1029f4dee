#!/usr/bin/env bash
# t604: the output-form flags reach the writers: --ascii gives text .vtu/.msh,
# --compress gives zlib-compressed .vtu, --co2 writes the .co2 next to the .re2;
# each file reads back to the same quality as the default form.
set -u
HEXPACK=${HEXPACK:?}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; fi; }
"$HEXPACK" box --n 6,2,2 --kershaw 0.3,0.3 --order 2 -o "$d/raw.vtu" -o "$d/a.vtu" --ascii >/dev/null || fail=1
check 'grep -q "format=\"ascii\"" "$d/a.vtu"' "--ascii .vtu is not ASCII"
"$HEXPACK" box --n 6,2,2 --kershaw 0.3,0.3 --order 2 -o "$d/z.vtu" --compress 6 >/dev/null || fail=1
check 'grep -q "vtkZLibDataCompressor" "$d/z.vtu"' "--compress .vtu has no zlib compressor"
check '! grep -q "vtkZLibDataCompressor" "$d/raw.vtu"' "default .vtu is compressed"
"$HEXPACK" box --n 6,2,2 --kershaw 0.3,0.3 --order 2 -o "$d/m.msh" --ascii >/dev/null || fail=1
check 'head -2 "$d/m.msh" | grep -q "^4.1 0 8"' "--ascii .msh is not file-type 0"
"$HEXPACK" box --n 6,2,2 --kershaw 0.3,0.3 -o "$d/k.re2" --co2 >/dev/null 2>&1 || fail=1
check 'test -s "$d/k.co2"' "--co2 wrote no .co2"
check 'head -c 5 "$d/k.co2" | grep -q "#v001"' ".co2 header"
for f in raw a z m; do
  ext=vtu; [ $f = m ] && ext=msh
  out=$("$HEXPACK" quality "$d/$f.$ext" --json 2>&1)
  # min det J of this box is 0.09 / (6*2*2) = 3.75e-3
  check 'echo "$out" | grep -Eq "\"detj_min\": \\{\"min\": 0\\.003(7499|75)"' "quality of $f.$ext: $(echo "$out" | head -c 300)"
done
if [ $fail = 0 ]; then echo "t604: 1 passed, 0 failed"; else echo "t604: 0 passed, 1 failed"; fi
exit $fail
