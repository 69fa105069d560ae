// SPDX-License-Identifier: MIT
/*
 * smp.c - secondary vCPUs: bring-up, their idle loop, going down.
 *
 * vCPU 0 drives everything (drivers/vcpu_watch.c decides what); a
 * secondary only initialises itself and then idles until told to go
 * down.  A vCPU that calls VCPUOP_down resumes right after that call when
 * VCPUOP_up brings it back, so the offline path loops into the online one.
 */
#include "errno.h"
#include "evtchn.h"
#include "hypercall.h"
#include "kernel.h"
#include "mm.h"
#include "printk.h"
#include "string.h"
#include "time.h"
#include "traps.h"
#include "work.h"
#include "vcpu.h"

/* How long vCPU 0 waits for a secondary to come up or go down. */
#define SMP_WAIT_NS (5 * NSEC_PER_SEC)
/* Poll period while waiting. */
#define SMP_POLL_NS (1 * NSEC_PER_MSEC)
/* rflags of a new vCPU: only the always-one bit (IF clear). */
#define SMP_INITIAL_RFLAGS 0x2

extern char vcpu_secondary_entry[];
extern char hyp_event_callback[], hyp_failsafe_callback[];

/* Used by vCPU 0 only, one bring-up at a time. */
static struct vcpu_guest_context smp_ctxt;

static int smp_initialise(unsigned int id)
{
	struct vcpu_local *v = &vcpu_locals[id];
	/* One more page below the stack, unmapped: an overflow faults. */
	char *guard = page_alloc_contig(VCPU_STACK_SIZE / PAGE_SIZE + 1);
	char *stack = guard + PAGE_SIZE;
	long rc;

	if (!guard) {
		pr_err("vcpu: no stack for vCPU %u\n", id);
		return -ENOMEM;
	}
	rc = hyp_update_va_mapping((unsigned long)guard, 0,
				   UVMF_INVLPG | UVMF_LOCAL);
	if (rc)
		pr_warn("vcpu: no guard page below vCPU %u's stack: %ld\n", id,
			rc);
	v->self = v;
	v->id = id;
	v->stack_lo = (uintptr_t)stack;
	v->stack_hi = (uintptr_t)stack + VCPU_STACK_SIZE;
	/* It must not take an upcall before it installed its own handlers. */
	vcpu_info_of(id)->evtchn_upcall_mask = 1;

	memset(&smp_ctxt, 0, sizeof(smp_ctxt));
	smp_ctxt.flags = VGCF_in_kernel;
	smp_ctxt.user_regs.cs = FLAT_KERNEL_CS;
	smp_ctxt.user_regs.ss = FLAT_KERNEL_SS;
	smp_ctxt.user_regs.ds = FLAT_KERNEL_DS;
	smp_ctxt.user_regs.es = FLAT_KERNEL_DS;
	smp_ctxt.user_regs.rip = (unsigned long)vcpu_secondary_entry;
	smp_ctxt.user_regs.rsp = v->stack_hi;
	smp_ctxt.user_regs.rdi = id;
	smp_ctxt.user_regs.rflags = SMP_INITIAL_RFLAGS;
	smp_ctxt.kernel_ss = FLAT_KERNEL_SS;
	smp_ctxt.kernel_sp = v->stack_hi;
	smp_ctxt.event_callback_eip = (unsigned long)hyp_event_callback;
	smp_ctxt.failsafe_callback_eip = (unsigned long)hyp_failsafe_callback;
	smp_ctxt.gs_base_kernel = (unsigned long)v;
	smp_ctxt.ctrlreg[3] = xen_pfn_to_cr3(
		hyp_virt_to_mfn((void *)hyp_start_info->pt_base));

	rc = hyp_vcpu_op(VCPUOP_initialise, id, &smp_ctxt);
	if (rc && rc != -EEXIST) {
		pr_err("vcpu: VCPUOP_initialise(%u): %ld\n", id, rc);
		return (int)rc;
	}
	v->initialised = true;
	return 0;
}

