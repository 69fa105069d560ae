// SPDX-License-Identifier: MIT
/*
 * fuzz_alt_core.c - libFuzzer target: the engine on tables and text made
 * from the input.  Whatever the records say:
 *   - it never writes outside the text and refuses a replacement that
 *     lies inside it;
 *   - a refused call writes nothing; a switch whose write callback fails
 *     (at the call the input picks) leaves the text as it was, and the
 *     same switch then succeeds;
 *   - feature alternatives write only the sites whose feature is present,
 *     each as its new form followed by NOPs, and a second call writes
 *     nothing;
 *   - SMP -> UP -> UP -> SMP ends byte for byte where it began, and the
 *     one-time UP apply of a fresh engine gives the same UP text.
 *
 * Input: nlocks, nsmp, nfeat, the failing write call (0: none), the
 * feature mask, the buffer (guard + text + guard), then each lock site's
 * offset, each smp record (site offset, site_len, repl_len, replacement
 * bytes), each feature record (the same, then its feature number).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <smpalt/alt_core.h>
#include <smpalt/alt_insn.h>

#define TEXT_LEN 64
#define GUARD 16 /* bytes before and after the text a record may name */
#define MAX_LOCKS 8
#define MAX_SMP 4
#define MAX_FEAT 3
#define MAX_REPL 8
#define SAVE_LEN (MAX_SMP * UINT8_MAX)
#define FAIL_AT_MAX 8
#define FEATURES 8
#define WRITE_FAILED (-EINVAL)
#define REPL_IN_TEXT 0xe0

static uint8_t buf[GUARD + TEXT_LEN + GUARD];
static int32_t locks[MAX_LOCKS];
static struct alt_smp_site smp[MAX_SMP];
static struct alt_feature_site feat[MAX_FEAT];
static uint8_t repl[MAX_SMP + MAX_FEAT][MAX_REPL];
static uint8_t save[SAVE_LEN];

struct input {
	const uint8_t *p;
	size_t left;
};

struct fuzz_ctx {
	const struct alt_tables *t;
	unsigned int calls;   /* write callback calls */
	unsigned int fail_at; /* that call fails (1-based); 0: none */
	bool failed;
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
	struct fuzz_ctx *c = ctx;

	/* The engine promised: only inside the text. */
	if (addr < c->t->text_start || addr + len > c->t->text_end)
		abort();
	if (++c->calls == c->fail_at) {
		c->failed = true;
		return WRITE_FAILED;
	}
	memcpy((void *)addr, bytes, len);
	return 0;
}

static bool fuzz_has_feature(void *ctx, unsigned int feature)
{
	const uint8_t *mask = ctx;

	return feature < FEATURES && (*mask >> feature) & 1;
}

/* Site i of the feature table after the features were applied. */
static void check_feature_site(const struct alt_feature_site *f,
			       const uint8_t *before, uint8_t mask)
{
	const uint8_t *site = (const uint8_t *)alt_site_addr(f);
	size_t off = (size_t)(site - buf);
	uint8_t nops[MAX_REPL + 1];

	if (!fuzz_has_feature(&mask, f->feature)) {
		if (memcmp(site, before + off, f->site_len))
			abort(); /* absent feature, yet written */
		return;
	}
	if (memcmp(site, (const void *)alt_repl_addr(f), f->repl_len))
		abort();
	alt_fill_nops(nops, (size_t)(f->site_len - f->repl_len));
	if (memcmp(site + f->repl_len, nops,
		   (size_t)(f->site_len - f->repl_len)))
		abort(); /* then the NOPs alt_insn.c defines */
}

/*
 * A record: site offset, site_len, repl_len, replacement bytes.  A
 * repl_len byte of REPL_IN_TEXT or above also puts the replacement in the
 * buffer, at an offset from its value; returns true if it then overlaps
 * the text, which the engine must refuse (the replacement would change as
 * the text is switched).
 */
