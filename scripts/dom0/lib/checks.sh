# smpalt dom0 library: the checks a hotplug scenario makes at a settled
# step: Xen's view against the guest's, the published state, the parity
# of switches, the counters.

# check_xen_view [WHAT]: at a settled step, compare the guest's own account
# (data/smpalt/online, data/smpalt/mode) with Xen's (xl vcpu-list) and fail
# the scenario on any difference, on a mode that does not fit the count
# (smp iff more than one vCPU online), or on UP text while Xen reports a
# secondary up (the one rule that must never break). Sets XEN_ONLINE.
# The guest's published state (online, mode, switches) is read before and
# after Xen's view, so that a switch there and back between them shows.
# Where something still acts on the guest (an autoscaler), the keys may
# move or lag Xen by one publication: a difference is read again, up to
# XEN_VIEW_TRIES times 0.5 s apart, each retry logged, and fails only if
# it persists. The raw xl vcpu-list goes to the log the first time and on
# any failure.
XEN_VIEW_TRIES=${XEN_VIEW_TRIES:-6}

check_xen_view() {
	local what=${1:-settled step} before after try=1 problem
	while :; do
		before=$(published_state)
		if ! XEN_ONLINE=$(xen_online_vcpus); then
			xl vcpu-list "$GUEST" 2>&1
			fail "$what: cannot count Xen's online vCPUs from xl vcpu-list (above)"
		fi
		after=$(published_state)
		# shellcheck disable=SC2086 # online, mode, switches on purpose
		problem=$(xen_view_problem "$XEN_ONLINE" $after)
		[ "$before" = "$after" ] && [ -z "$problem" ] && break
		# shellcheck disable=SC2086,SC2116 # joined on one line on purpose
		[ -n "$problem" ] ||
			problem="guest's keys moved ($(echo $before) -> $(echo $after))"
		if [ "$try" -ge "$XEN_VIEW_TRIES" ]; then
			xl vcpu-list "$GUEST" 2>&1
			fail "$what: $problem (xl vcpu-list, $try reads)"
		fi
		log "$what: read $try: $problem; reading again"
		try=$((try + 1))
		sleep 0.5
	done
	if [ -z "${XEN_VIEW_SHOWN:-}" ]; then
		XEN_VIEW_SHOWN=1
		log "$what: xl vcpu-list $GUEST:"
		xl vcpu-list "$GUEST" 2>&1
	fi
	# shellcheck disable=SC2086 # online, mode, switches on purpose
	set -- $after
	log "$what: guest online=$1 mode=$2, Xen online=$XEN_ONLINE"
}

# xen_view_problem XEN_ONLINE ONLINE MODE: what is wrong with the guest's
# ONLINE and MODE against Xen's count, or nothing.
xen_view_problem() {
	local xen=$1 online=${2:-} mode=${3:-}
	if [ "$mode" = up ] && [ "$xen" -gt 1 ]; then
		echo "UP text while Xen reports $xen vCPUs online"
	elif [ "$online" != "$xen" ]; then
		echo "guest says online=$online, Xen says $xen"
	elif [ "$mode" != "$(mode_for "$online")" ]; then
		echo "online=$online but mode is '$mode'"
	fi
}

# expect_guest_state WHAT ONLINE MODE SWITCHES: the domain runs and the
# guest publishes exactly these (one read); fails the scenario otherwise.
expect_guest_state() {
	local what=$1 vals
	guest_running || fail "after $what: domain state '$(domain_state)'"
	vals=$(guest_state)
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
