// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's log limit (tools/autoscale_ratelimit.c):
 * a burst of lines per interval, per domain and per reason, and the count
 * of the lines left out on the first line logged after them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "autoscale_ratelimit.h"

/* An arbitrary start, far from 0 and from 2^64. */
#define T0 1000000ULL
#define NEVER_SET 12345ULL

/* Calls at now_ms until one is refused: how many were allowed. */
static unsigned int allow_until_refused(struct as_ratelimit *rl,
					unsigned int reason, uint64_t now_ms)
{
	unsigned long long suppressed = NEVER_SET;
	unsigned int n = 0;

	while (n <= AS_RATELIMIT_BURST &&
	       as_ratelimit_allow(rl, reason, now_ms, &suppressed))
		n++;
	return n;
}

static void burst_is_logged_then_lines_are_suppressed(void **state)
{
	struct as_ratelimit rl = {0};
	unsigned long long suppressed = NEVER_SET;
	unsigned int i;

	(void)state;
	for (i = 0; i < AS_RATELIMIT_BURST; i++) {
		assert_true(as_ratelimit_allow(&rl, AS_RL_CAPPED, T0 + i,
					       &suppressed));
		assert_int_equal(suppressed, 0);
	}
	/* The rest of the interval: refused, *suppressed untouched. */
	suppressed = NEVER_SET;
	assert_false(
		as_ratelimit_allow(&rl, AS_RL_CAPPED, T0 + 10, &suppressed));
	assert_false(as_ratelimit_allow(&rl, AS_RL_CAPPED,
					T0 + AS_RATELIMIT_INTERVAL_MS - 1,
					&suppressed));
	assert_int_equal(suppressed, NEVER_SET);
}

static void first_line_after_the_interval_reports_the_count(void **state)
{
	struct as_ratelimit rl = {0};
	unsigned long long suppressed = NEVER_SET;
	uint64_t t;

	(void)state;
	assert_int_equal(allow_until_refused(&rl, AS_RL_SOURCE, T0),
			 AS_RATELIMIT_BURST);
	/* One refused above, 1000 more within the interval... */
	for (t = 1; t <= 1000; t++)
		assert_false(as_ratelimit_allow(&rl, AS_RL_SOURCE, T0 + t,
						&suppressed));
	/* ...then the interval is over: logged, with the count. */
	assert_true(as_ratelimit_allow(
		&rl, AS_RL_SOURCE, T0 + AS_RATELIMIT_INTERVAL_MS, &suppressed));
	assert_int_equal(suppressed, 1001);
	/* The count is reported once. */
	assert_true(as_ratelimit_allow(&rl, AS_RL_SOURCE,
				       T0 + AS_RATELIMIT_INTERVAL_MS + 1,
				       &suppressed));
	assert_int_equal(suppressed, 0);
}

/* A guest alternating its claim every second: 5 lines a minute, not 60. */
static void one_line_a_second_becomes_a_burst_a_minute(void **state)
{
	struct as_ratelimit rl = {0};
	unsigned long long suppressed, total = 0;
	unsigned int logged = 0;
	uint64_t s;

	(void)state;
	for (s = 0; s < 24 * 60 * 60; s++)
		if (as_ratelimit_allow(&rl, AS_RL_SOURCE, T0 + s * 1000,
				       &suppressed)) {
			logged++;
			total += suppressed;
		}
	assert_int_equal(logged, 24 * 60 * AS_RATELIMIT_BURST);
	/* Every line is logged or counted, but the last minute's extra. */
	assert_int_equal(logged + total,
			 24 * 60 * 60 - (60 - AS_RATELIMIT_BURST));
}

static void reasons_are_limited_apart(void **state)
{
	struct as_ratelimit rl = {0};
	unsigned long long suppressed = NEVER_SET;

	(void)state;
	assert_int_equal(allow_until_refused(&rl, AS_RL_CAPPED, T0),
			 AS_RATELIMIT_BURST);
	/* Another reason of the same domain still has its burst. */
	assert_int_equal(allow_until_refused(&rl, AS_RL_NO_LOAD, T0),
			 AS_RATELIMIT_BURST);
	assert_true(as_ratelimit_allow(&rl, AS_RL_UNREADABLE, T0, &suppressed));
	assert_int_equal(suppressed, 0);
	assert_false(as_ratelimit_allow(&rl, AS_RL_CAPPED, T0, &suppressed));
}

