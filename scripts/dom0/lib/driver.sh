# smpalt dom0 library: the guest driver interface. A scenario that does
# not care which guest runs calls the guest_* functions below; each hands
# over to the driver of this run's guest kind, GUEST_KIND (smpalt, the
# default, or linux: `make test-xen GUEST=linux`, which the harness passes
# as smpalt.guest= on the dom0 command line and the runner into every
# scenario; GUEST itself is the domain's name). The guests' type,
# GUEST_TYPE (pv, the default, or pvh: TYPE=pvh, passed the same way as
# smpalt.type=), is not the driver's business: domain_create (guest.sh)
# gives every guest it creates the run's type.
#
# A driver is a set of functions named <kind>_<operation>
# (guest-smpalt.sh, guest-linux.sh); every kind provides them all:
#   <kind>_param NAME      print the kind's value of NAME, return 1 for a
#                          name it does not know; every kind knows
#                          boot_timeout, step_timeout (one vcpu-set step),
#                          settle_timeout (a burst of them) and load (the
#                          load its scenarios run under, in words)
#   <kind>_boot TIMEOUT [xl key=value ...]
#                          xl create of the kind's config with the extra
#                          config, then its ready line within TIMEOUT;
#                          SKIP or fail when its kernel is not in the image
#   <kind>_load            start the load the scenarios run under and wait
#                          until it runs (nothing left to do when the
#                          guest starts it itself at boot)
#   <kind>_start_up [xl key=value ...]
#                          the start of a hotplug scenario: boot with one
#                          vCPU, online 1, mode up, switches 0 (and what
#                          else the kind promises at boot), the load
#                          running, Xen agreeing; sets MODE, SWITCHES,
#                          LAST_NS like read_switch_state
#   <kind>_state           print online, mode and switches as published
#                          now, one a line (state.sh: published_state)
#   <kind>_alarm           print the console's first alarming line in the
#                          kind's own words; return 1 when there is none
#   <kind>_clean WHAT      fail the scenario ("WHAT: ...") on an alarm, a
#                          domain no longer running, or anything else the
#                          kind counts as trouble
#   <kind>_counters_ok WHAT  the counters check answers ok with items > 0
#                          (state.sh: counters_ok), then <kind>_clean
#   <kind>_destroy         destroy the guest (guest.sh: domain_destroy)
# The waits on the published state (wait_online, wait_step, wait_stable,
# vcpu_set_step...) and Xen's view (check_xen_view) serve every kind.

# guest_kind: this run's guest kind.
guest_kind() {
	echo "${GUEST_KIND:-smpalt}"
}

# The guest types a run can have.
GUEST_TYPES="pv pvh"

# guest_type: the type of this run's guests, pv or pvh.
guest_type() {
	echo "${GUEST_TYPE:-pv}"
}

# guest_type_ok TYPE: TYPE is one of GUEST_TYPES.
guest_type_ok() {
	case " $GUEST_TYPES " in *" $1 "*) return 0 ;; esac
	return 1
}

# pick_for KEY WHAT NAME=VALUE...: print the VALUE given for NAME KEY; no
# value for it is an ERROR of the scenario (WHAT names the caller).
pick_for() {
	local key=$1 what=$2 kv
	shift 2
	for kv in "$@"; do
		[ "${kv%%=*}" != "$key" ] || {
			echo "${kv#*=}"
			return 0
		}
	done
	scenario_error "$what $*: no value for '$key'"
}

# guest_pick KIND=VALUE...: print the VALUE given for this run's guest kind,
# for a per-guest line in a scenario: TOGGLES=$(guest_pick smpalt=15 linux=5).
# No value for the kind is an ERROR of the scenario.
guest_pick() {
	pick_for "${GUEST_KIND:-smpalt}" guest_pick "$@"
}

# guest_pick_type TYPE=VALUE...: the same for this run's guest type:
# SWITCHES=$(guest_pick_type pv=1 pvh=0).
guest_pick_type() {
	pick_for "${GUEST_TYPE:-pv}" guest_pick_type "$@"
}

# guest_param NAME: print the driver's value of NAME (above).
guest_param() {
	"${GUEST_KIND:-smpalt}_param" "$1" ||
		scenario_error "guest '${GUEST_KIND:-smpalt}' has no parameter '$1'"
}

guest_boot() { "${GUEST_KIND:-smpalt}_boot" "$@"; }
guest_load() { "${GUEST_KIND:-smpalt}_load"; }
guest_start_up() { "${GUEST_KIND:-smpalt}_start_up" "$@"; }
guest_state() { "${GUEST_KIND:-smpalt}_state"; }
guest_alarm() { "${GUEST_KIND:-smpalt}_alarm"; }
guest_clean() { "${GUEST_KIND:-smpalt}_clean" "$@"; }
guest_counters_ok() { "${GUEST_KIND:-smpalt}_counters_ok" "$@"; }
guest_destroy() { "${GUEST_KIND:-smpalt}_destroy"; }

# guest_driver_ok KIND: KIND has a driver (its start_up at least).
guest_driver_ok() {
	command -v "${1}_start_up" >/dev/null 2>&1
}
