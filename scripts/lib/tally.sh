# Sourced by the test suites' shell runners: the counts every suite ends
# with, "N passed, N failed" (a runner may put "LABEL: " in front).
#
#   ok WHAT [DETAIL]        one check passed: "PASS WHAT[: DETAIL]"
#   ko WHAT [WHY]           one check failed: "FAIL WHAT[: WHY]"
#   tally_add P F           add P passes and F failures
#   tally_part NAME RC P F  add the counts of a part that exited RC; a part
#                           that exited non-zero without a failure counts
#                           as one failure (a crash, a sanitizer report)
#   tally_read FILE         read the last "[LABEL: ]N passed, N failed[, N
#                           skipped]" line of FILE into read_passed,
#                           read_failed, read_skipped (0, 0, 0 if none)
#   tally_end [LABEL]       print the line; status 1 on any failure
#   show LOG                the end of a failing step's LOG (its last
#                           SHOW_LINES lines), indented, then "(whole
#                           log: LOG)"

tally_passed=0
tally_failed=0
# Lines of a failing step's log that show prints (the whole of it is in
# the results folder); a runner may set another number after sourcing.
SHOW_LINES=30

ok() {
	echo "PASS $1${2:+: $2}"
	tally_passed=$((tally_passed + 1))
}

ko() {
	echo "FAIL $1${2:+: $2}"
	tally_failed=$((tally_failed + 1))
}

tally_add() {
	tally_passed=$((tally_passed + $1))
	tally_failed=$((tally_failed + $2))
}

tally_part() {
	local f=$4
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$1: exited $2 without a failure count: counted as 1 failure"
		f=1
	fi
	tally_add "$3" "$f"
}

tally_read() {
	local line
	line=$(sed -nE 's/^([A-Za-z0-9+_.-]+: )?([0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?)$/\2/p' \
		"$1" | tail -1)
	read_passed=0 read_failed=0 read_skipped=0
	[ -n "$line" ] || return 0
	read_passed=${line%% passed*}
	read_failed=${line#* passed, }
	read_failed=${read_failed%% failed*}
	case $line in *skipped)
		read_skipped=${line##*failed, }
		read_skipped=${read_skipped%% skipped} ;;
	esac
}

tally_end() {
	echo "${1:+$1: }$tally_passed passed, $tally_failed failed"
	[ "$tally_failed" -eq 0 ]
}

show() {
	tail -n "$SHOW_LINES" "$1" | sed 's/^/    /'
	echo "    (whole log: $1)"
}
