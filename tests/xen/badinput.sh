# Scenario badinput: bad hotplug input is logged and ignored, never fatal
# (DESIGN.md, vCPU hotplug protocol).
# Input, after "smpalt: ready": cpu/0/availability = offline (vCPU 0 never
# goes offline), cpu/1/availability = "bogus" (unknown value),
# cpu/9/availability = online (beyond maxvcpus=4), cpu/1 removed.
# Expected: the guest stays alive (not crashed, not shut down), online = 1
# and mode = up throughout, and a following `xl vcpu-set 2` still works
# (online = 2, mode = smp). Each bad input is named on the guest console.

READY="smpalt: ready"
BOOT_TIMEOUT=60
SETTLE_SECONDS=2
STEP_TIMEOUT=30
# An id at or beyond maxvcpus in xl-configs/smpalt.cfg (4).
BEYOND_MAXVCPUS=9

# mark_console: remember how far the console log goes before an input.
mark_console() { mark=$(wc -l <"$CONSOLE_LOG"); }

# still_sane WHAT KEY: the guest survived the last bad input unchanged and
# logged it after the mark, naming the key (STYLE.md: log with the key).
still_sane() {
	local state online mode
	sleep $SETTLE_SECONDS
	tail -n +$((mark + 1)) "$CONSOLE_LOG" | grep -qF -- "$2" ||
		fail "after $1: no new console line names $2"
	state=$(domain_state)
	case $state in
	'') fail "after $1: the domain is gone" ;;
	*[cs]*) fail "after $1: domain state '$state' (crashed or shut down)" ;;
	esac
	online=$(xs_read_guest data/smpalt/online)
	mode=$(xs_read_guest data/smpalt/mode)
	[ "$online" = 1 ] || fail "after $1: data/smpalt/online is '$online', expected 1"
	[ "$mode" = up ] || fail "after $1: data/smpalt/mode is '$mode', expected up"
	log "after $1: state '$state', online=$online mode=$mode"
}

require_guest
guest_create
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"
wait_for_xs data/smpalt/mode up $STEP_TIMEOUT || fail "data/smpalt/mode never became up"

mark_console
xs_write_guest cpu/0/availability offline || fail "cannot write cpu/0/availability"
still_sane "cpu/0/availability=offline" cpu/0/availability
xs_write_guest cpu/0/availability online

mark_console
xs_write_guest cpu/1/availability bogus || fail "cannot write cpu/1/availability"
still_sane "cpu/1/availability=bogus" cpu/1/availability

mark_console
xs_write_guest cpu/$BEYOND_MAXVCPUS/availability online ||
	fail "cannot write cpu/$BEYOND_MAXVCPUS/availability"
still_sane "cpu/$BEYOND_MAXVCPUS/availability=online (beyond maxvcpus)" \
	cpu/$BEYOND_MAXVCPUS

mark_console
xenstore-rm "$(xs_guest_path cpu/1)" || fail "cannot remove cpu/1"
still_sane "cpu/1 removed" cpu/1

# xl vcpu-set rewrites every cpu/<i>/availability < maxvcpus.
xl vcpu-set "$GUEST" 2 || fail "xl vcpu-set 2 failed after the bad input"
wait_for_xs data/smpalt/online 2 $STEP_TIMEOUT ||
	fail "after the bad input, vcpu-set 2: online is '$(xs_read_guest data/smpalt/online)', expected 2"
wait_for_xs data/smpalt/mode smp $STEP_TIMEOUT ||
	fail "after the bad input, vcpu-set 2: mode is '$(xs_read_guest data/smpalt/mode)', expected smp"

guest_destroy
result SUCCESS "4 kinds of bad input ignored, vcpu-set 2 still reached smp"
