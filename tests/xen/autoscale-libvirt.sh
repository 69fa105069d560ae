# Scenario autoscale-libvirt: smpalt-autoscaler scales a guest that libvirt
# manages through libvirt, and the others through xl.
# needs: libvirt
# (scripts/run/xen-run.sh runs it in a boot of its own, with the dom0 image
# that carries libvirtd and its libxl driver; see docs/libvirt.md.)
# Input: libvirtd started in dom0; a guest (xl-configs/smpalt.cfg: vcpus=1,
# maxvcpus=4) created through libvirt (`virsh create` of the XML that
# `virsh domxml-from-native xen-xl` makes of the config), a second one
# created with `xl create`; the autoscaler watching both with
# --libvirt xen:///system, --signal guest (period 0.5 s, hold 1.5 s, high
# 80%, low 40%; at most the host's 2 CPUs, which libvirt enforces too); the
# libvirt guest's control/smpalt/demand 150 (work for 1.5 vCPUs), then 0;
# then SIGTERM.
# Expected: libvirt knows the first guest and not the second; the
# autoscaler follows the first via libvirt and the second via xl; at demand
# 150 it sets ceil(150/80) = 2 vCPUs through libvirt, at demand 0 it sets 1;
# at each settled step libvirt (`virsh vcpucount --live --active`), Xen
# (`xl vcpu-list`) and the guest (data/smpalt/online, mode) agree; no
# change of that guest goes through xl; the idle xl guest keeps 1; the
# autoscaler stops cleanly on SIGTERM.
# Figures: libvirtd ready time, virsh create time, each libvirt change's
# duration as the autoscaler measured it, demand to settled count.
# The autoscaler's and libvirtd's logs come back as
# autoscale-libvirt-autoscaler.log and autoscale-libvirt-libvirtd.log.

AUTOSCALER=$SMPALT_AUTOSCALER
URI=xen:///system
READY="smpalt: ready"
LIBVIRTD_READY_TIMEOUT=45
VIRSH_TIMEOUT=30 # one virsh call
BOOT_TIMEOUT=45
WATCH_TIMEOUT=20
SCALE_TIMEOUT=30
DEMAND=150
UP_VCPUS=2 # ceil(DEMAND / HIGH), also the host's CPU count (QEMU -smp 2)
PERIOD=0.5
HOLD=1.5
HIGH=80
LOW=40
STOP_TIMEOUT=10
AS_LOG=/tmp/autoscale-libvirt-autoscaler.log
LV_LOG=/tmp/autoscale-libvirt-libvirtd.log
CSV=/tmp/autoscale-libvirt.csv

command -v libvirtd >/dev/null ||
	result SKIP "no libvirtd in this dom0 image (LIBVIRT=1 scripts/build/mkinitramfs.sh)"
[ -x "$AUTOSCALER" ] || result SKIP "no $AUTOSCALER in the initramfs (make tools)"
require_guest

virsh_() {
	timeout "$VIRSH_TIMEOUT" virsh -c "$URI" "$@"
}

# On every way out (result exits): stop what the scenario started, in
# order, and send the logs back.
AS_PID=
LV_PID=
cleanup() {
	[ -z "$AS_PID" ] || kill -KILL "$AS_PID" 2>/dev/null
	[ -z "$LV_PID" ] || kill -TERM "$LV_PID" 2>/dev/null
	echo "--- autoscaler log"
	cat "$AS_LOG" 2>/dev/null
	echo "--- libvirtd log (last 40 lines)"
	tail -40 "$LV_LOG" 2>/dev/null
	echo "---"
	emit_file autoscale-libvirt-autoscaler.log "$AS_LOG" >/dev/console
	emit_file autoscale-libvirt-libvirtd.log "$LV_LOG" >/dev/console
	emit_file autoscale-libvirt.csv "$CSV" >/dev/console
}
trap cleanup EXIT

