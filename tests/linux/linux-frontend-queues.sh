# Scenario linux-frontend-queues: the patched Linux guest has the vCPUs
# the toolstack gave online before its device initcalls, so the network
# and disk frontends built into it size their queues by vcpus, as on stock
# Linux (both take num_online_cpus() at their initcall: xen-netfront for
# its queue pairs, xen-blkfront as the bound of its rings).
# limit: 600
# The limit, in seconds: two boots of the patched guest with their
# frontends.
# Input: xl create linux-smpalt.cfg with vcpus=3 (maxvcpus=4), one vif
# (xen-netback in dom0, hotplug script vif-detached) and one disk (an 8 MB
# file served by xen-blkback through a loop device, script block-loop;
# dom0's backends offer 8 queues each); then the same with vcpus=1.
# Expected, each guest: "smpalt: ready"; both frontends Connected (state
# 4 in device/vif/0 and device/vbd/51712); the queue count each frontend
# wrote (multi-queue-num-queues; absent means one queue) equals vcpus:
# 3 and 3, then 1 and 1; online = vcpus and Xen agrees (check_xen_view);
# no alarming console line, refused and failed 0.

BOOT_TIMEOUT=120
CONNECT_TIMEOUT=60
STEP_TIMEOUT=90
DISK=/tmp/linux-frontend-queues.img
VIF=device/vif/0
VBD=device/vbd/51712 # xvda
XENBUS_CONNECTED=4

# frontend_queues DEV: the queue count the frontend under DEV wrote
# (multi-queue-num-queues, written only for more than one queue).
frontend_queues() {
	xs_read_guest "$1/multi-queue-num-queues" || echo 1
}

# boot_with_frontends VCPUS: a guest with VCPUS vCPUs, a vif and a disk;
# both frontends connected, each with VCPUS queues; Xen agrees.
boot_with_frontends() {
	local vcpus=$1 dev q got=''
	linux_boot $BOOT_TIMEOUT "vcpus=$vcpus" \
		'vif=["script=vif-detached"]' \
		"disk=[\"format=raw,vdev=xvda,access=rw,script=block-loop,target=$DISK\"]"
	wait_online "$vcpus" $STEP_TIMEOUT ||
		fail "vcpus=$vcpus: data/smpalt/online is '$ONLINE', expected $vcpus"
	check_xen_view "vcpus=$vcpus"
	for dev in $VIF $VBD; do
		wait_for_xs "$dev/state" $XENBUS_CONNECTED $CONNECT_TIMEOUT ||
			fail "vcpus=$vcpus: $dev/state is '$(xs_read_guest "$dev/state")', expected $XENBUS_CONNECTED (connected) within ${CONNECT_TIMEOUT}s"
		q=$(frontend_queues "$dev")
		[ "$q" = "$vcpus" ] ||
			fail "vcpus=$vcpus: the frontend in $dev has $q queue(s), expected $vcpus (one per vCPU online at its initcall)"
		got="$got ${dev#device/} $q"
	done
	linux_clean "vcpus=$vcpus"
	note "vcpus=$vcpus: queues:$got; ready in $(since "$CREATE_CS") s"
	guest_destroy
}

linux_require
dd if=/dev/zero of=$DISK bs=1M count=8 2>/dev/null || fail "cannot write $DISK"
boot_with_frontends 3
boot_with_frontends 1
rm -f $DISK

result SUCCESS "the vif's and the disk's queues equal vcpus (3 and 3 with vcpus=3, 1 and 1 with vcpus=1), both frontends connected, Xen agreeing"
