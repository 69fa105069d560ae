# Scenario vcpu-set-toggle: round trips UP -> SMP -> UP under load, each
# switch timed, and the counters exact at the end.
# guests: smpalt linux debian
# limit: 600
# The limit, in seconds: its 15 rounds (smpalt) took 75 s on an idle
# 2-core host; beside a two-job kernel build, 13 rounds took 300 s.
# Input: the guest started with vcpus=1, maxvcpus=4 under its load
# (guest_start_up: smpalt demand 300, Linux smpalt.stress=1); then TOGGLES
# times (smpalt 15, Linux 5, Debian 3) xl vcpu-set 2 and xl vcpu-set 1, each time
# waiting until dom0 sees the new data/smpalt/online.
# Expected: every step within the guest's step limit, mode smp on 2 and up
# on 1, a new last-switch-ns each time; data/smpalt/switches grows by
# exactly 2 per round (2 * TOGGLES in all); after boot and after each step
# Xen's count of online vCPUs (xl vcpu-list) equals online and no UP text
# runs while Xen has a secondary up (check_xen_view); no alarming console
# line after any round (guest_alarm); at the end the guest is clean
# (guest_clean: no alarm, the domain runs, and for Linux refused 0, a
# count that only grows) and the counters check answers ok with items > 0.
# Figures (log and result): vcpu-set -> new online seen from dom0, in ms
# from /proc/uptime (10 ms resolution), min/median/max per direction; the
# in-guest switch duration (data/smpalt/last-switch-ns) per direction.

STEP_TIMEOUT=$(guest_param step_timeout)
TOGGLES=$(guest_pick smpalt=15 linux=5 debian=3)
SMP_COUNT=2
UP_COUNT=1

guest_start_up
first_switches=$SWITCHES switches=$SWITCHES last_ns=$LAST_NS

lat_smp='' lat_up='' ns_smp='' ns_up=''
# step COUNT ROUND: one vcpu-set, timed until dom0 sees online=COUNT.
step() {
	switches=$((switches + 1))
	vcpu_set_step "$1" $switches "$last_ns" "$STEP_TIMEOUT" \
		"round $2: vcpu-set $1"
	last_ns=$LAST_NS
	if [ "$MODE" = smp ]; then
		lat_smp="$lat_smp $STEP_MS" ns_smp="$ns_smp $LAST_NS"
	else
		lat_up="$lat_up $STEP_MS" ns_up="$ns_up $LAST_NS"
	fi
	log "round $2: vcpu-set $1: online=$1 mode=$MODE switches=$SWITCHES last-switch-ns=$LAST_NS, seen $STEP_MS ms after vcpu-set"
	check_xen_view "round $2: vcpu-set $1"
}

round=1
while [ $round -le "$TOGGLES" ]; do
	before=$switches
	step $SMP_COUNT $round
	step $UP_COUNT $round
	[ $((SWITCHES - before)) -eq 2 ] ||
		fail "round $round: switches grew by $((SWITCHES - before)), expected 2"
	# The console only: an xl call more per round costs seconds under TCG.
	alarm=$(guest_alarm) && fail "round $round: guest console: $alarm"
	note "round $round: to smp ${ns_smp##* } ns, to up ${ns_up##* } ns"
	round=$((round + 1))
done

grown=$((SWITCHES - first_switches))
[ $grown -eq $((2 * TOGGLES)) ] ||
	fail "switches grew by $grown, expected $((2 * TOGGLES))"
guest_clean "after $TOGGLES round trips"
guest_counters_ok "after $TOGGLES round trips"

# shellcheck disable=SC2086 # lists of numbers
figures="vcpu-set->online ms min/med/max: to $SMP_COUNT $(stats_mmm $lat_smp), to $UP_COUNT $(stats_mmm $lat_up); switch ns min/med/max: to-smp $(stats_mmm $ns_smp), to-up $(stats_mmm $ns_up)"
note "figures: $figures"
log "vcpu-set $SMP_COUNT ms:$lat_smp"
log "vcpu-set $UP_COUNT ms:$lat_up"
log "to-smp ns:$ns_smp"
log "to-up ns:$ns_up"
guest_destroy
result SUCCESS "$TOGGLES x vcpu-set $SMP_COUNT/$UP_COUNT under $(guest_param load): switches +$grown, Xen agreed at each step, counters ok items=$CHECK_ITEMS; $figures"
