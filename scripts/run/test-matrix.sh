#!/bin/bash
# Every guest on every Xen host the harness knows, of either guest type,
# and one table of it all. The cells are declared once, in the "cell" lines
# of scripts/lib/matrix.conf ("GUEST KVER XEN TYPE RUN"), from which each
# cell's name, command and description follow (scripts/lib/matrix.sh):
#
#   smpalt - XEN pv      smpalt-XEN            make test-xen XEN=XEN
#   linux KVER XEN pv    linux-KVER-XEN        make test-linux KVER=KVER XEN=XEN
#   ... TYPE (not pv)    the same name + -TYPE the same command + TYPE=TYPE
#
# (the smpalt guest on both hosts, PV and PVH; the patched Linux guest,
# one cell per series version, 6.12 and 7.2 on the host that ships them;
# PVH guests of the newer versions, 7.2 on either host). The cells run one after the
# other (each boots QEMU; a cell's failure does not stop the others).
# Each cell's output goes to out/matrix/<timestamp>/<cell>.log; at the end
# the table (cell, type, passed, failed, skipped, time) is printed and
# written as Markdown to out/matrix/<timestamp>/matrix.md (out/matrix/latest
# points at the last run). The last line is the total "N passed, N failed":
# a skipped scenario did not run, so it counts as a failure (as in make test).
#
# Usage: scripts/run/test-matrix.sh [CELL...]     (default: every cell)
set -uo pipefail

. "$(dirname "$0")/../lib/host.sh"
cd "$TOP"
. scripts/lib/tally.sh

. scripts/lib/matrix.sh

# Each cell's command, description and type, by its name, in matrix.conf's
# order.
ALL=()
declare -A CMD=() WHAT=() CELL_TYPE=()
while read -r guest kver xen type run; do
	case $guest in smpalt | linux) ;; *) die "matrix.conf: cell of an unknown guest '$guest' (smpalt or linux)" ;; esac
	case $run in test | matrix) ;; *) die "matrix.conf: cell $guest $kver $xen $type: RUN '$run' is test or matrix" ;; esac
	name=$(cell_name "$guest" "$kver" "$xen" "$type")
	ALL+=("$name")
	CMD[$name]=$(cell_command "$guest" "$kver" "$xen" "$type")
	WHAT[$name]=$(cell_what "$guest" "$kver" "$xen")
	CELL_TYPE[$name]=$type
done < <(matrix_rows cell)

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
	echo "Guests x Xen hosts x guest types of the Xen-in-QEMU harness (scripts/run/test-matrix.sh);"
	echo "each cell's output in \`<cell>.log\` beside this file."
	echo
	echo "| cell | what | type | passed | failed | skipped | time |"
	echo "|------|------|------|-------:|-------:|--------:|-----:|"
	for c in "${cells[@]}"; do
		if [ -n "${T[$c]:-}" ]; then
			echo "| $c | ${WHAT[$c]} | ${CELL_TYPE[$c]} | ${P[$c]} | ${F[$c]} | ${S[$c]} | $(mmss "${T[$c]}") |"
		else
			echo "| $c | ${WHAT[$c]} | ${CELL_TYPE[$c]} | not run | | | |"
		fi
	done
	echo
	echo "Hosts: $(matrix_rows host | while read -r _ _ _ _ _ d _; do
		[ -f "cache/$d/versions.txt" ] && printf '%s; ' "$(sed -n 's/^xen=//p; s/^dom0_kernel=/dom0 /p' "cache/$d/versions.txt" | tr '\n' ' ')"; done)"
}

declare -A P F S T
# A clean make environment for each cell: not this make's variables.
unset MAKEFLAGS MFLAGS MAKELEVEL XEN TYPE GUEST_TYPE
for c in "${cells[@]}"; do
	echo "=== matrix cell $c: ${WHAT[$c]}, ${CELL_TYPE[$c]}: ${CMD[$c]}"
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
printf '%-19s %-4s %7s %7s %8s %8s\n' cell type passed failed skipped time
for c in "${cells[@]}"; do
	printf '%-19s %-4s %7s %7s %8s %8s\n' "$c" "${CELL_TYPE[$c]}" "${P[$c]}" "${F[$c]}" "${S[$c]}" "$(mmss "${T[$c]}")"
	tally_add "${P[$c]}" $((F[$c] + S[$c]))
done
tally_end
