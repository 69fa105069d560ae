# What every host-side script of smpalt shares (bash; not the scripts that
# run inside dom0 or a domU, scripts/dom0/, scripts/domu/work.sh). Sourced:
#
#   . "$(dirname "$0")/../lib/host.sh"   (from scripts/<folder>/)
#   host_script NAME [STATUS]
#
# which gives:
#
#   TOP, CACHE   the top of the repository; the download and build cache,
#                $CACHE from the environment, else $TOP/cache
#   die MSG...   "NAME: error: MSG" on stderr, then exit STATUS (1 unless
#                given)
#   usage        the script's header comment: its lines from the second to
#                the first that is not a comment, without the "# "
#   copy_tree DIR  the tree's files into the folder DIR: the tracked and
#                new files of a git checkout (not the ignored build
#                outputs), or everything less build/, out/, cache/ and
#                results/ elsewhere
#   results_dir BASE [DIR]  a run's results folder, made: DIR when given,
#                else BASE/<stamp>; BASE/latest points at it
#   stop_pid PID [SECONDS]  SIGTERM to PID, SIGKILL if it still runs
#                SECONDS later (3 unless given)
#
# and the argument loop. A script declares its options, then hands its
# arguments over:
#
#   opt_value -o out "a folder"   -o DIR sets out=DIR; "-o needs a folder"
#                                 when the value is missing
#   opt_flag -f force             -f sets force=1
#   opt_rest names                other arguments are appended to the
#                                 array names (otherwise refused)
#   parse_args "$@"
#
# parse_args prints usage and exits 0 on -h or --help, and refuses an
# unknown option with "unknown option X (see --help)" ("unknown argument
# X" when the script takes no other arguments).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${CACHE:-$TOP/cache}

HOST_NAME=$(basename "$0" .sh)
HOST_DIE_STATUS=1

# host_script NAME [STATUS]: the name die speaks as, its exit status.
host_script() {
	HOST_NAME=$1
	HOST_DIE_STATUS=${2:-1}
}

die() {
	echo "$HOST_NAME: error: $*" >&2
	exit "$HOST_DIE_STATUS"
}

usage() {
	awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"
}

# Option -> variable it sets; option -> what its value is ("" for a flag).
declare -A HOST_OPT_VAR=() HOST_OPT_WHAT=()
HOST_OPT_REST=

# opt_value OPTION VAR WHAT: OPTION takes a value, stored in VAR.
opt_value() {
	HOST_OPT_VAR[$1]=$2
	HOST_OPT_WHAT[$1]=$3
}

# opt_flag OPTION VAR: OPTION sets VAR=1.
opt_flag() {
	HOST_OPT_VAR[$1]=$2
	HOST_OPT_WHAT[$1]=
}

# opt_rest ARRAY: arguments that are not options go to ARRAY.
opt_rest() {
	HOST_OPT_REST=$1
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help)
			usage
			exit 0
			;;
		esac
		if [ -n "$1" ] && [ -n "${HOST_OPT_VAR[$1]+set}" ]; then
			if [ -z "${HOST_OPT_WHAT[$1]}" ]; then
				printf -v "${HOST_OPT_VAR[$1]}" 1
				shift
				continue
			fi
			[ $# -ge 2 ] || die "$1 needs ${HOST_OPT_WHAT[$1]}"
			printf -v "${HOST_OPT_VAR[$1]}" '%s' "$2"
			shift 2
		elif [ -z "$HOST_OPT_REST" ]; then
			die "unknown argument $1 (see --help)"
		elif [[ $1 == -* ]]; then
			die "unknown option $1 (see --help)"
		else
			local -n host_rest_=$HOST_OPT_REST
			host_rest_+=("$1")
			unset -n host_rest_
			shift
		fi
	done
}

# copy_tree DIR: the tree's files (see the header) into the folder DIR.
copy_tree() {
	if [ -e "$TOP/.git" ]; then
		(cd "$TOP" && git ls-files -z -co --exclude-standard |
			while IFS= read -r -d '' f; do
				[ -e "$f" ] && printf '%s\0' "$f"
			done | tar --null -T - -cf -) | tar -x -C "$1"
	else
		tar -C "$TOP" --exclude=./build --exclude=./out --exclude=./cache \
			--exclude=./results -cf - . | tar -x -C "$1"
	fi
}

# results_dir BASE [DIR]: the folder of this run's results, made, in
# RESULTS_DIR (absolute): DIR when given, else BASE/<stamp>, the stamp
# (RESULTS_STAMP) being the UTC time YYYYmmdd-HHMMSS, and -PID added to it
# when a run of the same second already has that folder. BASE/latest then
# points at RESULTS_DIR; a link that cannot be made is no error.
results_dir() {
	RESULTS_STAMP=$(date -u +%Y%m%d-%H%M%S)
	RESULTS_DIR=${2:-$1/$RESULTS_STAMP}
	[ -n "${2:-}" ] || [ ! -e "$RESULTS_DIR" ] || RESULTS_DIR=$RESULTS_DIR-$$
	mkdir -p "$RESULTS_DIR"
	RESULTS_DIR=$(cd "$RESULTS_DIR" && pwd)
	ln -sfn "$RESULTS_DIR" "$1/latest" 2>/dev/null || true
}

# stop_pid PID [SECONDS]: stop the process PID: SIGTERM, then up to
# SECONDS (3 unless given) for it to exit, looked at every tenth of a
# second, then SIGKILL if it is still there. Status 0 when PID exited
# within SECONDS or was not running, 1 when it was sent SIGKILL.
stop_pid() {
	local tenths=$((${2:-3} * 10)) i
	kill -TERM "$1" 2>/dev/null || true
	for ((i = 0; i < tenths; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null || return 0
	kill -KILL "$1" 2>/dev/null || true
	return 1
}
