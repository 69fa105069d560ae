# Reads scripts/lib/matrix.conf, the one declaration of the Xen hosts, the
# Linux versions and the matrix cells. Sourced (after lib/host.sh, or with
# TOP and die defined):
#
#   matrix_rows KIND      the lines of KIND (host, linux, cell), without
#                         the word KIND, one a line
#   matrix_keys KIND      their first fields (the hosts, the versions)
#   matrix_row KIND KEY   the line of KIND whose first field is KEY, empty
#                         when none
#   cell_name GUEST KVER XEN TYPE   the cell's name: smpalt-XEN,
#                         linux-KVER-XEN, with -TYPE after it unless pv
#   cell_command GUEST KVER XEN TYPE   the make command that runs it
#   cell_what GUEST KVER XEN   "smpalt guest, Xen XEN (Debian N dom0)" or
#                         "Linux KVER guest, ..."
#
# or run (for make): bash scripts/lib/matrix.sh hosts|linux-versions, the
# keys on one line; bash scripts/lib/matrix.sh host XEN, that host's line.
MATRIX_CONF=${MATRIX_CONF:-$(dirname "${BASH_SOURCE[0]}")/matrix.conf}

matrix_rows() {
	local kind rest
	[ -r "$MATRIX_CONF" ] || { echo "matrix.sh: error: $MATRIX_CONF missing" >&2; return 1; }
	while read -r kind rest; do
		[ "$kind" = "$1" ] && echo "$rest"
	done <"$MATRIX_CONF"
	return 0
}

matrix_keys() {
	local key rest
	matrix_rows "$1" | while read -r key rest; do echo "$key"; done
}

matrix_row() {
	local key rest
	matrix_rows "$1" | while read -r key rest; do
		[ "$key" = "$2" ] && { echo "$key $rest"; break; }
	done
	return 0
}

cell_name() {
	local name
	case $1 in
	smpalt) name=smpalt-$3 ;;
	*) name=$1-$2-$3 ;;
	esac
	[ "$4" = pv ] || name+=-$4
	echo "$name"
}

cell_command() {
	local cmd
	case $1 in
	smpalt) cmd="make --no-print-directory test-xen XEN=$3" ;;
	*) cmd="make --no-print-directory test-$1 KVER=$2 XEN=$3" ;;
	esac
	[ "$4" = pv ] || cmd+=" TYPE=$4"
	echo "$cmd"
}

cell_what() {
	local what debian
	case $1 in
	smpalt) what="smpalt guest" ;;
	linux) what="Linux $2 guest" ;;
	*) what="$1 guest" ;;
	esac
	read -r _ _ debian _ <<<"$(matrix_row host "$3")"
	echo "$what, Xen $3 (Debian ${debian:-?} dom0)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	hosts) matrix_keys host | tr '\n' ' ' | sed 's/ $/\n/' ;;
	linux-versions) matrix_keys linux | tr '\n' ' ' | sed 's/ $/\n/' ;;
	host) matrix_row host "${2:-}" ;;
	*)
		echo "usage: bash scripts/lib/matrix.sh hosts|linux-versions|host XEN" >&2
		exit 2
		;;
	esac
fi
