// SPDX-License-Identifier: MIT
/*
 * watch_test.c - the guest's table of xenstore watches (kernel/watch.c),
 * compiled for the host.  This file is xenstored (xenstore_watch() records
 * each subscription) and the console (printk() keeps the last line); the
 * handlers record every call.  Each test: the entries added, the events
 * handed to the table, and exactly which handlers ran with which path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* The table itself, so that each test starts it empty. */
#include "../../kernel/watch.c"

#define CALLS_MAX 32
#define TEXT_MAX 64

/* xenstore_watch(): what was subscribed, and what the next call returns. */
static char subscribed[WATCH_MAX + 1][2][TEXT_MAX];
static unsigned int nr_subscribed;
static int subscribe_rc;

int xenstore_watch(const char *path, const char *token)
{
	if (subscribe_rc)
		return subscribe_rc;
	assert_true(nr_subscribed <= WATCH_MAX);
	snprintf(subscribed[nr_subscribed][0], TEXT_MAX, "%s", path);
	snprintf(subscribed[nr_subscribed][1], TEXT_MAX, "%s", token);
	nr_subscribed++;
	return 0;
}

static char console[PRINTK_LINE_MAX];

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(console, sizeof(console), fmt, ap);
	va_end(ap);
	return n;
}

/* Every handler call, in order: which handler, with which path. */
static struct {
	char who;
	char path[TEXT_MAX]; /* "(null)" for NULL */
} calls[CALLS_MAX];
static unsigned int nr_calls;

static void record(char who, const char *path)
{
	assert_true(nr_calls < CALLS_MAX);
	calls[nr_calls].who = who;
	snprintf(calls[nr_calls].path, TEXT_MAX, "%s", path ? path : "(null)");
	nr_calls++;
}

static void handle_a(const char *path)
{
	record('a', path);
}

static void handle_b(const char *path)
{
	record('b', path);
}

static void handle_c(const char *path)
{
	record('c', path);
}

static const struct watch cpu_a = {.path = "cpu", .handle = handle_a};
static const struct watch control_b = {.path = "control/smpalt",
				       .handle = handle_b};
static const struct watch control_c = {.path = "control/smpalt",
				       .handle = handle_c};

static int empty_table(void **state)
{
	(void)state;
	memset(watch_table, 0, sizeof(watch_table));
	watch_count = 0;
	nr_subscribed = 0;
	subscribe_rc = 0;
	nr_calls = 0;
	console[0] = '\0';
	return 0;
}

static void assert_call(unsigned int i, char who, const char *path)
{
	assert_true(i < nr_calls);
	assert_int_equal(calls[i].who, who);
	assert_string_equal(calls[i].path, path);
}

static void add_three(void)
{
	assert_int_equal(watch_add(&cpu_a), 0);
	assert_int_equal(watch_add(&control_b), 0);
	assert_int_equal(watch_add(&control_c), 0);
}

static void each_path_is_watched_once_with_itself_as_token(void **state)
{
	(void)state;
	add_three();
	assert_int_equal(nr_subscribed, 2);
	assert_string_equal(subscribed[0][0], "cpu");
	assert_string_equal(subscribed[0][1], "cpu");
	assert_string_equal(subscribed[1][0], "control/smpalt");
	assert_string_equal(subscribed[1][1], "control/smpalt");
}

static void an_event_calls_every_handler_of_its_token_in_order(void **state)
{
	(void)state;
	add_three();
	assert_int_equal(
		watch_dispatch("control/smpalt/demand", "control/smpalt"), 2);
	assert_int_equal(nr_calls, 2);
	assert_call(0, 'b', "control/smpalt/demand");
	assert_call(1, 'c', "control/smpalt/demand");
}

static void an_event_calls_no_handler_of_another_token(void **state)
{
	(void)state;
	add_three();
	assert_int_equal(watch_dispatch("cpu/1/availability", "cpu"), 1);
	assert_int_equal(nr_calls, 1);
	assert_call(0, 'a', "cpu/1/availability");
}

