// SPDX-License-Identifier: MIT
/*
 * Host tests of the vCPU hotplug reconciliation logic (kernel/hotplug.c):
 * target set from cpu/<i>/availability values, watch path parsing, stray
 * directory entries and the order of the plan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <smpalt/hotplug.h>

#define MAX_REPORTS 64
#define TEXT_MAX 128

#define BIT(i) HOTPLUG_VCPU_BIT(i)
#define ALL_32 ((hotplug_mask_t)0xffffffffu)

struct seen {
	enum hotplug_problem problem;
	char key[TEXT_MAX];
	char value[TEXT_MAX];
	bool has_value;
};

static struct {
	unsigned n;
	struct seen r[MAX_REPORTS];
} reports;

static void collect(void *ctx, const struct hotplug_report *r)
{
	struct seen *s;

	assert_ptr_equal(ctx, &reports);
	assert_true(reports.n < MAX_REPORTS);
	s = &reports.r[reports.n++];
	s->problem = r->problem;
	snprintf(s->key, sizeof(s->key), "%s", r->key);
	s->has_value = r->value != NULL;
	snprintf(s->value, sizeof(s->value), "%s", r->value ? r->value : "");
	/* Every problem has a description for the log line. */
	assert_non_null(hotplug_problem_str(r->problem));
}

static int setup(void **state)
{
	(void)state;
	memset(&reports, 0, sizeof(reports));
	return 0;
}

static void expect_report(unsigned i, enum hotplug_problem p, const char *key,
			  const char *value)
{
	assert_true(i < reports.n);
	assert_int_equal(reports.r[i].problem, p);
	assert_string_equal(reports.r[i].key, key);
	if (value) {
		assert_true(reports.r[i].has_value);
		assert_string_equal(reports.r[i].value, value);
	} else {
		assert_false(reports.r[i].has_value);
	}
}

static hotplug_mask_t target_of(unsigned maxvcpus, hotplug_mask_t online,
				const char *const avail[])
{
	hotplug_mask_t t = 0xdeadbeef;

	assert_int_equal(
		hotplug_target(maxvcpus, online, avail, collect, &reports, &t),
		0);
	return t;
}

/* ---- target set ------------------------------------------------------ */

static void online_values_bring_vcpus_into_the_target(void **state)
{
	const char *avail[] = {"online", "online", "offline", "online"};

	(void)state;
	assert_int_equal(target_of(4, BIT(0), avail), BIT(0) | BIT(1) | BIT(3));
	assert_int_equal(reports.n, 0);
}

static void offline_values_take_secondaries_out_of_the_target(void **state)
{
	const char *avail[] = {"online", "offline", "offline", "offline"};

	(void)state;
	assert_int_equal(target_of(4, 0xf, avail), BIT(0));
	assert_int_equal(reports.n, 0);
}

static void unknown_values_keep_the_vcpu_as_it_is_and_are_reported(void **state)
{
	const char *avail[] = {"online", "Online", "1", "", "online\n"};

	(void)state;
	/* 1 is offline now, 2 online: both stay so. */
	assert_int_equal(target_of(5, BIT(0) | BIT(2) | BIT(4), avail),
			 BIT(0) | BIT(2) | BIT(4));
	assert_int_equal(reports.n, 4);
	expect_report(0, HOTPLUG_BAD_VALUE, "cpu/1/availability", "Online");
	expect_report(1, HOTPLUG_BAD_VALUE, "cpu/2/availability", "1");
	expect_report(2, HOTPLUG_BAD_VALUE, "cpu/3/availability", "");
	expect_report(3, HOTPLUG_BAD_VALUE, "cpu/4/availability", "online\n");
}

static void offline_for_vcpu0_is_ignored_and_reported(void **state)
{
	const char *avail[] = {"offline", "online"};

	(void)state;
	assert_int_equal(target_of(2, BIT(0), avail), BIT(0) | BIT(1));
	assert_int_equal(reports.n, 1);
	expect_report(0, HOTPLUG_OFFLINE_BOOT_VCPU, "cpu/0/availability",
		      "offline");
}

