#!/bin/bash
# make test-linux-native [KVER=7.2]: the patched Linux of one version
# (patches/linux-$KVER/; only 7.2 has the native configuration) booted
# natively in QEMU, not under Xen, with KASAN (generic, inline checks)
# and lockdep, through the UP <-> SMP path of the series that a bare-metal
# kernel takes:
#   1. make linux KVER=... CONFIG=native (tinyconfig + xen-pv-guest.config
#      + native.config: the series' Xen code built in and inert);
#   2. the busybox initramfs (scripts/lib/initramfs.sh) with
#      tests/linux-native/init as /init;
#   3. one boot in QEMU (TCG, q35, -smp 2 with maxcpus=1 on the kernel
#      command line: two CPUs present, one brought up at boot): the kernel
#      patches its text to UP at boot; /init onlines the second CPU (the
#      text switches to SMP: "SMP alternatives: switching to SMP code",
#      printed only by a text that was UP), runs a process on it, and
#      offlines it again, then reboots,
#      which ends QEMU (-no-reboot);
#   4. the console log: each step's expected state, and no report of any
#      kind: no KASAN report, no lockdep splat, no BUG, Oops, WARNING,
#      general protection fault or panic.
# Why not a CPU hot-added by QEMU (-smp 1,maxcpus=2 and device_add): on
# bare metal Linux 7.2 counts the MADT's disabled processor entries as
# hot-pluggable only with ACPI 6.3's online-capable bit or under a
# hypervisor it recognizes (acpi_is_processor_usable()); QEMU 7.2's
# tables are older and TCG presents no hypervisor, so the kernel allows
# no hot-plug CPU and QEMU's device_add never reaches it (docs/linux.md).
# What a CPU offline does here: natively the series leaves the text SMP
# (only the Xen PV guest switches back to UP, when the toolstack takes its
# last secondary vCPU away: alternatives_disable_smp()), so the check is
# that no "switching to UP code" follows the offline.
# Every check prints "PASS WHAT" or "FAIL WHAT: why"; the console log's
# relevant lines are shown, and the last line is "N passed, N failed".
#
# Usage: [KVER=7.2] scripts/run/test-linux-native.sh
# Environment: KVER, LINUX_PRISTINE (the pristine tree), JOBS (the build's
# parallel jobs). Results in out/linux-native/<timestamp>/
# (out/linux-native/latest): console.log, make-linux.log.
# QEMU runs are serialized machine-wide with flock on /tmp/smpalt-qemu.lock
# (as scripts/run/xen-run.sh does), and the QEMU started here is always
# killed on exit.
set -uo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script test-linux-native
KVER=${KVER:-7.2}
CONFIG=native
. "$TOP/scripts/lib/linux-version.sh"
. "$TOP/scripts/lib/tally.sh"
. "$TOP/scripts/lib/initramfs.sh"
QEMU=${QEMU:-qemu-system-x86_64}
QEMU_LOCK=/tmp/smpalt-qemu.lock
# Two CPUs present; the kernel brings up one at boot (maxcpus=1 below),
# and so patches its text to UP as with one CPU. qemu64 is TCG's plain
# x86-64 CPU.
QEMU_MACHINE=q35
QEMU_CPU=qemu64
QEMU_SMP=2
# KASAN takes an eighth of it for its shadow.
QEMU_MEM_MB=512
# panic=-1 with QEMU's -no-reboot: a panic ends the run at once.
KERNEL_CMDLINE="console=ttyS0,115200 earlyprintk=serial,ttyS0,115200 panic=-1 maxcpus=1 rdinit=/init"
# The time limit in seconds, overall only: TCG with KASAN and lockdep is
# slow, and other work on the machine can halve QEMU's speed.
RUN_LIMIT=1200              # QEMU start to its exit
KILL_GRACE=3                # SIGTERM to SIGKILL
# What no console line may hold: a KASAN report ("BUG: KASAN: ..."), a
# lockdep splat ("WARNING: possible ... locking ...", "inconsistent lock
# state", "INFO: trying to register non-static key"), a sleep in atomic
# context ("BUG: sleeping function ..."), any other BUG, WARN or oops, a
# fault on a non-canonical address (how a KASAN shadow check of a user
# address ends), a panic.
REPORT_RE='BUG:|WARNING:|INFO: |Oops|general protection fault|inconsistent lock state|KASAN:|Kernel panic|Call Trace:'
# The console lines shown: the series', /init's, the CPU bring-up's, and
# the kernel's own reports.
SHOW_RE='SMP alternatives|linux-native:|smpboot|CPU1|CPU 1|[Aa]llowing .* CPUs|ACPI: .*[Pp]rocessor|KernelAddressSanitizer|Lock dependency validator|'"$REPORT_RE"
# Lines of the console shown after the first report (the whole of it is
# in the results folder).
REPORT_LINES=40

