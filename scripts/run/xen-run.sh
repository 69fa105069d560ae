#!/bin/bash
# Run smpalt scenarios on the real Xen hypervisor inside QEMU (TCG): Xen 4.17
# with Debian 12's dom0, or XEN=4.20 with Debian 13's (scripts/lib/xen-host.sh).
#
# One boot runs every requested scenario: fetch Xen and the dom0 kernel
# (scripts/build/fetch-xen.sh), build the dom0 initramfs with the guest
# kernel and the scenarios (scripts/build/mkinitramfs.sh), boot QEMU, follow
# its serial log live, then split the results that dom0 sent back between
# markers into out/xen/<timestamp>/ and print one line per scenario:
#     <scenario>: SUCCESS|SKIP|FAILURE|ERROR [reason]
#     N passed, N failed, N skipped
# Exits non-zero on any FAILURE or ERROR (a scenario that never reported is
# an ERROR); a SKIP is counted apart (make test counts it as a failure).
# QEMU runs are serialized machine-wide with flock on /tmp/smpalt-qemu.lock,
# and the QEMU (and the CPU hogs of XEN_BUSY=1) started here are always
# killed on exit, Ctrl-C and timeout included.
#
# Usage: scripts/run/xen-run.sh [-g GUEST_ELF] [-s SUITE] [-G GUEST]
#                               [-T TYPE] [scenario ...]
#   -s SUITE       which scenarios run by default, and against which guest:
#                  xen (the default): every tests/xen/*.sh, guest smpalt;
#                  linux (make test-linux): every tests/linux/*.sh and every
#                  tests/xen/*.sh whose guests include linux, guest linux
#   -G GUEST       the guest kind the scenarios run against: smpalt or
#                  linux (the patched Linux 6.1 guest); default: the suite's
#   -T TYPE        the type of every guest the scenarios create: pv (the
#                  default) or pvh (the smpalt kernel and the Linux guests
#                  boot as either); default: GUEST_TYPE
#   scenario       a tests/xen/<name>.sh or tests/linux/<name>.sh, or a
#                  scripts/dom0/demo-*.sh (make demo); by default the
#                  suite's, less the slow benchmarks, bench-*.sh, which run
#                  only when named (make bench)
# A scenario's header line "# guests: KIND..." names the guest kinds it
# applies to (none: smpalt for tests/xen/ and the demos, linux for
# tests/linux/); against any other it is not run but reported SKIP, with
# the reason. So is one whose header line "# types: TYPE..." (none: pv
# pvh) lacks this run's type. A header line "# limit: SECONDS" is the
# scenario's own time limit inside dom0 (none: XEN_SCENARIO_TIMEOUT).
# Environment:
#   XEN                   the host: 4.17 (default) or 4.20; dom0 learns it as
#                         smpalt.xen=<version> on its command line
#   GUEST_ELF             the guest kernel (or -g); none: guest scenarios SKIP
#   GUEST_TYPE            the guests' type (or -T): pv (default) or pvh; dom0
#                         learns it as smpalt.type=<type> on its command line
#   LINUX_SMPALT_DIR      the patched Linux guest (DIR/vmlinuz, DIR/initrd.gz:
#                         scripts/build/mk-linux-smpalt-domu.sh), carried by
#                         scripts/build/mkinitramfs.sh; unset with guest linux:
#                         made here from LINUX_VMLINUZ (default
#                         cache/linux/out/vmlinuz, make linux) into
#                         build/linux-smpalt-domu/
#   QEMU                  the emulator to run (default: Debian's
#                         qemu-system-x86_64; with PVH guests, the one
#                         scripts/build/build-qemu.sh builds, see below)
#   XEN_SCENARIO_TIMEOUT  seconds one scenario may take inside dom0 (300;
#                         twice that with XEN_BUSY=1)
#   XEN_RUN_TIMEOUT       hard limit for the QEMU run in seconds
#                         (default: boot allowance + the scenarios' limits)
#                         A serial line silent for longer than the running
#                         scenario's limit + 60 s ends the run earlier, as a
#                         stall: the vCPUs' registers go to stall-registers.txt.
#                         A stall before dom0 is ready (no scenario has
#                         started) boots the machine once more; the stopped
#                         boot's files are kept as serial-stopped-1.log and
#                         stall-registers-stopped-1.txt and named in the
#                         report
#   XEN_BUSY=1            a busy machine: one CPU hog per host core (nproc)
#                         runs beside QEMU from its start to its end; the
#                         scenarios' limits are doubled
#   XEN_SOAK_N            vcpu-set calls of the soak scenario (50)
#   XEN_SOAK_SEED         its seed (default: a new one, printed); its time
#                         limit grows with XEN_SOAK_N
#   XEN_OUT               results folder (default out/xen/<timestamp>)
#   XEN_DOM0_EXTRA        more dom0 kernel arguments (e.g. "quiet")
#   VERBOSE=1             echo the whole serial log live
#   KEEP_INITRD=1         keep the initramfs in the results folder
#   LIBVIRT=1             boot the dom0 image with libvirt (see below)
#   DOM0=systemd          boot the systemd dom0 image (see below);
#                         DOM0=busybox the default one, for every scenario
#   SMPALT_DEBS           the Debian packages (.deb paths): the systemd
#                         image carries them for its scenarios to install
#                         (none: those report SKIP); the busybox image
#                         holds them unpacked instead of `make install`
#   DEBIAN_DOMU_STOCK=1   with -G debian: the dom0 image also carries
#                         Debian's own kernel of the guest's disk, for the
#                         real-program benchmark's control (make bench)
#   SMPALT_TREE           a copy of the source tree the systemd image
#                         carries to /root/smpalt (make test-bench-real)
# Scenarios marked "# needs: libvirt" in their header run in a boot of
# their own, with libvirtd in dom0 (LIBVIRT=1: its own initramfs, the same
# machine), and those marked "# needs: systemd" in another, on Debian 12
# with systemd as PID 1 (DOM0=systemd: scripts/build/mkdom0-systemd.sh); the
# first boot runs the others as without them. Then the last line is the
# total of all boots.
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script xen-run 2
. "$(dirname "$0")/../lib/xen-host.sh"
QEMU=${QEMU:-} # chosen below, after the options
QEMU_LOCK=/tmp/smpalt-qemu.lock
# Machine given to Xen (verified set-up: SMAP/SMEP off and XSAVE hidden, or dom0
# crashes or corrupts under TCG; 2 CPUs).
QEMU_CPU=max,-xsave
QEMU_SMP=2
QEMU_MEM_MB=2048
XEN_CMDLINE="console=com1 com1=115200,8n1 loglvl=all guest_loglvl=all"
XEN_CMDLINE+=" dom0_mem=1024M,max:1024M smap=0 smep=0"
DOM0_CMDLINE="console=hvc0 earlyprintk=xen rdinit=/init ${XEN_DOM0_EXTRA:-}"
# Time limits in seconds, with room for a busy machine (XEN_BUSY=1 and
# other work beside QEMU can halve its speed).
XEN_SCENARIO_TIMEOUT=${XEN_SCENARIO_TIMEOUT:-300}
BOOT_ALLOWANCE=300          # QEMU start to dom0 ready, plus power-off
SCENARIO_SLACK=20           # per scenario: result upload over the console
POWEROFF_GRACE=15           # after DONE, before QEMU is killed
# dom0 reports every scenario within its limit, so a serial line that
# silent longer than the running scenario's limit (or the boot allowance)
# plus this grace means the emulated machine itself stopped.
STALL_GRACE=60
# A machine that stops before dom0 is ready has run none of our code but
# dom0's init (Xen and Debian's dom0 kernel under TCG; seen once in
# hundreds of boots): it is booted again, up to this many boots in all.
# So is one whose Xen or dom0 kernel panics before dom0 is ready (seen:
# Debian 13's 6.12 dom0 hitting its own int3 while patching its text
# under TCG), unless the panic is our init dying ("Attempted to kill
# init"). The failed boot's serial log (and registers) are kept and
# reported.
BOOT_ATTEMPTS=2
KILL_GRACE=3                # SIGTERM to SIGKILL
# The soak scenario (tests/xen/soak.sh): its calls, seed and time limit.
XEN_SOAK_N=${XEN_SOAK_N:-50}
XEN_SOAK_SEED=${XEN_SOAK_SEED:-}
SOAK_BASE_LIMIT=180         # boot, workload, counters check, upload
SOAK_STEP_LIMIT=8           # per vcpu-set call (3.6 s seen on a loaded machine)
XEN_BUSY=${XEN_BUSY:-0}
BUSY_LIMIT_FACTOR=2         # hogs on every core: QEMU gets about half
# The scenario list separator on the dom0 command line (QEMU's -initrd
# splits modules on commas, so no commas there).
TESTS_SEP=:

