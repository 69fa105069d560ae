# Scenario selftest: the guest checks its own pieces on real Xen.
# Input: xl create with extra="smpalt.selftest=1" (vcpus=1, maxvcpus=4).
# Expected: the guest prints "selftest: 1 of 4 vCPUs up, text up, canary
# lock byte 0x3e" (Xen's own count of vCPUs up, VCPUOP_is_up: with one
# vCPU the boot must have left the text in UP form although more vCPUs
# may come) and "Test result: SUCCESS <n> checks passed" (formatting,
# strings, page allocator, read-only text and its alias, stack guard,
# clock and one-shot timer, an IPI round trip, symbols, the boot switch
# to UP and the text's form against Xen's vCPU count), then keeps
# running (the harness destroys it after the scenario).

SELFTEST_ARG="smpalt.selftest=1"
FORM_LINE="selftest: 1 of 4 vCPUs up, text up, canary lock byte 0x3e"
TEST_TIMEOUT=60

require_guest
guest_create "extra=\"$SELFTEST_ARG\"" "vcpus=1" "maxvcpus=4"
wait_for_console "Test result: " $TEST_TIMEOUT ||
	result ERROR "guest printed no 'Test result:' line within ${TEST_TIMEOUT}s"
grep -qF -- "$FORM_LINE" "$CONSOLE_LOG" ||
	fail "console lacks '$FORM_LINE': $(grep -F 'selftest: ' "$CONSOLE_LOG" | head -3 | tr -d '\r')"
guest_test_result $TEST_TIMEOUT
