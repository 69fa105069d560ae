# Scenario linux-sysfs-offline: a CPU the guest's admin took offline
# through sysfs stays offline when the toolstack changes another vCPU (xl
# rewrites every vCPU's availability key), and comes back only when the
# toolstack changes that vCPU.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4) with
# linux-smpalt.sysfs_offline=1 (the guest's /init writes 0 to
# /sys/devices/system/cpu/cpu1/online the first time cpu1 is online); xl
# vcpu-set 2; xl vcpu-set 3 (cpu/0..3/availability rewritten, only cpu/2's
# value changes); xl vcpu-set 1; xl vcpu-set 2.
# Expected: vcpu-set 2: /init's "cpu1 offline by sysfs (ok)" line, then
# online 1, mode up, held (wait_stable), Xen 1; vcpu-set 3: online 2, mode
# smp, held, the guest's online CPUs "0,2" (/init's "linux-smpalt: online
# 0,2" line), Xen 2: cpu1 stayed offline; vcpu-set 1: online 1, up, Xen 1;
# vcpu-set 2 (cpu/1's value changes): online 2, "online 0-1", smp, Xen 2.
# At every step refused 0, no alarming console line, the domain runs; the
# counters check answers ok at the end.

BOOT_TIMEOUT=120
STEP_TIMEOUT=90
# Keep in step with extra= in xl-configs/linux-smpalt.cfg.
EXTRA="console=hvc0 rdinit=/init smpalt.stress=1 linux-smpalt.sysfs_offline=1"
OFFLINE_LINE="linux-smpalt: cpu1 offline by sysfs"

# step COUNT ONLINE_LIST WHAT: after a vcpu-set (console mark in MARK),
# online settles on COUNT with its mode, /init reports the online CPUs as
# ONLINE_LIST (empty: not checked), Xen agrees, clean.
step() {
	local count=$1 list=$2 what=$3
	wait_stable "$count" "$count" $STEP_TIMEOUT ||
		fail "$what: never settled on online=$count mode=$(mode_for "$count") (online='$ONLINE' mode='$MODE')"
	if [ -n "$list" ]; then
		wait_for_console_since "$MARK" "linux-smpalt: online $list\$" $STEP_TIMEOUT ||
			fail "$what: /init never reported the online CPUs as '$list' (last: '$(console_since 0 | grep 'linux-smpalt: online ' | tail -1)')"
	fi
	check_xen_view "$what"
	linux_clean "$what"
}

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "extra=\"$EXTRA\""

MARK=$(console_lines)
vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
wait_for_console_since "$MARK" "$OFFLINE_LINE" $STEP_TIMEOUT ||
	fail "vcpu-set 2: /init never took cpu1 offline ('$OFFLINE_LINE')"
case $CONSOLE_MATCH in
*"(ok)"*) ;;
*) fail "vcpu-set 2: the admin's offline failed: '$CONSOLE_MATCH'" ;;
esac
step 1 "" "cpu1 offline by sysfs"

MARK=$(console_lines)
vcpu_set 3 || fail "xl vcpu-set $GUEST 3 failed"
step 2 0,2 "vcpu-set 3 with cpu1 offline by sysfs"

MARK=$(console_lines)
vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
step 1 0 "vcpu-set 1"

MARK=$(console_lines)
vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
step 2 0-1 "vcpu-set 2 (cpu/1 changed)"
counters_ok "at the end"
guest_destroy

result SUCCESS "cpu1 offline by sysfs stayed offline across vcpu-set 3 (online 0,2, Xen 2); vcpu-set 1 then 2 brought it back (online 0-1, Xen 2); counters ok items=$CHECK_ITEMS"
