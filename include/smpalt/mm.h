/* SPDX-License-Identifier: MIT */
/*
 * mm.h - guest page tables (PV: Xen validates every update), the
 * shared_info mapping, read-only kernel text with a temporary writable
 * alias for the patcher; the frames left over go to the page allocator
 * (page_alloc.h).
 */
#ifndef SMPALT_MM_H
#define SMPALT_MM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <smpalt/layout.h>
#include <smpalt/x86.h>

/* Kernel text bounds from the linker script (page aligned). */
extern char __text_start[], __text_end[];
extern char __image_start[], _end[];

/* Map start_info->shared_info onto a spare page; sets hyp_shared_info. */
int mm_map_shared_info(void);

/*
 * Map the rest of the guest's memory, make the text read-only, put a guard
 * page below the boot stack and hand the free frames to the allocator.
 */
int mm_init(void);

/*
 * Map the page at va (its own frame, read-write) or unmap it, on this
 * vCPU's TLB at once: guard pages.  0 or -errno (logged).
 */
int mm_map_page(void *va, bool present);

/* The PTE mapping va (0 if unmapped). */
uint64_t mm_lookup_pte(const void *va);

/* The L1 entry that maps va, or NULL if no L1 table covers it. */
uint64_t *mm_pte_entry(const void *va);

/*
 * The text, read-only, is written only through a writable alias of all of
 * it in a 2 MiB window of its own (one L1 table, above mapped memory).
 * mm_text_open() maps the window (one batched mmu_update, writable and
 * NX: it is data, never executed), mm_text_close() unmaps it and flushes
 * this vCPU's TLB; it returns the mmu_update error (logged) if the window
 * could not be unmapped, and then stays open for the next close to retry.
 * Only one vCPU may patch at a time, and only that vCPU ever touches the
 * window.
 *
 * PVH: the same window in our own tables: opening is one store per text
 * page into the window's L1 table, closing the stores and a CR3 reload.
 * No hypercall at all, where PV pays two mmu_update batches a switch
 * (one entry per text page each, validated by Xen) and an
 * MMUEXT_TLB_FLUSH_LOCAL; the bytes, their checks and the serializing
 * step are the same.
 */
int mm_text_open(void);
int mm_text_close(void);

/*
 * Write len bytes at dst inside [__text_start, __text_end) through the
 * alias (opened and closed around this write if it is not open); anything
 * outside is refused with -EFAULT.  The caller serializes (mm_text_sync())
 * before executing the new bytes.
 */
int mm_text_write(void *dst, const void *src, size_t len);

/* Serializing instruction after text writes. */
void mm_text_sync(void);

#endif /* SMPALT_MM_H */
