// SPDX-License-Identifier: MIT
/*
 * mm.c - page tables of a PV guest, and of the same kernel booted PVH.
 *
 * PV: Xen owns the page-table frames' contents: we write a page-table
 * entry only through mmu_update or update_va_mapping, and a frame that is
 * a page table must never be mapped writable.  Every frame of the guest is
 * mapped at SMPALT_VIRT_BASE + pfn * PAGE_SIZE (the image at
 * SMPALT_LOAD_PADDR).  Xen maps only the start of memory at boot;
 * mm_init() maps the rest, one new L1 table per 2 MiB, all of it under
 * the L2 table the image lives in.
 *
 * PVH: the tables are ours (pvh_head.S built them with 2 MiB pages).  The
 * same code builds the same 4 KiB layout; only its primitives differ
 * (guest_ops.h, pv.c and pvh.c): a batch of entry writes is plain stores,
 * one entry is a store and invlpg, the local flush is a CR3 reload.  Xen
 * checks nothing: a table frame stays writable, and a 2 MiB page is
 * replaced by a full L1 table.
 */
#define pr_fmt(fmt) "mm: " fmt

#include <smpalt/mm.h>
#include <smpalt/errno.h>
#include <smpalt/guest_ops.h>
#include <smpalt/kernel.h>
#include <smpalt/page_alloc.h>
#include <smpalt/printk.h>
#include <smpalt/x86.h>
#include <smpalt/string.h>
#include <smpalt/vcpu.h>

/* Flags of an upper-level table entry. */
#define PTE_TABLE (PTE_PRESENT | PTE_RW | PTE_USER | PTE_ACCESSED | PTE_DIRTY)

/*
 * One L2 table covers 1 GiB: the most memory we map, less its last 2 MiB
 * slot, which is the text alias window.
 */
#define MM_ALIAS_L2_SLOT (PT_ENTRIES - 1)
#define MM_MAX_PAGES ((unsigned long)MM_ALIAS_L2_SLOT * PT_ENTRIES)
#define MM_ALIAS_BASE \
	(SMPALT_VIRT_BASE + ((uintptr_t)MM_ALIAS_L2_SLOT << L2_SHIFT))
_Static_assert(HYP_PVH_LOW_PAGES == MM_MAX_PAGES,
	       "PVH: the direct map takes over where this mapping ends");

/* The page shared_info gets mapped onto (its own frame is then unused). */
static char mm_shared_info_page[PAGE_SIZE] __aligned(PAGE_SIZE)
	__section(".bss.page_aligned");

/* The L1 table of the text alias window; its entries are 0 when closed. */
static uint64_t *mm_alias_l1;
static bool mm_alias_open;

static uint64_t *mm_table_virt(uint64_t entry)
{
	return hyp_mfn_to_virt((entry & PTE_ADDR_MASK) >> PAGE_SHIFT);
}

static uint64_t mm_machine_addr(const void *va)
{
	return ((uint64_t)hyp_virt_to_mfn(va) << PAGE_SHIFT) |
	       ((uintptr_t)va & (PAGE_SIZE - 1));
}

/* The table at `level` (1..3) under which va lives, or NULL. */
static uint64_t *mm_walk(const void *va, int level)
{
	static const int shifts[] = {0, L1_SHIFT, L2_SHIFT, L3_SHIFT, L4_SHIFT};
	uint64_t *table = (uint64_t *)hyp_start_info->pt_base;
	int l;

	for (l = 4; l > level; l--) {
		uint64_t e = table[PT_INDEX(va, shifts[l])];

		if (!(e & PTE_PRESENT) || (e & PTE_PSE))
			return NULL;
		table = mm_table_virt(e);
	}
	return table;
}

uint64_t *mm_pte_entry(const void *va)
{
	uint64_t *l1 = mm_walk(va, 1);

	return l1 ? &l1[PT_INDEX(va, L1_SHIFT)] : NULL;
}

uint64_t mm_lookup_pte(const void *va)
{
	uint64_t *e = mm_pte_entry(va);

	return e ? *e : 0;
}

