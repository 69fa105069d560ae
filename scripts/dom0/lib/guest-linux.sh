# ------------------------------------------- Linux 6.1 guests (tests/linux/)
# The patched guest's driver is at the end (driver.sh says what a driver
# provides); the helpers before it serve the scenarios of tests/linux/.
# The stock Debian kernel with scripts/build/mk-linux-domu.sh's initramfs
# (the control) and the patched kernel of `make linux` with
# scripts/build/mk-linux-smpalt-domu.sh's initramfs;
# scripts/build/mkinitramfs.sh puts them here (LINUX_DOMU_DIR,
# LINUX_SMPALT_DIR).
LINUX_STOCK_DIR=$SMPALT_DIR/linux
LINUX_STOCK_CFG=$SMPALT_DIR/xl-configs/linux.cfg
LINUX_SMPALT_DIR=$SMPALT_DIR/linux-smpalt
LINUX_SMPALT_CFG=$SMPALT_DIR/xl-configs/linux-smpalt.cfg
# A kernel that needs more memory than the config gives (Debian's
# configuration: scripts/build/mk-linux-smpalt-domu.sh writes the MiB in
# memory beside it) is created from a copy of the config with that much.
if [ -f "$LINUX_SMPALT_DIR/memory" ] && [ -f "$LINUX_SMPALT_CFG" ]; then
	sed "s/^memory *=.*/memory = $(cat "$LINUX_SMPALT_DIR/memory")/" "$LINUX_SMPALT_CFG" \
		>"${TMPDIR:-/tmp}/linux-smpalt.cfg" &&
		LINUX_SMPALT_CFG=${TMPDIR:-/tmp}/linux-smpalt.cfg
fi
# Linux's own words for a kernel in trouble (its console has no error
# mark): BUG, WARNING (lockdep's reports among them), Oops, KASAN/UBSAN,
# lockdep's lock-state reports, a trap, a lockup or stall (RCU's of either
# flavour: rcu_sched, or rcu_preempt in a preemptible kernel such as the
# debug configuration's; a task blocked too long).
LINUX_ALARM='BUG:|WARNING:|Oops|Call Trace|invalid opcode|general protection|segfault|soft lockup|hung task|RCU stall|rcu_sched self-detected|INFO: rcu_[a-z]+ (self-detected stall|detected (expedited )?stalls)|INFO: task .* blocked for more than|KASAN:|UBSAN:|possible (circular|recursive) locking|inconsistent lock state'
# The patched guest's /init quotes the kernel's status (its refused count
# included) on lines with this prefix: quotes, not alarms in themselves.
LINUX_STATUS_LINE='linux-smpalt: status '

# linux_alarm: the first line of a Linux guest's console in LINUX_ALARM's
# words, if any; /init's status quotes aside.
linux_alarm() {
	tr -d '\r' <"$CONSOLE_LOG" | grep -vF -- "$LINUX_STATUS_LINE" |
		grep -E -m1 -- "$LINUX_ALARM"
}

# linux_console_time FIXED: the printk time (seconds) of the first console
# line of the Linux guest that contains FIXED; empty if none.
linux_console_time() {
	tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "$1" |
		sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\].*/\1/p'
}

# linux_wait_given_up COUNT TIMEOUT: data/smpalt/given-up (bring-ups
# given up because Xen did not start the vCPU) reads COUNT or more within
# TIMEOUT seconds; GIVEN_UP is what it read. Not exactly COUNT: the kernel
# tries a held vCPU again 1 s after each give-up, so on a busy host the
# count may pass COUNT between two reads.
linux_wait_given_up() {
	local end
	end=$(($(uptime_cs) + $2 * CS_PER_SEC))
	while :; do
		GIVEN_UP=$(xs_read_guest data/smpalt/given-up) &&
			case $GIVEN_UP in '' | *[!0-9]*) false ;; esac &&
			[ "$GIVEN_UP" -ge "$1" ] && break
		[ "$(uptime_cs)" -le "$end" ] ||
			fail "data/smpalt/given-up is '${GIVEN_UP:-<absent>}' $2 s on, expected $1 or more"
		usleep $POLL_USEC
	done
}

