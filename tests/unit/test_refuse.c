// SPDX-License-Identifier: MIT
/*
 * test_refuse.c - the engine on a small synthetic text whose records are
 * built by hand: what it refuses, and that a refusal writes nothing.
 *
 * The "text" is a static buffer: the engine only reads it and writes it
 * through the callback, so it need not be executable.  Bytes around the
 * text range are a guard that must never change.
 */
#include <string.h>

#include "alt_host.h"
#include <smpalt/alt_insn.h>
#include "alt_test.h"

#define FAKE_BUF_LEN 256
#define FAKE_TEXT_OFF 64 /* text = buf[64, 128); the rest is guard */
#define FAKE_TEXT_LEN 64
#define FAKE_GUARD 0xcc
#define FAKE_MAX_LOCKS 4
#define FAKE_MAX_SMP 4

/* Sites inside the fake text (offsets from its start). */
#define LOCK0_OFF 0 /* f0 ff 00        lock incl (%rax) */
#define LOCK1_OFF 3 /* f0 0f b1 11     lock cmpxchg %edx,(%rcx) */
#define SMP0_OFF 16 /* f0 ff 02        lock incl (%rdx) -> incl (%rdx) */
#define SMP1_OFF 32 /* 0f ae f0        mfence -> (nothing) */

static uint8_t fake_buf[FAKE_BUF_LEN];
static int32_t fake_locks[FAKE_MAX_LOCKS];
static struct alt_smp_site fake_smp[FAKE_MAX_SMP];
static uint8_t fake_repl[FAKE_MAX_SMP][ALT_INSN_MAX_LEN];
static uint8_t fake_save[FAKE_TEXT_LEN];

static const uint8_t lock0[] = {0xf0, 0xff, 0x00};
static const uint8_t lock1[] = {0xf0, 0x0f, 0xb1, 0x11};
static const uint8_t smp0[] = {0xf0, 0xff, 0x02};
static const uint8_t smp0_up[] = {0xff, 0x02};
static const uint8_t smp1[] = {0x0f, 0xae, 0xf0};

static uint8_t *fake_text(void)
{
	return fake_buf + FAKE_TEXT_OFF;
}

/* Make the (possibly unaligned) self-relative field point at target. */
static void set_rel(void *field, const void *target)
{
	int32_t off = (int32_t)((intptr_t)target - (intptr_t)field);

	memcpy(field, &off, sizeof(off));
}

static void set_smp(size_t i, size_t site_off, uint8_t site_len,
		    const uint8_t *repl, uint8_t repl_len)
{
	struct alt_smp_site *s = &fake_smp[i];

	if (repl_len)
		memcpy(fake_repl[i], repl, repl_len);
	set_rel((char *)s + offsetof(struct alt_smp_site, site),
		fake_text() + site_off);
	set_rel((char *)s + offsetof(struct alt_smp_site, repl), fake_repl[i]);
	s->site_len = site_len;
	s->repl_len = repl_len;
}

/* Two lock sites, two alternative_smp sites, all valid. */
static struct alt_tables fake_tables(size_t nlocks, size_t nsmp)
{
	struct alt_tables t = {
		.text_start = (uintptr_t)fake_text(),
		.text_end = (uintptr_t)fake_text() + FAKE_TEXT_LEN,
		.locks = fake_locks,
		.locks_end = fake_locks + nlocks,
		.smp = fake_smp,
		.smp_end = fake_smp + nsmp,
	};

	return t;
}

static int fake_setup(void **state)
{
	(void)state;
	memset(fake_buf, FAKE_GUARD, sizeof(fake_buf));
	memset(fake_text(), 0x90, FAKE_TEXT_LEN);
	memcpy(fake_text() + LOCK0_OFF, lock0, sizeof(lock0));
	memcpy(fake_text() + LOCK1_OFF, lock1, sizeof(lock1));
	memcpy(fake_text() + SMP0_OFF, smp0, sizeof(smp0));
	memcpy(fake_text() + SMP1_OFF, smp1, sizeof(smp1));
	set_rel(&fake_locks[0], fake_text() + LOCK0_OFF);
	set_rel(&fake_locks[1], fake_text() + LOCK1_OFF);
	set_smp(0, SMP0_OFF, sizeof(smp0), smp0_up, sizeof(smp0_up));
	set_smp(1, SMP1_OFF, sizeof(smp1), NULL, 0);
	return 0;
}

