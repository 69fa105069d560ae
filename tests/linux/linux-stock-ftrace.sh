# Scenario linux-stock-ftrace: the control of linux-text-patchers' limit:
# stock Debian Linux 6.1, without the series, as a PV domU under this
# harness's Xen in QEMU dies when a vCPU comes up while the function
# tracer traces xen_write_msr(), and lives when it does not.
# config: debug
# Run with the debug configuration (make test-linux CONFIG=debug), whose
# limit it documents (docs/linux.md, "The debug configuration"); it needs
# the stock kernel and the patched guest's initramfs (its /init steps),
# not the debug kernel.
# Input: xl create linux.cfg (the stock Debian 6.1 kernel of the dom0
# image, 128 MB) with vcpus=2 maxvcpus=2 and the patched guest's initramfs
# with linux-smpalt.steps; steps: cpu1 offline and online through sysfs
# (the tracer off); the function tracer on for CONTROL only
# (set_ftrace_filter: a function the new vCPU runs just before), cpu1
# offline and online; the tracer on for the functions of LINUX_GS_WINDOW
# only (xen_write_msr() and the calls under it), cpu1 offline and online.
# Expected: the first two bring-ups succeed (online 0-1, the domain runs,
# no alarming console line); the third never completes: stock 6.1's
# load_percpu_segment() (cpu_init() on the new vCPU) loads the null
# selector into %gs, which zeroes the kernel's GS base here, before
# wrmsrl(MSR_GS_BASE) reaches Xen through xen_write_msr(), traced: the
# tracer's per-CPU accesses fault without a per-CPU base. The step is not
# answered within CRASH_TIMEOUT (the online waits for the new vCPU) or the
# domain dies.
# Figures: where vCPU 1 is (xenctx), the guest's and Xen's last lines.

BOOT_TIMEOUT=200
STEP_TIMEOUT=90
CRASH_TIMEOUT=90
EXTRA="console=hvc0 rdinit=/init linux-smpalt.steps"
CPU1=/sys/devices/system/cpu/cpu1/online
T=/sys/kernel/tracing
# Traced in the control: run by the new vCPU in cpu_bringup(), before
# cpu_init().
CONTROL=cr4_init
CYCLE="echo 0 >$CPU1 && echo 1 >$CPU1 && cat /sys/devices/system/cpu/online"

for f in vmlinuz initrd.gz; do
	[ -f "$LINUX_STOCK_DIR/$f" ] ||
		fail "no stock Linux domU: $LINUX_STOCK_DIR/$f is not in the dom0 image (scripts/build/mk-linux-domu.sh, LINUX_DOMU_DIR)"
done
linux_require
domain_create "$LINUX_STOCK_CFG" "ramdisk=\"$LINUX_SMPALT_DIR/initrd.gz\"" \
	"extra=\"$EXTRA\"" vcpus=2 maxvcpus=2
wait_for_console "linux-smpalt: init" $BOOT_TIMEOUT ||
	fail "no 'linux-smpalt: init' line within ${BOOT_TIMEOUT}s of xl create"

linux_step_ok $STEP_TIMEOUT "$CYCLE"
[ "$STEP_OUT" = 0-1 ] || fail "tracer off: online '$STEP_OUT' after cpu1 offline and online, expected 0-1"
linux_step_ok $STEP_TIMEOUT "grep -qw function $T/available_tracers && grep -qx $CONTROL $T/available_filter_functions && echo $CONTROL >$T/set_ftrace_filter && echo function >$T/current_tracer"
linux_step_ok $STEP_TIMEOUT "$CYCLE"
[ "$STEP_OUT" = 0-1 ] || fail "$CONTROL traced: online '$STEP_OUT', expected 0-1"
linux_step_ok $STEP_TIMEOUT "grep -c $CONTROL $T/trace"
[ "$STEP_OUT" -gt 0 ] 2>/dev/null || fail "$CONTROL traced: no call in the trace ('$STEP_OUT'): the control traced nothing"
alarm=$(linux_alarm) && fail "before the traced window: guest console: $alarm"
guest_running || fail "before the traced window: domain state '$(domain_state)'"

linux_step_ok $STEP_TIMEOUT "echo 0 >$CPU1 && echo nop >$T/current_tracer && echo >$T/set_ftrace_filter"
linux_trace_exclude "window" set_ftrace_filter
linux_step_ok $STEP_TIMEOUT "echo function >$T/current_tracer"
mark=$(console_lines)
linux_step_send "echo 1 >$CPU1 && cat /sys/devices/system/cpu/online"
end=$(deadline_cs $CRASH_TIMEOUT)
while guest_running; do
	v=$(xs_read_guest $LINUX_STEP_ANSWER_KEY) || v=''
	case $v in "$LINUX_STEP_N "*)
		fail "the stock kernel onlined cpu1 with the window traced ('$v'): the documented hang did not happen" ;;
	esac
	[ "$(now_cs)" -le "$end" ] || break
	usleep $POLL_USEC
done
state=$(domain_state)
log "vCPU 1 of the guest (xenctx):"
xenctx "$DOMID" 1 2>&1 | head -30 || true
log "the guest's console since the online:"
console_since "$mark" | tail -n 20
xl destroy "$GUEST" 2>/dev/null || true
result SUCCESS "stock 6.1: cpu1 offline/online fine with the tracer off and with $CONTROL traced; with $LINUX_GS_WINDOW traced the bring-up did not complete in ${CRASH_TIMEOUT}s (domain state '${state:-gone}')"
