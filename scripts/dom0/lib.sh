# smpalt dom0 library (busybox ash), sourced by the dom0 init and by every
# scenario in tests/xen/. Two parts:
#   - scenario helpers: guest_create, wait_for_console, xs_read_guest, result...
#   - the runner used by init: run_scenario, emit_file, emit_consoles.
#
# A scenario is a script run with: SCENARIO (its name), RESULT_FILE, and
# this library already sourced. It drives xl and xenstore and ends by
# calling `result STATUS [reason]` (SUCCESS, SKIP, FAILURE or ERROR).
# A scenario that returns without calling result is an ERROR.

SMPALT_DIR=${SMPALT_DIR:-/opt/smpalt}
# smpalt itself, where `make install PREFIX=/usr/local` puts it
# (scripts/mkinitramfs.sh): the scenarios test the installed layout...
SMPALT_ELF=/usr/local/lib/xen/boot/smpalt.elf
SMPALT_CFG=/etc/xen/smpalt.cfg
SMPALT_AUTOSCALER=/usr/local/sbin/smpalt-autoscaler
SMPALT_UNIT=/usr/local/lib/systemd/system/smpalt-autoscaler.service
SMPALT_INSTALLED="make install PREFIX=/usr/local"
# ... or where its Debian packages put it (SMPALT_DEBS, dpkg -x).
# shellcheck disable=SC1091 # written by scripts/mkinitramfs.sh
[ ! -f "$SMPALT_DIR/installed.env" ] || . "$SMPALT_DIR/installed.env"
SCENARIO_DIR=$SMPALT_DIR/scenarios
RESULTS_DIR=/run/smpalt/results
CONSOLE_DIR=/var/log/xen/console
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

