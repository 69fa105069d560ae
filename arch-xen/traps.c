// SPDX-License-Identifier: MIT
/*
 * traps.c - the exception entries and the event upcall of the running
 * vCPU (installed by the kind's primitives, guest_ops.h: PV's trap table
 * and callbacks in pv.c, PVH's IDT and callback vector in pvh.c), and the
 * fatal-exception report.
 *
 * The guest has no user mode and no recoverable fault: any exception is a
 * bug.  The report is for a human and for the harness (which looks for
 * "RIP:"), then the domain stops with SHUTDOWN_crash.
 */
#define pr_fmt(fmt) "traps: " fmt

#include <smpalt/traps.h>
#include <smpalt/guest_ops.h>
#include <smpalt/hypercall.h>
#include <smpalt/kernel.h>
#include <smpalt/ksyms.h>
#include <smpalt/panic.h>
#include <smpalt/printk.h>
#include <smpalt/x86.h>
#include <smpalt/vcpu.h>

/* Longest frame-pointer chain printed. */
#define TRAP_BACKTRACE_MAX 32

/* x86 page-fault error code bits. */
#define PF_PRESENT (1u << 0)
#define PF_WRITE (1u << 1)
#define PF_INSN (1u << 4)

/* The event upcall's handler, registered by the event-channel driver. */
static trap_upcall_fn trap_upcall_handler;

/* The exceptions a report can name (PV and PVH deliver the same ones). */
struct trap_desc {
	uint8_t vector;
	const char *name;
};

static const struct trap_desc trap_descs[] = {
	{X86_EXC_DE, "#DE divide error"},
	{X86_EXC_DB, "#DB debug"},
	{X86_EXC_BP, "#BP breakpoint"},
	{X86_EXC_OF, "#OF overflow"},
	{X86_EXC_BR, "#BR bound range"},
	{X86_EXC_UD, "#UD invalid opcode"},
	{X86_EXC_NM, "#NM device not available"},
	{X86_EXC_TS, "#TS invalid TSS"},
	{X86_EXC_NP, "#NP segment not present"},
	{X86_EXC_SS, "#SS stack segment"},
	{X86_EXC_GP, "#GP general protection"},
	{X86_EXC_PF, "#PF page fault"},
	{X86_EXC_MF, "#MF x87 error"},
	{X86_EXC_AC, "#AC alignment check"},
	{X86_EXC_MC, "#MC machine check"},
	{X86_EXC_XM, "#XM SIMD error"},
};

int traps_init_vcpu(void)
{
	return guest_ops->trap.init_vcpu();
}

int traps_init_callbacks(void)
{
	return guest_ops->trap.init_callbacks();
}

void traps_set_upcall(trap_upcall_fn fn)
{
	trap_upcall_handler = fn;
}

void trap_upcall(struct trap_regs *regs)
{
	(void)regs;
	/*
	 * Events are unmasked only after the handler is registered
	 * (start_kernel, vcpu_secondary_main), so it is there by now.
	 */
	trap_upcall_handler();
}

static const char *trap_name(uint64_t vector)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(trap_descs); i++)
		if (trap_descs[i].vector == vector)
			return trap_descs[i].name;
	return "unknown";
}

/* One backtrace line: address, and function+offset when known. */
static void trap_print_address(uintptr_t addr, const char *note)
{
	uintptr_t off;
	const char *fn = ksym_lookup(addr, &off);

	if (fn)
		printk(KERN_EMERG "  [<%016lx>] %s+%#lx%s\n",
		       (unsigned long)addr, fn, (unsigned long)off, note);
	else
		printk(KERN_EMERG "  [<%016lx>]%s\n", (unsigned long)addr,
		       note);
}

