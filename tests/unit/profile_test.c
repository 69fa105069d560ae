// SPDX-License-Identifier: MIT
/*
 * profile_test.c - the workload profile parser and evaluator
 * (app/profile.c), compiled for the host.  Each test: a profile text,
 * then the exact phases, error or demand over time expected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <smpalt/errno.h>
#include <smpalt/profile.h>

#define MS 1000U /* per second */

static void assert_phase(const struct profile_phase *ph, const char *label,
			 uint32_t seconds, uint32_t from, uint32_t to)
{
	assert_string_equal(ph->label, label);
	assert_int_equal(ph->seconds, seconds);
	assert_int_equal(ph->from, from);
	assert_int_equal(ph->to, to);
}

/* Demand at second s (ms precision). */
static unsigned int demand_at(const struct profile *p, uint64_t ms)
{
	unsigned int d = ~0U;

	profile_at(p, ms, &d);
	return d;
}

static void four_phases_parse_with_defaults(void **state)
{
	struct profile p;

	(void)state;
	assert_int_equal(profile_parse("idle:8 ramp:20:0:300 burst:12:350 "
				       "idle:12",
				       &p, NULL),
			 0);
	assert_int_equal(p.count, 4);
	assert_int_equal(p.total_seconds, 52);
	assert_phase(&p.phase[0], "idle", 8, 0, 0);
	assert_phase(&p.phase[1], "ramp", 20, 0, 300);
	assert_phase(&p.phase[2], "burst", 12, 350, 350);
	assert_phase(&p.phase[3], "idle", 12, 0, 0);
}

static void commas_and_extra_spaces_separate_phases(void **state)
{
	struct profile p;

	(void)state;
	assert_int_equal(
		profile_parse("  a:1,b_2:2:10 ,, C-3:3:5:0  ", &p, NULL), 0);
	assert_int_equal(p.count, 3);
	assert_phase(&p.phase[0], "a", 1, 0, 0);
	assert_phase(&p.phase[1], "b_2", 2, 10, 10);
	assert_phase(&p.phase[2], "C-3", 3, 5, 0);
}

