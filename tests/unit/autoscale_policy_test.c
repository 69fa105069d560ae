// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's decision logic (tools/autoscale_policy.c):
 * target from load, hold times, the hysteresis band, clamping to min/max,
 * configuration checks and the reason text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "autoscale_policy.h"

#define PERIOD_MS 1000
#define HOLD_MS 3000
#define HIGH 80
#define LOW 40
#define MAX_VCPUS 4
#define TEXT_MAX 256
#define STEADY_SAMPLES 60

static const struct as_config base_cfg = {
	.high_pct = HIGH,
	.low_pct = LOW,
	.hold_up_ms = HOLD_MS,
	.hold_down_ms = HOLD_MS,
	.min_vcpus = 1,
	.max_vcpus = MAX_VCPUS,
};

/* Run one sample; returns the decision. */
static struct as_decision sample(const struct as_config *cfg,
				 struct as_state *st, uint64_t now_ms,
				 unsigned int load, unsigned int vcpus)
{
	struct as_decision d;

	memset(&d, 0xa5, sizeof(d));
	as_decide(cfg, st, now_ms, load, vcpus, &d);
	return d;
}

/*
 * Feed `load` every PERIOD_MS for n samples starting at *now, applying
 * every change to *vcpus; returns the number of changes.
 */
static unsigned int run_steady(const struct as_config *cfg, struct as_state *st,
			       uint64_t *now, unsigned int load,
			       unsigned int *vcpus, unsigned int n)
{
	unsigned int changes = 0, i;

	for (i = 0; i < n; i++, *now += PERIOD_MS) {
		struct as_decision d = sample(cfg, st, *now, load, *vcpus);

		if (d.action != AS_STAY) {
			*vcpus = d.vcpus;
			changes++;
		}
	}
	return changes;
}

static void target_is_ceil_of_load_over_high(void **state)
{
	struct as_config cfg = base_cfg;

	(void)state;
	cfg.max_vcpus = AS_VCPUS_MAX;
	assert_int_equal(as_target(&cfg, 250), 4); /* 3.125 -> 4 */
	assert_int_equal(as_target(&cfg, 240), 3); /* exactly 3 */
	assert_int_equal(as_target(&cfg, 241), 4);
	assert_int_equal(as_target(&cfg, 80), 1);
	assert_int_equal(as_target(&cfg, 81), 2);
	assert_int_equal(as_target(&cfg, 0), 1);       /* never below min */
	assert_int_equal(as_target(&cfg, 10000), 125); /* ceil(10000/80) */
	assert_int_equal(as_target(&cfg, UINT32_MAX), AS_VCPUS_MAX);
}

static void target_is_clamped_to_min_and_max(void **state)
{
	struct as_config cfg = base_cfg;

	(void)state;
	cfg.min_vcpus = 2;
	cfg.max_vcpus = 3;
	assert_int_equal(as_target(&cfg, 0), 2);
	assert_int_equal(as_target(&cfg, 1000), 3);
}

static void ramp_up_waits_for_the_hold_time(void **state)
{
	struct as_state st;
	struct as_decision d;

	(void)state;
	as_state_init(&st);
	d = sample(&base_cfg, &st, 10000, 250, 1);
	assert_int_equal(d.action, AS_STAY);
	assert_int_equal(d.reason, AS_REASON_HOLDING_UP);
	assert_int_equal(d.vcpus, 1);
	assert_int_equal(d.held_ms, 0);
	d = sample(&base_cfg, &st, 11000, 250, 1);
	assert_int_equal(d.reason, AS_REASON_HOLDING_UP);
	d = sample(&base_cfg, &st, 12999, 250, 1);
	assert_int_equal(d.action, AS_STAY);
	assert_int_equal(d.held_ms, 2999);
	d = sample(&base_cfg, &st, 13000, 250, 1);
	assert_int_equal(d.action, AS_UP);
	assert_int_equal(d.reason, AS_REASON_OVER_HIGH);
	assert_int_equal(d.vcpus, 4);
	assert_int_equal(d.held_ms, HOLD_MS);
}

static void zero_hold_acts_on_the_first_sample(void **state)
{
	struct as_config cfg = base_cfg;
	struct as_state st;
	struct as_decision d;

	(void)state;
	cfg.hold_up_ms = 0;
	cfg.hold_down_ms = 0;
	as_state_init(&st);
	d = sample(&cfg, &st, 0, 200, 1);
	assert_int_equal(d.action, AS_UP);
	assert_int_equal(d.vcpus, 3);
	d = sample(&cfg, &st, 1, 0, 3);
	assert_int_equal(d.action, AS_DOWN);
	assert_int_equal(d.vcpus, 1);
}

