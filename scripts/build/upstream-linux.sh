#!/bin/bash
# make upstream SIGNOFF="Name <address>": the Linux 7.2 series
# (patches/linux-7.2/) as numbered mails for the kernel's lists, in
# out/upstream/: 0000-cover-letter.patch and 0001..000N, made with
# `git format-patch --cover-letter -n --thread` from a git tree of the
# pristine linux-source-7.2 files the series touches.
#
# The author (From:) and the Signed-off-by: of every patch, and the
# maintainer of the new MAINTAINERS entry, become SIGNOFF: whoever sends
# the series certifies its origin (Documentation/process/
# submitting-patches.rst, "Developer's Certificate of Origin"), so there
# is no default; without SIGNOFF the script refuses.
#
# The cover letter says why, what is safe and why, what it costs and
# gains, how it was tested (the newest `make test-linux KVER=7.2` result
# in out/linux/ when there is one), and to whom each file goes: that
# tree's scripts/get_maintainer.pl per file, and To:/Cc: lines for the
# whole series.
#
# The patches for xen.git (patches/xen/, listed in its series file: Xen's
# documentation of the data/smpalt/ keys) are written as mails too, in
# out/upstream/xen/, stamped with SIGNOFF the same way and addressed to
# the To:/Cc: lines of patches/xen/recipients (Xen's MAINTAINERS); they
# go to xen-devel on their own, and the cover letter names them.
#
# The cover letter ends with the upstream version the series applies to,
# and with its base-commit: line when LINUX_GIT names a Linux git tree
# that has the version's tag (v7.2.13): Debian's source has no history.
#
# Usage: SIGNOFF="Name <address>" [LINUX_GIT=dir] scripts/build/upstream-linux.sh
# Needs the pristine tree of `make linux KVER=7.2` (cache/linux-7.2/).
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script upstream
parse_args "$@"
KVER=7.2
. "$TOP/scripts/lib/linux-version.sh"
OUT_DIR=$TOP/out/upstream
PLACEHOLDER="smpalt developers <smpalt@example.org>"

SIGNOFF=${SIGNOFF:-}
[ -n "$SIGNOFF" ] ||
	die "SIGNOFF is not set: an anonymous sign-off cannot be accepted; run make upstream SIGNOFF=\"Your Name <you@example.com>\" (the Developer's Certificate of Origin is yours to give)"
[[ $SIGNOFF =~ ^[^\<\>]*[^\<\>\ ]\ \<[^\<\>@\ ]+@[^\<\>@\ ]+\>$ ]] ||
	die "SIGNOFF='$SIGNOFF' is not 'Name <address>'"
[ "$SIGNOFF" != "$PLACEHOLDER" ] ||
	die "SIGNOFF is the series' placeholder '$PLACEHOLDER': an anonymous sign-off cannot be accepted"
