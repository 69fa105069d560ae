// SPDX-License-Identifier: MIT
/*
 * vcpu.c - per-vCPU state and the event mask of the running vCPU.
 *
 * The mask itself is the kind's (guest_ops.h): PV, vcpu_info's
 * evtchn_upcall_mask (pv.c); PVH, rflags.IF, since Xen ignores that mask
 * for an HVM vCPU and injects the upcall vector when IF is 1 (pvh.c).
 */
#include <smpalt/vcpu.h>
#include <smpalt/hypercall.h>
#include <smpalt/errno.h>
#include <smpalt/guest_ops.h>

struct vcpu_local vcpu_locals[VCPU_MAX];
unsigned int vcpu_max = 1;

int vcpu_boot_init(void)
{
	struct vcpu_local *v = &vcpu_locals[0];

	v->self = v;
	v->id = 0;
	v->stack_lo = (uintptr_t)vcpu0_stack;
	v->stack_hi = (uintptr_t)vcpu0_stack + VCPU_STACK_SIZE;
	/* From here on vcpu_self() works on this vCPU. */
	return guest_ops->cpu.set_gs_base(v);
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

/*
 * Mask, unmask and block are called often (every lock that masks events,
 * every idle loop): one indirect jump each, what the test of a flag and
 * a branch cost before, and the ordering each needs is in its kind's
 * implementation (pv.c, pvh.c).
 */
unsigned long vcpu_events_mask(void)
{
	return guest_ops->events.mask();
}

void vcpu_events_unmask(void)
{
	guest_ops->events.unmask();
}

void vcpu_events_restore(unsigned long was_masked)
{
	if (!was_masked)
		vcpu_events_unmask();
}

void vcpu_block(void)
{
	guest_ops->events.block();
}
