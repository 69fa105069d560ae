# Demo (run by `make demo GUEST=linux`, not a test): the patched Linux
# guest (patches/linux-KVER/, xl-configs/linux-smpalt.cfg; vcpus=1,
# maxvcpus=4) runs a phased busy-loop profile from its kernel command line
# (linux-smpalt.profile=, scripts/build/mk-linux-smpalt-domu.sh) while
# smpalt-autoscaler scales its vCPUs by Xen's own CPU accounting
# (--signal xen: the Linux guest publishes no load); its kernel onlines
# the vCPUs xl adds and its text follows (UP with one vCPU, SMP with more).
# guests: linux
#
# Input: PROFILE below (idle, a ramp of 1 to 3 loops, a burst of 4, a
# medium of 1, idle); the autoscaler started once the profile has, with
# --signal xen --ignore-host (4 vCPUs beside the 2 host CPUs), high 60%,
# low 40% of each vCPU. The guest shares the 2 host CPUs with dom0: busy,
# Xen accounts it about 150% (125-160% seen per second), so one loop
# (about 100%) takes it from 1 vCPU to 2, two or more loops to 3
# (ceil(150/60)), where it is in the band (150 over 3 x 60 cannot be:
# 4 vCPUs would need a high under 50%, which would make one loop on 2
# vCPUs scale up too); one loop again (about 107% < 3 x 40) back to 2,
# idle to 1.
# Once a second a line goes to the host, live (@@SMPALT LIVE): time since
# the profile started, vCPUs online (data/smpalt/online), mode
# (data/smpalt/mode), load (Xen's figure: the mean xen_load of the
# autoscaler's CSV rows of that second), phase (the guest's last
# "linux-smpalt: phase" console line); each autoscaler decision as it
# happens. The loop forks only xenstore-read and usleep; the console, the
# CSV and the autoscaler's log are read from open descriptors: under TCG
# every fork costs, and dom0's CPU is taken from the guest being measured.
# Expected (SUCCESS): the vCPU count changed at least MIN_CHANGES times,
# up and down; the mode followed it (smp with more than one online, up
# with one; a sample that disagrees must agree by the next, as the guest
# writes online before mode); the guest ended back at 1 vCPU in up mode,
# Xen agreeing (check_xen_view) and the guest clean (linux_clean: refused
# 0, no alarming console line). FAILURE otherwise.
# Figures: vCPU changes (up, down), the autoscaler's decisions, max vCPUs,
# switches, Xen's load max; the samples come back as
# demo-autoscale-linux.csv (t_s,vcpus,mode,xen_load,phase,switches), the
# autoscaler's log and CSV as demo-autoscale-linux-autoscaler.log and
# .csv; the host (scripts/run/run-demo-autoscale.sh) plots them. No counters
# check: it needs smpalt.stress=1, whose threads keep every vCPU busy and
# would be Xen's load.

AUTOSCALER=$SMPALT_AUTOSCALER
# xl-configs/linux-smpalt.cfg's extra= without smpalt.stress=1 (see above).
LINUX_EXTRA="console=hvc0 rdinit=/init"
# NAME:SECONDS:LOOPS phases (85 s): each loop keeps one vCPU busy.
PROFILE=idle:10:0,ramp:10:1,ramp:10:2,ramp:10:3,burst:15:4,medium:15:1,idle:15:0
# Limits (s), with room for a busy host: boot as tests/linux/, the
# profile's own 85 s stretched by a loaded machine, then the last
# scale-down (hold-down, and an xl vcpu-set: 7.6 s seen on a busy host).
BOOT_TIMEOUT=120
START_TIMEOUT=30
PROFILE_TIMEOUT=200
SETTLE_TIMEOUT=40
STOP_TIMEOUT=10
# Autoscaler (autoscale-linux.sh's settings): period and holds short so
# that the demo is quick, thresholds that Xen's figure can cross (above).
PERIOD=0.5
HIGH=60
LOW=40
HOLD_UP=1.5
HOLD_DOWN=3
MIN_CHANGES=2
SAMPLE_CS=100 # one line a second
USEC_PER_CS=10000
CSV=/tmp/demo-autoscale-linux.csv
AS_CSV=/tmp/demo-autoscale-linux-autoscaler.csv
AS_LOG=/tmp/demo-autoscale-linux-autoscaler.log
META=/tmp/demo-autoscale-linux.meta
STARTED="linux-smpalt: profile started"
PHASE_LINE="linux-smpalt: phase "
DONE_LINE="linux-smpalt: profile done"
IGNORED_LINE="linux-smpalt: profile ignored"
CR=$(printf '\r')

