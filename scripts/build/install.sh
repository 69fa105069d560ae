#!/bin/bash
# Install smpalt on a Xen dom0, or remove exactly what an install put there.
# Run by `make install` / `make uninstall` (mk/install.mk), which pass the
# directories below in the environment; scripts/build/mkinitramfs.sh runs
# `make install` into the dom0 initramfs of the Xen-in-QEMU harness.
#
# Usage: scripts/build/install.sh install | uninstall
# Environment (all paths absolute; DESTDIR is prepended to each):
#   DESTDIR PREFIX SBINDIR XENBOOTDIR XLCONFDIR SYSCONFDIR MANDIR
#   SYSTEMDUNITDIR DOCDIR PKGDATADIR
#   GUEST_ELF AUTOSCALER   the built guest kernel and autoscaler (install)
#   PURGE=1                uninstall removes edited configuration files too
#
# Every file installed and every directory created is listed, in order, in
# $PKGDATADIR/install-manifest: "f PATH", "d PATH", or for a configuration
# file "c SHA256 PATH" with the checksum of the copy installed. Uninstall
# removes the files and then the directories, the latter only when empty.
# A second install keeps the directories the first one created on the list.
#
# Configuration files (the xl config, /etc/default/smpalt-autoscaler,
# /etc/smpalt/autoscaler.conf, the logrotate snippet) are the
# administrator's once installed: a second install replaces one only if it
# is still as installed (its checksum), and uninstall removes one only if
# it is still as installed, or with PURGE=1. A configuration file that
# exists and that no earlier install put there is left alone, not ours.
set -euo pipefail

. "$(dirname "$0")/../lib/host.sh"
host_script install

[ $# -eq 1 ] || die "usage: scripts/build/install.sh install|uninstall"
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

# Entries of an earlier install, if any; old_sum[PATH] is the checksum a
# configuration file had when installed ("-": not known, an install that
# recorded none).
declare -A old=() old_sum=()
old_entries=()
if [ -f "$DESTDIR$MANIFEST" ]; then
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		case $line in
		"c "*)
			rest=${line#c }
			old_sum[${rest#* }]=${rest%% *}
			;;
		esac
		old[$line]=1
		old_entries+=("$line")
	done <"$DESTDIR$MANIFEST"
fi

# sum FILE: its SHA-256, hex.
sum() {
	local s
	s=$(sha256sum <"$1") || die "cannot read $1"
	echo "${s%% *}"
}

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

# put_config MODE TEMPLATE DST: as put_filled, recorded with the checksum
# of the copy installed. An existing file is replaced only if an earlier
# install put it there and it is unchanged since.
put_config() {
	local was=
	if [ -n "${old_sum[$3]:-}" ]; then
		was=${old_sum[$3]}
	elif [ -n "${old[f $3]:-}" ]; then
		was=- # listed by an install that kept no checksum
	fi
	if [ -e "$DESTDIR$3" ]; then
		if [ -z "$was" ]; then
			echo "install: $DESTDIR$3 exists and is not from an" \
				"earlier install: left as it is, not ours"
			return 0
		fi
		if [ "$(sum "$DESTDIR$3")" != "$was" ]; then
			record c "$was $3"
			echo "install: $DESTDIR$3 kept: changed since installed"
			return 0
		fi
	fi
	put_filled "$1" "$2" "$3"
	# put recorded it as a plain file: a configuration file instead.
	unset 'entries[${#entries[@]}-1]'
	unset "seen[f $3]"
	record c "$(sum "$DESTDIR$3") $3"
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
	put_config 0644 "$TOP/dist/autoscaler.conf" \
		"$SYSCONFDIR/smpalt/autoscaler.conf"
	if [ -f "$TOP/dist/smpalt-autoscaler.logrotate" ]; then
		put_config 0644 "$TOP/dist/smpalt-autoscaler.logrotate" \
			"$SYSCONFDIR/logrotate.d/smpalt-autoscaler"
	fi
	for e in LICENSE docs/xenstore.md docs/real-host.md docs/autoscaler.md \
		docs/libvirt.md docs/workload-profiles.md; do
		put 0644 "$TOP/$e" "$DOCDIR/$(basename "$e")"
	done

	make_dir "$(dirname "$MANIFEST")"
	record f "$MANIFEST"
	printf '%s\n' "${entries[@]}" >"$DESTDIR$MANIFEST"
	echo "install: list of what was installed: $DESTDIR$MANIFEST"
}

# Uninstall removes the files, newest first, then the directories,
# deepest first. A configuration file changed since installed is kept
# (unless PURGE=1), and so is the list, holding only the kept files and
# the directories still there: a later `uninstall PURGE=1` removes them,
# a later install knows them as edited.
do_uninstall() {
	local i e path
	local -a kept=()
	if [ ${#old_entries[@]} -eq 0 ]; then
		echo "uninstall: no $DESTDIR$MANIFEST: nothing installed here"
		return 0
	fi
	for ((i = ${#old_entries[@]} - 1; i >= 0; i--)); do
		e=${old_entries[i]}
		case $e in
		"f "*) path=$DESTDIR${e#f } ;;
		"c "*)
			e=${e#c }
			path=$DESTDIR${e#* }
			if [ -f "$path" ] && [ "${PURGE:-}" != 1 ] &&
				[ "$(sum "$path")" != "${e%% *}" ]; then
				echo "uninstall: $path kept: changed since" \
					"installed (PURGE=1 removes it)"
				kept+=("c $e")
				continue
			fi
			;;
		*) continue ;;
		esac
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
	[ ${#kept[@]} -gt 0 ] || return 0
	mkdir -p "$DESTDIR$(dirname "$MANIFEST")"
	for e in "${old_entries[@]}"; do
		[ "${e%% *}" != d ] || [ ! -d "$DESTDIR${e#d }" ] || record d "${e#d }"
	done
	for ((i = ${#kept[@]} - 1; i >= 0; i--)); do
		record c "${kept[i]#c }"
	done
	record f "$MANIFEST"
	printf '%s\n' "${entries[@]}" >"$DESTDIR$MANIFEST"
	echo "uninstall: ${#kept[@]} changed configuration file(s) kept, listed" \
		"in $DESTDIR$MANIFEST; uninstall PURGE=1 removes them"
}

case $action in
install) do_install ;;
uninstall) do_uninstall ;;
*) die "unknown action '$action' (install or uninstall)" ;;
esac
