// SPDX-License-Identifier: MIT
/*
 * test_switch.c - the engine on this program's own text: the records the
 * kernel headers emitted into workload.c (and into these tests) are
 * switched to UP and back, and the code is run in both forms.
 */
#include <stdlib.h>
#include <string.h>

#include "alt_host.h"
#include <smpalt/alt_insn.h>
#include "alt_test.h"
#include <smpalt/atomic.h>
#include "workload.h"

#define SAVE_MAX 4096
#define RANDOM_SEQUENCES 10000
#define RANDOM_SEQUENCE_MAX_LEN 8
#define RANDOM_SEED 20051129u
#define RUN_LOOPS 1000
/* Run the workload every this many random sequences. */
#define RANDOM_RUN_EVERY 97

struct fixture {
	struct alt_tables t;
	struct alt_host_ctx ctx;
	struct alt_ops ops;
	struct alt_engine e;
	struct alt_report rep;
	uint8_t save[SAVE_MAX];
	uint8_t *smp_text; /* the text as linked, taken at setup */
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	alt_host_unlock_text();
	f->t = alt_host_tables();
	f->ops = alt_host_ops(&f->ctx);
	if (alt_save_size(&f->t) > sizeof(f->save))
		return -1;
	f->smp_text = alt_host_text_copy();
	if (alt_init(&f->e, &f->t, &f->ops, f->save, sizeof(f->save),
		     &f->rep)) {
		alt_test_print_report("alt_init", &f->rep);
		return -1;
	}
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;
	int rc = alt_switch(&f->e, ALT_MODE_SMP, &f->rep);

	/* Leave the text as linked for the next test. */
	if (rc == 0)
		rc = memcmp(alt_host_text(), f->smp_text,
			    alt_host_text_size()) != 0;
	free(f->smp_text);
	free(f);
	return rc ? -1 : 0;
}

struct results {
	int64_t inc, inc_alt, spin, ref, cx, mixed;
};

static struct results run_workload(void)
{
	struct results r = {
		.inc = wl_atomic_inc_loop(RUN_LOOPS),
		.inc_alt = wl_atomic_inc_alt_loop(RUN_LOOPS),
		.spin = wl_spinlock_loop(RUN_LOOPS),
		.ref = wl_refcount_loop(RUN_LOOPS),
		.cx = wl_cmpxchg_loop(RUN_LOOPS),
		.mixed = wl_mixed(RUN_LOOPS),
	};

	wl_full_barrier();
	return r;
}

static void assert_results_equal(const struct results *a,
				 const struct results *b)
{
	assert_int_equal(a->inc, b->inc);
	assert_int_equal(a->inc_alt, b->inc_alt);
	assert_int_equal(a->spin, b->spin);
	assert_int_equal(a->ref, b->ref);
	assert_int_equal(a->cx, b->cx);
	assert_int_equal(a->mixed, b->mixed);
}

/* Checks that the site's padding is the fewest, longest NOPs. */
static void assert_optimal_nops(const uint8_t *p, size_t len)
{
	while (len > 0) {
		size_t n = len > ALT_NOP_MAX_LEN ? ALT_NOP_MAX_LEN : len;

		assert_memory_equal(p, alt_nop(n), n);
		p += n;
		len -= n;
	}
}

static void program_has_lock_and_smp_alternative_records(void **state)
{
	struct fixture *f = *state;
	size_t i;

	/* workload.c alone has a dozen lock sites and several smp sites. */
	assert_true(alt_lock_count(&f->t) >= 10);
	assert_true(alt_smp_count(&f->t) >= 3);
	for (i = 0; i < alt_lock_count(&f->t); i++) {
		const uint8_t *p =
			(const uint8_t *)alt_rel_addr(&f->t.locks[i]);
		struct alt_insn insn;

		assert_int_equal(*p, ALT_LOCK_PREFIX_BYTE);
		assert_true(alt_insn_decode(p, ALT_INSN_MAX_LEN, &insn) > 0);
		assert_true(insn.lock);
	}
}

static void switch_to_up_puts_ds_prefix_at_every_lock_site(void **state)
{
	struct fixture *f = *state;
	size_t i;

	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	assert_int_equal(alt_current_mode(&f->e), ALT_MODE_UP);
	for (i = 0; i < alt_lock_count(&f->t); i++)
		assert_int_equal(*(const uint8_t *)alt_rel_addr(&f->t.locks[i]),
				 ALT_DS_PREFIX_BYTE);
}

