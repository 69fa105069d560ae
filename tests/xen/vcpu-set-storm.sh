# Scenario vcpu-set-storm: a burst of vcpu-set calls with random targets,
# sent without waiting, leaves the guest settled on the last one, with its
# counters exact.
# guests: smpalt linux debian
# Input: the guest started with vcpus=1, maxvcpus=4 under its load
# (guest_start_up: smpalt demand 300, Linux smpalt.stress=1); for the
# smpalt guest first ECHO_WRITES (30) writes of distinct tokens to
# control/smpalt/echo in one burst (the Linux guest has no echo key); then
# CALLS (smpalt 30, Linux 20) calls of xl vcpu-set with targets drawn at
# random in 1..MAXVCPUS (-i above the host's CPUs), back to back (the
# sequence is in the log).
# Expected: data/smpalt/echo ends on the last token; within the guest's
# settle limit data/smpalt/online equals the last target, mode matches it
# (smp iff > 1), and online, mode and switches then hold still
# (wait_stable); switches grew by at most the number of mode changes
# requested, and by an odd number exactly when the final mode is smp
# (check_switch_parity); after boot and once settled Xen's count of online
# vCPUs (xl vcpu-list) equals online, never UP text while Xen has a
# secondary up (check_xen_view); the guest is clean (guest_clean: the
# domain runs, no alarming console line, for Linux refused 0); the
# counters check answers ok with items > 0.
# Figures: echo settle time, burst length, settle time after the first and
# the last call.

# The burst takes about 1 s per xl call under TCG (2 s on a busy machine);
# the settle limit leaves room for a FAILURE with its reason within the
# runner's limit (XEN_SCENARIO_TIMEOUT).
SETTLE_TIMEOUT=$(guest_param settle_timeout)
CALLS=$(guest_pick smpalt=30 linux=20 debian=20)
ECHO_WRITES=$(guest_pick smpalt=30 linux=0 debian=0)
MAXVCPUS=4 # xl-configs/smpalt.cfg, xl-configs/linux-smpalt.cfg

guest_start_up
first_switches=$SWITCHES
host_cpus >/dev/null # ask xl info before the burst, not during it

# A watch storm first: ECHO_WRITES distinct tokens to control/smpalt/echo
# in one xenstore-write, each pair a write of its own; data/smpalt/echo
# must end on the last one.
echo_figure=
if [ "$ECHO_WRITES" -gt 0 ]; then
	prefix=$(random_token)
	set --
	i=1
	while [ $i -le "$ECHO_WRITES" ]; do
		set -- "$@" "$(xs_guest_path control/smpalt/echo)" "$prefix-$i"
		i=$((i + 1))
	done
	start=$(uptime_cs)
	xenstore-write "$@" || fail "the burst of $ECHO_WRITES echo writes failed"
	wait_for_xs data/smpalt/echo "$prefix-$ECHO_WRITES" "$SETTLE_TIMEOUT" ||
		fail "after $ECHO_WRITES echo writes, data/smpalt/echo is '$(xs_read_guest data/smpalt/echo)', expected '$prefix-$ECHO_WRITES'"
	echo_ms=$((($(uptime_cs) - start) * CS_TO_MS))
	note "echo storm of $ECHO_WRITES writes settled on the last token in $echo_ms ms"
	echo_figure="echo x$ECHO_WRITES settled in $echo_ms ms; "
fi

# The targets, drawn up front so that the burst itself is only xl calls.
targets='' i=0 prev_mode=up mode_changes=0 n=1
while [ $i -lt "$CALLS" ]; do
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

wait_online "$final" "$SETTLE_TIMEOUT" ||
	fail "after the burst: online is '$ONLINE' ${SETTLE_TIMEOUT}s on, expected $final (last target)"
wait_stable "$final" "$final" "$SETTLE_TIMEOUT" ||
	fail "after the burst: never settled on online=$final mode=$want within ${SETTLE_TIMEOUT}s (online='$ONLINE' mode='$MODE' switches='$SWITCHES')"
settle_ms=$(((STABLE_CS - start) * CS_TO_MS))
after_last_ms=$(((STABLE_CS - last_call) * CS_TO_MS))
grown=$((SWITCHES - first_switches))
check_switch_parity $grown $mode_changes "$want"
check_xen_view "settled after the burst"
guest_clean "settled after the burst"
guest_counters_ok "after the burst"

note "settled on online=$final mode=$want ${settle_ms} ms after the first vcpu-set, $after_last_ms ms after the last (burst took $burst_ms ms), switches +$grown"
guest_destroy
result SUCCESS "$echo_figure$CALLS random vcpu-set (last $final) under $(guest_param load) settled: online=$final mode=$want, Xen agreed, $after_last_ms ms after the last call (burst $burst_ms ms), switches +$grown of $mode_changes requested changes, counters ok items=$CHECK_ITEMS"
