# Xenstore client and vCPU hotplug logic: host tests. Included by the
# top-level Makefile, which defines CC, BUILD (build/<compiler>) and
# HOST_CFLAGS.
#
#   make test-xs                 build the cmocka tests into $(BUILD)/tests/
#                                and run them (CC=gcc or CC=clang)
#   make test-xs-sanitize        the same under ASan+UBSan, built into
#                                $(BUILD)/tests-san/
#
# Each prints cmocka's report per test program, then one line
# "N passed, N failed" over all of them; the exit status is non-zero on
# any failure (a program that fails without a count counts as one).

.PHONY: test-xs test-xs-sanitize

XS_TESTS      := xs_client_test hotplug_test
# include/ holds the guest's own string.h and errno.h: on the host they must
# not shadow the C library's, so our headers are reached with -iquote only.
XS_CFLAGS     := $(filter-out -I$(TOP)/include,$(HOST_CFLAGS)) \
	-I$(TOP)/include \
	-D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__
XS_SAN_CFLAGS := $(filter-out -O2,$(XS_CFLAGS)) -O1 \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
XS_LIBS       := -lcmocka

XS_SRCS_xs_client_test := tests/unit/xs_client_test.c drivers/xenstore.c
XS_HDRS_xs_client_test := include/smpalt/xenstore.h
XS_SRCS_hotplug_test   := tests/unit/hotplug_test.c kernel/hotplug.c
XS_HDRS_hotplug_test   := include/smpalt/hotplug.h

XS_BINS     := $(addprefix $(BUILD)/tests/,$(XS_TESTS))
XS_SAN_BINS := $(addprefix $(BUILD)/tests-san/,$(XS_TESTS))

# One link rule per test program and flavour: sources straight to binary.
define XS_TEST_RULES
$(BUILD)/tests/$(1): $(XS_SRCS_$(1)) $(XS_HDRS_$(1)) mk/xs.mk
	@mkdir -p $$(@D)
	$$(CC) $$(XS_CFLAGS) -o $$@ $(XS_SRCS_$(1)) $$(XS_LIBS)

$(BUILD)/tests-san/$(1): $(XS_SRCS_$(1)) $(XS_HDRS_$(1)) mk/xs.mk
	@mkdir -p $$(@D)
	$$(CC) $$(XS_SAN_CFLAGS) -o $$@ $(XS_SRCS_$(1)) $$(XS_LIBS)
endef
$(foreach t,$(XS_TESTS),$(eval $(call XS_TEST_RULES,$(t))))


test-xs: $(XS_BINS)
	@bash $(TOP)/scripts/run-cmocka.sh $(XS_BINS)

test-xs-sanitize: $(XS_SAN_BINS)
	@bash $(TOP)/scripts/run-cmocka.sh $(XS_SAN_BINS)
