// SPDX-License-Identifier: MIT
/*
 * lock-recorded-twice.c - deliberately broken for the site checker:
 * LOCK_PREFIX used inside an alternative_smp() SMP form, so the one lock
 * byte is in .smp_locks and in an alternative_smp site: two patchers would
 * fight over it.  check-sites must refuse this program.
 */
#include <smpalt/atomic.h>

static atomic_t counter;

int main(void)
{
	__asm__ __volatile__(
		alternative_smp(LOCK_PREFIX "incl (%0)", "incl (%0)")
		:
		: "r"(&counter.counter)
		: "memory", "cc");
	return atomic_read(&counter) == 1 ? 0 : 1;
}
