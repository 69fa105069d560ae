# Scenario bench-linux-smpalt (make bench): the patched Linux guests
# (patches/linux-KVER/, `make linux KVER=...`) measured beside smpalt and
# stock Linux in the same Xen boot, each guest as a PV or a PVH domU.
# types: pv
# (Each guest's type is its entry's below, whatever the run's: a run of
# PVH guests would measure nothing more.)
# Input: the entries of smpalt.bench.kvers=ENTRY+ENTRY... on the dom0
# command line (make bench KVERS=), each a Linux version, or a version and
# a configuration (6.1-debug), then ":pvh" for a PVH guest (7.2:pvh;
# ":pv" or nothing: PV): the patched guest of that version, carried to
# /opt/smpalt/linux-smpalt-KVER/ (one for both types; without entries, the
# one guest of /opt/smpalt/linux-smpalt/, taken as 6.1), with
# xl-configs/linux-smpalt.cfg (vcpus=1, maxvcpus=4, without the counters
# self-test) and, for PVH, type="pvh" and tsc_mode="native" (domain_create);
# and the stock control of the first version (xl-configs/linux.cfg) as
# each type of smpalt.bench.stock-types=pv[+pvh]:
#   1. steps, for each entry in turn, one boot each: ROUNDS rounds of
#      xl vcpu-set through STEPS (1->2 switches to SMP, 2->3 and 3->2
#      change the vCPUs without a switch, 2->1 switches back to UP, 1->4
#      and 4->1 as in the other benchmarks), no workload;
#   2. work, with the first entry of each type (smpalt.work=WORK_CS): the
#      fork+pipe loop of scripts/domu/work.sh, pinned to cpu 0, timed in
#      WORK_PHASES alternately with 1 vCPU online (UP code) and 2 (SMP
#      code, the second vCPU idle), WORK_ROUNDS rounds a phase;
#   3. stock, for each stock type: the same loop in stock Linux with its
#      one vCPU online (SMP code: stock Linux never goes back to UP),
#      WORK_ROUNDS rounds.
# Measured per step, into bench-linux-smpalt.csv: xl_s (the xl command
# alone), latency_s (just before xl vcpu-set until dom0's event stamper,
# smpalt-xs-stamp, sees data/smpalt/online hold the new count), reaction_ms
# (the stamper's time from xl's write of cpu/N/availability to that
# data/smpalt/online event: the guest's own reaction, free of xl), and for
# a step that switched, switch_ns (data/smpalt/last-switch-ns) and sites;
# kver names the entry (the version, and ":pvh" for a PVH guest).
# Per work round, into bench-linux-work.csv: the forks done and the
# centiseconds that passed, from the guest's console line; kver names the
# entry as above (the stock rows: the stock control's version and type).
# Expected: every step reaches its count within STEP_TIMEOUT, switches
# grows by one exactly on a step that crosses between 1 and more vCPUs and
# stays otherwise, Xen's view (xl vcpu-list) equals the guest's at every
# settled step, refused stays 0 and no alarming console line; every work
# round of a phase ran wholly with that phase's cpus online and did some
# forks. The figures are reported, not judged. Not in the default set
# (bench-*). smpalt.bench.rounds=N on the dom0 command line overrides
# ROUNDS.

BOOT_TIMEOUT=120
STEP_TIMEOUT=60
ROUNDS=5
STEPS="2 3 2 1 4 1"
WORK_CS=300
WORK_ROUNDS=2
WORK_PHASES="1 2 1 2 1 2"
# A work round is WORK_CS long; a phase waits for one to be thrown away
# (it may have started before the phase) and WORK_ROUNDS more, with room.
WORK_TIMEOUT=120
CSV=$RESULTS_DIR/bench-linux-smpalt.csv
WORK_CSV=$RESULTS_DIR/bench-linux-work.csv
WORK_LINE="smpalt-work: online "
# Keep in step with extra= in xl-configs/linux-smpalt.cfg (its
# smpalt.stress=1 left out: the counters threads would compete with the
# timed loop) and xl-configs/linux.cfg (its /init polling slowed to 2 s,
# as the patched guest's /init polls, so that both spend the same on it).
PATCHED_EXTRA="console=hvc0 rdinit=/init"
STOCK_EXTRA="console=hvc0 quiet rdinit=/init linux-bench.poll-usec=2000000"
STOCK_SETTLED="linux-bench: online 0 at"

