# Scenario workload: the guest turns control/smpalt/demand into work and
# reports load and throughput (data/smpalt/load, data/smpalt/throughput).
# Input: demand 150 (percent of one vCPU) with 1 vCPU, then vcpu-set 2,
# then demand 0.
# Expected: load in [LOAD_MIN, LOAD_MAX] and throughput > 0 on 1 and on
# 2 vCPUs (mode smp on 2); then load 0 and throughput 0, exactly.
# Limits: the guest's load is the demand it offered over the time that
# actually passed, however late its ticks run on a busy host, so it reads
# the demand itself once a whole sample lies after the change; the window
# (demand +-20%) only leaves room for rounding and a sample that
# straddles a change, the polling for samples that come late. Demand 0
# drops the items not started: both figures must reach 0, not near 0.

BOOT_TIMEOUT=60
SAMPLE_TIMEOUT=30
DEMAND=150
LOAD_MIN=120
LOAD_MAX=180

guest_boot $BOOT_TIMEOUT
wait_for_xs data/smpalt/load 0 $SAMPLE_TIMEOUT || fail "no data/smpalt/load=0 at boot"

# load_in_range: wait until data/smpalt/load is within [LOAD_MIN, LOAD_MAX]
# and throughput is positive.
load_in_range() {
	local end=$(($(date +%s) + SAMPLE_TIMEOUT)) load tput
	while [ "$(date +%s)" -lt $end ]; do
		load=$(xs_read_guest data/smpalt/load)
		tput=$(xs_read_guest data/smpalt/throughput)
		if [ "${load:-0}" -ge $LOAD_MIN ] 2>/dev/null &&
			[ "${load:-0}" -le $LOAD_MAX ] && [ "${tput:-0}" -gt 0 ]; then
			note "$1: load=$load throughput=$tput"
			return 0
		fi
		sleep 1
	done
	fail "$1: load='$load' throughput='$tput', expected load in [$LOAD_MIN,$LOAD_MAX] and throughput > 0"
}

xs_write_guest control/smpalt/demand $DEMAND || fail "cannot write control/smpalt/demand"
load_in_range "1 vCPU, demand $DEMAND"

xl vcpu-set -i "$GUEST" 2 || fail "xl vcpu-set 2 failed"
wait_for_xs data/smpalt/mode smp $SAMPLE_TIMEOUT || fail "mode never became smp"
load_in_range "2 vCPUs, demand $DEMAND"

xs_write_guest control/smpalt/demand 0 || fail "cannot write control/smpalt/demand"
wait_for_xs data/smpalt/load 0 $SAMPLE_TIMEOUT || fail "load never went back to 0"
wait_for_xs data/smpalt/throughput 0 $SAMPLE_TIMEOUT || fail "throughput never went back to 0"

guest_destroy
result SUCCESS "demand $DEMAND reported as load on 1 and 2 vCPUs, back to 0 after"
