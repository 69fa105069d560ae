/* SPDX-License-Identifier: MIT */
/*
 * spinlock.h - test-and-test-and-set spinlock on "lock cmpxchg".
 *
 * The lock prefix is a LOCK_PREFIX site: while one vCPU runs it is 0x3e and
 * acquiring costs an ordinary compare-and-exchange.  (xchg would be locked
 * whatever its prefix; that is why it is not used.)  Holding a spinlock
 * across an SMP <-> UP switch is fine: the lock word does not change form.
 */
#ifndef SMPALT_SPINLOCK_H
#define SMPALT_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <smpalt/atomic.h>

#define SPINLOCK_UNLOCKED_VALUE 0
#define SPINLOCK_LOCKED_VALUE 1

typedef struct {
	volatile int32_t locked;
} spinlock_t;

#define SPINLOCK_INIT                   \
	{                               \
		SPINLOCK_UNLOCKED_VALUE \
	}

static inline void spin_lock_init(spinlock_t *l)
{
	l->locked = SPINLOCK_UNLOCKED_VALUE;
}

/* Spin-wait hint: "rep; nop" (pause), harmless on any x86. */
static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

static inline bool spin_trylock(spinlock_t *l)
{
	int32_t prev = SPINLOCK_UNLOCKED_VALUE;

	/*
	 * A locked cmpxchg is a full barrier in SMP form: accesses in the
	 * critical section cannot move above the acquire.  In UP form the
	 * "memory" clobber keeps the compiler from moving them.
	 */
	__asm__ __volatile__(LOCK_PREFIX "cmpxchgl %2,%1"
			     : "+a"(prev), "+m"(l->locked)
			     : "r"(SPINLOCK_LOCKED_VALUE)
			     : "memory", "cc");
	return prev == SPINLOCK_UNLOCKED_VALUE;
}

static inline void spin_lock(spinlock_t *l)
{
	while (!spin_trylock(l)) {
		/* Wait with plain reads, not with locked writes. */
		while (l->locked != SPINLOCK_UNLOCKED_VALUE)
			cpu_relax();
	}
}

static inline void spin_unlock(spinlock_t *l)
{
	/*
	 * Release: on x86 (TSO) stores are not reordered with earlier loads
	 * or stores, so a plain store publishes the critical section; the
	 * compiler barrier keeps the compiler from sinking accesses below it.
	 */
	barrier();
	l->locked = SPINLOCK_UNLOCKED_VALUE;
}

static inline bool spin_is_locked(const spinlock_t *l)
{
	return l->locked != SPINLOCK_UNLOCKED_VALUE;
}

#endif /* SMPALT_SPINLOCK_H */
