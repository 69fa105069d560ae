// SPDX-License-Identifier: MIT
/*
 * unrecorded-lock.c - deliberately broken for the site checker: besides
 * properly recorded atomics it has one "lock" written without LOCK_PREFIX,
 * so no record covers it.  check-sites must refuse this program.
 */
#include <smpalt/atomic.h>

static atomic_t counter;

int main(void)
{
	atomic_inc(&counter);
	__asm__ __volatile__("lock; incl %0" : "+m"(counter.counter));
	return atomic_read(&counter) == 2 ? 0 : 1;
}
