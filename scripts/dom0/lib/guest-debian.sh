# ------------------------------------------------- the Debian 13 guest
# The guest kind debian (make test-xen GUEST=debian XEN=4.20): Debian 13
# with systemd from its own disk (scripts/build/mk-debian-domu.sh), the
# patched kernel of `make linux-deb` installed as a package and booted
# by pvgrub2 (xl-configs/debian.cfg). Its side of the harness is
# smpalt-steps.service (scripts/domu/debian/): the end of its boot in
# data/smpalt-debian/system, and the steps of guest-linux.sh's protocol
# (linux_step: control/smpalt-step, data/smpalt-step). driver.sh says what
# a driver provides.
DEBIAN_DIR=$SMPALT_DIR/debian
DEBIAN_CFG=$SMPALT_DIR/xl-configs/debian.cfg
# The guest's disk as debian.cfg names it: QEMU's in the harness; a file
# on a real host (scripts/run/bench-real.sh sets SMPALT_DEBIAN_DISK).
DEBIAN_DISK=${SMPALT_DEBIAN_DISK:-/dev/vda}
DEBIAN_SYSTEM_KEY=data/smpalt-debian/system

# debian_pvgrub: pvgrub2 for the run's guest type (grub-xen-host's images).
debian_pvgrub() {
	case $(guest_type) in
	pvh) echo "$DEBIAN_DIR/grub-i386-xen_pvh.bin" ;;
	*) echo "$DEBIAN_DIR/grub-x86_64-xen.bin" ;;
	esac
}

# debian_param NAME: its limits (seconds) and load. A boot is pvgrub2,
# then the kernel, its initramfs and systemd under QEMU TCG: minutes on a
# loaded machine.
debian_param() {
	case $1 in
	boot_timeout) echo 400 ;;
	step_timeout) echo 90 ;;
	settle_timeout) echo 120 ;;
	load) echo "none (an idle Debian 13 system)" ;;
	*) return 1 ;;
	esac
}

# debian_require: the image's disk and pvgrub2 are in dom0; the scenario
# fails otherwise (the guest is what it tests).
debian_require() {
	[ -b "$DEBIAN_DISK" ] || [ -f "$DEBIAN_DISK" ] ||
		fail "no Debian guest disk: $DEBIAN_DISK is not in dom0 (make test-xen GUEST=debian gives QEMU the image of scripts/build/mk-debian-domu.sh)"
	[ -f "$(debian_pvgrub)" ] ||
		fail "no pvgrub2 image $(debian_pvgrub) in the dom0 image (make test-xen GUEST=debian carries it)"
}

# debian_wait_system TIMEOUT: the end of systemd's boot within TIMEOUT
# seconds of the create, which must be "running" (no failed unit).
debian_wait_system() {
	local end=$((CREATE_CS + $1 * CS_PER_SEC)) system
	until system=$(xs_read_guest $DEBIAN_SYSTEM_KEY); do
		[ "$(now_cs)" -le "$end" ] ||
			fail "systemd's boot did not end within ${1}s of xl create ($DEBIAN_SYSTEM_KEY absent)"
		usleep $POLL_USEC
	done
	log "systemd: $system, $(since "$CREATE_CS") s after xl create"
	[ "$system" = running ] || fail "systemd's boot ended '$system', expected running"
}

# debian_boot TIMEOUT [xl key=value ...]: xl create of debian.cfg with
# pvgrub2 for the run's type and the extra config, then within TIMEOUT
# seconds of the create the kernel's "smpalt: ready" and the end of
# systemd's boot (debian_wait_system).
debian_boot() {
	local timeout=$1
	shift
	debian_require
	domain_create "$DEBIAN_CFG" "kernel=\"$(debian_pvgrub)\"" "$@"
	guest_wait_ready "$timeout"
	debian_wait_system "$timeout"
}

# debian_boot_stock TIMEOUT [xl key=value ...]: the same disk with
# Debian's own kernel of the same version (the control: no series),
# booted without pvgrub2, which boots the default entry only: its
# kernel, initramfs and command line from /opt/smpalt/debian/stock/
# (DEBIAN_DOMU_STOCK=1 carries them), then debian_wait_system.
debian_boot_stock() {
	local timeout=$1 d=$DEBIAN_DIR/stock
	shift
	debian_require
	[ -f $d/vmlinuz ] && [ -f $d/initrd.img ] && [ -f $d/cmdline ] ||
		fail "no stock Debian kernel in $d (DEBIAN_DOMU_STOCK=1 carries it)"
	domain_create "$DEBIAN_CFG" "kernel=\"$d/vmlinuz\"" "ramdisk=\"$d/initrd.img\"" \
		"extra=\"$(cat $d/cmdline)\"" "$@"
	debian_wait_system "$timeout"
}

# debian_load: nothing to start: an idle Debian system; the counters check
# (smpalt-appends) is the load it checks.
debian_load() { :; }

# debian_start_up [xl key=value ...]: the hotplug scenarios' start (the
# same promises as the busybox Linux guest's: online 1, mode up, switches
# 0, refused 0, Xen agreeing).
debian_start_up() {
	debian_boot "$(debian_param boot_timeout)" "$@"
	linux_up_at_boot "$(debian_param step_timeout)"
}

debian_state() { published_state; }

debian_alarm() { linux_alarm; }

debian_clean() { linux_clean "$@"; }

# debian_counters_ok WHAT: smpalt-appends in the guest answers ok with
# items > 0 (its lines written from every online vCPU, each whole, each
# writer's count exact; CHECK_ITEMS: how many), then debian_clean.
debian_counters_ok() {
	linux_step_ok "$(debian_param step_timeout)" smpalt-appends
	case $STEP_OUT in
	"ok items="[1-9]*) log "counters $1: $STEP_OUT" ;;
	*) fail "counters $1: smpalt-appends: '$STEP_OUT', expected ok items=<n>" ;;
	esac
	CHECK_ITEMS=${STEP_OUT#ok items=}
	debian_clean "$1: after the counters check"
}

debian_destroy() { domain_destroy; }
