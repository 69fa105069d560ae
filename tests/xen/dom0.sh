# Scenario dom0: the Xen control plane in dom0 works before any guest runs.
# xl info names the Xen the harness booted (smpalt.xen=4.17 or 4.20 on the
# dom0 command line, scripts/run/xen-run.sh; 4.17 without it) and 2 CPUs' worth
# of host, xl list shows Domain-0, and xenstored answers for dom0's own home.
# (busybox ash, sourced by the runner with scripts/dom0/lib.sh loaded)

expected=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^smpalt\.xen=//p')
expected=${expected:-4.17}
EXPECTED_XEN_MAJOR=${expected%%.*}
EXPECTED_XEN_MINOR=${expected#*.}

info=$(xl info 2>&1) || fail "xl info failed: $info"
echo "$info"
major=$(echo "$info" | awk -F': *' '$1 ~ /^xen_major/ { print $2 }')
minor=$(echo "$info" | awk -F': *' '$1 ~ /^xen_minor/ { print $2 }')
[ "$major.$minor" = "$EXPECTED_XEN_MAJOR.$EXPECTED_XEN_MINOR" ] ||
	fail "xl info reports Xen '$major.$minor', expected $EXPECTED_XEN_MAJOR.$EXPECTED_XEN_MINOR"

list=$(xl list 2>&1) || fail "xl list failed: $list"
echo "$list"
echo "$list" | awk 'NR == 2 && $1 == "Domain-0" && $2 == 0 { ok = 1 } END { exit !ok }' ||
	fail "xl list does not show Domain-0 as domain 0"

name=$(xenstore-read /local/domain/0/name 2>&1) ||
	fail "xenstore-read /local/domain/0/name failed: $name"
[ "$name" = "Domain-0" ] || fail "/local/domain/0/name is '$name', expected Domain-0"

result SUCCESS "Xen $major.$minor, Domain-0 listed, xenstored answers"
