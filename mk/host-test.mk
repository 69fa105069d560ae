# Host tests: how a cmocka test program is built and how a group of them
# runs. Included by the top-level Makefile before the fragments that
# declare tests.
#
# A test is declared by its name, its sources and its libraries:
#
#   TEST_SRCS_<name>    its sources, its own file first
#   TEST_LIBS_<name>    libraries beyond -lcmocka (optional)
#   TEST_FLAGS_<name>   more compiler flags (optional)
#   $(call host_test,<name>)
#
# which gives two programs, each built straight from the sources:
#
#   build/<compiler>/test/<name>       HOST_CFLAGS
#   build/<compiler>/test/<name>-san   the same under ASan+UBSan (SAN_CFLAGS)
#
# Other prerequisites of one program are ordinary make lines,
# "$(TEST_OUT)/<name>-san: file", and so are flags for one of the two
# builds, "$(TEST_OUT)/<name>-san: TEST_FLAGS_<name> += ..." (mk/tools.mk,
# autoscale_tool_test). A group of tests becomes two targets:
#
#   $(call host_test_group,<target>,<name>...)
#   make <target>             run the group's programs
#   make <target>-sanitize    run their -san builds
#
# With CC= given (make CC=clang test-unit) a group runs under that
# compiler; otherwise under gcc, then clang, each in its own build folder
# (scripts/run/run-each-compiler.sh). Each run ends with "<compiler>: N
# passed, N failed" ("<compiler>-san: ..." for the -san builds;
# scripts/run/run-cmocka.sh); with both compilers the last line is the total,
# "N passed, N failed".

TEST_OUT      := $(BUILD)/test
# Every header a test may reach: a change to any of them rebuilds them all.
TEST_HDRS     := $(wildcard $(TOP)/include/smpalt/*.h $(TOP)/tests/unit/*.h \
	$(TOP)/tests/bench/*.h $(TOP)/tools/*.h) $(TOP)/mk/host-test.mk
HOST_TESTS    :=

# $(call HOST_TEST_BUILD,NAME,SUFFIX,CFLAGS)
define HOST_TEST_BUILD
$(TEST_OUT)/$(1)$(2): $(addprefix $(TOP)/,$(TEST_SRCS_$(1))) $(TEST_HDRS)
	@mkdir -p $$(@D)
	$$(call msg,CCLD,$$@)
	$$(Q)$$(CC) $(3) $$(TEST_FLAGS_$(1)) -o $$@ \
		$(addprefix $(TOP)/,$(TEST_SRCS_$(1))) -lcmocka $(TEST_LIBS_$(1))
endef

host_test = $(eval HOST_TESTS += $(1)) \
	$(eval $(call HOST_TEST_BUILD,$(1),,$$(HOST_CFLAGS))) \
	$(eval $(call HOST_TEST_BUILD,$(1),-san,$$(SAN_CFLAGS)))

# $(call HOST_TEST_GROUP,TARGET,NAMES)
ifeq ($(CC_GIVEN),)
define HOST_TEST_GROUP
.PHONY: $(1) $(1)-sanitize
$(1) $(1)-sanitize:
	+@MAKE='$$(MAKE)' bash $(TOP)/scripts/run/run-each-compiler.sh $$@
endef
else
define HOST_TEST_GROUP
.PHONY: $(1) $(1)-sanitize
$(1): $(addprefix $(TEST_OUT)/,$(2))
	@bash $(TOP)/scripts/run/run-cmocka.sh -l $(CC_NAME) \
		$(addprefix $(TEST_OUT)/,$(2))

$(1)-sanitize: $(addprefix $(TEST_OUT)/,$(addsuffix -san,$(2)))
	@bash $(TOP)/scripts/run/run-cmocka.sh -l $(CC_NAME)-san \
		$(addprefix $(TEST_OUT)/,$(addsuffix -san,$(2)))
endef
endif

host_test_group = $(eval $(call HOST_TEST_GROUP,$(1),$(2)))
