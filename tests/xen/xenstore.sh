# Scenario xenstore: both directions of xenstore work between dom0 and guest.
# Input: xl create, wait for "smpalt: ready", dom0 writes a random token to
# control/smpalt/echo.
# Expected: the guest's watch fires and it writes the same token to
# data/smpalt/echo within ECHO_TIMEOUT; the guest also wrote data/smpalt/mode;
# no alarming console line (console_alarm).

BOOT_TIMEOUT=60
ECHO_TIMEOUT=20

guest_boot $BOOT_TIMEOUT

mode=$(xs_read_guest data/smpalt/mode) || fail "guest never wrote data/smpalt/mode"
log "guest wrote data/smpalt/mode = '$mode'"

token=$(random_token)
start=$(now_cs)
xs_write_guest control/smpalt/echo "$token" ||
	fail "dom0 cannot write control/smpalt/echo"
wait_for_xs data/smpalt/echo "$token" $ECHO_TIMEOUT ||
	fail "data/smpalt/echo is '$(xs_read_guest data/smpalt/echo)', expected '$token' within ${ECHO_TIMEOUT}s"
rtt=$(since "$start")
note "echo round trip $rtt s"
alarm=$(console_alarm) && fail "guest console: $alarm"

guest_destroy
result SUCCESS "echo '$token' came back in $rtt s, mode=$mode"
