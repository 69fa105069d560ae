# smpalt dom0 library: the state every guest kind publishes in its
# xenstore home (data/smpalt/: online, mode, switches, last-switch-ns;
# the smpalt guest, docs/guest.md, and the patched Linux guest,
# docs/linux.md, alike) and the waits on it, one timed vcpu-set step, and
# the counters contract both answer.

# The counters contract (app/work_check.c; the patched Linux guest's
# smpalt.stress=1 threads answer it too): dom0 writes a token to
# control/smpalt/check; the guest quiesces its workload, compares its
# totals and answers in data/smpalt/check with
# "<token> ok items=<n>" or "<token> FAIL <which> expected=<x> got=<y>".
CHECK_REQUEST_KEY=control/smpalt/check
CHECK_REPLY_KEY=data/smpalt/check
DEFAULT_CHECK_TIMEOUT=45

# mode_for COUNT: the mode the text must hold with COUNT vCPUs online.
mode_for() {
	if [ "$1" -gt 1 ]; then echo smp; else echo up; fi
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

# published_state: the guest's online, mode and switches as published
# now, one value a line, from one read (a driver's <kind>_state).
published_state() {
	xs_read_guest_keys data/smpalt/online data/smpalt/mode data/smpalt/switches
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
