# Scenario linux-unexpected-byte: a lock site of the patched Linux guest
# (6.1, 6.12 or 7.2) that holds neither prefix makes every switch fail
# before any write, in both directions; the failure is counted and
# published, a bring-up that needs the switch fails, and the text keeps its
# form.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4, smpalt.stress=1);
# control/smpalt/test-bad-site=1 (test only: a cs prefix, 0x2e, at a lock
# site of the kernel's self-test that only the knob runs); vcpu-set 2;
# test-bad-site=0; vcpu-set 1, vcpu-set 2; test-bad-site=1; vcpu-set 1;
# test-bad-site=0; vcpu-set 2, vcpu-set 1.
# Expected: at boot the text is UP (mode up) and no text was kept SMP
# for a lock site holding neither prefix (no "hold neither prefix" line:
# the guest checks its sites, xen_smpalt on). Bad site, UP text: vcpu-set 2 fails the
# bring-up: data/smpalt/failed 1, online 1, mode up, switches 0, Xen one
# vCPU up (check_xen_view), the console has "switch to SMP code failed,
# nothing written: lock site <the site> holds 0x2e"; site restored: vcpu-set
# 2 switches to SMP (switches 1), counters ok. Bad site, SMP text: vcpu-set
# 1 takes the vCPU down but the switch to UP fails: failed 2, online 1,
# mode smp, switches 1, Xen one vCPU up, "switch to UP code failed, nothing
# written: lock site <the site> holds 0x2e" on the console; counters ok. Site restored: vcpu-set 2 (no
# switch) and vcpu-set 1 switch to UP (switches 2), Xen agreeing; refused 0;
# counters ok; no alarming console line (linux_alarm), the domain runs.

BOOT_TIMEOUT=120
# A step to 4 vCPUs (2 host CPUs) took 27 s on a loaded machine: room.
STEP_TIMEOUT=90
KNOB=control/smpalt/test-bad-site
BOOT_BAD_RE='lock sites hold neither prefix'

# bad_site VALUE BYTE: write the knob and wait for the kernel's line that
# the site holds BYTE; SITE: the site as the kernel prints it (%pS: its
# symbol, or its address in a kernel without kallsyms).
bad_site() {
	local mark
	mark=$(console_lines)
	xs_write_guest $KNOB "$1" || fail "cannot write $KNOB"
	wait_for_console_since "$mark" "TEST ONLY: lock site [^ ]+ holds $2" $STEP_TIMEOUT ||
		fail "$KNOB=$1: no line that the site holds $2 within ${STEP_TIMEOUT}s"
	log "$KNOB=$1: $CONSOLE_MATCH"
	SITE=${CONSOLE_MATCH#*lock site }
	SITE=${SITE%% *}
	SITE_RE=$(printf '%s' "$SITE" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
}

# failed_state WHAT FAILED ONLINE MODE SWITCHES: wait until
# data/smpalt/failed is FAILED, then online, mode, switches must read so,
# refused 0, and Xen must count ONLINE vCPUs up.
failed_state() {
	local what=$1 vals
	wait_for_xs data/smpalt/failed "$2" $STEP_TIMEOUT ||
		fail "$what: data/smpalt/failed is not $2 after ${STEP_TIMEOUT}s"
	vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode \
		data/smpalt/switches data/smpalt/refused | tr '\n' ' ')
	[ "${vals% }" = "$3 $4 $5 0" ] ||
		fail "$what: online mode switches refused = '${vals% }', expected '$3 $4 $5 0'"
	XEN_ONLINE=$(xen_online_vcpus) ||
		fail "$what: cannot count Xen's online vCPUs (xl vcpu-list)"
	[ "$XEN_ONLINE" = "$3" ] || {
		xl vcpu-list "$GUEST"
		fail "$what: guest says online=$3, Xen says $XEN_ONLINE"
	}
	guest_running || fail "$what: domain state '$(domain_state)'"
	log "$what: failed $2, online $3, mode $4, switches $5; Xen online $XEN_ONLINE"
}

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT
line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -E -m1 -- "$BOOT_BAD_RE") &&
	fail "at boot: a text kept SMP: $line"
linux_expect_keys "after boot" failed=0

# UP text, bad site: the bring-up fails, nothing written.
bad_site 1 0x2e
mark=$(console_lines)
vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
failed_state "bad site, vcpu-set 2" 1 1 up 0
wait_for_console_since "$mark" "switch to SMP code failed, nothing written: lock site $SITE_RE holds 0x2e" $STEP_TIMEOUT ||
	fail "bad site, vcpu-set 2: no 'switch to SMP code failed' console line naming the site"
log "console: $CONSOLE_MATCH"
check_xen_view "bad site, vcpu-set 2"

bad_site 0 0x3e
vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
vcpu_set_step 2 1 "$LAST_NS" $STEP_TIMEOUT "site restored: vcpu-set 2"
check_xen_view "site restored: vcpu-set 2"
last_ns=$LAST_NS
sites=$(xs_read_guest data/smpalt/sites) || fail "cannot read data/smpalt/sites"
[ "$sites" -gt 0 ] 2>/dev/null || fail "site restored: the switch to SMP rewrote '$sites' lock sites, expected some"
counters_ok "site restored, 2 online"

# SMP text, bad site: the vCPU goes down, the switch to UP fails.
bad_site 1 0x2e
mark=$(console_lines)
vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
failed_state "bad site, vcpu-set 1" 2 1 smp 1
wait_for_console_since "$mark" "switch to UP code failed, nothing written: lock site $SITE_RE holds 0x2e" $STEP_TIMEOUT ||
	fail "bad site, vcpu-set 1: no 'switch to UP code failed' console line naming the site"
log "console: $CONSOLE_MATCH"
counters_ok "bad site, 1 online in SMP text"

bad_site 0 0xf0
vcpu_set_step 2 1 "" $STEP_TIMEOUT "site restored again: vcpu-set 2"
check_xen_view "site restored again: vcpu-set 2"
vcpu_set_step 1 2 "$last_ns" $STEP_TIMEOUT "site restored again: vcpu-set 1"
check_xen_view "site restored again: vcpu-set 1"
linux_expect_keys "at the end" failed=2 refused=0
counters_ok "at the end"
alarm=$(linux_alarm) && fail "at the end: guest console: $alarm"
guest_running || fail "at the end: domain state '$(domain_state)'"
guest_destroy
result SUCCESS "boot: UP, no text kept SMP; a bad site failed the switch to SMP (bring-up refused, UP kept) and to UP (SMP kept), failed 2, Xen agreed; restored: switches $SWITCHES ($sites lock sites), counters ok items=$CHECK_ITEMS"
