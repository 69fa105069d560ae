// SPDX-License-Identifier: MIT
/*
 * autoscale_policy.c - load in, vCPU decision out (see autoscale_policy.h).
 */
#include "autoscale_policy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MS_PER_SEC 1000
/* Milliseconds in a tenth of a second, for "3.0 s" in messages. */
#define MS_PER_TENTH 100

int as_config_check(const struct as_config *cfg, char *err, size_t len)
{
	if (cfg->high_pct < 1 || cfg->high_pct > AS_THRESHOLD_MAX) {
		snprintf(err, len, "high threshold %u%% is not within 1..%u%%",
			 cfg->high_pct, AS_THRESHOLD_MAX);
		return -EINVAL;
	}
	if (cfg->low_pct >= cfg->high_pct) {
		snprintf(err, len,
			 "low threshold %u%% must be below the high one (%u%%)",
			 cfg->low_pct, cfg->high_pct);
		return -EINVAL;
	}
	if (cfg->min_vcpus < 1 || cfg->min_vcpus > AS_VCPUS_MAX) {
		snprintf(err, len, "min vCPUs %u is not within 1..%u",
			 cfg->min_vcpus, AS_VCPUS_MAX);
		return -EINVAL;
	}
	if (cfg->max_vcpus < cfg->min_vcpus || cfg->max_vcpus > AS_VCPUS_MAX) {
		snprintf(err, len, "max vCPUs %u is not within min (%u)..%u",
			 cfg->max_vcpus, cfg->min_vcpus, AS_VCPUS_MAX);
		return -EINVAL;
	}
	return 0;
}

void as_state_init(struct as_state *st)
{
	st->trend = 0;
	st->since_ms = 0;
}

static unsigned int clamp_vcpus(const struct as_config *cfg, uint64_t n)
{
	if (n < cfg->min_vcpus)
		return cfg->min_vcpus;
	if (n > cfg->max_vcpus)
		return cfg->max_vcpus;
	return (unsigned int)n;
}

unsigned int as_target(const struct as_config *cfg, unsigned int load)
{
	uint64_t n = ((uint64_t)load + cfg->high_pct - 1) / cfg->high_pct;

	return clamp_vcpus(cfg, n);
}

/* Remember the trend of this sample; how long has it held? */
static uint64_t trend_held(struct as_state *st, int trend, uint64_t now_ms)
{
	if (st->trend != trend) {
		st->trend = trend;
		st->since_ms = now_ms;
	}
	/* A clock that went back counts as a fresh start. */
	if (now_ms < st->since_ms)
		st->since_ms = now_ms;
	return now_ms - st->since_ms;
}

static void decide_change(struct as_state *st, struct as_decision *d,
			  unsigned int vcpus, enum as_reason reason)
{
	d->action = d->vcpus > vcpus ? AS_UP : AS_DOWN;
	d->reason = reason;
	/* After a change, any further one needs a fresh hold. */
	as_state_init(st);
}

void as_decide(const struct as_config *cfg, struct as_state *st,
	       uint64_t now_ms, unsigned int load, unsigned int vcpus,
	       struct as_decision *d)
{
	/* Both sides of the comparisons in percent of one vCPU. */
	uint64_t high = (uint64_t)cfg->high_pct * vcpus;
	uint64_t low = (uint64_t)cfg->low_pct * vcpus;
	int trend = load > high ? 1 : load < low ? -1 : 0;

	d->action = AS_STAY;
	d->vcpus = vcpus;
	d->target = as_target(cfg, load);
	d->held_ms = 0;
	d->hold_ms = 0;

	/* Out of range (e.g. set by hand or by an earlier run): fix at once. */
	if (vcpus < cfg->min_vcpus || vcpus > cfg->max_vcpus) {
		d->vcpus = clamp_vcpus(cfg, vcpus);
		decide_change(st, d, vcpus,
			      vcpus < cfg->min_vcpus ? AS_REASON_BELOW_MIN
						     : AS_REASON_ABOVE_MAX);
		return;
	}

