#!/bin/bash
# make test-linux [KVER=6.1|6.12|7.2]: everything that tests the patched
# Linux guest of one version (patches/linux-$KVER/, built by
# `make linux KVER=...`; default 6.1; the version's paths:
# scripts/lib/linux-version.sh), in one run:
#   1. make linux KVER=...: its out/vmlinuz must come out of it; and,
#      when linux-stock runs, the stock control (make linux STOCK=1: the
#      same tree and default configuration without the series), the
#      kernel of the stock domU;
#   2. every patch named in patches/linux-$KVER/series, then series-test
#      (the test-only patches, after the posted ones), in order: it
#      applies with `patch -p1` to a fresh copy of the pristine tree
#      (linux-source-$KVER in the version's cache folder, after the patches
#      before it), and that tree's scripts/checkpatch.pl --strict finds
#      nothing (no error, no warning, no check);
#   3. the guest's busybox initramfs (scripts/build/mk-linux-smpalt-domu.sh),
#      beside a copy of that version's kernel, which the dom0 image then
#      carries;
#   4. the scenarios of the Linux guest on real Xen in QEMU, one boot
#      (scripts/run/xen-run.sh -s linux: those in tests/linux/, the stock-kernel
#      control included, and those in tests/xen/ whose "# guests:" line
#      names linux, all against the patched guest).
# Steps 1-3 print "PASS WHAT" or "FAIL WHAT: why" per check; step 4 one
# line per scenario. A failed step does not stop the others: without a
# patched kernel its scenarios run and fail, saying so. The last line is
# "N passed, N failed" (a skipped scenario counts as failed).
#
# With CONFIG=debug or CONFIG=debian the kernel is that configuration
# (make linux CONFIG=..., its own cache folder and guest initramfs) and
# step 4 runs also the scenarios that need it ("# config: debug debian"),
# which the default configuration leaves out, naming them.
#
# With GUEST_TYPE=pvh (make test-linux TYPE=pvh) step 4 creates every
# guest as PVH (scripts/run/xen-run.sh -T) and reports SKIP for the
# scenarios whose "# types:" line lacks pvh.
#
# Usage: [KVER=...] [CONFIG=default|debug|debian] [GUEST_TYPE=pv|pvh]
# scripts/run/test-linux.sh [scenario ...]   (default: all of step 4's)
# Environment: KVER, CONFIG, GUEST_TYPE (pv, the default, or pvh),
# LINUX_PRISTINE (the pristine tree), XEN_BUSY=1 (CPU
# hogs beside QEMU, as for make test-xen). Results in
# out/linux/<timestamp>/ (out/linux/latest).
set -uo pipefail

. "$(dirname "$0")/../lib/host.sh"
. "$TOP/scripts/lib/linux-version.sh"
PRISTINE=$LINUX_PRISTINE
SERIES_DIR=$LINUX_SERIES_DIR
SERIES=$SERIES_DIR/series
VMLINUZ=$LINUX_VMLINUZ
DOMU_DIR=$LINUX_DOMU_SMPALT

. "$TOP/scripts/lib/tally.sh"

GUEST_TYPE=${GUEST_TYPE:-pv}
case $GUEST_TYPE in
pv | pvh) ;;
*) die "GUEST_TYPE='$GUEST_TYPE': pv or pvh" ;;
esac

case " $LINUX_TYPES " in *" $GUEST_TYPE "*) ;;
*)
	# The versions whose series serves this type, from the table.
	serving=$(matrix_rows linux | while read -r v _ _ _ types; do
		case " $types " in *" $GUEST_TYPE "*) echo "$v" ;; esac
	done | xargs)
	die "TYPE=$GUEST_TYPE: the Linux $KVER series serves ${LINUX_TYPES// / and } guests only (KVER=${serving// / or } for ${GUEST_TYPE^^}: scripts/lib/matrix.conf)"
	;;
esac

results_dir "$TOP/out/linux"
RUN_DIR=$RESULTS_DIR
T0=$(date +%s)
echo "test-linux: Linux $KVER (patches/linux-$KVER), ${GUEST_TYPE^^} guests, configuration $LINUX_CONFIG, results in $RUN_DIR"

