# Scenario bench-debian-real (make bench): real Debian programs in the
# Debian 13 guest, the patched kernel's UP code against its SMP code, and
# Debian's own kernel of the same version as the control.
# guests: debian
# types: pv
# limit: 1500
# The limit, in seconds, beyond the boot's allowance the harness adds for
# this guest kind: a second boot (the control), and two guests' seven
# rounds of three programs (about 30 s a round under TCG), with room.
# Input: the Debian guest (xl-configs/debian.cfg, vcpus=1, maxvcpus=2) with
#   1. the package's kernel, booted by pvgrub2 (guest_start_up), then
#   2. Debian's cloud-amd64 kernel of the same version, booted from
#      /opt/smpalt/debian/stock/ (debian_boot_stock: make bench carries it)
# In each, PHASES alternately with 1 vCPU online and with 2 (the second
# idle), and in each phase one timed run of every program of PROGRAMS,
# pinned to CPU 0 (smpalt-real in the guest, scripts/domu/debian/: sqlite3
# in WAL mode with synchronous=FULL, xz -T2, redis-server with
# redis-benchmark), after one untimed run of each to warm the caches.
# Stock Linux onlines no added vCPU by itself: its second vCPU is onlined
# through sysfs after xl vcpu-set 2, and it takes it down itself at
# xl vcpu-set 1, as the udev rule of a distribution would have it.
# Expected: every run succeeds and checks its own output (smpalt-real);
# the patched kernel's phases run in the form of their count, up at 1 and
# smp at 2, with switches unchanged from a run's start to its end (no
# switch inside a measured run), Xen agreeing (check_xen_view) and the
# guest clean; the stock kernel's phases run with exactly the phase's
# vCPUs online, in Xen's view and the guest's (/sys/devices/system/cpu/
# online), from a run's start to its end. The times go to
# bench-debian-real.csv (kernel, program, form, online, phase, ms,
# output); scripts/report/bench-report.py makes the ratios. The figures
# are reported, not judged. Not in the default set (bench-*).

PROGRAMS="sqlite xz redis"
PHASES="1 2 1 2 1 2"
RUN_TIMEOUT=300
STEP_TIMEOUT=$(guest_param step_timeout)
CSV=$RESULTS_DIR/bench-debian-real.csv

# size_of PROGRAM: its size for smpalt-real, a run of a few seconds under
# QEMU TCG: INSERTs, MiB compressed, requests of each type.
size_of() {
	case $1 in
	sqlite) echo 1500 ;;
	xz) echo 4 ;;
	redis) echo 1000 ;;
	esac
}

# run_program KERNEL PROGRAM FORM N PHASE: one timed run, its row
# appended to CSV unless PHASE is empty (the warm-up).
run_program() {
	local ms
	linux_step "$RUN_TIMEOUT" "smpalt-real $2 $(size_of "$2")"
	[ "$STEP_RC" = 0 ] || fail "$1 phase $5: smpalt-real $2: status $STEP_RC: $STEP_OUT"
	ms=${STEP_OUT#ms=}
	ms=${ms%% *}
	case $ms in '' | *[!0-9]*) fail "$1 phase $5: smpalt-real $2 printed '$STEP_OUT', expected ms=<n> ..." ;; esac
	[ -z "$5" ] || echo "$1,$2,$3,$4,$5,$ms,\"$STEP_OUT\"" >>"$CSV"
	note "$1 $3 ($4 online)${5:+ phase $5}: $2 $STEP_OUT"
}

# patched_runs PHASE N SWITCHES: every program once in the patched kernel
# with N vCPUs online, each run wholly in N's form (PHASE empty: the
# untimed warm-up).
patched_runs() {
	local p form
	form=$(mode_for "$2")
	for p in $PROGRAMS; do
		if ! read_switch_state "$3" "" "$STEP_TIMEOUT" || [ "$MODE" != "$form" ]; then
			fail "patched phase $1: before $p: mode '$MODE', switches '$SWITCHES', expected $form, $3"
		fi
		run_program patched "$p" "$form" "$2" "$1"
		if ! read_switch_state "$3" "" "$STEP_TIMEOUT" || [ "$MODE" != "$form" ]; then
			fail "patched phase $1: $p ran, then mode '$MODE', switches '$SWITCHES': a switch inside the run"
		fi
	done
	check_xen_view "patched phase ${1:-warm-up}"
	linux_clean "patched phase ${1:-warm-up}"
}

