#!/bin/bash
# Install smpalt on a Xen dom0, or remove exactly what an install put there.
# Run by `make install` / `make uninstall` (mk/install.mk), which pass the
# directories below in the environment; scripts/mkinitramfs.sh runs
# `make install` into the dom0 initramfs of the Xen-in-QEMU harness.
#
# Usage: scripts/install.sh install | uninstall
# Environment (all paths absolute; DESTDIR is prepended to each):
#   DESTDIR PREFIX SBINDIR XENBOOTDIR XLCONFDIR SYSCONFDIR MANDIR
#   SYSTEMDUNITDIR DOCDIR PKGDATADIR
#   GUEST_ELF AUTOSCALER   the built guest kernel and autoscaler (install)
#
# Every file installed and every directory created is listed, in order, in
# $PKGDATADIR/install-manifest ("f PATH" or "d PATH"); uninstall removes
# the files and then the directories, the latter only when empty. A
# second install keeps the directories the first one created on the list.
# Configuration files (the xl config and /etc/default/smpalt-autoscaler)
# are never overwritten: one that exists is left as the administrator made
# it, and stays on the list only if an earlier install put it there.
set -euo pipefail

. "$(dirname "$0")/lib/host.sh"
host_script install

[ $# -eq 1 ] || die "usage: scripts/install.sh install|uninstall"
action=$1
for v in PREFIX SBINDIR XENBOOTDIR XLCONFDIR SYSCONFDIR MANDIR \
	SYSTEMDUNITDIR DOCDIR PKGDATADIR; do
	[ -n "${!v:-}" ] || die "$v is not set (run through make install)"
	[[ ${!v} == /* ]] || die "$v='${!v}' is not an absolute path"
done
DESTDIR=${DESTDIR:-}
MANIFEST=$PKGDATADIR/install-manifest

# The entries of the list, in order; `seen` avoids duplicates.
entries=()
declare -A seen=()
record() {
	[ -z "${seen[$1 $2]:-}" ] || return 0
	seen[$1 $2]=1
	entries+=("$1 $2")
}

# Entries of an earlier install, if any.
declare -A old=()
old_entries=()
if [ -f "$DESTDIR$MANIFEST" ]; then
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		old[$line]=1
		old_entries+=("$line")
	done <"$DESTDIR$MANIFEST"
fi

# make_dir DIR: create DIR and its missing parents, recording each one.
make_dir() {
	local path=/ part
	local -a parts
	IFS=/ read -ra parts <<<"${1#/}"
	for part in "${parts[@]}"; do
		[ -n "$part" ] || continue
		path=${path%/}/$part
		if [ ! -d "$DESTDIR$path" ]; then
			mkdir "$DESTDIR$path"
			record d "$path"
		fi
	done
}

# put MODE SRC DST: install SRC as DST (a path without DESTDIR).
put() {
	make_dir "$(dirname "$3")"
	install -m "$1" "$2" "$DESTDIR$3"
	record f "$3"
	echo "install: $DESTDIR$3"
}

# Paths a template names, filled in from the directories above.
fill() {
	sed -e "s|@SBINDIR@|$SBINDIR|g" -e "s|@XENBOOTDIR@|$XENBOOTDIR|g" \
		-e "s|@XLCONFDIR@|$XLCONFDIR|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" \
		-e "s|@SYSTEMDUNITDIR@|$SYSTEMDUNITDIR|g" -e "s|@DOCDIR@|$DOCDIR|g" \
		"$1"
}

# put_filled MODE TEMPLATE DST
put_filled() {
	local tmp
	tmp=$(mktemp)
	fill "$2" >"$tmp"
	if grep -q '@[A-Z]*DIR@' "$tmp"; then
		rm -f "$tmp"
		die "$2: a @...DIR@ name without a value"
	fi
	put "$1" "$tmp" "$3"
	rm -f "$tmp"
}

# put_config MODE TEMPLATE DST: as put_filled, never over an existing file.
put_config() {
	if [ -e "$DESTDIR$3" ]; then
		if [ -n "${old[f $3]:-}" ]; then
			record f "$3"
			echo "install: $DESTDIR$3 kept (may hold your changes)"
		else
			echo "install: $DESTDIR$3 exists and is not from an" \
				"earlier install: left as it is, not ours"
		fi
		return 0
	fi
	put_filled "$1" "$2" "$3"
}

do_install() {
	local e
	[ -n "${GUEST_ELF:-}" ] && [ -f "$GUEST_ELF" ] ||
		die "guest kernel '${GUEST_ELF:-}' not found (make guest)"
	[ -n "${AUTOSCALER:-}" ] && [ -x "$AUTOSCALER" ] ||
		die "autoscaler '${AUTOSCALER:-}' not found (make tools)"
	[ -z "$DESTDIR" ] || [ -d "$DESTDIR" ] || mkdir -p "$DESTDIR"
	# Directories an earlier install created stay ours.
	for e in "${old_entries[@]}"; do
		[ "${e%% *}" != d ] || [ ! -d "$DESTDIR${e#d }" ] || record d "${e#d }"
	done

	put 0755 "$AUTOSCALER" "$SBINDIR/smpalt-autoscaler"
	put 0644 "$GUEST_ELF" "$XENBOOTDIR/smpalt.elf"
	put_filled 0644 "$TOP/man/smpalt-autoscaler.8" \
		"$MANDIR/man8/smpalt-autoscaler.8"
	put_filled 0644 "$TOP/dist/smpalt-autoscaler.service" \
		"$SYSTEMDUNITDIR/smpalt-autoscaler.service"
	put_config 0644 "$TOP/xl-configs/smpalt.cfg" "$XLCONFDIR/smpalt.cfg"
	put_config 0644 "$TOP/dist/smpalt-autoscaler.default" \
		"$SYSCONFDIR/default/smpalt-autoscaler"
	for e in LICENSE docs/xenstore.md docs/real-host.md docs/autoscaler.md; do
		put 0644 "$TOP/$e" "$DOCDIR/$(basename "$e")"
	done

	make_dir "$(dirname "$MANIFEST")"
	record f "$MANIFEST"
	printf '%s\n' "${entries[@]}" >"$DESTDIR$MANIFEST"
	echo "install: list of what was installed: $DESTDIR$MANIFEST"
}

do_uninstall() {
	local i e path
	if [ ${#old_entries[@]} -eq 0 ]; then
		echo "uninstall: no $DESTDIR$MANIFEST: nothing installed here"
		return 0
	fi
	# Files first (newest first), then directories, deepest first.
	for ((i = ${#old_entries[@]} - 1; i >= 0; i--)); do
		e=${old_entries[i]}
		path=$DESTDIR${e#? }
		[ "${e%% *}" = f ] || continue
		if [ -e "$path" ] || [ -L "$path" ]; then
			rm -f "$path"
			echo "uninstall: removed $path"
		fi
	done
	for ((i = ${#old_entries[@]} - 1; i >= 0; i--)); do
		e=${old_entries[i]}
		path=$DESTDIR${e#? }
		[ "${e%% *}" = d ] || continue
		[ -d "$path" ] || continue
		if rmdir "$path" 2>/dev/null; then
			echo "uninstall: removed $path/"
		else
			echo "uninstall: $path/ kept: not empty"
		fi
	done
}

case $action in
install) do_install ;;
uninstall) do_uninstall ;;
*) die "unknown action '$action' (install or uninstall)" ;;
esac