static void synthetic_text_switches_both_ways_with_exact_bytes(void **state)
{
	struct alt_tables t = fake_tables(2, 2);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	uint8_t before[FAKE_BUF_LEN];
	static const uint8_t smp0_up_site[] = {0xff, 0x02, 0x90};
	static const uint8_t smp1_up_site[] = {0x0f, 0x1f, 0x00};

	(void)state;
	memcpy(before, fake_buf, sizeof(before));
	assert_int_equal(alt_save_size(&t), sizeof(smp0) + sizeof(smp1));
	assert_alt_ok(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		&rep);
	assert_alt_ok(alt_switch(&e, ALT_MODE_UP, &rep), &rep);
	assert_int_equal(fake_text()[LOCK0_OFF], ALT_DS_PREFIX_BYTE);
	assert_int_equal(fake_text()[LOCK1_OFF], ALT_DS_PREFIX_BYTE);
	assert_memory_equal(fake_text() + SMP0_OFF, smp0_up_site,
			    sizeof(smp0_up_site));
	assert_memory_equal(fake_text() + SMP1_OFF, smp1_up_site,
			    sizeof(smp1_up_site));
	assert_int_equal(e.stats.last_sites, 4);
	assert_int_equal(ctx.serializes, 1);
	assert_alt_ok(alt_switch(&e, ALT_MODE_SMP, &rep), &rep);
	assert_memory_equal(fake_buf, before, sizeof(before));
	assert_int_equal(ctx.serializes, 2);
}

static void lock_record_outside_text_is_refused_at_init_naming_it(void **state)
{
	struct alt_tables t = fake_tables(3, 2);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	uint8_t before[FAKE_BUF_LEN];

	(void)state;
	/* Record 2 points one byte past the end of the text. */
	set_rel(&fake_locks[2], fake_text() + FAKE_TEXT_LEN);
	memcpy(before, fake_buf, sizeof(before));
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		-EINVAL);
	assert_int_equal(rep.error, -EINVAL);
	assert_int_equal(rep.kind, ALT_SITE_LOCK);
	assert_int_equal(rep.index, 2);
	assert_int_equal(rep.addr, (uintptr_t)fake_text() + FAKE_TEXT_LEN);
	assert_int_equal(ctx.writes, 0);
	assert_memory_equal(fake_buf, before, sizeof(before));
}

static void smp_site_straddling_text_end_is_refused_at_init(void **state)
{
	struct alt_tables t = fake_tables(2, 3);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;

	(void)state;
	/* Three bytes starting two before the end. */
	set_smp(2, FAKE_TEXT_LEN - 2, sizeof(smp0), smp0_up, sizeof(smp0_up));
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		-EINVAL);
	assert_int_equal(rep.kind, ALT_SITE_SMP);
	assert_int_equal(rep.index, 2);
	assert_int_equal(ctx.writes, 0);
}

static void out_of_range_record_met_at_switch_time_writes_nothing(void **state)
{
	struct alt_tables t = fake_tables(2, 2);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	uint8_t before[FAKE_BUF_LEN];

	(void)state;
	assert_alt_ok(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		&rep);
	/* The table changes under the engine: the last record now points
	 * into the guard area before the text. */
	set_smp(1, 0, 1, NULL, 0);
	set_rel((char *)&fake_smp[1] + offsetof(struct alt_smp_site, site),
		fake_buf);
	memcpy(before, fake_buf, sizeof(before));
	assert_int_equal(alt_switch(&e, ALT_MODE_UP, &rep), -EINVAL);
	assert_int_equal(rep.kind, ALT_SITE_SMP);
	assert_int_equal(rep.index, 1);
	assert_int_equal(rep.addr, (uintptr_t)fake_buf);
	assert_int_equal(ctx.writes, 0);
	assert_int_equal(alt_current_mode(&e), ALT_MODE_SMP);
	assert_memory_equal(fake_buf, before, sizeof(before));
}