# stock_online N: Xen's count of the guest's online vCPUs (xen_n) and the
# guest's own (its online list, list) are both N.
stock_online() {
	local want=0
	[ "$1" = 1 ] || want=0-$(($1 - 1))
	xen_n=$(xen_online_vcpus) || fail "stock: cannot count Xen's online vCPUs"
	linux_step_ok "$STEP_TIMEOUT" "cat /sys/devices/system/cpu/online"
	list=$STEP_OUT
	[ "$xen_n" = "$1" ] && [ "$list" = "$want" ] || return 1
}

# stock_set N: xl vcpu-set N in the stock guest and, for 2, its second
# vCPU onlined through sysfs; within STEP_TIMEOUT both views say N.
stock_set() {
	local end
	vcpu_set "$1" || fail "stock: xl vcpu-set $GUEST $1 failed"
	end=$(($(uptime_cs) + STEP_TIMEOUT * CS_PER_SEC))
	if [ "$1" = 2 ]; then
		# The kernel marks the vCPU present when it sees availability
		# "online"; the write fails until then.
		linux_step_ok "$STEP_TIMEOUT" "for i in \$(seq 100); do echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null && exit 0; sleep 0.2; done; exit 1"
	fi
	until stock_online "$1"; do
		[ "$(uptime_cs)" -le "$end" ] ||
			fail "stock: vcpu-set $1: Xen counts '$(xen_online_vcpus)' online, the guest '$list', ${STEP_TIMEOUT}s on"
		sleep 1
	done
}

# stock_runs PHASE N: every program once in the stock kernel with N vCPUs
# online in both views from each run's start to its end.
stock_runs() {
	local p
	for p in $PROGRAMS; do
		stock_online "$2" || fail "stock phase $1: before $p: Xen $xen_n online, the guest '$list', expected $2"
		run_program stock "$p" smp "$2" "$1"
		stock_online "$2" || fail "stock phase $1: after $p: Xen $xen_n online, the guest '$list', expected $2"
	done
	alarm=$(linux_alarm) && fail "stock phase ${1:-warm-up}: guest console: $alarm"
	guest_running || fail "stock phase ${1:-warm-up}: domain state '$(domain_state)'"
}

echo "kernel,program,form,online,phase,ms,output" >"$CSV"

# --- 1. the patched kernel
guest_start_up maxvcpus=2
linux_step_ok "$STEP_TIMEOUT" "uname -r"
patched_release=$STEP_OUT
switches=$SWITCHES from=1 phase=0
patched_runs "" 1 "$switches"
for n in $PHASES; do
	phase=$((phase + 1))
	if [ "$n" != "$from" ]; then
		switches=$((switches + 1))
		vcpu_set_step "$n" $switches "" "$STEP_TIMEOUT" "patched phase $phase: vcpu-set $n"
	fi
	patched_runs $phase "$n" "$switches"
	from=$n
done
guest_destroy
send_back "console-$GUEST-patched.log" "$CONSOLE_LOG"

# --- 2. the stock kernel (the control)
debian_boot_stock "$(guest_param boot_timeout)" maxvcpus=2
linux_step_ok "$STEP_TIMEOUT" "uname -r"
stock_release=$STEP_OUT
case $stock_release in *-smpalt) fail "the control runs the patched kernel '$stock_release'" ;; esac
from=1 phase=0
stock_runs "" 1
for n in $PHASES; do
	phase=$((phase + 1))
	[ "$n" = "$from" ] || stock_set "$n"
	stock_runs $phase "$n"
	from=$n
done
guest_destroy
send_back "console-$GUEST-stock.log" "$CONSOLE_LOG"

echo "--- $CSV"
cat "$CSV"
send_back bench-debian-real.csv "$CSV"
result SUCCESS "$PROGRAMS pinned to CPU 0 in $phase phases (1 and 2 vCPUs online, alternated) in $patched_release (UP and SMP code) and in the control $stock_release"