# The guest kinds a scenario can run against: each has a driver in the dom0
# library (scripts/dom0/lib/driver.sh).
GUEST_KINDS="smpalt linux debian"
# The guest types: every guest a scenario creates is of the run's type
# (scripts/dom0/lib/guest.sh, domain_create).
GUEST_TYPES="pv pvh"

GUEST_ELF=${GUEST_ELF:-}
SUITE=xen
GUEST_KIND=
GUEST_TYPE=${GUEST_TYPE:-pv}
scenarios=()
opt_value -g GUEST_ELF "a path"
opt_value -s SUITE "a suite (xen or linux)"
opt_value -G GUEST_KIND "a guest kind ($GUEST_KINDS)"
opt_value -T GUEST_TYPE "a guest type ($GUEST_TYPES)"
opt_rest scenarios
parse_args "$@"
case $SUITE in xen | linux) ;; *) die "unknown suite '$SUITE' (xen or linux)" ;; esac
if [ -z "$GUEST_KIND" ]; then
	GUEST_KIND=smpalt
	[ "$SUITE" != linux ] || GUEST_KIND=linux
fi
case " $GUEST_KINDS " in *" $GUEST_KIND "*) ;;
*) die "unknown guest '$GUEST_KIND' (one of: $GUEST_KINDS)" ;;
esac
case " $GUEST_TYPES " in *" $GUEST_TYPE "*) ;;
*) die "unknown guest type '$GUEST_TYPE' (one of: $GUEST_TYPES)" ;;
esac

# scenario_file NAME: the script of scenario NAME, empty when none.
scenario_file() {
	local f
	for f in "$TOP/tests/xen/$1.sh" "$TOP/tests/linux/$1.sh" \
		"$TOP/scripts/dom0/$1.sh"; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
}

# scenario_header NAME KEY: the value of scenario NAME's header line
# "# KEY: VALUE" (guests, types, config, limit), empty when it has none.
scenario_header() {
	local f
	f=$(scenario_file "$1")
	[ -n "$f" ] || return 0
	sed -n "s/^# $2: *//p" "$f" | head -1
}

# scenario_guests NAME: the guest kinds NAME applies to, from its header
# line "# guests: KIND..."; without one, its folder's guest.
scenario_guests() {
	local f g
	f=$(scenario_file "$1")
	g=$(scenario_header "$1" guests)
	if [ -n "$g" ]; then
		echo "$g"
	elif [ "$(dirname "$f")" = "$TOP/tests/linux" ]; then
		echo linux
	else
		echo smpalt
	fi
}

# applies NAME KIND: scenario NAME runs against guest KIND.
applies() {
	case " $(scenario_guests "$1") " in *" $2 "*) return 0 ;; esac
	return 1
}

# scenario_types NAME: the guest types NAME applies to, from its header
# line "# types: TYPE..."; without one, every type.
scenario_types() {
	local t
	t=$(scenario_header "$1" types)
	echo "${t:-$GUEST_TYPES}"
}

