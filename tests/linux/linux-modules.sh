# Scenario linux-modules: a module's lock sites follow the kernel text's
# form when it was loaded while the text was UP, keep the SMP form when it
# was loaded while the text was SMP, and a module removed during a
# vcpu-set storm leaves the switches consistent; the module's counters stay
# exact throughout.
# config: debug debian
# Needs a configuration with modules: the debug one (make test-linux
# CONFIG=debug: also lockdep, preemption) or Debian's (CONFIG=debian);
# with another: SKIP, saying so.
# limit: 600
# The limit, in seconds: module loads and vcpu-set round trips with counters
# checks, in the debug configuration.
# Input: xl create linux-smpalt.cfg (vcpus=1, maxvcpus=4, smpalt.stress=1)
# with linux-smpalt.steps (/init runs the steps dom0 asks for); the test
# module smpalt_locks (tests/linux/modules/) from the guest's initramfs,
# its runs THREADS threads x ROUNDS rounds of four counters, each through
# another kind of lock site (lock incl at a marked site, atomic64,
# cmpxchg, a spinlock). vcpu-set 2, 1 (the kernel's own site count); A:
# insmod while UP, a run across vcpu-set 2, a run on 4 vCPUs, vcpu-set 1
# and a run, rmmod, vcpu-set 2; B: insmod while SMP, a run, vcpu-set 1 and
# a run, vcpu-set 3 and a run, rmmod; C: vcpu-set 1, insmod while UP, a
# run across a storm of CALLS random vcpu-set, then a run, rmmod and a
# second storm at once, and one vcpu-set changing the mode.
# Expected: A: its marked site in UP form at once (the module recorded
# and patched at load); the first switch while it is loaded rewrites the
# kernel's sites plus N > 0 (data/smpalt/sites: N, the module's), and so
# does each later one, the marked site in the text's form (smp with 2 and
# 4 vCPUs, up with 1); every run exact; after rmmod a switch rewrites the
# kernel's sites only. B: not recorded: the marked site smp before and
# after vcpu-set 1, which rewrites the kernel's sites only; every run
# exact. C: the run across the
# storm exact; rmmod succeeds during the second storm and the module is
# gone from /proc/modules; each storm settles on its last target (held,
# switches parity, Xen agreeing); the next switch rewrites the kernel's
# sites only. Throughout: every step's online, mode and switches (+1 per
# mode change), Xen agreeing (check_xen_view), the kernel's counters check
# ok, refused and failed 0, no alarming console line (linux_alarm: BUG,
# WARNING, lockdep's reports...), the domain runs.
# Figures: the kernel's and the module's site counts, the storms' targets.

BOOT_TIMEOUT=240
STEP_TIMEOUT=90
SETTLE_TIMEOUT=180
THREADS=4
ROUNDS=100000
CALLS=10
MAXVCPUS=4 # xl-configs/linux-smpalt.cfg
# Keep in step with extra= in xl-configs/linux-smpalt.cfg.
EXTRA="console=hvc0 rdinit=/init smpalt.stress=1 linux-smpalt.steps"
KO=$LINUX_MODULES/smpalt_locks.ko

# step N WHAT: vcpu-set N, switches +1 when the mode changes, Xen agrees.
step() {
	local want=$switches ns=''
	[ "$(mode_for "$1")" = "$MODE" ] || { want=$((switches + 1)) ns=$LAST_NS; }
	vcpu_set_step "$1" $want "$ns" $STEP_TIMEOUT "$2"
	check_xen_view "$2"
	switches=$SWITCHES
}

# storm WHAT: CALLS vcpu-set with random targets without waiting, then
# settled on the last one, switches parity, Xen agreeing.
storm() {
	local targets='' i=0 n=1 m prev=$MODE start=$MODE changes=0 first=$switches grown odd
	while [ $i -lt $CALLS ]; do
		# shellcheck disable=SC3028 # busybox ash has RANDOM
		n=$((RANDOM % MAXVCPUS + 1))
		targets="$targets $n"
		m=$(mode_for $n)
		[ "$m" = "$prev" ] || changes=$((changes + 1))
		prev=$m
		i=$((i + 1))
	done
	note "$1: vcpu-set$targets ($changes mode changes requested)"
	for n in $targets; do
		vcpu_set "$n" || fail "$1: xl vcpu-set $GUEST $n failed"
	done
	wait_online "$n" $SETTLE_TIMEOUT ||
		fail "$1: online is '$ONLINE' ${SETTLE_TIMEOUT}s on, expected $n (last target)"
	wait_stable "$n" "$n" $SETTLE_TIMEOUT ||
		fail "$1: never settled on online=$n within ${SETTLE_TIMEOUT}s (online='$ONLINE' mode='$MODE' switches='$SWITCHES')"
	# From the mode it started in: switches odd exactly when the mode
	# changed (check_switch_parity counts from UP text).
	grown=$((SWITCHES - first))
	[ $grown -le $changes ] ||
		fail "$1: switches grew by $grown, more than the $changes mode changes requested"
	odd=1
	[ "$(mode_for "$n")" != "$start" ] || odd=0
	[ $((grown % 2)) -eq $odd ] ||
		fail "$1: switches grew by $grown from $start text: odd/even does not fit a final mode of $(mode_for "$n")"
	check_xen_view "$1: settled"
	read_switch_state "$SWITCHES" "" $STEP_TIMEOUT
	switches=$SWITCHES
	STORM_TARGETS=$targets
}

