#!/bin/bash
# make bench-real: the Linux benchmarks on a real Xen dom0 (no QEMU), for
# hardware figures. Run as root in dom0, from the source tree.
#
# Runs the two Linux scenarios of `make bench`, tests/xen/bench-linux-vcpu.sh
# (the stock guest: kernel alone, then with user-space onlining) and
# tests/xen/bench-linux-smpalt.sh (the patched guest: vcpu-set steps, the
# switch against a CPU offline, the guest's reaction time, the fork loop in
# UP and SMP code, and in the stock guest), through the same dom0 library
# (scripts/dom0/lib.sh, scripts/dom0/lib/), staged in a temporary folder as
# the harness's dom0 image holds them in /opt/smpalt: the library, the two
# scenarios, the xl configs (their kernel paths pointed at the folder), the
# two guests and the event stamper. The scenarios run under busybox's sh,
# their shell in the harness, one after the other; each creates and
# destroys its own guests (linux-kernel, linux-user,
# smpalt-bench-linux-smpalt) and touches no other domain.
#
# Prints the host's facts (CPU model, Xen version and scheduler from
# xl info, dom0 kernel, date) and the Linux rows of the summary table;
# writes into the results folder run.txt, the scenarios' logs and CSVs and
# the guests' consoles (xen/), the CSVs and summary.md, summary.csv of
# scripts/report/bench-report.py --real. Exits non-zero if a scenario did
# not succeed. docs/benchmarks.md, "On a real host".
# With -d, a third scenario, tests/xen/bench-debian-real.sh: real programs
# (sqlite3, xz -T2, redis) in the Debian 13 guest of make debian-domu, the
# patched kernel package in UP and in SMP code and Debian's own kernel as
# the control, its disk a copy of the image (the guest writes to it) in
# the stage, attached with xl's default block script.
#
# Needs: root; a Xen dom0 (/proc/xen/capabilities says control_d) with xl
# and xenstore-read; xenconsoled logging the guests' consoles
# (XENCONSOLED_ARGS="--log=guest" in /etc/default/xen on Debian, then
# restart xen); busybox; python3 (the report); 256 MB free for guests.
#
# Usage: scripts/run/bench-real.sh [-p PATCHED_DIR] [-s STOCK_DIR]
#                                  [-d DEBIAN_DIR] [-x STAMPER] [-r ROUNDS]
#                                  [-o RESULTS_DIR]
#   PATCHED_DIR  the patched guest: vmlinuz (make linux) and initrd.gz
#                (scripts/build/mk-linux-smpalt-domu.sh); default
#                build/bench-real/patched (make bench-real makes it)
#   STOCK_DIR    the stock guest: vmlinuz and initrd.gz
#                (scripts/build/mk-linux-domu.sh); default
#                build/bench-real/stock
#   DEBIAN_DIR   the Debian guest: make debian-domu's cache/debian-domu
#                (disk.img and boot/); none: its rows are left out. Its
#                copy takes the image's size in TMPDIR (about 2 GB) and
#                the guest 384 MB of Xen's memory
#   STAMPER      smpalt-xs-stamp (tests/bench/xs_stamp.c, built by make);
#                default build/gcc/bench/smpalt-xs-stamp, else clang's
#   ROUNDS       rounds of vcpu-set steps of each scenario (default: the
#                scenarios' own, 3 for the stock guest, 5 for the patched)
#   RESULTS_DIR  default results/real-<UTC timestamp>; results/latest
#                points at the last run
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script bench-real 2
SCENARIOS=(bench-linux-vcpu bench-linux-smpalt)
# The domains the scenarios create: none may exist before the run.
GUEST_NAMES=(linux-kernel linux-user smpalt-bench-linux-smpalt)
# The scenarios' xl configs: memory 128 and 64 MB, one guest at a time;
# the Debian guest's 384 MB.
FREE_MB_MIN=256
DEBIAN_FREE_MB_MIN=512
# Seconds one scenario may take (the harness allows 480 under TCG).
SCENARIO_LIMIT=1800
CONSOLE_DIR=/var/log/xen/console
# xenconsoled's options that log the guests' consoles (--log=guest or all).
XENCONSOLED_GUEST_LOGS='(^| )(--log[= ]|-l ?)(guest|all)( |$)'

