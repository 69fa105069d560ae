// SPDX-License-Identifier: MIT
/*
 * pvh.c - the same kernel as a PVH guest: its boot, and its primitives
 * (guest_ops.h).
 *
 * pvh_head.S brings vCPU 0 to long mode at the link address and calls
 * pvh_start() with the guest-physical address of struct hvm_start_info.
 * Here: the choice of these primitives, the hypercall page (through Xen's
 * MSR), the mappings the PV domain builder would have made (none of the
 * identity map stays; the rings above 1 GiB get a direct map), and the
 * boot facts (memory size, command line, xenstore and console rings and
 * ports from the HVM parameters) presented in start_info's shape, which
 * the kernel reads as it does on PV.  Then the shared start_kernel().
 *
 * The primitives: the page tables are ours (stores, invlpg, a CR3
 * reload; Xen checks nothing), the GS base an MSR, exceptions come
 * through our IDT, and events as an interrupt vector that Xen injects
 * while rflags.IF is 1 (it ignores evtchn_upcall_mask for an HVM vCPU):
 * masking is cli, unmasking sti, blocking sti;hlt.
 */
#include <smpalt/pvh.h>
#include <smpalt/errno.h>
#include <smpalt/guest_ops.h>
#include <smpalt/hypercall.h>
#include <smpalt/hypervisor.h>
#include <smpalt/kernel.h>
#include <smpalt/mm.h>
#include <smpalt/printk.h>
#include <smpalt/traps.h>
#include <smpalt/vcpu.h>
#include <smpalt/x86.h>
#include <smpalt/string.h>

#include <xen/arch-x86/hvm/start_info.h>
#include <xen/hvm/hvm_vcpu.h>

/* Xen's CPUID leaf with the hypercall page MSR (ebx). */
#define PVH_XEN_LEAF_HYPERCALL 2
/* What the PV domain builder writes into start_info's magic. */
#define PVH_START_INFO_MAGIC "xen-3.0-x86_64"
#define PVH_DIRECTMAP_L4_SLOT PT_INDEX(HYP_PVH_DIRECTMAP, L4_SHIFT)
#define PVH_PTE_LARGE (PTE_KERNEL_RW | PTE_PSE)
#define PVH_PTE_TABLE (PTE_KERNEL_RW)

/* The image's end (smpalt.lds.S). */
extern char _end[];

/* The first frame after the image and everything the loader put after it. */
static unsigned long pvh_first_free_pfn;

void __noreturn start_kernel(start_info_t *si);

/* The boot facts, in the shape a PV guest gets them. */
static start_info_t pvh_start_info;

/* The direct map of [1 GiB, 4 GiB): one L3, an L2 of 2 MiB pages per GiB. */
static uint64_t pvh_dm_l3[PT_ENTRIES] __aligned(PAGE_SIZE)
	__section(".bss.page_aligned");
static uint64_t
	pvh_dm_l2[HYP_PVH_DIRECTMAP_GIB][PT_ENTRIES] __aligned(PAGE_SIZE)
		__section(".bss.page_aligned");

/* Before paging leaves the first GiB, physical and virtual are one step. */
static void *pvh_phys(uint64_t pa)
{
	return (void *)(SMPALT_VIRT_BASE + pa);
}

static uint64_t pvh_pa(const void *va)
{
	return (uintptr_t)va - SMPALT_VIRT_BASE;
}

/* Nothing to report with yet: stop the vCPU so that Xen crashes us. */
static void __noreturn pvh_early_crash(void)
{
	for (;;)
		__builtin_trap();
}

/* Xen fills hypercall_page when we write its frame to Xen's MSR. */
static int pvh_hypercall_init(void)
{
	uint32_t base = hyp_cpuid_base(PVH_XEN_LEAF_HYPERCALL), a, b, c, d;

	if (!base)
		return -1;
	hyp_cpuid(base + PVH_XEN_LEAF_HYPERCALL, 0, &a, &b, &c, &d);
	pvh_wrmsr(b, pvh_pa(hypercall_page));
	return 0;
}