static void hold_restarts_when_the_load_dips_into_the_band(void **state)
{
	struct as_state st;
	struct as_decision d;

	(void)state;
	as_state_init(&st);
	sample(&base_cfg, &st, 0, 250, 1);
	sample(&base_cfg, &st, 1000, 250, 1);
	d = sample(&base_cfg, &st, 2000, 60, 1); /* in band: 40..80 */
	assert_int_equal(d.reason, AS_REASON_IN_BAND);
	d = sample(&base_cfg, &st, 3000, 250, 1);
	assert_int_equal(d.reason, AS_REASON_HOLDING_UP);
	assert_int_equal(d.held_ms, 0);
	d = sample(&base_cfg, &st, 5000, 250, 1);
	assert_int_equal(d.action, AS_STAY);
	d = sample(&base_cfg, &st, 6000, 250, 1);
	assert_int_equal(d.action, AS_UP);
}

static void hold_restarts_when_the_trend_reverses(void **state)
{
	struct as_state st;
	struct as_decision d;

	(void)state;
	as_state_init(&st);
	sample(&base_cfg, &st, 0, 0, 2);	  /* below low */
	sample(&base_cfg, &st, 2000, 0, 2);	  /* 2 s below */
	d = sample(&base_cfg, &st, 2500, 300, 2); /* above high */
	assert_int_equal(d.reason, AS_REASON_HOLDING_UP);
	assert_int_equal(d.held_ms, 0);
	d = sample(&base_cfg, &st, 3500, 0, 2);
	assert_int_equal(d.reason, AS_REASON_HOLDING_DOWN);
	assert_int_equal(d.held_ms, 0);
}

static void load_swinging_inside_the_band_never_changes(void **state)
{
	struct as_state st;
	uint64_t now = 0;
	unsigned int vcpus = 4, i, changes = 0;
	/* 4 vCPUs: band 160..320%. */
	static const unsigned int loads[] = {170, 310, 165, 319, 240, 161};

	(void)state;
	as_state_init(&st);
	for (i = 0; i < STEADY_SAMPLES; i++, now += PERIOD_MS) {
		unsigned int load = loads[i % (sizeof(loads) / sizeof(*loads))];
		struct as_decision d = sample(&base_cfg, &st, now, load, vcpus);

		assert_int_equal(d.reason, AS_REASON_IN_BAND);
		changes += d.action != AS_STAY;
	}
	assert_int_equal(changes, 0);
}

static void
load_flickering_across_high_shorter_than_hold_never_changes(void **state)
{
	struct as_state st;
	uint64_t now = 0;
	unsigned int i, changes = 0;

	(void)state;
	as_state_init(&st);
	/* Two samples above high, then one below: never 3 s in a row. */
	for (i = 0; i < STEADY_SAMPLES; i++, now += PERIOD_MS) {
		unsigned int load = i % 3 == 2 ? 75 : 85;

		changes +=
			sample(&base_cfg, &st, now, load, 1).action != AS_STAY;
	}
	assert_int_equal(changes, 0);
}

static void steady_load_settles_with_one_change(void **state)
{
	static const unsigned int loads[] = {0, 50, 81, 150, 250, 320, 399};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(loads) / sizeof(*loads); i++) {
		struct as_state st;
		uint64_t now = 0;
		unsigned int vcpus = 1, changes;

		as_state_init(&st);
		changes = run_steady(&base_cfg, &st, &now, loads[i], &vcpus,
				     STEADY_SAMPLES);
		assert_true(changes <= 1);
		/* Above high it goes to the target, else it stays at 1. */
		assert_int_equal(vcpus, loads[i] > HIGH
						? as_target(&base_cfg, loads[i])
						: 1);
	}
}

/* Thresholds close together: a steady load still settles (no flapping). */
static void narrow_band_does_not_flap(void **state)
{
	struct as_config cfg = base_cfg;
	struct as_state st;
	uint64_t now = 0;
	unsigned int vcpus = 1, changes;

	(void)state;
	cfg.high_pct = 80;
	cfg.low_pct = 75;
	as_state_init(&st);
	/* 1 -> 2 vCPUs: 41% each, below low, but the target stays 2. */
	changes = run_steady(&cfg, &st, &now, 82, &vcpus, STEADY_SAMPLES);
	assert_int_equal(changes, 1);
	assert_int_equal(vcpus, 2);
	assert_int_equal(sample(&cfg, &st, now, 82, vcpus).reason,
			 AS_REASON_AT_TARGET);
}