# ---------------------------------------------------------------- helpers

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
note() {
	log "$*"
	echo "@@SMPALT NOTE ${SCENARIO:-init}: $*" >/dev/console
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

# The guest kernel must be in the initramfs, else the scenario cannot run.
require_guest() {
	[ -f "$SMPALT_ELF" ] || result SKIP "no guest kernel at $SMPALT_ELF"
}

# guest_create [xl key=value ...]: create this scenario's guest, named
# smpalt-<scenario> so that each scenario has its own console log.
# Sets GUEST, DOMID, CONSOLE_LOG and CREATE_CS.
guest_create() {
	GUEST=smpalt-$SCENARIO
	CONSOLE_LOG=$CONSOLE_DIR/guest-$GUEST.log
	rm -f "$CONSOLE_LOG"
	CREATE_CS=$(now_cs)
	log "xl create $SMPALT_CFG name=\"$GUEST\" $*"
	xl create -q "$SMPALT_CFG" "name=\"$GUEST\"" "$@" ||
		fail "xl create failed"
	DOMID=$(xl domid "$GUEST" 2>/dev/null) || fail "xl domid $GUEST failed after create"
	log "created $GUEST as domain $DOMID in $(since "$CREATE_CS") s"
}

# The console line the guest prints once it serves xenstore (kernel/main.c).
GUEST_READY="smpalt: ready"

# guest_boot TIMEOUT [xl key=value ...]: require_guest, guest_create with
# the extra xl config, then wait up to TIMEOUT seconds for GUEST_READY on
# the console; the scenario fails if it does not come.
guest_boot() {
	local timeout=$1
	shift
	require_guest
	guest_create "$@"
	wait_for_console "$GUEST_READY" "$timeout" ||
		fail "no '$GUEST_READY' within ${timeout}s"
}

# guest_destroy: keep the guest's xenstore home in the scenario log, then
# xl destroy it and wait until it is gone.
guest_destroy() {
	echo "--- xenstore of $GUEST (domain $DOMID) before destroy"
	xenstore-ls -f "/local/domain/$DOMID" 2>&1
	echo "---"
	xl destroy "$GUEST" || fail "xl destroy $GUEST failed"
	wait_domain_gone || fail "domain $GUEST still listed after xl destroy"
}

# wait_for_console PATTERN [TIMEOUT]: wait until a line of the guest's
# console log contains PATTERN (fixed string). Returns 1 on timeout.
wait_for_console() {
	local pattern=$1 timeout=${2:-$DEFAULT_READY_TIMEOUT} start end
	start=$(now_cs)
	end=$(deadline_cs "$timeout")
	while ! grep -qF -- "$pattern" "$CONSOLE_LOG" 2>/dev/null; do
		if [ "$(now_cs)" -gt "$end" ]; then
			log "console: '$pattern' not seen within ${timeout}s"
			return 1
		fi
		usleep $POLL_USEC
	done
	note "console '$pattern' after $(since "$start") s (create +$(since "$CREATE_CS") s)"
	return 0
}

# wait_for_any_console [TIMEOUT]: wait for the guest's first console byte.
wait_for_any_console() {
	local timeout=${1:-$DEFAULT_READY_TIMEOUT} end
	end=$(deadline_cs "$timeout")
	while [ ! -s "$CONSOLE_LOG" ]; do
		[ "$(now_cs)" -le "$end" ] || return 1
		usleep $POLL_USEC
	done
	note "first guest console output at create +$(since "$CREATE_CS") s"
}

# guest_test_result [TIMEOUT]: for tests that run inside the guest: wait for
# the console line "Test result: STATUS [reason]" and end the scenario with
# it. No such line within TIMEOUT is an ERROR.
guest_test_result() {
	local timeout=${1:-$DEFAULT_READY_TIMEOUT} line
	wait_for_console "Test result: " "$timeout" ||
		result ERROR "guest printed no 'Test result:' line within ${timeout}s"
	line=$(grep -F "Test result: " "$CONSOLE_LOG" | tail -1 | tr -d '\r')
	line=${line#*Test result: }
	# shellcheck disable=SC2086 # split into status and reason on purpose
	result $line
}

xs_guest_path() { echo "/local/domain/$DOMID/$1"; }

# xs_read_guest KEY: read a key relative to the guest's xenstore home.
xs_read_guest() {
	xenstore-read "$(xs_guest_path "$1")" 2>/dev/null
}

# xs_write_guest KEY VALUE: write a key relative to the guest's home.
xs_write_guest() {
	xenstore-write "$(xs_guest_path "$1")" "$2"
}

# wait_for_xs KEY [VALUE] [TIMEOUT]: wait until the key exists (and, if
# VALUE is not empty, holds VALUE). Returns 1 on timeout.
wait_for_xs() {
	local key=$1 want=${2:-} timeout=${3:-$DEFAULT_READY_TIMEOUT} end v=
	end=$(deadline_cs "$timeout")
	while :; do
		if v=$(xs_read_guest "$key"); then
			[ -z "$want" ] || [ "$v" = "$want" ] && break
		fi
		if [ "$(now_cs)" -gt "$end" ]; then
			log "xenstore: $key${want:+ = $want} not seen within ${timeout}s (now: '${v:-<absent>}')"
			return 1
		fi
		usleep $POLL_USEC
	done
	log "xenstore: $key = '$v'"
	return 0
}

# domain_state [NAME]: the state column of xl list (e.g. "r-----",
# "--p---", "---sc-"), empty when the domain does not exist.
domain_state() {
	xl list "${1:-$GUEST}" 2>/dev/null | awk 'NR == 2 { print $5 }'
}

# wait_domain_gone [TIMEOUT] [NAME]: returns 1 if still listed after TIMEOUT.
wait_domain_gone() {
	local timeout=${1:-$DEFAULT_GONE_TIMEOUT} name=${2:-$GUEST} end
	end=$(deadline_cs "$timeout")
	while xl domid "$name" >/dev/null 2>&1; do
		if [ "$(now_cs)" -gt "$end" ]; then
			log "domain $name still present after ${timeout}s (state $(domain_state "$name"))"
			return 1
		fi
		usleep $POLL_USEC
	done
	return 0
}

# wait_domain_state CHARS [TIMEOUT]: wait until the state column contains
# one of CHARS (e.g. "c" for crashed, "s" for shut down).
wait_domain_state() {
	local chars=$1 timeout=${2:-$DEFAULT_GONE_TIMEOUT} end s
	end=$(deadline_cs "$timeout")
	while :; do
		s=$(domain_state)
		case $s in *[$chars]*) break ;; esac
		if [ "$(now_cs)" -gt "$end" ]; then
			log "domain $GUEST state '$s' has none of '$chars' after ${timeout}s"
			return 1
		fi
		usleep $POLL_USEC
	done
	log "domain $GUEST state '$s'"
	return 0
}

# A random token for round trips (no external entropy tools in busybox).
random_token() {
	head -c 12 /dev/urandom | md5sum | cut -c1-16
}

# cmdline_value KEY [DEFAULT]: the value of KEY=... on the dom0 kernel
# command line, or DEFAULT.
cmdline_value() {
	local v
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -1)
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

# ------------------------------------------------- hotplug scenario helpers
# (vcpu-set-*, bad-availability, boot-smp, maxvcpus-1, soak...)

# The guest's counters contract (app/work_check.c): dom0 writes a token to
# control/smpalt/check; the guest quiesces its workload, compares its
# totals and answers in data/smpalt/check with
# "<token> ok items=<n>" or "<token> FAIL <which> expected=<x> got=<y>".
CHECK_REQUEST_KEY=control/smpalt/check
CHECK_REPLY_KEY=data/smpalt/check
DEFAULT_CHECK_TIMEOUT=45
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

# xs_read_guest_keys KEY...: one xenstore-read for several keys (one fork
# under TCG instead of several), one value per line; fails if any is absent.
xs_read_guest_keys() {
	local k paths=
	for k in "$@"; do paths="$paths $(xs_guest_path "$k")"; done
	# shellcheck disable=SC2086 # one argument per key on purpose
	xenstore-read $paths 2>/dev/null
}

# mode_for COUNT: the mode the text must hold with COUNT vCPUs online.
mode_for() {
	if [ "$1" -gt 1 ]; then echo smp; else echo up; fi
}

# guest_running: the domain exists and has neither crashed nor shut down.
guest_running() {
	local s
	s=$(domain_state)
	case $s in
	'' | *[cs]*) return 1 ;;
	esac
	return 0
}

# wait_online COUNT TIMEOUT: poll data/smpalt/online fast until it reads
# COUNT; sets SEEN_CS (uptime_cs when seen) and ONLINE (last value read).
wait_online() {
	local want=$1 end
	end=$(($(uptime_cs) + $2 * CS_PER_SEC))
	while :; do
		ONLINE=$(xs_read_guest data/smpalt/online)
		SEEN_CS=$(uptime_cs)
		[ "$ONLINE" = "$want" ] && return 0
		[ "$SEEN_CS" -le "$end" ] || return 1
		usleep $FAST_POLL_USEC
	done
}

