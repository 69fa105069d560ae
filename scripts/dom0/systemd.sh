# smpalt dom0 library, systemd part (busybox ash): helpers for the
# scenarios marked "# needs: systemd", which run in the systemd dom0 image
# (scripts/build/mkdom0-systemd.sh) and source this after scripts/dom0/lib.sh.

# Debian's dpkg (busybox's ash runs its own dpkg applet before PATH), with
# the PATH of a root shell on Debian for the packages' maintainer scripts.
ADMIN_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
DPKG="env PATH=$ADMIN_PATH /usr/bin/dpkg"
# The .deb files the harness carried (SMPALT_DEBS of scripts/run/xen-run.sh).
SMPALT_DEB_DIR=$SMPALT_DIR/debs
# Pause between two polls of a unit's state.
UNIT_POLL_USEC=200000

# require_systemd: the scenario needs systemd as PID 1; SKIP elsewhere.
require_systemd() {
	local init
	init=$(cat /proc/1/comm 2>/dev/null)
	[ "$init" = systemd ] ||
		result SKIP "needs systemd as PID 1 (the systemd dom0 image, DOM0=systemd); PID 1 is '$init'"
}

# find_debs: DEBS = the carried .deb files (space-separated); with none
# the scenario SKIPs.
find_debs() {
	local d
	DEBS=
	for d in "$SMPALT_DEB_DIR"/*.deb; do
		[ -f "$d" ] && DEBS="$DEBS $d"
	done
	DEBS=${DEBS# }
	[ -n "$DEBS" ] ||
		result SKIP "no .deb given: the harness carries the packages of SMPALT_DEBS (make test-xen builds them) to $SMPALT_DEB_DIR"
}

# unit_prop UNIT PROPERTY: the value of a unit property (systemctl show).
unit_prop() {
	systemctl show -p "$2" --value "$1" 2>/dev/null
}

# unit_state UNIT: "ActiveState/SubState, main pid P, result R" for logs.
unit_state() {
	echo "$(unit_prop "$1" ActiveState)/$(unit_prop "$1" SubState), main pid $(unit_prop "$1" MainPID), result $(unit_prop "$1" Result)"
}

# not_failed UNIT WHAT: fail the scenario if systemd counts UNIT as failed.
not_failed() {
	if systemctl is-failed -q "$1"; then
		journal_tail "$1"
		fail "$2: $1 is failed ($(unit_state "$1"))"
	fi
	log "$2: $1 not failed ($(unit_state "$1"))"
}

# wait_unit UNIT STATE TIMEOUT: wait until UNIT's ActiveState is STATE
# (active, inactive, failed...). Returns 1 after TIMEOUT seconds.
wait_unit() {
	local unit=$1 want=$2 end s
	end=$(deadline_cs "$3")
	while :; do
		s=$(unit_prop "$unit" ActiveState)
		[ "$s" = "$want" ] && return 0
		if [ "$(now_cs)" -gt "$end" ]; then
			log "$unit: ActiveState '$s', not '$want' after ${3}s"
			return 1
		fi
		usleep $UNIT_POLL_USEC
	done
}

# journal_lines UNIT: the messages UNIT logged in this boot (message text).
journal_lines() {
	journalctl -b -u "$1" -o cat --no-pager 2>/dev/null
}

# journal_tail UNIT: the last lines of UNIT's journal into the scenario log.
journal_tail() {
	echo "--- journalctl -u $1 (last 40 lines)"
	journalctl -b -u "$1" -o short-monotonic --no-pager 2>&1 | tail -40
	echo "---"
}

# wait_journal UNIT FIXED TIMEOUT: wait until a journal line of UNIT
# contains FIXED; returns 1 after TIMEOUT seconds.
wait_journal() {
	local end
	end=$(deadline_cs "$3")
	until journal_lines "$1" | grep -qF -- "$2"; do
		[ "$(now_cs)" -le "$end" ] || return 1
		usleep $UNIT_POLL_USEC
	done
}

# wait_file_line FILE LINE TIMEOUT: wait until FILE has exactly LINE as
# one of its lines. Returns 1 on timeout.
wait_file_line() {
	local end
	end=$(deadline_cs "$3")
	until grep -qxF -- "$2" "$1" 2>/dev/null; do
		[ "$(now_cs)" -le "$end" ] || return 1
		usleep $UNIT_POLL_USEC
	done
}

# span_usec SPAN: a time span as systemctl show prints one ("30s",
# "1min 30s", "500ms", "0") in microseconds; "infinity" gives -1, a
# span it cannot read "bad".
span_usec() {
	echo "$1" | awk '
	$0 == "infinity" { print -1; exit }
	{
		t = 0
		for (i = 1; i <= NF; i++) {
			n = $i
			u = $i
			sub(/[^0-9.]+$/, "", n)
			sub(/^[0-9.]+/, "", u)
			if (u == "us" || u == "\316\274s") m = 1
			else if (u == "ms") m = 1000
			else if (u == "s" || u == "") m = 1000000
			else if (u == "min") m = 60000000
			else if (u == "h") m = 3600000000
			else { print "bad"; exit }
			t += n * m
		}
		printf "%.0f\n", t
	}'
}

# mono_usec: microseconds since dom0 booted, the clock of systemd's
# *TimestampMonotonic properties (dom0 never suspends, so /proc/uptime
# keeps to CLOCK_MONOTONIC).
mono_usec() {
	awk '{ printf "%.0f\n", $1 * 1000000 }' /proc/uptime
}

# unit_exits UNIT STATUS: how many times in this boot systemd logged that
# a process of UNIT exited with STATUS (the EXIT_CODE and EXIT_STATUS
# fields of its entry, in systemd 252 and 257 alike).
unit_exits() {
	journalctl -b _PID=1 UNIT="$1" EXIT_CODE=exited EXIT_STATUS="$2" \
		-o cat --no-pager 2>/dev/null | grep -c .
}

# pid_errors PID: the error-level (or worse) journal lines of process PID
# in this boot.
pid_errors() {
	journalctl -b _PID="$1" -p err -o cat --no-pager 2>/dev/null
}