static void missing_keys_keep_the_vcpu_as_it_is_and_are_reported(void **state)
{
	const char *avail[] = {"online", NULL, NULL, "online"};

	(void)state;
	/* vCPU 1 online now, 2 offline: a vanished key changes neither. */
	assert_int_equal(target_of(4, BIT(0) | BIT(1), avail),
			 BIT(0) | BIT(1) | BIT(3));
	assert_int_equal(reports.n, 2);
	expect_report(0, HOTPLUG_KEY_MISSING, "cpu/1/availability", NULL);
	expect_report(1, HOTPLUG_KEY_MISSING, "cpu/2/availability", NULL);
}

static void vcpu0_is_always_in_the_target(void **state)
{
	const char *avail[] = {NULL, "offline"};

	(void)state;
	/* Even if the caller forgot its bit and its key is gone. */
	assert_int_equal(target_of(2, 0, avail), BIT(0));
}

static void maxvcpus_1_targets_only_vcpu0(void **state)
{
	const char *online[] = {"online"};
	const char *offline[] = {"offline"};

	(void)state;
	assert_int_equal(target_of(1, BIT(0), online), BIT(0));
	assert_int_equal(target_of(1, BIT(0), offline), BIT(0));
	assert_int_equal(reports.n, 1);
	expect_report(0, HOTPLUG_OFFLINE_BOOT_VCPU, "cpu/0/availability",
		      "offline");
}

static void maxvcpus_32_covers_vcpu_31(void **state)
{
	const char *avail[HOTPLUG_MAX_VCPUS];
	unsigned i;

	(void)state;
	for (i = 0; i < HOTPLUG_MAX_VCPUS; i++)
		avail[i] = "online";
	assert_int_equal(target_of(32, BIT(0), avail), ALL_32);
	for (i = 1; i < HOTPLUG_MAX_VCPUS; i++)
		avail[i] = "offline";
	assert_int_equal(target_of(32, ALL_32, avail), BIT(0));
	avail[31] = "bogus";
	assert_int_equal(target_of(32, BIT(0) | BIT(31), avail),
			 BIT(0) | BIT(31));
	assert_int_equal(reports.n, 1);
	expect_report(0, HOTPLUG_BAD_VALUE, "cpu/31/availability", "bogus");
}

static void maxvcpus_outside_1_to_32_is_einval(void **state)
{
	const char *avail[HOTPLUG_MAX_VCPUS + 1] = {"online"};
	hotplug_mask_t t;

	(void)state;
	assert_int_equal(
		hotplug_target(0, BIT(0), avail, collect, &reports, &t),
		-EINVAL);
	assert_int_equal(t, BIT(0));
	assert_int_equal(hotplug_target(33, BIT(0) | BIT(5), avail, collect,
					&reports, &t),
			 -EINVAL);
	assert_int_equal(t, BIT(0) | BIT(5));
	assert_int_equal(reports.n, 0);
}

static void online_bits_at_or_beyond_maxvcpus_are_einval(void **state)
{
	const char *avail[] = {"online", "online"};
	hotplug_mask_t t;

	(void)state;
	assert_int_equal(hotplug_target(2, BIT(0) | BIT(2), avail, collect,
					&reports, &t),
			 -EINVAL);
	assert_int_equal(t, BIT(0));
}

static void a_null_report_callback_is_allowed(void **state)
{
	const char *avail[] = {"offline", "junk"};
	hotplug_mask_t t;

	(void)state;
	assert_int_equal(hotplug_target(2, BIT(0), avail, NULL, NULL, &t), 0);
	assert_int_equal(t, BIT(0));
}

static void avail_path_names_the_key_to_read(void **state)
{
	char buf[HOTPLUG_KEY_MAX];

	(void)state;
	assert_int_equal(hotplug_avail_path(0, buf, sizeof(buf)),
			 (int)strlen("cpu/0/availability"));
	assert_string_equal(buf, "cpu/0/availability");
	assert_int_equal(hotplug_avail_path(31, buf, sizeof(buf)),
			 (int)strlen("cpu/31/availability"));
	assert_string_equal(buf, "cpu/31/availability");
	/* Exactly fits, then one byte short. */
	assert_int_equal(
		hotplug_avail_path(7, buf, sizeof("cpu/7/availability")),
		(int)strlen("cpu/7/availability"));
	assert_int_equal(
		hotplug_avail_path(7, buf, sizeof("cpu/7/availability") - 1),
		-ERANGE);
}