/* Whether va is mapped, by a 4 KiB page or a 2 MiB one. */
static bool mm_mapped(const void *va)
{
	uint64_t *l2 = mm_walk(va, 2);
	uint64_t l2e = l2 ? l2[PT_INDEX(va, L2_SHIFT)] : 0;

	if ((l2e & PTE_PRESENT) && (l2e & PTE_PSE))
		return true;
	return mm_lookup_pte(va) & PTE_PRESENT;
}

static int mm_update_va(const void *va, uint64_t pte)
{
	return guest_ops->mm.set_pte(va, pte);
}

int mm_map_page(void *va, bool present)
{
	return mm_update_va(va,
			    present ? (mm_machine_addr(va) & PTE_ADDR_MASK) |
					      PTE_KERNEL_RW
				    : 0);
}

/* Drop this vCPU's TLB entries (no other vCPU's). */
static int mm_flush_tlb_local(void)
{
	return guest_ops->mm.flush_tlb_local();
}

int mm_map_shared_info(void)
{
	/* No printk yet: the console comes after; report by return value. */
	int rc = guest_ops->mm.map_shared_info(mm_shared_info_page);

	if (rc)
		return rc;
	hyp_shared_info = (shared_info_t *)mm_shared_info_page;
	return 0;
}

/* Apply a batch of mmu_update requests. */
static int mm_flush_updates(mmu_update_t *req, unsigned int n, const char *what)
{
	unsigned int done = 0;
	int rc;

	if (!n)
		return 0;
	rc = guest_ops->mm.apply_updates(req, n, &done);
	if (rc)
		pr_err("mmu_update (%s) failed after %u of %u: %d\n", what,
		       done, n, rc);
	return rc;
}

/*
 * Requests batched into one mmu_update.  Shared: used at boot and by the
 * patcher, which runs on one vCPU at a time.
 */
static mmu_update_t mm_batch[PT_ENTRIES];
_Static_assert(SMPALT_TEXT_MAX / PAGE_SIZE <= PT_ENTRIES,
	       "the alias window is one L1 table");

/* A free, mapped frame for a new page table, zeroed (still writable). */
static uint64_t *mm_take_table_frame(unsigned long *next_table)
{
	uint64_t *table = hyp_pfn_to_virt(*next_table);

	/* PVH: free frames are under the boot tables' 2 MiB pages. */
	if (!mm_mapped(table)) {
		pr_err("no mapped frame left for an L1 table at pfn %lu\n",
		       *next_table);
		return NULL;
	}
	(*next_table)++;
	memset(table, 0, PAGE_SIZE);
	return table;
}

/*
 * Prepare a filled table frame (PV: make it read-only), then point *entry
 * at it: Xen validates a PV guest's table when it is hooked in, and
 * refuses it while any writable mapping of it exists.
 */
static int mm_hook_table(uint64_t *entry, uint64_t *table)
{
	int rc = guest_ops->mm.prepare_table(table);

	if (rc)
		return rc;
	mm_batch[0].ptr = mm_machine_addr(entry) | MMU_NORMAL_PT_UPDATE;
	mm_batch[0].val = (mm_machine_addr(table) & PTE_ADDR_MASK) | PTE_TABLE;
	return mm_flush_updates(mm_batch, 1, "hook table");
}

/*
 * Map every frame of [first, end) in the 2 MiB chunk starting at
 * chunk_pfn.  If the chunk has no L1 table yet, *next_table (a free,
 * mapped frame) becomes one: filled while still writable, then made
 * read-only, then hooked into the L2 table (Xen validates it then).
 */
static int mm_map_chunk(uint64_t *l2, unsigned long chunk_pfn,
			unsigned long end, unsigned long *next_table)
{
	void *chunk_va = hyp_pfn_to_virt(chunk_pfn);
	uint64_t *l2e = &l2[PT_INDEX(chunk_va, L2_SHIFT)];
	unsigned long pfn, n = 0;
	uint64_t *l1;

	if ((*l2e & PTE_PRESENT) && !(*l2e & PTE_PSE)) {
		/* Existing table: add the entries it lacks. */
		l1 = mm_table_virt(*l2e);
		for (pfn = chunk_pfn; pfn < end; pfn++) {
			uint64_t *e = &l1[pfn - chunk_pfn];

			if (*e & PTE_PRESENT)
				continue;
			mm_batch[n].ptr =
				mm_machine_addr(e) | MMU_NORMAL_PT_UPDATE;
			mm_batch[n].val =
				((uint64_t)hyp_pfn_to_mfn(pfn) << PAGE_SHIFT) |
				PTE_KERNEL_RW;
			n++;
		}
		return mm_flush_updates(mm_batch, n, "fill L1");
	}

	l1 = mm_take_table_frame(next_table);
	if (!l1)
		return -ENOMEM;
	for (pfn = chunk_pfn; pfn < end; pfn++)
		l1[pfn - chunk_pfn] =
			((uint64_t)hyp_pfn_to_mfn(pfn) << PAGE_SHIFT) |
			PTE_KERNEL_RW;
	return mm_hook_table(l2e, l1);
}

