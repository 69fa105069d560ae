# Scenario linux-boot-up: the patched Linux guest (6.1, 6.12 or 7.2) boots
# in UP form with one vCPU of four, keeps its lock-site table for later,
# and boots in SMP form with two.
# limit: 600
# The limit, in seconds: two boots of the patched guest and vcpu-set round
# trips with counters checks.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4, smpalt.stress=1);
# then xl vcpu-set 2 and 1; then a second guest with vcpus=2.
# Expected, first guest: "smpalt: ready" on the console; data/smpalt/
# version 1, online 1, mode up, switches 0, refused 0; Xen counts 1 vCPU
# online (check_xen_view); the table is kept: no "Freeing SMP alternatives
# memory" line (Linux's line when it frees it); the kernel's status
# (/sys/kernel/debug/smpalt, printed by /init) says mode up, online 1,
# switches 0 like xenstore. vcpu-set 2: online 2, mode smp, switches 1, a
# new last-switch-ns, sites > 0 (the kept table rewritten), Xen agrees;
# vcpu-set 1: online 1, mode up, switches 2, sites > 0, Xen agrees. The
# counters check answers ok with items > 0.
# Second guest (vcpus=2): "smpalt: ready", online 2, mode smp, refused 0,
# Xen counts 2, no table freed, counters ok. A PV guest boots UP and
# switches once when the kernel brings its second vCPU up (switches 1); a
# PVH guest's second vCPU is enabled in the MADT and comes up at boot, so
# it boots SMP (switches 0) with its lock sites kept. Then vcpu-set 1:
# online 1, mode up, one switch more, Xen agrees: a guest booted with two
# vCPUs goes UP too.
# Both: no alarming console line (linux_alarm), the domain never crashes.
# Figures: create -> "smpalt: ready" per boot, switch ns per direction.

BOOT_TIMEOUT=120
# A step to 4 vCPUs (2 host CPUs) took 27 s on a loaded machine: room.
STEP_TIMEOUT=90
STATUS_TIMEOUT=20
FREED_LINE="Freeing SMP alternatives memory"

# table_kept WHAT: no console line says the lock-site table was freed.
table_kept() {
	local line
	line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "$FREED_LINE") &&
		fail "$1: the lock-site table was freed with maxvcpus=4: '$line'"
	log "$1: no '$FREED_LINE' line: table kept"
}

# sites_used WHAT: data/smpalt/sites is a count above 0.
sites_used() {
	SITES=$(xs_read_guest data/smpalt/sites)
	[ "$SITES" -gt 0 ] 2>/dev/null ||
		fail "$1: data/smpalt/sites is '$SITES', expected a count > 0 (the switch rewrote no lock site)"
}

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT
boot1_s=$(since "$CREATE_CS")
table_kept "vcpus=1"
linux_wait_status "vcpus=1" $STATUS_TIMEOUT mode=up online=1 switches=0
linux_clean "vcpus=1"
last_ns=$LAST_NS

vcpu_set_step 2 1 "$last_ns" $STEP_TIMEOUT
sites_used "vcpu-set 2"
to_smp="$LAST_NS ns, $SITES sites, online seen ${STEP_MS} ms after vcpu-set"
check_xen_view "vcpu-set 2"
linux_clean "vcpu-set 2"
vcpu_set_step 1 2 "$LAST_NS" $STEP_TIMEOUT
sites_used "vcpu-set 1"
to_up="$LAST_NS ns, $SITES sites, online seen ${STEP_MS} ms after vcpu-set"
check_xen_view "vcpu-set 1"
linux_clean "vcpu-set 1"
counters_ok "vcpus=1 guest"
note "vcpus=1: ready in $boot1_s s, up, table kept; to smp $to_smp; to up $to_up; counters ok items=$CHECK_ITEMS"
items1=$CHECK_ITEMS
guest_destroy
# The next guest has the same name: keep this console log apart.
send_back "console-$GUEST-vcpus1.log" "$CONSOLE_LOG"

# Switches of a vcpus=2 boot: PV boots UP and switches at the bring-up,
# PVH brings the MADT's enabled vCPUs up before the text is patched.
boot2_switches=$(guest_pick_type pv=1 pvh=0)
linux_boot $BOOT_TIMEOUT "vcpus=2"
boot2_s=$(since "$CREATE_CS")
wait_online 2 $STEP_TIMEOUT ||
	fail "vcpus=2: data/smpalt/online is '$ONLINE', expected 2"
linux_expect_keys "vcpus=2" version=1 mode=smp switches=$boot2_switches refused=0
check_xen_view "vcpus=2"
table_kept "vcpus=2"
linux_clean "vcpus=2"
read_switch_state "$boot2_switches" "" $STEP_TIMEOUT ||
	fail "vcpus=2: data/smpalt/switches is '$SWITCHES', expected $boot2_switches"
vcpu_set_step 1 $((boot2_switches + 1)) "$LAST_NS" $STEP_TIMEOUT "vcpus=2, vcpu-set 1"
sites_used "vcpus=2, vcpu-set 1"
check_xen_view "vcpus=2, vcpu-set 1"
linux_clean "vcpus=2, vcpu-set 1"
counters_ok "vcpus=2 guest"
note "vcpus=2: ready in $boot2_s s, online 2 smp, switches $boot2_switches, Xen 2; vcpu-set 1: up, $SITES sites; counters ok items=$CHECK_ITEMS"
guest_destroy

result SUCCESS "vcpus=1: up, online 1, switches 0, table kept, status agrees (ready in $boot1_s s); to smp $to_smp; to up $to_up; counters ok items=$items1; vcpus=2: smp, online 2, switches $boot2_switches, Xen 2 (ready in $boot2_s s), then vcpu-set 1: up ($SITES sites), counters ok items=$CHECK_ITEMS"
