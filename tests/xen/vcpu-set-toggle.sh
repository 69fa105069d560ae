# Scenario vcpu-set-toggle: fifteen round trips UP -> SMP -> UP under load,
# each switch timed, and the counters exact at the end.
# Input: xl create (vcpus=1, maxvcpus=4), demand 300; then TOGGLES times
# xl vcpu-set 2 and xl vcpu-set 1, each time waiting until dom0 sees the
# new data/smpalt/online.
# Expected: every step within STEP_TIMEOUT, mode smp on 2 and up on 1;
# data/smpalt/switches grows by exactly 2 * TOGGLES (one per step); after
# boot and after each step Xen's count of online vCPUs (xl vcpu-list)
# equals online and no UP text runs while Xen has a secondary up
# (check_xen_view); the domain never crashes; no alarming console line
# (console_alarm); the counters check answers ok with items > 0.
# Figures (log and result): vcpu-set -> new online seen from dom0, in ms
# from /proc/uptime (10 ms resolution), min/median/max per direction; the
# in-guest switch duration (data/smpalt/last-switch-ns) per direction.

BOOT_TIMEOUT=60
# Steps took up to 9.5 s on a loaded machine: room for a busy one.
STEP_TIMEOUT=45
WORKLOAD_TIMEOUT=30
DEMAND=300
TOGGLES=15
SMP_COUNT=2
UP_COUNT=1

boot_under_load $DEMAND $BOOT_TIMEOUT $STEP_TIMEOUT $WORKLOAD_TIMEOUT
first_switches=$SWITCHES switches=$SWITCHES last_ns=$LAST_NS

lat_smp='' lat_up='' ns_smp='' ns_up=''
# step COUNT ROUND: one vcpu-set, timed until dom0 sees online=COUNT.
step() {
	switches=$((switches + 1))
	vcpu_set_step "$1" $switches "$last_ns" $STEP_TIMEOUT \
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
while [ $round -le $TOGGLES ]; do
	step $SMP_COUNT $round
	step $UP_COUNT $round
	alarm=$(console_alarm) && fail "round $round: guest console: $alarm"
	round=$((round + 1))
done
note "$TOGGLES rounds of vcpu-set $SMP_COUNT/$UP_COUNT done"

grown=$((SWITCHES - first_switches))
[ $grown -eq $((2 * TOGGLES)) ] ||
	fail "switches grew by $grown, expected $((2 * TOGGLES))"
alarm=$(console_alarm) && fail "guest console: $alarm"
counters_ok "after $TOGGLES toggles"
guest_running || fail "domain state '$(domain_state)' after the check"

# shellcheck disable=SC2086 # lists of numbers
figures="vcpu-set->online ms min/med/max: to $SMP_COUNT $(stats_mmm $lat_smp), to $UP_COUNT $(stats_mmm $lat_up); switch ns min/med/max: to-smp $(stats_mmm $ns_smp), to-up $(stats_mmm $ns_up)"
note "figures: $figures"
log "vcpu-set $SMP_COUNT ms:$lat_smp"
log "vcpu-set $UP_COUNT ms:$lat_up"
log "to-smp ns:$ns_smp"
log "to-up ns:$ns_up"
guest_destroy
result SUCCESS "$TOGGLES x vcpu-set $SMP_COUNT/$UP_COUNT under demand $DEMAND: switches +$grown, counters ok items=$CHECK_ITEMS; $figures"