static void an_unknown_token_calls_nothing_and_is_logged(void **state)
{
	(void)state;
	add_three();
	assert_int_equal(watch_dispatch("device/vbd", "device"), 0);
	assert_int_equal(nr_calls, 0);
	assert_string_equal(
		console, KERN_WARNING
		"watch: event device/vbd with unknown token device\n");
}

/* The path after lost events: every entry, each once, path NULL. */
static void reread_all_calls_every_registered_handler_once(void **state)
{
	(void)state;
	add_three();
	assert_int_equal(watch_reread_all(), 3);
	assert_int_equal(nr_calls, 3);
	assert_call(0, 'a', "(null)");
	assert_call(1, 'b', "(null)");
	assert_call(2, 'c', "(null)");
}

/* Both paths read the same entries: whatever dispatch reaches, reread
 * reaches too. */
static void reread_all_reaches_every_handler_dispatch_reaches(void **state)
{
	char by_dispatch[CALLS_MAX + 1] = "", by_reread[CALLS_MAX + 1] = "";
	unsigned int i;

	(void)state;
	add_three();
	watch_dispatch("cpu", "cpu");
	watch_dispatch("control/smpalt", "control/smpalt");
	for (i = 0; i < nr_calls; i++)
		by_dispatch[i] = calls[i].who;
	nr_calls = 0;
	watch_reread_all();
	for (i = 0; i < nr_calls; i++)
		by_reread[i] = calls[i].who;
	assert_string_equal(by_reread, by_dispatch);
	assert_string_equal(by_reread, "abc");
}

static void a_failed_subscription_adds_nothing(void **state)
{
	(void)state;
	subscribe_rc = -EIO;
	assert_int_equal(watch_add(&cpu_a), -EIO);
	subscribe_rc = 0;
	assert_int_equal(watch_reread_all(), 0);
	assert_int_equal(watch_dispatch("cpu", "cpu"), 0);
	assert_int_equal(nr_calls, 0);
}

static void bad_entries_are_refused(void **state)
{
	static const struct watch no_handler = {.path = "cpu"};
	static const struct watch no_path = {.handle = handle_a};
	static const struct watch empty_path = {.path = "", .handle = handle_a};
	static const struct watch long_path = {
		.path = "control/smpalt/a-path-of-32-char", .handle = handle_a};

	(void)state;
	assert_int_equal(watch_add(NULL), -EINVAL);
	assert_int_equal(watch_add(&no_handler), -EINVAL);
	assert_int_equal(watch_add(&no_path), -EINVAL);
	assert_int_equal(watch_add(&empty_path), -EINVAL);
	assert_int_equal(strlen(long_path.path), WATCH_PATH_MAX);
	assert_int_equal(watch_add(&long_path), -ENAMETOOLONG);
	assert_int_equal(nr_subscribed, 0);
	assert_int_equal(watch_reread_all(), 0);
}

static void a_full_table_refuses_one_more(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < WATCH_MAX; i++)
		assert_int_equal(watch_add(&control_b), 0);
	assert_int_equal(watch_add(&control_c), -ENOSPC);
	assert_int_equal(nr_subscribed, 1);
	assert_int_equal(watch_reread_all(), WATCH_MAX);
	for (i = 0; i < nr_calls; i++)
		assert_int_equal(calls[i].who, 'b');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(
			each_path_is_watched_once_with_itself_as_token,
			empty_table),
		cmocka_unit_test_setup(
			an_event_calls_every_handler_of_its_token_in_order,
			empty_table),
		cmocka_unit_test_setup(
			an_event_calls_no_handler_of_another_token,
			empty_table),
		cmocka_unit_test_setup(
			an_unknown_token_calls_nothing_and_is_logged,
			empty_table),
		cmocka_unit_test_setup(
			reread_all_calls_every_registered_handler_once,
			empty_table),
		cmocka_unit_test_setup(
			reread_all_reaches_every_handler_dispatch_reaches,
			empty_table),
		cmocka_unit_test_setup(a_failed_subscription_adds_nothing,
				       empty_table),
		cmocka_unit_test_setup(bad_entries_are_refused, empty_table),
		cmocka_unit_test_setup(a_full_table_refuses_one_more,
				       empty_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
