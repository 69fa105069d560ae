# The guest's result reporter, lib/report.c, compiled for the host and
# tested with cmocka.
#
#   make test-report      tests/unit/report_test.c with gcc and clang;
#                         the last line is "N passed, N failed"
#   make test-report-one  the same with $(CC) only
#
# The test includes lib/report.c itself (to start each test from a fresh
# reporter) and is its console: it defines the printk() the reporter calls.

.PHONY: test-report test-report-one

REPORT_OUT  := $(BUILD)/report
REPORT_TEST := $(REPORT_OUT)/report_test

$(REPORT_TEST): tests/unit/report_test.c lib/report.c include/smpalt/report.h \
		include/smpalt/printk.h mk/report.mk
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ tests/unit/report_test.c -lcmocka

test-report-one: $(REPORT_TEST)
	@bash $(TOP)/scripts/run-cmocka.sh -l $(CC_NAME) $(REPORT_TEST)

REPORT_COMPILERS := gcc clang

test-report:
	@pass=0; fail=0; \
	for c in $(REPORT_COMPILERS); do \
		out=$$($(MAKE) --no-print-directory CC=$$c test-report-one \
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
