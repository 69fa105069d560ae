// SPDX-License-Identifier: MIT
/*
 * autoscale_settings.c - the one table of settings, their parser and
 * their ranges.  See autoscale_settings.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "autoscale_policy.h"
#include "autoscale_settings.h"

#define MS_PER_SEC 1000ULL
#define MS_DIGITS 3
/* Longest time accepted: a day. */
#define DAY_MS (86400 * MS_PER_SEC)
/* The sample period: from 10 ms (below, the round's own reads dominate)
 * to an hour. */
#define PERIOD_MIN_MS 10
#define PERIOD_MAX_MS (3600 * MS_PER_SEC)
#define BIT(f) AS_CONF_BIT(AS_CONF_##f)

const struct as_setting as_settings_table[] = {
	{"high", "high", 'H', BIT(HIGH), AS_SETTING_UINT, 1, AS_THRESHOLD_MAX,
	 "percent", false},
	/* Below high, which is at most 100. */
	{"low", "low", 'L', BIT(LOW), AS_SETTING_UINT, 0, AS_THRESHOLD_MAX - 1,
	 "percent", false},
	{"hold", "hold", 0, BIT(HOLD_UP) | BIT(HOLD_DOWN), AS_SETTING_SECONDS,
	 0, DAY_MS, "seconds", false},
	{"hold-up", "hold-up", 0, BIT(HOLD_UP), AS_SETTING_SECONDS, 0, DAY_MS,
	 "seconds", false},
	{"hold-down", "hold-down", 0, BIT(HOLD_DOWN), AS_SETTING_SECONDS, 0,
	 DAY_MS, "seconds", false},
	{"period", "period", 'p', BIT(PERIOD), AS_SETTING_SECONDS,
	 PERIOD_MIN_MS, PERIOD_MAX_MS, "seconds", true},
	{"min", "min", 'm', BIT(MIN), AS_SETTING_UINT, 1, AS_VCPUS_MAX, "vCPUs",
	 false},
	{"max", "max", 'M', BIT(MAX), AS_SETTING_UINT, 1, AS_VCPUS_MAX, "vCPUs",
	 false},
	{"cooldown", "cooldown", 0, BIT(COOLDOWN), AS_SETTING_SECONDS, 0,
	 DAY_MS, "seconds", false},
	/* The pace remembers at most AS_RATE_MAX changes. */
	{"rate-limit", "rate-max", 0, BIT(RATE_LIMIT), AS_SETTING_UINT, 0,
	 AS_RATE_MAX, "changes", false},
	{"rate-window", "rate-window", 0, BIT(RATE_WINDOW), AS_SETTING_SECONDS,
	 MS_PER_SEC, DAY_MS, "seconds", false},
	{"signal", "signal", 's', BIT(SIGNAL), AS_SETTING_SIGNAL, 0, 0, NULL,
	 false},
	{NULL, NULL, 0, 0, AS_SETTING_UINT, 0, 0, NULL, false},
};

const struct as_setting *as_setting_by_key(const char *key)
{
	const struct as_setting *st;

	for (st = as_settings_table; st->key; st++)
		if (!strcmp(st->key, key))
			return st;
	return NULL;
}

const char *as_conf_key(enum as_conf_field field)
{
	const struct as_setting *st;

	for (st = as_settings_table; st->key; st++)
		if (st->bits == AS_CONF_BIT(field))
			return st->key;
	return "?";
}

/* Decimal digits only, at most max. */
static bool parse_whole(const char *v, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		n = n * 10 + (uint64_t)(v[i] - '0');
		if (n > max)
			return false;
	}
	*out = n;
	return true;
}

/* "SEC" or "SEC.F" (up to three decimals) into milliseconds, at most
 * max_ms. */
static bool parse_seconds(const char *v, uint64_t max_ms, uint64_t *ms)
{
	const char *dot = strchr(v, '.');
	size_t wl = dot ? (size_t)(dot - v) : strlen(v), fl = 0;
	uint64_t secs, frac = 0;

	if (!parse_whole(v, wl, max_ms / MS_PER_SEC, &secs))
		return false;
	if (dot) {
		fl = strlen(dot + 1);
		if (!fl || fl > MS_DIGITS ||
		    !parse_whole(dot + 1, fl, MS_PER_SEC - 1, &frac))
			return false;
		for (; fl < MS_DIGITS; fl++)
			frac *= 10;
	}
	if (secs * MS_PER_SEC + frac > max_ms)
		return false;
	*ms = secs * MS_PER_SEC + frac;
	return true;
}

