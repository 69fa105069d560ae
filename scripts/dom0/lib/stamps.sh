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