[ -x "$AUTOSCALER" ] || result SKIP "no $AUTOSCALER in the initramfs (make tools)"

finish() {
	demo_stop_autoscaler
	forward_decisions
	echo "--- autoscaler log"
	cat "$AS_LOG" 2>/dev/null
	echo "---"
	send_back demo-autoscale-linux.csv "$CSV"
	send_back demo-autoscale-linux.meta "$META"
	send_back demo-autoscale-linux-autoscaler.csv "$AS_CSV"
	send_back demo-autoscale-linux-autoscaler.log "$AS_LOG"
}

# follow_console: PHASE = the guest's last phase ("done" after the
# profile), from its console lines not read yet (fd 6).
CON_PARTIAL=
follow_console() {
	while next_line 6 CON_PARTIAL; do
		LINE=${LINE%"$CR"}
		case $LINE in
		*"$PHASE_LINE"*)
			PHASE=${LINE#*"$PHASE_LINE"}
			PHASE=${PHASE%% *}
			;;
		*"$DONE_LINE"*) PHASE='done' ;;
		esac
	done
}

# follow_load: LOAD = the mean of Xen's figure (xen_load, the 11th column)
# over the guest's autoscaler CSV rows not read yet (fd 5); unchanged when
# there is none (the last figure stands).
CSV_PARTIAL=
follow_load() {
	local IFS=, sum=0 n=0
	while next_line 5 CSV_PARTIAL; do
		# shellcheck disable=SC2086 # split into the columns on purpose
		set -- $LINE
		[ "${2:-}" = "$GUEST" ] && [ -n "${11:-}" ] || continue
		sum=$((sum + ${11})) n=$((n + 1))
	done
	[ $n -eq 0 ] || LOAD=$(((sum + n / 2) / n))
}

# --- 1. the guest boots with the profile on its command line; the
# autoscaler starts once the profile has (Linux's boot keeps its one vCPU
# busy: Xen would count it as load)
linux_boot $BOOT_TIMEOUT "extra=\"$LINUX_EXTRA linux-smpalt.profile=$PROFILE\""
wait_for_console "$STARTED" $START_TIMEOUT || {
	grep -F "$IGNORED_LINE" "$CONSOLE_LOG" | tr -d '\r'
	fail "the guest did not start its profile (console above, if it refused it)"
}
DEMO_START=$(uptime_cs)
: >"$AS_LOG"
: >"$AS_CSV"
exec 7<"$AS_LOG" 5<"$AS_CSV" 6<"$CONSOLE_LOG"
as_start=$(uptime_cs)
$AUTOSCALER --signal xen --period $PERIOD --high $HIGH --low $LOW \
	--hold-up $HOLD_UP --hold-down $HOLD_DOWN --ignore-host \
	--log-priority never --csv "$AS_CSV" "$GUEST" >>"$AS_LOG" 2>&1 &
AS_PID=$!
note "autoscaler: --signal xen, period ${PERIOD}s, hold ${HOLD_UP}s up and ${HOLD_DOWN}s down, up above ${HIGH}%, down below ${LOW}% of each vCPU"
note "profile: $PROFILE (NAME:SECONDS:LOOPS)"
# For the report: the settings, and where the autoscaler's clock starts.
{
	echo "guest=linux"
	echo "profile=$PROFILE"
	echo "autoscaler=--signal xen --period $PERIOD --high $HIGH --low $LOW --hold-up $HOLD_UP --hold-down $HOLD_DOWN"
	echo "autoscaler_start_cs=$((as_start - DEMO_START))"
} >"$META"

