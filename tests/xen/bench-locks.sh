# Scenario bench-locks: the in-guest benchmark of the two forms of the text
# (make bench only, not in the default set of make test-xen), in the
# smpalt guest as each guest type in turn, one boot each.
# Input: smpalt.bench.types=TYPE+TYPE... on the dom0 command line (make
# bench TYPES=, pv and pvh by default; without it, the run's type); for
# each type, xl create of that type (domain_create: type="pvh" and
# tsc_mode="native" for PVH) with extra="smpalt.bench=1" (one vCPU).
# Expected: each guest measures its clock's resolution ("bench: clock
# resolution <r> ns", r > 0), times each lock primitive (spinlock, atomic,
# refcount: 10000 operations) and one lock-heavy work item (best of 5
# alternating rounds) in the SMP and in the UP form, one "bench: <name>:
# SMP form <s> ns, UP form <u> ns, SMP/UP <x>" line each, then "Test
# result: SUCCESS smp <ns> up <ns> per item". A guest that found a timing
# implausible says "Test result: ERROR ..." and the scenario reports it,
# naming the type. Each figure must be plausible: s > 0, u > 0 and s/u
# within [RATIO_MIN_PCT, RATIO_MAX_PCT] percent (the UP form drops lock
# prefixes: never much slower than SMP form, nor a thousand times faster).
# Figures: one row per type and loop into bench-locks.csv (type,
# workload, smp_ns, up_ns, resolution_ns), sent to the host with each
# type's console (console-smpalt-bench-locks-TYPE.log).

BENCH_ARG="smpalt.bench=1"
TEST_TIMEOUT=90
BENCH_LINES=4 # spinlock, atomic, refcount, item
RATIO_MIN_PCT=50
RATIO_MAX_PCT=100000
CSV=$RESULTS_DIR/bench-locks.csv

TYPES=$(cmdline_value 'smpalt\.bench\.types' "$(guest_type)" | tr '+' ' ')
for t in $TYPES; do
	guest_type_ok "$t" ||
		scenario_error "smpalt.bench.types: unknown guest type '$t' ($GUEST_TYPES)"
done

# bench_type TYPE: one guest of TYPE through the benchmark, its rows
# appended to CSV and its ratios to summary.
bench_type() {
	local t=$1 verdict res figures n smp up name pct ratios=
	GUEST_TYPE=$t
	guest_create "extra=\"$BENCH_ARG\""
	wait_for_console "Test result: " $TEST_TIMEOUT ||
		result ERROR "$t guest printed no 'Test result:' line within ${TEST_TIMEOUT}s"
	verdict=$(grep -F "Test result: " "$CONSOLE_LOG" | tail -1 | tr -d '\r')
	verdict=${verdict#*Test result: }
	case $verdict in
	"SUCCESS "*) ;;
	# The guest's own ERROR, as it said it, with its type.
	*) result "${verdict%% *}" "$t guest: ${verdict#* }" ;;
	esac

	res=$(tr -d '\r' <"$CONSOLE_LOG" | sed -n 's/.*bench: clock resolution \([0-9][0-9]*\) ns.*/\1/p' | head -1)
	[ "${res:-0}" -gt 0 ] 2>/dev/null ||
		fail "$t guest: no plausible 'bench: clock resolution' line (got '$res')"
	figures=$(tr -d '\r' <"$CONSOLE_LOG" |
		sed -n 's/.*bench: \(.*\): SMP form \([0-9][0-9]*\) ns, UP form \([0-9][0-9]*\) ns.*/\2 \3 \1/p')
	n=0
	while read -r smp up name; do
		[ -n "$smp" ] || continue
		n=$((n + 1))
		[ "$smp" -gt 0 ] && [ "$up" -gt 0 ] ||
			fail "$t guest, $name: SMP form $smp ns, UP form $up ns: a zero timing"
		pct=$((smp * 100 / up))
		[ $pct -ge $RATIO_MIN_PCT ] && [ $pct -le $RATIO_MAX_PCT ] ||
			fail "$t guest, $name: SMP form $smp ns, UP form $up ns: SMP/UP $pct% outside [$RATIO_MIN_PCT, $RATIO_MAX_PCT]%"
		echo "$t,$name,$smp,$up,$res" >>"$CSV"
		ratios="$ratios${ratios:+, }${name%% (*} $pct%"
	done <<EOF_FIGURES
$figures
EOF_FIGURES
	[ $n -eq $BENCH_LINES ] ||
		fail "$t guest: $n 'bench: ... SMP form ... UP form' lines, expected $BENCH_LINES"
	note "$t guest: clock resolution $res ns, SMP/UP $ratios"
	summary="$summary${summary:+; }$t: clock resolution $res ns, SMP/UP $ratios"
	guest_destroy
	# Sent by its type's name; removed, so that the runner does not send
	# the last type's again as console-smpalt-bench-locks.log.
	send_back "console-$GUEST-$t.log" "$CONSOLE_LOG"
	rm -f "$CONSOLE_LOG"
}

require_guest
echo "type,workload,smp_ns,up_ns,resolution_ns" >"$CSV"
summary=
for t in $TYPES; do
	bench_type "$t"
done
echo "--- $CSV"
cat "$CSV"
send_back bench-locks.csv "$CSV"
result SUCCESS "$summary"
