#!/bin/bash
# `make install` into a temporary DESTDIR, then the installed tree checked
# as an administrator would use it, then `make uninstall`.
#
# Input:    the guest kernel and autoscaler built by `make` (gcc).
# Expected: one line per check, "PASS <what>" or "FAIL <what>: <why>":
#   the autoscaler runs (--help exits 0); the guest kernel is an ELF with
#   the Xen notes a PV loader needs; the xl config names the installed
#   kernel; the man page renders without a warning; systemd accepts the
#   unit; the unit reads the installed /etc/default file; the manifest
#   lists every installed file, configuration files with the checksum of
#   the copy installed; the docs the installed ones link to are installed;
#   a second install keeps an edited config file and replaces an unedited
#   one; uninstall keeps the edited configuration files and removes the
#   rest; `uninstall PURGE=1` removes those too and leaves nothing.
#   Last line: "N passed, N failed".
set -uo pipefail

. "$(dirname "$0")/../../scripts/lib/host.sh"
PREFIX=/usr/local
SBIN=$PREFIX/sbin/smpalt-autoscaler
KERNEL=$PREFIX/lib/xen/boot/smpalt.elf
XLCFG=/etc/xen/smpalt.cfg
MANPAGE=$PREFIX/share/man/man8/smpalt-autoscaler.8
UNIT=$PREFIX/lib/systemd/system/smpalt-autoscaler.service
DEFAULTS=/etc/default/smpalt-autoscaler
CONF=/etc/smpalt/autoscaler.conf
MANIFEST=$PREFIX/share/smpalt/install-manifest
DOCDIR=$PREFIX/share/doc/smpalt

. "$TOP/scripts/lib/tally.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/smpalt-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir "$root"

mk() {
	make -C "$TOP" --no-print-directory "$@" PREFIX=$PREFIX DESTDIR="$root" \
		>"$work/make.log" 2>&1
}

# 1. install
if mk install; then
	ok "make install DESTDIR=<tmp> PREFIX=$PREFIX exits 0"
else
	ko "make install" "exit status $? ($(tail -1 "$work/make.log"))"
fi

# 2. the autoscaler runs from where it was installed
if out=$("$root$SBIN" --help 2>&1) && [[ $out == Usage:* ]]; then
	ok "$SBIN --help exits 0 with its usage"
else
	ko "$SBIN --help" "exit status $?, output '${out:0:60}'"
fi

# 3. a Xen PV kernel: ELF, Xen notes XEN_VERSION=xen-3.0, GUEST_OS=smpalt.
# readelf prints each note's bytes; the two notes are found by content.
hexof() { printf '%s' "$1" | od -An -tx1 | tr -s ' \n' ' ' | sed 's/^ *//; s/ *$//'; }
notes=$(readelf -n "$root$KERNEL" 2>&1)
if [ ! -f "$root$KERNEL" ]; then
	ko "guest kernel $KERNEL" "not installed"
elif ! readelf -h "$root$KERNEL" 2>/dev/null | grep -q 'Machine:.*X86-64'; then
	ko "guest kernel $KERNEL" "not an x86-64 ELF"
elif ! grep -q '^ *Xen ' <<<"$notes"; then
	ko "guest kernel $KERNEL" "no notes owned by Xen (readelf -n)"
elif ! grep -q "description data: $(hexof xen-3.0) 00" <<<"$notes" ||
	! grep -q "description data: $(hexof smpalt) 00" <<<"$notes"; then
	ko "guest kernel $KERNEL" "no XEN_VERSION=xen-3.0 / GUEST_OS=smpalt note"
else
	ok "$KERNEL is an x86-64 ELF with Xen notes (xen-3.0, smpalt)"
fi

# 4. the xl config names the installed kernel
kline=$(sed -nE 's/^kernel *= *"(.*)"$/\1/p' "$root$XLCFG" 2>/dev/null)
if [ "$kline" = "$KERNEL" ] && [ -f "$root$kline" ]; then
	ok "$XLCFG: kernel = \"$KERNEL\", the installed kernel"
else
	ko "$XLCFG kernel" "'$kline', wanted '$KERNEL' (installed)"
fi

# 5. the man page renders at 80 columns without a warning
manout=$(MANWIDTH=80 man --warnings -l "$root$MANPAGE" 2>&1 >"$work/man.txt")
if [ $? -eq 0 ] && [ -z "$manout" ] &&
	grep -q '^SYNOPSIS' "$work/man.txt"; then
	ok "man --warnings -l $MANPAGE renders without warnings"
else
	ko "man page" "${manout:-no SYNOPSIS}"
fi

# 6. systemd accepts the unit without a message. verify checks that
# ExecStart's program exists and that Documentation=man: pages are found,
# on this machine: a copy whose absolute paths point into DESTDIR is
# verified, with MANPATH on the installed man pages.
mkdir "$work/verify"
sed -E "s#^(ExecStart=|EnvironmentFile=-?)/#\1$root/#" "$root$UNIT" \
	>"$work/verify/smpalt-autoscaler.service" 2>/dev/null
vout=$(MANPATH=$root$PREFIX/share/man \
	systemd-analyze verify "$work/verify/smpalt-autoscaler.service" 2>&1)
if [ $? -eq 0 ] && [ -z "$vout" ]; then
	ok "systemd-analyze verify accepts $UNIT"
