# Scenario crash: a guest crash is reported and the domain preserved.
# Input: xl create with extra="smpalt.crash=1" (config: on_crash="preserve").
# Expected: xl list shows the domain crashed (state contains 'c') and the
# console holds the guest's register dump (a line containing "RIP:") after
# a "smpalt: fatal exception" line; that line is error-level, so it starts
# with the guest's error mark and console_alarm returns it first (the one
# scenario where an alarming line is the point, so it does not fail on it:
# it proves that an error-level line fails every other scenario).
# Then xl destroy.

CRASH_ARG="smpalt.crash=1"
REGDUMP="RIP:"
CRASH_TIMEOUT=60

require_guest
guest_create "extra=\"$CRASH_ARG\""

if ! wait_domain_state c $CRASH_TIMEOUT; then
	state=$(domain_state)
	[ -n "$state" ] || fail "domain vanished instead of staying crashed (on_crash=preserve)"
	fail "domain state '$state' is not crashed ${CRASH_TIMEOUT}s after create"
fi
state=$(domain_state)
# xenctx shows where vCPU 0 stopped, for the log.
xenctx "$DOMID" 0 2>&1 | head -40 || true
wait_for_console "$REGDUMP" 5 || fail "domain crashed but the console has no '$REGDUMP' register dump"
alarm=$(console_alarm) ||
	fail "domain crashed but console_alarm finds no error-level line"
case $alarm in
"${SMPALT_ERROR_MARK}smpalt: fatal exception "*) ;;
*) fail "console_alarm's first line is '$alarm', expected '${SMPALT_ERROR_MARK}smpalt: fatal exception ...'" ;;
esac
log "console_alarm: $alarm"

guest_destroy
result SUCCESS "domain crashed (state '$state'), register dump on the console"
