# Scenario linux-vcpu-set-storm: a burst of `xl vcpu-set` calls with random
# targets, sent without waiting, leaves the patched Linux 6.1 guest settled
# on the last one, with its counters exact.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4, smpalt.stress=1);
# then CALLS calls of xl vcpu-set with targets drawn at random in
# 1..MAXVCPUS (-i above the host's CPUs), back to back (the sequence is in
# the log).
# Expected: within SETTLE_TIMEOUT data/smpalt/online equals the last
# target, and online, mode (smp iff > 1) and switches then hold still
# (wait_stable); switches grew by at most the number of mode changes
# requested, and by an odd number exactly when the final mode is smp
# (check_switch_parity); Xen's count of online vCPUs (xl vcpu-list) equals
# online, never UP text while Xen has a secondary up (check_xen_view);
# refused stays 0, the domain runs, no alarming console line (linux_alarm);
# the counters check answers ok with items > 0.
# Figures: burst length, settle time after the first and the last call.

BOOT_TIMEOUT=120
# A step to 4 vCPUs (2 host CPUs) took 27 s on a loaded machine: room.
STEP_TIMEOUT=90
# The burst takes about 1 s per xl call under TCG (2 s on a busy machine),
# and the kernel works through the hotplug events one by one after it.
SETTLE_TIMEOUT=120
CALLS=20
MAXVCPUS=4 # xl-configs/linux-smpalt.cfg

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT
first_switches=$SWITCHES
host_cpus >/dev/null # ask xl info before the burst, not during it

# The targets, drawn up front so that the burst itself is only xl calls.
targets='' i=0 prev_mode=up mode_changes=0 n=1
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

wait_online "$final" $SETTLE_TIMEOUT ||
	fail "after the burst: online is '$ONLINE' ${SETTLE_TIMEOUT}s on, expected $final (last target)"
wait_stable "$final" "$final" $SETTLE_TIMEOUT ||
	fail "after the burst: never settled on online=$final mode=$want within ${SETTLE_TIMEOUT}s (online='$ONLINE' mode='$MODE' switches='$SWITCHES')"
settle_ms=$(((STABLE_CS - start) * CS_TO_MS))
after_last_ms=$(((STABLE_CS - last_call) * CS_TO_MS))
grown=$((SWITCHES - first_switches))
check_switch_parity $grown $mode_changes "$want"
check_xen_view "settled after the burst"
linux_clean "settled after the burst"
counters_ok "after the burst"
linux_clean "after the counters check"

note "settled on online=$final mode=$want ${settle_ms} ms after the first vcpu-set, $after_last_ms ms after the last (burst took $burst_ms ms), switches +$grown"
guest_destroy
result SUCCESS "$CALLS random vcpu-set (last $final) settled: online=$final mode=$want, Xen agreed, $after_last_ms ms after the last call (burst $burst_ms ms), switches +$grown of $mode_changes requested changes, counters ok items=$CHECK_ITEMS"
