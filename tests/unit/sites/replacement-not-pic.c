// SPDX-License-Identifier: MIT
/*
 * replacement-not-pic.c - deliberately broken for the site checker: the UP
 * form of an alternative_smp() site uses a %rip-relative operand ("m" on a
 * global), so the copied bytes would address the wrong place.  The engine
 * refuses it at init; check-sites refuses it at build time.
 */
#include <smpalt/atomic.h>

static atomic_t counter;

int main(void)
{
	__asm__ __volatile__(alternative_smp("lock; incl %0", "incl %0")
			     : "+m"(counter.counter));
	return atomic_read(&counter) == 1 ? 0 : 1;
}
