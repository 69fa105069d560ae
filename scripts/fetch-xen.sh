#!/bin/bash
# Download and unpack what the Xen-in-QEMU harness boots: the Xen hypervisor,
# the Xen tools and their runtime libraries, the dom0 kernel and busybox.
#
# Nothing is installed on the host: each package is fetched with
# `apt-get download` into cache/xen/debs/ and unpacked with `dpkg -x` into
# cache/xen/root/. Idempotent: a package already downloaded and unpacked is
# skipped. Glibc, libgcc_s and the other common libraries are taken from the
# host by mkinitramfs.sh (the host is Debian 12 like these packages).
#
# The first run downloads about 75 MB (one line per package: n of N, name,
# size) and unpacks them to about 430 MB. At the end, cache/xen/versions.txt
# names the versions in use (Xen, dom0 kernel, and the host's QEMU), which
# scripts/xen-run.sh copies into each run's results.
#
# Usage: scripts/fetch-xen.sh            (CACHE=dir overrides cache/)
# LIBVIRT=1 also fetches libvirt (libvirtd with its libxl driver, virsh)
# for the dom0 image of the scenarios that need it (scripts/xen-run.sh).
set -euo pipefail

. "$(dirname "$0")/lib/host.sh"
host_script fetch-xen
parse_args "$@"
XEN_CACHE=$CACHE/xen
DEBS=$XEN_CACHE/debs
ROOT=$XEN_CACHE/root
STAMPS=$XEN_CACHE/stamps
XEN_VERSION=4.17
# The dom0 kernel series; linux-image-amd64 names the real package.
DOM0_KERNEL_SERIES=6.1
DOM0_KERNEL_META=linux-image-amd64

XEN_PKGS=(
	xen-hypervisor-$XEN_VERSION-amd64
	xen-utils-$XEN_VERSION
	xen-utils-common
	xenstore-utils
	libxenmisc$XEN_VERSION
	libxenstore4
	libxencall1
	libxendevicemodel1
	libxenevtchn1
	libxenforeignmemory1
	libxengnttab1
	libxenhypfs1
	libxentoolcore1
	libxentoollog1
	libyajl2
	busybox-static
)

# LIBVIRT=1 only: Debian 12's libvirt 9.0 (monolithic libvirtd). libssh-4
# is the one library of theirs a Debian host may lack; the others come
# from the host like glibc's.
LIBVIRT_PKGS=(
	libvirt-daemon
	libvirt-daemon-driver-xen
	libvirt-clients
	libvirt0
	libssh-4
)

log() { echo "fetch-xen: $*"; }

command -v apt-get >/dev/null || die "apt-get not found (a Debian host is required)"
command -v dpkg >/dev/null || die "dpkg not found"

apt_updated=0
apt_update_once() {
	[ "$apt_updated" -eq 0 ] || return 0
	log "refreshing package lists (apt-get update)"
	apt-get update -q >/dev/null || die "apt-get update failed"
	apt_updated=1
}

# The real kernel package behind the meta package, e.g. linux-image-6.1.0-57-amd64.
resolve_dom0_kernel() {
	local pkg
	pkg=$(apt-cache depends "$DOM0_KERNEL_META" 2>/dev/null |
		sed -nE "s/^ *Depends: (linux-image-$DOM0_KERNEL_SERIES[^ ]*-amd64)$/\1/p" |
		head -1)
	if [ -z "$pkg" ]; then
		apt_update_once
		pkg=$(apt-cache depends "$DOM0_KERNEL_META" 2>/dev/null |
			sed -nE "s/^ *Depends: (linux-image-$DOM0_KERNEL_SERIES[^ ]*-amd64)$/\1/p" |
			head -1)
	fi
	[ -n "$pkg" ] || die "cannot resolve $DOM0_KERNEL_META to a $DOM0_KERNEL_SERIES kernel package"
	echo "$pkg"
}

have_deb() {
	compgen -G "$DEBS/${1}_*.deb" >/dev/null
}

# Size in bytes of a package's .deb in the archive (0 if unknown).
deb_bytes() {
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		awk '/^Size:/ { n = $2; exit } END { print n + 0 }'
}

# human BYTES: "1.4 MB", "85 kB"
human() {
	awk -v n="$1" 'BEGIN { if (n >= 1e6) printf "%.1f MB", n / 1e6;
		else printf "%.0f kB", n / 1e3 }'
}

