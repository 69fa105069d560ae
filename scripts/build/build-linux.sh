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
# CONFIG=deb builds the Debian packages of the patched kernel (make
# linux-deb): Debian's own cloud-amd64 configuration of the same version
# (/boot/config-* of Debian's cloud-amd64 kernel package of the source
# package's version, fetched into L/debs/ through the same apt setup as
# the source), modules kept, then patches/linux-$KVER/deb.config
# alone, the posted series only; `make bindeb-pkg` (niced, log in
# L/deb/build/build.log) instead of step 5's targets, the image and
# headers packages into L/deb/out/, lintian on the image package (no
# error, or the build fails).
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
# hash of the series, its patches, the config fragments and this script
# (and for CONFIG=deb the package version).
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
# hooks the scenarios use; make upstream never emits them, nor does
# CONFIG=deb apply them).
patches=()
series_files=("$SERIES")
[ "$LINUX_SERIES_SET" = posted ] || [ ! -f "$SERIES_DIR/series-test" ] ||
	series_files+=("$SERIES_DIR/series-test")
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

# CONFIG=deb: smpalt's own version (debian/changelog), the second half
# of the packages' version (step 5).
smpalt_version=
if [ "$LINUX_PACKAGES" = 1 ]; then
	smpalt_version=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version) ||
		die "cannot read smpalt's version from $TOP/debian/changelog"
fi

# What the output depends on: when this hash is unchanged, so is vmlinuz
# (the stock control's does not depend on the series).
key=$( (
	echo "$LINUX_CONFIG stock=$LINUX_STOCK prefix=$LINUX_PREFIX"
	[ "$LINUX_PACKAGES" = 0 ] || echo "packages smpalt=$smpalt_version"
	cat "${series_files[@]}" ${patches[@]+"${patches[@]}"} "${FRAGMENTS[@]}" \
		${modules[@]+"${modules[@]}"} "$0"
) | sha256sum | cut -c1-16)
# up_to_date: this key's outputs are there, for CONFIG=deb the packages
# $OUT/packages lists too (one file name a line).
up_to_date() {
	local f
	[ "$force" = 0 ] && [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/config" ] &&
		[ "$(cat "$OUT/stamp" 2>/dev/null)" = "$key" ] || return 1
	[ "$LINUX_PACKAGES" = 1 ] || return 0
	[ -s "$OUT/packages" ] || return 1
	while read -r f; do
		[ -f "$OUT/$f" ] || return 1
	done <"$OUT/packages"
}
# The packages' paths and sizes, a line each.
print_packages() {
	local f
	[ "$LINUX_PACKAGES" = 1 ] || return 0
	while read -r f; do
		log "package: $OUT/$f ($(du -h "$OUT/$f" | cut -f1))"
	done <"$OUT/packages"
}
if up_to_date; then
	log "up to date: $OUT/vmlinuz ($LINUX_CONFIG, $what, key $key)"
	print_packages
	exit 0
fi

for t in make gcc flex bison bc perl patch xz sha256sum; do
	command -v $t >/dev/null ||
		die "$t not found (scripts/build/install-deps.sh installs what the build needs)"
done
[ -f /usr/include/gelf.h ] ||
	die "libelf headers missing (package libelf-dev; scripts/build/install-deps.sh)"

mkdir -p "$DEBS" "$OUT" "$LINUX_WORK"

# apt-get (apt_get) and apt-cache (apt_cache) for the version's suite: the
# machine's sources when the suite is its own (no LINUX_SUITE), otherwise a
# private source list, package lists and cache in $LINUX_CACHE/apt/, so
# that the machine's apt setup is left as it is. The mirror is the
# machine's Debian mirror (LINUX_MIRROR overrides it).
apt_get() { apt_suite apt-get "$@"; }
apt_cache() { apt_suite apt-cache "$@"; }
apt_suite() {
	local tool=$1 d=$LINUX_CACHE/apt mirror
	shift
	if [ -z "$LINUX_SUITE" ]; then
		"$tool" "$@"
		return
	fi
	mirror=${LINUX_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE 'https?://[^ ]+/debian/?( |$)' | head -1 | tr -d ' ')}
	mirror=${mirror:-http://deb.debian.org/debian}
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $LINUX_SUITE main" \
		>"$d/sources.list"
	"$tool" -o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" "$@"
}
# One build at a time: several worktrees share this cache.
exec 8>"$LINUX_WORK/.build.lock"
if ! flock -n 8; then
	log "waiting for another build-linux run to finish"
	flock 8
	# It may have built this very series.
	if up_to_date; then
		log "up to date: $OUT/vmlinuz (built meanwhile, key $key)"
		print_packages
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

# The Debian version of the source package (6.12.117-1): the
# configurations to start from are those of Debian's kernel packages of
# that version.
source_version() {
	local src
	src=$(compgen -G "$DEBS/${SOURCE_PKG}_*.deb" | sort | tail -1) ||
		die "no $SOURCE_PKG package in $DEBS to take the version from"
	src=${src%_all.deb}
	echo "${src##*_}"
}

# CONFIG=debian: the linux-image package of Debian version $1, the Xen
# 4.17 host's dom0 kernel package (cache/xen/debs/, fetched by
# scripts/build/fetch-xen.sh if missing). Prints its path.
dom0_image() {
	local ver=$1 img
	img=$CACHE/xen/debs/linux-image-*-amd64_${ver}_amd64.deb
	if ! compgen -G "$img" >/dev/null; then
		log "fetching the Xen 4.17 host packages, Debian's $KVER kernel among them" >&2
		XEN=4.17 "$TOP/scripts/build/fetch-xen.sh" >&2 ||
			die "scripts/build/fetch-xen.sh failed"
	fi
	compgen -G "$img" | head -1 ||
		die "CONFIG=debian: no linux-image package of Debian version $ver (the version of $SOURCE_PKG) in cache/xen/debs/"
}

# The kernel configuration a Debian kernel package $1 carries: the path
# of /boot/config-<abi> or, in the packages of a suite that splits the
# kernel into base files, binary and modules (unstable since 7.x),
# /usr/lib/modules/<abi>/config; empty if none.
config_member() {
	dpkg-deb -c "$1" 2>/dev/null | awk '!m && ($6 ~ /^\.\/boot\/config-/ ||
		$6 ~ /^\.\/usr\/lib\/modules\/[^\/]+\/config$/) { m = $6 } END { print m }'
}
carries_config() { [ -n "$(config_member "$1")" ]; }

