#!/bin/bash
# Build the dom0 initramfs (cpio newc, gzip) for the Xen-in-QEMU harness.
#
# Contents: busybox, the Xen tools with every shared library they need (and
# the dynamic loader), the dom0 kernel's Xen modules (control plane and
# backends), the hotplug scripts of scripts/dom0/xen-scripts/ in
# /etc/xen/scripts, an empty xl.conf, the
# dom0 init and library (scripts/dom0/), the xl configs (xl-configs/), the
# scenario scripts (tests/xen/*.sh, tests/linux/*.sh, scripts/dom0/demo-*.sh)
# and, when the guest kernel and the autoscaler are given, smpalt as an
# administrator installs it: `make install PREFIX=/usr/local
# DESTDIR=<initramfs root>` (the kernel in /usr/local/lib/xen/boot, its xl
# config in /etc/xen, the autoscaler in /usr/local/sbin; scripts/dom0/lib.sh
# names these paths),
# and the test-only smpalt-lostupdate.elf found beside the guest kernel at
# /opt/smpalt/smpalt-lostupdate.elf; the benchmarks' event stamper
# (tests/bench/xs_stamp.c) at /opt/smpalt/bin/smpalt-xs-stamp when built.
#
# Usage: scripts/build/mkinitramfs.sh [-o OUTPUT] [GUEST_ELF]
#   OUTPUT     default cache/dom0-initrd.gz
#   GUEST_ELF  also taken from the environment; without it (or without
#              the autoscaler) nothing is installed and the scenarios that
#              need the guest report SKIP.
# Environment: LINUX_DOMU_DIR=DIR also carries DIR/vmlinuz and DIR/initrd.gz
# (scripts/build/mk-linux-domu.sh) to /opt/smpalt/linux/ for the stock-Linux
# bench scenario; without it that scenario reports SKIP.
# LINUX_SMPALT_DIR=DIR likewise carries the patched Linux guest, DIR/vmlinuz
# (make linux) and DIR/initrd.gz (scripts/build/mk-linux-smpalt-domu.sh), and
# DIR/config if there, to /opt/smpalt/linux-smpalt/ for tests/linux/;
# without it those scenarios fail.
# DEBIAN_DOMU_DIR=DIR carries the Debian guest's pvgrub2 images,
# DIR/grub-x86_64-xen.bin and DIR/grub-i386-xen_pvh.bin
# (scripts/build/mk-debian-domu.sh), to /opt/smpalt/debian/ (its disk is
# QEMU's, not the image's); with DEBIAN_DOMU_STOCK=1 also the stock kernel
# booted without pvgrub2, DIR/stock-vmlinuz, stock-initrd.img and
# stock-cmdline, to /opt/smpalt/debian/stock/ (vmlinuz, initrd.img,
# cmdline) for the real-program benchmark's control (tests/xen/
# bench-debian-real.sh): some 50 MB of dom0's memory that the other
# scenarios keep.
# LINUX_SMPALT_VERSIONS="KVER=DIR ..." carries more patched guests, one per
# Linux version, each DIR's files as above to /opt/smpalt/linux-smpalt-KVER/,
# for the benchmark that measures every version in one boot
# (tests/xen/bench-linux-smpalt.sh, make bench KVERS=...).
# SMPALT_DEBS="A.deb B.deb": smpalt installed from its Debian packages
# (smpalt-autoscaler, smpalt-guest) instead: each unpacked with `dpkg -x`
# into the initramfs (the busybox dom0 has no dpkg database), and
# /opt/smpalt/installed.env telling scripts/dom0/lib.sh where they put the
# kernel, the autoscaler and the unit.
# LIBVIRT=1 also carries libvirtd with its libxl driver and virsh (fetched by
# `LIBVIRT=1 scripts/build/fetch-xen.sh`) for the scenarios that need libvirt;
# ~29 MB more compressed, so the default image leaves it out.
# XEN=4.20 (scripts/lib/xen-host.sh): everything from cache/xen-4.20/root,
# the trixie userland, its glibc and loader included.
# Needs scripts/build/fetch-xen.sh to have run (cache/xen/root).
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script mkinitramfs
. "$(dirname "$0")/../lib/initramfs.sh"
# XEN= picks the host (scripts/lib/xen-host.sh): XEN_ROOT, XEN_VERSION.
. "$(dirname "$0")/../lib/xen-host.sh"
XEN_BIN=usr/lib/xen-$XEN_VERSION/bin
LIBDIR=lib/x86_64-linux-gnu
LOADER=lib64/ld-linux-x86-64.so.2
# Where the Debian packages and the host keep shared libraries, in the order
# searched: the unpacked packages first, then the host (Debian 12 too).
# XEN=4.20: the trixie root has every library of its own programs, glibc
# and its loader included; the build machine's folders stay last, for a
# program built here (the bench stamper) whose libraries it lacks.
LIB_SEARCH=(
	"$XEN_ROOT/usr/lib/x86_64-linux-gnu"
	"$XEN_ROOT/lib/x86_64-linux-gnu"
	/lib/x86_64-linux-gnu
	/usr/lib/x86_64-linux-gnu
)
# The dynamic loader: the one of the glibc the libraries come from.
LOADER_SRC=/$LOADER
[ "$XEN_OWN_LIBC" != 1 ] || LOADER_SRC=$XEN_ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
# Xen tools the dom0 init and the scenarios run.
XEN_TOOLS=(xl xenstored xenconsoled xen-init-dom0 xenctx readnotes
	libxl-save-helper xenconsole xenstore-control)
