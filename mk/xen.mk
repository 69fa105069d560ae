# The Xen-in-QEMU harness.
#
#   make test-xen               every scenario in tests/xen/, one Xen boot
#                               (the soak scenario with N=50 calls)
#   make test-xen TESTS="a b"   some of them
#   make test-xen BUSY=1        the same beside one CPU hog per host core
#   make test-xen GUEST=linux   the same against the patched Linux 6.1 guest
#                               (make linux builds it; the scenarios whose
#                               "# guests:" line lacks linux are left out,
#                               named on one line)
#   make test-xen GUEST=debian XEN=4.20  the same against the Debian 13
#                               guest (make debian-domu builds its disk
#                               and the kernel package), likewise
#   make test-xen [GUEST=linux] TYPE=pvh   the same with PVH guests
#                               (scripts/run/xen-run.sh -T; the scenarios
#                               whose "# types:" line lacks pvh are left
#                               out, named)
#   make test-xen N=200 SEED=7  soak scenario's calls and seed (default 50)
#   make soak [N=1000] [SEED=]  tests/xen/soak.sh alone: N random vcpu-set
#                               under load, Xen's view checked at each
#                               settled step; SEED= repeats a run (the seed
#                               is printed at the start and in the result)
#   make xen-fetch              download and unpack Xen, tools, dom0 kernel
#   make dom0-initrd            cache/dom0-initrd.gz on its own
#   make xen                    xen-fetch and the autoscaler of its dom0
# Results land in out/xen/<timestamp>/ (out/xen/latest points at the last).
# Every run takes the guest kernel (mk/guest.mk) and the autoscaler
# (mk/tools.mk, exported as AUTOSCALER for the dom0 initramfs); the
# scenarios also take the test-only lost-update build. Scenarios marked
# "# needs: systemd" boot a Debian 12 dom0 with systemd as PID 1
# (scripts/build/mkdom0-systemd.sh; `make dom0-initrd-systemd` alone), after the
# others, and install the Debian packages there.
#
#   make ... XEN=4.20           every target here (and test-linux, demo) on
#                               Xen 4.20 with Debian 13's dom0 kernel and
#                               userland instead of the default XEN=4.17
#                               (scripts/lib/xen-host.sh; cache/xen-4.20/):
#                               the autoscaler and the Debian packages dom0
#                               installs are then built inside that Debian 13
#                               root (scripts/build/xen-root-build.sh),
#                               against its glibc and Xen 4.20 libraries

# The Xen hosts, and this one's line, from scripts/lib/matrix.conf.
XEN_HOSTS := $(shell bash $(TOP)/scripts/lib/matrix.sh hosts)
XEN ?= $(firstword $(XEN_HOSTS))
XEN_HOST := $(shell bash $(TOP)/scripts/lib/matrix.sh host $(XEN))
ifeq ($(XEN_HOST),)
$(error XEN=$(XEN): one of $(XEN_HOSTS) (scripts/lib/matrix.conf))
endif
export XEN
# Where its dom0 images go (cache/ or a folder of its own).
XEN_IMAGES := $(CACHE)$(patsubst %,/%,$(filter-out -,$(word 7,$(XEN_HOST))))
# The autoscaler the dom0 image carries: a host whose dom0 root has its own
# glibc builds it in that root (scripts/build/mkinitramfs.sh takes it from
# build/xen-XEN/ itself).
ifeq ($(word 5,$(XEN_HOST)),0)
DOM0_AUTOSCALER := $(AUTOSCALER)
else
DOM0_AUTOSCALER := $(TOP)/build/xen-$(XEN)/tools/smpalt-autoscaler
$(DOM0_AUTOSCALER): $(AUTOSCALER_DEPS) $(addprefix $(TOP)/,$(TOOLS_DAEMON))
	@bash $(TOP)/scripts/build/fetch-xen.sh
	@SMPALT_VERSION='$(SMPALT_VERSION)' bash $(TOP)/scripts/build/xen-root-build.sh \
		autoscaler $@
endif

