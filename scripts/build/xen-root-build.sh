#!/bin/bash
# Build smpalt's dom0 programs for the XEN=4.20 host inside its Debian 13
# root (cache/xen-4.20/root, scripts/build/fetch-xen.sh), so that the dom0
# image, whose glibc and Xen libraries are that root's, carries binaries
# built against them: the suite's own gcc, libxen-dev (libxenstore,
# libxenstat 4.20), libinih, libsystemd and libvirt.
#
#   scripts/build/xen-root-build.sh autoscaler OUT   the autoscaler (`make tools`
#                                              in the root) copied to OUT
#   scripts/build/xen-root-build.sh debs OUTDIR      the Debian packages
#                                              (dpkg-buildpackage -b -Pnocheck,
#                                              DEB_BUILD_OPTIONS=nocheck),
#                                              their .deb files to OUTDIR
#
# The first call installs the build tools in the root with its own apt
# (about 250 MB, a few minutes; stamps/build-deps), nothing on the
# machine. Each call builds from a fresh copy of the tree's tracked and new
# files in the root's /build/smpalt. Runs as root (chroot).
# Environment: XEN (4.20; 4.17 needs none of this: the machine is Debian 12),
# SMPALT_VERSION (what --version prints; default the tree's release).
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script xen-root-build
what=
dest=
args=()
opt_rest args
parse_args "$@"
[ ${#args[@]} -eq 2 ] || die "usage: $0 autoscaler OUT | debs OUTDIR"
what=${args[0]}
dest=${args[1]}
case $what in autoscaler | debs) ;; *) die "unknown build '$what' (autoscaler or debs)" ;; esac
. "$(dirname "$0")/../lib/xen-host.sh"
[ "$XEN_OWN_LIBC" = 1 ] || die "XEN=$XEN builds on the machine itself (make tools, make deb)"
[ "$(id -u)" -eq 0 ] || die "chroot needs root"
[ -x "$XEN_ROOT/usr/bin/apt-get" ] || die "$XEN_ROOT missing: run make xen-fetch XEN=$XEN"

# The build tools, from the root's suite.
BUILD_PKGS=(build-essential pkg-config libxen-dev libinih-dev libsystemd-dev
	libvirt-dev debhelper fakeroot)
SRC=/build/smpalt

log() { echo "xen-root-build: $*"; }
in_root() {
	chroot "$XEN_ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C \
		HOME=/root DEBIAN_FRONTEND=noninteractive "$@"
}

mkdir -p "$XEN_CACHE/stamps"
exec 7>"$XEN_CACHE/.build.lock"
flock 7

if [ "$(cat "$XEN_CACHE/stamps/build-deps" 2>/dev/null)" != "${BUILD_PKGS[*]}" ]; then
	t0=$(date +%s)
	log "installing the $XEN_SUITE build tools in $XEN_ROOT: ${BUILD_PKGS[*]}" \
		"(its apt; a few minutes the first time; log: $XEN_CACHE/build-deps.log)"
	{ in_root apt-get -q update && in_root apt-get -q install -y --no-install-recommends \
		"${BUILD_PKGS[@]}"; } >"$XEN_CACHE/build-deps.log" 2>&1 ||
		{ tail -20 "$XEN_CACHE/build-deps.log" >&2; die "apt-get install in $XEN_ROOT failed"; }
	echo "${BUILD_PKGS[*]}" >"$XEN_CACHE/stamps/build-deps"
	log "build tools installed in $(($(date +%s) - t0)) s"
fi

# A fresh copy of the tree in the root.
rm -rf "$XEN_ROOT/build"
mkdir -p "$XEN_ROOT$SRC"
copy_tree "$XEN_ROOT$SRC"

case $what in
autoscaler)
	log "make tools in $XEN_ROOT (gcc $(in_root gcc -dumpversion), libxen-dev $(in_root dpkg-query -W -f='${Version}' libxen-dev))"
	in_root make -C $SRC --no-print-directory CC=gcc \
		${SMPALT_VERSION:+SMPALT_VERSION="$SMPALT_VERSION"} tools ||
		die "make tools in $XEN_ROOT failed"
	mkdir -p "$(dirname "$dest")"
	cp "$XEN_ROOT$SRC/build/gcc/tools/smpalt-autoscaler" "$dest.tmp"
	mv "$dest.tmp" "$dest"
	log "$dest (built in Debian $XEN_SUITE)"
	;;
debs)
	log "dpkg-buildpackage -us -uc -b in $XEN_ROOT (log: $dest/build.log)"
	mkdir -p "$dest"
	rm -f "$dest"/*.deb
	if ! in_root sh -c "cd $SRC && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b -Pnocheck" \
		>"$dest/build.log" 2>&1; then
		tail -20 "$dest/build.log" >&2
		die "dpkg-buildpackage in $XEN_ROOT failed (log: $dest/build.log)"
	fi
	cp "$XEN_ROOT"/build/*.deb "$dest/"
	(cd "$dest" && ls -- *.deb)
	;;
esac
rm -rf "$XEN_ROOT/build"
