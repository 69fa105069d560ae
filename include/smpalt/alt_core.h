/* SPDX-License-Identifier: MIT */
/*
 * alt_core.h - the alternatives engine: switches kernel text between its
 * SMP form and its UP form, and applies CPU-feature alternatives once.
 *
 * Pure: no Xen, no allocation, no direct write to text.  The caller gives
 * the record tables and the text range, a buffer for the original SMP
 * bytes, and two callbacks:
 *   ops->write(ctx, addr, bytes, len)  store len bytes at runtime address
 *       addr (the guest does it through a temporary writable alias of its
 *       read-only text); returns 0 or -errno.
 *   ops->serialize(ctx)  called once after a switch has written anything,
 *       before any rewritten instruction may run (the guest executes a
 *       serializing instruction; the host flushes the instruction cache).
 * The engine reads text directly at its runtime address.
 *
 * Section bounds the guest's linker script must provide (each symbol a
 * byte address; keep the output sections' names as the input ones):
 *   __alt_text_start, __alt_text_end            text that may be patched
 *   __smp_locks_start, __smp_locks_end          .smp_locks (int32_t)
 *   __smp_alt_start, __smp_alt_end              .smp_altinstructions
 *   __smp_alt_repl_start, __smp_alt_repl_end    .smp_altinstr_replacement
 *   __alt_start, __alt_end                      .altinstructions
 *   __alt_repl_start, __alt_repl_end            .altinstr_replacement
 * Optional, for scripts/check/check-sites.py only: __xen_locks_start/_end
 * bound .xen_locks, lock prefixes that are locked on purpose and never
 * patched (memory shared with Xen, barrier.h).
 * The replacement sections must not lie inside [__alt_text_start,
 * __alt_text_end) (they would be scanned by the site checker as text),
 * and all records must be within +-2 GiB of what they point at.
 *
 * Usage (guest):
 *   struct alt_tables t = ALT_TABLES_FROM_LINKER;   (see below)
 *   static uint8_t save[...];   at least alt_save_size(&t) bytes
 *   alt_init(&eng, &t, &ops, save, sizeof(save), &rep);  refuses non-PIC
 *                                   replacements and overlapping records
 *   alt_apply_features(&eng, has_feature, ctx, &rep);     once, at boot
 *   alt_switch(&eng, ALT_MODE_UP, &rep);  only while exactly one vCPU runs
 *   alt_switch(&eng, ALT_MODE_SMP, &rep); before the first secondary is up
 *   or, when maxvcpus == 1:  alt_apply_up_once(&eng, &freeable, &rep);
 *
 * Every function returns 0 or a -errno code; on error *rep (if non-NULL)
 * names the record kind, index and site address, and nothing was written.
 * The engine does not log: the caller logs the report once.
 * The engine is not reentrant: calls on one engine must be serialized by
 * the caller (the guest switches from one thread with upcalls masked).
 */
#ifndef SMPALT_ALT_CORE_H
#define SMPALT_ALT_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <smpalt/alt_records.h>
#include <smpalt/errno.h>

enum alt_mode {
	ALT_MODE_SMP = 0, /* what the compiler emitted: lock prefixes on */
	ALT_MODE_UP = 1,  /* 0x3e prefixes, UP forms + NOPs */
};

enum alt_site_kind {
	ALT_SITE_NONE = 0,
	ALT_SITE_LOCK,	  /* a .smp_locks entry */
	ALT_SITE_SMP,	  /* a .smp_altinstructions entry */
	ALT_SITE_FEATURE, /* an .altinstructions entry */
};

struct alt_tables {
	uintptr_t text_start; /* [text_start, text_end): may be patched */
	uintptr_t text_end;
	const alt_lock_site_t *locks; /* [locks, locks_end) */
	const alt_lock_site_t *locks_end;
	const struct alt_smp_site *smp; /* [smp, smp_end) */
	const struct alt_smp_site *smp_end;
	const struct alt_feature_site *feat; /* [feat, feat_end) */
	const struct alt_feature_site *feat_end;
};

struct alt_ops {
	int (*write)(void *ctx, uintptr_t addr, const void *bytes, size_t len);
	void (*serialize)(void *ctx);
	void *ctx;
};

/* Why a call failed; filled on every call (error 0 on success). */
struct alt_report {
	int error;		 /* 0 or -errno, as returned */
	enum alt_site_kind kind; /* the record at fault, or ALT_SITE_NONE */
	size_t index;		 /* its index in its table */
	uintptr_t addr;		 /* its site address */
	const char *reason;	 /* static text: what was wrong */
};

struct alt_stats {
	uint64_t switches;    /* mode changes done */
	size_t last_sites;    /* sites the last switch rewrote */
	uint64_t total_sites; /* sites rewritten since init */
	size_t feature_sites; /* feature sites applied */
};

