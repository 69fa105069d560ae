# Scenario linux-text-patchers: the other writers of kernel text live with
# the UP/SMP switches: a kprobe on a recorded lock site is refused, a
# static key toggled and the function tracer turned on and off while vCPUs
# come and go leave the text consistent and the counters exact.
# config: debug debian
# Needs a configuration with modules, kprobes, static keys and the
# function tracer: the debug one (make test-linux CONFIG=debug: also
# lockdep) or Debian's (CONFIG=debian); with another: SKIP, saying so.
# limit: 600
# The limit, in seconds: the other text writers beside vcpu-set round trips,
# in the debug configuration.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4, smpalt.stress=1)
# with linux-smpalt.steps (/init runs the steps dom0 asks for); the test
# module smpalt_locks (tests/linux/modules/) loaded while UP (its lock
# sites recorded). 1: a kprobe on the module's marked lock prefix and one
# on the entry of the function holding it (the module's kprobe file), with
# 1 vCPU and after vcpu-set 2. 2: a shell loop in the guest enabling and
# disabling the module's static key without pause, a run of the module's
# counters threads (whose path depends on the key) and ROUNDS x vcpu-set
# 1, 2. 3: the same with a loop setting current_tracer to function and
# back to nop, the trace limited to the module's functions (the counters
# threads run them on every vCPU; each toggle patches their entries under
# text_mutex, as the switches patch lock sites; docs/linux.md says why not
# every function). 4:
# rmmod, insmod while SMP (not recorded), the kprobes again.
# Expected: 1: the probe on the lock prefix refused with -EINVAL (22), the
# one on the function entry accepted (0), both with 1 and 2 vCPUs. 2 and
# 3: every vcpu-set switches (+1), Xen agrees (check_xen_view); the loop
# made at least one round without a failed write; the module's run exact
# (for 2, some rounds took the key's path: keyed > 0); the kernel's
# counters check ok. 4: both probes accepted (a text never switched keeps
# its lock prefixes). Throughout: refused and failed 0, no alarming
# console line (linux_alarm: BUG, WARNING, lockdep's reports...), the
# domain runs.
# Figures: key toggles, tracer toggles.

BOOT_TIMEOUT=240
STEP_TIMEOUT=90
THREADS=4
ROUNDS_RUN=100000
ROUNDS=3
# Keep in step with extra= in xl-configs/linux-smpalt.cfg; a small trace
# buffer for a 64 MB guest.
EXTRA="console=hvc0 rdinit=/init smpalt.stress=1 linux-smpalt.steps trace_buf_size=64K"
KO=$LINUX_MODULES/smpalt_locks.ko
D=$LINUX_LOCKS_DEBUGFS
T=/sys/kernel/tracing
EINVAL=22

# step N WHAT: vcpu-set N, which changes the mode: switches +1, Xen agrees.
step() {
	switches=$((switches + 1))
	vcpu_set_step "$1" $switches "$LAST_NS" $STEP_TIMEOUT "$2"
	check_xen_view "$2"
}

# kprobes WHAT SITE ENTRY: the module's two kprobes answer SITE and ENTRY.
kprobes() {
	linux_step_ok $LINUX_STEP_TIMEOUT "echo 1 >$D/kprobe && cat $D/kprobe"
	[ "$STEP_OUT" = "site=$2 entry=$3" ] ||
		fail "$1: kprobes '$STEP_OUT', expected site=$2 (the lock prefix) entry=$3 (the function's entry)"
}

# loop_start NAME BODY: start a shell loop in the guest running BODY (which
# adds its failed writes to f) until /tmp/NAME.on is removed.
loop_start() {
	linux_step_ok $LINUX_STEP_TIMEOUT "mkdir -p /tmp && rm -f /tmp/$1.count && touch /tmp/$1.on && (n=0 f=0; while [ -f /tmp/$1.on ]; do $2; n=\$((n + 1)); done; echo \$n \$f >/tmp/$1.count) >/dev/null 2>&1 &"
}

