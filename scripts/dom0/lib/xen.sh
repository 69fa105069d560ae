# smpalt dom0 library: Xen's side through xl: domain states, the vCPUs
# Xen reports online, the host's CPUs, dom0's scheduler weight, vcpu-set.

# domain_state [NAME]: the state column of xl list (e.g. "r-----",
# "--p---", "---sc-"), empty when the domain does not exist.
domain_state() {
	xl list "${1:-$GUEST}" 2>/dev/null | awk 'NR == 2 { print $5 }'
}

# domain_type [NAME]: the domain's type as its toolstack config holds it
# (pv, pvh, hvm: the first "type" of `xl list -l`, c_info's), empty when xl
# cannot tell.
domain_type() {
	xl list -l "${1:-$GUEST}" 2>/dev/null |
		sed -n 's/^ *"type": "\([a-z]*\)".*/\1/p' | head -1
}

# wait_domain_gone [TIMEOUT] [NAME]: returns 1 if still listed after TIMEOUT.
wait_domain_gone() {
	local timeout=${1:-$DEFAULT_GONE_TIMEOUT} name=${2:-$GUEST} end
	end=$(deadline_cs "$timeout")
	while xl domid "$name" >/dev/null 2>&1; do
		if [ "$(now_cs)" -gt "$end" ]; then
			log "domain $name still present after ${timeout}s (state $(domain_state "$name"))"
			return 1
		fi
		usleep $POLL_USEC
	done
	return 0
}

# wait_domain_state CHARS [TIMEOUT]: wait until the state column contains
# one of CHARS (e.g. "c" for crashed, "s" for shut down).
wait_domain_state() {
	local chars=$1 timeout=${2:-$DEFAULT_GONE_TIMEOUT} end s
	end=$(deadline_cs "$timeout")
	while :; do
		s=$(domain_state)
		case $s in *[$chars]*) break ;; esac
		if [ "$(now_cs)" -gt "$end" ]; then
			log "domain $GUEST state '$s' has none of '$chars' after ${timeout}s"
			return 1
		fi
		usleep $POLL_USEC
	done
	log "domain $GUEST state '$s'"
	return 0
}

# xen_online_vcpus [NAME]: how many of the domain's vCPUs Xen itself reports
# online, from `xl vcpu-list`. xl 4.17 prints one row per vCPU: Name ID
# VCPU CPU State Time(s) Affinity...; an offline vCPU (VPF_down, what
# VCPUOP_is_up calls down) has CPU "-" and state "--p", an online one a
# CPU number and a state without the "p" ("r--", "-b-", "---"); PV and
# PVH guests alike (a vCPU a PVH Linux offlines is "-  --p" too). Returns 1,
# printing nothing, when xl fails or prints a row that is neither (the
# count would be a guess).
xen_online_vcpus() {
	local out
	out=$(xl vcpu-list "${1:-$GUEST}" 2>&1) || return 1
	echo "$out" | awk '
		NR == 1 { next }
		$4 == "-" && $5 ~ /p$/ { next }
		$4 ~ /^[0-9]+$/ && $5 !~ /p$/ { n++; next }
		{ bad = 1 }
		END { if (bad || NR < 2) exit 1; print n + 0 }'
}

# host_cpus: the host's CPU count (xl info nr_cpus), asked once.
host_cpus() {
	[ -n "${HOST_CPUS:-}" ] ||
		HOST_CPUS=$(xl info 2>/dev/null | awk -F': *' '$1 ~ /^nr_cpus/ { print $2 }')
	echo "${HOST_CPUS:-1}"
}

# dom0's scheduler weight while scenarios run. Xen gives every domain
# weight 256; with the guest spinning on more vCPUs than the host has CPUs,
# dom0's share at 256 makes each `xl vcpu-set` several times slower (and a
# scaling decision late). Xen administrators raise dom0's weight for that
# reason (docs/real-host.md); bench-dom0-weight measures both.
DOM0_WEIGHT=1024
# Where init keeps the weight Xen gave dom0, before DOM0_WEIGHT was set.
DOM0_WEIGHT_DEFAULT_FILE=/run/smpalt/dom0-weight-default

# xen_scheduler: the scheduler of Xen's default cpupool (credit2, credit...).
xen_scheduler() {
	xl info 2>/dev/null | awk -F': *' '$1 ~ /^xen_scheduler/ { print $2 }'
}

# dom0_weight_get: dom0's weight under the running scheduler.
dom0_weight_get() {
	xl "sched-$(xen_scheduler)" -d Domain-0 2>/dev/null |
		awk '$1 == "Domain-0" { print $3 }'
}

# dom0_weight_set WEIGHT: set dom0's weight; returns xl's status.
dom0_weight_set() {
	xl "sched-$(xen_scheduler)" -d Domain-0 -w "$1" >/dev/null
}

# dom0_weight_init: remember Xen's weight for dom0, then give it
# DOM0_WEIGHT (init, once the toolstack runs).
dom0_weight_init() {
	dom0_weight_get >"$DOM0_WEIGHT_DEFAULT_FILE"
	dom0_weight_set $DOM0_WEIGHT
}

# dom0_weight_default: the weight Xen gave dom0 at boot.
dom0_weight_default() {
	cat "$DOM0_WEIGHT_DEFAULT_FILE"
}

# vcpu_set COUNT: xl vcpu-set, with -i when COUNT exceeds the host's CPUs
# (xl refuses that otherwise).
vcpu_set() {
	if [ "$1" -gt "$(host_cpus)" ]; then
		xl vcpu-set -i "$GUEST" "$1"
	else
		xl vcpu-set "$GUEST" "$1"
	fi
}

# domain_cpu_s [NAME]: the CPU seconds Xen has accounted to the domain
# (default GUEST) so far, from xl list.
domain_cpu_s() {
	xl list "${1:-$GUEST}" 2>/dev/null | awk 'NR == 2 { print $6 }'
}

# wait_guest_idle TIMEOUT PERCENT: within TIMEOUT seconds, a window of
# IDLE_WINDOW_S in which Xen accounted the guest less than PERCENT of one
# CPU (the share from the time that actually passed); sets IDLE_PCT to
# that window's share. Returns 1 at the deadline, IDLE_PCT the last
# window's.
IDLE_WINDOW_S=3
wait_guest_idle() {
	local end=$(($(now_cs) + $1 * CS_PER_SEC)) c0 c1 t0 t1
	while :; do
		c0=$(domain_cpu_s) t0=$(now_cs)
		sleep $IDLE_WINDOW_S
		c1=$(domain_cpu_s) t1=$(now_cs)
		IDLE_PCT=$(awk -v a="$c0" -v b="$c1" -v t=$((t1 - t0)) -v cs=$CS_PER_SEC \
			'BEGIN { if (a == "" || b == "" || t <= 0) print 100; else printf "%d", 100 * (b - a) * cs / t }')
		[ "$IDLE_PCT" -ge "$2" ] || return 0
		[ "$(now_cs)" -le $end ] || return 1
	done
}
