// SPDX-License-Identifier: MIT
/*
 * record-not-lock.c - deliberately broken for the site checker: a
 * .smp_locks entry that points at a NOP, not at a lock prefix (the engine
 * would refuse it at switch time; the checker refuses it at build time).
 */
#include <smpalt/atomic.h>

static atomic_t counter;

int main(void)
{
	atomic_inc(&counter);
	__asm__ __volatile__(".pushsection .smp_locks,\"a\"\n\t"
			     ".balign 4\n\t"
			     ".long 1f - .\n\t"
			     ".popsection\n"
			     "1:\tnop");
	return atomic_read(&counter) == 1 ? 0 : 1;
}
