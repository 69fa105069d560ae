/* SPDX-License-Identifier: MIT */
/*
 * work.h - the guest's synthetic workload and its measurement.  Its rooms:
 * the item and its lock sites (work_item.c, work_item.h), the runner that
 * turns the demand into items on every online vCPU (work.c), the counters
 * check (work_check.c) and the item's benchmark (work_bench.c).
 *
 * dom0 sets the demand in control/smpalt/demand, in percent of one vCPU
 * (250 = work for 2.5 vCPUs; 0 or absent = idle).  vCPU 0 turns it into
 * work items every WORK_TICK_NS; every online vCPU takes items from one
 * shared backlog and runs them.  An item is lock-heavy on purpose (a
 * spinlock and a locked increment per step), so the UP form of the text
 * makes it cheaper.  Every WORK_SAMPLE_NS vCPU 0 publishes
 * data/smpalt/load (the demand offered over the period, percent of one
 * vCPU) and data/smpalt/throughput (items completed per second).
 *
 * Or dom0 writes a phased profile to control/smpalt/profile (syntax and
 * rules in profile.h, e.g. "idle:8 ramp:20:0:300 burst:12:350 idle:12",
 * or "default"; smpalt.profile= on the command line starts one at boot):
 * the guest then sets the demand itself, phase by phase, and publishes
 * data/smpalt/phase.  A changed control/smpalt/demand ends the profile.
 */
#ifndef SMPALT_WORK_H
#define SMPALT_WORK_H

#include <stdbool.h>
#include <stdint.h>

#define WORK_TICK_NS (100 * 1000000ULL)
#define WORK_SAMPLE_NS (1000 * 1000000ULL)
#define WORK_DEMAND_KEY "control/smpalt/demand"

/* Calibrate the item cost (vCPU 0, at boot) and publish load=0. */
void work_init(void);

/* control/smpalt changed: re-read the demand (vCPU 0). */
void work_read_demand(void);

/*
 * Set the demand directly, in percent of one vCPU (vCPU 0; e.g. from a
 * workload profile phase).  The next control/smpalt/demand write wins
 * again.  Clamped to 32 vCPUs' worth.
 */
void work_set_demand(unsigned long demand);

/*
 * vCPU 0, thread context: generate due items, publish due samples, run a
 * bounded batch of items.  Returns the Xen time at which it wants to be
 * called again (0: only when something else happens).
 */
uint64_t work_poll(void);

/* Any vCPU: run items for at most a short batch; true if it ran any. */
bool work_run_batch(void);

/*
 * work_bench.c.  In-guest benchmark (smpalt.bench=1): the cost of one item in
 * the SMP and in the UP form of the text, measured alternately on vCPU 0 while
 * it runs alone; prints both and reports SUCCESS "smp <ns> up <ns> per item"
 * (report.h).  Leaves the text in the form it found.  Returns 0, or
 * -errno after reporting ERROR: a switch failed, the clock stood still, or
 * a timing was implausible (zero, below the clock's resolution or below
 * 1 ns per item).
 */
int work_bench(void);

/*
 * work_check.c.  Counters check (vCPU 0): when control/smpalt/check holds
 * a new token, pause the workers until no item is in flight (the demand
 * stays), compare the totals exactly and answer in data/smpalt/check
 * "<token> ok items=<n>" (n: the items done the totals were compared
 * against) or "<token> FAIL <which> expected=<x> got=<y>", with a console
 * line; then resume.  Totals: the per-vCPU item counts sum to the
 * items done ("items-by-vcpu"); the spinlock-protected ("locked") and the
 * atomic ("atomic") counters equal items done x steps; the shared
 * refcount is back at its base ("refcount"); the backlog never went below
 * zero.  Items counted include those run at calibration and benchmark.
 */
void work_handle_check(void);

/* Items waiting (racy hint, for the idle check). */
bool work_pending(void);

/* work.c, the runner's side of the counters check and the benchmark. */

/* What the runner counted, as read now. */
struct work_counts {
	uint64_t done;	  /* items done, the shared count */
	uint64_t by_vcpu; /* the sum of the per-vCPU counts */
	int64_t backlog;  /* items waiting; below zero only by a bug */
	int inflight;	  /* items running now */
};

/*
 * vCPU 0: count n items this vCPU ran outside any batch (calibration,
 * benchmark), so that the counters check adds up.
 */
void work_count_items(unsigned int n);

/*
 * vCPU 0: stop every worker between two items and wait until none is in
 * flight: 0, or -ETIMEDOUT (the workers run on).  Then the counts and the
 * item totals stand still until work_resume().
 */
int work_quiesce(void);
void work_resume(void);

void work_read_counts(struct work_counts *c);

#endif /* SMPALT_WORK_H */
