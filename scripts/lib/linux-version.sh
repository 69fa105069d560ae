# The Linux versions the smpalt series exists for, and where each one's
# files are. Sourced after scripts/lib/host.sh by the scripts that build
# and test the patched guest (build-linux.sh, test-linux.sh,
# mk-linux-smpalt-domu.sh); KVER from the environment chooses the version
# (default 6.1):
#
#   every version of scripts/lib/matrix.conf's "linux" lines (LINUX_VERSIONS;
#   the first is the default): 6.1 (Debian 12's linux-source-6.1, the
#   machine's own apt sources), 6.12 (Debian 13), 7.2 (Debian unstable)
#
# which gives:
#
#   LINUX_SERIES_DIR  patches/linux-$KVER (series, patches, config fragment)
#   LINUX_SOURCE_PKG  linux-source-$KVER
#   LINUX_SUITE       the Debian suite to fetch it from; empty: the
#                     machine's apt sources as they are
#   LINUX_CACHE       downloads, the pristine tree, the build
#                     ({debs,pkg,linux-source-$KVER,src,build,out}/)
#   LINUX_PRISTINE    the unpacked, never modified source tree
#   LINUX_VMLINUZ     the patched kernel `make linux KVER=...` writes
#   LINUX_DOMU_SMPALT the guest's initramfs + kernel for the tests
#   LINUX_TYPES       the guest types its series serves: pv, and pvh for
#                     6.12 and 7.2 (their kernels boot as PVH domUs too;
#                     6.1's has no PVH patches: its CPU topology code
#                     predates topology_hotplug_apic())
#   LINUX_SUITE, LINUX_CACHE, LINUX_DOMU_SMPALT and LINUX_TYPES come from
#   its line in matrix.conf
#
# CONFIG from the environment chooses the kernel configuration (default
# "default"):
#
#   default     tinyconfig + $LINUX_SERIES_DIR/xen-pv-guest.config,
#               built in $LINUX_CACHE/{src,build,out}/
#   debug       the same + $LINUX_SERIES_DIR/debug.config (modules,
#               kprobes, the function tracer, static keys, preemption,
#               lockdep), built in $LINUX_CACHE/debug/{src,build,out}/
#               with the test modules of tests/linux/modules/ in
#               out/modules/; its guest in $LINUX_DOMU_SMPALT-debug
#
#   debian      (6.1) Debian's own configuration of that kernel (the
#               /boot/config-* of Debian's linux-image package of the same
#               version) instead of tinyconfig, with its modules trimmed
#               (every =m option off: the guest and the scenarios load
#               none of Debian's modules), + xen-pv-guest.config +
#               $LINUX_SERIES_DIR/debian.config (no debug info, no module
#               signing), built in $LINUX_CACHE/debian/{src,build,out}/
#               with the test modules; its guest in $LINUX_DOMU_SMPALT-debian
#   deb         not a test guest: the packages a Debian administrator
#               installs (make linux-deb): Debian's own cloud-amd64
#               configuration of that kernel (the /boot/config-* of
#               Debian's linux-image-*-cloud-amd64[-unsigned] package of
#               the same version, or its linux-base-*-cloud-amd64 where
#               the suite splits the kernel so), modules kept, + $LINUX_SERIES_DIR/deb.config
#               alone (the series' option, the release name, the trims
#               with their reasons), the posted series only (no
#               test-only patch), packaged by the kernel's bindeb-pkg,
#               built in $LINUX_CACHE/deb/{src,build,out}/
#   native      (7.2) not a guest: the default configuration +
#               $LINUX_SERIES_DIR/native.config (ACPI CPU hotplug, the
#               8250 console, KASAN with inline checks, lockdep), the
#               kernel make test-linux-native boots natively in QEMU
#               (scripts/run/test-linux-native.sh), built in
#               $LINUX_CACHE/native/{src,build,out}/, no modules
#
# which gives LINUX_CONFIG, LINUX_SERIES_SET (all: the posted series and
# then the test-only patches; posted: the posted series alone),
# LINUX_PACKAGES (1: the kernel is packaged as .debs, 0: not),
# LINUX_TEST_MODULES (1: the build has
# modules and builds the test modules of tests/linux/modules/ against
# itself, 0 otherwise), LINUX_GUEST_MEMORY (MiB the patched guest
# needs beyond xl-configs/linux-smpalt.cfg's 64, empty if none),
# LINUX_BASE_CONFIG (a full configuration to
# start from instead of tinyconfig: debian, the 6.1 dom0 kernel's with
# its modules turned off, or cloud, Debian's cloud-amd64 kernel's with
# its modules; empty: tinyconfig), LINUX_FRAGMENTS (the
# fragments in order), LINUX_WORK (src/, build/, out/ of that
# configuration) and changes LINUX_VMLINUZ and LINUX_DOMU_SMPALT to that
# configuration's.
#
# STOCK=1 from the environment chooses the stock control: the same tree
# and configuration without the series (nothing applied; the series' own
# options of the fragment do not exist there), built in
# $LINUX_WORK/stock/ for the default configuration, $LINUX_WORK-stock/
# for the others: what every stock-against-patched comparison runs.
# LINUX_STOCK is then 1 (0 otherwise).
#
# The series files: a patch a line, the name of its file in the line's
# first word; blank lines and # comments skipped. Read with:
#
#   series_names FILE...       the patch names FILE... list, in order, one
#                              a line (a FILE that does not exist lists none)
#   linux_series_names posted  those of $LINUX_SERIES_DIR/series, the
#                              posted series
#   linux_series_names all     those, then those of its series-test, the
#                              test-only patches
. "$(dirname "${BASH_SOURCE[0]}")/matrix.sh"
LINUX_VERSIONS=$(matrix_keys linux | tr '\n' ' ')
LINUX_VERSIONS=${LINUX_VERSIONS% }
KVER=${KVER:-${LINUX_VERSIONS%% *}}
read -r _kver LINUX_SUITE LINUX_CACHE LINUX_DOMU_SMPALT LINUX_TYPES \
	<<<"$(matrix_row linux "$KVER")"
