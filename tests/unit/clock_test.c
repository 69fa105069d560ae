// SPDX-License-Identifier: MIT
/*
 * clock_test.c - a clock's step and whether it runs (lib/clock.c), compiled
 * for the host.  The clock is a model of Xen's emulated TSC: real time
 * advances by a read's cost at each read, and a reading never falls below
 * the latest one + 1 (the per-domain floor Xen keeps), so a floor set
 * ahead of real time makes the clock stand still until real time
 * catches up.  Each test: such a clock, then the exact step, verdict or
 * timing expected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <smpalt/clock.h>

#define COST 2000U     /* ns a read takes, as under QEMU TCG */
#define JITTER 300U    /* extra ns some reads take */
#define RUN_NS 150000U /* a timed batch */

struct model {
	uint64_t real;	  /* true time */
	uint64_t floor;	  /* the latest reading returned */
	uint32_t version; /* of the time record */
	unsigned long reads;
	unsigned long rebase_every; /* version + 1 each this many reads */
	uint64_t rebase_jump;	    /* and real time jumps this far */
	bool frozen;		    /* every reading the same */
	bool backwards;		    /* each reading 1 below the last */
};

static uint64_t model_read(void *ctx, uint32_t *version)
{
	struct model *m = ctx;
	uint64_t now;

	m->reads++;
	m->real += COST + (m->reads % 7 == 0 ? JITTER : 0);
	if (m->rebase_every && m->reads % m->rebase_every == 0) {
		m->version += 2;
		m->real += m->rebase_jump;
	}
	*version = m->version;
	if (m->frozen)
		return m->floor;
	if (m->backwards)
		return --m->floor;
	now = m->real > m->floor ? m->real : m->floor + 1;
	m->floor = now;
	return now;
}

/* A vCPU that read the clock on a pCPU LAG ns ahead: the floor is there. */
static void model_stall(struct model *m, uint64_t lag)
{
	m->floor = m->real + lag;
}

static void step_of_a_running_clock_is_a_reads_cost(void **state)
{
	struct model m = {.real = 1000000};
	uint64_t step = clock_step(model_read, &m);

	(void)state;
	assert_true(step >= COST && step <= COST + JITTER);
}

static void
step_is_not_set_by_a_stall_shorter_than_half_its_samples(void **state)
{
	struct model m = {.real = 1000000};
	uint64_t step;

	(void)state;
	/* Stands still for about 100 of the 255 steps. */
	model_stall(&m, 100ULL * COST);
	step = clock_step(model_read, &m);
	assert_true(step >= COST && step <= COST + JITTER);
}

static void
step_is_not_set_by_a_stall_longer_than_half_its_samples(void **state)
{
	struct model m = {.real = 1000000};
	uint64_t step;

	(void)state;
	/* Stands still for about 1000 reads: more than all the samples. */
	model_stall(&m, 1000ULL * COST);
	step = clock_step(model_read, &m);
	assert_true(step >= COST && step <= COST + JITTER);
}

static void a_clock_that_never_runs_has_no_step(void **state)
{
	/* Stands still (1 ns a read) for longer than it looks. */
	struct model m = {.real = 1000000};

	(void)state;
	model_stall(&m, 10ULL * CLOCK_STEP_PAIRS * 2 * COST);
	assert_int_equal(clock_step(model_read, &m), 0);
	assert_true(m.reads >= 2 * CLOCK_STEP_PAIRS);
}

static void step_of_a_clock_that_stands_still_is_zero(void **state)
{
	struct model m = {.real = 1000000, .floor = 5, .frozen = true};

	(void)state;
	assert_int_equal(clock_step(model_read, &m), 0);
	assert_int_equal(m.reads, CLOCK_STEP_SPINS + 1);
}

static void step_of_a_clock_that_goes_back_is_zero(void **state)
{
	struct model m = {.real = 1000000, .floor = 1000000, .backwards = true};

	(void)state;
	assert_int_equal(clock_step(model_read, &m), 0);
}

static void steps_across_a_version_are_not_counted(void **state)
{
	/* Every third read re-bases and jumps 1 ms: those steps are out. */
	struct model m = {
		.real = 1000000, .rebase_every = 3, .rebase_jump = 1000000};
	uint64_t step = clock_step(model_read, &m);

	(void)state;
	assert_true(step >= COST && step <= COST + JITTER);
}

static void a_clock_always_re_based_has_no_step(void **state)
{
	struct model m = {.real = 1000000, .rebase_every = 1};

	(void)state;
	assert_int_equal(clock_step(model_read, &m), 0);
}

static void live_waits_out_a_stall(void **state)
{
	struct model m = {.real = 1000000};
	uint64_t now;
	uint32_t v;

	(void)state;
	model_stall(&m, 500ULL * COST);
	assert_true(clock_live(model_read, &m, COST, &now, &v));
	/* The reading is real time again, not the floor + 1. */
	assert_int_equal(now, m.real);
	assert_true(m.reads > 400 && m.reads < 600);
}

