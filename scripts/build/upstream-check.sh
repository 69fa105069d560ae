#!/bin/bash
# make upstream-check [KVER=7.2]: every prefix of the posted series
# (patches/linux-$KVER/series, without the test-only patches of
# series-test) builds on its own, with the default configuration
# (tinyconfig + xen-pv-guest.config, the options a prefix does not define
# yet left out), without a compiler warning, and each patch is
# checkpatch --strict clean: a bisection through the series never meets
# a tree that does not build.
#
# The prefixes are built one after the other in one folder
# (cache/linux-$KVER/prefix/: scripts/build/build-linux.sh with PREFIX=N),
# so that each compiles what its patch changes.  Prints one line per
# prefix with its time, and exits 1 at the first that fails.
#
# FROM=N starts at prefix N (the earlier ones checked before).
#
# Usage: [KVER=7.2] [FROM=1] scripts/build/upstream-check.sh
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script upstream-check
parse_args "$@"
export KVER=${KVER:-7.2}
unset CONFIG STOCK
. "$TOP/scripts/lib/linux-version.sh"

mapfile -t names < <(linux_series_names posted)
[ ${#names[@]} -gt 0 ] || die "$LINUX_SERIES_DIR/series lists no patch"
start_s=$(date +%s)
from=${FROM:-1}
[[ $from =~ ^[1-9][0-9]*$ ]] && [ "$from" -le ${#names[@]} ] ||
	die "FROM=$from: a prefix from 1 to ${#names[@]}"
for i in "${!names[@]}"; do
	n=$((i + 1))
	[ "$n" -ge "$from" ] || continue
	name=${names[$i]}
	log=$LINUX_CACHE/prefix/upstream-check-$n.log
	mkdir -p "$LINUX_CACHE/prefix"
	t=$(date +%s)
	if ! PREFIX=$n bash "$TOP/scripts/build/build-linux.sh" >"$log" 2>&1; then
		tail -15 "$log" >&2
		die "prefix $n ($name) does not build (log: $log)"
	fi
	if grep -q 'warning:' "$LINUX_CACHE/prefix/build/build.log"; then
		grep 'warning:' "$LINUX_CACHE/prefix/build/build.log" | sort -u | head >&2
		die "prefix $n ($name): compiler warnings (log: $LINUX_CACHE/prefix/build/build.log)"
	fi
	if ! (cd "$LINUX_PRISTINE" && "${LINUX_CHECKPATCH[@]}" --quiet \
		"$LINUX_SERIES_DIR/$name") >"$log.checkpatch" 2>&1; then
		cat "$log.checkpatch" >&2
		die "prefix $n ($name): checkpatch --strict is not clean"
	fi
	echo "upstream-check: prefix $n/${#names[@]} builds, no warning, checkpatch clean ($(($(date +%s) - t)) s): $name"
done
echo "upstream-check: Linux $KVER, all ${#names[@]} prefixes of the posted series build ($(($(date +%s) - start_s)) s)"
