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
	ln -sfn $(XEN_PUBLIC_INCLUDE) $@

$(GUEST_OUT)/%.o: %.c mk/guest.mk | $(GUEST_SYSINC)/xen
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CPPFLAGS) $(GUEST_CFLAGS) -c $< -o $@

$(GUEST_OUT)/%.o: %.S mk/guest.mk | $(GUEST_SYSINC)/xen
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CPPFLAGS) $(GUEST_ASFLAGS) -c $< -o $@

$(GUEST_LDS): arch-xen/smpalt.lds.S include/smpalt/layout.h mk/guest.mk
	@mkdir -p $(dir $@)
	$(CC) -E -P -x c -D__ASSEMBLY__ -I$(TOP)/include $< -o $@

# Two links: the first gives the function addresses for the symbol table
# (lib/ksyms.c), the second adds the table after the text, which
# therefore does not move.
GUEST_PASS1 := $(GUEST_OUT)/smpalt.pass1.elf
GUEST_KSYMS := $(GUEST_OUT)/ksyms.S

$(GUEST_PASS1): $(GUEST_OBJS) $(GUEST_LDS)
	$(LD) $(GUEST_LDFLAGS) -T $(GUEST_LDS) -o $@ $(GUEST_OBJS)

$(GUEST_KSYMS): $(GUEST_PASS1) mk/guest-ksyms.awk
	nm -n --defined-only $< | awk -f mk/guest-ksyms.awk > $@

$(GUEST_OUT)/ksyms.o: $(GUEST_KSYMS)
	$(CC) $(GUEST_ASFLAGS) -c $< -o $@

$(GUEST_ELF): $(GUEST_OBJS) $(GUEST_OUT)/ksyms.o $(GUEST_LDS)
	$(LD) $(GUEST_LDFLAGS) -T $(GUEST_LDS) -Map=$(GUEST_OUT)/smpalt.map \
		-o $@ $(GUEST_OBJS) $(GUEST_OUT)/ksyms.o
	@nm -n $(GUEST_PASS1) | awk -f mk/guest-ksyms.awk > $(GUEST_OUT)/text1.sym
	@nm -n $@ | awk -f mk/guest-ksyms.awk > $(GUEST_OUT)/text2.sym
	@cmp -s $(GUEST_OUT)/text1.sym $(GUEST_OUT)/text2.sym || \
		{ echo "guest: text moved between the two links"; rm -f $@; exit 1; }

# Test build, never shipped as the guest: the workload's spinlock and
# counter stay in UP form while several vCPUs run (app/work_item.c,
# SMPALT_TEST_LOSTUPDATE), so that the counters check must find lost
# updates (tests/xen/lost-update.sh).  Every other object is the guest's
# own; its work_item.o and symbol table are its own.  scripts/mkinitramfs.sh
# ships it as /opt/smpalt/smpalt-lostupdate.elf when it lies beside the
# guest kernel.
GUEST_LU_ELF := $(BUILD)/smpalt-lostupdate.elf
GUEST_LU_OUT := $(GUEST_OUT)/lostupdate
GUEST_LU_OBJS := $(filter-out $(GUEST_OUT)/app/work_item.o,$(GUEST_OBJS)) \
	$(GUEST_LU_OUT)/work_item.o

all: $(GUEST_LU_ELF)

$(GUEST_LU_OUT)/work_item.o: app/work_item.c mk/guest.mk | $(GUEST_SYSINC)/xen
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CPPFLAGS) $(GUEST_CFLAGS) -DSMPALT_TEST_LOSTUPDATE \
		-c $< -o $@

$(GUEST_LU_OUT)/pass1.elf: $(GUEST_LU_OBJS) $(GUEST_LDS)
	$(LD) $(GUEST_LDFLAGS) -T $(GUEST_LDS) -o $@ $(GUEST_LU_OBJS)

$(GUEST_LU_OUT)/ksyms.S: $(GUEST_LU_OUT)/pass1.elf mk/guest-ksyms.awk
	nm -n --defined-only $< | awk -f mk/guest-ksyms.awk > $@

$(GUEST_LU_OUT)/ksyms.o: $(GUEST_LU_OUT)/ksyms.S
	$(CC) $(GUEST_ASFLAGS) -c $< -o $@

$(GUEST_LU_ELF): $(GUEST_LU_OBJS) $(GUEST_LU_OUT)/ksyms.o $(GUEST_LDS)
	$(LD) $(GUEST_LDFLAGS) -T $(GUEST_LDS) -o $@ $(GUEST_LU_OBJS) \
		$(GUEST_LU_OUT)/ksyms.o

-include $(GUEST_LU_OUT)/work_item.d

GUEST_READNOTES := $(firstword $(wildcard $(CACHE)/xen/usr/lib/xen-*/bin/readnotes))
guest-notes: $(GUEST_ELF)
	@if [ -z "$(GUEST_READNOTES)" ]; then \
		echo "readnotes not found: run make xen-fetch"; exit 1; fi
	LD_LIBRARY_PATH=$(CACHE)/xen/usr/lib/x86_64-linux-gnu:$(CACHE)/xen/usr/lib \
		$(GUEST_READNOTES) $(GUEST_ELF)

-include $(GUEST_OBJS:.o=.d)
