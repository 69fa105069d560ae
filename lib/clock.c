// SPDX-License-Identifier: MIT
/*
 * clock.c - a clock's step and whether it runs (see clock.h).  Pure: the
 * clock is a function, so the host tests drive it with clocks that stall.
 */
#include <smpalt/clock.h>
#include <smpalt/kernel.h>

/* The middle one of n values (the upper one for n even), by counting. */
static uint64_t clock_median(const uint64_t *v, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		unsigned int below = 0, equal = 0;

		for (j = 0; j < n; j++) {
			below += v[j] < v[i];
			equal += v[j] == v[i];
		}
		if (below <= n / 2 && n / 2 < below + equal)
			return v[i];
	}
	return 0; /* not reached: some value holds the middle */
}

uint64_t clock_step(clock_read_fn read, void *ctx)
{
	uint64_t steps[CLOCK_STEP_SAMPLES];
	unsigned int n = 0;
	unsigned long pair, spin;

	for (pair = 0; n < CLOCK_STEP_SAMPLES && pair < CLOCK_STEP_PAIRS;
	     pair++) {
		uint32_t v0, v1;
		uint64_t t0 = read(ctx, &v0), t1 = t0;

		for (spin = 0; spin < CLOCK_STEP_SPINS && t1 == t0; spin++)
			t1 = read(ctx, &v1);
		if (t1 == t0)
			return 0; /* stood still */
		if (v1 != v0)
			continue; /* re-based between the two: not a step */
		if (t1 < t0)
			return 0; /* went back within one extrapolation */
		if (t1 - t0 > CLOCK_STILL_NS)
			steps[n++] = t1 - t0;
	}
	return n ? clock_median(steps, n) : 0;
}

bool clock_live(clock_read_fn read, void *ctx, uint64_t step, uint64_t *now,
		uint32_t *version)
{
	uint64_t need = MAX(step / CLOCK_LIVE_DIVISOR, CLOCK_STILL_NS + 1);
	uint64_t prev;
	uint32_t v, prev_v;
	unsigned long spin;

	*now = read(ctx, version);
	if (!step)
		return true;
	for (spin = 0; spin < CLOCK_LIVE_SPINS; spin++) {
		prev = *now;
		prev_v = *version;
		*now = read(ctx, &v);
		*version = v;
		if (v == prev_v && *now > prev && *now - prev >= need)
			return true;
	}
	return false;
}

uint64_t clock_elapsed(uint64_t t0, uint32_t v0, uint64_t t1, uint32_t v1,
		       uint64_t step)
{
	if (v0 != v1 || t1 <= t0 || t1 - t0 < step)
		return 0;
	return t1 - t0;
}
