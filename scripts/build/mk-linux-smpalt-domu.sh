#!/bin/bash
# Build the busybox initramfs of the patched Linux PV domU that
# `make test-linux` tests (tests/linux/, xl-configs/linux-smpalt.cfg), and
# put it beside a copy of the patched kernel of the version KVER (6.1,
# 6.12 or 7.2; default 6.1; scripts/lib/linux-version.sh). The initramfs
# is the same for every version.
#
# The kernel itself onlines the vCPUs `xl vcpu-set` adds and publishes its
# state in xenstore (patches/linux-KVER/), so /init does no hotplug work: it
# mounts proc, sysfs, devtmpfs and debugfs, prints one console line
#     linux-smpalt: init, online <list>, present <list>
# then idles, printing
#     linux-smpalt: online <list>
# whenever /sys/devices/system/cpu/online changes, and
#     linux-smpalt: status <name>=<value> ...
# whenever the kernel's status changes (/sys/kernel/debug/smpalt, or
# /sys/kernel/smpalt: a folder of one-value files, each shown as
# name=value, or one file, its lines joined with "; "; "linux-smpalt:
# status none" when neither exists). Both polled every POLL_SEC seconds
# with shell builtins and one sleep, so that /init costs the guest little.
# With smpalt.work=CS on the kernel command line /init also starts the
# benchmark's lock-heavy loop, scripts/domu/work.sh (/bin/smpalt-work:
# rounds of CS centiseconds, one console line each), pinned to cpu 0
# (tests/xen/bench-linux-smpalt.sh).
#
# Usage: [KVER=...] [CONFIG=...] scripts/build/mk-linux-smpalt-domu.sh [-o DIR]
#        [-k VMLINUZ]
#   DIR      default cache/linux-smpalt-domu (6.1), else
#            cache/linux-KVER/smpalt-domu; with CONFIG=debug the same
#            followed by -debug
#   VMLINUZ  the patched kernel, default cache/linux/out/vmlinuz (6.1), else
#            cache/linux-KVER/out/vmlinuz (make linux KVER=...); with
#            CONFIG=debug that configuration's (cache/linux/debug/out/...)
# Writes DIR/initrd.gz, DIR/vmlinuz (a copy of VMLINUZ) and DIR/config (a
# copy of the kernel's configuration, VMLINUZ's folder's config, which the
# scenarios read to know which configuration they run on), and for a
# configuration whose kernel needs more than the xl config's memory
# (CONFIG=debian) DIR/memory, the MiB the guest is created with; the dom0
# initramfs carries them when LINUX_SMPALT_DIR=DIR is set for
# scripts/build/mkinitramfs.sh. The .ko files in VMLINUZ's folder's modules/
# (make linux CONFIG=debug: the test modules of tests/linux/modules/) go
# to /lib/smpalt-modules/ in the initramfs. Needs scripts/build/fetch-xen.sh to
# have run (busybox) and gcc with a static libc (/bin/smpalt-xs).
#
# With linux-smpalt.steps on the kernel command line /init carries out
# steps a scenario asks for (tests/linux/README.md, linux_step): once a
# second it reads control/smpalt-step ("<n> <command>", with
# /bin/smpalt-xs, scripts/domu/xs.c), and for each new n runs the command
# with sh -c, prints
#     linux-smpalt: step <n> rc=<status>: <command>: <output>
# (the output's lines joined with "; ") and answers in data/smpalt-step
# "<n> <status> <output>" (the output cut to STEP_OUT_MAX characters).
#
# With linux-smpalt.sysfs_offline=N on the kernel command line /init plays
# the guest's admin once: the first time cpuN is online it writes 0 to
# /sys/devices/system/cpu/cpuN/online and prints
#     linux-smpalt: cpuN offline by sysfs (<status>)
# (tests/linux/linux-sysfs-offline.sh). /sbin/poweroff powers the guest off
# at once (busybox poweroff -f), for the kernel's orderly power-off on
# `xl shutdown`.
#
# With linux-smpalt.profile=NAME:SECONDS:LOOPS[,...] on the kernel command
# line (make demo GUEST=linux) the guest's /init also runs that profile
# from boot: per phase, LOOPS shell loops that only spin, for SECONDS,
# printing
#     linux-smpalt: phase <name> (<s> s, <loops> loops) at <uptime>
# and at the end "linux-smpalt: profile done after <n> s" (a bad profile:
# "linux-smpalt: profile ignored (...): why", and nothing runs).
#
# With linux-smpalt.hotplug-fail=CPU:STATE[,CPU:STATE...] on the kernel
# command line (tests/linux/linux-failed-bringup.sh; STATE a name in
# /sys/devices/system/cpu/hotplug/states such as cpu:bringup, the kernel
# built with CONFIG_CPU_HOTPLUG_STATE_CONTROL) /init injects CPU hotplug
# failures, one entry at a time: once cpu CPU is online (the toolstack
# added it), it takes it offline, writes STATE's number to
# /sys/devices/system/cpu/cpuCPU/hotplug/fail and onlines the cpu again,
# printing
#     linux-smpalt: hotplug-fail cpu<CPU> <STATE> (<n>): online failed|succeeded, online <list>, fail <value>
# (or "...: cannot <what>"); the next entry waits until the cpu has been
# removed (its sysfs folder gone: xl vcpu-set took it away), printing
# "linux-smpalt: hotplug-fail cpu<CPU> removed"; after the last one,
# "linux-smpalt: hotplug-fail done".
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script mk-linux-smpalt-domu
. "$TOP/scripts/lib/initramfs.sh"

