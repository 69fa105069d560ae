/* SPDX-License-Identifier: MIT */
/*
 * autoscale_policy.h - the autoscaler's decision logic, pure: a load sample,
 * the current vCPU count and the time in, a decision and its reason out.
 * No xenstore, no clock, no I/O, so that host tests drive it sample by
 * sample (tests/unit/autoscale_policy_test.c).
 *
 * Load is in percent of one vCPU (250 = work for 2.5 vCPUs), as the guest
 * publishes it in data/smpalt/load.  The capacity of N vCPUs is N * 100.
 *
 *   utilisation = load / vcpus              (percent of each vCPU)
 *   target      = ceil(load / high_pct)     clamped to [min, max]
 *
 * Scale up when utilisation > high_pct has held for hold_up_ms, down when
 * utilisation < low_pct has held for hold_down_ms; in both cases to the
 * target.  Between the two thresholds nothing changes (the hysteresis
 * band).  The target depends on the load alone and keeps utilisation at or
 * below high_pct, so a steady load settles on one count and stays there.
 * A hold restarts after every change and whenever the condition breaks.
 */
#ifndef SMPALT_AUTOSCALE_POLICY_H
#define SMPALT_AUTOSCALE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Load and thresholds are in percent of one vCPU. */
#define AS_PERCENT 100
/* Largest accepted threshold: 100% of a vCPU is all of it. */
#define AS_THRESHOLD_MAX AS_PERCENT
/*
 * Most vCPUs Xen gives a guest: MAX_VIRT_CPUS of Xen's x86 build for a PV
 * guest (an HVM guest stops at HVM_MAX_VCPUS, 128).  Each domain is held
 * to its own maxvcpus besides.
 */
#define AS_VCPUS_MAX 8192

struct as_config {
	unsigned int high_pct;	/* scale up above this utilisation */
	unsigned int low_pct;	/* scale down below it (0: never) */
	uint64_t hold_up_ms;	/* how long above high before scaling up */
	uint64_t hold_down_ms;	/* how long below low before scaling down */
	unsigned int min_vcpus; /* never fewer (at least 1) */
	unsigned int max_vcpus; /* never more */
};

enum as_action {
	AS_STAY,
	AS_UP,
	AS_DOWN,
};

enum as_reason {
	AS_REASON_IN_BAND,	/* utilisation between low and high */
	AS_REASON_HOLDING_UP,	/* above high, hold time not over yet */
	AS_REASON_HOLDING_DOWN, /* below low, hold time not over yet */
	AS_REASON_OVER_HIGH,	/* scale up: above high for the hold time */
	AS_REASON_UNDER_LOW,	/* scale down: below low for the hold time */
	AS_REASON_AT_MAX,	/* above high but already at max */
	AS_REASON_AT_TARGET,	/* below low but target is not lower */
	AS_REASON_BELOW_MIN,	/* fewer vCPUs than min: raise at once */
	AS_REASON_ABOVE_MAX,	/* more vCPUs than max: lower at once */
};

/* Per-domain memory of the condition being held. */
struct as_state {
	int trend;	   /* +1 above high, -1 below low, 0 in band */
	uint64_t since_ms; /* time of the first sample of this trend */
};

struct as_decision {
	enum as_action action;
	enum as_reason reason;
	unsigned int vcpus;  /* count to set (the current one on AS_STAY) */
	unsigned int target; /* ceil(load / high_pct), clamped */
	uint64_t held_ms;    /* how long the condition has held */
	uint64_t hold_ms;    /* how long it must hold (0 if none applies) */
};

/*
 * Check a configuration.  Returns 0, or -EINVAL with a message naming the
 * offending setting in err.
 */
int as_config_check(const struct as_config *cfg, char *err, size_t len);

void as_state_init(struct as_state *st);

/* ceil(load / high_pct), clamped to [min_vcpus, max_vcpus]. */
unsigned int as_target(const struct as_config *cfg, unsigned int load);

/*
 * One sample: load (percent of one vCPU) seen at now_ms with vcpus
 * currently set.  Updates st, fills d.  A change (AS_UP / AS_DOWN)
 * restarts the hold: the caller is expected to apply it.
 */
void as_decide(const struct as_config *cfg, struct as_state *st,
	       uint64_t now_ms, unsigned int load, unsigned int vcpus,
	       struct as_decision *d);

/*
 * The pace of changes to one domain, apart from what the load asks for:
 * after a change ends, none for cooldown_ms; at most rate_max changes
 * started in any rate_window_ms; after k failed changes in a row, none
 * for cooldown_ms x 2^k (at most backoff_max_ms) after the last one
 * ended.  A success ends the backoff.
 */
#define AS_RATE_MAX 64 /* largest rate_max: the changes remembered */

struct as_pace_config {
	uint64_t cooldown_ms;	 /* quiet time after a change */
	unsigned int rate_max;	 /* changes per window (0: no limit) */
	uint64_t rate_window_ms; /* the window */
	uint64_t backoff_max_ms; /* longest wait after failures */
};

/* Per-domain memory of the changes made. */
struct as_pace {
	uint64_t started_ms[AS_RATE_MAX]; /* ring of the last starts */
	unsigned int count;		  /* entries in it (<= AS_RATE_MAX) */
	unsigned int next;		  /* where the next start goes */
	unsigned int failures;		  /* failed changes in a row */
	bool quiet;			  /* no change before quiet_until_ms */
	uint64_t quiet_until_ms;
};

enum as_pace_verdict {
	AS_PACE_GO,	  /* a change may start now */
	AS_PACE_COOLDOWN, /* within the cooldown after the last change */
	AS_PACE_RATE,	  /* rate_max changes within the window already */
	AS_PACE_BACKOFF,  /* backing off after failed changes */
};

/* 0, or -EINVAL with a message naming the offending setting in err. */
int as_pace_config_check(const struct as_pace_config *cfg, char *err,
			 size_t len);
void as_pace_init(struct as_pace *p);
/* May a change start at now_ms?  If not, *wait_ms says for how long not. */
enum as_pace_verdict as_pace_check(const struct as_pace_config *cfg,
				   const struct as_pace *p, uint64_t now_ms,
				   uint64_t *wait_ms);
/* A change started at now_ms (it counts toward the rate limit). */
void as_pace_started(struct as_pace *p, uint64_t now_ms);
/* The change ended at now_ms, ok or not: the cooldown or backoff starts. */
void as_pace_ended(const struct as_pace_config *cfg, struct as_pace *p,
		   uint64_t now_ms, bool ok);
/* "cooldown", "rate-limit", "backoff" ("" for AS_PACE_GO). */
const char *as_pace_name(enum as_pace_verdict v);

/* Short name of a reason ("over-high", ...), for logs and CSVs. */
const char *as_reason_name(enum as_reason reason);

/*
 * The decision's reason as one human-readable phrase, e.g.
 * "load 250% > 80% of 1 vCPU for 3.0 s, target ceil(250/80) = 4".
 * Returns what snprintf returns.
 */
int as_describe(const struct as_config *cfg, unsigned int load,
		unsigned int vcpus, const struct as_decision *d, char *buf,
		size_t len);

#endif /* SMPALT_AUTOSCALE_POLICY_H */