patched=$TOP/build/bench-real/patched
stock=$TOP/build/bench-real/stock
stamper=${XS_STAMP:-}
rounds='' res='' debian=''
opt_value -p patched "a folder"
opt_value -s stock "a folder"
opt_value -d debian "a folder"
opt_value -x stamper "a path"
opt_value -r rounds "a round count"
opt_value -o res "a folder"
parse_args "$@"
[ -z "$rounds" ] || [[ $rounds =~ ^[1-9][0-9]*$ ]] || die "bad round count '$rounds'"
if [ -n "$debian" ]; then
	SCENARIOS+=(bench-debian-real)
	GUEST_NAMES+=(smpalt-bench-debian-real)
	FREE_MB_MIN=$DEBIAN_FREE_MB_MIN
	for f in disk.img boot/grub-x86_64-xen.bin boot/stock-vmlinuz boot/stock-initrd.img boot/stock-cmdline; do
		[ -f "$debian/$f" ] ||
			die "no $debian/$f: -d takes the folder make debian-domu fills (cache/debian-domu)"
	done
fi
for a in "$TOP"/build/{gcc,clang}/bench/smpalt-xs-stamp; do
	[ -n "$stamper" ] || [ ! -x "$a" ] || stamper=$a
done

# --- 1. a Xen dom0, root, the tools, the files
[ "$(id -u)" = 0 ] || die "must run as root (xl needs it): sudo $0 $*"
grep -qs control_d /proc/xen/capabilities ||
	die "not a Xen dom0: /proc/xen/capabilities does not say control_d (boot Xen with this kernel as dom0; xenfs mounted on /proc/xen)"
# Debian's Xen tools may live in their own folder only.
for d in /usr/lib/xen-*/bin; do
	[ -d "$d" ] && PATH=$PATH:$d
done
for t in xl xenstore-read xenstore-ls; do
	command -v $t >/dev/null || die "$t not found: install the Xen tools (Debian: xen-utils, xenstore-utils)"
done
xl_info=$(xl info 2>&1) || die "xl info failed (is the Xen toolstack running?): $xl_info"
busybox=$(command -v busybox) ||
	die "busybox not found: the scenarios run under its sh, as in the harness (Debian: apt install busybox-static)"
command -v python3 >/dev/null || die "python3 not found: the report needs it"
# xenconsoled must log every guest's console: the scenarios read it.
consoled=
for p in /proc/[0-9]*; do
	[ "$(cat "$p/comm" 2>/dev/null)" = xenconsoled ] || continue
	consoled=$(tr '\0' ' ' <"$p/cmdline")
	break
done
[ -n "$consoled" ] || die "xenconsoled is not running (start Xen's daemons: systemctl start xen, or xencommons)"
[[ $consoled =~ $XENCONSOLED_GUEST_LOGS ]] ||
	die "xenconsoled does not log the guests' consoles ('$consoled'): set XENCONSOLED_ARGS=\"--log=guest\" in /etc/default/xen (Debian; XENCONSOLED_TRACE=guest in /etc/default/xencommons elsewhere), then restart xen"
if [[ $consoled =~ --log-dir=([^ ]+) ]]; then
	CONSOLE_DIR=${BASH_REMATCH[1]}
fi
for d in "$patched" "$stock"; do
	for f in vmlinuz initrd.gz; do
		[ -f "$d/$f" ] ||
			die "no guest kernel or initramfs $d/$f (make bench-real makes build/bench-real/; -p and -s name others)"
	done
done
[ -n "$stamper" ] && [ -x "$stamper" ] ||
	die "no event stamper smpalt-xs-stamp '${stamper}' (make builds it; -x names another)"
