#!/bin/bash
# Run every test suite smpalt has and add up their results.
#
# Each suite is a make target whose output ends with "N passed, N failed"
# (optionally ", N skipped"). A skipped test did not run, so it is not a
# pass: each one counts as a failure here. A suite that exits non-zero
# without such a line counts as one failure. The last line printed here is
# the total, in the same form.
set -uo pipefail
cd "$(dirname "$0")/.."

SUITES=(
	"unit tests (gcc)|make --no-print-directory CC=gcc test-unit"
	"unit tests (clang)|make --no-print-directory CC=clang test-unit"
	"unit tests (ASan+UBSan)|make --no-print-directory test-sanitize"
	"xenstore + hotplug tests (gcc)|make --no-print-directory CC=gcc test-xs"
	"xenstore + hotplug tests (clang)|make --no-print-directory CC=clang test-xs"
	"xenstore + hotplug tests (ASan+UBSan)|make --no-print-directory test-xs-sanitize"
	"guest layers: includes one way, no loop|make --no-print-directory check-layers"
	"site checker|make --no-print-directory check-sites"
	"fuzzing + decoder vs objdump|make --no-print-directory test-fuzz"
	"dom0 tools: autoscaler policy + end-to-end (gcc, clang)|make --no-print-directory test-tools"
	"dom0 tools (ASan+UBSan)|make --no-print-directory test-tools-sanitize"
	"workload profiles (gcc, clang)|make --no-print-directory test-profile"
	"guest result line (gcc, clang)|make --no-print-directory test-report"
	"install: make install DESTDIR=<tmp>, the tree, uninstall|make --no-print-directory test-install"
	"Xen scenarios|make --no-print-directory test-xen"
)

total_pass=0
total_fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for suite in "${SUITES[@]}"; do
	name=${suite%%|*}
	cmd=${suite#*|}
	echo "=== $name: $cmd"
	$cmd 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" |
		tail -1 | sed -E 's/^[A-Za-z-]+: //')
	if [ -n "$line" ]; then
		p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
		f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
	else
		p=0
		f=0
	fi
	skipped=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
	if [ "${skipped:-0}" -gt 0 ]; then
		echo "=== $name: $skipped skipped: counted as $skipped failure(s) (a skip is not a pass)"
		f=$((f + skipped))
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "=== $name: exited $rc without a failure count: counted as 1 failure"
		f=1
	fi
	echo "=== $name: $p passed, $f failed"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
done

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
