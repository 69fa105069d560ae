# Scenario linux-refuse-switch: the patched Linux guest (6.1, 6.12 or 7.2)
# refuses to switch its text to UP while Xen reports another vCPU up,
# counts the refusal and stays SMP; once that ends, the next change
# switches normally.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4, smpalt.stress=1);
# vcpu-set 2; control/smpalt/test-refuse-up=1 (test only: the switch to UP
# sees every other vCPU as still up in Xen, as VCPUOP_is_up would answer
# for a vCPU not yet down); REFUSALS times vcpu-set 1 then vcpu-set 2;
# vcpu-set 1 once more; control/smpalt/test-refuse-up=0; vcpu-set 2 then
# vcpu-set 1.
# Expected: each vcpu-set 1 under the knob: data/smpalt/refused grows by
# exactly 1, online 1 with mode smp and switches unchanged, held
# SETTLE_HOLD_CS, Xen listing one vCPU up (the guest's online count equals
# Xen's); the console has the kernel's "switch to UP refused" line; the
# counters check answers ok (the threads and the dying vCPU's runs until
# VCPUOP_down); each vcpu-set 2 under the knob: online 2 smp without a
# switch, Xen agreeing. After the knob is cleared: vcpu-set 2 leaves the
# text SMP (no switch), vcpu-set 1 switches to UP (switches +1, mode up),
# Xen agreeing (check_xen_view); refused stays where it got, failed 0;
# counters ok; no alarming console line (linux_alarm), the domain runs.

BOOT_TIMEOUT=120
# A step to 4 vCPUs (2 host CPUs) took 27 s on a loaded machine: room.
STEP_TIMEOUT=90
REFUSALS=2
KNOB=control/smpalt/test-refuse-up

# refused_state WHAT REFUSED SWITCHES: wait until data/smpalt/refused is
# REFUSED and online 1, then online 1, mode smp, switches SWITCHES and
# refused REFUSED must hold for SETTLE_HOLD_CS; Xen must count one vCPU up.
refused_state() {
	local what=$1 want="1 smp $3 $2 0" vals end start=''
	end=$(($(uptime_cs) + STEP_TIMEOUT * CS_PER_SEC))
	while :; do
		vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode \
			data/smpalt/switches data/smpalt/refused data/smpalt/failed |
			tr '\n' ' ')
		vals=${vals% }
		if [ "$vals" = "$want" ]; then
			[ -n "$start" ] || start=$(uptime_cs)
			[ $(($(uptime_cs) - start)) -lt "$SETTLE_HOLD_CS" ] || break
		else
			[ -z "$start" ] ||
				fail "$what: '$vals' did not hold (online mode switches refused failed), expected '$want'"
		fi
		[ "$(uptime_cs)" -le "$end" ] ||
			fail "$what: online mode switches refused failed = '$vals' after ${STEP_TIMEOUT}s, expected '$want'"
		usleep "$FAST_POLL_USEC"
	done
	XEN_ONLINE=$(xen_online_vcpus) ||
		fail "$what: cannot count Xen's online vCPUs (xl vcpu-list)"
	[ "$XEN_ONLINE" = 1 ] || {
		xl vcpu-list "$GUEST"
		fail "$what: guest says online=1, Xen says $XEN_ONLINE"
	}
	guest_running || fail "$what: domain state '$(domain_state)'"
	log "$what: online 1, mode smp, switches $3, refused $2; Xen online 1"
}

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT
vcpu_set_step 2 1 "$LAST_NS" $STEP_TIMEOUT "vcpu-set 2"
check_xen_view "vcpu-set 2"
switches=$SWITCHES last_ns=$LAST_NS

mark=$(console_lines)
xs_write_guest $KNOB 1 || fail "cannot write $KNOB"
wait_for_console_since "$mark" "TEST ONLY: $KNOB on" $STEP_TIMEOUT ||
	fail "the guest did not take $KNOB=1 within ${STEP_TIMEOUT}s"

refused=0 round=1
while [ $round -le $REFUSALS ]; do
	[ $round -eq 1 ] || {
		vcpu_set_step 2 $switches "" $STEP_TIMEOUT "round $round: vcpu-set 2"
		check_xen_view "round $round: vcpu-set 2"
	}
	mark=$(console_lines)
	vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
	refused=$((refused + 1))
	refused_state "round $round: vcpu-set 1 refused" $refused $switches
	wait_for_console_since "$mark" "switch to UP refused" $STEP_TIMEOUT ||
		fail "round $round: no 'switch to UP refused' console line"
	log "round $round: console: $CONSOLE_MATCH"
	counters_ok "round $round, refused"
	alarm=$(linux_alarm) && fail "round $round: guest console: $alarm"
	round=$((round + 1))
done

mark=$(console_lines)
xs_write_guest $KNOB 0 || fail "cannot write $KNOB"
wait_for_console_since "$mark" "TEST ONLY: $KNOB off" $STEP_TIMEOUT ||
	fail "the guest did not take $KNOB=0 within ${STEP_TIMEOUT}s"
vcpu_set_step 2 $switches "" $STEP_TIMEOUT "knob cleared: vcpu-set 2"
check_xen_view "knob cleared: vcpu-set 2"
switches=$((switches + 1))
vcpu_set_step 1 $switches "$last_ns" $STEP_TIMEOUT "knob cleared: vcpu-set 1"
check_xen_view "knob cleared: vcpu-set 1"
linux_expect_keys "knob cleared" refused=$refused failed=0
counters_ok "knob cleared"
alarm=$(linux_alarm) && fail "at the end: guest console: $alarm"
guest_running || fail "at the end: domain state '$(domain_state)'"
guest_destroy
result SUCCESS "$REFUSALS switches to UP refused (refused $refused, mode smp with online 1, Xen 1, counters ok); knob cleared: vcpu-set 2/1 switched to UP (switches $SWITCHES), counters ok items=$CHECK_ITEMS"