[ -n "$_kver" ] || die "KVER=$KVER: the series exists for Linux ${LINUX_VERSIONS// /, } (scripts/lib/matrix.conf)"
unset _kver
[ "$LINUX_SUITE" != - ] || LINUX_SUITE=
LINUX_CACHE=$CACHE/$LINUX_CACHE
LINUX_DOMU_SMPALT=$CACHE/$LINUX_DOMU_SMPALT
LINUX_SERIES_DIR=$TOP/patches/linux-$KVER
LINUX_SOURCE_PKG=linux-source-$KVER
LINUX_PRISTINE=${LINUX_PRISTINE:-$LINUX_CACHE/$LINUX_SOURCE_PKG}
LINUX_VMLINUZ=$LINUX_CACHE/out/vmlinuz
# checkpatch as the series must pass it, run from a Linux tree: --strict.
# The Fixes: tags name mainline commits, which checkpatch looks up with git;
# Debian's source trees have no history, so that one lookup is left out.
LINUX_CHECKPATCH=(perl scripts/checkpatch.pl --strict --color=never
	--ignore UNKNOWN_COMMIT_ID)

LINUX_CONFIG=${CONFIG:-default}
LINUX_FRAGMENTS=("$LINUX_SERIES_DIR/xen-pv-guest.config")
LINUX_BASE_CONFIG=
LINUX_GUEST_MEMORY=
LINUX_TEST_MODULES=1
LINUX_SERIES_SET=all
LINUX_PACKAGES=0
case $LINUX_CONFIG in
default)
	LINUX_TEST_MODULES=0
	LINUX_WORK=$LINUX_CACHE
	;;
debian)
	[ -f "$LINUX_SERIES_DIR/debian.config" ] ||
		die "CONFIG=debian: Linux $KVER has no $LINUX_SERIES_DIR/debian.config"
	LINUX_FRAGMENTS+=("$LINUX_SERIES_DIR/debian.config")
	LINUX_BASE_CONFIG=debian
	# Debian's built-in code is about five times the default's.
	LINUX_GUEST_MEMORY=256
	LINUX_WORK=$LINUX_CACHE/debian
	LINUX_DOMU_SMPALT=$LINUX_DOMU_SMPALT-debian
	;;