	d->held_ms = trend_held(st, trend, now_ms);
	if (trend == 0) {
		d->reason = AS_REASON_IN_BAND;
		return;
	}
	if (trend > 0) {
		d->hold_ms = cfg->hold_up_ms;
		if (d->target <= vcpus) {
			d->reason = AS_REASON_AT_MAX;
			return;
		}
		if (d->held_ms < cfg->hold_up_ms) {
			d->reason = AS_REASON_HOLDING_UP;
			return;
		}
		d->vcpus = d->target;
		decide_change(st, d, vcpus, AS_REASON_OVER_HIGH);
		return;
	}
	d->hold_ms = cfg->hold_down_ms;
	if (d->target >= vcpus) {
		d->reason = AS_REASON_AT_TARGET;
		return;
	}
	if (d->held_ms < cfg->hold_down_ms) {
		d->reason = AS_REASON_HOLDING_DOWN;
		return;
	}
	d->vcpus = d->target;
	decide_change(st, d, vcpus, AS_REASON_UNDER_LOW);
}

static const char *const reason_names[] = {
	[AS_REASON_IN_BAND] = "in-band",
	[AS_REASON_HOLDING_UP] = "holding-up",
	[AS_REASON_HOLDING_DOWN] = "holding-down",
	[AS_REASON_OVER_HIGH] = "over-high",
	[AS_REASON_UNDER_LOW] = "under-low",
	[AS_REASON_AT_MAX] = "at-max",
	[AS_REASON_AT_TARGET] = "at-target",
	[AS_REASON_BELOW_MIN] = "below-min",
	[AS_REASON_ABOVE_MAX] = "above-max",
};

const char *as_reason_name(enum as_reason reason)
{
	if ((size_t)reason >= sizeof(reason_names) / sizeof(reason_names[0]) ||
	    !reason_names[reason])
		return "unknown";
	return reason_names[reason];
}

static const char *plural(unsigned int n)
{
	return n == 1 ? "" : "s";
}

int as_describe(const struct as_config *cfg, unsigned int load,
		unsigned int vcpus, const struct as_decision *d, char *buf,
		size_t len)
{
	unsigned long long held_s = d->held_ms / MS_PER_SEC;
	unsigned int held_tenth =
		(unsigned int)(d->held_ms % MS_PER_SEC / MS_PER_TENTH);
	unsigned long long hold_s = d->hold_ms / MS_PER_SEC;
	unsigned int hold_tenth =
		(unsigned int)(d->hold_ms % MS_PER_SEC / MS_PER_TENTH);
	/* The bound the load was compared with, in percent of one vCPU. */
	unsigned long long high = (unsigned long long)cfg->high_pct * vcpus;
	unsigned long long low = (unsigned long long)cfg->low_pct * vcpus;

	switch (d->reason) {
	case AS_REASON_IN_BAND:
		return snprintf(buf, len,
				"load %u%% within %llu..%llu%% (%u..%u%% of %u "
				"vCPU%s)",
				load, low, high, cfg->low_pct, cfg->high_pct,
				vcpus, plural(vcpus));
	case AS_REASON_HOLDING_UP:
	case AS_REASON_OVER_HIGH:
	case AS_REASON_AT_MAX:
		return snprintf(buf, len,
				"load %u%% > %llu%% (%u%% of %u vCPU%s) for "
				"%llu.%u s of %llu.%u s, target ceil(%u/%u) "
				"= %u%s",
				load, high, cfg->high_pct, vcpus, plural(vcpus),
				held_s, held_tenth, hold_s, hold_tenth, load,
				cfg->high_pct, d->target,
				d->reason == AS_REASON_AT_MAX ? " (at --max)"
							      : "");
	case AS_REASON_HOLDING_DOWN:
	case AS_REASON_UNDER_LOW:
	case AS_REASON_AT_TARGET:
		return snprintf(
			buf, len,
			"load %u%% < %llu%% (%u%% of %u vCPU%s) for "
			"%llu.%u s of %llu.%u s, target ceil(%u/%u) "
			"= %u%s",
			load, low, cfg->low_pct, vcpus, plural(vcpus), held_s,
			held_tenth, hold_s, hold_tenth, load, cfg->high_pct,
			d->target,
			d->reason == AS_REASON_AT_TARGET ? " (not lower)" : "");
	case AS_REASON_BELOW_MIN:
		return snprintf(buf, len, "%u vCPU%s is below --min %u", vcpus,
				plural(vcpus), cfg->min_vcpus);
	case AS_REASON_ABOVE_MAX:
		return snprintf(buf, len, "%u vCPU%s is above --max %u", vcpus,
				plural(vcpus), cfg->max_vcpus);
	}
	return snprintf(buf, len, "unknown reason %d", (int)d->reason);
}