struct alt_engine {
	struct alt_tables t;
	struct alt_ops ops;
	uint8_t *save; /* original SMP bytes of .smp_altinstructions */
	size_t save_len;
	enum alt_mode mode; /* what the text holds now */
	bool saved;	    /* save[] holds the SMP bytes */
	bool features_done; /* alt_apply_features() has run */
	bool forgotten;	    /* tables dropped by alt_apply_up_once() */
	struct alt_stats stats;
};

/* Bytes the save buffer needs: the sum of all alternative_smp site lengths. */
size_t alt_save_size(const struct alt_tables *t);

/*
 * Check the tables and prepare the engine; the text must be in SMP form
 * (as linked).  Refuses (-EINVAL) a record outside the text, a
 * replacement inside the text (it could be rewritten by a switch), a
 * replacement that is not position-independent or cannot be decoded, a
 * replacement longer than its site, an empty site, a lock site inside an
 * alternative site, overlapping alternative sites; -ENOSPC if save_len is
 * below alt_save_size() (save may be NULL with save_len 0 only for
 * alt_apply_up_once()).  Writes nothing.
 */
int alt_init(struct alt_engine *e, const struct alt_tables *t,
	     const struct alt_ops *ops, uint8_t *save, size_t save_len,
	     struct alt_report *rep);

/*
 * Switch the text to mode `to`.  Verifies every site first (inside the
 * text; 0xf0 or 0x3e at each lock site; the saved SMP bytes or the UP bytes
 * plus NOPs at each alternative site) and writes nothing unless all match.
 * Switching to the current mode is a no-op returning 0.  On the first
 * switch to UP the SMP bytes are saved.  -EINVAL on a mismatch or a site
 * out of range, -ENOSPC without a save buffer, -ESTALE after
 * alt_apply_up_once(), or the write callback's error (after which the
 * sites already written are written back).  Before the first switch to
 * UP there is no saved copy yet: each alternative_smp site must then decode
 * as whole instructions (alt_insn.h), which catches a corrupted site.
 */
int alt_switch(struct alt_engine *e, enum alt_mode to, struct alt_report *rep);

/*
 * Apply, once, every feature alternative whose feature has_feature()
 * reports present.  Verifies every site it will touch first (inside the
 * text, decoding as whole instructions).  A second call
 * returns -EALREADY and writes nothing.  If the write callback fails,
 * its error is returned and the sites written before it keep their new
 * form (right for this CPU).
 */
int alt_apply_features(struct alt_engine *e,
		       bool (*has_feature)(void *ctx, unsigned int feature),
		       void *ctx, struct alt_report *rep);

/*
 * maxvcpus == 1: switch to UP for good and forget the SMP tables.  On
 * success *freeable is the number of bytes of .smp_locks,
 * .smp_altinstructions, .smp_altinstr_replacement (as far as the records
 * reach) and of the save buffer that the caller may now free or reuse;
 * later switches return -ESTALE.  If the write callback fails the
 * error is returned, the tables are kept (do not free them) and the sites
 * already written stay in UP form, which is safe when no second vCPU can
 * ever run.
 */
int alt_apply_up_once(struct alt_engine *e, size_t *freeable,
		      struct alt_report *rep);

static inline enum alt_mode alt_current_mode(const struct alt_engine *e)
{
	return e->mode;
}

static inline size_t alt_lock_count(const struct alt_tables *t)
{
	return (size_t)(t->locks_end - t->locks);
}

static inline size_t alt_smp_count(const struct alt_tables *t)
{
	return (size_t)(t->smp_end - t->smp);
}

static inline size_t alt_feature_count(const struct alt_tables *t)
{
	return (size_t)(t->feat_end - t->feat);
}

/* Linker-provided bounds (see the list above). */
extern const uint8_t __alt_text_start[], __alt_text_end[];
extern const alt_lock_site_t __smp_locks_start[], __smp_locks_end[];
extern const struct alt_smp_site __smp_alt_start[], __smp_alt_end[];
extern const uint8_t __smp_alt_repl_start[], __smp_alt_repl_end[];
extern const struct alt_feature_site __alt_start[], __alt_end[];
extern const uint8_t __alt_repl_start[], __alt_repl_end[];

#define ALT_TABLES_FROM_LINKER                                            \
	{                                                                 \
		.text_start = (uintptr_t)__alt_text_start,                \
		.text_end = (uintptr_t)__alt_text_end,                    \
		.locks = __smp_locks_start, .locks_end = __smp_locks_end, \
		.smp = __smp_alt_start, .smp_end = __smp_alt_end,         \
		.feat = __alt_start, .feat_end = __alt_end,               \
	}

#endif /* SMPALT_ALT_CORE_H */
