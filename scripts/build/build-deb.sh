#!/bin/bash
# Build the Debian packages (debian/) from a copy of the tree, so that
# dpkg-buildpackage's outputs, written next to the tree it builds, stay in
# the repository's out/: out/deb/src/ is the copy, out/deb/ receives
# smpalt-autoscaler_<version>_amd64.deb, smpalt-guest_<version>_amd64.deb
# and the .changes/.buildinfo; out/deb/build.log is the build's output.
# Run by `make deb` and by tests/install/check-deb.sh (`make test-deb`).
#
# Usage: scripts/build/build-deb.sh [dpkg-buildpackage option...]
#   (default: -us -uc -b; DEB_BUILD_OPTIONS from the environment, e.g.
#   nocheck to skip the daemon's host tests in the build)
# The copy holds the tracked and new files of a git checkout (not the
# ignored build outputs), or the whole tree less build/, out/, cache/ and
# results/ elsewhere. Exit status: dpkg-buildpackage's.
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script build-deb
OUT=$TOP/out/deb
SRC=$OUT/src

# A clean build environment: nothing of a make that runs this script.
unset MAKEFLAGS MFLAGS MAKELEVEL CC CFLAGS CPPFLAGS LDFLAGS

rm -rf "$OUT"
mkdir -p "$SRC"
copy_tree "$SRC"

[ $# -gt 0 ] || set -- -us -uc -b
echo "build-deb: dpkg-buildpackage $* in out/deb/src (log: out/deb/build.log)"
rc=0
(cd "$SRC" && dpkg-buildpackage "$@") >"$OUT/build.log" 2>&1 || rc=$?
if [ $rc -ne 0 ]; then
	tail -20 "$OUT/build.log" >&2
	echo "build-deb: error: dpkg-buildpackage exited $rc" >&2
	exit $rc
fi
(cd "$OUT" && ls -- *.deb)
