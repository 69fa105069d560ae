# The Xen-in-QEMU harness (owned by the harness work).
#
#   make test-xen               every scenario in tests/xen/, one Xen boot
#   make test-xen TESTS="a b"   some of them
#   make demo-xen               boot the guest, stream its console, show its
#                               data/smpalt state, vcpu-set 2 then 1, shut down
#   make xen-fetch              download and unpack Xen, tools, dom0 kernel
#   make dom0-initrd            cache/dom0-initrd.gz on its own
# Results land in out/xen/<timestamp>/ (out/xen/latest points at the last).

# mk/guest.mk defines GUEST_ELF and its rule; until it does, the scenarios
# that need the guest run without it and report SKIP.
ifeq ($(origin GUEST_ELF),undefined)
GUEST_ELF_DEP :=
GUEST_ELF     := $(BUILD)/smpalt.elf
else
GUEST_ELF_DEP := $(GUEST_ELF)
endif

TESTS ?=
XEN_RUN := bash $(TOP)/scripts/xen-run.sh

.PHONY: test-xen demo-xen xen-fetch dom0-initrd

xen-fetch:
	@bash $(TOP)/scripts/fetch-xen.sh

dom0-initrd: xen-fetch $(GUEST_ELF_DEP)
	@bash $(TOP)/scripts/mkinitramfs.sh -o $(CACHE)/dom0-initrd.gz \
		$(if $(wildcard $(GUEST_ELF)),$(GUEST_ELF))

test-xen: deps $(GUEST_ELF_DEP)
	@$(XEN_RUN) $(if $(wildcard $(GUEST_ELF)),-g $(GUEST_ELF)) $(TESTS)

demo-xen: deps $(GUEST_ELF_DEP)
	@$(XEN_RUN) $(if $(wildcard $(GUEST_ELF)),-g $(GUEST_ELF)) demo

# The dom0 image of the scenarios marked "# needs: libvirt" (scripts/xen-run.sh
# boots it for them, after the boot of the others): the default image plus
# libvirtd, its libxl driver and virsh (docs/libvirt.md).
.PHONY: dom0-initrd-libvirt
dom0-initrd-libvirt: $(GUEST_ELF_DEP) tools
	@LIBVIRT=1 bash $(TOP)/scripts/fetch-xen.sh
	@LIBVIRT=1 bash $(TOP)/scripts/mkinitramfs.sh \
		-o $(CACHE)/dom0-initrd-libvirt.gz \
		$(if $(wildcard $(GUEST_ELF)),$(GUEST_ELF))