results_dir "$TOP/out/linux-native"
RUN_DIR=$RESULTS_DIR
CONSOLE=$RUN_DIR/console.log
T0=$(date +%s)
echo "test-linux-native: Linux $KVER (patches/linux-$KVER), configuration native, results in $RUN_DIR"

# --- 1. the kernel
t=$(date +%s)
kernel=
what="make linux KVER=$KVER CONFIG=native"
if make -C "$TOP" --no-print-directory linux KVER="$KVER" CONFIG=native \
	>"$RUN_DIR/make-linux.log" 2>&1 && [ -f "$LINUX_VMLINUZ" ]; then
	ok "$what" "$LINUX_VMLINUZ ($(du -h "$LINUX_VMLINUZ" | cut -f1), $(($(date +%s) - t)) s)"
	kernel=$LINUX_VMLINUZ
else
	ko "$what" "failed after $(($(date +%s) - t)) s"
	show "$RUN_DIR/make-linux.log"
fi
[ -n "$kernel" ] || { tally_end test-linux-native; exit; }

# --- 2. the initramfs: busybox and tests/linux-native/init
initrd=$RUN_DIR/initrd.gz
if [ ! -x "$INITRAMFS_BUSYBOX" ]; then
	echo "test-linux-native: fetching the Xen host's packages for their busybox (scripts/build/fetch-xen.sh)"
	bash "$TOP/scripts/build/fetch-xen.sh" >"$RUN_DIR/fetch-xen.log" 2>&1 ||
		show "$RUN_DIR/fetch-xen.log"