/* ---- ids and directory listings ------------------------------------- */

static void canonical_decimal_names_parse_as_vcpu_ids(void **state)
{
	(void)state;
	assert_int_equal(hotplug_parse_vcpu_id("0", 1, 4, collect, &reports),
			 0);
	assert_int_equal(hotplug_parse_vcpu_id("3", 1, 4, collect, &reports),
			 3);
	assert_int_equal(hotplug_parse_vcpu_id("31", 2, 32, collect, &reports),
			 31);
	/* Length-bounded: "12/availability" read as "12". */
	assert_int_equal(hotplug_parse_vcpu_id("12/availability", 2, 32,
					       collect, &reports),
			 12);
	assert_int_equal(reports.n, 0);
}

static void non_numeric_names_are_einval_and_reported(void **state)
{
	static const char *bad[] = {"abc", "07", "+1", "1a", "", "-1", " 1"};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char key[TEXT_MAX];

		assert_int_equal(hotplug_parse_vcpu_id(bad[i], strlen(bad[i]),
						       32, collect, &reports),
				 -EINVAL);
		snprintf(key, sizeof(key), "cpu/%s", bad[i]);
		expect_report(i, HOTPLUG_BAD_NAME, key, NULL);
	}
	assert_int_equal(reports.n, i);
}

static void ids_at_or_beyond_maxvcpus_are_erange_and_reported(void **state)
{
	const char *huge = "99999999999999999999999";

	(void)state;
	assert_int_equal(hotplug_parse_vcpu_id("4", 1, 4, collect, &reports),
			 -ERANGE);
	assert_int_equal(hotplug_parse_vcpu_id("32", 2, 32, collect, &reports),
			 -ERANGE);
	assert_int_equal(hotplug_parse_vcpu_id("1", 1, 1, collect, &reports),
			 -ERANGE);
	assert_int_equal(hotplug_parse_vcpu_id(huge, strlen(huge), 32, collect,
					       &reports),
			 -ERANGE);
	assert_int_equal(reports.n, 4);
	expect_report(0, HOTPLUG_ID_BEYOND_MAX, "cpu/4", NULL);
	expect_report(1, HOTPLUG_ID_BEYOND_MAX, "cpu/32", NULL);
	expect_report(2, HOTPLUG_ID_BEYOND_MAX, "cpu/1", NULL);
	expect_report(3, HOTPLUG_ID_BEYOND_MAX, "cpu/99999999999999999999999",
		      NULL);
}

static void overlong_names_are_cut_in_the_reported_key(void **state)
{
	char name[2 * HOTPLUG_KEY_MAX];

	(void)state;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(
		hotplug_parse_vcpu_id(name, strlen(name), 4, collect, &reports),
		-EINVAL);
	assert_int_equal(strlen(reports.r[0].key), HOTPLUG_KEY_MAX - 1);
	assert_memory_equal(reports.r[0].key, "cpu/xxx", 7);
}

static void listing_gives_valid_ids_and_reports_strays(void **state)
{
	static const char listing[] = "0\0"
				      "1\0"
				      "bogus\0"
				      "9\0"
				      "3\0"
				      "03";

	(void)state;
	assert_int_equal(hotplug_scan_listing(listing, 6, 4, collect, &reports),
			 BIT(0) | BIT(1) | BIT(3));
	assert_int_equal(reports.n, 3);
	expect_report(0, HOTPLUG_BAD_NAME, "cpu/bogus", NULL);
	expect_report(1, HOTPLUG_ID_BEYOND_MAX, "cpu/9", NULL);
	expect_report(2, HOTPLUG_BAD_NAME, "cpu/03", NULL);
}

static void empty_listing_gives_no_ids(void **state)
{
	(void)state;
	assert_int_equal(hotplug_scan_listing("", 0, 4, collect, &reports), 0);
	assert_int_equal(reports.n, 0);
}

/* ---- watch paths ----------------------------------------------------- */

static enum hotplug_watch watch(const char *path, unsigned maxvcpus,
				unsigned *vcpu)
{
	return hotplug_parse_watch(path, maxvcpus, collect, &reports, vcpu);
}