static void demand_up_then_idle_goes_up_then_back_to_min(void **state)
{
	struct as_state st;
	uint64_t now = 0;
	unsigned int vcpus = 1;

	(void)state;
	as_state_init(&st);
	assert_int_equal(run_steady(&base_cfg, &st, &now, 0, &vcpus, 10), 0);
	assert_int_equal(vcpus, 1);
	assert_int_equal(run_steady(&base_cfg, &st, &now, 250, &vcpus, 10), 1);
	assert_int_equal(vcpus, 4);
	assert_int_equal(run_steady(&base_cfg, &st, &now, 0, &vcpus, 10), 1);
	assert_int_equal(vcpus, 1);
}

static void scale_down_goes_to_the_target_after_the_hold(void **state)
{
	struct as_state st;
	struct as_decision d;

	(void)state;
	as_state_init(&st);
	/* 4 vCPUs, load 100: 25% each (< 40), target ceil(100/80) = 2. */
	d = sample(&base_cfg, &st, 0, 100, 4);
	assert_int_equal(d.reason, AS_REASON_HOLDING_DOWN);
	assert_int_equal(d.target, 2);
	d = sample(&base_cfg, &st, HOLD_MS, 100, 4);
	assert_int_equal(d.action, AS_DOWN);
	assert_int_equal(d.reason, AS_REASON_UNDER_LOW);
	assert_int_equal(d.vcpus, 2);
}

static void a_change_needs_a_fresh_hold(void **state)
{
	struct as_config cfg = base_cfg;
	struct as_state st;
	struct as_decision d;

	(void)state;
	cfg.max_vcpus = 8;
	as_state_init(&st);
	sample(&cfg, &st, 0, 150, 1);
	d = sample(&cfg, &st, HOLD_MS, 150, 1);
	assert_int_equal(d.action, AS_UP);
	assert_int_equal(d.vcpus, 2);
	/* Load jumps right after: the earlier hold does not count. */
	d = sample(&cfg, &st, HOLD_MS + PERIOD_MS, 500, 2);
	assert_int_equal(d.action, AS_STAY);
	assert_int_equal(d.held_ms, 0);
	d = sample(&cfg, &st, 2 * HOLD_MS + PERIOD_MS, 500, 2);
	assert_int_equal(d.action, AS_UP);
	assert_int_equal(d.vcpus, 7);
}

static void above_high_at_max_stays(void **state)
{
	struct as_state st;
	struct as_decision d;

	(void)state;
	as_state_init(&st);
	d = sample(&base_cfg, &st, 0, 1000, MAX_VCPUS);
	d = sample(&base_cfg, &st, 10 * HOLD_MS, 1000, MAX_VCPUS);
	assert_int_equal(d.action, AS_STAY);
	assert_int_equal(d.reason, AS_REASON_AT_MAX);
	assert_int_equal(d.vcpus, MAX_VCPUS);
}

static void ramp_up_is_capped_at_max(void **state)
{
	struct as_state st;
	struct as_decision d;

	(void)state;
	as_state_init(&st);
	sample(&base_cfg, &st, 0, 1000, 1);
	d = sample(&base_cfg, &st, HOLD_MS, 1000, 1);
	assert_int_equal(d.action, AS_UP);
	assert_int_equal(d.vcpus, MAX_VCPUS);
}

static void below_low_at_min_stays(void **state)
{
	struct as_config cfg = base_cfg;
	struct as_state st;
	struct as_decision d;

	(void)state;
	cfg.min_vcpus = 2;
	as_state_init(&st);
	sample(&cfg, &st, 0, 0, 3);
	d = sample(&cfg, &st, HOLD_MS, 0, 3);
	assert_int_equal(d.action, AS_DOWN);
	assert_int_equal(d.vcpus, 2);
	sample(&cfg, &st, HOLD_MS + PERIOD_MS, 0, 2);
	d = sample(&cfg, &st, 3 * HOLD_MS, 0, 2);
	assert_int_equal(d.action, AS_STAY);
	assert_int_equal(d.reason, AS_REASON_AT_TARGET);
}

