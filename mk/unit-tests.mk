# Unit tests of the guest kernel's code, run on the host (cmocka; how they
# are built and run: mk/host-test.mk).
#
#   make test-unit            every one of them, gcc then clang (CC=clang
#                             runs one compiler); the last line is
#                             "N passed, N failed"
#   make test-unit-sanitize   the same under ASan+UBSan
#   make test-profile         the workload profiles' alone
#                             (test-profile-sanitize likewise)
#
# The programs, in build/<compiler>/test/:
#   alt_test        the alternatives engine (arch-xen/alt_core.c,
#                   alt_insn.c) rewriting this host program's own text,
#                   laid out by tests/unit/host.ld as the guest's
#   xenstore_test   the xenstore client (drivers/xenstore.c) against a
#                   xenstored served from inside the test
#   hotplug_test    the vCPU hotplug planner (kernel/hotplug.c)
#   profile_test    the workload profiles' parser and evaluator
#                   (app/profile.c)
#   report_test     the guest's result line (lib/report.c)
#   clock_test      a clock's step and whether it runs (lib/clock.c),
#                   against a model of Xen's emulated TSC
#   watch_test      the table of xenstore watches (kernel/watch.c)
#   printk_test     the error mark of error-level lines (lib/printk.c)

ENG_DIR      := $(TOP)/tests/unit
ENG_HOST_LD  := $(ENG_DIR)/host.ld
ENG_CORE     := arch-xen/alt_core.c arch-xen/alt_insn.c

TEST_SRCS_alt_test := tests/unit/test_main.c $(ENG_CORE) \
	tests/unit/alt_host.c tests/unit/workload.c \
	tests/unit/test_insn.c tests/unit/test_padding.c \
	tests/unit/test_refuse.c tests/unit/test_switch.c \
	tests/unit/test_features.c tests/unit/test_primitives.c
TEST_FLAGS_alt_test := -pthread -Wl,-T,$(ENG_HOST_LD)
$(call host_test,alt_test)
$(TEST_OUT)/alt_test $(TEST_OUT)/alt_test-san: $(ENG_HOST_LD)

TEST_SRCS_xenstore_test := tests/unit/xenstore_test.c drivers/xenstore.c
TEST_FLAGS_xenstore_test := \
	-D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__
$(call host_test,xenstore_test)

TEST_SRCS_hotplug_test := tests/unit/hotplug_test.c kernel/hotplug.c
$(call host_test,hotplug_test)

TEST_SRCS_profile_test := tests/unit/profile_test.c app/profile.c
$(call host_test,profile_test)

# The test includes lib/report.c itself (each test starts from a fresh
# reporter) and is its console: it defines the printk() the reporter calls.
TEST_SRCS_report_test := tests/unit/report_test.c
$(call host_test,report_test)
$(TEST_OUT)/report_test $(TEST_OUT)/report_test-san: lib/report.c

TEST_SRCS_clock_test := tests/unit/clock_test.c lib/clock.c
$(call host_test,clock_test)

# Each includes the file it tests (fresh state per test): it defines the
# functions that file calls (xenstore_watch, printk, a console sink).
TEST_SRCS_watch_test := tests/unit/watch_test.c
TEST_FLAGS_watch_test := \
	-D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__
$(call host_test,watch_test)
$(TEST_OUT)/watch_test $(TEST_OUT)/watch_test-san: kernel/watch.c

TEST_SRCS_printk_test := tests/unit/printk_test.c
$(call host_test,printk_test)
$(TEST_OUT)/printk_test $(TEST_OUT)/printk_test-san: lib/printk.c

UNIT_TESTS := alt_test xenstore_test hotplug_test profile_test report_test \
	clock_test watch_test printk_test
$(call host_test_group,test-unit,$(UNIT_TESTS))
$(call host_test_group,test-profile,profile_test)

# The site checker and the decoder's cross-check read the engine's test
# program: the one built with $(CC).
ENG_TEST := $(TEST_OUT)/alt_test
