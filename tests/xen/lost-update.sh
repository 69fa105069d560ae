# Scenario lost-update: the counters check can fail. A test-only build of
# the guest (app/work_item.c built with SMPALT_TEST_LOSTUPDATE) keeps the
# workload item's lock sites in their UP form on every vCPU, as an engine
# that forgot them would (no lock around the protected counter's
# read-modify-write, a DS-prefixed increment of the atomic one); with two
# vCPUs running items at once, increments get lost, and the counters
# check must say so.
# Input: xl create of /opt/smpalt/smpalt-lostupdate.elf with vcpus=2
# maxvcpus=2, demand 200 (work for both vCPUs); then the counters check
# every CHECK_EVERY seconds, at most CHECKS times.
# Expected: the console names the test build; online=2, mode=smp; a check
# answers "FAIL locked|atomic expected=<x> got=<y>" with y < x: SUCCESS.
# A check that answers ok every time is an ERROR (the check cannot see
# lost updates), as is a missing test build (never SKIP).

LOSTUPDATE_ELF=$SMPALT_DIR/smpalt-lostupdate.elf
TEST_BUILD_LINE="work: test build: the item's lock sites stay in UP form"
BOOT_TIMEOUT=60
STEP_TIMEOUT=20
WORKLOAD_TIMEOUT=20
DEMAND=200
VCPUS=2
CHECK_EVERY=3
CHECKS=6

[ -f "$LOSTUPDATE_ELF" ] ||
	result ERROR "no test build at $LOSTUPDATE_ELF (make builds it beside the guest kernel)"
guest_boot $BOOT_TIMEOUT "kernel=\"$LOSTUPDATE_ELF\"" "vcpus=$VCPUS" \
	"maxvcpus=$VCPUS"
grep -qF -- "$TEST_BUILD_LINE" "$CONSOLE_LOG" ||
	result ERROR "the guest is not the lost-update build: console lacks '$TEST_BUILD_LINE'"
wait_online $VCPUS $STEP_TIMEOUT || fail "online is '$ONLINE', expected $VCPUS"
wait_for_xs data/smpalt/mode smp $STEP_TIMEOUT ||
	fail "mode is '$(xs_read_guest data/smpalt/mode)' with $VCPUS vCPUs, expected smp"
start_workload $DEMAND $WORKLOAD_TIMEOUT ||
	fail "demand $DEMAND: throughput never became positive"

if expect_lost_update $CHECKS $CHECK_EVERY "locked|atomic"; then
	guest_destroy
	result SUCCESS "UP-form lock sites on $VCPUS vCPUs: the counters check answered '$CHECK_REPLY' ($((LOST_EXPECTED - LOST_GOT)) updates lost) after $LOST_AFTER_S s"
fi
result ERROR "counters check answered ok $CHECKS times in $((CHECKS * CHECK_EVERY)) s with the lock sites in UP form on $VCPUS vCPUs (last: $CHECK_REPLY): it cannot see lost updates"
