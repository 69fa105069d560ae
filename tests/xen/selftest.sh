# Scenario selftest: the guest checks its own pieces on real Xen.
# Input: xl create with extra="smpalt.selftest=1".
# Expected: the guest prints "Test result: SUCCESS <n> checks passed"
# (formatting, strings, page allocator, read-only text and its alias,
# stack guard, clock and one-shot timer, an IPI round trip, symbols), then
# keeps running (the harness destroys it after the scenario).
# (Added by the guest work; the harness owner may fold it in elsewhere.)

SELFTEST_ARG="smpalt.selftest=1"
TEST_TIMEOUT=60

require_guest
guest_create "extra=\"$SELFTEST_ARG\""
guest_test_result $TEST_TIMEOUT