# CONFIG=deb: the package of Debian's cloud-amd64 kernel of version $1
# that carries its configuration, from the version's suite into $DEBS
# (once): linux-base-<abi>-cloud-amd64 where the suite splits the kernel
# so, otherwise linux-image-<abi>-cloud-amd64-unsigned, or the signed
# linux-image-<abi>-cloud-amd64. Prints its path.
cloud_image() {
	local ver=$1 f names name try kind
	for f in $(compgen -G "$DEBS/linux-*-cloud-amd64*_${ver}_amd64.deb"); do
		carries_config "$f" && { echo "$f"; return; }
	done
	for try in lists updated; do
		for kind in 'base-[0-9].*-cloud-amd64' 'image-[0-9].*-cloud-amd64-unsigned' \
			'image-[0-9].*-cloud-amd64'; do
			names=$(apt_cache search --names-only "^linux-$kind\$" | cut -d' ' -f1)
			for name in $names; do
				# apt-cache show NAME=VERSION succeeds with no output
				# for a version the package does not have.
				[ "$(apt_cache show "$name=$ver" 2>/dev/null |
					sed -n 's/^Version: //p' | head -1)" = "$ver" ] || continue
				f=$DEBS/${name}_${ver}_amd64.deb
				if [ ! -f "$f" ]; then
					log "downloading $name $ver${LINUX_SUITE:+ ($LINUX_SUITE)} into $DEBS" >&2
					(cd "$DEBS" && apt_get download -q "$name=$ver" >/dev/null 2>&1) ||
						die "apt-get download $name=$ver failed"
					[ -f "$f" ] || die "$name=$ver downloaded, but not as $f"
				fi
				carries_config "$f" && { echo "$f"; return; }
				log "$name $ver carries no configuration" >&2
			done
		done
		[ "$try" = lists ] || break
		log "refreshing package lists (apt-get update)" >&2
		apt_get update -q >/dev/null || die "apt-get update failed"
	done
	die "CONFIG=deb: no package of Debian's cloud-amd64 kernel of Debian version $ver (the version of $SOURCE_PKG)${LINUX_SUITE:+ in $LINUX_SUITE} carries its configuration"
}

