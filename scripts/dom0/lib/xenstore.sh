# smpalt dom0 library: the guest's xenstore home (xs_guest_path, reads,
# writes, waits). DOMID is the scenario's guest (guest_create).

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

# xs_read_guest_keys KEY...: one xenstore-read for several keys (one fork
# under TCG instead of several), one value per line; fails if any is absent.
xs_read_guest_keys() {
	local k paths=
	for k in "$@"; do paths="$paths $(xs_guest_path "$k")"; done
	# shellcheck disable=SC2086 # one argument per key on purpose
	xenstore-read $paths 2>/dev/null
}