static void switch_to_up_puts_up_bytes_and_nops_at_every_smp_site(void **state)
{
	struct fixture *f = *state;
	size_t i;

	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	for (i = 0; i < alt_smp_count(&f->t); i++) {
		const struct alt_smp_site *s = &f->t.smp[i];
		const uint8_t *site = (const uint8_t *)alt_site_addr(s);

		assert_memory_equal(site, (const void *)alt_repl_addr(s),
				    s->repl_len);
		assert_optimal_nops(site + s->repl_len,
				    (size_t)(s->site_len - s->repl_len));
	}
}

static void only_recorded_bytes_change_when_switching_to_up(void **state)
{
	struct fixture *f = *state;
	uint8_t *text = alt_host_text();
	size_t size = alt_host_text_size(), i, changed = 0, allowed = 0;
	uint8_t *mask = calloc(1, size);

	assert_non_null(mask);
	for (i = 0; i < alt_lock_count(&f->t); i++)
		mask[alt_rel_addr(&f->t.locks[i]) - (uintptr_t)text] = 1;
	for (i = 0; i < alt_smp_count(&f->t); i++) {
		const struct alt_smp_site *s = &f->t.smp[i];

		memset(mask + (alt_site_addr(s) - (uintptr_t)text), 1,
		       s->site_len);
	}
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	for (i = 0; i < size; i++) {
		if (text[i] != f->smp_text[i]) {
			changed++;
			allowed += mask[i];
		}
	}
	free(mask);
	assert_true(changed > 0);
	assert_int_equal(changed, allowed);
}

static void up_form_computes_the_same_results_as_smp_form(void **state)
{
	struct fixture *f = *state;
	struct results smp, up;

	smp = run_workload();
	assert_int_equal(smp.inc, RUN_LOOPS);
	assert_int_equal(smp.inc_alt, RUN_LOOPS);
	assert_int_equal(smp.spin, RUN_LOOPS);
	assert_int_equal(smp.cx, (int64_t)RUN_LOOPS * (RUN_LOOPS - 1) / 2);
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	up = run_workload();
	assert_results_equal(&smp, &up);
}

static void switch_back_to_smp_restores_text_byte_for_byte(void **state)
{
	struct fixture *f = *state;
	struct results smp, back;

	smp = run_workload();
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	assert_memory_not_equal(alt_host_text(), f->smp_text,
				alt_host_text_size());
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_SMP, &f->rep), &f->rep);
	assert_memory_equal(alt_host_text(), f->smp_text, alt_host_text_size());
	back = run_workload();
	assert_results_equal(&smp, &back);
}

static void repeated_switch_to_current_mode_writes_nothing(void **state)
{
	struct fixture *f = *state;
	size_t writes, serializes;

	assert_alt_ok(alt_switch(&f->e, ALT_MODE_SMP, &f->rep), &f->rep);
	assert_int_equal(f->ctx.writes, 0);
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	writes = f->ctx.writes;
	serializes = f->ctx.serializes;
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	assert_int_equal(f->ctx.writes, writes);
	assert_int_equal(f->ctx.serializes, serializes);
	assert_int_equal(f->e.stats.switches, 1);
}

static void stats_count_the_sites_each_switch_rewrote(void **state)
{
	struct fixture *f = *state;
	size_t sites = alt_lock_count(&f->t) + alt_smp_count(&f->t);

	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	assert_int_equal(f->e.stats.last_sites, sites);
	assert_int_equal(f->ctx.writes, sites);
	assert_int_equal(f->ctx.serializes, 1);
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_SMP, &f->rep), &f->rep);
	assert_int_equal(f->e.stats.switches, 2);
	assert_int_equal(f->e.stats.total_sites, 2 * sites);
}

