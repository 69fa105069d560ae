/* SPDX-License-Identifier: MIT */
/*
 * refcount.h - reference counts on top of atomic.h: get, put, and
 * get-unless-zero for lookups that race with the last put.
 */
#ifndef SMPALT_REFCOUNT_H
#define SMPALT_REFCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include <smpalt/atomic.h>

typedef struct {
	atomic_t refs;
} refcount_t;

#define REFCOUNT_INIT(n)       \
	{                      \
		ATOMIC_INIT(n) \
	}

static inline void refcount_set(refcount_t *r, int32_t n)
{
	atomic_set(&r->refs, n);
}

static inline int32_t refcount_read(const refcount_t *r)
{
	return atomic_read(&r->refs);
}

static inline void refcount_get(refcount_t *r)
{
	atomic_inc(&r->refs);
}

/* True when this put dropped the last reference: the caller frees. */
static inline bool refcount_put(refcount_t *r)
{
	return atomic_dec_and_test(&r->refs);
}

/* Takes a reference unless the count is already zero; true if taken. */
static inline bool refcount_get_not_zero(refcount_t *r)
{
	int32_t old = atomic_read(&r->refs);

	while (old != 0) {
		int32_t seen = atomic_cmpxchg(&r->refs, old, old + 1);

		if (seen == old)
			return true;
		old = seen;
	}
	return false;
}

#endif /* SMPALT_REFCOUNT_H */
