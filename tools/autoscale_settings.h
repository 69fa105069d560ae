/* SPDX-License-Identifier: MIT */
/*
 * autoscale_settings.h - the settings a domain's scaling takes, in one
 * table that both the command line (autoscale_cli.c) and the
 * configuration file (autoscale_config.c) read: each setting's option, its
 * key in the file, its type and its range.  The two accept exactly the
 * same values, parsed by as_setting_parse() (host tests:
 * autoscale_settings_test.c walks the table through both parsers).
 *
 * Values: a whole number ("12"), or seconds with up to three decimals
 * ("2.5"), kept in milliseconds; the signal is a name (auto, guest, xen).
 */
#ifndef SMPALT_AUTOSCALE_SETTINGS_H
#define SMPALT_AUTOSCALE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "autoscale_signal.h"

/* The settings, each a bit in as_settings.set. */
enum as_conf_field {
	AS_CONF_HIGH,
	AS_CONF_LOW,
	AS_CONF_HOLD_UP,
	AS_CONF_HOLD_DOWN,
	AS_CONF_PERIOD,
	AS_CONF_MIN,
	AS_CONF_MAX,
	AS_CONF_COOLDOWN,
	AS_CONF_RATE_LIMIT,
	AS_CONF_RATE_WINDOW,
	AS_CONF_SIGNAL,
	AS_CONF_FIELDS,
};

#define AS_CONF_BIT(field) (1u << (field))
#define AS_CONF_ALL (AS_CONF_BIT(AS_CONF_FIELDS) - 1)

struct as_settings {
	unsigned int set; /* AS_CONF_BIT() of each field given */
	unsigned int high_pct, low_pct;
	uint64_t hold_up_ms, hold_down_ms;
	uint64_t period_ms;
	unsigned int min_vcpus;
	unsigned int max_vcpus; /* 0: no bound but each domain's maxvcpus */
	uint64_t cooldown_ms;
	unsigned int rate_limit; /* changes per rate_window_ms, 0: none */
	uint64_t rate_window_ms;
	enum as_signal signal;
};

enum as_setting_type {
	AS_SETTING_UINT,    /* a whole number */
	AS_SETTING_SECONDS, /* seconds, up to three decimals; min, max in ms */
	AS_SETTING_SIGNAL,  /* auto, guest or xen */
};

/* One setting: how it is given, what it sets, what it accepts. */
struct as_setting {
	const char *key;    /* in the file: "hold-up" */
	const char *option; /* on the command line: "hold-up" (--hold-up) */
	char short_opt;	    /* 'H' for -H, or 0 */
	unsigned int bits;  /* the fields it sets (hold sets two) */
	enum as_setting_type type;
	uint64_t min, max; /* inclusive; milliseconds for seconds */
	const char *unit;  /* what the value counts: "percent", "vCPUs" */
	bool global;	   /* the same for every domain: [defaults] only */
};

/* The table, ended by an entry whose key is NULL. */
extern const struct as_setting as_settings_table[];

/* The setting called key in the file, or NULL. */
const struct as_setting *as_setting_by_key(const char *key);

/*
 * Parse value for st into dst (every field in st->bits, and their bits in
 * dst->set).  0, or -EINVAL for a value it does not accept (dst as it
 * was).
 */
int as_setting_parse(const struct as_setting *st, const char *value,
		     struct as_settings *dst);

/* Seconds ("2.5", up to three decimals) within [min_ms, max_ms] into
 * *ms: 0 or -EINVAL. */
int as_seconds_parse(const char *value, uint64_t min_ms, uint64_t max_ms,
		     uint64_t *ms);

/* What st accepts, for errors: "a whole percent, 1..100". */
void as_setting_describe(const struct as_setting *st, char *buf, size_t len);

/* The fields of src that are set, copied over dst's. */
void as_settings_overlay(struct as_settings *dst,
			 const struct as_settings *src);

/* A field's key in the file ("hold-up"). */
const char *as_conf_key(enum as_conf_field field);

#endif /* SMPALT_AUTOSCALE_SETTINGS_H */
