# Scenario manyvcpus: more vCPUs than host CPUs, up and down again.
# Input: xl create with maxvcpus=32 (vcpus=1; 32 is the guest's limit),
# then xl vcpu-set -i 32, then xl vcpu-set 1.
# Expected: data/smpalt/online reaches 32 with mode smp and one switch,
# then 1 with mode up and a second switch, each within STEP_TIMEOUT; after
# boot and after each step Xen's count of online vCPUs (xl vcpu-list)
# equals online, never UP text while Xen has a secondary up
# (check_xen_view); the domain never crashes; no alarming console line
# (console_alarm: refused or failed switch, fatal trap).

BOOT_TIMEOUT=60
STEP_TIMEOUT=90
MANY=32

guest_boot $BOOT_TIMEOUT "maxvcpus=$MANY"
wait_online 1 $STEP_TIMEOUT || fail "online is '$ONLINE' after boot, expected 1"
read_switch_state 0 "" $STEP_TIMEOUT ||
	fail "after boot: switches is '$SWITCHES', expected 0"
check_xen_view "after boot"
last_ns=$LAST_NS

vcpu_set_step $MANY 1 "$last_ns" $STEP_TIMEOUT
up_ms=$STEP_MS
check_xen_view "vcpu-set $MANY"
note "$MANY vCPUs online (smp) $up_ms ms after vcpu-set"
last_ns=$LAST_NS

vcpu_set_step 1 2 "$last_ns" $STEP_TIMEOUT
down_ms=$STEP_MS
check_xen_view "vcpu-set 1"
note "back to 1 vCPU (up) $down_ms ms after vcpu-set"

alarm=$(console_alarm) && fail "guest console: $alarm"
guest_running || fail "domain state '$(domain_state)' at the end"
guest_destroy
result SUCCESS "$MANY vCPUs up (smp) in $up_ms ms and down to 1 (up) in $down_ms ms, Xen's view matched at each"
