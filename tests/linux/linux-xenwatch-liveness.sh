# Scenario linux-xenwatch-liveness: a vCPU that never starts does not stop
# the patched Linux guest (6.1, 6.12 or 7.2): its bring-up is given up
# within the bound, and meanwhile the guest keeps serving xenstore: a watch
# is handled, the next vCPU change acted on, and xl shutdown completes.
# types: pv
# PV only: smpalt.hold_vcpu= leaves out VCPUOP_up, the PV bring-up's; a
# PVH vCPU is started by INIT and SIPI (the native bring-up).
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4) with
# smpalt.hold_vcpu=2 (test only: the kernel leaves out VCPUOP_up for
# vCPU 2, as for a vCPU that Xen never runs); xl vcpu-set 3 and at once a
# counters check (control/smpalt/check, a watch served by the xenwatch
# thread); then xl vcpu-set 1; then xl vcpu-set 3 and at once xl shutdown.
# Expected: the console's "TEST ONLY: vCPU 2 held back" line; the check
# answers ok, on the console before the "vCPU 2 did not start within 5 s
# of the domain's time: given up" line (xenwatch served it while the
# bring-up waited); that line UP_TIMEOUT (5, XEN_SMPALT_UP_TIMEOUT_SEC) to
# UP_TIMEOUT + GIVE_UP_SLACK seconds of guest time after the held line;
# data/smpalt/given-up 1 or more, then 2 or more (the kernel tries a vCPU
# given up again while it stays available, after 1 s doubling up to 60 s;
# a busy host may read the count only after a retry); online 2,
# mode smp, held (wait_stable), Xen 2 (check_xen_view: vCPU 2 down in
# Xen); vcpu-set 1: online 1, mode up, Xen 1, and given-up unchanged
# RETRY_QUIET seconds on (no retry of a vCPU taken away); refused 0, no
# alarming console line (linux_alarm), the domain runs; xl
# shutdown, sent while vCPU 2 may again be waited for: the domain is gone
# within SHUTDOWN_TIMEOUT.
# Figures: held -> given up and check -> given up (guest seconds),
# shutdown seconds.

BOOT_TIMEOUT=120
STEP_TIMEOUT=90
SHUTDOWN_TIMEOUT=120
HELD=2
# XEN_SMPALT_UP_TIMEOUT_SEC in the kernel (include/xen/xen-ops.h).
UP_TIMEOUT=5
# Guest seconds the give-up may come after the bound on a busy machine.
GIVE_UP_SLACK=10
HELD_LINE="smpalt: TEST ONLY: vCPU $HELD held back"
GIVEN_UP_LINE="vCPU $HELD did not start within $UP_TIMEOUT s of the domain's time: given up"
# Longer than any retry the kernel may still have queued (1 s, 2 s, 4 s
# ... after each give-up) when vCPU 2 is taken away.
RETRY_QUIET=10
# Keep in step with extra= in xl-configs/linux-smpalt.cfg.
EXTRA="console=hvc0 rdinit=/init smpalt.stress=1 smpalt.hold_vcpu=$HELD"

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "extra=\"$EXTRA\""
linux_expect_keys "after boot" given-up=0

vcpu_set 3 || fail "xl vcpu-set $GUEST 3 failed"
counters_ok "while vCPU $HELD is brought up"
check_line="ok items=$CHECK_ITEMS"
wait_for_console "$GIVEN_UP_LINE" $STEP_TIMEOUT ||
	fail "vcpu-set 3: no '$GIVEN_UP_LINE' line within ${STEP_TIMEOUT}s"
held_t=$(linux_console_time "$HELD_LINE")
[ -n "$held_t" ] ||
	result ERROR "the kernel did not take smpalt.hold_vcpu=$HELD: console lacks '$HELD_LINE'"
given_t=$(linux_console_time "$GIVEN_UP_LINE")
check_t=$(linux_console_time "$check_line")
[ -n "$check_t" ] || fail "no console line with '$check_line' (the check's answer)"
waited=$(awk -v a="$held_t" -v b="$given_t" 'BEGIN { printf "%.3f", b - a }')
awk -v w="$waited" -v lo=$UP_TIMEOUT -v hi=$((UP_TIMEOUT + GIVE_UP_SLACK)) \
	'BEGIN { exit !(w >= lo && w <= hi) }' ||
	fail "vCPU $HELD given up $waited s after it was held, expected $UP_TIMEOUT..$((UP_TIMEOUT + GIVE_UP_SLACK)) s"
ahead=$(awk -v a="$check_t" -v b="$given_t" 'BEGIN { printf "%.3f", b - a }')
awk -v a="$check_t" -v h="$held_t" -v b="$given_t" 'BEGIN { exit !(a < b) }' ||
	fail "the check was answered at $check_t s, not before the give-up at $given_t s (held at $held_t s): xenwatch waited for the bring-up"
log "held at $held_t s, check answered at $check_t s, given up at $given_t s"

linux_wait_given_up 1 $STEP_TIMEOUT
first=$GIVEN_UP
# Tried again: 1 s on, given up again after the bound.
linux_wait_given_up 2 $STEP_TIMEOUT
wait_stable 2 2 $STEP_TIMEOUT ||
	fail "vcpu-set 3 with vCPU $HELD held: never settled on online=2 mode=smp (online='$ONLINE' mode='$MODE')"
check_xen_view "vCPU $HELD given up"
linux_clean "vCPU $HELD given up"

vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
wait_stable 1 1 $STEP_TIMEOUT ||
	fail "vcpu-set 1 after the give-up: never settled on online=1 mode=up (online='$ONLINE' mode='$MODE')"
check_xen_view "vcpu-set 1 after the give-up"
given=$(xs_read_guest data/smpalt/given-up) || fail "data/smpalt/given-up unreadable"
[ "$given" -ge 2 ] || fail "vcpu-set 1: given-up is $given, expected 2 or more"
sleep $RETRY_QUIET
linux_expect_keys "vcpu-set 1 after the give-up, ${RETRY_QUIET}s on" given-up=$given
linux_clean "vcpu-set 1 after the give-up"

echo "--- xenstore of $GUEST (domain $DOMID) before shutdown"
xenstore-ls -f "/local/domain/$DOMID" 2>&1
echo "---"
vcpu_set 3 || fail "xl vcpu-set $GUEST 3 (before shutdown) failed"
start=$(now_cs)
xl shutdown "$GUEST" || fail "xl shutdown $GUEST failed"
wait_domain_gone $SHUTDOWN_TIMEOUT ||
	fail "xl shutdown: $GUEST still there ${SHUTDOWN_TIMEOUT}s on (state '$(domain_state)')"
shutdown_s=$(since "$start")
alarm=$(linux_alarm) && fail "guest console: $alarm"

result SUCCESS "vCPU $HELD held: given up $waited s after it was held (bound $UP_TIMEOUT s), the check answered $ahead s before, given-up $first then $GIVEN_UP (retried), online 2 smp, Xen 2; vcpu-set 1 acted on (online 1 up, Xen 1, given-up $given and no retry ${RETRY_QUIET}s on); xl shutdown done in $shutdown_s s"
