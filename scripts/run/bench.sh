#!/bin/bash
# make bench: every benchmark in one go, results in results/<timestamp>/.
#
#   1. one Xen boot (scripts/run/xen-run.sh) running these scenarios:
#        bench-locks       the guest's in-guest benchmark, one vCPU: each
#                          lock primitive and the lock-heavy work item in
#                          SMP and in UP form, figures checked plausible;
#                          one guest of each of TYPES in turn
#        bench-vcpu        smpalt: ROUNDS rounds of xl vcpu-set 2 1 4 1,
#                          latency as seen from dom0 and in-guest switch ns
#        bench-dom0-weight the time of xl vcpu-set with the guest idle and
#                          busy on all its vCPUs, at Xen's default dom0
#                          weight and at the harness's
#        bench-linux-vcpu  stock Linux PV domU (the stock control of the
#                          first version, make linux STOCK=1), same steps,
#                          kernel alone and with user-space onlining
#        bench-linux-smpalt  each entry of KVERS, a Linux version with its
#                          series (make linux KVER=...) as a PV or a PVH
#                          guest: the same steps and more, the guest's
#                          reaction time, switch cost against a CPU
#                          offline; with the first entry of each guest
#                          type, a fork loop in UP and SMP code; the same
#                          loop in stock Linux, as a PV guest and, when
#                          KVERS has PVH entries and the stock kernel has
#                          CONFIG_XEN_PVH, as a PVH guest
#   2. when the Debian 13 guest's image is built (make debian-domu), a
#      second Xen boot, Xen 4.20 (the guest's host), with the Debian guest:
#        bench-debian-real  real programs (sqlite3, xz -T2, redis) pinned
#                          to CPU 0 in the patched kernel's UP and SMP code,
#                          alternated, and in Debian's own kernel of the
#                          same version as the control
#      without the image these rows are "not measured" and say how to
#      build it (about an hour and a half on a cold 2-core machine)
#   3. the host benchmark (make bench-host)
#   4. scripts/report/bench-report.py: CSVs, PNG plots, summary.md; the summary
#      table is printed last.
# A part that fails is reported as "not measured"; the exit status is
# non-zero if any part failed.
#
# Usage: scripts/run/bench.sh -g GUEST_ELF -H BENCH_HOST_PROGRAM [-r ROUNDS]
#                         [-o RESULTS_DIR]
#        scripts/run/bench.sh -c
#   ROUNDS        rounds of the vcpu-set steps (default 5: 20 toggles)
#   -c            check KVERS and exit (make bench does, before it builds
#                 the guests)
# Environment:
#   KVERS         the patched Linux versions bench-linux-smpalt measures,
#                 each guest carried in the dom0 image (default every
#                 version of scripts/lib/matrix.conf, "6.1 6.12 7.2";
#                 each needs make linux KVER=...); an
#                 entry KVER-CONFIG (6.1-debug, 6.1-debian) is that
#                 version in that configuration (make linux KVER=...
#                 CONFIG=...); an entry's guest type follows a colon,
#                 KVER:pvh or KVER-CONFIG:pvh for a PVH guest (":pv", the
#                 default, may be written), for a version whose series
#                 serves it (LINUX_TYPES, scripts/lib/linux-version.sh):
#                 "7.2 7.2:pvh" measures 7.2's guest as PV and as PVH, one
#                 kernel and initramfs for both
#   TYPES         the guest types of the smpalt guest bench-locks
#                 measures, one boot each in the same Xen boot: "pv pvh"
#                 (the default), "pv" or "pvh" (the Linux guests' types
#                 are their KVERS entries')
#   BENCH_SCENARIOS  the Xen scenarios to run (default: all of the above);
#                 a part left out is reported "not measured"
#   RESULTS_DIR   default results/<UTC timestamp>; results/latest points
#                 at the last one
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script bench 2
. "$TOP/scripts/lib/matrix.sh"
read -ra kvers <<<"${KVERS:-$(matrix_keys linux | tr '\n' ' ')}"
# kver_config ENTRY: "KVER CONFIG" of a KVERS entry (KVER or KVER-CONFIG,
# then :TYPE or nothing).
kver_config() {
	[[ $1 =~ ^[0-9]+\.[0-9]+(-[a-z]+)?(:[a-z]+)?$ ]] ||
		die "KVERS: '$1' is not a version (6.1) or a version and a configuration (6.1-debug), with a guest type after a colon or not (7.2:pvh)"
	local v=${1%%:*}
	case $v in
	*-*) echo "${v%%-*} ${v#*-}" ;;
	*) echo "$v default" ;;
	esac
}
# kver_type ENTRY: the guest type of a KVERS entry, pv (no suffix, or
# ":pv") or pvh (":pvh"), one its version's series serves (LINUX_TYPES).
kver_type() {
	local kver config type types
	read -r kver config < <(kver_config "$1")
	case $1 in
	*:*) type=${1#*:} ;;
	*) type=pv ;;
	esac
	case $type in
	pv | pvh) ;;
	*) die "KVERS: '$1': unknown guest type '$type' (pv, the default, or pvh)" ;;
	esac
	# shellcheck disable=SC1091 # sourced for LINUX_TYPES only
	types=$(KVER=$kver CONFIG=$config
		. "$TOP/scripts/lib/linux-version.sh"
		echo "$LINUX_TYPES") || die "KVERS: '$1': no such Linux version or configuration (above)"
	case " $types " in
	*" $type "*) echo "$type" ;;
	*) die "KVERS: '$1': the Linux $kver series serves ${types// / and } guests only" ;;
	esac
}
# Each entry checked here, in this shell: die in the process substitutions
# below would only end them.
types=""
for v in "${kvers[@]}"; do
	kver_config "$v" >/dev/null
	t=$(kver_type "$v")
	case " $types " in *" $t "*) ;; *) types="$types $t" ;; esac
