# Scenario one-result: however many in-guest tests run, the guest ends
# with one "Test result:" line, and the worst outcome decides it.
# Input: xl create with extra="smpalt.selftest=1 smpalt.bench=1" (one
# vCPU): the self-test and the benchmark both report an outcome.
# Expected: exactly one "Test result:" line on the guest's console, still
# one SETTLE_S seconds after it came, reading "SUCCESS <n> checks passed;
# smp <s> ns up <u> ns per item" (both parts' reasons, in the order they
# ran). A guest that says ERROR or FAILURE has the scenario end with its
# line as it said it.

TEST_ARGS="smpalt.selftest=1 smpalt.bench=1"
TEST_TIMEOUT=120
SETTLE_S=3

require_guest
guest_create "extra=\"$TEST_ARGS\""
wait_for_console "Test result: " $TEST_TIMEOUT ||
	result ERROR "guest printed no 'Test result:' line within ${TEST_TIMEOUT}s"
sleep $SETTLE_S
lines=$(grep -cF "Test result: " "$CONSOLE_LOG")
[ "$lines" -eq 1 ] ||
	fail "$lines 'Test result:' lines, expected one: $(grep -F 'Test result: ' "$CONSOLE_LOG" | tr -d '\r' | tr '\n' '|')"
line=$(grep -F "Test result: " "$CONSOLE_LOG" | tr -d '\r')
line=${line#*Test result: }
case $line in
SUCCESS\ *)
	echo "$line" | grep -qE '^SUCCESS [0-9]+ checks passed; smp [0-9]+ ns up [0-9]+ ns per item$' ||
		fail "the line does not give both parts' reasons in order: '$line'"
	;;
*) guest_test_result $TEST_TIMEOUT ;; # the guest's verdict, as it said it
esac
result SUCCESS "one 'Test result:' line for two parts: $line"
