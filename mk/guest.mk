# The PV guest kernel.
#
#   make guest          build $(BUILD)/smpalt.elf (part of `make all`)
#   make guest-notes    show its Xen ELF notes (readnotes from cache/xen)
#
# Freestanding: no C library, no system headers except the compiler's own
# (stdint.h, stddef.h, stdarg.h, stdbool.h) and Xen's public headers,
# reached as <xen/...> through a folder holding one symlink.

GUEST_OUT   := $(BUILD)/guest
GUEST_ELF   := $(BUILD)/smpalt.elf
GUEST_LDS   := $(GUEST_OUT)/smpalt.lds
GUEST_SYSINC := $(GUEST_OUT)/sysinc
XEN_PUBLIC_INCLUDE ?= /usr/include/xen

# Every C and assembly file of the five floors is part of the guest (the
# linker script apart), linked floor by floor from the ground up.
GUEST_FLOORS := lib arch-xen drivers kernel app
GUEST_C_SRCS := $(foreach d,$(GUEST_FLOORS),$(sort $(wildcard $(d)/*.c)))
GUEST_S_SRCS := $(filter-out arch-xen/smpalt.lds.S, \
	$(foreach d,$(GUEST_FLOORS),$(sort $(wildcard $(d)/*.S))))

GUEST_OBJS := $(patsubst %.c,$(GUEST_OUT)/%.o,$(GUEST_C_SRCS)) \
	$(patsubst %.S,$(GUEST_OUT)/%.o,$(GUEST_S_SRCS))

GUEST_CPPFLAGS := -nostdinc -isystem $(shell $(CC) -print-file-name=include) \
	-I$(TOP)/include -isystem $(GUEST_SYSINC) \
	-D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__ \
	-MMD -MP
GUEST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -nostdlib \
	-mno-red-zone -mgeneral-regs-only -fno-stack-protector \
	-mcmodel=kernel -fno-pic -fno-pie -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fcf-protection=none -fno-strict-aliasing -fno-common
GUEST_ASFLAGS := -D__ASSEMBLY__ -g
LD ?= ld
GUEST_LDFLAGS := -nostdlib -static --build-id=none -z max-page-size=0x1000 \
	-z noexecstack --no-warn-rwx-segments

.PHONY: guest guest-notes
all: $(GUEST_ELF)
guest: $(GUEST_ELF)

$(GUEST_SYSINC)/xen:
	@mkdir -p $(GUEST_SYSINC)
	$(Q)ln -sfn $(XEN_PUBLIC_INCLUDE) $@

# An object is shown by its source's path (CC kernel/main.o), every other
# file by its own (LD build/gcc/smpalt.elf).
$(GUEST_OUT)/%.o: %.c mk/guest.mk | $(GUEST_SYSINC)/xen
	@mkdir -p $(dir $@)
	$(call msg,CC,$*.o)
	$(Q)$(CC) $(GUEST_CPPFLAGS) $(GUEST_CFLAGS) -c $< -o $@

$(GUEST_OUT)/%.o: %.S mk/guest.mk | $(GUEST_SYSINC)/xen
	@mkdir -p $(dir $@)
	$(call msg,AS,$*.o)
	$(Q)$(CC) $(GUEST_CPPFLAGS) $(GUEST_ASFLAGS) -c $< -o $@

$(GUEST_LDS): arch-xen/smpalt.lds.S include/smpalt/layout.h mk/guest.mk
	@mkdir -p $(dir $@)
	$(call msg,LDS,$@)
	$(Q)$(CC) -E -P -x c -D__ASSEMBLY__ -I$(TOP)/include $< -o $@

# $(call GUEST_IMAGE,ELF,DIR,OBJS): the image ELF linked from OBJS, its
# intermediate files in DIR. Two links: the first (DIR/pass1.elf) gives
# the function addresses for the symbol table (lib/ksyms.c, DIR/ksyms.S),
# the second adds the table after the text, which therefore does not
# move; the image is refused if it did. The link map is DIR/<image>.map.
define GUEST_IMAGE
$(2)/pass1.elf: $(3) $$(GUEST_LDS)
	@mkdir -p $$(@D)
	$$(call msg,LD,$$@)
	$$(Q)$$(LD) $$(GUEST_LDFLAGS) -T $$(GUEST_LDS) -o $$@ $(3)

$(2)/ksyms.S: $(2)/pass1.elf mk/guest-ksyms.awk
	$$(call msg,KSYMS,$$@)
	$$(Q)nm -n --defined-only $$< | awk -f mk/guest-ksyms.awk > $$@

$(2)/ksyms.o: $(2)/ksyms.S
	$$(call msg,AS,$$@)
	$$(Q)$$(CC) $$(GUEST_ASFLAGS) -c $$< -o $$@

$(1): $(3) $(2)/ksyms.o $$(GUEST_LDS)
	$$(call msg,LD,$$@)
	$$(Q)$$(LD) $$(GUEST_LDFLAGS) -T $$(GUEST_LDS) \
		-Map=$(2)/$$(basename $$(@F)).map -o $$@ $(3) $(2)/ksyms.o
	$$(Q)nm -n $(2)/pass1.elf | awk -f mk/guest-ksyms.awk > $(2)/text1.sym
	$$(Q)nm -n $$@ | awk -f mk/guest-ksyms.awk > $(2)/text2.sym
	$$(Q)cmp -s $(2)/text1.sym $(2)/text2.sym || \
		{ echo "guest: $$(@F): text moved between the two links" >&2; \
		  rm -f $$@; exit 1; }
endef

$(eval $(call GUEST_IMAGE,$(GUEST_ELF),$(GUEST_OUT),$(GUEST_OBJS)))

# Test build, never shipped as the guest: the workload's spinlock and
# counter stay in UP form while several vCPUs run (app/work_item.c,
# SMPALT_TEST_LOSTUPDATE), so that the counters check must find lost
# updates (tests/xen/lost-update.sh).  Every other object is the guest's
# own; its work_item.o and symbol table are its own.
# scripts/build/mkinitramfs.sh ships it as /opt/smpalt/smpalt-lostupdate.elf
# when it lies beside the guest kernel.
GUEST_LU_ELF := $(BUILD)/smpalt-lostupdate.elf
GUEST_LU_OUT := $(GUEST_OUT)/lostupdate
GUEST_LU_OBJS := $(filter-out $(GUEST_OUT)/app/work_item.o,$(GUEST_OBJS)) \
	$(GUEST_LU_OUT)/work_item.o

all: $(GUEST_LU_ELF)

$(GUEST_LU_OUT)/work_item.o: app/work_item.c mk/guest.mk | $(GUEST_SYSINC)/xen
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GUEST_CPPFLAGS) $(GUEST_CFLAGS) -DSMPALT_TEST_LOSTUPDATE \
		-c $< -o $@

$(eval $(call GUEST_IMAGE,$(GUEST_LU_ELF),$(GUEST_LU_OUT),$(GUEST_LU_OBJS)))

-include $(GUEST_LU_OUT)/work_item.d

GUEST_READNOTES := $(firstword $(wildcard $(CACHE)/xen/usr/lib/xen-*/bin/readnotes))
guest-notes: $(GUEST_ELF)
	@if [ -z "$(GUEST_READNOTES)" ]; then \
		echo "readnotes not found: run make xen-fetch"; exit 1; fi
	LD_LIBRARY_PATH=$(CACHE)/xen/usr/lib/x86_64-linux-gnu:$(CACHE)/xen/usr/lib \
		$(GUEST_READNOTES) $(GUEST_ELF)

-include $(GUEST_OBJS:.o=.d)
