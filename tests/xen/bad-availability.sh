# Scenario bad-availability: bad hotplug input in the guest's cpu/ keys is
# logged and ignored, never fatal (docs/xenstore.md, cpu/<i>/availability).
# Input, after "smpalt: ready" (1 vCPU online, maxvcpus=4), one at a time:
#   cpu/1/availability = bogus          (neither online nor offline)
#   cpu/7/availability = online         (a vCPU id at maxvcpus and beyond)
#   cpu/40/availability = online        (beyond any maxvcpus here)
#   cpu/0/availability = offline        (vCPU 0 never goes offline)
#   xenstore-rm cpu/2/availability      (a key that vanishes)
#   a burst of BURST_WRITES writes in one xenstore-write (no waiting),
#   to cpu/1, cpu/3 (junk values) and cpu/9, ending on cpu/1 = LAST_JUNK
# Expected after each: a new console line names the key (and the value
# where the guest has one: the bad value, vCPU 0's offline), the domain
# runs, online=1, mode=up and switches unchanged, and Xen agrees: one vCPU
# online in xl vcpu-list (check_xen_view); valid values are put back after
# each. Then xl vcpu-set 2 still works: online=2, mode=smp, Xen agrees; no
# alarming console line (console_alarm).

BOOT_TIMEOUT=60
LOG_TIMEOUT=30
STEP_TIMEOUT=45
# Ids at or beyond maxvcpus=4 (xl-configs/smpalt.cfg).
AT_OR_BEYOND=7
FAR_BEYOND=40
BURST_BEYOND=9
BURST_WRITES=60
LAST_JUNK=junk-last

# still_sane WHAT: the guest ran through the last bad input unchanged.
still_sane() {
	expect_guest_state "$1" 1 up 0
	check_xen_view "after $1"
}

# expect_logged WHAT PATTERN: a console line after the mark matches the
# extended regular expression PATTERN within LOG_TIMEOUT.
expect_logged() {
	wait_for_console_since "$mark" "$2" $LOG_TIMEOUT ||
		fail "after $1: no console line matching '$2' within ${LOG_TIMEOUT}s"
	log "after $1: console: $CONSOLE_MATCH"
	inputs=$((inputs + 1))
}

mark_console() { mark=$(console_lines); }

guest_boot $BOOT_TIMEOUT
wait_online 1 $STEP_TIMEOUT || fail "online is '$ONLINE' after boot, expected 1"
inputs=0

mark_console
xs_write_guest cpu/1/availability bogus || fail "cannot write cpu/1/availability"
expect_logged "cpu/1/availability=bogus" 'cpu/1/availability=bogus'
still_sane "cpu/1/availability=bogus"
xs_write_guest cpu/1/availability offline

for id in $AT_OR_BEYOND $FAR_BEYOND; do
	mark_console
	xs_write_guest cpu/$id/availability online ||
		fail "cannot write cpu/$id/availability"
	expect_logged "cpu/$id/availability=online" "cpu/$id(/availability)?[=:]"
	still_sane "cpu/$id/availability=online (maxvcpus 4)"
done

mark_console
xs_write_guest cpu/0/availability offline || fail "cannot write cpu/0/availability"
expect_logged "cpu/0/availability=offline" 'cpu/0/availability=offline'
still_sane "cpu/0/availability=offline"
xs_write_guest cpu/0/availability online

mark_console
xenstore-rm "$(xs_guest_path cpu/2/availability)" || fail "cannot remove cpu/2/availability"
expect_logged "xenstore-rm cpu/2/availability" 'cpu/2/availability[=:]'
still_sane "xenstore-rm cpu/2/availability"

# The burst: one xenstore-write process, every pair a write of its own.
mark_console
set --
i=1
while [ $i -lt $BURST_WRITES ]; do
	case $((i % 3)) in
	0) set -- "$@" "$(xs_guest_path cpu/1/availability)" "junk-$i" ;;
	1) set -- "$@" "$(xs_guest_path cpu/3/availability)" "junk-$i" ;;
	2) set -- "$@" "$(xs_guest_path cpu/$BURST_BEYOND/availability)" online ;;
	esac
	i=$((i + 1))
done
set -- "$@" "$(xs_guest_path cpu/1/availability)" $LAST_JUNK
start=$(uptime_cs)
xenstore-write "$@" || fail "the burst of $BURST_WRITES writes failed"
log "burst of $BURST_WRITES writes sent in $((($(uptime_cs) - start) * CS_TO_MS)) ms"
expect_logged "a burst of $BURST_WRITES writes" "cpu/1/availability=$LAST_JUNK"
still_sane "a burst of $BURST_WRITES writes"

# Valid values back (the removed key too), then a real change still works.
xs_write_guest cpu/1/availability offline
xs_write_guest cpu/3/availability offline
start=$(uptime_cs)
vcpu_set 2 || fail "xl vcpu-set 2 failed after the bad input"
wait_online 2 $STEP_TIMEOUT ||
	fail "after the bad input, vcpu-set 2: online is '$ONLINE', expected 2"
read_switch_state 1 "" $STEP_TIMEOUT ||
	fail "after the bad input, vcpu-set 2: switches is '$SWITCHES', expected 1"
[ "$MODE" = smp ] || fail "after the bad input, vcpu-set 2: mode is '$MODE', expected smp"
ms=$(((SEEN_CS - start) * CS_TO_MS))
check_xen_view "vcpu-set 2 after the bad input"
alarm=$(console_alarm) && fail "guest console: $alarm"
guest_running || fail "domain state '$(domain_state)' at the end"

note "vcpu-set 2 after the bad input: online=2 mode=smp in $ms ms"
guest_destroy
result SUCCESS "$inputs bad inputs logged (bad value, ids $AT_OR_BEYOND and $FAR_BEYOND >= maxvcpus, vCPU 0 offline, removed key, burst of $BURST_WRITES) with state kept; vcpu-set 2 then reached online=2 smp in $ms ms"