# --- 1. the patched kernel; a kernel left in the cache by an earlier build
# is not used when this one fails.
t=$(date +%s)
kernel=
what="make linux KVER=$KVER"
[ "$LINUX_CONFIG" = default ] || what="$what CONFIG=$LINUX_CONFIG"
if make -C "$TOP" --no-print-directory linux KVER="$KVER" CONFIG="$LINUX_CONFIG" \
	>"$RUN_DIR/make-linux.log" 2>&1; then
	if [ -f "$VMLINUZ" ]; then
		ok "$what" "$VMLINUZ ($(du -h "$VMLINUZ" | cut -f1), $(($(date +%s) - t)) s)"
		kernel=$VMLINUZ
	else
		ko "$what" "it succeeded but wrote no $VMLINUZ"
	fi
else
	ko "$what" "failed after $(($(date +%s) - t)) s"
	show "$RUN_DIR/make-linux.log"
fi

# --- 1b. the stock control, when a scenario that compares with stock
# Linux runs (linux-stock, bench-linux-*): this version's tree and default
# configuration without the series (make linux STOCK=1), the kernel of the
# stock domU, so that the control differs from the patched guest by the
# series alone.
stock=
case " ${*:-linux-stock} " in *" linux-stock "* | *" bench-linux-"*)
	t=$(date +%s)
	stock_vmlinuz=$LINUX_CACHE/stock/out/vmlinuz
	what="make linux KVER=$KVER STOCK=1"
	if make -C "$TOP" --no-print-directory linux KVER="$KVER" CONFIG=default STOCK=1 \
		>"$RUN_DIR/make-linux-stock.log" 2>&1 && [ -f "$stock_vmlinuz" ]; then
		ok "$what" "$stock_vmlinuz ($(du -h "$stock_vmlinuz" | cut -f1), $(($(date +%s) - t)) s)"
		stock=$stock_vmlinuz
	else
		ko "$what" "failed after $(($(date +%s) - t)) s: linux-stock will run Debian's kernel"
		show "$RUN_DIR/make-linux-stock.log"
	fi
	;;
esac

