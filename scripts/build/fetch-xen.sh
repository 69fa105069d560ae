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
# scripts/run/xen-run.sh copies into each run's results.
#
# XEN=4.20 (scripts/lib/xen-host.sh) makes cache/xen-4.20/ instead, from
# Debian 13 "trixie" (the machine's apt sources untouched): root/ is a
# `debootstrap --variant=minbase` of trixie with xen-utils-4.20,
# xenstore-utils and busybox-static (its own glibc and loader: about
# 330 MB, a minute or two), into which the trixie apt there downloads
# xen-hypervisor-4.20-amd64 and the 6.12 dom0 kernel, unpacked with
# `dpkg -x` (modules under usr/lib/modules/<version>); LIBVIRT=1 installs
# trixie's libvirt in it with that apt. Each step is done once (stamps/).
#
# Usage: scripts/build/fetch-xen.sh            (CACHE=dir overrides cache/)
# LIBVIRT=1 also fetches libvirt (libvirtd with its libxl driver, virsh)
# for the dom0 image of the scenarios that need it (scripts/run/xen-run.sh).
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script fetch-xen
parse_args "$@"
. "$(dirname "$0")/../lib/xen-host.sh"
DEBS=$XEN_CACHE/debs
ROOT=$XEN_ROOT
STAMPS=$XEN_CACHE/stamps
# The dom0 kernel series (DOM0_KERNEL_SERIES); linux-image-amd64 names the
# real package.
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

# LIBVIRT=1 only: Debian 12's libvirt 9.0 (monolithic libvirtd); on
# XEN=4.20, trixie's, installed in root/ by its apt. libssh-4
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

# --- XEN=4.20: the trixie root (XEN_OWN_LIBC=1)
# What debootstrap adds to minbase: the Xen tools, the xenstore clients and
# busybox of the suite.
ROOT_INCLUDE=xen-utils-$XEN_VERSION,xenstore-utils,busybox-static
# The packages its apt downloads and `dpkg -x` unpacks into it (nothing
# of theirs runs there: no maintainer scripts, no initramfs-tools).
OWN_ROOT_DEBS=("xen-hypervisor-$XEN_VERSION-amd64")

# root_apt ARGS...: the root's own apt (trixie's sources, lists, glibc).
root_apt() {
	chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive LC_ALL=C \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get -q "$@"
}
root_updated=0
root_apt_update_once() {
	[ "$root_updated" -eq 0 ] || return 0
	log "refreshing the $XEN_SUITE package lists in $ROOT (its apt-get update)"
	root_apt update >/dev/null || die "apt-get update in $ROOT failed (mirror $mirror)"
	root_updated=1
}