static void
corrupted_last_lock_site_refuses_switch_and_writes_nothing(void **state)
{
	struct alt_tables t = fake_tables(2, 2);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	uint8_t before[FAKE_BUF_LEN];

	(void)state;
	assert_alt_ok(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		&rep);
	fake_text()[LOCK1_OFF] = 0x90; /* not a lock prefix any more */
	memcpy(before, fake_buf, sizeof(before));
	assert_int_equal(alt_switch(&e, ALT_MODE_UP, &rep), -EINVAL);
	assert_int_equal(rep.kind, ALT_SITE_LOCK);
	assert_int_equal(rep.index, 1);
	assert_int_equal(rep.addr, (uintptr_t)fake_text() + LOCK1_OFF);
	assert_non_null(strstr(rep.reason, "0xf0"));
	/* Lock site 0 was fine and comes first: still not written. */
	assert_int_equal(ctx.writes, 0);
	assert_int_equal(ctx.serializes, 0);
	assert_memory_equal(fake_buf, before, sizeof(before));
}

static void replacement_with_rip_relative_operand_is_refused(void **state)
{
	static const uint8_t incl_rip[] = {0xff, 0x05, 0, 0, 0, 0};
	struct alt_tables t = fake_tables(2, 3);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;

	(void)state;
	set_smp(2, 40, sizeof(incl_rip), incl_rip, sizeof(incl_rip));
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		-EINVAL);
	assert_int_equal(rep.kind, ALT_SITE_SMP);
	assert_int_equal(rep.index, 2);
	assert_non_null(strstr(rep.reason, "position-independent"));
	assert_int_equal(ctx.writes, 0);
}

/*
 * A replacement inside the text could be among the bytes a switch
 * rewrites (here: inside its own site, as fuzz_alt_core found), and the
 * UP form would then change under the engine: refused at init.
 */
static void replacement_inside_the_text_is_refused_naming_it(void **state)
{
	static const uint8_t site[] = {0xf0, 0xff, 0x02, 0xff, 0x02};
	struct alt_tables t = fake_tables(2, 3);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	struct alt_smp_site *s = &fake_smp[2];
	uint8_t before[FAKE_BUF_LEN];

	(void)state;
	/* lock incl (%rdx); incl (%rdx): the replacement is the last two. */
	memcpy(fake_text() + 40, site, sizeof(site));
	set_smp(2, 40, sizeof(site), NULL, 0);
	set_rel((char *)s + offsetof(struct alt_smp_site, repl),
		fake_text() + 43);
	s->repl_len = 2;
	memcpy(before, fake_buf, sizeof(before));
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		-EINVAL);
	assert_int_equal(rep.kind, ALT_SITE_SMP);
	assert_int_equal(rep.index, 2);
	assert_ptr_equal(rep.addr, (uintptr_t)fake_text() + 40);
	assert_non_null(strstr(rep.reason, "replacement inside the text"));
	assert_int_equal(ctx.writes, 0);
	assert_memory_equal(fake_buf, before, sizeof(before));

	/* The same record with its replacement outside the text is fine. */
	set_smp(2, 40, sizeof(site), site + 3, 2);
	assert_alt_ok(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		&rep);
}

static void replacement_with_relative_call_or_jump_is_refused(void **state)
{
	static const uint8_t call_rel32[] = {0xe8, 0, 0, 0, 0};
	static const uint8_t nop_then_jmp_rel8[] = {0x90, 0xeb, 0x00};
	static const uint8_t je_rel32[] = {0x0f, 0x84, 0, 0, 0, 0};
	const uint8_t *bad[] = {call_rel32, nop_then_jmp_rel8, je_rel32};
	const uint8_t bad_len[] = {sizeof(call_rel32),
				   sizeof(nop_then_jmp_rel8), sizeof(je_rel32)};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct alt_tables t = fake_tables(2, 3);
		struct alt_host_ctx ctx = {0};
		struct alt_ops ops = alt_host_ops(&ctx);
		struct alt_engine e;
		struct alt_report rep;

		set_smp(2, 40, bad_len[i], bad[i], bad_len[i]);
		assert_int_equal(alt_init(&e, &t, &ops, fake_save,
					  sizeof(fake_save), &rep),
				 -EINVAL);
		assert_int_equal(rep.index, 2);
		assert_non_null(strstr(rep.reason, "position-independent"));
	}
}

