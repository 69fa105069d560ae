# dom0 tools. Included by the top-level
# Makefile, which defines CC, BUILD (build/<compiler>) and HOST_CFLAGS.
#
#   make tools                    $(BUILD)/tools/smpalt-autoscaler (part of
#                                 `make all`), linked against libxenstore,
#                                 libxenstat and (with its backend) libvirt
#   make test-tools               cmocka tests of the autoscaler policy,
#                                 built and run with gcc and with clang;
#                                 the last line is "N passed, N failed"
#   make test-tools-one           the same with $(CC) only
#   make test-tools-sanitize      the same under ASan+UBSan (binary and
#                                 tests), built into build/<cc>-sanitize/
#
# The autoscaler runs in dom0: scripts/mkinitramfs.sh copies it from
# $(AUTOSCALER) (given in the environment as AUTOSCALER) into the dom0
# initramfs at /usr/local/sbin/smpalt-autoscaler. Debian's libxenstore.so.4
# and libxenstat.so.4.17 there are the same version as the host's
# (libxen-dev).

.PHONY: tools test-tools test-tools-one test-tools-sanitize

# Our headers by -iquote only: include/ holds the guest's own xenstore.h,
# which must never hide libxenstore's <xenstore.h>.
TOOLS_CFLAGS := $(filter-out -I$(TOP)/include,$(HOST_CFLAGS)) \
	-iquote $(TOP)/tools -D_GNU_SOURCE
ifeq ($(TOOLS_SAN),1)
TOOLS_OUT    := $(TOP)/build/$(CC_NAME)-sanitize/tools
TOOLS_CFLAGS := $(filter-out -O2,$(TOOLS_CFLAGS)) -O1 \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
else
TOOLS_OUT    := $(BUILD)/tools
endif
AUTOSCALER   := $(TOOLS_OUT)/smpalt-autoscaler
TOOLS_LIBS   := -lxenstore -lxenstat
# The pure parts, each with its host test.
TOOLS_PURE   := tools/autoscale_policy.c tools/autoscale_signal.c \
	tools/autoscale_select.c tools/autoscale_format.c
TOOLS_POLICY := $(TOOLS_PURE) $(TOOLS_PURE:.c=.h) tools/scale_backend.h
# The program: the pure parts wrapped by the I/O, with its backends.
AUTOSCALER_SRCS := tools/autoscaler.c tools/backend_xl.c $(TOOLS_PURE)
# The libvirt backend, when its source is there (it needs libvirt-dev's
# headers; it loads libvirt.so.0 itself, only when --libvirt asks for it).
ifneq ($(wildcard $(TOP)/tools/backend_libvirt.c),)
AUTOSCALER_SRCS += tools/backend_libvirt.c
AUTOSCALER_DEFS := -DHAVE_LIBVIRT_BACKEND
endif
SMPALT_VERSION := $(shell git -C $(TOP) describe --always --dirty 2>/dev/null \
	|| echo unknown)

TOOLS_TESTS  := autoscale_policy_test autoscale_signal_test \
	autoscale_select_test autoscale_format_test autoscale_tool_test
TOOLS_SRCS_autoscale_policy_test := tests/unit/autoscale_policy_test.c \
	tools/autoscale_policy.c
TOOLS_SRCS_autoscale_signal_test := tests/unit/autoscale_signal_test.c \
	tools/autoscale_signal.c
TOOLS_SRCS_autoscale_select_test := tests/unit/autoscale_select_test.c \
	tools/autoscale_select.c
TOOLS_SRCS_autoscale_format_test := tests/unit/autoscale_format_test.c \
	tools/autoscale_format.c
# The libvirt backend against libvirt's in-library test driver (no daemon).
ifneq ($(wildcard $(TOP)/tools/backend_libvirt.c),)
TOOLS_TESTS  += backend_libvirt_test
TOOLS_SRCS_backend_libvirt_test := tests/unit/backend_libvirt_test.c \
	tools/backend_libvirt.c
TOOLS_LIBS_backend_libvirt_test := -lvirt
endif
# End to end: the real binary against an in-memory xenstore the test serves.
TOOLS_SRCS_autoscale_tool_test := tests/unit/autoscale_tool_test.c
TOOLS_DEPS_autoscale_tool_test := $(AUTOSCALER)
TOOLS_FLAGS_autoscale_tool_test := -DAUTOSCALER_BIN='"$(AUTOSCALER)"' -pthread
TOOLS_LIBS_autoscale_tool_test := -lxenstore

tools: $(AUTOSCALER)
all: $(AUTOSCALER)

$(AUTOSCALER): $(AUTOSCALER_SRCS) $(TOOLS_POLICY) mk/tools.mk
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(AUTOSCALER_DEFS) \
		-DSMPALT_VERSION='"$(SMPALT_VERSION)"' -o $@ \
		$(AUTOSCALER_SRCS) $(TOOLS_LIBS)

TOOLS_TEST_BINS := $(addprefix $(TOOLS_OUT)/,$(TOOLS_TESTS))

define TOOLS_TEST_RULE
$(TOOLS_OUT)/$(1): $(TOOLS_SRCS_$(1)) $(TOOLS_POLICY) $(TOOLS_DEPS_$(1)) \
		mk/tools.mk
	@mkdir -p $$(@D)
	$$(CC) $$(TOOLS_CFLAGS) $(TOOLS_FLAGS_$(1)) -o $$@ $(TOOLS_SRCS_$(1)) \
		-lcmocka $(TOOLS_LIBS_$(1))
endef
$(foreach t,$(TOOLS_TESTS),$(eval $(call TOOLS_TEST_RULE,$(t))))

# Run the programs in $(TOOLS_TEST_BINS) and add up cmocka's counts; the
# line is prefixed with the compiler for test-tools to pick up.
test-tools-one: $(TOOLS_TEST_BINS)
	@bash $(TOP)/scripts/run-cmocka.sh -l $(CC_NAME) $(TOOLS_TEST_BINS)

test-tools-sanitize:
	@$(MAKE) --no-print-directory TOOLS_SAN=1 tools test-tools-one

# Both compilers, each into its own build folder; the autoscaler itself is
# built too, so that both compilers see it warning-free.
TOOLS_COMPILERS := gcc clang

test-tools:
	@pass=0; fail=0; \
	for c in $(TOOLS_COMPILERS); do \
		out=$$($(MAKE) --no-print-directory CC=$$c tools \
			test-tools-one 2>&1); rc=$$?; \
		printf '%s\n' "$$out"; \
		line=$$(printf '%s\n' "$$out" | \
			sed -nE 's/^[a-z+-]+: ([0-9]+ passed, [0-9]+ failed)$$/\1/p' | \
			tail -1); \
		p=$$(printf '%s' "$$line" | sed -nE 's/^([0-9]+) passed.*/\1/p'); \
		f=$$(printf '%s' "$$line" | sed -nE 's/.* ([0-9]+) failed/\1/p'); \
		p=$${p:-0}; f=$${f:-0}; \
		if [ "$$rc" -ne 0 ] && [ "$$f" -eq 0 ]; then \
			echo "$$c: build or run failed (exit $$rc)"; f=1; \
		fi; \
		pass=$$((pass + p)); fail=$$((fail + f)); \
	done; \
	echo "$$pass passed, $$fail failed"; \
	[ "$$fail" -eq 0 ]

# The dom0 initramfs carries the autoscaler (scripts/mkinitramfs.sh takes
# AUTOSCALER from the environment): build it before any Xen run.
export AUTOSCALER
test-xen demo-xen dom0-initrd: $(AUTOSCALER)