# loop_stop NAME WHAT: stop it; it must have made a round and no failed
# write. Sets LOOPS.
loop_stop() {
	linux_step_ok $LINUX_STEP_TIMEOUT "rm /tmp/$1.on; i=0; while [ ! -f /tmp/$1.count ] && [ \$i -lt 50 ]; do sleep 1; i=\$((i + 1)); done; cat /tmp/$1.count"
	set -- "$1" "$2" $STEP_OUT
	[ "${3:-0}" -gt 0 ] 2>/dev/null || fail "$2: the loop made no round ('$STEP_OUT')"
	[ "${4:-}" = 0 ] || fail "$2: $4 failed write(s) in $3 rounds"
	LOOPS=$3
}

# toggles WHAT: ROUNDS x vcpu-set 1, 2.
toggles() {
	local r=1
	while [ $r -le $ROUNDS ]; do
		step 1 "$1: round $r: vcpu-set 1"
		step 2 "$1: round $r: vcpu-set 2"
		r=$((r + 1))
	done
}

linux_require_text_writers
linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "extra=\"$EXTRA\""
switches=$SWITCHES
linux_step_ok $LINUX_STEP_TIMEOUT "insmod $KO"
linux_locks_form "loaded while UP" up

# 1: kprobes on a recorded lock site.
kprobes "1: UP" -$EINVAL 0
step 2 "1: vcpu-set 2"
kprobes "1: SMP" -$EINVAL 0
linux_clean "1"

# 2: the static key toggled while vCPUs come and go.
loop_start key "echo 1 >$D/key || f=\$((f + 1)); echo 0 >$D/key || f=\$((f + 1))"
linux_locks_start $THREADS $ROUNDS_RUN
toggles "2: static key"
linux_locks_check "2: the run across the toggles"
loop_stop key "2: static key"
key_loops=$LOOPS
[ "$LOCKS_KEYED" -gt 0 ] 2>/dev/null ||
	fail "2: no round took the static key's path (keyed=$LOCKS_KEYED): the key never took effect"
linux_clean "2"
counters_ok "2"

# 3: the function tracer turned on and off while vCPUs come and go, on
# the module's functions, which the counters threads run on every vCPU.
linux_step_ok $LINUX_STEP_TIMEOUT "grep -qw function $T/available_tracers && echo :mod:smpalt_locks >$T/set_ftrace_filter && wc -l <$T/set_ftrace_filter"
[ "${STEP_OUT:-0}" -gt 0 ] 2>/dev/null ||
	fail "3: no function of smpalt_locks in set_ftrace_filter ('$STEP_OUT')"
traced=$STEP_OUT
loop_start ftrace "echo function >$T/current_tracer || f=\$((f + 1)); echo nop >$T/current_tracer || f=\$((f + 1))"
linux_locks_start $THREADS $ROUNDS_RUN
toggles "3: function tracer"
linux_locks_check "3: the run across the toggles"
loop_stop ftrace "3: function tracer"
ftrace_loops=$LOOPS
linux_step_ok $LINUX_STEP_TIMEOUT "cat $T/current_tracer"
[ "$STEP_OUT" = nop ] || fail "3: current_tracer is '$STEP_OUT' after the loop, expected nop"
linux_clean "3"
counters_ok "3"

# 4: a module loaded while SMP is not recorded: nothing refuses the probe.
linux_step_ok $LINUX_STEP_TIMEOUT "rmmod smpalt_locks && insmod $KO"
linux_locks_form "4: loaded while SMP" smp
kprobes "4: not recorded" 0 0

linux_clean "at the end"
counters_ok "at the end"
guest_destroy
result SUCCESS "kprobe on a recorded lock prefix refused (-$EINVAL) with 1 and 2 vCPUs, accepted on the function entry and on an unrecorded module; static key toggled $key_loops times and function tracer ($traced functions of the module) $ftrace_loops times during $ROUNDS x vcpu-set 1/2 each (switches $switches), module runs exact, counters ok, no alarm"