static void corrupted_lock_site_in_real_text_is_refused_and_named(void **state)
{
	struct fixture *f = *state;
	size_t k = alt_lock_count(&f->t) / 2;
	uint8_t *site = (uint8_t *)alt_rel_addr(&f->t.locks[k]);
	uint8_t *before;

	*site = 0x90; /* a corrupted prefix: no longer 0xf0 */
	before = alt_host_text_copy();
	assert_int_equal(alt_switch(&f->e, ALT_MODE_UP, &f->rep), -EINVAL);
	assert_int_equal(f->rep.kind, ALT_SITE_LOCK);
	assert_int_equal(f->rep.index, k);
	assert_int_equal(f->rep.addr, (uintptr_t)site);
	assert_int_equal(f->ctx.writes, 0);
	assert_memory_equal(alt_host_text(), before, alt_host_text_size());
	assert_int_equal(alt_current_mode(&f->e), ALT_MODE_SMP);
	free(before);
	*site = ALT_LOCK_PREFIX_BYTE;
}

static void corrupted_smp_site_in_up_mode_refuses_switch_back(void **state)
{
	struct fixture *f = *state;
	const struct alt_smp_site *s = &f->t.smp[0];
	uint8_t *last = (uint8_t *)alt_site_addr(s) + s->site_len - 1;
	uint8_t good, *before;
	size_t writes;

	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	writes = f->ctx.writes;
	good = *last;
	*last = 0xcc;
	before = alt_host_text_copy();
	assert_int_equal(alt_switch(&f->e, ALT_MODE_SMP, &f->rep), -EINVAL);
	assert_int_equal(f->rep.kind, ALT_SITE_SMP);
	assert_int_equal(f->rep.index, 0);
	assert_int_equal(f->ctx.writes, writes);
	assert_memory_equal(alt_host_text(), before, alt_host_text_size());
	assert_int_equal(alt_current_mode(&f->e), ALT_MODE_UP);
	free(before);
	*last = good;
}

static void ten_thousand_random_switch_sequences_stay_consistent(void **state)
{
	struct fixture *f = *state;
	unsigned int seed = RANDOM_SEED;
	enum alt_mode model = ALT_MODE_SMP;
	uint64_t changes = 0;
	struct results ref = run_workload();
	uint8_t *up_text;
	size_t seq;

	assert_alt_ok(alt_switch(&f->e, ALT_MODE_UP, &f->rep), &f->rep);
	up_text = alt_host_text_copy();
	assert_alt_ok(alt_switch(&f->e, ALT_MODE_SMP, &f->rep), &f->rep);
	changes = 2;
	for (seq = 0; seq < RANDOM_SEQUENCES; seq++) {
		int len = 1 + rand_r(&seed) % RANDOM_SEQUENCE_MAX_LEN, k;

		for (k = 0; k < len; k++) {
			enum alt_mode to =
				rand_r(&seed) & 1 ? ALT_MODE_UP : ALT_MODE_SMP;

			assert_alt_ok(alt_switch(&f->e, to, &f->rep), &f->rep);
			if (to != model)
				changes++;
			model = to;
		}
		assert_int_equal(alt_current_mode(&f->e), model);
		assert_memory_equal(alt_host_text(),
				    model == ALT_MODE_UP ? up_text
							 : f->smp_text,
				    alt_host_text_size());
		if (seq % RANDOM_RUN_EVERY == 0) {
			struct results now = run_workload();

			assert_results_equal(&ref, &now);
		}
	}
	assert_int_equal(f->e.stats.switches, changes);
	free(up_text);
}

int alt_group_switch(size_t *total)
{
#define T(fn) \
	cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	static const struct CMUnitTest tests[] = {
		T(program_has_lock_and_smp_alternative_records),
		T(switch_to_up_puts_ds_prefix_at_every_lock_site),
		T(switch_to_up_puts_up_bytes_and_nops_at_every_smp_site),
		T(only_recorded_bytes_change_when_switching_to_up),
		T(up_form_computes_the_same_results_as_smp_form),
		T(switch_back_to_smp_restores_text_byte_for_byte),
		T(repeated_switch_to_current_mode_writes_nothing),
		T(stats_count_the_sites_each_switch_rewrote),
		T(corrupted_lock_site_in_real_text_is_refused_and_named),
		T(corrupted_smp_site_in_up_mode_refuses_switch_back),
		T(ten_thousand_random_switch_sequences_stay_consistent),
	};
#undef T

	return ALT_RUN_GROUP("switching this program's text", tests, total);
}