name=${SIGNOFF% <*}
email=${SIGNOFF##* <}
email=${email%>}

[ -f "$LINUX_PRISTINE/scripts/get_maintainer.pl" ] ||
	die "no pristine tree at $LINUX_PRISTINE (make linux KVER=$KVER unpacks it)"
# series_patches DIR ARRAY: ARRAY set to the patch files DIR/series names,
# in order (series_names, scripts/lib/linux-version.sh); dies if one
# is missing or there are none.  In this shell, not a subshell, so that a
# missing patch stops the script rather than shortening the series.
series_patches() {
	local -n list=$2
	local p
	list=()
	while read -r p; do
		[ -f "$1/$p" ] || die "$p is listed in $1/series but missing"
		list+=("$1/$p")
	done < <(series_names "$1/series")
	[ ${#list[@]} -gt 0 ] || die "$1/series lists no patch"
}
series_patches "$LINUX_SERIES_DIR" patches

# The xen.git patches and their recipients.
XEN_SERIES_DIR=$TOP/patches/xen
series_patches "$XEN_SERIES_DIR" xen_patches
xen_rcpt=$(grep -E '^(To|Cc): ' "$XEN_SERIES_DIR/recipients" || true)
echo "$xen_rcpt" | grep -q '^To: ' || die "$XEN_SERIES_DIR/recipients has no To: line"

work=$(mktemp -d "${TMPDIR:-/tmp}/smpalt-upstream.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The files the series touches, pristine, in a git tree of their own.
tree=$work/linux
mkdir -p "$tree"
files=$(sed -n 's,^--- a/\([^[:space:]]*\).*,\1,p; s,^+++ b/\([^[:space:]]*\).*,\1,p' \
	"${patches[@]}" | sort -u)
for f in $files; do
	[ ! -e "$LINUX_PRISTINE/$f" ] || install -D -m 0644 "$LINUX_PRISTINE/$f" "$tree/$f"
done
git() { command git -C "$tree" -c user.name="$name" -c user.email="$email" "$@"; }
git init -q
git add -A -f
git commit -q -m "Linux $KVER (Debian linux-source-$KVER), the files of the series"
git tag base

# The series with SIGNOFF in place of the placeholder: From:,
# Signed-off-by: and the new MAINTAINERS entry's M: line.
for p in "${patches[@]}"; do
	sed -e "s|^From: $PLACEHOLDER\$|From: $SIGNOFF|" \
		-e "s|^Signed-off-by: $PLACEHOLDER\$|Signed-off-by: $SIGNOFF|" \
		-e "s|^+M:\t$PLACEHOLDER\$|+M:\t$SIGNOFF|" "$p" >"$work/$(basename "$p")"
	grep -q "^Signed-off-by: $SIGNOFF\$" "$work/$(basename "$p")" ||
		die "$(basename "$p") has no Signed-off-by: line to stamp"
done
git am -q --committer-date-is-author-date "$work"/*.patch ||
	die "the series does not apply with git am to the pristine files"

# Recipients: per file, and for the whole series.
gm() { (cd "$LINUX_PRISTINE" && perl scripts/get_maintainer.pl --no-git \
	--no-git-fallback --no-rolestats "$@" 2>/dev/null) || true; }
per_file=
for f in $files; do
	per_file+="  $f:"$'\n'
	if [ -e "$LINUX_PRISTINE/$f" ]; then
		per_file+=$(gm -f "$f" | sed 's/^/    /')$'\n'
	else
		per_file+="    (new file) $SIGNOFF"$'\n'
		per_file+=$(gm -f "$(dirname "$f")" | sed 's/^/    /')$'\n'
	fi
done
# Patch 1 changes what kprobes may probe: its maintainers too, though
# the patch touches only alternative.c.
all=$(gm "$work"/*.patch; gm -f kernel/kprobes.c arch/x86/kernel/kprobes/core.c)
to=$(echo "$all" | grep -v '@vger\.kernel\.org\|@lists\.' | sort -u || true)
cc=$(echo "$all" | grep '@vger\.kernel\.org\|@lists\.' | sort -u || true)

# The newest complete make test-linux KVER=7.2 result (a run stopped
# early, or still running, has no "N passed" line), if any, and the Xen
# host it ran on (its versions.txt).
testing="not run: run make test-linux KVER=$KVER XEN=4.20 and make upstream again"
host="Xen 4.20 (Debian 13)"
for d in $(ls -1d "$TOP"/out/linux/2*/ 2>/dev/null | sort -r); do
	grep -qiF "linux-$KVER/" "$d/make-linux.log" 2>/dev/null || continue
	grep -qE '^[0-9]+ passed, ' "$d/xen-run.txt" 2>/dev/null || continue
	xen=$(sed -n 's/^xen=[^ ]* \([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' "$d/xen/versions.txt" 2>/dev/null)
	[ -z "$xen" ] || host="Xen $xen (Debian's packages)"
	testing="$(basename "$d"):"$'\n'$(grep -E '^[a-z0-9-]+: (SUCCESS|FAILURE|SKIP|ERROR)|^[0-9]+ passed, ' \
		"$d/xen-run.txt" | cut -c1-160 | sed 's/^/  /')
	break
done

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"

# The xen.git patches: SIGNOFF in From: and Signed-off-by:, the
# recipients as headers after the patch's own (the mail's header ends at
# its first empty line).
mkdir -p "$OUT_DIR/xen"
xen_subjects=
for p in "${xen_patches[@]}"; do
	out=$OUT_DIR/xen/$(basename "$p")
	sed -e "s|^From: $PLACEHOLDER\$|From: $SIGNOFF|" \
		-e "s|^Signed-off-by: $PLACEHOLDER\$|Signed-off-by: $SIGNOFF|" "$p" |
		awk -v rcpt="$xen_rcpt" '!done && /^$/ { print rcpt; done = 1 } { print }' >"$out"
	grep -q "^From: $SIGNOFF\$" "$out" && grep -q "^Signed-off-by: $SIGNOFF\$" "$out" ||
		die "$(basename "$p") has no From: or Signed-off-by: line to stamp"
	! grep -qF "$PLACEHOLDER" "$out" || die "$(basename "$p"): the placeholder is left in $out"
	xen_subjects+="  $(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$p")"$'\n'
done
to_args=() cc_args=()
while read -r a; do [ -z "$a" ] || to_args+=(--to="$a"); done <<<"$to"
while read -r a; do [ -z "$a" ] || cc_args+=(--cc="$a"); done <<<"$cc"
git format-patch -q -n --thread --cover-letter --no-signature \
	"${to_args[@]}" "${cc_args[@]}" -o "$OUT_DIR" base
cover=$OUT_DIR/0000-cover-letter.patch
[ -f "$cover" ] || die "git format-patch wrote no cover letter"

# The tree the series is based on: the upstream version of Debian's
# source, and its commit when a Linux git tree with that tag is given
# (LINUX_GIT=path to a clone of the stable tree).
upstream_version=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' \
	"$LINUX_PRISTINE/Makefile" | paste -sd.)
base_line="The series applies to Linux $upstream_version (Debian's linux-source-$KVER)."
if [ -n "${LINUX_GIT:-}" ]; then
	base_commit=$(command git -C "$LINUX_GIT" rev-parse -q --verify "v$upstream_version^{commit}") ||
		die "LINUX_GIT=$LINUX_GIT has no tag v$upstream_version"
	base_line+=$'\n'$'\n'"base-commit: $base_commit"
fi

blurb=$work/blurb
cat >"$blurb" <<EOF
A Xen PV guest boots with UP code (lock prefixes patched to DS
prefixes) while it has one CPU, switches to SMP code when a second vCPU
comes up, and never goes back.  A guest whose vCPUs the toolstack adds
and removes with the load (xl vcpu-set) spends most of its life on one
vCPU paying for lock prefixes it does not need.  Switching back to UP
on CPU offline was removed in the past because it made offlining about
ten times slower: one text_poke() per lock site.

This series makes the switch reversible for PV and PVH guests and cheap
enough to do on every change:

  1-2  fixes that stand alone, for stable (Fixes: and Cc: stable in
       each): alternatives_text_reserved() compared the end of its
       inclusive range exclusively since 2.6.35, so a kprobe could sit
       on a recorded lock prefix and, once removed, write a DS prefix
       back into SMP text; xen/cpu_hotplug registered an added vCPU
       without the device hotplug lock, so user space could online it
       before it was present, and changed the present mask without the
       CPU hotplug lock (now the locks ACPI processor hot-add takes).
  3-5  x86/alternatives: the lock sites rewritten a window of text at
       a time (the pages of up to PTRS_PER_PTE mapped in the poking mm
       in one batch, one mm switch and one flush each) instead of one
       text_poke() per site, storing only the changed bytes (the store
       loop not KASAN-instrumented: the aliases have no shadow); a
       kernel that switches back asks at boot for every lock site to be
       checked before each rewrite (any other kernel behaves and prints
       as before); each
       text's lock-site table sorted by address once, when it is
       recorded, so that a switch pokes each page once;
       alternatives_disable_smp(), the reverse of
       alternatives_enable_smp(), with switch statistics.
  6    x86/xen: switch to UP code in .cleanup_dead_cpu when the last
       secondary vCPU is dead and Xen reports every other vCPU down.
  7-8  xen/cpu_hotplug, x86/xen: the kernel onlines the vCPUs the
       toolstack makes available (a vCPU Xen does not start within 5 s
       of the domain's own time is given up, waited for until Xen no
       longer runs it, and tried again later; every failed bring-up
       switches back to UP code), and a domU boots with vCPU 0 only (the
       others registered hotpluggable, given their APIC ID when added
       through topology_hotplug_apic() as for ACPI hot-add), so it
       boots with UP code.
  9    x86/xen: the form of the text, the online count and the cost of
       the last switch in xenstore (data/smpalt/) and debugfs.
  10-12 PVH guests: a kernel that can switch back keeps the core
       kernel's lock sites when it boots with more than one CPU (a PVH
       guest's MADT brings its enabled vCPUs up at boot); the switch to
       UP in xen_hvm_cleanup_dead_cpu(), after VCPUOP_is_up reports the
       dead vCPU down (it halts with interrupts off, which Xen takes as
       going down) and every other vCPU down; the kernel onlines the
       vCPUs the toolstack adds to a PVH domU, each given the APIC ID
       its MADT entry has and its vCPU number as ACPI ID.

Everything Xen-specific is behind CONFIG_XEN_SMPALT (default n) and
xen_smpalt=off gives a kernel built with it the stock behaviour: no
switch, no onlining, no xenstore keys, no debugfs files.  Each patch
builds and is safe on its own.  The test code the scenarios below use
(a counters self-test that shows lost updates if UP code ever ran on two
vCPUs, a knob that never starts a given vCPU) is kept out of this
posting.

What is safe, and why:
- UP code only with one CPU online and the CPU hotplug lock held for
  writing, on the control CPU, after .cpu_die saw the dying vCPU down
  in Xen and the hotplug core saw it dead; every other possible vCPU is
  then asked with VCPUOP_is_up, and if any is up the switch is refused
  (counted, logged) and the text stays SMP, which is always safe.
- Every rewritten byte is a complete prefix in both forms (0xf0 lock,
  0x3e DS), so the only running CPU always sees valid instructions; the
  writes hold text_mutex and end with one sync_core().
- No switch while CPUs go down for suspend or at shutdown.
- Modules loaded while the text is SMP are not recorded and keep their
  lock prefixes (safe).
- Dom0 keeps bringing up its vCPUs itself; the xenstore keys are domU
  only.

Costs: the lock-site table is kept while maxvcpus > 1 (as today when a
guest boots with one vCPU); a switch rewrites every recorded site,
a window of text at a time (2412 sites on 442 pages, two windows, in
the test configuration).  Under QEMU TCG a switch of those sites took
21-24 ms (one text_poke() per page of sites: 46-182 ms on a loaded
machine), most of it the emulator's cost of each store to code, and
taking the last secondary vCPU away, switch included, took 0.95
times as long as another CPU offline in the same guest (medians of 2;
the 6.1 and 6.12 series: 0.95 and 1.09 times), not ten times.

Gains: a one-vCPU guest runs without lock prefixes again after a scale
down (a fork loop ran 1.06 times faster in UP code under TCG); vCPUs
added by the toolstack are used without a user-space helper; the
toolstack can see the form of the text and check it against Xen's view.

Testing: Debian's linux-source-$KVER with the series, a minimal domU
configuration booted as PV and as PVH, under QEMU on $host:
boot with one of four vCPUs (UP code, table kept), xl vcpu-set up and
down (each switch timed, the counters exact), storms of vcpu-set,
maxvcpus=1 (table freed as today), save/restore, and a lost-update
control that must fail with the lock prefix dropped.  Result of the
newest run:
$testing

Questions this series will be asked:

- Why keep LOCK_PREFIX patching at all, when retiring it has been
  proposed (March 2025)?  Because the guests that gain are common: a
  cloud or Xen guest scaled down to one vCPU.  Under QEMU TCG a fork loop
  on one vCPU ran 1.06 times faster in UP code than in SMP code (same
  kernel, same boot); natively, on the test host, a lock inc loop ran
  20.9 times slower with its prefix than without.  The cost: the
  lock-site table stays (4 bytes a site: 2412 sites, under 10 KiB, in
  the test configuration) and about 1600 added lines, a quarter of
  them comments.
- Why does SMP->UP come back, after 2013 removed it for making CPU
  offline ten times slower?  One mapping per window of text instead of
  one text_poke() per site: taking the last secondary vCPU away, switch
  included, took 0.95 times one offline without a switch, not ten.
- Why not udev?  Stock Linux never onlines a vCPU the toolstack adds:
  without a user-space helper it stays offline while the toolstack
  believes it runs; with one, the text still never goes back to UP.
- Why not PVH only?  Most guests run PVH today, and patches 10-12 serve
  them; PV is still supported upstream and is where Linux brings up
  vCPUs through Xen itself (VCPUOP_up/down).  Both take the same
  xenstore keys from the toolstack and the same check with Xen
  (VCPUOP_is_up, which PVH guests may call) before the text goes UP.
- Why xenstore keys?  So that the toolstack can compare the guest's form
  with Xen's own view of the vCPUs; they are documented for xen.git
  below and in Documentation/admin-guide/kernel-parameters.txt.

Every figure above is QEMU TCG (Xen in QEMU, no KVM) unless said: the
project's \`make bench-real\` runs the same measurements on a real Xen
host.

The data/smpalt/ keys of patch 9 are described for Xen's own list of
xenstore paths (docs/misc/xenstore-paths.pandoc) by a patch sent to
xen-devel on its own:
$xen_subjects
Recipients per file (scripts/get_maintainer.pl):
$per_file
$base_line
EOF
python3 - "$cover" "$blurb" <<'PY'
import sys
cover, blurb = sys.argv[1], sys.argv[2]
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***",
              "x86/xen: reversible SMP alternatives for PV and PVH guests", 1)
s = s.replace("*** BLURB HERE ***", open(blurb).read().rstrip("\n"), 1)
open(cover, "w").write(s)
PY
! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE' "$cover" || die "cover letter left unfilled"
echo "upstream: $(find "$OUT_DIR" -type f | wc -l) files in $OUT_DIR (From/Signed-off-by: $SIGNOFF)"
(cd "$OUT_DIR" && find . -type f | sed 's,^\./,,' | sort | sed 's/^/  /')
