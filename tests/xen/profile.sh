# Scenario profile: the guest runs a phased workload profile written to
# control/smpalt/profile (syntax: include/smpalt/profile.h, docs/workload-profiles.md).
# Input: a guest booted without smpalt.profile=; then, in order:
#   1. bad profiles ("ramp:20:0:x", "idle:0", 17 phases): each logged on
#      the console with its value ("profile: ignoring"), nothing else
#      changes (phase stays manual, load 0), the guest keeps running;
#   2. "up:3:0:200 hold:6:150 rest:2": phases up, hold, rest, then done,
#      each published in data/smpalt/phase; load > 0 during hold, 0 after;
#   3. "default" again as a restart, then control/smpalt/demand 50 while
#      it runs: the profile ends (console "profile: ended by"), phase
#      manual, load near 50; demand 0 at the end: load 0.
# Expected: as above; the guest never crashes; its vCPUs never change
# (one online in its own view and in Xen's, check_xen_view); no alarming
# console line (console_alarm); the counters check answers ok at the end.
# Also: a guest booted with smpalt.profile=a:2:100,b:1 starts on its own.

BOOT_TIMEOUT=60
SAMPLE_TIMEOUT=20
PHASE_TIMEOUT=15
HOLD_LOAD_MIN=100
MANUAL=50
MANUAL_MIN=30
MANUAL_MAX=70
CMDLINE_VALUE=a:2:100,b:1

# phase_seen NAME: wait until data/smpalt/phase is NAME.
phase_seen() {
	wait_for_xs data/smpalt/phase "$1" $PHASE_TIMEOUT ||
		fail "data/smpalt/phase never became '$1' (now '$(xs_read_guest data/smpalt/phase)')"
}

# --- boot: no profile, phase manual, idle
guest_boot $BOOT_TIMEOUT
phase_seen manual
wait_for_xs data/smpalt/load 0 $SAMPLE_TIMEOUT || fail "no data/smpalt/load=0 at boot"
check_xen_view "boot"

# --- 1. bad profiles: logged with the value, ignored
seventeen=
i=0
while [ $i -lt 17 ]; do
	seventeen="${seventeen}p$i:1 "
	i=$((i + 1))
done
for bad in "ramp:20:0:x" "idle:0" "$seventeen"; do
	xs_write_guest control/smpalt/profile "$bad" || fail "cannot write control/smpalt/profile"
	wait_for_console "profile: ignoring control/smpalt/profile='$bad'" $SAMPLE_TIMEOUT ||
		fail "bad profile '$bad' not logged with its value"
done
sleep 1
guest_running || fail "guest stopped after bad profiles (state $(domain_state))"
[ "$(xs_read_guest data/smpalt/phase)" = manual ] || fail "a bad profile changed the phase"
[ "$(xs_read_guest data/smpalt/load)" = 0 ] || fail "a bad profile changed the load"
note "3 bad profiles logged and ignored"

# --- 2. a short profile: every phase published, then done
xs_write_guest control/smpalt/profile "up:3:0:200 hold:6:150 rest:2" ||
	fail "cannot write control/smpalt/profile"
phase_seen up
phase_seen hold
# Phase and load in one read, so a load is judged only with the phase it
# was published in: on a busy host one read can take most of a second and
# the scenario may notice "hold" late.  The hold phase passes when any
# read taken during it shows the load.
load=0
held=0
end=$(($(uptime_cs) + 12 * CS_PER_SEC))
while [ "$(uptime_cs)" -le $end ]; do
	vals=$(xs_read_guest_keys data/smpalt/phase data/smpalt/load)
	# shellcheck disable=SC2086 # two words on purpose
	set -- $vals
	[ "${1:-}" = hold ] || break
	held=$((held + 1))
	load=${2:-0}
	[ "$load" -lt $HOLD_LOAD_MIN ] 2>/dev/null || break
	usleep $POLL_USEC
done
[ "$held" -gt 0 ] || fail "phase hold: no read of phase and load while it ran"
[ "${load:-0}" -ge $HOLD_LOAD_MIN ] 2>/dev/null ||
	fail "phase hold: load '$load' in $held reads during hold, expected >= $HOLD_LOAD_MIN"
note "phase hold: load $load ($held reads during hold)"
phase_seen rest
phase_seen "done"
wait_for_xs data/smpalt/load 0 $SAMPLE_TIMEOUT || fail "load not back to 0 after the profile"
grep -q "profile: done after 11 s" "$CONSOLE_LOG" || fail "no 'profile: done after 11 s' on the console"

# --- 3. the default profile, ended by a manual demand
xs_write_guest control/smpalt/profile default || fail "cannot write control/smpalt/profile"
wait_for_console "profile: started from control/smpalt/profile='default'" $SAMPLE_TIMEOUT ||
	fail "default profile not started"
phase_seen idle
xs_write_guest control/smpalt/demand $MANUAL || fail "cannot write control/smpalt/demand"
phase_seen manual
wait_for_console "profile: ended by control/smpalt/demand" $SAMPLE_TIMEOUT ||
	fail "no 'profile: ended by' line"
end=$(($(uptime_cs) + SAMPLE_TIMEOUT * CS_PER_SEC))
while :; do
	load=$(xs_read_guest data/smpalt/load)
	[ "${load:-0}" -ge $MANUAL_MIN ] 2>/dev/null && [ "$load" -le $MANUAL_MAX ] && break
	[ "$(uptime_cs)" -le $end ] || fail "manual demand $MANUAL: load '$load'"
	usleep $POLL_USEC
done
note "manual demand $MANUAL ended the profile: load $load"
xs_write_guest control/smpalt/demand 0
wait_for_xs data/smpalt/load 0 $SAMPLE_TIMEOUT || fail "load not back to 0 after demand 0"
check_counters || fail "counters check: $CHECK_REPLY"
counters="counters exact (items=$CHECK_ITEMS)"
check_xen_view "after the profiles"
alarm=$(console_alarm) && fail "guest console: $alarm"
guest_destroy

# --- 4. a profile on the kernel command line starts at boot
guest_create "extra=\"smpalt.profile=$CMDLINE_VALUE\""
wait_for_console "$GUEST_READY" $BOOT_TIMEOUT ||
	fail "cmdline guest: no '$GUEST_READY'"
wait_for_console "profile: started from smpalt.profile='$CMDLINE_VALUE'" $SAMPLE_TIMEOUT ||
	fail "smpalt.profile= did not start the profile"
phase_seen "done"
alarm=$(console_alarm) && fail "cmdline guest console: $alarm"
guest_destroy

result SUCCESS "bad profiles logged and ignored; phases up/hold/rest/done published, load $HOLD_LOAD_MIN+ in hold; manual demand ends a profile; smpalt.profile= at boot; $counters"
