#!/bin/bash
# The Debian packages of the patched kernel (make linux-deb): what an
# administrator installs with dpkg holds what it should. Built first by
# make test-linux-deb (seconds when up to date); nothing is installed.
#
# Input:    KVER (6.12 unless given), the packages
#           cache/linux-KVER/deb/out/packages lists and that folder's
#           lintian.log (scripts/build/build-linux.sh, CONFIG=deb).
# Expected: one line per check, "PASS <what>" or "FAIL <what>: <why>":
#   the image and headers packages are there, named after the release
#   (linux-image-<release>, <release> ending in -smpalt), amd64, with the
#   version of both and the maintainer of debian/control; the image holds
#   /boot/vmlinuz-, config- and System.map-<release> and the modules
#   under /lib/modules/<release>/, the Xen frontends among them, each
#   signed by the build's own key; /boot/config-<release> has the series
#   on (CONFIG_XEN_SMPALT=y), no test-only option (XEN_SMPALT_TEST
#   absent), modules, no debug information; the kernel's payload is
#   xz-compressed (pvgrub2 loads it as a PV guest); the headers package holds
#   Module.symvers and the build link external modules are built
#   against; lintian reported no error on the image.
#   Last line: "N passed, N failed".
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib/host.sh"
KVER=${KVER:-6.12}
CONFIG=deb
. "$TOP/scripts/lib/linux-version.sh"
. "$TOP/scripts/lib/tally.sh"
OUT=$(cd -P "$LINUX_WORK" && pwd)/out
# The Xen frontends a Debian guest loads from its initramfs.
FRONTENDS=(xen-blkfront xen-netfront)

# 1. the packages
image= headers=
while read -r f; do
	case $f in
	linux-image-*) image=$OUT/$f ;;
	linux-headers-*) headers=$OUT/$f ;;
	esac
done <"$OUT/packages" 2>/dev/null
if [ -f "$image" ] && [ -f "$headers" ]; then
	ok "$OUT/packages lists the image and headers packages" \
		"$(basename "$image") $(du -h "$image" | cut -f1), $(basename "$headers") $(du -h "$headers" | cut -f1)"
else
	ko "packages" "missing in $OUT/packages: image '${image##*/}', headers '${headers##*/}'"
	tally_end
	exit
