# smpalt dom0 library: the basics every scenario, init and demo uses.
# Paths and limits, clocks (now_cs, uptime_cs), log/note, the verdict
# (result, fail), the dom0 command line, a seeded random sequence, and
# background processes (alive, send_back, the autoscaler's stop and finish).
# SMPALT_DIR comes from scripts/dom0/lib.sh, which sources this first.

# smpalt itself, where `make install PREFIX=/usr/local` puts it
# (scripts/build/mkinitramfs.sh): the scenarios test the installed layout...
SMPALT_ELF=/usr/local/lib/xen/boot/smpalt.elf
SMPALT_CFG=/etc/xen/smpalt.cfg
SMPALT_AUTOSCALER=/usr/local/sbin/smpalt-autoscaler
SMPALT_UNIT=/usr/local/lib/systemd/system/smpalt-autoscaler.service
SMPALT_INSTALLED="make install PREFIX=/usr/local"
# ... or where its Debian packages put it (SMPALT_DEBS, dpkg -x).
# shellcheck disable=SC1091 # written by scripts/build/mkinitramfs.sh
[ ! -f "$SMPALT_DIR/installed.env" ] || . "$SMPALT_DIR/installed.env"
SCENARIO_DIR=$SMPALT_DIR/scenarios
# Where the scenarios write their results, where xenconsoled logs the
# guests' consoles, the channel to the host (the harness's serial line)
# and the command line the scenarios read their settings from: the
# harness's dom0 paths, unless a runner on a real dom0 gives its own
# (scripts/run/bench-real.sh).
RESULTS_DIR=${SMPALT_RESULTS_DIR:-/run/smpalt/results}
CONSOLE_DIR=${SMPALT_CONSOLE_DIR:-/var/log/xen/console}
HOST_CONSOLE=${SMPALT_HOST_CONSOLE:-/dev/console}
CMDLINE_FILE=${SMPALT_CMDLINE:-/proc/cmdline}
# Pause between two polls of a console log, a xenstore key or xl list.
POLL_USEC=200000
CS_PER_SEC=100
# Default limits (seconds) under TCG; scenarios may pass their own.
DEFAULT_READY_TIMEOUT=60
DEFAULT_GONE_TIMEOUT=30
# A whole scenario; smpalt.timeout=N on the dom0 command line overrides.
DEFAULT_SCENARIO_TIMEOUT=300
# Exit status of a process killed by SIGKILL (128 + 9): `timeout -s KILL`.
KILLED_STATUS=137

# Centiseconds since dom0 boot, for elapsed-time measurements.
now_cs() {
	sed -E 's/^([0-9]+)\.([0-9][0-9]).*/\1\2/' /proc/uptime
}

# cs_to_s CS: centiseconds as seconds with two decimals ("12.34").
cs_to_s() {
	printf '%d.%02d' $(($1 / CS_PER_SEC)) $(($1 % CS_PER_SEC))
}

# Seconds with two decimals between a now_cs value and now.
since() {
	cs_to_s $(($(now_cs) - $1))
}

# deadline_cs SECONDS: the now_cs value SECONDS from now. Waits compare
# against a deadline, not a poll count: under TCG one xenstore-read or
# xl list takes a good part of a second.
deadline_cs() {
	echo $(($(now_cs) + $1 * CS_PER_SEC))
}

log() {
	echo "[$(since 0)] ${SCENARIO:-init}: $*"
}

# A line the host shows live (stage progress), besides the scenario log.
# Appended: HOST_CONSOLE may be a file that a runner follows.
note() {
	log "$*"
	echo "@@SMPALT NOTE ${SCENARIO:-init}: $*" >>"$HOST_CONSOLE"
}

# End the scenario: result SUCCESS|SKIP|FAILURE|ERROR [reason]
result() {
	local status=$1
	shift
	case $status in
	SUCCESS | SKIP | FAILURE | ERROR) ;;
	*)
		set -- "result called with unknown status '$status'"
		status=ERROR
		;;
	esac
	echo "$status $*" >"$RESULT_FILE"
	echo "Test result: $status${*:+ $*}"
	exit 0
}

fail() { result FAILURE "$*"; }