static void replacement_that_cannot_be_decoded_is_refused(void **state)
{
	static const uint8_t vzeroupper[] = {0xc5, 0xf8, 0x77};
	struct alt_tables t = fake_tables(2, 3);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;

	(void)state;
	set_smp(2, 40, sizeof(vzeroupper), vzeroupper, sizeof(vzeroupper));
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		-EINVAL);
	assert_int_equal(rep.index, 2);
	assert_non_null(strstr(rep.reason, "not whole instructions"));
}

static void
lock_recorded_twice_in_smp_site_and_smp_locks_is_refused(void **state)
{
	struct alt_tables t = fake_tables(3, 2);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;

	(void)state;
	/* The lock of alternative_smp site 0 also in .smp_locks. */
	set_rel(&fake_locks[2], fake_text() + SMP0_OFF);
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		-EINVAL);
	assert_int_equal(rep.kind, ALT_SITE_SMP);
	assert_int_equal(rep.index, 0);
	assert_non_null(strstr(rep.reason, "both"));
}

static void overlapping_or_empty_alternative_sites_are_refused(void **state)
{
	struct alt_tables t = fake_tables(2, 3);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;

	(void)state;
	/* Site 2 starts on the last byte of site 0. */
	set_smp(2, SMP0_OFF + sizeof(smp0) - 1, sizeof(smp0), smp0_up,
		sizeof(smp0_up));
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		-EINVAL);
	assert_int_equal(rep.kind, ALT_SITE_SMP);
	assert_int_equal(rep.index, 0);
	assert_non_null(strstr(rep.reason, "overlap"));
	/* Site 2 has no bytes at all. */
	set_smp(2, 40, 0, NULL, 0);
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		-EINVAL);
	assert_int_equal(rep.index, 2);
	assert_non_null(strstr(rep.reason, "empty"));
	assert_int_equal(ctx.writes, 0);
}

static void save_buffer_smaller_than_alt_save_size_is_refused(void **state)
{
	struct alt_tables t = fake_tables(2, 2);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;

	(void)state;
	assert_int_equal(
		alt_init(&e, &t, &ops, fake_save, alt_save_size(&t) - 1, &rep),
		-ENOSPC);
	/* Without a buffer only the one-time UP apply is possible. */
	assert_alt_ok(alt_init(&e, &t, &ops, NULL, 0, &rep), &rep);
	assert_int_equal(alt_switch(&e, ALT_MODE_UP, &rep), -ENOSPC);
	assert_int_equal(ctx.writes, 0);
}

static void failed_write_puts_back_what_was_written(void **state)
{
	struct alt_tables t = fake_tables(2, 2);
	struct alt_host_ctx ctx = {.fail_at_write = 3, .fail_err = -EIO};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	uint8_t before[FAKE_BUF_LEN];

	(void)state;
	memcpy(before, fake_buf, sizeof(before));
	assert_alt_ok(
		alt_init(&e, &t, &ops, fake_save, sizeof(fake_save), &rep),
		&rep);
	/* Writes 1, 2: lock sites; write 3: alternative_smp site 0. */
	assert_int_equal(alt_switch(&e, ALT_MODE_UP, &rep), -EIO);
	assert_int_equal(rep.kind, ALT_SITE_SMP);
	assert_int_equal(rep.index, 0);
	assert_int_equal(alt_current_mode(&e), ALT_MODE_SMP);
	assert_memory_equal(fake_buf, before, sizeof(before));
	/* And the engine still works afterwards. */
	ctx.fail_at_write = 0;
	assert_alt_ok(alt_switch(&e, ALT_MODE_UP, &rep), &rep);
	assert_alt_ok(alt_switch(&e, ALT_MODE_SMP, &rep), &rep);
	assert_memory_equal(fake_buf, before, sizeof(before));
}