/* The backtrace from a frame pointer, within this vCPU's stack. */
static void trap_print_backtrace(uintptr_t rbp)
{
	const struct vcpu_local *self = vcpu_self();
	int depth;

	printk(KERN_EMERG "Call trace (frame pointers):\n");
	for (depth = 0; depth < TRAP_BACKTRACE_MAX; depth++) {
		const uintptr_t *frame = (const uintptr_t *)rbp;

		/* Follow only frames inside this vCPU's stack, upwards. */
		if (rbp < self->stack_lo ||
		    rbp + 2 * sizeof(uintptr_t) > self->stack_hi ||
		    (rbp & (sizeof(uintptr_t) - 1)))
			break;
		trap_print_address(frame[1], "");
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
}

static void __noreturn trap_die(void)
{
	printk(KERN_EMERG "smpalt: crashed, shutting down (crash)\n");
	printk_flush(PRINTK_DRAIN_TIMEOUT_NS);
	for (;;)
		hyp_sched_shutdown(SHUTDOWN_crash);
}

void trap_handle(struct trap_regs *r)
{
	struct vcpu_local *self = vcpu_self();

	/* A fault while reporting a fault: stop without more output. */
	if (++self->trap_depth > 1)
		for (;;)
			hyp_sched_shutdown(SHUTDOWN_crash);
	printk_enter_panic_mode();

	printk(KERN_EMERG
	       "smpalt: fatal exception %lu (%s), error code %#lx, on vCPU %u\n",
	       (unsigned long)r->vector, trap_name(r->vector),
	       (unsigned long)r->error_code, self->id);
	if (r->vector == X86_EXC_PF) {
		unsigned long cr2 = guest_ops->trap.read_cr2();

		printk(KERN_EMERG "CR2: %016lx (%s, %s, %s)\n", cr2,
		       r->error_code & PF_PRESENT ? "protection"
						  : "not present",
		       r->error_code & PF_WRITE ? "write" : "read",
		       r->error_code & PF_INSN ? "fetch" : "data");
	}
	printk(KERN_EMERG "RIP: %04lx:%016lx RSP: %04lx:%016lx RFLAGS: %08lx\n",
	       (unsigned long)r->cs, (unsigned long)r->rip,
	       (unsigned long)r->ss, (unsigned long)r->rsp,
	       (unsigned long)r->rflags);
	printk(KERN_EMERG "RAX: %016lx RBX: %016lx RCX: %016lx\n",
	       (unsigned long)r->rax, (unsigned long)r->rbx,
	       (unsigned long)r->rcx);
	printk(KERN_EMERG "RDX: %016lx RSI: %016lx RDI: %016lx\n",
	       (unsigned long)r->rdx, (unsigned long)r->rsi,
	       (unsigned long)r->rdi);
	printk(KERN_EMERG "RBP: %016lx R8:  %016lx R9:  %016lx\n",
	       (unsigned long)r->rbp, (unsigned long)r->r8,
	       (unsigned long)r->r9);
	printk(KERN_EMERG "R10: %016lx R11: %016lx R12: %016lx\n",
	       (unsigned long)r->r10, (unsigned long)r->r11,
	       (unsigned long)r->r12);
	printk(KERN_EMERG "R13: %016lx R14: %016lx R15: %016lx\n",
	       (unsigned long)r->r13, (unsigned long)r->r14,
	       (unsigned long)r->r15);
	trap_print_address(r->rip, " (faulting instruction)");
	trap_print_backtrace(r->rbp);
	trap_die();
}

void trap_failsafe(void)
{
	printk_enter_panic_mode();
	printk(KERN_EMERG
	       "smpalt: failsafe callback on vCPU %u: Xen could not restore a segment register\n",
	       vcpu_id());
	trap_die();
}

/* panic()'s halt: the backtrace from its frame, then a crash shutdown. */
static void __noreturn trap_panic_halt(uintptr_t rbp)
{
	trap_print_backtrace(rbp);
	hyp_shutdown(SHUTDOWN_crash, "crash");
}

void traps_boot_init(void)
{
	panic_set_halt(trap_panic_halt);
}
