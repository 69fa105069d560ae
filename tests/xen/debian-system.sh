# Scenario debian-system: the patched kernel as an administrator runs it,
# installed as a package in Debian 13 with systemd and udev, booted from
# the guest's own disk by pvgrub2, switches both ways and powers off
# through systemd.
# guests: debian
# limit: 600
# The limit, in seconds, beyond the boot's allowance the harness adds for
# this guest kind (scripts/run/xen-run.sh): two steps of up to 90 s each,
# two counters checks, the power-off up to 120 s.
# Input: xl create of xl-configs/debian.cfg (vcpus=1, maxvcpus=4), then
# xl vcpu-set 2, the counters check, xl vcpu-set 1, the counters check,
# xl shutdown.
# Expected: systemd's boot ends "running" (no failed unit) and the kernel
# publishes version 1, online 1, mode up, switches 0, refused 0, Xen
# agreeing (guest_start_up); uname -r in the guest is the package's
# release; at 2 the mode is smp after one switch, at 1 up after a second,
# Xen's count of online vCPUs equal to the guest's and no UP text while
# Xen has a secondary up (check_xen_view) at each; the counters check
# (smpalt-appends: lines appended from every online vCPU, each whole,
# each writer's count exact) answers ok at 2 and at 1; the guest is clean
# (refused 0, failed 0, no alarming console line); xl shutdown ends in
# systemd's power-off: the console has systemd-shutdown's "Powering off."
# and then the kernel's power-off line, which a PV guest writes as
# "reboot: Power off not available: System halted instead" (Linux has no
# power-off handler for a PV guest: the reboot call falls back to halt,
# and Xen's halt is a power-off, xen_machine_halt's SHUTDOWN_poweroff)
# and a guest with one as "reboot: Power down"; the domain is gone within
# SHUTDOWN_TIMEOUT (on_poweroff destroys it; on_crash would keep it).

STEP_TIMEOUT=$(guest_param step_timeout)
SHUTDOWN_TIMEOUT=120
POWERING_OFF="systemd-shutdown[1]: Powering off."
# The kernel's last line, with a power-off handler or without one.
POWER_DOWN="reboot: Power down|reboot: Power off not available: System halted instead"

guest_start_up
linux_step_ok "$STEP_TIMEOUT" "uname -r"
release=$STEP_OUT
case $release in *-smpalt) ;; *) fail "the guest runs kernel '$release', expected the package's *-smpalt" ;; esac

vcpu_set_step 2 1 "" "$STEP_TIMEOUT" "vcpu-set 2"
[ "$MODE" = smp ] || fail "vcpu-set 2: mode '$MODE', expected smp"
check_xen_view "at 2"
guest_counters_ok "at 2"
at2=$STEP_OUT

vcpu_set_step 1 2 "" "$STEP_TIMEOUT" "vcpu-set 1"
[ "$MODE" = up ] || fail "vcpu-set 1: mode '$MODE', expected up"
check_xen_view "at 1"
guest_counters_ok "at 1"

start=$(now_cs)
if ! out=$(xl shutdown "$GUEST" 2>&1); then
	echo "$out"
	fail "xl shutdown failed: $(echo "$out" | grep -i error | tail -1)"
fi
wait_domain_gone $SHUTDOWN_TIMEOUT ||
	fail "domain still listed ${SHUTDOWN_TIMEOUT}s after xl shutdown (state $(domain_state))"
gone=$(since "$start")
grep -qF -- "$POWERING_OFF" "$CONSOLE_LOG" ||
	fail "domain went away but the console lacks systemd's '$POWERING_OFF'"
off=$(awk -v m="$POWERING_OFF" 'seen; index($0, m) { seen = 1 }' "$CONSOLE_LOG" |
	grep -oE -- "$POWER_DOWN" | tail -1)
[ -n "$off" ] ||
	fail "domain went away but the console has no kernel power-off line after systemd's '$POWERING_OFF' (expected '${POWER_DOWN%%|*}' or '${POWER_DOWN#*|}')"
alarm=$(guest_alarm) && fail "guest console: $alarm"
result SUCCESS "$release: systemd running, up -> smp -> up (counters at 2: $at2), powered off $gone s after xl shutdown ($off)"
