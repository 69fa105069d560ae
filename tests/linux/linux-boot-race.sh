# Scenario linux-boot-race: vCPU changes made while the patched Linux guest
# (6.1, 6.12 or 7.2) boots, before and while it reads them, leave every
# guest settled on the last one with Xen agreeing; a guest created with
# vcpus=3 has its three vCPUs online before the device drivers start.
# limit: 900
# The limit, in seconds: four boots of the patched guest.
# Input: for vcpus in STORM_VCPUS (one boot each): xl create
# linux-smpalt.cfg (maxvcpus=4) and at once, without waiting for the
# kernel, CALLS xl vcpu-set with targets drawn at random in 1..MAXVCPUS
# (the sequence is in the log); then one boot with vcpus=3 and no vcpu-set.
# Expected, each storm boot: "smpalt: ready"; within SETTLE_TIMEOUT
# data/smpalt/online equals the last target, mode fits (smp iff > 1) and
# both hold (wait_stable); Xen's count equals online (check_xen_view);
# refused 0, no alarming console line (linux_alarm: two threads
# registering one CPU, or onlining one being removed, end in a BUG or a
# WARNING), the domain runs; the counters check answers ok with items > 0.
# The vcpus=3 boot: "smp: Brought up 1 node, 1 CPU" as PV (smp_init
# brings up vCPU 0 only, the kernel's work item the others), "3 CPUs" as
# PVH (the MADT enables the three: smp_init brings them up); the kernel's "3 of 4 vCPUs online" line comes before
# "xen_netfront: Initialising Xen virtual ethernet driver" (the network
# frontend's initcall, built in by every configuration: the vCPUs are up
# before the frontends, which size their queues by the online CPUs);
# online 3, smp, Xen 3, clean.
# Figures: per boot, create -> ready and create -> settled.

BOOT_TIMEOUT=120
SETTLE_TIMEOUT=120
STEP_TIMEOUT=90
CALLS=10
MAXVCPUS=4 # xl-configs/linux-smpalt.cfg
STORM_VCPUS="1 4 2"
# What smp_init() brings up of a vcpus=3 guest.
UP_LINE="smp: Brought up 1 node, $(guest_pick_type 'pv=1 CPU' 'pvh=3 CPUs')"
AVAIL_LINE="3 of $MAXVCPUS vCPUs online"
DEVICE_LINE="xen_netfront: Initialising Xen virtual ethernet driver"

# create_guest XL_KEY=VALUE...: linux_boot without the wait for the kernel.
create_guest() {
	local f
	for f in vmlinuz initrd.gz; do
		[ -f "$LINUX_SMPALT_DIR/$f" ] ||
			fail "no patched Linux guest: $LINUX_SMPALT_DIR/$f is not in the dom0 image (make linux; make test-linux carries it)"
	done
	SMPALT_CFG=$LINUX_SMPALT_CFG
	SMPALT_ELF=$LINUX_SMPALT_DIR/vmlinuz
	require_guest
	guest_create "$@"
}

# line_no FIXED: the number of the first console line with FIXED, or 0.
line_no() {
	tr -d '\r' <"$CONSOLE_LOG" | grep -n -F -m1 -- "$1" | cut -d: -f1 |
		grep . || echo 0
}

host_cpus >/dev/null # ask xl info before the storms, not during them
summary=''
boot=0
for vcpus in $STORM_VCPUS; do
	boot=$((boot + 1))
	what="boot $boot (vcpus=$vcpus)"
	targets='' i=0 n=$vcpus
	while [ $i -lt $CALLS ]; do
		# shellcheck disable=SC3028 # busybox ash has RANDOM
		n=$((RANDOM % MAXVCPUS + 1))
		targets="$targets $n"
		i=$((i + 1))
	done
	create_guest "vcpus=$vcpus"
	for n in $targets; do
		vcpu_set "$n" || fail "$what: xl vcpu-set $GUEST $n failed during the storm"
	done
	note "$what: $CALLS vcpu-set sent right after xl create:$targets"
	wait_for_console "$GUEST_READY" $BOOT_TIMEOUT ||
		fail "$what: no '$GUEST_READY' within ${BOOT_TIMEOUT}s"
	ready_s=$(since "$CREATE_CS")
	wait_online "$n" $SETTLE_TIMEOUT ||
		fail "$what: online is '$ONLINE' ${SETTLE_TIMEOUT}s on, expected $n (last target)"
	wait_stable "$n" "$n" $SETTLE_TIMEOUT ||
		fail "$what: never settled on online=$n mode=$(mode_for "$n") within ${SETTLE_TIMEOUT}s (online='$ONLINE' mode='$MODE')"
	settled_s=$(since "$CREATE_CS")
	check_xen_view "$what"
	linux_clean "$what"
	counters_ok "$what"
	summary="$summary; vcpus=$vcpus ->$n: ready ${ready_s}s, settled ${settled_s}s"
	guest_destroy
	send_back "console-$GUEST-boot$boot.log" "$CONSOLE_LOG"
done

what="vcpus=3"
create_guest "vcpus=3"
wait_for_console "$GUEST_READY" $BOOT_TIMEOUT ||
	fail "$what: no '$GUEST_READY' within ${BOOT_TIMEOUT}s"
wait_online 3 $STEP_TIMEOUT ||
	fail "$what: data/smpalt/online is '$ONLINE', expected 3"
linux_expect_keys "$what" mode=smp
check_xen_view "$what"
linux_clean "$what"
up=$(line_no "$UP_LINE")
avail=$(line_no "$AVAIL_LINE")
device=$(line_no "$DEVICE_LINE")
[ "$up" -gt 0 ] || fail "$what: no '$UP_LINE' line: smp_init() brought up other vCPUs than a $(guest_type) guest's"
[ "$avail" -gt 0 ] || fail "$what: no '$AVAIL_LINE' line from the kernel"
[ "$device" -gt 0 ] || result ERROR "$what: no '$DEVICE_LINE' line to order the vCPUs against"
[ "$avail" -lt "$device" ] ||
	fail "$what: '$AVAIL_LINE' (console line $avail) after '$DEVICE_LINE' (line $device): the vCPUs came up after the network frontend started"
guest_destroy

result SUCCESS "${summary#; }; each settled on its last target, Xen agreed, counters ok; vcpus=3: '$UP_LINE', 3 online before the network frontend started (console lines $avail < $device), Xen 3"
