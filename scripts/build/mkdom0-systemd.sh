#!/bin/bash
# Build the systemd dom0 initramfs of the Xen-in-QEMU harness: Debian 12
# as a real Xen host runs it, with systemd as PID 1, for the scenarios
# marked "# needs: systemd" (scripts/run/xen-run.sh boots it for them).
#
# Three parts, the first two cached in cache/dom0-systemd/:
#   1. root/: `debootstrap --variant=minbase` of bookworm with systemd,
#      udev, kmod, the Xen 4.17 tools, xenstore-utils, busybox-static and
#      the libraries the smpalt packages depend on, from the mirror the
#      machine's apt uses; the Xen tools then replaced by the very .debs
#      the harness's hypervisor came with (cache/xen/debs/) when the
#      mirror has another build; the dom0 kernel's Xen and autofs modules
#      put under lib/modules/<version>/ (depmod run in the root). Done
#      once: root.stamp names what it was made from; a change of any of
#      it makes it again.
#   2. root.cpio.zst: root/ packed (docs, man pages, locales and apt's
#      lists left out), made again when root.stamp is newer.
#   3. per run, a second archive appended to the first: /init (a link
#      to systemd), the harness's unit (scripts/dom0/systemd/: it runs the
#      scenarios named on the kernel command line once Xen is up and
#      powers off), the units a test machine has no use for masked,
#      Debian's /etc/default/xen with xenconsoled's guest logs on, the
#      dom0 library and scenarios as in the busybox image, the xl configs,
#      the .deb files to test at /opt/smpalt/debs/, and a source tree at
#      /root/smpalt when given (SMPALT_TREE).
# Xen's daemons come from Debian's own /etc/init.d/xen (xen-utils-common),
# which systemd runs as xen.service: oxenstored, xen-init-dom0,
# xenconsoled, as on a Debian 12 Xen host.
#
# Usage: scripts/build/mkdom0-systemd.sh [-o OUTPUT]
#   OUTPUT    default cache/dom0-systemd/dom0-initrd.gz
# Environment:
#   SMPALT_DEBS   .deb files to carry (space-separated paths), e.g. the
#                 smpalt-autoscaler and smpalt-guest packages; without
#                 them the scenarios that install them report SKIP
#   SMPALT_TREE   a folder carried to /root/smpalt: a copy of the source
#                 tree with what its commands need built, as an
#                 administrator's checkout on a dom0 (make test-bench-real)
#   DEBIAN_MIRROR the mirror to debootstrap from (default: the one of the
#                 machine's apt sources for bookworm)
#   XEN           4.17 (default) or 4.20 (scripts/lib/xen-host.sh): 4.20
#                 makes Debian 13 "trixie" with xen-utils-4.20 and the 6.12
#                 dom0 kernel's modules, cached in cache/xen-4.20/dom0-systemd/
# Needs scripts/build/fetch-xen.sh to have run (the dom0 kernel's modules and
# the Xen .debs), debootstrap, zstd and cpio (scripts/build/install-deps.sh).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${CACHE:-$TOP/cache}
log() { echo "mkdom0-systemd: $*"; }
die() {
	echo "mkdom0-systemd: error: $*" >&2
	exit 1
}
. "$(dirname "$0")/../lib/xen-host.sh"
SD_CACHE=$XEN_IMAGES/dom0-systemd
ROOT=$SD_CACHE/root
ROOT_STAMP=$SD_CACHE/root.stamp
ROOT_CPIO=$SD_CACHE/root.cpio.zst
SUITE=$XEN_SUITE
# What debootstrap adds to minbase. systemd-sysv: systemd as init; kmod:
# modprobe for /etc/init.d/xen; procps: /bin/kill, which units' ExecReload
# lines run (priority important: on every standard Debian install, not in
# minbase); libinih1, libxenmisc4.17 (libxenstat), libxenstore4: the
# libraries the smpalt-autoscaler package links.
INCLUDE=(systemd systemd-sysv udev kmod procps "xen-utils-$XEN_VERSION"
	xen-utils-common xenstore-utils busybox-static libinih1
	"libxenmisc$XEN_VERSION" libxenstore4)