# wait_log PATTERN TIMEOUT: a line of the autoscaler's log matches the
# extended regular expression PATTERN.
wait_log() {
	local end
	end=$(deadline_cs "$2")
	until grep -qE -- "$1" "$AS_LOG"; do
		alive "$AS_PID" || fail "autoscaler exited (waiting for '$1')"
		[ "$(now_cs)" -le "$end" ] || return 1
		usleep $POLL_USEC
	done
}

# views_agree COUNT WHAT: libvirt, Xen and the guest all say COUNT vCPUs
# online (check_xen_view: the guest's online and mode against Xen's).
views_agree() {
	local lv
	lv=$(virsh_ vcpucount "$GUEST" --live --active) ||
		fail "$2: virsh vcpucount failed"
	lv=$(echo $lv)
	check_xen_view "$2"
	[ "$XEN_ONLINE" = "$1" ] ||
		fail "$2: Xen says $XEN_ONLINE vCPUs online, expected $1"
	[ "$lv" = "$1" ] ||
		fail "$2: libvirt says $lv live vCPUs, Xen and the guest $1 (stale?)"
	log "$2: libvirt $lv, Xen $XEN_ONLINE, guest $1"
}

# --- 1. libvirtd, as in docs/libvirt.md
t=$(now_cs)
LIBVIRT_LOG_OUTPUTS=3:stderr libvirtd >"$LV_LOG" 2>&1 &
LV_PID=$!
end=$(deadline_cs $LIBVIRTD_READY_TIMEOUT)
until virsh_ version >/dev/null 2>&1; do
	alive "$LV_PID" || fail "libvirtd exited: $(tail -2 "$LV_LOG" | tr '\n' ' ')"
	[ "$(now_cs)" -le "$end" ] ||
		fail "libvirtd not answering after ${LIBVIRTD_READY_TIMEOUT}s"
	usleep $POLL_USEC
done
lv_ready_s=$(since "$t")
note "libvirtd ready after $lv_ready_s s"

# --- 2. one guest through libvirt, one with xl
GUEST=smpalt-$SCENARIO
XL_GUEST=$GUEST-xl
CONSOLE_LOG=$CONSOLE_DIR/guest-$GUEST.log
rm -f "$CONSOLE_LOG"
sed "s/^name = .*/name = \"$GUEST\"/" "$SMPALT_CFG" >/tmp/$GUEST.cfg
virsh_ domxml-from-native xen-xl /tmp/$GUEST.cfg >/tmp/$GUEST.xml ||
	fail "virsh domxml-from-native failed"
CREATE_CS=$(now_cs)
virsh_ create /tmp/$GUEST.xml || fail "virsh create failed"
create_s=$(since "$CREATE_CS")
DOMID=$(xl domid "$GUEST") || fail "xl domid $GUEST failed after virsh create"
note "virsh create: $GUEST is domain $DOMID after $create_s s"
xl create -q "$SMPALT_CFG" "name=\"$XL_GUEST\"" || fail "xl create $XL_GUEST failed"
XL_DOMID=$(xl domid "$XL_GUEST") || fail "no domid for $XL_GUEST"
virsh_ domid "$GUEST" >/dev/null 2>&1 || fail "libvirt does not know $GUEST"
! virsh_ domid "$XL_GUEST" >/dev/null 2>&1 ||
	fail "libvirt knows $XL_GUEST, created with xl"
wait_for_console "$READY" $BOOT_TIMEOUT || fail "no '$READY' within ${BOOT_TIMEOUT}s"
wait_for_xs data/smpalt/load 0 $BOOT_TIMEOUT || fail "no data/smpalt/load=0 at boot"
xs_write_guest control/smpalt/demand 0 || fail "cannot write control/smpalt/demand"
views_agree 1 "at boot"

