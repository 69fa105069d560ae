# Scenario autoscale: smpalt-autoscaler scales guests by their load.
# Input: two guests (vcpus=1, maxvcpus=4), the autoscaler watching both by
# name (period 0.5 s, hold 1.5 s, high 80%, low 40%, --ignore-host: 4
# vCPUs on a host of 2 CPUs); the first guest's
# control/smpalt/demand 0, then 250 (work for 2.5 vCPUs), then 0; the
# second stays idle and is destroyed mid-run; then SIGTERM.
# Expected: no change while idle; with demand 250 the autoscaler sets
# ceil(250/80) = 4 vCPUs on the first (online >= 3, mode smp) and leaves
# the second at 1; the destroyed one is dropped and the other still
# scaled: back at demand 0 it sets 1 (online 1, mode up); it stops cleanly
# on SIGTERM with CSV rows for both and a logged reason per change.
# While idle, once scaled up and settled (wait_stable), and after the stop,
# Xen's count of online vCPUs (xl vcpu-list) equals the guest's online,
# never UP text while Xen has a secondary up (check_xen_view); no alarming
# console line (console_alarm).
# Also: a missing domain exits 4 at --once; a daemon whose only domain
# is destroyed drops it and stays up (exit 0 at SIGTERM).
# Figures: Xen's CPU accounting of the busy guest (xen_load in the CSV).
# The CSV and the autoscaler's log come back as autoscale.csv and
# autoscale-autoscaler.log in the results folder.

AUTOSCALER=$SMPALT_AUTOSCALER
READY="smpalt: ready"
BOOT_TIMEOUT=60
SAMPLE_TIMEOUT=20
SCALE_TIMEOUT=40
IDLE_SECONDS=4
DEMAND=250
ONLINE_UP_MIN=3
MAXVCPUS=4 # xl-configs/smpalt.cfg
# Autoscaler settings: short, so that the scenario fits its time limit.
# The high mark is 60%, not the default 80%: under QEMU TCG, with dom0's
# polling beside it, Xen gives the busy guest's one vCPU 61-80% of a CPU
# (seen on a quiet build machine), and only a guest Xen sees busy above
# the high mark is given more (the wait for the host's CPUs never raises
# a count: docs/autoscaler.md). Low is half of high, so that at 4 vCPUs
# on the host's 2 CPUs the claim cut to 2 x high holds the count.
PERIOD=0.5
HOLD=1.5
HIGH=60
LOW=30
CSV=/tmp/autoscale.csv
AS_LOG=/tmp/autoscale-autoscaler.log
# Exit codes of smpalt-autoscaler (its --help).
EXIT_NO_DOMAIN=4
CSV_HEADER=time_s,domain,load,vcpus,mode,throughput,unix_time,domid,signal,guest_load,xen_load,guest_online
STOP_TIMEOUT=10
DROP_TIMEOUT=10

[ -x "$AUTOSCALER" ] || result SKIP "no $AUTOSCALER in the initramfs (make tools)"
require_guest

finish() {
	autoscaler_finish autoscale
}

# wait_online MIN MAX TIMEOUT: wait until MIN <= data/smpalt/online <= MAX.
wait_online() {
	local lo=$1 hi=$2 end=$(($(date +%s) + $3)) v=
	while [ "$(date +%s)" -le $end ]; do
		v=$(xs_read_guest data/smpalt/online)
		if [ "${v:-0}" -ge "$lo" ] 2>/dev/null && [ "${v:-0}" -le "$hi" ]; then
			return 0
		fi
		usleep $POLL_USEC
	done
	log "online='$v', wanted $lo..$hi"
	return 1
}

# --- 1. a name that no domain has: clear message, exit code 4
$AUTOSCALER --once no-such-domain >/tmp/as-missing.log 2>&1
rc=$?
cat /tmp/as-missing.log
[ $rc -eq $EXIT_NO_DOMAIN ] ||
	fail "missing domain: exit $rc, expected $EXIT_NO_DOMAIN"
grep -q "no domain 'no-such-domain'" /tmp/as-missing.log ||
	fail "missing domain: no clear message"

# --- 2. two guests, idle, with the autoscaler watching both
guest_create
IDLE_GUEST=$GUEST-idle
xl create -q "$SMPALT_CFG" "name=\"$IDLE_GUEST\"" || fail "xl create $IDLE_GUEST failed"
IDLE_DOMID=$(xl domid "$IDLE_GUEST") || fail "no domid for $IDLE_GUEST"
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"
wait_for_xs data/smpalt/load 0 $SAMPLE_TIMEOUT || fail "no data/smpalt/load=0 at boot"
end=$(($(date +%s) + BOOT_TIMEOUT))
until [ "$(xenstore-read /local/domain/$IDLE_DOMID/data/smpalt/load 2>/dev/null)" = 0 ]; do
	[ "$(date +%s)" -le $end ] || fail "$IDLE_GUEST: no data/smpalt/load=0 within ${BOOT_TIMEOUT}s"
	usleep $POLL_USEC
done
xs_write_guest control/smpalt/demand 0 || fail "cannot write control/smpalt/demand"

$AUTOSCALER --period $PERIOD --hold $HOLD --high $HIGH --low $LOW \
	--ignore-host --csv "$CSV" "$GUEST" "$IDLE_GUEST" >"$AS_LOG" 2>&1 &
AS_PID=$!
note "autoscaler pid $AS_PID watching $GUEST and $IDLE_GUEST (period ${PERIOD}s, hold ${HOLD}s)"
sleep $IDLE_SECONDS
alive "$AS_PID" || { finish; fail "autoscaler exited while idle"; }
v=$(xs_read_guest data/smpalt/online)
[ "$v" = 1 ] || { finish; fail "idle: online=$v, expected 1 (no change)"; }
check_xen_view "idle, autoscaler watching"