/*
 * Map [1 GiB, 4 GiB) at HYP_PVH_DIRECTMAP with 2 MiB pages, then drop the
 * identity map the entry needed: from here on guest address 0 faults, as
 * it does for a PV guest.  Only this vCPU runs: a local flush is all.
 */
static void pvh_map_boot(void)
{
	unsigned int gib, slot;

	for (gib = 1; gib < HYP_PVH_DIRECTMAP_GIB; gib++) {
		for (slot = 0; slot < PT_ENTRIES; slot++)
			pvh_dm_l2[gib][slot] = (((uint64_t)gib << L3_SHIFT) |
						((uint64_t)slot << L2_SHIFT)) |
					       PVH_PTE_LARGE;
		pvh_dm_l3[gib] = pvh_pa(pvh_dm_l2[gib]) | PVH_PTE_TABLE;
	}
	pvh_l4[PVH_DIRECTMAP_L4_SLOT] = pvh_pa(pvh_dm_l3) | PVH_PTE_TABLE;
	pvh_l4[0] = 0;
	pvh_flush_tlb_local();
}

static uint64_t pvh_param(uint32_t index)
{
	uint64_t v = 0;

	if (hyp_hvm_get_param(index, &v))
		return 0;
	return v;
}

static unsigned long pvh_end_pfn(uint64_t pa, uint64_t len)
{
	return (unsigned long)((pa + len + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

/*
 * start_info from hvm_start_info and the HVM parameters.  Memory: the RAM
 * range of the memory map that holds the image; the free frames start
 * after the image and what the loader put behind it (this structure, the
 * command line, the memory map, modules).
 */
static void pvh_fill_start_info(const struct hvm_start_info *hsi,
				uint64_t hsi_pa)
{
	start_info_t *si = &pvh_start_info;
	unsigned long free = pvh_end_pfn(pvh_pa(_end), 0);
	uint32_t i;

	strlcpy(si->magic, PVH_START_INFO_MAGIC, sizeof(si->magic));
	free = MAX(free, pvh_end_pfn(hsi_pa, sizeof(*hsi)));
	if (hsi->cmdline_paddr) {
		const char *line = pvh_phys(hsi->cmdline_paddr);

		size_t len = strlcpy((char *)si->cmd_line, line,
				     sizeof(si->cmd_line));

		free = MAX(free, pvh_end_pfn(hsi->cmdline_paddr, len + 1));
	}
	if (hsi->nr_modules)
		free = MAX(
			free,
			pvh_end_pfn(hsi->modlist_paddr,
				    hsi->nr_modules *
					    sizeof(struct hvm_modlist_entry)));
	si->nr_pages = free;
	if (hsi->version >= 1 && hsi->memmap_entries) {
		const struct hvm_memmap_table_entry *map =
			pvh_phys(hsi->memmap_paddr);

		free = MAX(free,
			   pvh_end_pfn(hsi->memmap_paddr,
				       hsi->memmap_entries * sizeof(*map)));
		for (i = 0; i < hsi->memmap_entries; i++)
			if (map[i].type == XEN_HVM_MEMMAP_TYPE_RAM &&
			    map[i].addr <= SMPALT_LOAD_PADDR &&
			    map[i].addr + map[i].size > SMPALT_LOAD_PADDR)
				si->nr_pages = (map[i].addr + map[i].size) >>
					       PAGE_SHIFT;
	}
	pvh_first_free_pfn = free;
	si->store_mfn = pvh_param(HVM_PARAM_STORE_PFN);
	si->store_evtchn = (uint32_t)pvh_param(HVM_PARAM_STORE_EVTCHN);
	si->console.domU.mfn = pvh_param(HVM_PARAM_CONSOLE_PFN);
	si->console.domU.evtchn = (uint32_t)pvh_param(HVM_PARAM_CONSOLE_EVTCHN);
	si->pt_base = (unsigned long)pvh_l4;
}

void __noreturn pvh_start(uint32_t hsi_pa);

void __noreturn pvh_start(uint32_t hsi_pa)
{
	const struct hvm_start_info *hsi = pvh_phys(hsi_pa);

	/* Before anything else: hyp_cpuid() below is already the PVH one. */
	hyp_guest_init(&guest_pvh_ops);
	if (hsi->magic != XEN_HVM_START_MAGIC_VALUE || pvh_hypercall_init())
		pvh_early_crash();
	pvh_map_boot();
	pvh_fill_start_info(hsi, hsi_pa);
	start_kernel(&pvh_start_info);
}

/* Page tables */

/* The entry is ours: a store, then drop the old one from this TLB. */
static int pvh_mm_set_pte(const void *va, uint64_t pte)
{
	uint64_t *e = mm_pte_entry(va);

	if (!e) {
		pr_err("mm: no L1 table for %p\n", va);
		return -EFAULT;
	}
	*e = pte;
	pvh_invlpg(va);
	return 0;
}

/* Our own tables: each request is a store to the entry it names. */
static int pvh_mm_apply_updates(mmu_update_t *req, unsigned int n,
				unsigned int *done)
{
	for (*done = 0; *done < n; (*done)++) {
		uint64_t ptr = req[*done].ptr;
		char *page = hyp_mfn_to_virt(ptr >> PAGE_SHIFT);

		*(volatile uint64_t *)(page +
				       (ptr & (PAGE_SIZE - 1) &
					~(uint64_t)(sizeof(uint64_t) - 1))) =
			req[*done].val;
	}
	return 0;
}

static int pvh_mm_flush_tlb_local(void)
{
	pvh_flush_tlb_local();
	return 0;
}

/* No validation, and the patcher writes the alias's L1: stays writable. */
static int pvh_mm_prepare_table(uint64_t *table)
{
	(void)table;
	return 0;
}

/*
 * The boot tables' 2 MiB pages past memory go, as on PV.  2 MiB pages
 * were also replaced by L1 tables under us (mm.c): drop all from the TLB.
 */
static void pvh_mm_trim_boot_map(uint64_t *l2, unsigned long from,
				 unsigned long end)
{
	unsigned long slot;

	for (slot = from; slot < end; slot++)
		if (l2[slot] & PTE_PSE)
			l2[slot] = 0;
	pvh_flush_tlb_local();
}

static unsigned long pvh_mm_first_free_pfn(void)
{
	return pvh_first_free_pfn;
}

/* Xen puts shared_info in place of the page's frame. */
static int pvh_mm_map_shared_info(void *page)
{
	struct xen_add_to_physmap map = {
		.domid = DOMID_SELF,
		.space = XENMAPSPACE_shared_info,
		.idx = 0,
		.gpfn = hyp_virt_to_pfn(page),
	};

	return (int)hyp_memory_op(XENMEM_add_to_physmap, &map);
}

/* The running vCPU */

/* Every cpuid exits to Xen; PV's forced-emulation prefix would be #UD. */
static void pvh_cpu_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t *a,
			  uint32_t *b, uint32_t *c, uint32_t *d)
{
	X86_CPUID("", leaf, subleaf, a, b, c, d);
}

static int pvh_cpu_set_gs_base(struct vcpu_local *v)
{
	pvh_wrmsr(X86_MSR_GS_BASE, (unsigned long)v);
	return 0;
}

static unsigned long pvh_events_mask(void)
{
	unsigned long flags;

	/* The memory clobber keeps the masked region after cli. */
	__asm__ __volatile__("pushfq\n\tpopq %0\n\tcli"
			     : "=r"(flags)
			     :
			     : "memory");
	return !(flags & X86_RFLAGS_IF);
}

/*
 * A pending event is injected after sti by Xen itself (it watches for
 * the interrupt window): nothing to force.
 */
static void pvh_events_unmask(void)
{
	__asm__ __volatile__("sti" ::: "memory");
}

/* pvh_events_block(): sti;hlt, in entry_pvh.S (pvh.h). */

/* Used by vCPU 0 only, one bring-up at a time. */
static struct vcpu_hvm_context pvh_ctxt;

/*
 * Long mode at once, with this vCPU's own control registers (same page
 * tables, paging, WP, NX), interrupts off; %rsi carries the GS base for
 * pvh_secondary_entry.
 */
static void *pvh_cpu_initial_context(const struct vcpu_local *v)
{
	struct vcpu_hvm_x86_64 *r = &pvh_ctxt.cpu_regs.x86_64;

	memset(&pvh_ctxt, 0, sizeof(pvh_ctxt));
	pvh_ctxt.mode = VCPU_HVM_MODE_64B;
	r->rip = (unsigned long)pvh_secondary_entry;
	r->rsp = v->stack_hi;
	r->rdi = v->id;
	r->rsi = (unsigned long)v;
	r->rflags = X86_RFLAGS_INITIAL;
	r->cr0 = pvh_read_cr0();
	r->cr3 = hyp_virt_to_mfn((void *)hyp_start_info->pt_base) << PAGE_SHIFT;
	r->cr4 = pvh_read_cr4();
	r->efer = pvh_rdmsr(X86_MSR_EFER);
	return &pvh_ctxt;
}

/* Exceptions and the event upcall */

/* A 64-bit interrupt gate (interrupts off on entry), DPL 0. */
struct pvh_idt_gate {
	uint16_t offset_lo, selector;
	uint8_t ist, type;
	uint16_t offset_mid;
	uint32_t offset_hi, reserved;
} __attribute__((packed));
#define PVH_IDT_INTERRUPT_GATE 0x8e
/* HVM_PARAM_CALLBACK_IRQ: the type in the top byte (params.h's mask). */
#define PVH_CALLBACK_TYPE_SHIFT 56
#define PVH_IDT_ENTRIES 256

/* One IDT for every vCPU, filled once by vCPU 0 before any other runs. */
static struct pvh_idt_gate pvh_idt[PVH_IDT_ENTRIES] __aligned(16);
static bool pvh_idt_filled;

static void pvh_idt_set(unsigned int vector, uint64_t entry)
{
	struct pvh_idt_gate *g = &pvh_idt[vector];

	g->offset_lo = (uint16_t)entry;
	g->selector = PVH_GDT_CS;
	g->ist = 0;
	g->type = PVH_IDT_INTERRUPT_GATE;
	g->offset_mid = (uint16_t)(entry >> 16);
	g->offset_hi = (uint32_t)(entry >> 32);
	g->reserved = 0;
}

static int pvh_trap_init_vcpu(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed))
	idtr = {sizeof(pvh_idt) - 1, (uint64_t)pvh_idt};
	unsigned int v;

	if (!pvh_idt_filled) {
		for (v = 0; v < TRAP_PVH_EXCEPTIONS; v++)
			pvh_idt_set(v, pvh_trap_entries[v]);
		pvh_idt_set(TRAP_PVH_UPCALL_VECTOR, (uint64_t)pvh_upcall_entry);
		pvh_idt_filled = true;
	}
	__asm__ __volatile__("lidt %0" ::"m"(idtr));
	return 0;
}

/* Domain-wide: each vCPU gets the vector for its own events. */
static int pvh_trap_init_callbacks(void)
{
	long rc;

	if (vcpu_id())
		return 0;
	rc = hyp_hvm_set_param(HVM_PARAM_CALLBACK_IRQ,
			       ((uint64_t)HVM_PARAM_CALLBACK_TYPE_VECTOR
				<< PVH_CALLBACK_TYPE_SHIFT) |
				       TRAP_PVH_UPCALL_VECTOR);
	if (rc)
		pr_err("traps: set the event callback vector: %ld\n", rc);
	return (int)rc;
}

static unsigned long pvh_trap_read_cr2(void)
{
	return pvh_read_cr2();
}

const struct guest_ops guest_pvh_ops = GUEST_OPS(pvh, true);