# applies_type NAME TYPE: scenario NAME runs with guests of type TYPE.
applies_type() {
	case " $(scenario_types "$1") " in *" $2 "*) return 0 ;; esac
	return 1
}

# leave_out TEST VALUE LISTER WHAT OPTION: drop from scenarios[] each
# scenario S for which "TEST S VALUE" fails, and name them on one line,
# "left out, they are for other WHAT (OPTION=...)", with what "LISTER S"
# gives for the last of them.
leave_out() {
	local i left='' need=''
	for i in "${!scenarios[@]}"; do
		"$1" "${scenarios[$i]}" "$2" && continue
		left="$left ${scenarios[$i]}" need=$("$3" "${scenarios[$i]}")
		unset "scenarios[$i]"
	done
	[ -z "$left" ] ||
		echo "xen-run: left out, they are for other $4 ($5=${need// / or $5=}):$left"
}

if [ ${#scenarios[@]} -eq 0 ]; then
	for s in "$TOP/tests/$SUITE"/*.sh; do
		[ -f "$s" ] && scenarios+=("$(basename "$s" .sh)")
	done
	if [ "$SUITE" = linux ]; then
		for s in "$TOP"/tests/xen/*.sh; do
			applies "$(basename "$s" .sh)" linux && scenarios+=("$(basename "$s" .sh)")
		done
	else
		# A scenario of tests/linux/ whose "# guests:" line names this
		# run's guest kind (the Debian guest's kernel is Linux too).
		for s in "$TOP"/tests/linux/*.sh; do
			grep -qE "^# guests:.* $GUEST_KIND( |\$)" "$s" &&
				scenarios+=("$(basename "$s" .sh)")
		done
	fi
	for i in "${!scenarios[@]}"; do
		case ${scenarios[$i]} in bench-*) unset "scenarios[$i]" ;; esac
	done
	# The scenarios that need a configuration of the Linux guest other
	# than the default ("# config: debug debian" in their header: the
	# configurations they run with) only when the guest is built with one
	# of those (make test-linux CONFIG=...); named otherwise.
	left='' need=''
	for i in "${!scenarios[@]}"; do
		cfgs=$(scenario_header "${scenarios[$i]}" config)
		[ -n "$cfgs" ] || continue
		case " $cfgs " in *" ${CONFIG:-default} "*) continue ;; esac
		left="$left ${scenarios[$i]}" need=$cfgs
		unset "scenarios[$i]"
	done
	[ -z "$left" ] ||
		echo "xen-run: left out, they need another configuration of the Linux guest (make test-linux CONFIG=${need// / or CONFIG=}):$left"
	# Likewise the scenarios for other guest kinds only ("# guests:") and
	# for other guest types only ("# types:"), named: they run with GUEST=
	# or TYPE= one of theirs.
	leave_out applies "$GUEST_KIND" scenario_guests "guest kinds" GUEST
	leave_out applies_type "$GUEST_TYPE" scenario_types "guest types" TYPE
	scenarios=("${scenarios[@]}")
fi
[ ${#scenarios[@]} -gt 0 ] || die "no scenarios (tests/$SUITE/ is empty)"
for s in "${scenarios[@]}"; do
	[[ $s =~ ^[A-Za-z0-9_-]+$ ]] || die "bad scenario name '$s'"
	[ -n "$(scenario_file "$s")" ] ||
		die "no scenario '$s' (tests/xen/$s.sh, tests/linux/$s.sh)"
	lim=$(scenario_header "$s" limit)
	[ -z "$lim" ] || [[ $lim =~ ^[1-9][0-9]*$ ]] ||
		die "scenario '$s': '# limit: $lim' is not a number of seconds"
	for g in $(scenario_guests "$s"); do
		case " $GUEST_KINDS " in *" $g "*) ;;
		*) die "scenario '$s': unknown guest '$g' in its '# guests:' line (one of: $GUEST_KINDS)" ;;
		esac
	done
	for t in $(scenario_types "$s"); do
		case " $GUEST_TYPES " in *" $t "*) ;;
		*) die "scenario '$s': unknown guest type '$t' in its '# types:' line (one of: $GUEST_TYPES)" ;;
		esac
	done
done
if [ -n "$GUEST_ELF" ]; then
	[ -f "$GUEST_ELF" ] || die "guest kernel $GUEST_ELF does not exist"
	GUEST_ELF=$(cd "$(dirname "$GUEST_ELF")" && pwd)/$(basename "$GUEST_ELF")
fi
command -v flock >/dev/null || die "flock not found"

# --- scenarios that need another dom0 image: a boot of their own for
# each image, after the boot of all the others (which stays as it would be
# without them): libvirtd in dom0, or systemd as PID 1.
needs() {
	grep -qx "# needs: $2" "$(scenario_file "$1")" 2>/dev/null
}
DOM0=${DOM0:-}
case $DOM0 in '' | busybox | systemd) ;; *) die "DOM0='$DOM0': busybox or systemd" ;; esac
if [ "${LIBVIRT:-0}" != 1 ] && [ -z "$DOM0" ]; then
	plain=() with_libvirt=() with_systemd=()
	for s in "${scenarios[@]}"; do
		if needs "$s" systemd; then
			with_systemd+=("$s")
		elif needs "$s" libvirt; then
			with_libvirt+=("$s")
		else
			plain+=("$s")
		fi
	done
	groups=0
	for g in ${#plain[@]} ${#with_libvirt[@]} ${#with_systemd[@]}; do
		[ "$g" -eq 0 ] || groups=$((groups + 1))
	done
	if [ $groups -eq 1 ] && [ ${#with_libvirt[@]} -gt 0 ]; then
		LIBVIRT=1
	elif [ $groups -eq 1 ] && [ ${#with_systemd[@]} -gt 0 ]; then
		DOM0=systemd
	elif [ $groups -gt 1 ]; then
		boots_log=$(mktemp)
		trap 'rm -f "$boots_log"' EXIT
		rc=0
		if [ ${#plain[@]} -gt 0 ]; then
			DOM0=busybox bash "$0" ${GUEST_ELF:+-g "$GUEST_ELF"} -s "$SUITE" -G "$GUEST_KIND" -T "$GUEST_TYPE" \
				"${plain[@]}" | tee "$boots_log" || rc=1
			echo
		fi
		if [ ${#with_libvirt[@]} -gt 0 ]; then
			echo "xen-run: boot with libvirt: ${with_libvirt[*]}"
			LIBVIRT=1 XEN_OUT=${XEN_OUT:+$XEN_OUT-libvirt} bash "$0" \
				${GUEST_ELF:+-g "$GUEST_ELF"} -s "$SUITE" -G "$GUEST_KIND" -T "$GUEST_TYPE" "${with_libvirt[@]}" |
				tee -a "$boots_log" || rc=1
			echo
		fi
		if [ ${#with_systemd[@]} -gt 0 ]; then
			echo "xen-run: boot of the systemd dom0: ${with_systemd[*]}"
			DOM0=systemd XEN_OUT=${XEN_OUT:+$XEN_OUT-systemd} bash "$0" \
				${GUEST_ELF:+-g "$GUEST_ELF"} -s "$SUITE" -G "$GUEST_KIND" -T "$GUEST_TYPE" "${with_systemd[@]}" |
				tee -a "$boots_log" || rc=1
			echo
		fi
		# Each boot ends with "N passed, N failed, N skipped".
		grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$boots_log" |
			awk -v boots=$groups '{ p += $1; f += $3; s += $5; n++ }
			END { if (n != boots) f++
			      printf "%d passed, %d failed, %d skipped\n", p, f, s }'
		exit $rc
	fi
fi
export LIBVIRT=${LIBVIRT:-0}
export DOM0=${DOM0:-busybox}

# --- the scenarios that do not apply to this run's guest or its type:
# SKIP, not run.
declare -A status=() reason=()
# Xen's first line about a guest's end during a scenario (a triple fault,
# a crash), by scenario: a failed scenario's reason ends with it, so that
# the result says when the (emulated) machine ended a guest.
declare -A xen_said=()
to_run=()
for s in "${scenarios[@]}"; do
	if ! applies "$s" "$GUEST_KIND"; then
		status[$s]=SKIP
		reason[$s]="for guest(s) $(scenario_guests "$s") only, this run's guest is $GUEST_KIND"
	elif ! applies_type "$s" "$GUEST_TYPE"; then
		status[$s]=SKIP
		reason[$s]="for type(s) $(scenario_types "$s") only, this run's guests are $GUEST_TYPE"
	else
		to_run+=("$s")
	fi
done
if [ ${#to_run[@]} -eq 0 ]; then
	for s in "${scenarios[@]}"; do echo "$s: ${status[$s]} ${reason[$s]}"; done
	echo "xen-run: ${#scenarios[@]} scenario(s) skipped: not run, so not passed"
	echo "0 passed, 0 failed, ${#scenarios[@]} skipped"
	exit 0
fi
[ "$LIBVIRT" != 1 ] || [ "$DOM0" != systemd ] ||
	die "LIBVIRT=1 and DOM0=systemd: no such dom0 image"
image_note=
[ "$LIBVIRT" != 1 ] || image_note=", with libvirt"

[[ $XEN_SOAK_N =~ ^[1-9][0-9]*$ ]] || die "XEN_SOAK_N='$XEN_SOAK_N': a positive integer"
[ -n "$XEN_SOAK_SEED" ] || XEN_SOAK_SEED=$(((RANDOM << 15 | RANDOM) & 0x7fffffff))
[[ $XEN_SOAK_SEED =~ ^[0-9]+$ ]] || die "XEN_SOAK_SEED='$XEN_SOAK_SEED': a non-negative integer"
case $XEN_BUSY in 0 | 1) ;; *) die "XEN_BUSY='$XEN_BUSY': 0 or 1" ;; esac
limit_factor=1
[ "$XEN_BUSY" != 1 ] || limit_factor=$BUSY_LIMIT_FACTOR
# A guest kind whose boot takes minutes, not seconds, has its boot limit
# added to every scenario's limit (each boots its guest at least once):
# the Debian guest's boot_timeout (pvgrub2, its initramfs, systemd under
# TCG), read from its driver, scripts/dom0/lib/guest-debian.sh.
kind_boot_allowance=0
if [ "$GUEST_KIND" = debian ]; then
	kind_boot_allowance=$(SMPALT_DIR=/opt/smpalt &&
		. "$TOP/scripts/dom0/lib/guest-debian.sh" && debian_param boot_timeout)
	[[ $kind_boot_allowance =~ ^[0-9]+$ ]] ||
		die "scripts/dom0/lib/guest-debian.sh: no boot_timeout"
fi
scenario_default_limit=$(((XEN_SCENARIO_TIMEOUT + kind_boot_allowance) * limit_factor))

# scenario_limit NAME: seconds NAME may take inside dom0.
scenario_limit() {
	local own
	if [ "$1" = soak ]; then
		echo $(((SOAK_BASE_LIMIT + XEN_SOAK_N * SOAK_STEP_LIMIT) * limit_factor))
		return
	fi
	own=$(scenario_header "$1" limit)
	if [ -n "$own" ]; then
		echo $(((own + kind_boot_allowance) * limit_factor))
	else
		echo "$scenario_default_limit"
	fi
}
default_timeout=$BOOT_ALLOWANCE
dom0_limits=
for s in "${to_run[@]}"; do
	limit=$(scenario_limit "$s")
	default_timeout=$((default_timeout + limit + SCENARIO_SLACK))
	[ "$limit" = "$scenario_default_limit" ] ||
		dom0_limits+=" smpalt.timeout.$s=$limit"
done
RUN_TIMEOUT=${XEN_RUN_TIMEOUT:-$default_timeout}

results_dir "$TOP/out/xen" "${XEN_OUT:-}"
RUN_DIR=$RESULTS_DIR
SERIAL=$RUN_DIR/serial.log
# QEMU's QMP socket, for the stall diagnostics (short path: sun_path limit).
QMP_SOCK=${TMPDIR:-/tmp}/smpalt-qmp-$$.sock
INITRD=$RUN_DIR/dom0-initrd.gz

T0=$(date +%s.%N)
elapsed() { awk -v t0="$T0" -v t="$(date +%s.%N)" 'BEGIN { printf "%6.1f", t - t0 }'; }
stage() { echo "[$(elapsed)s] $*"; }

# --- CPU hogs for XEN_BUSY=1: one busy loop per host core. Each also
# ends by itself once this script is gone (kill -0 on its pid each turn),
# even after a SIGKILL that no trap sees.
hog_pids=()
start_hogs() {
	local n i
	n=$(nproc)
	for ((i = 0; i < n; i++)); do
		bash -c 'while kill -0 "$1" 2>/dev/null; do :; done' hog $$ </dev/null &
		hog_pids+=($!)
	done
	stage "busy: $n CPU hog(s) beside QEMU (pids ${hog_pids[*]})"
}
stop_hogs() {
	local p left=()
	[ ${#hog_pids[@]} -gt 0 ] || return 0
	kill -KILL "${hog_pids[@]}" 2>/dev/null || true
	for p in "${hog_pids[@]}"; do
		wait "$p" 2>/dev/null || true
		! kill -0 "$p" 2>/dev/null || left+=("$p")
	done
	if [ ${#left[@]} -eq 0 ]; then
		stage "busy: ${#hog_pids[@]} CPU hog(s) stopped"
	else
		echo "xen-run: warning: CPU hog(s) still running: ${left[*]}" >&2
	fi
	hog_pids=()
}

qemu_pid=
tail_pid=
cleanup() {
	local rc=$?
	stop_hogs
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		echo "xen-run: stopping QEMU (pid $qemu_pid)" >&2
		stop_pid "$qemu_pid" "$KILL_GRACE" || true
	fi
	if [ -n "$tail_pid" ]; then
		kill "$tail_pid" 2>/dev/null || true
	fi
	rm -f "$QMP_SOCK"
	if [ "${KEEP_INITRD:-0}" != 1 ]; then
		rm -f "$INITRD"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'echo "xen-run: interrupted" >&2; exit 130' INT
trap 'echo "xen-run: terminated" >&2; exit 143' TERM

# --- 1. QEMU, Xen, tools, dom0 kernel
# PVH guests need the QEMU of scripts/build/build-qemu.sh: Debian's, with
# the fixes of patches/qemu/ to its emulation of SVM (docs/linux.md, "The
# triple fault of vCPU 0"). A run whose dom0 command line names pvh (this
# run's type, or make bench's PVH rows in XEN_DOM0_EXTRA) takes it, built
# here when missing (once: half an hour or more); the others run Debian's
# binary as it is. QEMU from the environment overrides both.
qemu_built=
if [ -z "$QEMU" ]; then
	case "smpalt.type=$GUEST_TYPE $DOM0_CMDLINE" in
	*pvh*)
		stage "qemu for PVH guests: scripts/build/build-qemu.sh"
		{ bash "$TOP/scripts/build/build-qemu.sh" 2>&1 >&3 | sed 's/^/    /' >&2; } \
			3>"$RUN_DIR/qemu-path" || die "build-qemu.sh failed"
		QEMU=$(cat "$RUN_DIR/qemu-path")
		qemu_built=$(cat "$(dirname "$QEMU")/version" 2>/dev/null || echo "$QEMU")
		stage "qemu: $qemu_built"
		;;
	*) QEMU=qemu-system-x86_64 ;;
	esac
fi
command -v "$QEMU" >/dev/null || die "$QEMU not found (run scripts/build/install-deps.sh)"

stage "fetch: scripts/build/fetch-xen.sh (Xen $XEN_VERSION, Debian $XEN_SUITE dom0)"
# Its lines show: a first fetch of XEN=4.20 debootstraps for minutes.
bash "$TOP/scripts/build/fetch-xen.sh" 2>&1 | tee "$RUN_DIR/fetch.log" | sed 's/^/    /' ||
	die "fetch-xen.sh failed (log: $RUN_DIR/fetch.log)"
cp "$XEN_CACHE/versions.txt" "$RUN_DIR/versions.txt" # Xen, dom0 kernel, QEMU
[ -z "$qemu_built" ] || sed -i "s|^qemu=.*|qemu=$qemu_built|" "$RUN_DIR/versions.txt"

# The stock Linux domU (6.1; 6.12 on XEN=4.20) for the scenarios that compare with it or scale
# it (its kernel is the dom0 kernel just fetched; well under a second); the
# libvirt and systemd boots have no use for it.
if [ -z "${LINUX_DOMU_DIR:-}" ] && [ "$LIBVIRT" != 1 ] && [ "$DOM0" != systemd ]; then
	stage "linux domU: scripts/build/mk-linux-domu.sh"
	domu_dir=$XEN_IMAGES/linux-domu
	bash "$TOP/scripts/build/mk-linux-domu.sh" -o "$domu_dir" \
		>"$RUN_DIR/linux-domu.log" 2>&1 ||
		{ cat "$RUN_DIR/linux-domu.log" >&2; die "mk-linux-domu.sh failed"; }
	export LINUX_DOMU_DIR=$domu_dir
fi

# The patched Linux guest for guest linux, unless given (make test-linux
# gives its own, or none when its kernel did not build): its busybox
# initramfs beside a copy of the kernel of `make linux`.
if [ "$GUEST_KIND" = linux ] && [ -z "${LINUX_SMPALT_DIR+set}" ] &&
	[ "$LIBVIRT" != 1 ] && [ "$DOM0" != systemd ]; then
	vmlinuz=${LINUX_VMLINUZ:-$CACHE/linux/out/vmlinuz}
	if [ -f "$vmlinuz" ]; then
		stage "linux guest: scripts/build/mk-linux-smpalt-domu.sh -k $vmlinuz"
		bash "$TOP/scripts/build/mk-linux-smpalt-domu.sh" -o "$TOP/build/linux-smpalt-domu" \
			-k "$vmlinuz" >"$RUN_DIR/linux-smpalt-domu.log" 2>&1 ||
			{ cat "$RUN_DIR/linux-smpalt-domu.log" >&2; die "mk-linux-smpalt-domu.sh failed"; }
		export LINUX_SMPALT_DIR=$TOP/build/linux-smpalt-domu
	else
		stage "linux guest: no $vmlinuz (make linux): its scenarios will fail"
	fi
fi

# The Debian guest for guest debian: its disk image (make debian-domu:
# scripts/build/mk-debian-domu.sh), which QEMU gives dom0 as /dev/vda with
# the run's writes kept apart (snapshot=on: the cached image stays as it
# was built), and its pvgrub2 images, which the dom0 image carries.
qemu_disk=()
if [ "$GUEST_KIND" = debian ] && [ "$LIBVIRT" != 1 ] && [ "$DOM0" != systemd ]; then
	# dom0 reaches the disk through virtio_blk alone: the virtio core and
	# virtio_pci must be built into its kernel (Debian 13's are).
	grep -qs '/virtio_pci\.ko$' "$XEN_ROOT"/lib/modules/*/modules.builtin ||
		die "guest debian: this host's dom0 kernel has virtio_pci as a module, which the dom0 image does not carry: use XEN=4.20"
	debian_img=$CACHE/debian-domu/disk.img
	if [ -f "$debian_img" ]; then
		stage "debian guest: $debian_img ($(cat "$CACHE/debian-domu/boot/release" 2>/dev/null))"
		export DEBIAN_DOMU_DIR=$CACHE/debian-domu/boot
		qemu_disk=(-drive "file=$debian_img,format=raw,if=virtio,snapshot=on")
	else
		stage "debian guest: no $debian_img (make debian-domu): its scenarios will fail"
	fi
fi

# --- 2. dom0 initramfs
if [ "$DOM0" = systemd ]; then
	# The first build (debootstrap) takes minutes: its lines show.
	stage "initramfs: systemd dom0 (Debian $XEN_SUITE), packages ${SMPALT_DEBS:-<none: the scenarios that install them will SKIP>}"
	SMPALT_DEBS=${SMPALT_DEBS:-} bash "$TOP/scripts/build/mkdom0-systemd.sh" -o "$INITRD" 2>&1 |
		tee "$RUN_DIR/initramfs.log" | sed 's/^/    /' ||
		die "mkdom0-systemd.sh failed"
else
	if [ "$GUEST_KIND" = linux ]; then
		stage "initramfs: patched Linux guest ${LINUX_SMPALT_DIR:-<none: its scenarios will fail>}"
	else
		stage "initramfs: guest ${GUEST_ELF:-<none: guest scenarios will SKIP>}$image_note"
	fi
	bash "$TOP/scripts/build/mkinitramfs.sh" -o "$INITRD" ${GUEST_ELF:+"$GUEST_ELF"} \
		>"$RUN_DIR/initramfs.log" 2>&1 ||
		{ cat "$RUN_DIR/initramfs.log" >&2; die "mkinitramfs.sh failed"; }
fi

# --- 3. one QEMU at a time on this machine
exec 9>"$QEMU_LOCK"
if ! flock -n 9; then
	stage "waiting for another QEMU run to finish ($QEMU_LOCK)"
	flock 9
fi

tests_arg=$(IFS=$TESTS_SEP; echo "${to_run[*]}")
dom0_args="$DOM0_CMDLINE smpalt.xen=$XEN_VERSION smpalt.tests=$tests_arg"
dom0_args+=" smpalt.guest=$GUEST_KIND smpalt.type=$GUEST_TYPE"
dom0_args+=" smpalt.timeout=$scenario_default_limit"
dom0_args+="$dom0_limits smpalt.soak.n=$XEN_SOAK_N smpalt.soak.seed=$XEN_SOAK_SEED"
case " ${to_run[*]} " in *" soak "*)
	stage "soak: seed $XEN_SOAK_SEED, $XEN_SOAK_N vcpu-set calls (repeat with N=$XEN_SOAK_N SEED=$XEN_SOAK_SEED), limit $(scenario_limit soak)s" ;;
esac
skipped_note=
[ ${#to_run[@]} -eq ${#scenarios[@]} ] ||
	skipped_note=", $((${#scenarios[@]} - ${#to_run[@]})) not for this guest or type (SKIP)"

# qmp_hmp COMMAND...: run each HMP command in the QEMU of this run through
# its QMP socket and print what it answers (the stall diagnostics).
qmp_hmp() {
	python3 - "$QMP_SOCK" "$@" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
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
for c in sys.argv[2:]:
    print("(qemu) " + c)
    r = call("human-monitor-command", **{"command-line": c})
    print(r.get("return", r.get("error")))
PY
}

# stall_allowance: seconds the serial line may stay silent now.
stall_allowance() {
	if [ $ready = 0 ]; then
		echo $((BOOT_ALLOWANCE + STALL_GRACE))
	elif [ -n "$current" ]; then
		echo $(($(scenario_limit "$current") + SCENARIO_SLACK + STALL_GRACE))
	else
		echo $((scenario_default_limit + SCENARIO_SLACK + STALL_GRACE))
	fi
}

# boot_once: one QEMU run from power-on to exit (with the CPU hogs of
# XEN_BUSY=1 beside it), its serial line followed live; sets ready,
# done_seen, timed_out, stalled, early_panic, last_line, current, fatal,
# status[], reason[], qrc, ready_s and qemu_s.
boot_once() {
	local chunk line partial rc silent last_output deadline r name rest
	: >"$SERIAL"
	status=() reason=() xen_said=()
	[ "$XEN_BUSY" != 1 ] || start_hogs
	stage "qemu start: guest $GUEST_KIND, type $GUEST_TYPE, ${#to_run[@]} scenario(s): ${to_run[*]}$skipped_note (hard limit ${RUN_TIMEOUT}s)"
	Tq=$(date +%s)
	# fd 9 (the lock) is not passed on: only this script holds it. No network
	# card: dom0 needs none, and skipping its option ROM saves boot time.
	"$QEMU" -accel tcg -cpu "$QEMU_CPU" -smp "$QEMU_SMP" -m "$QEMU_MEM_MB" \
		-nographic -no-reboot -monitor none -serial "file:$SERIAL" -net none \
		"${qemu_disk[@]}" \
		-qmp "unix:$QMP_SOCK,server=on,wait=off" \
		-kernel "$XEN_CACHE/xen" -append "$XEN_CMDLINE" \
		-initrd "$XEN_CACHE/vmlinuz $dom0_args,$INITRD" \
		</dev/null >"$RUN_DIR/qemu.log" 2>&1 9>&- &
	qemu_pid=$!
	echo "$qemu_pid" >"$RUN_DIR/qemu.pid"
	ready=0 done_seen=0 timed_out=0 stalled=0 current= fatal= last_line=
	early_panic=
	deadline=$((Tq + RUN_TIMEOUT))
	exec 8< <(exec tail -n +1 -F --pid="$qemu_pid" "$SERIAL" 2>/dev/null)
	tail_pid=$!
	partial=
	last_output=$(date +%s)
	while :; do
		if IFS= read -r -t 1 -u 8 chunk; then
			line=${partial}${chunk}
			partial=
			last_output=$(date +%s)
		else
			rc=$?
			if [ $rc -gt 128 ]; then
				# read timed out; keep any partial line for the next read
				partial+=$chunk
				if [ "$(date +%s)" -ge "$deadline" ]; then
					timed_out=1
					stage "TIMEOUT: hard limit of ${RUN_TIMEOUT}s reached, killing QEMU"
					break
				fi
				silent=$(($(date +%s) - last_output))
				if [ $done_seen = 0 ] && [ $silent -gt "$(stall_allowance)" ]; then
					stalled=$silent
					stage "STALL: no serial output for ${silent}s${current:+ during scenario $current}: the emulated machine stopped; killing QEMU"
					stage "  the last line before the silence: ${last_line:-<none>}"
					qmp_hmp "info status" "info cpus" "info registers -a" \
						>"$RUN_DIR/stall-registers.txt" 2>&1 ||
						echo "xen-run: could not query QEMU's monitor (see stall-registers.txt)" >&2
					break
				fi
				if [ $done_seen = 1 ] && [ "$(date +%s)" -ge $((done_at + POWEROFF_GRACE)) ]; then
					stage "dom0 did not power off within ${POWEROFF_GRACE}s, killing QEMU"
					break
				fi
				continue
			fi
			break # EOF: QEMU has exited and tail drained the file
		fi
		line=${line%$'\r'}
		[ -z "$line" ] || last_line=$line
		[ "${VERBOSE:-0}" != 1 ] || printf '%s\n' "$line"
		case $line in
		*"@@SMPALT READY"*)
			ready=1
			ready_s=$(($(date +%s) - Tq))
			stage "dom0 ready ${ready_s}s after QEMU start (dom0 ${line##*@@SMPALT READY })"
			;;
		*"@@SMPALT START "*)
			current=${line##*@@SMPALT START }
			current=${current%$'\r'}
			stage "scenario $current: start"
			;;
		*"@@SMPALT NOTE "*)
			stage "  ${line##*@@SMPALT NOTE }"
			;;
		*"@@SMPALT LIVE "*)
			printf '  | %s\n' "${line##*@@SMPALT LIVE }"
			;;
		*"@@SMPALT RESULT "*)
			r=${line##*@@SMPALT RESULT }
			name=${r%% *}
			rest=${r#"$name"}
			rest=${rest# }
			status[$name]=${rest%% *}
			reason[$name]=${rest#"${status[$name]}"}
			reason[$name]=${reason[$name]# }
			case ${status[$name]} in
			FAILURE | ERROR)
				[ -z "${xen_said[$name]:-}" ] ||
					reason[$name]+=" [Xen during it: ${xen_said[$name]}]"
				;;
			esac
			current=
			stage "scenario $name: ${status[$name]}${reason[$name]:+ (${reason[$name]})}"
			;;
		*"@@SMPALT FATAL "*)
			fatal=${line##*@@SMPALT FATAL }
			stage "dom0 init failed: $fatal"
			;;
		*"@@SMPALT DONE"*)
			done_seen=1
			done_at=$(date +%s)
			stage "dom0 done, powering off"
			;;
		*"@@"*) ;;
		*"(XEN) d"*" Triple fault"* | *"(XEN) Domain "*" crashed on cpu"*)
			[ -z "$current" ] || [ -n "${xen_said[$current]:-}" ] ||
				xen_said[$current]=${line#*(XEN) }
			;;
		*"(XEN) Xen version"*)
			stage "xen: ${line#*(XEN) }"
			;;
		*"Panic on CPU"* | *"Kernel panic"*)
			fatal=${line}
			case $line in
			*"Attempted to kill init"*) ;;
			*) [ "$ready" = 1 ] || early_panic=$line ;;
			esac
			stage "PANIC: $line"
			;;
		esac
	done
	exec 8<&-
	if kill -0 "$qemu_pid" 2>/dev/null; then
		kill -TERM "$qemu_pid" 2>/dev/null || true
	fi
	qrc=0
	wait "$qemu_pid" 2>/dev/null || qrc=$?
	qemu_pid=
	stop_hogs
	qemu_s=$(($(date +%s) - Tq))
	stage "qemu exited (status $qrc) after ${qemu_s}s"
	if [ -s "$RUN_DIR/qemu.log" ]; then
		echo "xen-run: QEMU said:" >&2
		tail -5 "$RUN_DIR/qemu.log" | sed 's/^/    /' >&2
	fi
}

