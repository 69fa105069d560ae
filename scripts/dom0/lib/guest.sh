# smpalt dom0 library: a scenario's guest whatever its kernel: create,
# wait for its ready line, destroy, its console log (waits, lines since a
# mark), a verdict the guest gives itself (guest_test_result). The guest
# kinds' own parts are their drivers (driver.sh).

# The guest kernel must be in the initramfs, else the scenario cannot run.
require_guest() {
	[ -f "$SMPALT_ELF" ] || result SKIP "no guest kernel at $SMPALT_ELF"
}

# domain_create [-p] CFG [xl key=value ...]: create this scenario's guest
# from the xl config CFG (-p: paused, as xl create -p) as a guest of the
# run's type (guest_type), named smpalt-<scenario> so that each scenario
# has its own console log. Sets GUEST, DOMID, CONSOLE_LOG and CREATE_CS.
#
# The configs of xl-configs/ all say type = "pv". For pvh, type="pvh" goes
# after the caller's keys: xl appends the key=value arguments of xl create
# to the config's text before parsing it, and the last assignment of a key
# wins. With it tsc_mode="native": in the default mode Xen intercepts the
# guest's RDTSCP under QEMU TCG (it emulates the TSC there), and its SVM
# code cannot get that instruction's length from QEMU's SVM ("SVM Insn len
# emulation failed ... 0f 01 f9" in xl dmesg): the guest dies at boot.
# Native, the guest reads the TSC itself and Xen intercepts nothing.
domain_create() {
	local paused='' cfg type
	[ "$1" != -p ] || { paused=-p; shift; }
	cfg=$1
	shift
	case $(guest_type) in
	pvh) set -- "$@" 'type="pvh"' 'tsc_mode="native"' ;;
	esac
	GUEST=smpalt-$SCENARIO
	CONSOLE_LOG=$CONSOLE_DIR/guest-$GUEST.log
	rm -f "$CONSOLE_LOG"
	CREATE_CS=$(now_cs)
	log "xl create $paused $cfg name=\"$GUEST\" $*"
	# shellcheck disable=SC2086 # -p or nothing
	xl create -q $paused "$cfg" "name=\"$GUEST\"" "$@" ||
		fail "xl create failed"
	DOMID=$(xl domid "$GUEST" 2>/dev/null) || fail "xl domid $GUEST failed after create"
	log "created $GUEST as domain $DOMID in $(since "$CREATE_CS") s"
	# A type key xl did not take would test the wrong guest unnoticed.
	if [ "$(guest_type)" != pv ]; then
		type=$(domain_type)
		[ "$type" = "$(guest_type)" ] ||
			fail "xl create: $GUEST is a '${type:-<unknown>}' domain (xl list -l), expected $(guest_type)"
		log "$GUEST is a $type domain (xl list -l)"
	fi
}

# guest_create [xl key=value ...]: domain_create of SMPALT_CFG (the smpalt
# guest's installed config, unless the scenario names another).
guest_create() {
	domain_create "$SMPALT_CFG" "$@"
}

# The console line both guest kinds print once they serve xenstore (the
# smpalt kernel's kernel/main.c, the patched Linux's first publication).
GUEST_READY="smpalt: ready"

# guest_wait_ready TIMEOUT: GUEST_READY on the console within TIMEOUT
# seconds, or the scenario fails.
guest_wait_ready() {
	wait_for_console "$GUEST_READY" "$1" ||
		fail "no '$GUEST_READY' within ${1}s"
}

# domain_destroy: keep the guest's xenstore home in the scenario log, then
# xl destroy it and wait until it is gone (what every driver's destroy does).
domain_destroy() {
	echo "--- xenstore of $GUEST (domain $DOMID) before destroy"
	xenstore-ls -f "/local/domain/$DOMID" 2>&1
	echo "---"
	xl destroy "$GUEST" || fail "xl destroy $GUEST failed"
	wait_domain_gone || fail "domain $GUEST still listed after xl destroy"
}

# wait_for_console PATTERN [TIMEOUT]: wait until a line of the guest's
# console log contains PATTERN (fixed string). Returns 1 on timeout.
wait_for_console() {
	local pattern=$1 timeout=${2:-$DEFAULT_READY_TIMEOUT} start end
	start=$(now_cs)
	end=$(deadline_cs "$timeout")
	while ! grep -qF -- "$pattern" "$CONSOLE_LOG" 2>/dev/null; do
		if [ "$(now_cs)" -gt "$end" ]; then
			log "console: '$pattern' not seen within ${timeout}s"
			return 1
		fi
		usleep $POLL_USEC
	done
	note "console '$pattern' after $(since "$start") s (create +$(since "$CREATE_CS") s)"
	return 0
}

# wait_for_any_console [TIMEOUT]: wait for the guest's first console byte.
wait_for_any_console() {
	local timeout=${1:-$DEFAULT_READY_TIMEOUT} end
	end=$(deadline_cs "$timeout")
	while [ ! -s "$CONSOLE_LOG" ]; do
		[ "$(now_cs)" -le "$end" ] || return 1
		usleep $POLL_USEC
	done
	note "first guest console output at create +$(since "$CREATE_CS") s"
}

# guest_test_result [TIMEOUT]: for tests that run inside the guest: wait for
# the console line "Test result: STATUS [reason]" and end the scenario with
# it. No such line within TIMEOUT is an ERROR.
guest_test_result() {
	local timeout=${1:-$DEFAULT_READY_TIMEOUT} line
	wait_for_console "Test result: " "$timeout" ||
		result ERROR "guest printed no 'Test result:' line within ${timeout}s"
	line=$(grep -F "Test result: " "$CONSOLE_LOG" | tail -1 | tr -d '\r')
	line=${line#*Test result: }
	# shellcheck disable=SC2086 # split into status and reason on purpose
	result $line
}

# guest_running: the domain exists and has neither crashed nor shut down.
guest_running() {
	local s
	s=$(domain_state)
	case $s in
	'' | *[cs]*) return 1 ;;
	esac
	return 0
}

# console_since LINE: the guest's console after its first LINE lines.
console_since() {
	tail -n +$(($1 + 1)) "$CONSOLE_LOG" 2>/dev/null | tr -d '\r'
}

console_lines() {
	wc -l <"$CONSOLE_LOG" 2>/dev/null || echo 0
}

# wait_for_console_since LINE ERE TIMEOUT: wait until a console line after
# the first LINE lines (console_lines taken before the action) matches ERE;
# sets CONSOLE_MATCH to the first such line. Returns 1 after TIMEOUT seconds.
wait_for_console_since() {
	local mark=$1 ere=$2 end
	end=$(($(uptime_cs) + $3 * CS_PER_SEC))
	until CONSOLE_MATCH=$(console_since "$mark" | grep -E -m1 -- "$ere"); do
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $POLL_USEC
	done
}
