#!/bin/bash
# Install the host packages smpalt's build, tests and harness need.
# Idempotent: packages already present are skipped without touching apt.
# The Xen hypervisor, the Xen tools and the dom0 kernel are NOT installed
# here: scripts/build/fetch-xen.sh downloads and unpacks them into the cache.
#
# Usage: scripts/build/install-deps.sh [qemu]
#   qemu   instead, the packages scripts/build/build-qemu.sh builds QEMU
#          with (for the PVH scenarios only)
set -euo pipefail

PKGS=(
	gcc make binutils clang llvm lld
	libclang-rt-14-dev
	libvirt-dev
	libcmocka-dev libxen-dev pkg-config
	libinih-dev libsystemd-dev
	qemu-system-x86 cpio gzip xz-utils
	debootstrap zstd debian-archive-keyring
	gnuplot-nox python3
	man-db systemd
	flex bison bc libelf-dev
	build-essential debhelper dpkg-dev fakeroot lintian devscripts
	# make linux-deb: what bindeb-pkg declares it builds with (depmod,
	# module signing, its headers package)
	kmod libssl-dev rsync libdw-dev
	libinih-dev libsystemd-dev
)

case ${1:-} in
"") ;;
qemu)
	PKGS=(
		build-essential dpkg-dev patch ninja-build meson pkg-config
		python3 python3-venv libglib2.0-dev libpixman-1-dev libfdt-dev
		qemu-system-x86 seabios
	)
	;;
*)
	echo "install-deps: error: unknown package group '$1' (qemu, or none)" >&2
	exit 1
	;;
esac

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: done"