# --- 4. boot: again if the machine stopped before dom0 was ready
# (boot_once runs outside a condition, so that set -e holds in it.)
attempt=1
stopped_boots=()
boot_once
while { [ "$stalled" != 0 ] || [ -n "$early_panic" ]; } && [ "$ready" = 0 ] &&
	[ $attempt -lt $BOOT_ATTEMPTS ]; do
	mv "$SERIAL" "$RUN_DIR/serial-stopped-$attempt.log"
	if [ -n "$early_panic" ]; then
		how="panicked: $early_panic"
		stopped_boots+=("boot $attempt (serial-stopped-$attempt.log): $how")
	else
		how="stopped"
		[ ! -f "$RUN_DIR/stall-registers.txt" ] ||
			mv "$RUN_DIR/stall-registers.txt" "$RUN_DIR/stall-registers-stopped-$attempt.txt"
		stopped_boots+=("boot $attempt (serial-stopped-$attempt.log, stall-registers-stopped-$attempt.txt; last line: ${last_line:-<none>})")
	fi
	attempt=$((attempt + 1))
	stage "the emulated machine $how before dom0 was ready, so no scenario ran: booting again (boot $attempt of at most $BOOT_ATTEMPTS)"
	boot_once
done

# --- 5. split the result blocks into files
tr -d '\r' <"$SERIAL" | awk -v dir="$RUN_DIR" '
	# Block lines are "@@NAME|text"; the prefix may follow other output
	# on the same serial line, so match it anywhere.
	match($0, /@@SMPALT BEGIN [^ ]+/) {
		name = substr($0, RSTART + 15, RLENGTH - 15)
		file = dir "/" name; printf "" > file; open_[name] = 1; next
	}
	match($0, /@@SMPALT END [^ ]+ [0-9]+ [0-9a-f]+/) {
		split(substr($0, RSTART, RLENGTH), f, " ")
		close(dir "/" f[3]); print f[3], f[4], f[5] > (dir "/.blocks"); next
	}
	match($0, /@@[A-Za-z0-9_.-]+\|/) {
		name = substr($0, RSTART + 2, RLENGTH - 3)
		if (name in open_) print substr($0, RSTART + RLENGTH) > (dir "/" name)
	}'
