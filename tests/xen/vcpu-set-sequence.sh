# Scenario vcpu-set-sequence: the guest follows a sequence of `xl vcpu-set`
# up to its maxvcpus and back while its load runs, and its lock-heavy
# counters stay exact.
# guests: smpalt linux debian
# Input: the guest started with vcpus=1, maxvcpus=4 under its load
# (guest_start_up: smpalt demand 300, work for 3 vCPUs; Linux
# smpalt.stress=1, locked increments on every online CPU); then xl vcpu-set
# to each count of STEPS (smpalt 2, 4, 1, 3, 1; Linux 2, 3, 4, 3, 2, 1, 4,
# 1; -i above the host's CPUs), each after the previous one is seen from
# dom0.
# Expected after each step, within the guest's step limit:
# data/smpalt/online equals the count, mode is smp for more than one vCPU
# and up for one, switches grows by exactly one at each UP<->SMP change and
# stays put otherwise (with a new last-switch-ns at each switch); Xen's
# count of online vCPUs (xl vcpu-list) equals online, never UP text while
# Xen has a secondary up (check_xen_view, after boot and after each step);
# the guest is clean (guest_clean: the domain runs, no alarming console
# line, for Linux refused 0). At the end the counters check
# (control/smpalt/check) answers ok with items > 0.
# Figures: vcpu-set -> new online seen from dom0 (ms, per step) and the
# in-guest switch duration (data/smpalt/last-switch-ns) per direction.

STEP_TIMEOUT=$(guest_param step_timeout)
STEPS=$(guest_pick "smpalt=2 4 1 3 1" "linux=2 3 4 3 2 1 4 1" "debian=2 3 4 3 2 1 4 1")

guest_start_up
mode=up switches=0 last_ns=$LAST_NS
lat_ms='' to_smp_ns='' to_up_ns='' steps_done=''
for n in $STEPS; do
	want=$(mode_for "$n")
	old_ns=''
	if [ "$want" != "$mode" ]; then
		switches=$((switches + 1))
		old_ns=$last_ns # a switch: wait for its new duration too
	fi
	vcpu_set_step "$n" $switches "$old_ns" "$STEP_TIMEOUT"
	lat_ms="$lat_ms $STEP_MS"
	if [ -n "$old_ns" ] && [ "$want" = smp ]; then
		to_smp_ns="$to_smp_ns $LAST_NS"
	elif [ -n "$old_ns" ]; then
		to_up_ns="$to_up_ns $LAST_NS"
	fi
	check_xen_view "vcpu-set $n"
	guest_clean "vcpu-set $n"
	note "vcpu-set $n: online=$n mode=$MODE switches=$SWITCHES last-switch-ns=$LAST_NS, seen ${STEP_MS} ms after vcpu-set"
	mode=$want last_ns=$LAST_NS steps_done="$steps_done $n"
done

guest_counters_ok "after vcpu-set$steps_done"

# shellcheck disable=SC2086 # lists of numbers
figures="vcpu-set->online ms $(stats_mmm $lat_ms) (min/med/max); switch ns to-smp $(stats_mmm $to_smp_ns), to-up $(stats_mmm $to_up_ns)"
note "figures: per step ms:$lat_ms; to-smp ns:$to_smp_ns; to-up ns:$to_up_ns"
guest_destroy
result SUCCESS "vcpu-set$steps_done under $(guest_param load): online/mode matched, Xen agreed, switches=$switches, counters ok items=$CHECK_ITEMS; $figures"
