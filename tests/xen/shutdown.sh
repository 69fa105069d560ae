# Scenario shutdown: the guest honours a clean shutdown request.
# Input: xl create, wait for "smpalt: ready", then xl shutdown.
# Expected: the domain is gone within SHUTDOWN_TIMEOUT (xl list no longer
# shows it) and the console shows "smpalt: shutting down (poweroff)" and
# no alarming line (console_alarm).

SHUTDOWN_MSG="smpalt: shutting down (poweroff)"
BOOT_TIMEOUT=60
SHUTDOWN_TIMEOUT=30

guest_boot $BOOT_TIMEOUT

start=$(now_cs)
# Without -w: the scenario does its own bounded wait.
if ! out=$(xl shutdown "$GUEST" 2>&1); then
	echo "$out"
	fail "xl shutdown failed: $(echo "$out" | grep -i error | tail -1)"
fi
echo "$out"
wait_domain_gone $SHUTDOWN_TIMEOUT ||
	fail "domain still listed ${SHUTDOWN_TIMEOUT}s after xl shutdown (state $(domain_state))"
gone=$(since "$start")
note "domain gone $gone s after xl shutdown"
grep -qF -- "$SHUTDOWN_MSG" "$CONSOLE_LOG" ||
	fail "domain went away but the console lacks '$SHUTDOWN_MSG'"
alarm=$(console_alarm) && fail "guest console: $alarm"
result SUCCESS "gone $gone s after xl shutdown, shutdown message seen"
