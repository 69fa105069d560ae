# Scenario linux-vcpu-set-sequence: the patched Linux 6.1 guest follows a
# sequence of `xl vcpu-set` up to its maxvcpus and back, onlining and
# offlining the vCPUs itself, and its lock-heavy counters stay exact.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4, smpalt.stress=1:
# locked increments on every online CPU); then xl vcpu-set 2, 3, 4, 3, 2,
# 1, 4, 1 (-i above the host's CPUs), each after the previous one is seen
# from dom0.
# Expected after each step, within STEP_TIMEOUT: data/smpalt/online equals
# the count, mode is smp for more than one vCPU and up for one, switches
# grows by exactly one at each UP<->SMP change and stays put otherwise
# (with a new last-switch-ns at each switch); Xen's count of online vCPUs
# (xl vcpu-list) equals online, never UP text while Xen has a secondary up
# (check_xen_view); refused stays 0, the domain runs, no alarming console
# line (linux_alarm). At the end the counters check answers ok with
# items > 0.
# Figures: vcpu-set -> new online seen from dom0 (ms, per step) and the
# in-guest switch duration (data/smpalt/last-switch-ns) per direction.

BOOT_TIMEOUT=120
# A step to 4 vCPUs (2 host CPUs) took 27 s on a loaded machine: room.
STEP_TIMEOUT=90
STEPS="2 3 4 3 2 1 4 1"

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT
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
	check_xen_view "vcpu-set $n"
	linux_clean "vcpu-set $n"
	note "vcpu-set $n: online=$n mode=$MODE switches=$SWITCHES last-switch-ns=$LAST_NS, seen ${STEP_MS} ms after vcpu-set"
	mode=$want last_ns=$LAST_NS steps_done="$steps_done $n"
done

counters_ok "after vcpu-set$steps_done"
linux_clean "after the counters check"

# shellcheck disable=SC2086 # lists of numbers
figures="vcpu-set->online ms $(stats_mmm $lat_ms) (min/med/max); switch ns to-smp $(stats_mmm $to_smp_ns), to-up $(stats_mmm $to_up_ns)"
note "figures: per step ms:$lat_ms; to-smp ns:$to_smp_ns; to-up ns:$to_up_ns"
guest_destroy
result SUCCESS "vcpu-set$steps_done: online/mode matched, Xen agreed, switches=$switches, counters ok items=$CHECK_ITEMS; $figures"