static void count_below_min_is_raised_at_once(void **state)
{
	struct as_config cfg = base_cfg;
	struct as_state st;
	struct as_decision d;

	(void)state;
	cfg.min_vcpus = 2;
	as_state_init(&st);
	d = sample(&cfg, &st, 0, 0, 1);
	assert_int_equal(d.action, AS_UP);
	assert_int_equal(d.reason, AS_REASON_BELOW_MIN);
	assert_int_equal(d.vcpus, 2);
}

static void count_above_max_is_lowered_at_once(void **state)
{
	struct as_state st;
	struct as_decision d;

	(void)state;
	as_state_init(&st);
	d = sample(&base_cfg, &st, 0, 1000, MAX_VCPUS + 2);
	assert_int_equal(d.action, AS_DOWN);
	assert_int_equal(d.reason, AS_REASON_ABOVE_MAX);
	assert_int_equal(d.vcpus, MAX_VCPUS);
}

static void clock_going_back_restarts_the_hold(void **state)
{
	struct as_state st;
	struct as_decision d;

	(void)state;
	as_state_init(&st);
	sample(&base_cfg, &st, 5000, 250, 1);
	d = sample(&base_cfg, &st, 1000, 250, 1);
	assert_int_equal(d.action, AS_STAY);
	assert_int_equal(d.held_ms, 0);
	d = sample(&base_cfg, &st, 1000 + HOLD_MS, 250, 1);
	assert_int_equal(d.action, AS_UP);
}

