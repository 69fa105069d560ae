# Demo (run by `make demo-xen`, not a test): boot the guest, stream its
# console live to the host, show its published data/smpalt state, add a
# vCPU and take it away again, then shut the guest down.

READY="smpalt: ready"
BOOT_TIMEOUT=60
SETTLE_SECONDS=5
SHUTDOWN_TIMEOUT=30
DEMO_VCPUS=2

show_state() {
	note "state: $(xenstore-ls -f "$(xs_guest_path data/smpalt)" 2>/dev/null |
		sed 's|.*/data/smpalt/||' | tr '\n' ' ')"
}

stream_console() {
	while [ ! -f "$CONSOLE_LOG" ]; do usleep $POLL_USEC; done
	tail -n +1 -f "$CONSOLE_LOG" | while IFS= read -r l; do
		echo "@@SMPALT LIVE $l" >/dev/console
	done
}

require_guest
guest_create
stream_console &
streamer=$!
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"
show_state

note "xl vcpu-set $GUEST $DEMO_VCPUS"
xl vcpu-set "$GUEST" $DEMO_VCPUS || fail "xl vcpu-set $DEMO_VCPUS failed"
sleep $SETTLE_SECONDS
show_state

note "xl vcpu-set $GUEST 1"
xl vcpu-set "$GUEST" 1 || fail "xl vcpu-set 1 failed"
sleep $SETTLE_SECONDS
show_state

note "xl shutdown $GUEST"
xl shutdown "$GUEST" || fail "xl shutdown failed"
wait_domain_gone $SHUTDOWN_TIMEOUT || fail "guest still there ${SHUTDOWN_TIMEOUT}s after xl shutdown"
sleep 1
kill $streamer 2>/dev/null
result SUCCESS "demo complete"
