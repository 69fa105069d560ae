# dom0 tools. Included by the top-level
# Makefile, which defines CC, BUILD (build/<compiler>) and HOST_CFLAGS.
#
#   make tools                    $(BUILD)/tools/smpalt-autoscaler (part of
#                                 `make all`), linked against libxenstore,
#                                 libxenstat and (with its backend) libvirt
#   make test-tools               cmocka tests of the autoscaler's pure
#                                 parts, its libvirt backend and the
#                                 program end to end, gcc then clang
#                                 (CC= runs one); the last line is
#                                 "N passed, N failed" (mk/host-test.mk)
#   make test-tools-sanitize      the same under ASan+UBSan (the program
#                                 too: build/<cc>/tools/smpalt-autoscaler-san)
#
# The autoscaler runs in dom0: scripts/build/mkinitramfs.sh copies it from
# $(AUTOSCALER) (given in the environment as AUTOSCALER) into the dom0
# initramfs at /usr/local/sbin/smpalt-autoscaler. Debian's libxenstore.so.4
# and libxenstat.so.4.17 there are the same version as the host's
# (libxen-dev).

.PHONY: tools

TOOLS_CFLAGS := -iquote $(TOP)/tools -D_GNU_SOURCE
TOOLS_OUT    := $(BUILD)/tools
AUTOSCALER   := $(TOOLS_OUT)/smpalt-autoscaler
# The program under ASan+UBSan, for the end-to-end test's -san build.
AUTOSCALER_SAN := $(TOOLS_OUT)/smpalt-autoscaler-san
# The pure parts, each with its host test.
TOOLS_PURE   := tools/autoscale_policy.c tools/autoscale_signal.c \
	tools/autoscale_select.c tools/autoscale_format.c \
	tools/autoscale_ratelimit.c
# The program: the pure parts wrapped by the I/O, with its backends.
AUTOSCALER_SRCS := tools/autoscaler.c tools/autoscale_cli.c \
	tools/autoscale_domains.c tools/autoscale_change.c tools/autoscale_xen.c \
	tools/autoscale_xs.c tools/autoscale_log.c tools/backend_xl.c $(TOOLS_PURE)
AUTOSCALER_LIBS := -lxenstore -lxenstat
# The libvirt backend, when its source is there (it needs libvirt-dev's
# headers; it loads libvirt.so.0 itself, only when --libvirt asks for it).
ifneq ($(wildcard $(TOP)/tools/backend_libvirt.c),)
AUTOSCALER_SRCS += tools/backend_libvirt.c
AUTOSCALER_DEFS := -DHAVE_LIBVIRT_BACKEND
endif
# The version --version prints: debian/changelog's (the release), with
# `git describe` added in a git checkout of its own (a copy unpacked below
# another checkout, as the package test builds, is not one). A packager
# may give SMPALT_VERSION= itself (debian/rules does).
# Its first line: "smpalt (VERSION) DISTRIBUTION; urgency=...".
SMPALT_LP := (
SMPALT_RP := )
SMPALT_RELEASE := $(subst $(SMPALT_LP),,$(subst $(SMPALT_RP),,$(word 2,$(shell \
	head -n 1 $(TOP)/debian/changelog 2>/dev/null))))
SMPALT_GIT := $(if $(wildcard $(TOP)/.git),$(shell \
	git -C $(TOP) describe --always --dirty 2>/dev/null))
SMPALT_VERSION ?= $(or $(SMPALT_RELEASE),unknown)$(if $(SMPALT_GIT), (git $(SMPALT_GIT)))

tools: $(AUTOSCALER)
all: $(AUTOSCALER)

# $(call AUTOSCALER_BUILD,CFLAGS[,PACKAGER FLAGS])
define AUTOSCALER_BUILD
	@mkdir -p $(@D)
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(1) $(TOOLS_CFLAGS) $(AUTOSCALER_DEFS) \
		-DSMPALT_VERSION='"$(SMPALT_VERSION)"' $(2) -o $@ \
		$(addprefix $(TOP)/,$(AUTOSCALER_SRCS) $(TOOLS_DAEMON)) \
		$(AUTOSCALER_LIBS) $(TOOLS_DAEMON_LIBS)
