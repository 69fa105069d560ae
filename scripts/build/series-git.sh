#!/bin/bash
# Edit a Linux series as git commits, and write it back as patch files.
#
#   scripts/build/series-git.sh init KVER DIR
#       DIR becomes a git tree of the pristine linux-source-KVER files
#       that patches/linux-KVER/ touches (one commit, tagged base), with
#       every patch of its series (posted and test-only) applied on top
#       with git am, one commit each.  Edit there: git rebase -i base,
#       git commit --amend, as on any branch.
#   scripts/build/series-git.sh export KVER DIR
#       patches/linux-KVER/0*.patch and its series files written again
#       from base..HEAD of DIR (git format-patch --zero-commit, no
#       signature, numbered in order).  The commits whose subject starts
#       with "TEST-ONLY:" go to series-test, the others to series: the
#       posted series is every commit before the first test-only one.
#
# Needs the pristine tree of `make linux KVER=...` (it unpacks it).
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script series-git
[ $# -eq 3 ] || die "usage: $0 init|export KVER DIR"
cmd=$1
KVER=$2
dir=$3
. "$TOP/scripts/lib/linux-version.sh"
series_dir=$LINUX_SERIES_DIR

case $cmd in
init)
	[ -d "$LINUX_PRISTINE" ] || die "no pristine tree at $LINUX_PRISTINE (make linux KVER=$KVER unpacks it)"
	[ ! -e "$dir" ] || die "$dir exists"
	mkdir -p "$dir"
	git -C "$dir" init -q
	# The patch files of the version, posted series first, then test-only.
	mapfile -t patches < <(linux_series_names all | sed "s#^#$series_dir/#")
	# Every file a patch names, old or new side, that the pristine tree has.
	sed -n -E 's#^(---|\+\+\+) [ab]/([^[:space:]]+).*#\2#p' "${patches[@]}" | sort -u |
		while read -r f; do
			[ -f "$LINUX_PRISTINE/$f" ] || continue
			install -D -m 0644 "$LINUX_PRISTINE/$f" "$dir/$f"
		done
	git -C "$dir" add -A
	git -C "$dir" -c user.name=base -c user.email=base@localhost commit -q -m "linux-source-$KVER"
	git -C "$dir" tag base
	git -C "$dir" am -q --keep-cr "${patches[@]}"
	echo "$HOST_NAME: $dir: linux-source-$KVER + ${#patches[@]} patches (git log base..)"
	;;
export)
	git -C "$dir" rev-parse -q --verify base >/dev/null || die "$dir: no base tag (made by init)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	git -C "$dir" format-patch -q -N --abbrev=9 --zero-commit --no-signature -o "$tmp" base..HEAD
	rm -f "$series_dir"/0*.patch
	: >"$tmp/series"
	: >"$tmp/series-test"
	for p in "$tmp"/0*.patch; do
		b=${p##*/}
		if grep -q '^Subject: \[PATCH\] TEST-ONLY:' "$p"; then
			echo "$b" >>"$tmp/series-test"
		else
			[ ! -s "$tmp/series-test" ] || die "$b: a posted patch after a test-only one"
			echo "$b" >>"$tmp/series"
		fi
		cp "$p" "$series_dir/$b"
	done
	cp "$tmp/series" "$series_dir/series"
	if [ -s "$tmp/series-test" ]; then
		cp "$tmp/series-test" "$series_dir/series-test"
	else
		rm -f "$series_dir/series-test"
	fi
	echo "$HOST_NAME: patches/linux-$KVER: $(wc -l <"$tmp/series") posted, $(wc -l <"$tmp/series-test") test-only"
	;;
*) die "usage: $0 init|export KVER DIR" ;;
esac