. "$TOP/scripts/lib/linux-version.sh"
out=$LINUX_DOMU_SMPALT
vmlinuz=$LINUX_VMLINUZ
opt_value -o out "a folder"
opt_value -k vmlinuz "a kernel image"
parse_args "$@"

kdir=$(dirname "$vmlinuz")
[ -f "$vmlinuz" ] || die "$vmlinuz missing: run make linux KVER=$KVER first"

stage=$(mktemp -d "${TMPDIR:-/tmp}/smpalt-linux-smpalt-domu.XXXXXX")
trap 'rm -rf "$stage"' EXIT
initramfs_busybox "$stage"
install -m 0755 "$TOP/scripts/domu/work.sh" "$stage/bin/smpalt-work"
# The kernel runs /sbin/poweroff on xl shutdown; no init to signal here.
mkdir -p "$stage/sbin"
printf '#!/bin/sh\nexec /bin/busybox poweroff -f\n' >"$stage/sbin/poweroff"
chmod 0755 "$stage/sbin/poweroff"
# The guest's xenstore client, for linux-smpalt.steps.
gcc -static -O2 -Wall -Wextra -Werror -o "$stage/bin/smpalt-xs" "$TOP/scripts/domu/xs.c" ||
	die "cannot build $TOP/scripts/domu/xs.c (gcc, static libc)"
strip "$stage/bin/smpalt-xs"
# The kernel's test modules, if it has any (make linux CONFIG=debug).
modules=$(compgen -G "$kdir/modules/*.ko" || true)
if [ -n "$modules" ]; then
	mkdir -p "$stage/lib/smpalt-modules"
	# shellcheck disable=SC2086 # one path a word (no blanks in them)
	cp $modules "$stage/lib/smpalt-modules/"
fi

cat >"$stage/init" <<'INIT'
#!/bin/busybox sh
# PID 1 of the patched Linux domU (made by scripts/build/mk-linux-smpalt-domu.sh):
# the kernel does the hotplug work; this only shows it on the console.
POLL_SEC=2
CPU_SYS=/sys/devices/system/cpu
DEBUGFS=/sys/kernel/debug
STATUS_PLACES="$DEBUGFS/smpalt /sys/kernel/smpalt"

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs $DEBUGFS ||
	echo "linux-smpalt: cannot mount debugfs on $DEBUGFS"
# tracefs, for the function tracer (kernels with tracing only).
[ ! -d /sys/kernel/tracing ] || mount -t tracefs tracefs /sys/kernel/tracing ||
	echo "linux-smpalt: cannot mount tracefs on /sys/kernel/tracing"

# read_status: STATUS becomes the kernel's status as one line.
read_status() {
	local place f v
	STATUS=none
	for place in $STATUS_PLACES; do
		if [ -d "$place" ]; then
			STATUS=
			for f in "$place"/*; do
				[ -f "$f" ] || continue
				v=
				read -r v <"$f"
				STATUS="$STATUS${STATUS:+ }${f##*/}=$v"
			done
			return
		elif [ -f "$place" ]; then
			STATUS=
			while read -r v; do
				STATUS="$STATUS${STATUS:+; }$v"
			done <"$place"
			return
		fi
	done
}

# --- a phased busy-loop profile (make demo GUEST=linux): only with
# linux-smpalt.profile=NAME:SECONDS:LOOPS[,NAME:SECONDS:LOOPS...] on the
# kernel command line. Each phase runs LOOPS shell loops that only spin
# (builtins, no fork: each keeps one vCPU busy) for SECONDS, then stops
# them; one console line per phase and one at the end.
PROFILE_ARG=linux-smpalt.profile
PROFILE_PHASES_MAX=16
PROFILE_SECONDS_MAX=3600
PROFILE_LOOPS_MAX=32