static void watch_on_the_cpu_directory_means_rescan_all(void **state)
{
	unsigned v = 99;

	(void)state;
	assert_int_equal(watch("cpu", 4, &v), HOTPLUG_WATCH_RESCAN);
	assert_int_equal(watch("/local/domain/7/cpu", 4, &v),
			 HOTPLUG_WATCH_RESCAN);
	assert_int_equal(v, 99);
	assert_int_equal(reports.n, 0);
}

static void watch_on_a_vcpu_or_its_availability_names_that_vcpu(void **state)
{
	unsigned v = 99;

	(void)state;
	assert_int_equal(watch("cpu/3/availability", 4, &v),
			 HOTPLUG_WATCH_VCPU);
	assert_int_equal(v, 3);
	assert_int_equal(watch("cpu/2", 4, &v), HOTPLUG_WATCH_VCPU);
	assert_int_equal(v, 2);
	assert_int_equal(watch("/local/domain/12/cpu/31/availability", 32, &v),
			 HOTPLUG_WATCH_VCPU);
	assert_int_equal(v, 31);
	assert_int_equal(watch("/local/domain/0/cpu/0", 1, &v),
			 HOTPLUG_WATCH_VCPU);
	assert_int_equal(v, 0);
	assert_int_equal(reports.n, 0);
}

static void watch_on_unrelated_paths_is_ignored_silently(void **state)
{
	static const char *paths[] = {
		"control/smpalt/phase",
		"cpux",
		"cpu/3/other",
		"cpu/3/availability/deeper",
		"/local/domain/x/cpu",
		"/local/domain/7cpu",
		"/local/domain//cpu",
		"/vm/abc/cpu/1",
		"",
	};
	unsigned v = 99, i;

	(void)state;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		assert_int_equal(watch(paths[i], 4, &v), HOTPLUG_WATCH_IGNORE);
	assert_int_equal(v, 99);
	assert_int_equal(reports.n, 0);
}

static void
watch_on_bad_or_out_of_range_ids_is_ignored_and_reported(void **state)
{
	unsigned v = 99;

	(void)state;
	assert_int_equal(watch("cpu/abc/availability", 4, &v),
			 HOTPLUG_WATCH_IGNORE);
	assert_int_equal(watch("/local/domain/3/cpu/4", 4, &v),
			 HOTPLUG_WATCH_IGNORE);
	assert_int_equal(watch("cpu/", 4, &v), HOTPLUG_WATCH_IGNORE);
	assert_int_equal(watch("cpu/1/availability", 1, &v),
			 HOTPLUG_WATCH_IGNORE);
	assert_int_equal(v, 99);
	assert_int_equal(reports.n, 4);
	expect_report(0, HOTPLUG_BAD_NAME, "cpu/abc/availability", NULL);
	expect_report(1, HOTPLUG_ID_BEYOND_MAX, "/local/domain/3/cpu/4", NULL);
	expect_report(2, HOTPLUG_BAD_NAME, "cpu/", NULL);
	expect_report(3, HOTPLUG_ID_BEYOND_MAX, "cpu/1/availability", NULL);
}

/* ---- plans ----------------------------------------------------------- */

struct want_step {
	enum hotplug_action action;
	unsigned vcpu;
};

static void expect_plan(const struct hotplug_plan *p,
			const struct want_step *want, unsigned n)
{
	unsigned i;

	assert_int_equal(p->nr_steps, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(hotplug_action_str(p->steps[i].action),
				    hotplug_action_str(want[i].action));
		assert_int_equal(p->steps[i].vcpu, want[i].vcpu);
	}
}

#define EXPECT_PLAN(p, ...)                                     \
	do {                                                    \
		const struct want_step w_[] = {__VA_ARGS__};    \
		expect_plan(p, w_, sizeof(w_) / sizeof(w_[0])); \
	} while (0)

static void one_to_many_switches_to_smp_before_any_vcpu_comes_up(void **state)
{
	struct hotplug_plan p;

	(void)state;
	assert_int_equal(
		hotplug_plan(BIT(0), BIT(0) | BIT(1) | BIT(3), false, &p), 0);
	EXPECT_PLAN(&p, {HOTPLUG_SWITCH_TO_SMP, 0}, {HOTPLUG_VCPU_UP, 1},
		    {HOTPLUG_VCPU_UP, 3});
}

