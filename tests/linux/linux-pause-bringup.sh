# Scenario linux-pause-bringup: xl pause in the middle of a vCPU bring-up
# does not make the patched Linux guest (6.1, 6.12 or 7.2) give the vCPU
# up early: its bound on a new vCPU's start (5 s) counts the domain's own
# time, read from vCPU 0's runstate (running or blocked), not jiffies,
# which jump forward by the whole pause once the domain runs again.
# types: pv
# PV only: the bound on a new vCPU's start and the smpalt.hold_vcpu= knob
# are the PV bring-up's (VCPUOP_up); a PVH vCPU is started by the native
# bring-up, which has its own wait for the AP.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4) with
# smpalt.hold_vcpu=1 (test only: the kernel leaves out VCPUOP_up for
# vCPU 1, as for a vCPU that Xen never runs); xl vcpu-set 2; as soon as
# the console shows "TEST ONLY: vCPU 1 held back", xl pause for
# PAUSE_SECONDS (longer than the bound), then xl unpause; then xl
# vcpu-set 1.
# Expected: the "given up" line comes after the unpause, and between the
# held line and it the guest's clock (which runs on through a pause) shows
# at least UP_TIMEOUT - CLOCK_SLACK seconds beyond the pause as dom0
# timed it (a jiffies bound gives up at once after the unpause: only the
# moments before the pause count); data/smpalt/given-up then 1 or more;
# vcpu-set 1: online 1, mode up, Xen 1; no alarming console line.
# Figures: guest seconds held -> given up, the pause, the difference.

BOOT_TIMEOUT=120
STEP_TIMEOUT=90
HELD=1
# XEN_SMPALT_UP_TIMEOUT_SEC in the kernel (include/xen/xen-ops.h).
UP_TIMEOUT=5
PAUSE_SECONDS=8
# The pause as dom0 times it (xl pause to xl unpause) and as the guest's
# clock sees it differ by the xl commands' own time.
CLOCK_SLACK=1
HELD_LINE="smpalt: TEST ONLY: vCPU $HELD held back"
GIVEN_UP_LINE="vCPU $HELD did not start within $UP_TIMEOUT s of the domain's time: given up"
# Keep in step with extra= in xl-configs/linux-smpalt.cfg.
EXTRA="console=hvc0 rdinit=/init smpalt.stress=1 smpalt.hold_vcpu=$HELD"

linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "extra=\"$EXTRA\""
mark=$(console_lines)
vcpu_set 2 || fail "xl vcpu-set $GUEST 2 failed"
wait_for_console_since "$mark" "$HELD_LINE" $STEP_TIMEOUT ||
	result ERROR "the kernel did not take smpalt.hold_vcpu=$HELD: no '$HELD_LINE' within ${STEP_TIMEOUT}s"
xl pause "$GUEST" || fail "xl pause $GUEST failed"
pause_start=$(now_cs)
# The bound must still be running when the domain stops.
! grep -qF -- "$GIVEN_UP_LINE" "$CONSOLE_LOG" ||
	result ERROR "vCPU $HELD was given up before xl pause took effect: the machine is too slow for this scenario"
sleep $PAUSE_SECONDS
xl unpause "$GUEST" || fail "xl unpause $GUEST failed"
paused=$(since "$pause_start")

wait_for_console "$GIVEN_UP_LINE" $STEP_TIMEOUT ||
	fail "no '$GIVEN_UP_LINE' line within ${STEP_TIMEOUT}s of the unpause"
held_t=$(linux_console_time "$HELD_LINE")
given_t=$(linux_console_time "$GIVEN_UP_LINE")
live=$(awk -v a="$held_t" -v b="$given_t" -v p="$paused" 'BEGIN { printf "%.2f", b - a - p }')
log "held at $held_t s, given up at $given_t s, paused $paused s: $live s of the domain's time"
awk -v l="$live" -v lo=$((UP_TIMEOUT - CLOCK_SLACK)) 'BEGIN { exit !(l >= lo) }' ||
	fail "vCPU $HELD given up $live s of the domain's time after it was held (guest clock $held_t -> $given_t s, pause $paused s): the bound counted the pause (expected at least $((UP_TIMEOUT - CLOCK_SLACK)) s besides it)"
linux_wait_given_up 1 $STEP_TIMEOUT

vcpu_set 1 || fail "xl vcpu-set $GUEST 1 failed"
wait_stable 1 1 $STEP_TIMEOUT ||
	fail "vcpu-set 1 after the give-up: never settled on online=1 mode=up (online='$ONLINE' mode='$MODE')"
check_xen_view "vcpu-set 1 after the give-up"
linux_clean "vcpu-set 1 after the give-up"
guest_destroy

result SUCCESS "xl pause of $paused s during vCPU $HELD's bring-up: given up $live s of the domain's time after it was held (guest clock $held_t -> $given_t s), not at the unpause; vcpu-set 1: online 1 up, Xen 1"
