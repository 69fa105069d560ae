# Scenario autoscale-linux: smpalt-autoscaler scales a stock Linux 6.1 PV
# guest from Xen's own CPU accounting.
# Input: the autoscaler with --signal xen (period 0.5 s, hold 1.5 s, high
# 80%, low 40%, no --ignore-host) and the glob linux-autoscale*, started
# before the domU; the domU of scripts/mk-linux-domu.sh (vcpus=1,
# maxvcpus=4) with its user-space onlining loop (polling every 250 ms)
# and a busy phase of
# BUSY_S seconds of 4 shell loops from boot (linux-bench.busy=).
# Expected: Xen accounts about one whole vCPU to the busy domU (load >
# 80% of its one vCPU), so the autoscaler sets 2 vCPUs (ceil of the load
# over 80%, at most the host's 2 CPUs; Linux's own boot may already do
# it); xl vcpu-list shows 2 online, still 2 some seconds later; once
# the busy loops stop (console "linux-bench: busy done") the load falls
# under 40% and it sets 1 again; xl vcpu-list shows 1.  The domU never
# writes data/smpalt/load: every decision is on Xen's figure.
# Figures: seconds from the busy phase's start to 2 vCPUs and from its
# end to 1; Xen's load figures (CSV xen_load) while busy and after.
# SKIP without the Linux files (the dom0 initramfs carries them when built
# with LINUX_DOMU_DIR set).

AUTOSCALER=/usr/local/bin/smpalt-autoscaler
LINUX_DIR=$SMPALT_DIR/linux
LINUX_CFG=$SMPALT_DIR/xl-configs/linux.cfg
# Keep in step with extra= in xl-configs/linux.cfg.
LINUX_EXTRA="console=hvc0 quiet rdinit=/init"
BUSY_S=25
# The domU's own polling loops, slower than the bench's 50 ms: each poll
# forks, which under TCG would cost it a good part of a vCPU when idle.
POLL_US=250000
BOOT_TIMEOUT=60
SCALE_TIMEOUT=20
STOP_TIMEOUT=10
ADOPT_TIMEOUT=15
WANT=2
# After reaching 2, still 2 this much later while busy (several holds).
HOLD_CHECK_S=6
PERIOD=0.5
HOLD=1.5
CSV=/tmp/autoscale-linux.csv
AS_LOG=/tmp/autoscale-linux-autoscaler.log

[ -x "$AUTOSCALER" ] || result SKIP "no $AUTOSCALER in the initramfs (make tools)"
[ -f "$LINUX_DIR/vmlinuz" ] && [ -f "$LINUX_DIR/initrd.gz" ] ||
	result SKIP "no Linux domU in the initramfs (build it with LINUX_DOMU_DIR)"
[ "$(host_cpus)" -ge $WANT ] || result SKIP "host has $(host_cpus) CPUs, the scenario needs $WANT"

finish() {
	echo "--- autoscaler log"
	cat "$AS_LOG" 2>/dev/null
	echo "---"
	emit_file autoscale-linux.csv "$CSV" >/dev/console
	emit_file autoscale-linux-autoscaler.log "$AS_LOG" >/dev/console
}

die_with_logs() {
	finish
	fail "$*"
}

# alive PID: the process runs (a zombie not yet waited for does not).
alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# wait_xen_online N TIMEOUT: xl vcpu-list shows N vCPUs online.
wait_xen_online() {
	local end=$(($(date +%s) + $2)) v=
	while [ "$(date +%s)" -le $end ]; do
		v=$(xen_online_vcpus)
		[ "$v" = "$1" ] && return 0
		usleep $POLL_USEC
	done
	log "xl vcpu-list: $v online, wanted $1"
	return 1
}

GUEST=linux-autoscale
CONSOLE_LOG=$CONSOLE_DIR/guest-$GUEST.log
rm -f "$CONSOLE_LOG"

# --- 1. the daemon, deciding on Xen's CPU accounting only
$AUTOSCALER --signal xen --period $PERIOD --hold $HOLD --csv "$CSV" \
	"$GUEST*" >"$AS_LOG" 2>&1 &
AS_PID=$!

