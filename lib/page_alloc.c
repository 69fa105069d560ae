// SPDX-License-Identifier: MIT
/*
 * page_alloc.c - single-page allocator: a free list threaded through the
 * free pages, refilled from a bump pointer over frames never handed out.
 * One lock, taken with events masked (an upcall handler may allocate)
 * through the masking functions arch-xen hands over at init.
 */
#include <smpalt/page_alloc.h>
#include <smpalt/page.h>
#include <smpalt/spinlock.h>
#include <smpalt/string.h>

struct free_page {
	struct free_page *next;
};

static spinlock_t page_lock = SPINLOCK_INIT;
static struct free_page *page_free_list;
/* Never handed out yet: [page_bump, page_end), page aligned. */
static uintptr_t page_bump, page_end;
static unsigned long page_nr_free;
static struct page_alloc_events page_events;

void page_alloc_init(void *first, void *end,
		     const struct page_alloc_events *events)
{
	page_bump = (uintptr_t)first;
	page_end = (uintptr_t)end > page_bump ? (uintptr_t)end : page_bump;
	page_nr_free = (page_end - page_bump) / PAGE_SIZE;
	page_events = *events;
}

void *page_alloc(void)
{
	unsigned long was = page_events.mask();
	void *page = NULL;

	spin_lock(&page_lock);
	if (page_free_list) {
		page = page_free_list;
		page_free_list = page_free_list->next;
	} else if (page_bump < page_end) {
		page = (void *)page_bump;
		page_bump += PAGE_SIZE;
	}
	if (page)
		page_nr_free--;
	spin_unlock(&page_lock);
	page_events.restore(was);

	if (page)
		memset(page, 0, PAGE_SIZE);
	return page;
}

void *page_alloc_contig(unsigned int n)
{
	unsigned long was = page_events.mask();
	void *first = NULL;

	spin_lock(&page_lock);
	/* The range is contiguous, virtually and physically (mm.c). */
	if ((page_end - page_bump) / PAGE_SIZE >= n) {
		first = (void *)page_bump;
		page_bump += (uintptr_t)n * PAGE_SIZE;
		page_nr_free -= n;
	}
	spin_unlock(&page_lock);
	page_events.restore(was);

	if (first)
		memset(first, 0, (size_t)n * PAGE_SIZE);
	return first;
}

void page_free(void *page)
{
	unsigned long was;

	if (!page)
		return;
	was = page_events.mask();
	spin_lock(&page_lock);
	((struct free_page *)page)->next = page_free_list;
	page_free_list = page;
	page_nr_free++;
	spin_unlock(&page_lock);
	page_events.restore(was);
}

unsigned long page_give_back(void *first, void *end)
{
	uintptr_t a = (uintptr_t)first, b = (uintptr_t)end;
	unsigned long n = 0;

	/* Whole pages only: a partial page may still hold someone's data. */
	if (a % PAGE_SIZE || b % PAGE_SIZE || b < a)
		return 0;
	for (; a < b; a += PAGE_SIZE, n++)
		page_free((void *)a);
	return n;
}

unsigned long page_free_count(void)
{
	return page_nr_free;
}
