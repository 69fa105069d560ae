#!/bin/bash
# The Xen part of `make demo`: boot Xen 4.17 in QEMU, run the dom0 demo
# scripts/dom0/demo-autoscale.sh (a guest with vcpus=1, maxvcpus=4 runs
# the phased workload profile under smpalt-autoscaler), show one line a
# second live, then plot and summarise the run (scripts/demo-report.py).
#
# Usage: scripts/run-demo-autoscale.sh -g GUEST_ELF
# Output: out/demo/<timestamp>/ (out/demo/latest): demo.png, demo.csv,
# summary.txt, autoscaler.log, and the harness's results in xen/.
# Environment: XEN_SCENARIO_TIMEOUT (default 240 s for the demo),
# VERBOSE=1 (the whole serial log live).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# Boot of the guest, ~66 s of profile, settling, the result upload.
DEMO_TIMEOUT=240
SCENARIO=demo-autoscale

die() {
	echo "demo: error: $*" >&2
	exit 2
}

GUEST_ELF=
while [ $# -gt 0 ]; do
	case $1 in
	-g)
		[ $# -ge 2 ] || die "-g needs a path"
		GUEST_ELF=$2
		shift 2
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
[ -n "$GUEST_ELF" ] || die "no guest kernel (-g build/gcc/smpalt.elf)"
[ -f "$GUEST_ELF" ] || die "guest kernel $GUEST_ELF does not exist"

stamp=$(date -u +%Y%m%d-%H%M%S)
DEMO_DIR=$TOP/out/demo/$stamp
[ ! -e "$DEMO_DIR" ] || DEMO_DIR=$DEMO_DIR-$$
mkdir -p "$DEMO_DIR"
ln -sfn "$DEMO_DIR" "$TOP/out/demo/latest"

echo "demo: Xen 4.17 in QEMU (TCG); guest vcpus=1 maxvcpus=4 runs the" \
	"workload profile, smpalt-autoscaler scales it; results in $DEMO_DIR"
rc=0
XEN_OUT=$DEMO_DIR/xen \
	XEN_SCENARIO_TIMEOUT=${XEN_SCENARIO_TIMEOUT:-$DEMO_TIMEOUT} \
	bash "$TOP/scripts/xen-run.sh" -g "$GUEST_ELF" $SCENARIO || rc=$?

echo
if [ -s "$DEMO_DIR/xen/$SCENARIO.csv" ]; then
	python3 "$TOP/scripts/demo-report.py" "$DEMO_DIR" || rc=1
else
	echo "demo: no samples came back ($DEMO_DIR/xen/$SCENARIO.csv):" \
		"nothing to plot; see $DEMO_DIR/xen/"
	[ $rc -ne 0 ] || rc=1
fi
exit $rc