/* Map all frames up to nr_pages; returns the number of frames mapped. */
static unsigned long mm_map_memory(unsigned long nr_pages,
				   unsigned long *next_table)
{
	uint64_t *l2 = mm_walk((void *)SMPALT_VIRT_BASE, 2);
	unsigned long chunk;

	if (!l2) {
		pr_err("no L2 table above the image\n");
		return 0;
	}
	for (chunk = 0; chunk < nr_pages; chunk += PT_ENTRIES) {
		unsigned long end = MIN(chunk + PT_ENTRIES, nr_pages);

		if (mm_map_chunk(l2, chunk, end, next_table))
			return chunk;
	}
	/* Nothing past memory stays mapped, whatever the kind's boot tables. */
	guest_ops->mm.trim_boot_map(l2, chunk / PT_ENTRIES, MM_ALIAS_L2_SLOT);
	return nr_pages;
}

/* Clear the RW bit of every text page. */
static int mm_protect_text(void)
{
	unsigned int n = 0;
	char *va;

	for (va = __text_start; va < __text_end; va += PAGE_SIZE) {
		uint64_t *l1 = mm_walk(va, 1);
		uint64_t *e;

		if (!l1)
			return -EFAULT;
		e = &l1[PT_INDEX(va, L1_SHIFT)];
		mm_batch[n].ptr = mm_machine_addr(e) | MMU_NORMAL_PT_UPDATE;
		mm_batch[n].val = *e & ~PTE_RW;
		if (++n == ARRAY_SIZE(mm_batch)) {
			if (mm_flush_updates(mm_batch, n, "text RO"))
				return -EFAULT;
			n = 0;
		}
	}
	if (mm_flush_updates(mm_batch, n, "text RO"))
		return -EFAULT;
	/*
	 * mmu_update does not flush the TLB: stale writable entries could
	 * survive.  Only this vCPU runs now, so a local flush is enough.
	 */
	return mm_flush_tlb_local();
}

/* An empty L1 table for the alias window, in the last L2 slot. */
static int mm_alias_init(unsigned long *next_table)
{
	uint64_t *l2 = mm_walk((void *)MM_ALIAS_BASE, 2);
	uint64_t *l1;

	if (!l2 || (l2[MM_ALIAS_L2_SLOT] & PTE_PRESENT))
		return -EEXIST;
	l1 = mm_take_table_frame(next_table);
	if (!l1)
		return -ENOMEM;
	mm_alias_l1 = l1;
	return mm_hook_table(&l2[MM_ALIAS_L2_SLOT], l1);
}

int mm_init(void)
{
	const start_info_t *si = hyp_start_info;
	unsigned long nr_pages = si->nr_pages;
	unsigned long next_free = guest_ops->mm.first_free_pfn();
	unsigned long mapped;
	int rc;

	if (nr_pages > MM_MAX_PAGES) {
		pr_warn("%lu pages, mapping only the first %lu\n", nr_pages,
			MM_MAX_PAGES);
		nr_pages = MM_MAX_PAGES;
	}
	mapped = mm_map_memory(nr_pages, &next_free);
	if (mapped < nr_pages)
		pr_warn("mapped %lu of %lu pages\n", mapped, nr_pages);

	rc = mm_alias_init(&next_free);
	if (rc) {
		pr_err("no text alias window: %d\n", rc);
		return rc;
	}
	rc = mm_protect_text();
	if (rc) {
		pr_err("cannot make the text read-only: %d\n", rc);
		return rc;
	}
	/* From now on an overflow of vCPU 0's stack faults. */
	rc = mm_update_va(vcpu0_stack_guard, 0);
	if (rc)
		return rc;

	{
		static const struct page_alloc_events events = {
			.mask = vcpu_events_mask,
			.restore = vcpu_events_restore,
		};

		/* Frames, hence pages, are contiguous from next_free on. */
		page_alloc_init(hyp_pfn_to_virt(next_free),
				hyp_pfn_to_virt(mapped), &events);
	}
	pr_info("%lu MiB, text %lu KiB read-only, %lu pages free\n",
		(mapped * PAGE_SIZE) >> 20,
		(unsigned long)(__text_end - __text_start) >> 10,
		page_free_count());
	return 0;
}

