// SPDX-License-Identifier: MIT
/*
 * work_item.c - the workload's item and its lock sites (see work_item.h).
 */
#define pr_fmt(fmt) "work: " fmt

#include <smpalt/work_item.h>
#include <smpalt/atomic.h>
#include <smpalt/printk.h>
#include <smpalt/refcount.h>
#include <smpalt/spinlock.h>

/*
 * Shared by every vCPU: the item's critical section and counter, and the
 * reference each running item holds on a shared object.
 */
#ifndef SMPALT_TEST_LOSTUPDATE
static spinlock_t work_lock = SPINLOCK_INIT;
#endif
static uint64_t work_protected;
static atomic64_t work_counter = ATOMIC_INIT(0);
static refcount_t work_ref = REFCOUNT_INIT(WORK_REF_BASE);

#ifdef SMPALT_TEST_LOSTUPDATE
/*
 * Test build only (smpalt-lostupdate.elf): the item's lock sites in their
 * UP form whatever the mode, as if the engine had left them unpatched
 * while several vCPUs run.  Between two vCPUs a UP-form spinlock excludes
 * nothing, and worse, a failed unlocked cmpxchg writes the old value back
 * and can swallow a release, wedging the lock for good; so the protected
 * counter's read-modify-write runs bare here, with a short loop inside
 * (a few branches) so that two vCPUs overlap in it often.  The atomic
 * counter gets the UP form of its increment, the DS prefix written
 * literally: not a site, no switch ever touches it.  The counters check
 * must find lost updates in both.
 */
#define WORK_LOSTUPDATE_WINDOW 16

static void work_step(void)
{
	uint64_t v;

	/* Load, a countdown loop, add one, store: written out so that no
	 * compiler can shorten the window. */
	__asm__ __volatile__("movq %[ctr],%[v]\n\t"
			     "movl %[n],%%ecx\n"
			     "1:\n\t"
			     "decl %%ecx\n\t"
			     "jnz 1b\n\t"
			     "incq %[v]\n\t"
			     "movq %[v],%[ctr]"
			     : [v] "=&r"(v), [ctr] "+m"(work_protected)
			     : [n] "i"(WORK_LOSTUPDATE_WINDOW)
			     : "ecx", "cc");
	__asm__ __volatile__(".byte 0x3e; incq %0"
			     : "+m"(work_counter.counter));
}
#else
static void work_step(void)
{
	spin_lock(&work_lock);
	work_protected++;
	spin_unlock(&work_lock);
	atomic64_inc(&work_counter);
}
#endif

void work_item_run(void)
{
	unsigned int i;

	refcount_get(&work_ref);
	for (i = 0; i < WORK_ITEM_STEPS; i++)
		work_step();
	refcount_put(&work_ref);
}

void work_item_read_totals(struct work_item_totals *t)
{
	t->locked = work_protected;
	t->atomic = (uint64_t)atomic64_read(&work_counter);
	t->refs = (int64_t)refcount_read(&work_ref);
}

void work_item_announce(void)
{
#ifdef SMPALT_TEST_LOSTUPDATE
	pr_info("test build: the item's lock sites stay in UP form on every vCPU: expect lost updates\n");
#endif
}
