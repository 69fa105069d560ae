# Workload profiles: the parser and evaluator in
# kernel/profile.c, compiled for the host and tested with cmocka.
#
#   make test-profile     tests/unit/profile_test.c with gcc and clang;
#                         the last line is "N passed, N failed"
#   make test-profile-one the same with $(CC) only
#
# kernel/profile.c is pure (no library call), so the guest's own headers
# it includes (errno.h) are safe on the host through -iquote.

.PHONY: test-profile test-profile-one

PROFILE_OUT  := $(BUILD)/profile
PROFILE_TEST := $(PROFILE_OUT)/profile_test
PROFILE_SRCS := tests/unit/profile_test.c kernel/profile.c

$(PROFILE_TEST): $(PROFILE_SRCS) include/smpalt/profile.h mk/profile.mk
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ $(PROFILE_SRCS) -lcmocka

test-profile-one: $(PROFILE_TEST)
	@bash $(TOP)/scripts/run-cmocka.sh -l $(CC_NAME) $(PROFILE_TEST)

PROFILE_COMPILERS := gcc clang

test-profile:
	@pass=0; fail=0; \
	for c in $(PROFILE_COMPILERS); do \
		out=$$($(MAKE) --no-print-directory CC=$$c test-profile-one \
			2>&1); rc=$$?; \
		printf '%s\n' "$$out"; \
		line=$$(printf '%s\n' "$$out" | \
			sed -nE 's/^[a-z+-]+: ([0-9]+) passed, ([0-9]+) failed$$/\1 \2/p' | \
			tail -1); \
		p=$${line% *}; f=$${line#* }; p=$${p:-0}; f=$${f:-0}; \
		if [ "$$rc" -ne 0 ] && [ "$$f" -eq 0 ]; then \
			echo "$$c: build or run failed (exit $$rc)"; f=1; \
		fi; \
		pass=$$((pass + p)); fail=$$((fail + f)); \
	done; \
	echo "$$pass passed, $$fail failed"; \
	[ "$$fail" -eq 0 ]
