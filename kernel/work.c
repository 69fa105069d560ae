// SPDX-License-Identifier: MIT
/*
 * work.c - synthetic workload: demand in, items run on every online vCPU,
 * load and throughput out (see work.h).
 */
#include "work.h"
#include "atomic.h"
#include "errno.h"
#include "kernel.h"
#include "printk.h"
#include "smpmode.h"
#include "spinlock.h"
#include "status.h"
#include "string.h"
#include "time.h"
#include "vcpu.h"
#include "xenstore.h"

/* Steps of one item: each a spinlock round trip and a locked increment. */
#define WORK_ITEM_STEPS 64
/* Items timed at boot to learn the cost of one. */
#define WORK_CALIBRATE_ITEMS 256
/* One batch runs at most this long before the caller looks around. */
#define WORK_BATCH_NS (2 * NSEC_PER_MSEC)
/* Backlog kept at most this many ticks' worth of items (the rest is shed). */
#define WORK_BACKLOG_TICKS 10
#define WORK_PERCENT 100
#define WORK_DEMAND_MAX 3200 /* 32 vCPUs */
#define WORK_VALUE_MAX 16
/* Longest wait for the items in flight when a check pauses the workers. */
#define WORK_QUIESCE_NS (2 * NSEC_PER_SEC)
#define WORK_CHECK_KEY "control/smpalt/check"
#define WORK_TOKEN_MAX 64
#define WORK_REPLY_MAX 160
/* Benchmark: rounds of each form, items per round (best round counts). */
#define WORK_BENCH_ROUNDS 5
#define WORK_BENCH_ITEMS 2000
/* Ratios printed with two decimals. */
#define WORK_HUNDRED 100

/* Shared by every vCPU: the item's critical section and counter. */
static spinlock_t work_lock = SPINLOCK_INIT;
static uint64_t work_protected;
static atomic_t work_counter = ATOMIC_INIT(0);

static atomic64_t work_backlog = ATOMIC_INIT(0);
static atomic64_t work_done = ATOMIC_INIT(0);
/* Counters check: vCPU 0 pauses the workers and waits for in-flight 0. */
static volatile bool work_paused;
static atomic_t work_inflight = ATOMIC_INIT(0);

/* vCPU 0 only. */
static uint64_t work_item_ns = 1;
static unsigned long work_demand;
static uint64_t work_credit_ns, work_offered_ns;
static uint64_t work_next_tick, work_sample_start;
static int64_t work_sample_done;
static bool work_sample_idle_published;

static void work_item_run(void)
{
	unsigned int i;

	for (i = 0; i < WORK_ITEM_STEPS; i++) {
		spin_lock(&work_lock);
		work_protected++;
		spin_unlock(&work_lock);
		atomic_inc(&work_counter);
	}
}

static void work_kick_secondaries(void);

static bool work_take(void)
{
	int64_t v = atomic64_read(&work_backlog);

	while (v > 0) {
		int64_t seen = atomic64_cmpxchg(&work_backlog, v, v - 1);

		if (seen == v)
			return true;
		v = seen;
	}
	return false;
}

bool work_pending(void)
{
	return atomic64_read(&work_backlog) > 0;
}

bool work_run_batch(void)
{
	uint64_t end = time_now_ns() + WORK_BATCH_NS;
	bool ran = false;

	for (;;) {
		/*
		 * In flight first, then look at the pause flag: the locked
		 * increment is a full barrier (SMP form), pairing with the
		 * smp_mb() between setting the flag and reading the count in
		 * work_quiesce().  In UP form only one vCPU runs.
		 */
		atomic_inc(&work_inflight);
		if (work_paused || !work_take()) {
			atomic_dec(&work_inflight);
			break;
		}
		work_item_run();
		atomic64_inc(&work_done);
		atomic_dec(&work_inflight);
		ran = true;
		if (time_now_ns() >= end)
			break;
	}
	return ran;
}

/* vCPU 0: stop every worker between two items. */
static int work_quiesce(void)
{
	uint64_t deadline = time_now_ns() + WORK_QUIESCE_NS;

	work_paused = true;
	smp_mb();
	while (atomic_read(&work_inflight)) {
		if (time_now_ns() >= deadline) {
			work_paused = false;
			return -ETIMEDOUT;
		}
		cpu_relax();
	}
	return 0;
}