# --- 3. demand 250: up to >= 3 vCPUs, SMP code
t=$(now_cs)
xs_write_guest control/smpalt/demand $DEMAND
wait_online $ONLINE_UP_MIN $MAXVCPUS $SCALE_TIMEOUT ||
	{ finish; fail "demand $DEMAND: online never reached $ONLINE_UP_MIN"; }
up_s=$(since "$t")
wait_for_xs data/smpalt/mode smp $SAMPLE_TIMEOUT ||
	{ finish; fail "demand $DEMAND: mode never became smp"; }
note "demand $DEMAND: online $(xs_read_guest data/smpalt/online), mode smp after $up_s s"
wait_stable $ONLINE_UP_MIN $MAXVCPUS $SCALE_TIMEOUT ||
	{ finish; fail "demand $DEMAND: online/mode never settled in $ONLINE_UP_MIN..$MAXVCPUS (online '$ONLINE' mode '$MODE')"; }
check_xen_view "demand $DEMAND, scaled up"
v=$(xenstore-read "/local/domain/$IDLE_DOMID/data/smpalt/online")
[ "$v" = 1 ] || { finish; fail "$IDLE_GUEST (idle) has online=$v, expected 1"; }

# --- 3b. the idle guest disappears: dropped, the other still watched
xl destroy "$IDLE_GUEST" || fail "xl destroy $IDLE_GUEST failed"
end=$(($(date +%s) + DROP_TIMEOUT))
until grep -q "$IDLE_GUEST (domain $IDLE_DOMID): disappeared: dropped" "$AS_LOG"; do
	[ "$(date +%s)" -le $end ] || { finish; fail "$IDLE_GUEST destroyed but not dropped"; }
	usleep $POLL_USEC
done
alive "$AS_PID" || { finish; fail "autoscaler exited when one of two domains went"; }
note "$IDLE_GUEST destroyed: dropped, autoscaler goes on"

# --- 4. demand 0: back to 1 vCPU, UP code
t=$(now_cs)
xs_write_guest control/smpalt/demand 0
wait_online 1 1 $SCALE_TIMEOUT ||
	{ finish; fail "demand 0: online never went back to 1"; }
down_s=$(since "$t")
wait_for_xs data/smpalt/mode up $SAMPLE_TIMEOUT ||
	{ finish; fail "demand 0: mode never went back to up"; }
note "demand 0: online 1, mode up after $down_s s"

# --- 5. SIGTERM: clean stop, CSV and log complete
stop_autoscaler $STOP_TIMEOUT
[ $AS_RC -eq 0 ] || { finish; fail "autoscaler exited $AS_RC after SIGTERM"; }
check_xen_view "autoscaler stopped"
alarm=$(console_alarm) && { finish; fail "guest console: $alarm"; }
rows=$(($(wc -l <"$CSV") - 1))
ups=$(grep -c 'over-high' "$AS_LOG")
downs=$(grep -c 'under-low' "$AS_LOG")
smp_rows=$(grep -c ',smp,' "$CSV")
idle_rows=$(grep -c ",$IDLE_GUEST," "$CSV")
xl_ms=$(sed -n 's/.* done in \([0-9]*\) ms$/\1/p' "$AS_LOG" | tr '\n' ' ')
# Xen's figure (min-max) for the busy guest while it claimed >= 200%.
xen_busy=$(awk -F, -v g="$GUEST" '$2 == g && $10 >= 200 && $11 != "" {
	if (n++ == 0 || $11 < lo) lo = $11; if ($11 > hi) hi = $11 }
	END { if (n) printf "%d-%d%% over %d samples", lo, hi, n }' "$CSV")
finish
head -1 "$CSV" | grep -qx "$CSV_HEADER" ||
	fail "CSV header is '$(head -1 "$CSV")'"
[ "$rows" -gt 0 ] || fail "CSV has no rows"
[ "$smp_rows" -gt 0 ] || fail "CSV has no row in smp mode"
[ "$idle_rows" -gt 0 ] || fail "CSV has no row for $IDLE_GUEST"
[ "$ups" -ge 1 ] && [ "$downs" -ge 1 ] ||
	fail "log has $ups scale-up and $downs scale-down decisions"
grep -q 'stopped by SIGTERM' "$AS_LOG" || fail "no clean stop line in the log"

# --- 6. its only domain disappears: dropped, the daemon stays up
AS_LOG=/tmp/as-gone.log
$AUTOSCALER --period $PERIOD "$GUEST" >"$AS_LOG" 2>&1 &
AS_PID=$!
sleep 2
guest_destroy
end=$(($(date +%s) + DROP_TIMEOUT))
until grep -q 'disappeared: dropped' "$AS_LOG"; do
	[ "$(date +%s)" -le $end ] || { cat "$AS_LOG"; fail "domain destroyed but not dropped"; }
	usleep $POLL_USEC
done
sleep 1
alive "$AS_PID" || { cat "$AS_LOG"; fail "autoscaler exited when its only domain went"; }
stop_autoscaler $STOP_TIMEOUT
cat "$AS_LOG"
[ $AS_RC -eq 0 ] || fail "autoscaler with no domain left exited $AS_RC after SIGTERM"

result SUCCESS "demand $DEMAND: >= $ONLINE_UP_MIN vCPUs + smp in $up_s s; demand 0: 1 vCPU + up in $down_s s; xl vcpu-set ms: ${xl_ms% }; idle guest kept 1 and dropped when destroyed; $rows CSV rows, $ups up / $downs down decisions; Xen load while busy: ${xen_busy:-none}; daemon stays up with no domain"
