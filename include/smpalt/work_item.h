/* SPDX-License-Identifier: MIT */
/*
 * work_item.h - one item of the synthetic workload (work.h): the lock-heavy
 * code every vCPU runs, and the shared objects its lock sites guard.  An
 * item takes a reference on a shared object, then runs WORK_ITEM_STEPS
 * steps, each a spinlock round trip around a plain counter and a locked
 * increment of an atomic one, then drops the reference.  So each item
 * adds exactly WORK_ITEM_STEPS to both counters, whatever the number of
 * vCPUs running items at once: the counters check (work_check.c) holds
 * the totals against the items done.
 *
 * Built a second time with SMPALT_TEST_LOSTUPDATE for the lost-update
 * test build (mk/guest.mk): then the item's lock sites stay in their UP
 * form on every vCPU, as an engine that forgot them would leave them.
 */
#ifndef SMPALT_WORK_ITEM_H
#define SMPALT_WORK_ITEM_H

#include <stdint.h>

/* Steps of one item (a plain number: it is also shown as text). */
#define WORK_ITEM_STEPS 64
/* References the items' shared object holds while no item runs. */
#define WORK_REF_BASE 1

/* The shared totals the items moved, as read now. */
struct work_item_totals {
	uint64_t locked; /* steps counted under the spinlock */
	uint64_t atomic; /* steps counted by the locked increment */
	int64_t refs;	 /* references on the shared object */
};

/* Run one item on this vCPU (any vCPU, any number at once). */
void work_item_run(void);

/* Read the totals; exact only while no item runs anywhere. */
void work_item_read_totals(struct work_item_totals *t);

/* Say on the console what this build's items are (the test build does). */
void work_item_announce(void);

#endif /* SMPALT_WORK_ITEM_H */
