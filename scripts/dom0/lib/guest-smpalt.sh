# smpalt dom0 library: the smpalt guest kernel (tests/xen/) and its driver
# (driver.sh says what a driver provides): its boot, its demand workload,
# the start of a hotplug scenario under load, its error-level console
# lines. The state it publishes and the counters check: state.sh.

# start_workload DEMAND [TIMEOUT]: set control/smpalt/demand and wait until
# the guest reports a positive throughput. Returns 1 on timeout.
start_workload() {
	local timeout=${2:-$DEFAULT_READY_TIMEOUT} end t=
	xs_write_guest control/smpalt/demand "$1" || return 1
	end=$(($(uptime_cs) + timeout * CS_PER_SEC))
	while :; do
		t=$(xs_read_guest data/smpalt/throughput)
		[ "${t:-0}" -gt 0 ] 2>/dev/null && break
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $POLL_USEC
	done
	note "workload: demand $1, throughput $t items/s"
}

# boot_under_load DEMAND BOOT_TIMEOUT STEP_TIMEOUT WORKLOAD_TIMEOUT
#                 [xl key=value ...]:
# the start of a hotplug scenario: smpalt_boot (vcpus=1 from the config),
# data/smpalt/online 1, start_workload DEMAND, switches 0 and mode up (no
# switch since the boot's own), Xen agreeing (check_xen_view "after boot").
# Fails the scenario at the first of these that does not happen within its
# limit. Sets MODE, SWITCHES and LAST_NS (read_switch_state), XEN_ONLINE.
boot_under_load() {
	local demand=$1 boot_timeout=$2 step_timeout=$3 workload_timeout=$4
	shift 4
	smpalt_boot "$boot_timeout" "$@"
	wait_online 1 "$step_timeout" ||
		fail "online is '$ONLINE' after boot, expected 1"
	start_workload "$demand" "$workload_timeout" ||
		fail "demand $demand: throughput never became positive"
	read_switch_state 0 "" "$step_timeout" ||
		fail "after boot: switches is '$SWITCHES', expected 0"
	[ "$MODE" = up ] || fail "after boot: mode is '$MODE', expected up"
	check_xen_view "after boot"
}

# The guest's verdict is its own: every error-level line of the smpalt
# kernel (KERN_ERR and worse: a refused or failed switch, a failed step, a
# panic, a fatal trap) starts with this mark (lib/printk.c,
# PRINTK_ERROR_MARK; docs/guest.md, "Log lines"), whatever its wording.
SMPALT_ERROR_MARK='smpalt: ERROR '

# console_alarm [EXPECTED]: the first error-level line of the smpalt
# guest's console, if any; a line holding the fixed string EXPECTED (an
# error the scenario provokes on purpose) does not count.
console_alarm() {
	local lines
	lines=$(tr -d '\r' <"$CONSOLE_LOG" | grep -- "^$SMPALT_ERROR_MARK") ||
		return 1
	if [ -n "${1:-}" ]; then
		lines=$(printf '%s\n' "$lines" | grep -vF -- "$1") || return 1
	fi
	printf '%s\n' "$lines" | head -n1
}

# ------------------------------------------------- the smpalt driver
# smpalt_param NAME: the smpalt guest's limits (seconds) and load, with
# room for a busy machine (steps took up to 9.5 s on a loaded one).
smpalt_param() {
	case $1 in
	boot_timeout) echo 60 ;;
	step_timeout) echo 45 ;;
	settle_timeout) echo 45 ;;
	workload_timeout) echo 30 ;;
	demand) echo 300 ;; # work for three vCPUs
	load) echo "demand $(smpalt_param demand)" ;;
	*) return 1 ;;
	esac
}

# smpalt_boot TIMEOUT [xl key=value ...]: require_guest (SKIP without the
# kernel), xl create of smpalt.cfg with the extra config, then its ready
# line within TIMEOUT.
smpalt_boot() {
	local timeout=$1
	shift
	require_guest
	guest_create "$@"
	guest_wait_ready "$timeout"
}

# smpalt_load: the demand workload the scenarios run under, running.
smpalt_load() {
	start_workload "$(smpalt_param demand)" "$(smpalt_param workload_timeout)" ||
		fail "demand $(smpalt_param demand): throughput never became positive"
}

smpalt_start_up() {
	boot_under_load "$(smpalt_param demand)" "$(smpalt_param boot_timeout)" \
		"$(smpalt_param step_timeout)" "$(smpalt_param workload_timeout)" "$@"
}

smpalt_state() { published_state; }
smpalt_alarm() { console_alarm; }

# smpalt_clean WHAT: no error-level console line, the domain runs.
smpalt_clean() {
	local alarm
	alarm=$(console_alarm) && fail "$1: guest console: $alarm"
	guest_running || fail "$1: domain state '$(domain_state)'"
}

smpalt_counters_ok() {
	counters_ok "$1"
	smpalt_clean "$1: after the counters check"
}

smpalt_destroy() { domain_destroy; }
