# The busybox initramfs of the Linux guests and test kernels, shared by
# the scripts that make one (mk-linux-smpalt-domu.sh, mkinitramfs.sh,
# scripts/run/test-linux-native.sh). Sourced after scripts/lib/host.sh:
#
#   INITRAMFS_BUSYBOX        the static busybox they run, from the root of
#                            the Xen host XEN= picks (scripts/lib/xen-host.sh,
#                            unpacked by scripts/build/fetch-xen.sh): Debian
#                            12's for 4.17, Debian 13's for 4.20
#   initramfs_busybox DIR    DIR becomes a busybox root: /bin/busybox,
#                            /bin/sh, the mount points /proc, /sys, /dev;
#                            /init and the rest are the caller's (init runs
#                            `busybox --install -s /bin` for the applets)
#   initramfs_pack DIR OUT [LEVEL]  DIR as a newc cpio archive (files in
#                            a fixed order, owned by root), gzip -LEVEL
#                            (default 9), into OUT: written beside it,
#                            then renamed, so that OUT is never half a file

. "$(dirname "${BASH_SOURCE[0]}")/xen-host.sh"
INITRAMFS_BUSYBOX=$XEN_ROOT/bin/busybox

initramfs_busybox() {
	[ -x "$INITRAMFS_BUSYBOX" ] ||
		die "$INITRAMFS_BUSYBOX missing: run scripts/build/fetch-xen.sh first"
	mkdir -p "$1"/{bin,proc,sys,dev}
	cp "$INITRAMFS_BUSYBOX" "$1/bin/busybox"
	ln -sf busybox "$1/bin/sh"
}

initramfs_pack() {
	local t
	for t in cpio gzip; do
		command -v $t >/dev/null || die "$t not found (scripts/build/install-deps.sh)"
	done
	mkdir -p "$(dirname "$2")"
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0) | gzip -"${3:-9}" >"$2.tmp"
	mv "$2.tmp" "$2"
}