XENSTORE_CLIENTS=(xenstore xenstore-read xenstore-write xenstore-ls
	xenstore-list xenstore-rm xenstore-exists xenstore-watch xenstore-chmod)
# Loaded by init in this order: the Xen control plane, then the backends
# that serve a guest's network and disk (xen-netback, and xen-blkback with
# the loop driver under it: scripts/dom0/xen-scripts/).
XEN_MODULES=(xen-evtchn xen-privcmd xenfs xen-gntdev xen-gntalloc
	xen-netback xen-blkback loop)
# With the Debian guest (DEBIAN_DOMU_DIR, below), whose disk is QEMU's
# virtio disk: its driver (the Debian 13 dom0 kernel has the virtio core
# and virtio_pci built in; Debian 12's has them as modules, not carried,
# so the Debian guest runs on XEN=4.20).
[ -z "${DEBIAN_DOMU_DIR:-}" ] || XEN_MODULES+=(virtio_blk)
# Loaded by glibc at run time (pthread_cancel), so not in any NEEDED list.
DLOPENED_LIBS=(libgcc_s.so.1)

out=$XEN_IMAGES/dom0-initrd.gz
elves=()
opt_value -o out "a path"
opt_rest elves
parse_args "$@"
# The last one given, else GUEST_ELF from the environment.
[ ${#elves[@]} -eq 0 ] || GUEST_ELF=${elves[-1]}
GUEST_ELF=${GUEST_ELF:-}

[ -d "$XEN_ROOT" ] || die "$XEN_ROOT missing: run scripts/build/fetch-xen.sh first"
for t in cpio gzip readelf; do
	command -v $t >/dev/null || die "$t not found (scripts/build/install-deps.sh)"
done
if [ -n "$GUEST_ELF" ] && [ ! -f "$GUEST_ELF" ]; then
	die "guest kernel $GUEST_ELF does not exist"
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/smpalt-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,$XEN_BIN,$LIBDIR,lib64,lib/modules} \
	"$stage"/{etc/xen,proc,sys,dev,run,tmp,root,var/lib/xen,var/log/xen/console} \
	"$stage"/opt/smpalt/{scenarios,xl-configs}

# --- shared libraries, resolved recursively from ELF NEEDED entries
declare -A copied=()
find_lib() {
	local d
	for d in "${LIB_SEARCH[@]}"; do
		if [ -e "$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	return 1
}
copy_lib() {
	local name=$1 src dep
	[ -z "${copied[$name]:-}" ] || return 0
	copied[$name]=1
	src=$(find_lib "$name") || die "shared library $name not found in ${LIB_SEARCH[*]}"
	cp -L "$src" "$stage/$LIBDIR/$name"
	for dep in $(needed_of "$src"); do
		copy_lib "$dep"
	done
}
needed_of() {
	readelf -d "$1" 2>/dev/null | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p'
}
copy_bin() {
	local src=$1 dst=$2 dep
	[ -f "$src" ] || die "missing $src (re-run scripts/build/fetch-xen.sh)"
	cp -L "$src" "$stage/$dst"
	chmod 0755 "$stage/$dst"
	for dep in $(needed_of "$src"); do
		copy_lib "$dep"
	done
}

for t in "${XEN_TOOLS[@]}"; do
	copy_bin "$XEN_ROOT/$XEN_BIN/$t" "$XEN_BIN/$t"
	ln -sf "/$XEN_BIN/$t" "$stage/usr/sbin/$t"
done
copy_bin "$XEN_ROOT/usr/bin/xenstore" usr/bin/xenstore
for c in "${XENSTORE_CLIENTS[@]}"; do
	[ "$c" = xenstore ] || ln -sf xenstore "$stage/usr/bin/$c"
done
for l in "${DLOPENED_LIBS[@]}"; do
	copy_lib "$l"
done
[ -f "$LOADER_SRC" ] || die "dynamic loader $LOADER_SRC missing"
cp -L "$LOADER_SRC" "$stage/$LOADER"
ln -s "x86_64-linux-gnu/$(basename "$LOADER")" "$stage/lib/$(basename "$LOADER")" 2>/dev/null || true
cp -L "$LOADER_SRC" "$stage/$LIBDIR/$(basename "$LOADER")"

# --- busybox (static); init installs its applet links at boot
[ -x "$XEN_ROOT/bin/busybox" ] || die "busybox missing: run scripts/build/fetch-xen.sh"
cp "$XEN_ROOT/bin/busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"

# --- kernel modules, decompressed if the kernel ships them compressed
moddir=$(compgen -G "$XEN_ROOT/lib/modules/*/kernel" | sort | tail -1)
[ -n "$moddir" ] || die "no dom0 kernel modules under $XEN_ROOT/lib/modules"
for m in "${XEN_MODULES[@]}"; do
	src=$(find "$moddir" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" | head -1)
	if [ -z "$src" ]; then
		# Built into the kernel: nothing to load (init skips it).
		grep -qE "/$m\.ko\$" "$moddir/../modules.builtin" 2>/dev/null && continue
		die "kernel module $m not found under $moddir"
	fi
	case $src in
	*.ko.xz) xz -dc "$src" >"$stage/lib/modules/$m.ko" ;;
	*.ko.zst) zstd -dcq "$src" >"$stage/lib/modules/$m.ko" ;;
	*) cp "$src" "$stage/lib/modules/$m.ko" ;;
	esac