static bool read_site(struct input *in, void *rec, size_t len_off, uint8_t *r)
{
	uint8_t *lens = (uint8_t *)rec + len_off;
	uint8_t b;
	size_t k;

	set_rel(rec, buf + next(in) % sizeof(buf));
	lens[0] = next(in) % (MAX_REPL + 2);
	b = next(in);
	lens[1] = b % (MAX_REPL + 1);
	for (k = 0; k < MAX_REPL; k++)
		r[k] = next(in);
	if (b >= REPL_IN_TEXT) {
		size_t off = b % (sizeof(buf) - MAX_REPL);

		set_rel((char *)rec + sizeof(int32_t), buf + off);
		return lens[1] > 0 && off + lens[1] > GUARD &&
		       off < GUARD + TEXT_LEN;
	}
	set_rel((char *)rec + sizeof(int32_t), r);
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	size_t nlocks = next(&in) % (MAX_LOCKS + 1);
	size_t nsmp = next(&in) % (MAX_SMP + 1);
	size_t nfeat = next(&in) % (MAX_FEAT + 1);
	unsigned int fail_at = next(&in) % (FAIL_AT_MAX + 1);
	uint8_t mask = next(&in);
	struct alt_tables t = {
		.text_start = (uintptr_t)buf + GUARD,
		.text_end = (uintptr_t)buf + GUARD + TEXT_LEN,
		.locks = locks,
		.locks_end = locks + nlocks,
		.smp = smp,
		.smp_end = smp + nsmp,
		.feat = feat,
		.feat_end = feat + nfeat,
	};
	struct fuzz_ctx ctx = {.t = &t};
	struct alt_ops ops = {.write = fuzz_write, .ctx = &ctx};
	uint8_t before[sizeof(buf)], up[sizeof(buf)];
	struct alt_engine e, once;
	struct alt_report rep;
	size_t i, freeable;
	bool repl_in_text = false;
	int err;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = next(&in);
	for (i = 0; i < nlocks; i++)
		set_rel(&locks[i], buf + next(&in) % sizeof(buf));
	for (i = 0; i < nsmp; i++)
		repl_in_text |= read_site(
			&in, &smp[i], offsetof(struct alt_smp_site, site_len),
			repl[i]);
	for (i = 0; i < nfeat; i++) {
		repl_in_text |=
			read_site(&in, &feat[i],
				  offsetof(struct alt_feature_site, site_len),
				  repl[MAX_SMP + i]);
		feat[i].feature = next(&in) % (FEATURES + 1);
	}
	memcpy(before, buf, sizeof(buf));
	if (alt_init(&e, &t, &ops, save, sizeof(save), &rep)) {
		if (memcmp(before, buf, sizeof(buf)))
			abort(); /* init never writes */
		return 0;
	}
	if (repl_in_text)
		abort(); /* a replacement inside the text was accepted */

	/* Feature alternatives, once. */
	if (alt_apply_features(&e, fuzz_has_feature, &mask, &rep)) {
		if (memcmp(before, buf, sizeof(buf)))
			abort(); /* refused, yet something was written */
		return 0;
	}
	for (i = 0; i < nfeat; i++)
		check_feature_site(&feat[i], before, mask);
	memcpy(before, buf, sizeof(buf));
	if (alt_apply_features(&e, fuzz_has_feature, &mask, &rep) !=
		    -EALREADY ||
	    memcmp(before, buf, sizeof(buf)))
		abort(); /* a second call writes nothing */

	/* SMP -> UP, with the write callback failing at call fail_at. */
	ctx.calls = 0;
	ctx.fail_at = fail_at;
	err = alt_switch(&e, ALT_MODE_UP, &rep);
	if (err && ctx.failed) {
		if (err != WRITE_FAILED || memcmp(before, buf, sizeof(buf)) ||
		    alt_current_mode(&e) != ALT_MODE_SMP)
			abort(); /* a failed write is rolled back */
		ctx.fail_at = 0;
		err = alt_switch(&e, ALT_MODE_UP, &rep);
		if (err)
			abort(); /* the same switch, now without failure */
	}
	ctx.fail_at = 0;
	if (err) {
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

	/* A fresh engine, UP for good: the same UP text. */
	if (alt_init(&once, &t, &ops, NULL, 0, &rep) ||
	    alt_apply_up_once(&once, &freeable, &rep) ||
	    memcmp(up, buf, sizeof(buf)) ||
	    alt_switch(&once, ALT_MODE_SMP, &rep) != -ESTALE)
		abort();
	return 0;
}
