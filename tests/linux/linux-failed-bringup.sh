# Scenario linux-failed-bringup: a vCPU bring-up of the patched Linux 6.1
# guest that fails, before or after the switch to SMP code, leaves UP text
# with one vCPU online; then vCPUs come and go normally.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4, smpalt.stress=1)
# with linux-smpalt.hotplug-fail=1:cpu:bringup,1:sched:active; the guest's
# /init injects the failures with the kernel's CPU hotplug fault injection
# (/sys/devices/system/cpu/cpu1/hotplug/fail,
# CONFIG_CPU_HOTPLUG_STATE_CONTROL). Steps:
#   1. vcpu-set 2; /init offlines cpu 1 (switch to UP), arms a failure at
#      CPUHP_BRINGUP_CPU (cpu:bringup) and onlines it: the bring-up fails
#      before xen_pv_cpu_up runs; vcpu-set 1;
#   2. vcpu-set 2; the same with a failure at a later AP state
#      (sched:active, CPUHP_AP_ACTIVE): the vCPU ran with SMP text, the
#      rollback takes it down; vcpu-set 1;
#   3. control/smpalt/test-fail-bringup=1 (test only): vcpu-set 2 fails in
#      xen_pv_cpu_up right after common_cpu_up switched the text to SMP, as
#      a failed allocation would; vcpu-set 1;
#   4. vcpu-set 2, vcpu-set 1.
# Expected: /init reports each online attempt failed with cpu 1 offline;
# after each failure online 1, mode up, held (wait_stable), with switches
# grown by exactly the switches the step made (1: +2, to SMP at vcpu-set
# 2, to UP at the offline; 2: +4, the same, then to SMP at the bring-up and
# to UP after the rollback; 3: +2, to SMP and back), Xen agreeing (check_xen_view: one vCPU up, never UP text
# with a secondary up), refused 0 and failed 0; the console has the test's
# "bring-up of CPU1 fails after the switch" line; step 4 switches to SMP
# and back normally; the counters check answers ok after it (its threads
# and the new and dying vCPUs' runs across the switch windows); no
# alarming console line (linux_alarm), the domain runs.

BOOT_TIMEOUT=120
# A step to 4 vCPUs (2 host CPUs) took 27 s on a loaded machine: room.
STEP_TIMEOUT=90
FAIL_AT="cpu:bringup sched:active"
HPFAIL_LINE="linux-smpalt: hotplug-fail cpu1"
TEST_FAIL_KEY=control/smpalt/test-fail-bringup
# Keep in step with extra= in xl-configs/linux-smpalt.cfg.
EXTRA="console=hvc0 rdinit=/init smpalt.stress=1 linux-smpalt.hotplug-fail=1:cpu:bringup,1:sched:active"

# failed_up WHAT SWITCHES: after a failed bring-up: online 1, mode up and
# switches SWITCHES published and held, Xen agreeing, nothing refused or
# failed, no alarm.
failed_up() {
	wait_step 1 "$2" "" $STEP_TIMEOUT ||
		fail "$1: after ${STEP_TIMEOUT}s online='$ONLINE' mode='$MODE' switches='$SWITCHES', expected online 1, switches $2"
	wait_stable 1 1 $STEP_TIMEOUT ||
		fail "$1: online='$ONLINE' mode='$MODE' did not settle on 1 up"
	expect_guest_state "$1" 1 up "$2"
	check_xen_view "$1"
	linux_expect_keys "$1" failed=0
	linux_clean "$1"
}

# removed: vcpu-set 1 and wait until /init saw cpu 1 go away.
removed() {
	local mark
	mark=$(console_lines)
	vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
	wait_for_console_since "$mark" "$HPFAIL_LINE removed" $STEP_TIMEOUT ||
		fail "vcpu-set 1: /init did not see cpu 1 removed within ${STEP_TIMEOUT}s"
}

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "extra=\"$EXTRA\""
switches=0

# Steps 1 and 2: /init's injected failures.
# /init acts on cpu 1 within its poll of the vCPU coming up: the state in
# between (online 2) is not waited for, only /init's report and the state
# after it.
for state in $FAIL_AT; do
	mark=$(console_lines)
	vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
	wait_for_console_since "$mark" "$HPFAIL_LINE $state[ :]" $STEP_TIMEOUT ||
		fail "$state: no '$HPFAIL_LINE $state' line from /init within ${STEP_TIMEOUT}s"
	line=$CONSOLE_MATCH
	log "$state: $line"
	case $line in
	*": online failed, online 0, fail -1") ;;
	*) fail "$state: expected the online attempt to fail with cpu 1 offline and the failure used: $line" ;;
	esac
	# vcpu-set 2 and the offline switch; the failed bring-up at a later
	# AP state switches to SMP and, in its rollback, back to UP.
	case $state in
	cpu:bringup) switches=$((switches + 2)) ;;
	*) switches=$((switches + 4)) ;;
	esac
	failed_up "$state failed" $switches
	note "$state: bring-up failed, then online 1 up, switches $SWITCHES"
	removed
done

# Step 3: a failure right after the switch to SMP code in xen_pv_cpu_up.
mark=$(console_lines)
xs_write_guest $TEST_FAIL_KEY 1 || fail "cannot write $TEST_FAIL_KEY"
wait_for_console_since "$mark" "TEST ONLY: $TEST_FAIL_KEY on" $STEP_TIMEOUT ||
	fail "the guest did not take $TEST_FAIL_KEY=1 within ${STEP_TIMEOUT}s"
vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
switches=$((switches + 2))
failed_up "test-fail-bringup" $switches
wait_for_console_since "$mark" "bring-up of CPU1 fails after the switch to SMP code" $STEP_TIMEOUT ||
	fail "test-fail-bringup: no 'bring-up of CPU1 fails' line: the failure was not injected"
note "test-fail-bringup: to SMP and back to UP, switches $SWITCHES"
xs_write_guest $TEST_FAIL_KEY 0 || fail "cannot write $TEST_FAIL_KEY"
vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
last_ns=$(xs_read_guest data/smpalt/last-switch-ns)

# Step 4: the vCPU comes and goes normally.
switches=$((switches + 1))
vcpu_set_step 2 $switches "$last_ns" $STEP_TIMEOUT "after the failures: vcpu-set 2"
check_xen_view "after the failures: vcpu-set 2"
last_ns=$LAST_NS
counters_ok "after the failures, 2 online"
switches=$((switches + 1))
vcpu_set_step 1 $switches "$last_ns" $STEP_TIMEOUT "after the failures: vcpu-set 1"
check_xen_view "after the failures: vcpu-set 1"
counters_ok "after the failures, 1 online"
linux_expect_keys "at the end" failed=0
linux_clean "at the end"
guest_destroy
result SUCCESS "bring-up failed at cpu:bringup, sched:active and after the switch to SMP (test): each time online 1 up, Xen agreed; then vcpu-set 2/1 switched; switches $SWITCHES, counters ok items=$CHECK_ITEMS"