static size_t mm_text_pages(void)
{
	return (size_t)(__text_end - __text_start) / PAGE_SIZE;
}

/*
 * The alias is only ever written through, never executed: map it NX, so
 * that a stray jump into the writable copy faults instead of running it.
 */
#define MM_ALIAS_PTE (PTE_KERNEL_RW | PTE_NX)

/* Point every alias entry at its text page (open) or at nothing. */
static int mm_alias_set(bool open)
{
	size_t i, n = mm_text_pages();

	for (i = 0; i < n; i++) {
		mm_batch[i].ptr =
			mm_machine_addr(&mm_alias_l1[i]) | MMU_NORMAL_PT_UPDATE;
		mm_batch[i].val =
			open ? (mm_machine_addr(__text_start + i * PAGE_SIZE) &
				PTE_ADDR_MASK) |
					MM_ALIAS_PTE
			     : 0;
	}
	return mm_flush_updates(mm_batch, (unsigned int)n,
				open ? "open text alias" : "close text alias");
}

int mm_text_open(void)
{
	int rc;

	if (mm_alias_open)
		return 0;
	rc = mm_alias_set(true);
	if (rc)
		return rc;
	mm_alias_open = true;
	return 0;
}

int mm_text_close(void)
{
	int rc;

	if (!mm_alias_open)
		return 0;
	rc = mm_alias_set(false);
	/*
	 * mmu_update does not flush: drop the alias from this vCPU's TLB
	 * (also after a failure: Xen may have cleared some entries).  No
	 * other vCPU ever touched the window, so a local flush is all.
	 */
	mm_flush_tlb_local();
	if (rc) {
		/*
		 * Some alias entries may still map the text writable: stay
		 * "open" so that the next close tries again, and say so.
		 */
		pr_err("text alias not closed: %d; the text stays writable through it\n",
		       rc);
		return rc;
	}
	mm_alias_open = false;
	return 0;
}

int mm_text_write(void *dst, const void *src, size_t len)
{
	uintptr_t start = (uintptr_t)dst;
	bool was_open = mm_alias_open;
	volatile uint8_t *alias;
	const uint8_t *from = src;
	size_t k;
	int rc;

	if (!len)
		return 0;
	if (start < (uintptr_t)__text_start ||
	    start + len > (uintptr_t)__text_end || start + len < start) {
		pr_err("refusing text write of %zu bytes at %p\n", len, dst);
		return -EFAULT;
	}
	rc = mm_text_open();
	if (rc)
		return rc;
	alias = (volatile uint8_t *)(MM_ALIAS_BASE +
				     (start - (uintptr_t)__text_start));
	for (k = 0; k < len; k++)
		alias[k] = from[k];
	if (!was_open)
		return mm_text_close();
	return 0;
}

void mm_text_sync(void)
{
	/*
	 * iretq to the next instruction: a serializing instruction that a
	 * PV kernel (ring 3) may execute, unlike cpuid (which Xen may trap).
	 * Needed because the new bytes were written through another linear
	 * address than the one that executes them.
	 */
	unsigned long tmp;

	__asm__ __volatile__("movl %%ss, %k0\n\t"
			     "pushq %0\n\t"
			     "leaq 8(%%rsp), %0\n\t"
			     "pushq %0\n\t"
			     "pushfq\n\t"
			     "movl %%cs, %k0\n\t"
			     "pushq %0\n\t"
			     "leaq 1f(%%rip), %0\n\t"
			     "pushq %0\n\t"
			     "iretq\n"
			     "1:"
			     : "=&r"(tmp)
			     :
			     : "memory", "cc");
}