ROUNDS=$(cmdline_value 'smpalt\.bench\.rounds' $ROUNDS)
KVERS=$(cmdline_value 'smpalt\.bench\.kvers' "" | tr '+' ' ')
STOCK_TYPES=$(cmdline_value 'smpalt\.bench\.stock-types' pv | tr '+' ' ')

# entry_dir ENTRY: the version (and configuration) of a KVERS entry, the
# name of its guest's folder. entry_type ENTRY: its guest type.
# entry_label ENTRY: its name in the CSVs: the version, then ":pvh" for a
# PVH guest. file_label LABEL: the same in a file name (no colon).
entry_dir() {
	echo "${1%%:*}"
}
entry_type() {
	case $1 in
	*:*) echo "${1#*:}" ;;
	*) echo pv ;;
	esac
}
entry_label() {
	case $(entry_type "$1") in
	pv) entry_dir "$1" ;;
	*) echo "$(entry_dir "$1"):$(entry_type "$1")" ;;
	esac
}
file_label() {
	echo "$1" | tr ':' '-'
}

# cpu_list N: the list Linux shows in /sys/devices/system/cpu/online.
cpu_list() {
	if [ "$1" -eq 1 ]; then echo 0; else echo "0-$(($1 - 1))"; fi
}

# clean WHAT: refused 0, no alarm, the domain runs (linux_clean), and the
# stamper still runs.
clean() {
	linux_clean "$1"
	alive "$STAMP_PID" || fail "$1: smpalt-xs-stamp exited: $(cat "$STAMP_LOG.err")"
}

