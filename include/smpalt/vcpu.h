/* SPDX-License-Identifier: MIT */
/*
 * vcpu.h - per-vCPU state, indexed by vCPU id, and the event mask of the
 * running vCPU.
 *
 * Each vCPU finds its own struct vcpu_local through its GS base (set with
 * set_segment_base when it comes up); vcpu_self() is one %gs load.
 * vCPU 0 is the control thread: it runs init, the xenstore client and the
 * watches.  Secondaries get their stack from the page allocator
 * and their GS base, trap table and callbacks before they unmask events.
 */
#ifndef SMPALT_VCPU_H
#define SMPALT_VCPU_H

#include <smpalt/layout.h>

/* One vcpu_info per vCPU in shared_info: this is the guest's maximum. */
#define VCPU_MAX 32

#ifndef __ASSEMBLY__

#include <stdbool.h>
#include <stdint.h>

#include <smpalt/hypervisor.h>

_Static_assert(VCPU_MAX <= XEN_LEGACY_MAX_VCPUS,
	       "vcpu_info lives in shared_info: at most 32 vCPUs");

struct vcpu_local {
	struct vcpu_local *self; /* must stay first: read as %gs:0 */
	unsigned int id;
	/* Stack bounds, for the backtrace and overflow checks. */
	uintptr_t stack_lo, stack_hi;
	/* Nesting depth of the fatal trap path (a fault while dumping). */
	unsigned int trap_depth;
	/* VIRQ_TIMER for this vCPU; set by evtchn_init_vcpu(). */
	evtchn_port_t timer_port;
	/* Secondaries: the port vCPU 0 kicks them through (evtchn_bind_ipi). */
	evtchn_port_t ipi_port;
	/* Written by vCPU 0, read by the secondary: "go offline". */
	volatile bool down_requested;
	/* Written by the secondary: running its loop with events on. */
	volatile bool alive;
	/* VCPUOP_initialise done (it succeeds once per vCPU). */
	bool initialised;
	/* Failed VCPUOP_initialise calls in a row, and when to try again. */
	unsigned int init_failures;
	uint64_t init_retry_at;
};

extern struct vcpu_local vcpu_locals[VCPU_MAX];

/* The boot stack of vCPU 0 and the guard page below it (head.S). */
extern char vcpu0_stack[VCPU_STACK_SIZE];
extern char vcpu0_stack_guard[PAGE_SIZE];

static inline struct vcpu_local *vcpu_self(void)
{
	struct vcpu_local *self;

	__asm__("movq %%gs:0,%0" : "=r"(self));
	return self;
}

static inline unsigned int vcpu_id(void)
{
	return vcpu_self()->id;
}

static inline struct vcpu_info *vcpu_info_of(unsigned int id)
{
	return &hyp_shared_info->vcpu_info[id];
}

static inline struct vcpu_info *vcpu_info_self(void)
{
	return vcpu_info_of(vcpu_id());
}

/*
 * Event delivery on the running vCPU, the PV "interrupt flag".
 * vcpu_events_mask() returns the previous state for vcpu_events_restore().
 */
unsigned long vcpu_events_mask(void);
void vcpu_events_restore(unsigned long was_masked);
void vcpu_events_unmask(void);

/*
 * Sleep until an event arrives.  Call with events masked after finding
 * nothing to do; returns with events unmasked, after the upcall ran.
 */
void vcpu_block(void);

/*
 * maxvcpus of this domain: VCPUOP_is_up answers -ENOENT for ids at or
 * beyond it.  Probed once at boot (vcpu_probe_max()).
 */
extern unsigned int vcpu_max;
unsigned int vcpu_probe_max(void);

/* Xen's word on vCPU id (VCPUOP_is_up): 1 up, 0 down, -errno if it cannot say.
 */
long vcpu_xen_is_up(unsigned int id);

/*
 * Secondary vCPUs, driven by vCPU 0 only.  All return 0 or -errno and log
 * failures.
 *
 * vcpu_bring_up(): VCPUOP_initialise the first time (own stack, GS base,
 * same page tables), VCPUOP_up, then wait (up to 10 s) until the vCPU runs
 * its loop.  0 means Xen runs the vCPU (VCPUOP_is_up): the caller counts
 * it online.  That includes a vCPU still silent after the wait (logged as
 * slow; it reports later) and one that was already up in Xen (not started
 * again).  A failed VCPUOP_initialise frees the stack pages and makes the
 * vCPU unusable for a back-off (2 s doubling to 64 s): -EAGAIN until then.
 * vcpu_request_down(): ask it to VCPUOP_down itself (it resumes at that
 * point when brought up again).  vcpu_wait_down(): until VCPUOP_is_up
 * says 0 (up to 5 s).
 */
int vcpu_bring_up(unsigned int id);
int vcpu_request_down(unsigned int id);
int vcpu_wait_down(unsigned int id);
/* False while a failed VCPUOP_initialise backs off (see above). */
bool vcpu_usable(unsigned int id);
/* Wake a secondary from its idle block (an IPI event). */
void vcpu_kick(unsigned int id);

/*
 * Hooks the layers above register at init, before the first VCPUOP_up.
 *
 * vcpu_set_start_hook(): run on each secondary as it comes up, events
 * masked, after its trap table, callbacks and timer mode are set: the
 * event channels bind its ports there.  0 or -errno (the vCPU panics).
 *
 * vcpu_set_idle_work(): what a secondary's idle loop runs between looks at
 * its down request: run_batch() runs one batch and says whether there was
 * any; pending() says whether work waits (asked with events masked, so a
 * kick after it still wakes the block).  Without it the vCPU only blocks.
 */
typedef int (*vcpu_start_fn)(struct vcpu_local *self);
void vcpu_set_start_hook(vcpu_start_fn start);

struct vcpu_idle_work {
	bool (*run_batch)(void);
	bool (*pending)(void);
};
void vcpu_set_idle_work(const struct vcpu_idle_work *work);

/* Entered from head.S on a new secondary's own stack, %rdi = its id. */
void __attribute__((noreturn)) vcpu_secondary_main(unsigned int id);

/* vCPU 0 at boot: its struct vcpu_local and GS base. */
int vcpu_boot_init(void);

#endif /* __ASSEMBLY__ */
#endif /* SMPALT_VCPU_H */