static void many_to_one_downs_confirms_then_switches_to_up(void **state)
{
	struct hotplug_plan p;

	(void)state;
	assert_int_equal(
		hotplug_plan(BIT(0) | BIT(1) | BIT(2), BIT(0), true, &p), 0);
	EXPECT_PLAN(&p, {HOTPLUG_VCPU_DOWN, 1}, {HOTPLUG_VCPU_DOWN, 2},
		    {HOTPLUG_WAIT_DOWN, 1}, {HOTPLUG_WAIT_DOWN, 2},
		    {HOTPLUG_SWITCH_TO_UP, 0});
}

static void many_to_many_only_ups_and_downs_the_difference(void **state)
{
	struct hotplug_plan p;

	(void)state;
	assert_int_equal(hotplug_plan(BIT(0) | BIT(1) | BIT(2),
				      BIT(0) | BIT(2) | BIT(3), true, &p),
			 0);
	EXPECT_PLAN(&p, {HOTPLUG_VCPU_DOWN, 1}, {HOTPLUG_VCPU_UP, 3});
}

static void unchanged_sets_give_an_empty_plan(void **state)
{
	struct hotplug_plan p;

	(void)state;
	assert_int_equal(hotplug_plan(BIT(0), BIT(0), false, &p), 0);
	assert_int_equal(p.nr_steps, 0);
	assert_int_equal(
		hotplug_plan(BIT(0) | BIT(5), BIT(0) | BIT(5), true, &p), 0);
	assert_int_equal(p.nr_steps, 0);
}

static void one_to_many_with_smp_text_already_needs_no_switch(void **state)
{
	struct hotplug_plan p;

	(void)state;
	assert_int_equal(hotplug_plan(BIT(0), BIT(0) | BIT(2), true, &p), 0);
	EXPECT_PLAN(&p, {HOTPLUG_VCPU_UP, 2});
}

static void alone_with_smp_text_finishes_the_switch_to_up(void **state)
{
	struct hotplug_plan p;

	(void)state;
	/* A previous SMP -> UP failed: the next reconcile retries it. */
	assert_int_equal(hotplug_plan(BIT(0), BIT(0), true, &p), 0);
	EXPECT_PLAN(&p, {HOTPLUG_SWITCH_TO_UP, 0});
}

static void up_text_with_secondaries_online_takes_them_down_first(void **state)
{
	struct hotplug_plan p;

	(void)state;
	/* Only vCPU 0 wanted: down and confirmed, the text is UP already. */
	assert_int_equal(
		hotplug_plan(BIT(0) | BIT(1) | BIT(2), BIT(0), false, &p),
		-EAGAIN);
	EXPECT_PLAN(&p, {HOTPLUG_VCPU_DOWN, 1}, {HOTPLUG_VCPU_DOWN, 2},
		    {HOTPLUG_WAIT_DOWN, 1}, {HOTPLUG_WAIT_DOWN, 2});
}

static void
up_text_with_secondaries_wanted_downs_switches_then_ups(void **state)
{
	struct hotplug_plan p;

	(void)state;
	/* vCPU 1 stays wanted: it goes down too, then comes back on SMP. */
	assert_int_equal(hotplug_plan(BIT(0) | BIT(1), BIT(0) | BIT(1) | BIT(3),
				      false, &p),
			 -EAGAIN);
	EXPECT_PLAN(&p, {HOTPLUG_VCPU_DOWN, 1}, {HOTPLUG_WAIT_DOWN, 1},
		    {HOTPLUG_SWITCH_TO_SMP, 0}, {HOTPLUG_VCPU_UP, 1},
		    {HOTPLUG_VCPU_UP, 3});
}