int as_seconds_parse(const char *value, uint64_t min_ms, uint64_t max_ms,
		     uint64_t *ms)
{
	uint64_t v;

	if (!parse_seconds(value, max_ms, &v) || v < min_ms)
		return -EINVAL;
	*ms = v;
	return 0;
}

static void set_fields(struct as_settings *s, unsigned int bits, uint64_t v)
{
	if (bits & BIT(HIGH))
		s->high_pct = (unsigned int)v;
	if (bits & BIT(LOW))
		s->low_pct = (unsigned int)v;
	if (bits & BIT(HOLD_UP))
		s->hold_up_ms = v;
	if (bits & BIT(HOLD_DOWN))
		s->hold_down_ms = v;
	if (bits & BIT(PERIOD))
		s->period_ms = v;
	if (bits & BIT(MIN))
		s->min_vcpus = (unsigned int)v;
	if (bits & BIT(MAX))
		s->max_vcpus = (unsigned int)v;
	if (bits & BIT(COOLDOWN))
		s->cooldown_ms = v;
	if (bits & BIT(RATE_LIMIT))
		s->rate_limit = (unsigned int)v;
	if (bits & BIT(RATE_WINDOW))
		s->rate_window_ms = v;
	s->set |= bits;
}

int as_setting_parse(const struct as_setting *st, const char *value,
		     struct as_settings *dst)
{
	uint64_t v = 0;
	bool ok;

	switch (st->type) {
	case AS_SETTING_SIGNAL: {
		enum as_signal sig;

		if (as_signal_parse(value, &sig))
			return -EINVAL;
		dst->signal = sig;
		dst->set |= st->bits;
		return 0;
	}
	case AS_SETTING_SECONDS:
		ok = !as_seconds_parse(value, st->min, st->max, &v);
		break;
	default:
		ok = parse_whole(value, strlen(value), st->max, &v);
		break;
	}
	if (!ok || v < st->min)
		return -EINVAL;
	set_fields(dst, st->bits, v);
	return 0;
}

/* Milliseconds as seconds, without trailing zeros: "0.01", "3600". */
static void seconds_text(char *buf, size_t len, uint64_t ms)
{
	int n = snprintf(buf, len, "%llu.%03llu",
			 (unsigned long long)(ms / MS_PER_SEC),
			 (unsigned long long)(ms % MS_PER_SEC));

	while (n > 0 && (size_t)n < len && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && (size_t)n < len && buf[n - 1] == '.')
		buf[--n] = '\0';
}

void as_setting_describe(const struct as_setting *st, char *buf, size_t len)
{
	char lo[32], hi[32];

	switch (st->type) {
	case AS_SETTING_SIGNAL:
		snprintf(buf, len, "auto, guest or xen");
		break;
	case AS_SETTING_SECONDS:
		seconds_text(lo, sizeof(lo), st->min);
		seconds_text(hi, sizeof(hi), st->max);
		snprintf(buf, len, "seconds, %s..%s (decimals: 2.5)", lo, hi);
		break;
	default:
		snprintf(buf, len, "a whole %s%s, %llu..%llu",
			 strcmp(st->unit, "percent") ? "number of " : "",
			 st->unit, (unsigned long long)st->min,
			 (unsigned long long)st->max);
		break;
	}
}

void as_settings_overlay(struct as_settings *dst, const struct as_settings *src)
{
#define COPY(f, member)                            \
	do {                                       \
		if (src->set & BIT(f))             \
			dst->member = src->member; \
	} while (0)
	COPY(HIGH, high_pct);
	COPY(LOW, low_pct);
	COPY(HOLD_UP, hold_up_ms);
	COPY(HOLD_DOWN, hold_down_ms);
	COPY(PERIOD, period_ms);
	COPY(MIN, min_vcpus);
	COPY(MAX, max_vcpus);
	COPY(COOLDOWN, cooldown_ms);
	COPY(RATE_LIMIT, rate_limit);
	COPY(RATE_WINDOW, rate_window_ms);
	COPY(SIGNAL, signal);
#undef COPY
	dst->set |= src->set;
}
