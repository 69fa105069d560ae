# Scenario lost-update: the counters check can fail. A test-only form of
# the guest keeps lock sites in their UP form on every vCPU, as an engine
# that forgot them would; with two vCPUs running the counters at once,
# increments get lost, and the counters check must say so.
# guests: smpalt linux
# The test-only form, per guest:
# - smpalt: the build /opt/smpalt/smpalt-lostupdate.elf (app/work_item.c
#   with SMPALT_TEST_LOSTUPDATE: no lock around the workload item's
#   protected counter's read-modify-write, a DS-prefixed increment of the
#   atomic one), maxvcpus=2, its demand workload;
# - Linux: smpalt.stress_unlocked=1 (CONFIG_XEN_SMPALT_TEST: the kernel's
#   counters threads increment the atomic counter with a ds prefix where
#   the lock prefix was) beside smpalt.stress=1.
# Input: that guest with vcpus=2, its load running (guest_load); then the
# counters check (control/smpalt/check) every CHECK_EVERY seconds, at most
# CHECKS times.
# Expected: the console names the test-only form (TEST_LINE); online 2,
# mode smp, Xen counts 2 (check_xen_view), the guest clean before the
# check (guest_clean); a check answers "FAIL <counter> expected=<x>
# got=<y>" with y < x and <counter> one of the unlocked ones (COUNTERS):
# SUCCESS. A check that answers ok every time is an ERROR (the check cannot
# see lost updates), as is a missing test-only form (never SKIP).

BOOT_TIMEOUT=$(guest_param boot_timeout)
STEP_TIMEOUT=$(guest_param step_timeout)
VCPUS=2
CHECK_EVERY=3
CHECKS=10

case $(guest_kind) in
smpalt)
	LOSTUPDATE_ELF=$SMPALT_DIR/smpalt-lostupdate.elf
	[ -f "$LOSTUPDATE_ELF" ] ||
		result ERROR "no test build at $LOSTUPDATE_ELF (make builds it beside the guest kernel)"
	set -- "kernel=\"$LOSTUPDATE_ELF\"" "maxvcpus=$VCPUS"
	TEST_LINE="work: test build: the item's lock sites stay in UP form"
	COUNTERS="locked|atomic"
	;;
linux)
	# Keep in step with extra= in xl-configs/linux-smpalt.cfg.
	set -- "extra=\"console=hvc0 rdinit=/init smpalt.stress=1 smpalt.stress_unlocked=1\""
	TEST_LINE="TEST ONLY: atomic counter without lock prefix"
	COUNTERS=atomic
	;;
esac

guest_boot "$BOOT_TIMEOUT" "vcpus=$VCPUS" "$@"
grep -qF -- "$TEST_LINE" "$CONSOLE_LOG" ||
	result ERROR "the guest is not its lost-update form: console lacks '$TEST_LINE'"
wait_online $VCPUS "$STEP_TIMEOUT" ||
	fail "data/smpalt/online is '$ONLINE', expected $VCPUS"
wait_for_xs data/smpalt/mode smp "$STEP_TIMEOUT" ||
	fail "mode is '$(xs_read_guest data/smpalt/mode)' with $VCPUS vCPUs, expected smp"
check_xen_view "vcpus=$VCPUS"
guest_load
guest_clean "vcpus=$VCPUS"

# The guest's answer to a failed check is an error-level console line of
# its own: no guest_clean after it.
if expect_lost_update $CHECKS $CHECK_EVERY "$COUNTERS"; then
	check_xen_view "after the check"
	guest_destroy
	result SUCCESS "lock sites in UP form on $VCPUS vCPUs under $(guest_param load): the counters check answered '$CHECK_REPLY' ($((LOST_EXPECTED - LOST_GOT)) updates lost) after $LOST_AFTER_S s"
fi
result ERROR "counters check answered ok $CHECKS times in $((CHECKS * CHECK_EVERY)) s with the lock sites in UP form on $VCPUS vCPUs (last: $CHECK_REPLY): it cannot see lost updates"
