// SPDX-License-Identifier: MIT
/*
 * work.c - the workload's runner: demand in, items (work_item.c) spread
 * over every online vCPU through one shared backlog, load and throughput
 * out; the pause the counters check needs (see work.h).
 */
#define pr_fmt(fmt) "work: " fmt

#include <smpalt/work.h>
#include <smpalt/atomic.h>
#include <smpalt/errno.h>
#include <smpalt/kernel.h>
#include <smpalt/printk.h>
#include <smpalt/profile.h>
#include <smpalt/spinlock.h>
#include <smpalt/status.h>
#include <smpalt/string.h>
#include <smpalt/time.h>
#include <smpalt/vcpu.h>
#include <smpalt/work_item.h>
#include <smpalt/xenstore.h>

/*
 * Items timed at boot to learn the cost of one: in rounds, keeping the
 * fastest, since a round the host interrupted (a busy host, or dom0
 * running on this physical CPU) overstates the cost, and an overstated
 * cost makes every demand lighter than asked.
 */
#define WORK_CALIBRATE_ROUNDS 16
#define WORK_CALIBRATE_ROUND_ITEMS 16
/* One batch runs at most this long before the caller looks around. */
#define WORK_BATCH_NS (2 * NSEC_PER_MSEC)
/* Backlog kept at most this many ticks' worth of items (the rest is shed). */
#define WORK_BACKLOG_TICKS 10
#define WORK_PERCENT 100
#define WORK_DEMAND_MAX 3200 /* 32 vCPUs */
#define WORK_VALUE_MAX 16
/* Longest wait for the items in flight when a check pauses the workers. */
#define WORK_QUIESCE_NS (2 * NSEC_PER_SEC)
/* Per-vCPU item counts, one cache line each (no false sharing). */
#define WORK_CACHE_LINE 64

static atomic64_t work_backlog = ATOMIC_INIT(0);
static atomic64_t work_done = ATOMIC_INIT(0);
/* Counters check: vCPU 0 pauses the workers and waits for in-flight 0. */
static volatile bool work_paused;
static atomic_t work_inflight = ATOMIC_INIT(0);
/*
 * Items each vCPU finished, written by that vCPU only (plain adds): their
 * sum must equal the shared work_done.
 */
static struct {
	uint64_t items;
} __aligned(WORK_CACHE_LINE) work_done_by[VCPU_MAX];

/* vCPU 0 only. */
static uint64_t work_item_ns = 1;
static unsigned long work_demand;
/* control/smpalt/demand as last read (WORK_DEMAND_ABSENT: no key). */
#define WORK_DEMAND_ABSENT (-1L)
static long work_demand_key = WORK_DEMAND_ABSENT;
static uint64_t work_credit_ns, work_offered_ns;
/* Xen time up to which the demand has been offered (work_offer()). */
static uint64_t work_offered_until;
static uint64_t work_next_tick, work_sample_start;
static int64_t work_sample_done;
static bool work_sample_idle_published;

void work_count_items(unsigned int n)
{
	atomic64_add(n, &work_done);
	work_done_by[vcpu_id()].items += n;
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
	/* Nothing to take while a check pauses the workers: they may block. */
	return !work_paused && atomic64_read(&work_backlog) > 0;
}

bool work_run_batch(void)
{
	uint64_t end = time_now_ns() + WORK_BATCH_NS;
	uint64_t *mine = &work_done_by[vcpu_id()].items;
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
		(*mine)++;
		atomic_dec(&work_inflight);
		ran = true;
		if (time_now_ns() >= end)
			break;
	}
	return ran;
}

int work_quiesce(void)
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

void work_resume(void)
{
	work_paused = false;
	work_kick_secondaries();
}

