// SPDX-License-Identifier: MIT
/*
 * pv.c - the guest's primitives as a 64-bit PV domain (guest_ops.h).
 *
 * Xen owns the page tables (every entry written through mmu_update or
 * update_va_mapping, validated by Xen), the segment bases, the trap table
 * and the event callbacks; the event mask is a byte in vcpu_info.  head.S
 * enters pv_start() in long mode with start_info; it chooses these
 * primitives, then runs the shared start_kernel().
 */
#include <smpalt/guest_ops.h>
#include <smpalt/atomic.h>
#include <smpalt/hypercall.h>
#include <smpalt/hypervisor.h>
#include <smpalt/kernel.h>
#include <smpalt/printk.h>
#include <smpalt/string.h>
#include <smpalt/traps.h>
#include <smpalt/vcpu.h>
#include <smpalt/x86.h>

/* Invalidate one TLB entry on this vCPU only. */
#define PV_FLUSH_LOCAL (UVMF_INVLPG | UVMF_LOCAL)

/* trap_info.flags: bits 0-1 the DPL, bit 2 masks events on entry. */
#define PV_TRAP_DPL_KERNEL 0
#define PV_TRAP_DPL_ANY 3
#define PV_TRAP_MASK_EVENTS 4

/* Xen emulates the next instruction with the guest's view (ud2; "xen"). */
#define PV_FORCED_EMULATION "ud2a; .ascii \"xen\"; "

/* Xen's version hypercall, used only to force pending events in. */
#define PV_FORCE_UPCALL_CMD XENVER_version

void __noreturn start_kernel(start_info_t *si);
void __noreturn pv_start(start_info_t *si);

/* Entered from head.S on vCPU 0's boot stack, events masked. */
void __noreturn pv_start(start_info_t *si)
{
	/* Before anything else: all that follows calls through guest_ops. */
	hyp_guest_init(&guest_pv_ops);
	start_kernel(si);
}

/* Page tables */

static int pv_mm_set_pte(const void *va, uint64_t pte)
{
	long rc = hyp_update_va_mapping((unsigned long)va, pte, PV_FLUSH_LOCAL);

	if (rc)
		pr_err("mm: update_va_mapping %p -> %#llx failed: %ld\n", va,
		       (unsigned long long)pte, rc);
	return (int)rc;
}

static int pv_mm_apply_updates(mmu_update_t *req, unsigned int n,
			       unsigned int *done)
{
	return (int)hyp_mmu_update(req, n, done, DOMID_SELF);
}

static int pv_mm_flush_tlb_local(void)
{
	struct mmuext_op op = {.cmd = MMUEXT_TLB_FLUSH_LOCAL};

	return (int)hyp_mmuext_op(&op, 1, NULL, DOMID_SELF);
}

/* Xen refuses a table frame while a writable mapping of it exists. */
static int pv_mm_prepare_table(uint64_t *table)
{
	uint64_t ma = (uint64_t)hyp_virt_to_mfn(table) << PAGE_SHIFT;

	return pv_mm_set_pte(table, ma | PTE_KERNEL_RO);
}

/* Xen's boot tables map only the start of our memory: nothing to undo. */
static void pv_mm_trim_boot_map(uint64_t *l2, unsigned long from,
				unsigned long end)
{
	(void)l2;
	(void)from;
	(void)end;
}

/* The boot page tables are the last thing the domain builder put there. */
static unsigned long pv_mm_first_free_pfn(void)
{
	const start_info_t *si = hyp_start_info;

	return hyp_virt_to_pfn((void *)si->pt_base) + si->nr_pt_frames;
}

static int pv_mm_map_shared_info(void *page)
{
	uint64_t pte = hyp_start_info->shared_info | PTE_KERNEL_RW;

	/* No printk yet: the console comes after; report by return value. */
	return (int)hyp_update_va_mapping((unsigned long)page, pte,
					  PV_FLUSH_LOCAL);
}

/* The running vCPU */

/*
 * The forced-emulation prefix (ud2; "xen") makes Xen emulate the cpuid
 * with the guest's policy (a plain cpuid may reach the hardware).
 */
