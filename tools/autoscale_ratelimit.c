// SPDX-License-Identifier: MIT
/*
 * autoscale_ratelimit.c - a burst of lines per interval, per domain and
 * per reason.  See autoscale_ratelimit.h.
 */
#include <stdio.h>

#include "autoscale_ratelimit.h"

bool as_ratelimit_allow(struct as_ratelimit *rl, unsigned int reason,
			uint64_t now_ms, unsigned long long *suppressed)
{
	struct as_ratelimit_slot *s;

	if (reason >= AS_RL_REASONS) {
		*suppressed = 0;
		return true;
	}
	s = &rl->slot[reason];
	/*
	 * Unsigned: a clock that wrapped past 2^64 gives the true (small)
	 * elapsed time; one that went back gives a huge one, which starts
	 * a new interval rather than silencing the reason until the clock
	 * catches up.
	 */
	if (!s->started || now_ms - s->begin_ms >= AS_RATELIMIT_INTERVAL_MS) {
		s->started = true;
		s->begin_ms = now_ms;
		s->logged = 0;
	}
	if (s->logged >= AS_RATELIMIT_BURST) {
		/* Saturate: a count that wrapped would claim few were lost. */
		if (s->suppressed < ~0ULL)
			s->suppressed++;
		return false;
	}
	s->logged++;
	*suppressed = s->suppressed;
	s->suppressed = 0;
	return true;
}

void as_ratelimit_note(char *buf, size_t len, unsigned long long suppressed)
{
	if (!len)
		return;
	if (!suppressed) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, " (%llu similar line%s suppressed)", suppressed,
		 suppressed == 1 ? "" : "s");
}
