# The Xen host the harness boots, chosen by XEN= (make XEN=4.20 ...):
#
#   XEN=4.17   the default: Debian 12 "bookworm"'s Xen 4.17 hypervisor,
#              its Linux 6.1 dom0 kernel and xen-utils-4.17; the Xen
#              packages unpacked into cache/xen/
#              (scripts/build/fetch-xen.sh), the common libraries taken
#              from the build machine (Debian 12 too)
#   XEN=4.20   Debian 13 "trixie"'s Xen 4.20 hypervisor, its Linux 6.12
#              dom0 kernel, and a trixie userland with its own glibc
#              (debootstrap) in cache/xen-4.20/root/, where the dom0 tools
#              and the Debian packages are built too
#              (scripts/build/xen-root-build.sh)
# What differs between the two, for xl, xenstore and the dom0 userland:
# tests/xen/README.md, "What differs between 4.17 and 4.20".
#
# Sourced by the host scripts after lib/host.sh (or with CACHE and die
# defined). Sets:
#   XEN_VERSION         4.17 or 4.20 (xl info's xen_major.xen_minor)
#   XEN_SUITE           the Debian suite of the dom0 userland
#   XEN_DEBIAN          its Debian release (12, 13)
#   XEN_CACHE           its cache folder: xen (the hypervisor, uncompressed),
#                       vmlinuz (the dom0 kernel), root/, versions.txt
#   XEN_IMAGES          the folder of the dom0 images and the stock Linux
#                       domU made from it (dom0-initrd.gz, dom0-systemd/,
#                       linux-domu/)
#   XEN_DEBS            the folder of the Debian packages built against it
#   XEN_ROOT            the dom0 userland the images are made from
#   XEN_OWN_LIBC        1 when XEN_ROOT carries its own glibc and loader
#                       (the images take nothing from the build machine)
#   DOM0_KERNEL_SERIES  the dom0 kernel's Linux series (6.1, 6.12)
# from its line in scripts/lib/matrix.conf (XEN_HOSTS: every host there).
. "$(dirname "${BASH_SOURCE[0]}")/matrix.sh"
XEN_HOSTS=$(matrix_keys host | tr '\n' ' ')
XEN_HOSTS=${XEN_HOSTS% }
XEN=${XEN:-${XEN_HOSTS%% *}}
read -r XEN_VERSION XEN_SUITE XEN_DEBIAN DOM0_KERNEL_SERIES XEN_OWN_LIBC \
	XEN_CACHE XEN_IMAGES XEN_DEBS <<<"$(matrix_row host "$XEN")"
[ -n "$XEN_VERSION" ] || die "XEN='$XEN': one of $XEN_HOSTS (scripts/lib/matrix.conf)"
XEN_CACHE=$CACHE/$XEN_CACHE
if [ "$XEN_IMAGES" = - ]; then XEN_IMAGES=$CACHE; else XEN_IMAGES=$CACHE/$XEN_IMAGES; fi
XEN_DEBS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/out/$XEN_DEBS
XEN_ROOT=$XEN_CACHE/root
export XEN

# apt_mirror SUITE: the first URI the machine's apt sources give for SUITE
# with component main (one-line and deb822 formats); DEBIAN_MIRROR
# overrides it. A suite the machine does not use (trixie on a Debian 12
# machine) takes the mirror of the machine's own Debian suite.
apt_mirror() {
	local f
	[ -z "${DEBIAN_MIRROR:-}" ] || { echo "$DEBIAN_MIRROR"; return 0; }
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [options] URI SUITE COMPONENT...
		awk -v s="$1" '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
			if (s != "" && $(i + 1) != s) next
			for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; exit } }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$1" 'function flush() {
				if (types ~ /(^| )deb( |$)/ && (s == "" || (" " suites " ") ~ (" " s " ")) &&
				    (" " comps " ") ~ / main / && uris !~ /security/) {
					split(uris, u, " "); print u[1]; exit }
				types = uris = suites = comps = "" }
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
			/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			/^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
			END { flush() }' "$f"
	done | head -1
}

# suite_mirror SUITE: apt_mirror SUITE, else the machine's Debian mirror.
suite_mirror() {
	local m
	m=$(apt_mirror "$1")
	[ -n "$m" ] || m=$(apt_mirror "")
	echo "$m"
}

# debootstrap_minbase ROOT SUITE MIRROR LOG PACKAGE...: `debootstrap
# --variant=minbase` of SUITE from MIRROR into ROOT with the PACKAGEs
# added, its output in LOG; on failure the log's last lines, then die.
debootstrap_minbase() {
	local root=$1 suite=$2 mirror=$3 log=$4 include
	shift 4
	include=$(
		IFS=,
		echo "$*"
	)
	debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" \
		>"$log" 2>&1 && return 0
	tail -20 "$log" >&2
	die "debootstrap failed (whole log: $log)"
}
