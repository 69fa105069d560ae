// SPDX-License-Identifier: MIT
/*
 * bench_synth.c - see bench_synth.h.  The buffer is static so that the
 * records, also static, are within the +-2 GiB their 32-bit offsets reach.
 */
#include <stddef.h>
#include <string.h>

#include "bench_synth.h"

static const uint8_t lock_incl_rax[] = {0xf0, 0xff, 0x00};
static const uint8_t lock_incl_rdx[] = {0xf0, 0xff, 0x02};
static const uint8_t incl_rdx[] = {0xff, 0x02};

#define SYNTH_TEXT_LEN                              \
	(BENCH_LOCK_SITES * sizeof(lock_incl_rax) + \
	 BENCH_SMP_SITES * sizeof(lock_incl_rdx))

static uint8_t synth_text[SYNTH_TEXT_LEN];
static int32_t synth_locks[BENCH_LOCK_SITES];
static struct alt_smp_site synth_smp[BENCH_SMP_SITES];
static uint8_t synth_repl[sizeof(incl_rdx)];

static void set_rel(void *field, const void *target)
{
	int32_t off = (int32_t)((intptr_t)target - (intptr_t)field);

	memcpy(field, &off, sizeof(off));
}

struct alt_tables bench_synth_build(void)
{
	struct alt_tables t = {
		.text_start = (uintptr_t)synth_text,
		.text_end = (uintptr_t)synth_text + sizeof(synth_text),
		.locks = synth_locks,
		.locks_end = synth_locks + BENCH_LOCK_SITES,
		.smp = synth_smp,
		.smp_end = synth_smp + BENCH_SMP_SITES,
	};
	uint8_t *p = synth_text;
	size_t i;

	memcpy(synth_repl, incl_rdx, sizeof(incl_rdx));
	/* One alternative_smp site after every 16 lock sites. */
	for (i = 0; i < BENCH_SITES; i++) {
		size_t smp_i = i / (BENCH_SITES / BENCH_SMP_SITES);

		if (i % (BENCH_SITES / BENCH_SMP_SITES) == 0 &&
		    smp_i < BENCH_SMP_SITES) {
			struct alt_smp_site *s = &synth_smp[smp_i];

			memcpy(p, lock_incl_rdx, sizeof(lock_incl_rdx));
			set_rel((char *)s + offsetof(struct alt_smp_site, site),
				p);
			set_rel((char *)s + offsetof(struct alt_smp_site, repl),
				synth_repl);
			s->site_len = sizeof(lock_incl_rdx);
			s->repl_len = sizeof(incl_rdx);
			p += sizeof(lock_incl_rdx);
		} else {
			memcpy(p, lock_incl_rax, sizeof(lock_incl_rax));
			set_rel(&synth_locks[i - smp_i - 1], p);
			p += sizeof(lock_incl_rax);
		}
	}
	return t;
}

static int synth_write(void *ctx, uintptr_t addr, const void *bytes, size_t len)
{
	(void)ctx;
	memcpy((void *)addr, bytes, len);
	return 0;
}

struct alt_ops bench_synth_ops(void)
{
	struct alt_ops ops = {.write = synth_write};

	return ops;
}