static void work_resume(void)
{
	work_paused = false;
	work_kick_secondaries();
}

static void work_kick_secondaries(void)
{
	unsigned int id;

	for (id = 1; id < vcpu_max; id++)
		if (vcpu_locals[id].alive)
			vcpu_kick(id);
}

static void work_publish(uint64_t now)
{
	uint64_t period = now - work_sample_start;
	int64_t done = atomic64_read(&work_done);
	uint64_t load = 0, tput = 0;

	if (period) {
		load = work_offered_ns * WORK_PERCENT / period;
		tput = (uint64_t)(done - work_sample_done) * NSEC_PER_SEC /
		       period;
	}
	status_publish("load", "%llu", (unsigned long long)load);
	status_publish("throughput", "%llu", (unsigned long long)tput);
	work_sample_idle_published = !load && !tput;
	work_offered_ns = 0;
	work_sample_done = done;
	work_sample_start = now;
}

void work_init(void)
{
	uint64_t t0, t1;
	unsigned int i;

	/* Only vCPU 0 runs: the cost of an item in the current form. */
	t0 = time_now_ns();
	for (i = 0; i < WORK_CALIBRATE_ITEMS; i++)
		work_item_run();
	/* Every item run counts, for the counters check. */
	atomic64_add(WORK_CALIBRATE_ITEMS, &work_done);
	t1 = time_now_ns();
	work_item_ns = MAX((t1 - t0) / WORK_CALIBRATE_ITEMS, 1ULL);
	printk("work: one item takes %llu ns\n",
	       (unsigned long long)work_item_ns);
	work_sample_start = t1;
	work_publish(t1);
	/* The demand key is under control/smpalt, watched by status.c. */
}

void work_read_demand(void)
{
	char value[WORK_VALUE_MAX];
	unsigned long demand = 0;
	char *end;
	int rc;

	rc = xs_read(XS_TRANSACTION_NONE, WORK_DEMAND_KEY, value,
		     sizeof(value));
	if (rc >= 0) {
		demand = strtoul(value, &end, 10);
		if (end == value || *end || demand > WORK_DEMAND_MAX) {
			pr_warn("work: ignoring %s=%s\n", WORK_DEMAND_KEY,
				value);
			return;
		}
	} else if (rc != -ENOENT) {
		return; /* logged by the client */
	}
	work_set_demand(demand);
}

void work_set_demand(unsigned long demand)
{
	if (demand > WORK_DEMAND_MAX)
		demand = WORK_DEMAND_MAX;
	if (demand == work_demand)
		return;
	printk("work: demand %lu%%\n", demand);
	work_demand = demand;
	if (demand && !work_next_tick)
		work_next_tick = time_now_ns();
}

uint64_t work_poll(void)
{
	uint64_t now = time_now_ns();

	if (work_next_tick && now >= work_next_tick) {
		uint64_t offered = work_demand * WORK_TICK_NS / WORK_PERCENT;
		uint64_t cap = WORK_BACKLOG_TICKS * offered / work_item_ns + 1;
		int64_t items;

		work_offered_ns += offered;
		work_credit_ns += offered;
		items = (int64_t)(work_credit_ns / work_item_ns);
		work_credit_ns -= (uint64_t)items * work_item_ns;
		/* Overload sheds work beyond the cap; load still counts it. */
		if (atomic64_read(&work_backlog) + items > (int64_t)cap)
			items = (int64_t)cap - atomic64_read(&work_backlog);
		if (items > 0) {
			atomic64_add(items, &work_backlog);
			work_kick_secondaries();
		}
		work_next_tick =
			work_demand ? work_next_tick + WORK_TICK_NS : 0;
		if (work_next_tick && work_next_tick < now)
			work_next_tick = now + WORK_TICK_NS; /* fell behind */
	}
	if (now - work_sample_start >= WORK_SAMPLE_NS &&
	    (work_demand || !work_sample_idle_published))
		work_publish(now);

	work_run_batch();

	if (work_pending())
		return now; /* more to run: come back at once */
	if (work_next_tick)
		return work_next_tick;
	if (!work_sample_idle_published)
		return work_sample_start + WORK_SAMPLE_NS;
	return 0;
}

