#!/bin/bash
# Build the tiny initramfs of the stock Linux PV domU (xl-configs/linux.cfg):
# the control of the patched guest (tests/linux/linux-stock.sh,
# tests/xen/bench-linux-vcpu.sh) and the busy guest of the autoscaler's
# Linux scenario (tests/xen/autoscale-linux.sh).
#
# The domU runs a kernel without the series (-k: the stock control built
# from the patched guest's tree and configuration, or by default the dom0
# kernel image, Debian's 6.1 or 6.12) with this initramfs: busybox (static, from the unpacked busybox-static package)
# and an /init that mounts proc, sysfs and devtmpfs, then prints one console
# line
#     linux-bench: online <list> at <uptime>
# at start and whenever /sys/devices/system/cpu/online changes (polled every
# POLL_USEC), and "linux-bench: present <list> at <uptime>" likewise.
# With linux-bench.onliner=1 on the kernel command line it also runs the
# loop Linux users need today: every POLL_USEC, write 1 to
# /sys/devices/system/cpu/cpuN/online of every present cpu that is offline
# (a cpuN folder exists only while the cpu is present: Xen's vCPU hotplug
# unregisters a cpu it takes away).
# With linux-bench.busy=SECONDS (and linux-bench.busy-loops=N, default 4)
# it runs N shell busy loops from the start for SECONDS, for an autoscaler
# to see in Xen's CPU accounting (tests/xen/autoscale-linux.sh), between
# the console lines "linux-bench: busy N loops for SECONDS s at <uptime>"
# and "linux-bench: busy done at <uptime>". linux-bench.poll-usec=USEC
# replaces POLL_USEC (each poll forks usleep: under TCG the default costs
# a good part of a vCPU, which an autoscaler on Xen's accounting sees).
# With smpalt.work=CS it also runs the benchmark's lock-heavy loop,
# scripts/domu/work.sh (/bin/smpalt-work: rounds of CS centiseconds, one
# console line each), pinned to cpu 0 (tests/xen/bench-linux-smpalt.sh).
#
# Usage: scripts/build/mk-linux-domu.sh [-o DIR] [-k VMLINUZ]
#   DIR      default cache/linux-domu
#   VMLINUZ  the kernel: default the dom0 kernel image (cache/xen/vmlinuz);
#            the stock control of the series (make linux STOCK=1: the same
#            tree and configuration as the patched guest, without the
#            series) for the comparisons with the patched guest
# Writes DIR/initrd.gz and links DIR/vmlinuz to VMLINUZ; the dom0
# initramfs carries both when LINUX_DOMU_DIR=DIR is set for
# scripts/build/mkinitramfs.sh. Needs scripts/build/fetch-xen.sh to have run.
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script mk-linux-domu
# XEN=4.20: the 6.12 kernel and busybox of cache/xen-4.20/ (scripts/lib/xen-host.sh).
. "$(dirname "$0")/../lib/xen-host.sh"
BUSYBOX=$XEN_ROOT/bin/busybox
VMLINUZ=$XEN_CACHE/vmlinuz

out=$XEN_IMAGES/linux-domu
opt_value -o out "a folder"
opt_value -k VMLINUZ "a kernel image"
parse_args "$@"

[ -x "$BUSYBOX" ] || die "$BUSYBOX missing: run scripts/build/fetch-xen.sh first"
[ -e "$VMLINUZ" ] || die "$VMLINUZ missing: run scripts/build/fetch-xen.sh first"
for t in cpio gzip; do
	command -v $t >/dev/null || die "$t not found (scripts/build/install-deps.sh)"
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/smpalt-linux-domu.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,proc,sys,dev}
cp "$BUSYBOX" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
install -m 0755 "$TOP/scripts/domu/work.sh" "$stage/bin/smpalt-work"

# The domU's /init (busybox ash). Everything in the loops is a shell
# builtin except usleep, so that polling costs little of the one vCPU.
cat >"$stage/init" <<'EOF'
#!/bin/busybox sh
# PID 1 of the stock-Linux bench domU (made by scripts/build/mk-linux-domu.sh).
POLL_USEC=50000
CPU_SYS=/sys/devices/system/cpu

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

onliner=0
busy=0
work_cs=
busy_loops=4
read -r cmdline </proc/cmdline
case " $cmdline " in
*" linux-bench.onliner=1 "*) onliner=1 ;;
esac
for arg in $cmdline; do
	case $arg in
	linux-bench.busy=*) busy=${arg#*=} ;;
	linux-bench.busy-loops=*) busy_loops=${arg#*=} ;;
	linux-bench.poll-usec=*) POLL_USEC=${arg#*=} ;;
	smpalt.work=*) work_cs=${arg#*=} ;;
	esac
done

# User-space onlining, as a udev rule or a script must do on stock Linux:
# every present cpu (its cpuN folder exists) that is offline is onlined.
online_added_cpus() {
	local f v
	while :; do
		for f in $CPU_SYS/cpu[0-9]*/online; do
			[ -f "$f" ] || continue
			read -r v 2>/dev/null <"$f" || continue
			# stderr first: a cpu taken away meanwhile makes the open fail,
			# and its message must not break a line on the console
			[ "$v" = 0 ] && echo 1 2>/dev/null >"$f"
		done
		usleep $POLL_USEC
	done
}

echo "linux-bench: init, onliner=$onliner, present $(cat $CPU_SYS/present)"
[ "$onliner" = 1 ] && online_added_cpus &

# A busy phase: shell loops that only spin (builtins, no fork), as many as
# asked, so that every vCPU the domain gets is kept busy; then they stop.
busy_phase() {
	local i pids=
	read -r up _ </proc/uptime
	echo "linux-bench: busy $busy_loops loops for $busy s at $up"
	i=0
	while [ $i -lt "$busy_loops" ]; do
		(while :; do :; done) &
		pids="$pids $!"
		i=$((i + 1))
	done
	sleep "$busy"
	kill $pids
	read -r up _ </proc/uptime
	echo "linux-bench: busy done at $up"
}
[ "$busy" -gt 0 ] 2>/dev/null && busy_phase &
# The benchmark's lock-heavy loop, on cpu 0 only (scripts/domu/work.sh).
[ -z "$work_cs" ] || taskset 1 /bin/smpalt-work "$work_cs" &

# The present list too, to show a cpu that the kernel added but left
# offline.
last=
last_present=
while :; do
	read -r cur <$CPU_SYS/online
	read -r present <$CPU_SYS/present
	if [ "$cur" != "$last" ] || [ "$present" != "$last_present" ]; then
		read -r up _ </proc/uptime
		[ "$present" = "$last_present" ] ||
			echo "linux-bench: present $present at $up"
		[ "$cur" = "$last" ] || echo "linux-bench: online $cur at $up"
		last=$cur
		last_present=$present
	fi
	usleep $POLL_USEC
done
EOF
chmod 0755 "$stage/init"

mkdir -p "$out"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet -R 0:0) | gzip -9 >"$out/initrd.gz.tmp"
mv "$out/initrd.gz.tmp" "$out/initrd.gz"
ln -sfn "$(readlink -f "$VMLINUZ")" "$out/vmlinuz"
echo "mk-linux-domu: $out/initrd.gz ($(du -h "$out/initrd.gz" | cut -f1))," \
	"kernel $(basename "$(readlink -f "$VMLINUZ")")"
