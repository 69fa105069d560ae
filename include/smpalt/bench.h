/* SPDX-License-Identifier: MIT */
/*
 * bench.h - in-guest benchmarks of the two forms of the text, on one vCPU:
 * any function timed in the SMP and in the UP form (bench_forms()), and
 * with it each lock-heavy primitive (spinlock, atomic increment, refcount
 * get/put).
 */
#ifndef SMPALT_BENCH_H
#define SMPALT_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include <smpalt/alt_core.h>

/* Stringify a number for a constant case name: "spinlock (10000 x ...)". */
#define BENCH_STR(x) #x
#define BENCH_XSTR(x) BENCH_STR(x)

/* One function timed in both forms of the text. */
struct bench_case {
	const char *name;  /* as the "bench: <name>:" line shows it */
	void (*run)(void); /* one timed batch of ops operations */
	unsigned int ops;  /* operations in one batch (at least 1) */
	bool per_op;	   /* the line shows ns per operation, not per batch */
	/* Out: the fastest batch in each form, ns (indexed by alt_mode). */
	uint64_t best[ALT_MODE_UP + 1];
	unsigned int runs; /* out: batches run, whatever the outcome */
};

/*
 * Time each case in both forms: rounds alternating rounds (SMP form, then
 * UP form, each case once in each), the fastest batch of each kept, then
 * the text back in the form it was found.  Then one line per case:
 *
 *   bench: <name>: SMP form <s> ns, UP form <u> ns, SMP/UP <x.yy>
 *
 * (s and u per operation when per_op, else per batch; the ratio from the
 * batches).  resolution: time_local_step() (time.h).  Only while vCPU 0
 * runs alone (it switches the text).  0, or -errno after reporting ERROR
 * (report.h) and printing no line: the clock stood still (resolution 0),
 * a switch failed, or a timing was implausible: zero, below the clock's
 * resolution (a busy host stretches a timing, never shrinks it below
 * that), or below 1 ns per operation when per_op (no figure shows as 0).
 */
int bench_forms(struct bench_case *cases, unsigned int n, unsigned int rounds,
		uint64_t resolution);

/*
 * Time each primitive in both forms (bench_forms(), best of several
 * rounds) after a "bench: clock resolution <r> ns" line; leaves the text
 * in the form it found.  Only while vCPU 0 runs alone.  0, or -errno after
 * reporting ERROR.
 */
int bench_locks(void);

#endif /* SMPALT_BENCH_H */
