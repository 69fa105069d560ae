# Stock Linux 6.1 as a Xen PV domU with the smpalt series (patches/linux-6.1/:
# UP code while one vCPU is online, SMP code while more are, vCPUs added by
# xl vcpu-set onlined by the kernel itself).
#
#   make linux   Debian's linux-source-6.1 with the series applied, built
#                from tinyconfig + patches/linux-6.1/xen-pv-guest.config
#                (scripts/build-linux.sh): cache/linux/out/vmlinuz (the
#                bzImage, loaded by xl as a PV kernel) and
#                cache/linux/out/config. Minutes the first time, seconds
#                when nothing changed.

LINUX_OUT     := $(CACHE)/linux/out
LINUX_VMLINUZ := $(LINUX_OUT)/vmlinuz

.PHONY: linux
linux:
	@bash $(TOP)/scripts/build-linux.sh