static void domains_are_limited_apart(void **state)
{
	struct as_ratelimit a = {0}, b = {0};
	unsigned long long suppressed = NEVER_SET;

	(void)state;
	assert_int_equal(allow_until_refused(&a, AS_RL_CAPPED, T0),
			 AS_RATELIMIT_BURST);
	/* One guest's flood leaves another's lines alone. */
	assert_int_equal(allow_until_refused(&b, AS_RL_CAPPED, T0),
			 AS_RATELIMIT_BURST);
	assert_true(as_ratelimit_allow(
		&a, AS_RL_CAPPED, T0 + AS_RATELIMIT_INTERVAL_MS, &suppressed));
	assert_int_equal(suppressed, 1);
}

/* A clock that goes back starts an interval: never silent for good. */
static void clock_going_back_starts_a_new_interval(void **state)
{
	struct as_ratelimit rl = {0};
	unsigned long long suppressed = NEVER_SET;

	(void)state;
	assert_int_equal(allow_until_refused(&rl, AS_RL_CAPPED, T0),
			 AS_RATELIMIT_BURST);
	assert_true(as_ratelimit_allow(&rl, AS_RL_CAPPED, T0 - 1, &suppressed));
	assert_int_equal(suppressed, 1);
	/* The new interval runs from there. */
	assert_int_equal(allow_until_refused(&rl, AS_RL_CAPPED, T0 - 1),
			 AS_RATELIMIT_BURST - 1);
	assert_false(as_ratelimit_allow(&rl, AS_RL_CAPPED,
					T0 - 1 + AS_RATELIMIT_INTERVAL_MS - 1,
					&suppressed));
}

/* A clock that wraps past 2^64 goes on forward: the limit holds. */
static void clock_wrapping_goes_on_forward(void **state)
{
	struct as_ratelimit rl = {0};
	unsigned long long suppressed = NEVER_SET;
	uint64_t start = UINT64_MAX - 10;

	(void)state;
	assert_int_equal(allow_until_refused(&rl, AS_RL_CAPPED, start),
			 AS_RATELIMIT_BURST);
	/* 21 ms later, the clock reads 10: the same interval. */
	assert_false(as_ratelimit_allow(&rl, AS_RL_CAPPED, 10, &suppressed));
	/* The interval over, counted across the wrap. */
	assert_false(as_ratelimit_allow(&rl, AS_RL_CAPPED,
					start + AS_RATELIMIT_INTERVAL_MS - 1,
					&suppressed));
	assert_true(as_ratelimit_allow(&rl, AS_RL_CAPPED,
				       start + AS_RATELIMIT_INTERVAL_MS,
				       &suppressed));
	assert_int_equal(suppressed, 3);
}

static void reason_out_of_range_is_always_logged(void **state)
{
	struct as_ratelimit rl = {0};
	unsigned long long suppressed = NEVER_SET;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2 * AS_RATELIMIT_BURST; i++) {
		assert_true(as_ratelimit_allow(&rl, AS_RL_REASONS, T0,
					       &suppressed));
		assert_int_equal(suppressed, 0);
	}
}

static void note_says_how_many_were_left_out(void **state)
{
	char buf[64], small[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	as_ratelimit_note(buf, sizeof(buf), 0);
	assert_string_equal(buf, "");
	as_ratelimit_note(buf, sizeof(buf), 1);
	assert_string_equal(buf, " (1 similar line suppressed)");
	as_ratelimit_note(buf, sizeof(buf), 86395);
	assert_string_equal(buf, " (86395 similar lines suppressed)");
	as_ratelimit_note(small, sizeof(small), 86395);
	assert_string_equal(small, " (86395");
	as_ratelimit_note(NULL, 0, 3); /* nothing written */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(burst_is_logged_then_lines_are_suppressed),
		cmocka_unit_test(
			first_line_after_the_interval_reports_the_count),
		cmocka_unit_test(one_line_a_second_becomes_a_burst_a_minute),
		cmocka_unit_test(reasons_are_limited_apart),
		cmocka_unit_test(domains_are_limited_apart),
		cmocka_unit_test(clock_going_back_starts_a_new_interval),
		cmocka_unit_test(clock_wrapping_goes_on_forward),
		cmocka_unit_test(reason_out_of_range_is_always_logged),
		cmocka_unit_test(note_says_how_many_were_left_out),
	};

	return cmocka_run_group_tests_name("autoscale_ratelimit", tests, NULL,
					   NULL);
}
