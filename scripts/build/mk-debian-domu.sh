#!/bin/bash
# Build the Debian 13 guest: a disk image holding a Debian 13 "trixie"
# root (systemd, udev, a serial console on hvc0, a few real programs)
# with the patched kernel package of `make linux-deb` installed the way
# an administrator installs it, and Debian's own cloud kernel of the same
# version beside it as the control. The image is one ext4 file system on
# the whole disk (no partition table), which the guest sees as xvda.
#
# Three parts, each made again only when what it is made from changed,
# in cache/debian-domu/:
#   1. base/: `debootstrap --variant=minbase` of trixie with the packages
#      of INCLUDE below, from the machine's mirror (about 250 MB to
#      download, a few minutes; base.stamp names what it was made from)
#   2. root/: a copy of base/ with the two kernel packages installed by
#      dpkg inside it (their maintainer scripts run Debian's kernel hooks:
#      update-initramfs makes each initramfs, update-grub its grub.cfg),
#      /etc/fstab, the hostname, the units a test machine has no use for
#      masked, no root password, and the harness's side
#      (scripts/domu/debian/: smpalt-steps.service, its steps over
#      xenstore, smpalt-appends, the counters check, and smpalt-real, the
#      real programs' timed runs) (root.stamp)
#   3. disk.img: root/ as an ext4 file system (mkfs.ext4 -d, no loop
#      device or mount needed), sized to its contents plus FREE_MB; and
#      boot/: the smpalt kernel and its initramfs copied out for a guest
#      booted without a boot loader (kernel= and ramdisk= in dom0); the
#      stock kernel and its initramfs as stock-vmlinuz and
#      stock-initrd.img with stock-cmdline, the command line that boots
#      them from this disk (the benchmark's control boots them so: pvgrub2
#      boots the default entry only); and the pvgrub2 images of
#      grub-xen-host (grub-x86_64-xen.bin for PV, grub-i386-xen_pvh.bin
#      for PVH) that dom0 gives xl as the kernel
#
# grub.cfg: inside the chroot, grub-mkconfig cannot see the disk the root
# will live on (its grub-probe asks the kernel which device holds /).
# While the packages install, grub-probe is diverted (dpkg-divert) to a
# stand-in that answers for the image: the device /dev/xvda, file system
# ext2 (grub's name for ext4), the UUID mkfs will give it; everything
# else grub-mkconfig writes is Debian's own scripts' output. The
# diversion is removed afterwards: in the running guest, update-grub
# probes the real disk.
#
# Usage: scripts/build/mk-debian-domu.sh [-k KVER]
#   -k KVER   the kernel series whose package to install (default 6.12,
#             Debian 13's); `make linux-deb KVER=...` must have built it
# Environment: DEBIAN_MIRROR (default: the machine's mirror),
#   FREE_MB (free space left in the file system, default 1024).
# Runs as root (debootstrap, chroot). Prints the image's path.
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script mk-debian-domu
kver=6.12
opt_value -k kver "a kernel series (6.12, 7.2)"
parse_args "$@"
log() { echo "mk-debian-domu: $*"; }

[ "$(id -u)" -eq 0 ] || die "debootstrap and chroot need root"
for t in debootstrap chroot mkfs.ext4 dpkg-deb; do
	command -v $t >/dev/null || die "$t not found (scripts/build/install-deps.sh)"
done
# The suite's mirror (suite_mirror): from the Debian 13 host's settings.
export XEN=4.20
. "$(dirname "$0")/../lib/xen-host.sh"
KVER=$kver
. "$(dirname "$0")/../lib/linux-version.sh"

SUITE=trixie
D=$CACHE/debian-domu
BASE=$D/base
ROOT=$D/root
IMG=$D/disk.img
FREE_MB=${FREE_MB:-1024}
# The harness's side in the guest (its steps over xenstore).
AGENT=$TOP/scripts/domu/debian
# The file system's UUID: fixed, so that grub.cfg and fstab written in
# part 2 name the file system part 3 makes.
FS_UUID=5d1a7c2e-6a1b-4f3e-9c55-0e1d2b3a4c5f
FS_LABEL=smpalt-debian

