/* SPDX-License-Identifier: MIT */
/*
 * clock.h - telling a clock that runs from one that stands still, for
 * whoever times something with it (the benchmarks, a text switch).
 *
 * A reading is (ns, version): two readings under the same version come from
 * one linear extrapolation.  The clock can stand still for a while without
 * going back: Xen emulates rdtsc for a PV guest when the host's TSC is not
 * reliable (CPUID leaf 0x40000003 says so), and keeps the emulated TSC
 * monotonic per domain by returning the last value + 1 while the pCPU's
 * own time lags what another read already returned (a vCPU that ran on a
 * pCPU whose clock is ahead).  A timing that starts then is short by up
 * to the lag; here a timing starts only once the clock is seen running.
 */
#ifndef SMPALT_CLOCK_H
#define SMPALT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* One reading: ns, and the version of the record it came from. */
typedef uint64_t (*clock_read_fn)(void *ctx, uint32_t *version);

/* Steps clock_step() looks at, and the reads it waits for each one. */
#define CLOCK_STEP_SAMPLES 255
#define CLOCK_STEP_SPINS 1000000UL
/* Pairs of readings it takes at most to find them (stalls included). */
#define CLOCK_STEP_PAIRS 100000UL

/*
 * A step this small is the clock standing still, not a read's cost: no
 * x86 reads its TSC and Xen's record in a nanosecond, while an emulated
 * TSC that stands still advances by one tick (under a nanosecond) a read.
 */
#define CLOCK_STILL_NS 1

/*
 * The clock's step: the median time between two readings taken back to
 * back under one version; steps across a version, and steps of at most
 * CLOCK_STILL_NS (the clock standing still), are not counted.  The median
 * of what is counted, so that no odd step sets the bar.  0: the clock did
 * not advance in CLOCK_STEP_SPINS reads, went back under one version, or
 * no step was counted in CLOCK_STEP_PAIRS pairs of readings.
 */
uint64_t clock_step(clock_read_fn read, void *ctx);

/*
 * Running: a step of at least step / CLOCK_LIVE_DIVISOR, and more than
 * CLOCK_STILL_NS, between two readings under one version.  A clock that
 * stands still steps by a nanosecond or less; a running one by about
 * `step`.
 */
#define CLOCK_LIVE_DIVISOR 4
#define CLOCK_LIVE_SPINS 100000UL

/*
 * Read the clock until it is seen running (at most CLOCK_LIVE_SPINS reads)
 * and return that last reading in *now, *version.  false: it was not seen
 * running (*now, *version: the last reading all the same).  step: from
 * clock_step(); 0 takes the first reading as it is.
 */
bool clock_live(clock_read_fn read, void *ctx, uint64_t step, uint64_t *now,
		uint32_t *version);

/*
 * A timing from t0 (version v0, taken by clock_live()) to t1 (version v1):
 * its ns if it is one extrapolation (v0 == v1) and at least a step long
 * (nothing timed is shorter than the read that ends it), else 0.
 */
uint64_t clock_elapsed(uint64_t t0, uint32_t v0, uint64_t t1, uint32_t v1,
		       uint64_t step);

#endif /* SMPALT_CLOCK_H */
