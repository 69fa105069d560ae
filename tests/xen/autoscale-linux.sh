# Scenario autoscale-linux: smpalt-autoscaler scales a stock Linux 6.1 PV
# guest from Xen's own CPU accounting.
# Input: the autoscaler with --signal xen (period 0.5 s, high 60%, low
# 30%, hold 1.5 s up and 3 s down, no --ignore-host) and the glob
# linux-autoscale*, started before the domU; the domU of
# scripts/build/mk-linux-domu.sh (vcpus=1, maxvcpus=4) with its user-space
# onlining loop (polling every second) and a busy phase of BUSY_S seconds
# of 4 shell loops from boot (linux-bench.busy=).
# Expected: Xen accounts the busy domU more than 60% of its one vCPU (it
# saturates it; on a busy host its vCPU gets less than a whole physical
# CPU), so the autoscaler sets 2 vCPUs (ceil of the load over 60%, at most
# the host's 2 CPUs; Linux's own boot may already do it); the domU
# onlines vCPU 1 (its console says "linux-bench: online 0-1") and then
# xl vcpu-list shows 2 online, still 2 some seconds later, with no
# scale-down decision in between; once the busy loops stop (console
# "linux-bench: busy done") the idle domU's load falls under 30% of each
# vCPU and it sets 1 again: the domU takes vCPU 1 down (console
# "linux-bench: online 0") and xl vcpu-list shows 1.  The domU never
# writes data/smpalt/load: every decision is on Xen's figure.
# States are seen through events (the domU's console lines, which it
# prints within a poll of a change), each then confirmed once with
# xl vcpu-list, not by polling xl vcpu-list: under TCG each xl run costs
# dom0 a good part of a CPU, taken from the domU whose load is measured.
# Figures: seconds from the busy phase's start to 2 vCPUs and from its
# end to 1; Xen's load figures (CSV xen_load) while busy and after; the
# CPU share Xen gave the domU and dom0 over the busy phase (xl list).
# SKIP without the Linux files (the dom0 initramfs carries them when built
# with LINUX_DOMU_DIR set).

AUTOSCALER=$SMPALT_AUTOSCALER
LINUX_DIR=$SMPALT_DIR/linux
LINUX_CFG=$SMPALT_DIR/xl-configs/linux.cfg
# Keep in step with extra= in xl-configs/linux.cfg.
LINUX_EXTRA="console=hvc0 quiet rdinit=/init"
# Long enough for a decision, an xl vcpu-set (7.6 s seen on a busy host),
# the domU's onlining and the hold check, with room.
BUSY_S=45
# The domU's own polling loops: each poll forks, and under TCG every fork
# costs the domU CPU time that Xen accounts to it as load; once a second
# keeps the idle domU well under the low threshold, even on a busy host.
POLL_US=1000000
# This scenario's own polls (µs): console and log files only, cheap.
WAIT_USEC=500000
BOOT_TIMEOUT=90
SCALE_TIMEOUT=40
STOP_TIMEOUT=10
WANT=2
# After reaching 2, still 2 this much later while busy (several holds).
HOLD_CHECK_S=6
PERIOD=0.5
HIGH=60
LOW=30
HOLD_UP=1.5
HOLD_DOWN=3
CSV=/tmp/autoscale-linux.csv
AS_LOG=/tmp/autoscale-linux-autoscaler.log

[ -x "$AUTOSCALER" ] || result SKIP "no $AUTOSCALER in the initramfs (make tools)"
[ -f "$LINUX_DIR/vmlinuz" ] && [ -f "$LINUX_DIR/initrd.gz" ] ||
	result SKIP "no Linux domU in the initramfs (build it with LINUX_DOMU_DIR)"
[ "$(host_cpus)" -ge $WANT ] || result SKIP "host has $(host_cpus) CPUs, the scenario needs $WANT"

finish() {
	autoscaler_finish autoscale-linux
}

die_with_logs() {
	finish
	fail "$*"
}

# console_has TEXT: a line of the domU's console holds TEXT.
console_has() {
	grep -qF -- "$1" "$CONSOLE_LOG" 2>/dev/null
}

# linux_online: the domU's cpus online, from its last "linux-bench:
# online LIST at UPTIME" line (its main loop prints one per change).
linux_online() {
	tr -d '\r' <"$CONSOLE_LOG" 2>/dev/null |
		sed -n 's/^linux-bench: online \([0-9,-]*\) at .*/\1/p' | tail -1
}

# wait_console TEXT TIMEOUT: wait for a console line holding TEXT.
wait_console() {
	local end=$(($(uptime_cs) + $2 * CS_PER_SEC))
	until console_has "$1"; do
		[ "$(uptime_cs)" -le $end ] || {
			log "console: '$1' not seen within $2 s"
			return 1
		}
		usleep $WAIT_USEC
	done
}

# wait_linux_online LIST TIMEOUT: the domU's last online line reads LIST.
wait_linux_online() {
	local end=$(($(uptime_cs) + $2 * CS_PER_SEC)) v=
	while :; do
		v=$(linux_online)
		[ "$v" = "$1" ] && return 0
		[ "$(uptime_cs)" -le $end ] || break
		usleep $WAIT_USEC
	done
	log "domU: cpus online '${v:-<none printed>}', wanted $1"
	return 1
}