static void live_never_takes_a_one_ns_step_as_running(void **state)
{
	/* A step so small that a quarter of it is 1 ns: still waits. */
	struct model m = {.real = 1000000};
	uint64_t now;
	uint32_t v;

	(void)state;
	model_stall(&m, 100ULL * COST);
	assert_true(clock_live(model_read, &m, 4, &now, &v));
	assert_int_equal(now, m.real);
	assert_true(m.reads > 90);
}

static void live_takes_a_running_clock_at_once(void **state)
{
	struct model m = {.real = 1000000};
	uint64_t now;
	uint32_t v;

	(void)state;
	assert_true(clock_live(model_read, &m, COST, &now, &v));
	assert_int_equal(m.reads, 2);
	assert_int_equal(now, m.real);
}

static void live_gives_up_on_a_clock_that_stays_still(void **state)
{
	struct model m = {.real = 1000000, .floor = 7, .frozen = true};
	uint64_t now;
	uint32_t v;

	(void)state;
	assert_false(clock_live(model_read, &m, COST, &now, &v));
	assert_int_equal(m.reads, CLOCK_LIVE_SPINS + 1);
	assert_int_equal(now, 7);
}

static void live_does_not_count_a_step_across_a_version(void **state)
{
	/* Stands still; a re-base jumps real time past the floor.  The
	 * step over the re-base does not count, the next one does. */
	struct model m = {
		.real = 1000000, .rebase_every = 10, .rebase_jump = 1000000};
	uint64_t now;
	uint32_t v;

	(void)state;
	model_stall(&m, 100ULL * COST);
	assert_true(clock_live(model_read, &m, COST, &now, &v));
	assert_int_equal(m.reads, 11);
	assert_int_equal(v, 2);
}

static void without_a_step_live_takes_the_first_reading(void **state)
{
	struct model m = {.real = 1000000, .floor = 7, .frozen = true};
	uint64_t now;
	uint32_t v;

	(void)state;
	assert_true(clock_live(model_read, &m, 0, &now, &v));
	assert_int_equal(m.reads, 1);
}

static void elapsed_is_exact_under_one_version_else_zero(void **state)
{
	(void)state;
	assert_int_equal(clock_elapsed(1000, 4, 151000, 4, COST), 150000);
	assert_int_equal(clock_elapsed(1000, 4, 151000, 6, COST), 0);
	assert_int_equal(clock_elapsed(1000, 4, 1001, 4, COST), 0);
	assert_int_equal(clock_elapsed(1000, 4, 1000 + COST, 4, COST), COST);
	assert_int_equal(clock_elapsed(1000, 4, 999, 4, COST), 0);
}

/* The failure this guards against: a batch timed from a stalled clock. */
static void a_batch_timed_from_a_stall(void **state)
{
	struct model m = {.real = 1000000};
	uint64_t t0, t1, step = clock_step(model_read, &m), start;
	uint32_t v0, v1;

	(void)state;
	/* Timed from the stalled clock as it reads: about 1 ns, refused. */
	model_stall(&m, 2ULL * RUN_NS);
	t0 = model_read(&m, &v0);
	m.real += RUN_NS;
	t1 = model_read(&m, &v1);
	assert_true(t1 - t0 < step);
	assert_int_equal(clock_elapsed(t0, v0, t1, v1, step), 0);

	/* Timed from a reading clock_live() took: the batch's true time. */
	model_stall(&m, 2ULL * RUN_NS);
	assert_true(clock_live(model_read, &m, step, &t0, &v0));
	start = m.real;
	m.real += RUN_NS;
	t1 = model_read(&m, &v1);
	assert_int_equal(clock_elapsed(t0, v0, t1, v1, step), m.real - start);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(step_of_a_running_clock_is_a_reads_cost),
		cmocka_unit_test(
			step_is_not_set_by_a_stall_shorter_than_half_its_samples),
		cmocka_unit_test(
			step_is_not_set_by_a_stall_longer_than_half_its_samples),
		cmocka_unit_test(a_clock_that_never_runs_has_no_step),
		cmocka_unit_test(step_of_a_clock_that_stands_still_is_zero),
		cmocka_unit_test(step_of_a_clock_that_goes_back_is_zero),
		cmocka_unit_test(steps_across_a_version_are_not_counted),
		cmocka_unit_test(a_clock_always_re_based_has_no_step),
		cmocka_unit_test(live_waits_out_a_stall),
		cmocka_unit_test(live_never_takes_a_one_ns_step_as_running),
		cmocka_unit_test(live_takes_a_running_clock_at_once),
		cmocka_unit_test(live_gives_up_on_a_clock_that_stays_still),
		cmocka_unit_test(live_does_not_count_a_step_across_a_version),
		cmocka_unit_test(without_a_step_live_takes_the_first_reading),
		cmocka_unit_test(elapsed_is_exact_under_one_version_else_zero),
		cmocka_unit_test(a_batch_timed_from_a_stall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
