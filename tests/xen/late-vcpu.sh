# Scenario late-vcpu: a secondary that Xen runs but that reports late is
# never lost by the guest, so no UP text ever runs beside it.
# Input: xl create (vcpus=1, maxvcpus=4) with the test-only knob
# extra="smpalt.test.late_alive_ms=LATE_MS": each secondary spins LATE_MS
# after it really runs before it reports alive, beyond the guest's 10 s
# bring-up wait; demand 300; xl vcpu-set 2; as soon as the guest publishes
# online=2, xl vcpu-set 1 (vCPU 1 is still spinning then).
# Expected: data/smpalt/refused reads 0 from boot on. After vcpu-set 2 the
# guest logs "vCPU 1 slow: up in Xen ... counted online", publishes
# online=2 mode=smp and Xen reports 2 vCPUs (check_xen_view). From
# vcpu-set 1 until the guest reads online=1 mode=up, every poll that finds
# mode=up then finds Xen reporting 1 vCPU (the guest's mode is read first:
# a correct guest goes down before it switches). Then online=1, mode=up,
# Xen 1 vCPU, switches +2 in all, refused still 0 (the guest's account
# followed Xen: nothing needed refusing), no alarm on the console, the
# counters check ok with items > 0.
# Figures (log and result): ms from vcpu-set 2 to online=2 (the bring-up
# wait), ms from vcpu-set 1 to online=1 mode=up (the rest of vCPU 1's
# delay, then its down and the switch), polls of mode and Xen's view made
# in that window and how many saw Xen with 2 vCPUs.

BOOT_TIMEOUT=60
STEP_TIMEOUT=30
WORKLOAD_TIMEOUT=20
DEMAND=300
# Beyond the guest's bring-up wait (10 s, arch-xen/smp.c), and within it
# plus its 5 s wait for a vCPU asked down, so that vCPU 1 goes down while
# vCPU 0 still waits for it.
LATE_MS=12000
KNOB="smpalt.test.late_alive_ms=$LATE_MS"
SLOW_LINE="vcpu: vCPU 1 slow: up in Xen"

boot_under_load $DEMAND $BOOT_TIMEOUT $STEP_TIMEOUT $WORKLOAD_TIMEOUT \
	"extra=\"$KNOB\""
# The counter is 0 from boot on (it never goes down).
wait_for_xs data/smpalt/refused 0 $STEP_TIMEOUT ||
	fail "after boot: data/smpalt/refused is '$(xs_read_guest data/smpalt/refused)', expected 0"

# Up: vCPU 1 runs in Xen at once but reports only after LATE_MS.
vcpu_set_step 2 1 "" $STEP_TIMEOUT
up_ms=$STEP_MS
check_xen_view "vcpu-set 2, vCPU 1 not reporting yet"
log "vcpu-set 2: online=2 mode=smp after $up_ms ms"

# Down while vCPU 1 is still silent: watch mode against Xen's view.
start=$(uptime_cs)
vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
end=$((start + STEP_TIMEOUT * CS_PER_SEC))
polls=0 polls_xen2=0
while :; do
	# Mode first: a correct guest is down in Xen before its text is UP.
	vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode)
	# shellcheck disable=SC2086 # two words on purpose
	set -- $vals
	g_online=${1:-} g_mode=${2:-}
	xen=$(xen_online_vcpus)
	polls=$((polls + 1))
	[ "$xen" -gt 1 ] && polls_xen2=$((polls_xen2 + 1))
	[ "$g_mode" = up ] && [ "$xen" -gt 1 ] &&
		fail "vcpu-set 1: mode up while Xen reports $xen vCPUs online (xl vcpu-list), poll $polls"
	[ "$g_online" = 1 ] && [ "$g_mode" = up ] && break
	[ "$(uptime_cs)" -le "$end" ] ||
		fail "vcpu-set 1: after ${STEP_TIMEOUT}s online='$g_online' mode='$g_mode', Xen $xen online"
	usleep $FAST_POLL_USEC
done
down_ms=$((($(uptime_cs) - start) * CS_TO_MS))
log "vcpu-set 1: $polls polls, $polls_xen2 with Xen at 2 vCPUs, online=1 mode=up after $down_ms ms"

# The console file may trail the keys: wait a little for the slow line.
wait_for_console "$SLOW_LINE" 10 ||
	fail "online=2 after vcpu-set 2 ($up_ms ms) but no '$SLOW_LINE' line: vCPU 1 was not late (knob $KNOB)"
read_switch_state 2 "" $STEP_TIMEOUT ||
	fail "after vcpu-set 1: switches is '$SWITCHES', expected 2"
check_xen_view "after vcpu-set 1"
[ "$XEN_ONLINE" = 1 ] || fail "after vcpu-set 1: Xen reports $XEN_ONLINE vCPUs"
refused=$(xs_read_guest data/smpalt/refused)
[ "$refused" = 0 ] ||
	fail "data/smpalt/refused is '$refused': a switch was tried beside a running vCPU"
alarm=$(console_alarm) && fail "guest console: $alarm"
counters_ok
guest_running || fail "domain state '$(domain_state)' after the check"

figures="vcpu-set 2 -> online=2 $up_ms ms; vcpu-set 1 -> online=1 mode=up $down_ms ms; $polls polls, $polls_xen2 with Xen at 2"
note "figures: $figures"
guest_destroy
result SUCCESS "late vCPU 1 ($KNOB) counted online, never UP beside it, refused=0, counters ok items=$CHECK_ITEMS; $figures"