static void up_text_with_all_32_online_and_wanted_fits_in_a_plan(void **state)
{
	struct hotplug_plan p;

	(void)state;
	assert_int_equal(hotplug_plan(ALL_32, ALL_32, false, &p), -EAGAIN);
	assert_int_equal(p.nr_steps, 31 + 31 + 1 + 31);
	assert_true(p.nr_steps <= HOTPLUG_PLAN_MAX_STEPS);
	assert_int_equal(p.steps[61].action, HOTPLUG_WAIT_DOWN);
	assert_int_equal(p.steps[61].vcpu, 31);
	assert_int_equal(p.steps[62].action, HOTPLUG_SWITCH_TO_SMP);
	assert_int_equal(p.steps[93].action, HOTPLUG_VCPU_UP);
	assert_int_equal(p.steps[93].vcpu, 31);
}

/*
 * Every plan for maxvcpus 4, from every online set to every target, with
 * either text, run against a model of what executes: DOWN only asks,
 * WAIT_DOWN takes the vCPU out of the running set, UP puts it in.  A switch
 * must find vCPU 0 alone, UP text must never run with a secondary unless it
 * already did at the start (and then the plan's first switch or UP comes
 * only after all of them are waited for), a vCPU comes up only on SMP
 * text, and the end state is the target with the text it needs.
 */
static void every_plan_switches_only_with_vcpu0_alone(void **state)
{
	const hotplug_mask_t secondaries = BIT(1) | BIT(2) | BIT(3);
	struct hotplug_plan p;
	hotplug_mask_t cur, tgt;
	int smp;

	(void)state;
	for (cur = 0; cur <= secondaries; cur += 2)
		for (tgt = 0; tgt <= secondaries; tgt += 2)
			for (smp = 0; smp <= 1; smp++) {
				hotplug_mask_t running = cur, leaving = 0;
				bool text_smp = smp;
				int rc = hotplug_plan(cur | BIT(0),
						      tgt | BIT(0), smp, &p);
				unsigned i;

				assert_int_equal(rc,
						 !smp && cur ? -EAGAIN : 0);
				for (i = 0; i < p.nr_steps; i++) {
					const struct hotplug_step *s =
						&p.steps[i];
					hotplug_mask_t b = BIT(s->vcpu);

					switch (s->action) {
					case HOTPLUG_SWITCH_TO_SMP:
						assert_int_equal(running, 0);
						assert_false(text_smp);
						text_smp = true;
						break;
					case HOTPLUG_SWITCH_TO_UP:
						assert_int_equal(running, 0);
						assert_true(text_smp);
						text_smp = false;
						break;
					case HOTPLUG_VCPU_UP:
						assert_true(text_smp);
						assert_false(running & b);
						running |= b;
						break;
					case HOTPLUG_VCPU_DOWN:
						assert_true(running & b);
						leaving |= b;
						break;
					case HOTPLUG_WAIT_DOWN:
						assert_true(leaving & b);
						running &= ~b;
						leaving &= ~b;
						break;
					}
				}
				/* Asked down, not waited for: gone soon. */
				assert_int_equal(running & ~leaving, tgt);
				assert_int_equal(text_smp, tgt != 0);
			}
}

static void the_vcpu0_bit_does_not_matter_in_plans(void **state)
{
	struct hotplug_plan p;

	(void)state;
	assert_int_equal(hotplug_plan(0, BIT(1), false, &p), 0);
	EXPECT_PLAN(&p, {HOTPLUG_SWITCH_TO_SMP, 0}, {HOTPLUG_VCPU_UP, 1});
	assert_int_equal(hotplug_plan(BIT(1), 0, true, &p), 0);
	EXPECT_PLAN(&p, {HOTPLUG_VCPU_DOWN, 1}, {HOTPLUG_WAIT_DOWN, 1},
		    {HOTPLUG_SWITCH_TO_UP, 0});
}

static void thirty_two_vcpus_up_and_down_fit_in_a_plan(void **state)
{
	struct hotplug_plan p;
	unsigned i;

	(void)state;
	assert_int_equal(hotplug_plan(BIT(0), ALL_32, false, &p), 0);
	assert_int_equal(p.nr_steps, 32);
	assert_int_equal(p.steps[0].action, HOTPLUG_SWITCH_TO_SMP);
	for (i = 1; i < 32; i++) {
		assert_int_equal(p.steps[i].action, HOTPLUG_VCPU_UP);
		assert_int_equal(p.steps[i].vcpu, i);
	}

	assert_int_equal(hotplug_plan(ALL_32, BIT(0), true, &p), 0);
	assert_int_equal(p.nr_steps, 31 + 31 + 1);
	assert_true(p.nr_steps <= HOTPLUG_PLAN_MAX_STEPS);
	assert_int_equal(p.steps[30].action, HOTPLUG_VCPU_DOWN);
	assert_int_equal(p.steps[30].vcpu, 31);
	assert_int_equal(p.steps[61].action, HOTPLUG_WAIT_DOWN);
	assert_int_equal(p.steps[61].vcpu, 31);
	assert_int_equal(p.steps[62].action, HOTPLUG_SWITCH_TO_UP);
}