# The configuration to start from (LINUX_BASE_CONFIG), that of Debian's
# kernel package of the source package's version, copied once to
# $LINUX_WORK/$LINUX_BASE_CONFIG-config. Prints its path.
base_config_file() {
	local ver img member cfg=$LINUX_WORK/$LINUX_BASE_CONFIG-config
	ver=$(source_version) || exit 1
	case $LINUX_BASE_CONFIG in
	debian) img=$(dom0_image "$ver") || exit 1 ;;
	cloud) img=$(cloud_image "$ver") || exit 1 ;;
	*) die "LINUX_BASE_CONFIG=$LINUX_BASE_CONFIG: debian or cloud" ;;
	esac
	if [ ! -f "$cfg" ] || [ "$img" -nt "$cfg" ]; then
		member=$(config_member "$img")
		[ -n "$member" ] || die "$img carries no kernel configuration"
		dpkg-deb --fsys-tarfile "$img" | tar -xO "$member" >"$cfg.tmp" &&
			[ -s "$cfg.tmp" ] || die "cannot read $member from $img"
		mv "$cfg.tmp" "$cfg"
	fi
	echo "$cfg"
}

# 4. Configuration: tinyconfig, or a full configuration to start from
# (CONFIG=debian, CONFIG=deb), then the fragments.
base=tinyconfig base_config=
if [ -n "$LINUX_BASE_CONFIG" ]; then
	mkdir -p "$LINUX_WORK"
	base_config=$(base_config_file) || exit 1
	case $LINUX_BASE_CONFIG in
	debian) base="Debian's $version configuration, modules off" ;;
	cloud) base="Debian's $version cloud-amd64 configuration, modules kept" ;;
	esac
fi
log "configuring: $base + $(for f in "${FRAGMENTS[@]}"; do basename "$f"; done |
	paste -sd+ | sed 's/+/ + /g') + olddefconfig"
