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
/* The guest handles up to 32 vCPUs (docs/xenstore.md). */
#define AS_VCPUS_MAX 32

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