# --- 2. one sample a second until the profile is done and settled
echo "t_s,vcpus,mode,xen_load,phase,switches" >"$CSV"
printf '@@SMPALT LIVE %6s %5s %4s %9s  %s\n' time vcpus mode "Xen load" \
	phase >/dev/console
DEMO_K=0 DEMO_DONE_AT='' last_online='' max_online=0 phase_prev='' load_max=0
ups=0 downs=0 saw_smp=0 mismatch=0 PHASE=- LOAD=
while :; do
	vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode \
		data/smpalt/switches)
	uptime_var
	# shellcheck disable=SC2086 # three words on purpose
	set -- $vals
	online=${1:-} mode=${2:-} sw=${3:-}
	follow_console
	follow_load
	t=$((NOW - DEMO_START))
	cs=$((t % CS_PER_SEC))
	[ $cs -ge 10 ] || cs=0$cs
	echo "$((t / CS_PER_SEC)).$cs,$online,$mode,$LOAD,$PHASE,$sw" >>"$CSV"
	forward_decisions
	[ "$PHASE" = "$phase_prev" ] ||
		echo "@@SMPALT LIVE --- phase $PHASE" >/dev/console
	phase_prev=$PHASE
	printf '@@SMPALT LIVE %5ss %5s %4s %8s%%  %s\n' \
		"$((t / CS_PER_SEC))" "$online" "$mode" "${LOAD:--}" \
		"$PHASE" >/dev/console
	[ -z "$LOAD" ] || [ "$LOAD" -le "$load_max" ] || load_max=$LOAD
	if [ -z "$online" ]; then
		# The keys went: is the guest still there? (xl list is slow)
		guest_running || { finish; fail "guest stopped running (state '$(domain_state)')"; }
	else
		if [ -n "$last_online" ]; then
			[ "$online" -le "$last_online" ] || ups=$((ups + 1))
			[ "$online" -ge "$last_online" ] || downs=$((downs + 1))
		fi
		last_online=$online
		[ "$online" -le "$max_online" ] || max_online=$online
		# The mode must fit the count, at the latest one sample later.
		want=up
		[ "$online" -le 1 ] || want=smp
		if [ "$mode" = "$want" ]; then
			mismatch=0
			[ "$mode" != smp ] || saw_smp=1
		else
			mismatch=$((mismatch + 1))
			[ $mismatch -lt 2 ] || {
				finish
				fail "mode '$mode' with $online vCPUs online for 2 samples (t=$((t / CS_PER_SEC)) s)"
			}
		fi
	fi
	as_alive || { finish; fail "autoscaler exited (see demo-autoscale-linux-autoscaler.log)"; }
	demo_settled "$PHASE" "$t" "$online" "$mode" && break
	demo_next_sample
done

# --- 3. the autoscaler stopped (no vcpu-set in flight): Xen agrees, the
# guest is clean
finish
up_dec=$(grep -c 'over-high' "$AS_LOG")
down_dec=$(grep -c 'under-low' "$AS_LOG")
changes=$((ups + downs))
[ $changes -ge $MIN_CHANGES ] && [ $ups -ge 1 ] && [ $downs -ge 1 ] ||
	fail "vCPU count changed $changes times ($ups up, $downs down; wanted >= $MIN_CHANGES, both ways): $up_dec up, $down_dec down decisions"
[ $saw_smp = 1 ] || fail "mode never smp with more than one vCPU online"
{ [ "$online" = 1 ] && [ "$mode" = up ]; } ||
	fail "did not settle at 1 vCPU in up mode (online $online, mode $mode)"
check_xen_view "end of the demo"
linux_clean "end of the demo"
result SUCCESS "patched Linux, --signal xen: $changes vCPU changes ($ups up, $downs down; $up_dec up, $down_dec down decisions), max $max_online vCPUs, $sw switches, Xen load max ${load_max}%, back at 1 vCPU up (Xen agrees); counters not checked (no smpalt.stress=1)"
