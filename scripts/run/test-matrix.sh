#!/bin/bash
# Every guest on every Xen host the harness knows, and one table of it all:
#
#   cell             what it runs
#   smpalt-4.17      make test-xen XEN=4.17    the smpalt guest, Debian 12 dom0
#   smpalt-4.20      make test-xen XEN=4.20    the smpalt guest, Debian 13 dom0
#   linux-6.1-4.17   make test-linux KVER=6.1 XEN=4.17   the patched Linux
#   linux-6.1-4.20   make test-linux KVER=6.1 XEN=4.20   guest, one cell per
#   linux-6.12-4.20  make test-linux KVER=6.12 XEN=4.20  series version
#   linux-7.2-4.20   make test-linux KVER=7.2 XEN=4.20   (6.12 and 7.2 on the
#                                                        host that ships them)
#
# one after the other (each boots QEMU; a cell's failure does not stop the
# others). Each cell's output goes to out/matrix/<timestamp>/<cell>.log;
# at the end the table (cell, passed, failed, skipped, time) is printed and
# written as Markdown to out/matrix/<timestamp>/matrix.md (out/matrix/latest
# points at the last run). The last line is the total "N passed, N failed":
# a skipped scenario did not run, so it counts as a failure (as in make test).
#
# Usage: scripts/run/test-matrix.sh [CELL...]     (default: every cell)
set -uo pipefail

. "$(dirname "$0")/../lib/host.sh"
cd "$TOP"
. scripts/lib/tally.sh

declare -A CMD=(
	[smpalt-4.17]="make --no-print-directory test-xen XEN=4.17"
	[smpalt-4.20]="make --no-print-directory test-xen XEN=4.20"
	[linux-6.1-4.17]="make --no-print-directory test-linux KVER=6.1 XEN=4.17"
	[linux-6.1-4.20]="make --no-print-directory test-linux KVER=6.1 XEN=4.20"
	[linux-6.12-4.20]="make --no-print-directory test-linux KVER=6.12 XEN=4.20"
	[linux-7.2-4.20]="make --no-print-directory test-linux KVER=7.2 XEN=4.20"
)
ALL=(smpalt-4.17 smpalt-4.20 linux-6.1-4.17 linux-6.1-4.20 linux-6.12-4.20 linux-7.2-4.20)
declare -A WHAT=(
	[smpalt-4.17]="smpalt guest, Xen 4.17 (Debian 12 dom0)"
	[smpalt-4.20]="smpalt guest, Xen 4.20 (Debian 13 dom0)"
	[linux-6.1-4.17]="Linux 6.1 guest, Xen 4.17 (Debian 12 dom0)"
	[linux-6.1-4.20]="Linux 6.1 guest, Xen 4.20 (Debian 13 dom0)"
	[linux-6.12-4.20]="Linux 6.12 guest, Xen 4.20 (Debian 13 dom0)"
	[linux-7.2-4.20]="Linux 7.2 guest, Xen 4.20 (Debian 13 dom0)"
)

cells=("$@")
[ ${#cells[@]} -gt 0 ] || cells=("${ALL[@]}")
for c in "${cells[@]}"; do
	[ -n "${CMD[$c]:-}" ] || {
		echo "test-matrix: error: unknown cell '$c' (one of: ${ALL[*]})" >&2
		exit 2
	}
done

results_dir "$TOP/out/matrix"
DIR=$RESULTS_DIR
stamp=$RESULTS_STAMP

mmss() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
# matrix_md: the table so far (rewritten after each cell, so that an
# interrupted run keeps the cells it finished).
matrix_md() {
	local c
	echo "# Test matrix $stamp"
	echo
	echo "Guests x Xen hosts of the Xen-in-QEMU harness (scripts/run/test-matrix.sh);"
	echo "each cell's output in \`<cell>.log\` beside this file."
	echo
	echo "| cell | what | passed | failed | skipped | time |"
	echo "|------|------|-------:|-------:|--------:|-----:|"
	for c in "${cells[@]}"; do
		if [ -n "${T[$c]:-}" ]; then
			echo "| $c | ${WHAT[$c]} | ${P[$c]} | ${F[$c]} | ${S[$c]} | $(mmss "${T[$c]}") |"
		else
			echo "| $c | ${WHAT[$c]} | not run | | | |"
		fi
	done
	echo
	echo "Hosts: $(for v in 4.17 4.20; do d=cache/xen; [ $v = 4.17 ] || d=cache/xen-$v
		[ -f $d/versions.txt ] && printf '%s; ' "$(sed -n 's/^xen=//p; s/^dom0_kernel=/dom0 /p' $d/versions.txt | tr '\n' ' ')"; done)"
}

declare -A P F S T
# A clean make environment for each cell: not this make's variables.
unset MAKEFLAGS MFLAGS MAKELEVEL XEN
for c in "${cells[@]}"; do
	echo "=== matrix cell $c: ${WHAT[$c]}: ${CMD[$c]}"
	t0=$(date +%s)
	${CMD[$c]} 2>&1 | tee "$DIR/$c.log"
	rc=${PIPESTATUS[0]}
	T[$c]=$(($(date +%s) - t0))
	tally_read "$DIR/$c.log"
	P[$c]=$read_passed F[$c]=$read_failed S[$c]=$read_skipped
	if [ "$rc" -ne 0 ] && [ "$read_failed" -eq 0 ] && [ "$read_skipped" -eq 0 ]; then
		echo "=== matrix cell $c: exited $rc without a failure count: counted as 1 failure"
		F[$c]=$((F[$c] + 1))
	fi
	echo "=== matrix cell $c: ${P[$c]} passed, ${F[$c]} failed, ${S[$c]} skipped, ${T[$c]} s"
	echo
	matrix_md >"$DIR/matrix.md"
done

echo "=== test matrix (out/matrix/$(basename "$DIR")/matrix.md)"
printf '%-16s %7s %7s %8s %8s\n' cell passed failed skipped time
for c in "${cells[@]}"; do
	printf '%-16s %7s %7s %8s %8s\n' "$c" "${P[$c]}" "${F[$c]}" "${S[$c]}" "$(mmss "${T[$c]}")"
	tally_add "${P[$c]}" $((F[$c] + S[$c]))
done
tally_end
