/* SPDX-License-Identifier: MIT */
/*
 * autoscale_ratelimit.h - how many lines a guest can make the autoscaler
 * log, pure: a burst and an interval as printk_ratelimit() has them, kept
 * per domain and per reason.  A guest that alternates its claim every
 * period would otherwise get a line per period (86400 a day at 1 s); a
 * limit per domain keeps one guest from silencing the lines of another,
 * and one per reason keeps a flood of one kind from hiding the other
 * kinds.  No clock, no I/O: the caller gives the time and writes the
 * line.  Host tests: autoscale_ratelimit_test.c.
 *
 * Within an interval that starts at the first line of a reason, the
 * first AS_RATELIMIT_BURST lines are logged and the rest counted; the
 * first line logged after them says how many were left out.
 */
#ifndef SMPALT_AUTOSCALE_RATELIMIT_H
#define SMPALT_AUTOSCALE_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Lines of one reason for one domain logged per interval. */
#define AS_RATELIMIT_BURST 5
#define AS_RATELIMIT_INTERVAL_MS (60 * 1000)

/* The kinds of line a guest's keys can make the autoscaler log. */
enum as_ratelimit_reason {
	AS_RL_SOURCE,	  /* its load now from its claim, or from Xen's */
	AS_RL_CAPPED,	  /* its claim cut by the clamp */
	AS_RL_NO_LOAD,	  /* no claim and no Xen figure: no decision */
	AS_RL_UNREADABLE, /* its keys cannot be read */
	AS_RL_REASONS,
};

/* One reason's interval. */
struct as_ratelimit_slot {
	bool started;		       /* an interval is running */
	unsigned int logged;	       /* lines logged in it */
	uint64_t begin_ms;	       /* when it began */
	unsigned long long suppressed; /* left out since the last logged */
};

/* One domain's limits: all zero (static or memset) is ready for use. */
struct as_ratelimit {
	struct as_ratelimit_slot slot[AS_RL_REASONS];
};

/*
 * Should the domain's line of reason be logged at now_ms (any monotonic
 * millisecond clock)?  When it should, *suppressed is set to the lines of
 * that reason left out since the last one logged (0 mostly), for the line
 * to say so.  A time earlier than the interval's start (a clock that went
 * back) starts a new interval: the limit may let one burst more through,
 * never hold lines back for good.  The difference is taken modulo 2^64,
 * so a clock that wraps goes on forward.  A reason out of range is always
 * logged (a line is never lost to a caller's mistake).
 */
bool as_ratelimit_allow(struct as_ratelimit *rl, unsigned int reason,
			uint64_t now_ms, unsigned long long *suppressed);

/* The longest note as_ratelimit_note() writes, with its terminator. */
#define AS_RATELIMIT_NOTE_LEN \
	sizeof(" (18446744073709551615 similar lines suppressed)")

/*
 * " (N similar lines suppressed)" for suppressed lines, "" for none, in
 * buf of len bytes (truncated to fit, always terminated when len > 0):
 * what the next logged line appends.
 */
void as_ratelimit_note(char *buf, size_t len, unsigned long long suppressed);

#endif /* SMPALT_AUTOSCALE_RATELIMIT_H */
