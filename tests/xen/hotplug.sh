# Scenario hotplug: the guest follows `xl vcpu-set` and rewrites its text
# between UP and SMP form each way.
# Input: xl create (vcpus=1, maxvcpus=4), wait for "smpalt: ready", then
# xl vcpu-set 2, 1, 4 (-i: above the host's 2 CPUs), 1.
# Expected after each step, within STEP_TIMEOUT: data/smpalt/online equals
# the vCPU count, data/smpalt/mode is smp for more than one vCPU and up for
# one, and data/smpalt/switches grows at every UP<->SMP change.

READY="smpalt: ready"
BOOT_TIMEOUT=60
STEP_TIMEOUT=30
# vCPU counts to go through, in order (first is the boot count).
STEPS="2 1 4 1"

require_guest
guest_create
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"
wait_for_xs data/smpalt/mode up $STEP_TIMEOUT ||
	fail "data/smpalt/mode is '$(xs_read_guest data/smpalt/mode)' at boot, expected up"
switches=$(xs_read_guest data/smpalt/switches) || fail "guest never wrote data/smpalt/switches"
mode=up

for n in $STEPS; do
	if [ "$n" -gt 1 ]; then want=smp; else want=up; fi
	start=$(now_cs)
	xl vcpu-set -i "$GUEST" "$n" || fail "xl vcpu-set -i $GUEST $n failed"
	wait_for_xs data/smpalt/online "$n" $STEP_TIMEOUT ||
		fail "vcpu-set $n: data/smpalt/online is '$(xs_read_guest data/smpalt/online)', expected $n"
	wait_for_xs data/smpalt/mode "$want" $STEP_TIMEOUT ||
		fail "vcpu-set $n: data/smpalt/mode is '$(xs_read_guest data/smpalt/mode)', expected $want"
	now=$(xs_read_guest data/smpalt/switches)
	if [ "$want" != "$mode" ]; then
		[ "$now" -gt "$switches" ] 2>/dev/null ||
			fail "vcpu-set $n: mode changed to $want but switches stayed '$now' (was $switches)"
	fi
	note "vcpu-set $n: online=$n mode=$want switches=$now sites=$(xs_read_guest data/smpalt/sites) in $(since "$start") s"
	switches=$now
	mode=$want
done

grep -E "refus|mismatch|fatal" "$CONSOLE_LOG" &&
	fail "the guest console reports a refused switch or a fatal error"
guest_destroy
result SUCCESS "followed vcpu-set $STEPS: online, mode and switches as expected"
