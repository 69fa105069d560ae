#!/bin/bash
# Run make targets once with CC=gcc and once with CC=clang (each compiler
# builds into its own build/<compiler>/) and add up the counts.
#
#   scripts/run/run-each-compiler.sh TARGET...
#
# Prints each run's output, whose last line is "<compiler>: N passed, N
# failed", then the total "N passed, N failed"; exits non-zero on any
# failure. A run that fails without a failure count (a build error)
# counts as one failure. MAKE: the make to run (make's own, from a
# recipe, so that -j carries over).
set -uo pipefail
. "$(dirname "$0")/../lib/host.sh"
. "$TOP/scripts/lib/tally.sh"

COMPILERS="gcc clang"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
for c in $COMPILERS; do
	"${MAKE:-make}" -C "$TOP" --no-print-directory CC=$c "$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	tally_read "$log"
	tally_part "$c: make $*" $rc "$read_passed" "$read_failed"
done
tally_end