# Download one package into $DEBS unless a .deb of it is already there.
# N_DONE of N_MISSING are done before this one (progress lines).
download() {
	local pkg=$1 size
	have_deb "$pkg" && return 0
	n_done=$((n_done + 1))
	size=$(deb_bytes "$pkg")
	log "downloading $n_done of $n_missing: $pkg ($(human "$size"))"
	# apt's sandbox user cannot write into root-owned cache folders.
	if ! (cd "$DEBS" && apt-get download -q "$pkg" >/dev/null 2>&1); then
		apt_update_once
		(cd "$DEBS" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
			die "apt-get download $pkg failed"
	fi
}

unpack() {
	local pkg=$1 deb
	deb=$(compgen -G "$DEBS/${pkg}_*.deb" | head -1)
	[ -n "$deb" ] || die "no .deb for $pkg in $DEBS"
	[ -e "$STAMPS/$(basename "$deb").unpacked" ] && return 0
	log "unpacking $(basename "$deb")"
	dpkg -x "$deb" "$ROOT" || die "dpkg -x $deb failed"
	touch "$STAMPS/$(basename "$deb").unpacked"
}

mkdir -p "$DEBS" "$ROOT" "$STAMPS"
chmod 0755 "$DEBS"
# Several harness runs may start at once on a fresh cache: one unpacks.
exec 7>"$XEN_CACHE/.fetch.lock"
flock 7

kernel_pkg=$(resolve_dom0_kernel)
all_pkgs=("${XEN_PKGS[@]}" "$kernel_pkg")
[ "${LIBVIRT:-0}" != 1 ] || all_pkgs+=("${LIBVIRT_PKGS[@]}")
n_missing=0
n_done=0
missing_bytes=0
for p in "${all_pkgs[@]}"; do
	have_deb "$p" && continue
	n_missing=$((n_missing + 1))
	missing_bytes=$((missing_bytes + $(deb_bytes "$p")))
done
if [ "$n_missing" -gt 0 ]; then
	log "downloading $n_missing of ${#all_pkgs[@]} packages," \
		"$(human "$missing_bytes") (Xen $XEN_VERSION, its tools, the dom0" \
		"kernel; about 430 MB once unpacked) into $DEBS"
fi
for p in "${all_pkgs[@]}"; do
	download "$p"
	unpack "$p"
done

# The files the harness needs, checked here so that a broken cache fails early.
xen_gz=$ROOT/boot/xen-$XEN_VERSION-amd64.gz
[ -f "$xen_gz" ] || die "hypervisor missing: $xen_gz"
if [ ! -f "$XEN_CACHE/xen" ] || [ "$xen_gz" -nt "$XEN_CACHE/xen" ]; then
	log "gunzipping the hypervisor (QEMU -kernel needs it uncompressed)"
	gzip -dc "$xen_gz" >"$XEN_CACHE/xen.tmp"
	mv "$XEN_CACHE/xen.tmp" "$XEN_CACHE/xen"
fi
vmlinuz=$(compgen -G "$ROOT/boot/vmlinuz-$DOM0_KERNEL_SERIES*-amd64" | sort | tail -1)
[ -n "$vmlinuz" ] || die "dom0 kernel missing under $ROOT/boot"
ln -sf "$vmlinuz" "$XEN_CACHE/vmlinuz"
[ -x "$ROOT/usr/lib/xen-$XEN_VERSION/bin/xl" ] || die "xl missing"
[ -x "$ROOT/bin/busybox" ] || die "busybox missing"
if [ "${LIBVIRT:-0}" = 1 ]; then
	for f in usr/sbin/libvirtd usr/bin/virsh \
		usr/lib/x86_64-linux-gnu/libvirt/connection-driver/libvirt_driver_libxl.so \
		usr/share/libvirt/cpu_map/index.xml; do
		[ -e "$ROOT/$f" ] || die "libvirt: $f missing"
	done
fi

# What a run used, for its results (key=value; QEMU is the host's package).
version_of_deb() {
	local deb
	deb=$(compgen -G "$DEBS/${1}_*.deb" | head -1)
	dpkg-deb -f "$deb" Version
}
{
	echo "xen=xen-hypervisor-$XEN_VERSION-amd64 $(version_of_deb "xen-hypervisor-$XEN_VERSION-amd64")"
	echo "xen_tools=xen-utils-$XEN_VERSION $(version_of_deb "xen-utils-$XEN_VERSION")"
	echo "dom0_kernel=$kernel_pkg $(version_of_deb "$kernel_pkg")"
	echo "qemu=qemu-system-x86 $(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || echo unknown)"
} >"$XEN_CACHE/versions.txt.tmp"
mv "$XEN_CACHE/versions.txt.tmp" "$XEN_CACHE/versions.txt"

log "ready: $XEN_CACHE (xen, vmlinuz -> $(basename "$vmlinuz"), root/)"
