# Scenario linux-maxvcpus-1: the patched Linux 6.1 guest that can never have
# a second vCPU stays UP, frees its lock-site table at boot as stock Linux
# does, and attempts no onlining.
# Input: xl create linux-smpalt.cfg with vcpus=1 maxvcpus=1
# (smpalt.stress=1); then xl vcpu-set 2 (and -i 2), then
# cpu/1/availability = online written by dom0 itself, past xl.
# Expected: "smpalt: ready"; the console has Linux's "Freeing SMP
# alternatives memory" line (the table freed); data/smpalt/version 1,
# online 1, mode up, switches 0, refused 0; Xen lists one vCPU, online
# (check_xen_view). xl refuses vcpu-set 2 or the guest ignores it; after
# each of the two attempts, IGNORE_SECONDS later: still online 1, mode up,
# switches 0, refused 0, xl vcpu-list one vCPU, the domain running; no
# alarming console line (linux_alarm); the counters check answers ok with
# items > 0.

BOOT_TIMEOUT=120
# A step to 4 vCPUs (2 host CPUs) took 27 s on a loaded machine: room.
STEP_TIMEOUT=90
IGNORE_SECONDS=5
FREED_LINE="Freeing SMP alternatives memory"

# still_up WHAT: one vCPU online in the guest's and Xen's view, UP text,
# no switch ever, nothing refused, no alarm; Xen lists one vCPU only.
still_up() {
	local rows
	expect_guest_state "$1" 1 up 0
	linux_clean "$1"
	check_xen_view "$1"
	rows=$(xl vcpu-list "$GUEST" 2>/dev/null | awk 'NR > 1' | wc -l)
	[ "$rows" -eq 1 ] || {
		xl vcpu-list "$GUEST"
		fail "$1: Xen lists $rows vCPUs for a maxvcpus=1 guest"
	}
}

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "vcpus=1" "maxvcpus=1"
line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "$FREED_LINE") ||
	fail "with maxvcpus=1 the console lacks '$FREED_LINE': the lock-site table was kept"
log "console: $line"
freed=${line#*"$FREED_LINE"}
freed=${freed#: }
still_up boot

refused=''
for opt in "" -i; do
	# shellcheck disable=SC2086 # no option or -i
	if out=$(xl vcpu-set $opt "$GUEST" 2 2>&1); then
		log "xl vcpu-set${opt:+ $opt} 2 accepted: $out"
	else
		log "xl vcpu-set${opt:+ $opt} 2 refused: $out"
		refused="$refused${refused:+, }vcpu-set${opt:+ $opt} 2"
	fi
done
sleep $IGNORE_SECONDS
still_up "xl vcpu-set 2"

xs_write_guest cpu/1/availability online || fail "cannot write cpu/1/availability"
sleep $IGNORE_SECONDS
still_up "cpu/1/availability=online"

counters_ok "on the UP text"
linux_clean "after the counters check"
guest_destroy
result SUCCESS "maxvcpus=1: table freed ('$FREED_LINE${freed:+: $freed}'), up, online 1, switches 0, Xen 1; ${refused:-no vcpu-set} refused by xl, cpu/1 online ignored; counters ok items=$CHECK_ITEMS"
