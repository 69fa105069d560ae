# Demo (run by `make demo`, not a test): a guest (vcpus=1, maxvcpus=4)
# runs the phased workload profile while smpalt-autoscaler scales its vCPUs
# by the load it publishes; the guest's text follows (UP with one vCPU, SMP
# with more).
#
# Once a second a line goes to the host, live (@@SMPALT LIVE): time since
# the profile started, vCPUs online, mode, load, throughput, phase; each
# autoscaler decision as it happens. The samples come back as
# demo-autoscale.csv, the autoscaler's log and CSV as
# demo-autoscale-autoscaler.log and demo-autoscale-autoscaler.csv; the
# host (scripts/run/run-demo-autoscale.sh) plots them.
#
# Outcome: SUCCESS when the vCPU count changed at least twice (up and
# down) and the guest's mode followed it; FAILURE otherwise.

AUTOSCALER=$SMPALT_AUTOSCALER
READY="smpalt: ready"
BOOT_TIMEOUT=60
SAMPLE_TIMEOUT=20
# The guest's built-in profile (include/smpalt/profile.h PROFILE_DEFAULT, ~66 s).
PROFILE=default
# After the profile: time for the last scale-down to land.
SETTLE_TIMEOUT=20
# Longest the profile may run (a guest that never says "done").
PROFILE_TIMEOUT=120
# Autoscaler: short period and holds so that the demo is quick. The demo's
# guest is our own kernel, so its claim is trusted (--signal guest): the
# default, Xen's CPU time bounding the claim, cannot see more than the
# harness's 2 host CPUs busy and would stop the guest at 2 of its 4 vCPUs.
SIGNAL=guest
PERIOD=0.5
HOLD=1.5
HIGH=80
LOW=40
MIN_CHANGES=2
SAMPLE_CS=100 # one line a second
CSV=/tmp/demo-autoscale.csv
AS_CSV=/tmp/demo-autoscale-autoscaler.csv
AS_LOG=/tmp/demo-autoscale-autoscaler.log
META=/tmp/demo-autoscale.meta
USEC_PER_CS=10000
STOP_TIMEOUT=10

[ -x "$AUTOSCALER" ] || result SKIP "no $AUTOSCALER in the initramfs (make tools)"
require_guest

finish() {
	demo_stop_autoscaler
	forward_decisions
	echo "--- autoscaler log"
	cat "$AS_LOG" 2>/dev/null
	echo "---"
	send_back demo-autoscale.csv "$CSV"
	send_back demo-autoscale.meta "$META"
	send_back demo-autoscale-autoscaler.csv "$AS_CSV"
	send_back demo-autoscale-autoscaler.log "$AS_LOG"
}

# --- 1. guest up and idle
guest_create
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"
wait_for_xs data/smpalt/load 0 $SAMPLE_TIMEOUT || fail "no data/smpalt/load=0 at boot"
wait_for_xs data/smpalt/phase manual $SAMPLE_TIMEOUT ||
	fail "no data/smpalt/phase=manual at boot (guest without profiles?)"

# --- 2. autoscaler, then the profile
: >"$AS_LOG"
exec 7<"$AS_LOG"
as_start=$(uptime_cs)
$AUTOSCALER --signal $SIGNAL --period $PERIOD --hold $HOLD --high $HIGH --low $LOW --ignore-host --log-priority never \
	--csv "$AS_CSV" "$GUEST" >>"$AS_LOG" 2>&1 &
AS_PID=$!
note "autoscaler: signal $SIGNAL, period ${PERIOD}s, hold ${HOLD}s, up above ${HIGH}%, down below ${LOW}% of each vCPU"
xs_write_guest control/smpalt/profile "$PROFILE" ||
	{ finish; fail "cannot write control/smpalt/profile"; }
DEMO_START=$(uptime_cs)
note "control/smpalt/profile = '$PROFILE'"
# For the report: the settings, and where the autoscaler's clock starts.
{
	echo "profile=$PROFILE"
	echo "autoscaler=--signal $SIGNAL --period $PERIOD --hold $HOLD --high $HIGH --low $LOW"
	echo "autoscaler_start_cs=$((as_start - DEMO_START))"
} >"$META"
wait_for_console "profile: started" $SAMPLE_TIMEOUT ||
	{ finish; fail "the guest did not start the profile"; }
note "guest: $(grep -F 'phases, ' "$CONSOLE_LOG" | tail -1 | tr -d '\r' | sed 's/.*profile: //')"

# --- 3. one sample a second until the profile is done and settled
# The loop forks only xenstore-read and usleep: under TCG every fork
# costs, and dom0 shares two CPUs with a guest running up to four vCPUs.
echo "t_s,vcpus,mode,load,throughput,phase,switches" >"$CSV"
printf '@@SMPALT LIVE %6s %5s %4s %6s %11s  %s\n' time vcpus mode load \
	throughput phase >/dev/console
DEMO_K=0 DEMO_DONE_AT='' changes=0 last_online='' max_online=0 phase_prev=''
while :; do
	vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode \
		data/smpalt/load data/smpalt/throughput data/smpalt/phase \
		data/smpalt/switches)
	uptime_var
	# shellcheck disable=SC2086 # six words on purpose
	set -- $vals
	online=${1:-} mode=${2:-} load=${3:-} tput=${4:-} phase=${5:-} sw=${6:-}
	t=$((NOW - DEMO_START))
	cs=$((t % CS_PER_SEC))
	[ $cs -ge 10 ] || cs=0$cs
	echo "$((t / CS_PER_SEC)).$cs,$online,$mode,$load,$tput,$phase,$sw" >>"$CSV"
	forward_decisions
	[ "$phase" = "$phase_prev" ] ||
		echo "@@SMPALT LIVE --- phase $phase" >/dev/console
	phase_prev=$phase
	printf '@@SMPALT LIVE %5ss %5s %4s %5s%% %9s/s  %s\n' \
		"$((t / CS_PER_SEC))" "$online" "$mode" "$load" "$tput" \
		"$phase" >/dev/console
	if [ -z "$online" ]; then
		# The keys went: is the guest still there? (xl list is slow)
		guest_running || { finish; fail "guest stopped running (state '$(domain_state)')"; }
	else
		[ -z "$last_online" ] || [ "$online" = "$last_online" ] ||
			changes=$((changes + 1))
		last_online=$online
		[ "$online" -le "$max_online" ] || max_online=$online
	fi
	as_alive || { finish; fail "autoscaler exited (see demo-autoscale-autoscaler.log)"; }
	demo_settled "$phase" "$t" "$online" "$mode" && break
	demo_next_sample
done

# --- 4. the counters still add up after all that scaling
check_counters
check_rc=$?
finish
ups=$(grep -c 'over-high' "$AS_LOG")
downs=$(grep -c 'under-low' "$AS_LOG")
[ $check_rc -ne 1 ] || fail "counters check: $CHECK_REPLY"
[ $changes -ge $MIN_CHANGES ] ||
	fail "vCPU count changed $changes times (wanted >= $MIN_CHANGES): $ups up, $downs down decisions"
{ [ "$online" = 1 ] && [ "$mode" = up ]; } ||
	fail "did not settle at 1 vCPU in up mode (online $online, mode $mode)"
case $check_rc in
0) counters="counters exact ($CHECK_ITEMS items)" ;;
*) counters="counters not checked ($CHECK_REPLY)" ;;
esac
result SUCCESS "$changes vCPU changes ($ups up, $downs down decisions), max $max_online vCPUs, $sw switches, back at 1 vCPU up; $counters"
