# Scenario bench-linux-vcpu (make bench): the same `xl vcpu-set` sequence
# as bench-vcpu, against stock Debian Linux 6.1 as a PV domU.
# Input: the dom0 kernel image with the initramfs of
# scripts/build/mk-linux-domu.sh (xl-configs/linux.cfg: memory 128, vcpus=1,
# maxvcpus=4), booted twice:
#   kernel   the kernel alone;
#   user     with a user-space loop that onlines every present, offline cpu
#            every 50 ms (what stock Linux needs from udev or a script).
# Its /init prints "linux-bench: online <cpu list> at <uptime>" whenever
# /sys/devices/system/cpu/online changes (polled every 50 ms).
# Measured per step, into bench-linux-vcpu.csv (sent to the host): the time
# from just before `xl vcpu-set` until dom0 reads the line with the new list
# in the domU's console log (polled every 20 ms): "seen"; no such line
# within NEVER_SEC: "never"; the list already right (nothing to offline):
# "unchanged".
# Expected: each domU boots and settles on cpu 0 alone; otherwise FAILURE.
# The figures are reported, not judged. SKIP without the Linux files
# (the dom0 initramfs carries them when built with LINUX_DOMU_DIR set).
# smpalt.bench.rounds=N on the dom0 command line overrides ROUNDS.

LINUX_DIR=$SMPALT_DIR/linux
LINUX_CFG=$SMPALT_DIR/xl-configs/linux.cfg
# Keep in step with extra= in xl-configs/linux.cfg.
LINUX_EXTRA="console=hvc0 quiet rdinit=/init"
ONLINER_ARG="linux-bench.onliner=1"
LINE="linux-bench: online"
BOOT_TIMEOUT=150
SETTLE_TIMEOUT=30
NEVER_SEC=5
ROUNDS=3
STEPS="2 1 4 1"
VARIANTS="kernel user"
POLL_FOLLOW_USEC=20000
CSV=$RESULTS_DIR/bench-linux-vcpu.csv

ROUNDS=$(cmdline_value 'smpalt\.bench\.rounds' $ROUNDS)

# The list Linux shows in /sys/devices/system/cpu/online for N vCPUs.
cpu_list() {
	if [ "$1" -eq 1 ]; then echo 0; else echo "0-$(($1 - 1))"; fi
}

# follow_console WANT TIMEOUT: read the console log on fd 3 from where the
# last call stopped; every "online <list>" line updates CUR_LIST. Returns 0
# (and sets SEEN_CS, the dom0 time it was read) once a line shows WANT,
# 1 after TIMEOUT seconds. A line still being written is kept for later.
PENDING=
CUR_LIST=
follow_console() {
	local want=$1 end chunk line l
	end=$(($(uptime_cs) + $2 * CS_PER_SEC))
	while :; do
		while :; do
			if IFS= read -r chunk <&3; then
				line=$PENDING$chunk
				PENDING=
			else
				PENDING=$PENDING$chunk
				break
			fi
			case $line in
			*"$LINE "*" at "*)
				l=${line#*"$LINE "}
				CUR_LIST=${l%% at *}
				if [ "$CUR_LIST" = "$want" ]; then
					SEEN_CS=$(uptime_cs)
					return 0
				fi
				;;
			esac
		done
		[ "$(uptime_cs)" -le "$end" ] || return 1
		usleep $POLL_FOLLOW_USEC
	done
}

# run_variant NAME EXTRA_ARGS: boot one domU, run the steps, destroy it.
run_variant() {
	local variant=$1 extra=$2 round n from want t0 t_xl outcome lat boot_cs
	GUEST=linux-$variant
	CONSOLE_LOG=$CONSOLE_DIR/guest-$GUEST.log
	rm -f "$CONSOLE_LOG"
	CREATE_CS=$(now_cs)
	log "xl create $LINUX_CFG name=\"$GUEST\" extra=\"$LINUX_EXTRA$extra\""
	xl create -q "$LINUX_CFG" "name=\"$GUEST\"" "extra=\"$LINUX_EXTRA$extra\"" ||
		fail "xl create of $GUEST failed"
	DOMID=$(xl domid "$GUEST" 2>/dev/null) || fail "xl domid $GUEST failed after create"
	wait_for_console "$LINE " $BOOT_TIMEOUT ||
		fail "$GUEST: no '$LINE' line within ${BOOT_TIMEOUT}s of create"
	boot_cs=$(($(now_cs) - CREATE_CS))
	exec 3<"$CONSOLE_LOG"
	PENDING=
	# At boot Linux 6.1 PV brings every vCPU up, then offlines all but
	# cpu 0: wait for that state before measuring.
	follow_console 0 $SETTLE_TIMEOUT ||
		fail "$GUEST: online never settled on 0 (last: '$CUR_LIST')"
	note "$GUEST: booted, online 0 at create +$(cs_to_s $boot_cs) s"
	echo "linux,$variant,0,boot,1,0,,$(cs_to_s $boot_cs),seen" >>"$CSV"

	from=1
	round=1
	while [ "$round" -le "$ROUNDS" ]; do
		for n in $STEPS; do
			want=$(cpu_list "$n")
			# Lines that came since the last step (e.g. a late
			# change) set CUR_LIST first.
			follow_console "<none>" 0
			t0=$(uptime_cs)
			xl vcpu-set -i "$GUEST" "$n" ||
				fail "xl vcpu-set -i $GUEST $n failed"
			t_xl=$(uptime_cs)
			lat=
			if [ "$CUR_LIST" = "$want" ]; then
				outcome=unchanged
			elif follow_console "$want" $NEVER_SEC; then
				outcome=seen
				lat=$(cs_to_s $((SEEN_CS - t0)))
			else
				outcome=never
			fi
			echo "linux,$variant,$round,$from,$n,$want,$(cs_to_s $((t_xl - t0))),$lat,$outcome" >>"$CSV"
			note "$GUEST round $round $from->$n: $outcome${lat:+ after $lat s} (online '$CUR_LIST')"
			from=$n
		done
		round=$((round + 1))
	done
	exec 3<&-
	xl destroy "$GUEST" || fail "xl destroy $GUEST failed"
	wait_domain_gone || fail "domain $GUEST still listed after xl destroy"
}

[ -f "$LINUX_DIR/vmlinuz" ] && [ -f "$LINUX_DIR/initrd.gz" ] ||
	result SKIP "no Linux domU in the initramfs (build it with LINUX_DOMU_DIR)"
echo "system,variant,round,from,to,want,xl_s,latency_s,outcome" >"$CSV"
for v in $VARIANTS; do
	case $v in
	kernel) run_variant kernel "" ;;
	user) run_variant user " $ONLINER_ARG" ;;
	esac
done

echo "--- $CSV"
cat "$CSV"
send_back bench-linux-vcpu.csv "$CSV"
never=$(grep -c ',never$' "$CSV")
seen=$(grep -c ',seen$' "$CSV")
result SUCCESS "Linux 6.1: $VARIANTS x $ROUNDS rounds of $STEPS: $seen seen (boot included), $never never"
