// SPDX-License-Identifier: MIT
/*
 * ksyms.c - address -> function name, by binary search in the generated
 * table (sorted by address; name i starts at ksym_names + ksym_name_off[i]).
 * The first link has no table: the weak symbols are then absent (NULL).
 */
#include <smpalt/ksyms.h>

extern const uint64_t ksym_addrs[] __attribute__((weak));
extern const uint32_t ksym_name_off[] __attribute__((weak));
extern const char ksym_names[] __attribute__((weak));
extern const uint32_t ksym_count __attribute__((weak));

/* The text the table describes; nothing is looked up before ksyms_init(). */
static uintptr_t ksym_text_start, ksym_text_end;

void ksyms_init(uintptr_t text_start, uintptr_t text_end)
{
	ksym_text_start = text_start;
	ksym_text_end = text_end;
}

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset)
{
	size_t lo = 0, hi;

	if (!&ksym_count || !ksym_count || addr < ksym_text_start ||
	    addr >= ksym_text_end)
		return NULL;
	/* Find the last symbol at or below addr. */
	hi = ksym_count;
	if (addr < ksym_addrs[0])
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ksym_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - ksym_addrs[lo];
	return ksym_names + ksym_name_off[lo];
}
