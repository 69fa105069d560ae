# Scenario linux-boot-no-keys: without availability keys in xenstore (a
# toolstack that writes none) the patched Linux guest (6.1, 6.12 or 7.2)
# boots as stock Linux does, with every vCPU up, and acts on the keys once
# they come.
# Input: xl create -p linux-smpalt.cfg (vcpus=1, maxvcpus=4), the guest's
# cpu/ folder removed from xenstore, xl unpause; then xl vcpu-set 2.
# Expected: "smpalt: ready"; online 4, mode smp, Xen 4 (check_xen_view),
# the kernel's "4 of 4 vCPUs online" line; vcpu-set 2 (keys written:
# cpu/2 and cpu/3 offline): online 2, smp, held (wait_stable), Xen 2; refused
# 0, no alarming console line, the domain runs; counters ok.

BOOT_TIMEOUT=120
STEP_TIMEOUT=90
MAXVCPUS=4 # xl-configs/linux-smpalt.cfg
AVAIL_LINE="$MAXVCPUS of $MAXVCPUS vCPUs online"

linux_require
domain_create -p "$LINUX_SMPALT_CFG"
xenstore-rm "$(xs_guest_path cpu)" || fail "cannot remove $(xs_guest_path cpu)"
xl unpause "$GUEST" || fail "xl unpause $GUEST failed"
wait_for_console "$GUEST_READY" $BOOT_TIMEOUT ||
	fail "no '$GUEST_READY' within ${BOOT_TIMEOUT}s"
wait_online $MAXVCPUS $STEP_TIMEOUT ||
	fail "no keys: data/smpalt/online is '$ONLINE', expected $MAXVCPUS (every vCPU, as stock)"
linux_expect_keys "no keys" mode=smp
check_xen_view "no keys"
grep -qF -- "$AVAIL_LINE" "$CONSOLE_LOG" ||
	fail "no keys: the console lacks the kernel's '$AVAIL_LINE' line"
linux_clean "no keys"

vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
wait_stable 2 2 $STEP_TIMEOUT ||
	fail "vcpu-set 2: never settled on online=2 mode=smp (online='$ONLINE' mode='$MODE')"
check_xen_view "vcpu-set 2"
linux_clean "vcpu-set 2"
counters_ok "at the end"
guest_destroy

result SUCCESS "no availability keys: $MAXVCPUS of $MAXVCPUS online at boot (smp, Xen $MAXVCPUS); vcpu-set 2 acted on (online 2, Xen 2); counters ok items=$CHECK_ITEMS"