# scenario_error MSG: end the scenario with ERROR MSG (a mistake in the
# scenario itself) from anywhere, a command substitution included, where
# result would end the subshell only: write the result, then kill the
# scenario's shell ($$ is that shell's pid in a subshell too); the runner
# keeps a result written before the kill.
scenario_error() {
	echo "ERROR $*" >"$RESULT_FILE"
	echo "Test result: ERROR $*" >&2
	kill -KILL $$
	exit 1
}

# A random token for round trips (no external entropy tools in busybox).
random_token() {
	head -c 12 /dev/urandom | md5sum | cut -c1-16
}

# cmdline_value KEY [DEFAULT]: the value of KEY=... on the dom0 kernel
# command line (CMDLINE_FILE), or DEFAULT.
cmdline_value() {
	local v
	v=$(tr ' ' '\n' <"$CMDLINE_FILE" | sed -n "s/^$1=//p" | tail -1)
	echo "${v:-${2:-}}"
}

# A seeded pseudo-random sequence, so that a run can be repeated from its
# seed (busybox ash's $RANDOM cannot be seeded): a 31-bit linear
# congruential generator in shell arithmetic (64-bit in busybox ash).
RNG_MUL=1103515245
RNG_ADD=12345
RNG_MASK=2147483647

# rng_seed SEED: start the sequence (SEED: a non-negative integer).
rng_seed() {
	RNG_STATE=$(($1 & RNG_MASK))
}

# rng_below N: sets RNG_VALUE to the next number in 0..N-1 (from the
# state's high bits: the low bits of an LCG repeat with a short period).
rng_below() {
	RNG_STATE=$(((RNG_STATE * RNG_MUL + RNG_ADD) & RNG_MASK))
	RNG_VALUE=$(((RNG_STATE >> 15) % $1))
}

# Pause between two polls while timing a change (µs): short, because the
# poll interval bounds the resolution of the measured latency.
FAST_POLL_USEC=50000
CS_TO_MS=10

# uptime_cs: centiseconds since dom0 boot, without a fork (busybox date has
# no %N; /proc/uptime is the finest dom0 clock a shell can read cheaply).
uptime_cs() {
	local up rest
	read -r up rest </proc/uptime
	up=${up%.*}${up#*.}
	# No leading zeros: ash would read the number as octal.
	while [ "${up#0}" != "$up" ] && [ ${#up} -gt 1 ]; do up=${up#0}; done
	echo "$up"
}

# alive PID: the process runs (a zombie not yet waited for does not).
alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# send_back NAME PATH: send a file to the host now, as NAME in the results
# folder.
send_back() {
	emit_file "$1" "$2" >>"$HOST_CONSOLE"
}

# autoscaler_finish NAME: the autoscaler's log ($AS_LOG) into the scenario
# log, then its CSV ($CSV) and log back to the host as NAME.csv and
# NAME-autoscaler.log.
autoscaler_finish() {
	echo "--- autoscaler log"
	cat "$AS_LOG" 2>/dev/null
	echo "---"
	send_back "$1.csv" "$CSV"
	send_back "$1-autoscaler.log" "$AS_LOG"
}

# stop_autoscaler [TIMEOUT]: SIGTERM to $AS_PID and wait for it (10 s by
# default); sets AS_RC. Still running after TIMEOUT: SIGKILL, the
# scenario's own finish, and the scenario fails.
stop_autoscaler() {
	local timeout=${1:-10} end
	end=$(($(date +%s) + timeout))
	kill -TERM "$AS_PID" 2>/dev/null
	while alive "$AS_PID"; do
		if [ "$(date +%s)" -gt $end ]; then
			kill -KILL "$AS_PID"
			finish
			fail "autoscaler still running ${timeout}s after SIGTERM"
		fi
		usleep $POLL_USEC
	done
	wait "$AS_PID"
	AS_RC=$?
}

# stats_mmm VALUE...: "min/median/max" of integers (median of an even
# count: the lower middle one), "-" when there are none. The values are
# printed as given: awk's %d stops at 2^31 (a Linux switch takes seconds
# of ns under TCG).
stats_mmm() {
	[ $# -gt 0 ] || { echo -; return; }
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 "" }
		END { printf "%s/%s/%s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