endef
# The installed program takes a packager's CPPFLAGS, CFLAGS and LDFLAGS
# (dpkg-buildflags: stack protector, _FORTIFY_SOURCE, relro, BIND_NOW)
# after the project's own, whose -Werror stays (what -fcf-protection
# does on bookworm: debian/rules). The guest kernel never takes them
# (freestanding: mk/guest.mk), nor the tests' builds.
AUTOSCALER_PKG_FLAGS = $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)
AUTOSCALER_DEPS := $(addprefix $(TOP)/,$(AUTOSCALER_SRCS)) $(TEST_HDRS) \
	$(TOP)/mk/tools.mk

$(AUTOSCALER): $(AUTOSCALER_DEPS)
	$(call AUTOSCALER_BUILD,$(HOST_CFLAGS),$(AUTOSCALER_PKG_FLAGS))

$(AUTOSCALER_SAN): $(AUTOSCALER_DEPS)
	$(call AUTOSCALER_BUILD,$(SAN_CFLAGS))

# Host tests (mk/host-test.mk), in build/<compiler>/test/.
TEST_SRCS_autoscale_policy_test := tests/unit/autoscale_policy_test.c \
	tools/autoscale_policy.c
TEST_SRCS_autoscale_signal_test := tests/unit/autoscale_signal_test.c \
	tools/autoscale_signal.c
TEST_SRCS_autoscale_select_test := tests/unit/autoscale_select_test.c \
	tools/autoscale_select.c
TEST_SRCS_autoscale_format_test := tests/unit/autoscale_format_test.c \
	tools/autoscale_format.c
TEST_SRCS_autoscale_ratelimit_test := tests/unit/autoscale_ratelimit_test.c \
	tools/autoscale_ratelimit.c
TOOLS_TESTS := autoscale_policy_test autoscale_signal_test \
	autoscale_select_test autoscale_format_test autoscale_ratelimit_test
# The daemon's configuration file and its output, each with its test:
# TOOLS_DAEMON with TOOLS_DAEMON_LIBS is what the program links for them.
TOOLS_DAEMON := tools/autoscale_text.c tools/autoscale_config.c \
	tools/autoscale_settings.c tools/autoscale_glob.c
TOOLS_DAEMON_LIBS := -linih
# The configuration file (inih), resolved per domain.
TEST_SRCS_autoscale_config_test := tests/unit/autoscale_config_test.c \
	tools/autoscale_config.c tools/autoscale_settings.c \
	tools/autoscale_glob.c tools/autoscale_signal.c
TEST_LIBS_autoscale_config_test := -linih
TEST_FLAGS_autoscale_config_test := \
	-DEXAMPLE_CONF='"$(TOP)/dist/autoscaler.conf"'
TOOLS_TESTS += autoscale_config_test
# One table of settings: the command line (the program) and the file
# accept the same values.
TEST_SRCS_autoscale_settings_test := tests/unit/autoscale_settings_test.c \
	tools/autoscale_config.c tools/autoscale_settings.c \
	tools/autoscale_glob.c tools/autoscale_signal.c
TEST_LIBS_autoscale_settings_test := -linih
TOOLS_TESTS += autoscale_settings_test
# Xen's accounting against a libxenstat of the test's own.
TEST_SRCS_autoscale_xen_test := tests/unit/autoscale_xen_test.c \
	tools/autoscale_xen.c tools/autoscale_signal.c
TOOLS_TESTS += autoscale_xen_test
# The CSV, escaped and safe to open.
TOOLS_DAEMON += tools/autoscale_csv.c
TEST_SRCS_autoscale_csv_test := tests/unit/autoscale_csv_test.c \
	tools/autoscale_csv.c tools/autoscale_text.c
TOOLS_TESTS += autoscale_csv_test
# Prometheus metrics: the text (checked by promtool) and the textfile.
TOOLS_DAEMON += tools/autoscale_metrics.c
TEST_SRCS_autoscale_metrics_test := tests/unit/autoscale_metrics_test.c \
	tools/autoscale_metrics.c tools/autoscale_text.c
