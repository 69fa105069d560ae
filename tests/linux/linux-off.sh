# Scenario linux-off: xen_smpalt=off gives the patched kernel the
# behaviour of a kernel without the option: the vCPUs stock Linux brings
# up at boot (a PV guest every possible one, a PVH guest those its MADT
# enables), added vCPUs only registered (user space onlines them), the text
# never switched back to UP code, and nothing of the feature visible:
# no data/smpalt/ key in xenstore, no "smpalt: " console line.
# Input: the patched kernel (make linux) with the stock guest's initramfs
# and config (scripts/build/mk-linux-domu.sh, xl-configs/linux.cfg:
# vcpus=1, maxvcpus=4), extra= with xen_smpalt=off and
# linux-bench.onliner=1 (/init onlines every present, offline cpu, as a
# distribution's udev rule does, and prints "linux-bench: online <list>"
# and "present <list>" lines when they change). Then xl vcpu-set 2, 1.
# Expected: "smp: Brought up 1 node, 4 CPUs" at boot as PV (vcpus=1
# notwithstanding, as stock), "1 CPU" as PVH; online settles on 0 (Xen 1); vcpu-set 2:
# online 0-1 through user space (Xen 2); vcpu-set 1: online 0 (Xen 1);
# at every step data/smpalt/ does not exist in the guest's home; the
# console has no "smpalt: " line (the kernel's own lines of the feature:
# ready, switches, refusals) and no alarming line (linux_alarm).

EXTRA="console=hvc0 rdinit=/init xen_smpalt=off linux-bench.onliner=1"
LINE_ONLINE="linux-bench: online"
# What stock Linux brings up at boot with vcpus=1, maxvcpus=4.
ALL_UP="smp: Brought up 1 node, $(guest_pick_type 'pv=4 CPUs' 'pvh=1 CPU')"
BOOT_TIMEOUT=200
STEP_TIMEOUT=60

# last_online: the list of the last "linux-bench: online <list> at" line.
last_online() {
	tr -d '\r' <"$CONSOLE_LOG" | sed -n "s/^$LINE_ONLINE \([^ ]*\) at .*/\1/p" |
		tail -1
}

# settle WHAT LIST XEN: online is LIST and Xen counts XEN online vCPUs
# within STEP_TIMEOUT, and the feature stays silent.
settle() {
	local what=$1 list=$2 want=$3 end xen line alarm
	end=$(deadline_cs $STEP_TIMEOUT)
	until [ "$(last_online)" = "$list" ]; do
		[ "$(now_cs)" -le "$end" ] ||
			fail "$what: online never settled on $list within ${STEP_TIMEOUT}s (last: '$(last_online)')"
		usleep $POLL_USEC
	done
	xen=$(xen_online_vcpus) || fail "$what: cannot count Xen's online vCPUs (xl vcpu-list)"
	[ "$xen" = "$want" ] || {
		xl vcpu-list "$GUEST"
		fail "$what: the guest lists online $list but Xen counts $xen vCPUs online"
	}
	! xenstore-list "$(xs_guest_path data/smpalt)" >/dev/null 2>&1 ||
		fail "$what: $(xs_guest_path data/smpalt) exists with xen_smpalt=off: $(xenstore-ls "$(xs_guest_path data/smpalt)" | tr '\n' ' ')"
	line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "smpalt: ") &&
		fail "$what: a line of the feature with xen_smpalt=off: $line"
	alarm=$(linux_alarm) && fail "$what: guest console: $alarm"
	note "$what: online $list, Xen $xen, no data/smpalt/, no smpalt line"
}

linux_require
[ -f "$LINUX_STOCK_DIR/initrd.gz" ] ||
	fail "no stock guest initramfs: $LINUX_STOCK_DIR/initrd.gz is not in the dom0 image (scripts/build/mk-linux-domu.sh)"
SMPALT_CFG=$LINUX_STOCK_CFG
guest_create "kernel=\"$LINUX_SMPALT_DIR/vmlinuz\"" "extra=\"$EXTRA\""
wait_for_console "$LINE_ONLINE " $BOOT_TIMEOUT ||
	fail "no '$LINE_ONLINE' line within ${BOOT_TIMEOUT}s of xl create"
line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "smp: Brought up") ||
	fail "the console has no 'smp: Brought up' line"
case $line in
*"$ALL_UP"*) log "console: $line" ;;
*) fail "xen_smpalt=off: not the vCPUs stock Linux brings up at boot: '$line' (expected '$ALL_UP')" ;;
esac
settle "boot" 0 1

vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
settle "vcpu-set 2" 0-1 2
vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
settle "vcpu-set 1" 0 1
guest_running || fail "domain state '$(domain_state)'"
guest_destroy

result SUCCESS "xen_smpalt=off: '$ALL_UP' at boot, settled on 0 (Xen 1); vcpu-set 2 onlined by user space (Xen 2), vcpu-set 1 back to 0 (Xen 1); no data/smpalt/, no smpalt console line"