fi
if out=$( (
	stage=$(mktemp -d "${TMPDIR:-/tmp}/smpalt-linux-native.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	initramfs_busybox "$stage"
	install -m 0755 "$TOP/tests/linux-native/init" "$stage/init"
	initramfs_pack "$stage" "$initrd"
) 2>&1); then
	ok "initramfs" "$initrd ($(du -h "$initrd" | cut -f1))"
else
	ko "initramfs" "$out"
	tally_end test-linux-native
	exit
fi

# --- 3. the boot
command -v "$QEMU" >/dev/null || die "$QEMU not found (scripts/build/install-deps.sh)"
command -v flock >/dev/null || die "flock not found"
qemu_pid=
cleanup() {
	local rc=$?
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		echo "test-linux-native: stopping QEMU (pid $qemu_pid)" >&2
		stop_pid "$qemu_pid" "$KILL_GRACE" || true
	fi
	exit $rc
}
trap cleanup EXIT
trap 'echo "test-linux-native: interrupted" >&2; exit 130' INT
trap 'echo "test-linux-native: terminated" >&2; exit 143' TERM

exec 9>"$QEMU_LOCK"
if ! flock -n 9; then
	echo "test-linux-native: waiting for another QEMU run to finish ($QEMU_LOCK)"
	flock 9
fi
: >"$CONSOLE"
echo "test-linux-native: qemu start: $QEMU_MACHINE, -cpu $QEMU_CPU -smp $QEMU_SMP -m $QEMU_MEM_MB, kernel: $KERNEL_CMDLINE (limit ${RUN_LIMIT} s)"
Tq=$(date +%s)
# fd 9 (the lock) is not passed on: only this script holds it.
"$QEMU" -machine "$QEMU_MACHINE" -accel tcg -cpu "$QEMU_CPU" -smp "$QEMU_SMP" \
	-m "$QEMU_MEM_MB" -nographic -no-reboot -monitor none -net none \
	-serial "file:$CONSOLE" \
	-kernel "$kernel" -initrd "$initrd" -append "$KERNEL_CMDLINE" \
	</dev/null >"$RUN_DIR/qemu.log" 2>&1 9>&- &
qemu_pid=$!

timed_out=
while kill -0 "$qemu_pid" 2>/dev/null; do
	if [ $(($(date +%s) - Tq)) -ge $RUN_LIMIT ]; then
		timed_out="still running after $RUN_LIMIT s"
		break
	fi
	sleep 1
done
qemu_rc=0
if [ -n "$timed_out" ]; then
	kill -TERM "$qemu_pid" 2>/dev/null || true
	wait "$qemu_pid" 2>/dev/null
	qemu_rc=timeout
else
	wait "$qemu_pid"
	qemu_rc=$?
fi
qemu_pid=
run_s=$(($(date +%s) - Tq))
flock -u 9
echo "test-linux-native: QEMU ran $run_s s (exit $qemu_rc${timed_out:+: $timed_out})"

# --- 4. the console log
# The relevant lines, without the carriage returns of the serial line.
tr -d '\r' <"$CONSOLE" >"$RUN_DIR/console.txt"
LOG=$RUN_DIR/console.txt
echo "test-linux-native: console lines (whole log: $CONSOLE):"
grep -E "$SHOW_RE" "$LOG" | sed 's/^/    /'

# line_of RE: the number of the first line matching RE (empty if none).
line_of() { grep -nE -m1 -- "$1" "$LOG" | cut -d: -f1; }
# has RE: some line matches RE.
has() { grep -qE -- "$1" "$LOG"; }

# Boot: one CPU of the two present online, the text UP.
if has '^linux-native: boot, online 0, present 0-1, possible 0-1$'; then
	ok "boot: one CPU of two online"
else
	ko "boot: one CPU of two online" \
		"$(grep -E '^linux-native: boot' "$LOG" || echo "no /init line")"
fi
# Natively nothing asks for the lock sites to be checked (only the Xen
# PV guest does, xen_smpalt on): the kernel behaves as stock Linux, so
# no line about sites holding neither prefix, whatever the text holds.
if ! has 'lock sites hold neither prefix'; then
	ok "boot: lock sites not checked natively (no 'hold neither prefix' line)"
else
	ko "boot: lock sites not checked natively" "$(grep -m1 'hold neither prefix' "$LOG")"
fi

# Online: the text switches to SMP on the way up, once.
boot=$(line_of '^linux-native: boot')
online=$(line_of '^linux-native: cpu1 online')
offline=$(line_of '^linux-native: cpu1 offline')
smp=$(line_of 'SMP alternatives: switching to SMP code')
if has '^linux-native: cpu1 online ok, online 0-1$' &&
	[ -n "$smp" ] && [ -n "$boot" ] && [ "$smp" -gt "$boot" ] && [ "$smp" -lt "$online" ] &&
	[ "$(grep -c 'SMP alternatives: switching to SMP code' "$LOG")" = 1 ]; then
	ok "online: both CPUs online, the text UP until then and switched to SMP on the way"
else
	ko "online: both CPUs online, the text UP until then and switched to SMP on the way" \
		"$(grep -E '^linux-native: (cpu1 online|no cpu1)' "$LOG" || echo "no online line"); $(grep -c 'switching to SMP code' "$LOG") switch(es) to SMP, the first at line ${smp:-none} (/init at ${boot:-none}, online at ${online:-none})"
fi
if has '^linux-native: cpu1 ran a process ok$'; then
	ok "online: a process runs on cpu1"
else
	ko "online: a process runs on cpu1" "$(grep -E '^linux-native: cpu1 ran' "$LOG" || echo "no line")"
fi

# Offline: natively the text stays SMP (no switch back to UP after it).
if has '^linux-native: cpu1 offline ok, online 0$'; then
	ok "offline: cpu1 offline, one CPU online"
else
	ko "offline: cpu1 offline, one CPU online" "$(grep -E '^linux-native: cpu1 offline' "$LOG" || echo "no offline line")"
fi
if [ -n "$offline" ] && ! tail -n +"$offline" "$LOG" | grep -q 'SMP alternatives: switching to UP code'; then
	ok "offline: text stays SMP (no switch back to UP natively)"
else
	ko "offline: text stays SMP (no switch back to UP natively)" \
		"${offline:+$(tail -n +"$offline" "$LOG" | grep -m1 'switching to UP code')}${offline:-no offline line}"
fi

# The end: /init rebooted, which ends QEMU (-no-reboot).
if has '^linux-native: done' && [ "$qemu_rc" = 0 ]; then
	ok "end" "QEMU exited after $run_s s"
else
	ko "end" "QEMU exit $qemu_rc${timed_out:+ ($timed_out)}, $(grep -cE '^linux-native: done' "$LOG") done line(s)"
fi

# No report anywhere: KASAN, lockdep, BUG, WARN, oops, fault, panic.
first=$(line_of "$REPORT_RE")
if [ -z "$first" ]; then
	ok "no KASAN, lockdep, BUG, WARNING, Oops, fault or panic in the console log"
else
	ko "no KASAN, lockdep, BUG, WARNING, Oops, fault or panic in the console log" \
		"$(grep -cE "$REPORT_RE" "$LOG") line(s), the first at line $first:"
	tail -n +"$first" "$LOG" | head -n $REPORT_LINES | sed 's/^/    /'
fi

echo "test-linux-native: $(($(date +%s) - T0)) s in all"
tally_end test-linux-native