# --- 2. the domU, busy from boot
xl create -q "$LINUX_CFG" "name=\"$GUEST\"" \
	"extra=\"$LINUX_EXTRA linux-bench.onliner=1 linux-bench.busy=$BUSY_S linux-bench.poll-usec=$POLL_US\"" ||
	die_with_logs "xl create $GUEST failed"
DOMID=$(xl domid "$GUEST") || die_with_logs "no domid for $GUEST"
wait_for_console "linux-bench: busy " $BOOT_TIMEOUT ||
	die_with_logs "$GUEST: no busy phase within ${BOOT_TIMEOUT}s"
busy_cs=$(now_cs)
grep -qF "watching $GUEST (domain $DOMID)" "$AS_LOG" ||
	die_with_logs "$GUEST (domain $DOMID) booted but not adopted"
note "$GUEST (domain $DOMID) busy for ${BUSY_S}s, adopted"

# --- 3. busy: up to 2 vCPUs, as xl vcpu-list shows
wait_xen_online $WANT $SCALE_TIMEOUT ||
	die_with_logs "busy: Xen never showed $WANT vCPUs online"
up_s=$(since "$busy_cs")
alive "$AS_PID" || die_with_logs "the autoscaler exited"
note "busy: $WANT vCPUs online (xl vcpu-list) $up_s s after the busy phase began"
# Still busy: Xen keeps accounting the loops, the count stays.
sleep $HOLD_CHECK_S
v=$(xen_online_vcpus)
[ "$v" = $WANT ] || die_with_logs "busy: $v vCPUs online ${HOLD_CHECK_S}s later, expected $WANT"
grep -q "linux-bench: busy done" "$CONSOLE_LOG" &&
	die_with_logs "the busy phase ended before the check: BUSY_S too short"

# --- 4. the loops stop: back to 1 vCPU
wait_for_console "linux-bench: busy done" $((BUSY_S + SCALE_TIMEOUT)) ||
	die_with_logs "$GUEST: the busy phase never ended"
done_cs=$(now_cs)
wait_xen_online 1 $SCALE_TIMEOUT ||
	die_with_logs "idle: Xen never showed 1 vCPU online"
down_s=$(since "$done_cs")
note "idle: 1 vCPU online (xl vcpu-list) $down_s s after the busy phase ended"

# --- 5. stop; every decision was on Xen's figure
kill -TERM "$AS_PID"
end=$(($(date +%s) + STOP_TIMEOUT))
while alive "$AS_PID"; do
	[ "$(date +%s)" -le $end ] || { kill -KILL "$AS_PID"; die_with_logs "autoscaler still running ${STOP_TIMEOUT}s after SIGTERM"; }
	usleep $POLL_USEC
done
wait "$AS_PID"
rc=$?
finish
[ $rc -eq 0 ] || fail "autoscaler exited $rc after SIGTERM"
ups=$(grep -c 'over-high' "$AS_LOG")
downs=$(grep -c 'under-low' "$AS_LOG")
[ "$ups" -ge 1 ] && [ "$downs" -ge 1 ] ||
	fail "log has $ups scale-up and $downs scale-down decisions"
# Columns: load 3, signal 9, guest_load 10, xen_load 11.
others=$(awk -F, -v g="$GUEST" '$2 == g && $3 != "" && $9 != "xen"' "$CSV" | wc -l)
[ "$others" -eq 0 ] || fail "$others CSV rows decided on something else than Xen's figure"
guest_rows=$(awk -F, -v g="$GUEST" '$2 == g && $10 != ""' "$CSV" | wc -l)
[ "$guest_rows" -eq 0 ] || fail "$guest_rows CSV rows with a guest load from a stock Linux"
busy_max=$(awk -F, -v g="$GUEST" '$2 == g && $11 != "" && $11 > m { m = $11 } END { print m + 0 }' "$CSV")
idle_last=$(awk -F, -v g="$GUEST" '$2 == g && $11 != "" { v = $11 } END { print v }' "$CSV")

result SUCCESS "stock Linux 6.1, --signal xen: busy -> $WANT vCPUs (xl vcpu-list) in $up_s s; loops stopped -> 1 in $down_s s; Xen load max ${busy_max}%, last ${idle_last}%; $ups up / $downs down decisions"
