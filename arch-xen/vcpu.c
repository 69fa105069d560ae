// SPDX-License-Identifier: MIT
/*
 * vcpu.c - per-vCPU state and the event mask of the running vCPU.
 *
 * PV: the mask is vcpu_info's evtchn_upcall_mask.  PVH: Xen ignores that
 * mask for an HVM vCPU and injects the upcall vector when rflags.IF is 1,
 * so masking is cli, unmasking sti, and blocking sti;hlt (Xen turns the
 * hlt into a block that ends when an event is pending).
 */
#include <smpalt/vcpu.h>
#include <smpalt/hypercall.h>
#include <smpalt/atomic.h>
#include <smpalt/errno.h>
#include <smpalt/pvh.h>
#include <smpalt/x86.h>

struct vcpu_local vcpu_locals[VCPU_MAX];
unsigned int vcpu_max = 1;

/* Xen's version hypercall, used only to force pending events in. */
#define VCPU_FORCE_UPCALL_CMD XENVER_version

int vcpu_boot_init(void)
{
	struct vcpu_local *v = &vcpu_locals[0];

	v->self = v;
	v->id = 0;
	v->stack_lo = (uintptr_t)vcpu0_stack;
	v->stack_hi = (uintptr_t)vcpu0_stack + VCPU_STACK_SIZE;
	/* From here on vcpu_self() works on this vCPU. */
	if (hyp_pvh) {
		pvh_wrmsr(X86_MSR_GS_BASE, (unsigned long)v);
		return 0;
	}
	return (int)hyp_set_segment_base(SEGBASE_GS_KERNEL, (unsigned long)v);
}

long vcpu_xen_is_up(unsigned int id)
{
	long rc = hyp_vcpu_op(VCPUOP_is_up, id, NULL);

	return rc > 0 ? 1 : rc;
}

unsigned int vcpu_probe_max(void)
{
	unsigned int id;

	for (id = 1; id < VCPU_MAX; id++) {
		long rc = hyp_vcpu_op(VCPUOP_is_up, id, NULL);

		if (rc == -ENOENT)
			break;
	}
	vcpu_max = id;
	return id;
}

unsigned long vcpu_events_mask(void)
{
	struct vcpu_info *vi;
	unsigned long was;

	if (hyp_pvh) {
		unsigned long flags;

		/* The memory clobber keeps the masked region after cli. */
		__asm__ __volatile__("pushfq\n\tpopq %0\n\tcli"
				     : "=r"(flags)
				     :
				     : "memory");
		return !(flags & X86_RFLAGS_IF);
	}
	vi = vcpu_info_self();
	was = vi->evtchn_upcall_mask;

	vi->evtchn_upcall_mask = 1;
	/* Nothing after this point may be moved before the mask. */
	barrier();
	return was;
}

void vcpu_events_unmask(void)
{
	struct vcpu_info *vi;

	if (hyp_pvh) {
		/*
		 * A pending event is injected after sti by Xen itself (it
		 * watches for the interrupt window): nothing to force.
		 */
		__asm__ __volatile__("sti" ::: "memory");
		return;
	}
	vi = vcpu_info_self();

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
		hyp_xen_version(VCPU_FORCE_UPCALL_CMD, NULL);
}

void vcpu_events_restore(unsigned long was_masked)
{
	if (!was_masked)
		vcpu_events_unmask();
}

void vcpu_block(void)
{
	/*
	 * SCHEDOP_block unmasks events and checks upcall_pending in one step
	 * inside Xen, so an event that arrived after the caller's last check
	 * makes it return at once: no lost wakeup.  The upcall runs on the
	 * way back, before this returns.
	 *
	 * PVH: sti;hlt (pvh_safe_halt()).  An interrupt cannot arrive
	 * between the two (the sti shadow; trap_upcall() copes with an
	 * emulated processor that lets one in), Xen blocks the vCPU on hlt
	 * unless an event is pending, and the upcall runs when it wakes,
	 * before this returns.  A call, not inline: the hlt has one address.
	 */
	if (hyp_pvh) {
		pvh_safe_halt();
		return;
	}
	hyp_sched_block();
}
