// SPDX-License-Identifier: MIT
/*
 * page_alloc.c - single-page allocator: a free list threaded through the
 * free pages, refilled from a bump pointer over frames never handed out.
 * One lock, taken with events masked (an upcall handler may allocate).
 */
#include <smpalt/mm.h>
#include <smpalt/hypervisor.h>
#include <smpalt/spinlock.h>
#include <smpalt/string.h>
#include <smpalt/vcpu.h>

struct free_page {
	struct free_page *next;
};

static spinlock_t page_lock = SPINLOCK_INIT;
static struct free_page *page_free_list;
static unsigned long page_bump, page_end, page_nr_free;

void page_alloc_init(unsigned long first_pfn, unsigned long end_pfn)
{
	page_bump = first_pfn;
	page_end = end_pfn;
	page_nr_free = end_pfn > first_pfn ? end_pfn - first_pfn : 0;
}

void *page_alloc(void)
{
	unsigned long was = vcpu_events_mask();
	void *page = NULL;

	spin_lock(&page_lock);
	if (page_free_list) {
		page = page_free_list;
		page_free_list = page_free_list->next;
	} else if (page_bump < page_end) {
		page = hyp_pfn_to_virt(page_bump++);
	}
	if (page)
		page_nr_free--;
	spin_unlock(&page_lock);
	vcpu_events_restore(was);

	if (page)
		memset(page, 0, PAGE_SIZE);
	return page;
}

void *page_alloc_contig(unsigned int n)
{
	unsigned long was = vcpu_events_mask();
	void *first = NULL;

	spin_lock(&page_lock);
	/* Consecutive frames are consecutive virtual pages (mm.c). */
	if (page_bump + n <= page_end) {
		first = hyp_pfn_to_virt(page_bump);
		page_bump += n;
		page_nr_free -= n;
	}
	spin_unlock(&page_lock);
	vcpu_events_restore(was);

	if (first)
		memset(first, 0, (size_t)n * PAGE_SIZE);
	return first;
}

void page_free(void *page)
{
	unsigned long was;

	if (!page)
		return;
	was = vcpu_events_mask();
	spin_lock(&page_lock);
	((struct free_page *)page)->next = page_free_list;
	page_free_list = page;
	page_nr_free++;
	spin_unlock(&page_lock);
	vcpu_events_restore(was);
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
