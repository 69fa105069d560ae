#!/bin/bash
# Build the QEMU that the harness runs PVH guests on: Debian's own QEMU,
# the source package of the installed qemu-system-x86 at the same version,
# with the fixes of patches/qemu/ to its emulation of x86 and AMD SVM
# (docs/linux.md, "The triple fault of vCPU 0"). PV guests do not need it:
# Xen runs them without SVM, and make test runs Debian's binary as it is.
#
# Usage: scripts/build/build-qemu.sh
#   prints the path of the built qemu-system-x86_64 on stdout, its
#   progress on stderr. Built once, into cache/qemu/, and again only when
#   the installed QEMU's version, patches/qemu/ or the configuration below
#   change: a second run prints the path at once. A cold build compiles
#   about 1400 files: half an hour or more on 2 cores.
# The source comes through apt (deb-src lines made from the machine's own
# Debian sources, in a private apt setup in cache/qemu/apt/), so apt checks
# it against the archive's signed index; the build packages are installed
# by scripts/build/install-deps.sh qemu. The binary takes its firmware from
# Debian's packages (/usr/share/qemu, /usr/share/seabios), as Debian's does.
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script build-qemu
parse_args "$@"

DIR=$CACHE/qemu
BIN=$DIR/bin/qemu-system-x86_64
PATCHES=$TOP/patches/qemu
# Only the system emulator for x86-64, with nothing the harness does not use
# (no display, network back-ends, audio or tools).
CONFIGURE=(--target-list=x86_64-softmmu --without-default-features
	--enable-fdt=system --disable-docs --disable-werror
	--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu)

log() { echo "build-qemu: $*" >&2; }

src_version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (run scripts/build/install-deps.sh)"
key=$( {
	echo "$src_version"
	echo "${CONFIGURE[*]}"
	cat "$PATCHES"/*.patch
} | sha256sum | cut -c1-16)

up_to_date() { [ -x "$BIN" ] && [ "$(cat "$DIR/bin/key" 2>/dev/null)" = "$key" ]; }

if up_to_date; then
	echo "$BIN"
	exit 0
fi

mkdir -p "$DIR"
# One build at a time: several worktrees may share this cache.
exec 8>"$DIR/.build.lock"
if ! flock -n 8; then
	log "waiting for another build-qemu run to finish"
	flock 8
	if up_to_date; then
		echo "$BIN"
		exit 0
	fi
fi

bash "$TOP/scripts/build/install-deps.sh" qemu >&2

# apt-get with deb-src lines for the machine's own Debian sources, in a
# private setup made once here.
APT=$DIR/apt
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/sources.list.d"
rm -f "$APT/sources.list.d/"*
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f" >>"$APT/sources.list.d/machine.list"
done
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed 's/^Types:.*$/Types: deb-src/' "$f" >"$APT/sources.list.d/$(basename "$f")"
done
apt_src() {
	apt-get -o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts="$APT/sources.list.d" \
		-o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" "$@"
}

PKG=$DIR/src-pkg/$src_version
dsc=$PKG/qemu_${src_version#*:}.dsc
if [ ! -f "$dsc" ]; then
	mkdir -p "$PKG"
	# apt's download user must be able to write there.
	chmod 0777 "$PKG"
	log "downloading the source of qemu $src_version (about 25 MB)"
	if ! (cd "$PKG" && apt_src source -q --download-only "qemu=$src_version" >/dev/null 2>&1); then
		log "refreshing the source package lists (apt-get update, deb-src)"
		apt_src update -q >/dev/null || die "apt-get update (deb-src) failed"
		(cd "$PKG" && apt_src source -q --download-only "qemu=$src_version" >/dev/null) ||
			die "apt-get source qemu=$src_version failed: is that version still in the archive?"
	fi
	[ -f "$dsc" ] || die "$dsc missing after apt-get source"
fi

WORK=$DIR/work
rm -rf "$WORK"
mkdir -p "$WORK"
log "unpacking qemu $src_version with Debian's patches"
dpkg-source -x "$dsc" "$WORK/src" >"$WORK/unpack.log" 2>&1 || {
	tail -20 "$WORK/unpack.log" >&2
	die "dpkg-source -x $dsc failed"
}
for p in "$PATCHES"/*.patch; do
	log "applying $(basename "$p")"
	patch -s -p1 -d "$WORK/src" <"$p" >&2 || die "$(basename "$p") does not apply to qemu $src_version"
done

log "configuring (log: $WORK/configure.log)"
mkdir -p "$WORK/build"
(cd "$WORK/build" && ../src/configure "${CONFIGURE[@]}") >"$WORK/configure.log" 2>&1 || {
	tail -20 "$WORK/configure.log" >&2
	die "configure failed (see $WORK/configure.log)"
}
log "compiling qemu-system-x86_64 on $(nproc) cores (log: $WORK/build.log)"
SECONDS=0
last=-60
# ninja prints "[N/TOTAL] ..." per step: one progress line a minute.
if ! ninja -C "$WORK/build" qemu-system-x86_64 2>&1 | tee "$WORK/build.log" |
	while IFS= read -r line; do
		case $line in
		\[*/*\]*)
			if [ $((SECONDS - last)) -ge 60 ]; then
				last=$SECONDS
				log "${line%% *} after $((SECONDS / 60)) min"
			fi
			;;
		esac
	done; then
	grep -m1 -B2 -A10 'error' "$WORK/build.log" >&2 || tail -20 "$WORK/build.log" >&2
	die "the build failed (see $WORK/build.log)"
fi
minutes=$((SECONDS / 60))

mkdir -p "$DIR/bin"
install -m 0755 "$WORK/build/qemu-system-x86_64" "$BIN"
"$BIN" --version >/dev/null || die "$BIN does not run"
echo "$key" >"$DIR/bin/key"
patches=("$PATCHES"/*.patch)
echo "Debian's qemu $src_version with the ${#patches[@]} fixes of patches/qemu/ ($BIN)" \
	>"$DIR/bin/version"
rm -rf "$WORK"
log "built in $minutes min: $(cat "$DIR/bin/version")"
echo "$BIN"