free_mb=$(awk -F': *' '$1 ~ /^free_memory/ { print $2 }' <<<"$xl_info")
[ "${free_mb:-0}" -ge $FREE_MB_MIN ] ||
	die "Xen has ${free_mb:-no} MB free, the guests need $FREE_MB_MIN MB"
for g in "${GUEST_NAMES[@]}"; do
	! xl domid "$g" >/dev/null 2>&1 ||
		die "a domain named $g exists: the benchmark creates and destroys one of that name"
done

# --- 2. the dom0 library, scenarios, configs, guests and stamper, staged
# as the harness's image holds them in /opt/smpalt
results_dir "$TOP/results" "${res:-$TOP/results/real-$(date -u +%Y%m%d-%H%M%S)}"
res=$RESULTS_DIR
stage=$(mktemp -d "${TMPDIR:-/tmp}/smpalt-bench-real.XXXXXX")
notes_pid=''
# destroy_own: any guest of ours a failed scenario left behind.
destroy_own() {
	local g
	for g in "${GUEST_NAMES[@]}"; do
		! xl domid "$g" >/dev/null 2>&1 || xl destroy "$g" || true
	done
}
# On exit, whatever the status: the live notes stopped, our guests gone,
# the stage removed.
cleanup() {
	[ -z "$notes_pid" ] || kill "$notes_pid" 2>/dev/null || true
	destroy_own
	rm -rf "$stage"
}
trap cleanup EXIT
mkdir -p "$stage"/{lib,scenarios,xl-configs,bin,linux,linux-smpalt} "$res/xen"
install -m 0644 "$TOP/scripts/dom0/lib.sh" "$stage/lib.sh"
install -m 0644 "$TOP"/scripts/dom0/lib/*.sh "$stage/lib/"
for s in "${SCENARIOS[@]}"; do
	install -m 0644 "$TOP/tests/xen/$s.sh" "$stage/scenarios/$s.sh"
done
for c in linux linux-smpalt; do
	sed "s|\"/opt/smpalt/|\"$stage/|" "$TOP/xl-configs/$c.cfg" >"$stage/xl-configs/$c.cfg"
done
cp "$stock/vmlinuz" "$stock/initrd.gz" "$stage/linux/"
cp "$patched/vmlinuz" "$patched/initrd.gz" "$stage/linux-smpalt/"
[ ! -f "$patched/config" ] || cp "$patched/config" "$stage/linux-smpalt/"
install -m 0755 "$stamper" "$stage/bin/smpalt-xs-stamp"
# The Debian guest: pvgrub2, the control's kernel, and a copy of the disk
# attached by xl's default script (the harness's block-dev script hands
# QEMU's disk to dom0's blkback instead).
if [ -n "$debian" ]; then
	mkdir -p "$stage/debian/stock"
	cp "$debian/boot/grub-x86_64-xen.bin" "$debian/boot/grub-i386-xen_pvh.bin" "$stage/debian/"
	for f in vmlinuz initrd.img cmdline; do
		cp "$debian/boot/stock-$f" "$stage/debian/stock/$f"
	done
	echo "bench-real: copying the Debian guest's disk ($(du -h "$debian/disk.img" | cut -f1)) to $stage/debian/"
	cp --sparse=always "$debian/disk.img" "$stage/debian/disk.img"
	sed -e "s|\"/opt/smpalt/|\"$stage/|" \
		-e "s|^disk = .*|disk = [ \"format=raw, vdev=xvda, access=rw, target=$stage/debian/disk.img\" ]|" \
		"$TOP/xl-configs/debian.cfg" >"$stage/xl-configs/debian.cfg"
	export SMPALT_DEBIAN_DISK=$stage/debian/disk.img
fi
# The scenarios' shell and the one applet they use that Debian has not.
ln -s "$busybox" "$stage/bin/sh"
ln -s "$busybox" "$stage/bin/usleep"
echo "${rounds:+smpalt.bench.rounds=$rounds}" >"$stage/cmdline"
: >"$stage/notes"

# --- 3. the run's facts
xl_field() { awk -F': *' -v k="$1" '$1 ~ "^" k "[ ]*$" { print $2; exit }' <<<"$xl_info"; }
kernel_of() { echo "$1/vmlinuz ($(md5sum <"$1/vmlinuz" | cut -c1-12))"; }
{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "cpus=$(xl_field nr_cpus) host CPUs at $(xl_field cpu_mhz) MHz, $(xl_field total_memory) MB"
	echo "xen=$(xl_field xen_major).$(xl_field xen_minor)$(xl_field xen_extra)"
	echo "scheduler=$(xl_field xen_scheduler)"
	echo "dom0_kernel=$(uname -r) ($(uname -v))"
	echo "patched=$(kernel_of "$patched")"
	echo "stock=$(kernel_of "$stock")"
	[ -z "$debian" ] ||
		echo "debian=$debian/disk.img: $(cat "$debian/boot/release" 2>/dev/null), control $(cat "$debian/boot/stock-release" 2>/dev/null)"
	echo "rounds=${rounds:-the scenarios defaults, 3 stock and 5 patched}"
} >"$res/run.txt"
sed 's/=/: /' "$res/run.txt" | sed 's/^/bench-real: /'

# --- 4. the scenarios, each under the library as the harness runs it,
# with the folder above for /opt/smpalt and the paths the library reads
# outside it (scripts/dom0/lib/core.sh) in the results folder and stage
export SMPALT_DIR=$stage SMPALT_RESULTS_DIR=$res/xen
export SMPALT_CONSOLE_DIR=$CONSOLE_DIR SMPALT_HOST_CONSOLE=$stage/notes
export SMPALT_CMDLINE=$stage/cmdline
export PATH=$stage/bin:$PATH
# The scenarios' progress lines, live (tail ends with this script).
tail -n 0 -F --pid=$$ "$stage/notes" 2>/dev/null | sed -un 's/^@@SMPALT NOTE /  /p' &
notes_pid=$!
failed=0
for s in "${SCENARIOS[@]}"; do
	echo "bench-real: $s (limit ${SCENARIO_LIMIT}s)"
	rf=$res/xen/$s.result
	rm -f "$rf"
	rc=0
	# shellcheck disable=SC2016 # expanded by the scenario's shell
	kind=linux
	case $s in bench-debian-*) kind=debian ;; esac
	SCENARIO=$s GUEST_KIND=$kind RESULT_FILE=$rf timeout -s KILL $SCENARIO_LIMIT \
		"$busybox" sh -c '. "$SMPALT_DIR/lib.sh"; . "$SMPALT_DIR/scenarios/$SCENARIO.sh"' \
		>"$res/xen/$s.log" 2>&1 </dev/null || rc=$?
	destroy_own
	for g in "${GUEST_NAMES[@]}"; do
		[ ! -f "$CONSOLE_DIR/guest-$g.log" ] ||
			mv "$CONSOLE_DIR/guest-$g.log" "$res/xen/console-$g-$s.log"
	done
	status=ERROR reason="ended without a result (exit code $rc)"
	[ ! -s "$rf" ] || read -r status reason <"$rf"
	echo "bench-real: $s: $status${reason:+ $reason}"
	if [ "$status" != SUCCESS ]; then
		failed=1
		echo "bench-real: see $res/xen/$s.log"
	fi
done
kill "$notes_pid" 2>/dev/null || true
notes_pid=''
if [ $failed = 0 ]; then
	echo "status=all ${#SCENARIOS[@]} scenarios succeeded" >>"$res/run.txt"
else
	echo "status=a scenario failed (see xen/*.log)" >>"$res/run.txt"
fi

# --- 5. the report
echo "bench-real: results in $res (summary.md, summary.csv, *.csv, xen/)"
echo
python3 "$TOP/scripts/report/bench-report.py" --real "$res" || failed=1
exit $failed