done
read -ra types <<<"$types"
# The smpalt guest's types (TYPES), each once, in the order given.
smpalt_types=""
for t in ${TYPES:-pv pvh}; do
	case $t in
	pv | pvh) ;;
	*) die "TYPES: unknown guest type '$t' (pv, pvh)" ;;
	esac
	case " $smpalt_types " in *" $t "*) ;; *) smpalt_types="$smpalt_types $t" ;; esac
done
read -ra smpalt_types <<<"$smpalt_types"
# shellcheck disable=SC2206 # a list of words on purpose
ALL_SCENARIOS=(${BENCH_SCENARIOS:-bench-locks bench-vcpu bench-dom0-weight bench-linux-vcpu bench-linux-smpalt bench-debian-real})
# The Debian guest's scenarios run in a boot of their own (part 2).
XEN_SCENARIOS=() DEBIAN_SCENARIOS=()
for s in "${ALL_SCENARIOS[@]}"; do
	case $s in
	bench-debian-*) DEBIAN_SCENARIOS+=("$s") ;;
	*) XEN_SCENARIOS+=("$s") ;;
	esac
done
DEBIAN_IMG=$CACHE/debian-domu/disk.img
ROUNDS=5
# Seconds one scenario may take inside dom0 (bench-locks: one boot of
# well under a minute per type of TYPES): the Linux ones boot two or
# three domUs (about 30 s each under TCG), the stock one waits 5 s for
# every change that never comes; bench-linux-smpalt boots one more per
# Linux version after the first, and two more (the fork loop in the
# patched and in the stock guest) per guest type after the first.
SCENARIO_TIMEOUT=$((480 + 300 * (${#kvers[@]} - 1) + 300 * (${#types[@]} - 1)))

stage() { echo "bench: $*"; }

guest= host_bench= res= check_only=0
opt_flag -c check_only
opt_value -g guest "a value"
opt_value -H host_bench "a value"
opt_value -r ROUNDS "a value"
opt_value -o res "a value"
parse_args "$@"
[ "$check_only" = 0 ] || exit 0
[ -n "$guest" ] && [ -f "$guest" ] || die "guest kernel '${guest}' not found (-g)"
[ -n "$host_bench" ] && [ -x "$host_bench" ] ||
	die "host benchmark '${host_bench}' not found (-H)"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "bad round count '$ROUNDS'"

results_dir "$TOP/results" "$res"
res=$RESULTS_DIR
{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "host=$(uname -sr), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "rounds=$ROUNDS"
} >"$res/run.txt"
failed=0

# --- 1. Xen: the Linux domUs' files, then one boot for all scenarios
# The Linux guests only for a run with a Linux scenario (bench-linux-*;
# make bench builds their kernels only then).
linux_kvers=()
for s in "${XEN_SCENARIOS[@]}"; do
	case $s in bench-linux-*) linux_kvers=("${kvers[@]}") ;; esac
done
[ ${#linux_kvers[@]} -gt 0 ] ||
	stage "no Linux scenario in ${XEN_SCENARIOS[*]}: no Linux domU prepared"
# The stock guest runs the stock control of the first version (make linux
# STOCK=1: its tree and configuration without the series), so that every
# stock-against-patched row differs by the series alone.
# shellcheck disable=SC1091 # sourced for its paths only
read -r first_kver first_config < <(kver_config "${kvers[0]}")
stock_vmlinuz=$(KVER=$first_kver CONFIG=$first_config STOCK=1
	. "$TOP/scripts/lib/linux-version.sh"
	echo "$LINUX_VMLINUZ")
LINUX_DOMU_DIR=$(dirname "$(dirname "$stock_vmlinuz")")/domu
linux_dir=
# The stock guest runs as PVH too when an entry is PVH and its kernel
# can (CONFIG_XEN_PVH in the configuration beside it: 7.2's, not 6.1's).
stock_types=pv
if [ ${#linux_kvers[@]} -gt 0 ]; then
	stage "stock Linux ${kvers[0]%%:*} domU initramfs (scripts/build/mk-linux-domu.sh, kernel $stock_vmlinuz)"
	if [ -f "$stock_vmlinuz" ] && bash "$TOP/scripts/build/fetch-xen.sh" >"$res/fetch.log" 2>&1 &&
		bash "$TOP/scripts/build/mk-linux-domu.sh" -o "$LINUX_DOMU_DIR" -k "$stock_vmlinuz" \
			>>"$res/fetch.log" 2>&1; then
		linux_dir=$LINUX_DOMU_DIR
	else
		stage "no Linux domU (see $res/fetch.log): bench-linux-vcpu will SKIP"
	fi
	case " ${types[*]} " in *" pvh "*)
		if grep -qx 'CONFIG_XEN_PVH=y' "$(dirname "$stock_vmlinuz")/config" 2>/dev/null; then
			stock_types="pv+pvh"
		else
			stage "stock Linux ${kvers[0]%%:*}: its kernel has no CONFIG_XEN_PVH: the stock fork loop runs as PV only"
		fi
		;;
	esac
fi
# Each version's kernel and initramfs (scripts/lib/linux-version.sh says
# where), carried to /opt/smpalt/linux-smpalt-KVER/ (KVER-CONFIG/ for a
# configuration), one for every guest type of that version; the first
# version's also to /opt/smpalt/linux-smpalt/, for the parts that use one
# guest.
smpalt_linux_dir="" smpalt_linux_versions=""
for v in "${linux_kvers[@]}"; do
	v=${v%%:*}
	case " $smpalt_linux_versions " in *" $v="*) continue ;; esac
	stage "patched Linux $v domU initramfs (scripts/build/mk-linux-smpalt-domu.sh)"
	# shellcheck disable=SC1091 # sourced for its paths only
	read -r kver config < <(kver_config "$v")
	read -r vmlinuz domu_dir < <(KVER=$kver CONFIG=$config
		. "$TOP/scripts/lib/linux-version.sh"
		echo "$LINUX_VMLINUZ $LINUX_DOMU_SMPALT")
	if [ -f "$vmlinuz" ] &&
		KVER=$kver CONFIG=$config bash "$TOP/scripts/build/mk-linux-smpalt-domu.sh" -o "$domu_dir" \
			-k "$vmlinuz" >>"$res/fetch.log" 2>&1; then
		[ -n "$smpalt_linux_dir" ] || smpalt_linux_dir=$domu_dir
		smpalt_linux_versions="$smpalt_linux_versions $v=$domu_dir"
	else
		stage "no patched Linux $v domU (make linux KVER=$kver CONFIG=$config; see $res/fetch.log): bench-linux-smpalt will fail"
		failed=1
	fi
done
# Plus signs, not commas (QEMU's -initrd splits the dom0 modules on
# commas) nor colons (an entry's type follows one).
kver_list=$(IFS=+; echo "${kvers[*]}")
echo "kvers=${kvers[*]}" >>"$res/run.txt"
echo "types=${smpalt_types[*]}" >>"$res/run.txt"
smpalt_type_list=$(IFS=+; echo "${smpalt_types[*]}")
linux_note=
[ ${#linux_kvers[@]} -eq 0 ] ||
	linux_note="; Linux ${kvers[*]}; stock ${stock_types//+/ and }"
xen_status=0
if [ ${#XEN_SCENARIOS[@]} -eq 0 ]; then
	stage "no scenario for the smpalt and busybox Linux guests: that Xen boot is left out"
else
	stage "Xen run: ${XEN_SCENARIOS[*]} ($ROUNDS rounds; smpalt ${smpalt_type_list//+/ and }$linux_note)"
	LINUX_DOMU_DIR=$linux_dir LINUX_SMPALT_DIR=$smpalt_linux_dir \
		LINUX_SMPALT_VERSIONS=$smpalt_linux_versions XEN_OUT=$res/xen \
		XEN_SCENARIO_TIMEOUT=$SCENARIO_TIMEOUT \
		XEN_DOM0_EXTRA="${XEN_DOM0_EXTRA:-} smpalt.bench.rounds=$ROUNDS smpalt.bench.types=$smpalt_type_list smpalt.bench.kvers=$kver_list smpalt.bench.stock-types=$stock_types" \
		bash "$TOP/scripts/run/xen-run.sh" -g "$guest" "${XEN_SCENARIOS[@]}" 2>&1 |
		tee "$res/xen-run.txt" || xen_status=$?
	# The Xen, dom0 kernel and QEMU packages the run used
	# (scripts/build/fetch-xen.sh).
	cat "$res/xen/versions.txt" >>"$res/run.txt" 2>/dev/null || true
	if [ "$xen_status" -ne 0 ]; then
		failed=1
		echo "xen_status=failed (exit $xen_status, see xen-run.txt)" >>"$res/run.txt"
	else
		echo "xen_status=all scenarios passed" >>"$res/run.txt"
	fi
fi

# --- 2. the Debian guest, when its image is built
if [ ${#DEBIAN_SCENARIOS[@]} -gt 0 ]; then
	if [ ! -s "$DEBIAN_IMG" ]; then
		stage "${DEBIAN_SCENARIOS[*]}: not measured: no Debian guest image $DEBIAN_IMG (make debian-domu builds it: the kernel package first, about an hour and a half on a cold 2-core machine)"
		echo "debian_status=not measured (no $DEBIAN_IMG: make debian-domu)" >>"$res/run.txt"
	else
		stage "Xen 4.20 run with the Debian guest: ${DEBIAN_SCENARIOS[*]} ($(cat "$CACHE/debian-domu/boot/release" 2>/dev/null), control $(cat "$CACHE/debian-domu/boot/stock-release" 2>/dev/null))"
		debian_status=0
		XEN=4.20 DEBIAN_DOMU_STOCK=1 XEN_OUT=$res/debian \
			bash "$TOP/scripts/run/xen-run.sh" -G debian "${DEBIAN_SCENARIOS[@]}" 2>&1 |
			tee "$res/debian-run.txt" || debian_status=$?
		if [ "$debian_status" -ne 0 ]; then
			failed=1
			echo "debian_status=failed (exit $debian_status, see debian-run.txt)" >>"$res/run.txt"
		else
			echo "debian_status=all scenarios passed" >>"$res/run.txt"
		fi
	fi
fi

# --- 3. host
stage "host: $host_bench"
if "$host_bench" >"$res/bench-host.txt" 2>&1; then
	tail -1 "$res/bench-host.txt"
	echo "host_status=ok" >>"$res/run.txt"
else
	failed=1
	stage "host benchmark failed (see $res/bench-host.txt)"
	echo "host_status=failed" >>"$res/run.txt"
fi

# --- 4. report, the summary table last
stage "results in $res (summary.md, *.csv, *.png); summary:"
echo
python3 "$TOP/scripts/report/bench-report.py" "$res" || failed=1
exit $failed
