#!/bin/bash
# Build the Linux Xen PV domU with the smpalt series, for one version:
# KVER=6.1 (default), 6.12 or 7.2, each Debian's linux-source-$KVER with
# patches/linux-$KVER/series (then series-test) applied, configured from `make tinyconfig`
# plus patches/linux-$KVER/xen-pv-guest.config. What depends on the
# version (the series, the source package and its Debian suite, the cache
# folder L: cache/linux/ for 6.1, cache/linux-$KVER/ otherwise) is in
# scripts/lib/linux-version.sh.
#
# Steps, each skipped when already done:
#   1. linux-source-$KVER's .deb into L/debs/ (apt-get download, as
#      scripts/build/fetch-xen.sh fetches packages; about 150 MB; from the
#      version's suite through a private apt list in L/apt/ when it is not
#      the machine's), unless the pristine tree of step 2 is already there
#   2. its source tarball unpacked once into L/linux-source-$KVER/
#      (pristine, never modified)
#   3. a fresh copy in L/src/ with the series applied in order
#      (patch -p1; a patch that does not apply stops the build)
#   4. tinyconfig + the fragment + olddefconfig in L/build/; every
#      option the fragment sets is checked in the resulting .config
#      (olddefconfig silently drops an option whose dependencies are unmet)
#   5. make bzImage -j$(nproc) in L/build/, kept between runs: a
#      rebuild compiles what the series changed (a file the last build
#      compiled keeps that copy's time if its content is the same, any
#      other file a series touches gets the time of now, so that no stale
#      object survives)
# and writes L/out/vmlinuz (the bzImage, which xl loads as a PV kernel)
# and L/out/config.
#
# CONFIG=debug builds the debug configuration instead, into L/debug/
# (src/, build/, out/: the default build stays as it is): the same plus
# patches/linux-$KVER/debug.config, every option of both fragments
# checked; with modules enabled, `make bzImage modules`, then the test
# modules of tests/linux/modules/ built out of tree against that build
# (make -C L/debug/build M=...), their .ko files in L/debug/out/modules/.
#
# CONFIG=debian (Linux 6.1) starts from Debian's own configuration of
# the same kernel instead of tinyconfig: /boot/config-* of the
# linux-image package of the same Debian version (the dom0 kernel
# package scripts/build/fetch-xen.sh fetches into cache/xen/debs/), with
# every =m option turned off (modules
# trimmed: the guest loads none of Debian's), then both fragments and
# patches/linux-$KVER/debian.config; into L/debian/, with the test
# modules.
#
# CONFIG=native (Linux 7.2) builds a native x86-64 kernel, not a guest,
# for make test-linux-native: the default configuration plus
# patches/linux-$KVER/native.config (ACPI CPU hotplug, the 8250 console,
# KASAN with inline checks, lockdep), every option of the three fragments
# checked; into L/native/, no modules.
#
# STOCK=1 builds the stock control: the same tree and configuration with
# no patch applied, into L/stock/ (L/debug-stock/, L/debian-stock/): the
# fragment's options that only the series defines are not checked.
#
# A run with nothing changed takes seconds: L/out/stamp holds the
# hash of the series, its patches, the config fragments and this script.
#
# PREFIX=N builds the first N patches of the posted series only, into
# L/prefix/ (make upstream-check: every prefix builds).
#
# Usage: [KVER=6.1|6.12|7.2] [CONFIG=default|debug|debian|native] [STOCK=1] [PREFIX=N]
#        scripts/build/build-linux.sh [-f]
#        (-f: build even if up to date)
# CACHE=dir overrides cache/, JOBS=n the parallel jobs (default nproc).
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script build-linux
# Everything that depends on the version (KVER): scripts/lib/linux-version.sh.
. "$TOP/scripts/lib/linux-version.sh"
SERIES_DIR=$LINUX_SERIES_DIR
SERIES=$SERIES_DIR/series
FRAGMENTS=("${LINUX_FRAGMENTS[@]}")
DEBS=$LINUX_CACHE/debs
PKG_ROOT=$LINUX_CACHE/pkg
PRISTINE=$LINUX_PRISTINE
# The build folder's physical path: kbuild's records hold absolute paths,
# so a build reached through a symlink (a work tree's cache linking
# another's) must use the same ones, or everything is compiled again.
mkdir -p "$LINUX_WORK"
LINUX_WORK=$(cd -P "$LINUX_WORK" && pwd)
SRC=$LINUX_WORK/src
BUILD=$LINUX_WORK/build
OUT=$LINUX_WORK/out
# The test modules (CONFIG=debug).
MODULES_SRC=$TOP/tests/linux/modules
SOURCE_PKG=$LINUX_SOURCE_PKG
JOBS=${JOBS:-$(nproc)}