fi
field() { dpkg-deb -f "$1" "$2"; }
release=$(field "$image" Package)
release=${release#linux-image-}
maintainer=$(sed -n 's/^Maintainer: *//p' "$TOP/debian/control" | head -1)
if [[ $release == *-smpalt ]] && [ "$(field "$headers" Package)" = "linux-headers-$release" ] &&
	[ "$(field "$image" Architecture)" = amd64 ] &&
	[ "$(field "$image" Version)" = "$(field "$headers" Version)" ] &&
	[ "$(field "$image" Maintainer)" = "$maintainer" ]; then
	ok "named linux-image-$release and linux-headers-$release, amd64" \
		"version $(field "$image" Version), maintainer $maintainer"
else
	ko "package metadata" "$(dpkg-deb -f "$image" Package Version Architecture Maintainer | tr '\n' ' ')"
fi

# 2. the image's files
list=$(dpkg-deb -c "$image" | awk '{ print $6 }')
missing=()
for f in vmlinuz config System.map; do
	grep -qx "\./boot/$f-$release" <<<"$list" || missing+=("/boot/$f-$release")
done
n_modules=$(grep -cE "^\./(usr/)?lib/modules/$release/kernel/.*\.ko(\.xz)?$" <<<"$list")
for m in "${FRONTENDS[@]}"; do
	grep -qE "/$m\.ko(\.xz)?$" <<<"$list" || missing+=("$m.ko")
done
if [ ${#missing[@]} -eq 0 ] && [ "$n_modules" -gt 0 ]; then
	ok "the image holds /boot/vmlinuz-, config- and System.map-$release" \
		"and $n_modules modules, ${FRONTENDS[*]} among them"
else
	ko "the image's files" "missing: ${missing[*]:-none}; $n_modules modules"
fi

# 3. its configuration
config=$(dpkg-deb --fsys-tarfile "$image" | tar -xO "./boot/config-$release" 2>/dev/null)
want=(CONFIG_XEN_SMPALT=y CONFIG_MODULES=y CONFIG_DEBUG_INFO_NONE=y)
bad=()
for w in "${want[@]}"; do
	grep -qxF "$w" <<<"$config" || bad+=("$w not set")
done
! grep -q '^CONFIG_XEN_SMPALT_TEST' <<<"$config" || bad+=("CONFIG_XEN_SMPALT_TEST set")
if [ -n "$config" ] && [ ${#bad[@]} -eq 0 ]; then
	ok "/boot/config-$release: ${want[*]}, no test-only option"
else
	ko "/boot/config-$release" "${bad[*]:-empty}"
fi

# 3b. the kernel's payload (boot protocol: the setup sectors at 0x1f1,
# payload_offset at 0x248, from the end of the setup code) starts with xz's
# magic: pvgrub2 decompresses a PV guest's kernel itself and has no zstd
# (docs/linux.md, "Compressed with xz, for pvgrub2").
vmlinuz=$(mktemp)
dpkg-deb --fsys-tarfile "$image" | tar -xO "./boot/vmlinuz-$release" >"$vmlinuz" 2>/dev/null
sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$vmlinuz" | tr -d ' ')
poff=$(od -An -tu4 -j $((0x248)) -N4 "$vmlinuz" | tr -d ' ')
magic=
[ -z "$sects" ] || [ -z "$poff" ] ||
	magic=$(od -An -tx1 -j $(((sects + 1) * 512 + poff)) -N6 "$vmlinuz" | tr -d ' \n')
rm -f "$vmlinuz"
if [ "$magic" = fd377a585a00 ]; then
	ok "/boot/vmlinuz-$release: its payload is xz-compressed, which pvgrub2 loads"
else
	ko "/boot/vmlinuz-$release's payload" "starts ${magic:-<unreadable>}, not xz's fd377a585a00"
fi

# 4. a module's signature: the key the build generated
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ko_path=$(grep -m1 -E "/${FRONTENDS[0]}\.ko(\.xz)?$" <<<"$list")
signer=
if [ -n "$ko_path" ]; then
	dpkg-deb --fsys-tarfile "$image" | tar -x -C "$tmp" "$ko_path" 2>/dev/null
	signer=$(/sbin/modinfo -F signer "$tmp/$ko_path" 2>/dev/null)
fi
if [ -n "$signer" ]; then
	ok "${FRONTENDS[0]} is signed" "by \"$signer\""
else
	ko "${FRONTENDS[0]} signature" "none (modinfo -F signer)"
fi

# 5. the headers package: what an external module builds against
hlist=$(dpkg-deb -c "$headers" | awk '{ print $6 }')
if grep -qx "\./usr/src/linux-headers-$release/Module.symvers" <<<"$hlist" &&
	grep -qE "^\./(usr/)?lib/modules/$release/build$" <<<"$hlist"; then
	ok "the headers package holds Module.symvers and /lib/modules/$release/build"
else
	ko "the headers package" "no usr/src/linux-headers-$release/Module.symvers or lib/modules/$release/build"
fi

# 6. lintian, as make linux-deb ran it
if [ -f "$OUT/lintian.log" ] && ! grep -q '^E: ' "$OUT/lintian.log"; then
	ok "lintian: no error on $(basename "$image")" \
		"$(grep -c '^W: ' "$OUT/lintian.log") warning(s), $OUT/lintian.log"
else
	ko "lintian" "$(grep -c '^E: ' "$OUT/lintian.log" 2>/dev/null) error(s), $OUT/lintian.log"
fi

tally_end
