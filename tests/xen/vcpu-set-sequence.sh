# Scenario vcpu-set-sequence: the guest follows a sequence of `xl vcpu-set`
# while its workload runs, and its lock-heavy counters stay exact.
# Input: xl create (vcpus=1, maxvcpus=4), demand 300 (work for 3 vCPUs)
# in control/smpalt/demand; then xl vcpu-set 2, 4, 1, 3, 1 (-i above the
# host's CPUs), each after the previous one is seen from dom0.
# Expected after each step, within STEP_TIMEOUT: data/smpalt/online equals
# the count, data/smpalt/mode is smp for more than one vCPU and up for one
# (mode is written before online, so it must already match), switches
# grows by exactly one at each UP<->SMP change and stays put otherwise;
# Xen's count of online vCPUs (xl vcpu-list) equals online, never UP text
# while Xen has a secondary up (check_xen_view, after boot and after each
# step); the domain never crashes; no alarming console line
# (console_alarm: refused or failed switch, fatal trap). At the end
# the counters check (control/smpalt/check) answers ok with items > 0.
# Figures: vcpu-set -> new online seen from dom0 (ms, per step) and the
# in-guest switch duration (data/smpalt/last-switch-ns) per direction.

BOOT_TIMEOUT=60
STEP_TIMEOUT=45
WORKLOAD_TIMEOUT=30
DEMAND=300
STEPS="2 4 1 3 1"

boot_under_load $DEMAND $BOOT_TIMEOUT $STEP_TIMEOUT $WORKLOAD_TIMEOUT

mode=up switches=0 last_ns=$LAST_NS
lat_ms='' to_smp_ns='' to_up_ns='' steps_done=''
for n in $STEPS; do
	want=$(mode_for "$n")
	old_ns=''
	if [ "$want" != "$mode" ]; then
		switches=$((switches + 1))
		old_ns=$last_ns # a switch: wait for its new duration too
	fi
	vcpu_set_step "$n" $switches "$old_ns" $STEP_TIMEOUT
	lat_ms="$lat_ms $STEP_MS"
	if [ -n "$old_ns" ] && [ "$want" = smp ]; then
		to_smp_ns="$to_smp_ns $LAST_NS"
	elif [ -n "$old_ns" ]; then
		to_up_ns="$to_up_ns $LAST_NS"
	fi
	guest_running || fail "vcpu-set $n: domain state '$(domain_state)'"
	check_xen_view "vcpu-set $n"
	alarm=$(console_alarm) && fail "vcpu-set $n: guest console: $alarm"
	note "vcpu-set $n: online=$n mode=$MODE switches=$SWITCHES last-switch-ns=$LAST_NS, seen ${STEP_MS} ms after vcpu-set"
	mode=$want last_ns=$LAST_NS steps_done="$steps_done $n"
done

alarm=$(console_alarm) && fail "guest console: $alarm"
counters_ok "after vcpu-set$steps_done"
guest_running || fail "domain state '$(domain_state)' after the check"

# shellcheck disable=SC2086 # lists of numbers
figures="vcpu-set->online ms $(stats_mmm $lat_ms) (min/med/max); switch ns to-smp $(stats_mmm $to_smp_ns), to-up $(stats_mmm $to_up_ns)"
note "figures: per step ms:$lat_ms; to-smp ns:$to_smp_ns; to-up ns:$to_up_ns"
guest_destroy
result SUCCESS "vcpu-set$steps_done under demand $DEMAND: online/mode matched, switches=$switches, counters ok items=$CHECK_ITEMS; $figures"
