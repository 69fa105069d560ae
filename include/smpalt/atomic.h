/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - atomic counters and barriers whose lock prefixes the
 * alternatives engine turns off while one vCPU runs.
 *
 * Every read-modify-write here is "LOCK_PREFIX insn": in SMP form the
 * instruction is locked; in UP form the prefix byte is 0x3e and the
 * instruction is an ordinary one, which is atomic with respect to the only
 * CPU (an interrupt is taken between instructions, never inside one).
 * Never build on xchg with a memory operand: it is locked whatever its
 * prefix, so the engine could not make it cheaper.
 */
#ifndef SMPALT_ATOMIC_H
#define SMPALT_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#include <smpalt/alternative.h>

typedef struct {
	volatile int32_t counter;
} atomic_t;

typedef struct {
	volatile int64_t counter;
} atomic64_t;

#define ATOMIC_INIT(v) \
	{              \
		(v)    \
	}

/* Compiler barrier: no memory access is moved across it. */
#define barrier() __asm__ __volatile__("" ::: "memory")

/*
 * Full barrier.  SMP form: a locked no-op add to the stack, which orders
 * all earlier loads and stores before all later ones on x86 and is cheaper
 * than mfence.  The lock is written literally: the alternative_smp record
 * owns it.  UP form: nothing (padded with a NOP): one CPU always sees its
 * own accesses in program order; the compiler barrier remains.
 * The location -8(%rsp) is below the stack pointer; adding 0 leaves it
 * unchanged, so a red zone (host programs) is not disturbed.
 */
static inline void smp_mb(void)
{
	__asm__ __volatile__(alternative_smp("lock; addl $0,-8(%%rsp)", "")
			     :
			     :
			     : "memory", "cc");
}

/*
 * x86 is TSO: loads are not reordered with loads, nor stores with stores,
 * so read and write barriers only have to stop the compiler.
 */
#define smp_rmb() barrier()
#define smp_wmb() barrier()

static inline int32_t atomic_read(const atomic_t *v)
{
	return v->counter;
}

static inline void atomic_set(atomic_t *v, int32_t i)
{
	v->counter = i;
}

static inline void atomic_inc(atomic_t *v)
{
	__asm__ __volatile__(LOCK_PREFIX "incl %0" : "+m"(v->counter));
}

static inline void atomic_dec(atomic_t *v)
{
	__asm__ __volatile__(LOCK_PREFIX "decl %0" : "+m"(v->counter));
}

static inline void atomic_add(int32_t i, atomic_t *v)
{
	__asm__ __volatile__(LOCK_PREFIX "addl %1,%0"
			     : "+m"(v->counter)
			     : "ir"(i));
}

static inline void atomic_sub(int32_t i, atomic_t *v)
{
	__asm__ __volatile__(LOCK_PREFIX "subl %1,%0"
			     : "+m"(v->counter)
			     : "ir"(i));
}

/* True when the counter became zero. */
static inline bool atomic_dec_and_test(atomic_t *v)
{
	bool zero;

	__asm__ __volatile__(LOCK_PREFIX "decl %0"
			     : "+m"(v->counter), "=@ccz"(zero)
			     :
			     : "memory");
	return zero;
}

static inline bool atomic_inc_and_test(atomic_t *v)
{
	bool zero;

	__asm__ __volatile__(LOCK_PREFIX "incl %0"
			     : "+m"(v->counter), "=@ccz"(zero)
			     :
			     : "memory");
	return zero;
}

/* Adds i and returns the new value. */
static inline int32_t atomic_add_return(int32_t i, atomic_t *v)
{
	int32_t old = i;

	__asm__ __volatile__(LOCK_PREFIX "xaddl %0,%1"
			     : "+r"(old), "+m"(v->counter)
			     :
			     : "memory");
	return old + i;
}

/* Returns the value found; the store happened if it equals old. */
static inline int32_t atomic_cmpxchg(atomic_t *v, int32_t old, int32_t new)
{
	int32_t prev = old;

	__asm__ __volatile__(LOCK_PREFIX "cmpxchgl %2,%1"
			     : "+a"(prev), "+m"(v->counter)
			     : "r"(new)
			     : "memory");
	return prev;
}

static inline int64_t atomic64_read(const atomic64_t *v)
{
	return v->counter;
}

static inline void atomic64_set(atomic64_t *v, int64_t i)
{
	v->counter = i;
}

static inline void atomic64_inc(atomic64_t *v)
{
	__asm__ __volatile__(LOCK_PREFIX "incq %0" : "+m"(v->counter));
}

static inline void atomic64_add(int64_t i, atomic64_t *v)
{
	__asm__ __volatile__(LOCK_PREFIX "addq %1,%0"
			     : "+m"(v->counter)
			     : "er"(i));
}

static inline int64_t atomic64_cmpxchg(atomic64_t *v, int64_t old, int64_t new)
{
	int64_t prev = old;

	__asm__ __volatile__(LOCK_PREFIX "cmpxchgq %2,%1"
			     : "+a"(prev), "+m"(v->counter)
			     : "r"(new)
			     : "memory");
	return prev;
}

/*
 * Increment through an alternative_smp() site rather than a bare prefix:
 * SMP form "lock; incl (reg)", UP form "incl (reg)" one byte shorter and
 * padded with a NOP.  The operand is a register, never %rip-relative, so
 * the UP bytes can be copied.  Used where a whole instruction, not only its
 * prefix, differs between the forms; here it exercises that path.
 */
static inline void atomic_inc_alt(atomic_t *v)
{
	__asm__ __volatile__(alternative_smp("lock; incl (%0)", "incl (%0)")
			     :
			     : "r"(&v->counter)
			     : "memory", "cc");
}

#endif /* SMPALT_ATOMIC_H */