void work_read_counts(struct work_counts *c)
{
	unsigned int id;

	c->done = (uint64_t)atomic64_read(&work_done);
	c->by_vcpu = 0;
	for (id = 0; id < VCPU_MAX; id++)
		c->by_vcpu += work_done_by[id].items;
	c->backlog = atomic64_read(&work_backlog);
	c->inflight = atomic_read(&work_inflight);
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

/*
 * vCPU 0: offer the demand for the time since the last offer, however late
 * this call comes (a busy host delays ticks, never the demand).
 */
static void work_offer(uint64_t now)
{
	uint64_t offered;

	if (now <= work_offered_until)
		return;
	offered = work_demand * (now - work_offered_until) / WORK_PERCENT;
	work_offered_ns += offered;
	work_credit_ns += offered;
	work_offered_until = now;
}

/*
 * vCPU 0: the demand changes now; the old one is offered up to here.
 * Demand 0 drops the items not started yet: the work stops at once.
 */
static void work_change_demand(uint64_t now, unsigned long demand)
{
	work_offer(now);
	work_demand = demand;
	if (demand)
		return;
	work_credit_ns = 0;
	for (;;) {
		int64_t v = atomic64_read(&work_backlog);

		if (v <= 0 || atomic64_cmpxchg(&work_backlog, v, 0) == v)
			break;
	}
}

void work_init(void)
{
	uint64_t t0, t1, fastest = UINT64_MAX;
	unsigned int r, i;

	/* Only vCPU 0 runs: the cost of an item in the current form. */
	for (r = 0; r < WORK_CALIBRATE_ROUNDS; r++) {
		t0 = time_now_ns();
		for (i = 0; i < WORK_CALIBRATE_ROUND_ITEMS; i++)
			work_item_run();
		t1 = time_now_ns();
		fastest = MIN(fastest, t1 - t0);
	}
	/* Every item run counts, for the counters check. */
	work_count_items(WORK_CALIBRATE_ROUNDS * WORK_CALIBRATE_ROUND_ITEMS);
	work_item_ns = MAX(fastest / WORK_CALIBRATE_ROUND_ITEMS, 1ULL);
	pr_info("one item takes %llu ns\n", (unsigned long long)work_item_ns);
	work_item_announce();
	work_sample_start = t1;
	work_offered_until = t1;
	work_publish(t1);
	/* A profile given on the command line (smpalt.profile=) starts now. */
	profile_ctl_init();
	/* The demand key is under control/smpalt, watched by status.c. */
}

void work_read_demand(void)
{
	char value[WORK_VALUE_MAX];
	unsigned long demand = 0;
	long key = WORK_DEMAND_ABSENT;
	char *end;
	int rc;

	/* control/smpalt/profile first: a changed demand below ends it. */
	profile_ctl_read();
	rc = xenstore_read(XS_TRANSACTION_NONE, WORK_DEMAND_KEY, value,
			   sizeof(value));
	if (rc >= 0) {
		demand = strtoul(value, &end, 10);
		if (end == value || *end || demand > WORK_DEMAND_MAX) {
			pr_warn("ignoring %s=%s\n", WORK_DEMAND_KEY, value);
			return;
		}
		key = (long)demand;
	} else if (rc != -ENOENT) {
		return; /* logged by the client */
	}
	/* Only a changed key is a manual demand: a profile may be running. */
	if (key == work_demand_key)
		return;
	work_demand_key = key;
	profile_ctl_stop(WORK_DEMAND_KEY);
	work_set_demand(demand);
}

void work_set_demand(unsigned long demand)
{
	if (demand > WORK_DEMAND_MAX)
		demand = WORK_DEMAND_MAX;
	if (demand == work_demand)
		return;
	pr_info("demand %lu%%\n", demand);
	work_change_demand(time_now_ns(), demand);
	if (demand && !work_next_tick)
		work_next_tick = work_offered_until;
}

uint64_t work_poll(void)
{
	uint64_t now = time_now_ns();
	unsigned long demand;

	/*
	 * A running profile sets the demand (quietly: a ramp changes it every
	 * tick; the profile logs its phases) and keeps the ticks going even
	 * through its idle phases, so that the next phase starts on time.
	 */
	if (profile_ctl_demand(now, &demand)) {
		demand = MIN(demand, (unsigned long)WORK_DEMAND_MAX);
		if (demand != work_demand)
			work_change_demand(now, demand);
		if (!work_next_tick)
			work_next_tick = now;
	}

	if (work_next_tick && now >= work_next_tick) {
		uint64_t per_tick = work_demand * WORK_TICK_NS / WORK_PERCENT;
		uint64_t cap = WORK_BACKLOG_TICKS * per_tick / work_item_ns + 1;
		int64_t items;

		/* All the time since the last tick, not one tick's worth. */
		work_offer(now);
		items = (int64_t)(work_credit_ns / work_item_ns);
		work_credit_ns -= (uint64_t)items * work_item_ns;
		/* Overload sheds work beyond the cap; load still counts it. */
		if (atomic64_read(&work_backlog) + items > (int64_t)cap)
			items = (int64_t)cap - atomic64_read(&work_backlog);
		if (items > 0) {
			atomic64_add(items, &work_backlog);
			work_kick_secondaries();
		}
		work_next_tick = work_demand || profile_ctl_running()
					 ? work_next_tick + WORK_TICK_NS
					 : 0;
		if (work_next_tick && work_next_tick < now)
			work_next_tick = now + WORK_TICK_NS; /* fell behind */
	}
	if (now - work_sample_start >= WORK_SAMPLE_NS &&
	    (work_demand || !work_sample_idle_published)) {
		/* The sample's load covers its whole period, up to now. */
		work_offer(now);
		work_publish(now);
	}

	work_run_batch();

	if (work_pending())
		return now; /* more to run: come back at once */
	if (work_next_tick)
		return work_next_tick;
	if (!work_sample_idle_published)
		return work_sample_start + WORK_SAMPLE_NS;
	return 0;
}
