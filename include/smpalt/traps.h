/* SPDX-License-Identifier: MIT */
/*
 * traps.h - exception handling.  Every exception is fatal: the handler
 * prints the vector, error code, all registers and a frame-pointer
 * backtrace, then shuts the domain down with SHUTDOWN_crash.
 */
#ifndef SMPALT_TRAPS_H
#define SMPALT_TRAPS_H

/* Vector value entry.S stores for the event upcall (not an exception). */
#define TRAP_VECTOR_UPCALL 0xffff

/* PVH: the IDT vector Xen injects for the event upcall. */
#define TRAP_PVH_UPCALL_VECTOR 0xf3
/* PVH: exceptions 0..19 have IDT entries (entry_pvh.S). */
#define TRAP_PVH_EXCEPTIONS 20

#ifndef __ASSEMBLY__

#include <stdint.h>

/*
 * Saved state, as built by entry.S: general registers (pushed last, so
 * first here), the vector and error code (0 if none), then the frame Xen
 * bounced to us (rcx and r11, which Xen also pushes, are popped first and
 * saved with the others).
 */
struct trap_regs {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* vCPU 0 at boot, once vcpu_self() works: panic() halts through us. */
void traps_boot_init(void);

/* Install the trap table of the running vCPU (PVH: load the IDT). */
int traps_init_vcpu(void);

/*
 * Register the running vCPU's event upcall and failsafe callbacks with
 * Xen (entry.S's hyp_event_callback, hyp_failsafe_callback).  PVH: vCPU 0
 * sets the domain's callback vector (every vCPU gets it); nothing on the
 * others.
 */
int traps_init_callbacks(void);

/*
 * What the event upcall runs, events masked: the event-channel driver's
 * dispatch, registered before any vCPU unmasks events.
 */
typedef void (*trap_upcall_fn)(void);
void traps_set_upcall(trap_upcall_fn fn);

/* Called from entry.S. */
void trap_handle(struct trap_regs *regs);
void trap_upcall(struct trap_regs *regs);
void trap_failsafe(void);

#endif /* __ASSEMBLY__ */
#endif /* SMPALT_TRAPS_H */