static void pv_cpu_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t *a,
			 uint32_t *b, uint32_t *c, uint32_t *d)
{
	X86_CPUID(PV_FORCED_EMULATION, leaf, subleaf, a, b, c, d);
}

static int pv_cpu_set_gs_base(struct vcpu_local *v)
{
	return (int)hyp_set_segment_base(SEGBASE_GS_KERNEL, (unsigned long)v);
}

static unsigned long pv_events_mask(void)
{
	struct vcpu_info *vi = vcpu_info_self();
	unsigned long was = vi->evtchn_upcall_mask;

	vi->evtchn_upcall_mask = 1;
	/* Nothing after this point may be moved before the mask. */
	barrier();
	return was;
}

static void pv_events_unmask(void)
{
	struct vcpu_info *vi = vcpu_info_self();

	/* Everything before this point stays inside the masked region. */
	barrier();
	vi->evtchn_upcall_mask = 0;
	/*
	 * An event that arrived while masked only set upcall_pending: Xen
	 * does not deliver it by itself when we clear the mask.  Check
	 * after the store (compiler barrier: if Xen sets pending after our
	 * load it sees the mask clear and delivers on its own) and let any
	 * hypercall return deliver it.
	 */
	barrier();
	if (vi->evtchn_upcall_pending)
		hyp_xen_version(PV_FORCE_UPCALL_CMD, NULL);
}

/*
 * SCHEDOP_block unmasks events and checks upcall_pending in one step
 * inside Xen, so an event that arrived after the caller's last check
 * makes it return at once: no lost wakeup.  The upcall runs on the way
 * back, before this returns.
 */
static void pv_events_block(void)
{
	hyp_sched_block();
}

extern char vcpu_secondary_entry[];
extern char hyp_event_callback[], hyp_failsafe_callback[];

/* Used by vCPU 0 only, one bring-up at a time. */
static struct vcpu_guest_context pv_ctxt;

/* In kernel mode on the flat selectors, at head.S's secondary entry. */
static void *pv_cpu_initial_context(const struct vcpu_local *v)
{
	memset(&pv_ctxt, 0, sizeof(pv_ctxt));
	pv_ctxt.flags = VGCF_in_kernel;
	pv_ctxt.user_regs.cs = FLAT_KERNEL_CS;
	pv_ctxt.user_regs.ss = FLAT_KERNEL_SS;
	pv_ctxt.user_regs.ds = FLAT_KERNEL_DS;
	pv_ctxt.user_regs.es = FLAT_KERNEL_DS;
	pv_ctxt.user_regs.rip = (unsigned long)vcpu_secondary_entry;
	pv_ctxt.user_regs.rsp = v->stack_hi;
	pv_ctxt.user_regs.rdi = v->id;
	pv_ctxt.user_regs.rflags = X86_RFLAGS_INITIAL;
	pv_ctxt.kernel_ss = FLAT_KERNEL_SS;
	pv_ctxt.kernel_sp = v->stack_hi;
	pv_ctxt.event_callback_eip = (unsigned long)hyp_event_callback;
	pv_ctxt.failsafe_callback_eip = (unsigned long)hyp_failsafe_callback;
	pv_ctxt.gs_base_kernel = (unsigned long)v;
	pv_ctxt.ctrlreg[3] = xen_pfn_to_cr3(
		hyp_virt_to_mfn((void *)hyp_start_info->pt_base));
	return &pv_ctxt;
}

/* Exceptions and the event upcall */

#define DECLARE_TRAP(name) extern char name[]
DECLARE_TRAP(trap_divide_error);
DECLARE_TRAP(trap_debug);
DECLARE_TRAP(trap_int3);
DECLARE_TRAP(trap_overflow);
DECLARE_TRAP(trap_bounds);
DECLARE_TRAP(trap_invalid_op);
DECLARE_TRAP(trap_device_not_available);
DECLARE_TRAP(trap_invalid_tss);
DECLARE_TRAP(trap_segment_not_present);
DECLARE_TRAP(trap_stack_segment);
DECLARE_TRAP(trap_general_protection);
DECLARE_TRAP(trap_page_fault);
DECLARE_TRAP(trap_coprocessor_error);
DECLARE_TRAP(trap_alignment_check);
DECLARE_TRAP(trap_machine_check);
DECLARE_TRAP(trap_simd_error);

