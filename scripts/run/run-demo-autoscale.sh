#!/bin/bash
# The Xen part of `make demo`: boot Xen 4.17 (XEN=4.20: 4.20) in QEMU, run a dom0 demo in
# which a guest with vcpus=1, maxvcpus=4 runs a phased workload profile
# under smpalt-autoscaler, show one line a second live, then plot and
# summarise the run (scripts/report/demo-report.py). Two guests:
#   smpalt  the smpalt kernel (GUEST_ELF) runs its built-in profile and
#           publishes its load, which the autoscaler scales it by
#           (scripts/dom0/demo-autoscale.sh)
#   linux   the patched Linux guest (make linux; KVER= from the
#           environment, 6.1 unless given) runs a busy-loop
#           profile from its command line and publishes no load: the
#           autoscaler uses Xen's CPU accounting, --signal xen
#           (scripts/dom0/demo-autoscale-linux.sh); its busybox initramfs
#           is built here (scripts/build/mk-linux-smpalt-domu.sh) into
#           build/linux-smpalt-demo/
#
# Usage: scripts/run/run-demo-autoscale.sh [-G smpalt|linux] [-T pv|pvh]
#                                      -g GUEST_ELF [-k VMLINUZ]
#   -G        the guest (default smpalt)
#   -T        the guest's type (default pv): pvh boots it as a PVH domU
#   -g        the smpalt kernel: the guest itself, and with -G linux what
#             the dom0 image's `make install` installs beside the autoscaler
#   -k        the patched Linux kernel (default the one make linux KVER=...
#             writes, cache/linux/out/vmlinuz for 6.1)
# Output: out/demo/<timestamp>/ (out/demo/latest): demo.png, demo.csv,
# summary.txt, autoscaler.log, and the harness's results in xen/.
# Environment: XEN_SCENARIO_TIMEOUT (default 240 s for the smpalt demo,
# 420 s for the Linux one), VERBOSE=1 (the whole serial log live).
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script demo 2
# Boot of the guest, ~66 s of profile, settling, the result upload.
DEMO_TIMEOUT=240
# Linux: up to 120 s of boot under TCG, 85 s of profile stretched by a
# busy host, settling, the result upload.
DEMO_TIMEOUT_LINUX=420
LINUX_DOMU_OUT=$TOP/build/linux-smpalt-demo

GUEST=smpalt
GUEST_TYPE=pv
GUEST_ELF=
VMLINUZ=
opt_value -G GUEST "a guest (smpalt or linux)"
opt_value -T GUEST_TYPE "a guest type (pv or pvh)"
opt_value -k VMLINUZ "a kernel image"
opt_value -g GUEST_ELF "a path"
parse_args "$@"
[ -n "$GUEST_ELF" ] || die "no guest kernel (-g build/gcc/smpalt.elf)"
[ -f "$GUEST_ELF" ] || die "guest kernel $GUEST_ELF does not exist"
case $GUEST in
smpalt)
	SCENARIO=demo-autoscale
	WHAT="guest vcpus=1 maxvcpus=4 runs the workload profile, smpalt-autoscaler scales it"
	;;
linux)
	SCENARIO=demo-autoscale-linux
	DEMO_TIMEOUT=$DEMO_TIMEOUT_LINUX
	. "$TOP/scripts/lib/linux-version.sh"
	case " $LINUX_TYPES " in *" $GUEST_TYPE "*) ;;
	*) die "the Linux $KVER series serves type(s) $LINUX_TYPES, not $GUEST_TYPE (KVER=... of a version that does: scripts/lib/matrix.conf)" ;;
	esac
	VMLINUZ=${VMLINUZ:-$LINUX_VMLINUZ}
	WHAT="patched Linux $KVER guest vcpus=1 maxvcpus=4 runs busy loops in phases, smpalt-autoscaler scales it by Xen's CPU accounting"
	[ -f "$VMLINUZ" ] || die "no patched Linux kernel at $VMLINUZ (make linux KVER=$KVER)"
	;;
*) die "unknown guest '$GUEST' (GUEST=smpalt or GUEST=linux)" ;;
esac

results_dir "$TOP/out/demo"
DEMO_DIR=$RESULTS_DIR
# What the report's titles name (scripts/report/demo-report.py).
printf 'kind=%s\nkver=%s\ntype=%s\n' "$GUEST" "${KVER:-}" "$GUEST_TYPE" >"$DEMO_DIR/guest.txt"

if [ "$GUEST" = linux ]; then
	# The guest's initramfs needs busybox from the Xen packages.
	bash "$TOP/scripts/build/fetch-xen.sh" >"$DEMO_DIR/fetch.log" 2>&1 ||
		{ cat "$DEMO_DIR/fetch.log" >&2; die "scripts/build/fetch-xen.sh failed"; }
	bash "$TOP/scripts/build/mk-linux-smpalt-domu.sh" -o "$LINUX_DOMU_OUT" -k "$VMLINUZ" \
		>"$DEMO_DIR/linux-smpalt-domu.log" 2>&1 ||
		{ cat "$DEMO_DIR/linux-smpalt-domu.log" >&2; die "scripts/build/mk-linux-smpalt-domu.sh failed"; }
	echo "demo: $(tail -1 "$DEMO_DIR/linux-smpalt-domu.log")"
	export LINUX_SMPALT_DIR=$LINUX_DOMU_OUT
fi

echo "demo: Xen ${XEN:-4.17} in QEMU (TCG); $WHAT, as a ${GUEST_TYPE^^} domU; results in $DEMO_DIR"
rc=0
XEN_OUT=$DEMO_DIR/xen \
	XEN_SCENARIO_TIMEOUT=${XEN_SCENARIO_TIMEOUT:-$DEMO_TIMEOUT} \
	bash "$TOP/scripts/run/xen-run.sh" -G "$GUEST" -T "$GUEST_TYPE" -g "$GUEST_ELF" $SCENARIO || rc=$?

echo
if [ -s "$DEMO_DIR/xen/$SCENARIO.csv" ]; then
	python3 "$TOP/scripts/report/demo-report.py" "$DEMO_DIR" || rc=1
else
	echo "demo: no samples came back ($DEMO_DIR/xen/$SCENARIO.csv):" \
		"nothing to plot; see $DEMO_DIR/xen/"
	[ $rc -ne 0 ] || rc=1
fi
exit $rc
