// SPDX-License-Identifier: MIT
/*
 * fuzz_alt_core.c - libFuzzer target: the engine on tables and text made
 * from the input.  Whatever the records say, it never writes outside the
 * text, a refused call writes nothing, and UP -> SMP restores the text
 * byte for byte.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alt_core.h"

#define TEXT_LEN 64
#define GUARD 16 /* bytes before and after the text a record may name */
#define MAX_LOCKS 8
#define MAX_SMP 4
#define MAX_REPL 8
#define SAVE_LEN (MAX_SMP * UINT8_MAX)

static uint8_t buf[GUARD + TEXT_LEN + GUARD];
static int32_t locks[MAX_LOCKS];
static struct alt_smp_site smp[MAX_SMP];
static uint8_t repl[MAX_SMP][MAX_REPL];
static uint8_t save[SAVE_LEN];

struct input {
	const uint8_t *p;
	size_t left;
};

static uint8_t next(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static void set_rel(void *field, const void *target)
{
	int32_t off = (int32_t)((intptr_t)target - (intptr_t)field);

	memcpy(field, &off, sizeof(off));
}

static int fuzz_write(void *ctx, uintptr_t addr, const void *bytes, size_t len)
{
	const struct alt_tables *t = ctx;

	/* The engine promised: only inside the text. */
	if (addr < t->text_start || addr + len > t->text_end)
		abort();
	memcpy((void *)addr, bytes, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	size_t nlocks = next(&in) % (MAX_LOCKS + 1);
	size_t nsmp = next(&in) % (MAX_SMP + 1);
	struct alt_tables t = {
		.text_start = (uintptr_t)buf + GUARD,
		.text_end = (uintptr_t)buf + GUARD + TEXT_LEN,
		.locks = locks,
		.locks_end = locks + nlocks,
		.smp = smp,
		.smp_end = smp + nsmp,
	};
	struct alt_ops ops = {.write = fuzz_write, .ctx = &t};
	uint8_t before[sizeof(buf)], up[sizeof(buf)];
	struct alt_engine e;
	struct alt_report rep;
	size_t i, k;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = next(&in);
	for (i = 0; i < nlocks; i++)
		set_rel(&locks[i], buf + next(&in) % sizeof(buf));
	for (i = 0; i < nsmp; i++) {
		struct alt_smp_site *s = &smp[i];

		set_rel((char *)s + offsetof(struct alt_smp_site, site),
			buf + next(&in) % sizeof(buf));
		set_rel((char *)s + offsetof(struct alt_smp_site, repl),
			repl[i]);
		s->site_len = next(&in) % (MAX_REPL + 2);
		s->repl_len = next(&in) % (MAX_REPL + 1);
		for (k = 0; k < MAX_REPL; k++)
			repl[i][k] = next(&in);
	}
	memcpy(before, buf, sizeof(buf));
	if (alt_init(&e, &t, &ops, save, sizeof(save), &rep)) {
		if (memcmp(before, buf, sizeof(buf)))
			abort(); /* init never writes */
		return 0;
	}

	if (alt_switch(&e, ALT_MODE_UP, &rep)) {
		if (memcmp(before, buf, sizeof(buf)))
			abort(); /* refused, yet something was written */
		return 0;
	}
	if (memcmp(before, buf, GUARD) ||
	    memcmp(before + GUARD + TEXT_LEN, buf + GUARD + TEXT_LEN, GUARD))
		abort();
	memcpy(up, buf, sizeof(buf));
	if (alt_switch(&e, ALT_MODE_UP, &rep) || memcmp(up, buf, sizeof(buf)))
		abort(); /* a repeated switch must be a no-op */
	if (alt_switch(&e, ALT_MODE_SMP, &rep) ||
	    memcmp(before, buf, sizeof(buf)))
		abort(); /* back to SMP: byte-identical */
	return 0;
}
