# Scenario bench-dom0-weight (make bench): what a guest spinning on every
# vCPU does to the toolstack, at Xen's default dom0 weight and at the one
# the harness gives dom0 (DOM0_WEIGHT, scripts/dom0/lib/xen.sh).
# Input: xl create (vcpus=1, maxvcpus=4), vcpu-set 4, then per condition
# ROUNDS pairs of `xl vcpu-set -i` 3 and 4 (the guest stays in SMP code:
# only the toolstack's work is timed). Conditions, in this order, after
# one unmeasured pair: the guest idle at the default weight and at
# DOM0_WEIGHT; busy on all 4 vCPUs (demand 400) at the default weight and
# DOM0_WEIGHT alternately, twice each; idle again at both, so that a
# drift of the host's speed falls on every condition.
# Expected: every vcpu-set returns 0 and reaches its count within
# STEP_TIMEOUT; Xen's view equals the guest's after each condition
# (check_xen_view); no alarming console line; dom0's weight is
# DOM0_WEIGHT again at the end; otherwise FAILURE.
# Figures: the xl command's own time in ms (uptime, 10 ms resolution),
# min/median/max per condition, and the busy/idle ratio of the medians
# at each weight, into bench-dom0-weight.csv and the result line.

BOOT_TIMEOUT=60
STEP_TIMEOUT=45
WORKLOAD_TIMEOUT=30
ROUNDS=4
BUSY_DEMAND=400
VCPUS=4
CSV=$RESULTS_DIR/bench-dom0-weight.csv

ROUNDS=$(cmdline_value 'smpalt\.bench\.rounds' $ROUNDS)

trap 'dom0_weight_set $DOM0_WEIGHT' EXIT
guest_boot $BOOT_TIMEOUT
wait_online 1 $STEP_TIMEOUT || fail "online is '$ONLINE' after boot, expected 1"
vcpu_set $VCPUS || fail "xl vcpu-set $GUEST $VCPUS failed"
wait_online $VCPUS $STEP_TIMEOUT || fail "online is '$ONLINE' after vcpu-set $VCPUS"
check_xen_view "vcpu-set $VCPUS"
default=$(dom0_weight_default)
note "scheduler $(xen_scheduler), dom0 weight: Xen's default $default, the harness's $DOM0_WEIGHT"
echo "condition,weight,round,to,xl_ms" >"$CSV"

# measure CONDITION WEIGHT: ROUNDS pairs of vcpu-set 3/4 at dom0 weight
# WEIGHT, each xl call timed; its times are appended to XL_MS_<CONDITION>_<WEIGHT>.
measure() {
	local cond=$1 w=$2 round=1 n t0 ms var
	dom0_weight_set "$w" || fail "cannot set dom0's weight to $w"
	var=XL_MS_${cond}_$w
	while [ $round -le "$ROUNDS" ]; do
		for n in $((VCPUS - 1)) $VCPUS; do
			t0=$(uptime_cs)
			xl vcpu-set -i "$GUEST" $n || fail "$cond, weight $w: xl vcpu-set -i $GUEST $n failed"
			ms=$((($(uptime_cs) - t0) * CS_TO_MS))
			wait_online $n $STEP_TIMEOUT ||
				fail "$cond, weight $w: online is '$ONLINE' $STEP_TIMEOUT s after vcpu-set $n"
			echo "$cond,$w,$round,$n,$ms" >>"$CSV"
			eval "$var=\"\${$var:-} $ms\""
		done
		round=$((round + 1))
	done
	check_xen_view "$cond, weight $w"
}

# median_of LIST: the middle value (the lower middle of an even count).
median_of() {
	# shellcheck disable=SC2086 # a list of numbers
	printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# One unmeasured pair first: the first xl calls of a boot are slower.
ROUNDS_SET=$ROUNDS
ROUNDS=1
measure warmup "$default"
ROUNDS=$ROUNDS_SET
measure idle "$default"
measure idle "$DOM0_WEIGHT"
start_workload $BUSY_DEMAND $WORKLOAD_TIMEOUT ||
	fail "demand $BUSY_DEMAND: throughput never became positive"
measure busy "$default"
measure busy "$DOM0_WEIGHT"
measure busy "$default"
measure busy "$DOM0_WEIGHT"
xs_write_guest control/smpalt/demand 0 || fail "cannot write demand 0"
measure idle "$DOM0_WEIGHT"
measure idle "$default"
dom0_weight_set "$DOM0_WEIGHT" || fail "cannot set dom0's weight back to $DOM0_WEIGHT"
[ "$(dom0_weight_get)" = "$DOM0_WEIGHT" ] ||
	fail "dom0's weight is '$(dom0_weight_get)' at the end, expected $DOM0_WEIGHT"

idle_def=$(eval echo "\$XL_MS_idle_$default")
idle_set=$(eval echo "\$XL_MS_idle_$DOM0_WEIGHT")
busy_def=$(eval echo "\$XL_MS_busy_$default")
busy_set=$(eval echo "\$XL_MS_busy_$DOM0_WEIGHT")
mi_def=$(median_of "$idle_def") mi_set=$(median_of "$idle_set")
mb_def=$(median_of "$busy_def") mb_set=$(median_of "$busy_set")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
# shellcheck disable=SC2086 # lists of numbers
figures="xl vcpu-set ms min/med/max at dom0 weight $default: idle $(stats_mmm $idle_def), busy $(stats_mmm $busy_def); at weight $DOM0_WEIGHT: idle $(stats_mmm $idle_set), busy $(stats_mmm $busy_set); busy/idle medians: $(ratio "$mb_def" "$mi_def") at $default, $(ratio "$mb_set" "$mi_set") at $DOM0_WEIGHT"
note "figures: $figures"
echo "--- $CSV"
cat "$CSV"
send_back bench-dom0-weight.csv "$CSV"
alarm=$(console_alarm) && fail "guest console: $alarm"
guest_destroy
result SUCCESS "$figures"
