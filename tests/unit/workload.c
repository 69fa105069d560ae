// SPDX-License-Identifier: MIT
/*
 * workload.c - loops whose results depend on every atomic step, so that a
 * wrong rewrite shows as a wrong number.  Each loop is dependent: every
 * operation reads the location the previous one wrote, so the latency of
 * the (un)locked instruction is what the loop measures.
 */
#include <stdint.h>

#include <smpalt/alternative.h>
#include <smpalt/atomic.h>
#include <smpalt/refcount.h>
#include <smpalt/spinlock.h>
#include "workload.h"

/* One object per loop, each on its own cache line. */
#define WL_CACHELINE 64

/*
 * Every loop starts on a cache line in both builds, so that the SMP build
 * and the CONFIG_UP_ONLY build compare instructions, not code placement (a
 * small loop that happens to straddle a 64-byte line runs at half speed).
 */
#define WL_LOOP __attribute__((aligned(WL_CACHELINE), noinline))

static atomic_t wl_counter __attribute__((aligned(WL_CACHELINE)));
static atomic_t wl_alt_counter __attribute__((aligned(WL_CACHELINE)));
static spinlock_t wl_lock __attribute__((aligned(WL_CACHELINE)));
static refcount_t wl_ref __attribute__((aligned(WL_CACHELINE)));
static atomic64_t wl_cx __attribute__((aligned(WL_CACHELINE)));

/* Atomic increment: n dependent "lock incl". Returns the final count. */
WL_LOOP int64_t WL(atomic_inc_loop)(uint64_t n)
{
	uint64_t i;

	atomic_set(&wl_counter, 0);
	for (i = 0; i < n; i++)
		atomic_inc(&wl_counter);
	return atomic_read(&wl_counter);
}

/* The same through an alternative_smp() site. */
WL_LOOP int64_t WL(atomic_inc_alt_loop)(uint64_t n)
{
	uint64_t i;

	atomic_set(&wl_alt_counter, 0);
	for (i = 0; i < n; i++)
		atomic_inc_alt(&wl_alt_counter);
	return atomic_read(&wl_alt_counter);
}

/* Spinlock acquire + release around a counter. */
WL_LOOP int64_t WL(spinlock_loop)(uint64_t n)
{
	uint64_t i;
	int64_t protected_count = 0;

	spin_lock_init(&wl_lock);
	for (i = 0; i < n; i++) {
		spin_lock(&wl_lock);
		protected_count++;
		spin_unlock(&wl_lock);
	}
	return protected_count;
}

/* Refcount get + put; counts the puts that dropped the last reference. */
WL_LOOP int64_t WL(refcount_loop)(uint64_t n)
{
	uint64_t i;
	int64_t last_puts = 0;

	refcount_set(&wl_ref, 1);
	for (i = 0; i < n; i++) {
		refcount_get(&wl_ref);
		if (refcount_put(&wl_ref))
			last_puts++;
	}
	if (refcount_put(&wl_ref))
		last_puts++;
	return last_puts * (int64_t)n + refcount_read(&wl_ref);
}

/* cmpxchg: add i by compare-and-exchange; returns the sum 0 + 1 + ... */
WL_LOOP int64_t WL(cmpxchg_loop)(uint64_t n)
{
	uint64_t i;

	atomic64_set(&wl_cx, 0);
	for (i = 0; i < n; i++) {
		int64_t old = atomic64_read(&wl_cx);

		while (atomic64_cmpxchg(&wl_cx, old, old + (int64_t)i) != old)
			old = atomic64_read(&wl_cx);
	}
	return atomic64_read(&wl_cx);
}

/* Every primitive once per step; returns a checksum of the results. */
WL_LOOP int64_t WL(mixed)(uint64_t n)
{
	atomic_t a = ATOMIC_INIT(0);
	refcount_t r = REFCOUNT_INIT(1);
	spinlock_t l = SPINLOCK_INIT;
	int64_t sum = 0;
	uint64_t i;

	for (i = 0; i < n; i++) {
		atomic_add((int32_t)(i & 0xff), &a);
		atomic_sub(1, &a);
		sum += atomic_add_return(3, &a);
		if (atomic_dec_and_test(&a))
			sum += 1000;
		if (atomic_inc_and_test(&a))
			sum += 10000;
		atomic_dec(&a);
		atomic_inc_alt(&a);
		sum += atomic_cmpxchg(&a, atomic_read(&a), (int32_t)i);
		if (spin_trylock(&l)) {
			sum += spin_is_locked(&l);
			spin_unlock(&l);
		}
		refcount_get(&r);
		sum += refcount_get_not_zero(&r);
		refcount_put(&r);
		refcount_put(&r);
		smp_mb();
	}
	return sum + atomic_read(&a) + refcount_read(&r);
}

#ifndef CONFIG_UP_ONLY
int wl_feature_value(void)
{
	int v;

	__asm__ __volatile__(
		alternative("movl $" ALT_STR(WL_FEATURE_OLD) ", %0",
			    "movl $" ALT_STR(WL_FEATURE_NEW) ", %0",
			    WL_FEATURE_PRESENT)
		: "=r"(v));
	return v;
}

int wl_absent_feature_value(void)
{
	int v;

	__asm__ __volatile__(
		alternative("movl $" ALT_STR(WL_FEATURE_OLD) ", %0",
			    "movl $" ALT_STR(WL_FEATURE_NEW) ", %0",
			    WL_FEATURE_ABSENT)
		: "=r"(v));
	return v;
}

void wl_full_barrier(void)
{
	smp_mb();
}
#endif