# linux_require: the patched Linux guest is in the dom0 image; the
# scenario fails otherwise (the guest is what it tests).
linux_require() {
	local f
	for f in vmlinuz initrd.gz; do
		[ -f "$LINUX_SMPALT_DIR/$f" ] ||
			fail "no patched Linux guest: $LINUX_SMPALT_DIR/$f is not in the dom0 image (make linux; make test-linux and make test-xen GUEST=linux carry it)"
	done
}

# linux_boot TIMEOUT [xl key=value ...]: xl create of linux-smpalt.cfg
# with the extra config, then "smpalt: ready" (the kernel prints it after
# its first publication) within TIMEOUT. The guest missing from the dom0
# image fails the scenario: it is what the scenario tests.
linux_boot() {
	local timeout=$1
	shift
	linux_require
	domain_create "$LINUX_SMPALT_CFG" "$@"
	guest_wait_ready "$timeout"
}

# linux_boot_up TIMEOUT STEP_TIMEOUT [xl key=value ...]: linux_boot with
# vcpus=1 (the config's), then linux_up_at_boot STEP_TIMEOUT.
linux_boot_up() {
	local boot_timeout=$1 step_timeout=$2
	shift 2
	linux_boot "$boot_timeout" "$@"
	linux_up_at_boot "$step_timeout"
}

# linux_up_at_boot STEP_TIMEOUT: the patched kernel's first publication
# after a boot with one vCPU must read version 1, online 1, mode up,
# switches 0, refused 0, and Xen agree (check_xen_view "after boot"),
# each within STEP_TIMEOUT. Sets MODE, SWITCHES, LAST_NS.
linux_up_at_boot() {
	local step_timeout=$1
	wait_online 1 "$step_timeout" ||
		fail "after boot: data/smpalt/online is '$ONLINE', expected 1"
	read_switch_state 0 "" "$step_timeout" ||
		fail "after boot: data/smpalt/switches is '$SWITCHES', expected 0"
	[ "$MODE" = up ] || fail "after boot: mode is '$MODE', expected up"
	linux_expect_keys "after boot" version=1 refused=0
	check_xen_view "after boot"
}

# linux_expect_keys WHAT KEY=VALUE...: each data/smpalt/KEY holds VALUE
# (one read); fails the scenario naming every key that does not.
linux_expect_keys() {
	local what=$1 kv k v got bad=''
	shift
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		got=$(xs_read_guest "data/smpalt/$k") || got='<absent>'
		[ "$got" = "$v" ] || bad="$bad data/smpalt/$k='$got' (expected $v)"
	done
	[ -z "$bad" ] || fail "$what:$bad"
}

# linux_clean WHAT: data/smpalt/refused and failed are 0, no alarming
# console line (linux_alarm) and the domain runs; fails the scenario
# otherwise.
linux_clean() {
	local alarm
	linux_expect_keys "$1" refused=0 failed=0
	alarm=$(linux_alarm) && fail "$1: guest console: $alarm"
	guest_running || fail "$1: domain state '$(domain_state)'"
}

# linux_status: the text of the guest's last "linux-smpalt: status" line
# (its /init's copy of the kernel's /sys/kernel/debug/smpalt), empty if none.
linux_status() {
	tr -d '\r' <"$CONSOLE_LOG" 2>/dev/null | grep -F -- "$LINUX_STATUS_LINE" |
		tail -1 | sed "s/.*$LINUX_STATUS_LINE//"
}

# linux_wait_status WHAT TIMEOUT NAME=VALUE...: wait until the guest's
# last status line shows every NAME with VALUE ("name=value", "name: value"
# or "name value"); fails the scenario after TIMEOUT seconds, quoting it.
linux_wait_status() {
	local what=$1 timeout=$2 end st kv missing
	end=$(($(uptime_cs) + timeout * CS_PER_SEC))
	shift 2
	while :; do
		st=$(linux_status) missing=''
		for kv in "$@"; do
			printf '%s\n' "$st" |
				grep -qE "(^|[ ;,])${kv%%=*}[=: ]+${kv#*=}([ ;,]|$)" ||
				missing="$missing ${kv%%=*}=${kv#*=}"
		done
		[ -n "$missing" ] || break
		[ "$(uptime_cs)" -le "$end" ] ||
			fail "$what: the kernel's status (debugfs, shown by /init) lacks$missing after ${timeout}s: '${st:-<no status line>}'"
		usleep $POLL_USEC
	done
	log "$what: status '$st'"
}