/* ----------------------------------------------------------------- pace */

int as_pace_config_check(const struct as_pace_config *cfg, char *err,
			 size_t len)
{
	if (cfg->rate_max > AS_RATE_MAX) {
		snprintf(err, len,
			 "rate limit of %u changes is not within 0..%u",
			 cfg->rate_max, AS_RATE_MAX);
		return -EINVAL;
	}
	if (cfg->rate_max && !cfg->rate_window_ms) {
		snprintf(err, len,
			 "a rate limit of %u changes needs a window "
			 "longer than 0 s",
			 cfg->rate_max);
		return -EINVAL;
	}
	return 0;
}

void as_pace_init(struct as_pace *p)
{
	memset(p, 0, sizeof(*p));
}

enum as_pace_verdict as_pace_check(const struct as_pace_config *cfg,
				   const struct as_pace *p, uint64_t now_ms,
				   uint64_t *wait_ms)
{
	*wait_ms = 0;
	if (p->quiet && now_ms < p->quiet_until_ms) {
		*wait_ms = p->quiet_until_ms - now_ms;
		return p->failures ? AS_PACE_BACKOFF : AS_PACE_COOLDOWN;
	}
	if (cfg->rate_max && p->count >= cfg->rate_max) {
		/* The rate_max-th latest start opens the window. */
		uint64_t oldest =
			p->started_ms[(p->next + AS_RATE_MAX - cfg->rate_max) %
				      AS_RATE_MAX];

		if (now_ms >= oldest && now_ms - oldest < cfg->rate_window_ms) {
			*wait_ms = oldest + cfg->rate_window_ms - now_ms;
			return AS_PACE_RATE;
		}
	}
	return AS_PACE_GO;
}

void as_pace_started(struct as_pace *p, uint64_t now_ms)
{
	p->started_ms[p->next] = now_ms;
	p->next = (p->next + 1) % AS_RATE_MAX;
	if (p->count < AS_RATE_MAX)
		p->count++;
}

/* cooldown x 2^failures, at most backoff_max (and no overflow). */
static uint64_t backoff_ms(const struct as_pace_config *cfg,
			   unsigned int failures)
{
	uint64_t ms = cfg->cooldown_ms;
	unsigned int i;

	for (i = 0; i < failures && ms && ms < cfg->backoff_max_ms; i++)
		ms *= 2;
	if (failures && ms > cfg->backoff_max_ms)
		return cfg->backoff_max_ms > cfg->cooldown_ms
			       ? cfg->backoff_max_ms
			       : cfg->cooldown_ms;
	return ms;
}

void as_pace_ended(const struct as_pace_config *cfg, struct as_pace *p,
		   uint64_t now_ms, bool ok)
{
	if (ok)
		p->failures = 0;
	else if (p->failures < UINT32_MAX)
		p->failures++;
	p->quiet = true;
	p->quiet_until_ms = now_ms + backoff_ms(cfg, p->failures);
}

const char *as_pace_name(enum as_pace_verdict v)
{
	switch (v) {
	case AS_PACE_GO:
		return "";
	case AS_PACE_COOLDOWN:
		return "cooldown";
	case AS_PACE_RATE:
		return "rate-limit";
	case AS_PACE_BACKOFF:
		return "backoff";
	}
	return "unknown";
}