done

# --- configuration, dom0 scripts, scenarios, guest
: >"$stage/etc/xen/xl.conf"
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
install -m 0755 "$TOP/scripts/dom0/init" "$stage/init"
# The hotplug scripts the harness's xl configs name (script=).
install -d "$stage/etc/xen/scripts"
install -m 0755 "$TOP"/scripts/dom0/xen-scripts/* "$stage/etc/xen/scripts/"
install -m 0644 "$TOP/scripts/dom0/lib.sh" "$stage/opt/smpalt/lib.sh"
install -d "$stage/opt/smpalt/lib"
install -m 0644 "$TOP"/scripts/dom0/lib/*.sh "$stage/opt/smpalt/lib/"
# The harness's other guests; smpalt.cfg is installed below.
for c in "$TOP"/xl-configs/*.cfg; do
	[ "$(basename "$c")" = smpalt.cfg ] || cp "$c" "$stage/opt/smpalt/xl-configs/"
done
for s in "$TOP"/tests/xen/*.sh "$TOP"/tests/linux/*.sh "$TOP"/scripts/dom0/demo*.sh; do
	[ -f "$s" ] || continue
	install -m 0755 "$s" "$stage/opt/smpalt/scenarios/$(basename "$s")"
done
# The test-only lost-update build (mk/guest.mk), when beside the guest.
if [ -n "$GUEST_ELF" ]; then
	lostupdate=$(dirname "$GUEST_ELF")/smpalt-lostupdate.elf
	if [ -f "$lostupdate" ]; then
		install -m 0644 "$lostupdate" "$stage/opt/smpalt/smpalt-lostupdate.elf"
	fi
fi
LINUX_DOMU_DIR=${LINUX_DOMU_DIR:-}
if [ -n "$LINUX_DOMU_DIR" ]; then
	for f in vmlinuz initrd.gz; do
		[ -f "$LINUX_DOMU_DIR/$f" ] ||
			die "$LINUX_DOMU_DIR/$f missing (scripts/build/mk-linux-domu.sh)"
		install -D -m 0644 "$LINUX_DOMU_DIR/$f" "$stage/opt/smpalt/linux/$f"
	done
fi
# install_linux_smpalt DIR DEST: the patched guest's files from DIR into
# the image's DEST.
install_linux_smpalt() {
	local dir=$1 dest=$2 f
	for f in vmlinuz initrd.gz; do
		[ -f "$dir/$f" ] ||
			die "$dir/$f missing (make linux, scripts/build/mk-linux-smpalt-domu.sh)"
		install -D -m 0644 "$dir/$f" "$stage$dest/$f"
	done
	# The kernel's configuration, which the scenarios that need another
	# configuration read, and the memory it needs beyond the xl config's
	# (Debian's configuration: the Linux guest driver creates it with that
	# much), when given.
	for f in config memory; do
		[ ! -f "$dir/$f" ] || install -m 0644 "$dir/$f" "$stage$dest/$f"
	done
}
LINUX_SMPALT_DIR=${LINUX_SMPALT_DIR:-}
[ -z "$LINUX_SMPALT_DIR" ] ||
	install_linux_smpalt "$LINUX_SMPALT_DIR" /opt/smpalt/linux-smpalt
for v in ${LINUX_SMPALT_VERSIONS:-}; do
	[[ $v =~ ^[0-9]+\.[0-9]+(-[a-z]+)?=. ]] ||
		die "LINUX_SMPALT_VERSIONS: '$v' is not KVER=DIR or KVER-CONFIG=DIR"
	install_linux_smpalt "${v#*=}" "/opt/smpalt/linux-smpalt-${v%%=*}"
done

DEBIAN_DOMU_DIR=${DEBIAN_DOMU_DIR:-}
if [ -n "$DEBIAN_DOMU_DIR" ]; then
	for f in grub-x86_64-xen.bin grub-i386-xen_pvh.bin; do
		[ -f "$DEBIAN_DOMU_DIR/$f" ] ||
			die "$DEBIAN_DOMU_DIR/$f missing (scripts/build/mk-debian-domu.sh)"
		install -D -m 0644 "$DEBIAN_DOMU_DIR/$f" "$stage/opt/smpalt/debian/$f"
	done
	if [ "${DEBIAN_DOMU_STOCK:-0}" = 1 ]; then
		for f in vmlinuz initrd.img cmdline; do
			[ -f "$DEBIAN_DOMU_DIR/stock-$f" ] ||
				die "$DEBIAN_DOMU_DIR/stock-$f missing (scripts/build/mk-debian-domu.sh makes it)"
			install -D -m 0644 "$DEBIAN_DOMU_DIR/stock-$f" "$stage/opt/smpalt/debian/stock/$f"
		done
	fi
fi

# --- smpalt installed as on a real host (mk/install.mk), with the
# libraries the autoscaler links (libxenstore.so.4: the Debian library
# copied above is the same version as the host's libxen-dev).
# AUTOSCALER from the environment, else the gcc or clang build if present.
INSTALL_PREFIX=/usr/local
# XEN=4.20: only its build in the Debian 13 root
# (scripts/build/xen-root-build.sh).
AUTOSCALER=${AUTOSCALER:-}
autoscalers=("$TOP"/build/{gcc,clang}/tools/smpalt-autoscaler)
[ "$XEN_OWN_LIBC" != 1 ] || autoscalers=("$TOP/build/xen-$XEN_VERSION/tools/smpalt-autoscaler")
for a in "${autoscalers[@]}"; do
	[ -n "$AUTOSCALER" ] || [ ! -x "$a" ] || AUTOSCALER=$a
done
installed=none
SMPALT_DEBS=${SMPALT_DEBS:-}
if [ -n "$SMPALT_DEBS" ]; then
	for d in $SMPALT_DEBS; do
		[ -f "$d" ] || die "SMPALT_DEBS: $d does not exist"
		dpkg -x "$d" "$stage" || die "dpkg -x $d failed"
	done
	deb_autoscaler=/usr/sbin/smpalt-autoscaler
	[ -x "$stage$deb_autoscaler" ] || die "SMPALT_DEBS: no $deb_autoscaler in $SMPALT_DEBS"
	deb_kernel=$(sed -nE 's/^kernel *= *"(.*)"$/\1/p' "$stage/etc/xen/smpalt.cfg" 2>/dev/null)
	[ -n "$deb_kernel" ] && [ -f "$stage$deb_kernel" ] ||
		die "SMPALT_DEBS: no /etc/xen/smpalt.cfg naming a kernel they hold"
	deb_unit=
	for u in {usr/,}lib/systemd/system/smpalt-autoscaler.service; do
		[ -n "$deb_unit" ] || [ ! -f "$stage/$u" ] || deb_unit=$u
	done
	[ -n "$deb_unit" ] || die "SMPALT_DEBS: no smpalt-autoscaler.service"
	for dep in $(needed_of "$stage$deb_autoscaler"); do
		copy_lib "$dep"
	done
	installed="dpkg -x $(for d in $SMPALT_DEBS; do basename "$d"; done | tr '\n' ' ')"
	installed=${installed% }
	cat >"$stage/opt/smpalt/installed.env" <<-EOF
		# Where the Debian packages put smpalt (scripts/build/mkinitramfs.sh).
		SMPALT_ELF=$deb_kernel
		SMPALT_AUTOSCALER=$deb_autoscaler
		SMPALT_UNIT=/$deb_unit
		SMPALT_INSTALLED="$installed"
	EOF
elif [ -n "$GUEST_ELF" ] && [ -n "$AUTOSCALER" ]; then
	make -C "$TOP" --no-print-directory install PREFIX=$INSTALL_PREFIX \
		DESTDIR="$stage" INSTALL_GUEST="$GUEST_ELF" \
		INSTALL_AUTOSCALER="$AUTOSCALER" ||
		die "make install into the initramfs failed"
	for dep in $(needed_of "$stage$INSTALL_PREFIX/sbin/smpalt-autoscaler"); do
		copy_lib "$dep"
	done
	installed="make install PREFIX=$INSTALL_PREFIX"
fi

# --- the benchmarks' dom0 event stamper (mk/bench.mk), when built: XS_STAMP
# from the environment, else the gcc or clang build if present.
XS_STAMP=${XS_STAMP:-}
for a in "$TOP"/build/{gcc,clang}/bench/smpalt-xs-stamp; do
	[ -n "$XS_STAMP" ] || [ ! -x "$a" ] || XS_STAMP=$a
done
if [ -n "$XS_STAMP" ]; then
	mkdir -p "$stage/opt/smpalt/bin"
	copy_bin "$XS_STAMP" opt/smpalt/bin/smpalt-xs-stamp
fi

# --- libvirt (LIBVIRT=1 only): libvirtd, its libxl driver, virsh, the
# x86 CPU models. Verified set-up, docs/libvirt.md.
if [ "${LIBVIRT:-0}" = 1 ]; then
	lv_driver=usr/lib/x86_64-linux-gnu/libvirt/connection-driver/libvirt_driver_libxl.so
	lv_cpu_map=usr/share/libvirt/cpu_map
	copy_bin "$XEN_ROOT/usr/sbin/libvirtd" usr/sbin/libvirtd
	copy_bin "$XEN_ROOT/usr/bin/virsh" usr/bin/virsh
	mkdir -p "$stage/$(dirname "$lv_driver")" "$stage/$lv_cpu_map" \
		"$stage"/var/lib/libvirt "$stage"/var/log/libvirt
	copy_bin "$XEN_ROOT/$lv_driver" "$lv_driver"
	cp "$XEN_ROOT/$lv_cpu_map"/index.xml "$XEN_ROOT/$lv_cpu_map"/x86_*.xml \
		"$stage/$lv_cpu_map/"
	# The libxl driver needs a CPU model that the host CPU has all the
	# features of, or it does not start ("Cannot find suitable CPU model
	# for given data"). QEMU's TCG CPU without XSAVE lacks vme and sep, so
	# no model fits; without vme, the 486 does.
	sed -i "/<feature name='vme'\/>/d" "$stage/$lv_cpu_map/x86_486.xml"
	# Without a group database every connection fails (and libvirtd
	# crashes a while later).
	echo "root:x:0:" >"$stage/etc/group"
fi

# gzip -1: the image is large and made for every run.
initramfs_pack "$stage" "$out" 1
echo "mkinitramfs: $out (Xen $XEN_VERSION, Debian $XEN_SUITE userland, $(du -h "$out" | cut -f1)," \
	"guest: ${GUEST_ELF:-none}, ${#copied[@]} libraries)"
echo "mkinitramfs: autoscaler: ${AUTOSCALER:-none}; installed: $installed"
[ "${LIBVIRT:-0}" != 1 ] || echo "mkinitramfs: with libvirt (libvirtd, libxl driver, virsh)"
