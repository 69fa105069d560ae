# Scenario linux-stock: the control. Stock Linux as a domU: under
# make test-linux the stock control (make linux STOCK=1: the patched
# guest's tree and default configuration without the series), otherwise
# the dom0 kernel image (Debian's: 6.1 on Xen 4.17, 6.12 on XEN=4.20),
# with scripts/build/mk-linux-domu.sh's initramfs and xl-configs/linux.cfg,
# as a PV guest brings every possible vCPU up at boot (as a PVH guest only
# those ACPI's MADT marks enabled, the vcpus= ones: the others are hotplug
# CPUs), and a vCPU added later by `xl vcpu-set` stays offline while no
# user space onlines it: what the patched kernel (the other scenarios
# here) changes.
# Input: xl create linux.cfg (vcpus=1, maxvcpus=4) with extra= without
# "quiet" (the kernel's boot lines on the console); /init prints
# "linux-bench: online <list> at <uptime>" and "linux-bench: present <list>
# at <uptime>" whenever /sys/devices/system/cpu/online or present changes
# (polled every 50 ms), and onlines nothing itself. Then xl vcpu-set 2.
# Expected: the console has "smp: Brought up 1 node, 4 CPUs" (PV: all four
# vCPUs up at boot, vcpus=1 notwithstanding) or "smp: Brought up 1 node,
# 1 CPU" (PVH); online then settles on "0" and Xen counts 1 vCPU online
# (xl vcpu-list); after vcpu-set 2 the kernel
# registers the vCPU (a "present" line listing cpu 1) but leaves it
# offline: for OFFLINE_SECONDS after that line no "online" line lists more
# than cpu 0 and Xen still counts 1 online; no alarming console line
# (linux_alarm).
# Figures: boot time to the first /init line; vcpu-set to "present".

# Keep in step with extra= in xl-configs/linux.cfg, less "quiet".
STOCK_EXTRA="console=hvc0 rdinit=/init"
LINE_ONLINE="linux-bench: online"
LINE_PRESENT="linux-bench: present"
# What stock Linux brings up at boot with vcpus=1 maxvcpus=4. PV: every
# vCPU Xen lets it start, all four, before it takes down those whose
# cpu/N/availability is offline. PVH: the processors that the MADT libxl
# builds marks enabled, the vcpus= ones; the others are hotplug CPUs
# ("smpboot: Allowing 4 CPUs, 3 hotplug CPUs").
BOOT_UP="smp: Brought up 1 node, $(guest_pick_type 'pv=4 CPUs' 'pvh=1 CPU')"
# The Debian kernel boots in 40-90 s under TCG: room for a busy machine.
BOOT_TIMEOUT=200
SETTLE_TIMEOUT=60
PRESENT_TIMEOUT=45
OFFLINE_SECONDS=5
ADDED=2 # vcpu-set target: vCPU 1 added

# last_list WHAT: the list of the last "linux-bench: WHAT <list> at" line.
last_list() {
	tr -d '\r' <"$CONSOLE_LOG" | sed -n "s/^linux-bench: $1 \([^ ]*\) at .*/\1/p" |
		tail -1
}

for f in vmlinuz initrd.gz; do
	[ -f "$LINUX_STOCK_DIR/$f" ] ||
		fail "no stock Linux domU: $LINUX_STOCK_DIR/$f is not in the dom0 image (scripts/build/mk-linux-domu.sh, LINUX_DOMU_DIR)"
done
SMPALT_CFG=$LINUX_STOCK_CFG
guest_create "extra=\"$STOCK_EXTRA\""
wait_for_console "$LINE_ONLINE " $BOOT_TIMEOUT ||
	fail "no '$LINE_ONLINE' line within ${BOOT_TIMEOUT}s of xl create"
boot_s=$(since "$CREATE_CS")
line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "smp: Brought up") ||
	fail "the console has no 'smp: Brought up' line (kernel boot lines missing?)"
case $line in
*"$BOOT_UP") log "console: $line" ;;
*) fail "stock Linux as a $(guest_type) guest: '$line' at boot (expected '$BOOT_UP')" ;;
esac

# Linux then takes down every vCPU whose cpu/N/availability is offline.
end=$(deadline_cs $SETTLE_TIMEOUT)
until [ "$(last_list online)" = 0 ]; do
	[ "$(now_cs)" -le "$end" ] ||
		fail "online never settled on 0 within ${SETTLE_TIMEOUT}s (last: '$(last_list online)')"
	usleep $POLL_USEC
done
xen=$(xen_online_vcpus) || fail "cannot count Xen's online vCPUs (xl vcpu-list)"
[ "$xen" = 1 ] || {
	xl vcpu-list "$GUEST"
	fail "online settled on 0 but Xen counts $xen vCPUs online"
}
note "booted in $boot_s s: '$BOOT_UP', then online 0 (Xen 1), present '$(last_list present)'"
alarm=$(linux_alarm) && fail "after boot: guest console: $alarm"

mark=$(console_lines)
start=$(uptime_cs)
vcpu_set $ADDED || fail "xl vcpu-set $GUEST $ADDED failed"
wait_for_console_since "$mark" "$LINE_PRESENT [^ ]*[-,]" $PRESENT_TIMEOUT ||
	fail "vcpu-set $ADDED: no '$LINE_PRESENT' line listing a second cpu within ${PRESENT_TIMEOUT}s: the kernel never registered vCPU 1"
present_ms=$((($(uptime_cs) - start) * CS_TO_MS))
log "console: $CONSOLE_MATCH (about $present_ms ms after vcpu-set)"
sleep $OFFLINE_SECONDS
onl=$(console_since "$mark" | grep -F -- "$LINE_ONLINE ")
[ -z "$onl" ] || fail "vcpu-set $ADDED: stock Linux onlined the vCPU without user space: $onl"
[ "$(last_list online)" = 0 ] ||
	fail "vcpu-set $ADDED: online is '$(last_list online)', expected 0"
xen=$(xen_online_vcpus) || fail "cannot count Xen's online vCPUs (xl vcpu-list)"
xl vcpu-list "$GUEST"
[ "$xen" = 1 ] ||
	fail "vcpu-set $ADDED: the guest lists online 0 but Xen counts $xen vCPUs online"
alarm=$(linux_alarm) && fail "guest console: $alarm"
guest_running || fail "domain state '$(domain_state)'"
note "vcpu-set $ADDED: present '$(last_list present)' about $present_ms ms later, still offline ${OFFLINE_SECONDS}s on (Xen 1 online)"

guest_destroy
result SUCCESS "stock Linux ($(guest_type)), vcpus=1 maxvcpus=4: '$BOOT_UP' at boot, settled on online 0 (boot $boot_s s); vcpu-set $ADDED: present '$(last_list present)', offline ${OFFLINE_SECONDS}s on without user space (Xen 1 online)"
