#!/bin/bash
# Run cmocka test programs and add up their counts.
#
#   scripts/run/run-cmocka.sh [-l LABEL] PROGRAM...
#
# Prints each program's own output, then "N passed, N failed" (behind
# "LABEL: " when given) and exits non-zero on any failure. A program's
# counts are the sum of cmocka's report of each of its groups. A program
# that exits non-zero without a failure count (a crash, a sanitizer
# report) counts as one failure.
set -uo pipefail
. "$(dirname "$0")/../lib/tally.sh"

label=
if [ "${1:-}" = -l ]; then
	label=$2
	shift 2
fi

# cmocka_count WORD: the sum of cmocka's "[  WORD  ] N test(s)" lines.
cmocka_count() {
	printf '%s\n' "$out" |
		sed -nE "s/^\[  $1  \] ([0-9]+) test.*/\1/p" |
		awk '{ n += $1 } END { print n + 0 }'
}

for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	tally_part "$t" $rc "$(cmocka_count PASSED)" "$(cmocka_count FAILED)"
done
tally_end "$label"
