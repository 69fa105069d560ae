# Scenario installed: what an administrator types after installing
# smpalt, on the tree put into dom0 by the Debian packages (`dpkg -x` of
# SMPALT_DEBS, which make test-xen gives) or else by `make install
# PREFIX=/usr/local` (SMPALT_INSTALLED says which;
# scripts/build/mkinitramfs.sh).
# Input: `xl create /etc/xen/smpalt.cfg` as installed (guest "smpalt",
# vcpus=1, maxvcpus=4); the program and arguments the installed systemd
# unit would run: its ExecStart with SMPALT_AUTOSCALER_ARGS from
# /etc/default/smpalt-autoscaler as installed (no systemd in this dom0:
# the shell runs the same command line); control/smpalt/demand 150 (work
# for 1.5 vCPUs), then 0; then SIGTERM, as `systemctl stop` sends.
# Expected: the config's kernel is the installed one; the unit runs the
# installed autoscaler; with the default arguments (hold 3 s), high 60%
# and low 30%, demand 150 brings the guest to 2 vCPUs (ceil(150/60) = 3,
# held to the host's 2 CPUs; online 2, mode smp, as xl vcpu-list says),
# demand 0 back to 1 (mode up); the
# autoscaler exits 0 on SIGTERM. Two vCPUs: the harness host has 2 CPUs,
# and xl refuses more without -i.

XLCFG=/etc/xen/smpalt.cfg
UNIT=$SMPALT_UNIT
DEFAULTS=/etc/default/smpalt-autoscaler
NAME=smpalt # name = in the installed config
BOOT_TIMEOUT=60
# Default hold 3 s and period 1 s, the guest's 1 s load samples, xl.
SCALE_TIMEOUT=40
DEMAND=150
SCALED=2
# The high mark is set to 60% (low 30%) beside the installed arguments:
# under QEMU TCG, with dom0 polling beside it, Xen gives the busy guest's
# one vCPU 61-80% of a CPU, and only a guest Xen sees busy above the high
# mark is given more (the wait for the host's CPUs never raises a count:
# docs/autoscaler.md); on hardware a busy vCPU shows near 100%.
TCG_ARGS="--high 60 --low 30"
STOP_TIMEOUT=10
AS_LOG=/tmp/installed-autoscaler.log

# 1. the installed files name each other
[ -f "$XLCFG" ] || result SKIP "no $XLCFG (nothing installed in the initramfs)"
log "installed by: $SMPALT_INSTALLED"
kernel=$(sed -nE 's/^kernel *= *"(.*)"$/\1/p' "$XLCFG")
[ "$kernel" = "$SMPALT_ELF" ] && [ -f "$kernel" ] ||
	fail "$XLCFG: kernel '$kernel', wanted the installed $SMPALT_ELF"
prog=$(sed -nE 's/^ExecStart=([^ ]*) .*/\1/p' "$UNIT")
[ "$prog" = "$SMPALT_AUTOSCALER" ] && [ -x "$prog" ] ||
	fail "$UNIT: ExecStart runs '$prog', wanted the installed $SMPALT_AUTOSCALER"
envfile=$(sed -nE 's/^EnvironmentFile=-?//p' "$UNIT")
[ "$envfile" = "$DEFAULTS" ] || fail "$UNIT: EnvironmentFile '$envfile', wanted $DEFAULTS"
# shellcheck disable=SC1090 # the installed file, as systemd reads it
args=$(. "$DEFAULTS" && echo "$SMPALT_AUTOSCALER_ARGS")
[ -n "$args" ] || fail "$DEFAULTS sets no SMPALT_AUTOSCALER_ARGS"
log "unit: $prog $args (run with $TCG_ARGS before them)"
args="$TCG_ARGS $args"

# 2. the guest, by the installed config alone
GUEST=$NAME
CONSOLE_LOG=$CONSOLE_DIR/guest-$GUEST.log
rm -f "$CONSOLE_LOG"
CREATE_CS=$(now_cs)
xl create -q "$XLCFG" || fail "xl create $XLCFG failed"
DOMID=$(xl domid "$GUEST" 2>/dev/null) || fail "no domain '$GUEST' after xl create $XLCFG"
wait_for_console "$GUEST_READY" $BOOT_TIMEOUT || fail "no '$GUEST_READY' within ${BOOT_TIMEOUT}s"
wait_for_xs data/smpalt/online 1 $BOOT_TIMEOUT || fail "data/smpalt/online is not 1 at boot"

# 3. the autoscaler as the unit runs it
# shellcheck disable=SC2086 # the arguments split as systemd splits $VAR
"$prog" $args >"$AS_LOG" 2>&1 &
AS_PID=$!
finish() {
	echo "--- autoscaler log"
	cat "$AS_LOG"
	echo "---"
}

# 4. load up: two vCPUs, SMP text
xs_write_guest control/smpalt/demand $DEMAND || { stop_autoscaler $STOP_TIMEOUT; finish; fail "cannot write demand"; }
if ! wait_for_xs data/smpalt/online $SCALED $SCALE_TIMEOUT ||
	! wait_for_xs data/smpalt/mode smp 5; then
	stop_autoscaler $STOP_TIMEOUT
	finish
	fail "demand $DEMAND: not at $SCALED vCPUs in smp mode within ${SCALE_TIMEOUT}s"
fi
check_xen_view "demand $DEMAND"

# 5. load gone: one vCPU, UP text
xs_write_guest control/smpalt/demand 0 || { stop_autoscaler $STOP_TIMEOUT; finish; fail "cannot write demand 0"; }
if ! wait_for_xs data/smpalt/online 1 $SCALE_TIMEOUT ||
	! wait_for_xs data/smpalt/mode up 5; then
	stop_autoscaler $STOP_TIMEOUT
	finish
	fail "demand 0: not back at 1 vCPU in up mode within ${SCALE_TIMEOUT}s"
fi
check_xen_view "demand 0"

# 6. systemctl stop: SIGTERM, exit 0
stop_autoscaler $STOP_TIMEOUT
finish
[ $AS_RC -eq 0 ] || fail "the autoscaler exited $AS_RC on SIGTERM, wanted 0"
ups=$(grep -c 'over-high' "$AS_LOG")
downs=$(grep -c 'under-low' "$AS_LOG")
guest_destroy
result SUCCESS "$SMPALT_INSTALLED: xl create $XLCFG; $prog $args: demand $DEMAND -> $SCALED vCPUs smp, 0 -> 1 up ($ups up, $downs down decisions); exit 0 on SIGTERM"
