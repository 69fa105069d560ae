# Scenario maxvcpus1: a guest that can never have a second vCPU applies
# its UP form once and drops the SMP tables (DESIGN.md, engine rules).
# Input: xl create with vcpus=1 maxvcpus=1.
# Expected: console shows "vcpu: maxvcpus 1", the boot switch to UP, the
# self-test and "alt: maxvcpus is 1: UP for good", then "smpalt: ready";
# data/smpalt/mode = up. Then xl destroy.
# (Added by the guest work; the harness owner may fold it in elsewhere.)

READY="smpalt: ready"
MAX_LINE="vcpu: maxvcpus 1"
UP_ONCE="alt: maxvcpus is 1: UP for good"
BOOT_TIMEOUT=60
KEY_TIMEOUT=20

require_guest
guest_create "vcpus=1" "maxvcpus=1"

wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"
grep -qF -- "$MAX_LINE" "$CONSOLE_LOG" || fail "console lacks '$MAX_LINE'"
grep -qF -- "$UP_ONCE" "$CONSOLE_LOG" || fail "console lacks '$UP_ONCE'"
wait_for_xs data/smpalt/mode up $KEY_TIMEOUT ||
	fail "data/smpalt/mode is '$(xs_read_guest data/smpalt/mode)', expected up"

guest_destroy
result SUCCESS "maxvcpus=1 detected, UP applied for good, mode=up"
