#!/bin/bash
# Run every test suite smpalt has and add up their results.
#
# Each suite is a make target whose output ends with "N passed, N failed"
# (optionally ", N skipped"). A skipped test did not run, so it is not a
# pass: each one counts as a failure here. A suite that exits non-zero
# without such a line counts as one failure. The last line printed here is
# the total, in the same form. Of the guests x Xen hosts x types (make
# test-matrix) it runs the cells scripts/lib/matrix.conf marks "test" (the
# smpalt guest and the Linux 6.1 guest on Xen 4.17, as PV domUs) and names
# the others, which do not fit in the CI hour beside the suites here (the
# smpalt guest's set on Xen 4.20 takes about as long as on 4.17, and much
# longer on a loaded machine; tests/xen/README.md, "Xen 4.20"; the Linux
# 6.12 and 7.2 series each need their own two kernel builds), and the Linux
# guest's debug configuration.
set -uo pipefail
cd "$(dirname "$0")/../.."

SUITES=(
	"unit tests (gcc)|make --no-print-directory CC=gcc test-unit"
	"unit tests (clang)|make --no-print-directory CC=clang test-unit"
	"unit tests (ASan+UBSan, gcc and clang)|make --no-print-directory test-unit-sanitize"
	"guest layers: includes one way, no loop|make --no-print-directory check-layers"
	"site checker|make --no-print-directory check-sites"
	"fuzzing + decoder vs objdump|make --no-print-directory test-fuzz"
	"dom0 tools: autoscaler policy + end-to-end (gcc, clang)|make --no-print-directory test-tools"
	"dom0 tools (ASan+UBSan, gcc and clang)|make --no-print-directory test-tools-sanitize"
	"install: make install DESTDIR=<tmp>, the tree, uninstall|make --no-print-directory test-install"
	"Debian packages: dpkg-buildpackage, lintian, hardening, the unit|make --no-print-directory test-deb"
)
. scripts/lib/matrix.sh
LEFT_TO_MATRIX=
while read -r guest kver xen type run; do
	name=$(cell_name "$guest" "$kver" "$xen" "$type")
	cmd=$(cell_command "$guest" "$kver" "$xen" "$type")
	if [ "$run" = test ]; then
		SUITES+=("$(cell_what "$guest" "$kver" "$xen"), $type (matrix cell $name)|$cmd")
	else
		LEFT_TO_MATRIX+="${LEFT_TO_MATRIX:+, }$name (${cmd#make --no-print-directory })"
	fi
done < <(matrix_rows cell)
# The Linux guest's debug configuration (modules, kprobes, the function
# tracer, lockdep; docs/linux.md): its own kernel build and a slower guest,
# run by its own command only.
LEFT_TO_DEBUG="the Linux guest's debug and Debian configurations and their scenarios linux-modules, linux-text-patchers (make test-linux CONFIG=debug, CONFIG=debian)"
# The Debian 13 guest: the package's cold build alone takes over an hour.
LEFT_TO_DEBIAN="the Debian 13 guest with the series as a package (make linux-deb; make test-xen GUEST=debian XEN=4.20)"

. scripts/lib/tally.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for suite in "${SUITES[@]}"; do
	name=${suite%%|*}
	cmd=${suite#*|}
	echo "=== $name: $cmd"
	$cmd 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	tally_read "$log"
	p=$read_passed
	f=$read_failed
	if [ "$read_skipped" -gt 0 ]; then
		echo "=== $name: $read_skipped skipped: counted as $read_skipped failure(s) (a skip is not a pass)"
		f=$((f + read_skipped))
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "=== $name: exited $rc without a failure count: counted as 1 failure"
		f=1
	fi
	echo "=== $name: $p passed, $f failed"
	tally_add "$p" "$f"
done

echo "=== not run here: $LEFT_TO_MATRIX: make test-matrix runs every guest on every Xen host"
echo "=== not run here: $LEFT_TO_DEBUG"
echo "=== not run here: $LEFT_TO_DEBIAN"
tally_end
