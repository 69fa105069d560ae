/* SPDX-License-Identifier: MIT */
/*
 * guest_ops.h - what differs between the two kinds of guest this image
 * boots as, chosen once at boot (Linux's pv_ops shape).
 *
 * A PV guest (pv.c) lives in Xen's page tables and talks to Xen for its
 * mappings, its GS base, its event mask and its trap table.  A PVH guest
 * (pvh.c) owns its page tables, IDT and MSRs and takes events as an
 * interrupt vector.  Each kind's entry (pv_start(), pvh_start()) hands its
 * table to hyp_guest_init() before anything else runs; from then on the
 * arch layer calls the primitives through guest_ops and never asks which
 * kind it is.  Every entry is set in both tables.
 */
#ifndef SMPALT_GUEST_OPS_H
#define SMPALT_GUEST_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include <xen/xen.h>

struct vcpu_local;

/* Page tables (mm.c builds the layout, these write it). */
struct guest_mm_ops {
	/* One PTE for va, this vCPU's TLB entry for it dropped. */
	int (*set_pte)(const void *va, uint64_t pte);
	/*
	 * A batch of page-table entry writes in mmu_update's request form;
	 * *done counts the requests applied.  0 or -errno.
	 */
	int (*apply_updates)(mmu_update_t *req, unsigned int n,
			     unsigned int *done);
	/* Drop this vCPU's TLB entries (no other vCPU's). */
	int (*flush_tlb_local)(void);
	/* Make a filled table frame fit to be hooked in (PV: read-only). */
	int (*prepare_table)(uint64_t *table);
	/*
	 * Once memory is mapped through l2 (the image's L2 table): undo what
	 * the boot tables mapped from slot `from` up to (not including)
	 * `end`.
	 */
	void (*trim_boot_map)(uint64_t *l2, unsigned long from,
			      unsigned long end);
	/* The first frame after the image and the boot data behind it. */
	unsigned long (*first_free_pfn)(void);
	/* Put shared_info at page (its own frame is then unused). */
	int (*map_shared_info)(void *page);
};

/* The running vCPU: CPUID, GS base, and a secondary's start. */
struct guest_cpu_ops {
	/* CPUID as Xen lets this guest see it, Xen's own leaves included. */
	void (*cpuid)(uint32_t leaf, uint32_t subleaf, uint32_t *a, uint32_t *b,
		      uint32_t *c, uint32_t *d);
	/* vCPU 0 at boot: GS base = v (vcpu_self()).  0 or -errno. */
	int (*set_gs_base)(struct vcpu_local *v);
	/*
	 * The register state VCPUOP_initialise starts secondary v with
	 * (stack, id and GS base from v, events masked); vCPU 0 only, one
	 * bring-up at a time (the context is one static buffer).
	 */
	void *(*initial_context)(const struct vcpu_local *v);
};

/*
 * Event delivery on the running vCPU: vcpu.h's vcpu_events_mask(),
 * vcpu_events_unmask() and vcpu_block() (Linux: pv_ops.irq).
 */
struct guest_event_ops {
	unsigned long (*mask)(void);
	void (*unmask)(void);
	void (*block)(void);
};

/* Exceptions and the event upcall of the running vCPU (traps.c). */
struct guest_trap_ops {
	/* Install the exception entries (PV: trap table, PVH: IDT). */
	int (*init_vcpu)(void);
	/* Have Xen deliver events to the upcall entry.  0 or -errno. */
	int (*init_callbacks)(void);
	/* The faulting address of the last page fault. */
	unsigned long (*read_cr2)(void);
};

struct guest_ops {
	/*
	 * Xen translates guest frames (PVH): machine frame == guest frame,
	 * no P2M or M2P (Linux: XENFEAT_auto_translated_physmap).
	 */
	bool auto_translated;
	struct guest_mm_ops mm;
	struct guest_cpu_ops cpu;
	struct guest_event_ops events;
	struct guest_trap_ops trap;
};

/*
 * A kind's table: its primitives are named <kind>_<area>_<op> (pv.c:
 * pv_mm_set_pte, pvh.c: pvh_mm_set_pte), so that a kind lacking one does
 * not compile, and no entry is ever left NULL.
 */
/* clang-format off */
#define GUEST_OP(kind, area, op) .op = kind##_##area##_##op
#define GUEST_OPS(kind, translated)					\
	{								\
		.auto_translated = (translated),			\
		.mm = {GUEST_OP(kind, mm, set_pte),			\
		       GUEST_OP(kind, mm, apply_updates),		\
		       GUEST_OP(kind, mm, flush_tlb_local),		\
		       GUEST_OP(kind, mm, prepare_table),		\
		       GUEST_OP(kind, mm, trim_boot_map),		\
		       GUEST_OP(kind, mm, first_free_pfn),		\
		       GUEST_OP(kind, mm, map_shared_info)},		\
		.cpu = {GUEST_OP(kind, cpu, cpuid),			\
			GUEST_OP(kind, cpu, set_gs_base),		\
			GUEST_OP(kind, cpu, initial_context)},		\
		.events = {GUEST_OP(kind, events, mask),		\
			   GUEST_OP(kind, events, unmask),		\
			   GUEST_OP(kind, events, block)},		\
		.trap = {GUEST_OP(kind, trap, init_vcpu),		\
			 GUEST_OP(kind, trap, init_callbacks),		\
			 GUEST_OP(kind, trap, read_cr2)},		\
	}
/* clang-format on */

/*
 * The running kind's table: set by hyp_guest_init() (hypervisor.h, kept
 * in hypervisor.c) at the entry, never changed after.
 */
extern const struct guest_ops *guest_ops;

/* The two kinds (pv.c, pvh.c). */
extern const struct guest_ops guest_pv_ops;
extern const struct guest_ops guest_pvh_ops;

#endif /* SMPALT_GUEST_OPS_H */
