# Scenario boot: the guest boots in UP form and publishes its state.
# Input: xl create of xl-configs/smpalt.cfg (vcpus=1, maxvcpus=4).
# Expected: console shows the "smpalt kernel" banner, then "smpalt: ready";
# data/smpalt/mode = up, data/smpalt/online = 1, data/smpalt/sites is a
# positive integer, data/smpalt/version = 1 (docs/xenstore.md); Xen's
# count of online vCPUs (xl vcpu-list) is 1 as well (check_xen_view); no
# alarming console line (console_alarm). Then xl destroy.

BANNER="smpalt kernel"
BOOT_TIMEOUT=60
KEY_TIMEOUT=20
INTERFACE_VERSION=1

require_guest
guest_create

wait_for_any_console $BOOT_TIMEOUT || fail "no console output within ${BOOT_TIMEOUT}s"
wait_for_console "$BANNER" $BOOT_TIMEOUT || fail "no '$BANNER' banner within ${BOOT_TIMEOUT}s"
wait_for_console "$GUEST_READY" $BOOT_TIMEOUT || fail "no '$GUEST_READY' within ${BOOT_TIMEOUT}s"

wait_for_xs data/smpalt/mode up $KEY_TIMEOUT ||
	fail "data/smpalt/mode is '$(xs_read_guest data/smpalt/mode)', expected up"
wait_for_xs data/smpalt/online 1 $KEY_TIMEOUT ||
	fail "data/smpalt/online is '$(xs_read_guest data/smpalt/online)', expected 1"
wait_for_xs data/smpalt/sites "" $KEY_TIMEOUT || fail "data/smpalt/sites never written"
sites=$(xs_read_guest data/smpalt/sites)
case $sites in
'' | *[!0-9]*) fail "data/smpalt/sites is '$sites', expected a positive integer" ;;
esac
[ "$sites" -gt 0 ] || fail "data/smpalt/sites is $sites, expected > 0"
wait_for_xs data/smpalt/version $INTERFACE_VERSION $KEY_TIMEOUT ||
	fail "data/smpalt/version is '$(xs_read_guest data/smpalt/version)', expected $INTERFACE_VERSION"
check_xen_view "boot"
alarm=$(console_alarm) && fail "guest console: $alarm"

guest_destroy
result SUCCESS "banner and ready seen, mode=up online=1 sites=$sites version=$INTERFACE_VERSION"
