# Scenario linux-lost-update: the patched Linux guest's counters check can
# fail. smpalt.stress_unlocked=1 (test only, CONFIG_XEN_SMPALT_TEST) makes
# the kernel's counters threads increment the shared atomic counter in its
# UP form (a ds prefix where the lock prefix was, as a kernel that ran UP
# code beside a second vCPU would) on every CPU; with two vCPUs running
# them at once, increments get lost, and the check must say so.
# Input: xl create linux-smpalt.cfg with vcpus=2 and extra= smpalt.stress=1
# smpalt.stress_unlocked=1; then the counters check (control/smpalt/check)
# every CHECK_EVERY seconds, at most CHECKS times.
# Expected: the console shows the kernel's TEST ONLY line; online 2, mode
# smp, Xen counts 2 (check_xen_view); a check answers "FAIL atomic
# expected=<x> got=<y>" with y < x: SUCCESS. A check that answers ok every
# time is an ERROR (the check cannot see lost updates), as is a kernel
# that does not know the option.

BOOT_TIMEOUT=120
STEP_TIMEOUT=90
VCPUS=2
CHECK_EVERY=3
CHECKS=10
TEST_LINE="TEST ONLY: atomic counter without lock prefix"
# Keep in step with extra= in xl-configs/linux-smpalt.cfg.
EXTRA="console=hvc0 rdinit=/init smpalt.stress=1 smpalt.stress_unlocked=1"

linux_boot $BOOT_TIMEOUT "vcpus=$VCPUS" "extra=\"$EXTRA\""
grep -qF -- "$TEST_LINE" "$CONSOLE_LOG" ||
	result ERROR "the kernel did not take smpalt.stress_unlocked=1: console lacks '$TEST_LINE'"
wait_online $VCPUS $STEP_TIMEOUT ||
	fail "data/smpalt/online is '$ONLINE', expected $VCPUS"
linux_expect_keys "vcpus=$VCPUS" mode=smp refused=0
check_xen_view "vcpus=$VCPUS"

if expect_lost_update $CHECKS $CHECK_EVERY atomic; then
	check_xen_view "after the check"
	guest_destroy
	result SUCCESS "unlocked atomic increments on $VCPUS vCPUs: the counters check answered '$CHECK_REPLY' ($((LOST_EXPECTED - LOST_GOT)) updates lost) after $LOST_AFTER_S s"
fi
result ERROR "counters check answered ok $CHECKS times in $((CHECKS * CHECK_EVERY)) s with unlocked increments on $VCPUS vCPUs (last: $CHECK_REPLY): it cannot see lost updates"