# ------------- the steps of the configurations with modules and tracers
# The guest kernel's configuration as the dom0 image carries it
# (scripts/build/mk-linux-smpalt-domu.sh copies it beside the kernel).
LINUX_SMPALT_CONFIG=$LINUX_SMPALT_DIR/config
# What the scenarios that load modules and write kernel text with other
# writers ("# config: debug debian": make test-linux CONFIG=debug or
# CONFIG=debian) need of the kernel. The debug configuration adds the
# checkers (lockdep, sleep in atomic) that make their console verdict
# stricter; Debian's configuration has none of them.
LINUX_TEXT_OPTIONS='CONFIG_MODULES CONFIG_MODULE_UNLOAD CONFIG_KPROBES CONFIG_FUNCTION_TRACER CONFIG_DYNAMIC_FTRACE CONFIG_JUMP_LABEL'
LINUX_TEXT_CONFIGS="the debug or Debian configuration (make test-linux CONFIG=debug or CONFIG=debian)"
# The test modules in the guest's initramfs and the test module's files.
LINUX_MODULES=/lib/smpalt-modules
LINUX_LOCKS_DEBUGFS=/sys/kernel/debug/smpalt_locks
# A step a scenario asks the guest for (linux-smpalt.steps on its command
# line): dom0 writes "<n> <command>" here, /init answers
# "<n> <status> <output>" in LINUX_STEP_ANSWER_KEY.
LINUX_STEP_KEY=control/smpalt-step
LINUX_STEP_ANSWER_KEY=data/smpalt-step
LINUX_STEP_N=0

# linux_require_text_writers: the patched guest is in the dom0 image and
# its kernel has modules, kprobes, the function tracer and static keys
# (every LINUX_TEXT_OPTIONS set); the scenario reports SKIP otherwise,
# saying so: it did not run.
linux_require_text_writers() {
	local o missing=''
	linux_require
	[ -f "$LINUX_SMPALT_CONFIG" ] ||
		result SKIP "needs $LINUX_TEXT_CONFIGS: no configuration of the guest's kernel in the dom0 image"
	for o in $LINUX_TEXT_OPTIONS; do
		grep -qx "$o=y" "$LINUX_SMPALT_CONFIG" || missing="$missing $o"
	done
	[ -z "$missing" ] ||
		result SKIP "needs $LINUX_TEXT_CONFIGS: the guest's kernel lacks$missing"
}

# linux_step_send COMMAND: ask the guest's /init to run COMMAND (sh -c),
# without waiting (linux_step_wait collects the answer).
linux_step_send() {
	LINUX_STEP_N=$((LINUX_STEP_N + 1)) LINUX_STEP_CMD=$1
	xs_write_guest $LINUX_STEP_KEY "$LINUX_STEP_N $1" ||
		fail "step '$1': cannot write $LINUX_STEP_KEY"
}

# linux_step_wait TIMEOUT: wait for the answer to the last step sent; sets
# STEP_RC (its exit status) and STEP_OUT (its output, lines joined with
# "; "). No answer within TIMEOUT seconds fails the scenario.
linux_step_wait() {
	local end v
	end=$(($(uptime_cs) + $1 * CS_PER_SEC))
	while :; do
		v=$(xs_read_guest $LINUX_STEP_ANSWER_KEY) || v=''
		case $v in "$LINUX_STEP_N "*) break ;; esac
		[ "$(uptime_cs)" -le "$end" ] ||
			fail "step '$LINUX_STEP_CMD': no answer in $LINUX_STEP_ANSWER_KEY within ${1}s (last: '$v')"
		usleep $POLL_USEC
	done
	# "<status> <output>", or "<status>" alone: an output that equals
	# the status ("0 0") is still an output.
	v=${v#* }
	STEP_RC=${v%% *} STEP_OUT=''
	case $v in *" "*) STEP_OUT=${v#* } ;; esac
	log "step $LINUX_STEP_N: $LINUX_STEP_CMD: status $STEP_RC: $STEP_OUT"
}

