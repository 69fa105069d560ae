// SPDX-License-Identifier: MIT
/*
 * bench.c - functions timed in the two forms of the text (bench_forms()),
 * and with it each lock-heavy primitive alone: a spinlock lock/unlock pair,
 * an atomic increment, a refcount get/put pair.  One line per function,
 * in the form bench-report.py parses; the time is for a batch of
 * operations so that the integer nanoseconds keep their precision.
 *
 * A timing is only printed if it is plausible: more than zero and at least
 * the clock's resolution, the median step between two readings of the
 * clock (time_local_step()).  A busy host can stretch a timing, never
 * shrink it below that: anything less means the clock misbehaved, and the
 * run reports ERROR.
 */
#define pr_fmt(fmt) "bench: " fmt

#include <smpalt/bench.h>
#include <smpalt/alt_core.h>
#include <smpalt/atomic.h>
#include <smpalt/clock.h>
#include <smpalt/errno.h>
#include <smpalt/kernel.h>
#include <smpalt/printk.h>
#include <smpalt/refcount.h>
#include <smpalt/report.h>
#include <smpalt/smpmode.h>
#include <smpalt/spinlock.h>
#include <smpalt/time.h>

/* Operations per timed batch, and alternating rounds (best one kept). */
#define BENCH_OPS 10000
#define BENCH_ROUNDS 5
#define BENCH_HUNDRED 100

/* Globals, as real users have them: the sites are rip-relative. */
static spinlock_t bench_lock = SPINLOCK_INIT;
static atomic_t bench_counter = ATOMIC_INIT(0);
static refcount_t bench_ref = REFCOUNT_INIT(1);
static uint64_t bench_guarded;

static __attribute__((noinline)) void bench_spinlock(void)
{
	unsigned int i;

	for (i = 0; i < BENCH_OPS; i++) {
		spin_lock(&bench_lock);
		bench_guarded++;
		spin_unlock(&bench_lock);
	}
}

static __attribute__((noinline)) void bench_atomic(void)
{
	unsigned int i;

	for (i = 0; i < BENCH_OPS; i++)
		atomic_inc(&bench_counter);
}

static __attribute__((noinline)) void bench_refcount(void)
{
	unsigned int i;

	for (i = 0; i < BENCH_OPS; i++) {
		refcount_get(&bench_ref);
		if (refcount_put(&bench_ref))
			pr_err("refcount dropped to zero\n");
	}
}

/*
 * A run is timed on this vCPU's own time record, from a reading taken once
 * the clock is seen running (time_local_live()), and counts only if it is
 * one extrapolation and at least a clock step long (clock_elapsed()); any
 * other run is run again.  No good run in BENCH_TIME_TRIES gives 0:
 * implausible, reported.
 */
#define BENCH_TIME_TRIES 20

static uint64_t bench_time(void (*run)(void))
{
	unsigned int try;

	for (try = 0; try < BENCH_TIME_TRIES; try++) {
		uint32_t v0, v1;
		uint64_t t0, t1, ns;

		if (!time_local_live(&t0, &v0))
			continue;
		run();
		t1 = time_local_ns(&v1);
		ns = clock_elapsed(t0, v0, t1, v1, time_local_step());
		if (ns)
			return ns;
	}
	return 0;
}

/* A timing worth reporting: nonzero and not below the resolution. */
static bool bench_plausible(uint64_t ns, uint64_t resolution)
{
	return resolution && ns && ns >= resolution;
}

/* Both timings of a case plausible, and its figures never shown as 0. */
static bool bench_case_plausible(const struct bench_case *c,
				 uint64_t resolution)
{
	uint64_t smp = c->best[ALT_MODE_SMP], up = c->best[ALT_MODE_UP];

	if (!bench_plausible(smp, resolution) ||
	    !bench_plausible(up, resolution))
		return false;
	/* Per operation the figures divide: not below 1 ns each. */
	return !c->per_op || (smp >= c->ops && up >= c->ops);
}

static void bench_print(const struct bench_case *c)
{
	uint64_t smp = c->best[ALT_MODE_SMP], up = c->best[ALT_MODE_UP];
	uint64_t per = c->per_op && c->ops ? c->ops : 1;

	/* Per operation (or batch) shown; the ratio from the batches. */
	pr_info("%s: SMP form %llu ns, UP form %llu ns, SMP/UP %llu.%02llu\n",
		c->name, (unsigned long long)(smp / per),
		(unsigned long long)(up / per), (unsigned long long)(smp / up),
		(unsigned long long)(smp * BENCH_HUNDRED / up % BENCH_HUNDRED));
}

int bench_forms(struct bench_case *cases, unsigned int n, unsigned int rounds,
		uint64_t resolution)
{
	enum alt_mode start = smpmode_current();
	unsigned int round, c;
	int form, rc = 0;

	if (!resolution) {
		report_error("bench: the clock did not advance in %lu reads",
			     CLOCK_STEP_SPINS);
		return -EIO;
	}
	for (c = 0; c < n; c++) {
		cases[c].best[ALT_MODE_SMP] = UINT64_MAX;
		cases[c].best[ALT_MODE_UP] = UINT64_MAX;
		cases[c].runs = 0;
	}
	/*
	 * Switching is allowed because only vCPU 0 runs: the callers run
	 * before the control loop can bring a secondary up.
	 */
	for (round = 0; round < rounds && !rc; round++) {
		for (form = ALT_MODE_SMP; form <= ALT_MODE_UP && !rc; form++) {
			rc = smpmode_switch((enum alt_mode)form, NULL);
			for (c = 0; c < n && !rc; c++) {
				uint64_t ns = bench_time(cases[c].run);

				cases[c].runs++;
				cases[c].best[form] =
					MIN(cases[c].best[form], ns);
			}
		}
	}
	if (!rc)
		rc = smpmode_switch(start, NULL);
	if (rc) {
		report_error("bench: switch failed: %d", rc);
		return rc;
	}
	for (c = 0; c < n; c++) {
		if (!bench_case_plausible(&cases[c], resolution)) {
			report_error(
				"bench: %s: implausible timing for %u operations: SMP form %llu ns, UP form %llu ns, clock resolution %llu ns",
				cases[c].name, cases[c].ops,
				(unsigned long long)cases[c].best[ALT_MODE_SMP],
				(unsigned long long)cases[c].best[ALT_MODE_UP],
				(unsigned long long)resolution);
			return -ERANGE;
		}
	}
	for (c = 0; c < n; c++)
		bench_print(&cases[c]);
	return 0;
}

int bench_locks(void)
{
	struct bench_case cases[] = {
		{.name = "spinlock (" BENCH_XSTR(BENCH_OPS) " x lock+unlock)",
		 .run = bench_spinlock,
		 .ops = BENCH_OPS},
		{.name = "atomic (" BENCH_XSTR(BENCH_OPS) " x increment)",
		 .run = bench_atomic,
		 .ops = BENCH_OPS},
		{.name = "refcount (" BENCH_XSTR(BENCH_OPS) " x get+put)",
		 .run = bench_refcount,
		 .ops = BENCH_OPS},
	};
	uint64_t resolution = time_local_step();

	if (resolution)
		pr_info("clock resolution %llu ns\n",
			(unsigned long long)resolution);
	return bench_forms(cases, ARRAY_SIZE(cases), BENCH_ROUNDS, resolution);
}
