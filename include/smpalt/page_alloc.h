/* SPDX-License-Identifier: MIT */
/*
 * page_alloc.h - the page allocator (lib/page_alloc.c).
 */
#ifndef SMPALT_PAGE_ALLOC_H
#define SMPALT_PAGE_ALLOC_H

#include <stddef.h>

/*
 * How the allocator keeps the running vCPU's event handlers out while it
 * holds its lock: mask() returns the previous state for restore().
 */
struct page_alloc_events {
	unsigned long (*mask)(void);
	void (*restore)(unsigned long was_masked);
};

/*
 * Hand the pages [first, end) to the allocator (arch-xen/mm.c does, once):
 * page aligned, mapped read-write, contiguous both virtually and
 * physically (page_alloc_contig() relies on it).
 */
void page_alloc_init(void *first, void *end,
		     const struct page_alloc_events *events);

/* Page allocator: single 4 KiB pages, zeroed; NULL when out of memory. */
void *page_alloc(void);
void page_free(void *page);
/*
 * Give the pages [first, end) back to the allocator, e.g. parts of the
 * image no longer needed.  Both ends page aligned (else nothing is freed),
 * every page mapped read-write (mm.c maps all of memory but the text so)
 * and no longer used by anyone.  Returns the number of pages freed.
 */
unsigned long page_give_back(void *first, void *end);
/*
 * n physically and virtually contiguous pages (stacks), zeroed, never
 * freed; NULL when the never-used frames run out.
 */
void *page_alloc_contig(unsigned int n);
/* Free pages left, for log lines. */
unsigned long page_free_count(void);

#endif /* SMPALT_PAGE_ALLOC_H */
