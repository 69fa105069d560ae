#!/bin/bash
# Run cmocka test programs and add up their counts.
#
#   scripts/run-cmocka.sh [-l LABEL] PROGRAM...
#
# Prints each program's own output, then "N passed, N failed" (behind
# "LABEL: " when given) and exits non-zero on any failure. A program that
# exits non-zero without a failure count (a crash, a sanitizer report)
# counts as one failure.
set -uo pipefail

label=
if [ "${1:-}" = -l ]; then
	label="$2: "
	shift 2
fi

pass=0
fail=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" |
		sed -nE 's/^\[  PASSED  \] ([0-9]+) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" |
		sed -nE 's/^\[  FAILED  \] ([0-9]+) test.*/\1/p' | tail -1)
	p=${p:-0}
	f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$t: exited $rc without a failure count"
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
done
echo "$label$pass passed, $fail failed"
[ "$fail" -eq 0 ]