/* ---- end to end: values to plan ------------------------------------- */

static void xl_vcpu_set_2_then_1_on_maxvcpus_4(void **state)
{
	const char *set2[] = {"online", "online", "offline", "offline"};
	const char *set1[] = {"online", "offline", "offline", "offline"};
	struct hotplug_plan p;
	hotplug_mask_t online = BIT(0), t;

	(void)state;
	t = target_of(4, online, set2);
	assert_int_equal(hotplug_plan(online, t, false, &p), 0);
	EXPECT_PLAN(&p, {HOTPLUG_SWITCH_TO_SMP, 0}, {HOTPLUG_VCPU_UP, 1});
	online = t;

	t = target_of(4, online, set1);
	assert_int_equal(hotplug_plan(online, t, true, &p), 0);
	EXPECT_PLAN(&p, {HOTPLUG_VCPU_DOWN, 1}, {HOTPLUG_WAIT_DOWN, 1},
		    {HOTPLUG_SWITCH_TO_UP, 0});
	assert_int_equal(hotplug_count(t), 1);
	assert_int_equal(hotplug_count(ALL_32), 32);
	assert_int_equal(reports.n, 0);
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(online_values_bring_vcpus_into_the_target),
		T(offline_values_take_secondaries_out_of_the_target),
		T(unknown_values_keep_the_vcpu_as_it_is_and_are_reported),
		T(offline_for_vcpu0_is_ignored_and_reported),
		T(missing_keys_keep_the_vcpu_as_it_is_and_are_reported),
		T(vcpu0_is_always_in_the_target),
		T(maxvcpus_1_targets_only_vcpu0),
		T(maxvcpus_32_covers_vcpu_31),
		T(maxvcpus_outside_1_to_32_is_einval),
		T(online_bits_at_or_beyond_maxvcpus_are_einval),
		T(a_null_report_callback_is_allowed),
		T(avail_path_names_the_key_to_read),
		T(canonical_decimal_names_parse_as_vcpu_ids),
		T(non_numeric_names_are_einval_and_reported),
		T(ids_at_or_beyond_maxvcpus_are_erange_and_reported),
		T(overlong_names_are_cut_in_the_reported_key),
		T(listing_gives_valid_ids_and_reports_strays),
		T(empty_listing_gives_no_ids),
		T(watch_on_the_cpu_directory_means_rescan_all),
		T(watch_on_a_vcpu_or_its_availability_names_that_vcpu),
		T(watch_on_unrelated_paths_is_ignored_silently),
		T(watch_on_bad_or_out_of_range_ids_is_ignored_and_reported),
		T(one_to_many_switches_to_smp_before_any_vcpu_comes_up),
		T(many_to_one_downs_confirms_then_switches_to_up),
		T(many_to_many_only_ups_and_downs_the_difference),
		T(unchanged_sets_give_an_empty_plan),
		T(one_to_many_with_smp_text_already_needs_no_switch),
		T(alone_with_smp_text_finishes_the_switch_to_up),
		T(up_text_with_secondaries_online_takes_them_down_first),
		T(up_text_with_secondaries_wanted_downs_switches_then_ups),
		T(up_text_with_all_32_online_and_wanted_fits_in_a_plan),
		T(every_plan_switches_only_with_vcpu0_alone),
		T(the_vcpu0_bit_does_not_matter_in_plans),
		T(thirty_two_vcpus_up_and_down_fit_in_a_plan),
		T(xl_vcpu_set_2_then_1_on_maxvcpus_4),
	};

	return cmocka_run_group_tests_name("vcpu hotplug logic", tests, NULL,
					   NULL);
}