# read_switch_state SWITCHES LAST_NS TIMEOUT: after a change, wait until
# data/smpalt/switches reads SWITCHES and last-switch-ns differs from
# LAST_NS (the guest writes online before switches and last-switch-ns;
# an empty LAST_NS: no switch expected, do not wait for a new duration);
# sets MODE, SWITCHES, LAST_NS from one read. Returns 1 on timeout.
read_switch_state() {
	local want=$1 old_ns=$2 end vals
	end=$(($(uptime_cs) + $3 * CS_PER_SEC))
	while :; do
		vals=$(xs_read_guest_keys data/smpalt/mode \
			data/smpalt/switches data/smpalt/last-switch-ns)
		# shellcheck disable=SC2086 # three words on purpose
		set -- $vals
		MODE=${1:-} SWITCHES=${2:-} LAST_NS=${3:-}
		[ "$SWITCHES" = "$want" ] &&
			{ [ -z "$old_ns" ] || [ "$LAST_NS" != "$old_ns" ]; } &&
			return 0
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $FAST_POLL_USEC
	done
}

# wait_step COUNT SWITCHES LAST_NS TIMEOUT: after a vcpu-set, poll online,
# mode, switches and last-switch-ns in one read until online is COUNT,
# switches is SWITCHES and (LAST_NS not empty) last-switch-ns differs from
# LAST_NS. SEEN_CS: the end of the first read that showed online=COUNT (an
# upper bound, one poll late at most). Sets ONLINE, MODE, SWITCHES and
# LAST_NS from the last read. Returns 1 on timeout.
wait_step() {
	local want=$1 want_sw=$2 old_ns=$3 end vals
	end=$(($(uptime_cs) + $4 * CS_PER_SEC))
	SEEN_CS=''
	while :; do
		vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode \
			data/smpalt/switches data/smpalt/last-switch-ns)
		# shellcheck disable=SC2086 # four words on purpose
		set -- $vals
		ONLINE=${1:-} MODE=${2:-} SWITCHES=${3:-} LAST_NS=${4:-}
		if [ "$ONLINE" = "$want" ]; then
			[ -n "$SEEN_CS" ] || SEEN_CS=$(uptime_cs)
			[ "$SWITCHES" = "$want_sw" ] &&
				{ [ -z "$old_ns" ] || [ "$LAST_NS" != "$old_ns" ]; } &&
				return 0
		fi
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $FAST_POLL_USEC
	done
}

# A settled state must hold this long (centiseconds) before it counts as
# settled: a reconcile the guest has not started yet (a watch event still
# on its way) would move it. The guest publishes online, mode and switches
# once at the end of each reconcile.
SETTLE_HOLD_CS=100

# wait_stable MIN MAX TIMEOUT: wait until MIN <= data/smpalt/online <= MAX,
# mode fits it (smp iff > 1) and online, mode and switches have all held
# for SETTLE_HOLD_CS. Sets STABLE_CS (the first read of the state that
# held), ONLINE, MODE and SWITCHES. Returns 1 after TIMEOUT seconds.
wait_stable() {
	local lo=$1 hi=$2 end vals now stable_cs='' held=''
	end=$(($(uptime_cs) + $3 * CS_PER_SEC))
	while :; do
		vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode \
			data/smpalt/switches)
		now=$(uptime_cs)
		# shellcheck disable=SC2086 # three words on purpose
		set -- $vals
		ONLINE=${1:-} MODE=${2:-} SWITCHES=${3:-}
		if ! [ "$ONLINE" -ge "$lo" ] 2>/dev/null ||
			! [ "$ONLINE" -le "$hi" ] ||
			[ "$MODE" != "$(mode_for "$ONLINE")" ]; then
			stable_cs=''
		elif [ -z "$stable_cs" ] || [ "$vals" != "$held" ]; then
			stable_cs=$now held=$vals
		elif [ $((now - stable_cs)) -ge $SETTLE_HOLD_CS ]; then
			STABLE_CS=$stable_cs
			return 0
		fi
		[ "$now" -le "$end" ] || return 1
		usleep $FAST_POLL_USEC
	done
}

# check_counters [TIMEOUT]: run the counters contract once. Returns 0 with
# CHECK_ITEMS set when the guest answers ok, 1 when it answers FAIL, 2 when
# it does not answer in time; CHECK_REPLY holds the answer (or why none).
check_counters() {
	local timeout=${1:-$DEFAULT_CHECK_TIMEOUT} token end reply=
	token=$(random_token)
	CHECK_ITEMS=
	xs_write_guest $CHECK_REQUEST_KEY "$token" || {
		CHECK_REPLY="cannot write $CHECK_REQUEST_KEY"
		return 2
	}
	end=$(($(uptime_cs) + timeout * CS_PER_SEC))
	while :; do
		reply=$(xs_read_guest $CHECK_REPLY_KEY)
		case $reply in "$token "*) break ;; esac
		if [ "$(uptime_cs)" -gt "$end" ]; then
			CHECK_REPLY="no answer to check $token within ${timeout}s (data/smpalt/check: '${reply:-<absent>}')"
			return 2
		fi
		usleep $POLL_USEC
	done
	CHECK_REPLY=${reply#"$token "}
	log "counters check $token: $CHECK_REPLY"
	case $CHECK_REPLY in
	"ok items="*)
		CHECK_ITEMS=${CHECK_REPLY#ok items=}
		CHECK_ITEMS=${CHECK_ITEMS%% *}
		return 0
		;;
	esac
	return 1
}

