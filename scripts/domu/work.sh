#!/bin/busybox sh
# smpalt-work CS: the lock-heavy loop that `make bench` times inside a Linux
# domU (stock and patched alike: scripts/build/mk-linux-domu.sh and
# scripts/build/mk-linux-smpalt-domu.sh copy this file to /bin/smpalt-work, and
# their /init starts it, pinned to cpu 0, when the kernel command line has
# smpalt.work=CS).
#
# Rounds of CS centiseconds each, forever. One step of a round is a command
# substitution of a builtin: the shell forks, the child writes into a pipe
# and exits, the parent reads the pipe and waits for the child. That is
# the kernel's fork, exit, wait, pipe and page-fault paths, full of locked
# instructions (page table and mm locks, refcounts, the run queue), with
# nothing exec'd and nothing to read from disk.
# After each round one console line:
#     smpalt-work: online <list> forks <n> cs <cs> end-online <list>
# with the online cpus (/sys/devices/system/cpu/online) when the round
# started and ended, the steps done and the centiseconds that passed
# (/proc/uptime: the rate is forks / cs, however late the round ended).
CS=${1:-300}
CPU_ONLINE=/sys/devices/system/cpu/online

# now: NOW = centiseconds since boot (no fork; no leading zero, which ash
# would read as octal).
now() {
	local up rest
	read -r up rest </proc/uptime
	NOW=${up%.*}${up#*.}
	while [ "${NOW#0}" != "$NOW" ] && [ ${#NOW} -gt 1 ]; do NOW=${NOW#0}; done
}

case $CS in
'' | *[!0-9]*) echo "smpalt-work: bad round length '$CS' (centiseconds)"; exit 2 ;;
esac
while :; do
	read -r first <$CPU_ONLINE
	now
	start=$NOW
	end=$((start + CS))
	n=0
	while [ "$NOW" -lt "$end" ]; do
		# shellcheck disable=SC2116 # the fork and the pipe are the work
		v=$(echo $n)
		n=$((v + 1))
		now
	done
	read -r last <$CPU_ONLINE
	echo "smpalt-work: online $first forks $n cs $((NOW - start)) end-online $last"
done