# linux_step TIMEOUT COMMAND: linux_step_send COMMAND, linux_step_wait
# TIMEOUT.
linux_step() {
	linux_step_send "$2"
	linux_step_wait "$1"
}

# linux_step_ok TIMEOUT COMMAND: linux_step, and COMMAND must succeed.
linux_step_ok() {
	linux_step "$@"
	[ "$STEP_RC" = 0 ] || fail "step '$2': status $STEP_RC: ${STEP_OUT:-<no output>}"
}

# The test module smpalt_locks (tests/linux/modules/smpalt_locks.c): its
# debugfs files through steps. Limits for a debug kernel under TCG.
LINUX_STEP_TIMEOUT=60
LINUX_LOCKS_RUN_TIMEOUT=180

# linux_locks_form WHAT WANT: the form of the module's marked lock site
# ("smp", "up", or the byte) is WANT; fails the scenario otherwise.
linux_locks_form() {
	linux_step_ok $LINUX_STEP_TIMEOUT "cat $LINUX_LOCKS_DEBUGFS/form"
	[ "$STEP_OUT" = "$2" ] ||
		fail "$1: the module's lock site is in form '$STEP_OUT', expected $2"
}

# linux_locks_start THREADS ROUNDS: start a run of the module's counters
# threads (THREADS threads of ROUNDS rounds each).
linux_locks_start() {
	LINUX_LOCKS_ROUNDS=$(($1 * $2))
	linux_step_ok $LINUX_STEP_TIMEOUT "echo $1 $2 >$LINUX_LOCKS_DEBUGFS/run"
}

# linux_locks_check WHAT: wait for the run to end; every counter of the
# module must be exact ("ok rounds=<THREADS x ROUNDS>"). Sets LOCKS_KEYED
# (the rounds that took the static key's path).
linux_locks_check() {
	local end
	end=$(($(uptime_cs) + LINUX_LOCKS_RUN_TIMEOUT * CS_PER_SEC))
	while :; do
		linux_step_ok $LINUX_STEP_TIMEOUT "cat $LINUX_LOCKS_DEBUGFS/check"
		[ "$STEP_OUT" = running ] || break
		[ "$(uptime_cs)" -le "$end" ] ||
			fail "$1: the module's run did not end within ${LINUX_LOCKS_RUN_TIMEOUT}s"
		sleep 1
	done
	case $STEP_OUT in
	"ok rounds=$LINUX_LOCKS_ROUNDS keyed="*) LOCKS_KEYED=${STEP_OUT##*keyed=} ;;
	*) fail "$1: the module's counters: '$STEP_OUT', expected ok rounds=$LINUX_LOCKS_ROUNDS" ;;
	esac
	log "$1: the module's counters: $STEP_OUT"
}

# linux_sites WHAT WANT: data/smpalt/sites (the lock sites the last switch
# rewrote) is WANT.
linux_sites() {
	local got
	got=$(xs_read_guest data/smpalt/sites) || got='<absent>'
	[ "$got" = "$2" ] || fail "$1: the switch rewrote $got lock sites, expected $2"
}

# ---------------------------------------- the patched Linux guest's driver
# linux_param NAME: its limits (seconds) and load, with room for a busy
# machine (a step to 4 vCPUs on 2 host CPUs took 27 s on a loaded one; the
# kernel works through a storm's hotplug events one by one).
linux_param() {
	case $1 in
	boot_timeout) echo 120 ;;
	step_timeout) echo 90 ;;
	settle_timeout) echo 120 ;;
	load) echo "smpalt.stress=1" ;;
	*) return 1 ;;
	esac
}

# linux_load: nothing to start: the kernel's counters threads
# (smpalt.stress=1 in linux-smpalt.cfg's extra=) run on every online CPU
# from boot; the counters check's items > 0 shows they ran.
linux_load() { :; }

linux_start_up() {
	linux_boot_up "$(linux_param boot_timeout)" "$(linux_param step_timeout)" "$@"
}

linux_state() { published_state; }

linux_counters_ok() {
	counters_ok "$1"
	linux_clean "$1: after the counters check"
}

linux_destroy() { domain_destroy; }
