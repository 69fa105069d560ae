# Scenario bench-vcpu (make bench): the cost of an `xl vcpu-set` for smpalt.
# Input: xl create (vcpus=1, maxvcpus=4), wait for "smpalt: ready", then
# ROUNDS rounds of `xl vcpu-set -i` through STEPS (1->2, 2->1, 1->4, 4->1).
# Measured per step, into bench-vcpu.csv (sent to the host):
#   latency_s  from just before `xl vcpu-set` until dom0 sees
#              data/smpalt/online hold the new count (smpalt-xs-stamp,
#              tests/bench/xs_stamp.c, stamps the watch event on arrival);
#   xl_s       how long the `xl vcpu-set` command itself took;
#   switch_ns  data/smpalt/last-switch-ns once data/smpalt/switches has
#              grown: the guest's own UP<->SMP switch duration;
#   reaction_ms  the stamper's time from xl's write of cpu/N/availability
#              to the guest's write of data/smpalt/online=N: the guest's own
#              reaction, free of the xl command (one dom0 clock, µs).
# Expected: every step reaches its count within STEP_TIMEOUT, switches
# grows each time and Xen's view (xl vcpu-list) equals the guest's after
# each step (check_xen_view), no alarming console line; otherwise FAILURE. Not in the default set (bench-*).
# smpalt.bench.rounds=N on the dom0 command line overrides ROUNDS.

BOOT_TIMEOUT=60
STEP_TIMEOUT=30
SWITCH_TIMEOUT=10
ROUNDS=5
STEPS="2 1 4 1"
CSV=$RESULTS_DIR/bench-vcpu.csv

ROUNDS=$(cmdline_value 'smpalt\.bench\.rounds' $ROUNDS)

# wait_switches_above N: wait until data/smpalt/switches > N.
wait_switches_above() {
	local n=$1 end s
	end=$(($(uptime_cs) + SWITCH_TIMEOUT * CS_PER_SEC))
	while :; do
		s=$(xs_read_guest data/smpalt/switches)
		[ "$s" -gt "$n" ] 2>/dev/null && return 0
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $POLL_USEC
	done
}

trap stamp_stop EXIT
guest_boot $BOOT_TIMEOUT
wait_for_xs data/smpalt/mode up $STEP_TIMEOUT ||
	fail "data/smpalt/mode is '$(xs_read_guest data/smpalt/mode)' at boot, expected up"
stamp_start
echo "system,round,from,to,direction,xl_s,latency_s,switch_ns,sites,reaction_ms" >"$CSV"

from=1
steps=0
round=1
while [ "$round" -le "$ROUNDS" ]; do
	for n in $STEPS; do
		if [ "$n" -gt 1 ]; then dir=up-smp; else dir=smp-up; fi
		switches=$(xs_read_guest data/smpalt/switches) ||
			fail "guest never wrote data/smpalt/switches"
		mark=$(stamp_mark)
		t0=$(uptime_cs)
		xl vcpu-set -i "$GUEST" "$n" || fail "xl vcpu-set -i $GUEST $n failed"
		t_xl=$(uptime_cs)
		wait_stamp_step "$mark" "$n" $STEP_TIMEOUT ||
			fail "round $round, $from->$n: no data/smpalt/online=$n event after xl's within ${STEP_TIMEOUT}s"
		wait_switches_above "$switches" ||
			fail "round $round, $from->$n: switches stayed $switches"
		ns=$(xs_read_guest data/smpalt/last-switch-ns)
		sites=$(xs_read_guest data/smpalt/sites)
		lat=$(cs_to_s $((ONLINE_NS / NS_PER_CS - t0)))
		react=$(us_to_ms $REACT_US)
		echo "smpalt,$round,$from,$n,$dir,$(cs_to_s $((t_xl - t0))),$lat,$ns,$sites,$react" >>"$CSV"
		note "round $round $from->$n: online after $lat s, reaction $react ms, switch $ns ns ($sites sites)"
		check_xen_view "round $round, $from->$n"
		from=$n
		steps=$((steps + 1))
	done
	round=$((round + 1))
done
stamp_stop

echo "--- $CSV"
cat "$CSV"
echo "--- event stamps (CLOCK_BOOTTIME ns, path, value)"
cat "$STAMP_LOG"
send_back bench-vcpu.csv "$CSV"
alarm=$(console_alarm) && fail "guest console: $alarm"
guest_destroy
result SUCCESS "$steps vcpu-set steps in $ROUNDS rounds of $STEPS measured"
