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