# The trixie root: debootstrap once (stamps/root names what it was made
# from; another mirror or package list makes it again).
make_own_root() {
	local want t0
	command -v debootstrap >/dev/null || die "debootstrap not found (scripts/build/install-deps.sh)"
	command -v chroot >/dev/null || die "chroot not found"
	[ "$(id -u)" -eq 0 ] || die "XEN=$XEN: debootstrap and chroot need root"
	mirror=$(suite_mirror "$XEN_SUITE")
	[ -n "$mirror" ] || die "no Debian mirror in the machine's apt sources: give DEBIAN_MIRROR="
	want="suite=$XEN_SUITE mirror=$mirror include=$ROOT_INCLUDE"
	if [ -d "$ROOT" ] && [ "$(cat "$STAMPS/root" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	rm -rf "$ROOT" "$ROOT.tmp" "$STAMPS"
	mkdir -p "$STAMPS"
	t0=$(date +%s)
	log "debootstrap $XEN_SUITE (minbase + $ROOT_INCLUDE) from $mirror into $ROOT:" \
		"about 330 MB, 1-3 minutes (log: $XEN_CACHE/debootstrap.log)"
	if ! debootstrap --variant=minbase --include="$ROOT_INCLUDE" "$XEN_SUITE" \
		"$ROOT.tmp" "$mirror" >"$XEN_CACHE/debootstrap.log" 2>&1; then
		tail -20 "$XEN_CACHE/debootstrap.log" >&2
		die "debootstrap $XEN_SUITE from $mirror failed (whole log: $XEN_CACHE/debootstrap.log)"
	fi
	# Packages installed later in it (libvirt, the build tools) start no
	# service.
	printf '#!/bin/sh\nexit 101\n' >"$ROOT.tmp/usr/sbin/policy-rc.d"
	chmod 0755 "$ROOT.tmp/usr/sbin/policy-rc.d"
	mv "$ROOT.tmp" "$ROOT"
	echo "$want" >"$STAMPS/root"
	log "debootstrap done in $(($(date +%s) - t0)) s, $(du -sh "$ROOT" | cut -f1)"
}

# The real kernel package behind the meta package, from the root's apt.
resolve_own_kernel() {
	local pkg i
	for i in 1 2; do
		pkg=$(chroot "$ROOT" apt-cache depends "$DOM0_KERNEL_META" 2>/dev/null |
			sed -nE "s/^ *Depends: (linux-image-$DOM0_KERNEL_SERIES[^ ]*-amd64)$/\1/p" |
			head -1)
		[ -z "$pkg" ] || break
		[ "$i" = 2 ] || root_apt_update_once
	done
	[ -n "$pkg" ] || die "cannot resolve $XEN_SUITE's $DOM0_KERNEL_META to a $DOM0_KERNEL_SERIES kernel package"
	echo "$pkg"
}

# Download one package with the root's apt into $DEBS, then unpack it into
# the root, each once.
own_download_unpack() {
	local pkg=$1 deb
	if ! have_deb "$pkg"; then
		n_done=$((n_done + 1))
		log "downloading $n_done of ${#OWN_ROOT_DEBS[@]}: $pkg ($XEN_SUITE)"
		rm -rf "$ROOT/tmp/smpalt-debs"
		mkdir -p "$ROOT/tmp/smpalt-debs"
		chmod 0777 "$ROOT/tmp/smpalt-debs"
		if ! chroot "$ROOT" sh -c "cd /tmp/smpalt-debs && apt-get download -q $pkg" >/dev/null 2>&1; then
			root_apt_update_once
			chroot "$ROOT" sh -c "cd /tmp/smpalt-debs && apt-get download -q $pkg" >/dev/null 2>&1 ||
				die "apt-get download $pkg ($XEN_SUITE, $mirror) failed"
		fi
		mv "$ROOT"/tmp/smpalt-debs/"${pkg}"_*.deb "$DEBS/"
		rm -rf "$ROOT/tmp/smpalt-debs"
	fi
	unpack "$pkg"
}

# LIBVIRT=1: trixie's libvirt installed in the root by its apt, once.
own_libvirt() {
	local want="${LIBVIRT_PKGS[*]}"
	[ "$(cat "$STAMPS/libvirt" 2>/dev/null)" != "$want" ] || return 0
	root_apt_update_once
	log "installing $XEN_SUITE's libvirt in $ROOT: ${LIBVIRT_PKGS[*]} (a minute or two)"
	root_apt install -y --no-install-recommends "${LIBVIRT_PKGS[@]}" \
		>"$XEN_CACHE/libvirt-install.log" 2>&1 ||
		{ tail -20 "$XEN_CACHE/libvirt-install.log" >&2; die "apt-get install of libvirt in $ROOT failed"; }
	echo "$want" >"$STAMPS/libvirt"
}

mkdir -p "$XEN_CACHE"
# Several harness runs may start at once on a fresh cache: one unpacks.
exec 7>"$XEN_CACHE/.fetch.lock"
flock 7
if [ "$XEN_OWN_LIBC" = 1 ]; then
	make_own_root
	mkdir -p "$DEBS" "$STAMPS"
	chmod 0755 "$DEBS"
	kernel_pkg=$(resolve_own_kernel)
	OWN_ROOT_DEBS+=("$kernel_pkg")
	n_done=0
	for p in "${OWN_ROOT_DEBS[@]}"; do
		own_download_unpack "$p"
	done
	[ "${LIBVIRT:-0}" != 1 ] || own_libvirt
else
	mkdir -p "$DEBS" "$ROOT" "$STAMPS"
	chmod 0755 "$DEBS"
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
fi

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
# Relative: the cache is shared by checkouts at other paths.
ln -sfn "${vmlinuz#"$XEN_CACHE/"}" "$XEN_CACHE/vmlinuz"
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
	if [ -n "$deb" ]; then
		dpkg-deb -f "$deb" Version
	else # installed in the root (XEN=4.20)
		dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f='${Version}' "$1"
	fi
}
{
	echo "xen=xen-hypervisor-$XEN_VERSION-amd64 $(version_of_deb "xen-hypervisor-$XEN_VERSION-amd64")"
	echo "xen_tools=xen-utils-$XEN_VERSION $(version_of_deb "xen-utils-$XEN_VERSION")"
	echo "dom0_kernel=$kernel_pkg $(version_of_deb "$kernel_pkg")"
	echo "dom0_userland=Debian $XEN_SUITE$([ "$XEN_OWN_LIBC" = 1 ] && echo " (libc6 $(version_of_deb libc6))")"
	echo "qemu=qemu-system-x86 $(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || echo unknown)"
} >"$XEN_CACHE/versions.txt.tmp"
mv "$XEN_CACHE/versions.txt.tmp" "$XEN_CACHE/versions.txt"

log "ready: $XEN_CACHE (xen, vmlinuz -> $(basename "$vmlinuz"), root/)"
