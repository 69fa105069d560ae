# Scenario boot-smp: a guest created with several vCPUs comes up in SMP
# form with all of them, grows beyond the host's CPUs and goes back to UP.
# Input: xl create with vcpus=4 maxvcpus=8 (xl writes cpu/0..3 online,
# cpu/4..7 offline), demand 300; then xl vcpu-set -i 8; then xl vcpu-set 1.
# Expected: right after "smpalt: ready", within BOOT_STEP_TIMEOUT:
# online=4 and mode=smp (one switch, UP -> SMP, after the boot self-test);
# after vcpu-set -i 8: online=8, mode=smp, no further switch; after
# vcpu-set 1: online=1, mode=up, one more switch; at each of the three
# Xen's count of online vCPUs (xl vcpu-list) equals online, never UP text
# while Xen has a secondary up (check_xen_view); the domain never
# crashes; no alarming console line (console_alarm); the counters check
# answers ok with items > 0.

BOOT_TIMEOUT=60
# Bringing up 8 vCPUs took 31.5 s on a busy machine: room to spare.
BOOT_STEP_TIMEOUT=60
STEP_TIMEOUT=90
WORKLOAD_TIMEOUT=30
DEMAND=300
BOOT_VCPUS=4
MAX_VCPUS=8

guest_boot $BOOT_TIMEOUT "vcpus=$BOOT_VCPUS" "maxvcpus=$MAX_VCPUS"
grep -qF "vcpu: maxvcpus $MAX_VCPUS" "$CONSOLE_LOG" ||
	fail "console lacks 'vcpu: maxvcpus $MAX_VCPUS'"
wait_online $BOOT_VCPUS $BOOT_STEP_TIMEOUT ||
	fail "after boot: online is '$ONLINE', expected $BOOT_VCPUS"
boot_ms=$(((SEEN_CS - CREATE_CS) * CS_TO_MS))
read_switch_state 1 "" $BOOT_STEP_TIMEOUT ||
	fail "after boot: switches is '$SWITCHES', expected 1 (UP -> SMP)"
[ "$MODE" = smp ] || fail "after boot: online=$BOOT_VCPUS but mode is '$MODE'"
note "boot: online=$BOOT_VCPUS mode=smp switches=1 last-switch-ns=$LAST_NS, $boot_ms ms after xl create"
check_xen_view "boot with $BOOT_VCPUS vCPUs"
last_ns=$LAST_NS

start_workload $DEMAND $WORKLOAD_TIMEOUT ||
	fail "demand $DEMAND: throughput never became positive"

# Above the host's CPUs: vcpu_set adds -i. No mode change: switches stay 1.
vcpu_set_step $MAX_VCPUS 1 "" $STEP_TIMEOUT "vcpu-set -i $MAX_VCPUS"
max_ms=$STEP_MS
note "vcpu-set -i $MAX_VCPUS: online=$MAX_VCPUS mode=smp in $max_ms ms"
check_xen_view "vcpu-set -i $MAX_VCPUS"

vcpu_set_step 1 2 "$last_ns" $STEP_TIMEOUT
one_ms=$STEP_MS
note "vcpu-set 1: online=1 mode=up switches=2 last-switch-ns=$LAST_NS in $one_ms ms"
check_xen_view "vcpu-set 1"

alarm=$(console_alarm) && fail "guest console: $alarm"
counters_ok "after 4 -> $MAX_VCPUS -> 1 vCPUs"
guest_running || fail "domain state '$(domain_state)' at the end"

guest_destroy
result SUCCESS "booted smp with $BOOT_VCPUS online ($boot_ms ms after create), $MAX_VCPUS online in $max_ms ms, back to 1 up in $one_ms ms; counters ok items=$CHECK_ITEMS"
