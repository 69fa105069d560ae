#!/bin/bash
# The Debian packages: `dpkg-buildpackage -us -uc -b` on a copy of the
# tree, then the two .debs checked as Debian's tools and an administrator
# would check them.
#
# Input:    the source tree (tracked and new files, not build outputs),
#           built by scripts/build/build-deb.sh in a copy, out/deb/src/, so that
#           dpkg-buildpackage's outputs land in out/deb/. Unit tests are not
#           run inside the package build (DEB_BUILD_OPTIONS=nocheck): `make
#           test` runs them.
# Expected: one line per check, "PASS <what>" or "FAIL <what>: <why>":
#   the build exits 0 and makes smpalt-autoscaler and smpalt-guest; lintian
#   --pedantic reports no error and no warning; hardening-check passes on the
#   packaged daemon; each package holds the files it should, with its
#   configuration files as conffiles; the daemon says the changelog's
#   version, which a tree without git builds in by itself; the packaged
#   guest kernel keeps its Xen notes and the packaged xl config names it;
#   the maintainer scripts enable and start the unit;
#   `systemd-analyze verify` accepts the packaged unit; `systemd-analyze
#   security --offline=true` gives it an exposure of at most 1.6.
#   Last line: "N passed, N failed".
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/out/deb
SRC=$OUT/src
ROOT=$OUT/root
MAX_EXPOSURE=1.6

. "$TOP/scripts/lib/tally.sh"

# 1. the copy and the build (scripts/build/build-deb.sh)
start=$(date +%s)
if bout=$(DEB_BUILD_OPTIONS=nocheck bash "$TOP/scripts/build/build-deb.sh" 2>&1); then
	ok "dpkg-buildpackage -us -uc -b exits 0" \
		"$(($(date +%s) - start)) s, log out/deb/build.log"
else
	ko "dpkg-buildpackage -us -uc -b" "$(tail -4 <<<"$bout" | tr '\n' ' ')"
fi
mkdir -p "$ROOT"
version=$(cd "$SRC" && dpkg-parsechangelog -SVersion)
DAEMON=$OUT/smpalt-autoscaler_${version}_amd64.deb
GUEST=$OUT/smpalt-guest_${version}_amd64.deb
CHANGES=$OUT/smpalt_${version}_amd64.changes
if [ -f "$DAEMON" ] && [ -f "$GUEST" ] && [ -f "$CHANGES" ]; then
	ok "out/deb/ holds $(basename "$DAEMON"), $(basename "$GUEST") and the .changes"
else
	ko "packages" "missing in out/deb/: $(cd "$OUT" && ls -- *.deb *.changes 2>&1 | tr '\n' ' ')"
fi
for d in "$DAEMON" "$GUEST"; do
	[ ! -f "$d" ] || dpkg-deb -x "$d" "$ROOT"
done

# 2. lintian, pedantic tags included: no error and no warning
lintian --allow-root --pedantic --tag-display-limit 0 "$CHANGES" \
	>"$OUT/lintian.log" 2>&1
errors=$(grep -c '^E: ' "$OUT/lintian.log")
warnings=$(grep -c '^W: ' "$OUT/lintian.log")
sed -n '/^[EW]: /s/^/  lintian: /p' "$OUT/lintian.log"
if [ -f "$CHANGES" ] && [ "$errors" -eq 0 ] && [ "$warnings" -eq 0 ] &&
	! grep -q '^internal error\|^lintian: error\|^error:' "$OUT/lintian.log"; then
	ok "lintian --pedantic on the .changes: no error, no warning"
else
	ko "lintian --pedantic" "$errors error(s), $warnings warning(s) (out/deb/lintian.log)"
fi

# 3. the daemon carries every hardening feature dpkg-buildflags gives:
# PIE, stack protector, _FORTIFY_SOURCE, RELRO, BIND_NOW. Not the
# control-flow property (IBT, SHSTK): Debian 12's C start files lack it,
# so no Debian 12 program has it (hardening-check /usr/bin/ls says no
# too), though the daemon is compiled with -fcf-protection. Stack clash
# protection shows only in functions with a large frame: "unknown" is
# not a failure.
BIN=$ROOT/usr/sbin/smpalt-autoscaler
if hout=$(hardening-check --nocfprotection "$BIN" 2>&1); then
	ok "hardening-check /usr/sbin/smpalt-autoscaler" \
		"$(grep -c ': yes' <<<"$hout") features yes"