# expect_lost_update CHECKS EVERY COUNTERS: for a guest whose lock sites
# are left in UP form on purpose, run the counters check every EVERY
# seconds, at most CHECKS times, until it answers "FAIL <which> expected=<x>
# got=<y>"; <which> must be one of COUNTERS (an ERE such as "locked|atomic")
# and y < x, else the scenario fails. Returns 0 with LOST_AFTER_S (seconds
# of checking), LOST_WHICH, LOST_EXPECTED and LOST_GOT set; ends the
# scenario with ERROR when a check gets no answer, and returns 1 when every
# check answered ok (the check did not see the lost updates).
expect_lost_update() {
	local checks=$1 every=$2 counters=$3 n=0 rc
	while [ $n -lt "$checks" ]; do
		n=$((n + 1))
		sleep "$every"
		check_counters
		rc=$?
		case $rc in
		0)
			log "check $n of $checks: ok items=$CHECK_ITEMS (no lost update yet)"
			continue
			;;
		2) result ERROR "counters check $n: $CHECK_REPLY" ;;
		esac
		# shellcheck disable=SC2086 # split into words on purpose
		set -- $CHECK_REPLY
		LOST_WHICH=${2:-} LOST_EXPECTED=${3#expected=} LOST_GOT=${4#got=}
		echo "$LOST_WHICH" | grep -qxE -- "$counters" ||
			fail "counters check $n failed on '$LOST_WHICH', not on the unlocked counters ($counters): $CHECK_REPLY"
		[ "$LOST_GOT" -lt "$LOST_EXPECTED" ] 2>/dev/null ||
			fail "counters check $n: $CHECK_REPLY: expected fewer than $LOST_EXPECTED (lost updates)"
		LOST_AFTER_S=$((n * every))
		return 0
	done
	return 1
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
	emit_file "$1" "$2" >/dev/console
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

# xen_online_vcpus [NAME]: how many of the domain's vCPUs Xen itself reports
# online, from `xl vcpu-list`. xl 4.17 prints one row per vCPU: Name ID
# VCPU CPU State Time(s) Affinity...; an offline vCPU (VPF_down, what
# VCPUOP_is_up calls down) has CPU "-" and state "--p", an online one a
# CPU number and a state without the "p" ("r--", "-b-", "---"). Returns 1,
# printing nothing, when xl fails or prints a row that is neither (the
# count would be a guess).
xen_online_vcpus() {
	local out
	out=$(xl vcpu-list "${1:-$GUEST}" 2>&1) || return 1
	echo "$out" | awk '
		NR == 1 { next }
		$4 == "-" && $5 ~ /p$/ { next }
		$4 ~ /^[0-9]+$/ && $5 !~ /p$/ { n++; next }
		{ bad = 1 }
		END { if (bad || NR < 2) exit 1; print n + 0 }'
}

# check_xen_view [WHAT]: at a settled step, compare the guest's own account
# (data/smpalt/online, data/smpalt/mode) with Xen's (xl vcpu-list) and fail
# the scenario on any difference, on a mode that does not fit the count
# (smp iff more than one vCPU online), or on UP text while Xen reports a
# secondary up (the one rule that must never break). Sets XEN_ONLINE.
# The guest's keys are read first: with no vcpu-set in flight neither view
# can move between the two reads. The raw xl vcpu-list goes to the log the
# first time and on any failure.
check_xen_view() {
	local what=${1:-settled step} vals g_online g_mode
	vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode)
	# shellcheck disable=SC2086 # two words on purpose
	set -- $vals
	g_online=${1:-} g_mode=${2:-}
	if ! XEN_ONLINE=$(xen_online_vcpus); then
		xl vcpu-list "$GUEST" 2>&1
		fail "$what: cannot count Xen's online vCPUs from xl vcpu-list (above)"
	fi
	if [ -z "${XEN_VIEW_SHOWN:-}" ]; then
		XEN_VIEW_SHOWN=1
		log "$what: xl vcpu-list $GUEST:"
		xl vcpu-list "$GUEST" 2>&1
	fi
	if [ "$g_mode" = up ] && [ "$XEN_ONLINE" -gt 1 ]; then
		xl vcpu-list "$GUEST" 2>&1
		fail "$what: UP text while Xen reports $XEN_ONLINE vCPUs online (xl vcpu-list)"
	fi
	if [ "$g_online" != "$XEN_ONLINE" ]; then
		xl vcpu-list "$GUEST" 2>&1
		fail "$what: guest says online=$g_online, Xen says $XEN_ONLINE (xl vcpu-list)"
	fi
	[ "$g_mode" = "$(mode_for "$g_online")" ] ||
		fail "$what: online=$g_online but mode is '$g_mode'"
	log "$what: guest online=$g_online mode=$g_mode, Xen online=$XEN_ONLINE"
}

# host_cpus: the host's CPU count (xl info nr_cpus), asked once.
host_cpus() {
	[ -n "${HOST_CPUS:-}" ] ||
		HOST_CPUS=$(xl info 2>/dev/null | awk -F': *' '$1 ~ /^nr_cpus/ { print $2 }')
	echo "${HOST_CPUS:-1}"
}

# dom0's scheduler weight while scenarios run. Xen gives every domain
# weight 256; with the guest spinning on more vCPUs than the host has CPUs,
# dom0's share at 256 makes each `xl vcpu-set` several times slower (and a
# scaling decision late). Xen administrators raise dom0's weight for that
# reason (docs/real-host.md); bench-dom0-weight measures both.
DOM0_WEIGHT=1024
# Where init keeps the weight Xen gave dom0, before DOM0_WEIGHT was set.
DOM0_WEIGHT_DEFAULT_FILE=/run/smpalt/dom0-weight-default

