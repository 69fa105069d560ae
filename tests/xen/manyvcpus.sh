# Scenario manyvcpus: more vCPUs than host CPUs, up and down again.
# Input: xl create with maxvcpus=32 (vcpus=1; 32 is the guest's limit),
# then xl vcpu-set -i 32, then xl vcpu-set 1.
# Expected: data/smpalt/online reaches 32 with mode smp, then 1 with mode
# up; the domain neither crashes nor refuses a switch.
# (Added by the guest work; the harness owner may fold it in elsewhere.)

READY="smpalt: ready"
BOOT_TIMEOUT=60
STEP_TIMEOUT=60
MANY=32

require_guest
guest_create "maxvcpus=$MANY"
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"

start=$(now_cs)
xl vcpu-set -i "$GUEST" $MANY || fail "xl vcpu-set -i $GUEST $MANY failed"
wait_for_xs data/smpalt/online $MANY $STEP_TIMEOUT ||
	fail "online is '$(xs_read_guest data/smpalt/online)', expected $MANY"
wait_for_xs data/smpalt/mode smp $STEP_TIMEOUT ||
	fail "mode is '$(xs_read_guest data/smpalt/mode)', expected smp"
note "$MANY vCPUs online in $(since "$start") s"

start=$(now_cs)
xl vcpu-set "$GUEST" 1 || fail "xl vcpu-set $GUEST 1 failed"
wait_for_xs data/smpalt/online 1 $STEP_TIMEOUT ||
	fail "online is '$(xs_read_guest data/smpalt/online)', expected 1"
wait_for_xs data/smpalt/mode up $STEP_TIMEOUT ||
	fail "mode is '$(xs_read_guest data/smpalt/mode)', expected up"
note "back to 1 vCPU in $(since "$start") s"

grep -E "refus|mismatch|fatal" "$CONSOLE_LOG" &&
	fail "the guest console reports a refused switch or a fatal error"
guest_destroy
result SUCCESS "$MANY vCPUs up (smp) and down again (up)"
