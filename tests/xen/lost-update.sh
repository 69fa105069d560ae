# Scenario lost-update: the counters check can fail. A test-only build of
# the guest (kernel/work_item.c built with SMPALT_TEST_LOSTUPDATE) keeps the
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

n=0
while [ $n -lt $CHECKS ]; do
	n=$((n + 1))
	sleep $CHECK_EVERY
	check_counters
	rc=$?
	case $rc in
	0)
		log "check $n of $CHECKS: ok items=$CHECK_ITEMS (no lost update yet)"
		continue
		;;
	2) result ERROR "counters check $n: $CHECK_REPLY" ;;
	esac
	# "FAIL <which> expected=<x> got=<y>"
	# shellcheck disable=SC2086 # split into words on purpose
	set -- $CHECK_REPLY
	which=${2:-} expected=${3#expected=} got=${4#got=}
	case $which in
	locked | atomic) ;;
	*) fail "counters check $n failed on '$which', not on the unlocked counters: $CHECK_REPLY" ;;
	esac
	[ "$got" -lt "$expected" ] 2>/dev/null ||
		fail "counters check $n: $CHECK_REPLY: expected fewer than $expected (lost updates)"
	guest_destroy
	result SUCCESS "UP-form lock sites on $VCPUS vCPUs: the counters check answered '$CHECK_REPLY' ($((expected - got)) updates lost) after $((n * CHECK_EVERY)) s"
done
result ERROR "counters check answered ok $CHECKS times in $((CHECKS * CHECK_EVERY)) s with the lock sites in UP form on $VCPUS vCPUs (last: $CHECK_REPLY): it cannot see lost updates"
