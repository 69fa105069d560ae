# Scenario debian-autoscale: smpalt-autoscaler scales the Debian guest from
# Xen's own CPU accounting while a real program loads it, and back to one
# vCPU when the load ends; the kernel switches with it.
# guests: debian
# limit: 780
# The limit, in seconds, beyond the boot's allowance the harness adds for
# this guest kind: BUSY_S of load, the scale-down after it, with room.
# Input: the guest started with vcpus=1, maxvcpus=4, idle
# (guest_start_up); the autoscaler with --signal xen (period 0.5 s, high
# 60%, low 30%, hold 1.5 s up and 3 s down) on the guest's name; then in
# the guest, for BUSY_S seconds, xz -T0 compressing the guest's own
# programs again and again (started with systemd-run, so that the step
# returns at once; -T0: as many threads as vCPUs online when each run
# starts).
# Expected: Xen accounts the busy guest more than 60% of its one vCPU, so
# the autoscaler sets 2 vCPUs (at most the host's 2 CPUs): the guest
# publishes online 2, mode smp, within SCALE_TIMEOUT of the load's start,
# and Xen agrees (check_xen_view); once the load has ended the idle guest
# falls under 30% and the autoscaler sets 1 again: online 1, mode up
# within DOWN_TIMEOUT, Xen agrees; switches grew by exactly 2 (one each
# way); the guest is clean (refused 0, failed 0, no alarming console
# line); the autoscaler ran throughout and exits 0 on SIGTERM; before the
# load, once Xen accounts the guest less than 30% of a CPU (within
# SETTLE_TIMEOUT of its boot: a Debian guest under TCG stays busy for a
# while after systemd says running), the autoscaler is started and the
# idle guest stays at one vCPU for IDLE_S (so that the scale-up is the
# load's). The
# state is read once a second, not faster: under TCG each read costs dom0
# CPU that the measured guest would miss.
# Figures: seconds from the load's start (the step that starts it sent)
# to online 2 and from its end to online 1.

AUTOSCALER=$SMPALT_AUTOSCALER
BUSY_S=90
IDLE_S=5
SETTLE_TIMEOUT=180
SCALE_TIMEOUT=75
DOWN_TIMEOUT=90
WANT=2
CSV=/tmp/debian-autoscale.csv
AS_LOG=/tmp/debian-autoscale-autoscaler.log

[ -x "$AUTOSCALER" ] || result SKIP "no $AUTOSCALER in the initramfs (make tools)"
[ "$(host_cpus)" -ge $WANT ] || result SKIP "host has $(host_cpus) CPUs, the scenario needs $WANT"

finish() {
	autoscaler_finish debian-autoscale
}

# wait_published COUNT TIMEOUT: data/smpalt/online reads COUNT within
# TIMEOUT seconds, read once a second (PUBLISHED_CS: when it was seen);
# the autoscaler must still run.
wait_published() {
	local end=$(($(now_cs) + $2 * CS_PER_SEC)) v
	while :; do
		v=$(xs_read_guest data/smpalt/online)
		PUBLISHED_CS=$(now_cs)
		[ "$v" = "$1" ] && return 0
		alive "$AS_PID" || { finish; fail "the autoscaler exited: $(tail -3 "$AS_LOG")"; }
		[ "$(now_cs)" -le $end ] || { finish; fail "data/smpalt/online is '$v' ${2}s on, expected $1"; }
		sleep 1
	done
}

# scaled COUNT SWITCHES TIMEOUT WHAT: wait_published COUNT TIMEOUT, then
# the guest's switches read SWITCHES, its mode fits COUNT, Xen agrees.
scaled() {
	wait_published "$1" "$3"
	read_switch_state "$2" "" "$(guest_param step_timeout)" ||
		{ finish; fail "$4: switches '$SWITCHES', expected $2"; }
	[ "$MODE" = "$(mode_for "$1")" ] || { finish; fail "$4: mode '$MODE', expected $(mode_for "$1")"; }
	check_xen_view "$4"
}

guest_start_up
switches=$SWITCHES

# The idle guest first. A Debian guest keeps a CPU busy for a while after
# its boot ends (under TCG): wait until Xen accounts it less than the low
# mark, then the autoscaler must leave it at one vCPU for IDLE_S (more
# than twice its hold-up), so that the scale-up below is the load's.
idle_cs=$(now_cs)
wait_guest_idle $SETTLE_TIMEOUT 30 ||
	fail "the guest did not settle: Xen accounts it $IDLE_PCT% of a CPU ${SETTLE_TIMEOUT}s after its boot"
log "idle: $IDLE_PCT% of a CPU over ${IDLE_WINDOW_S}s, $(since "$idle_cs") s after systemd's running"
$AUTOSCALER --signal xen --period 0.5 --high 60 --low 30 \
	--hold-up 1.5 --hold-down 3 --csv "$CSV" "$GUEST" >"$AS_LOG" 2>&1 &
AS_PID=$!
sleep $IDLE_S
v=$(xs_read_guest data/smpalt/online)
alive "$AS_PID" || { finish; fail "the autoscaler exited: $(tail -3 "$AS_LOG")"; }
[ "$v" = 1 ] || { finish; fail "the idle guest was scaled to '$v' vCPUs before any load"; }

# The load's start: when the step is sent (the step itself runs in the
# guest before its answer comes back).
load_cs=$(now_cs)
linux_step_ok "$(guest_param step_timeout)" \
	"systemd-run --quiet --collect --unit=smpalt-load timeout $BUSY_S bash -c 'while :; do xz -T0 -6 -c /usr/bin/* >/dev/null; done'"
scaled 2 $((switches + 1)) $SCALE_TIMEOUT "scaled up"
up_s=$(cs_to_s $((PUBLISHED_CS - load_cs)))
note "online 2, smp, $up_s s after the load started"

# The load's end: BUSY_S after its start.
while [ $(($(now_cs) - load_cs)) -lt $((BUSY_S * CS_PER_SEC)) ]; do sleep 1; done
end_cs=$(now_cs)
scaled 1 $((switches + 2)) $DOWN_TIMEOUT "scaled down"
down_s=$(cs_to_s $((PUBLISHED_CS - end_cs)))
guest_clean "scaled down"
stop_autoscaler
finish
[ "$AS_RC" = 0 ] || fail "the autoscaler exited $AS_RC on SIGTERM"
guest_destroy
result SUCCESS "xz -T0 for ${BUSY_S}s: online 2 (smp) ${up_s}s after its start, online 1 (up) ${down_s}s after its end, Xen agreed, 2 switches"
