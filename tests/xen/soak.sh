# Scenario soak: many random `xl vcpu-set` under a workload that keeps
# every vCPU busy; at every settled step the guest's view matches Xen's,
# and at the end the counters are exact.
# Input: xl create (vcpus=1, maxvcpus=4), demand 100 per possible vCPU;
# then STEPS calls of xl vcpu-set (-i above the host's CPUs) with targets
# drawn in 1..MAXVCPUS from a seeded generator (rng_seed in lib.sh); for
# each call the generator also decides whether to wait for the guest to
# settle before the next call (about half the calls) or to go on at once;
# the last call is always waited for. STEPS and SEED come from the dom0
# command line (smpalt.soak.n=, smpalt.soak.seed=; `make soak N= SEED=`);
# the same seed gives the same calls.
# Expected at each waited call, within STEP_TIMEOUT: data/smpalt/online is
# the target and mode is smp iff online > 1, both unchanged (with
# switches) for SETTLE_HOLD_CS (wait_stable), then check_xen_view: Xen's count of online
# vCPUs (xl vcpu-list) equals online and no UP text while Xen has a
# secondary up; no alarming console line (console_alarm). At the end:
# switches grew by at most the mode changes requested, by an odd number
# exactly when the last target is above 1; the counters check answers ok
# with items > 0; the domain runs.
# Figures: transitions (calls whose target differs from the one before)
# and mode switches, each per minute of the time that passed from the
# first call to the last settle; settle time (the call to the first read
# of the state that then held) min/median/max in ms.

BOOT_TIMEOUT=90
STEP_TIMEOUT=45
WORKLOAD_TIMEOUT=30
CHECK_TIMEOUT=60
MAXVCPUS=4 # xl-configs/smpalt.cfg
DEMAND=$((MAXVCPUS * 100))
DEFAULT_STEPS=50
CS_PER_MIN=6000

STEPS=$(cmdline_value 'smpalt\.soak\.n' $DEFAULT_STEPS)
SEED=$(cmdline_value 'smpalt\.soak\.seed')
# shellcheck disable=SC3028 # busybox ash has RANDOM (unseeded)
[ -n "$SEED" ] || SEED=$((RANDOM * 32768 + RANDOM))
case $STEPS$SEED in
*[!0-9]*) result ERROR "bad smpalt.soak.n='$STEPS' or smpalt.soak.seed='$SEED' (integers)" ;;
esac
[ "$STEPS" -ge 1 ] || result ERROR "smpalt.soak.n=$STEPS: at least one step"
note "seed $SEED, $STEPS steps (vcpus 1..$MAXVCPUS, demand $DEMAND)"

# per_min COUNT CS: COUNT per minute over CS centiseconds, one decimal.
per_min() {
	local tenths=$(($1 * CS_PER_MIN * 10 / $2))
	printf '%d.%d' $((tenths / 10)) $((tenths % 10))
}

boot_under_load $DEMAND $BOOT_TIMEOUT $STEP_TIMEOUT $WORKLOAD_TIMEOUT
host_cpus >/dev/null # ask xl info once, before the calls
first_switches=$SWITCHES

rng_seed "$SEED"
i=1 prev=1 transitions=0 mode_changes=0 waited=0 settle_ms=''
begin=$(uptime_cs)
while [ "$i" -le "$STEPS" ]; do
	rng_below $MAXVCPUS
	target=$((RNG_VALUE + 1))
	rng_below 2
	wait_now=$RNG_VALUE
	[ "$i" -lt "$STEPS" ] || wait_now=1
	[ "$target" = "$prev" ] || transitions=$((transitions + 1))
	[ "$(mode_for "$target")" = "$(mode_for "$prev")" ] ||
		mode_changes=$((mode_changes + 1))
	prev=$target
	start=$(uptime_cs)
	vcpu_set "$target" || fail "step $i: xl vcpu-set $GUEST $target failed"
	if [ "$wait_now" = 0 ]; then
		log "step $i: vcpu-set $target (not waited for)"
		i=$((i + 1))
		continue
	fi
	if ! wait_stable "$target" "$target" $STEP_TIMEOUT; then
		guest_running || fail "step $i: vcpu-set $target: domain state '$(domain_state)'"
		fail "step $i: vcpu-set $target: not settled after ${STEP_TIMEOUT}s: online='$ONLINE' mode='$MODE' switches='$SWITCHES'"
	fi
	ms=$(((STABLE_CS - start) * CS_TO_MS))
	settle_ms="$settle_ms $ms"
	waited=$((waited + 1))
	check_xen_view "step $i: vcpu-set $target, settled in $ms ms"
	alarm=$(console_alarm) && fail "step $i: guest console: $alarm"
	[ $((waited % 25)) -ne 0 ] ||
		note "step $i of $STEPS: online=$ONLINE mode=$MODE switches=$SWITCHES (Xen: $XEN_ONLINE)"
	i=$((i + 1))
done
elapsed_cs=$((STABLE_CS - begin))
[ "$elapsed_cs" -gt 0 ] || elapsed_cs=1

grown=$((SWITCHES - first_switches))
check_switch_parity $grown $mode_changes "$MODE"
alarm=$(console_alarm) && fail "guest console: $alarm"
counters_ok "after $STEPS steps" $CHECK_TIMEOUT
guest_running || fail "domain state '$(domain_state)' after the check"

secs=$(cs_to_s $elapsed_cs)
# shellcheck disable=SC2086 # a list of numbers
figures="$transitions transitions ($(per_min $transitions $elapsed_cs)/min), $grown mode switches ($(per_min $grown $elapsed_cs)/min) in $secs s; settle ms min/med/max $(stats_mmm $settle_ms) over $waited waited steps"
note "figures: $figures"
log "settle ms:$settle_ms"
guest_destroy
result SUCCESS "seed $SEED: $STEPS vcpu-set ($waited waited), Xen's view matched at each; $figures; counters ok items=$CHECK_ITEMS"
