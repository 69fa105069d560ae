# Scenario linux-boot-cycles: ten boots of the patched Linux guest in a
# row, each taken from one vCPU to four and back to one, then left idle:
# none of them crashes.
# types: pvh
# Why PVH only: PVH guests, stock and patched, were seen to triple-fault
# ("d1v0 Triple fault - invoking HVM shutdown action 1" in xl dmesg),
# at boot and idle after going from two vCPUs to one. The cause is a
# race in QEMU 7.2's emulation of SVM, which PV guests do not use
# (docs/linux.md, "The triple fault of vCPU 0"); PVH runs use a QEMU with
# it fixed (scripts/build/build-qemu.sh), and this scenario checks that
# the fix holds. The PV runs of vcpu-set-sequence, vcpu-set-storm and
# soak cover PV guests. This scenario fails with Xen's line when it
# happens.
# limit: 1500
# The limit, in seconds: ten boots, each 1 -> 4 -> 1 and 10 s idle (80 s
# a boot with a kernel build beside QEMU).
# Input: CYCLES times: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4,
# smpalt.stress=1); xl vcpu-set 4; xl vcpu-set 1; IDLE_S seconds idle;
# xl destroy.
# Expected, each boot: UP at boot (linux_boot_up: online 1, mode up,
# switches 0, Xen agrees); vcpu-set 4: online 4, mode smp, switches 1, Xen
# agrees; vcpu-set 1: online 1, mode up, switches 2, Xen agrees; after the
# idle time the domain still runs (no crash, no shutdown), no alarming
# console line, refused and failed 0, and no "Triple fault" line for the
# domain in xl dmesg. At the end the counters check of the last boot
# answers ok with items > 0.
# Figures: create -> ready per boot (s), vcpu-set 4 and 1 reaction (ms).

STEP_TIMEOUT=$(guest_param step_timeout)
CYCLES=10
# The triple fault came within a minute of the offline, idle; each boot
# stays idle this long after it (the ten boots add up to more than that).
IDLE_S=10

# triple_fault_line: Xen's line for a triple fault of this domain, if any.
triple_fault_line() {
	xl dmesg 2>/dev/null | grep -F "d${DOMID}v" | grep -F -m1 "Triple fault"
}

ready_s='' up_ms='' down_ms=''
for cycle in $(seq 1 $CYCLES); do
	linux_start_up
	ready_s="$ready_s $(since "$CREATE_CS")"
	vcpu_set_step 4 1 "$LAST_NS" "$STEP_TIMEOUT" "boot $cycle: vcpu-set 4"
	check_xen_view "boot $cycle: vcpu-set 4"
	up_ms="$up_ms $STEP_MS"
	vcpu_set_step 1 2 "$LAST_NS" "$STEP_TIMEOUT" "boot $cycle: vcpu-set 1"
	check_xen_view "boot $cycle: vcpu-set 1"
	down_ms="$down_ms $STEP_MS"
	sleep $IDLE_S
	line=$(triple_fault_line) && fail "boot $cycle: Xen: $line"
	linux_clean "boot $cycle: after ${IDLE_S} s idle on one vCPU"
	[ "$cycle" -lt $CYCLES ] || counters_ok "boot $cycle"
	guest_destroy
	# The next guest has the same name: keep this console log apart.
	send_back "console-$GUEST-boot$cycle.log" "$CONSOLE_LOG"
	log "boot $cycle of $CYCLES: 1 -> 4 -> 1, idle ${IDLE_S} s: clean"
done

result SUCCESS "$CYCLES boots, each 1 -> 4 -> 1 then ${IDLE_S} s idle: no crash, no triple fault, Xen agreed at each step; ready s:$ready_s; vcpu-set 4 ms:$up_ms; vcpu-set 1 ms:$down_ms; counters ok items=$CHECK_ITEMS"
