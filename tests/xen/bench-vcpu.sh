# Scenario bench-vcpu (make bench): the cost of an `xl vcpu-set` for smpalt.
# Input: xl create (vcpus=1, maxvcpus=4), wait for "smpalt: ready", then
# ROUNDS rounds of `xl vcpu-set -i` through STEPS (1->2, 2->1, 1->4, 4->1).
# Measured per step, into bench-vcpu.csv (sent to the host):
#   latency_s  from just before `xl vcpu-set` until dom0 sees
#              data/smpalt/online hold the new count (a xenstore watch on
#              the key, timestamped by dom0 when it fires);
#   xl_s       how long the `xl vcpu-set` command itself took;
#   switch_ns  data/smpalt/last-switch-ns once data/smpalt/switches has
#              grown: the guest's own UP<->SMP switch duration.
# Expected: every step reaches its count within STEP_TIMEOUT and switches
# grows each time; otherwise FAILURE. Not in the default set (bench-*).
# smpalt.bench.rounds=N on the dom0 command line overrides ROUNDS.

BOOT_TIMEOUT=60
STEP_TIMEOUT=30
SWITCH_TIMEOUT=10
ROUNDS=5
STEPS="2 1 4 1"
POLL_FOLLOW_USEC=20000
CSV=$RESULTS_DIR/bench-vcpu.csv
WATCH_FIFO=/tmp/bench-vcpu.fifo
WATCH_LOG=/tmp/bench-vcpu.watch

ROUNDS=$(cmdline_value 'smpalt\.bench\.rounds' $ROUNDS)

watch_stop() {
	[ -z "${WATCH_PID:-}" ] || kill "$WATCH_PID" 2>/dev/null
	[ -z "${READER_PID:-}" ] || kill "$READER_PID" 2>/dev/null
	WATCH_PID=
	READER_PID=
}

# Every change of data/smpalt/online, as "<dom0 uptime> <value>" lines in
# WATCH_LOG: the time is taken when the watch fires, before the read.
watch_online() {
	local path
	path=$(xs_guest_path data/smpalt/online)
	rm -f "$WATCH_FIFO" "$WATCH_LOG"
	mkfifo "$WATCH_FIFO" || fail "mkfifo $WATCH_FIFO failed"
	: >"$WATCH_LOG"
	xenstore-watch "$path" >"$WATCH_FIFO" 2>/dev/null &
	WATCH_PID=$!
	while IFS= read -r p; do
		read -r up _ </proc/uptime
		echo "$up $(xenstore-read "$p" 2>/dev/null)"
	done <"$WATCH_FIFO" >>"$WATCH_LOG" &
	READER_PID=$!
	exec 4<"$WATCH_LOG"
}

# wait_watched_online N SINCE_CS TIMEOUT: print the dom0 time (cs) of the
# first watch line at or after SINCE_CS with value N; 1 on timeout.
wait_watched_online() {
	local want=$1 since_cs=$2 end line t v frac
	end=$(($(uptime_cs) + $3 * CS_PER_SEC))
	while :; do
		while IFS= read -r line <&4; do
			t=${line%% *}
			v=${line#* }
			frac=${t#*.}
			frac=${frac#0}
			t=$((${t%.*} * CS_PER_SEC + frac))
			if [ "$v" = "$want" ] && [ "$t" -ge "$since_cs" ]; then
				echo "$t"
				return 0
			fi
		done
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $POLL_FOLLOW_USEC
	done
}

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

trap watch_stop EXIT
guest_boot $BOOT_TIMEOUT
wait_for_xs data/smpalt/mode up $STEP_TIMEOUT ||
	fail "data/smpalt/mode is '$(xs_read_guest data/smpalt/mode)' at boot, expected up"
watch_online
echo "system,round,from,to,direction,xl_s,latency_s,switch_ns,sites" >"$CSV"

from=1
steps=0
round=1
while [ "$round" -le "$ROUNDS" ]; do
	for n in $STEPS; do
		if [ "$n" -gt 1 ]; then dir=up-smp; else dir=smp-up; fi
		switches=$(xs_read_guest data/smpalt/switches) ||
			fail "guest never wrote data/smpalt/switches"
		t0=$(uptime_cs)
		xl vcpu-set -i "$GUEST" "$n" || fail "xl vcpu-set -i $GUEST $n failed"
		t_xl=$(uptime_cs)
		t_seen=$(wait_watched_online "$n" "$t0" $STEP_TIMEOUT) ||
			fail "round $round, $from->$n: data/smpalt/online never became $n within ${STEP_TIMEOUT}s"
		wait_switches_above "$switches" ||
			fail "round $round, $from->$n: switches stayed $switches"
		ns=$(xs_read_guest data/smpalt/last-switch-ns)
		sites=$(xs_read_guest data/smpalt/sites)
		lat=$(cs_to_s $((t_seen - t0)))
		echo "smpalt,$round,$from,$n,$dir,$(cs_to_s $((t_xl - t0))),$lat,$ns,$sites" >>"$CSV"
		note "round $round $from->$n: online after $lat s, switch $ns ns ($sites sites)"
		from=$n
		steps=$((steps + 1))
	done
	round=$((round + 1))
done
watch_stop

echo "--- $CSV"
cat "$CSV"
echo "--- watch log (dom0 uptime, data/smpalt/online)"
cat "$WATCH_LOG"
emit_file bench-vcpu.csv "$CSV" >/dev/console
grep -E "refus|mismatch|fatal" "$CONSOLE_LOG" &&
	fail "the guest console reports a refused switch or a fatal error"
guest_destroy
result SUCCESS "$steps vcpu-set steps in $ROUNDS rounds of $STEPS measured"