# profile_check TEXT: 0 if TEXT is a valid profile; else prints why.
profile_check() {
	local phase n=0 name rest secs loops
	for phase in $(echo "$1" | tr ',' ' '); do
		n=$((n + 1))
		# Exactly three fields: after two colons, no third one.
		case ${phase#*:*:} in *:* | "$phase")
			echo "phase $n '$phase': not NAME:SECONDS:LOOPS"
			return 1 ;;
		esac
		name=${phase%%:*} rest=${phase#*:}
		secs=${rest%%:*} loops=${rest#*:}
		case $name in '' | *[!A-Za-z0-9_-]*)
			echo "phase $n '$phase': name not 1+ of A-Z a-z 0-9 _ -"
			return 1 ;;
		esac
		case $secs in '' | *[!0-9]*)
			echo "phase $n '$phase': seconds not a number"
			return 1 ;;
		esac
		case $loops in '' | *[!0-9]*)
			echo "phase $n '$phase': loops not a number"
			return 1 ;;
		esac
		[ "$secs" -ge 1 ] && [ "$secs" -le $PROFILE_SECONDS_MAX ] || {
			echo "phase $n '$phase': seconds out of range 1..$PROFILE_SECONDS_MAX"
			return 1
		}
		[ "$loops" -le $PROFILE_LOOPS_MAX ] || {
			echo "phase $n '$phase': loops out of range 0..$PROFILE_LOOPS_MAX"
			return 1
		}
	done
	[ $n -ge 1 ] && [ $n -le $PROFILE_PHASES_MAX ] || {
		echo "$n phases, wanted 1..$PROFILE_PHASES_MAX"
		return 1
	}
}