# The Xen tools, replaced by the harness's own builds when they differ.
XEN_DEBS=("xen-utils-$XEN_VERSION" xen-utils-common xenstore-utils
	"libxenmisc$XEN_VERSION" libxenstore4 libxencall1 libxendevicemodel1
	libxenevtchn1 libxenforeignmemory1 libxengnttab1 libxenhypfs1
	libxentoolcore1 libxentoollog1)
# dom0 kernel modules carried (paths under kernel/), with what depmod
# finds they need: the Xen drivers, and autofs for systemd.
MODULE_DIRS=(drivers/xen fs/autofs)
# Left out of the image: documentation, translations, apt's lists and
# caches (about a third of a minbase tree).
PRUNE=(./usr/share/doc ./usr/share/man ./usr/share/info ./usr/share/locale
	./usr/share/lintian ./usr/share/bug ./var/cache/apt ./var/lib/apt/lists
	./var/cache/debconf/templates.dat-old ./var/log/bootstrap.log
	./debootstrap)
# Units a throw-away test machine has no use for, masked: logins on the
# console (its output is the harness's result channel), first-boot
# questions, timers of maintenance jobs, binfmt_misc (not a module of the
# image: it would fail).
MASK=(getty@.service serial-getty@.service console-getty.service
	systemd-firstboot.service apt-daily.timer apt-daily-upgrade.timer
	getty-static.service e2scrub_all.timer e2scrub_reap.service fstrim.timer
	dpkg-db-backup.timer systemd-tmpfiles-clean.timer
	systemd-binfmt.service proc-sys-fs-binfmt_misc.automount)

out=$SD_CACHE/dom0-initrd.gz
while [ $# -gt 0 ]; do
	case $1 in
	-o)
		[ $# -ge 2 ] || die "-o needs a path"
		out=$2
		shift 2
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
SMPALT_DEBS=${SMPALT_DEBS:-}
for d in $SMPALT_DEBS; do
	[ -f "$d" ] || die "SMPALT_DEBS: $d does not exist"
	case $d in *.deb) ;; *) die "SMPALT_DEBS: $d is not a .deb file" ;; esac
done
for t in debootstrap zstd cpio gzip chroot; do
	command -v $t >/dev/null || die "$t not found (scripts/build/install-deps.sh)"
done
[ -d "$XEN_CACHE/root/lib/modules" ] && [ -d "$XEN_CACHE/debs" ] ||
	die "$XEN_CACHE missing: run scripts/build/fetch-xen.sh first"

# apt_mirror: scripts/lib/xen-host.sh.
mkdir -p "$SD_CACHE"
# Several runs may start at once on a fresh cache: one builds.
exec 7>"$SD_CACHE/.lock"
flock 7

kernel_dir=$(compgen -G "$XEN_CACHE/root/lib/modules/*" | sort | tail -1)
kver=$(basename "$kernel_dir")
if [ "$XEN_OWN_LIBC" = 1 ]; then
	# XEN=4.20: the tools are the trixie root's, installed from the mirror
	# the hypervisor came from.
	xen_build=$(dpkg-query --admindir="$XEN_ROOT/var/lib/dpkg" -W -f='${Version}' "xen-utils-$XEN_VERSION") ||
		die "no xen-utils-$XEN_VERSION in $XEN_ROOT (scripts/build/fetch-xen.sh)"
else
	xen_utils_deb=$(compgen -G "$XEN_CACHE/debs/xen-utils-${XEN_VERSION}_*.deb" | head -1)
	[ -n "$xen_utils_deb" ] || die "no xen-utils-$XEN_VERSION .deb in $XEN_CACHE/debs (scripts/build/fetch-xen.sh)"
	xen_build=$(dpkg-deb -f "$xen_utils_deb" Version)
fi

