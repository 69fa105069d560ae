# Scenario bench-locks: the in-guest benchmark of the two forms of the text
# (make bench only, not in the default set of make test-xen).
# Input: xl create with extra="smpalt.bench=1" (one vCPU).
# Expected: the guest measures its clock's resolution ("bench: clock
# resolution <r> ns", r > 0), times each lock primitive (spinlock, atomic,
# refcount: 10000 operations) and one lock-heavy work item (best of 5
# alternating rounds) in the SMP and in the UP form, one "bench: <name>:
# SMP form <s> ns, UP form <u> ns, SMP/UP <x>" line each, then "Test
# result: SUCCESS smp <ns> up <ns> per item". A guest that found a timing
# implausible says "Test result: ERROR ..." and the scenario reports it.
# Each figure must be plausible: s > 0, u > 0 and s/u within
# [RATIO_MIN_PCT, RATIO_MAX_PCT] percent (the UP form drops lock
# prefixes: never much slower than SMP form, nor a thousand times faster).

BENCH_ARG="smpalt.bench=1"
TEST_TIMEOUT=90
BENCH_LINES=4 # spinlock, atomic, refcount, item
RATIO_MIN_PCT=50
RATIO_MAX_PCT=100000

require_guest
guest_create "extra=\"$BENCH_ARG\""
wait_for_console "Test result: " $TEST_TIMEOUT ||
	result ERROR "guest printed no 'Test result:' line within ${TEST_TIMEOUT}s"
verdict=$(grep -F "Test result: " "$CONSOLE_LOG" | tail -1 | tr -d '\r')
case $verdict in
*"Test result: SUCCESS "*) ;;
*) guest_test_result $TEST_TIMEOUT ;; # the guest's ERROR, as it said it
esac

res=$(tr -d '\r' <"$CONSOLE_LOG" | sed -n 's/.*bench: clock resolution \([0-9][0-9]*\) ns.*/\1/p' | head -1)
[ "${res:-0}" -gt 0 ] 2>/dev/null || fail "no plausible 'bench: clock resolution' line (got '$res')"
figures=$(tr -d '\r' <"$CONSOLE_LOG" |
	sed -n 's/.*bench: \(.*\): SMP form \([0-9][0-9]*\) ns, UP form \([0-9][0-9]*\) ns.*/\2 \3 \1/p')
n=0 summary=
while read -r smp up name; do
	[ -n "$smp" ] || continue
	n=$((n + 1))
	[ "$smp" -gt 0 ] && [ "$up" -gt 0 ] ||
		fail "$name: SMP form $smp ns, UP form $up ns: a zero timing"
	pct=$((smp * 100 / up))
	[ $pct -ge $RATIO_MIN_PCT ] && [ $pct -le $RATIO_MAX_PCT ] ||
		fail "$name: SMP form $smp ns, UP form $up ns: SMP/UP $pct% outside [$RATIO_MIN_PCT, $RATIO_MAX_PCT]%"
	summary="$summary${summary:+, }${name%% (*} $pct%"
done <<EOF_FIGURES
$figures
EOF_FIGURES
[ $n -eq $BENCH_LINES ] || fail "$n 'bench: ... SMP form ... UP form' lines, expected $BENCH_LINES"
result SUCCESS "clock resolution $res ns; SMP/UP: $summary"