# profile_run TEXT: run a checked profile's phases in order.
profile_run() {
	local phase name rest secs loops pids i t0 up
	read -r t0 _ </proc/uptime
	echo "linux-smpalt: profile started: $1"
	for phase in $(echo "$1" | tr ',' ' '); do
		name=${phase%%:*} rest=${phase#*:}
		secs=${rest%%:*} loops=${rest#*:}
		read -r up _ </proc/uptime
		echo "linux-smpalt: phase $name ($secs s, $loops loops) at $up"
		pids= i=0
		while [ $i -lt "$loops" ]; do
			(while :; do :; done) &
			pids="$pids $!"
			i=$((i + 1))
		done
		sleep "$secs"
		[ -z "$pids" ] || kill $pids
	done
	read -r up _ </proc/uptime
	echo "linux-smpalt: profile done after $((${up%.*} - ${t0%.*})) s"
}

# --- CPU hotplug fault injection: only with
# linux-smpalt.hotplug-fail=CPU:STATE[,...] on the kernel command line.
HPFAIL_ARG=linux-smpalt.hotplug-fail
hpfail= hpfail_gone=

# hpfail_step: one poll of the fault injection (see the header).
hpfail_step() {
	local e cpu name dir v n st num=
	if [ -n "$hpfail_gone" ]; then
		[ ! -d "$CPU_SYS/cpu$hpfail_gone" ] || return 0
		echo "linux-smpalt: hotplug-fail cpu$hpfail_gone removed"
		hpfail_gone=
		[ -n "$hpfail" ] || echo "linux-smpalt: hotplug-fail done"
	fi
	[ -n "$hpfail" ] || return 0
	e=${hpfail%%,*} cpu=${hpfail%%:*}
	name=${e#*:} dir=$CPU_SYS/cpu$cpu
	v=
	[ ! -f "$dir/online" ] || read -r v <"$dir/online"
	[ "$v" = 1 ] || return 0
	case $hpfail in *,*) hpfail=${hpfail#*,} ;; *) hpfail= ;; esac
	hpfail_gone=$cpu
	while read -r n st; do
		[ "$st" != "$name" ] || num=${n%:}
	done <$CPU_SYS/hotplug/states
	e="linux-smpalt: hotplug-fail cpu$cpu $name"
	[ -n "$num" ] || { echo "$e: cannot find it in $CPU_SYS/hotplug/states"; return 0; }
	echo 0 2>/dev/null >"$dir/online" || { echo "$e: cannot offline cpu$cpu"; return 0; }
	read -r st <"$dir/hotplug/state"
	v=$( (echo "$num" >"$dir/hotplug/fail") 2>&1) ||
		{ echo "$e: cannot write $num to $dir/hotplug/fail (cpu$cpu state $st): $v"; return 0; }
	if echo 1 2>/dev/null >"$dir/online"; then v=succeeded; else v=failed; fi
	read -r n <$CPU_SYS/online
	read -r st <"$dir/hotplug/fail"
	echo "$e ($num): online $v, online $n, fail $st"
}

# --- steps a scenario asks for: only with linux-smpalt.steps on the
# kernel command line (see scripts/build/mk-linux-smpalt-domu.sh).
STEP_KEY=control/smpalt-step
STEP_ANSWER_KEY=data/smpalt-step
STEP_OUT_MAX=400

# step_loop: poll STEP_KEY once a second, run each new step, answer it.
step_loop() {
	local v n cmd out rc last=
	while :; do
		sleep 1
		v=$(smpalt-xs read $STEP_KEY 2>/dev/null) || continue
		n=${v%% *} cmd=${v#* }
		[ "$n" != "$last" ] || continue
		last=$n
		case $n in '' | *[!0-9]*)
			echo "linux-smpalt: step ignored: '$v' (not '<n> <command>')"
			continue ;;
		esac
		out=$(sh -c "$cmd" 2>&1 </dev/null)
		rc=$?
		out=$(printf '%s\n' "$out" |
			while IFS= read -r v; do printf '%s; ' "$v"; done)
		out=${out%; }
		echo "linux-smpalt: step $n rc=$rc: $cmd: $out"
		out=$(printf '%s\n' "$out" | cut -c1-$STEP_OUT_MAX)
		smpalt-xs write $STEP_ANSWER_KEY "$n $rc $out" ||
			echo "linux-smpalt: step $n: cannot write $STEP_ANSWER_KEY"
	done
}

profile= work= sysfs_offline= steps=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	linux-smpalt.steps) steps=1 ;;
	"$PROFILE_ARG="*) profile=${arg#*=} ;;
	"$HPFAIL_ARG="*) hpfail=${arg#*=} ;;
	smpalt.work=*) work=${arg#*=} ;;
	linux-smpalt.sysfs_offline=*) sysfs_offline=${arg#*=} ;;
	esac
done
if [ -n "$profile" ]; then
	if why=$(profile_check "$profile"); then
		profile_run "$profile" &
	else
		echo "linux-smpalt: profile ignored ($PROFILE_ARG=$profile): $why"
	fi
fi

read -r online <$CPU_SYS/online
read -r present <$CPU_SYS/present
echo "linux-smpalt: init, online $online, present $present"
# The benchmark's lock-heavy loop, on cpu 0 only (scripts/domu/work.sh).
[ -z "$work" ] || taskset 1 /bin/smpalt-work "$work" &
[ -z "$steps" ] || step_loop &
last_online=$online
last_status=
while :; do
	# The admin's offline of linux-smpalt.sysfs_offline=N, once.
	if [ -n "$sysfs_offline" ] &&
		read -r v 2>/dev/null <"$CPU_SYS/cpu$sysfs_offline/online" &&
		[ "$v" = 1 ]; then
		if echo 0 >"$CPU_SYS/cpu$sysfs_offline/online"; then
			echo "linux-smpalt: cpu$sysfs_offline offline by sysfs (ok)"
		else
			echo "linux-smpalt: cpu$sysfs_offline offline by sysfs (failed)"
		fi
		sysfs_offline=
	fi
	read -r online <$CPU_SYS/online
	if [ "$online" != "$last_online" ]; then
		echo "linux-smpalt: online $online"
		last_online=$online
	fi
	hpfail_step
	read_status
	if [ "$STATUS" != "$last_status" ]; then
		echo "linux-smpalt: status $STATUS"
		last_status=$STATUS
	fi
	sleep $POLL_SEC
done
INIT
chmod 0755 "$stage/init"

initramfs_pack "$stage" "$out/initrd.gz"
cp "$vmlinuz" "$out/vmlinuz.tmp"
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
rm -f "$out/config" "$out/memory"
[ ! -f "$kdir/config" ] || cp "$kdir/config" "$out/config"
[ -z "$LINUX_GUEST_MEMORY" ] || echo "$LINUX_GUEST_MEMORY" >"$out/memory"
echo "mk-linux-smpalt-domu: $out/initrd.gz ($(du -h "$out/initrd.gz" | cut -f1))," \
	"kernel $vmlinuz ($(du -h "$out/vmlinuz" | cut -f1))${modules:+, modules: $(for m in $modules; do basename "$m"; done | paste -sd' ')}"