static void
one_time_up_apply_forgets_tables_and_reports_freeable_bytes(void **state)
{
	struct alt_tables t = fake_tables(2, 2);
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	size_t freeable = 0;
	const size_t expect = 2 * sizeof(int32_t) +
			      2 * sizeof(struct alt_smp_site) +
			      sizeof(smp0_up) + 0;

	(void)state;
	assert_alt_ok(alt_init(&e, &t, &ops, NULL, 0, &rep), &rep);
	assert_alt_ok(alt_apply_up_once(&e, &freeable, &rep), &rep);
	assert_int_equal(freeable, expect);
	assert_int_equal(alt_current_mode(&e), ALT_MODE_UP);
	assert_int_equal(fake_text()[LOCK0_OFF], ALT_DS_PREFIX_BYTE);
	assert_int_equal(fake_text()[SMP0_OFF], smp0_up[0]);
	assert_null(e.t.locks);
	assert_null(e.t.smp);
	/* The tables may be gone: no switch may read them again. */
	assert_int_equal(alt_switch(&e, ALT_MODE_SMP, &rep), -ESTALE);
	assert_int_equal(alt_apply_up_once(&e, &freeable, &rep), -ESTALE);
}

static void failed_write_during_one_time_up_apply_is_reported(void **state)
{
	struct alt_tables t = fake_tables(2, 2);
	struct alt_host_ctx ctx = {.fail_at_write = 3, .fail_err = -EIO};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	size_t freeable = 0;

	(void)state;
	assert_alt_ok(alt_init(&e, &t, &ops, NULL, 0, &rep), &rep);
	assert_int_equal(alt_apply_up_once(&e, &freeable, &rep), -EIO);
	assert_int_equal(rep.kind, ALT_SITE_SMP);
	assert_int_equal(rep.index, 0);
	assert_int_equal(freeable, 0);
	/* Tables are kept: the caller may not free them after a failure. */
	assert_false(e.forgotten);
	assert_non_null(e.t.locks);
}

int alt_group_refuse(size_t *total)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(
			synthetic_text_switches_both_ways_with_exact_bytes,
			fake_setup),
		cmocka_unit_test_setup(
			lock_record_outside_text_is_refused_at_init_naming_it,
			fake_setup),
		cmocka_unit_test_setup(
			smp_site_straddling_text_end_is_refused_at_init,
			fake_setup),
		cmocka_unit_test_setup(
			out_of_range_record_met_at_switch_time_writes_nothing,
			fake_setup),
		cmocka_unit_test_setup(
			corrupted_last_lock_site_refuses_switch_and_writes_nothing,
			fake_setup),
		cmocka_unit_test_setup(
			replacement_with_rip_relative_operand_is_refused,
			fake_setup),
		cmocka_unit_test_setup(
			replacement_with_relative_call_or_jump_is_refused,
			fake_setup),
		cmocka_unit_test_setup(
			replacement_inside_the_text_is_refused_naming_it,
			fake_setup),
		cmocka_unit_test_setup(
			replacement_that_cannot_be_decoded_is_refused,
			fake_setup),
		cmocka_unit_test_setup(
			lock_recorded_twice_in_smp_site_and_smp_locks_is_refused,
			fake_setup),
		cmocka_unit_test_setup(
			overlapping_or_empty_alternative_sites_are_refused,
			fake_setup),
		cmocka_unit_test_setup(
			save_buffer_smaller_than_alt_save_size_is_refused,
			fake_setup),
		cmocka_unit_test_setup(failed_write_puts_back_what_was_written,
				       fake_setup),
		cmocka_unit_test_setup(
			one_time_up_apply_forgets_tables_and_reports_freeable_bytes,
			fake_setup),
		cmocka_unit_test_setup(
			failed_write_during_one_time_up_apply_is_reported,
			fake_setup),
	};

	return ALT_RUN_GROUP("refusals on a synthetic text", tests, total);
}