struct pv_trap {
	uint8_t vector;
	uint8_t dpl;
	char *entry;
};

/* NMI comes through a callback, #DF never reaches a PV guest. */
static const struct pv_trap pv_traps[] = {
	{X86_EXC_DE, PV_TRAP_DPL_KERNEL, trap_divide_error},
	{X86_EXC_DB, PV_TRAP_DPL_KERNEL, trap_debug},
	/* int3 and into come from our own ring-3 code: DPL 3. */
	{X86_EXC_BP, PV_TRAP_DPL_ANY, trap_int3},
	{X86_EXC_OF, PV_TRAP_DPL_ANY, trap_overflow},
	{X86_EXC_BR, PV_TRAP_DPL_KERNEL, trap_bounds},
	{X86_EXC_UD, PV_TRAP_DPL_KERNEL, trap_invalid_op},
	{X86_EXC_NM, PV_TRAP_DPL_KERNEL, trap_device_not_available},
	{X86_EXC_TS, PV_TRAP_DPL_KERNEL, trap_invalid_tss},
	{X86_EXC_NP, PV_TRAP_DPL_KERNEL, trap_segment_not_present},
	{X86_EXC_SS, PV_TRAP_DPL_KERNEL, trap_stack_segment},
	{X86_EXC_GP, PV_TRAP_DPL_KERNEL, trap_general_protection},
	{X86_EXC_PF, PV_TRAP_DPL_KERNEL, trap_page_fault},
	{X86_EXC_MF, PV_TRAP_DPL_KERNEL, trap_coprocessor_error},
	{X86_EXC_AC, PV_TRAP_DPL_KERNEL, trap_alignment_check},
	{X86_EXC_MC, PV_TRAP_DPL_KERNEL, trap_machine_check},
	{X86_EXC_XM, PV_TRAP_DPL_KERNEL, trap_simd_error},
};

/* One table serves every vCPU (Xen copies it); zero entry terminates. */
static struct trap_info pv_trap_table[ARRAY_SIZE(pv_traps) + 1];

static int pv_trap_init_vcpu(void)
{
	size_t i;
	long rc;

	for (i = 0; i < ARRAY_SIZE(pv_traps); i++) {
		pv_trap_table[i].vector = pv_traps[i].vector;
		pv_trap_table[i].flags = pv_traps[i].dpl | PV_TRAP_MASK_EVENTS;
		pv_trap_table[i].cs = FLAT_KERNEL_CS;
		pv_trap_table[i].address = (unsigned long)pv_traps[i].entry;
	}
	rc = hyp_set_trap_table(pv_trap_table);
	if (rc)
		pr_err("traps: set_trap_table on vCPU %u: %ld\n", vcpu_id(),
		       rc);
	return (int)rc;
}

/* Each vCPU registers its own (entry.S's entries). */
static int pv_trap_init_callbacks(void)
{
	struct callback_register event = {
		.type = CALLBACKTYPE_event,
		.flags = CALLBACKF_mask_events,
		.address = (xen_callback_t)hyp_event_callback,
	};
	struct callback_register failsafe = {
		.type = CALLBACKTYPE_failsafe,
		.flags = CALLBACKF_mask_events,
		.address = (xen_callback_t)hyp_failsafe_callback,
	};
	long rc;

	rc = hyp_callback_op(CALLBACKOP_register, &event);
	if (rc) {
		pr_err("traps: register event callback: %ld\n", rc);
		return (int)rc;
	}
	rc = hyp_callback_op(CALLBACKOP_register, &failsafe);
	if (rc) {
		pr_err("traps: register failsafe callback: %ld\n", rc);
		return (int)rc;
	}
	return 0;
}

/* Xen saves the faulting address in vcpu_info (a PV guest cannot read %cr2). */
static unsigned long pv_trap_read_cr2(void)
{
	return vcpu_info_self()->arch.cr2;
}

const struct guest_ops guest_pv_ops = GUEST_OPS(pv, false);
