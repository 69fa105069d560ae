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
#   3. one boot in QEMU (TCG, q35, -smp 1,maxcpus=2: one CPU present, a
#      second possible, ACPI CPU hotplug): the kernel patches its text to
#      UP at boot ("SMP alternatives: core kernel: N lock sites, 0 holding
#      neither prefix"); once /init waits for it, a second CPU is hot-added
#      through QMP (device_add of the free slot query-hotpluggable-cpus
#      lists), /init onlines it (the text switches to SMP: "SMP
#      alternatives: switching to SMP code"), runs a process on it, and
#      offlines it again, then powers off;
#   4. the console log: each step's expected state, and no report of any
#      kind: no KASAN report, no lockdep splat, no BUG, Oops, WARNING,
#      general protection fault or panic.
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
# (out/linux-native/latest): console.log, qmp.log, make-linux.log.
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
# One CPU present, a second that QEMU can hot-add. q35 has the ACPI CPU
# hotplug registers and GPE; qemu64 is TCG's plain x86-64 CPU.
QEMU_MACHINE=q35
QEMU_CPU=qemu64
QEMU_SMP=1,maxcpus=2
# KASAN takes an eighth of it for its shadow.
QEMU_MEM_MB=512
HOTPLUG_ID=cpu1
# panic=-1 with QEMU's -no-reboot: a panic ends the run at once.
KERNEL_CMDLINE="console=ttyS0,115200 earlyprintk=serial,ttyS0,115200 panic=-1 rdinit=/init"
# Time limits in seconds, overall only: TCG with KASAN and lockdep is
# slow, and other work on the machine can halve QEMU's speed.
BOOT_LIMIT=900              # QEMU start to /init's "waiting" line
RUN_LIMIT=1500              # QEMU start to its exit
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
# Lines of a failing step's output shown here (the whole of it is in the
# results folder), and of the console after the first report.
SHOW_LINES=30
REPORT_LINES=40

results_dir "$TOP/out/linux-native"
RUN_DIR=$RESULTS_DIR
CONSOLE=$RUN_DIR/console.log
T0=$(date +%s)
echo "test-linux-native: Linux $KVER (patches/linux-$KVER), configuration native, results in $RUN_DIR"

# show LOG: the end of a failing step's log, indented.
show() {
	tail -n $SHOW_LINES "$1" | sed 's/^/    /'
	echo "    (whole log: $1)"
}

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
	XEN=4.17 bash "$TOP/scripts/build/fetch-xen.sh" >"$RUN_DIR/fetch-xen.log" 2>&1 ||
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
# QEMU's QMP socket (short path: sun_path limit).
QMP_SOCK=${TMPDIR:-/tmp}/smpalt-native-qmp-$$.sock
qemu_pid=
cleanup() {
	local rc=$?
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		echo "test-linux-native: stopping QEMU (pid $qemu_pid)" >&2
		kill -TERM "$qemu_pid" 2>/dev/null || true
		for _ in $(seq $((KILL_GRACE * 10))); do
			kill -0 "$qemu_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$qemu_pid" 2>/dev/null || true
	fi
	rm -f "$QMP_SOCK"
	exit $rc
}
trap cleanup EXIT
trap 'echo "test-linux-native: interrupted" >&2; exit 130' INT
trap 'echo "test-linux-native: terminated" >&2; exit 143' TERM

# qmp_hotplug_cpu ID: hot-add a CPU with id ID in the free slot that
# query-hotpluggable-cpus lists (its type and socket/core/thread ids),
# printing the slots and the device_add; status 1 if QEMU refuses it.
qmp_hotplug_cpu() {
	python3 - "$QMP_SOCK" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(60)
s.connect(sys.argv[1])
f = s.makefile("rw")
def call(cmd, **args):
    f.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            return r
json.loads(f.readline())  # the greeting
call("qmp_capabilities")
slots = call("query-hotpluggable-cpus").get("return", [])
print("query-hotpluggable-cpus: " + json.dumps(slots))
free = [c for c in slots if "qom-path" not in c]
if not free:
    print("no free CPU slot")
    sys.exit(1)
args = dict(free[0]["props"], driver=free[0]["type"], id=sys.argv[2])
print("device_add " + json.dumps(args))
r = call("device_add", **args)
print(json.dumps(r))
sys.exit(0 if "return" in r else 1)
PY
}

exec 9>"$QEMU_LOCK"
if ! flock -n 9; then
	echo "test-linux-native: waiting for another QEMU run to finish ($QEMU_LOCK)"
	flock 9
