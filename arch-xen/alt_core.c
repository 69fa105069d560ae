// SPDX-License-Identifier: MIT
/*
 * alt_core.c - the alternatives engine (see alt_core.h for the contract).
 *
 * Every operation runs in two passes over the records: verify everything,
 * then write.  Nothing is written unless every site holds exactly what the
 * current mode says it must; text is only ever written through
 * ops->write, and ops->serialize runs once after the last write.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <smpalt/alt_core.h>
#include <smpalt/errno.h>
#include <smpalt/alt_insn.h>

/* A site is at most this long: site_len is a byte in the record. */
#define ALT_SITE_MAX_LEN UINT8_MAX

static int alt_fail(struct alt_report *rep, int err, enum alt_site_kind kind,
		    size_t index, uintptr_t addr, const char *reason)
{
	if (rep) {
		rep->error = err;
		rep->kind = kind;
		rep->index = index;
		rep->addr = addr;
		rep->reason = reason;
	}
	return err;
}

static int alt_ok(struct alt_report *rep)
{
	return alt_fail(rep, 0, ALT_SITE_NONE, 0, 0, "ok");
}

static bool alt_in_text(const struct alt_tables *t, uintptr_t addr, size_t len)
{
	return len > 0 && addr >= t->text_start && addr < t->text_end &&
	       len <= t->text_end - addr;
}

