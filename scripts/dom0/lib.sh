# smpalt dom0 library (busybox ash), sourced by the dom0 init, the systemd
# image's runner and every scenario (tests/xen/, tests/linux/) and demo.
# A scenario is a script run with: SCENARIO (its name), GUEST_KIND (the
# run's guest kind, driver.sh), GUEST_TYPE (its guests' type, pv or pvh),
# RESULT_FILE, and this library already sourced. It drives xl and xenstore and ends by
# calling `result STATUS [reason]` (SUCCESS, SKIP, FAILURE or ERROR).
# A scenario that returns without calling result is an ERROR.
#
# This file only loads the library's parts from $SMPALT_DIR/lib/
# (scripts/dom0/lib/ in the tree; both dom0 images carry the folder),
# in this order:
#   core          paths, limits, clocks, log, result/fail, dom0 cmdline,
#                 seeded random numbers, background processes
#   xenstore      the guest's xenstore home: xs_read_guest, wait_for_xs...
#   xen           xl: domain states, Xen's online vCPUs, dom0 weight, vcpu_set
#   guest         any guest: domain_create/destroy, its console log
#   state         the state every guest kind publishes (wait_online,
#                 wait_step, vcpu_set_step...) and the counters check
#   checks        checks at a settled step: check_xen_view, counters_ok...
#   guest-smpalt  the smpalt guest and its driver: workload, console_alarm
#   guest-linux   Linux guests (tests/linux/): linux_boot, linux_alarm...
#                 and the patched guest's driver
#   guest-debian  the Debian 13 guest's driver (its steps are guest-linux's)
#   driver        the scenarios' guest-neutral calls (guest_start_up,
#                 guest_clean...), each handed to GUEST_KIND's driver
#   stamps        xenstore event stamps for the benchmarks
#   demo          the demos' live lines and sampling loop
#   runner        what init runs: run_scenario, emit_file, emit_consoles

SMPALT_DIR=${SMPALT_DIR:-/opt/smpalt}
. "$SMPALT_DIR/lib/core.sh"
. "$SMPALT_DIR/lib/xenstore.sh"
. "$SMPALT_DIR/lib/xen.sh"
. "$SMPALT_DIR/lib/guest.sh"
. "$SMPALT_DIR/lib/state.sh"
. "$SMPALT_DIR/lib/checks.sh"
. "$SMPALT_DIR/lib/guest-smpalt.sh"
. "$SMPALT_DIR/lib/guest-linux.sh"
. "$SMPALT_DIR/lib/guest-debian.sh"
. "$SMPALT_DIR/lib/driver.sh"
. "$SMPALT_DIR/lib/stamps.sh"
. "$SMPALT_DIR/lib/demo.sh"
. "$SMPALT_DIR/lib/runner.sh"
