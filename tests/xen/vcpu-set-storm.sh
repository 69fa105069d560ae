# Scenario vcpu-set-storm: a burst of vcpu-set calls with random targets,
# sent without waiting, leaves the guest settled on the last one, with its
# counters exact.
# Input: xl create (vcpus=1, maxvcpus=4), demand 300; ECHO_WRITES writes
# of distinct tokens to control/smpalt/echo in one burst; then CALLS calls of
# xl vcpu-set with targets drawn at random in 1..MAXVCPUS (-i above the
# host's CPUs), back to back (the sequence is in the log).
# Expected: data/smpalt/echo ends on the last token; within SETTLE_TIMEOUT
# data/smpalt/online equals the last target and mode matches it (smp iff
# > 1), and both still hold STABLE_SECONDS later; switches grew by at most the number of mode
# changes requested, and by an odd number exactly when the final mode
# differs from the first; after boot and once settled Xen's count of online
# vCPUs (xl vcpu-list) equals online, never UP text while Xen has a
# secondary up (check_xen_view); the domain never crashes; no alarming
# console line (console_alarm); the counters check answers ok with
# items > 0.

BOOT_TIMEOUT=60
# The burst itself takes about 1 s per xl call under TCG (2 s on a busy
# machine): the settle limit leaves room for a FAILURE with its reason
# within the runner's limit (XEN_SCENARIO_TIMEOUT).
SETTLE_TIMEOUT=45
STABLE_SECONDS=2
WORKLOAD_TIMEOUT=30
DEMAND=300
CALLS=30
ECHO_WRITES=30
MAXVCPUS=4 # xl-configs/smpalt.cfg

boot_under_load $DEMAND $BOOT_TIMEOUT $SETTLE_TIMEOUT $WORKLOAD_TIMEOUT
first_switches=$SWITCHES
host_cpus >/dev/null # ask xl info before the burst, not during it

# A watch storm first (from the old storm scenario): ECHO_WRITES distinct
# tokens to control/smpalt/echo in one xenstore-write, each pair a write of
# its own; data/smpalt/echo must end on the last one.
prefix=$(random_token)
set --
i=1
while [ $i -le $ECHO_WRITES ]; do
	set -- "$@" "$(xs_guest_path control/smpalt/echo)" "$prefix-$i"
	i=$((i + 1))
done
start=$(uptime_cs)
xenstore-write "$@" || fail "the burst of $ECHO_WRITES echo writes failed"
wait_for_xs data/smpalt/echo "$prefix-$ECHO_WRITES" $SETTLE_TIMEOUT ||
	fail "after $ECHO_WRITES echo writes, data/smpalt/echo is '$(xs_read_guest data/smpalt/echo)', expected '$prefix-$ECHO_WRITES'"
echo_ms=$((($(uptime_cs) - start) * CS_TO_MS))
note "echo storm of $ECHO_WRITES writes settled on the last token in $echo_ms ms"

# The targets, drawn up front so that the burst itself is only xl calls.
targets='' i=0 prev_mode=up mode_changes=0
while [ $i -lt $CALLS ]; do
	# shellcheck disable=SC3028 # busybox ash has RANDOM
	n=$((RANDOM % MAXVCPUS + 1))
	targets="$targets $n"
	m=$(mode_for $n)
	[ "$m" = "$prev_mode" ] || mode_changes=$((mode_changes + 1))
	prev_mode=$m
	i=$((i + 1))
done
final=$n
want=$(mode_for "$final")
note "burst of $CALLS vcpu-set:$targets ($mode_changes mode changes requested)"

start=$(uptime_cs)
for n in $targets; do
	vcpu_set "$n" || fail "xl vcpu-set $GUEST $n failed during the burst"
done
last_call=$(uptime_cs)
burst_ms=$(((last_call - start) * CS_TO_MS))
log "burst sent in $burst_ms ms"

wait_online $final $SETTLE_TIMEOUT ||
	fail "after the burst: online is '$ONLINE' ${SETTLE_TIMEOUT}s on, expected $final (last target)"
settle_ms=$(((SEEN_CS - start) * CS_TO_MS))
after_last_ms=$(((SEEN_CS - last_call) * CS_TO_MS))
sleep $STABLE_SECONDS
vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode data/smpalt/switches)
# shellcheck disable=SC2086 # three words on purpose
set -- $vals
[ "${1:-}" = "$final" ] && [ "${2:-}" = "$want" ] ||
	fail "${STABLE_SECONDS}s after settling: online='${1:-}' mode='${2:-}', expected $final $want"
grown=$((${3:-0} - first_switches))
check_switch_parity $grown $mode_changes "$want"
guest_running || fail "domain state '$(domain_state)' after the burst"
check_xen_view "settled after the burst"
alarm=$(console_alarm) && fail "guest console: $alarm"
counters_ok "after the burst"

note "settled on online=$final mode=$want ${settle_ms} ms after the first vcpu-set, $after_last_ms ms after the last (burst took $burst_ms ms), switches +$grown"
guest_destroy
result SUCCESS "echo x$ECHO_WRITES settled in $echo_ms ms; $CALLS random vcpu-set (last $final) settled: online=$final mode=$want $after_last_ms ms after the last call (burst $burst_ms ms), switches +$grown of $mode_changes requested changes, counters ok items=$CHECK_ITEMS"