# --- 1. the root file system
mirror=$(suite_mirror "$SUITE")
[ -n "$mirror" ] || die "no '$SUITE main' source in the machine's apt sources: give DEBIAN_MIRROR="
want_stamp="suite=$SUITE mirror=$mirror include=${INCLUDE[*]} xen=$xen_build kernel=$kver modules=${MODULE_DIRS[*]}"
if [ "$(cat "$ROOT_STAMP" 2>/dev/null)" != "$want_stamp" ]; then
	rm -rf "$ROOT" "$ROOT_STAMP" "$ROOT_CPIO"
	t0=$(date +%s)
	log "debootstrap $SUITE (minbase + ${#INCLUDE[*]} packages) from $mirror into $ROOT:" \
		"about 100 MB to download, 1-3 minutes (log: $SD_CACHE/debootstrap.log)"
	debootstrap_minbase "$ROOT" "$SUITE" "$mirror" "$SD_CACHE/debootstrap.log" "${INCLUDE[@]}"
	log "debootstrap done in $(($(date +%s) - t0)) s, $(du -sh "$ROOT" | cut -f1)"

	# The Xen tools must be the hypervisor's build (the domctl interface
	# is versioned): the harness's own .debs, when the mirror had others.
	have=$(chroot "$ROOT" dpkg-query -W -f='${Version}' xen-utils-$XEN_VERSION)
	if [ "$have" != "$xen_build" ] && [ "$XEN_OWN_LIBC" = 1 ]; then
		die "xen-utils-$XEN_VERSION $have from the mirror, $xen_build in $XEN_ROOT: remake it (rm -r $XEN_ROOT; scripts/build/fetch-xen.sh)"
	elif [ "$have" != "$xen_build" ]; then
		log "xen-utils-$XEN_VERSION $have from the mirror, the hypervisor's is $xen_build: installing the harness's .debs"
		mkdir -p "$ROOT/tmp/xen-debs"
		for p in "${XEN_DEBS[@]}"; do
			cp "$(compgen -G "$XEN_CACHE/debs/${p}_*.deb" | head -1)" "$ROOT/tmp/xen-debs/" ||
				die "no .deb of $p in $XEN_CACHE/debs"
		done
		chroot "$ROOT" sh -c 'dpkg -i /tmp/xen-debs/*.deb' >>"$SD_CACHE/debootstrap.log" 2>&1 ||
			die "dpkg -i of the harness's Xen .debs failed ($SD_CACHE/debootstrap.log)"
		rm -rf "$ROOT/tmp/xen-debs"
	fi

	# The dom0 kernel's modules that dom0 needs, and their index.
	mkdir -p "$ROOT/lib/modules/$kver/kernel"
	cp "$kernel_dir"/modules.order "$kernel_dir"/modules.builtin \
		"$kernel_dir"/modules.builtin.modinfo "$ROOT/lib/modules/$kver/"
	for d in "${MODULE_DIRS[@]}"; do
		mkdir -p "$ROOT/lib/modules/$kver/kernel/$(dirname "$d")"
		cp -a "$kernel_dir/kernel/$d" "$ROOT/lib/modules/$kver/kernel/$d"
	done
	chroot "$ROOT" depmod "$kver" || die "depmod $kver in the root failed"
	echo "$want_stamp" >"$ROOT_STAMP"
fi

# --- 2. the root, packed
if [ ! -f "$ROOT_CPIO" ] || [ "$ROOT_STAMP" -nt "$ROOT_CPIO" ]; then
	log "packing $ROOT (without docs, man pages, locales, apt lists)"
	prune=()
	for p in "${PRUNE[@]}"; do prune+=(-path "$p" -prune -o); done
	(cd "$ROOT" && find . "${prune[@]}" -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet) | zstd -q -T0 -6 >"$ROOT_CPIO.tmp"
	mv "$ROOT_CPIO.tmp" "$ROOT_CPIO"
	log "$ROOT_CPIO: $(du -h "$ROOT_CPIO" | cut -f1)"
fi