TESTS ?=
BUSY ?=
# The guest kind the scenarios run against (scripts/run/xen-run.sh -G), and
# what each needs built besides the smpalt kernel.
GUEST ?= smpalt
# The type of every guest the scenarios create (xen-run.sh -T), here and
# for make test-linux. The smpalt kernel boots as either (one image, PV
# and PVH entry points: docs/design.md).
TYPE ?= pv
ifeq ($(filter pv pvh,$(TYPE)),)
$(error TYPE=$(TYPE): pv (the default) or pvh)
endif
XEN_GUEST_DEPS_linux := linux
XEN_GUEST_DEPS_debian := debian-domu
SEED ?=
SOAK_N_DEFAULT := 1000
XEN_RUN := bash $(TOP)/scripts/run/xen-run.sh

.PHONY: test-xen xen xen-fetch dom0-initrd soak

xen-fetch:
	@bash $(TOP)/scripts/build/fetch-xen.sh

# The host and the autoscaler its dom0 carries.
xen: xen-fetch $(DOM0_AUTOSCALER)

dom0-initrd: xen-fetch $(GUEST_ELF) $(DOM0_AUTOSCALER)
	@bash $(TOP)/scripts/build/mkinitramfs.sh -o $(XEN_IMAGES)/dom0-initrd.gz $(GUEST_ELF)

# The Debian packages that the scenarios install (scripts/build/xen-debs.sh:
# out/deb/, built when missing or older than the tree) go to the harness as
# SMPALT_DEBS.
test-xen: deps $(GUEST_ELF) $(GUEST_LU_ELF) $(DOM0_AUTOSCALER) $(XEN_GUEST_DEPS_$(GUEST))
	@debs=$$(bash $(TOP)/scripts/build/xen-debs.sh) && \
	SMPALT_DEBS="$$(echo $$debs)" XEN_BUSY=$(BUSY) XEN_SOAK_N=$(N) \
		XEN_SOAK_SEED=$(SEED) $(XEN_RUN) -G $(GUEST) -T $(TYPE) -g $(GUEST_ELF) $(TESTS)

soak: deps $(GUEST_ELF) $(DOM0_AUTOSCALER)
	@XEN_BUSY=$(BUSY) XEN_SOAK_N=$(or $(N),$(SOAK_N_DEFAULT)) \
		XEN_SOAK_SEED=$(SEED) $(XEN_RUN) -g $(GUEST_ELF) soak

# The dom0 image of the scenarios marked "# needs: libvirt"
# (scripts/run/xen-run.sh boots it for them, after the boot of the others):
# the default image plus
# libvirtd, its libxl driver and virsh (docs/libvirt.md).
.PHONY: dom0-initrd-libvirt
dom0-initrd-libvirt: $(GUEST_ELF) $(DOM0_AUTOSCALER)
	@LIBVIRT=1 bash $(TOP)/scripts/build/fetch-xen.sh
	@LIBVIRT=1 bash $(TOP)/scripts/build/mkinitramfs.sh \
		-o $(XEN_IMAGES)/dom0-initrd-libvirt.gz $(GUEST_ELF)

# The systemd dom0 image on its own (cached debootstrap in
# cache/dom0-systemd/; scripts/run/xen-run.sh builds it for the scenarios
# marked "# needs: systemd").
.PHONY: dom0-initrd-systemd
dom0-initrd-systemd: xen-fetch
	@SMPALT_DEBS="$$(echo $$(bash $(TOP)/scripts/build/xen-debs.sh))" \
		bash $(TOP)/scripts/build/mkdom0-systemd.sh

# Every guest on every host, one table (scripts/run/test-matrix.sh, which
# declares the cells): make test-xen on XEN=4.17 and XEN=4.20, make
# test-linux for each series version (6.1 on both hosts, 6.12 and 7.2 on
# 4.20), and with TYPE=pvh (6.12 and 7.2 on 4.20, 7.2 on 4.17); results in
# out/matrix/<timestamp>/ (matrix.md). CELLS="smpalt-4.20 linux-7.2-4.20-pvh"
# runs some of them.
.PHONY: test-matrix
test-matrix: deps
	@bash $(TOP)/scripts/run/test-matrix.sh $(CELLS)