else
	ko "hardening-check" "$(grep -v ': yes' <<<"$hout" | tr '\n' ' ')"
fi

# 4. each package's files and conffiles
# has DEB PATH...: every PATH is in DEB's data (PATH.gz for a document:
# dh_compress compresses those over 4 kB).
has() {
	local deb=$1 list p missing=
	shift
	list=$(dpkg-deb -c "$deb" 2>/dev/null | awk '{print $6}' | sed 's/^\.//')
	for p; do
		grep -qxF "$p" <<<"$list" ||
			{ [[ $p == /usr/share/doc/*.md ]] && grep -qxF "$p.gz" <<<"$list"; } ||
			missing+="$p "
	done
	echo "$missing"
}
# conffiles DEB: its conffiles, sorted, on one line.
conffiles() {
	dpkg-deb -I "$1" conffiles 2>/dev/null | sort | tr '\n' ' '
}
missing=$(has "$DAEMON" /usr/sbin/smpalt-autoscaler \
	/lib/systemd/system/smpalt-autoscaler.service \
	/usr/share/man/man8/smpalt-autoscaler.8.gz \
	/etc/default/smpalt-autoscaler /etc/smpalt/autoscaler.conf \
	/usr/share/doc/smpalt-autoscaler/autoscaler.md \
	/usr/share/doc/smpalt-autoscaler/libvirt.md \
	/usr/share/doc/smpalt-autoscaler/xenstore.md \
	/usr/share/doc/smpalt-autoscaler/real-host.md \
	/usr/share/doc/smpalt-autoscaler/copyright)
want="/etc/default/smpalt-autoscaler /etc/smpalt/autoscaler.conf "
if [ -f "$TOP/dist/smpalt-autoscaler.logrotate" ]; then
	missing+=$(has "$DAEMON" /etc/logrotate.d/smpalt-autoscaler)
	want="/etc/default/smpalt-autoscaler /etc/logrotate.d/smpalt-autoscaler /etc/smpalt/autoscaler.conf "
fi
got=$(conffiles "$DAEMON")
if [ -f "$DAEMON" ] && [ -z "$missing" ] && [ "$got" = "$want" ]; then
	ok "smpalt-autoscaler: daemon, unit, man page, docs; conffiles $want"
else
	ko "smpalt-autoscaler contents" "missing: '$missing'; conffiles '$got', wanted '$want'"
fi
missing=$(has "$GUEST" /usr/lib/xen/boot/smpalt.elf /etc/xen/smpalt.cfg \
	/usr/share/doc/smpalt-guest/copyright)
got=$(conffiles "$GUEST")
if [ -f "$GUEST" ] && [ -z "$missing" ] && [ "$got" = "/etc/xen/smpalt.cfg " ]; then
	ok "smpalt-guest: kernel, xl config; conffiles /etc/xen/smpalt.cfg"
else
	ko "smpalt-guest contents" "missing: '$missing'; conffiles '$got'"
fi
extra=$(for d in "$DAEMON" "$GUEST"; do dpkg-deb -c "$d" 2>/dev/null; done |
	awk '{print $6}' | grep -E 'install-manifest|/LICENSE$' | tr '\n' ' ')
if [ -n "$extra" ]; then
	ko "packages" "make install's list or a LICENSE packaged: $extra"
else
	ok "no install-manifest, no LICENSE file (debian/copyright has it) in the packages"
fi

# 5. the daemon says the package's version
vout=$("$BIN" --version 2>&1)
if [ "$vout" = "smpalt-autoscaler $version" ]; then
	ok "packaged smpalt-autoscaler --version: '$vout'"
else
	ko "--version" "'$vout', wanted 'smpalt-autoscaler $version'"
fi

# 5b. a tree without git (the copy, as from a source tarball) builds the
# changelog's version in by itself, without debian/rules giving it
vflag=$(make -C "$SRC" --no-print-directory -n -B "$SRC/build/gcc/tools/smpalt-autoscaler" 2>&1 |
	grep -o "SMPALT_VERSION='[^']*'" | head -1)
if [ "$vflag" = "SMPALT_VERSION='\"$version\"'" ]; then
	ok "make in a tree without git: $vflag, from debian/changelog"
else
	ko "version without git" "'$vflag', wanted SMPALT_VERSION='\"$version\"'"
fi

# 6. the packaged kernel (stripped by dh_strip) keeps its Xen notes, and
# the packaged xl config names it
hexof() { printf '%s' "$1" | od -An -tx1 | tr -s ' \n' ' ' | sed 's/^ *//; s/ *$//'; }
KERNEL=/usr/lib/xen/boot/smpalt.elf
notes=$(readelf -n "$ROOT$KERNEL" 2>&1)
kline=$(sed -nE 's/^kernel *= *"(.*)"$/\1/p' "$ROOT/etc/xen/smpalt.cfg" 2>/dev/null)
if grep -q "description data: $(hexof xen-3.0) 00" <<<"$notes" &&
	grep -q "description data: $(hexof smpalt) 00" <<<"$notes" &&
	[ "$kline" = "$KERNEL" ] &&
	grep -q '^on_reboot = "restart"' "$ROOT/etc/xen/smpalt.cfg"; then
	ok "packaged $KERNEL has its Xen notes; /etc/xen/smpalt.cfg names it, on_reboot=restart"
else
	ko "packaged guest" "kernel line '$kline'; Xen notes: $(grep -c 'description data' <<<"$notes")"
fi

# 7. the maintainer scripts enable and start the unit (dh_installsystemd)
postinst=$(dpkg-deb -I "$DAEMON" postinst 2>/dev/null)
if grep -q "deb-systemd-helper enable 'smpalt-autoscaler.service'" <<<"$postinst" &&
	grep -q "_dh_action=start" <<<"$postinst" &&
	grep -q "deb-systemd-invoke \$_dh_action 'smpalt-autoscaler.service'" <<<"$postinst"; then
	ok "postinst enables and starts smpalt-autoscaler.service"
else
	ko "postinst" "no enable/start of smpalt-autoscaler.service"
fi

# 8. systemd accepts the packaged unit. verify checks that ExecStart's
# program and the Documentation= man page exist on this machine: a copy
# whose absolute paths point into the unpacked packages is verified.
UNIT=$ROOT/lib/systemd/system/smpalt-autoscaler.service
mkdir -p "$OUT/verify"
sed -E "s#^(ExecStart=|EnvironmentFile=-?)/#\1$ROOT/#" "$UNIT" \
	>"$OUT/verify/smpalt-autoscaler.service" 2>/dev/null
vout=$(MANPATH=$ROOT/usr/share/man \
	systemd-analyze verify "$OUT/verify/smpalt-autoscaler.service" 2>&1)
if [ $? -eq 0 ] && [ -z "$vout" ] && [ -s "$UNIT" ]; then
	ok "systemd-analyze verify accepts the packaged unit"
else
	ko "systemd-analyze verify" "$(tr '\n' ' ' <<<"$vout")"
fi

# 9. its exposure, as systemd-analyze rates it without running it
sout=$(systemd-analyze security --offline=true "$UNIT" 2>&1)
exposure=$(sed -nE 's/.*Overall exposure level for [^:]*: ([0-9]+\.[0-9]+) .*/\1/p' <<<"$sout")
if [ -n "$exposure" ] &&
	awk -v e="$exposure" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(e <= m) }'; then
	ok "systemd-analyze security --offline=true: exposure $exposure (at most $MAX_EXPOSURE)"
else
	ko "systemd-analyze security" "exposure '${exposure:-none}', at most $MAX_EXPOSURE wanted ($(tail -1 <<<"$sout"))"
fi

tally_end