mangled=()
if [ -f "$RUN_DIR/.blocks" ]; then
	while read -r name lines sum; do
		f=$RUN_DIR/$name
		got_lines=$(wc -l <"$f")
		got_sum=$(md5sum "$f" | cut -d' ' -f1)
		if [ "$got_lines" != "$lines" ] || [ "$got_sum" != "$sum" ]; then
			mangled+=("$name ($got_lines/$lines lines)")
		fi
	done <"$RUN_DIR/.blocks"
	rm -f "$RUN_DIR/.blocks"
fi
[ ${#mangled[@]} -eq 0 ] ||
	echo "xen-run: warning: blocks damaged on the serial line: ${mangled[*]}"
echo "xen-run: results in $RUN_DIR"
ls "$RUN_DIR" | grep -vE '^(qemu.pid|dom0-initrd.gz)$' | sed 's/^/    /'

# --- 6. one line per scenario
if [ $timed_out = 1 ]; then
	why="hard timeout of ${RUN_TIMEOUT}s"
elif [ $stalled != 0 ]; then
	why="the emulated machine stopped: no serial output for ${stalled}s (vCPU registers in stall-registers.txt)"
elif [ -n "$fatal" ]; then
	why="$fatal"
elif [ $ready = 0 ]; then
	why="dom0 never became ready (QEMU exited with status $qrc)"
else
	why="QEMU exited (status $qrc) before the scenario reported"
fi
pass=0 failn=0 skip=0 failed_logs=()
echo
for s in "${scenarios[@]}"; do
	st=${status[$s]:-}
	rs=${reason[$s]:-}
	if [ -z "$st" ]; then
		st=ERROR
		if [ "$s" = "$current" ]; then
			rs="never reported: $why (scenario was running)"
		else
			rs="never reported: $why"
		fi
	fi
	case $st in
	SUCCESS) pass=$((pass + 1)) ;;
	SKIP) skip=$((skip + 1)) ;;
	*) failn=$((failn + 1)) ;;
	esac
	echo "$s: $st${rs:+ $rs}"
	case $st in
	FAILURE | ERROR) failed_logs+=("$s") ;;
	esac
done
for s in "${failed_logs[@]}"; do
	for f in "$RUN_DIR/$s.log" "$RUN_DIR/console-smpalt-$s.log"; do
		[ -f "$f" ] && echo "    see $f"
	done
done
for b in "${stopped_boots[@]}"; do
	echo "xen-run: the emulated machine failed before dom0 was ready and was booted again: $b"
done
echo "timings: dom0 ready after ${ready_s:-never}${ready_s:+s} from QEMU start, QEMU ran ${qemu_s}s," \
	"whole run $(elapsed | tr -d ' ')s" | tee "$RUN_DIR/timings.txt"
[ "$XEN_BUSY" != 1 ] || echo "busy machine: $(nproc) CPU hog(s) ran beside QEMU"
[ $skip -eq 0 ] || echo "xen-run: $skip scenario(s) skipped: not run, so not passed"
echo "$pass passed, $failn failed, $skip skipped"
[ $failn -eq 0 ]
