# Scenario manyvcpus: more vCPUs than host CPUs, up and down again.
# Input: xl create with maxvcpus=32 (vcpus=1; 32 is the guest's limit),
# then xl vcpu-set -i 32, then xl vcpu-set 1.
# Expected: data/smpalt/online reaches 32 with mode smp and one switch,
# then 1 with mode up and a second switch, each within STEP_TIMEOUT; after
# boot and after each step Xen's count of online vCPUs (xl vcpu-list)
# equals online, never UP text while Xen has a secondary up
# (check_xen_view); the domain never crashes; no alarming console line
# (console_alarm: refused or failed switch, fatal trap).

READY="smpalt: ready"
BOOT_TIMEOUT=60
STEP_TIMEOUT=90
MANY=32

require_guest
guest_create "maxvcpus=$MANY"
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"
wait_online 1 $STEP_TIMEOUT || fail "online is '$ONLINE' after boot, expected 1"
read_switch_state 0 "" $STEP_TIMEOUT ||
	fail "after boot: switches is '$SWITCHES', expected 0"
check_xen_view "after boot"
last_ns=$LAST_NS

start=$(uptime_cs)
vcpu_set $MANY || fail "xl vcpu-set (-i) $GUEST $MANY failed"
wait_step $MANY 1 "$last_ns" $STEP_TIMEOUT ||
	fail "vcpu-set $MANY: after ${STEP_TIMEOUT}s online='$ONLINE' mode='$MODE' switches='$SWITCHES', expected $MANY smp 1"
up_ms=$(((SEEN_CS - start) * CS_TO_MS))
[ "$MODE" = smp ] || fail "vcpu-set $MANY: mode is '$MODE', expected smp"
check_xen_view "vcpu-set $MANY"
note "$MANY vCPUs online (smp) $up_ms ms after vcpu-set"
last_ns=$LAST_NS

start=$(uptime_cs)
vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
wait_step 1 2 "$last_ns" $STEP_TIMEOUT ||
	fail "vcpu-set 1: after ${STEP_TIMEOUT}s online='$ONLINE' mode='$MODE' switches='$SWITCHES', expected 1 up 2"
down_ms=$(((SEEN_CS - start) * CS_TO_MS))
[ "$MODE" = up ] || fail "vcpu-set 1: mode is '$MODE', expected up"
check_xen_view "vcpu-set 1"
note "back to 1 vCPU (up) $down_ms ms after vcpu-set"

alarm=$(console_alarm) && fail "guest console: $alarm"
guest_running || fail "domain state '$(domain_state)' at the end"
guest_destroy
result SUCCESS "$MANY vCPUs up (smp) in $up_ms ms and down to 1 (up) in $down_ms ms, Xen's view matched at each"