static void config_check_accepts_defaults(void **state)
{
	char err[TEXT_MAX] = "";

	(void)state;
	assert_int_equal(as_config_check(&base_cfg, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static void expect_config_refused(const struct as_config *cfg,
				  const char *words)
{
	char err[TEXT_MAX] = "";

	assert_int_equal(as_config_check(cfg, err, sizeof(err)), -EINVAL);
	if (!strstr(err, words))
		fail_msg("message '%s' does not name '%s'", err, words);
}

static void config_check_refuses_bad_settings(void **state)
{
	struct as_config cfg;

	(void)state;
	cfg = base_cfg;
	cfg.low_pct = HIGH;
	expect_config_refused(&cfg, "low threshold 80%");
	cfg = base_cfg;
	cfg.high_pct = 0;
	expect_config_refused(&cfg, "high threshold 0%");
	cfg = base_cfg;
	cfg.high_pct = AS_THRESHOLD_MAX + 1;
	expect_config_refused(&cfg, "high threshold 101%");
	cfg = base_cfg;
	cfg.min_vcpus = 0;
	expect_config_refused(&cfg, "min vCPUs 0");
	cfg = base_cfg;
	cfg.min_vcpus = 3;
	cfg.max_vcpus = 2;
	expect_config_refused(&cfg, "max vCPUs 2");
	cfg = base_cfg;
	cfg.max_vcpus = AS_VCPUS_MAX + 1;
	expect_config_refused(&cfg, "max vCPUs 8193");
}

/* No small cap: a guest of 64 vCPUs may be scaled to 48 and beyond. */
static void config_takes_vcpus_up_to_what_xen_allows(void **state)
{
	struct as_config cfg = base_cfg;
	char err[TEXT_MAX] = "";

	(void)state;
	cfg.min_vcpus = 48;
	cfg.max_vcpus = 64;
	assert_int_equal(as_config_check(&cfg, err, sizeof(err)), 0);
	cfg.min_vcpus = 1;
	cfg.max_vcpus = AS_VCPUS_MAX;
	assert_int_equal(as_config_check(&cfg, err, sizeof(err)), 0);
	/* 48 vCPUs at 90% each: up to ceil(4320/80) = 54. */
	cfg.max_vcpus = 64;
	assert_int_equal(as_target(&cfg, 48 * 90), 54);
}

/* ------------------------------------------------------------- pace */

static const struct as_pace_config base_pace = {
	.cooldown_ms = 10000,
	.rate_max = 3,
	.rate_window_ms = 60000,
	.backoff_max_ms = 100000,
};

static enum as_pace_verdict pace_at(const struct as_pace_config *cfg,
				    const struct as_pace *p, uint64_t now,
				    uint64_t *wait)
{
	*wait = 12345;
	return as_pace_check(cfg, p, now, wait);
}

static void no_change_within_the_cooldown(void **state)
{
	struct as_pace p;
	uint64_t wait;

	(void)state;
	as_pace_init(&p);
	assert_int_equal(pace_at(&base_pace, &p, 0, &wait), AS_PACE_GO);
	assert_int_equal(wait, 0);
	as_pace_started(&p, 1000);
	as_pace_ended(&base_pace, &p, 2000, true);
	assert_int_equal(pace_at(&base_pace, &p, 2000, &wait),
			 AS_PACE_COOLDOWN);
	assert_int_equal(wait, 10000);
	assert_int_equal(pace_at(&base_pace, &p, 11999, &wait),
			 AS_PACE_COOLDOWN);
	assert_int_equal(wait, 1);
	assert_int_equal(pace_at(&base_pace, &p, 12000, &wait), AS_PACE_GO);
}

static void at_most_rate_max_changes_per_window(void **state)
{
	struct as_pace_config cfg = base_pace;
	struct as_pace p;
	uint64_t wait;

	(void)state;
	cfg.cooldown_ms = 0;
	as_pace_init(&p);
	as_pace_started(&p, 1000);
	as_pace_ended(&cfg, &p, 1000, true);
	as_pace_started(&p, 2000);
	as_pace_ended(&cfg, &p, 2000, true);
	assert_int_equal(pace_at(&cfg, &p, 3000, &wait), AS_PACE_GO);
	as_pace_started(&p, 3000);
	as_pace_ended(&cfg, &p, 3000, true);
	/* Three in the window that opened at 1000: none until 61000. */
	assert_int_equal(pace_at(&cfg, &p, 4000, &wait), AS_PACE_RATE);
	assert_int_equal(wait, 57000);
	assert_int_equal(pace_at(&cfg, &p, 60999, &wait), AS_PACE_RATE);
	assert_int_equal(pace_at(&cfg, &p, 61000, &wait), AS_PACE_GO);
	as_pace_started(&p, 61000);
	/* Now the window opens at the second change (2000). */
	assert_int_equal(pace_at(&cfg, &p, 61000, &wait), AS_PACE_RATE);
	assert_int_equal(wait, 1000);
	/* rate_max 0: no limit at all. */
	cfg.rate_max = 0;
	assert_int_equal(pace_at(&cfg, &p, 61000, &wait), AS_PACE_GO);
}

/* A guest toggling its claim for an hour gets at most rate_max changes
 * per window, whatever its claims ask. */
static void toggling_for_an_hour_is_held_to_the_rate(void **state)
{
	struct as_pace_config cfg = base_pace;
	unsigned int changes = 0;
	struct as_pace p;
	uint64_t now, wait;

	(void)state;
	cfg.cooldown_ms = 5000;
	cfg.rate_max = 12;
	cfg.rate_window_ms = 600000;
	as_pace_init(&p);
	for (now = 0; now < 3600000; now += 1000) {
		if (as_pace_check(&cfg, &p, now, &wait) != AS_PACE_GO)
			continue;
		as_pace_started(&p, now);
		as_pace_ended(&cfg, &p, now, true);
		changes++;
	}
	assert_int_equal(changes, 12 * 6);
}

static void failures_back_off_doubling_up_to_the_most(void **state)
{
	struct as_pace p;
	uint64_t wait;

	(void)state;
	as_pace_init(&p);
	as_pace_started(&p, 0);
	as_pace_ended(&base_pace, &p, 0, false);
	assert_int_equal(pace_at(&base_pace, &p, 0, &wait), AS_PACE_BACKOFF);
	assert_int_equal(wait, 20000); /* 10 s x 2 */
	as_pace_started(&p, 20000);
	as_pace_ended(&base_pace, &p, 20000, false);
	assert_int_equal(pace_at(&base_pace, &p, 20000, &wait),
			 AS_PACE_BACKOFF);
	assert_int_equal(wait, 40000); /* 10 s x 4 */
	as_pace_started(&p, 60000);
	as_pace_ended(&base_pace, &p, 60000, false);
	assert_int_equal(pace_at(&base_pace, &p, 60000, &wait),
			 AS_PACE_BACKOFF);
	assert_int_equal(wait, 80000);
	as_pace_started(&p, 140000);
	as_pace_ended(&base_pace, &p, 140000, false);
	assert_int_equal(pace_at(&base_pace, &p, 140000, &wait),
			 AS_PACE_BACKOFF);
	assert_int_equal(wait, 100000); /* at backoff_max */
	/* A success ends the backoff: the plain cooldown again. */
	as_pace_started(&p, 240000);
	as_pace_ended(&base_pace, &p, 240000, true);
	assert_int_equal(pace_at(&base_pace, &p, 240000, &wait),
			 AS_PACE_COOLDOWN);
	assert_int_equal(wait, 10000);
}

static void pace_check_refuses_bad_settings(void **state)
{
	struct as_pace_config cfg = base_pace;
	char err[TEXT_MAX] = "";

	(void)state;
	assert_int_equal(as_pace_config_check(&cfg, err, sizeof(err)), 0);
	cfg.rate_max = AS_RATE_MAX + 1;
	assert_int_equal(as_pace_config_check(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rate limit of 65 changes"));
	cfg.rate_max = 2;
	cfg.rate_window_ms = 0;
	assert_int_equal(as_pace_config_check(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs a window"));
	assert_string_equal(as_pace_name(AS_PACE_RATE), "rate-limit");
	assert_string_equal(as_pace_name(AS_PACE_BACKOFF), "backoff");
}

static void describe_names_load_threshold_hold_and_target(void **state)
{
	struct as_state st;
	struct as_decision d;
	char text[TEXT_MAX];

	(void)state;
	as_state_init(&st);
	sample(&base_cfg, &st, 0, 250, 1);
	d = sample(&base_cfg, &st, HOLD_MS, 250, 1);
	as_describe(&base_cfg, 250, 1, &d, text, sizeof(text));
	assert_string_equal(text, "load 250% > 80% (80% of 1 vCPU) for 3.0 s "
				  "of 3.0 s, target ceil(250/80) = 4");
	sample(&base_cfg, &st, HOLD_MS, 0, 4);
	d = sample(&base_cfg, &st, HOLD_MS + 3500, 0, 4);
	as_describe(&base_cfg, 0, 4, &d, text, sizeof(text));
	assert_string_equal(text, "load 0% < 160% (40% of 4 vCPUs) for 3.5 s "
				  "of 3.0 s, target ceil(0/80) = 1");
	d = sample(&base_cfg, &st, HOLD_MS + 4000, 200, 4);
	as_describe(&base_cfg, 200, 4, &d, text, sizeof(text));
	assert_string_equal(text,
			    "load 200% within 160..320% (40..80% of 4 vCPUs)");
}

static void every_reason_has_a_name(void **state)
{
	enum as_reason r;

	(void)state;
	for (r = AS_REASON_IN_BAND; r <= AS_REASON_ABOVE_MAX; r++)
		assert_string_not_equal(as_reason_name(r), "unknown");
	assert_string_equal(as_reason_name(AS_REASON_OVER_HIGH), "over-high");
	assert_string_equal(as_reason_name((enum as_reason)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(target_is_ceil_of_load_over_high),
		cmocka_unit_test(target_is_clamped_to_min_and_max),
		cmocka_unit_test(ramp_up_waits_for_the_hold_time),
		cmocka_unit_test(zero_hold_acts_on_the_first_sample),
		cmocka_unit_test(
			hold_restarts_when_the_load_dips_into_the_band),
		cmocka_unit_test(hold_restarts_when_the_trend_reverses),
		cmocka_unit_test(load_swinging_inside_the_band_never_changes),
		cmocka_unit_test(
			load_flickering_across_high_shorter_than_hold_never_changes),
		cmocka_unit_test(steady_load_settles_with_one_change),
		cmocka_unit_test(narrow_band_does_not_flap),
		cmocka_unit_test(demand_up_then_idle_goes_up_then_back_to_min),
		cmocka_unit_test(scale_down_goes_to_the_target_after_the_hold),
		cmocka_unit_test(a_change_needs_a_fresh_hold),
		cmocka_unit_test(above_high_at_max_stays),
		cmocka_unit_test(ramp_up_is_capped_at_max),
		cmocka_unit_test(below_low_at_min_stays),
		cmocka_unit_test(count_below_min_is_raised_at_once),
		cmocka_unit_test(count_above_max_is_lowered_at_once),
		cmocka_unit_test(clock_going_back_restarts_the_hold),
		cmocka_unit_test(config_check_accepts_defaults),
		cmocka_unit_test(config_check_refuses_bad_settings),
		cmocka_unit_test(config_takes_vcpus_up_to_what_xen_allows),
		cmocka_unit_test(no_change_within_the_cooldown),
		cmocka_unit_test(at_most_rate_max_changes_per_window),
		cmocka_unit_test(toggling_for_an_hour_is_held_to_the_rate),
		cmocka_unit_test(failures_back_off_doubling_up_to_the_most),
		cmocka_unit_test(pace_check_refuses_bad_settings),
		cmocka_unit_test(describe_names_load_threshold_hold_and_target),
		cmocka_unit_test(every_reason_has_a_name),
	};

	return cmocka_run_group_tests_name("autoscale_policy", tests, NULL,
					   NULL);
}
