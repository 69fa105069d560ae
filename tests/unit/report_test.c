// SPDX-License-Identifier: MIT
/*
 * report_test.c - the guest's result reporter (lib/report.c), compiled for
 * the host.  Each test: the outcomes the parts report, then the exact
 * console lines report_print() gives (the harness's scenarios read the
 * "Test result:" one).  The console is this file's printk(): it keeps the
 * lines printed, without their level marker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* The reporter itself, so that each test starts it from nothing. */
#include "../../lib/report.c"

#define CONSOLE_LINES 8

static char console[CONSOLE_LINES][PRINTK_LINE_MAX];
static unsigned int console_lines;

int printk(const char *fmt, ...)
{
	char line[PRINTK_LINE_MAX];
	const char *text = line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (line[0] == KERN_SOH[0] && line[1])
		text += 2; /* the level marker is never printed */
	assert_true(console_lines < CONSOLE_LINES);
	snprintf(console[console_lines++], PRINTK_LINE_MAX, "%s", text);
	return n;
}

static int fresh_reporter(void **state)
{
	(void)state;
	memset(report_parts, 0, sizeof(report_parts));
	report_nparts = 0;
	report_unlisted = 0;
	report_worst_status = REPORT_NONE;
	report_printed = false;
	console_lines = 0;
	return 0;
}

static void no_report_prints_no_line(void **state)
{
	(void)state;
	report_print();
	assert_int_equal(report_worst(), REPORT_NONE);
	assert_int_equal(console_lines, 0);
}

static void one_success_is_the_line_with_its_reason(void **state)
{
	(void)state;
	report_success("%u checks passed", 42u);
	report_print();
	assert_int_equal(console_lines, 1);
	assert_string_equal(console[0],
			    "Test result: SUCCESS 42 checks passed\n");
}

static void an_error_after_a_success_wins_and_names_both(void **state)
{
	(void)state;
	report_success("%u checks passed", 42u);
	report_error("bench: switch failed: %d", -16);
	report_print();
	assert_int_equal(report_worst(), REPORT_ERROR);
	assert_int_equal(console_lines, 1);
	assert_string_equal(console[0], "Test result: ERROR bench: switch "
					"failed: -16 (SUCCESS 42 checks "
					"passed)\n");
}

static void a_success_after_an_error_does_not_hide_it(void **state)
{
	(void)state;
	report_error("bench: time_now_ns() did not advance");
	report_success("smp %u ns up %u ns per item", 2552u, 893u);
	report_print();
	assert_int_equal(console_lines, 1);
	assert_string_equal(console[0],
			    "Test result: ERROR bench: time_now_ns() did not "
			    "advance (SUCCESS smp 2552 ns up 893 ns per "
			    "item)\n");
}

static void failure_outweighs_error_skip_and_success(void **state)
{
	(void)state;
	report_skip("no second vCPU");
	report_failure("1 of 40 checks failed, first: %s", "up >= 1");
	report_error("clock");
	report_success("fine");
	report_print();
	assert_int_equal(report_worst(), REPORT_FAILURE);
	assert_string_equal(console[0],
			    "Test result: FAILURE 1 of 40 checks failed, "
			    "first: up >= 1 (SKIP no second vCPU; ERROR "
			    "clock; SUCCESS fine)\n");
}

static void skip_outweighs_success(void **state)
{
	(void)state;
	report_success("a");
	report_skip("b");
	report_print();
	assert_string_equal(console[0], "Test result: SKIP b (SUCCESS a)\n");
}

static void two_winners_give_both_reasons_in_order(void **state)
{
	(void)state;
	report_success("%u checks passed", 42u);
	report_success("smp %u ns up %u ns per item", 2552u, 893u);
	report_print();
	assert_string_equal(console[0],
			    "Test result: SUCCESS 42 checks passed; smp 2552 "
			    "ns up 893 ns per item\n");
}

static void an_empty_reason_leaves_the_status_alone(void **state)
{
	(void)state;
	report_success("%s", "");
	report_print();
	assert_string_equal(console[0], "Test result: SUCCESS\n");
}

static void the_line_is_printed_once(void **state)
{
	(void)state;
	report_success("first");
	report_print();
	report_print();
	assert_int_equal(console_lines, 1);
}

static void a_report_after_the_line_is_logged_not_a_second_line(void **state)
{
	(void)state;
	report_success("first");
	report_print();
	report_failure("late %d", 1);
	report_print();
	assert_int_equal(console_lines, 2);
	assert_string_equal(console[0], "Test result: SUCCESS first\n");
	assert_string_equal(console[1],
			    "report: FAILURE after the result line: late 1\n");
	assert_null(strstr(console[1], "Test result"));
	/* The verdict printed stands. */
	assert_int_equal(report_worst(), REPORT_SUCCESS);
}

static void parts_beyond_the_list_still_count(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < REPORT_PARTS_MAX + 2; i++)
		report_success("%u", i);
	report_error("last");
	report_print();
	assert_int_equal(report_worst(), REPORT_ERROR);
	assert_string_equal(console[0],
			    "Test result: ERROR (SUCCESS 0; SUCCESS 1; SUCCESS "
			    "2; SUCCESS 3; SUCCESS 4; SUCCESS 5; SUCCESS 6; "
			    "SUCCESS 7; 3 more not listed)\n");
}

static void a_long_line_is_cut_and_still_ends_the_line(void **state)
{
	char reason[REPORT_REASON_MAX * 2];
	unsigned int i;

	(void)state;
	memset(reason, 'x', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	for (i = 0; i < 3; i++)
		report_error("%s", reason);
	report_print();
	assert_int_equal(console_lines, 1);
	assert_int_equal(strlen(console[0]), PRINTK_LINE_MAX - 1);
	assert_int_equal(console[0][PRINTK_LINE_MAX - 2], '\n');
	assert_memory_equal(console[0], "Test result: ERROR xxx", 22);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(no_report_prints_no_line,
				       fresh_reporter),
		cmocka_unit_test_setup(one_success_is_the_line_with_its_reason,
				       fresh_reporter),
		cmocka_unit_test_setup(
			an_error_after_a_success_wins_and_names_both,
			fresh_reporter),
		cmocka_unit_test_setup(
			a_success_after_an_error_does_not_hide_it,
			fresh_reporter),
		cmocka_unit_test_setup(failure_outweighs_error_skip_and_success,
				       fresh_reporter),
		cmocka_unit_test_setup(skip_outweighs_success, fresh_reporter),
		cmocka_unit_test_setup(two_winners_give_both_reasons_in_order,
				       fresh_reporter),
		cmocka_unit_test_setup(an_empty_reason_leaves_the_status_alone,
				       fresh_reporter),
		cmocka_unit_test_setup(the_line_is_printed_once,
				       fresh_reporter),
		cmocka_unit_test_setup(
			a_report_after_the_line_is_logged_not_a_second_line,
			fresh_reporter),
		cmocka_unit_test_setup(parts_beyond_the_list_still_count,
				       fresh_reporter),
		cmocka_unit_test_setup(
			a_long_line_is_cut_and_still_ends_the_line,
			fresh_reporter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
