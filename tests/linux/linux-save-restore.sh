# Scenario linux-save-restore: the patched Linux guest (6.1, 6.12 or 7.2)
# survives `xl save` / `xl restore` in UP and in SMP form and goes on
# switching both ways afterwards, its counters exact; and the Debian 13
# guest with the package's kernel the same.
# guests: linux debian
# limit: 600
# The limit, in seconds: two saves and restores and vcpu-set round trips
# with counters checks (for the Debian guest, beyond its boot's
# allowance).
# Input: the guest started with vcpus=1, maxvcpus=4 (guest_start_up: Linux
# with smpalt.stress=1, Debian idle);
# xl save to a file in dom0's /tmp and xl restore from it, in UP form (one
# vCPU); xl vcpu-set 2; save and restore again, in SMP form (two vCPUs);
# then xl vcpu-set 1, 2, 1.
# Expected: each save ends the domain (gone from xl list) and each restore
# brings it back under the same name; the restored kernel publishes its
# state in the new domain's xenstore home within RESTORE_TIMEOUT with the
# same online, mode and switches as before the save (switches counts text
# switches since boot: a save/restore is none), refused 0, and Xen agrees
# (check_xen_view); after the restores every vcpu-set switches: online and
# mode follow the count, switches +1 each with a new last-switch-ns, Xen
# agrees; the domain never crashes, no alarming console line
# (guest_clean); the counters check answers ok with items > 0 at the end.
# Figures: save and restore seconds for each form; switch ns afterwards.

STEP_TIMEOUT=$(guest_param step_timeout)
# Saving and restoring 64 MB under TCG: tens of seconds on a busy machine;
# the Debian guest has 384 MB.
SAVE_TIMEOUT=$(guest_pick linux=120 debian=400)
RESTORE_TIMEOUT=$SAVE_TIMEOUT
SAVE_FILE=/tmp/linux-save-restore.save

# save_restore FORM ONLINE MODE SWITCHES: xl save then xl restore; the
# restored guest must publish ONLINE, MODE, SWITCHES with Xen agreeing.
save_restore() {
	local form=$1 online=$2 mode=$3 sw=$4 start out
	rm -f "$SAVE_FILE"
	start=$(uptime_cs)
	out=$(timeout $SAVE_TIMEOUT xl save "$GUEST" "$SAVE_FILE" 2>&1) || {
		echo "$out"
		fail "$form: xl save $GUEST failed (above)"
	}
	echo "$out"
	wait_domain_gone || fail "$form: domain still listed after xl save"
	save_s=$(since "$start")
	start=$(uptime_cs)
	out=$(timeout $RESTORE_TIMEOUT xl restore "$SAVE_FILE" 2>&1) || {
		echo "$out"
		fail "$form: xl restore $SAVE_FILE failed (above)"
	}
	echo "$out"
	rm -f "$SAVE_FILE"
	DOMID=$(xl domid "$GUEST" 2>/dev/null) ||
		fail "$form: no domain $GUEST after xl restore"
	log "$form: restored as domain $DOMID"
	wait_for_xs data/smpalt/online "$online" $RESTORE_TIMEOUT ||
		fail "$form: after restore data/smpalt/online is '$(xs_read_guest data/smpalt/online)', expected $online: the restored kernel did not publish its state in domain $DOMID's home"
	restore_s=$(since "$start")
	expect_guest_state "$form restore" "$online" "$mode" "$sw"
	check_xen_view "$form: after restore"
	guest_clean "$form: after restore"
	figures="$figures $form: save ${save_s} s, restore ${restore_s} s;"
	note "$form: saved in $save_s s, restored in $restore_s s: online $online $mode, switches $sw, Xen agrees"
}

guest_start_up
figures=''
save_restore "UP form" 1 up 0
old_ns=$(xs_read_guest data/smpalt/last-switch-ns)

vcpu_set_step 2 1 "$old_ns" $STEP_TIMEOUT "UP form, restored: vcpu-set 2"
check_xen_view "UP form, restored: vcpu-set 2"
guest_clean "UP form, restored: vcpu-set 2"
ns="to-smp $LAST_NS"
save_restore "SMP form" 2 smp 1
last_ns=$(xs_read_guest data/smpalt/last-switch-ns)

switches=1
for n in 1 2 1; do
	switches=$((switches + 1))
	vcpu_set_step $n $switches "$last_ns" $STEP_TIMEOUT \
		"SMP form, restored: vcpu-set $n"
	check_xen_view "SMP form, restored: vcpu-set $n"
	guest_clean "SMP form, restored: vcpu-set $n"
	last_ns=$LAST_NS
	ns="$ns, to-$MODE $LAST_NS"
done
guest_counters_ok "after both restores"
guest_destroy
result SUCCESS "saved and restored in UP and SMP form, state kept, Xen agreed;$figures then vcpu-set 1 2 1 switched (ns: $ns); counters ok items=$CHECK_ITEMS"