fi
: >"$CONSOLE"
echo "test-linux-native: qemu start: $QEMU_MACHINE, -cpu $QEMU_CPU -smp $QEMU_SMP -m $QEMU_MEM_MB (limits: ${BOOT_LIMIT} s to /init, ${RUN_LIMIT} s in all)"
Tq=$(date +%s)
# fd 9 (the lock) is not passed on: only this script holds it.
"$QEMU" -machine "$QEMU_MACHINE" -accel tcg -cpu "$QEMU_CPU" -smp "$QEMU_SMP" \
	-m "$QEMU_MEM_MB" -nographic -no-reboot -monitor none -net none \
	-serial "file:$CONSOLE" -qmp "unix:$QMP_SOCK,server=on,wait=off" \
	-kernel "$kernel" -initrd "$initrd" -append "$KERNEL_CMDLINE" \
	</dev/null >"$RUN_DIR/qemu.log" 2>&1 9>&- &
qemu_pid=$!

# running: QEMU has not exited.
running() { kill -0 "$qemu_pid" 2>/dev/null; }
waiting_s= hotplug= timed_out=
while running && [ -z "$waiting_s" ]; do
	if grep -q '^linux-native: waiting for cpu1' "$CONSOLE"; then
		waiting_s=$(($(date +%s) - Tq))
	elif [ $(($(date +%s) - Tq)) -ge $BOOT_LIMIT ]; then
		timed_out="no /init within $BOOT_LIMIT s"
		break
	else
		sleep 1
	fi
done
if [ -n "$waiting_s" ]; then
	echo "test-linux-native: /init waits after $waiting_s s; hot-adding $HOTPLUG_ID"
	if qmp_hotplug_cpu "$HOTPLUG_ID" >"$RUN_DIR/qmp.log" 2>&1; then
		hotplug=ok
	else
		hotplug=failed
	fi
	sed 's/^/    /' "$RUN_DIR/qmp.log"
fi
while running && [ -z "$timed_out" ]; do
	if [ $(($(date +%s) - Tq)) -ge $RUN_LIMIT ]; then
		timed_out="still running after $RUN_LIMIT s"
	else
		sleep 1
	fi
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

# Boot: one CPU online and present of two possible, the text UP.
if has '^linux-native: boot, online 0, present 0, possible 0-1$'; then
	ok "boot: one CPU online and present, two possible"
else
	ko "boot: one CPU online and present, two possible" \
		"$(grep -E '^linux-native: boot' "$LOG" || echo "no /init line")"
fi
up=$(grep -E 'SMP alternatives: core kernel: [0-9]+ lock sites' "$LOG" | head -1)
if [[ $up =~ core\ kernel:\ ([1-9][0-9]*)\ lock\ sites,\ 0\ holding\ neither\ prefix ]]; then
	ok "boot: text patched to UP" "${BASH_REMATCH[1]} lock sites, 0 holding neither prefix"
else
	ko "boot: text patched to UP" "${up:-no 'SMP alternatives: core kernel' line}"
fi

# Hot-add and online: the text switches to SMP on the way up.
present=$(line_of '^linux-native: cpu1 present')
online=$(line_of '^linux-native: cpu1 online')
offline=$(line_of '^linux-native: cpu1 offline')
smp=$(line_of 'SMP alternatives: switching to SMP code')
if [ "$hotplug" = ok ] && [ -n "$present" ]; then
	ok "hot-add: QEMU adds $HOTPLUG_ID, the kernel sees it" "$(sed -n "${present}p" "$LOG")"
else
	ko "hot-add: QEMU adds $HOTPLUG_ID, the kernel sees it" \
		"device_add ${hotplug:-not sent}, $(grep -E '^linux-native: cpu1 never' "$LOG" || echo "no 'cpu1 present' line")"
fi
if has '^linux-native: cpu1 online ok, online 0-1$' &&
	[ -n "$smp" ] && [ -n "$present" ] && [ "$smp" -gt "$present" ] && [ "$smp" -lt "$online" ]; then
	ok "online: both CPUs online, text switched to SMP on the way"
else
	ko "online: both CPUs online, text switched to SMP on the way" \
		"$(grep -E '^linux-native: cpu1 online' "$LOG" || echo "no online line"); switching to SMP code at line ${smp:-none} (cpu1 present ${present:-none}, online ${online:-none})"
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

# The end: /init powered the machine off.
if has '^linux-native: done' && [ "$qemu_rc" = 0 ]; then
	ok "power-off" "after $run_s s"
else
	ko "power-off" "QEMU exit $qemu_rc${timed_out:+ ($timed_out)}, $(grep -cE '^linux-native: done' "$LOG") done line(s)"
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