int vcpu_bring_up(unsigned int id)
{
	struct vcpu_local *v = &vcpu_locals[id];
	uint64_t deadline;
	long rc;

	if (id == 0 || id >= vcpu_max || id >= VCPU_MAX)
		return -EINVAL;
	if (!v->initialised) {
		rc = smp_initialise(id);
		if (rc)
			return (int)rc;
	}
	v->down_requested = false;
	v->alive = false;
	rc = hyp_vcpu_op(VCPUOP_up, id, NULL);
	if (rc) {
		pr_err("vcpu: VCPUOP_up(%u): %ld\n", id, rc);
		return (int)rc;
	}
	/* Online means running its loop with its handlers installed. */
	deadline = time_now_ns() + SMP_WAIT_NS;
	while (!v->alive) {
		if (time_now_ns() >= deadline) {
			pr_err("vcpu: vCPU %u did not come up\n", id);
			return -ETIMEDOUT;
		}
		time_sleep_ns(SMP_POLL_NS);
	}
	return 0;
}

int vcpu_request_down(unsigned int id)
{
	struct vcpu_local *v = &vcpu_locals[id];

	if (id == 0 || id >= VCPU_MAX || !v->initialised)
		return -EINVAL;
	/*
	 * The flag is stored before the event is sent (the hypercall is a
	 * full barrier): the woken vCPU sees it.
	 */
	v->down_requested = true;
	return evtchn_send(v->ipi_port);
}

void vcpu_kick(unsigned int id)
{
	if (id && id < VCPU_MAX && vcpu_locals[id].initialised)
		hyp_evtchn_send(vcpu_locals[id].ipi_port);
}

int vcpu_wait_down(unsigned int id)
{
	uint64_t deadline = time_now_ns() + SMP_WAIT_NS;

	for (;;) {
		long rc = hyp_vcpu_op(VCPUOP_is_up, id, NULL);

		if (rc == 0)
			return 0;
		if (rc < 0) {
			pr_err("vcpu: VCPUOP_is_up(%u): %ld\n", id, rc);
			return (int)rc;
		}
		if (time_now_ns() >= deadline) {
			pr_err("vcpu: vCPU %u did not go down\n", id);
			return -ETIMEDOUT;
		}
		time_sleep_ns(SMP_POLL_NS);
	}
}

static int smp_init_self(struct vcpu_local *self)
{
	struct evtchn_bind_ipi ipi = {.vcpu = self->id};
	long rc;

	rc = traps_init_vcpu();
	if (!rc)
		rc = evtchn_init_vcpu();
	if (!rc)
		rc = time_init_vcpu();
	if (rc)
		return (int)rc;
	rc = hyp_event_channel_op(EVTCHNOP_bind_ipi, &ipi);
	if (rc) {
		pr_err("vcpu: bind IPI for vCPU %u: %ld\n", self->id, rc);
		return (int)rc;
	}
	self->ipi_port = ipi.port;
	evtchn_set_vcpu(ipi.port, self->id);
	/* No handler: the kick is only latched, and wakes vcpu_block(). */
	evtchn_unmask(ipi.port);
	return 0;
}

void vcpu_secondary_main(unsigned int id)
{
	struct vcpu_local *self = vcpu_self();

	if (self->id != id || smp_init_self(self))
		panic("vCPU %u failed to initialise", id);

	for (;;) {
		/* Running (again): tell vCPU 0, then take events. */
		self->alive = true;
		vcpu_events_unmask();
		for (;;) {
			/* Work first, in batches, looking up between them. */
			if (!self->down_requested && work_run_batch())
				continue;
			vcpu_events_mask();
			/* Checked masked: a kick after this wakes the block. */
			if (self->down_requested)
				break;
			if (work_pending()) {
				vcpu_events_unmask();
				continue;
			}
			vcpu_block();
		}
		/* Events stay masked until we come back. */
		self->down_requested = false;
		self->alive = false;
		hyp_vcpu_op(VCPUOP_down, id, NULL);
		/* VCPUOP_up brought us back here. */
	}
}