# --- 2. the series: applies in order, checkpatch-clean
check_series() {
	local tree names=() posted=() name p out rc total applied=1
	if [ ! -f "$SERIES" ]; then
		ko "series" "$SERIES does not exist"
		return
	fi
	# The posted series, then the test-only patches (series-test).
	mapfile -t names < <(linux_series_names all)
	if [ ${#names[@]} -eq 0 ]; then
		ko "series" "$SERIES names no patch"
		return
	fi
	if [ ! -f "$PRISTINE/scripts/checkpatch.pl" ]; then
		ko "series" "no pristine tree at $PRISTINE (make linux unpacks it)"
		return
	fi
	ok "series" "${#names[@]} patch(es) in $SERIES and series-test"
	# What make upstream posts is the series file only: no test hook in it
	# (</dev/null: with no posted patch, grep reads nothing).
	mapfile -t posted < <(linux_series_names posted)
	out=$(cd "$SERIES_DIR" && grep -l -e '^Subject: \[PATCH\] TEST-ONLY:' -e 'XEN_SMPALT_TEST' \
		-- ${posted[@]+"${posted[@]}"} </dev/null 2>/dev/null)
	if [ -n "$out" ]; then
		ko "posted series" "test code in a posted patch: $out"
	else
		ok "posted series" "no test-only patch or test hook in $SERIES"
	fi
	tree=$(mktemp -d "$TOP/build/linux-check.XXXXXX" 2>/dev/null) ||
		{ mkdir -p "$TOP/build" && tree=$(mktemp -d "$TOP/build/linux-check.XXXXXX"); }
	cp -a "$PRISTINE/." "$tree/" || {
		ko "series" "cannot copy $PRISTINE to $tree"
		rm -rf "$tree"
		return
	}
	for name in "${names[@]}"; do
		p=$SERIES_DIR/$name
		if [ ! -f "$p" ]; then
			ko "apply $name" "no such file in $SERIES_DIR"
			applied=0
			continue
		fi
		out=$RUN_DIR/apply-$name.log
		if patch -p1 --batch --forward -d "$tree" <"$p" >"$out" 2>&1; then
			if grep -q 'with fuzz' "$out"; then
				ok "apply $name" "$(grep -c '^patching file' "$out") file(s), with fuzz: $(grep 'with fuzz' "$out" | head -1)"
			else
				ok "apply $name" "$(grep -c '^patching file' "$out") file(s)"
			fi
		else
			ko "apply $name" "patch -p1 failed$( [ $applied = 1 ] || echo ' (after an earlier failure)')"
			show "$out"
			applied=0
		fi
		out=$RUN_DIR/checkpatch-$name.log
		(cd "$tree" && "${LINUX_CHECKPATCH[@]}" "$p") >"$out" 2>&1
		rc=$?
		total=$(grep -E -m1 '^total:' "$out")
		if [ $rc -eq 0 ]; then
			ok "checkpatch $name" "$total"
		else
			ko "checkpatch $name" "${total:-scripts/checkpatch.pl exited $rc}"
			grep -E '^(ERROR|WARNING|CHECK):' "$out" | head -10 | sed 's/^/    /'
			echo "    (whole report: $out)"
		fi
	done
	rm -rf "$tree"
}
t=$(date +%s)
check_series
echo "test-linux: series checked in $(($(date +%s) - t)) s"

# --- 3. the guest's initramfs, beside a copy of the kernel
domu=
if ! bash "$TOP/scripts/build/fetch-xen.sh" >"$RUN_DIR/fetch.log" 2>&1; then
	ko "guest initramfs" "scripts/build/fetch-xen.sh failed"
	show "$RUN_DIR/fetch.log"
elif [ -z "$kernel" ]; then
	ko "guest initramfs" "no patched kernel (make linux failed): the scenarios of the patched guest will fail"
elif bash "$TOP/scripts/build/mk-linux-smpalt-domu.sh" -o "$DOMU_DIR" -k "$kernel" \
	>"$RUN_DIR/linux-smpalt-domu.log" 2>&1; then
	ok "guest initramfs" "$(tail -1 "$RUN_DIR/linux-smpalt-domu.log")"
	domu=$DOMU_DIR
else
	ko "guest initramfs" "scripts/build/mk-linux-smpalt-domu.sh failed"
	show "$RUN_DIR/linux-smpalt-domu.log"
fi

# The stock domU with the stock control's kernel (without it, xen-run.sh
# makes one with the dom0 kernel, Debian's).
if [ -n "$stock" ] && [ -n "$domu" ]; then
	if bash "$TOP/scripts/build/mk-linux-domu.sh" -o "$LINUX_CACHE/stock/domu" -k "$stock" \
		>"$RUN_DIR/linux-domu.log" 2>&1; then
		ok "stock initramfs" "$(tail -1 "$RUN_DIR/linux-domu.log")"
		export LINUX_DOMU_DIR=$LINUX_CACHE/stock/domu
	else
		ko "stock initramfs" "scripts/build/mk-linux-domu.sh failed"
		show "$RUN_DIR/linux-domu.log"
	fi
fi

# --- 4. the scenarios, one Xen boot
LINUX_SMPALT_DIR=$domu XEN_OUT=$RUN_DIR/xen \
	bash "$TOP/scripts/run/xen-run.sh" -s linux -T "$GUEST_TYPE" "$@" 2>&1 | tee "$RUN_DIR/xen-run.txt"
rc=${PIPESTATUS[0]}
tally_read "$RUN_DIR/xen-run.txt"
f=$((read_failed + read_skipped))
[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || {
	echo "test-linux: scripts/run/xen-run.sh exited $rc without a failure count: counted as 1 failure"
	f=1
}
[ "$read_skipped" -eq 0 ] || echo "test-linux: $read_skipped scenario(s) skipped: counted as failures"
tally_add "$read_passed" "$f"

echo "test-linux: took $(($(date +%s) - T0)) s"
tally_end