# xen_scheduler: the scheduler of Xen's default cpupool (credit2, credit...).
xen_scheduler() {
	xl info 2>/dev/null | awk -F': *' '$1 ~ /^xen_scheduler/ { print $2 }'
}

# dom0_weight_get: dom0's weight under the running scheduler.
dom0_weight_get() {
	xl "sched-$(xen_scheduler)" -d Domain-0 2>/dev/null |
		awk '$1 == "Domain-0" { print $3 }'
}

# dom0_weight_set WEIGHT: set dom0's weight; returns xl's status.
dom0_weight_set() {
	xl "sched-$(xen_scheduler)" -d Domain-0 -w "$1" >/dev/null
}

# dom0_weight_init: remember Xen's weight for dom0, then give it
# DOM0_WEIGHT (init, once the toolstack runs).
dom0_weight_init() {
	dom0_weight_get >"$DOM0_WEIGHT_DEFAULT_FILE"
	dom0_weight_set $DOM0_WEIGHT
}

# dom0_weight_default: the weight Xen gave dom0 at boot.
dom0_weight_default() {
	cat "$DOM0_WEIGHT_DEFAULT_FILE"
}

# vcpu_set COUNT: xl vcpu-set, with -i when COUNT exceeds the host's CPUs
# (xl refuses that otherwise).
vcpu_set() {
	if [ "$1" -gt "$(host_cpus)" ]; then
		xl vcpu-set -i "$GUEST" "$1"
	else
		xl vcpu-set "$GUEST" "$1"
	fi
}

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
# the start of a hotplug scenario: guest_boot (vcpus=1 from the config),
# data/smpalt/online 1, start_workload DEMAND, switches 0 and mode up (no
# switch since the boot's own), Xen agreeing (check_xen_view "after boot").
# Fails the scenario at the first of these that does not happen within its
# limit. Sets MODE, SWITCHES and LAST_NS (read_switch_state), XEN_ONLINE.
boot_under_load() {
	local demand=$1 boot_timeout=$2 step_timeout=$3 workload_timeout=$4
	shift 4
	guest_boot "$boot_timeout" "$@"
	wait_online 1 "$step_timeout" ||
		fail "online is '$ONLINE' after boot, expected 1"
	start_workload "$demand" "$workload_timeout" ||
		fail "demand $demand: throughput never became positive"
	read_switch_state 0 "" "$step_timeout" ||
		fail "after boot: switches is '$SWITCHES', expected 0"
	[ "$MODE" = up ] || fail "after boot: mode is '$MODE', expected up"
	check_xen_view "after boot"
}

# vcpu_set_step COUNT SWITCHES LAST_NS TIMEOUT [WHAT]: vcpu_set COUNT, then
# wait_step COUNT SWITCHES LAST_NS TIMEOUT (LAST_NS empty: no new switch
# duration awaited), and the mode must fit COUNT. Fails the scenario, its
# messages starting with WHAT (default "vcpu-set COUNT"). Sets STEP_MS
# (from the call to the first read that showed online=COUNT), ONLINE,
# MODE, SWITCHES and LAST_NS.
vcpu_set_step() {
	local n=$1 sw=$2 old_ns=$3 timeout=$4 what="${5:-vcpu-set $1}" start
	start=$(uptime_cs)
	vcpu_set "$n" || fail "$what: xl vcpu-set $GUEST $n failed"
	wait_step "$n" "$sw" "$old_ns" "$timeout" ||
		fail "$what: after ${timeout}s online='$ONLINE' mode='$MODE' switches='$SWITCHES' last-switch-ns='$LAST_NS', expected online $n, switches $sw${old_ns:+ and a new duration}"
	STEP_MS=$(((SEEN_CS - start) * CS_TO_MS))
	[ "$MODE" = "$(mode_for "$n")" ] ||
		fail "$what: online=$n but mode is '$MODE', expected $(mode_for "$n")"
}

# expect_guest_state WHAT ONLINE MODE SWITCHES: the domain runs and the
# guest publishes exactly these (one read); fails the scenario otherwise.
expect_guest_state() {
	local what=$1 vals
	guest_running || fail "after $what: domain state '$(domain_state)'"
	vals=$(xs_read_guest_keys data/smpalt/online data/smpalt/mode \
		data/smpalt/switches)
	# shellcheck disable=SC2086 # three words on purpose
	set -- "$@" $vals
	[ "${5:-}" = "$2" ] && [ "${6:-}" = "$3" ] && [ "${7:-}" = "$4" ] ||
		fail "after $what: online='${5:-}' mode='${6:-}' switches='${7:-}', expected $2 $3 $4"
	log "after $what: running, online=$2 mode=$3 switches=$4"
}

# check_switch_parity GROWN CHANGES MODE: after vcpu-set calls that asked
# for CHANGES mode changes from UP text, switches grew by GROWN: at most
# CHANGES (calls overtaken by later ones may be skipped) and odd exactly
# when the final MODE is smp. Fails the scenario otherwise.
check_switch_parity() {
	local grown=$1 changes=$2 mode=$3 parity=1
	[ "$grown" -le "$changes" ] ||
		fail "switches grew by $grown, more than the $changes mode changes requested"
	[ "$mode" != up ] || parity=0
	[ $((grown % 2)) -eq $parity ] ||
		fail "switches grew by $grown: odd/even does not fit a final mode of $mode"
}

