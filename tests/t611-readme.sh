#!/usr/bin/env bash
# t611: the README's first session runs as written: the first ```sh block after "## The commands",
# every line in turn, in an empty directory, with hexpack on the PATH; each line must exit 0 and
# each -o / --plot file it names must exist and be non-empty afterwards.
. "$(dirname "$0")/lib.sh"
cd "$dir"
block=$(awk '/^## The commands/ {c = 1} c && /^```sh/ {b = 1; next} b && /^```/ {exit} b' "$SRC/README.md")
check "the README has the first-session block" "[ -n \"\$block\" ]"
mkdir -p bin && ln -sf "$HEXPACK" bin/hexpack
export PATH="$PWD/bin:$PATH"
n=0
while IFS= read -r line; do
  [ -z "$line" ] && continue
  case "$line" in \#*) continue ;; esac
  n=$((n + 1))
  cmd=${line%%  #*}
  bash -c "$cmd" > "line$n.out" 2>&1
  rc=$?
  check "README line $n exits 0: $cmd" "[ $rc -eq 0 ]"
  [ $rc -ne 0 ] && tail -3 "line$n.out"
  for f in $(echo "$cmd" | grep -o -E '(-o|--plot) [^ ]+' | awk '{print $2}'); do
    check "README line $n wrote $f" "[ -s '$f' ]"
  done
done <<< "$block"
check "the block has its 8 commands" "[ $n -eq 8 ]"
exit $fail
