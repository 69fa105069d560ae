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

# dump_guests: where each guest stands, for a scenario that did not
# succeed, before its guests are destroyed: Xen's list of their vCPUs, then
# the registers of the first 8 vCPUs Xen has up (xenctx; an offline vCPU,
# CPU "-", has none worth reading).  A guest that stopped answering shows
# where it stopped.  Xen's own account follows on its console (which the
# harness logs): each vCPU's upcall_pend, upcall_mask and pause_flags
# (debug key q), each event channel's pending and masked bits (e) and
# Xen's timer queues (a: a vCPU's one-shot timer still queued, and when it
# expires), what tells an event never sent from one sent and never
# delivered.
dump_guests() {
	local id v
	echo "### xl vcpu-list after the failure"
	xl vcpu-list 2>&1
	xl debug-keys q 2>&1
	xl debug-keys e 2>&1
	xl debug-keys a 2>&1
	for id in $(xl list 2>/dev/null | awk 'NR > 2 { print $2 }'); do
		for v in $(xl vcpu-list "$id" 2>/dev/null |
			awk 'NR > 1 && $4 != "-" && n++ < 8 { print $3 }'); do
			echo "### xenctx domain $id vCPU $v"
			xenctx "$id" "$v" 2>&1 | head -40
		done
	done
}

# scenario_timeout NAME: the scenario's time limit in seconds:
# smpalt.timeout.NAME= (a scenario whose length scales, e.g. soak), else
# smpalt.timeout=, else DEFAULT_SCENARIO_TIMEOUT.
scenario_timeout() {
	cmdline_value "smpalt\.timeout\.$1" \
		"$(cmdline_value 'smpalt\.timeout' $DEFAULT_SCENARIO_TIMEOUT)"
}

# run_guest_kind: the guest kind of this run, smpalt.guest= on the dom0
# command line (scripts/run/xen-run.sh -G), smpalt by default; the scenarios
# get it as GUEST_KIND (driver.sh).
run_guest_kind() {
	cmdline_value 'smpalt\.guest' smpalt
}

# run_guest_type: the type of this run's guests, smpalt.type= on the dom0
# command line (scripts/run/xen-run.sh -T), pv by default; the scenarios
# get it as GUEST_TYPE (driver.sh), domain_create applies it (guest.sh).
run_guest_type() {
	cmdline_value 'smpalt\.type' pv
}

# run_scenario NAME: run $SCENARIO_DIR/NAME.sh under a time limit, with the
# run's guest kind and type (the harness has left out, as SKIP, every
# scenario whose "# guests:" or "# types:" do not include them), then send
# its log, the guest consoles and a xenstore dump, then its result line.
run_scenario() {
	local name=$1 script=$SCENARIO_DIR/$1.sh rf=$RESULTS_DIR/$1.result
	local logf=$RESULTS_DIR/$1.log limit rc status reason start kind type
	limit=$(scenario_timeout "$name")
	kind=$(run_guest_kind)
	type=$(run_guest_type)
	echo "@@SMPALT START $name"
	start=$(now_cs)
	rm -f "$rf"
	if [ ! -f "$script" ]; then
		echo "ERROR no scenario script $script in the initramfs" >"$rf"
		: >"$logf"
	elif ! guest_driver_ok "$kind"; then
		echo "ERROR no driver for guest kind '$kind' (smpalt.guest=; scripts/dom0/lib/driver.sh)" >"$rf"
		: >"$logf"
	elif ! guest_type_ok "$type"; then
		echo "ERROR unknown guest type '$type' (smpalt.type=: $GUEST_TYPES)" >"$rf"
		: >"$logf"
	else
		SCENARIO=$name GUEST_KIND=$kind GUEST_TYPE=$type RESULT_FILE=$rf \
			timeout -s KILL "$limit" \
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
	case $status in
	SUCCESS | SKIP) ;;
	*) dump_guests >>"$logf" 2>&1 ;;
	esac
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
