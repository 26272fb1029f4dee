#!/usr/bin/env bash
# t622: batch-friendly output. With stdout and stderr redirected to a file, the file shows a
# plain progress line (stage, fraction, elapsed, ETA) while the run is still going (quality of
# a 46656-element mesh, --progress-interval 0.1), and the optimizer's per-iteration log lines
# appear while it runs, not at exit (stdout line-buffered); --progress-interval 0 prints none.
# The same for the pebble mesher's own stages (a 60-sphere bed at order 7) and, with --quiet, for
# the optimizer's Newton loop (iterations done of --newton-iters).
. "$(dirname "$0")/lib.sh"
cd "$dir"
"$HEXPACK" box --n 36 --order 2 -o big.vtu > /dev/null || { echo "FAIL: box"; exit 1; }
# wait_line PID FILE PATTERN: 0 when PATTERN shows in FILE while PID still runs
wait_line() {
  while kill -0 "$1" 2> /dev/null; do
    if grep -q "$3" "$2"; then return 0; fi
    sleep 0.05
  done
  return 1
}
# seen_running LOG PATTERN CMD...: 0 when PATTERN shows in LOG (CMD's stdout and stderr) while CMD
# still runs; CMD is stopped then
seen_running() {
  local log=$1 pat=$2 pid seen
  shift 2
  "$@" > "$log" 2>&1 &
  pid=$!
  wait_line $pid "$log" "$pat"
  seen=$?
  kill $pid 2> /dev/null
  wait $pid 2> /dev/null
  return $seen
}
"$HEXPACK" quality big.vtu --progress-interval 0.1 > q.log 2>&1 &
pid=$!
wait_line $pid q.log '^progress: quality [0-9.]* % ([0-9]* of 46656), [0-9.]* s elapsed, eta [0-9.]* s$'
seen=$?
wait $pid
rc=$?
check "quality: a progress line in the file while it runs" "[ $seen -eq 0 ] && [ $rc -eq 0 ]"
check "quality: the report follows in the same file" "grep -q 'elements with det J <= 0: 0' q.log"
"$HEXPACK" quality big.vtu --progress-interval 0 > q0.log 2>&1
check "--progress-interval 0: no progress line" "! grep -q '^progress:' q0.log"
"$HEXPACK" box --n 12 --kershaw 0.3,0.3 --order 3 -o k.vtu > /dev/null || { echo "FAIL: box k"; exit 1; }
seen_running o.log '^newton   1 ' "$HEXPACK" optimize k.vtu -o o.vtu --newton-iters 30 --coarse-start off --threads 1
check "optimize: its first Newton line in the file while it runs" "[ $? -eq 0 ]"
seen_running oq.log '^progress: newton [0-9.]* % ([0-9]* of 30), [0-9.]* s elapsed, eta [0-9.]* s$' \
  "$HEXPACK" optimize k.vtu -o o.vtu --newton-iters 30 --coarse-start off --threads 1 --quiet --progress-interval 0.1
check "optimize --quiet: a Newton progress line in the file while it runs" "[ $? -eq 0 ]"
"$HEXPACK" pack --n 60 --container cyl:4 -o bed.txt > /dev/null || { echo "FAIL: pack"; exit 1; }
stages='\(tessellation\|point spacing\|sweep\|order-N map\)'
seen_running p.log "^progress: $stages [0-9.]* % ([0-9]* of [0-9]*), [0-9.]* s elapsed, eta [0-9.]* s\$" \
  "$HEXPACK" pebble --fast bed.txt -o bed.re2 --progress-interval 0.1
check "pebble: a progress line of a mesher stage in the file while it runs" "[ $? -eq 0 ]"
exit $fail