# What debootstrap adds to minbase: what a Debian guest boots with
# (systemd as init, udev, kmod, initramfs-tools, e2fsprogs for fsck,
# procps, grub-xen: update-grub and the guest side of pvgrub2), the
# pvgrub2 images dom0 boots the guest with (grub-xen-host: taken from
# this root, so that they are the suite's own build), the tools
# the harness talks to the guest with (xenstore-utils), and the real
# programs of the benchmark rows: sqlite3, xz-utils and zstd (threaded
# compressors), redis-server and redis-tools (redis-benchmark), gcc,
# make and libc6-dev (a build of a small C project).
INCLUDE=(systemd systemd-sysv udev kmod procps initramfs-tools e2fsprogs
	grub-xen grub-xen-host xenstore-utils sqlite3 xz-utils zstd redis-server redis-tools
	gcc make libc6-dev)
# Units a throw-away guest has no use for, masked: timers of maintenance
# jobs (they would run in the middle of a measurement) and the services
# the benchmarks start themselves.
MASK=(apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer
	e2scrub_reap.service fstrim.timer dpkg-db-backup.timer
	systemd-tmpfiles-clean.timer man-db.timer redis-server.service)

mkdir -p "$D"
exec 7>"$D/.lock"
flock 7

# --- 1. the base root
mirror=$(suite_mirror "$SUITE")
[ -n "$mirror" ] || die "no Debian mirror in the machine's apt sources: give DEBIAN_MIRROR="
want=$(printf 'suite=%s mirror=%s include=%s' "$SUITE" "$mirror" "${INCLUDE[*]}")
if [ "$(cat "$D/base.stamp" 2>/dev/null)" != "$want" ]; then
	rm -rf "$BASE" "$D/base.stamp" "$D/root.stamp"
	t0=$(date +%s)
	log "debootstrap $SUITE (minbase + ${#INCLUDE[@]} packages) from $mirror:" \
		"about 250 MB to download, a few minutes (log: $D/debootstrap.log)"
	debootstrap_minbase "$BASE" "$SUITE" "$mirror" "$D/debootstrap.log" "${INCLUDE[@]}"
	rm -rf "$BASE"/var/cache/apt/archives/*.deb
	echo "$want" >"$D/base.stamp"
	log "base root in $(($(date +%s) - t0)) s, $(du -sh "$BASE" | cut -f1)"
fi

# --- what part 2 installs
deb_out=$LINUX_CACHE/deb/out
[ -s "$deb_out/packages" ] || die "no kernel package in $deb_out: run make linux-deb KVER=$KVER first"
# The packages' file names, one a line.
image_deb=$deb_out/$(grep -E '^linux-image-.*_amd64\.deb$' "$deb_out/packages" | head -1 || true)
[ -f "$image_deb" ] || die "$deb_out/packages names no linux-image package that exists: run make linux-deb KVER=$KVER"
release=$(dpkg-deb -f "$image_deb" Package)
release=${release#linux-image-}
stock_deb=$(compgen -G "$LINUX_CACHE/debs/linux-image-*-cloud-amd64*_amd64.deb" | sort | tail -1) ||
	die "no Debian cloud-amd64 kernel package in $LINUX_CACHE/debs/ (make linux-deb KVER=$KVER fetches it)"
stock_release=$(dpkg-deb -f "$stock_deb" Package | sed -E 's/^linux-image-//; s/-unsigned$//')

# --- 2. the root with the kernels
want=$(printf 'base=%s image=%s stock=%s uuid=%s scripts=%s' \
	"$(cat "$D/base.stamp")" "$(sha256sum <"$image_deb" | cut -c1-16)" \
	"$(basename "$stock_deb")" "$FS_UUID" \
	"$(cat "$0" "$AGENT"/* | sha256sum | cut -c1-16)")
if [ "$(cat "$D/root.stamp" 2>/dev/null)" != "$want" ]; then
	rm -rf "$ROOT" "$D/root.stamp" "$IMG"
	t0=$(date +%s)
	log "copying the base root, installing $(basename "$image_deb") and $(basename "$stock_deb") (log: $D/install.log)"
	cp -a "$BASE" "$ROOT"
	echo smpalt-debian >"$ROOT/etc/hostname"
	printf 'UUID=%s / ext4 errors=remount-ro 0 1\n' "$FS_UUID" >"$ROOT/etc/fstab"
	# The boot loader's settings: the console on hvc0, kernel messages
	# kept (no "quiet"), no wait at pvgrub2's menu, the smpalt kernel as
	# the default entry (Debian's sorts first by dpkg's rules).
	cat >"$ROOT/etc/default/grub" <<EOF
GRUB_DEFAULT="gnulinux-advanced-$FS_UUID>gnulinux-$release-advanced-$FS_UUID"
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=Debian
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="console=hvc0"
GRUB_TERMINAL=console
GRUB_DISABLE_OS_PROBER=true
EOF
	mkdir -p "$ROOT/boot/grub"
	chroot "$ROOT" dpkg-divert --quiet --local --rename --add /usr/sbin/grub-probe
	cat >"$ROOT/usr/sbin/grub-probe" <<EOF
#!/bin/sh
# grub-probe's stand-in while mk-debian-domu.sh installs the kernels.
target=
while [ \$# -gt 0 ]; do
	case \$1 in
	--target=*) target=\${1#--target=} ;;
	-t) shift; target=\$1 ;;
	esac
	shift
done
case \$target in
device) echo /dev/xvda ;;
fs) echo ext2 ;;
fs_uuid) echo $FS_UUID ;;
fs_label) echo $FS_LABEL ;;
partuuid) exit 1 ;;
esac
exit 0
EOF
	chmod +x "$ROOT/usr/sbin/grub-probe"
	# The packages themselves, then grub.cfg made once for both (the
	# image package's hook runs update-grub only when grub.cfg exists).
	cp "$image_deb" "$stock_deb" "$ROOT/tmp/"
	if ! chroot "$ROOT" sh -c "dpkg -i /tmp/$(basename "$stock_deb") /tmp/$(basename "$image_deb") && update-grub" \
		>"$D/install.log" 2>&1; then
		tail -20 "$D/install.log" >&2
		die "installing the kernels failed (whole log: $D/install.log)"
	fi
	rm -f "$ROOT/tmp/"*.deb "$ROOT/usr/sbin/grub-probe"
	chroot "$ROOT" dpkg-divert --quiet --local --rename --remove /usr/sbin/grub-probe
	grep -q "vmlinuz-$release" "$ROOT/boot/grub/grub.cfg" ||
		die "grub.cfg has no entry for $release ($D/install.log)"
	for f in "vmlinuz-$release" "initrd.img-$release" "vmlinuz-$stock_release" "initrd.img-$stock_release"; do
		[ -s "$ROOT/boot/$f" ] || die "the installed root has no /boot/$f ($D/install.log)"
	done
	for u in "${MASK[@]}"; do
		ln -sfn /dev/null "$ROOT/etc/systemd/system/$u"
	done
	install -m 0755 "$AGENT/smpalt-steps" "$AGENT/smpalt-appends" "$AGENT/smpalt-real" \
		"$ROOT/usr/local/sbin/"
	install -m 0644 "$AGENT/smpalt-steps.service" "$ROOT/etc/systemd/system/"
	ln -sfn /etc/systemd/system/smpalt-steps.service \
		"$ROOT/etc/systemd/system/multi-user.target.wants/smpalt-steps.service"
	# No password is asked on the console (a test machine's console is
	# the harness's; an administrator's guest sets its own).
	chroot "$ROOT" passwd -d root >/dev/null
	echo "$want" >"$D/root.stamp"
	log "kernels installed in $(($(date +%s) - t0)) s: $release (default entry), $stock_release"
fi

# --- 3. the disk image and the boot files
if [ ! -s "$IMG" ] || [ "$D/root.stamp" -nt "$IMG" ]; then
	used_mb=$(du -sm "$ROOT" | cut -f1)
	size_mb=$((used_mb * 11 / 10 + FREE_MB))
	log "making $IMG: ext4, ${size_mb} MB (${used_mb} MB used)"
	rm -f "$IMG.tmp"
	mkfs.ext4 -q -F -d "$ROOT" -U "$FS_UUID" -L "$FS_LABEL" "$IMG.tmp" "${size_mb}M" ||
		die "mkfs.ext4 -d $ROOT failed"
	mkdir -p "$D/boot"
	cp "$ROOT/boot/vmlinuz-$release" "$ROOT/boot/initrd.img-$release" \
		"$ROOT"/usr/lib/grub-xen/grub-x86_64-xen.bin \
		"$ROOT"/usr/lib/grub-xen/grub-i386-xen_pvh.bin "$D/boot/"
	cp "$ROOT/boot/vmlinuz-$stock_release" "$D/boot/stock-vmlinuz"
	cp "$ROOT/boot/initrd.img-$stock_release" "$D/boot/stock-initrd.img"
	echo "root=UUID=$FS_UUID ro console=hvc0" >"$D/boot/stock-cmdline"
	echo "$release" >"$D/boot/release"
	echo "$stock_release" >"$D/boot/stock-release"
	mv "$IMG.tmp" "$IMG"
fi
echo "$IMG"
