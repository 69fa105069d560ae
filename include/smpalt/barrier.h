/* SPDX-License-Identifier: MIT */
/*
 * barrier.h - ordering and atomics for memory shared with Xen or with
 * another domain (shared_info, the console and xenstore rings).
 *
 * These are NOT switched by the alternatives engine: the other side runs on
 * another physical CPU whatever the number of our vCPUs, so a ring or an
 * event bit needs real barriers and locked read-modify-writes even while
 * the guest runs its UP form.  Guest-internal data uses atomic.h.
 *
 * XEN_LOCK_PREFIX records the address of each such lock prefix in
 * .xen_locks (32-bit self-relative, like .smp_locks) so that a checker can
 * tell "locked on purpose, never patched" from "forgot LOCK_PREFIX".
 */
#ifndef SMPALT_BARRIER_H
#define SMPALT_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

#define XEN_LOCK_PREFIX                     \
	".pushsection .xen_locks,\"a\"\n\t" \
	".balign 4\n\t"                     \
	".long 681f - .\n\t"                \
	".popsection\n\t"                   \
	"681:\n\t"                          \
	"lock; "

/* Compiler-only barrier (same as atomic.h's barrier()). */
#define virt_barrier() __asm__ __volatile__("" ::: "memory")

/*
 * Full barrier against the other side: mfence orders our earlier stores
 * before our later loads (x86 may otherwise let a load pass a store).
 */
#define virt_mb() __asm__ __volatile__("mfence" ::: "memory")
/* x86 (TSO) does not reorder loads with loads or stores with stores. */
#define virt_rmb() virt_barrier()
#define virt_wmb() virt_barrier()

/* Bit operations on words Xen writes concurrently (event bitmaps). */
static inline bool xen_test_and_clear_bit(unsigned int nr,
					  volatile unsigned long *addr)
{
	bool old;

	__asm__ __volatile__(XEN_LOCK_PREFIX "btrq %2,%1"
			     : "=@ccc"(old), "+m"(addr[nr / 64])
			     : "Ir"((unsigned long)(nr % 64))
			     : "memory");
	return old;
}

static inline void xen_set_bit(unsigned int nr, volatile unsigned long *addr)
{
	__asm__ __volatile__(XEN_LOCK_PREFIX "btsq %1,%0"
			     : "+m"(addr[nr / 64])
			     : "Ir"((unsigned long)(nr % 64))
			     : "memory");
}

static inline void xen_clear_bit(unsigned int nr, volatile unsigned long *addr)
{
	__asm__ __volatile__(XEN_LOCK_PREFIX "btrq %1,%0"
			     : "+m"(addr[nr / 64])
			     : "Ir"((unsigned long)(nr % 64))
			     : "memory");
}

/*
 * Exchange a word Xen sets bits in.  xchg with memory is locked by the CPU
 * whatever its prefix: exactly what is wanted here, and invisible to the
 * alternatives engine.
 */
static inline unsigned long xen_xchg(volatile unsigned long *p, unsigned long v)
{
	__asm__ __volatile__("xchgq %0,%1" : "+r"(v), "+m"(*p) : : "memory");
	return v;
}

#endif /* SMPALT_BARRIER_H */