kmake() { make -C "$SRC" O="$BUILD" "$@"; }
start_config() {
	if [ -z "$LINUX_BASE_CONFIG" ]; then
		kmake tinyconfig
		return
	fi
	case $LINUX_BASE_CONFIG in
	# Every module off: =m becomes "is not set".
	debian) sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' \
		"$base_config" >"$BUILD/.config" ;;
	cloud) cp "$base_config" "$BUILD/.config" ;;
	esac && kmake olddefconfig
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
# an out-of-tree module build needs, comes from `make modules`); for
# CONFIG=deb the packages instead (bindeb-pkg builds the kernel and its
# modules itself). Niced: QEMU runs share the machine.
targets=(bzImage)
! grep -qx CONFIG_MODULES=y "$BUILD/.config" || targets+=(modules)
pkg_env=()
if [ "$LINUX_PACKAGES" = 1 ]; then
	# The kernel's own packaging, its variables set so that the packages
	# say what they are: the version Debian's of the source, then
	# smpalt's (6.12.117-1+smpalt0.1), the changelog's distribution the
	# version's suite, smpalt's maintainers (debian/control) as the
	# maintainer. Terse: the log as quiet as a plain build's.
	pkg_version=$(source_version)+smpalt$smpalt_version
	maintainer=$(sed -n 's/^Maintainer: *//p' "$TOP/debian/control" | head -1)
	[ -n "$maintainer" ] || die "no Maintainer: in $TOP/debian/control"
	pkg_env=(KDEB_PKGVERSION="$pkg_version"
		DEBFULLNAME="${maintainer% <*}" DEBEMAIL="$(sed 's/.*<\(.*\)>.*/\1/' <<<"$maintainer")"
		DEB_BUILD_OPTIONS=terse)
	case $LINUX_SUITE in
	'') ;;
	sid) pkg_env+=(KDEB_CHANGELOG_DIST=unstable) ;;
	*) pkg_env+=(KDEB_CHANGELOG_DIST="$LINUX_SUITE") ;;
	esac
	targets=(bindeb-pkg)
	# dpkg-buildpackage writes beside the build folder.
	rm -f "$LINUX_WORK"/*.deb "$LINUX_WORK"/*.buildinfo "$LINUX_WORK"/*.changes
fi
log "building ${targets[*]} with -j$JOBS, niced (log: $BUILD/build.log)"
env ${pkg_env[@]+"${pkg_env[@]}"} nice -n 10 \
	make -C "$SRC" O="$BUILD" -j"$JOBS" "${targets[@]}" >"$BUILD/build.log" 2>&1 &
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

# CONFIG=deb: the image and headers packages into $OUT, listed in
# $OUT/packages. linux-libc-dev, which bindeb-pkg builds too, is left
# out: a Debian system keeps Debian's (glibc's headers are built
# against it).
if [ "$LINUX_PACKAGES" = 1 ]; then
	release=$(cat "$BUILD/include/config/kernel.release")
	rm -f "$OUT"/*.deb "$OUT/packages" "$OUT/packages.tmp"
	for name in linux-image linux-headers; do
		f=${name}-${release}_${pkg_version}_amd64.deb
		[ -f "$LINUX_WORK/$f" ] || die "bindeb-pkg made no $f (log: $BUILD/build.log)"
		mv "$LINUX_WORK/$f" "$OUT/$f"
		echo "$f" >>"$OUT/packages.tmp"
	done
	rm -f "$LINUX_WORK"/*.deb "$LINUX_WORK"/*.buildinfo "$LINUX_WORK"/*.changes
	image=$OUT/$(head -1 "$OUT/packages.tmp")
	# lintian on the image package: an error fails the build; the tags
	# of the kernel's own packaging we cannot change are overridden with
	# their reasons in patches/linux-deb.lintian-overrides.
	log "lintian $(basename "$image") (log: $OUT/lintian.log)"
	command -v lintian >/dev/null ||
		die "lintian not found (scripts/build/install-deps.sh installs it)"
	lintian_rc=0
	lintian --allow-root --fail-on error --display-level '>=warning' \
		--suppress-tags-from-file "$TOP/patches/linux-deb.lintian-overrides" \
		"$image" >"$OUT/lintian.log" 2>&1 || lintian_rc=$?
	# A line a tag: how often, and the tag.
	grep -E '^[EW]: ' "$OUT/lintian.log" | sed -E 's/ \[.*\]$//' | sort | uniq -c || true
	[ "$lintian_rc" = 0 ] || die "lintian: errors in $(basename "$image") (log: $OUT/lintian.log)"
	log "lintian: $(grep -c '^E: ' "$OUT/lintian.log") error(s), $(grep -c '^W: ' "$OUT/lintian.log") warning(s)"
	mv "$OUT/packages.tmp" "$OUT/packages"
fi

cp "$BUILD/arch/x86/boot/bzImage" "$OUT/vmlinuz.tmp"
cp "$BUILD/.config" "$OUT/config.tmp"
mv "$OUT/vmlinuz.tmp" "$OUT/vmlinuz"
mv "$OUT/config.tmp" "$OUT/config"
echo "$key" >"$OUT/stamp"
log "ready: $OUT/vmlinuz ($(du -h "$OUT/vmlinuz" | cut -f1), $LINUX_CONFIG, Linux $version" \
	"($what), key $key) in $(elapsed)"
print_packages