/* ns per item over one round, in whatever form the text holds now. */
static uint64_t work_bench_round(void)
{
	uint64_t t0 = time_now_ns();
	unsigned int i;

	for (i = 0; i < WORK_BENCH_ITEMS; i++)
		work_item_run();
	atomic64_add(WORK_BENCH_ITEMS, &work_done);
	return (time_now_ns() - t0) / WORK_BENCH_ITEMS;
}

int work_bench(void)
{
	enum alt_mode start = smpmode_current();
	uint64_t best[2] = {UINT64_MAX, UINT64_MAX};
	unsigned int round;
	int rc = 0;

	/*
	 * Switching is allowed because only vCPU 0 runs: the benchmark is
	 * run before the control loop can bring a secondary up.
	 */
	for (round = 0; round < WORK_BENCH_ROUNDS && !rc; round++) {
		int form;

		for (form = ALT_MODE_SMP; form <= ALT_MODE_UP; form++) {
			uint64_t ns;

			rc = smpmode_switch((enum alt_mode)form, NULL);
			if (rc)
				break;
			ns = work_bench_round();
			best[form] = MIN(best[form], ns);
		}
	}
	if (!rc)
		rc = smpmode_switch(start, NULL);
	if (rc) {
		printk("Test result: ERROR bench: switch failed: %d\n", rc);
		return rc;
	}
	printk("bench: item (%u locked steps): SMP form %llu ns, UP form %llu "
	       "ns, SMP/UP %llu.%02llu\n",
	       WORK_ITEM_STEPS, (unsigned long long)best[ALT_MODE_SMP],
	       (unsigned long long)best[ALT_MODE_UP],
	       (unsigned long long)(best[ALT_MODE_SMP] / best[ALT_MODE_UP]),
	       (unsigned long long)(best[ALT_MODE_SMP] * WORK_HUNDRED /
				    best[ALT_MODE_UP] % WORK_HUNDRED));
	printk("Test result: SUCCESS smp %llu ns up %llu ns per item\n",
	       (unsigned long long)best[ALT_MODE_SMP],
	       (unsigned long long)best[ALT_MODE_UP]);
	return 0;
}

void work_handle_check(void)
{
	static char last[WORK_TOKEN_MAX];
	char token[WORK_TOKEN_MAX], reply[WORK_REPLY_MAX];
	uint64_t items, steps;
	uint32_t atomic_got;
	int rc;

	rc = xs_read(XS_TRANSACTION_NONE, WORK_CHECK_KEY, token, sizeof(token));
	if (rc <= 0 || !strcmp(token, last))
		return; /* absent, empty, logged by the client, or answered */
	strlcpy(last, token, sizeof(last));

	rc = work_quiesce();
	if (rc) {
		snprintf(reply, sizeof(reply),
			 "%s FAIL quiesce expected=0 got=%d", token,
			 atomic_read(&work_inflight));
	} else {
		/* No item runs anywhere now: the totals must agree exactly. */
		items = (uint64_t)atomic64_read(&work_done);
		steps = items * WORK_ITEM_STEPS;
		atomic_got = (uint32_t)atomic_read(&work_counter);
		if (work_protected != steps)
			snprintf(reply, sizeof(reply),
				 "%s FAIL locked expected=%llu got=%llu", token,
				 (unsigned long long)steps,
				 (unsigned long long)work_protected);
		else if (atomic_got != (uint32_t)steps)
			snprintf(reply, sizeof(reply),
				 "%s FAIL atomic expected=%u got=%u", token,
				 (uint32_t)steps, atomic_got);
		else
			snprintf(reply, sizeof(reply), "%s ok items=%llu",
				 token, (unsigned long long)items);
		work_resume();
	}
	printk("work: check %s\n", reply);
	xs_write(XS_TRANSACTION_NONE, "data/smpalt/check", reply);
}