else
	ko "systemd-analyze verify" "$(tr '\n' ' ' <<<"$vout")"
fi

# 7. the unit reads its arguments from the installed defaults file
envfile=$(sed -nE 's/^EnvironmentFile=-?//p' "$root$UNIT" 2>/dev/null)
args=$(sed -nE 's/^SMPALT_AUTOSCALER_ARGS="(.*)"$/\1/p' "$root$DEFAULTS" 2>/dev/null)
if [ "$envfile" = "$DEFAULTS" ] && [ -n "$args" ] &&
	grep -q '^ExecStart=.*\$SMPALT_AUTOSCALER_ARGS' "$root$UNIT" &&
	grep -q "^ExecStart=$SBIN " "$root$UNIT"; then
	ok "unit runs $SBIN with SMPALT_AUTOSCALER_ARGS from $DEFAULTS ('$args')"
else
	ko "unit arguments" "EnvironmentFile='$envfile', ARGS='$args'"
fi

# 8. the manifest lists exactly the installed files: "f PATH", and
# "c SHA256 PATH" for the configuration files, with their checksum
(cd "$root" && find . -type f | sed 's/^\.//' | sort) >"$work/files"
sed -nE 's/^(f|c [0-9a-f]{64}) //p' "$root$MANIFEST" 2>/dev/null |
	sort >"$work/listed"
sums=$(sed -n 's/^c //p' "$root$MANIFEST" 2>/dev/null |
	while read -r s p; do echo "$s  $root$p"; done | sha256sum -c --quiet 2>&1)
confs=$(sed -n 's/^c [0-9a-f]* //p' "$root$MANIFEST" 2>/dev/null | sort | tr '\n' ' ')
want_confs="$DEFAULTS $CONF $XLCFG "
[ ! -f "$TOP/dist/smpalt-autoscaler.logrotate" ] ||
	want_confs="$DEFAULTS /etc/logrotate.d/smpalt-autoscaler $CONF $XLCFG "
if [ -s "$work/files" ] && cmp -s "$work/files" "$work/listed" &&
	[ -z "$sums" ] && [ "$confs" = "$want_confs" ]; then
	ok "the manifest lists the $(wc -l <"$work/files") installed files, no more; the configuration files with their checksums"
else
	ko "manifest" "files vs list: $(diff "$work/files" "$work/listed" |
		tr '\n' ' '); configuration files '$confs' (wanted '$want_confs'); $sums"
fi

# 9. every document the installed documents link to is installed
missing=
for d in "$root$DOCDIR"/*.md; do
	for l in $(grep -oE '\]\([a-z0-9_-]+\.md' "$d" | sed 's/^](//'); do
		[ -f "$root$DOCDIR/$l" ] || missing+="$(basename "$d") -> $l "
	done
done
if [ -f "$root$DOCDIR/libvirt.md" ] && [ -z "$missing" ]; then
	ok "$DOCDIR: libvirt.md installed; every .md linked from an installed doc is there"
else
	ko "docs" "${missing:-no libvirt.md}"
fi

# 10. a second install keeps an edited configuration file and replaces an
# unedited one whose template changed (a new version of it)
echo 'SMPALT_AUTOSCALER_ARGS="--high 70 edited"' >"$root$DEFAULTS"
cp "$root$XLCFG" "$work/xlcfg.installed"
grep -v '^# Keep a crashed' "$root$XLCFG" >"$work/xlcfg.old"
cat "$work/xlcfg.old" >"$root$XLCFG"
old_sum=$(sha256sum <"$work/xlcfg.old")
sed -i "s#^c [0-9a-f]* $XLCFG\$#c ${old_sum%% *} $XLCFG#" "$root$MANIFEST"
if mk install && grep -q edited "$root$DEFAULTS" &&
	cmp -s "$work/xlcfg.installed" "$root$XLCFG"; then
	ok "a second make install keeps an edited $DEFAULTS and updates an unedited $XLCFG"
else
	ko "second install" "$DEFAULTS overwritten, $XLCFG not updated, or install failed"
fi

# 11. uninstall keeps the edited configuration files and the list, now
# naming only them (and their directories), nothing else
echo '# edited' >>"$root$CONF"
mk uninstall
left=$(cd "$root" && find . -type f | sed 's/^\.//' | sort | tr '\n' ' ')
listed=$(sed -n 's/^c [0-9a-f]* //p; s/^f //p' "$root$MANIFEST" 2>/dev/null |
	sort | tr '\n' ' ')
want="$DEFAULTS $CONF $MANIFEST "
if [ "$left" = "$want" ] && [ "$listed" = "$want" ]; then
	ok "make uninstall keeps the 2 edited configuration files, listed for a purge; nothing else"
else
	ko "make uninstall" "files left: '$left', listed: '$listed', wanted '$want'"
fi

# 12. uninstall PURGE=1 then removes them: nothing of ours is left
# (DESTDIR was empty before)
mk uninstall PURGE=1
left=$(cd "$root" && find . -mindepth 1 | head -5 | tr '\n' ' ')
if [ -z "$left" ]; then
	ok "make uninstall PURGE=1 removes the edited configuration files: an empty tree"
else
	ko "make uninstall PURGE=1" "left behind: $left"
fi

tally_end