# work_rounds SYSTEM LABEL FORM N PHASE MARK: after the console's first
# MARK lines (console_lines taken once N vCPUs were settled), throw the
# first work line away and append the next WORK_ROUNDS to WORK_CSV, kver
# LABEL; each must have run wholly with N's cpus online.
work_rounds() {
	local system=$1 label=$2 form=$3 n=$4 phase=$5 mark=$6 want lines got k
	local line end
	local on forks cs end_on
	want=$(cpu_list "$n")
	got=$((WORK_ROUNDS + 1))
	wait_for_console_since "$mark" "smpalt-work: .*end-online" $WORK_TIMEOUT ||
		fail "$system $label phase $phase: no work round within ${WORK_TIMEOUT}s"
	end=$(($(uptime_cs) + WORK_TIMEOUT * CS_PER_SEC))
	while :; do
		lines=$(console_since "$mark" | grep -F -c -- "$WORK_LINE")
		[ "$lines" -lt $got ] || break
		[ "$(uptime_cs)" -le "$end" ] ||
			fail "$system $label phase $phase: $lines of $got work rounds within ${WORK_TIMEOUT}s"
		usleep $POLL_USEC
	done
	k=0
	console_since "$mark" | grep -F -- "$WORK_LINE" | head -n $got |
		tail -n $WORK_ROUNDS >/tmp/work-rounds
	while IFS= read -r line; do
		# "smpalt-work: online L forks N cs C end-online L"
		# shellcheck disable=SC2086 # the line's words on purpose
		set -- ${line#*"$WORK_LINE"}
		on=$1 forks=$3 cs=$5 end_on=$7
		[ "$on" = "$want" ] && [ "$end_on" = "$want" ] ||
			fail "$system $label phase $phase: a work round ran with cpus $on..$end_on, expected $want: '$line'"
		[ "$forks" -gt 0 ] 2>/dev/null && [ "$cs" -gt 0 ] 2>/dev/null ||
			fail "$system $label phase $phase: a work round did nothing: '$line'"
		k=$((k + 1))
		echo "$system,$form,$n,$phase,$k,$forks,$cs,$label" >>"$WORK_CSV"
		note "$system $label $form ($n online) phase $phase: $forks forks in $cs cs"
	done </tmp/work-rounds
}

trap stamp_stop EXIT

# entry_boot ENTRY EXTRA: linux_boot_up of ENTRY's guest as its type,
# with extra= EXTRA; without entries, the guest of
# /opt/smpalt/linux-smpalt/.
entry_boot() {
	GUEST_TYPE=$(entry_type "$1")
	if [ -z "$KVERS" ]; then
		linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "extra=\"$2\""
		return
	fi
	LINUX_SMPALT_DIR=$SMPALT_DIR/linux-smpalt-$(entry_dir "$1")
	# A configuration that needs more memory (Debian's) says how much.
	# shellcheck disable=SC2046 # one key=value or none
	linux_boot_up $BOOT_TIMEOUT $STEP_TIMEOUT "extra=\"$2\"" \
		"kernel=\"$LINUX_SMPALT_DIR/vmlinuz\"" \
		"ramdisk=\"$LINUX_SMPALT_DIR/initrd.gz\"" \
		$([ ! -f "$LINUX_SMPALT_DIR/memory" ] || echo "memory=$(cat "$LINUX_SMPALT_DIR/memory")")
}

# run_steps ENTRY: part 1 for one entry's guest, its rows appended to CSV.
run_steps() {
	local kver from switches last_ns round n what switched mark t0 t_xl
	local lat_cs ns sites
	kver=$(entry_label "$1")
	entry_boot "$1" "$PATCHED_EXTRA"
	stamp_start
	clean "Linux $kver after boot"
	from=1 switches=$SWITCHES last_ns=$LAST_NS
	round=1
	while [ "$round" -le "$ROUNDS" ]; do
		for n in $STEPS; do
			what="Linux $kver round $round, $from->$n"
			switched=0
			[ "$(mode_for "$from")" = "$(mode_for "$n")" ] || switched=1
			mark=$(stamp_mark)
			t0=$(uptime_cs)
			vcpu_set "$n" || fail "$what: xl vcpu-set $GUEST $n failed"
			t_xl=$(uptime_cs)
			wait_stamp_step "$mark" "$n" $STEP_TIMEOUT ||
				fail "$what: no data/smpalt/online=$n event after xl's within ${STEP_TIMEOUT}s"
			lat_cs=$((ONLINE_NS / NS_PER_CS - t0))
			if [ $switched = 1 ]; then
				read_switch_state $((switches + 1)) "$last_ns" $STEP_TIMEOUT ||
					fail "$what: switches '$SWITCHES', last-switch-ns '$LAST_NS': expected $((switches + 1)) and a new duration"
				ns=$LAST_NS sites=$(xs_read_guest data/smpalt/sites)
			else
				read_switch_state $switches "" $STEP_TIMEOUT ||
					fail "$what: switches '$SWITCHES', expected $switches (no mode change)"
				ns='' sites=''
			fi
			[ "$MODE" = "$(mode_for "$n")" ] ||
				fail "$what: online=$n but mode is '$MODE'"
			switches=$SWITCHES last_ns=$LAST_NS
			check_xen_view "$what"
			clean "$what"
			echo "linux-smpalt,$round,$from,$n,$switched,$(cs_to_s $((t_xl - t0))),$(cs_to_s $lat_cs),$(us_to_ms $REACT_US),$ns,$sites,$kver" >>"$CSV"
			note "$what: online after $(cs_to_s $lat_cs) s, reaction $(us_to_ms $REACT_US) ms${ns:+, switch $ns ns ($sites sites)}"
			from=$n
			steps=$((steps + 1))
		done
		round=$((round + 1))
	done
	stamp_stop
	guest_destroy
	send_back "console-$GUEST-steps-$(file_label "$kver").log" "$CONSOLE_LOG"
}

# run_work ENTRY: part 2 with one entry's guest, its rows appended to
# WORK_CSV.
run_work() {
	local kver n form switches last_ns from
	kver=$(entry_label "$1")
	entry_boot "$1" "$PATCHED_EXTRA smpalt.work=$WORK_CS"
	switches=$SWITCHES last_ns=$LAST_NS from=1 phase=0
	for n in $WORK_PHASES; do
		phase=$((phase + 1))
		if [ "$n" != "$from" ]; then
			switches=$((switches + 1))
			vcpu_set_step "$n" $switches "$last_ns" $STEP_TIMEOUT "Linux $kver work phase $phase: vcpu-set $n"
			last_ns=$LAST_NS
		fi
		check_xen_view "Linux $kver work phase $phase"
		linux_clean "Linux $kver work phase $phase"
		form=$(mode_for "$n")
		work_rounds linux-smpalt "$kver" "$form" "$n" $phase "$(console_lines)"
		from=$n
	done
	check_xen_view "Linux $kver after the work phases"
	linux_clean "Linux $kver after the work phases"
	guest_destroy
	send_back "console-$GUEST-work-$(file_label "$kver").log" "$CONSOLE_LOG"
}

# run_stock TYPE: part 3 with the stock guest as a TYPE domain, its rows
# appended to WORK_CSV. Stock Linux as a PV guest brings every vCPU up at
# boot, then takes all but cpu 0 down; as a PVH guest it brings up cpu 0
# alone (the MADT enables the vcpus=1 ones) and onlines no vCPU added
# later: cpu 0 alone, in SMP code, either way.
run_stock() {
	local kver xen_n alarm
	kver=$(entry_label "$STOCK_KVER:$1")
	GUEST_TYPE=$1
	guest_create "extra=\"$STOCK_EXTRA smpalt.work=$WORK_CS\""
	wait_for_console "$STOCK_SETTLED" $BOOT_TIMEOUT ||
		fail "stock Linux $kver: online never settled on cpu 0 within ${BOOT_TIMEOUT}s"
	xen_n=$(xen_online_vcpus) || fail "stock Linux $kver: cannot count Xen's online vCPUs"
	[ "$xen_n" = 1 ] || fail "stock Linux $kver: Xen counts $xen_n vCPUs online, expected 1"
	work_rounds linux-stock "$kver" smp 1 1 "$(console_lines)"
	alarm=$(linux_alarm) && fail "stock Linux $kver: guest console: $alarm"
	guest_destroy
	send_back "console-$GUEST-stock-$(file_label "$kver").log" "$CONSOLE_LOG"
}

ENTRIES=${KVERS:-6.1}
# The stock control is the first version's (make bench).
STOCK_KVER=$(entry_dir "${ENTRIES%% *}")

# --- 1. the steps, no workload, for each entry
echo "system,round,from,to,switched,xl_s,latency_s,reaction_ms,switch_ns,sites,kver" >"$CSV"
steps=0
for e in $ENTRIES; do
	run_steps "$e"
done

# --- 2. the work loop in UP and in SMP code, alternately, with the first
# entry of each type
echo "system,form,online,phase,round,forks,cs,kver" >"$WORK_CSV"
work_types='' work_kvers=''
for e in $ENTRIES; do
	case " $work_types " in *" $(entry_type "$e") "*) continue ;; esac
	work_types="$work_types $(entry_type "$e")"
	run_work "$e"
	work_kvers="$work_kvers $(entry_label "$e")"
done

# --- 3. the same loop in stock Linux, one vCPU online, as each type
[ -f "$LINUX_STOCK_DIR/vmlinuz" ] && [ -f "$LINUX_STOCK_DIR/initrd.gz" ] ||
	fail "no stock Linux domU in the dom0 image ($LINUX_STOCK_DIR)"
SMPALT_CFG=$LINUX_STOCK_CFG
SMPALT_ELF=$LINUX_STOCK_DIR/vmlinuz
for t in $STOCK_TYPES; do
	run_stock "$t"
done

echo "--- $CSV"
cat "$CSV"
echo "--- $WORK_CSV"
cat "$WORK_CSV"
send_back bench-linux-smpalt.csv "$CSV"
send_back bench-linux-work.csv "$WORK_CSV"
result SUCCESS "patched Linux $ENTRIES: $steps vcpu-set steps in $ROUNDS rounds of $STEPS each, Xen agreed at each; work loop in $phase phases of $WORK_ROUNDS rounds with$work_kvers, and in stock Linux $STOCK_KVER as $STOCK_TYPES"