static void default_word_is_the_builtin_profile(void **state)
{
	struct profile p, q;

	(void)state;
	/* Unused bytes zeroed on both sides, so that memcmp compares. */
	memset(&p, 0, sizeof(p));
	memset(&q, 0, sizeof(q));
	assert_int_equal(profile_parse("default", &p, NULL), 0);
	assert_int_equal(profile_parse(PROFILE_DEFAULT, &q, NULL), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	assert_true(p.count >= 4);
	/* It must take the guest up (> 1 vCPU at 80%) and back to idle. */
	assert_int_equal(p.phase[0].from, 0);
	assert_int_equal(p.phase[p.count - 1].to, 0);
}

static void off_empty_and_blank_mean_no_profile(void **state)
{
	struct profile p;

	(void)state;
	assert_int_equal(profile_parse("off", &p, NULL), -ENOENT);
	assert_int_equal(profile_parse("", &p, NULL), -ENOENT);
	assert_int_equal(profile_parse(" , ", &p, NULL), -ENOENT);
}

static void expect_error(const char *text, unsigned int phase, size_t offset,
			 const char *why_part)
{
	struct profile p;
	struct profile_error err = {99, 99, NULL};

	assert_int_equal(profile_parse(text, &p, &err), -EINVAL);
	assert_int_equal(err.phase, phase);
	assert_int_equal(err.offset, offset);
	assert_non_null(err.why);
	assert_non_null(strstr(err.why, why_part));
}

static void bad_profiles_are_refused_naming_phase_and_offset(void **state)
{
	(void)state;
	expect_error("idle", 1, 4, "':'");
	expect_error("idle:", 1, 5, "number");
	expect_error("idle:x", 1, 5, "number");
	/* A number out of range: the offset is the number's first digit. */
	expect_error("idle:0", 1, 5, "seconds out of range 1..3600");
	expect_error("idle:3601", 1, 5, "seconds out of range");
	expect_error("a:1 b:2:3201", 2, 8, "demand out of range 0..3200");
	expect_error("a:1 b:2:0:99999999999999999999", 2, 10, "demand");
	expect_error("a:1:2:3:4", 1, 7, "unexpected character");
	expect_error("a:1 :2", 2, 4, "phase name");
	expect_error("a:1 b!:2", 2, 5, "':'");
	expect_error("a:-1", 1, 2, "number");
	expect_error("abcdefghijklmnop:1", 1, 15, "name too long");
	expect_error("default:1:2:x", 1, 12, "number");
}

static void more_than_sixteen_phases_are_refused(void **state)
{
	struct profile p;
	struct profile_error err;
	char text[256] = "";
	int i;

	(void)state;
	for (i = 0; i < PROFILE_PHASES_MAX; i++)
		strcat(text, "p:1 ");
	assert_int_equal(profile_parse(text, &p, &err), 0);
	assert_int_equal(p.count, PROFILE_PHASES_MAX);
	strcat(text, "q:1");
	assert_int_equal(profile_parse(text, &p, &err), -EINVAL);
	assert_int_equal(err.phase, PROFILE_PHASES_MAX + 1);
	assert_string_equal(err.why, "more than 16 phases");
}

static void limits_are_accepted(void **state)
{
	struct profile p;

	(void)state;
	assert_int_equal(profile_parse("abcdefghijklmno:3600:3200:0", &p, NULL),
			 0);
	assert_phase(&p.phase[0], "abcdefghijklmno", 3600, 3200, 0);
}

static void constant_phase_holds_its_demand(void **state)
{
	struct profile p;
	const struct profile_phase *ph;
	unsigned int d;

	(void)state;
	assert_int_equal(profile_parse("idle:2 burst:3:350", &p, NULL), 0);
	ph = profile_at(&p, 0, &d);
	assert_string_equal(ph->label, "idle");
	assert_int_equal(d, 0);
	ph = profile_at(&p, 2 * MS - 1, &d);
	assert_string_equal(ph->label, "idle");
	ph = profile_at(&p, 2 * MS, &d);
	assert_string_equal(ph->label, "burst");
	assert_int_equal(d, 350);
	assert_int_equal(demand_at(&p, 5 * MS - 1), 350);
}

static void ramp_is_linear_both_ways(void **state)
{
	struct profile p;

	(void)state;
	assert_int_equal(profile_parse("up:20:0:300 down:10:300:100", &p, NULL),
			 0);
	assert_int_equal(demand_at(&p, 0), 0);
	assert_int_equal(demand_at(&p, 5 * MS), 75);
	assert_int_equal(demand_at(&p, 10 * MS), 150);
	assert_int_equal(demand_at(&p, 20 * MS - 1), 299);
	assert_int_equal(demand_at(&p, 20 * MS), 300);
	assert_int_equal(demand_at(&p, 25 * MS), 200);
	/* Integer steps are rounded towards the phase's start value. */
	assert_int_equal(demand_at(&p, 30 * MS - 1), 101);
}

static void after_the_last_phase_the_profile_is_over(void **state)
{
	struct profile p;
	unsigned int d = 7;

	(void)state;
	assert_int_equal(profile_parse("burst:3:350", &p, NULL), 0);
	assert_null(profile_at(&p, 3 * MS, &d));
	assert_int_equal(d, 0);
	assert_null(profile_at(&p, UINT64_MAX, &d));
	assert_int_equal(d, 0);
}

static void every_millisecond_of_a_profile_has_one_phase(void **state)
{
	struct profile p;
	const struct profile_phase *ph, *prev = NULL;
	unsigned int d, changes = 0;
	uint64_t ms;

	(void)state;
	assert_int_equal(profile_parse("default", &p, NULL), 0);
	for (ms = 0; ms < (uint64_t)p.total_seconds * MS; ms += 100) {
		ph = profile_at(&p, ms, &d);
		assert_non_null(ph);
		assert_true(d <= PROFILE_DEMAND_MAX);
		if (ph != prev)
			changes++;
		prev = ph;
	}
	assert_int_equal(changes, p.count);
	assert_null(profile_at(&p, ms, &d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(four_phases_parse_with_defaults),
		cmocka_unit_test(commas_and_extra_spaces_separate_phases),
		cmocka_unit_test(default_word_is_the_builtin_profile),
		cmocka_unit_test(off_empty_and_blank_mean_no_profile),
		cmocka_unit_test(
			bad_profiles_are_refused_naming_phase_and_offset),
		cmocka_unit_test(more_than_sixteen_phases_are_refused),
		cmocka_unit_test(limits_are_accepted),
		cmocka_unit_test(constant_phase_holds_its_demand),
		cmocka_unit_test(ramp_is_linear_both_ways),
		cmocka_unit_test(after_the_last_phase_the_profile_is_over),
		cmocka_unit_test(every_millisecond_of_a_profile_has_one_phase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
