/* SPDX-License-Identifier: MIT */
/*
 * hypercall.h - typed hypercall wrappers.  This is the only place that
 * knows the hypercall page layout: hypercall nr lives at
 * hypercall_page + nr * HYPERCALL_STUB_SIZE.  Every wrapper returns 0 (or a
 * non-negative result) on success and -errno on failure, the same values
 * Xen returns.
 *
 * ABI (64-bit PV and PVH alike): arguments in rdi, rsi, rdx, r10, r8;
 * result in rax; the PV stub clobbers rcx and r11 (syscall); argument
 * registers are treated as clobbered too.  A PV guest's page is filled by
 * the domain builder, a PVH guest's by a write to Xen's MSR (pvh.c).
 */
#ifndef SMPALT_HYPERCALL_H
#define SMPALT_HYPERCALL_H

#include <xen/xen.h>

#include <smpalt/layout.h>

#define HYPERCALL_STUB_SIZE 32

/*
 * Address of hypercall `name`'s stub, for assembly that must jump there
 * itself (HYPERVISOR_iret, which cannot return to its caller).
 */
#define HYPERCALL_ENTRY(name) \
	(hypercall_page + __HYPERVISOR_##name * HYPERCALL_STUB_SIZE)

#ifndef __ASSEMBLY__

#include <stddef.h>
#include <stdint.h>

#include <xen/event_channel.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/memory.h>
#include <xen/sched.h>
#include <xen/vcpu.h>

extern char hypercall_page[PAGE_SIZE];

#define HYP_CALL_ASM "call hypercall_page+%c[hyp_off]"
#define HYP_OFF(nr) [hyp_off] "i"((nr)*HYPERCALL_STUB_SIZE)

#define hyp_call1(nr, a1)                                           \
	({                                                          \
		long __res, __d1;                                   \
		__asm__ __volatile__(HYP_CALL_ASM                   \
				     : "=a"(__res), "=D"(__d1)      \
				     : HYP_OFF(nr), "1"((long)(a1)) \
				     : "rcx", "r11", "memory");     \
		__res;                                              \
	})

#define hyp_call2(nr, a1, a2)                                              \
	({                                                                 \
		long __res, __d1, __d2;                                    \
		__asm__ __volatile__(HYP_CALL_ASM                          \
				     : "=a"(__res), "=D"(__d1), "=S"(__d2) \
				     : HYP_OFF(nr), "1"((long)(a1)),       \
				       "2"((long)(a2))                     \
				     : "rcx", "r11", "memory");            \
		__res;                                                     \
	})

#define hyp_call3(nr, a1, a2, a3)                                           \
	({                                                                  \
		long __res, __d1, __d2, __d3;                               \
		__asm__ __volatile__(HYP_CALL_ASM                           \
				     : "=a"(__res), "=D"(__d1), "=S"(__d2), \
				       "=d"(__d3)                           \
				     : HYP_OFF(nr), "1"((long)(a1)),        \
				       "2"((long)(a2)), "3"((long)(a3))     \
				     : "rcx", "r11", "memory");             \
		__res;                                                      \
	})

#define hyp_call4(nr, a1, a2, a3, a4)                                       \
	({                                                                  \
		long __res, __d1, __d2, __d3;                               \
		register long __a4 __asm__("r10") = (long)(a4);             \
		__asm__ __volatile__(HYP_CALL_ASM                           \
				     : "=a"(__res), "=D"(__d1), "=S"(__d2), \
				       "=d"(__d3), "+r"(__a4)               \
				     : HYP_OFF(nr), "1"((long)(a1)),        \
				       "2"((long)(a2)), "3"((long)(a3))     \
				     : "rcx", "r11", "memory");             \
		__res;                                                      \
	})

static inline long hyp_set_trap_table(const struct trap_info *table)
{
	return hyp_call1(__HYPERVISOR_set_trap_table, table);
}

static inline long hyp_mmu_update(mmu_update_t *req, unsigned int count,
				  unsigned int *done, domid_t dom)
{
	return hyp_call4(__HYPERVISOR_mmu_update, req, count, done, dom);
}

static inline long hyp_mmuext_op(struct mmuext_op *op, unsigned int count,
				 unsigned int *done, domid_t dom)
{
	return hyp_call4(__HYPERVISOR_mmuext_op, op, count, done, dom);
}

static inline long hyp_update_va_mapping(unsigned long va, uint64_t pte,
					 unsigned long flags)
{
	return hyp_call3(__HYPERVISOR_update_va_mapping, va, pte, flags);
}

static inline long hyp_xen_version(int cmd, void *arg)
{
	return hyp_call2(__HYPERVISOR_xen_version, cmd, arg);
}

static inline long hyp_vcpu_op(int cmd, unsigned int vcpu, void *arg)
{
	return hyp_call3(__HYPERVISOR_vcpu_op, cmd, vcpu, arg);
}

static inline long hyp_console_io(int cmd, unsigned int count, const char *str)
{
	return hyp_call3(__HYPERVISOR_console_io, cmd, count, str);
}

static inline long hyp_set_segment_base(unsigned int which, unsigned long base)
{
	return hyp_call2(__HYPERVISOR_set_segment_base, which, base);
}

static inline long hyp_sched_op(int cmd, void *arg)
{
	return hyp_call2(__HYPERVISOR_sched_op, cmd, arg);
}

static inline long hyp_callback_op(int cmd, const void *arg)
{
	return hyp_call2(__HYPERVISOR_callback_op, cmd, arg);
}

static inline long hyp_event_channel_op(int cmd, void *arg)
{
	return hyp_call2(__HYPERVISOR_event_channel_op, cmd, arg);
}

static inline long hyp_memory_op(unsigned int cmd, void *arg)
{
	return hyp_call2(__HYPERVISOR_memory_op, cmd, arg);
}

static inline long hyp_hvm_op(unsigned int cmd, void *arg)
{
	return hyp_call2(__HYPERVISOR_hvm_op, cmd, arg);
}

/* PVH: one HVM parameter of this domain; 0 or -errno. */
static inline long hyp_hvm_get_param(uint32_t index, uint64_t *value)
{
	struct xen_hvm_param p = {.domid = DOMID_SELF, .index = index};
	long rc = hyp_hvm_op(HVMOP_get_param, &p);

	*value = p.value;
	return rc;
}

static inline long hyp_hvm_set_param(uint32_t index, uint64_t value)
{
	struct xen_hvm_param p = {
		.domid = DOMID_SELF, .index = index, .value = value};

	return hyp_hvm_op(HVMOP_set_param, &p);
}

/* Convenience forms of the scheduler operations. */

/*
 * Sleep until an event is pending.  Xen unmasks event delivery for this
 * vCPU atomically with going to sleep, so the caller checks for work with
 * events masked and then blocks: no wakeup can be lost in between.
 */
static inline long hyp_sched_block(void)
{
	return hyp_sched_op(SCHEDOP_block, NULL);
}

/* Sleep until one of the ports is pending or Xen time reaches timeout. */
static inline long hyp_sched_poll(evtchn_port_t *ports, unsigned int nr,
				  uint64_t timeout_abs_ns)
{
	struct sched_poll poll = {.nr_ports = nr, .timeout = timeout_abs_ns};

	set_xen_guest_handle(poll.ports, ports);
	return hyp_sched_op(SCHEDOP_poll, &poll);
}

static inline long hyp_sched_shutdown(unsigned int reason)
{
	struct sched_shutdown sd = {.reason = reason};

	return hyp_sched_op(SCHEDOP_shutdown, &sd);
}

static inline long hyp_evtchn_send(evtchn_port_t port)
{
	struct evtchn_send send = {.port = port};

	return hyp_event_channel_op(EVTCHNOP_send, &send);
}

#endif /* __ASSEMBLY__ */
#endif /* SMPALT_HYPERCALL_H */
