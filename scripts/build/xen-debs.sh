#!/bin/bash
# The Debian packages the Xen harness installs in dom0 (SMPALT_DEBS of
# scripts/run/xen-run.sh): prints the paths of out/deb/smpalt-autoscaler_*.deb
# and out/deb/smpalt-guest_*.deb, one a line, after building them with
# scripts/build/build-deb.sh (`make deb`) when one is missing or a file of the
# tree is newer than it (`make test` builds them just before, in its
# package test, so that they are reused there). Progress goes to stderr.
# Run by mk/xen.mk for `make test-xen`.
# XEN=4.20: the packages for its Debian 13 dom0, built inside the Debian 13
# root (scripts/build/xen-root-build.sh debs) into out/deb-4.20/, so that they
# link its glibc and Xen 4.20 libraries.
#
# Usage: scripts/build/xen-debs.sh
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${CACHE:-$TOP/cache}
die() {
	echo "xen-debs: error: $*" >&2
	exit 1
}
. "$TOP/scripts/lib/xen-host.sh"
OUT=$XEN_DEBS
PKGS=(smpalt-autoscaler smpalt-guest)

# debs: the packages' files in out/deb/, one a line (none: nothing).
debs() {
	local p
	for p in "${PKGS[@]}"; do
		compgen -G "$OUT/${p}_*_amd64.deb" | sort | tail -1
	done
}

# fresh: both packages there, and no file of the tree newer than either.
fresh() {
	local d newer
	[ "$(debs | grep -c .)" = ${#PKGS[@]} ] || return 1
	for d in $(debs); do
		if [ -e "$TOP/.git" ]; then
			newer=$(cd "$TOP" && git ls-files -z -co --exclude-standard |
				xargs -0 -r sh -c 'find "$@" -maxdepth 0 -newer "$0"' "$d" \
					2>/dev/null | head -1)
		else
			newer=$(find "$TOP" \( -path "$TOP/out" -o -path "$TOP/build" -o \
				-path "$TOP/cache" \) -prune -o -type f -newer "$d" -print | head -1)
		fi
		[ -z "$newer" ] || return 1
	done
}

if ! fresh && [ "$XEN_OWN_LIBC" = 1 ]; then
	echo "xen-debs: building the packages in the Debian root of XEN=$XEN (scripts/build/xen-root-build.sh)" >&2
	bash "$TOP/scripts/build/fetch-xen.sh" >&2
	bash "$TOP/scripts/build/xen-root-build.sh" debs "$OUT" >&2
elif ! fresh; then
	[ -f "$TOP/scripts/build/build-deb.sh" ] || {
		echo "xen-debs: no scripts/build/build-deb.sh: no packages" >&2
		exit 0
	}
	echo "xen-debs: building the packages (scripts/build/build-deb.sh, DEB_BUILD_OPTIONS=nocheck)" >&2
	DEB_BUILD_OPTIONS=nocheck bash "$TOP/scripts/build/build-deb.sh" >&2
fi
debs
