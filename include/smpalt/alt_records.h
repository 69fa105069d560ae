/* SPDX-License-Identifier: MIT */
/*
 * alt_records.h - layout of the alternatives records, as emitted by the
 * macros in alternative.h and read by the engine (alt_core.h) and the site
 * checker (scripts/check/check-sites.py).  Offsets are 32-bit and
 * self-relative: the target address is the address of the field plus its
 * value, so the tables need no relocation and stay valid wherever the image
 * is loaded.
 */
#ifndef SMPALT_ALT_RECORDS_H
#define SMPALT_ALT_RECORDS_H

#include <stddef.h>
#include <stdint.h>

/* .smp_locks: one int32_t per site, pointing at a 0xf0 lock prefix. */
typedef int32_t alt_lock_site_t;

/* .smp_altinstructions: one per alternative_smp() site (10 bytes). */
struct alt_smp_site {
	int32_t site;	  /* self-relative: first byte of the SMP form */
	int32_t repl;	  /* self-relative: UP form in the replacement area */
	uint8_t site_len; /* bytes at the site: max(SMP length, UP length) */
	uint8_t repl_len; /* bytes of the UP form */
} __attribute__((packed));

/* .altinstructions: one per alternative() site (12 bytes). */
struct alt_feature_site {
	int32_t site;	  /* self-relative: first byte of the old form */
	int32_t repl;	  /* self-relative: new form */
	uint16_t feature; /* ALT_FEATURE(word, bit) */
	uint8_t site_len; /* bytes at the site: max(old, new) */
	uint8_t repl_len; /* bytes of the new form */
} __attribute__((packed));

#define ALT_SMP_SITE_SIZE 10
#define ALT_FEATURE_SITE_SIZE 12
_Static_assert(sizeof(struct alt_smp_site) == ALT_SMP_SITE_SIZE,
	       "alt_smp_site layout is shared with the assembler macros");
_Static_assert(sizeof(struct alt_feature_site) == ALT_FEATURE_SITE_SIZE,
	       "alt_feature_site layout is shared with the assembler macros");

/*
 * Resolve a self-relative field to the address it names.  The field may be
 * unaligned (records are packed), so it is read bytewise.
 */
static inline uintptr_t alt_rel_addr(const void *field)
{
	int32_t off;

	__builtin_memcpy(&off, field, sizeof(off));
	return (uintptr_t)field + (uintptr_t)(intptr_t)off;
}

/* Where a record's site and replacement are. */
#define alt_site_addr(rec) alt_rel_addr((const char *)(rec))
#define alt_repl_addr(rec) alt_rel_addr((const char *)(rec) + sizeof(int32_t))

#endif /* SMPALT_ALT_RECORDS_H */
