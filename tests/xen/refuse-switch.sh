# Scenario refuse-switch: the switch itself refuses to put UP text beside a
# running secondary, whatever its caller asks: the last line of defence of
# the rule "UP code never runs while Xen says a secondary vCPU is up".
# Input: xl create (vcpus=1, maxvcpus=2) with the test-only option
# extra="smpalt.test.direct_switch=1", demand 200; xl vcpu-set 2; then
# control/smpalt/test-switch = "up <token>", which makes vCPU 0 call the
# switch to UP directly, past the hotplug plan, while vCPU 1 runs.
# Expected: the guest answers "<token> -16" (-EBUSY) in
# data/smpalt/test-switch; its console has one line "alt: switch to UP
# refused: vCPU 1 is up (VCPUOP_is_up)"; data/smpalt/refused goes 0 -> 1;
# mode stays smp, online 2, Xen reports 2 (check_xen_view); switches does
# not move; no other alarming console line; the counters check is exact
# (the workload ran on SMP text throughout). Then xl vcpu-set 1 still
# reaches online=1 mode=up with Xen at 1: a refusal harms nothing.
# Figures: none (a correctness check).

BOOT_TIMEOUT=60
STEP_TIMEOUT=45
ANSWER_TIMEOUT=30
WORKLOAD_TIMEOUT=20
DEMAND=200
KNOB="smpalt.test.direct_switch=1"
REFUSED_LINE="alt: switch to UP refused: vCPU 1 is up (VCPUOP_is_up)"
EBUSY_RC=-16

# test_switch MODE: ask for a direct switch and wait for the answer; sets
# ANSWER to the rc the guest gave. Fails the scenario without an answer.
test_switch() {
	local token end reply=
	token=$(random_token)
	xs_write_guest control/smpalt/test-switch "$1 $token" ||
		fail "cannot write control/smpalt/test-switch"
	end=$(($(uptime_cs) + ANSWER_TIMEOUT * CS_PER_SEC))
	while :; do
		reply=$(xs_read_guest data/smpalt/test-switch)
		case $reply in "$token "*) break ;; esac
		[ "$(uptime_cs)" -le "$end" ] ||
			fail "no answer to test-switch $1 $token within ${ANSWER_TIMEOUT}s (data/smpalt/test-switch: '${reply:-<absent>}')"
		usleep $POLL_USEC
	done
	ANSWER=${reply#"$token "}
	log "test-switch $1 $token: rc $ANSWER"
}

guest_boot $BOOT_TIMEOUT "maxvcpus=2" "extra=\"$KNOB\""
wait_for_xs data/smpalt/refused 0 $STEP_TIMEOUT ||
	fail "after boot: data/smpalt/refused is '$(xs_read_guest data/smpalt/refused)', expected 0"
start_workload $DEMAND $WORKLOAD_TIMEOUT ||
	fail "demand $DEMAND: throughput never became positive"

vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
wait_step 2 1 "" $STEP_TIMEOUT ||
	fail "vcpu-set 2: after ${STEP_TIMEOUT}s online='$ONLINE' switches='$SWITCHES', expected online 2 and switches 1"
check_xen_view "vcpu-set 2"

# The switch to UP asked for while vCPU 1 runs.
test_switch up
[ "$ANSWER" = "$EBUSY_RC" ] ||
	fail "switch to UP beside a running vCPU 1 answered rc '$ANSWER', expected $EBUSY_RC (refused)"
wait_for_console "$REFUSED_LINE" 10 || fail "no '$REFUSED_LINE' on the console"
wait_for_xs data/smpalt/refused 1 $STEP_TIMEOUT ||
	fail "data/smpalt/refused is '$(xs_read_guest data/smpalt/refused)', expected 1"
read_switch_state 1 "" $STEP_TIMEOUT ||
	fail "after the refusal: switches is '$SWITCHES', expected 1 (nothing switched)"
[ "$MODE" = smp ] || fail "after the refusal: mode is '$MODE', expected smp"
check_xen_view "after the refused switch"
[ "$XEN_ONLINE" = 2 ] || fail "after the refused switch: Xen reports $XEN_ONLINE vCPUs, expected 2"
# Every alarm but the expected refusal is a failure.
alarm=$(console_alarm "$REFUSED_LINE") && fail "guest console: $alarm"
check_counters || fail "counters after the refusal: $CHECK_REPLY"

# A refusal harms nothing: the planned way down still works.
vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
wait_step 1 2 "" $STEP_TIMEOUT ||
	fail "vcpu-set 1: after ${STEP_TIMEOUT}s online='$ONLINE' switches='$SWITCHES', expected online 1 and switches 2"
check_xen_view "vcpu-set 1"
[ "$MODE" = up ] || fail "vcpu-set 1: mode is '$MODE', expected up"
refused=$(xs_read_guest data/smpalt/refused)
[ "$refused" = 1 ] || fail "data/smpalt/refused is '$refused' at the end, expected 1"
guest_running || fail "domain state '$(domain_state)' at the end"
guest_destroy
result SUCCESS "switch to UP beside running vCPU 1 refused by the switch itself (rc $EBUSY_RC, refused=1, text stayed smp, Xen 2 online); counters ok items=$CHECK_ITEMS; vcpu-set 1 then reached up"