debug)
	[ -f "$LINUX_SERIES_DIR/debug.config" ] ||
		die "CONFIG=debug: Linux $KVER has no $LINUX_SERIES_DIR/debug.config"
	LINUX_FRAGMENTS+=("$LINUX_SERIES_DIR/debug.config")
	LINUX_WORK=$LINUX_CACHE/debug
	LINUX_DOMU_SMPALT=$LINUX_DOMU_SMPALT-debug
	;;
deb)
	[ -f "$LINUX_SERIES_DIR/deb.config" ] ||
		die "CONFIG=deb: Linux $KVER has no $LINUX_SERIES_DIR/deb.config"
	# What a Debian guest runs: none of the test configuration's choices
	# (xen-pv-guest.config), none of the test-only patches.
	LINUX_FRAGMENTS=("$LINUX_SERIES_DIR/deb.config")
	LINUX_BASE_CONFIG=cloud
	LINUX_SERIES_SET=posted
	LINUX_PACKAGES=1
	LINUX_TEST_MODULES=0
	LINUX_WORK=$LINUX_CACHE/deb
	# Not a test guest: no domU initramfs of its own.
	LINUX_DOMU_SMPALT=$LINUX_DOMU_SMPALT-deb
	;;
native)
	[ -f "$LINUX_SERIES_DIR/native.config" ] ||
		die "CONFIG=native: Linux $KVER has no $LINUX_SERIES_DIR/native.config (the native test kernel exists for Linux 7.2)"
	LINUX_FRAGMENTS+=("$LINUX_SERIES_DIR/native.config")
	LINUX_TEST_MODULES=0
	LINUX_WORK=$LINUX_CACHE/native
	# Not a Xen guest: no domU initramfs of its own (the native test
	# makes its own image, scripts/run/test-linux-native.sh).
	LINUX_DOMU_SMPALT=$LINUX_DOMU_SMPALT-native
	;;
*) die "CONFIG=$LINUX_CONFIG: the configurations are default, debug, debian, deb and native" ;;
esac
LINUX_STOCK=${STOCK:-0}
case $LINUX_STOCK in
0) ;;
1)
	if [ "$LINUX_CONFIG" = default ]; then
		LINUX_WORK=$LINUX_WORK/stock
	else
		LINUX_WORK=$LINUX_WORK-stock
	fi
	;;
*) die "STOCK=$LINUX_STOCK: 1 (the stock control, without the series) or 0" ;;
esac
# PREFIX=N from the environment builds the first N patches of the posted
# series only (no test-only patch), in $LINUX_WORK/prefix/ (one folder for
# every N, so that the next prefix compiles what its patch changes):
# make upstream-check builds each prefix so (scripts/build/upstream-check.sh).
LINUX_PREFIX=${PREFIX:-}
if [ -n "$LINUX_PREFIX" ]; then
	[[ $LINUX_PREFIX =~ ^[1-9][0-9]*$ ]] || die "PREFIX=$LINUX_PREFIX: a number of patches, 1 or more"
	[ "$LINUX_STOCK" = 0 ] || die "PREFIX=$LINUX_PREFIX and STOCK=1: the stock control has no patch"
	LINUX_WORK=$LINUX_WORK/prefix
fi
LINUX_VMLINUZ=$LINUX_WORK/out/vmlinuz

series_names() {
	local f name
	for f in "$@"; do
		[ -f "$f" ] || continue
		# || [ -n "$name" ]: a last line without its newline counts too.
		while read -r name _ || [ -n "$name" ]; do
			case $name in '' | '#'*) ;; *) echo "$name" ;; esac
		done <"$f"
	done
}

linux_series_names() {
	case ${1:-} in
	posted) series_names "$LINUX_SERIES_DIR/series" ;;
	all) series_names "$LINUX_SERIES_DIR/series" "$LINUX_SERIES_DIR/series-test" ;;
	*) die "linux_series_names ${1:-}: posted or all" ;;
	esac
}