TOOLS_TESTS += autoscale_metrics_test
# Log lines: the journal with fields, or plain lines.
TOOLS_DAEMON += tools/autoscale_journal.c
TOOLS_DAEMON_LIBS += -lsystemd
TEST_SRCS_autoscale_journal_test := tests/unit/autoscale_journal_test.c \
	tools/autoscale_journal.c tools/autoscale_text.c
TEST_LIBS_autoscale_journal_test := -lsystemd
TOOLS_TESTS += autoscale_journal_test
# The program links them all.
$(AUTOSCALER) $(AUTOSCALER_SAN): $(addprefix $(TOP)/,$(TOOLS_DAEMON))

# The libvirt backend against libvirt's in-library test driver (no daemon).
ifneq ($(wildcard $(TOP)/tools/backend_libvirt.c),)
TEST_SRCS_backend_libvirt_test := tests/unit/backend_libvirt_test.c \
	tools/backend_libvirt.c
TEST_LIBS_backend_libvirt_test := -lvirt
TOOLS_TESTS += backend_libvirt_test
endif
# End to end: the real program (its -san build for the test's) against an
# in-memory xenstore the test serves.
TEST_SRCS_autoscale_tool_test := tests/unit/autoscale_tool_test.c
TEST_LIBS_autoscale_tool_test := -lxenstore
TEST_FLAGS_autoscale_tool_test := -pthread
TOOLS_TESTS += autoscale_tool_test

$(foreach t,$(TOOLS_TESTS),$(eval TEST_FLAGS_$(t) += $(TOOLS_CFLAGS)))
$(foreach t,$(TOOLS_TESTS),$(call host_test,$(t)))

$(TEST_OUT)/autoscale_tool_test: $(AUTOSCALER)
$(TEST_OUT)/autoscale_tool_test: TEST_FLAGS_autoscale_tool_test += \
	-DAUTOSCALER_BIN='"$(AUTOSCALER)"'
$(TEST_OUT)/autoscale_tool_test-san: $(AUTOSCALER_SAN)
$(TEST_OUT)/autoscale_tool_test-san: TEST_FLAGS_autoscale_tool_test += \
	-DAUTOSCALER_BIN='"$(AUTOSCALER_SAN)"'
$(TEST_OUT)/autoscale_settings_test: $(AUTOSCALER)
$(TEST_OUT)/autoscale_settings_test: TEST_FLAGS_autoscale_settings_test += \
	-DAUTOSCALER_BIN='"$(AUTOSCALER)"'
$(TEST_OUT)/autoscale_settings_test-san: $(AUTOSCALER_SAN)
$(TEST_OUT)/autoscale_settings_test-san: \
	TEST_FLAGS_autoscale_settings_test += \
	-DAUTOSCALER_BIN='"$(AUTOSCALER_SAN)"'

# promtool, unpacked from Debian's prometheus package into the cache
# (scripts/build/fetch-promtool.sh): the metrics test runs it by its path.
PROMTOOL := $(CACHE)/promtool/root/usr/bin/promtool
$(PROMTOOL):
	@bash $(TOP)/scripts/build/fetch-promtool.sh
$(TEST_OUT)/autoscale_metrics_test $(TEST_OUT)/autoscale_metrics_test-san: \
	TEST_FLAGS_autoscale_metrics_test += -DPROMTOOL_BIN='"$(PROMTOOL)"'
$(TEST_OUT)/autoscale_metrics_test $(TEST_OUT)/autoscale_metrics_test-san: \
	| $(PROMTOOL)
# The program's metrics file too.
$(TEST_OUT)/autoscale_tool_test $(TEST_OUT)/autoscale_tool_test-san: \
	TEST_FLAGS_autoscale_tool_test += -DPROMTOOL_BIN='"$(PROMTOOL)"'
$(TEST_OUT)/autoscale_tool_test $(TEST_OUT)/autoscale_tool_test-san: \
	| $(PROMTOOL)

$(call host_test_group,test-tools,$(TOOLS_TESTS))

# The dom0 initramfs carries the autoscaler (scripts/build/mkinitramfs.sh takes
# AUTOSCALER from the environment).
export AUTOSCALER
