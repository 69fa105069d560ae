#!/bin/bash
# Every guest on every Xen host the harness knows, of either guest type,
# and one table of it all. The cells are declared once, in CELLS below,
# one a line: "guest kver xen type", from which each cell's name, command
# and description follow:
#
#   smpalt - XEN pv      smpalt-XEN            make test-xen XEN=XEN
#   linux KVER XEN pv    linux-KVER-XEN        make test-linux KVER=KVER XEN=XEN
#   ... TYPE (not pv)    the same name + -TYPE the same command + TYPE=TYPE
#
# (the smpalt guest on both hosts; the patched Linux guest, one cell per
# series version, 6.12 and 7.2 on the host that ships them; PVH guests of
# the newer versions, 7.2 on either host). The cells run one after the
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

# guest kver xen type ("-": the smpalt guest has no Linux version)
CELLS="
smpalt -    4.17 pv
smpalt -    4.20 pv
linux  6.1  4.17 pv
linux  6.1  4.20 pv
linux  6.12 4.20 pv
linux  7.2  4.20 pv
linux  6.12 4.20 pvh
linux  7.2  4.20 pvh
linux  7.2  4.17 pvh
"
# The Debian release whose dom0 each Xen host boots (scripts/lib/xen-host.sh).
declare -A DEBIAN=([4.17]=12 [4.20]=13)

# Each cell's command, description and type, by its name, in CELLS' order.
ALL=()
declare -A CMD=() WHAT=() CELL_TYPE=()
while read -r guest kver xen type; do
	[ -n "$guest" ] || continue
	case $guest in
	smpalt)
		name=smpalt-$xen
		cmd="make --no-print-directory test-xen XEN=$xen"
		what="smpalt guest"
		;;
	linux)
		name=linux-$kver-$xen
		cmd="make --no-print-directory test-linux KVER=$kver XEN=$xen"
		what="Linux $kver guest"
		;;
	*) die "CELLS: unknown guest '$guest' (smpalt or linux)" ;;
	esac
	if [ "$type" != pv ]; then
		name+=-$type
		cmd+=" TYPE=$type"
	fi
	ALL+=("$name")
	CMD[$name]=$cmd
	WHAT[$name]="$what, Xen $xen (Debian ${DEBIAN[$xen]} dom0)"
	CELL_TYPE[$name]=$type
done <<<"$CELLS"

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
	echo "Hosts: $(for v in 4.17 4.20; do d=cache/xen; [ $v = 4.17 ] || d=cache/xen-$v
		[ -f $d/versions.txt ] && printf '%s; ' "$(sed -n 's/^xen=//p; s/^dom0_kernel=/dom0 /p' $d/versions.txt | tr '\n' ' ')"; done)"
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
