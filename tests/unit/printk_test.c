// SPDX-License-Identifier: MIT
/*
 * printk_test.c - the guest's printk (lib/printk.c), compiled for the
 * host: the line each level gives the console.  Error-level lines (KERN_ERR
 * and worse) start with PRINTK_ERROR_MARK, which dom0's harness reads as
 * the guest's verdict (docs/guest.md, "Log lines"); no other line does.
 * This file's pr_fmt is "test: ", as a guest file sets its own.
 */
#define pr_fmt(fmt) "test: " fmt

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* printk itself, so that each test starts it with its defaults. */
#include "../../lib/printk.c"

/* The console: the last whole message written, and how many. */
static char console[PRINTK_LINE_MAX + 1];
static unsigned int writes;

static void console_write(const char *s, size_t n)
{
	assert_true(n <= PRINTK_LINE_MAX);
	memcpy(console, s, n);
	console[n] = '\0';
	writes++;
}

static const struct printk_sink test_sink = {.write = console_write};

static int fresh_console(void **state)
{
	(void)state;
	printk_set_sink(&test_sink);
	printk_set_console_level(CONSOLE_LOGLEVEL_DEFAULT);
	console[0] = '\0';
	writes = 0;
	return 0;
}

static void an_error_line_starts_with_the_mark(void **state)
{
	(void)state;
	pr_err("step %s failed: %d\n", "up", -16);
	assert_string_equal(console,
			    "smpalt: ERROR test: step up failed: -16\n");
}

static void worse_than_error_is_marked_too(void **state)
{
	(void)state;
	pr_emerg("crashed\n");
	assert_string_equal(console, "smpalt: ERROR test: crashed\n");
	printk(KERN_CRIT "plain\n");
	assert_string_equal(console, "smpalt: ERROR plain\n");
}

static void a_warning_is_not_marked(void **state)
{
	(void)state;
	pr_warn("ignoring %s\n", "x");
	assert_string_equal(console, "test: ignoring x\n");
}

static void an_info_line_and_a_bare_printk_are_not_marked(void **state)
{
	(void)state;
	pr_info("ready\n");
	assert_string_equal(console, "test: ready\n");
	printk("smpalt kernel booting\n");
	assert_string_equal(console, "smpalt kernel booting\n");
}

/* A cut error line keeps its mark and still ends the line. */
static void a_long_error_line_keeps_its_mark(void **state)
{
	char arg[2 * PRINTK_LINE_MAX];
	size_t n;

	(void)state;
	memset(arg, 'x', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	pr_err("%s\n", arg);
	n = strlen(console);
	assert_int_equal(n, PRINTK_LINE_MAX - 1);
	assert_memory_equal(console, PRINTK_ERROR_MARK,
			    strlen(PRINTK_ERROR_MARK));
	assert_int_equal(console[n - 1], '\n');
}

static void an_error_above_the_console_level_is_dropped(void **state)
{
	(void)state;
	printk_set_console_level(LOGLEVEL_ERR - 1);
	pr_err("hidden\n");
	assert_int_equal(writes, 0);
	pr_emerg("shown\n");
	assert_int_equal(writes, 1);
	assert_string_equal(console, "smpalt: ERROR test: shown\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(an_error_line_starts_with_the_mark,
				       fresh_console),
		cmocka_unit_test_setup(worse_than_error_is_marked_too,
				       fresh_console),
		cmocka_unit_test_setup(a_warning_is_not_marked, fresh_console),
		cmocka_unit_test_setup(
			an_info_line_and_a_bare_printk_are_not_marked,
			fresh_console),
		cmocka_unit_test_setup(a_long_error_line_keeps_its_mark,
				       fresh_console),
		cmocka_unit_test_setup(
			an_error_above_the_console_level_is_dropped,
			fresh_console),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