log() { echo "build-linux: $*"; }

force=0
opt_flag -f force
parse_args "$@"

start_s=$(date +%s)
elapsed() { echo "$(($(date +%s) - start_s)) s"; }

[ -f "$SERIES" ] || die "$SERIES missing"
for f in "${FRAGMENTS[@]}"; do
	[ -f "$f" ] || die "$f missing"
done
modules=()
if [ "$LINUX_TEST_MODULES" = 1 ]; then
	modules=("$MODULES_SRC"/Makefile "$MODULES_SRC"/*.c)
fi

# The patch files in order (blank lines and # comments skipped): the
# posted series, then the test-only patches of series-test (the test
# hooks the scenarios use; make upstream never emits them).
patches=()
series_files=("$SERIES")
[ ! -f "$SERIES_DIR/series-test" ] || series_files+=("$SERIES_DIR/series-test")
for list in "${series_files[@]}"; do
	while read -r name; do
		[ -f "$SERIES_DIR/$name" ] || die "$name is listed in $list but missing"
		patches+=("$SERIES_DIR/$name")
	done < <(series_names "$list")
done
[ ${#patches[@]} -gt 0 ] || die "$SERIES lists no patch"
what="${#patches[@]} patches"
if [ -n "$LINUX_PREFIX" ]; then
	n_posted=$(linux_series_names posted | wc -l)
	[ "$LINUX_PREFIX" -le "$n_posted" ] ||
		die "PREFIX=$LINUX_PREFIX: the posted series has $n_posted patches"
	patches=("${patches[@]:0:$LINUX_PREFIX}")
	series_files=("$SERIES")
	what="the first $LINUX_PREFIX of $n_posted posted patches"
fi
if [ "$LINUX_STOCK" = 1 ]; then
	patches=()
	series_files=(/dev/null)
	what="stock, no patch"
fi

# What the output depends on: when this hash is unchanged, so is vmlinuz
# (the stock control's does not depend on the series).
key=$( (
	echo "$LINUX_CONFIG stock=$LINUX_STOCK prefix=$LINUX_PREFIX"
	cat "${series_files[@]}" ${patches[@]+"${patches[@]}"} "${FRAGMENTS[@]}" \
		${modules[@]+"${modules[@]}"} "$0"
) | sha256sum | cut -c1-16)
if [ "$force" = 0 ] && [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/config" ] &&
	[ "$(cat "$OUT/stamp" 2>/dev/null)" = "$key" ]; then
	log "up to date: $OUT/vmlinuz ($LINUX_CONFIG, $what, key $key)"
	exit 0
fi

for t in make gcc flex bison bc perl patch xz sha256sum; do
	command -v $t >/dev/null ||
		die "$t not found (scripts/build/install-deps.sh installs what the build needs)"
done
[ -f /usr/include/gelf.h ] ||
	die "libelf headers missing (package libelf-dev; scripts/build/install-deps.sh)"

mkdir -p "$DEBS" "$OUT" "$LINUX_WORK"

# apt-get for the version's suite: the machine's sources when the suite is
# its own (no LINUX_SUITE), otherwise a private source list, package lists
# and cache in $LINUX_CACHE/apt/, so that the machine's apt setup is left
# as it is. The mirror is the machine's Debian mirror (LINUX_MIRROR
# overrides it).
apt_get() {
	local d=$LINUX_CACHE/apt mirror
	if [ -z "$LINUX_SUITE" ]; then
		apt-get "$@"
		return
	fi
	mirror=${LINUX_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE 'https?://[^ ]+/debian/?( |$)' | head -1 | tr -d ' ')}
	mirror=${mirror:-http://deb.debian.org/debian}
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $LINUX_SUITE main" \
		>"$d/sources.list"
	apt-get -o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" "$@"
}
# One build at a time: several worktrees share this cache.
exec 8>"$LINUX_WORK/.build.lock"
if ! flock -n 8; then
	log "waiting for another build-linux run to finish"
	flock 8
	# It may have built this very series.
	if [ "$force" = 0 ] && [ -f "$OUT/vmlinuz" ] &&
		[ "$(cat "$OUT/stamp" 2>/dev/null)" = "$key" ]; then
		log "up to date: $OUT/vmlinuz (built meanwhile, key $key)"
		exit 0
	fi
fi

# 1. and 2. The pristine tree, unpacked once from the source package
# (downloaded only when neither the tree nor the package is there).
if [ ! -f "$PRISTINE/Makefile" ]; then
	if ! compgen -G "$DEBS/${SOURCE_PKG}_*.deb" >/dev/null; then
		log "downloading $SOURCE_PKG${LINUX_SUITE:+ ($LINUX_SUITE)} into $DEBS (about 150 MB)"
		# apt's download user must be able to write there.
		chmod 0777 "$DEBS"
		if ! (cd "$DEBS" && apt_get download -q "$SOURCE_PKG" >/dev/null 2>&1); then
			log "refreshing package lists (apt-get update)"
			apt_get update -q >/dev/null || die "apt-get update failed"
			(cd "$DEBS" && apt_get download -q "$SOURCE_PKG" >/dev/null 2>&1) ||
				die "apt-get download $SOURCE_PKG failed"
		fi
	fi
	deb=$(compgen -G "$DEBS/${SOURCE_PKG}_*.deb" | sort | tail -1)
	tarball=$PKG_ROOT/usr/src/$SOURCE_PKG.tar.xz
	if [ ! -f "$tarball" ]; then
		log "unpacking $(basename "$deb")"
		dpkg -x "$deb" "$PKG_ROOT" || die "dpkg -x $deb failed"
	fi
	[ -f "$tarball" ] || die "$tarball missing after unpacking $deb"
	log "unpacking $(basename "$tarball") into $PRISTINE (pristine, never modified)"
	rm -rf "$PRISTINE.tmp"
	mkdir -p "$PRISTINE.tmp"
	tar -xaf "$tarball" -C "$PRISTINE.tmp" --strip-components=1 ||
		die "cannot unpack $tarball"
	mv "$PRISTINE.tmp" "$PRISTINE"
fi
version=$(awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
	$1 == "SUBLEVEL" { s = $2 } END { if (v != "") print v "." p "." s }' \
	"$PRISTINE/Makefile")
[ -n "$version" ] || die "$PRISTINE is not a kernel tree"

# 3. A fresh copy with the series applied. cp -a keeps the pristine
# times, so that the build folder recompiles only what the series changes.
# The tree's content is copied, not the path: a worktree's cache has the
# pristine tree as a symlink to the shared one, which must stay pristine.
log "Linux $version ($what): a fresh copy in $SRC"
rm -rf "$SRC.tmp"
mkdir -p "$SRC.tmp"
cp -a "$PRISTINE/." "$SRC.tmp/"
for p in ${patches[@]+"${patches[@]}"}; do
	if ! out=$(patch -d "$SRC.tmp" -p1 --batch --forward <"$p" 2>&1); then
		echo "$out" >&2
		die "$(basename "$p") does not apply (series order, $SERIES)"
	fi
	case $out in *fuzz* | *offset*)
		log "note: $(basename "$p") applies with offset or fuzz" ;;
	esac
done

# The files this series or the last one built changes: one whose content
# is what the last build compiled keeps that copy's time (no rebuild);
# any other gets the time of now, also one a previous series changed and
# this one leaves pristine (no stale object survives).
mkdir -p "$BUILD"
touched=$BUILD/.smpalt-touched
new_touched=$(cat ${patches[@]+"${patches[@]}"} </dev/null |
	sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' | sort -u)
n_changed=0
while read -r f; do
	if [ -z "$f" ] || [ ! -e "$SRC.tmp/$f" ]; then
		continue
	elif [ -f "$SRC/$f" ] && cmp -s "$SRC/$f" "$SRC.tmp/$f"; then
		touch -r "$SRC/$f" "$SRC.tmp/$f"
	else
		touch "$SRC.tmp/$f"
		n_changed=$((n_changed + 1))
	fi
done < <({
	cat "$touched" 2>/dev/null || true
	echo "$new_touched"
} | sort -u)
rm -rf "$SRC"
mv "$SRC.tmp" "$SRC"
echo "$new_touched" >"$touched"
log "$n_changed file(s) differ from the last build's"

# Debian's configuration of this kernel (CONFIG=debian): /boot/config-*
# of the linux-image package of the source package's Debian version:
# the Xen 4.17 host's dom0 kernel package (cache/xen/debs/, fetched by
# scripts/build/fetch-xen.sh if missing). Prints its path.
debian_config() {
	local src ver img cfg
	src=$(compgen -G "$DEBS/${SOURCE_PKG}_*.deb" | sort | tail -1) ||
		die "CONFIG=debian: no $SOURCE_PKG package in $DEBS to take the version from"
	ver=${src%_all.deb}
	ver=${ver##*_}
	img=$CACHE/xen/debs/linux-image-*-amd64_${ver}_amd64.deb
	if ! compgen -G "$img" >/dev/null; then
		log "fetching the Xen 4.17 host packages, Debian's $KVER kernel among them" >&2
		XEN=4.17 "$TOP/scripts/build/fetch-xen.sh" >&2 ||
			die "scripts/build/fetch-xen.sh failed"
	fi
	img=$(compgen -G "$img" | head -1) ||
		die "CONFIG=debian: no linux-image package of Debian version $ver (the version of $SOURCE_PKG) in cache/xen/debs/"
	cfg=$LINUX_WORK/debian-config
	if [ ! -f "$cfg" ] || [ "$img" -nt "$cfg" ]; then
		rm -rf "$LINUX_WORK/image"
		dpkg -x "$img" "$LINUX_WORK/image" || die "dpkg -x $img failed"
		cp "$(compgen -G "$LINUX_WORK/image/boot/config-*" | head -1)" "$cfg" ||
			die "$img has no /boot/config-*"
		rm -rf "$LINUX_WORK/image"
	fi
	echo "$cfg"
}

# 4. Configuration: tinyconfig, or a full configuration to start from
# (CONFIG=debian), then the fragments.
base=tinyconfig base_config=
if [ -n "$LINUX_BASE_CONFIG" ]; then
	mkdir -p "$LINUX_WORK"
	base_config=$(debian_config) || exit 1
	base="Debian's $version configuration, modules off"
fi
log "configuring: $base + $(for f in "${FRAGMENTS[@]}"; do basename "$f"; done |
	paste -sd+ | sed 's/+/ + /g') + olddefconfig"
kmake() { make -C "$SRC" O="$BUILD" "$@"; }
start_config() {
	if [ -z "$LINUX_BASE_CONFIG" ]; then
		kmake tinyconfig
		return
	fi
	# Every module off: =m becomes "is not set".
	sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' \
		"$base_config" >"$BUILD/.config" && kmake olddefconfig
}
# The same configuration as last time keeps its file and time: kbuild then
# has nothing to regenerate.
[ ! -f "$BUILD/.config" ] || cp -p "$BUILD/.config" "$BUILD/.config.last"
{
	start_config &&
		"$SRC/scripts/kconfig/merge_config.sh" -m -O "$BUILD" \
			"$BUILD/.config" "${FRAGMENTS[@]}" &&
		kmake olddefconfig
} >"$BUILD/config.log" 2>&1 || {
	tail -20 "$BUILD/config.log" >&2
	die "configuration failed (log: $BUILD/config.log)"
}
if [ -f "$BUILD/.config.last" ] && cmp -s "$BUILD/.config" "$BUILD/.config.last"; then
	mv "$BUILD/.config.last" "$BUILD/.config"
else
	rm -f "$BUILD/.config.last"
fi
# defined SYMBOL: the tree's Kconfig files define SYMBOL (in the stock
# control the series' own options are not there).
defined() {
	grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config ${1#CONFIG_}\$" "$SRC"
}
# What the fragments set, a later fragment's value of an option winning
# (as merge_config.sh does).
declare -A wanted=()
order=()
while read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	[ -n "${wanted[${line%%=*}]+set}" ] || order+=("${line%%=*}")
	wanted[${line%%=*}]=$line
done < <(cat "${FRAGMENTS[@]}")
missing=()
for sym in "${order[@]}"; do
	line=${wanted[$sym]}
	grep -qxF "$line" "$BUILD/.config" && continue
	# The stock control and a prefix of the series lack the series' options.
	if [ "$LINUX_STOCK" = 1 ] || [ -n "$LINUX_PREFIX" ]; then
		defined "$sym" || continue
	fi
	missing+=("$line")
done
if [ ${#missing[@]} -gt 0 ]; then
	for m in "${missing[@]}"; do
		echo "build-linux: wanted $m, the .config has:" \
			"$(grep -E "^(# )?${m%%=*}[= ]" "$BUILD/.config" || echo '(absent)')" >&2
	done
	die "${#missing[@]} option(s) of the fragments not set (unmet dependencies?)"
fi

# 5. The kernel, and its modules when it has them (Module.symvers, which
# an out-of-tree module build needs, comes from `make modules`).
targets=(bzImage)
! grep -qx CONFIG_MODULES=y "$BUILD/.config" || targets+=(modules)
log "building ${targets[*]} with -j$JOBS (log: $BUILD/build.log)"
kmake -j"$JOBS" "${targets[@]}" >"$BUILD/build.log" 2>&1 &
make_pid=$!
# A progress line every 30 s while make runs: its latest step.
while kill -0 "$make_pid" 2>/dev/null; do
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		sleep 2
		kill -0 "$make_pid" 2>/dev/null || break 2
	done
	log "building, $(elapsed): $(grep -E '^  [A-Z]' "$BUILD/build.log" |
		tail -1 | sed 's/^ *//')"
done
if ! wait "$make_pid"; then
	grep -E 'error|Error' "$BUILD/build.log" | head -20 >&2 || true
	tail -10 "$BUILD/build.log" >&2
	die "kernel build failed (log: $BUILD/build.log)"
fi
if grep -q 'warning:' "$BUILD/build.log"; then
	log "compiler warnings (see $BUILD/build.log):"
	grep 'warning:' "$BUILD/build.log" | sort -u | head -20
fi

# The test modules, out of tree against this build, from a copy (the
# build writes its objects beside the sources).
rm -rf "$OUT/modules"
if [ ${#modules[@]} -gt 0 ]; then
	rm -rf "$LINUX_WORK/modules-src"
	mkdir -p "$LINUX_WORK/modules-src" "$OUT/modules"
	cp "${modules[@]}" "$LINUX_WORK/modules-src/"
	log "building the test modules of tests/linux/modules/ (log: $BUILD/modules.log)"
	make -C "$BUILD" M="$LINUX_WORK/modules-src" modules >"$BUILD/modules.log" 2>&1 || {
		tail -20 "$BUILD/modules.log" >&2
		die "test modules build failed (log: $BUILD/modules.log)"
	}
	! grep -q 'warning:' "$BUILD/modules.log" || {
		grep 'warning:' "$BUILD/modules.log" >&2
		die "test modules: compiler warnings (log: $BUILD/modules.log)"
	}
	cp "$LINUX_WORK/modules-src"/*.ko "$OUT/modules/"
fi

cp "$BUILD/arch/x86/boot/bzImage" "$OUT/vmlinuz.tmp"
cp "$BUILD/.config" "$OUT/config.tmp"
mv "$OUT/vmlinuz.tmp" "$OUT/vmlinuz"
mv "$OUT/config.tmp" "$OUT/config"
echo "$key" >"$OUT/stamp"
log "ready: $OUT/vmlinuz ($(du -h "$OUT/vmlinuz" | cut -f1), $LINUX_CONFIG, Linux $version" \
	"($what), key $key) in $(elapsed)"
