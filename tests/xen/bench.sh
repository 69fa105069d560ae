# Scenario bench: the in-guest benchmark of the two forms of the text.
# Input: xl create with extra="smpalt.bench=1" (one vCPU).
# Expected: the guest times one lock-heavy work item in the SMP form and in
# the UP form (best of 5 alternating rounds) and prints
# "Test result: SUCCESS smp <ns> up <ns> per item"; the ratio is on the
# "bench:" line of the console log.
# (Added by the guest work; the harness owner may fold it in elsewhere.)

BENCH_ARG="smpalt.bench=1"
TEST_TIMEOUT=90

require_guest
guest_create "extra=\"$BENCH_ARG\""
guest_test_result $TEST_TIMEOUT