# --- 3. the autoscaler: the libvirt guest via libvirt, the other via xl
$AUTOSCALER --libvirt "$URI" --signal guest --period $PERIOD --hold $HOLD \
	--high $HIGH --low $LOW --csv "$CSV" "$GUEST" "$XL_GUEST" >"$AS_LOG" 2>&1 &
AS_PID=$!
wait_log "watching $GUEST \(domain $DOMID\):.* via libvirt" $WATCH_TIMEOUT ||
	fail "autoscaler does not follow $GUEST via libvirt"
wait_log "watching $XL_GUEST \(domain $XL_DOMID\):.* via xl" $WATCH_TIMEOUT ||
	fail "autoscaler does not follow $XL_GUEST via xl"
note "autoscaler (pid $AS_PID): $GUEST via libvirt, $XL_GUEST via xl"

# --- 4. demand 150: 2 vCPUs through libvirt
t=$(now_cs)
xs_write_guest control/smpalt/demand $DEMAND
wait_log "$GUEST \(domain $DOMID\): libvirt: vcpus $UP_VCPUS done" $SCALE_TIMEOUT ||
	fail "demand $DEMAND: no libvirt change to $UP_VCPUS vCPUs"
wait_for_xs data/smpalt/online $UP_VCPUS $SCALE_TIMEOUT ||
	fail "demand $DEMAND: guest online never $UP_VCPUS"
wait_for_xs data/smpalt/mode smp $SCALE_TIMEOUT || fail "demand $DEMAND: mode never smp"
up_s=$(since "$t")
views_agree $UP_VCPUS "demand $DEMAND"
note "demand $DEMAND: $UP_VCPUS vCPUs via libvirt, smp, after $up_s s"

# --- 5. demand 0: 1 vCPU through libvirt
t=$(now_cs)
xs_write_guest control/smpalt/demand 0
wait_log "$GUEST \(domain $DOMID\): libvirt: vcpus 1 done" $SCALE_TIMEOUT ||
	fail "demand 0: no libvirt change to 1 vCPU"
wait_for_xs data/smpalt/online 1 $SCALE_TIMEOUT || fail "demand 0: guest online never 1"
wait_for_xs data/smpalt/mode up $SCALE_TIMEOUT || fail "demand 0: mode never up"
down_s=$(since "$t")
views_agree 1 "demand 0"
note "demand 0: 1 vCPU via libvirt, up, after $down_s s"

# --- 6. SIGTERM; what went through which backend
kill -TERM "$AS_PID"
end=$(deadline_cs $STOP_TIMEOUT)
while alive "$AS_PID"; do
	[ "$(now_cs)" -le "$end" ] || fail "autoscaler still running ${STOP_TIMEOUT}s after SIGTERM"
	usleep $POLL_USEC
done
wait "$AS_PID"
rc=$?
AS_PID=
[ $rc -eq 0 ] || fail "autoscaler exited $rc after SIGTERM"
! grep -q "$GUEST (domain $DOMID): xl:" "$AS_LOG" ||
	fail "a change of $GUEST went through xl"
! grep -qE ": (libvirt|xl): (vcpus [0-9]+ failed|cannot set)" "$AS_LOG" ||
	fail "a failed change in the autoscaler's log"
xl_online=$(xen_online_vcpus "$XL_GUEST")
[ "$xl_online" = 1 ] || fail "$XL_GUEST (idle, via xl) has $xl_online vCPUs online"
lv_ms=$(sed -n "s/.*$GUEST (domain $DOMID): libvirt: vcpus \([0-9]*\) done in \([0-9]*\) ms.*/\1:\2/p" \
	"$AS_LOG" | tr '\n' ' ')

result SUCCESS "libvirtd ready in $lv_ready_s s, virsh create $create_s s; demand $DEMAND: $UP_VCPUS vCPUs via libvirt in $up_s s, demand 0: 1 in $down_s s; libvirt changes (vcpus:ms) ${lv_ms% }; libvirt, Xen and guest agree at each step; $XL_GUEST followed via xl"
