# Stock Linux as a Xen PV domU with the smpalt series (patches/linux-KVER/:
# UP code while one vCPU is online, SMP code while more are, vCPUs added by
# xl vcpu-set onlined by the kernel itself), for KVER=6.1 (the default),
# 6.12 or 7.2 (scripts/lib/linux-version.sh).
#
#   make linux [KVER=...]  Debian's linux-source-KVER with the series
#                applied, built from tinyconfig +
#                patches/linux-KVER/xen-pv-guest.config
#                (scripts/build/build-linux.sh): out/vmlinuz (the bzImage,
#                loaded by xl as a PV kernel) and out/config in cache/linux/
#                (6.1) or cache/linux-KVER/. Minutes the first time, seconds
#                when nothing changed.

#   make linux CONFIG=debug  the debug configuration (+ debug.config:
#                modules, kprobes, the function tracer, static keys,
#                preemption, lockdep) into cache/linux/debug/, with the
#                test modules of tests/linux/modules/ (docs/linux.md)
#   make linux CONFIG=debian  Linux 6.1 from Debian's own configuration
#                (modules trimmed) + the fragment + debian.config into
#                cache/linux/debian/, with the test modules
#   make linux STOCK=1  the stock control: the same tree and configuration
#                without the series, into cache/linux/stock/ (and
#                <configuration>-stock/)
#   make linux-deb [KVER=6.12]  (or 7.2) the Debian packages a Debian guest
#                installs with dpkg: linux-image-<version>-smpalt and its
#                headers, from Debian's cloud-amd64 configuration of the
#                same version with modules + patches/linux-KVER/deb.config,
#                the posted series only, lintian-clean, into
#                cache/linux-KVER/deb/out/ (CONFIG=deb; docs/linux.md,
#                "Installing the series in a Debian 13 guest")
#   make test-linux-deb KVER=6.12  what the packages hold: the kernel, its
#                modules, its configuration with the series on
#                (tests/install/check-linux-deb.sh; builds them first)

# The first Linux version of scripts/lib/matrix.conf unless given.
KVER ?= $(firstword $(shell bash $(TOP)/scripts/lib/matrix.sh linux-versions))
CONFIG ?= default
STOCK ?= 0

.PHONY: linux
linux: deps
	@KVER=$(KVER) CONFIG=$(CONFIG) STOCK=$(STOCK) bash $(TOP)/scripts/build/build-linux.sh

# Debian 13's 6.12 unless KVER is given.
LINUX_DEB_KVER = $(if $(filter command line environment,$(origin KVER)),$(KVER),6.12)

.PHONY: linux-deb test-linux-deb
linux-deb: deps
	@KVER=$(LINUX_DEB_KVER) CONFIG=deb bash $(TOP)/scripts/build/build-linux.sh

# make debian-domu [KVER=6.12]: the Debian 13 guest's disk image with the
#                packages installed (scripts/build/mk-debian-domu.sh), into
#                cache/debian-domu/; make test-xen GUEST=debian boots it
.PHONY: debian-domu
debian-domu: linux-deb
	@bash $(TOP)/scripts/build/mk-debian-domu.sh -k $(LINUX_DEB_KVER)

test-linux-deb: linux-deb
	@KVER=$(LINUX_DEB_KVER) bash $(TOP)/tests/install/check-linux-deb.sh

# make upstream SIGNOFF="Name <address>": the 7.2 series as numbered mails
# with a cover letter in out/upstream/, and the xen.git patch of patches/xen/
# (the data/smpalt/ keys in Xen's docs) in out/upstream/xen/
# (scripts/build/upstream-linux.sh); it refuses without SIGNOFF.
.PHONY: upstream
upstream:
	@SIGNOFF='$(SIGNOFF)' bash $(TOP)/scripts/build/upstream-linux.sh

# make upstream-check [KVER=7.2]: every prefix of that version's posted
# series builds (default configuration, no compiler warning) and is
# checkpatch --strict clean (scripts/build/upstream-check.sh); 7.2, the
# posted version, unless KVER is given; FROM=N starts at prefix N.
.PHONY: upstream-check
upstream-check:
	@KVER='$(if $(filter command line environment,$(origin KVER)),$(KVER),7.2)' \
		FROM='$(FROM)' bash $(TOP)/scripts/build/upstream-check.sh