static bool alt_overlap(uintptr_t a, size_t alen, uintptr_t b, size_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * A replacement must lie outside the text: inside, it could be among the
 * bytes a switch rewrites, and the form it gives would change under us.
 */
static bool alt_repl_in_text(const struct alt_tables *t, uintptr_t repl,
			     size_t len)
{
	return len > 0 && alt_overlap(repl, len, t->text_start,
				      t->text_end - t->text_start);
}

static int alt_memcmp(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return 1;
	return 0;
}

/* Decode len bytes at p as whole instructions; the first bad one or 0. */
static const char *alt_check_insns(const uint8_t *p, size_t len, bool pic)
{
	struct alt_insn insn;
	size_t off = 0;

	while (off < len) {
		int n = alt_insn_decode(p + off, len - off, &insn);

		if (n < 0)
			return "bytes are not whole instructions the decoder knows";
		if (pic && !alt_insn_is_pic(&insn))
			return "replacement is not position-independent (rip-relative operand or relative branch)";
		off += (size_t)n;
	}
	return NULL;
}

/* The UP bytes of an alternative_smp site: replacement, then NOPs. */
static void alt_smp_up_bytes(const struct alt_smp_site *s, uint8_t *buf)
{
	const uint8_t *repl = (const uint8_t *)alt_repl_addr(s);

	__builtin_memcpy(buf, repl, s->repl_len);
	alt_fill_nops(buf + s->repl_len, (size_t)(s->site_len - s->repl_len));
}

/* Offset of site i's bytes in the save buffer. */
static size_t alt_save_offset(const struct alt_tables *t, size_t i)
{
	size_t off = 0, k;

	for (k = 0; k < i; k++)
		off += t->smp[k].site_len;
	return off;
}

size_t alt_save_size(const struct alt_tables *t)
{
	return alt_save_offset(t, alt_smp_count(t));
}

static int alt_check_records(const struct alt_tables *t, struct alt_report *rep)
{
	size_t nl = alt_lock_count(t), ns = alt_smp_count(t);
	size_t nf = alt_feature_count(t), i, j;
	const char *why;

	for (i = 0; i < nl; i++) {
		uintptr_t a = alt_rel_addr(&t->locks[i]);

		if (!alt_in_text(t, a, 1))
			return alt_fail(rep, -EINVAL, ALT_SITE_LOCK, i, a,
					"lock site outside the text");
	}
	for (i = 0; i < ns; i++) {
		const struct alt_smp_site *s = &t->smp[i];
		uintptr_t a = alt_site_addr(s);

		if (s->site_len == 0)
			return alt_fail(rep, -EINVAL, ALT_SITE_SMP, i, a,
					"empty alternative_smp site");
		if (!alt_in_text(t, a, s->site_len))
			return alt_fail(
				rep, -EINVAL, ALT_SITE_SMP, i, a,
				"alternative_smp site outside the text");
		if (s->repl_len > s->site_len)
			return alt_fail(rep, -EINVAL, ALT_SITE_SMP, i, a,
					"replacement longer than its site");
		if (alt_repl_in_text(t, alt_repl_addr(s), s->repl_len))
			return alt_fail(rep, -EINVAL, ALT_SITE_SMP, i, a,
					"replacement inside the text");
		why = alt_check_insns((const uint8_t *)alt_repl_addr(s),
				      s->repl_len, true);
		if (why)
			return alt_fail(rep, -EINVAL, ALT_SITE_SMP, i, a, why);
		for (j = 0; j < nl; j++)
			if (alt_overlap(a, s->site_len,
					alt_rel_addr(&t->locks[j]), 1))
				return alt_fail(
					rep, -EINVAL, ALT_SITE_SMP, i, a,
					"lock prefix recorded both in .smp_locks and in an alternative_smp site");
		for (j = i + 1; j < ns; j++)
			if (alt_overlap(a, s->site_len,
					alt_site_addr(&t->smp[j]),
					t->smp[j].site_len))
				return alt_fail(
					rep, -EINVAL, ALT_SITE_SMP, i, a,
					"alternative_smp sites overlap");
	}
	for (i = 0; i < nf; i++) {
		const struct alt_feature_site *f = &t->feat[i];
		uintptr_t a = alt_site_addr(f);

		if (f->site_len == 0)
			return alt_fail(rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					"empty feature site");
		if (!alt_in_text(t, a, f->site_len))
			return alt_fail(rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					"feature site outside the text");
		if (f->repl_len > f->site_len)
			return alt_fail(rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					"replacement longer than its site");
		if (alt_repl_in_text(t, alt_repl_addr(f), f->repl_len))
			return alt_fail(rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					"replacement inside the text");
		why = alt_check_insns((const uint8_t *)alt_repl_addr(f),
				      f->repl_len, true);
		if (why)
			return alt_fail(rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					why);
		for (j = 0; j < nl; j++)
			if (alt_overlap(a, f->site_len,
					alt_rel_addr(&t->locks[j]), 1))
				return alt_fail(
					rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					"feature site overlaps a lock site");
		for (j = 0; j < ns; j++)
			if (alt_overlap(a, f->site_len,
					alt_site_addr(&t->smp[j]),
					t->smp[j].site_len))
				return alt_fail(
					rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					"feature site overlaps an alternative_smp site");
		for (j = i + 1; j < nf; j++)
			if (alt_overlap(a, f->site_len,
					alt_site_addr(&t->feat[j]),
					t->feat[j].site_len))
				return alt_fail(rep, -EINVAL, ALT_SITE_FEATURE,
						i, a, "feature sites overlap");
	}
	return 0;
}

int alt_init(struct alt_engine *e, const struct alt_tables *t,
	     const struct alt_ops *ops, uint8_t *save, size_t save_len,
	     struct alt_report *rep)
{
	int err;

	if (!e || !t || !ops || !ops->write || t->text_start > t->text_end ||
	    t->locks_end < t->locks || t->smp_end < t->smp ||
	    t->feat_end < t->feat || (!save && save_len))
		return alt_fail(rep, -EINVAL, ALT_SITE_NONE, 0, 0,
				"bad arguments");
	*e = (struct alt_engine){0};
	err = alt_check_records(t, rep);
	if (err)
		return err;
	if (save && save_len < alt_save_size(t))
		return alt_fail(rep, -ENOSPC, ALT_SITE_NONE, 0, 0,
				"save buffer smaller than alt_save_size()");
	e->t = *t;
	e->ops = *ops;
	e->save = save;
	e->save_len = save_len;
	e->mode = ALT_MODE_SMP;
	return alt_ok(rep);
}

static void alt_serialize(struct alt_engine *e)
{
	if (e->ops.serialize)
		e->ops.serialize(e->ops.ctx);
}

static uint8_t alt_lock_byte(enum alt_mode m)
{
	return m == ALT_MODE_UP ? ALT_DS_PREFIX_BYTE : ALT_LOCK_PREFIX_BYTE;
}

/* Pass 1: every site holds what mode `from` says, or nothing happens. */
static int alt_verify(const struct alt_engine *e, enum alt_mode from,
		      struct alt_report *rep)
{
	const struct alt_tables *t = &e->t;
	uint8_t want = alt_lock_byte(from);
	uint8_t up[ALT_SITE_MAX_LEN];
	size_t i, off = 0;

	for (i = 0; i < alt_lock_count(t); i++) {
		uintptr_t a = alt_rel_addr(&t->locks[i]);

		if (!alt_in_text(t, a, 1))
			return alt_fail(rep, -EINVAL, ALT_SITE_LOCK, i, a,
					"lock site outside the text");
		if (*(const uint8_t *)a != want)
			return alt_fail(
				rep, -EINVAL, ALT_SITE_LOCK, i, a,
				from == ALT_MODE_SMP
					? "lock site does not hold 0xf0"
					: "lock site does not hold 0x3e");
	}
	for (i = 0; i < alt_smp_count(t); i++) {
		const struct alt_smp_site *s = &t->smp[i];
		const uint8_t *site = (const uint8_t *)alt_site_addr(s);
		const char *why = NULL;

		if (!alt_in_text(t, (uintptr_t)site, s->site_len))
			return alt_fail(
				rep, -EINVAL, ALT_SITE_SMP, i, (uintptr_t)site,
				"alternative_smp site outside the text");
		if (from == ALT_MODE_UP) {
			alt_smp_up_bytes(s, up);
			if (alt_memcmp(site, up, s->site_len))
				why = "site does not hold its UP bytes";
		} else if (e->saved) {
			if (alt_memcmp(site, e->save + off, s->site_len))
				why = "site does not hold its saved SMP bytes";
		} else {
			/* First switch: the SMP form must at least decode. */
			why = alt_check_insns(site, s->site_len, false);
		}
		if (why)
			return alt_fail(rep, -EINVAL, ALT_SITE_SMP, i,
					(uintptr_t)site, why);
		off += s->site_len;
	}
	return 0;
}

/* Write one site in the form of mode `to`. */
static int alt_write_site(struct alt_engine *e, enum alt_site_kind kind,
			  size_t i, size_t save_off, enum alt_mode to)
{
	if (kind == ALT_SITE_LOCK) {
		uint8_t b = alt_lock_byte(to);

		return e->ops.write(e->ops.ctx, alt_rel_addr(&e->t.locks[i]),
				    &b, 1);
	} else {
		const struct alt_smp_site *s = &e->t.smp[i];
		uint8_t up[ALT_SITE_MAX_LEN];
		const uint8_t *src = up;

		if (to == ALT_MODE_UP)
			alt_smp_up_bytes(s, up);
		else
			src = e->save + save_off; /* only ever with e->saved */
		return e->ops.write(e->ops.ctx, alt_site_addr(s), src,
				    s->site_len);
	}
}

/* Write back the first nl lock sites and ns smp sites to mode `to`. */
static void alt_roll_back(struct alt_engine *e, size_t nl, size_t ns,
			  enum alt_mode to)
{
	size_t i, off = 0;

	/*
	 * The one-time UP apply keeps no SMP bytes, so there is nothing to go
	 * back to; the UP form it leaves is safe for good (one vCPU, ever).
	 */
	if (to == ALT_MODE_SMP && !e->saved)
		return;
	/* Best effort: the original error is what gets reported. */
	for (i = 0; i < nl; i++)
		(void)alt_write_site(e, ALT_SITE_LOCK, i, 0, to);
	for (i = 0; i < ns; i++) {
		(void)alt_write_site(e, ALT_SITE_SMP, i, off, to);
		off += e->t.smp[i].site_len;
	}
}

static int alt_do_switch(struct alt_engine *e, enum alt_mode to,
			 bool keep_smp_bytes, struct alt_report *rep)
{
	const struct alt_tables *t = &e->t;
	enum alt_mode from = e->mode;
	size_t nl = alt_lock_count(t), ns = alt_smp_count(t);
	size_t i, off;
	int err;

	if (e->forgotten)
		return alt_fail(rep, -ESTALE, ALT_SITE_NONE, 0, 0,
				"tables were dropped by alt_apply_up_once()");
	if (to == from)
		return alt_ok(rep);
	if (to == ALT_MODE_UP && keep_smp_bytes && !e->saved &&
	    e->save_len < alt_save_size(t))
		return alt_fail(rep, -ENOSPC, ALT_SITE_NONE, 0, 0,
				"no save buffer for the SMP bytes");
	err = alt_verify(e, from, rep);
	if (err)
		return err;

	/* Save the SMP bytes before the first write that replaces them. */
	if (to == ALT_MODE_UP && keep_smp_bytes && !e->saved) {
		for (i = 0, off = 0; i < ns; i++) {
			__builtin_memcpy(
				e->save + off,
				(const void *)alt_site_addr(&t->smp[i]),
				t->smp[i].site_len);
			off += t->smp[i].site_len;
		}
		e->saved = true;
	}

	for (i = 0; i < nl; i++) {
		err = alt_write_site(e, ALT_SITE_LOCK, i, 0, to);
		if (err) {
			alt_roll_back(e, i, 0, from);
			alt_serialize(e);
			return alt_fail(rep, err, ALT_SITE_LOCK, i,
					alt_rel_addr(&t->locks[i]),
					"write callback failed");
		}
	}
	for (i = 0, off = 0; i < ns; i++) {
		err = alt_write_site(e, ALT_SITE_SMP, i, off, to);
		if (err) {
			alt_roll_back(e, nl, i, from);
			alt_serialize(e);
			return alt_fail(rep, err, ALT_SITE_SMP, i,
					alt_site_addr(&t->smp[i]),
					"write callback failed");
		}
		off += t->smp[i].site_len;
	}
	/*
	 * Ordering: every byte is stored before the serializing step, and no
	 * rewritten instruction runs before it; only this vCPU is running.
	 */
	alt_serialize(e);
	e->mode = to;
	e->stats.switches++;
	e->stats.last_sites = nl + ns;
	e->stats.total_sites += nl + ns;
	return alt_ok(rep);
}

int alt_switch(struct alt_engine *e, enum alt_mode to, struct alt_report *rep)
{
	if (!e || (to != ALT_MODE_SMP && to != ALT_MODE_UP))
		return alt_fail(rep, -EINVAL, ALT_SITE_NONE, 0, 0,
				"bad arguments");
	return alt_do_switch(e, to, true, rep);
}

int alt_apply_up_once(struct alt_engine *e, size_t *freeable,
		      struct alt_report *rep)
{
	const struct alt_tables *t;
	size_t bytes, i;
	int err;

	if (!e || !freeable)
		return alt_fail(rep, -EINVAL, ALT_SITE_NONE, 0, 0,
				"bad arguments");
	err = alt_do_switch(e, ALT_MODE_UP, false, rep);
	if (err)
		return err;
	t = &e->t;
	bytes = alt_lock_count(t) * sizeof(*t->locks) +
		alt_smp_count(t) * sizeof(*t->smp) + e->save_len;
	for (i = 0; i < alt_smp_count(t); i++)
		bytes += t->smp[i].repl_len;
	*freeable = bytes;
	/* Forget everything the caller may now free. */
	e->t.locks = e->t.locks_end = NULL;
	e->t.smp = e->t.smp_end = NULL;
	e->save = NULL;
	e->save_len = 0;
	e->forgotten = true;
	return alt_ok(rep);
}

int alt_apply_features(struct alt_engine *e,
		       bool (*has_feature)(void *ctx, unsigned int feature),
		       void *ctx, struct alt_report *rep)
{
	const struct alt_tables *t;
	uint8_t buf[ALT_SITE_MAX_LEN];
	size_t i, n = 0;
	const char *why;
	int err;

	if (!e || !has_feature)
		return alt_fail(rep, -EINVAL, ALT_SITE_NONE, 0, 0,
				"bad arguments");
	if (e->features_done)
		return alt_fail(rep, -EALREADY, ALT_SITE_NONE, 0, 0,
				"feature alternatives already applied");
	t = &e->t;
	/* Pass 1: every site to be patched is in the text and decodes. */
	for (i = 0; i < alt_feature_count(t); i++) {
		const struct alt_feature_site *f = &t->feat[i];
		uintptr_t a = alt_site_addr(f);

		if (!has_feature(ctx, f->feature))
			continue;
		if (!alt_in_text(t, a, f->site_len))
			return alt_fail(rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					"feature site outside the text");
		why = alt_check_insns((const uint8_t *)a, f->site_len, false);
		if (why)
			return alt_fail(rep, -EINVAL, ALT_SITE_FEATURE, i, a,
					why);
	}
	/* Pass 2: write. */
	for (i = 0; i < alt_feature_count(t); i++) {
		const struct alt_feature_site *f = &t->feat[i];

		if (!has_feature(ctx, f->feature))
			continue;
		__builtin_memcpy(buf, (const void *)alt_repl_addr(f),
				 f->repl_len);
		alt_fill_nops(buf + f->repl_len,
			      (size_t)(f->site_len - f->repl_len));
		err = e->ops.write(e->ops.ctx, alt_site_addr(f), buf,
				   f->site_len);
		if (err)
			return alt_fail(rep, err, ALT_SITE_FEATURE, i,
					alt_site_addr(f),
					"write callback failed");
		n++;
	}
	/* Serialize before any patched instruction can run. */
	if (n)
		alt_serialize(e);
	e->features_done = true;
	e->stats.feature_sites = n;
	return alt_ok(rep);
}
