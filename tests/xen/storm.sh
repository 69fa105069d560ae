# Scenario storm: bursts of watch events and vCPU changes, sent without
# waiting, leave the guest alive and settled on the last request.
# Input, after "smpalt: ready": ECHO_WRITES writes of distinct tokens to
# control/smpalt/echo back to back; then xl vcpu-set -i through
# VCPU_BURST without waiting in between.
# Expected: data/smpalt/echo ends equal to the last token; online and mode
# settle on the last count (1: up); the domain never crashes.

READY="smpalt: ready"
BOOT_TIMEOUT=60
SETTLE_TIMEOUT=60
ECHO_WRITES=30
VCPU_BURST="2 4 1 3 2 1"

require_guest
guest_create
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"

prefix=$(random_token)
start=$(now_cs)
i=1
while [ $i -le $ECHO_WRITES ]; do
	xs_write_guest control/smpalt/echo "$prefix-$i" ||
		fail "write $i of control/smpalt/echo failed"
	i=$((i + 1))
done
last="$prefix-$ECHO_WRITES"
log "$ECHO_WRITES echo writes in $(since "$start") s"
wait_for_xs data/smpalt/echo "$last" $SETTLE_TIMEOUT ||
	fail "after $ECHO_WRITES writes, data/smpalt/echo is '$(xs_read_guest data/smpalt/echo)', expected '$last'"
note "echo storm settled on the last token $(since "$start") s after the first write"

start=$(now_cs)
for n in $VCPU_BURST; do
	xl vcpu-set -i "$GUEST" "$n" || fail "xl vcpu-set -i $GUEST $n failed"
done
final=$n
if [ "$final" -gt 1 ]; then want=smp; else want=up; fi
wait_for_xs data/smpalt/online "$final" $SETTLE_TIMEOUT ||
	fail "after vcpu-set $VCPU_BURST: online is '$(xs_read_guest data/smpalt/online)', expected $final"
wait_for_xs data/smpalt/mode "$want" $SETTLE_TIMEOUT ||
	fail "after vcpu-set $VCPU_BURST: mode is '$(xs_read_guest data/smpalt/mode)', expected $want"
state=$(domain_state)
case $state in
*[cs]*) fail "domain state '$state' after the bursts" ;;
esac
note "vCPU burst settled at online=$final mode=$want, switches=$(xs_read_guest data/smpalt/switches), $(since "$start") s after the first vcpu-set"

guest_destroy
result SUCCESS "echo x$ECHO_WRITES and vcpu-set $VCPU_BURST settled on the last request"