linux_require_text_writers
linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "extra=\"$EXTRA\""
switches=$SWITCHES

# The kernel's own lock sites, without the module.
step 2 "vcpu-set 2"
core=$(xs_read_guest data/smpalt/sites)
[ "$core" -gt 0 ] 2>/dev/null || fail "vcpu-set 2: the switch rewrote '$core' lock sites"
step 1 "vcpu-set 1"
linux_sites "vcpu-set 1" "$core"

# A: loaded while UP: recorded, switched with the kernel.
linux_step_ok $LINUX_STEP_TIMEOUT "insmod $KO"
linux_locks_form "A: loaded while UP" up
linux_locks_start $THREADS $ROUNDS
step 2 "A: vcpu-set 2 during a run"
# The module's own lock sites: what this switch rewrote beyond the kernel's.
mod=$(($(xs_read_guest data/smpalt/sites) - core)) ||
	fail "A: vcpu-set 2: cannot read data/smpalt/sites"
[ "$mod" -gt 0 ] || fail "A: vcpu-set 2: the switch rewrote $((core + mod)) lock sites, the kernel's $core: the module's were not recorded"
linux_locks_form "A: vcpu-set 2" smp
linux_locks_check "A: the run across the switch to SMP"
step 4 "A: vcpu-set 4"
linux_locks_start $THREADS $ROUNDS
linux_locks_check "A: a run on 4 vCPUs"
linux_locks_form "A: 4 vCPUs" smp
step 1 "A: vcpu-set 1"
linux_sites "A: vcpu-set 1" $((core + mod))
linux_locks_form "A: vcpu-set 1" up
linux_locks_start $THREADS $ROUNDS
linux_locks_check "A: a run on 1 vCPU"
linux_step_ok $LINUX_STEP_TIMEOUT "rmmod smpalt_locks"
step 2 "A: rmmod, vcpu-set 2"
linux_sites "A: rmmod, vcpu-set 2" "$core"
linux_clean "A"
counters_ok "A"

# B: loaded while SMP: not recorded, keeps its lock prefixes.
linux_step_ok $LINUX_STEP_TIMEOUT "insmod $KO"
linux_locks_form "B: loaded while SMP" smp
linux_locks_start $THREADS $ROUNDS
linux_locks_check "B: a run on 2 vCPUs"
step 1 "B: vcpu-set 1"
linux_sites "B: vcpu-set 1" "$core"
linux_locks_form "B: vcpu-set 1" smp
linux_locks_start $THREADS $ROUNDS
linux_locks_check "B: a run on 1 vCPU"
step 3 "B: vcpu-set 3"
linux_sites "B: vcpu-set 3" "$core"
linux_locks_start $THREADS $ROUNDS
linux_locks_check "B: a run on 3 vCPUs"
linux_step_ok $LINUX_STEP_TIMEOUT "rmmod smpalt_locks"
linux_clean "B"
counters_ok "B"

# C: rmmod during a vcpu-set storm.
step 1 "C: vcpu-set 1"
linux_step_ok $LINUX_STEP_TIMEOUT "insmod $KO"
linux_locks_form "C: loaded while UP" up
linux_locks_start $THREADS $ROUNDS
storm "C: storm during a run"
storm1=$STORM_TARGETS
linux_locks_check "C: the run across the storm"
linux_locks_start $THREADS $ROUNDS
linux_step_send "rmmod smpalt_locks"
storm "C: storm during rmmod"
storm2=$STORM_TARGETS
linux_step_wait $SETTLE_TIMEOUT
[ "$STEP_RC" = 0 ] || fail "C: rmmod during the storm: status $STEP_RC: $STEP_OUT"
linux_step_ok $LINUX_STEP_TIMEOUT "! grep smpalt_locks /proc/modules"
linux_clean "C: settled"
counters_ok "C: settled"
if [ "$ONLINE" = 1 ]; then n=2; else n=1; fi
step $n "C: vcpu-set $n after the storm"
linux_sites "C: vcpu-set $n" "$core"

linux_clean "at the end"
counters_ok "at the end"
guest_destroy
result SUCCESS "kernel $core lock sites, module $mod: loaded while UP it switched with the kernel (sites $((core + mod)), form followed), loaded while SMP it kept its lock prefixes (sites $core); rmmod during a storm (storms:$storm1 /$storm2); every module run exact ($THREADS x $ROUNDS rounds), counters ok, switches $switches, no alarm"