# expect_xen_online N WHAT: xl vcpu-list shows N vCPUs online, else fail.
expect_xen_online() {
	local v
	v=$(xen_online_vcpus)
	[ "$v" = "$1" ] && return 0
	xl vcpu-list "$GUEST" 2>&1
	die_with_logs "$2: xl vcpu-list shows ${v:-no count} vCPUs online, expected $1"
}

# cpu_s NAME: the CPU seconds Xen accounted to a domain so far (xl list).
cpu_s() {
	xl list "$1" 2>/dev/null | awk 'NR == 2 { print $6 }'
}

# share BEFORE AFTER WALL: 100 * (AFTER - BEFORE) / WALL, CPU seconds over
# wall seconds: the percent of one CPU a domain had meanwhile.
share() {
	awk -v a="$1" -v b="$2" -v t="$3" \
		'BEGIN { if (t > 0) printf "%d", 100 * (b - a) / t; else print "?" }'
}

GUEST=linux-autoscale
CONSOLE_LOG=$CONSOLE_DIR/guest-$GUEST.log
rm -f "$CONSOLE_LOG"

# --- 1. the daemon, deciding on Xen's CPU accounting only
$AUTOSCALER --signal xen --period $PERIOD --high $HIGH --low $LOW \
	--hold-up $HOLD_UP --hold-down $HOLD_DOWN --csv "$CSV" \
	"$GUEST*" >"$AS_LOG" 2>&1 &
AS_PID=$!

# --- 2. the domU, busy from boot
CREATE_CS=$(now_cs)
xl create -q "$LINUX_CFG" "name=\"$GUEST\"" \
	"extra=\"$LINUX_EXTRA linux-bench.onliner=1 linux-bench.busy=$BUSY_S linux-bench.poll-usec=$POLL_US\"" ||
	die_with_logs "xl create $GUEST failed"
DOMID=$(xl domid "$GUEST") || die_with_logs "no domid for $GUEST"
wait_console "linux-bench: busy " $BOOT_TIMEOUT ||
	die_with_logs "$GUEST: no busy phase within ${BOOT_TIMEOUT}s"
busy_cs=$(now_cs)
note "console 'linux-bench: busy' at create +$(since "$CREATE_CS") s"
busy_guest_s=$(cpu_s "$GUEST")
busy_dom0_s=$(cpu_s Domain-0)
grep -qF "watching $GUEST (domain $DOMID)" "$AS_LOG" ||
	die_with_logs "$GUEST (domain $DOMID) booted but not adopted"
note "$GUEST (domain $DOMID) busy for ${BUSY_S}s, adopted"

# --- 3. busy: up to 2 vCPUs, as the domU and then xl vcpu-list show
wait_linux_online 0-1 $SCALE_TIMEOUT ||
	die_with_logs "busy: the domU never had vCPU 1 online"
up_s=$(since "$busy_cs")
expect_xen_online $WANT "busy, vCPU 1 online in the domU"
alive "$AS_PID" || die_with_logs "the autoscaler exited"
note "busy: $WANT vCPUs online (domU, then xl vcpu-list) $up_s s after the busy phase began"
# Still busy: Xen keeps accounting the loops, the count stays, and the
# daemon decided no scale-down meanwhile (a flap a single look would miss).
downs_before=$(grep -c 'under-low' "$AS_LOG")
sleep $HOLD_CHECK_S
console_has "linux-bench: busy done" &&
	die_with_logs "the busy phase ended before the check: BUSY_S too short"
expect_xen_online $WANT "busy, ${HOLD_CHECK_S}s later"
downs_busy=$(($(grep -c 'under-low' "$AS_LOG") - downs_before))
[ "$downs_busy" -eq 0 ] ||
	die_with_logs "busy: $downs_busy scale-down decision(s) within ${HOLD_CHECK_S}s at $WANT vCPUs"

# --- 4. the loops stop: back to 1 vCPU
wait_console "linux-bench: busy done" $((BUSY_S + SCALE_TIMEOUT)) ||
	die_with_logs "$GUEST: the busy phase never ended"
done_cs=$(now_cs)
busy_wall_s=$(since "$busy_cs")
guest_share=$(share "$busy_guest_s" "$(cpu_s "$GUEST")" "$busy_wall_s")
dom0_share=$(share "$busy_dom0_s" "$(cpu_s Domain-0)" "$busy_wall_s")
note "busy phase: Xen gave the domU ${guest_share}% and dom0 ${dom0_share}% of one CPU over $busy_wall_s s"
wait_linux_online 0 $SCALE_TIMEOUT ||
	die_with_logs "idle: the domU never went back to vCPU 0 alone"
down_s=$(since "$done_cs")
expect_xen_online 1 "idle, vCPU 1 offline in the domU"
note "idle: 1 vCPU online (domU, then xl vcpu-list) $down_s s after the busy phase ended"

# --- 5. stop; every decision was on Xen's figure
stop_autoscaler $STOP_TIMEOUT
finish
[ $AS_RC -eq 0 ] || fail "autoscaler exited $AS_RC after SIGTERM"
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

result SUCCESS "stock Linux 6.1, --signal xen: busy -> $WANT vCPUs (domU, xl vcpu-list) in $up_s s; loops stopped -> 1 in $down_s s; Xen load max ${busy_max}%, last ${idle_last}%; busy phase: domU ${guest_share}%, dom0 ${dom0_share}% of one CPU; $ups up / $downs down decisions"
