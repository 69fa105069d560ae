// SPDX-License-Identifier: MIT
/*
 * test_primitives.c - the kernel's atomics, spinlock and refcount behave
 * as specified, and their SMP form really is atomic across threads.
 */
#include <pthread.h>

#include "alt_test.h"
#include <smpalt/atomic.h>
#include <smpalt/refcount.h>
#include <smpalt/spinlock.h>

#define THREADS 2
#define PER_THREAD 200000

static void atomic_operations_return_what_they_promise(void **state)
{
	atomic_t a = ATOMIC_INIT(5);

	(void)state;
	atomic_inc(&a);
	assert_int_equal(atomic_read(&a), 6);
	atomic_add(10, &a);
	atomic_sub(4, &a);
	assert_int_equal(atomic_read(&a), 12);
	assert_int_equal(atomic_add_return(3, &a), 15);
	assert_int_equal(atomic_cmpxchg(&a, 14, 0), 15); /* no store */
	assert_int_equal(atomic_read(&a), 15);
	assert_int_equal(atomic_cmpxchg(&a, 15, 1), 15); /* stored */
	assert_true(atomic_dec_and_test(&a));
	assert_false(atomic_dec_and_test(&a));
	assert_true(atomic_inc_and_test(&a));
	atomic_dec(&a);
	atomic_inc_alt(&a);
	assert_int_equal(atomic_read(&a), 0);
}

static void refcount_put_reports_the_last_reference_exactly_once(void **state)
{
	refcount_t r = REFCOUNT_INIT(1);

	(void)state;
	refcount_get(&r);
	assert_true(refcount_get_not_zero(&r));
	assert_int_equal(refcount_read(&r), 3);
	assert_false(refcount_put(&r));
	assert_false(refcount_put(&r));
	assert_true(refcount_put(&r));
	assert_false(refcount_get_not_zero(&r));
	assert_int_equal(refcount_read(&r), 0);
}

static void
spin_trylock_fails_while_held_and_succeeds_after_unlock(void **state)
{
	spinlock_t l = SPINLOCK_INIT;

	(void)state;
	assert_false(spin_is_locked(&l));
	assert_true(spin_trylock(&l));
	assert_true(spin_is_locked(&l));
	assert_false(spin_trylock(&l));
	spin_unlock(&l);
	spin_lock(&l);
	assert_true(spin_is_locked(&l));
	spin_unlock(&l);
	assert_false(spin_is_locked(&l));
}

struct shared {
	atomic_t counter;
	spinlock_t lock;
	int64_t locked_count;
};

static void *hammer(void *arg)
{
	struct shared *s = arg;
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		atomic_inc(&s->counter);
		spin_lock(&s->lock);
		s->locked_count++;
		spin_unlock(&s->lock);
	}
	return NULL;
}

static void smp_form_is_atomic_across_threads(void **state)
{
	struct shared s = {ATOMIC_INIT(0), SPINLOCK_INIT, 0};
	pthread_t th[THREADS];
	int i;

	(void)state;
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer, &s), 0);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_int_equal(atomic_read(&s.counter), THREADS * PER_THREAD);
	assert_int_equal(s.locked_count, THREADS * PER_THREAD);
}

int alt_group_primitives(size_t *total)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(atomic_operations_return_what_they_promise),
		cmocka_unit_test(
			refcount_put_reports_the_last_reference_exactly_once),
		cmocka_unit_test(
			spin_trylock_fails_while_held_and_succeeds_after_unlock),
		cmocka_unit_test(smp_form_is_atomic_across_threads),
	};

	return ALT_RUN_GROUP("atomics, spinlock, refcount", tests, total);
}
