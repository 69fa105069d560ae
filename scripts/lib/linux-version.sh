# The Linux versions the smpalt series exists for, and where each one's
# files are. Sourced after scripts/lib/host.sh by the scripts that build
# and test the patched guest (build-linux.sh, test-linux.sh,
# mk-linux-smpalt-domu.sh); KVER from the environment chooses the version
# (default 6.1):
#
#   KVER 6.1    Debian 12 (bookworm) linux-source-6.1, the machine's own
#               apt sources; cache/linux/ (the paths from before versions
#               existed, so that existing builds stay valid)
#   KVER 6.12   Debian 13 (trixie) linux-source-6.12; cache/linux-6.12/
#   KVER 7.2    Debian unstable (sid) linux-source-7.2; cache/linux-7.2/
#
# which gives:
#
#   LINUX_SERIES_DIR  patches/linux-$KVER (series, patches, config fragment)
#   LINUX_SOURCE_PKG  linux-source-$KVER
#   LINUX_SUITE       the Debian suite to fetch it from; empty: the
#                     machine's apt sources as they are
#   LINUX_CACHE       downloads, the pristine tree, the build
#                     ({debs,pkg,linux-source-$KVER,src,build,out}/)
#   LINUX_PRISTINE    the unpacked, never modified source tree
#   LINUX_VMLINUZ     the patched kernel `make linux KVER=...` writes
#   LINUX_DOMU_SMPALT the guest's initramfs + kernel for the tests
KVER=${KVER:-6.1}
case $KVER in
6.1)
	LINUX_SUITE=
	LINUX_CACHE=$CACHE/linux
	LINUX_DOMU_SMPALT=$CACHE/linux-smpalt-domu
	;;
6.12 | 7.2)
	if [ "$KVER" = 6.12 ]; then LINUX_SUITE=trixie; else LINUX_SUITE=sid; fi
	LINUX_CACHE=$CACHE/linux-$KVER
	LINUX_DOMU_SMPALT=$LINUX_CACHE/smpalt-domu
	;;
*) die "KVER=$KVER: the series exists for Linux 6.1, 6.12 and 7.2" ;;
esac
LINUX_SERIES_DIR=$TOP/patches/linux-$KVER
LINUX_SOURCE_PKG=linux-source-$KVER
LINUX_PRISTINE=${LINUX_PRISTINE:-$LINUX_CACHE/$LINUX_SOURCE_PKG}
LINUX_VMLINUZ=$LINUX_CACHE/out/vmlinuz