# --- 3. this run's part
stage=$(mktemp -d "${TMPDIR:-/tmp}/smpalt-dom0-systemd.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{etc/systemd/system/multi-user.target.wants,etc/systemd/system.conf.d} \
	"$stage"/{etc/dpkg/dpkg.cfg.d,etc/default,var/log/xen/console} \
	"$stage"/opt/smpalt/{scenarios,xl-configs,debs,bin}
ln -s /lib/systemd/systemd "$stage/init"
echo dom0 >"$stage/etc/hostname"
# A machine id of its own (systemd would take a missing one for a first boot).
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$stage/etc/machine-id"
echo >>"$stage/etc/machine-id"
sd=$TOP/scripts/dom0/systemd
install -m 0644 "$sd/smpalt-harness.service" "$stage/etc/systemd/system/"
ln -s ../smpalt-harness.service "$stage/etc/systemd/system/multi-user.target.wants/"
install -m 0644 "$sd/system.conf" "$stage/etc/systemd/system.conf.d/smpalt.conf"
for u in "${MASK[@]}"; do ln -s /dev/null "$stage/etc/systemd/system/$u"; done
# What dpkg -i in dom0 leaves out too (the image has no room to spare).
printf 'path-exclude=/usr/share/%s/*\n' doc man info locale >"$stage/etc/dpkg/dpkg.cfg.d/smpalt-nodoc"
# Debian's defaults for the Xen daemons, with the guests' consoles logged
# to /var/log/xen/console/guest-NAME.log, which the scenarios read.
{
	cat "$ROOT/etc/default/xen"
	echo
	echo '# smpalt harness: log every guest console (scenarios read them)'
	echo 'XENCONSOLED_ARGS="--log=guest"'
} >"$stage/etc/default/xen"
# The harness's runner and library. Their shell is busybox's ash, as in
# the busybox image; Debian builds busybox-static to run its own applets
# before anything in PATH, so a scenario names Debian's tool by its path
# where busybox has one of the same name (/usr/bin/dpkg). opt/smpalt/bin,
# first in PATH, makes `sh` busybox's for programs that are not busybox.
install -m 0755 "$sd/runner" "$stage/opt/smpalt/runner"
install -m 0644 "$TOP/scripts/dom0/lib.sh" "$stage/opt/smpalt/lib.sh"
install -d "$stage/opt/smpalt/lib"
install -m 0644 "$TOP"/scripts/dom0/lib/*.sh "$stage/opt/smpalt/lib/"
install -m 0644 "$TOP/scripts/dom0/systemd.sh" "$stage/opt/smpalt/systemd.sh"
ln -s /bin/busybox "$stage/opt/smpalt/bin/sh"
for c in "$TOP"/xl-configs/*.cfg; do
	cp "$c" "$stage/opt/smpalt/xl-configs/"
done
for s in "$TOP"/tests/xen/*.sh; do
	install -m 0755 "$s" "$stage/opt/smpalt/scenarios/$(basename "$s")"
done
for d in $SMPALT_DEBS; do
	install -m 0644 "$d" "$stage/opt/smpalt/debs/$(basename "$d")"
done
SMPALT_TREE=${SMPALT_TREE:-}
if [ -n "$SMPALT_TREE" ]; then
	[ -d "$SMPALT_TREE" ] || die "SMPALT_TREE: $SMPALT_TREE is not a folder"
	install -d -m 0700 "$stage/root"
	cp -a "$SMPALT_TREE" "$stage/root/smpalt"
fi

mkdir -p "$(dirname "$out")"
{
	# The kernel unpacks one archive after the other (each compressed on
	# its own, zstd then gzip); a later file replaces an earlier one.
	cat "$ROOT_CPIO"
	# Not "." itself: its mode would become that of /.
	(cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0) | gzip -1
} >"$out.tmp"
mv "$out.tmp" "$out"
log "$out ($(du -h "$out" | cut -f1), root $(du -h "$ROOT_CPIO" | cut -f1);" \
	"Debian $SUITE, systemd $(chroot "$ROOT" dpkg-query -W -f='${Version}' systemd)," \
	"xen-utils $xen_build, dom0 kernel $kver)"
[ -z "$SMPALT_TREE" ] || log "source tree carried to /root/smpalt: $SMPALT_TREE ($(du -sh "$SMPALT_TREE" | cut -f1))"
if [ -n "$SMPALT_DEBS" ]; then
	log "packages carried: $(for d in $SMPALT_DEBS; do basename "$d"; done | tr '\n' ' ')"
else
	log "packages carried: none (SMPALT_DEBS empty: the scenarios that install them report SKIP)"
fi