# counters_ok [WHAT] [TIMEOUT]: check_counters must answer ok with items > 0
# (the workload ran); fails the scenario otherwise ("counters WHAT: ...").
counters_ok() {
	check_counters "${2:-$DEFAULT_CHECK_TIMEOUT}" ||
		fail "counters${1:+ $1}: $CHECK_REPLY"
	[ "$CHECK_ITEMS" -gt 0 ] 2>/dev/null ||
		fail "counters ok but items='$CHECK_ITEMS': the workload never ran"
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

# console_since LINE: the guest's console after its first LINE lines.
console_since() {
	tail -n +$(($1 + 1)) "$CONSOLE_LOG" 2>/dev/null | tr -d '\r'
}

console_lines() {
	wc -l <"$CONSOLE_LOG" 2>/dev/null || echo 0
}

# wait_for_console_since LINE ERE TIMEOUT: wait until a console line after
# the first LINE lines (console_lines taken before the action) matches ERE;
# sets CONSOLE_MATCH to the first such line. Returns 1 after TIMEOUT seconds.
wait_for_console_since() {
	local mark=$1 ere=$2 end
	end=$(($(uptime_cs) + $3 * CS_PER_SEC))
	until CONSOLE_MATCH=$(console_since "$mark" | grep -E -m1 -- "$ere"); do
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $POLL_USEC
	done
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

# ------------------------------------------- Linux 6.1 guests (tests/linux/)
# The stock Debian kernel with scripts/mk-linux-domu.sh's initramfs (the
# control) and the patched kernel of `make linux` with
# scripts/mk-linux-smpalt-domu.sh's initramfs; scripts/mkinitramfs.sh puts
# them here (LINUX_DOMU_DIR, LINUX_SMPALT_DIR).
LINUX_STOCK_DIR=$SMPALT_DIR/linux
LINUX_STOCK_CFG=$SMPALT_DIR/xl-configs/linux.cfg
LINUX_SMPALT_DIR=$SMPALT_DIR/linux-smpalt
LINUX_SMPALT_CFG=$SMPALT_DIR/xl-configs/linux-smpalt.cfg
# Linux's own words for a kernel in trouble (its console has no error
# mark): BUG, WARNING (lockdep's reports among them), Oops, KASAN/UBSAN,
# lockdep's lock-state reports, a trap, a lockup or stall.
LINUX_ALARM='BUG:|WARNING:|Oops|Call Trace|invalid opcode|general protection|segfault|soft lockup|hung task|RCU stall|rcu_sched self-detected|KASAN:|UBSAN:|possible (circular|recursive) locking|inconsistent lock state'
# The patched guest's /init quotes the kernel's status (its refused count
# included) on lines with this prefix: quotes, not alarms in themselves.
LINUX_STATUS_LINE='linux-smpalt: status '

# linux_alarm: the first line of a Linux guest's console in LINUX_ALARM's
# words, if any; /init's status quotes aside.
linux_alarm() {
	tr -d '\r' <"$CONSOLE_LOG" | grep -vF -- "$LINUX_STATUS_LINE" |
		grep -E -m1 -- "$LINUX_ALARM"
}

# linux_boot TIMEOUT [xl key=value ...]: guest_boot with the patched Linux
# guest (its kernel prints "smpalt: ready" after its first publication).
# The guest missing from the dom0 image fails the scenario: it is what the
# scenario tests.
linux_boot() {
	local f
	for f in vmlinuz initrd.gz; do
		[ -f "$LINUX_SMPALT_DIR/$f" ] ||
			fail "no patched Linux guest: $LINUX_SMPALT_DIR/$f is not in the dom0 image (make linux; make test-linux carries it)"
	done
	SMPALT_CFG=$LINUX_SMPALT_CFG
	SMPALT_ELF=$LINUX_SMPALT_DIR/vmlinuz
	guest_boot "$@"
}

# linux_boot_up TIMEOUT STEP_TIMEOUT [xl key=value ...]: linux_boot with
# vcpus=1 (the config's), then the kernel's first publication must read
# version 1, online 1, mode up, switches 0, refused 0, and Xen agree
# (check_xen_view "after boot"). Sets MODE, SWITCHES, LAST_NS.
linux_boot_up() {
	local boot_timeout=$1 step_timeout=$2
	shift 2
	linux_boot "$boot_timeout" "$@"
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

# linux_clean WHAT: data/smpalt/refused is 0, no alarming console line
# (linux_alarm) and the domain runs; fails the scenario otherwise.
linux_clean() {
	local alarm
	linux_expect_keys "$1" refused=0
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

# ------------------------------------------- event stamps (benchmarks)
# smpalt-xs-stamp (tests/bench/xs_stamp.c) prints every xenstore watch event
# on its paths as "<CLOCK_BOOTTIME ns> <path> <value>", stamped by one dom0
# process as it arrives: the guest's reaction to a vCPU change, from xl's
# write of cpu/N/availability to the guest's write of data/smpalt/online,
# is the difference of two stamps, free of xl's own run time. Its clock is
# that of /proc/uptime: ns / NS_PER_CS is comparable with uptime_cs.
XS_STAMP_BIN=$SMPALT_DIR/bin/smpalt-xs-stamp
NS_PER_CS=10000000
NS_PER_US=1000
STAMP_READY_TIMEOUT=10

# stamp_start: stamp every event on the guest's cpu/ folder and on its
# data/smpalt/online into STAMP_LOG, in the background (STAMP_PID), once
# its watches are set. Fails the scenario without the program.
stamp_start() {
	local end
	[ -x "$XS_STAMP_BIN" ] || fail "no $XS_STAMP_BIN in the dom0 image (make bench builds it)"
	STAMP_LOG=/tmp/$SCENARIO-$GUEST.stamps
	: >"$STAMP_LOG"
	: >"$STAMP_LOG.err"
	"$XS_STAMP_BIN" "$(xs_guest_path cpu)" "$(xs_guest_path data/smpalt/online)" \
		>>"$STAMP_LOG" 2>"$STAMP_LOG.err" &
	STAMP_PID=$!
	end=$(($(uptime_cs) + STAMP_READY_TIMEOUT * CS_PER_SEC))
	until grep -q ready "$STAMP_LOG.err"; do
		alive "$STAMP_PID" && [ "$(uptime_cs)" -le "$end" ] ||
			fail "smpalt-xs-stamp did not start: $(cat "$STAMP_LOG.err")"
		usleep $FAST_POLL_USEC
	done
}

# stamp_stop: end the stamper (its lines are all in STAMP_LOG already).
stamp_stop() {
	[ -n "${STAMP_PID:-}" ] || return 0
	kill "$STAMP_PID" 2>/dev/null
	wait "$STAMP_PID" 2>/dev/null
	STAMP_PID=
}

# stamp_mark: the number of stamped events so far (taken before a change).
stamp_mark() {
	wc -l <"$STAMP_LOG"
}

# stamp_step MARK WANT: among the events after the first MARK, the first on
# the cpu/ folder (xl's transaction) and the first data/smpalt/online=WANT
# after it; sets AVAIL_NS, ONLINE_NS and REACT_US (their distance, in µs).
# Returns 1 while the log has not both yet.
stamp_step() {
	local got
	got=$(tail -n +$(($1 + 1)) "$STAMP_LOG" | awk -v want="$2" \
		-v cpu="$(xs_guest_path cpu)/" -v onl="$(xs_guest_path data/smpalt/online)" '
		a == "" && index($2, cpu) == 1 { a = $1; next }
		a != "" && $2 == onl && $3 == want { print a, $1; exit }')
	[ -n "$got" ] || return 1
	AVAIL_NS=${got% *} ONLINE_NS=${got#* }
	REACT_US=$(((ONLINE_NS - AVAIL_NS) / NS_PER_US))
}

# wait_stamp_step MARK WANT TIMEOUT: stamp_step, polled until it has both
# events; returns 1 after TIMEOUT seconds.
wait_stamp_step() {
	local end
	end=$(($(uptime_cs) + $3 * CS_PER_SEC))
	until stamp_step "$1" "$2"; do
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $FAST_POLL_USEC
	done
}

# us_to_ms US: microseconds as milliseconds with three decimals.
us_to_ms() {
	printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
}

# ------------------------------------ demos (scripts/dom0/demo-*.sh)
# The live lines of `make demo` and the autoscaler it runs: AS_PID (its
# pid), STOP_TIMEOUT (seconds it gets to exit after SIGTERM), its log
# open on fd 7 for forward_decisions.

# live TEXT: a line the host shows as it comes (the demo's sample lines).
live() {
	echo "@@SMPALT LIVE $*" >/dev/console
}

# as_alive: the autoscaler runs (not a zombie), without a fork: its stat
# line is "pid (smpalt-autoscal) S ...".
as_alive() {
	local st
	read -r _ _ st _ 2>/dev/null <"/proc/$AS_PID/stat" || return 1
	[ "$st" != Z ]
}

# uptime_var: NOW = centiseconds since dom0 boot, without a fork (uptime_cs
# prints it, which costs a subshell).
uptime_var() {
	local up rest
	read -r up rest </proc/uptime
	NOW=${up%.*}${up#*.}
	while [ "${NOW#0}" != "$NOW" ] && [ ${#NOW} -gt 1 ]; do NOW=${NOW#0}; done
}

# demo_stop_autoscaler: SIGTERM to AS_PID (once), SIGKILL after
# STOP_TIMEOUT seconds, wait for it and log its exit status.
demo_stop_autoscaler() {
	local end=$(($(uptime_cs) + STOP_TIMEOUT * CS_PER_SEC))
	[ -n "${AS_PID:-}" ] || return 0
	kill -TERM "$AS_PID" 2>/dev/null
	while alive "$AS_PID"; do
		if [ "$(uptime_cs)" -gt $end ]; then
			kill -KILL "$AS_PID"
			break
		fi
		usleep $POLL_USEC
	done
	wait "$AS_PID"
	log "autoscaler exited with status $?"
	AS_PID=
}

# The sampling loop of a demo: DEMO_START (uptime_cs at the profile's
# start), DEMO_K (samples so far), DEMO_DONE_AT (when the profile ended).
DEMO_START=0 DEMO_K=0 DEMO_DONE_AT=

# demo_settled PHASE T ONLINE MODE: 0 when sampling ends: once the profile
# is done, as soon as the guest is back at one vCPU in UP code, or
# SETTLE_TIMEOUT seconds later. Fails the demo (after the script's finish)
# when the profile still runs T = PROFILE_TIMEOUT seconds after its start.
demo_settled() {
	if [ "$1" = done ]; then
		[ -n "$DEMO_DONE_AT" ] || DEMO_DONE_AT=$NOW
		[ "$3" = 1 ] && [ "$4" = up ] && return 0
		[ $((NOW - DEMO_DONE_AT)) -ge $((SETTLE_TIMEOUT * CS_PER_SEC)) ]
		return
	fi
	[ "$2" -le $((PROFILE_TIMEOUT * CS_PER_SEC)) ] || {
		finish
		fail "profile not done after ${PROFILE_TIMEOUT}s (phase '$1')"
	}
	return 1
}

# demo_next_sample: sleep until the next whole SAMPLE_CS after DEMO_START;
# a slow round skips samples rather than piling them up.
demo_next_sample() {
	DEMO_K=$((DEMO_K + 1))
	uptime_var
	while [ $((DEMO_START + DEMO_K * SAMPLE_CS)) -le "$NOW" ]; do
		DEMO_K=$((DEMO_K + 1))
	done
	usleep $(((DEMO_START + DEMO_K * SAMPLE_CS - NOW) * USEC_PER_CS))
}

# next_line FD VAR: LINE = the next whole line of the file open on FD
# (returns 0), or returns 1 at its end; a line still being written is
# kept in the variable named VAR until the rest of it comes. No fork.
next_line() {
	local l
	if IFS= read -r l <&"$1"; then
		eval "LINE=\$$2\$l; $2="
		return 0
	fi
	eval "$2=\$$2\$l"
	return 1
}

# forward_decisions: the autoscaler log lines not shown yet, live (read
# from fd 7, which stays open on the log: no fork per second).
AS_PARTIAL=
forward_decisions() {
	local l
	while next_line 7 AS_PARTIAL; do
		# "[  t] name (domain N): what" -> "  autoscaler: what"
		l=${LINE#*] }
		case $l in *"(domain "*"): "*) l=${l#*): } ;; esac
		[ -z "$l" ] || live "  autoscaler: $l"
	done
}

# ----------------------------------------------------------------- runner

# emit_file NAME PATH: send a file to the host between markers, every line
# prefixed with "@@NAME|", followed by its line count and md5 so that the
# host can tell a block that the shared console mangled.
emit_file() {
	local name=$1 path=$2 norm=/tmp/emit.$$ lines sum
	[ -f "$path" ] || return 0
	tr -d '\r' <"$path" | awk '{ print }' >"$norm"
	lines=$(wc -l <"$norm")
	sum=$(md5sum "$norm" | cut -d' ' -f1)
	echo "@@SMPALT BEGIN $name"
	sed "s/^/@@$name|/" "$norm"
	echo "@@SMPALT END $name $lines $sum"
	rm -f "$norm"
}

# Send every guest console log not sent yet, then forget it (a guest of the
# same name later starts a fresh log).
emit_consoles() {
	local f g
	for f in "$CONSOLE_DIR"/guest-*.log; do
		[ -f "$f" ] || continue
		g=${f##*/guest-}
		g=${g%.log}
		emit_file "console-$g.log" "$f"
		rm -f "$f"
	done
}

# Destroy every domain but dom0, so that each scenario starts clean.
destroy_guests() {
	local id
	for id in $(xl list 2>/dev/null | awk 'NR > 2 { print $2 }'); do
		xl destroy "$id" >/dev/null 2>&1 ||
			echo "destroy_guests: xl destroy $id failed"
	done
}

# scenario_timeout NAME: the scenario's time limit in seconds:
# smpalt.timeout.NAME= (a scenario whose length scales, e.g. soak), else
# smpalt.timeout=, else DEFAULT_SCENARIO_TIMEOUT.
scenario_timeout() {
	cmdline_value "smpalt\.timeout\.$1" \
		"$(cmdline_value 'smpalt\.timeout' $DEFAULT_SCENARIO_TIMEOUT)"
}

# run_scenario NAME: run $SCENARIO_DIR/NAME.sh under a time limit, then send
# its log, the guest consoles and a xenstore dump, then its result line.
run_scenario() {
	local name=$1 script=$SCENARIO_DIR/$1.sh rf=$RESULTS_DIR/$1.result
	local logf=$RESULTS_DIR/$1.log limit rc status reason start
	limit=$(scenario_timeout "$name")
	echo "@@SMPALT START $name"
	start=$(now_cs)
	rm -f "$rf"
	if [ ! -f "$script" ]; then
		echo "ERROR no scenario script $script in the initramfs" >"$rf"
		: >"$logf"
	else
		SCENARIO=$name RESULT_FILE=$rf timeout -s KILL "$limit" \
			sh -c ". $SMPALT_DIR/lib.sh; . $script" >"$logf" 2>&1 </dev/null
		rc=$?
		if [ ! -s "$rf" ]; then
			if [ $rc -eq $KILLED_STATUS ]; then
				echo "ERROR killed after the scenario limit of ${limit}s" >"$rf"
			else
				echo "ERROR ended without a result (exit code $rc)" >"$rf"
			fi
		fi
	fi
	read -r status reason <"$rf"
	echo "[$(since 0)] runner: $name: $status $reason (took $(since "$start") s)" >>"$logf"
	{
		echo "### xenstore after scenario $name"
		xenstore-ls -f 2>&1
	} >>$RESULTS_DIR/xenstore-scenarios.txt
	destroy_guests >>"$logf" 2>&1
	emit_file "$name.log" "$logf"
	emit_file "xenstore-$name.txt" $RESULTS_DIR/xenstore-scenarios.txt
	rm -f $RESULTS_DIR/xenstore-scenarios.txt
	emit_consoles
	echo "@@SMPALT RESULT $name $status $reason"
}
