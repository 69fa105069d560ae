#!/bin/bash
# Fetch promtool, Prometheus's checker of the metrics text format, for the
# autoscaler's metrics test, without installing Prometheus on the host.
#
# Debian ships promtool only inside the prometheus package, whose
# maintainer scripts enable and start a Prometheus server. The test needs
# the checker alone, so the package is downloaded with `apt-get download`
# into cache/promtool/ and unpacked there with `dpkg -x`, as
# scripts/build/fetch-xen.sh does for Xen. Idempotent: an unpacked promtool is
# kept. Prints nothing but errors and one line when it downloads.
#
# Usage: scripts/build/fetch-promtool.sh            (CACHE=dir overrides cache/)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${CACHE:-$TOP/cache}
DIR=$CACHE/promtool
BIN=$DIR/root/usr/bin/promtool

die() {
	echo "fetch-promtool: error: $*" >&2
	exit 1
}

[ -x "$BIN" ] && exit 0
command -v apt-get >/dev/null || die "apt-get not found (a Debian host is required)"
mkdir -p "$DIR/debs"
rm -f "$DIR"/debs/prometheus_*.deb
echo "fetch-promtool: downloading Debian's prometheus package for promtool"
if ! (cd "$DIR/debs" && apt-get download -q prometheus >/dev/null 2>&1); then
	apt-get update -q >/dev/null || die "apt-get update failed"
	(cd "$DIR/debs" && apt-get download -q prometheus >/dev/null) ||
		die "apt-get download prometheus failed"
fi
rm -rf "$DIR/root"
dpkg -x "$DIR"/debs/prometheus_*.deb "$DIR/root" || die "dpkg -x failed"
[ -x "$BIN" ] || die "the package holds no usr/bin/promtool"
