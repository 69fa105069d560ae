# Scenario debian-udev-online: with a distribution-style udev rule that
# onlines every CPU added to the system, the kernel's own onlining of a
# vCPU the toolstack adds and udev's race, and neither makes an error.
# guests: debian
# limit: 600
# The limit, in seconds, beyond the boot's allowance the harness adds for
# this guest kind: the rule's install, three steps of up to 90 s each and
# two counters checks.
# Input: the Debian guest started with vcpus=1, maxvcpus=4; the rule
#     SUBSYSTEM=="cpu", ACTION=="add", TEST=="online", ATTR{online}=="0", ATTR{online}="1"
# (the form cloud images and distributions ship, e.g. as
# 40-vm-hotadd.rules) written to /etc/udev/rules.d/ and udev's rules
# reloaded; xl vcpu-set 4, then 2, then 1.
# Expected: at each step online and mode follow the count (smp at 4 and 2,
# up at 1), switches grows by one exactly on the steps that cross between
# 1 and more (1 -> 4 and 2 -> 1: 2 in all), Xen's view equals the guest's
# (check_xen_view); the kernel refuses nothing and nothing fails
# (refused 0, failed 0), no alarming console line; the counters check
# (smpalt-appends) answers ok at 4 and at 1; journalctl shows no line of
# priority err or worse from systemd-udevd.service (the daemon and its
# workers) during the steps (a write of 1
# to a cpu already online is no error: the kernel returns 0).

STEP_TIMEOUT=$(guest_param step_timeout)
RULE='SUBSYSTEM=="cpu", ACTION=="add", TEST=="online", ATTR{online}=="0", ATTR{online}="1"'
RULES_FILE=/etc/udev/rules.d/40-smpalt-cpu-online.rules

guest_start_up
linux_step_ok "$STEP_TIMEOUT" "printf '%s\n' '$RULE' >$RULES_FILE && udevadm control --reload && cat $RULES_FILE"
log "rule installed: $STEP_OUT"
linux_step_ok "$STEP_TIMEOUT" "date +%s"
since_s=$STEP_OUT

vcpu_set_step 4 1 "" "$STEP_TIMEOUT" "vcpu-set 4"
check_xen_view "at 4"
guest_clean "at 4"
guest_counters_ok "at 4"
at4=$STEP_OUT
vcpu_set_step 2 1 "" "$STEP_TIMEOUT" "vcpu-set 2"
check_xen_view "at 2"
guest_clean "at 2"
vcpu_set_step 1 2 "" "$STEP_TIMEOUT" "vcpu-set 1"
[ "$MODE" = up ] || fail "vcpu-set 1: mode '$MODE', expected up"
check_xen_view "at 1"
guest_counters_ok "at 1"

linux_step_ok "$STEP_TIMEOUT" "journalctl -q --no-pager -p err -u systemd-udevd --since @$since_s"
[ -z "$STEP_OUT" ] || fail "udev logged errors during the steps: $STEP_OUT"
guest_destroy
result SUCCESS "udev's onlining rule installed: 1 -> 4 -> 2 -> 1 with 2 switches, Xen agreed at each, no udev error; counters at 4: $at4"
